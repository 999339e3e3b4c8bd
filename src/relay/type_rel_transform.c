/* type_rel_transform.c - relations of the shape and layout ops of
 * tvm/src/relay/op/tensor/transform.cc: reshape (with its special values),
 * transpose, squeeze, expand_dims, broadcast_to, concatenate, stack,
 * split, take, gather, repeat, tile, strided_slice, layout_transform,
 * one_hot, shape_of, arange, meshgrid, argwhere and the *_like ops. */
#include "type_rel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "type_infer.h"

static int64_t shape_size(const Shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n = dim_mul(n, s->dims[i]);
    return n;
}

/* The prologue of an op of one tensor and one list attribute: the tensor,
 * with the integers of attribute name in v (at most REL_MAX_RANK) and
 * their count in *n (0 when absent); NULL after a failure. */
static const graft_type *data_and_ints(RelCtx *c, const char *name, int64_t *v, int *n)
{
    const graft_type *data = rel_tensor(c, 0);
    *n = data ? rel_ints(c, name, v, REL_MAX_RANK) : -1;
    return *n < 0 ? NULL : data;
}

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
            d1 = whole == DIM_ANY ? DIM_ANY : whole / d2;
        if (d2 == -1 && d1 > 0)
            d2 = whole == DIM_ANY ? DIM_ANY : whole / d1;
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
    const graft_type *data = data_and_ints(c, "newshape", ns, &n);
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
    int64_t total = shape_size(&in), rest = shape_size(&out);
    if (infer_at >= 0)
        out.dims[infer_at] = total == DIM_ANY || rest == DIM_ANY || rest == 0
                                 ? DIM_ANY
                                 : total / rest;
    int64_t got = shape_size(&out);
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
    const graft_type *data = data_and_ints(c, "axes", axes, &n);
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

/* ---- indexing ---- */

/* TakeRel: axis None indexes the flattened data (the indices' shape);
 * else data[:axis] + indices[batch_dims:] + data[axis+1:]. */
static const graft_type *take(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *ind = data ? rel_tensor(c, 1) : NULL;
    if (!ind)
        return NULL;
    if (!rel_has(c, "axis"))
        return graph_type_tensor(c->g, data->dtype, ind->dims, ind->rank);
    int axis = rel_axis(c, rel_int(c, "axis", 0), data->rank);
    int64_t bd = rel_int(c, "batch_dims", 0);
    if (bd < 0)
        bd += ind->rank;
    if (axis < 0)
        return NULL;
    if (bd < 0 || bd > ind->rank || bd > axis)
        return rel_fail(c, "batch_dims %lld out of range", (long long)bd);
    Shape s = {0, {0}};
    bool ok = true;
    for (int i = 0; i < axis && ok; i++)
        ok = shape_push(c, &s, data->dims[i]);
    for (int i = (int)bd; i < ind->rank && ok; i++)
        ok = shape_push(c, &s, ind->dims[i]);
    for (int i = axis + 1; i < data->rank && ok; i++)
        ok = shape_push(c, &s, data->dims[i]);
    return ok ? rel_make(c, data->dtype, &s) : NULL;
}

/* GatherRel: the indices' shape, same rank as the data. */
static const graft_type *gather(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *ind = data ? rel_tensor(c, 1) : NULL;
    if (!ind)
        return NULL;
    if (ind->rank != data->rank)
        return rel_fail(c, "indices %s must have the rank of the data %s", ind->text,
                        data->text);
    return graph_type_tensor(c->g, data->dtype, ind->dims, ind->rank);
}

/* GatherNDRel: indices[1:] + data[indices[0] + batch_dims:]. */
static const graft_type *gather_nd(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *ind = data ? rel_tensor(c, 1) : NULL;
    if (!ind || ind->rank < 1 || ind->dims[0] == DIM_ANY)
        return NULL;
    int64_t from = ind->dims[0] + rel_int(c, "batch_dims", 0);
    if (from > data->rank)
        return rel_fail(c, "indices %s index more dims than %s has", ind->text, data->text);
    Shape s = {0, {0}};
    bool ok = true;
    for (int i = 1; i < ind->rank && ok; i++)
        ok = shape_push(c, &s, ind->dims[i]);
    for (int64_t i = from; i < data->rank && ok; i++)
        ok = shape_push(c, &s, data->dims[i]);
    return ok ? rel_make(c, data->dtype, &s) : NULL;
}

/* RepeatRel: dim axis times repeats. */
static const graft_type *repeat(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    int axis = rel_axis(c, rel_int(c, "axis", 0), data->rank);
    Shape s;
    if (axis < 0 || !rel_shape(c, data, &s))
        return NULL;
    s.dims[axis] = dim_mul(s.dims[axis], rel_int(c, "repeats", 1));
    return rel_make(c, data->dtype, &s);
}

