/* eval_onnx_select.c - ONNX's ops that select or scatter elements by
 * index: GatherElements, ScatterElements, GatherND, OneHot, TopK, CumSum
 * (onnx/defs/tensor/defs.cc, math/defs.cc at the opsets of onnx 1.12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

/* An index k into a dim of n, negative counting from the end; -1 after
 * failing when it is out of range. */
static int64_t index_in(EvalCall *c, double k, int64_t n)
{
    int64_t i = (int64_t)k;
    if (i < -n || i >= n) {
        eval_fail(c, "index %lld out of range for dim %lld", (long long)i, (long long)n);
        return -1;
    }
    return i < 0 ? i + n : i;
}

/* The flat index into a tensor of dims (strides) of the coordinates of
 * element flat of idx's shape, with coordinate axis replaced by k. */
static size_t replace_axis(const Tensor *idx, size_t flat, int axis, int64_t k,
                           const int64_t *strides)
{
    size_t at = 0;
    for (int d = idx->rank - 1; d >= 0; d--) {
        int64_t coord = (int64_t)(flat % (size_t)idx->dims[d]);
        flat /= (size_t)idx->dims[d];
        at += (size_t)((d == axis ? k : coord) * strides[d]);
    }
    return at;
}

/* GatherElements(data, indices, axis=0): out[i] = data[i with axis
 * replaced by indices[i]], of indices' shape. */
static bool op_gather_elements(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *idx = x ? eval_arg(c, 1) : NULL;
    int axis = idx ? eval_attr_axis(c, 0, x->rank) : -1;
    if (axis < 0)
        return false;
    if (idx->rank != x->rank)
        return eval_fail(c, "indices of rank %d for data of rank %d", idx->rank, x->rank);
    Tensor *r = eval_result(c, x->dtype, idx->rank, idx->dims);
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    for (size_t i = 0; r && i < idx->size; i++) {
        int64_t k = index_in(c, idx->data[i], x->dims[axis]);
        if (k < 0)
            return false;
        r->data[i] = x->data[replace_axis(idx, i, axis, k, strides)];
    }
    return r != NULL;
}

/* v combined into *at by ScatterElements' reduction. */
static void scatter_one(double *at, double v, const char *reduction)
{
    *at = strcmp(reduction, "add") == 0   ? *at + v
          : strcmp(reduction, "mul") == 0 ? *at * v
                                          : v;
}

/* ScatterElements(data, indices, updates, axis=0, reduction="none"): data
 * with updates[i] written (or added, multiplied) at i with axis replaced
 * by indices[i]. */
static bool op_scatter_elements(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 3, 3);
    const Tensor *idx = x ? eval_arg(c, 1) : NULL, *upd = idx ? eval_arg(c, 2) : NULL;
    int axis = upd ? eval_attr_axis(c, 0, x->rank) : -1;
    if (axis < 0)
        return false;
    if (idx->rank != x->rank || upd->size != idx->size)
        return eval_fail(c, "indices and updates must have data's rank and one shape");
    const char *reduction = eval_attr_str(c, "reduction", "none");
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    if (r)
        memcpy(r->data, x->data, x->size * sizeof *x->data);
    for (size_t i = 0; r && i < idx->size; i++) {
        int64_t k = index_in(c, idx->data[i], x->dims[axis]);
        if (k < 0)
            return false;
        scatter_one(&r->data[replace_axis(idx, i, axis, k, strides)], upd->data[i], reduction);
    }
    return r != NULL;
}

/* GatherND(data, indices, batch_dims=0): each row of indices' last dim
 * (of q) picks a slice of data after the batch dims. */
static bool op_gather_nd(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *idx = x ? eval_arg(c, 1) : NULL;
    int64_t b = eval_attr_int(c, "batch_dims", 0);
    if (!idx)
        return false;
    int64_t q = idx->rank ? idx->dims[idx->rank - 1] : 0;
    if (idx->rank < 1 || b < 0 || b >= idx->rank || b + q > x->rank)
        return eval_fail(c, "indices of shape %lld deep with batch_dims %lld for rank %d",
                         (long long)q, (long long)b, x->rank);
    int64_t dims[EVAL_MAX_RANK * 2], batch = 1, rows = 1, slice = 1, strides[EVAL_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < idx->rank - 1; i++)
        dims[rank++] = idx->dims[i];
    for (int i = (int)(b + q); i < x->rank; i++)
        slice *= dims[rank++] = x->dims[i];
    for (int i = 0; i < b; i++)
        batch *= x->dims[i];
    for (int i = (int)b; i < idx->rank - 1; i++)
        rows *= idx->dims[i];
    Tensor *r = rank <= EVAL_MAX_RANK ? eval_result(c, x->dtype, rank, dims) : NULL;
    if (!r)
        return rank <= EVAL_MAX_RANK ? false : eval_fail(c, "result of rank %d", rank);
    eval_strides(x->rank, x->dims, strides);
    for (int64_t row = 0; row < batch * rows; row++) {
        size_t at = (size_t)(row / rows * (b ? strides[b - 1] : 0));
        for (int64_t j = 0; j < q; j++) {
            int64_t k = index_in(c, idx->data[row * q + j], x->dims[b + j]);
            if (k < 0)
                return false;
            at += (size_t)(k * strides[b + j]);
        }
        memcpy(r->data + row * slice, x->data + at, (size_t)slice * sizeof *r->data);
    }
    return true;
}

/* OneHot(indices, depth, values, axis=-1): a new axis of depth, values[1]
 * where the index is, values[0] elsewhere. */
