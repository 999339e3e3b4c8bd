/* type_rel_transform.c - relations of the shape ops of
 * tvm/src/relay/op/tensor/transform.cc: reshape (with its special values),
 * transpose, squeeze, expand_dims, broadcast_to, concatenate, stack,
 * split and the *_like ops; the indexing ops and the rest are
 * type_rel_index.c's. */
#include "type_rel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "type_infer.h"

/* ---- reshape ---- */

/* One entry of newshape that is not a plain dim (InferNewShape):
 * 0 copies the input dim, -1 is inferred, -2 copies the rest, -3 merges
 * two input dims, -4 splits one into the next two entries. */
static bool reshape_special(RelCtx *c, const graft_type *data, const int64_t *ns, int n, int *i,
                            int *src, int *infer_at, Shape *out)
{
    int64_t v = ns[*i];
    if (v == 0 && !rel_bool(c, "allowzero", false)) {
        if (*src >= data->rank) {
            rel_fail(c, "newshape 0 at position %d has no input dim to copy", *i);
            return false;
        }
        return shape_push(c, out, data->dims[(*src)++]);
    }
    if (v == 0) {
        (*src)++;
        return shape_push(c, out, 0);
    }
    if (v == -1) {
        if (*infer_at >= 0) {
            rel_fail(c, "newshape has more than one -1");
            return false;
        }
        *infer_at = out->rank;
        (*src)++;
        return shape_push(c, out, 1);
    }
    if (v == -2) {
        while (*src < data->rank)
            if (!shape_push(c, out, data->dims[(*src)++]))
                return false;
        return true;
    }
    if (v == -3) {
        if (*src + 1 >= data->rank) {
            rel_fail(c, "newshape -3 needs two input dims");
            return false;
        }
        *src += 2;
        return shape_push(c, out, dim_mul(data->dims[*src - 2], data->dims[*src - 1]));
    }
    if (v == -4 && *i + 2 < n && *src < data->rank) {
        int64_t whole = data->dims[(*src)++], d1 = ns[++*i], d2 = ns[++*i];
        if (d1 == -1 && d2 > 0)
            d1 = dim_div(whole, d2);
        if (d2 == -1 && d1 > 0)
            d2 = dim_div(whole, d1);
        return shape_push(c, out, d1) && shape_push(c, out, d2);
    }
    rel_fail(c, "invalid newshape value %lld", (long long)v);
    return false;
}

/* ReshapeRel: the new shape, with -1 inferred from the element count;
 * the counts must agree. */
static const graft_type *reshape(RelCtx *c)
{
    int64_t ns[REL_MAX_RANK];
    int n;
    const graft_type *data = rel_data_and_ints(c, "newshape", ns, &n);
    if (!data)
        return NULL;
    Shape out = {0, {0}}, in;
    int src = 0, infer_at = -1;
    for (int i = 0; i < n; i++) {
        bool ok = ns[i] > 0 ? (src++, shape_push(c, &out, ns[i]))
                            : reshape_special(c, data, ns, n, &i, &src, &infer_at, &out);
        if (!ok)
            return NULL;
    }
    if (!rel_shape(c, data, &in))
        return NULL;
    int64_t total = rel_shape_size(&in), rest = rel_shape_size(&out);
    if (infer_at >= 0)
        out.dims[infer_at] = total == DIM_ANY || rest == DIM_ANY || rest == 0
                                 ? DIM_ANY
                                 : total / rest;
    int64_t got = rel_shape_size(&out);
    if (total != DIM_ANY && got != DIM_ANY && total != got) {
        const graft_type *want = rel_make(c, data->dtype, &out);
        return rel_fail(c, "cannot reshape %s (%lld elements) to %s", data->text,
                        (long long)total, want->text);
    }
    return rel_make(c, data->dtype, &out);
}

/* ReshapeLikeRel (whole shapes), BroadcastToLikeRel: the second operand's
 * shape, the first's dtype. */
static const graft_type *like_shape(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *like = data ? rel_tensor(c, 1) : NULL;
    return like ? graph_type_tensor(c->g, data->dtype, like->dims, like->rank) : NULL;
}

/* CollapseSumLikeRel: the second operand's type. */
static const graft_type *like_type(RelCtx *c)
{
    return rel_tensor(c, 0) ? rel_tensor(c, 1) : NULL;
}

