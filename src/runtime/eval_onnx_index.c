/* eval_onnx_index.c - ONNX's ops that pick or repeat elements or make
 * tensors from attributes: Slice, Gather, Expand, Tile, Constant,
 * ConstantOfShape, Range, Dropout at inference (onnx/defs/tensor/defs.cc,
 * generator/defs.cc, nn/defs.cc at the opsets of onnx 1.12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

/* Slice(x, starts, ends, axes, steps): per axis, indices start, start +
 * step, ... before end, both clamped as the schema says (a negative
 * value counts from the end). */
typedef struct SliceAxis {
    int64_t start, step, count;
} SliceAxis;

static void slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step, SliceAxis *s)
{
    start = start < 0 ? start + dim : start;
    end = end < 0 ? end + dim : end;
    if (step > 0) {
        start = start < 0 ? 0 : start > dim ? dim : start;
        end = end < 0 ? 0 : end > dim ? dim : end;
    } else {
        start = start < 0 ? -1 : start > dim - 1 ? dim - 1 : start;
        end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
    }
    int64_t span = step > 0 ? end - start : start - end, abs_step = step > 0 ? step : -step;
    s->start = start;
    s->step = step;
    s->count = span > 0 ? (span + abs_step - 1) / abs_step : 0;
}

/* The per-axis selection of Slice's operands into sel (x's rank). */
static bool slice_plan(EvalCall *c, const Tensor *x, SliceAxis *sel)
{
    int64_t starts[EVAL_MAX_RANK], ends[EVAL_MAX_RANK], axes[EVAL_MAX_RANK], steps[EVAL_MAX_RANK];
    int n = eval_arg_ints(c, 1, starts, EVAL_MAX_RANK);
    int ne = n >= 0 ? eval_arg_ints(c, 2, ends, EVAL_MAX_RANK) : -2;
    int na = ne >= 0 ? eval_arg_ints(c, 3, axes, EVAL_MAX_RANK) : -2;
    int ns = na >= -1 ? eval_arg_ints(c, 4, steps, EVAL_MAX_RANK) : -2;
    if (ns == -2 || n < 0 || ne != n || (na >= 0 && na != n) || (ns >= 0 && ns != n))
        return ns == -2 ? false : eval_fail(c, "starts, ends, axes, steps of different lengths");
    for (int d = 0; d < x->rank; d++)
        sel[d] = (SliceAxis){0, 1, x->dims[d]};
    for (int i = 0; i < n; i++) {
        int axis = eval_axis(c, na >= 0 ? axes[i] : i, x->rank);
        int64_t step = ns >= 0 ? steps[i] : 1;
        if (axis < 0)
            return false;
        if (step == 0)
            return eval_fail(c, "step 0");
        slice_axis(x->dims[axis], starts[i], ends[i], step, &sel[axis]);
    }
    return true;
}

static bool op_slice(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 3, 5);
    SliceAxis sel[EVAL_MAX_RANK];
    if (!x || !slice_plan(c, x, sel))
        return false;
    int64_t dims[EVAL_MAX_RANK], strides[EVAL_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        dims[d] = sel[d].count;
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    eval_strides(x->rank, x->dims, strides);
    for (size_t i = 0; i < r->size; i++) {
        size_t flat = i, index = 0;
        for (int d = x->rank - 1; d >= 0; d--) {
            int64_t k = (int64_t)(flat % (size_t)dims[d]);
            flat /= (size_t)dims[d];
            index += (size_t)((sel[d].start + k * sel[d].step) * strides[d]);
        }
        r->data[i] = x->data[index];
    }
    return true;
}

