/* onnx_infer_gather.c - inference of ONNX's ops that pick elements by a
 * mask or position lists, or whose output size depends on the values
 * (ScatterND, NonZero, Compress, ReverseSequence: onnx/defs/tensor/
 * defs.cc), and of linear quantization (QuantizeLinear,
 * DequantizeLinear: onnx/defs/quantization/defs.cc).  A size that depends
 * on values is known when the input is a constant (note [onnx inference]
 * in onnx_infer.h). */
#include <string.h>

#include "onnx_infer_impl.h"

/* ScatterND(data, indices, updates): data's type, updates of its dtype. */
static bool infer_scatter_nd(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 3, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *idx = x ? infer_need(c, 1) : NULL, *upd = idx ? infer_need(c, 2) : NULL;
    if (!upd || !infer_same_dtype(c, x, upd))
        return false;
    infer_copy(c, 0, x);
    return true;
}

/* NonZero(X): int64 (rank, count); the count known when X is a constant. */
static bool infer_nonzero(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    OnnxType *r = infer_set(c, 0, "int64", 2);
    r->dims[0] = x->rank >= 0 ? x->rank : DIM_ANY;
    int64_t n;
    const double *v = infer_values(c, x, &n);
    if (v) {
        r->dims[1] = 0;
        for (int64_t i = 0; i < n; i++)
            r->dims[1] += v[i] != 0;
    }
    return true;
}

/* Compress(input, condition, axis): input's rank with axis cut to the
 * count of true conditions (known for a constant condition), or 1-D
 * without axis. */
static bool infer_compress(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *cond = x ? infer_need(c, 1) : NULL;
    if (!cond)
        return false;
    bool flat = !node_find_attr(c->node, "axis");
    int axis = flat || x->rank < 0 ? 0 : infer_axis(c, infer_attr_int(c, "axis", 0), x->rank);
    if (axis < 0)
        return false;
    int64_t n;
    const double *v = infer_values(c, cond, &n);
    int64_t kept = v ? 0 : DIM_ANY;
    for (int64_t i = 0; v && i < n; i++)
        kept += v[i] != 0;
    if (flat) {
        infer_set(c, 0, x->dtype, 1)->dims[0] = kept;
        return true;
    }
    infer_copy(c, 0, x);
    if (x->rank >= 0)
        c->out[0].dims[axis] = kept;
    return true;
}

/* ReverseSequence(input, sequence_lens): input's type. */
static bool infer_reverse_sequence(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    if (!x || !infer_need(c, 1))
        return false;
    infer_copy(c, 0, x);
    return true;
}

/* QuantizeLinear(x, scale, zero_point): x's shape in the zero point's
 * dtype (uint8 without one); DequantizeLinear(x, scale, zero_point): x's
 * shape in the scale's dtype. */
static bool infer_quantize(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *scale = x ? infer_need(c, 1) : NULL, *zp = scale ? infer_in(c, 2) : NULL;
    if (!scale)
        return false;
    infer_copy(c, 0, x);
    bool quantize = strcmp(c->op, "QuantizeLinear") == 0;
    c->out[0].dtype = quantize ? zp ? zp->dtype : "uint8" : scale->dtype;
    return true;
}

const InferDef onnx_infer_gather_ops[] = {
    {"ScatterND", infer_scatter_nd},  {"NonZero", infer_nonzero},
    {"Compress", infer_compress},     {"ReverseSequence", infer_reverse_sequence},
    {"QuantizeLinear", infer_quantize}, {"DequantizeLinear", infer_quantize},
    {NULL, NULL},
};