/* TileRel: the shorter of shape and reps is padded with leading 1s. */
static const graft_type *tile(RelCtx *c)
{
    int64_t reps[REL_MAX_RANK];
    int n;
    const graft_type *data = data_and_ints(c, "reps", reps, &n);
    if (!data || data->rank > REL_MAX_RANK)
        return data ? rel_fail(c, "rank above %d", REL_MAX_RANK) : NULL;
    int rank = n > data->rank ? n : data->rank;
    Shape s = {rank, {0}};
    for (int i = 0; i < rank; i++) {
        int di = i - (rank - data->rank), ri = i - (rank - n);
        s.dims[i] = dim_mul(di >= 0 ? data->dims[di] : 1, ri >= 0 ? reps[ri] : 1);
    }
    return rel_make(c, data->dtype, &s);
}

/* ---- strided_slice ---- */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One axis of StridedSliceOutputShape (topi/transform.h): begin and end
 * made non-negative and clamped to the dim, then the step count. */
static int64_t slice_dim(int64_t n, int64_t b, int64_t e, int64_t s, bool size_mode)
{
    if (n == DIM_ANY)
        return DIM_ANY;
    if (size_mode) {
        s = 1;
        if (b < 0)
            b += n;
        e = e < 0 ? n : b + e;
    } else {
        b = b < 0 ? b + n : b;
        e = e < 0 ? e + n : e;
    }
    b = s > 0 ? clamp64(b, 0, n) : clamp64(b, -1, n - 1);
    e = s > 0 ? clamp64(e, 0, n) : clamp64(e, -1, n - 1);
    int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
    return len < 0 ? 0 : len;
}

/* StridedSliceRel with constant begin, end and strides; axes None slices
 * the leading dims; missing ends run to the end, missing strides are 1. */
static const graft_type *strided_slice(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    int64_t begin[REL_MAX_RANK], end[REL_MAX_RANK], strides[REL_MAX_RANK], axes[REL_MAX_RANK];
    if (!data || !rel_has(c, "begin") || !rel_has(c, "end"))
        return NULL;
    int nb = rel_ints(c, "begin", begin, REL_MAX_RANK);
    int ne = rel_ints(c, "end", end, REL_MAX_RANK);
    int ns = rel_ints(c, "strides", strides, REL_MAX_RANK);
    int na = rel_ints(c, "axes", axes, REL_MAX_RANK);
    if (nb < 0 || ne < 0 || ns < 0 || na < 0)
        return NULL;
    bool size_mode = strcmp(rel_str(c, "slice_mode", "end"), "size") == 0;
    Shape s;
    if (!rel_shape(c, data, &s))
        return NULL;
    int count = na ? na : nb;
    if (count > data->rank || (na && (nb != na || ne != na)))
        return rel_fail(c, "begin, end and axes do not fit rank %d", data->rank);
    for (int i = 0; i < count; i++) {
        int axis = na ? rel_axis(c, axes[i], data->rank) : i;
        int64_t stride = i < ns ? strides[i] : ns == 1 ? strides[0] : 1;
        if (axis < 0)
            return NULL;
        if (stride == 0)
            return rel_fail(c, "stride 0");
        int64_t e = i < ne ? end[i] : stride > 0 ? INT64_MAX / 2 : -INT64_MAX / 2;
        s.dims[axis] = slice_dim(data->dims[axis], begin[i], e, stride, size_mode);
    }
    return rel_make(c, data->dtype, &s);
}

/* ---- others ---- */

/* LayoutTransformRel for plain layouts of the same letters: the dims
 * permuted; packed layouts stay unknown. */
static const graft_type *layout_transform(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    const char *src = rel_str(c, "src_layout", ""), *dst = rel_str(c, "dst_layout", "");
    if (!data || (int)strlen(src) != data->rank || strlen(dst) != strlen(src))
        return NULL;
    Shape s = {data->rank, {0}};
    for (int i = 0; i < data->rank; i++) {
        const char *at = strchr(src, dst[i]);
        if (dst[i] < 'A' || dst[i] > 'Z' || !at)
            return NULL;
        s.dims[i] = data->dims[at - src];
    }
    return rel_make(c, data->dtype, &s);
}

