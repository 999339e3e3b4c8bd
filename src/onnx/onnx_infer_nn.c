/* onnx_infer_nn.c - inference of ONNX's layers and reductions: Conv and
 * the pools (spatial dims from kernel, strides, dilations, pads,
 * auto_pad, ceil_mode), the normalisations, Gemm, MatMul (numpy's
 * matmul), the Reduce ops, ArgMax and ArgMin (onnx/defs/nn/defs.cc,
 * math/defs.cc, reduction/defs.cc). */
#include <string.h>

#include "onnx_infer_impl.h"

enum { MAX_SPATIAL = ONNX_MAX_RANK - 2 };

/* An ints attribute of s values, dflt each when absent. */
static bool spatial_attr(InferCall *c, const char *name, int s, int64_t dflt, int64_t *out)
{
    int64_t got[2 * MAX_SPATIAL];
    int n = infer_attr_ints(c, name, got, 2 * MAX_SPATIAL);
    for (int i = 0; i < s && n != -2; i++)
        out[i] = n < 0 ? dflt : got[i];
    return n == -1 || n == s || (n >= 0 && !infer_fail(c, "%s has %d values for %d dims", name,
                                                       n, s));
}

/* Output dim i of a window op over input dim in (DIM_ANY: unknown). */
static int64_t window_dim(InferCall *c, int64_t in, int64_t k, int64_t stride, int64_t dil,
                          int64_t pad_begin, int64_t pad_end)
{
    int64_t pads = pad_begin + pad_end;
    const char *auto_pad = infer_attr_str(c, "auto_pad", "NOTSET");
    if (in == DIM_ANY || k == DIM_ANY)
        return DIM_ANY;
    if (strncmp(auto_pad, "SAME", 4) == 0)
        return (in + stride - 1) / stride;
    bool valid = strcmp(auto_pad, "VALID") == 0;
    pads = valid ? 0 : pads;
    pad_begin = valid ? 0 : pad_begin;
    int64_t span = in + pads - dil * (k - 1) - 1;
    if (infer_attr_int(c, "ceil_mode", 0)) {
        int64_t out = (span + stride - 1) / stride + 1;
        return (out - 1) * stride >= in + pad_begin ? out - 1 : out; /* a window in the padding */
    }
    return span / stride + 1;
}

/* The output of a window op on x (N, C, D...) with kernel dims k (NULL:
 * the attribute kernel_shape) and channels ch into output 0. */
static bool infer_window(InferCall *c, const OnnxType *x, const int64_t *k, int64_t ch)
{
    OnnxType *r = infer_set(c, 0, x->dtype, x->rank);
    if (x->rank < 0)
        return true;
    int s = x->rank - 2;
    int64_t kernel[MAX_SPATIAL], stride[MAX_SPATIAL], dil[MAX_SPATIAL], pads[2 * MAX_SPATIAL];
    if (s < 1 || s > MAX_SPATIAL)
        return infer_fail(c, "input of rank %d, wants N, C and spatial dims", x->rank);
    if (k)
        memcpy(kernel, k, (size_t)s * sizeof *kernel);
    if ((!k && !spatial_attr(c, "kernel_shape", s, DIM_ANY, kernel)) ||
        !spatial_attr(c, "strides", s, 1, stride) || !spatial_attr(c, "dilations", s, 1, dil))
        return false;
    int np = infer_attr_ints(c, "pads", pads, 2 * MAX_SPATIAL);
    if (np == -2 || (np >= 0 && np != 2 * s))
        return np == -2 ? false : infer_fail(c, "pads has %d values for %d dims", np, s);
    r->dims[0] = x->dims[0];
    r->dims[1] = ch;
    for (int i = 0; i < s; i++)
        r->dims[2 + i] = window_dim(c, x->dims[2 + i], kernel[i], stride[i], dil[i],
                                    np < 0 ? 0 : pads[i], np < 0 ? 0 : pads[s + i]);
    return true;
}

/* Conv(x, w, b): (N, M, out...), M = w's first dim. */
static bool infer_conv(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *w = x ? infer_need(c, 1) : NULL;
    if (!w || !infer_same_dtype(c, x, w))
        return false;
    if (x->rank >= 0 && w->rank >= 0 && x->rank != w->rank)
        return infer_fail(c, "input of rank %d, weight of rank %d", x->rank, w->rank);
    int64_t k[MAX_SPATIAL];
    for (int i = 0; w->rank > 2 && i < w->rank - 2 && i < MAX_SPATIAL; i++)
        k[i] = w->dims[2 + i];
    return infer_window(c, x, w->rank >= 0 ? k : NULL, w->rank > 0 ? w->dims[0] : DIM_ANY);
}

