/* prove_ops.c - the ops the prover knows, as terms over one element
 * (note [proving a rule] in prove.h): arithmetic over the reals or
 * float32, the element-wise and broadcasting ops, and the functions the
 * solver does not know, with their axioms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove_impl.h"

/* ---- arithmetic ---- */

/* A double as an exact decimal rational ("-12345/100000"), from its
 * shortest round-tripping spelling, so that 1e-05 is 1/100000. */
static void decimal_rational(double f, char *out, size_t size)
{
    char text[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof text, "%.*e", prec - 1, f);
        if (strtod(text, NULL) == f)
            break;
    }
    char digits[40];
    int nd = 0, exp10 = 0;
    const char *p = text;
    bool neg = *p == '-';
    p += neg;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    digits[nd] = '\0';
    if (*p == 'e')
        exp10 = atoi(p + 1);
    int shift = exp10 - (nd - 1); /* value = digits * 10^shift */
    int n = snprintf(out, size, "%s%s", neg ? "-" : "", digits);
    if (shift >= 0)
        for (int i = 0; i < shift && n + 1 < (int)size; i++)
            out[n++] = '0', out[n] = '\0';
    else {
        n += snprintf(out + n, size - (size_t)n, "/1");
        for (int i = 0; i < -shift && n + 1 < (int)size; i++)
            out[n++] = '0', out[n] = '\0';
    }
}

Z3_ast prove_num(Encoder *e, double f)
{
    if (e->ieee)
        return Z3_mk_fpa_numeral_float(e->z, (float)f, e->sort);
    char text[800];
    decimal_rational(f, text, sizeof text);
    return Z3_mk_numeral(e->z, text, e->sort);
}

Z3_ast prove_add(Encoder *e, Z3_ast a, Z3_ast b)
{
    return e->ieee ? Z3_mk_fpa_add(e->z, e->rm, a, b) : Z3_mk_add(e->z, 2, (Z3_ast[]){a, b});
}

Z3_ast prove_sub(Encoder *e, Z3_ast a, Z3_ast b)
{
    return e->ieee ? Z3_mk_fpa_sub(e->z, e->rm, a, b) : Z3_mk_sub(e->z, 2, (Z3_ast[]){a, b});
}

Z3_ast prove_mul(Encoder *e, Z3_ast a, Z3_ast b)
{
    return e->ieee ? Z3_mk_fpa_mul(e->z, e->rm, a, b) : Z3_mk_mul(e->z, 2, (Z3_ast[]){a, b});
}

/* Over the reals a division is recorded in the domain: divisor not 0. */
Z3_ast prove_div(Encoder *e, Z3_ast a, Z3_ast b)
{
    if (e->ieee)
        return Z3_mk_fpa_div(e->z, e->rm, a, b);
    prove_add_cond(e, Z3_mk_not(e->z, Z3_mk_eq(e->z, b, prove_num(e, 0))), true);
    return Z3_mk_div(e->z, a, b);
}

Z3_ast prove_neg(Encoder *e, Z3_ast a)
{
    return e->ieee ? Z3_mk_fpa_neg(e->z, a) : Z3_mk_unary_minus(e->z, a);
}

Z3_ast prove_cmp(Encoder *e, int op, Z3_ast a, Z3_ast b)
{
    Z3_context z = e->z;
    switch ((graft_cmp_op)op) {
    case GRAFT_CMP_EQ:
        return e->ieee ? Z3_mk_fpa_eq(z, a, b) : Z3_mk_eq(z, a, b);
    case GRAFT_CMP_NE:
        return Z3_mk_not(z, e->ieee ? Z3_mk_fpa_eq(z, a, b) : Z3_mk_eq(z, a, b));
    case GRAFT_CMP_LT:
        return e->ieee ? Z3_mk_fpa_lt(z, a, b) : Z3_mk_lt(z, a, b);
    case GRAFT_CMP_LE:
        return e->ieee ? Z3_mk_fpa_leq(z, a, b) : Z3_mk_le(z, a, b);
    case GRAFT_CMP_GT:
        return e->ieee ? Z3_mk_fpa_gt(z, a, b) : Z3_mk_gt(z, a, b);
    case GRAFT_CMP_GE:
        return e->ieee ? Z3_mk_fpa_geq(z, a, b) : Z3_mk_ge(z, a, b);
    }
    return Z3_mk_false(z);
}

