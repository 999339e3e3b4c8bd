/* onnx_infer_shape.c - inference of ONNX's tensor manipulation ops:
 * Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat,
 * Split, Slice, Gather, Expand, Tile, Constant, ConstantOfShape, Range,
 * Dropout (onnx/defs/tensor/defs.cc, generator/defs.cc); shapes read from
 * constant inputs (note [onnx inference] in onnx_infer.h). */
#include <math.h>
#include <string.h>

#include "onnx_infer_impl.h"

/* Shape(x, start, end): int64 of end - start dims once x's rank is known. */
static bool infer_shape_op(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    OnnxType *r = infer_set(c, 0, "int64", 1);
    if (x->rank >= 0) {
        int64_t start = infer_attr_int(c, "start", 0), end = infer_attr_int(c, "end", x->rank);
        start = start < 0 ? start + x->rank : start;
        end = end < 0 ? end + x->rank : end;
        start = start < 0 ? 0 : start > x->rank ? x->rank : start;
        end = end < start ? start : end > x->rank ? x->rank : end;
        r->dims[0] = end - start;
    }
    return true;
}

static bool infer_size(InferCall *c)
{
    if (!infer_nin(c, 1, 1) || !infer_need(c, 0))
        return false;
    infer_set(c, 0, "int64", 0);
    return true;
}

/* The number of elements of t, or -1 when a dim is unknown. */
static int64_t known_size(const OnnxType *t)
{
    int64_t n = t->rank >= 0 ? 1 : -1;
    for (int i = 0; i < t->rank && n >= 0; i++)
        n = !dim_known(t->dims[i]) ? -1 : n * t->dims[i];
    return n;
}

/* The rank a 1-D shape input gives, -1 when its length is unknown. */
static int shape_input_rank(const OnnxType *shape)
{
    return shape->rank == 1 && dim_known(shape->dims[0]) ? (int)shape->dims[0] : -1;
}

/* Reshape(x, shape, allowzero=0): 0 copies x's dim, one -1 inferred. */
static bool infer_reshape(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *shape = x ? infer_need(c, 1) : NULL;
    int64_t dims[ONNX_MAX_RANK];
    int n = shape ? infer_in_ints(c, 1, dims, ONNX_MAX_RANK) : -2;
    if (n == -2)
        return false;
    OnnxType *r = infer_set(c, 0, x->dtype, n >= 0 ? n : shape_input_rank(shape));
    if (n < 0)
        return true;
    int64_t known = 1, total = known_size(x);
    int infer = -1;
    bool allowzero = infer_attr_int(c, "allowzero", 0) != 0;
    for (int i = 0; i < n; i++) {
        if (dims[i] < -1 || (dims[i] == -1 && infer >= 0))
            return infer_fail(c, "shape dim %d is %lld", i, (long long)dims[i]);
        if (dims[i] == -1) {
            infer = i;
            continue;
        }
        int64_t d = dims[i] == 0 && !allowzero ? (i < x->rank ? x->dims[i] : DIM_ANY) : dims[i];
        r->dims[i] = d;
        known = known < 0 || !dim_known(d) ? -1 : known * d;
    }
    if (infer >= 0 && known > 0 && total >= 0)
        r->dims[infer] = total / known;
    return true;
}

/* Flatten(x, axis=1): (product before axis, product from axis). */
static bool infer_flatten(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    OnnxType *r = infer_set(c, 0, x->dtype, 2);
    if (x->rank < 0)
        return true;
    int64_t axis = infer_attr_int(c, "axis", 1);
    if (axis < -x->rank || axis > x->rank)
        return infer_fail(c, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    axis = axis < 0 ? axis + x->rank : axis;
    r->dims[0] = r->dims[1] = 1;
    for (int i = 0; i < x->rank; i++) {
        int64_t *d = &r->dims[i >= axis];
        *d = *d == DIM_ANY || x->dims[i] == DIM_ANY ? DIM_ANY : *d * x->dims[i];
    }
    return true;
}

/* The axes of Squeeze or Unsqueeze: input 1 (opset 13) or the attribute;
 * -1 when neither is given or known (*unknown set when an input is). */
static int axes_of(InferCall *c, int64_t *axes, bool *unknown)
{
    int n = infer_in_ints(c, 1, axes, ONNX_MAX_RANK);
    *unknown = n == -1 && infer_in(c, 1);
    return n == -1 && !*unknown ? infer_attr_ints(c, "axes", axes, ONNX_MAX_RANK) : n;
}

/* Squeeze(x, axes): the given dims (or every dim known to be 1) dropped. */
static bool infer_squeeze(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 2) ? infer_need(c, 0) : NULL;
    int64_t axes[ONNX_MAX_RANK];
    bool unknown, drop[ONNX_MAX_RANK] = {false};
    int n = x ? axes_of(c, axes, &unknown) : -2;
    if (n == -2)
        return false;
    OnnxType *r = infer_set(c, 0, x->dtype, -1);
    if (x->rank < 0 || unknown)
        return true;
    for (int i = 0; i < n; i++) {
        int a = infer_axis(c, axes[i], x->rank);
        if (a < 0)
            return false;
        if (x->dims[a] != 1 && dim_known(x->dims[a]))
            return infer_fail(c, "dim %d is %lld, not 1", a, (long long)x->dims[a]);
        drop[a] = true;
    }
    r->rank = 0;
    for (int i = 0; i < x->rank; i++) {
        if (n < 0 && !dim_known(x->dims[i]))
            return infer_set(c, 0, x->dtype, -1) != NULL; /* which dims go is unknown */
        if (!(n < 0 ? x->dims[i] == 1 : drop[i]))
            r->dims[r->rank++] = x->dims[i];
    }
    return true;
}

