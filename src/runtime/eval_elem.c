/* eval_elem.c - element-wise ops: activations and math functions, the
 * broadcasting binary ops, clip, cast and the *_like constructors. */
#include <math.h>
#include <string.h>

#include "eval_impl.h"

/* ---- unary ---- */

typedef double (*UnaryFn)(double x, const EvalCall *c);

static double f_neg(double x, const EvalCall *c) { (void)c; return -x; }
static double f_abs(double x, const EvalCall *c) { (void)c; return fabs(x); }
static double f_exp(double x, const EvalCall *c) { (void)c; return exp(x); }
static double f_log(double x, const EvalCall *c) { (void)c; return log(x); }
static double f_sqrt(double x, const EvalCall *c) { (void)c; return sqrt(x); }
static double f_rsqrt(double x, const EvalCall *c) { (void)c; return 1 / sqrt(x); }
static double f_tanh(double x, const EvalCall *c) { (void)c; return tanh(x); }
static double f_erf(double x, const EvalCall *c) { (void)c; return erf(x); }
static double f_floor(double x, const EvalCall *c) { (void)c; return floor(x); }
static double f_ceil(double x, const EvalCall *c) { (void)c; return ceil(x); }
static double f_round(double x, const EvalCall *c) { (void)c; return nearbyint(x); }
static double f_copy(double x, const EvalCall *c) { (void)c; return x; }
static double f_zero(double x, const EvalCall *c) { (void)c; (void)x; return 0; }
static double f_one(double x, const EvalCall *c) { (void)c; (void)x; return 1; }
static double f_relu(double x, const EvalCall *c) { (void)c; return x > 0 ? x : 0 * x; }
static double f_sigmoid(double x, const EvalCall *c) { (void)c; return 1 / (1 + exp(-x)); }
static double f_silu(double x, const EvalCall *c) { (void)c; return x / (1 + exp(-x)); }