/* ---- axes ---- */

/* TransposeRel: axes None reverses the dims. */
static const graft_type *transpose(RelCtx *c)
{
    int64_t axes[REL_MAX_RANK];
    int n;
    const graft_type *data = rel_data_and_ints(c, "axes", axes, &n);
    if (!data)
        return NULL;
    if (n && n != data->rank)
        return rel_fail(c, "%d axes for rank %d", n, data->rank);
    Shape s = {data->rank, {0}};
    bool seen[REL_MAX_RANK] = {false};
    for (int i = 0; i < data->rank; i++) {
        int a = n ? rel_axis(c, axes[i], data->rank) : data->rank - 1 - i;
        if (a < 0)
            return NULL;
        if (seen[a])
            return rel_fail(c, "axis %d repeated", a);
        seen[a] = true;
        s.dims[i] = data->dims[a];
    }
    return rel_make(c, data->dtype, &s);
}

/* SqueezeRel: axis None drops every dim of size 1; listed axes must have
 * size 1. */
static const graft_type *squeeze(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    bool drop[REL_MAX_RANK] = {false};
    int64_t axes[REL_MAX_RANK];
    bool all = !rel_has(c, "axis");
    int n = all ? 0 : rel_ints(c, "axis", axes, REL_MAX_RANK);
    if (n < 0 || data->rank > REL_MAX_RANK)
        return n < 0 ? NULL : rel_fail(c, "rank above %d", REL_MAX_RANK);
    for (int i = 0; i < n; i++) {
        int a = rel_axis(c, axes[i], data->rank);
        if (a < 0)
            return NULL;
        if (data->dims[a] != 1 && data->dims[a] != DIM_ANY)
            return rel_fail(c, "axis %d has size %lld, not 1", a, (long long)data->dims[a]);
        drop[a] = true;
    }
    Shape s = {0, {0}};
    for (int i = 0; i < data->rank; i++)
        if (!(drop[i] || (all && data->dims[i] == 1)))
            s.dims[s.rank++] = data->dims[i];
    return rel_make(c, data->dtype, &s);
}

/* ExpandDimsRel: num_newaxis dims of 1 at axis (in [-rank-1, rank]). */
static const graft_type *expand_dims(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    int64_t axis = rel_int(c, "axis", 0), count = rel_int(c, "num_newaxis", 1);
    int at = rel_axis(c, axis, data->rank + 1);
    if (at < 0)
        return NULL;
    if (count < 0 || data->rank + count > REL_MAX_RANK)
        return rel_fail(c, "num_newaxis %lld out of range", (long long)count);
    Shape s = {0, {0}};
    for (int i = 0; i < at; i++)
        s.dims[s.rank++] = data->dims[i];
    for (int64_t i = 0; i < count; i++)
        s.dims[s.rank++] = 1;
    for (int i = at; i < data->rank; i++)
        s.dims[s.rank++] = data->dims[i];
    return rel_make(c, data->dtype, &s);
}

/* BroadCastToRel: the shape attribute. */
static const graft_type *broadcast_to(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    Shape s;
    s.rank = data ? rel_ints(c, "shape", s.dims, REL_MAX_RANK) : -1;
    return s.rank >= 0 && rel_has(c, "shape") ? rel_make(c, data->dtype, &s) : NULL;
}

/* ---- tuples of tensors ---- */

/* The fields of a tuple operand, all tensors of one rank. */
static bool tensor_fields(RelCtx *c, const graft_type *t)
{
    if (t->kind != TYPE_TUPLE) {
        rel_fail(c, "expects a tuple of tensors (got %s)", t->text);
        return false;
    }
    if (t->nfields == 0) {
        rel_fail(c, "expects at least one tensor");
        return false;
    }
    for (int i = 0; i < t->nfields; i++) {
        const graft_type *f = t->fields[i];
        if (f->kind != TYPE_TENSOR || f->rank != t->fields[0]->rank) {
            rel_fail(c, "tuple fields must be tensors of one rank (%s)", t->text);
            return false;
        }
    }
    return true;
}

