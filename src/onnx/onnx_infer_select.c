/* onnx_infer_select.c - inference of ONNX's ops that select or scatter
 * elements by index: GatherElements, ScatterElements, GatherND, OneHot,
 * TopK, CumSum (onnx/defs/tensor/defs.cc, math/defs.cc); sizes read from
 * constant inputs (note [onnx inference] in onnx_infer.h). */
#include <string.h>

#include "onnx_infer_impl.h"

/* GatherElements(data, indices, axis=0): indices' shape, data's dtype. */
static bool infer_gather_elements(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *idx = x ? infer_need(c, 1) : NULL;
    if (!idx)
        return false;
    if (x->rank >= 0 && idx->rank >= 0 && x->rank != idx->rank)
        return infer_fail(c, "indices of rank %d for data of rank %d", idx->rank, x->rank);
    if (x->rank >= 0 && infer_axis(c, infer_attr_int(c, "axis", 0), x->rank) < 0)
        return false;
    infer_copy(c, 0, idx);
    c->out[0].dtype = x->dtype;
    return true;
}

/* ScatterElements(data, indices, updates, axis=0): data's type; updates
 * of data's dtype. */
static bool infer_scatter_elements(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 3, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *idx = x ? infer_need(c, 1) : NULL, *upd = idx ? infer_need(c, 2) : NULL;
    if (!upd || !infer_same_dtype(c, x, upd))
        return false;
    if (x->rank >= 0 && infer_axis(c, infer_attr_int(c, "axis", 0), x->rank) < 0)
        return false;
    infer_copy(c, 0, x);
    return true;
}

/* GatherND(data, indices, batch_dims=0): indices' dims but the last (q),
 * then data's dims from batch_dims + q on. */
static bool infer_gather_nd(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *idx = x ? infer_need(c, 1) : NULL;
    if (!idx)
        return false;
    OnnxType *r = infer_set(c, 0, x->dtype, -1);
    int64_t b = infer_attr_int(c, "batch_dims", 0);
    int64_t q = idx->rank > 0 ? idx->dims[idx->rank - 1] : DIM_ANY;
    if (x->rank < 0 || q == DIM_ANY)
        return idx->rank == 0 ? infer_fail(c, "indices must have rank 1 or more") : true;
    int64_t rank = idx->rank - 1 + x->rank - b - q;
    if (b < 0 || b >= idx->rank || b + q > x->rank || rank > ONNX_MAX_RANK)
        return infer_fail(c, "indices %lld deep with batch_dims %lld for rank %d", (long long)q,
                          (long long)b, x->rank);
    r->rank = 0;
    for (int i = 0; i < idx->rank - 1; i++)
        r->dims[r->rank++] = idx->dims[i];
    for (int i = (int)(b + q); i < x->rank; i++)
        r->dims[r->rank++] = x->dims[i];
    return true;
}

/* OneHot(indices, depth, values, axis=-1): indices' shape with a dim of
 * depth (a constant) inserted at axis, in values' dtype. */
static bool infer_one_hot(InferCall *c)
{
    const OnnxType *idx = infer_nin(c, 3, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *depth = idx ? infer_need(c, 1) : NULL;
    const OnnxType *vals = depth ? infer_need(c, 2) : NULL;
    if (!vals)
        return false;
    if (idx->rank < 0 || idx->rank + 1 > ONNX_MAX_RANK)
        return idx->rank < 0 ? infer_set(c, 0, vals->dtype, -1) != NULL
                             : infer_fail(c, "result of rank %d", idx->rank + 1);
    int axis = infer_axis(c, infer_attr_int(c, "axis", -1), idx->rank + 1);
    if (axis < 0)
        return false;
    OnnxType *r = infer_set(c, 0, vals->dtype, idx->rank + 1);
    for (int i = 0, k = 0; i < r->rank; i++)
        r->dims[i] = i == axis ? DIM_ANY : idx->dims[k++];
    int64_t n;
    const double *v = infer_values(c, depth, &n);
    if (v && n == 1)
        r->dims[axis] = (int64_t)v[0];
    return true;
}

/* TopK(X, K, axis=-1): (Values, Indices), X with axis cut to K (a
 * constant), Indices int64. */
static bool infer_topk(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    int64_t k = DIM_ANY;
    int nk = x && infer_need(c, 1) ? infer_in_ints(c, 1, &k, 1) : -2;
    if (nk == -2)
        return false;
    int axis = x->rank >= 0 ? infer_axis(c, infer_attr_int(c, "axis", -1), x->rank) : 0;
    if (axis < 0)
        return false;
    if (nk == 1 && x->rank >= 0 && (k < 0 || (x->dims[axis] != DIM_ANY && k > x->dims[axis])))
        return infer_fail(c, "K is %lld for a dim of %lld", (long long)k,
                          (long long)x->dims[axis]);
    for (int i = 0; i < c->nout && i < 2; i++) {
        infer_copy(c, i, x);
        if (x->rank >= 0)
            c->out[i].dims[axis] = nk == 1 ? k : DIM_ANY;
    }
    if (c->nout > 1)
        c->out[1].dtype = "int64";
    return true;
}

/* CumSum(x, axis): x's type. */
static bool infer_cumsum(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    int64_t axis;
    int n = x && infer_need(c, 1) ? infer_in_ints(c, 1, &axis, 1) : -2;
    if (n == -2 || (n == 1 && x->rank >= 0 && infer_axis(c, axis, x->rank) < 0))
        return false;
    infer_copy(c, 0, x);
    return true;
}

const InferDef onnx_infer_select_ops[] = {
    {"GatherElements", infer_gather_elements}, {"ScatterElements", infer_scatter_elements},
    {"GatherND", infer_gather_nd},             {"OneHot", infer_one_hot},
    {"TopK", infer_topk},                      {"CumSum", infer_cumsum},
    {NULL, NULL},
};