Z3_ast prove_same(Encoder *e, Z3_ast a, Z3_ast b)
{
    if (!e->ieee)
        return Z3_mk_eq(e->z, a, b);
    Z3_ast nans = Z3_mk_and(e->z, 2, (Z3_ast[]){Z3_mk_fpa_is_nan(e->z, a),
                                                Z3_mk_fpa_is_nan(e->z, b)});
    return Z3_mk_or(e->z, 2, (Z3_ast[]){nans, Z3_mk_fpa_eq(e->z, a, b)});
}

/* ---- functions the solver does not know ---- */

void prove_add_cond(Encoder *e, Z3_ast c, bool domain)
{
    if (domain && e->action_side)
        vec_push(&e->oblige, c);
    else
        vec_push(&e->assume, c);
}

static Z3_ast apply(Encoder *e, Z3_func_decl f, Z3_ast a)
{
    return Z3_mk_app(e->z, f, 1, &a);
}

/* sqrt: IEEE's own in float32; over the reals a function with
 * sqrt(t) >= 0 and sqrt(t)^2 = t, defined for t >= 0. */
static Z3_ast op_sqrt(Encoder *e, Z3_ast a)
{
    if (e->ieee)
        return Z3_mk_fpa_sqrt(e->z, e->rm, a);
    Z3_ast s = apply(e, e->fsqrt, a), zero = prove_num(e, 0);
    prove_add_cond(e, Z3_mk_ge(e->z, a, zero), true);
    prove_add_cond(e, Z3_mk_ge(e->z, s, zero), false);
    prove_add_cond(e, Z3_mk_implies(e->z, Z3_mk_ge(e->z, a, zero),
                              Z3_mk_eq(e->z, prove_mul(e, s, s), a)), false);
    return s;
}

/* exp(t) > 0 and exp(t) * exp(-t) = 1 (the pairs are added once every
 * exp of the formula is known, prove_exp_axioms). */
static Z3_ast op_exp(Encoder *e, Z3_ast a)
{
    Z3_ast x = apply(e, e->fexp, a);
    if (!e->ieee) {
        prove_add_cond(e, Z3_mk_gt(e->z, x, prove_num(e, 0)), false);
        vec_push(&e->exps, a);
    }
    return x;
}

static Z3_ast op_log(Encoder *e, Z3_ast a)
{
    if (!e->ieee)
        prove_add_cond(e, Z3_mk_gt(e->z, a, prove_num(e, 0)), true);
    return apply(e, e->flog, a);
}

static Z3_ast op_sigmoid(Encoder *e, Z3_ast a)
{
    Z3_ast one = prove_num(e, 1);
    return prove_div(e, one, prove_add(e, one, op_exp(e, prove_neg(e, a))));
}

static Z3_ast ite(Encoder *e, Z3_ast c, Z3_ast a, Z3_ast b)
{
    return Z3_mk_ite(e->z, c, a, b);
}

static Z3_ast op_max(Encoder *e, Z3_ast a, Z3_ast b)
{
    return ite(e, prove_cmp(e, GRAFT_CMP_GE, a, b), a, b);
}

static Z3_ast op_min(Encoder *e, Z3_ast a, Z3_ast b)
{
    return ite(e, prove_cmp(e, GRAFT_CMP_LE, a, b), a, b);
}

/* clip as TVM computes it: min(max(x, a_min), a_max). */
static Z3_ast op_clip(Encoder *e, Z3_ast a, Z3_ast lo, Z3_ast hi)
{
    return op_min(e, op_max(e, a, lo), hi);
}

/* nn.gelu: x * 0.5 * (1 + erf(x * r)), r the positive root of r^2 = 1/2
 * (no decimal constant equals it: a rule writing 0.707107 is not proved). */
static Z3_ast op_gelu(Encoder *e, Z3_ast a)
{
    if (e->ieee)
        return NULL;
    Z3_ast r = Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, "1/sqrt(2)"), e->sort);
    prove_add_cond(e, Z3_mk_gt(e->z, r, prove_num(e, 0)), false);
    prove_add_cond(e, Z3_mk_eq(e->z, prove_mul(e, r, r), prove_num(e, 0.5)), false);
    Z3_ast half = prove_mul(e, a, prove_num(e, 0.5));
    return prove_mul(e, half, prove_add(e, prove_num(e, 1), apply(e, e->ferf, prove_mul(e, a, r))));
}

/* ---- ops ---- */

static bool attr_or(Encoder *e, const ProveAttrs *at, const char *name, double dflt,
                    ProveTerm *out)
{
    if (at->get(e, at->src, name, out))
        return out->v != NULL;
    *out = (ProveTerm){.v = prove_num(e, dflt), .literal = true, .lit = dflt};
    return true;
}