/* ConcatenateRel: dims add up along axis, every other dim agrees. */
const graft_type *rel_concatenate(RelCtx *c)
{
    const graft_type *t = c->in[0];
    if (!tensor_fields(c, t))
        return NULL;
    const graft_type *first = t->fields[0];
    int axis = rel_axis(c, rel_int(c, "axis", 0), first->rank);
    Shape s;
    if (axis < 0 || !rel_shape(c, first, &s))
        return NULL;
    for (int i = 1; i < t->nfields; i++) {
        const graft_type *f = t->fields[i];
        for (int d = 0; d < f->rank; d++) {
            if (d == axis)
                s.dims[d] = dim_add(s.dims[d], f->dims[d]);
            else if (f->dims[d] != s.dims[d] && f->dims[d] != DIM_ANY &&
                     s.dims[d] != DIM_ANY)
                return rel_fail(c, "field %d (%s) differs from %s in dimension %d", i + 1,
                                f->text, first->text, d);
        }
    }
    return rel_make(c, first->dtype, &s);
}

/* StackRel: equal shapes; a new axis of the field count. */
static const graft_type *stack(RelCtx *c)
{
    const graft_type *t = c->in[0];
    if (!tensor_fields(c, t))
        return NULL;
    const graft_type *first = t->fields[0];
    for (int i = 1; i < t->nfields; i++)
        if (!type_equal(t->fields[i], first))
            return rel_fail(c, "field %d (%s) differs from %s", i + 1, t->fields[i]->text,
                            first->text);
    int axis = rel_axis(c, rel_int(c, "axis", 0), first->rank + 1);
    if (axis < 0 || first->rank + 1 > REL_MAX_RANK)
        return axis < 0 ? NULL : rel_fail(c, "rank above %d", REL_MAX_RANK);
    Shape s = {0, {0}};
    for (int i = 0; i <= first->rank; i++)
        s.dims[s.rank++] = i == axis ? t->nfields : first->dims[i - (i > axis)];
    return rel_make(c, first->dtype, &s);
}

/* SplitRel: N equal sections (the dim must divide), or pieces between
 * the given indices; a tuple. */
static const graft_type *split(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    const graft_attr_value *ios = rel_attr(c, "indices_or_sections");
    if (!data || !ios)
        return NULL;
    int axis = rel_axis(c, rel_int(c, "axis", 0), data->rank);
    if (axis < 0)
        return NULL;
    int64_t dim = data->dims[axis], idx[REL_MAX_RANK + 1];
    int npieces;
    if (ios->kind == GRAFT_ATTR_INT) {
        if (ios->i <= 0 || ios->i > REL_MAX_RANK)
            return rel_fail(c, "%lld sections", (long long)ios->i);
        if (dim != DIM_ANY && dim % ios->i)
            return rel_fail(c, "dimension %d (%lld) does not split into %lld equal sections",
                            axis, (long long)dim, (long long)ios->i);
        npieces = (int)ios->i;
        for (int i = 0; i <= npieces; i++)
            idx[i] = dim == DIM_ANY ? DIM_ANY : dim / npieces * i;
    } else {
        int n = rel_ints(c, "indices_or_sections", idx + 1, REL_MAX_RANK - 1);
        if (n < 0)
            return NULL;
        idx[0] = 0;
        idx[n + 1] = dim;
        npieces = n + 1;
    }
    const graft_type *fields[REL_MAX_RANK + 1];
    Shape s;
    if (!rel_shape(c, data, &s))
        return NULL;
    for (int i = 0; i < npieces; i++) {
        bool known = idx[i] != DIM_ANY && idx[i + 1] != DIM_ANY;
        if (known && idx[i + 1] < idx[i])
            return rel_fail(c, "indices_or_sections must increase");
        s.dims[axis] = known ? idx[i + 1] - idx[i] : DIM_ANY;
        fields[i] = rel_make(c, data->dtype, &s);
    }
    return graph_type_tuple(c->g, fields, npieces);
}

const TypeRel type_rels_transform[] = {
    {"reshape", reshape, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"reshape_like", like_shape, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"broadcast_to_like", like_shape, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"collapse_sum_like", like_type, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"transpose", transpose, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"squeeze", squeeze, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"expand_dims", expand_dims, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"broadcast_to", broadcast_to, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"concatenate", rel_concatenate, TYPE_OUTPUTS_TENSOR, 1, 1},
    {"stack", stack, TYPE_OUTPUTS_TENSOR, 1, 1},
    {"split", split, TYPE_OUTPUTS_VARIES, 1, 0},
    {NULL, NULL, 0, 0, 0},
};
