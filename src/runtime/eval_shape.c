/* eval_shape.c - ops that move elements without computing: reshape
 * (with TVM's special values), batch_flatten, transpose, expand_dims,
 * squeeze, broadcast_to, concatenate, split, strided_slice, take. */
#include <string.h>

#include "eval_impl.h"

bool eval_same_elements(EvalCall *c, const Tensor *x, int rank, const int64_t *dims)
{
    Tensor *r = eval_result(c, x->dtype, rank, dims);
    if (!r)
        return false;
    if (r->size != x->size)
        return eval_fail(c, "%zu elements into a shape of %zu", x->size, r->size);
    memcpy(r->data, x->data, x->size * sizeof *x->data);
    return true;
}

/* The prologue of an op of one operand and one list attribute: the
 * operand, with the integers of attribute name (at most max) in v and
 * their count in *n as eval_attr_ints gives it (-1: None); NULL after a
 * failure. */
static const Tensor *arg_and_ints(EvalCall *c, const char *name, int64_t *v, int max, int *n)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    *n = x ? eval_attr_ints(c, name, v, max) : -2;
    return *n == -2 ? NULL : x;
}

/* reshape's newshape: 0 copies the input dim, -1 is inferred, -2 copies
 * the rest, -3 merges two input dims, -4 splits one in two (the next two
 * values, one of which may be -1). */
bool eval_new_shape(EvalCall *c, const Tensor *x, const int64_t *spec, int n, int64_t *dims,
                    int *rank)
{
    int r = 0, in = 0, infer = -1;
    for (int k = 0; k < n; k++) {
        if (r >= EVAL_MAX_RANK)
            return eval_fail(c, "result of more than %d dims", EVAL_MAX_RANK);
        int64_t s = spec[k];
        if (s > 0) {
            dims[r++] = s, in++;
        } else if (s == 0 && in < x->rank) {
            dims[r++] = x->dims[in++];
        } else if (s == -1 && infer < 0) {
            infer = r, dims[r++] = 1, in++;
        } else if (s == -2) {
            while (in < x->rank && r < EVAL_MAX_RANK)
                dims[r++] = x->dims[in++];
        } else if (s == -3 && in + 1 < x->rank) {
            dims[r++] = x->dims[in] * x->dims[in + 1], in += 2;
        } else if (s == -4 && k + 2 < n && in < x->rank && r + 1 < EVAL_MAX_RANK) {
            int64_t a = spec[k + 1], b = spec[k + 2], whole = x->dims[in++];
            if (a == -1 && b > 0 && whole % b == 0)
                a = whole / b;
            else if (b == -1 && a > 0 && whole % a == 0)
                b = whole / a;
            if (a <= 0 || b <= 0 || a * b != whole)
                return eval_fail(c, "-4 cannot split %lld", (long long)whole);
            dims[r++] = a, dims[r++] = b, k += 2;
        } else
            return eval_fail(c, "newshape value %lld not understood here", (long long)s);
    }
    if (infer >= 0) {
        size_t known = 1;
        for (int i = 0; i < r; i++)
            known *= i == infer ? 1 : (size_t)dims[i];
        if (known == 0 || x->size % known != 0)
            return eval_fail(c, "cannot infer the -1 dim");
        dims[infer] = (int64_t)(x->size / known);
    }
    *rank = r;
    return true;
}

static bool op_reshape(EvalCall *c)
{
    int64_t spec[EVAL_MAX_RANK * 2], dims[EVAL_MAX_RANK];
    int n, rank = 0;
    const Tensor *x = arg_and_ints(c, "newshape", spec, EVAL_MAX_RANK * 2, &n);
    if (n == -1)
        return eval_fail(c, "newshape missing");
    return x && eval_new_shape(c, x, spec, n, dims, &rank) && eval_same_elements(c, x, rank, dims);
}

static bool op_batch_flatten(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x)
        return false;
    if (x->rank < 1)
        return eval_fail(c, "data must have at least 1 dim");
    int64_t dims[2] = {x->dims[0], x->dims[0] ? (int64_t)x->size / x->dims[0] : 0};
    return eval_same_elements(c, x, 2, dims);
}

static bool op_expand_dims(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x)
        return false;
    int axis = eval_attr_axis(c, 0, x->rank + 1); /* before dim axis, or after the last */
    int64_t count = eval_attr_int(c, "num_newaxis", 1);
    if (axis < 0)
        return false;
    if (count < 0 || x->rank + count > EVAL_MAX_RANK)
        return eval_fail(c, "num_newaxis %lld on rank %d", (long long)count, x->rank);
    int64_t dims[EVAL_MAX_RANK];
    int r = 0;
    for (int i = 0; i <= x->rank; i++) {
        for (int64_t k = 0; i == axis && k < count; k++)
            dims[r++] = 1;
        if (i < x->rank)
            dims[r++] = x->dims[i];
    }
    return eval_same_elements(c, x, r, dims);
}