/* Gather(data, indices, axis=0): data's axis replaced by indices' dims. */
static bool op_gather(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *idx = x ? eval_arg(c, 1) : NULL;
    int axis = idx ? eval_attr_axis(c, 0, x->rank) : -1;
    if (axis < 0)
        return false;
    int rank = x->rank - 1 + idx->rank;
    int64_t dims[EVAL_MAX_RANK * 2], outer = 1, inner = 1, n = x->dims[axis];
    if (rank > EVAL_MAX_RANK)
        return eval_fail(c, "result of rank %d", rank);
    for (int i = 0; i < axis; i++)
        outer *= dims[i] = x->dims[i];
    memcpy(dims + axis, idx->dims, (size_t)idx->rank * sizeof *dims);
    for (int i = axis + 1; i < x->rank; i++)
        inner *= dims[i - 1 + idx->rank] = x->dims[i];
    Tensor *r = eval_result(c, x->dtype, rank, dims);
    if (!r)
        return false;
    for (size_t j = 0; j < idx->size; j++) {
        int64_t k = (int64_t)idx->data[j];
        if (k < -n || k >= n)
            return eval_fail(c, "index %lld out of range for dim %lld", (long long)k,
                             (long long)n);
        k = k < 0 ? k + n : k;
        for (int64_t o = 0; o < outer; o++)
            memcpy(r->data + (o * (int64_t)idx->size + (int64_t)j) * inner,
                   x->data + (o * n + k) * inner, (size_t)inner * sizeof *r->data);
    }
    return true;
}

/* Expand(x, shape): x broadcast with shape (both ways, as numpy). */
static bool op_expand(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    Tensor shape = {.rank = 0};
    int n = x ? eval_arg_ints(c, 1, shape.dims, EVAL_MAX_RANK) : -2;
    if (n < 0)
        return n == -2 ? false : eval_fail(c, "no shape");
    shape.rank = n;
    Tensor *r = eval_broadcast_result(c, x, &shape, x->dtype);
    for (size_t i = 0; r && i < r->size; i++)
        r->data[i] = x->data[eval_bcast_index(x, r->rank, r->dims, i)];
    return r != NULL;
}

/* Tile(x, repeats): dim i repeated repeats[i] times. */
static bool op_tile(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    int64_t reps[EVAL_MAX_RANK], dims[EVAL_MAX_RANK], strides[EVAL_MAX_RANK];
    int n = x ? eval_arg_ints(c, 1, reps, EVAL_MAX_RANK) : -2;
    if (n == -2)
        return false;
    if (n != x->rank)
        return eval_fail(c, "%d repeats for rank %d", n, x->rank);
    for (int d = 0; d < x->rank; d++)
        dims[d] = x->dims[d] * reps[d];
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    eval_strides(x->rank, x->dims, strides);
    for (size_t i = 0; i < r->size; i++) {
        size_t flat = i, index = 0;
        for (int d = x->rank - 1; d >= 0; d--) {
            index += flat % (size_t)dims[d] % (size_t)x->dims[d] * (size_t)strides[d];
            flat /= (size_t)dims[d];
        }
        r->data[i] = x->data[index];
    }
    return true;
}

/* A number or list attribute as a tensor of dtype: rank 0 for a number,
 * 1 for a list. */
static bool number_tensor(EvalCall *c, const graft_attr_value *v, const char *dtype)
{
    bool list = v->kind == GRAFT_ATTR_LIST;
    int64_t n = list ? v->nitems : 1;
    Tensor *r = eval_result(c, dtype, list, &n);
    for (int64_t i = 0; r && i < n; i++) {
        const graft_attr_value *item = list ? v->items[i] : v;
        r->data[i] = item->kind == GRAFT_ATTR_FLOAT ? item->f : (double)item->i;
    }
    return r != NULL;
}

/* Constant(value=tensor | value_float(s) | value_int(s)): the tensor its
 * one attribute gives (sparse and string values are not evaluated).  The
 * attributes are read as given (node_given_attr): a Constant a rule's
 * action makes (fold(Constant(value_ints=shape(r)))) holds None in those
 * it leaves out (graft-rules(5), "ACTIONS"), which the ONNX writer omits. */
