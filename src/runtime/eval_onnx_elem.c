/* eval_onnx_elem.c - ONNX's element-wise math: unary functions, the
 * broadcasting binary ops and comparisons, the variadic Sum, Mean, Max,
 * Min, logic, Where, Cast and CastLike (onnx/defs/math/defs.cc,
 * logical/defs.cc, tensor/defs.cc of the onnx/onnx repository). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "eval_impl.h"

/* ---- unary ---- */

typedef double (*UnaryFn)(double x);

static double f_neg(double x) { return -x; }
static double f_recip(double x) { return 1 / x; }
static double f_not(double x) { return x == 0; }
static double f_isnan(double x) { return isnan(x); }
static double f_copy(double x) { return x; }

static double f_sign(double x)
{
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/* Round: halves to even, as numpy.round (the current rounding mode). */
static double f_round(double x)
{
    return nearbyint(x);
}

static const struct {
    const char *op;
    UnaryFn fn;
    bool bool_result;
} unary_fns[] = {
    {"Abs", fabs, false},     {"Neg", f_neg, false},     {"Exp", exp, false},
    {"Log", log, false},      {"Sqrt", sqrt, false},     {"Reciprocal", f_recip, false},
    {"Floor", floor, false},  {"Ceil", ceil, false},     {"Round", f_round, false},
    {"Sign", f_sign, false},  {"Sin", sin, false},       {"Cos", cos, false},
    {"Tan", tan, false},      {"Asin", asin, false},     {"Acos", acos, false},
    {"Atan", atan, false},    {"Sinh", sinh, false},     {"Cosh", cosh, false},
    {"Asinh", asinh, false},  {"Acosh", acosh, false},   {"Atanh", atanh, false},
    {"Erf", erf, false},      {"Tanh", tanh, false},     {"Not", f_not, true},
    {"IsNaN", f_isnan, true}, {"Identity", f_copy, false},
};

static bool op_unary(EvalCall *c)
{
    size_t k = 0;
    while (strcmp(unary_fns[k].op, c->op) != 0)
        k++;
    const Tensor *x = eval_nargs_first(c, 1, 1);
    Tensor *r = x ? eval_result(c, unary_fns[k].bool_result ? "bool" : x->dtype, x->rank,
                                x->dims)
                  : NULL;
    if (!r)
        return false;
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = unary_fns[k].fn(x->data[i]);
    return true;
}

/* IsInf(x, detect_negative=1, detect_positive=1). */
static bool op_isinf(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    Tensor *r = x ? eval_result(c, "bool", x->rank, x->dims) : NULL;
    if (!r)
        return false;
    bool neg = eval_attr_int(c, "detect_negative", 1), pos = eval_attr_int(c, "detect_positive", 1);
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = isinf(x->data[i]) && (x->data[i] > 0 ? pos : neg);
    return true;
}

/* ---- binary, broadcasting ---- */

static double f_add(double a, double b, const EvalCall *c) { (void)c; return a + b; }
static double f_sub(double a, double b, const EvalCall *c) { (void)c; return a - b; }
static double f_mul(double a, double b, const EvalCall *c) { (void)c; return a * b; }
static double f_pow(double a, double b, const EvalCall *c) { (void)c; return pow(a, b); }
static double f_eq(double a, double b, const EvalCall *c) { (void)c; return a == b; }
static double f_lt(double a, double b, const EvalCall *c) { (void)c; return a < b; }
static double f_le(double a, double b, const EvalCall *c) { (void)c; return a <= b; }
static double f_gt(double a, double b, const EvalCall *c) { (void)c; return a > b; }
static double f_ge(double a, double b, const EvalCall *c) { (void)c; return a >= b; }
static double f_and(double a, double b, const EvalCall *c) { (void)c; return a != 0 && b != 0; }
static double f_or(double a, double b, const EvalCall *c) { (void)c; return a != 0 || b != 0; }
static double f_xor(double a, double b, const EvalCall *c) { (void)c; return (a != 0) != (b != 0); }

/* Div: integer division truncates toward zero, as ONNX Runtime's does. */
static double f_div(double a, double b, const EvalCall *c)
{
    return eval_is_float(c->args[0].t.dtype) ? a / b : b == 0 ? 0 : trunc(a / b);
}

/* Mod: fmod=1 keeps the dividend's sign (C's fmod); fmod=0, for integers
 * only, the divisor's (Python's %). */
static double f_mod(double a, double b, const EvalCall *c)
{
    if (eval_attr_int(c, "fmod", 0))
        return fmod(a, b);
    if (b == 0)
        return 0;
    double r = fmod(a, b);
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

/* BitShift(direction="LEFT"|"RIGHT") on unsigned integers. */
static double f_shift(double a, double b, const EvalCall *c)
{
    uint64_t x = (uint64_t)a, n = (uint64_t)b;
    bool left = strcmp(eval_attr_str(c, "direction", ""), "LEFT") == 0;
    return n >= 64 ? 0 : (double)(left ? x << n : x >> n);
}

typedef double (*BinaryFn)(double a, double b, const EvalCall *c);

/* same_dtype: both operands must have one dtype (Pow and BitShift's
 * exponent may differ in Pow only). */
static const struct {
    const char *op;
    BinaryFn fn;
    bool bool_result;
    bool same_dtype;
} binary_fns[] = {
    {"Add", f_add, false, true},     {"Sub", f_sub, false, true},
    {"Mul", f_mul, false, true},     {"Div", f_div, false, true},
    {"Pow", f_pow, false, false},    {"Mod", f_mod, false, true},
    {"BitShift", f_shift, false, true},
    {"Equal", f_eq, true, true},     {"Less", f_lt, true, true},
    {"LessOrEqual", f_le, true, true}, {"Greater", f_gt, true, true},
    {"GreaterOrEqual", f_ge, true, true},
    {"And", f_and, true, true},      {"Or", f_or, true, true},
    {"Xor", f_xor, true, true},
};

static bool op_binary(EvalCall *c)
{
    size_t k = 0;
    while (strcmp(binary_fns[k].op, c->op) != 0)
        k++;
    const Tensor *a = eval_nargs_first(c, 2, 2);
    const Tensor *b = a ? eval_arg(c, 1) : NULL;
    if (!b)
        return false;
    if (binary_fns[k].same_dtype && strcmp(a->dtype, b->dtype) != 0)
        return eval_fail(c, "operands of dtypes %s and %s", a->dtype, b->dtype);
    Tensor *r = eval_broadcast_result(c, a, b, binary_fns[k].bool_result ? "bool" : a->dtype);
    if (!r)
        return false;
    eval_bcast_apply(r, a, b, binary_fns[k].fn, c);
    return true;
}

/* Sum, Mean, Max, Min of one or more operands, all broadcast: folded
 * left to right, each step broadcasting the running result. */
static bool op_variadic(EvalCall *c)
{
    bool adds = c->op[1] == 'u' || c->op[1] == 'e'; /* Sum, Mean */
    BinaryFn fn = adds ? f_add : c->op[1] == 'a' ? eval_maximum : eval_minimum;
    const Tensor *first = eval_nargs_first(c, 1, 1 << 20);
    if (!first)
        return false;
    Tensor acc = tensor_copy(first);
    for (int i = 1; i < c->nargs; i++) {
        const Tensor *b = eval_arg(c, i);
        Tensor *r = b ? eval_broadcast_result(c, &acc, b, acc.dtype) : NULL;
        if (!r) {
            tensor_free(&acc);
            return false;
        }
        eval_bcast_apply(r, &acc, b, fn, c);
        tensor_free(&acc);
        acc = *r;
        r->data = NULL; /* acc owns it */
    }
    if (c->op[1] == 'e')
        for (size_t i = 0; i < acc.size; i++)
            acc.data[i] /= c->nargs;
    c->out->nfields = -1;
    c->out->t = acc;
    return true;
}

/* Cast(x, to=DataType) and CastLike(x, like): the value converted and
 * rounded to the new dtype in either mode (the rounding is the op). */
static bool op_cast(EvalCall *c)
{
    const char *dtype = NULL;
    bool like = strcmp(c->op, "CastLike") == 0;
    const Tensor *x = eval_nargs_first(c, 1 + like, 1 + like);
    if (!x)
        return false;
    if (like) {
        const Tensor *y = eval_arg(c, 1);
        if (!y)
            return false;
        dtype = y->dtype;
    } else {
        dtype = eval_dtype(dtype_name((DType)eval_attr_int(c, "to", 0)));
    }
    if (!dtype)
        return eval_fail(c, "target dtype %lld not evaluated",
                         (long long)eval_attr_int(c, "to", 0));
    Tensor *r = eval_result(c, dtype, x->rank, x->dims);
    if (!r)
        return false;
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = eval_round(x->data[i], dtype);
    return true;
}

const EvalOpDef eval_onnx_elem_ops[] = {
    {"Abs", op_unary},    {"Neg", op_unary},   {"Exp", op_unary},   {"Log", op_unary},
    {"Sqrt", op_unary},   {"Reciprocal", op_unary}, {"Floor", op_unary}, {"Ceil", op_unary},
    {"Round", op_unary},  {"Sign", op_unary},  {"Sin", op_unary},   {"Cos", op_unary},
    {"Tan", op_unary},    {"Asin", op_unary},  {"Acos", op_unary},  {"Atan", op_unary},
    {"Sinh", op_unary},   {"Cosh", op_unary},  {"Asinh", op_unary}, {"Acosh", op_unary},
    {"Atanh", op_unary},  {"Erf", op_unary},   {"Tanh", op_unary},  {"Not", op_unary},
    {"IsNaN", op_unary},  {"Identity", op_unary}, {"IsInf", op_isinf},
    {"Add", op_binary},   {"Sub", op_binary},  {"Mul", op_binary},  {"Div", op_binary},
    {"Pow", op_binary},   {"Mod", op_binary},  {"BitShift", op_binary},
    {"Equal", op_binary}, {"Less", op_binary}, {"LessOrEqual", op_binary},
    {"Greater", op_binary}, {"GreaterOrEqual", op_binary},
    {"And", op_binary},   {"Or", op_binary},   {"Xor", op_binary},
    {"Sum", op_variadic}, {"Mean", op_variadic}, {"Max", op_variadic}, {"Min", op_variadic},
    {"Where", eval_where},  {"Cast", op_cast},   {"CastLike", op_cast},
    {NULL, NULL},
};
