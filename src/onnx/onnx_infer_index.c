/* onnx_infer_index.c - type relations of ONNX's ops that cut, repeat or
 * make tensors from a shape: Split, Expand, Tile, ConstantOfShape, Range,
 * Dropout (onnx/defs/tensor/defs.cc, generator/defs.cc, nn/defs.cc).  A
 * shape an op reads from an input is known when that input is a
 * constant (onnx_const_ints); otherwise the type is unknown. */
#include "onnx_infer.h"

#include <math.h>
#include <string.h>

enum { MAX_PARTS = 1024 };

/* The sizes Split cuts dim (of axis) into, one per output: the constant
 * input split, the attribute split (opset 11), or equal parts of
 * ceil(dim / n), the last one smaller; false when unknown or after
 * failing. */
static bool split_sizes(OnnxInferCtx *c, int64_t dim, int64_t *sizes)
{
    int n = c->noutputs;
    int got = c->nin > 1 && c->in[1] ? onnx_const_ints(c, 1, sizes, MAX_PARTS)
                                     : onnx_ints(c, "split", sizes, MAX_PARTS);
    if (got == -2 || (got == -1 && c->nin > 1 && c->in[1]))
        return false;
    if (got == -1) {
        if (dim == DIM_ANY)
            return false;
        int64_t part = (dim + n - 1) / n;
        for (int i = 0; i < n; i++)
            sizes[i] = i < n - 1 ? part : dim - part * (n - 1);
        return sizes[n - 1] >= 0 || onnx_fail(c, "%lld does not split in %d", (long long)dim, n);
    }
    int64_t total = 0;
    for (int i = 0; i < got; i++)
        total += sizes[i];
    if (got != n || (dim != DIM_ANY && total != dim))
        return onnx_fail(c, "%d sizes adding up to %lld for %d outputs of dim %lld", got,
                         (long long)total, n, (long long)dim) != NULL;
    return true;
}

/* Split(input, split, axis=0): one result per output, the input cut
 * along axis. */
static const graft_type *split(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    int axis = onnx_axis(c, onnx_int(c, "axis", 0), x->rank);
    int64_t sizes[MAX_PARTS];
    OnnxShape s;
    if (axis < 0 || c->noutputs > MAX_PARTS || !onnx_shape(c, x, &s) ||
        !split_sizes(c, x->dims[axis], sizes))
        return c->noutputs > MAX_PARTS ? onnx_fail(c, "%d outputs", c->noutputs) : NULL;
    const graft_type *types[MAX_PARTS];
    for (int i = 0; i < c->noutputs; i++) {
        s.dims[axis] = sizes[i];
        types[i] = onnx_make(c, x->dtype, &s);
    }
    return onnx_results(c, types);
}

/* Expand(input, shape): the input broadcast with the constant shape. */
static const graft_type *expand(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    OnnxShape sx, shape, out;
    if (!x || !onnx_input(c, 1) || !onnx_shape(c, x, &sx))
        return NULL;
    shape.rank = onnx_const_ints(c, 1, shape.dims, ONNX_MAX_RANK);
    if (shape.rank < 0 || !onnx_broadcast(c, &sx, &shape, &out))
        return NULL;
    return onnx_make(c, x->dtype, &out);
}

/* Tile(input, repeats): dim i times repeats[i]. */
static const graft_type *tile(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    int64_t reps[ONNX_MAX_RANK];
    OnnxShape s;
    int n = x && onnx_input(c, 1) ? onnx_const_ints(c, 1, reps, ONNX_MAX_RANK) : -1;
    if (n < 0 || !onnx_shape(c, x, &s))
        return NULL;
    if (n != x->rank)
        return onnx_fail(c, "%d repeats for rank %d", n, x->rank);
    for (int i = 0; i < n; i++)
        s.dims[i] = s.dims[i] == DIM_ANY ? DIM_ANY : s.dims[i] * reps[i];
    return onnx_make(c, x->dtype, &s);
}

/* ConstantOfShape(input, value): the constant shape, in value's dtype
 * (float32 when absent). */
static const graft_type *constant_of_shape(OnnxInferCtx *c)
{
    OnnxShape s;
    if (!onnx_input(c, 0))
        return NULL;
    s.rank = onnx_const_ints(c, 0, s.dims, ONNX_MAX_RANK);
    if (s.rank < 0)
        return NULL;
    const graft_attr_value *v = node_find_attr(c->call, "value");
    bool typed = v && v->kind == GRAFT_ATTR_TENSOR && v->type && v->type->kind == TYPE_TENSOR;
    return onnx_make(c, typed ? v->type->dtype : "float32", &s);
}

/* Range(start, limit, delta): max(ceil((limit - start) / delta), 0)
 * elements of start's type, the three scalars of one type. */
static const graft_type *range(OnnxInferCtx *c)
{
    const graft_type *t[3];
    double v[3];
    for (int i = 0; i < 3; i++)
        if (!(t[i] = onnx_input(c, i)))
            return NULL;
    if (strcmp(t[0]->dtype, t[1]->dtype) != 0 || strcmp(t[0]->dtype, t[2]->dtype) != 0)
        return onnx_fail(c, "start, limit and delta of different types");
    for (int i = 0; i < 3; i++)
        if (onnx_const_values(c, i, &v[i], 1) != 1)
            return NULL;
    if (v[2] == 0)
        return onnx_fail(c, "delta is 0");
    OnnxShape s = {.rank = 1, .dims = {(int64_t)fmax(ceil((v[1] - v[0]) / v[2]), 0)}};
    return onnx_make(c, t[0]->dtype, &s);
}

/* Dropout(data, ratio, training_mode): output as data, and the mask as
 * data's shape in bool when the node names it. */
static const graft_type *dropout(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    OnnxShape s;
    if (!x || !onnx_shape(c, x, &s))
        return NULL;
    if (c->noutputs > 2)
        return onnx_fail(c, "more than 2 outputs");
    const graft_type *types[2] = {x, onnx_make(c, "bool", &s)};
    return onnx_results(c, types);
}

const OnnxOpDef onnx_ops_index[] = {
    {"Split", NULL, split, ONNX_SEVERAL_OUTPUTS, 1},
    {"Expand", NULL, expand, ONNX_ONE_OUTPUT, 2},
    {"Tile", NULL, tile, ONNX_ONE_OUTPUT, 2},
    {"ConstantOfShape", NULL, constant_of_shape, ONNX_ONE_OUTPUT, 1},
    {"Range", NULL, range, ONNX_ONE_OUTPUT, 3},
    {"Dropout", NULL, dropout, ONNX_ONE_OUTPUT, 1},
    {NULL, NULL, NULL, 0, 0},
};