bool eval_squeeze(EvalCall *c, const Tensor *x, const int64_t *axes, int naxes)
{
    bool drop[EVAL_MAX_RANK] = {false};
    for (int i = 0; naxes < 0 && i < x->rank; i++)
        drop[i] = x->dims[i] == 1;
    for (int k = 0; k < naxes; k++) {
        int a = eval_axis(c, axes[k], x->rank);
        if (a < 0)
            return false;
        if (x->dims[a] != 1)
            return eval_fail(c, "axis %d has size %lld", a, (long long)x->dims[a]);
        drop[a] = true;
    }
    int64_t dims[EVAL_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (!drop[i])
            dims[r++] = x->dims[i];
    return eval_same_elements(c, x, r, dims);
}

static bool op_squeeze(EvalCall *c)
{
    int64_t axes[EVAL_MAX_RANK];
    int n;
    const Tensor *x = arg_and_ints(c, "axis", axes, EVAL_MAX_RANK, &n);
    return x && eval_squeeze(c, x, axes, n);
}

static bool op_transpose(EvalCall *c)
{
    int64_t axes[EVAL_MAX_RANK];
    int n;
    const Tensor *x = arg_and_ints(c, "axes", axes, EVAL_MAX_RANK, &n);
    if (!x)
        return false;
    if (n < 0) /* None: reverse the axes */
        for (n = 0; n < x->rank; n++)
            axes[n] = x->rank - 1 - n;
    bool seen[EVAL_MAX_RANK] = {false};
    if (n != x->rank)
        return eval_fail(c, "%d axes for rank %d", n, x->rank);
    int64_t dims[EVAL_MAX_RANK], in_strides[EVAL_MAX_RANK];
    for (int i = 0; i < n; i++) {
        int a = eval_axis(c, axes[i], x->rank);
        if (a < 0)
            return false;
        if (seen[a])
            return eval_fail(c, "axis %d twice", a);
        seen[a] = true;
        axes[i] = a;
        dims[i] = x->dims[a];
    }
    Tensor *r = eval_result(c, x->dtype, n, dims);
    if (!r)
        return false;
    eval_strides(x->rank, x->dims, in_strides);
    for (size_t i = 0; i < r->size; i++) {
        size_t flat = i, src = 0;
        for (int k = n - 1; k >= 0; k--) {
            src += (flat % (size_t)dims[k]) * (size_t)in_strides[axes[k]];
            flat /= (size_t)dims[k];
        }
        r->data[i] = x->data[src];
    }
    return true;
}

static bool op_broadcast_to(EvalCall *c)
{
    Tensor shape = {.rank = 0};
    int n;
    const Tensor *x = arg_and_ints(c, "shape", shape.dims, EVAL_MAX_RANK, &n);
    if (n == -1)
        return eval_fail(c, "shape missing");
    if (!x)
        return false;
    shape.rank = n;
    int rank;
    int64_t dims[EVAL_MAX_RANK * 2];
    if (!eval_broadcast(c, x, &shape, &rank, dims))
        return false;
    if (rank != n || memcmp(dims, shape.dims, (size_t)n * sizeof *dims) != 0)
        return eval_fail(c, "data does not broadcast to the shape");
    Tensor *r = eval_result(c, x->dtype, rank, dims);
    if (!r)
        return false;
    for (size_t i = 0; i < r->size; i++)
        r->data[i] = x->data[eval_bcast_index(x, rank, dims, i)];
    return true;
}

/* Copies between whole and slab, a tensor of whole's shape but for axis,
 * where slab stands at [offset, offset + slab's dim) of whole's axis: into
 * whole (concatenate) or out of it (split). */
static void copy_slab(const Tensor *whole, const Tensor *slab, int axis, int64_t offset,
                      bool into_whole)
{
    int64_t ws[EVAL_MAX_RANK], ss[EVAL_MAX_RANK];
    eval_strides(whole->rank, whole->dims, ws);
    eval_strides(slab->rank, slab->dims, ss);
    for (size_t i = 0; i < slab->size; i++) {
        size_t outer = i / (size_t)(ss[axis] * slab->dims[axis]);
        size_t mid = (i / (size_t)ss[axis]) % (size_t)slab->dims[axis],
               inner = i % (size_t)ss[axis];
        size_t w = outer * (size_t)(ws[axis] * whole->dims[axis]) +
                   ((size_t)offset + mid) * (size_t)ws[axis] + inner;
        if (into_whole)
            whole->data[w] = slab->data[i];
        else
            slab->data[i] = whole->data[w];
    }
}

static bool op_concatenate(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1) || c->args[0].nfields < 1)
        return eval_fail(c, "wants a tuple of tensors");
    const Value *tup = &c->args[0];
    const Tensor *first = &tup->fields[0].t;
    int axis = eval_attr_axis(c, 0, first->rank);
    if (axis < 0)
        return false;
    int64_t dims[EVAL_MAX_RANK];
    memcpy(dims, first->dims, sizeof dims);
    dims[axis] = 0;
    for (int f = 0; f < tup->nfields; f++) {
        const Tensor *t = &tup->fields[f].t;
        for (int i = 0; tup->fields[f].nfields < 0 && t->rank == first->rank && i < t->rank; i++)
            if (i != axis && t->dims[i] != first->dims[i])
                return eval_fail(c, "field %d's dim %d differs", f, i);
        if (tup->fields[f].nfields >= 0 || t->rank != first->rank)
            return eval_fail(c, "field %d's rank differs", f);
        dims[axis] += t->dims[axis];
    }
    Tensor *r = eval_result(c, first->dtype, first->rank, dims);
    if (!r)
        return false;
    int64_t offset = 0;
    for (int f = 0; f < tup->nfields; f++) {
        copy_slab(r, &tup->fields[f].t, axis, offset, true);
        offset += tup->fields[f].t.dims[axis];
    }
    return true;
}

