/* onnx_infer_index.c - inference of ONNX's ops that pick, cut or repeat
 * elements or make tensors: Split, Slice, Gather, Expand, Tile, Constant,
 * ConstantOfShape, Range, Dropout (onnx/defs/tensor/defs.cc,
 * generator/defs.cc, nn/defs.cc); sizes from constant inputs (note [onnx
 * inference] in onnx_infer.h). */
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "onnx_infer_impl.h"

enum { MAX_PARTS = 4096 };

/* Split(x, split, axis=0): one output per part; sizes from input 1, the
 * attribute split, or equal parts (the last one smaller). */
static bool infer_split(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 2) ? infer_need(c, 0) : NULL;
    int64_t sizes[MAX_PARTS];
    int n = x ? infer_in_ints(c, 1, sizes, MAX_PARTS) : -2;
    if (n == -1 && !infer_in(c, 1))
        n = infer_attr_ints(c, "split", sizes, MAX_PARTS);
    if (n == -2)
        return false;
    int axis = x->rank >= 0 ? infer_axis(c, infer_attr_int(c, "axis", 0), x->rank) : 0;
    if (axis < 0 || (n >= 0 && n != c->nout))
        return axis < 0 ? false : infer_fail(c, "%d sizes for %d outputs", n, c->nout);
    int64_t dim = x->rank >= 0 ? x->dims[axis] : DIM_ANY, total = 0;
    for (int i = 0; i < c->nout; i++) {
        infer_copy(c, i, x);
        if (x->rank < 0)
            continue;
        int64_t part = dim == DIM_ANY ? DIM_ANY : (dim + c->nout - 1) / c->nout;
        int64_t last = dim == DIM_ANY ? DIM_ANY : dim - part * (c->nout - 1);
        c->out[i].dims[axis] = n >= 0 ? sizes[i] : i < c->nout - 1 ? part : last;
        total += n >= 0 ? sizes[i] : 0;
    }
    if (n >= 0 && dim != DIM_ANY && total != dim)
        return infer_fail(c, "sizes add up to %lld, not dim %d (%lld)", (long long)total, axis,
                          (long long)dim);
    return true;
}

/* The count Slice takes of a dim, start..end by step (clamped as the
 * schema says). */
static int64_t slice_count(int64_t dim, int64_t start, int64_t end, int64_t step)
{
    start = start < 0 ? start + dim : start;
    end = end < 0 ? end + dim : end;
    int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    start = start < lo ? lo : start > hi ? hi : start;
    end = end < lo ? lo : end > hi ? hi : end;
    int64_t span = step > 0 ? end - start : start - end, abs_step = step > 0 ? step : -step;
    return span > 0 ? (span + abs_step - 1) / abs_step : 0;
}

/* Slice(x, starts, ends, axes, steps): the sliced dims when the inputs
 * are constants, else dims unknown on whichever axes they may name. */
static bool infer_slice(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 3, 5) ? infer_need(c, 0) : NULL;
    int64_t st[ONNX_MAX_RANK], en[ONNX_MAX_RANK], ax[ONNX_MAX_RANK], sp[ONNX_MAX_RANK];
    int n = x ? infer_in_ints(c, 1, st, ONNX_MAX_RANK) : -2;
    int ne = infer_in_ints(c, 2, en, ONNX_MAX_RANK), na = infer_in_ints(c, 3, ax, ONNX_MAX_RANK);
    int ns = infer_in_ints(c, 4, sp, ONNX_MAX_RANK);
    if (n == -2 || ne == -2 || na == -2 || ns == -2)
        return false;
    infer_copy(c, 0, x);
    bool unknown = n < 0 || ne < 0 || (na < 0 && infer_in(c, 3)) || (ns < 0 && infer_in(c, 4));
    for (int d = 0; unknown && d < x->rank; d++)
        c->out[0].dims[d] = DIM_ANY;
    if (unknown || x->rank < 0)
        return true;
    if (ne != n || (na >= 0 && na != n) || (ns >= 0 && ns != n))
        return infer_fail(c, "starts, ends, axes, steps of different lengths");
    for (int i = 0; i < n; i++) {
        int a = infer_axis(c, na >= 0 ? ax[i] : i, x->rank);
        int64_t step = ns >= 0 ? sp[i] : 1;
        if (a < 0 || step == 0)
            return a < 0 ? false : infer_fail(c, "step 0");
        if (x->dims[a] != DIM_ANY)
            c->out[0].dims[a] = slice_count(x->dims[a], st[i], en[i], step);
    }
    return true;
}

/* Gather(data, indices, axis=0): data's axis replaced by indices' dims. */
static bool infer_gather(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *idx = x ? infer_need(c, 1) : NULL;
    if (!idx)
        return false;
    bool known = x->rank >= 0 && idx->rank >= 0;
    int rank = known ? x->rank - 1 + idx->rank : -1;
    int axis = x->rank >= 0 ? infer_axis(c, infer_attr_int(c, "axis", 0), x->rank) : 0;
    if (axis < 0 || rank > ONNX_MAX_RANK)
        return axis < 0 ? false : infer_fail(c, "result of rank %d", rank);
    OnnxType *r = infer_set(c, 0, x->dtype, rank);
    for (int i = 0; i < rank; i++)
        r->dims[i] = i < axis ? x->dims[i] : i < axis + idx->rank ? idx->dims[i - axis]
                                                                  : x->dims[i - idx->rank + 1];
    return true;
}

