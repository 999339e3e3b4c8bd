/* eval_onnx_quant.c - ONNX's linear quantization: QuantizeLinear and
 * DequantizeLinear, per tensor or per axis (onnx/defs/quantization/
 * defs.cc, opset 13). */
#include <math.h>
#include <string.h>

#include "eval_impl.h"

/* The scale (and zero point) index of element i of x: 0 for a scalar
 * scale, its position along axis for a 1-D one; -1 after failing. */
static bool quant_axis(EvalCall *c, const Tensor *x, const Tensor *scale, int64_t *stride,
                       int64_t *n)
{
    *stride = 1;
    *n = 1;
    if (scale->rank == 0 || scale->size == 1)
        return true;
    int axis = eval_attr_axis(c, 1, x->rank);
    if (axis < 0)
        return false;
    if (scale->rank != 1 || scale->dims[0] != x->dims[axis])
        return eval_fail(c, "a 1-D scale needs one value per element of axis %d", axis);
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    *stride = strides[axis];
    *n = x->dims[axis];
    return true;
}

/* QuantizeLinear(x, y_scale, y_zero_point): round(x / scale) (halves to
 * even) + zero point, saturated to the zero point's dtype (uint8 without
 * one). */
static bool op_quantize(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 3);
    const Tensor *scale = x ? eval_arg(c, 1) : NULL, *zp = scale ? eval_opt_arg(c, 2) : NULL;
    int64_t stride, n;
    if (!scale || c->err->status != EVAL_OK || !quant_axis(c, x, scale, &stride, &n))
        return false;
    const char *dtype = zp ? zp->dtype : "uint8";
    double lo = strcmp(dtype, "int8") == 0 ? -128 : 0, hi = strcmp(dtype, "int8") == 0 ? 127 : 255;
    if (strcmp(dtype, "int8") != 0 && strcmp(dtype, "uint8") != 0)
        return eval_fail(c, "zero point of dtype %s, wants int8 or uint8", dtype);
    Tensor *r = eval_result(c, dtype, x->rank, x->dims);
    for (size_t i = 0; r && i < x->size; i++) {
        size_t k = (size_t)((int64_t)i / stride % n);
        double q = nearbyint(x->data[i] / scale->data[k]) + (zp ? zp->data[k % zp->size] : 0);
        r->data[i] = q < lo ? lo : q > hi ? hi : q;
    }
    return r != NULL;
}

/* DequantizeLinear(x, x_scale, x_zero_point): (x - zero point) * scale, in
 * the scale's dtype. */
static bool op_dequantize(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 3);
    const Tensor *scale = x ? eval_arg(c, 1) : NULL, *zp = scale ? eval_opt_arg(c, 2) : NULL;
    int64_t stride, n;
    if (!scale || c->err->status != EVAL_OK || !quant_axis(c, x, scale, &stride, &n))
        return false;
    Tensor *r = eval_result(c, scale->dtype, x->rank, x->dims);
    for (size_t i = 0; r && i < x->size; i++) {
        size_t k = (size_t)((int64_t)i / stride % n);
        r->data[i] = (x->data[i] - (zp ? zp->data[k % zp->size] : 0)) * scale->data[k];
    }
    return r != NULL;
}

const EvalOpDef eval_onnx_quant_ops[] = {
    {"QuantizeLinear", op_quantize},
    {"DequantizeLinear", op_dequantize},
    {NULL, NULL},
};
