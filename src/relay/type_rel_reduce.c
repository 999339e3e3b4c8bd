/* type_rel_reduce.c - relations of the reductions of
 * tvm/src/relay/op/tensor/reduce.cc: ReduceRel (sum, mean, max, min, prod,
 * all, any, variance, std) and ArgReduceRel (argmax, argmin). */
#include "type_rel.h"

#include <string.h>

#include "type_infer.h"

/* GetReduceAxes: exclude reduces the dims not listed; axis None or []
 * reduces every dim, whatever exclude says (note [empty axis] in
 * src/runtime/eval_reduce.c).  Marks the reduced dims in reduced; false
 * after reporting. */
static bool reduce_axes(RelCtx *c, const graft_type *data, bool *reduced)
{
    int64_t axes[REL_MAX_RANK];
    int n = rel_has(c, "axis") ? rel_ints(c, "axis", axes, REL_MAX_RANK) : 0;
    if (n < 0)
        return false;
    bool all = n == 0;
    if (data->rank > REL_MAX_RANK) {
        rel_fail(c, "rank above %d", REL_MAX_RANK);
        return false;
    }
    bool listed[REL_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        int a = rel_axis(c, axes[i], data->rank);
        if (a < 0)
            return false;
        listed[a] = true;
    }
    bool exclude = rel_bool(c, "exclude", false);
    for (int i = 0; i < data->rank; i++)
        reduced[i] = all || listed[i] != exclude;
    return true;
}

/* The data's shape without the reduced dims, or with 1s for them under
 * keepdims. */
static const graft_type *reduce_to(RelCtx *c, const graft_type *data, const char *dtype)
{
    bool reduced[REL_MAX_RANK];
    if (!reduce_axes(c, data, reduced))
        return NULL;
    bool keepdims = rel_bool(c, "keepdims", false);
    Shape s = {0, {0}};
    for (int i = 0; i < data->rank; i++)
        if (!reduced[i])
            s.dims[s.rank++] = data->dims[i];
        else if (keepdims)
            s.dims[s.rank++] = 1;
    return rel_make(c, dtype, &s);
}

static const graft_type *reduce(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? reduce_to(c, data, data->dtype) : NULL;
}

/* all and any give bool. */
static const graft_type *reduce_bool(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? reduce_to(c, data, "bool") : NULL;
}

/* VarianceRel: the mean operand must have the data's dtype. */
static const graft_type *variance(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *mean = data ? rel_tensor(c, 1) : NULL;
    if (!mean)
        return NULL;
    if (strcmp(data->dtype, mean->dtype) != 0)
        return rel_fail(c, "the mean's dtype %s differs from the data's %s", mean->dtype,
                        data->dtype);
    return reduce_to(c, data, data->dtype);
}

/* ArgReduceRel: indices, int32. */
static const graft_type *arg_reduce(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? reduce_to(c, data, "int32") : NULL;
}

const TypeRel type_rels_reduce[] = {
    {"sum", reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"mean", reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"max", reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"min", reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"prod", reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"all", reduce_bool, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"any", reduce_bool, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"variance", variance, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"std", variance, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"argmax", arg_reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"argmin", arg_reduce, TYPE_OUTPUTS_TENSOR, 1, 0},
    {NULL, NULL, 0, 0, 0},
};