/* Expand(x, shape): x broadcast with the shape input's values. */
static bool infer_expand(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    const OnnxType *shape_in = x ? infer_need(c, 1) : NULL;
    OnnxType shape = {.rank = 0};
    int n = shape_in ? infer_in_ints(c, 1, shape.dims, ONNX_MAX_RANK) : -2;
    if (n == -2)
        return false;
    OnnxType r = {0};
    shape.rank = n;
    if (n < 0) {
        int rank = shape_in->rank == 1 ? (int)shape_in->dims[0] : -1;
        rank = rank >= 0 && x->rank > rank ? x->rank : rank;
        infer_set(c, 0, x->dtype, x->rank >= 0 ? rank : -1);
        return true;
    }
    if (!infer_broadcast(c, x, &shape, &r))
        return false;
    infer_copy(c, 0, &r);
    c->out[0].dtype = x->dtype;
    return true;
}

/* Tile(x, repeats): dim i times repeats[i]. */
static bool infer_tile(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 2, 2) ? infer_need(c, 0) : NULL;
    int64_t reps[ONNX_MAX_RANK];
    int n = x && infer_need(c, 1) ? infer_in_ints(c, 1, reps, ONNX_MAX_RANK) : -2;
    if (n == -2)
        return false;
    infer_copy(c, 0, x);
    if (x->rank >= 0 && n >= 0 && n != x->rank)
        return infer_fail(c, "%d repeats for rank %d", n, x->rank);
    for (int i = 0; i < x->rank; i++)
        c->out[0].dims[i] = n < 0 || x->dims[i] == DIM_ANY ? DIM_ANY : x->dims[i] * reps[i];
    return true;
}

/* Constant(value | value_float(s) | value_int(s)): the attribute's type. */
static bool infer_constant(InferCall *c)
{
    static const char *const names[][2] = {
        {"value_float", "float32"}, {"value_floats", "float32"},
        {"value_int", "int64"},     {"value_ints", "int64"}};
    const graft_attr_value *v = node_find_attr(c->node, "value");
    if (!infer_nin(c, 0, 0))
        return false;
    if (v && v->kind == GRAFT_ATTR_TENSOR && v->type && v->type->kind == TYPE_TENSOR) {
        OnnxType *r = infer_set(c, 0, v->type->dtype, v->type->rank);
        memcpy(r->dims, v->type->dims, (size_t)v->type->rank * sizeof *r->dims);
        return true;
    }
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        if ((v = node_find_attr(c->node, names[i][0]))) {
            bool list = v->kind == GRAFT_ATTR_LIST;
            infer_set(c, 0, names[i][1], list)->dims[0] = list ? v->nitems : 0;
            return true;
        }
    return infer_fail(c, "no value attribute of a kind graft infers");
}

/* ConstantOfShape(shape, value): the shape input's values, value's dtype
 * (float32 without one). */
static bool infer_constant_of_shape(InferCall *c)
{
    const OnnxType *shape = infer_nin(c, 1, 1) ? infer_need(c, 0) : NULL;
    int64_t dims[ONNX_MAX_RANK];
    int n = shape ? infer_in_ints(c, 0, dims, ONNX_MAX_RANK) : -2;
    if (n == -2)
        return false;
    const graft_attr_value *v = node_find_attr(c->node, "value");
    bool typed = v && v->kind == GRAFT_ATTR_TENSOR && v->type && v->type->kind == TYPE_TENSOR;
    OnnxType *r = infer_set(c, 0, typed ? v->type->dtype : "float32",
                            n >= 0 ? n : shape->rank == 1 ? (int)shape->dims[0] : -1);
    for (int i = 0; i < n; i++)
        r->dims[i] = dims[i];
    return true;
}

/* Range(start, limit, delta): 1-D of max(ceil((limit - start) / delta), 0)
 * when the three are constants. */
static bool infer_range(InferCall *c)
{
    const OnnxType *s = infer_nin(c, 3, 3) ? infer_need(c, 0) : NULL;
    const OnnxType *l = s ? infer_need(c, 1) : NULL, *d = l ? infer_need(c, 2) : NULL;
    if (!d || !infer_same_dtype(c, s, l) || !infer_same_dtype(c, s, d))
        return false;
    OnnxType *r = infer_set(c, 0, s->dtype, 1);
    int64_t ns, nl, nd;
    const double *vs = infer_values(c, s, &ns), *vl = infer_values(c, l, &nl);
    const double *vd = infer_values(c, d, &nd);
    if (vs && vl && vd && ns == 1 && nl == 1 && nd == 1 && vd[0] != 0)
        r->dims[0] = (int64_t)fmax(ceil((vl[0] - vs[0]) / vd[0]), 0);
    return true;
}

/* Dropout(data, ratio, training_mode): data's type, and a bool mask. */
static bool infer_dropout(InferCall *c)
{
    const OnnxType *x = infer_nin(c, 1, 3) ? infer_need(c, 0) : NULL;
    if (!x)
        return false;
    infer_copy(c, 0, x);
    if (c->nout > 1) {
        infer_copy(c, 1, x);
        c->out[1].dtype = "bool";
    }
    return true;
}

const InferDef onnx_infer_index_ops[] = {
    {"Split", infer_split},       {"Slice", infer_slice},     {"Gather", infer_gather},
    {"Expand", infer_expand},     {"Tile", infer_tile},       {"Constant", infer_constant},
    {"ConstantOfShape", infer_constant_of_shape}, {"Range", infer_range},
    {"Dropout", infer_dropout},
    {NULL, NULL},
};