/* A unary element-wise op, or NULL when op is none the prover knows. */
static Z3_ast unary(Encoder *e, const char *op, Z3_ast a, const ProveAttrs *at)
{
    Z3_ast zero = prove_num(e, 0), one = prove_num(e, 1);
    if (strcmp(op, "negative") == 0)
        return prove_neg(e, a);
    if (strcmp(op, "abs") == 0)
        return ite(e, prove_cmp(e, GRAFT_CMP_GE, a, zero), a, prove_neg(e, a));
    if (strcmp(op, "nn.relu") == 0)
        return op_max(e, a, zero);
    if (strcmp(op, "copy") == 0)
        return a;
    if (strcmp(op, "sqrt") == 0)
        return op_sqrt(e, a);
    if (strcmp(op, "rsqrt") == 0)
        return prove_div(e, one, op_sqrt(e, a));
    if (strcmp(op, "exp") == 0)
        return op_exp(e, a);
    if (strcmp(op, "log") == 0)
        return op_log(e, a);
    if (strcmp(op, "erf") == 0)
        return apply(e, e->ferf, a);
    if (strcmp(op, "tanh") == 0) /* 2 * sigmoid(2 * t) - 1 */
        return e->ieee ? apply(e, e->ftanh, a)
                       : prove_sub(e, prove_mul(e, prove_num(e, 2),
                                                op_sigmoid(e, prove_mul(e, prove_num(e, 2), a))),
                                   one);
    if (strcmp(op, "nn.gelu") == 0)
        return op_gelu(e, a);
    if (strcmp(op, "sigmoid") == 0)
        return op_sigmoid(e, a);
    if (strcmp(op, "nn.silu") == 0)
        return prove_mul(e, a, op_sigmoid(e, a));
    if (strcmp(op, "nn.hardswish") == 0)
        return prove_div(e, prove_mul(e, a, op_clip(e, prove_add(e, a, prove_num(e, 3)), zero,
                                                    prove_num(e, 6))),
                         prove_num(e, 6));
    ProveTerm p1, p2;
    if (strcmp(op, "nn.swish") == 0 && attr_or(e, at, "beta", 1, &p1))
        return prove_mul(e, a, op_sigmoid(e, prove_mul(e, p1.v, a)));
    if (strcmp(op, "nn.leaky_relu") == 0 && attr_or(e, at, "alpha", 0.01, &p1))
        return ite(e, prove_cmp(e, GRAFT_CMP_GT, a, zero), a, prove_mul(e, p1.v, a));
    if (strcmp(op, "clip") == 0 && at->get(e, at->src, "a_min", &p1) && p1.v &&
        at->get(e, at->src, "a_max", &p2) && p2.v)
        return op_clip(e, a, p1.v, p2.v);
    return NULL;
}

static const struct {
    const char *op;
    int cmp;
} comparisons[] = {
    {"equal", GRAFT_CMP_EQ}, {"not_equal", GRAFT_CMP_NE}, {"less", GRAFT_CMP_LT},
    {"less_equal", GRAFT_CMP_LE}, {"greater", GRAFT_CMP_GT}, {"greater_equal", GRAFT_CMP_GE},
};

/* power with a literal whole exponent from 0 to 4, as repeated products. */
static Z3_ast op_power(Encoder *e, const ProveTerm *a, const ProveTerm *b)
{
    if (!b->literal || b->lit != floor(b->lit) || b->lit < 0 || b->lit > 4)
        return NULL;
    Z3_ast r = prove_num(e, 1);
    for (int i = 0; i < (int)b->lit; i++)
        r = i == 0 ? a->v : prove_mul(e, r, a->v);
    return r;
}

static Z3_ast binary(Encoder *e, const char *op, const ProveTerm *a, const ProveTerm *b,
                     ProveTerm *out)
{
    for (size_t i = 0; i < ARRAY_LEN(comparisons); i++)
        if (strcmp(op, comparisons[i].op) == 0) {
            out->is_bool = true;
            return prove_cmp(e, comparisons[i].cmp, a->v, b->v);
        }
    if (strcmp(op, "add") == 0)
        return prove_add(e, a->v, b->v);
    if (strcmp(op, "subtract") == 0)
        return prove_sub(e, a->v, b->v);
    if (strcmp(op, "multiply") == 0)
        return prove_mul(e, a->v, b->v);
    if (strcmp(op, "divide") == 0)
        return prove_div(e, a->v, b->v);
    if (strcmp(op, "maximum") == 0)
        return op_max(e, a->v, b->v);
    if (strcmp(op, "minimum") == 0)
        return op_min(e, a->v, b->v);
    if (strcmp(op, "power") == 0)
        return op_power(e, a, b);
    return NULL;
}

