/* onnx_infer_nn.c - type relations of ONNX's neural-network ops:
 * convolution and pooling (onnx/defs/nn/defs.cc, convPoolShapeInference),
 * the norms, and the matrix products (onnx/defs/math/defs.cc: Gemm,
 * MatMul's matmulShapeInference). */
#include "onnx_infer.h"

#include <string.h>

/* One spatial output dim of a convolution or pool (convPoolShapeInference):
 * explicit pads (pad in all, pad_begin of it before) for NOTSET,
 * ceil(in / stride) for SAME_UPPER and SAME_LOWER, no padding for VALID;
 * ceil_mode rounds up, but a last window that would start in the end
 * padding is dropped (as ONNX's reference pool and ONNX Runtime do:
 * test_maxpool_2d_ceil). */
static int64_t window_dim(const char *auto_pad, int64_t in, int64_t k, int64_t pad,
                          int64_t pad_begin, int64_t stride, int64_t dilation, bool ceil_mode)
{
    if (in == DIM_ANY)
        return DIM_ANY;
    if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0)
        return (in + stride - 1) / stride;
    if (strcmp(auto_pad, "VALID") == 0)
        pad = pad_begin = 0;
    int64_t span = in + pad - dilation * (k - 1) - 1;
    int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
    return ceil_mode && (out - 1) * stride >= in + pad_begin ? out - 1 : out;
}

/* The window attributes of a convolution or pool over n spatial dims. */
typedef struct Window {
    int64_t kernel[ONNX_MAX_RANK], pads[2 * ONNX_MAX_RANK];
    int64_t strides[ONNX_MAX_RANK], dilations[ONNX_MAX_RANK];
} Window;

/* Reads one attribute of n ints (2n for pads), dflt when absent. */
static bool window_attr(OnnxInferCtx *c, const char *name, int64_t *out, int n, int64_t dflt)
{
    int got = onnx_ints(c, name, out, 2 * ONNX_MAX_RANK);
    if (got == -2)
        return false;
    if (got == -1) {
        for (int i = 0; i < n; i++)
            out[i] = dflt;
        return true;
    }
    if (got != n)
        onnx_fail(c, "attribute '%s' has %d values for %d", name, got, n);
    return got == n;
}

static bool read_window(OnnxInferCtx *c, int n, Window *w)
{
    return window_attr(c, "pads", w->pads, 2 * n, 0) &&
           window_attr(c, "strides", w->strides, n, 1) &&
           window_attr(c, "dilations", w->dilations, n, 1);
}

/* X's [N, C, D...] to [N, channels, out...] over window w. */
static const graft_type *windowed(OnnxInferCtx *c, const graft_type *x, int64_t channels,
                                  const Window *w)
{
    const char *auto_pad = onnx_str(c, "auto_pad", "NOTSET");
    bool ceil_mode = onnx_int(c, "ceil_mode", 0) != 0;
    int n = x->rank - 2;
    OnnxShape out = {.rank = 2, .dims = {x->dims[0], channels}};
    for (int i = 0; i < n; i++)
        out.dims[out.rank++] = window_dim(auto_pad, x->dims[i + 2], w->kernel[i],
                                          w->pads[i] + w->pads[i + n], w->pads[i], w->strides[i],
                                          w->dilations[i], ceil_mode);
    return onnx_make(c, x->dtype, &out);
}

static const graft_type *conv(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0), *wt = x ? onnx_input(c, 1) : NULL;
    if (!x || !wt)
        return NULL;
    if (x->rank < 3 || x->rank > ONNX_MAX_RANK || wt->rank != x->rank)
        return onnx_fail(c, "X of rank %d and W of rank %d (both must be the same, 3 or more)",
                         x->rank, wt->rank);
    int n = x->rank - 2;
    int64_t group = onnx_int(c, "group", 1);
    if (group < 1 || (x->dims[1] != DIM_ANY && wt->dims[1] != DIM_ANY &&
                      x->dims[1] != wt->dims[1] * group))
        return onnx_fail(c, "X has %lld channels; W expects %lld per group of %lld",
                         (long long)x->dims[1], (long long)wt->dims[1], (long long)group);
    Window w;
    if (!read_window(c, n, &w))
        return NULL;
    int got = onnx_ints(c, "kernel_shape", w.kernel, ONNX_MAX_RANK);
    if (got == -2)
        return NULL;
    if (got >= 0 && got != n)
        return onnx_fail(c, "attribute 'kernel_shape' must have %d values", n);
    for (int i = 0; i < n; i++) {
        if (got == -1) /* absent: W's spatial dims */
            w.kernel[i] = wt->dims[i + 2];
        if (w.kernel[i] == DIM_ANY)
            return NULL;
    }
    return windowed(c, x, wt->dims[0], &w);
}