/* OneHotRel: the indices' shape with depth inserted at axis. */
static const graft_type *one_hot(RelCtx *c)
{
    const graft_type *ind = rel_tensor(c, 0);
    if (!ind || !rel_has(c, "depth"))
        return NULL;
    int axis = rel_axis(c, rel_int(c, "axis", -1), ind->rank + 1);
    if (axis < 0 || ind->rank + 1 > REL_MAX_RANK)
        return NULL;
    Shape s = {0, {0}};
    for (int i = 0; i <= ind->rank; i++)
        s.dims[s.rank++] = i == axis ? rel_int(c, "depth", 0) : ind->dims[i - (i > axis)];
    return rel_make(c, rel_dtype(c, "dtype", "int32"), &s);
}

/* ScanopRel (cumsum, cumprod): axis None flattens. */
static const graft_type *scan(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    const char *dtype = rel_dtype(c, "dtype", data->dtype);
    if (rel_has(c, "axis"))
        return graph_type_tensor(c->g, dtype, data->dims, data->rank);
    Shape in, s = {1, {0}};
    if (!rel_shape(c, data, &in))
        return NULL;
    s.dims[0] = shape_size(&in);
    return rel_make(c, dtype, &s);
}

/* ShapeOfRel: a vector of the rank. */
static const graft_type *shape_of(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    int64_t rank = data->rank;
    return graph_type_tensor(c->g, rel_dtype(c, "dtype", "int32"), &rank, 1);
}

/* ArangeRel: the length when start, stop and step are scalar
 * constants. */
static const graft_type *arange(RelCtx *c)
{
    double v[3];
    for (int i = 0; i < 3; i++) {
        const graft_node *a = node_arg(c->call, i);
        if (node_kind(a) != NODE_CONST || !node_const_is_scalar(a))
            return NULL;
        v[i] = node_const_value(a);
    }
    if (v[2] == 0)
        return rel_fail(c, "step 0");
    double len = ceil((v[1] - v[0]) / v[2]);
    int64_t n = len > 0 ? (int64_t)len : 0;
    return graph_type_tensor(c->g, rel_dtype(c, "dtype", "float32"), &n, 1);
}

static const graft_type *identity(RelCtx *c)
{
    return rel_tensor(c, 0);
}

/* MeshgridRel: scalars and vectors of one dtype; one grid per field, of
 * their lengths (the first two swapped for indexing "xy"). */
static const graft_type *meshgrid(RelCtx *c)
{
    const graft_type *t = c->in[0];
    if (t->kind != TYPE_TUPLE || t->nfields == 0)
        return rel_fail(c, "operand 1 must be a tuple of tensors (got %s)", t->text);
    if (t->nfields > REL_MAX_RANK)
        return rel_fail(c, "rank above %d", REL_MAX_RANK);
    Shape s = {t->nfields, {0}};
    for (int i = 0; i < t->nfields; i++) {
        const graft_type *f = t->fields[i];
        if (f->kind != TYPE_TENSOR || f->rank > 1)
            return rel_fail(c, "field %d (%s) is not a scalar or a vector", i + 1, f->text);
        if (strcmp(f->dtype, t->fields[0]->dtype) != 0)
            return rel_fail(c, "field %d (%s) differs in dtype from %s", i + 1, f->text,
                            t->fields[0]->text);
        s.dims[i] = f->rank ? f->dims[0] : 1;
    }
    if (strcmp(rel_str(c, "indexing", "ij"), "xy") == 0 && s.rank >= 2) {
        int64_t d = s.dims[0];
        s.dims[0] = s.dims[1];
        s.dims[1] = d;
    }
    const graft_type *grid = rel_make(c, t->fields[0]->dtype, &s);
    const graft_type **fields = xmalloc((size_t)t->nfields * sizeof *fields);
    for (int i = 0; i < t->nfields; i++)
        fields[i] = grid;
    const graft_type *out = graph_type_tuple(c->g, fields, t->nfields);
    free(fields);
    return out;
}

/* ArgWhereRel: (?, rank) int32 coordinates of the true elements. */
static const graft_type *argwhere(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    int64_t dims[2] = {DIM_ANY, data ? data->rank : 0};
    return data ? graph_type_tensor(c->g, "int32", dims, 2) : NULL;
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
    {"take", take, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"gather", gather, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"gather_nd", gather_nd, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"scatter_elements", identity, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"scatter_nd", identity, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"repeat", repeat, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"tile", tile, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"reverse", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"strided_slice", strided_slice, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"layout_transform", layout_transform, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"one_hot", one_hot, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"cumsum", scan, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"cumprod", scan, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"shape_of", shape_of, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"arange", arange, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"meshgrid", meshgrid, TYPE_OUTPUTS_VARIES, 1, 1},
    {"argwhere", argwhere, TYPE_OUTPUTS_TENSOR, 1, 0},
    {NULL, NULL, 0, 0, 0},
};