/* split(x, indices_or_sections, axis): sections (an int) or the indices
 * where pieces start (a list). */
static bool op_split(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int axis = x ? eval_attr_axis(c, 0, x->rank) : -1;
    if (axis < 0)
        return false;
    const graft_attr_value *how = node_find_attr(c->node, "indices_or_sections");
    int64_t cuts[EVAL_MAX_RANK * 4 + 2];
    int n = 0;
    cuts[n++] = 0;
    if (how && how->kind == GRAFT_ATTR_INT) {
        if (how->i <= 0 || x->dims[axis] % how->i != 0 || how->i > EVAL_MAX_RANK * 4)
            return eval_fail(c, "%lld sections of %lld", (long long)how->i,
                             (long long)x->dims[axis]);
        for (int64_t k = 1; k < how->i; k++)
            cuts[n++] = k * (x->dims[axis] / how->i);
    } else {
        int m = eval_attr_ints(c, "indices_or_sections", cuts + 1, EVAL_MAX_RANK * 4);
        if (m < 0)
            return m == -1 ? eval_fail(c, "indices_or_sections missing") : false;
        n += m;
    }
    cuts[n] = x->dims[axis];
    if (!eval_tuple_result(c, n))
        return false;
    for (int k = 0; k < n; k++) {
        if (cuts[k + 1] < cuts[k] || cuts[k + 1] > x->dims[axis])
            return eval_fail(c, "indices out of order");
        int64_t dims[EVAL_MAX_RANK];
        memcpy(dims, x->dims, sizeof dims);
        dims[axis] = cuts[k + 1] - cuts[k];
        Tensor *r = eval_field(c, k, x->dtype, x->rank, dims);
        if (!r)
            return false;
        copy_slab(x, r, axis, cuts[k], false);
    }
    return true;
}

/* strided_slice(x, begin, end, strides, axes=None, slice_mode="end"). */
static bool op_strided_slice(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    EvalSlice sl;
    sl.nbegin = x ? eval_attr_ints(c, "begin", sl.begin, EVAL_MAX_RANK) : -2;
    sl.nend = sl.nbegin >= 0 ? eval_attr_ints(c, "end", sl.end, EVAL_MAX_RANK) : -2;
    sl.nstep = sl.nend >= 0 ? eval_attr_ints(c, "strides", sl.step, EVAL_MAX_RANK) : -2;
    sl.naxes = sl.nstep != -2 ? eval_attr_ints(c, "axes", sl.axes, EVAL_MAX_RANK) : -2;
    if (sl.naxes == -2 || sl.nend < 0)
        return sl.nbegin == -1 || sl.nend == -1 ? eval_fail(c, "begin and end wanted") : false;
    return eval_slice(c, x, &sl);
}

