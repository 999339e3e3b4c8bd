/* type_rel_index.c - relations of the indexing and other ops of
 * tvm/src/relay/op/tensor/transform.cc: take, gather, scatter, repeat,
 * tile, strided_slice, layout_transform, one_hot, cumulative scans,
 * shape_of, arange, meshgrid and argwhere. */
#include "type_rel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "type_infer.h"

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
    const graft_type *data = rel_data_and_ints(c, "reps", reps, &n);
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
    s.dims[0] = rel_shape_size(&in);
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

const TypeRel type_rels_index[] = {
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
