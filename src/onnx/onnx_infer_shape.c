/* onnx_infer_shape.c - type relations of ONNX's shape and layout ops and
 * constants (onnx/defs/tensor/defs.cc, onnx/defs/generator/defs.cc).  A shape an
 * op reads from an input (Reshape's shape, Slice's starts) is known when
 * that input is a constant: an initializer or a Constant node. */
#include "onnx_infer.h"

#include <string.h>

/* The product of dims [from, to); DIM_ANY when one is unknown. */
static int64_t dims_product(const graft_type *t, int from, int to)
{
    int64_t p = 1;
    for (int i = from; i < to; i++) {
        if (t->dims[i] == DIM_ANY)
            return DIM_ANY;
        p *= t->dims[i];
    }
    return p;
}

static const graft_type *flatten(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    int64_t axis = onnx_int(c, "axis", 1);
    if (axis < -x->rank || axis > x->rank)
        return onnx_fail(c, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    int a = (int)(axis < 0 ? axis + x->rank : axis);
    OnnxShape s = {.rank = 2, .dims = {dims_product(x, 0, a), dims_product(x, a, x->rank)}};
    return onnx_make(c, x->dtype, &s);
}

/* The -1 dim of a Reshape: the elements left over. */
static bool reshape_fill(OnnxInferCtx *c, const graft_type *x, OnnxShape *s, int unknown_at)
{
    int64_t total = dims_product(x, 0, x->rank), known = 1;
    for (int i = 0; i < s->rank; i++)
        if (i != unknown_at)
            known = s->dims[i] == DIM_ANY || known == DIM_ANY ? DIM_ANY : known * s->dims[i];
    if (total == DIM_ANY || known == DIM_ANY || known == 0) {
        s->dims[unknown_at] = DIM_ANY;
        return true;
    }
    if (total % known != 0) {
        onnx_fail(c, "cannot reshape %s: %lld elements do not divide by %lld", x->text,
                  (long long)total, (long long)known);
        return false;
    }
    s->dims[unknown_at] = total / known;
    return true;
}

static const graft_type *reshape(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0), *shape = x ? onnx_input(c, 1) : NULL;
    if (!x || !shape)
        return NULL;
    OnnxShape s;
    s.rank = onnx_const_ints(c, 1, s.dims, ONNX_MAX_RANK);
    if (s.rank < 0)
        return NULL; /* a shape computed in the graph */
    bool allowzero = onnx_int(c, "allowzero", 0) != 0;
    int unknown_at = -1;
    for (int i = 0; i < s.rank; i++) {
        if (s.dims[i] == 0 && !allowzero)
            s.dims[i] = i < x->rank ? x->dims[i] : DIM_ANY;
        else if (s.dims[i] == -1 && unknown_at < 0)
            unknown_at = i;
        else if (s.dims[i] < 0)
            return onnx_fail(c, "shape has a second -1 or a negative dim");
    }
    if (unknown_at >= 0 && !reshape_fill(c, x, &s, unknown_at))
        return NULL;
    return onnx_make(c, x->dtype, &s);
}

static const graft_type *transpose(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    int64_t perm[ONNX_MAX_RANK];
    int n = onnx_ints(c, "perm", perm, ONNX_MAX_RANK);
    if (n == -2 || x->rank > ONNX_MAX_RANK)
        return n == -2 ? NULL : onnx_fail(c, "rank %d above %d", x->rank, ONNX_MAX_RANK);
    if (n == -1) /* absent: the dims reversed */
        for (n = 0; n < x->rank; n++)
            perm[n] = x->rank - 1 - n;
    if (n != x->rank)
        return onnx_fail(c, "perm has %d values for rank %d", n, x->rank);
    OnnxShape s = {.rank = n};
    bool seen[ONNX_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            return onnx_fail(c, "perm is not a permutation of 0..%d", n - 1);
        seen[perm[i]] = true;
        s.dims[i] = x->dims[perm[i]];
    }
    return onnx_make(c, x->dtype, &s);
}

static const graft_type *concat(OnnxInferCtx *c)
{
    const graft_type *first = onnx_input(c, 0);
    if (!first)
        return NULL;
    OnnxShape s;
    int axis = onnx_axis(c, onnx_int(c, "axis", 0), first->rank);
    if (axis < 0 || !onnx_shape(c, first, &s))
        return NULL;
    for (int i = 1; i < c->nin; i++) {
        const graft_type *t = onnx_input(c, i);
        if (!t)
            return NULL;
        if (t->rank != s.rank)
            return onnx_fail(c, "input %d has rank %d, input 1 rank %d", i + 1, t->rank, s.rank);
        for (int k = 0; k < s.rank; k++) {
            int64_t d = t->dims[k];
            if (k == axis)
                s.dims[k] = s.dims[k] == DIM_ANY || d == DIM_ANY ? DIM_ANY : s.dims[k] + d;
            else if (s.dims[k] != d && s.dims[k] != DIM_ANY && d != DIM_ANY)
                return onnx_fail(c, "input %d has dim %d of %lld, not %lld", i + 1, k,
                                 (long long)d, (long long)s.dims[k]);
        }
    }
    return onnx_make(c, first->dtype, &s);
}