/* The slice sl of x (no axes, naxes < 0: the first nbegin axes). */
bool eval_slice(EvalCall *c, const Tensor *x, EvalSlice *sl)
{
    if (sl->naxes < 0)
        for (sl->naxes = 0; sl->naxes < sl->nbegin; sl->naxes++)
            sl->axes[sl->naxes] = sl->naxes;
    bool size_mode = strcmp(eval_attr_str(c, "slice_mode", "end"), "size") == 0;
    int64_t lo[EVAL_MAX_RANK], st[EVAL_MAX_RANK], dims[EVAL_MAX_RANK];
    const int64_t *begin = sl->begin, *end = sl->end, *step = sl->step;
    int ne = sl->nend, ns = sl->nstep;
    for (int i = 0; i < x->rank; i++)
        lo[i] = 0, st[i] = 1, dims[i] = x->dims[i];
    for (int k = 0; k < sl->naxes && k < sl->nbegin; k++) {
        int a = eval_axis(c, sl->axes[k], x->rank);
        if (a < 0)
            return false;
        int64_t n = x->dims[a], s = ns > 0 ? step[k < ns ? k : ns - 1] : 1;
        int64_t b = begin[k] < 0 ? begin[k] + n : begin[k];
        int64_t e = k >= ne ? n : size_mode ? (end[k] < 0 ? n : b + end[k])
                                            : end[k] < 0 ? end[k] + n : end[k];
        if (s == 0 || size_mode)
            s = s == 0 ? 0 : 1;
        if (s == 0)
            return eval_fail(c, "stride 0");
        b = b < 0 ? (s > 0 ? 0 : -1) : b > n ? n : b;
        e = e < -1 ? -1 : e > n ? n : e;
        if (s > 0 && b >= n)
            b = n;
        if (s < 0 && b >= n)
            b = n - 1;
        lo[a] = b, st[a] = s;
        dims[a] = s > 0 ? (e > b ? (e - b + s - 1) / s : 0) : (b > e ? (b - e - s - 1) / -s : 0);
    }
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    int64_t xs[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, xs);
    for (size_t i = 0; i < r->size; i++) {
        size_t flat = i, src = 0;
        for (int k = x->rank - 1; k >= 0; k--) {
            src += (size_t)((lo[k] + (int64_t)(flat % (size_t)dims[k]) * st[k]) * xs[k]);
            flat /= (size_t)dims[k];
        }
        r->data[i] = x->data[src];
    }
    return true;
}

/* take(x, indices, axis): the elements of x at indices along axis (None:
 * of x flattened); mode "clip" (the default) clamps an index, "wrap"
 * wraps it. */
static bool op_take(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *idx = x ? eval_arg(c, 1) : NULL;
    if (!idx)
        return false;
    bool flat = !node_given_attr(c->node, "axis");
    Tensor whole = {.dtype = x->dtype, .rank = 1, .dims = {(int64_t)x->size}, .size = x->size,
                    .data = x->data};
    const Tensor *src = flat ? &whole : x;
    int axis = eval_axis(c, flat ? 0 : eval_attr_int(c, "axis", 0), src->rank);
    if (axis < 0)
        return false;
    int64_t dims[EVAL_MAX_RANK * 3];
    int r = 0;
    for (int i = 0; i < axis; i++)
        dims[r++] = src->dims[i];
    for (int i = 0; i < idx->rank; i++)
        dims[r++] = idx->dims[i];
    for (int i = axis + 1; i < src->rank; i++)
        dims[r++] = src->dims[i];
    Tensor *out = eval_result(c, x->dtype, r, dims);
    if (!out)
        return false;
    bool wrap = strcmp(eval_attr_str(c, "mode", "clip"), "wrap") == 0;
    int64_t n = src->dims[axis], ss[EVAL_MAX_RANK];
    eval_strides(src->rank, src->dims, ss);
    size_t inner = (size_t)ss[axis], count = idx->size;
    for (size_t i = 0; i < out->size; i++) {
        size_t in_i = i % inner, k = (i / inner) % (count ? count : 1);
        size_t outer = i / (inner * (count ? count : 1));
        int64_t at = (int64_t)idx->data[k];
        at = wrap ? ((at % n) + n) % n : at < 0 ? 0 : at >= n ? n - 1 : at;
        out->data[i] = src->data[(outer * (size_t)n + (size_t)at) * inner + in_i];
    }
    return true;
}

/* shape_of(x, dtype): x's dims as a vector, int32 unless dtype says
 * otherwise (TVM's default). */
static bool op_shape_of(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x)
        return false;
    const graft_attr_value *dt = node_find_attr(c->node, "dtype");
    const char *dtype = dt && dt->kind == GRAFT_ATTR_STRING && dt->s && *dt->s ? dt->s : "int32";
    int64_t rank = x->rank;
    Tensor *r = eval_result(c, dtype, 1, &rank);
    for (int i = 0; r && i < x->rank; i++)
        r->data[i] = (double)x->dims[i];
    return r != NULL;
}

const EvalOpDef eval_shape_ops[] = {
    {"reshape", op_reshape},
    {"nn.batch_flatten", op_batch_flatten},
    {"expand_dims", op_expand_dims},
    {"squeeze", op_squeeze},
    {"transpose", op_transpose},
    {"broadcast_to", op_broadcast_to},
    {"concatenate", op_concatenate},
    {"split", op_split},
    {"strided_slice", op_strided_slice},
    {"take", op_take},
    {"shape_of", op_shape_of},
    {NULL, NULL},
};
