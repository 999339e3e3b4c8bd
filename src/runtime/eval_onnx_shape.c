/* eval_onnx_shape.c - ONNX's tensor manipulation: Shape, Size, Reshape,
 * Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather,
 * Expand, Tile, Constant, ConstantOfShape, Range, Dropout (inference) as
 * onnx/defs/tensor/defs.cc specifies them at the opsets of onnx 1.12
 * (axes of Squeeze, Unsqueeze and Split's sizes as inputs, opset 13). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

/* A 1-D int64 result holding n values. */
static bool ints_result(EvalCall *c, const int64_t *vals, int n)
{
    int64_t dims[1] = {n};
    Tensor *r = eval_result(c, "int64", 1, dims);
    for (int i = 0; r && i < n; i++)
        r->data[i] = (double)vals[i];
    return r != NULL;
}

/* Shape(x, start=0, end=rank), start and end clamped (opset 15). */
static bool op_shape(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x)
        return false;
    int64_t start = eval_attr_int(c, "start", 0), end = eval_attr_int(c, "end", x->rank);
    start = start < 0 ? start + x->rank : start;
    end = end < 0 ? end + x->rank : end;
    start = start < 0 ? 0 : start > x->rank ? x->rank : start;
    end = end < start ? start : end > x->rank ? x->rank : end;
    return ints_result(c, x->dims + start, (int)(end - start));
}

static bool op_size(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    Tensor *r = x ? eval_result(c, "int64", 0, NULL) : NULL;
    if (r)
        r->data[0] = (double)x->size;
    return r != NULL;
}

/* Reshape(x, shape, allowzero=0): 0 copies x's dim (unless allowzero),
 * one -1 is inferred. */
static bool op_reshape(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    int64_t dims[EVAL_MAX_RANK];
    int rank = x ? eval_arg_ints(c, 1, dims, EVAL_MAX_RANK) : -2;
    if (rank < 0)
        return rank == -2 ? false : eval_fail(c, "no shape");
    bool allowzero = eval_attr_int(c, "allowzero", 0);
    int64_t known = 1;
    int infer = -1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0 && !allowzero)
            dims[i] = i < x->rank ? x->dims[i] : 0;
        if (dims[i] == -1 && infer < 0)
            infer = i;
        else if (dims[i] < 0)
            return eval_fail(c, "shape dim %d is %lld", i, (long long)dims[i]);
        else
            known *= dims[i];
    }
    if (infer >= 0)
        dims[infer] = known ? (int64_t)x->size / known : 0;
    return eval_same_elements(c, x, rank, dims);
}

/* Flatten(x, axis=1): a matrix of x's dims before axis by those after. */
static bool op_flatten(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int64_t axis = x ? eval_attr_int(c, "axis", 1) : 0;
    if (!x)
        return false;
    if (axis < -x->rank || axis > x->rank)
        return eval_fail(c, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    axis = axis < 0 ? axis + x->rank : axis;
    int64_t dims[2] = {1, 1};
    for (int i = 0; i < x->rank; i++)
        dims[i >= axis] *= x->dims[i];
    return eval_same_elements(c, x, 2, dims);
}

/* The axes of Squeeze or Unsqueeze: operand 1 (opset 13) or the attribute
 * (opset 11); -1 when none are given. */
static int axes_of(EvalCall *c, int64_t *axes)
{
    int n = eval_arg_ints(c, 1, axes, EVAL_MAX_RANK);
    return n == -1 ? eval_attr_ints(c, "axes", axes, EVAL_MAX_RANK) : n;
}

/* Squeeze(x, axes): the given dims of 1 removed, or every dim of 1. */
static bool op_squeeze(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 2);
    int64_t axes[EVAL_MAX_RANK];
    int naxes = x ? axes_of(c, axes) : -2;
    return naxes != -2 && eval_squeeze(c, x, axes, naxes);
}