/* start and end clamped to [0, rank] after adding rank to negative ones. */
static int64_t clamp_index(int64_t v, int rank)
{
    v = v < 0 ? v + rank : v;
    return v < 0 ? 0 : v > rank ? rank : v;
}

static const graft_type *shape_of(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    int64_t start = clamp_index(onnx_int(c, "start", 0), x->rank);
    int64_t end = clamp_index(onnx_int(c, "end", x->rank), x->rank);
    OnnxShape s = {.rank = 1, .dims = {end > start ? end - start : 0}};
    return onnx_make(c, "int64", &s);
}

static const graft_type *gather(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0), *idx = x ? onnx_input(c, 1) : NULL;
    if (!x || !idx)
        return NULL;
    int axis = onnx_axis(c, onnx_int(c, "axis", 0), x->rank);
    if (axis < 0)
        return NULL;
    OnnxShape s = {.rank = 0};
    for (int i = 0; i < axis; i++)
        if (!onnx_push(c, &s, x->dims[i]))
            return NULL;
    for (int i = 0; i < idx->rank; i++)
        if (!onnx_push(c, &s, idx->dims[i]))
            return NULL;
    for (int i = axis + 1; i < x->rank; i++)
        if (!onnx_push(c, &s, x->dims[i]))
            return NULL;
    return onnx_make(c, x->dtype, &s);
}

/* One sliced dim (onnx/defs/tensor/utils.cc, processSliceInputs). */
static int64_t slice_dim(int64_t dim, int64_t start, int64_t end, int64_t step)
{
    if (dim == DIM_ANY)
        return DIM_ANY;
    start = start < 0 ? start + dim : start;
    end = end < 0 ? end + dim : end;
    int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    start = start < lo ? lo : start > hi ? hi : start;
    end = end < lo ? lo : end > hi ? hi : end;
    int64_t n = step > 0 ? (end - start + step - 1) / step : (start - end - step - 1) / -step;
    return n > 0 ? n : 0;
}

static const graft_type *slice(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    if (!x)
        return NULL;
    int64_t starts[ONNX_MAX_RANK], ends[ONNX_MAX_RANK], axes[ONNX_MAX_RANK], steps[ONNX_MAX_RANK];
    int n = onnx_const_ints(c, 1, starts, ONNX_MAX_RANK);
    if (n < 0 || onnx_const_ints(c, 2, ends, ONNX_MAX_RANK) != n)
        return NULL;
    for (int i = 0; i < n; i++) {
        axes[i] = i;
        steps[i] = 1;
    }
    if ((c->nin > 3 && c->in[3] && onnx_const_ints(c, 3, axes, ONNX_MAX_RANK) != n) ||
        (c->nin > 4 && c->in[4] && onnx_const_ints(c, 4, steps, ONNX_MAX_RANK) != n))
        return NULL;
    OnnxShape s;
    if (!onnx_shape(c, x, &s))
        return NULL;
    for (int i = 0; i < n; i++) {
        int axis = onnx_axis(c, axes[i], x->rank);
        if (axis < 0 || steps[i] == 0)
            return axis < 0 ? NULL : onnx_fail(c, "a step of 0");
        s.dims[axis] = slice_dim(x->dims[axis], starts[i], ends[i], steps[i]);
    }
    return onnx_make(c, x->dtype, &s);
}

static const graft_type *size(OnnxInferCtx *c)
{
    OnnxShape s = {.rank = 0};
    return onnx_input(c, 0) ? onnx_make(c, "int64", &s) : NULL;
}

/* The axes of Squeeze and Unsqueeze: the constant input axes (opset 13),
 * or the attribute (opset 11); -1 when neither gives them, -2 when the
 * input is not a constant (then the type is unknown), -3 after failing. */
static int axes_of(OnnxInferCtx *c, int64_t *axes)
{
    if (c->nin > 1 && c->in[1]) {
        int n = onnx_const_ints(c, 1, axes, ONNX_MAX_RANK);
        return n >= 0 ? n : -2;
    }
    int n = onnx_ints(c, "axes", axes, ONNX_MAX_RANK);
    return n == -2 ? -3 : n;
}