/* MaxPool (Y, and the int64 Indices when the node names them) and
 * AveragePool (Y). */
static const graft_type *pool(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    if (x->rank < 3 || x->rank > ONNX_MAX_RANK)
        return onnx_fail(c, "X of rank %d (must be 3 or more)", x->rank);
    Window w;
    int n = x->rank - 2;
    if (!read_window(c, n, &w))
        return NULL;
    if (onnx_ints(c, "kernel_shape", w.kernel, ONNX_MAX_RANK) != n)
        return onnx_fail(c, "attribute 'kernel_shape' must have %d values", n);
    const graft_type *y = windowed(c, x, x->dims[1], &w);
    OnnxShape s;
    onnx_shape(c, y, &s);
    const graft_type *types[2] = {y, onnx_make(c, "int64", &s)};
    return c->noutputs <= 2 ? onnx_results(c, types) : onnx_fail(c, "more than 2 outputs");
}

static const graft_type *global_pool(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    if (x->rank < 2)
        return onnx_fail(c, "X of rank %d (must be 2 or more)", x->rank);
    OnnxShape s;
    if (!onnx_shape(c, x, &s))
        return NULL;
    for (int i = 2; i < s.rank; i++)
        s.dims[i] = 1;
    return onnx_make(c, x->dtype, &s);
}

/* Y as X; in training mode the running mean and variance, shaped as
 * scale ([C]). */
static const graft_type *batch_norm(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0), *scale = x ? onnx_input(c, 1) : NULL;
    if (!x || !scale)
        return NULL;
    if (x->rank < 2 || scale->rank != 1 ||
        (x->dims[1] != DIM_ANY && scale->dims[0] != DIM_ANY && x->dims[1] != scale->dims[0]))
        return onnx_fail(c, "scale of shape %s for X of shape %s (must be [C])", scale->text,
                         x->text);
    if (c->noutputs != 1 && c->noutputs != 3)
        return onnx_fail(c, "%d outputs (1, or 3 in training mode)", c->noutputs);
    const graft_type *types[3] = {x, scale, scale};
    return onnx_results(c, types);
}

/* Y as X; Mean and InvStdDev of X's shape with 1 from axis on, in
 * stash_type (float32 by default). */
static const graft_type *layer_norm(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x || c->noutputs > 3)
        return x ? onnx_fail(c, "more than 3 outputs") : NULL;
    OnnxShape s;
    int axis = onnx_axis(c, onnx_int(c, "axis", -1), x->rank);
    if (axis < 0 || !onnx_shape(c, x, &s))
        return NULL;
    for (int i = axis; i < s.rank; i++)
        s.dims[i] = 1;
    const graft_type *stat = onnx_make(c, "float32", &s);
    const graft_type *types[3] = {x, stat, stat};
    return onnx_results(c, types);
}

/* Y as the input (InstanceNormalization: scale and B of [C]). */
static const graft_type *instance_norm(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0), *scale = x ? onnx_input(c, 1) : NULL;
    if (!scale)
        return NULL;
    if (x->rank < 3 || scale->rank != 1 ||
        (x->dims[1] != DIM_ANY && scale->dims[0] != DIM_ANY && x->dims[1] != scale->dims[0]))
        return onnx_fail(c, "scale of shape %s for input of shape %s (must be [C])", scale->text,
                         x->text);
    return x;
}

/* Softmax, LogSoftmax, Hardmax: the input's type, axis in range. */
static const graft_type *softmax(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    return x && onnx_axis(c, onnx_int(c, "axis", -1), x->rank) >= 0 ? x : NULL;
}

