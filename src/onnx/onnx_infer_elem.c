/* onnx_infer_elem.c - inference of ONNX's element-wise ops: one input's
 * type carried through (math, activations, Softmax, Identity), bool
 * results (Not, IsNaN, IsInf), the broadcasting binary and variadic ops,
 * Where, Cast and CastLike (onnx/defs/math/defs.cc, logical/defs.cc). */
#include <string.h>

#include "dtype.h"
#include "onnx_infer_impl.h"

/* Output 0 of input 0's type. */
static bool infer_same(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (x)
        infer_copy(c, 0, x);
    return x != NULL;
}

/* Softmax, LogSoftmax, Hardmax: input 0's type, axis (default -1) in
 * range. */
static bool infer_softmax(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x || (x->rank >= 0 && infer_axis(c, infer_attr_int(c, "axis", -1), x->rank) < 0))
        return false;
    infer_copy(c, 0, x);
    return true;
}

/* Clip(x, min, max): x's type; the bounds of x's dtype. */
static bool infer_clip(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 3) ? infer_need(c, 0) : NULL;
    for (int i = 1; x && i < c->nin; i++) {
        const OnnxType *b = infer_in(c, i);
        if (b && !infer_same_dtype(c, x, b))
            return false;
    }
    if (x)
        infer_copy(c, 0, x);
    return x != NULL;
}

/* Not, IsNaN, IsInf: input 0's shape, bool. */
static bool infer_bool_unary(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    infer_copy(c, 0, x);
    c->out[0].dtype = "bool";
    return true;
}

/* The comparisons and logic ops give bool. */
static bool is_bool_result(const char *op)
{
    static const char *const ops[] = {"Equal",         "Less", "LessOrEqual", "Greater",
                                      "GreaterOrEqual", "And", "Or",          "Xor"};
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (strcmp(ops[i], op) == 0)
            return true;
    return false;
}

/* Inputs lo..hi, every one broadcast; one dtype unless any_dtype (Pow's
 * exponent); the first input's dtype, or bool for a comparison. */
static bool broadcast_all(InferCall *c, int lo, int hi, bool any_dtype)
{
    const OnnxType *a = infer_nin(c, lo, hi) ? infer_need(c, 0) : NULL;
    if (!a)
        return false;
    OnnxType r = *a;
    for (int i = 1; i < c->nin; i++) {
        const OnnxType *b = infer_need(c, i);
        if (!b || (!any_dtype && !infer_same_dtype(c, a, b)) || !infer_broadcast(c, &r, b, &r))
            return false;
    }
    infer_copy(c, 0, &r);
    c->out[0].dtype = is_bool_result(c->op) ? "bool" : a->dtype;
    return true;
}

/* The binary ops and PRelu. */
static bool infer_binary(InferCall *c)
{
    return broadcast_all(c, 2, 2, strcmp(c->op, "Pow") == 0);
}

/* Sum, Mean, Max, Min of one or more inputs. */
static bool infer_variadic(InferCall *c)
{
    return broadcast_all(c, 1, 1 << 20, false);
}

/* Where(cond, x, y): the three broadcast, x's dtype. */
static bool infer_where(InferCall *c)
{
    const OnnxType *cond = infer_nin(c, 3, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *x = cond ? infer_need(c, 1) : NULL, *y = x ? infer_need(c, 2) : NULL;
    OnnxType r = {0};
    if (!y || !infer_same_dtype(c, x, y) || !infer_broadcast(c, cond, x, &r) ||
        !infer_broadcast(c, &r, y, &r))
        return false;
    infer_copy(c, 0, &r);
    c->out[0].dtype = x->dtype;
    return true;
}

/* Cast(x, to): x's shape in dtype to; CastLike(x, like): like's dtype. */
static bool infer_cast(InferCall *c)
{
    bool like = strcmp(c->op, "CastLike") == 0;
    const OnnxType *x = infer_nin(c, 1 + like, 1 + like) ? infer_need(c, 0) : NULL;
    const OnnxType *y = x && like ? infer_need(c, 1) : NULL;
    if (!x || (like && !y))
        return false;
    const char *dtype = like ? y->dtype : dtype_name((DType)infer_attr_int(c, "to", 0));
    if (!dtype && !like)
        return infer_fail(c, "attribute to: %lld is no ONNX data type",
                          (long long)infer_attr_int(c, "to", 0));
    infer_copy(c, 0, x);
    c->out[0].dtype = dtype;
    return true;
}

const InferDef onnx_infer_elem_ops[] = {
    {"Abs", infer_same},         {"Neg", infer_same},        {"Exp", infer_same},
    {"Log", infer_same},         {"Sqrt", infer_same},       {"Reciprocal", infer_same},
    {"Floor", infer_same},       {"Ceil", infer_same},       {"Round", infer_same},
    {"Sign", infer_same},        {"Sin", infer_same},        {"Cos", infer_same},
    {"Tan", infer_same},         {"Asin", infer_same},       {"Acos", infer_same},
    {"Atan", infer_same},        {"Sinh", infer_same},       {"Cosh", infer_same},
    {"Asinh", infer_same},       {"Acosh", infer_same},      {"Atanh", infer_same},
    {"Erf", infer_same},         {"Tanh", infer_same},       {"Identity", infer_same},
    {"Relu", infer_same},        {"LeakyRelu", infer_same},  {"Elu", infer_same},
    {"Selu", infer_same},        {"Celu", infer_same},       {"Sigmoid", infer_same},
    {"HardSigmoid", infer_same}, {"HardSwish", infer_same},  {"Softplus", infer_same},
    {"Softsign", infer_same},    {"ThresholdedRelu", infer_same}, {"Shrink", infer_same},
    {"Clip", infer_clip},        {"Softmax", infer_softmax},    {"LogSoftmax", infer_softmax},
    {"Hardmax", infer_softmax},
    {"Not", infer_bool_unary},   {"IsNaN", infer_bool_unary}, {"IsInf", infer_bool_unary},
    {"Add", infer_binary}, {"Sub", infer_binary}, {"Mul", infer_binary},
    {"Div", infer_binary}, {"Pow", infer_binary}, {"Mod", infer_binary},
    {"BitShift", infer_binary}, {"Equal", infer_binary},
    {"Less", infer_binary}, {"LessOrEqual", infer_binary},
    {"Greater", infer_binary}, {"GreaterOrEqual", infer_binary},
    {"And", infer_binary}, {"Or", infer_binary}, {"Xor", infer_binary},
    {"PRelu", infer_binary}, {"Sum", infer_variadic}, {"Mean", infer_variadic},
    {"Max", infer_variadic}, {"Min", infer_variadic},
    {"Where", infer_where},      {"Cast", infer_cast},       {"CastLike", infer_cast},
    {NULL, NULL},
};
