/* onnx_infer_layout.c - inference of ONNX's ops that move elements or
 * make them from positions: Pad, DepthToSpace, SpaceToDepth, Trilu,
 * EyeLike, and the normalisations that keep their input's type, LRN and
 * MeanVarianceNormalization (onnx/defs/tensor/defs.cc, generator/defs.cc,
 * nn/defs.cc). */
#include <string.h>

#include "dtype.h"
#include "onnx_infer_impl.h"

/* Pad(data, pads, constant_value): each dim grown by its begin and end
 * pads (a constant). */
static bool infer_pad(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 3) ? infer_need(c, 0) : NULL;
    int64_t pads[2 * ONNX_MAX_RANK];
    int n = x && infer_need(c, 1) ? infer_in_ints(c, 1, pads, 2 * ONNX_MAX_RANK) : -2;
    if (n == -2)
        return false;
    infer_copy(c, 0, x);
    if (x->rank >= 0 && n >= 0 && n != 2 * x->rank)
        return infer_fail(c, "%d pads for rank %d", n, x->rank);
    for (int i = 0; i < x->rank; i++)
        if (n < 0 || x->dims[i] == DIM_ANY)
            c->out[0].dims[i] = DIM_ANY;
        else
            c->out[0].dims[i] += pads[i] + pads[x->rank + i];
    return true;
}

/* DepthToSpace: (N, C / b^2, H * b, W * b); SpaceToDepth: (N, C * b^2,
 * H / b, W / b), blocksize b. */
static bool infer_depth_space(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    int64_t b = infer_attr_int(c, "blocksize", 0);
    bool to_space = strcmp(c->op, "DepthToSpace") == 0;
    if (!x)
        return false;
    if ((x->rank >= 0 && x->rank != 4) || b <= 0)
        return infer_fail(c, "wants an input of N, C, H, W and a blocksize of 1 or more");
    infer_copy(c, 0, x);
    int64_t by[4] = {1, to_space ? b * b : 1, to_space ? 1 : b, to_space ? 1 : b};
    int64_t times[4] = {1, to_space ? 1 : b * b, to_space ? b : 1, to_space ? b : 1};
    for (int i = 1; i < x->rank; i++) {
        if (x->dims[i] == DIM_ANY)
            continue;
        if (x->dims[i] % by[i] != 0)
            return infer_fail(c, "dim %d (%lld) does not divide by %lld", i,
                              (long long)x->dims[i], (long long)by[i]);
        c->out[0].dims[i] = x->dims[i] / by[i] * times[i];
    }
    return true;
}

/* Trilu, LRN, MeanVarianceNormalization: the input's type (Trilu's of
 * rank 2 or more). */
static bool infer_same_as_input(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 2) ? infer_need(c, 0) : NULL;
    if (x && strcmp(c->op, "Trilu") == 0 && x->rank >= 0 && x->rank < 2)
        return infer_fail(c, "input of rank %d, wants 2 or more", x->rank);
    if (x)
        infer_copy(c, 0, x);
    return x != NULL;
}

/* EyeLike(input, dtype, k): the input's 2-D shape, in dtype (a DataType)
 * or the input's. */
static bool infer_eye_like(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    if (x->rank >= 0 && x->rank != 2)
        return infer_fail(c, "input of rank %d is no matrix", x->rank);
    int64_t to = infer_attr_int(c, "dtype", 0);
    const char *dtype = to ? dtype_name((DType)to) : x->dtype;
    if (to && !dtype)
        return infer_fail(c, "attribute dtype: %lld is no ONNX data type", (long long)to);
    infer_copy(c, 0, x);
    c->out[0].dtype = dtype;
    return true;
}

const InferDef onnx_infer_layout_ops[] = {
    {"Pad", infer_pad},         {"DepthToSpace", infer_depth_space},
    {"SpaceToDepth", infer_depth_space},
    {"Trilu", infer_same_as_input}, {"EyeLike", infer_eye_like},
    {"LRN", infer_same_as_input}, {"MeanVarianceNormalization", infer_same_as_input},
    {NULL, NULL},
};