/* MaxPool (and its int64 Indices), AveragePool, GlobalMaxPool,
 * GlobalAveragePool (every spatial dim 1). */
static bool infer_pool(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    if (strncmp(c->op, "Global", 6) == 0) {
        infer_copy(c, 0, x);
        for (int i = 2; i < x->rank; i++)
            c->out[0].dims[i] = 1;
        return true;
    }
    if (!infer_window(c, x, NULL, x->rank > 1 ? x->dims[1] : DIM_ANY))
        return false;
    if (c->nout > 1) {
        c->out[1] = c->out[0];
        c->out[1].dtype = "int64";
    }
    return true;
}

/* BatchNormalization: Y as X; in training mode the running mean and var
 * (C). InstanceNormalization: Y as X.  LayerNormalization: Y as X, Mean
 * and InvStdDev as X with the dims from axis 1 (float32, stash_type). */
static bool infer_norm(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 5) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    infer_copy(c, 0, x);
    bool layer = strcmp(c->op, "LayerNormalization") == 0;
    int axis = layer && x->rank >= 0 ? infer_axis(c, infer_attr_int(c, "axis", -1), x->rank) : 0;
    if (axis < 0)
        return false;
    for (int i = 1; i < c->nout && i < 3; i++) {
        if (!layer) {
            infer_set(c, i, x->dtype, 1)->dims[0] = x->rank > 1 ? x->dims[1] : DIM_ANY;
            continue;
        }
        infer_copy(c, i, x);
        c->out[i].dtype = "float32";
        for (int d = axis; d < x->rank; d++)
            c->out[i].dims[d] = 1;
    }
    return true;
}

/* Gemm(A, B, C, transA, transB): (M, N). */
static bool infer_gemm(InferCall *c)
{
    const OnnxType *a = infer_nin(c, 2, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *b = a ? infer_need(c, 1) : NULL;
    if (!b || !infer_same_dtype(c, a, b))
        return false;
    if ((a->rank >= 0 && a->rank != 2) || (b->rank >= 0 && b->rank != 2))
        return infer_fail(c, "A and B must be matrices");
    OnnxType *r = infer_set(c, 0, a->dtype, 2);
    r->dims[0] = a->rank == 2 ? a->dims[infer_attr_int(c, "transA", 0) != 0] : DIM_ANY;
    r->dims[1] = b->rank == 2 ? b->dims[infer_attr_int(c, "transB", 0) == 0] : DIM_ANY;
    return true;
}

/* MatMul(a, b) as numpy.matmul. */
static bool infer_matmul(InferCall *c)
{
    const OnnxType *a = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *b = a ? infer_need(c, 1) : NULL;
    if (!b || !infer_same_dtype(c, a, b))
        return false;
    if (a->rank < 0 || b->rank < 0)
        return infer_set(c, 0, a->dtype, -1) != NULL;
    if (a->rank == 0 || b->rank == 0)
        return infer_fail(c, "scalar inputs");
    OnnxType ab = *a, bb = *b, r = {0};
    ab.rank = a->rank > 2 ? a->rank - 2 : 0;
    bb.rank = b->rank > 2 ? b->rank - 2 : 0;
    if (!infer_broadcast(c, &ab, &bb, &r))
        return false;
    int64_t k1 = a->dims[a->rank - 1], k2 = b->dims[b->rank > 1 ? b->rank - 2 : 0];
    if (k1 != k2 && dim_known(k1) && dim_known(k2))
        return infer_fail(c, "inner dims %lld and %lld differ", (long long)k1, (long long)k2);
    if (a->rank > 1)
        r.dims[r.rank++] = a->dims[a->rank - 2];
    if (b->rank > 1)
        r.dims[r.rank++] = b->dims[b->rank - 1];
    infer_copy(c, 0, &r);
    c->out[0].dtype = a->dtype;
    return true;
}

/* The Reduce ops (axes input 1 or attribute, keepdims=1,
 * noop_with_empty_axes=0), ArgMax and ArgMin (axis=0, int64). */
static bool infer_reduce(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 2) ? infer_need(c, 0) : NULL;
    bool arg = strncmp(c->op, "Arg", 3) == 0, reduced[ONNX_MAX_RANK] = {false};
    int64_t axes[ONNX_MAX_RANK];
    int n = !x ? -2 : arg ? 1 : infer_in_ints(c, 1, axes, ONNX_MAX_RANK);
    if (arg)
        axes[0] = infer_attr_int(c, "axis", 0);
    else if (n == -1 && !infer_in(c, 1))
        n = infer_attr_ints(c, "axes", axes, ONNX_MAX_RANK);
    if (n == -2)
        return false;
    bool keep = infer_attr_int(c, "keepdims", 1) != 0, unknown = n == -1 && infer_in(c, 1);
    OnnxType *r = infer_set(c, 0, arg ? "int64" : x->dtype, keep ? x->rank : -1);
    if (x->rank < 0 || unknown)
        return true;
    bool all = n <= 0 && !infer_attr_int(c, "noop_with_empty_axes", 0);
    for (int i = 0; i < n; i++) {
        int a = infer_axis(c, axes[i], x->rank);
        if (a < 0)
            return false;
        reduced[a] = true;
    }
    r->rank = 0;
    for (int i = 0; i < x->rank; i++)
        if (!(all || reduced[i]) || keep)
            r->dims[r->rank++] = all || reduced[i] ? 1 : x->dims[i];
    return true;
}

