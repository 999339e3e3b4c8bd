/* onnx_infer_elem.c - type relations of ONNX's element-wise ops: unary
 * ones keep their input's type, binary ones broadcast as numpy does
 * (onnx/defs/math/defs.cc: propagateElemTypeFromInputToOutput and
 * bidirectionalBroadcastShapeInference). */
#include "onnx_infer.h"

#include <string.h>

/* Unary ops, and Clip (whose min and max are scalars of the same type). */
static const graft_type *same_as_input(OnnxInferCtx *c)
{
    return onnx_input(c, 0);
}

/* Add, Sub, Mul, Div: both inputs of one type T; Pow's exponent may be
 * of another (T1 and T2 in Pow-15), and the result takes the base's. */
static const graft_type *broadcast(OnnxInferCtx *c)
{
    const graft_type *a = onnx_input(c, 0), *b = a ? onnx_input(c, 1) : NULL;
    if (!a || !b)
        return NULL;
    if (strcmp(c->op, "Pow") != 0 && a->dtype != b->dtype && strcmp(a->dtype, b->dtype) != 0)
        return onnx_fail(c, "inputs of different types: %s and %s", a->dtype, b->dtype);
    OnnxShape sa, sb, out;
    if (!onnx_shape(c, a, &sa) || !onnx_shape(c, b, &sb) || !onnx_broadcast(c, &sa, &sb, &out))
        return NULL;
    return onnx_make(c, a->dtype, &out);
}

const OnnxOpDef onnx_ops_elem[] = {
    {"Add", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Sub", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Mul", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Div", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Pow", NULL, broadcast, ONNX_ONE_OUTPUT, 2},
    {"Neg", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Sqrt", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Relu", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Erf", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Identity", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {"Clip", NULL, same_as_input, ONNX_ONE_OUTPUT, 1},
    {NULL, NULL, NULL, 0, 0},
};