static bool op_one_hot(EvalCall *c)
{
    const Tensor *idx = eval_nargs_first(c, 3, 3);
    const Tensor *depth = idx ? eval_arg(c, 1) : NULL, *vals = depth ? eval_arg(c, 2) : NULL;
    if (!vals)
        return false;
    if (depth->size != 1 || vals->size != 2 || idx->rank + 1 > EVAL_MAX_RANK)
        return eval_fail(c, "depth must be a scalar and values hold two");
    int axis = eval_attr_axis(c, -1, idx->rank + 1);
    int64_t n = (int64_t)depth->data[0], dims[EVAL_MAX_RANK], inner = 1;
    if (axis < 0)
        return false;
    for (int i = 0, k = 0; i <= idx->rank; i++)
        dims[i] = i == axis ? n : idx->dims[k++];
    for (int i = axis; i < idx->rank; i++)
        inner *= idx->dims[i];
    Tensor *r = eval_result(c, vals->dtype, idx->rank + 1, dims);
    for (size_t i = 0; r && i < r->size; i++) {
        int64_t pos = (int64_t)i / inner % n;
        int64_t src = (int64_t)i / inner / n * inner + (int64_t)i % inner;
        double k = idx->data[src];
        k = k < 0 ? k + (double)n : k;
        r->data[i] = vals->data[k == (double)pos];
    }
    return r != NULL;
}

/* Whether element a (value va) goes before b in TopK's order: larger (or
 * smaller) first, ties by the lower index. */
static bool topk_before(double va, int64_t a, double vb, int64_t b, bool largest)
{
    if (va != vb)
        return largest ? va > vb : va < vb;
    return a < b;
}

/* One row of TopK: the k first of n values stride apart at x, by
 * topk_before, into vals and inds (stride apart too); taken: n flags. */
static void topk_row(const double *x, int64_t n, int64_t k, int64_t stride, bool largest,
                     bool *taken, double *vals, double *inds)
{
    memset(taken, 0, (size_t)n * sizeof *taken);
    for (int64_t s = 0; s < k; s++) {
        int64_t best = -1;
        for (int64_t m = 0; m < n; m++)
            if (!taken[m] && (best < 0 || topk_before(x[m * stride], m, x[best * stride], best,
                                                      largest)))
                best = m;
        taken[best] = true;
        vals[s * stride] = x[best * stride];
        inds[s * stride] = (double)best;
    }
}

/* TopK(X, K, axis=-1, largest=1, sorted=1): (Values, Indices) of the K
 * largest (smallest) along axis, in order (sorted=0 may order them as it
 * likes: this order is one). */
static bool op_topk(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    int64_t k;
    int nk = x ? eval_arg_ints(c, 1, &k, 1) : -2;
    int axis = nk == 1 ? eval_attr_axis(c, -1, x->rank) : -1;
    if (axis < 0)
        return nk == -2 || nk == 1 ? false : eval_fail(c, "K must be one value");
    int64_t n = x->dims[axis], dims[EVAL_MAX_RANK], outer = 1, inner = 1;
    if (k < 0 || k > n)
        return eval_fail(c, "K is %lld for a dim of %lld", (long long)k, (long long)n);
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = k;
    for (int i = 0; i < x->rank; i++)
        *(i < axis ? &outer : &inner) *= i == axis ? 1 : x->dims[i];
    Tensor *vals = eval_tuple_result(c, 2) ? eval_field(c, 0, x->dtype, x->rank, dims) : NULL;
    Tensor *inds = vals ? eval_field(c, 1, "int64", x->rank, dims) : NULL;
    if (!inds)
        return false;
    bool *taken = xcalloc((size_t)n + 1, sizeof *taken);
    bool largest = eval_attr_int(c, "largest", 1) != 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++)
            topk_row(x->data + o * n * inner + i, n, k, inner, largest, taken,
                     vals->data + o * k * inner + i, inds->data + o * k * inner + i);
    free(taken);
    return true;
}

/* CumSum(x, axis, exclusive=0, reverse=0): running sums along axis. */
static bool op_cumsum(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    int64_t a;
    int na = x ? eval_arg_ints(c, 1, &a, 1) : -2;
    int axis = na == 1 ? eval_axis(c, a, x->rank) : -1;
    if (axis < 0)
        return na == -2 || na == 1 ? false : eval_fail(c, "axis must be one value");
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    if (!r)
        return false;
    bool exclusive = eval_attr_int(c, "exclusive", 0), reverse = eval_attr_int(c, "reverse", 0);
    int64_t strides[EVAL_MAX_RANK], n = x->dims[axis];
    eval_strides(x->rank, x->dims, strides);
    int64_t st = strides[axis];
    for (size_t base = 0; base < x->size; base++) {
        if ((int64_t)base / st % n != 0)
            continue;
        double sum = 0;
        for (int64_t m = 0; m < n; m++) {
            size_t at = base + (size_t)((reverse ? n - 1 - m : m) * st);
            if (!exclusive)
                sum += x->data[at];
            r->data[at] = sum;
            if (exclusive)
                sum += x->data[at];
        }
    }
    return true;
}

const EvalOpDef eval_onnx_select_ops[] = {
    {"GatherElements", op_gather_elements}, {"ScatterElements", op_scatter_elements},
    {"GatherND", op_gather_nd},             {"OneHot", op_one_hot},
    {"TopK", op_topk},                      {"CumSum", op_cumsum},
    {NULL, NULL},
};