/* ConvTranspose(x, w, b): (N, M, out...), M = w's dim 1 times group; each
 * out from output_shape, or in * stride for SAME_UPPER and SAME_LOWER, or
 * stride * (in - 1) + output_padding + dilated kernel - pads. */
static bool infer_conv_transpose(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *w = x ? infer_need(c, 1) : NULL;
    if (!w || !infer_same_dtype(c, x, w))
        return false;
    OnnxType *r = infer_set(c, 0, x->dtype, x->rank);
    if (x->rank < 0 || w->rank < 0)
        return true;
    int s = x->rank - 2;
    int64_t k[MAX_SPATIAL], stride[MAX_SPATIAL], dil[MAX_SPATIAL], outpad[MAX_SPATIAL];
    int64_t shape[MAX_SPATIAL], pads[2 * MAX_SPATIAL];
    if (s < 1 || s > MAX_SPATIAL || w->rank != x->rank)
        return infer_fail(c, "input of rank %d and weight of rank %d", x->rank, w->rank);
    if (!spatial_attr(c, "kernel_shape", s, DIM_ANY, k) ||
        !spatial_attr(c, "strides", s, 1, stride) || !spatial_attr(c, "dilations", s, 1, dil) ||
        !spatial_attr(c, "output_padding", s, 0, outpad))
        return false;
    int nshape = infer_attr_ints(c, "output_shape", shape, MAX_SPATIAL);
    int np = infer_attr_ints(c, "pads", pads, 2 * MAX_SPATIAL);
    if (nshape == -2 || np == -2)
        return false;
    bool same = strncmp(infer_attr_str(c, "auto_pad", "NOTSET"), "SAME", 4) == 0;
    int64_t group = infer_attr_int(c, "group", 1);
    r->dims[0] = x->dims[0];
    r->dims[1] = w->dims[1] == DIM_ANY ? DIM_ANY : w->dims[1] * group;
    for (int i = 0; i < s; i++) {
        int64_t kk = k[i] == DIM_ANY ? w->dims[2 + i] : k[i], in = x->dims[2 + i];
        int64_t pad = np == 2 * s ? pads[i] + pads[s + i] : 0;
        r->dims[2 + i] = nshape >= s ? shape[nshape - s + i]
                         : in == DIM_ANY || kk == DIM_ANY ? DIM_ANY
                         : same ? in * stride[i]
                                : stride[i] * (in - 1) + outpad[i] + (kk - 1) * dil[i] + 1 - pad;
    }
    return true;
}

const InferDef onnx_infer_nn_ops[] = {
    {"Conv", infer_conv},          {"ConvTranspose", infer_conv_transpose},
    {"MaxPool", infer_pool},       {"AveragePool", infer_pool},
    {"GlobalMaxPool", infer_pool}, {"GlobalAveragePool", infer_pool},
    {"BatchNormalization", infer_norm}, {"LayerNormalization", infer_norm},
    {"InstanceNormalization", infer_norm}, {"Gemm", infer_gemm}, {"MatMul", infer_matmul},
    {"ReduceSum", infer_reduce},   {"ReduceMean", infer_reduce},  {"ReduceMax", infer_reduce},
    {"ReduceMin", infer_reduce},   {"ReduceProd", infer_reduce},  {"ReduceL1", infer_reduce},
    {"ReduceL2", infer_reduce},    {"ReduceLogSum", infer_reduce},
    {"ReduceLogSumExp", infer_reduce}, {"ReduceSumSquare", infer_reduce},
    {"ArgMax", infer_reduce},      {"ArgMin", infer_reduce},
    {NULL, NULL},
};