static double f_sign(double x, const EvalCall *c)
{
    (void)c;
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/* nn.gelu: x * Phi(x), with the normal CDF through erf. */
static double f_gelu(double x, const EvalCall *c)
{
    (void)c;
    return x * 0.5 * (1 + erf(x * 0.70710678118654752440));
}

/* nn.gelu_tanh: the tanh approximation of gelu. */
static double f_gelu_tanh(double x, const EvalCall *c)
{
    (void)c;
    return 0.5 * x * (1 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}

static double f_hardswish(double x, const EvalCall *c)
{
    (void)c;
    double r = x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3;
    return x * r / 6;
}

static double f_swish(double x, const EvalCall *c)
{
    return x / (1 + exp(-eval_attr_float(c, "beta", 1.0) * x));
}

static double f_leaky_relu(double x, const EvalCall *c)
{
    return x > 0 ? x : x * eval_attr_float(c, "alpha", 0.01);
}

/* clip: TVM's a_min and a_max are required; min(max(x, a_min), a_max). */
static double f_clip(double x, const EvalCall *c)
{
    double lo = eval_attr_float(c, "a_min", -INFINITY), hi = eval_attr_float(c, "a_max", INFINITY);
    return x < lo ? lo : x > hi ? hi : x;
}

static const struct {
    const char *op;
    UnaryFn fn;
} unary_fns[] = {
    {"negative", f_neg},    {"abs", f_abs},         {"exp", f_exp},
    {"log", f_log},         {"sqrt", f_sqrt},       {"rsqrt", f_rsqrt},
    {"tanh", f_tanh},       {"erf", f_erf},         {"floor", f_floor},
    {"ceil", f_ceil},       {"round", f_round},     {"sign", f_sign},
    {"copy", f_copy},       {"zeros_like", f_zero}, {"ones_like", f_one},
    {"nn.relu", f_relu},    {"sigmoid", f_sigmoid}, {"nn.silu", f_silu},
    {"nn.gelu", f_gelu},    {"nn.gelu_tanh", f_gelu_tanh},
    {"nn.hardswish", f_hardswish}, {"nn.swish", f_swish},
    {"nn.leaky_relu", f_leaky_relu}, {"clip", f_clip},
};

static bool op_unary(EvalCall *c)
{
    UnaryFn fn = NULL;
    for (size_t i = 0; i < ARRAY_LEN(unary_fns); i++)
        if (strcmp(unary_fns[i].op, c->op) == 0)
            fn = unary_fns[i].fn;
    const Tensor *x = eval_nargs_first(c, 1, 1);
    Tensor *r = x ? eval_result(c, x->dtype, x->rank, x->dims) : NULL;
    if (!r)
        return false;
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = fn(x->data[i], c);
    return true;
}

/* cast(x, dtype=D): the value converted, rounded to D in either mode
 * (a conversion's rounding is its meaning). */
static bool op_cast(EvalCall *c)
{
    const char *want = c->nargs == 2 && c->args[1].nfields < 0
                           ? c->args[1].t.dtype /* cast_like(x, y) */
                           : eval_attr_str(c, "dtype", NULL);
    const char *dtype = eval_dtype(want);
    if (!dtype)
        return eval_fail(c, "dtype '%s' not evaluated", want ? want : "(none)");
    const Tensor *x = eval_nargs_first(c, 1, 2);
    Tensor *r = x ? eval_result(c, dtype, x->rank, x->dims) : NULL;
    if (!r)
        return false;
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = eval_round(x->data[i], dtype);
    return true;
}

/* nn.dropout at inference: (x, mask of ones). */
static bool op_dropout(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x || !eval_tuple_result(c, 2))
        return false;
    Tensor *out = eval_field(c, 0, x->dtype, x->rank, x->dims);
    Tensor *mask = out ? eval_field(c, 1, x->dtype, x->rank, x->dims) : NULL;
    if (!mask)
        return false;
    for (size_t i = 0; i < x->size; i++) {
        out->data[i] = x->data[i];
        mask->data[i] = 1;
    }
    return true;
}

/* ---- binary, broadcasting ---- */

typedef double (*BinaryFn)(double a, double b, const EvalCall *c);

static double f_add(double a, double b, const EvalCall *c) { (void)c; return a + b; }
static double f_sub(double a, double b, const EvalCall *c) { (void)c; return a - b; }
static double f_mul(double a, double b, const EvalCall *c) { (void)c; return a * b; }
static double f_div(double a, double b, const EvalCall *c) { (void)c; return a / b; }
static double f_floor_div(double a, double b, const EvalCall *c) { (void)c; return floor(a / b); }
static double f_pow(double a, double b, const EvalCall *c) { (void)c; return pow(a, b); }
static double f_eq(double a, double b, const EvalCall *c) { (void)c; return a == b; }
static double f_ne(double a, double b, const EvalCall *c) { (void)c; return a != b; }
static double f_lt(double a, double b, const EvalCall *c) { (void)c; return a < b; }
static double f_le(double a, double b, const EvalCall *c) { (void)c; return a <= b; }
static double f_gt(double a, double b, const EvalCall *c) { (void)c; return a > b; }
static double f_ge(double a, double b, const EvalCall *c) { (void)c; return a >= b; }

/* On integers divide truncates, as TVM's divide does, and floor_divide
 * floors; by 0 both give 0 where a float division gives an infinity or
 * NaN. */
static double f_int_div(double a, double b, const EvalCall *c)
{
    (void)c;
    return b == 0 ? 0 : trunc(a / b);
}

static double f_int_floor_div(double a, double b, const EvalCall *c)
{
    (void)c;
    return b == 0 ? 0 : floor(a / b);
}

/* int_fn: the op on integer dtypes where it differs from fn. */
static const struct {
    const char *op;
    BinaryFn fn;
    BinaryFn int_fn;
    bool is_bool; /* comparisons give bool */
} binary_fns[] = {
    {"add", f_add, NULL, false},
    {"subtract", f_sub, NULL, false},
    {"multiply", f_mul, NULL, false},
    {"divide", f_div, f_int_div, false},
    {"floor_divide", f_floor_div, f_int_floor_div, false},
    {"power", f_pow, NULL, false},
    {"maximum", eval_maximum, NULL, false},
    {"minimum", eval_minimum, NULL, false},
    {"equal", f_eq, NULL, true},
    {"not_equal", f_ne, NULL, true},
    {"less", f_lt, NULL, true},
    {"less_equal", f_le, NULL, true},
    {"greater", f_gt, NULL, true},
    {"greater_equal", f_ge, NULL, true},
};

static bool op_binary(EvalCall *c)
{
    size_t k = 0;
    while (strcmp(binary_fns[k].op, c->op) != 0)
        k++;
    const Tensor *a = eval_nargs_first(c, 2, 2);
    const Tensor *b = a ? eval_arg(c, 1) : NULL;
    int rank;
    int64_t dims[EVAL_MAX_RANK * 2];
    if (!b || !eval_broadcast(c, a, b, &rank, dims))
        return false;
    if (strcmp(a->dtype, b->dtype) != 0)
        return eval_fail(c, "operands of dtypes %s and %s", a->dtype, b->dtype);
    Tensor *r = eval_result(c, binary_fns[k].is_bool ? "bool" : a->dtype, rank, dims);
    if (!r)
        return false;
    BinaryFn fn = binary_fns[k].int_fn && !eval_is_float(a->dtype) ? binary_fns[k].int_fn
                                                                    : binary_fns[k].fn;
    eval_bcast_apply(r, a, b, fn, c);
    return true;
}

bool eval_where(EvalCall *c)
{
    const Tensor *cond = eval_nargs_first(c, 3, 3);
    const Tensor *x = cond ? eval_arg(c, 1) : NULL, *y = x ? eval_arg(c, 2) : NULL;
    Tensor xy = {.rank = 0};
    if (!y || !eval_broadcast(c, x, y, &xy.rank, xy.dims))
        return false;
    Tensor *r = eval_broadcast_result(c, cond, &xy, x->dtype);
    if (!r)
        return false;
    for (size_t i = 0; i < r->size; i++)
        r->data[i] = cond->data[eval_bcast_index(cond, r->rank, r->dims, i)] != 0
                         ? x->data[eval_bcast_index(x, r->rank, r->dims, i)]
                         : y->data[eval_bcast_index(y, r->rank, r->dims, i)];
    return true;
}

const EvalOpDef eval_elem_ops[] = {
    {"negative", op_unary},   {"abs", op_unary},        {"exp", op_unary},
    {"log", op_unary},        {"sqrt", op_unary},       {"rsqrt", op_unary},
    {"tanh", op_unary},       {"erf", op_unary},        {"floor", op_unary},
    {"ceil", op_unary},       {"round", op_unary},      {"sign", op_unary},
    {"copy", op_unary},       {"zeros_like", op_unary}, {"ones_like", op_unary},
    {"nn.relu", op_unary},    {"sigmoid", op_unary},    {"nn.silu", op_unary},
    {"nn.gelu", op_unary},    {"nn.gelu_tanh", op_unary},
    {"nn.hardswish", op_unary}, {"nn.swish", op_unary},
    {"nn.leaky_relu", op_unary}, {"clip", op_unary},
    {"cast", op_cast},        {"cast_like", op_cast},   {"nn.dropout", op_dropout},
    {"add", op_binary},       {"subtract", op_binary},  {"multiply", op_binary},
    {"divide", op_binary},    {"floor_divide", op_binary},
    {"power", op_binary},     {"maximum", op_binary},   {"minimum", op_binary},
    {"equal", op_binary},     {"not_equal", op_binary}, {"less", op_binary},
    {"less_equal", op_binary}, {"greater", op_binary},  {"greater_equal", op_binary},
    {"where", eval_where},
    {NULL, NULL},
};
