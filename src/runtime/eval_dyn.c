/* eval_dyn.c - TVM's dynamic shape ops (relay/op/dyn/), whose shape
 * operands are tensors computed in the graph (shape_of, take, concatenate
 * of an importer's module whose input has unknown dims): dyn.reshape and
 * dyn.strided_slice, evaluated as reshape and strided_slice with those
 * tensors' values for the attributes. */
#include "eval_impl.h"

/* The integers of operand i (a tensor of at most max elements) into out;
 * their count, -1 after failing. */
static int int_operand(EvalCall *c, int i, int64_t *out, int max)
{
    const Tensor *t = eval_arg(c, i);
    if (!t)
        return -1;
    if (t->rank > 1 || t->size > (size_t)max) {
        eval_fail(c, "operand %d: not a vector of at most %d values", i, max);
        return -1;
    }
    for (size_t k = 0; k < t->size; k++)
        out[k] = (int64_t)t->data[k];
    return (int)t->size;
}

/* dyn.reshape(x, shape): reshape by shape's values. */
static bool op_dyn_reshape(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    int64_t spec[EVAL_MAX_RANK * 2], dims[EVAL_MAX_RANK];
    int rank = 0, n = x ? int_operand(c, 1, spec, EVAL_MAX_RANK * 2) : -1;
    return n >= 0 && eval_new_shape(c, x, spec, n, dims, &rank) &&
           eval_same_elements(c, x, rank, dims);
}

/* dyn.strided_slice(x, begin, end, strides): every axis from begin to end. */
static bool op_dyn_strided_slice(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 4, 4);
    EvalSlice sl = {.naxes = -1};
    if (!x || (sl.nbegin = int_operand(c, 1, sl.begin, EVAL_MAX_RANK)) < 0 ||
        (sl.nend = int_operand(c, 2, sl.end, EVAL_MAX_RANK)) < 0 ||
        (sl.nstep = int_operand(c, 3, sl.step, EVAL_MAX_RANK)) < 0)
        return false;
    return eval_slice(c, x, &sl);
}

const EvalOpDef eval_dyn_ops[] = {
    {"dyn.reshape", op_dyn_reshape},
    {"dyn.strided_slice", op_dyn_strided_slice},
    {NULL, NULL},
};