/* Squeeze(data, axes): the given dims, each 1, dropped; without axes
 * every dim of 1 (unknown while a dim is unknown). */
static const graft_type *squeeze(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    int64_t axes[ONNX_MAX_RANK];
    int n = x ? axes_of(c, axes) : -3;
    bool drop[ONNX_MAX_RANK] = {false};
    if (n < -1 || x->rank > ONNX_MAX_RANK)
        return n < -1 ? NULL : onnx_fail(c, "rank %d above %d", x->rank, ONNX_MAX_RANK);
    for (int i = 0; i < n; i++) {
        int a = onnx_axis(c, axes[i], x->rank);
        if (a < 0)
            return NULL;
        if (x->dims[a] != 1 && x->dims[a] != DIM_ANY)
            return onnx_fail(c, "dim %d is %lld, not 1", a, (long long)x->dims[a]);
        drop[a] = true;
    }
    OnnxShape s = {.rank = 0};
    for (int i = 0; i < x->rank; i++) {
        if (n < 0 && x->dims[i] == DIM_ANY)
            return NULL; /* whether it goes is unknown */
        if (!(n < 0 ? x->dims[i] == 1 : drop[i]))
            s.dims[s.rank++] = x->dims[i];
    }
    return onnx_make(c, x->dtype, &s);
}

/* Unsqueeze(data, axes): a dim of 1 at each of axes of the result. */
static const graft_type *unsqueeze(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    int64_t axes[ONNX_MAX_RANK];
    int n = x ? axes_of(c, axes) : -3;
    if (n < 0)
        return n == -1 ? onnx_fail(c, "no axes") : NULL;
    int rank = x->rank + n;
    if (rank > ONNX_MAX_RANK)
        return onnx_fail(c, "rank %d above %d", rank, ONNX_MAX_RANK);
    bool one[ONNX_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        int a = onnx_axis(c, axes[i], rank);
        if (a < 0 || one[a])
            return a < 0 ? NULL : onnx_fail(c, "axis %d given twice", a);
        one[a] = true;
    }
    OnnxShape s = {.rank = rank};
    for (int i = 0, k = 0; i < rank; i++)
        s.dims[i] = one[i] ? 1 : x->dims[k++];
    return onnx_make(c, x->dtype, &s);
}

/* The type of a Constant's value, whichever attribute gives it. */
static const graft_type *constant(OnnxInferCtx *c)
{
    const graft_attr_value *v = node_find_attr(c->call, "value");
    if (v && v->kind == GRAFT_ATTR_TENSOR)
        return v->type;
    static const struct {
        const char *attr, *dtype;
        bool list;
    } scalars[] = {{"value_float", "float32", false}, {"value_floats", "float32", true},
                   {"value_int", "int64", false},     {"value_ints", "int64", true}};
    for (size_t i = 0; i < ARRAY_LEN(scalars); i++)
        if ((v = node_find_attr(c->call, scalars[i].attr))) {
            OnnxShape s = {.rank = scalars[i].list ? 1 : 0,
                           .dims = {v->kind == GRAFT_ATTR_LIST ? v->nitems : 1}};
            return onnx_make(c, scalars[i].dtype, &s);
        }
    return NULL; /* a sparse tensor or strings: not typed */
}

/* If: the branches' output types are in their subgraphs, which graft keeps
 * as bytes (GRAFT_ATTR_GRAPH): unknown. */
static const graft_type *if_op(OnnxInferCtx *c)
{
    (void)c;
    return NULL;
}

const OnnxOpDef onnx_ops_shape[] = {
    {"Flatten", NULL, flatten, ONNX_ONE_OUTPUT, 1},
    {"Reshape", NULL, reshape, ONNX_ONE_OUTPUT, 2},
    {"Transpose", NULL, transpose, ONNX_ONE_OUTPUT, 1},
    {"Concat", NULL, concat, ONNX_ONE_OUTPUT, 0},
    {"Shape", NULL, shape_of, ONNX_ONE_OUTPUT, 1},
    {"Gather", NULL, gather, ONNX_ONE_OUTPUT, 2},
    {"Slice", NULL, slice, ONNX_ONE_OUTPUT, 3},
    {"Size", NULL, size, ONNX_ONE_OUTPUT, 1},
    {"Squeeze", NULL, squeeze, ONNX_ONE_OUTPUT, 1},
    {"Unsqueeze", NULL, unsqueeze, ONNX_ONE_OUTPUT, 2},
    {"Constant", NULL, constant, ONNX_ONE_OUTPUT, 0},
    {"If", NULL, if_op, ONNX_SEVERAL_OUTPUTS, 1},
    {NULL, NULL, NULL, 0, 0},
};
