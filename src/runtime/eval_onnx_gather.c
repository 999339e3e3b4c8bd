/* eval_onnx_gather.c - ONNX's ops that pick elements by a mask or by
 * position lists, or whose output size depends on the values: ScatterND,
 * NonZero, Compress, ReverseSequence (onnx/defs/tensor/defs.cc at the
 * opsets of onnx 1.12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

/* ScatterND(data, indices, updates, reduction="none"): data with each
 * slice that a row of indices (its last dim, q deep) names replaced by
 * (or added to, multiplied by) the matching slice of updates. */
static bool op_scatter_nd(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 3, 3);
    const Tensor *idx = x ? eval_arg(c, 1) : NULL, *upd = idx ? eval_arg(c, 2) : NULL;
    if (!upd)
        return false;
    int64_t q = idx->rank ? idx->dims[idx->rank - 1] : 0, rows = 1, slice = 1;
    int64_t strides[EVAL_MAX_RANK];
    if (idx->rank < 1 || q > x->rank)
        return eval_fail(c, "indices of rank %d and depth %lld for data of rank %d", idx->rank,
                         (long long)q, x->rank);
    for (int i = 0; i < idx->rank - 1; i++)
        rows *= idx->dims[i];
    for (int i = (int)q; i < x->rank; i++)
        slice *= x->dims[i];
    if ((size_t)(rows * slice) != upd->size)
        return eval_fail(c, "updates of %zu elements, wants %lld", upd->size,
                         (long long)(rows * slice));
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    if (!r)
        return false;
    memcpy(r->data, x->data, x->size * sizeof *x->data);
    eval_strides(x->rank, x->dims, strides);
    const char *reduction = eval_attr_str(c, "reduction", "none");
    for (int64_t row = 0; row < rows; row++) {
        size_t at = 0;
        for (int64_t j = 0; j < q; j++) {
            int64_t k = (int64_t)idx->data[row * q + j], n = x->dims[j];
            if (k < -n || k >= n)
                return eval_fail(c, "index %lld out of range for dim %lld", (long long)k,
                                 (long long)n);
            at += (size_t)((k < 0 ? k + n : k) * strides[j]);
        }
        for (int64_t e = 0; e < slice; e++) {
            double *d = &r->data[at + (size_t)e], v = upd->data[row * slice + e];
            *d = strcmp(reduction, "add") == 0   ? *d + v
                 : strcmp(reduction, "mul") == 0 ? *d * v
                                                 : v;
        }
    }
    return true;
}

/* NonZero(X): the int64 (rank, count) coordinates of X's nonzero
 * elements, in row-major order. */
static bool op_nonzero(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x)
        return false;
    int64_t count = 0, dims[2] = {x->rank, 0};
    for (size_t i = 0; i < x->size; i++)
        count += x->data[i] != 0;
    dims[1] = count;
    Tensor *r = eval_result(c, "int64", 2, dims);
    for (size_t i = 0, k = 0; r && i < x->size; i++) {
        if (x->data[i] == 0)
            continue;
        size_t flat = i;
        for (int d = x->rank - 1; d >= 0; d--) {
            r->data[(size_t)d * (size_t)count + k] = (double)(flat % (size_t)x->dims[d]);
            flat /= (size_t)x->dims[d];
        }
        k++;
    }
    return r != NULL;
}

/* Compress(input, condition, axis): the slices along axis (of the
 * flattened input without axis) whose condition is true; a condition
 * shorter than the dim leaves the rest out. */
static bool op_compress(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *cond = x ? eval_arg(c, 1) : NULL;
    if (!cond)
        return false;
    bool flat = !node_find_attr(c->node, "axis");
    int axis = flat ? 0 : eval_attr_axis(c, 0, x->rank);
    if (axis < 0)
        return false;
    int64_t n = flat ? (int64_t)x->size : x->dims[axis], inner = 1, outer = 1, kept = 0;
    for (int i = 0; !flat && i < x->rank; i++)
        *(i < axis ? &outer : &inner) *= i == axis ? 1 : x->dims[i];
    if ((int64_t)cond->size > n)
        return eval_fail(c, "condition of %zu for a dim of %lld", cond->size, (long long)n);
    for (size_t i = 0; i < cond->size; i++)
        kept += cond->data[i] != 0;
    int64_t dims[EVAL_MAX_RANK] = {kept};
    if (!flat)
        memcpy(dims, x->dims, sizeof dims);
    dims[flat ? 0 : axis] = kept;
    Tensor *r = eval_result(c, x->dtype, flat ? 1 : x->rank, dims);
    size_t at = 0;
    for (int64_t o = 0; r && o < outer; o++)
        for (int64_t j = 0; j < (int64_t)cond->size; j++)
            if (cond->data[j] != 0) {
                memcpy(r->data + at, x->data + (o * n + j) * inner, (size_t)inner * sizeof(double));
                at += (size_t)inner;
            }
    return r != NULL;
}

/* ReverseSequence(input, sequence_lens, batch_axis=1, time_axis=0): for
 * each batch b, its first sequence_lens[b] steps along time reversed. */
static bool op_reverse_sequence(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *lens = x ? eval_arg(c, 1) : NULL;
    int batch = lens ? eval_axis(c, eval_attr_int(c, "batch_axis", 1), x->rank) : -1;
    int time = batch >= 0 ? eval_axis(c, eval_attr_int(c, "time_axis", 0), x->rank) : -1;
    if (time < 0)
        return false;
    if (batch == time || lens->size != (size_t)x->dims[batch])
        return eval_fail(c, "sequence_lens must hold one length per batch");
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    for (size_t i = 0; r && i < x->size; i++) {
        int64_t b = (int64_t)i / strides[batch] % x->dims[batch];
        int64_t t = (int64_t)i / strides[time] % x->dims[time], len = (int64_t)lens->data[b];
        int64_t from = t < len ? len - 1 - t : t;
        r->data[i] = x->data[(int64_t)i + (from - t) * strides[time]];
    }
    return r != NULL;
}

const EvalOpDef eval_onnx_gather_ops[] = {
    {"ScatterND", op_scatter_nd}, {"NonZero", op_nonzero},
    {"Compress", op_compress},    {"ReverseSequence", op_reverse_sequence},
    {NULL, NULL},
};