static bool op_constant(EvalCall *c)
{
    static const char *const names[][2] = {
        {"value_float", "float32"}, {"value_floats", "float32"},
        {"value_int", "int64"},     {"value_ints", "int64"}};
    Tensor t;
    if (!eval_nargs(c, 0, 0))
        return false;
    if (node_given_attr(c->node, "value")) {
        if (!eval_attr_tensor(c, "value", &t))
            return false;
        c->out->t = t;
        return true;
    }
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        const graft_attr_value *v = node_given_attr(c->node, names[i][0]);
        if (v)
            return number_tensor(c, v, names[i][1]);
    }
    return eval_fail(c, "no value attribute evaluated");
}

/* ConstantOfShape(shape, value=float32 0): shape filled with value's one
 * element, in value's dtype. */
static bool op_constant_of_shape(EvalCall *c)
{
    int64_t dims[EVAL_MAX_RANK];
    int rank = eval_nargs(c, 1, 1) ? eval_arg_ints(c, 0, dims, EVAL_MAX_RANK) : -2;
    if (rank < 0)
        return rank == -2 ? false : eval_fail(c, "no shape");
    Tensor value = {0};
    if (!eval_attr_tensor(c, "value", &value) && c->err->status != EVAL_OK)
        return false;
    double fill = value.data ? value.data[0] : 0;
    const char *dtype = value.data ? value.dtype : "float32";
    if (value.data && value.size != 1) {
        tensor_free(&value);
        return eval_fail(c, "value of %zu elements, wants 1", value.size);
    }
    tensor_free(&value);
    Tensor *r = eval_result(c, dtype, rank, dims);
    for (size_t i = 0; r && i < r->size; i++)
        r->data[i] = fill;
    return r != NULL;
}

/* Range(start, limit, delta): max(ceil((limit - start) / delta), 0)
 * values, in the operands' dtype. */
static bool op_range(EvalCall *c)
{
    const Tensor *start = eval_nargs_first(c, 3, 3);
    const Tensor *limit = start ? eval_arg(c, 1) : NULL, *delta = limit ? eval_arg(c, 2) : NULL;
    if (!delta)
        return false;
    if (start->size != 1 || limit->size != 1 || delta->size != 1)
        return eval_fail(c, "start, limit and delta must be scalars");
    double s = start->data[0], d = delta->data[0];
    int64_t n = (int64_t)fmax(ceil((limit->data[0] - s) / d), 0);
    Tensor *r = eval_result(c, start->dtype, 1, &n);
    for (int64_t i = 0; r && i < n; i++)
        r->data[i] = s + (double)i * d;
    return r != NULL;
}

/* Dropout(data, ratio=0.5, training_mode=false): at inference, or in
 * training with ratio 0, the data and a mask of trues when asked for;
 * training with another ratio draws at random and is not evaluated. */
static bool op_dropout(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 3);
    const Tensor *ratio = x ? eval_opt_arg(c, 1) : NULL;
    const Tensor *training = x ? eval_opt_arg(c, 2) : NULL;
    if (!x || c->err->status != EVAL_OK)
        return false;
    bool random = training && training->size == 1 && training->data[0] != 0 &&
                  (!ratio || ratio->size != 1 || ratio->data[0] != 0);
    if (random)
        return eval_fail(c, "training mode draws at random: not evaluated");
    int n = eval_noutputs(c);
    if (n == 1)
        return eval_result(c, x->dtype, x->rank, x->dims) &&
               memcpy(c->out->t.data, x->data, x->size * sizeof *x->data);
    if (!eval_tuple_result(c, 2))
        return false;
    Tensor *out = eval_field(c, 0, x->dtype, x->rank, x->dims);
    Tensor *mask = out ? eval_field(c, 1, "bool", x->rank, x->dims) : NULL;
    for (size_t i = 0; mask && i < x->size; i++) {
        out->data[i] = x->data[i];
        mask->data[i] = 1;
    }
    return mask != NULL;
}

const EvalOpDef eval_onnx_index_ops[] = {
    {"Slice", op_slice},   {"Gather", op_gather}, {"Expand", op_expand},
    {"Tile", op_tile},     {"Constant", op_constant},
    {"ConstantOfShape", op_constant_of_shape}, {"Range", op_range},
    {"Dropout", op_dropout},
    {NULL, NULL},
};