/* Y = alpha * A' * B' + beta * C, A' of [M, K], B' of [K, N]. */
static const graft_type *gemm(OnnxInferCtx *c)
{
    const graft_type *a = onnx_input(c, 0), *b = a ? onnx_input(c, 1) : NULL;
    if (!a || !b)
        return NULL;
    if (a->rank != 2 || b->rank != 2)
        return onnx_fail(c, "A and B must be matrices (got %s and %s)", a->text, b->text);
    bool ta = onnx_int(c, "transA", 0) != 0, tb = onnx_int(c, "transB", 0) != 0;
    int64_t m = a->dims[ta ? 1 : 0], ka = a->dims[ta ? 0 : 1];
    int64_t kb = b->dims[tb ? 1 : 0], n = b->dims[tb ? 0 : 1];
    if (ka != DIM_ANY && kb != DIM_ANY && ka != kb)
        return onnx_fail(c, "A' has %lld columns, B' %lld rows", (long long)ka, (long long)kb);
    OnnxShape s = {.rank = 2, .dims = {m, n}};
    return onnx_make(c, a->dtype, &s);
}

/* numpy's matmul: vectors promoted and the promoted dim dropped again,
 * the batch dims broadcast. */
static const graft_type *matmul(OnnxInferCtx *c)
{
    const graft_type *a = onnx_input(c, 0), *b = a ? onnx_input(c, 1) : NULL;
    if (!a || !b)
        return NULL;
    OnnxShape sa, sb, batch;
    if (a->rank == 0 || b->rank == 0)
        return onnx_fail(c, "inputs must not be scalars");
    if (!onnx_shape(c, a, &sa) || !onnx_shape(c, b, &sb))
        return NULL;
    int64_t m = a->rank > 1 ? sa.dims[sa.rank - 2] : 1, ka = sa.dims[sa.rank - 1];
    int64_t kb = b->rank > 1 ? sb.dims[sb.rank - 2] : sb.dims[0], n = sb.dims[sb.rank - 1];
    if (ka != DIM_ANY && kb != DIM_ANY && ka != kb)
        return onnx_fail(c, "A has %lld columns, B %lld rows", (long long)ka, (long long)kb);
    sa.rank = a->rank > 2 ? a->rank - 2 : 0;
    sb.rank = b->rank > 2 ? b->rank - 2 : 0;
    if (!onnx_broadcast(c, &sa, &sb, &batch))
        return NULL;
    if (a->rank > 1 && !onnx_push(c, &batch, m))
        return NULL;
    if (b->rank > 1 && !onnx_push(c, &batch, n))
        return NULL;
    return onnx_make(c, a->dtype, &batch);
}

const OnnxOpDef onnx_ops_nn[] = {
    {"Conv", NULL, conv, ONNX_ONE_OUTPUT, 2},
    {"BatchNormalization", NULL, batch_norm, ONNX_SEVERAL_OUTPUTS, 5},
    {"Gemm", NULL, gemm, ONNX_ONE_OUTPUT, 2},
    {"MatMul", NULL, matmul, ONNX_ONE_OUTPUT, 2},
    {"MaxPool", NULL, pool, ONNX_ONE_OUTPUT, 1},
    {"AveragePool", NULL, pool, ONNX_ONE_OUTPUT, 1},
    {"GlobalAveragePool", NULL, global_pool, ONNX_ONE_OUTPUT, 1},
    {"GlobalMaxPool", NULL, global_pool, ONNX_ONE_OUTPUT, 1},
    {"InstanceNormalization", NULL, instance_norm, ONNX_ONE_OUTPUT, 3},
    {"Softmax", NULL, softmax, ONNX_ONE_OUTPUT, 1},
    {"LogSoftmax", NULL, softmax, ONNX_ONE_OUTPUT, 1},
    {"Hardmax", NULL, softmax, ONNX_ONE_OUTPUT, 1},
    {"LayerNormalization", NULL, layer_norm, ONNX_SEVERAL_OUTPUTS, 2},
    {NULL, NULL, NULL, 0, 0},
};