/* A bool operand where a number is wanted is 0 or 1; a number where a
 * bool is wanted (where's condition) is true when not 0. */
static Z3_ast as_number(Encoder *e, const ProveTerm *t)
{
    return t->is_bool ? ite(e, t->v, prove_num(e, 1), prove_num(e, 0)) : t->v;
}

static Z3_ast as_bool(Encoder *e, const ProveTerm *t)
{
    return t->is_bool ? t->v : prove_cmp(e, GRAFT_CMP_NE, t->v, prove_num(e, 0));
}

int prove_channel_axis(Encoder *e, const char *op, const ProveAttrs *attrs)
{
    ProveTerm axis;
    if (strcmp(op, "nn.batch_norm") != 0 || !attr_or(e, attrs, "axis", 1, &axis) ||
        !axis.literal)
        return PROVE_ELEM;
    return (int)axis.lit;
}

/* nn.batch_norm(x, gamma, beta, mean, var)[0], the vectors read along
 * its axis: (x - mean) / sqrt(var + epsilon) * gamma + beta, gamma and
 * beta dropped when scale or center is false. */
static ProveTerm batch_norm(Encoder *e, const ProveTerm *a, const ProveAttrs *at)
{
    ProveTerm eps, center, scale;
    if (!attr_or(e, at, "epsilon", 1e-5, &eps) || !attr_or(e, at, "center", 1, &center) ||
        !attr_or(e, at, "scale", 1, &scale) || !center.literal || !scale.literal)
        return prove_fail(e, "nn.batch_norm's attributes leave the fragment");
    Z3_ast r = prove_div(e, prove_sub(e, a[0].v, a[3].v),
                         op_sqrt(e, prove_add(e, a[4].v, eps.v)));
    if (scale.lit != 0)
        r = prove_mul(e, r, a[1].v);
    if (center.lit != 0)
        r = prove_add(e, r, a[2].v);
    return (ProveTerm){.v = r, .tuple = true, .shape = a[0].shape};
}

/* ONNX's element-wise ops the fragment holds are Relay's under other
 * names, with the same attributes and defaults (LeakyRelu's alpha 0.01,
 * onnx/defs/math/defs.cc); Clip, whose bounds are inputs, is not among
 * them.  Another op is itself. */
static const char *relay_name(const char *op)
{
    static const char *const names[][2] = {
        {"Neg", "negative"}, {"Abs", "abs"}, {"Relu", "nn.relu"}, {"Identity", "copy"},
        {"Sqrt", "sqrt"}, {"Exp", "exp"}, {"Log", "log"}, {"Erf", "erf"}, {"Tanh", "tanh"},
        {"Sigmoid", "sigmoid"}, {"HardSwish", "nn.hardswish"}, {"LeakyRelu", "nn.leaky_relu"},
        {"Add", "add"}, {"Sub", "subtract"}, {"Mul", "multiply"}, {"Div", "divide"},
        {"Max", "maximum"}, {"Min", "minimum"}, {"Pow", "power"}, {"Equal", "equal"},
        {"Less", "less"}, {"LessOrEqual", "less_equal"}, {"Greater", "greater"},
        {"GreaterOrEqual", "greater_equal"}, {"Where", "where"}};
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        if (strcmp(op, names[i][0]) == 0)
            return names[i][1];
    return op;
}

ProveTerm prove_op(Encoder *e, const char *op, const ProveTerm *args, int nargs,
                   const ProveAttrs *attrs)
{
    op = relay_name(op);
    for (int i = 0; i < nargs; i++)
        if (args[i].tuple)
            return prove_fail(e, "a tuple as an operand of %s leaves the fragment", op);
    if (strcmp(op, "nn.batch_norm") == 0 && nargs == 5)
        return batch_norm(e, args, attrs);
    if (strcmp(op, "nn.dropout") == 0 && nargs == 1)
        return (ProveTerm){.v = args[0].v, .tuple = true, .shape = args[0].shape};
    ProveTerm out = {.shape = 0};
    for (int i = 0; i < nargs; i++)
        out.shape |= args[i].shape;
    if (nargs == 1)
        out.v = unary(e, op, as_number(e, &args[0]), attrs);
    else if (nargs == 2) {
        ProveTerm a = args[0], b = args[1];
        a.v = as_number(e, &a);
        b.v = as_number(e, &b);
        out.v = binary(e, op, &a, &b, &out);
    } else if (nargs == 3 && strcmp(op, "where") == 0)
        out.v = ite(e, as_bool(e, &args[0]), as_number(e, &args[1]), as_number(e, &args[2]));
    if (!out.v)
        return prove_fail(e, "%s leaves the fragment", op);
    return out;
}
