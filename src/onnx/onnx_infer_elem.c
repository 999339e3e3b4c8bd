/* onnx_infer_elem.c - type relations of ONNX's element-wise ops: unary
 * ones and the activations keep their input's type, binary and variadic
 * ones broadcast as numpy does, comparisons and logic give bool, Where,
 * Cast and CastLike (onnx/defs/math/defs.cc, logical/defs.cc,
 * tensor/defs.cc: propagateElemTypeFromInputToOutput and
 * bidirectionalBroadcastShapeInference). */
#include "onnx_infer.h"

#include <string.h>

#include "dtype.h"

/* Unary ops, and Clip (whose min and max are scalars of the same type). */
static const graft_type *same_as_input(OnnxInferCtx *c)
{
    return onnx_input(c, 0);
}

/* Not, IsNaN, IsInf: the input's shape, bool. */
static const graft_type *bool_of_input(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    OnnxShape s;
    return x && onnx_shape(c, x, &s) ? onnx_make(c, "bool", &s) : NULL;
}

/* Every input broadcast with the others (numpy's rules), all of one type
 * T unless the op is Pow (whose exponent may be of another, T1 and T2 in
 * Pow-15); the result in dtype, or the first input's when NULL. */
static const graft_type *broadcast_as(OnnxInferCtx *c, const char *dtype)
{
    const graft_type *a = onnx_input(c, 0);
    OnnxShape out, sb;
    if (!a || !onnx_shape(c, a, &out))
        return NULL;
    for (int i = 1; i < c->nin; i++) {
        const graft_type *b = onnx_input(c, i);
        if (!b)
            return NULL;
        if (strcmp(c->op, "Pow") != 0 && a->dtype != b->dtype && strcmp(a->dtype, b->dtype) != 0)
            return onnx_fail(c, "inputs of different types: %s and %s", a->dtype, b->dtype);
        if (!onnx_shape(c, b, &sb) || !onnx_broadcast(c, &out, &sb, &out))
            return NULL;
    }
    return onnx_make(c, dtype ? dtype : a->dtype, &out);
}

/* Add, Sub, Mul, Div, Pow, Mod, BitShift, PRelu, and the variadic Sum,
 * Mean, Max, Min: the broadcast shape in T. */
static const graft_type *broadcast(OnnxInferCtx *c)
{
    return broadcast_as(c, NULL);
}

/* The comparisons and the logic ops: the broadcast shape in bool. */
static const graft_type *compare(OnnxInferCtx *c)
{
    return broadcast_as(c, "bool");
}

/* Where(condition, X, Y): the three broadcast, X's type (X and Y of one). */
static const graft_type *where(OnnxInferCtx *c)
{
    const graft_type *cond = onnx_input(c, 0), *x = cond ? onnx_input(c, 1) : NULL;
    const graft_type *y = x ? onnx_input(c, 2) : NULL;
    OnnxShape sc, sx, sy, out;
    if (!y || !onnx_shape(c, cond, &sc) || !onnx_shape(c, x, &sx) || !onnx_shape(c, y, &sy))
        return NULL;
    if (strcmp(x->dtype, y->dtype) != 0)
        return onnx_fail(c, "X and Y of different types: %s and %s", x->dtype, y->dtype);
    if (!onnx_broadcast(c, &sc, &sx, &out) || !onnx_broadcast(c, &out, &sy, &out))
        return NULL;
    return onnx_make(c, x->dtype, &out);
}

/* Cast(input, to): the input's shape in dtype to (a TensorProto.DataType);
 * CastLike(input, target_type): in target_type's dtype. */
static const graft_type *cast(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    bool like = strcmp(c->op, "CastLike") == 0;
    const graft_type *target = x && like ? onnx_input(c, 1) : NULL;
    OnnxShape s;
    if (!x || (like && !target) || !onnx_shape(c, x, &s))
        return NULL;
    int64_t to = onnx_int(c, "to", 0);
    const char *dtype = like ? target->dtype : dtype_name((DType)to);
    if (!dtype)
        return onnx_fail(c, "attribute 'to' is %lld, no data type graft knows", (long long)to);
    return onnx_make(c, dtype, &s);
}

const OnnxOpDef onnx_ops_elem[] = {
    {"Add", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Sub", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Mul", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Div", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Pow", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Mod", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"BitShift", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"PRelu", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Sum", NULL, broadcast, ONNX_ONE_OUTPUT, 0},
    {"Mean", NULL, broadcast, ONNX_ONE_OUTPUT, 0},
    {"Max", NULL, broadcast, ONNX_ONE_OUTPUT, 0},
    {"Min", NULL, broadcast, ONNX_ONE_OUTPUT, 0},
    {"Equal", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"Less", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"LessOrEqual", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"Greater", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"GreaterOrEqual", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"And", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"Or", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"Xor", NULL, compare, ONNX_ONE_OUTPUT, 2},
    {"Where", NULL, where, ONNX_ONE_OUTPUT, 3},
    {"Cast", NULL, cast, ONNX_ONE_OUTPUT, 1},
    {"CastLike", NULL, cast, ONNX_ONE_OUTPUT, 2},
    {"Not", NULL, bool_of_input, ONNX_ONE_OUTPUT, 1},
    {"IsNaN", NULL, bool_of_input, ONNX_ONE_OUTPUT, 1},
    {"IsInf", NULL, bool_of_input, ONNX_ONE_OUTPUT, 1},
    {"Neg", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Sqrt", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Relu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Erf", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Identity", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Clip", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Abs", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Exp", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Log", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Reciprocal", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Floor", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Ceil", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Round", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Sign", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Sin", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Cos", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Tan", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Asin", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Acos", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Atan", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Sinh", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Cosh", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Asinh", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Acosh", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Atanh", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Tanh", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"LeakyRelu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Elu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Selu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Celu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Sigmoid", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"HardSigmoid", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"HardSwish", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Softplus", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Softsign", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"ThresholdedRelu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Shrink", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {NULL, NULL, NULL, 0, 0},
};