/* Unsqueeze(x, axes): dims of 1 inserted at the result's axes. */
static bool infer_unsqueeze(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 2) ? infer_need(c, 0) : NULL;
    int64_t axes[ONNX_MAX_RANK];
    bool unknown, one[ONNX_MAX_RANK] = {false};
    int n = x ? axes_of(c, axes, &unknown) : -2;
    if (n == -2 || (n == -1 && !unknown))
        return n == -2 ? false : infer_fail(c, "no axes");
    OnnxType *r = infer_set(c, 0, x->dtype, -1);
    if (x->rank < 0 || unknown)
        return true;
    int rank = x->rank + n;
    if (rank > ONNX_MAX_RANK)
        return infer_fail(c, "result of rank %d", rank);
    for (int i = 0; i < n; i++) {
        int a = infer_axis(c, axes[i], rank);
        if (a < 0 || one[a])
            return a < 0 ? false : infer_fail(c, "axis %d given twice", a);
        one[a] = true;
    }
    r->rank = rank;
    for (int i = 0, k = 0; i < rank; i++)
        r->dims[i] = one[i] ? 1 : x->dims[k++];
    return true;
}

/* Transpose(x, perm=reversed). */
static bool infer_transpose(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    int64_t perm[ONNX_MAX_RANK];
    int n = x ? infer_attr_ints(c, "perm", perm, ONNX_MAX_RANK) : -2;
    if (n == -2)
        return false;
    int rank = x->rank >= 0 ? x->rank : n;
    OnnxType *r = infer_set(c, 0, x->dtype, rank);
    if (x->rank < 0)
        return true;
    if (n >= 0 && n != x->rank)
        return infer_fail(c, "perm of %d axes for rank %d", n, x->rank);
    bool used[ONNX_MAX_RANK] = {false};
    for (int i = 0; i < rank; i++) {
        int a = n < 0 ? rank - 1 - i : infer_axis(c, perm[i], rank);
        if (a < 0 || used[a])
            return a < 0 ? false : infer_fail(c, "axis %d given twice", a);
        used[a] = true;
        r->dims[i] = x->dims[a];
    }
    return true;
}

/* Concat(inputs..., axis): dims equal but along axis, which adds up. */
static bool infer_concat(InferCall *c)
{
    const OnnxType *first = infer_nin(c, 1, 1 << 20) ? infer_need(c, 0) : NULL;
    int rank = -1;
    for (int i = 0; first && i < c->nin; i++) {
        const OnnxType *t = infer_need(c, i);
        if (!t || !infer_same_dtype(c, first, t))
            return false;
        if (t->rank >= 0 && rank >= 0 && t->rank != rank)
            return infer_fail(c, "inputs of ranks %d and %d", rank, t->rank);
        rank = t->rank >= 0 ? t->rank : rank;
    }
    if (!first)
        return false;
    OnnxType *r = infer_set(c, 0, first->dtype, rank);
    int axis = rank >= 0 ? infer_axis(c, infer_attr_int(c, "axis", 0), rank) : 0;
    if (axis < 0)
        return false;
    for (int d = 0; d < rank; d++) {
        int64_t v = d == axis ? 0 : DIM_ANY;
        for (int i = 0; i < c->nin; i++) {
            int64_t di = c->in[i].rank >= 0 ? c->in[i].dims[d] : DIM_ANY;
            bool clash = false;
            if (d == axis)
                v = !dim_known(v) || !dim_known(di) ? DIM_ANY : v + di;
            else
                v = infer_dim_meet(v, di, &clash); /* v itself on a clash */
            if (clash)
                return infer_fail(c, "dim %d is %lld and %lld", d, (long long)v, (long long)di);
        }
        r->dims[d] = v;
    }
    return true;
}

const InferDef onnx_infer_shape_ops[] = {
    {"Shape", infer_shape_op},   {"Size", infer_size},         {"Reshape", infer_reshape},
    {"Flatten", infer_flatten},  {"Squeeze", infer_squeeze},   {"Unsqueeze", infer_unsqueeze},
    {"Transpose", infer_transpose}, {"Concat", infer_concat},
    {NULL, NULL},
};