/* Unsqueeze(x, axes): dims of 1 inserted at axes of the result. */
static bool op_unsqueeze(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 2);
    int64_t axes[EVAL_MAX_RANK];
    int naxes = x ? axes_of(c, axes) : -2;
    if (naxes < 0)
        return naxes == -2 ? false : eval_fail(c, "no axes");
    int rank = x->rank + naxes;
    if (rank > EVAL_MAX_RANK)
        return eval_fail(c, "result of rank %d", rank);
    bool one[EVAL_MAX_RANK] = {false};
    for (int i = 0; i < naxes; i++) {
        int a = eval_axis(c, axes[i], rank);
        if (a < 0)
            return false;
        if (one[a])
            return eval_fail(c, "axis %d given twice", a);
        one[a] = true;
    }
    int64_t dims[EVAL_MAX_RANK];
    for (int i = 0, k = 0; i < rank; i++)
        dims[i] = one[i] ? 1 : x->dims[k++];
    return eval_same_elements(c, x, rank, dims);
}

/* dst in row-major order over dims, dimension i read as perm[i] of src
 * (whose strides are given): an odometer of the result's coordinates
 * moves the source offset by one stride at a time, no division per
 * element (a folded Conv's weights are transposed twice). */
static void transpose_into(double *dst, size_t size, const double *src, int rank,
                           const int64_t *dims, const int *perm, const int64_t *strides)
{
    int64_t coord[EVAL_MAX_RANK] = {0}, step[EVAL_MAX_RANK];
    for (int k = 0; k < rank; k++)
        step[k] = strides[perm[k]];
    int64_t off = 0;
    for (size_t i = 0; i < size; i++) {
        dst[i] = src[off];
        for (int k = rank - 1; k >= 0; k--) {
            off += step[k];
            if (++coord[k] < dims[k])
                break;
            off -= step[k] * dims[k];
            coord[k] = 0;
        }
    }
}

/* Transpose(x, perm=reversed dims). */
static bool op_transpose(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int64_t perm64[EVAL_MAX_RANK];
    int n = x ? eval_attr_ints(c, "perm", perm64, EVAL_MAX_RANK) : -2;
    if (n == -2)
        return false;
    int perm[EVAL_MAX_RANK];
    int64_t dims[EVAL_MAX_RANK], strides[EVAL_MAX_RANK];
    bool used[EVAL_MAX_RANK] = {false};
    if (n >= 0 && n != x->rank)
        return eval_fail(c, "perm of %d axes for rank %d", n, x->rank);
    for (int i = 0; i < x->rank; i++) {
        perm[i] = n < 0 ? x->rank - 1 - i : eval_axis(c, perm64[i], x->rank);
        if (perm[i] < 0 || used[perm[i]])
            return perm[i] < 0 ? false : eval_fail(c, "axis %d given twice", perm[i]);
        used[perm[i]] = true;
        dims[i] = x->dims[perm[i]];
    }
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    eval_strides(x->rank, x->dims, strides);
    transpose_into(r->data, r->size, x->data, r->rank, dims, perm, strides);
    return true;
}

/* Copies the block [from, from+len) of axis of src into dst at offset at
 * along the same axis (outer: product of dims before axis, inner: after). */
static void copy_block(double *dst, int64_t dst_axis, int64_t at, const double *src,
                       int64_t src_axis, int64_t from, int64_t len, int64_t outer, int64_t inner)
{
    for (int64_t o = 0; o < outer; o++)
        memcpy(dst + (o * dst_axis + at) * inner, src + (o * src_axis + from) * inner,
               (size_t)(len * inner) * sizeof *dst);
}

/* The product of dims before axis (*outer) and after it (*inner). */
static void outer_inner(const Tensor *t, int axis, int64_t *outer, int64_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < t->rank; i++)
        *(i < axis ? outer : inner) *= i == axis ? 1 : t->dims[i];
}

/* Concat(inputs..., axis): every input's dims equal but along axis. */
static bool op_concat(EvalCall *c)
{
    const Tensor *first = eval_nargs_first(c, 1, 1 << 20);
    int axis = first ? eval_attr_axis(c, 0, first->rank) : -1;
    if (axis < 0)
        return false;
    int64_t dims[EVAL_MAX_RANK];
    memcpy(dims, first->dims, sizeof dims);
    dims[axis] = 0;
    for (int i = 0; i < c->nargs; i++) {
        const Tensor *t = eval_arg(c, i);
        if (!t)
            return false;
        for (int d = 0; d < first->rank; d++)
            if (t->rank != first->rank || (d != axis && t->dims[d] != first->dims[d]))
                return eval_fail(c, "operand %d's shape differs from operand 1's", i + 1);
        dims[axis] += t->dims[axis];
    }
    Tensor *r = eval_result(c, first->dtype, first->rank, dims);
    if (!r)
        return false;
    int64_t outer, inner, at = 0;
    outer_inner(r, axis, &outer, &inner);
    for (int i = 0; i < c->nargs; i++) {
        const Tensor *t = &c->args[i].t;
        copy_block(r->data, dims[axis], at, t->data, t->dims[axis], 0, t->dims[axis], outer, inner);
        at += t->dims[axis];
    }
    return true;
}

/* The sizes Split cuts axis into: operand 1 (opset 13), the attribute
 * split (opset 11), or equal parts, the last smaller (opset 18's rule,
 * equal when they divide). */
static bool split_sizes(EvalCall *c, const Tensor *x, int axis, int64_t *sizes, int n)
{
    int64_t given[EVAL_MAX_RANK * 8];
    int k = eval_arg_ints(c, 1, given, EVAL_MAX_RANK * 8);
    if (k == -1)
        k = eval_attr_ints(c, "split", given, EVAL_MAX_RANK * 8);
    if (k == -2)
        return false;
    int64_t total = 0, part = (x->dims[axis] + n - 1) / n;
    for (int i = 0; i < n; i++) {
        sizes[i] = k >= 0 ? given[i] : (i < n - 1 ? part : x->dims[axis] - part * (n - 1));
        total += sizes[i];
    }
    if ((k >= 0 && k != n) || total != x->dims[axis] || sizes[n - 1] < 0)
        return eval_fail(c, "sizes do not add up to dim %d (%lld) in %d parts", axis,
                         (long long)x->dims[axis], n);
    return true;
}

/* Split(x, split, axis=0): one result per output. */
static bool op_split(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 2);
    int axis = x ? eval_attr_axis(c, 0, x->rank) : -1;
    int n = eval_noutputs(c);
    int64_t sizes[EVAL_MAX_RANK * 8];
    if (axis < 0 || n > EVAL_MAX_RANK * 8 || !split_sizes(c, x, axis, sizes, n) ||
        !eval_tuple_result(c, n))
        return axis >= 0 && n > EVAL_MAX_RANK * 8 ? eval_fail(c, "%d outputs", n) : false;
    int64_t outer, inner, from = 0, dims[EVAL_MAX_RANK];
    outer_inner(x, axis, &outer, &inner);
    memcpy(dims, x->dims, sizeof dims);
    for (int i = 0; i < n; i++) {
        dims[axis] = sizes[i];
        Tensor *r = eval_field(c, i, x->dtype, x->rank, dims);
        if (!r)
            return false;
        copy_block(r->data, sizes[i], 0, x->data, x->dims[axis], from, sizes[i], outer, inner);
        from += sizes[i];
    }
    return true;
}

const EvalOpDef eval_onnx_shape_ops[] = {
    {"Shape", op_shape},         {"Size", op_size},          {"Reshape", op_reshape},
    {"Flatten", op_flatten},     {"Squeeze", op_squeeze},    {"Unsqueeze", op_unsqueeze},
    {"Transpose", op_transpose}, {"Concat", op_concat},      {"Split", op_split},
    {NULL, NULL},
};
