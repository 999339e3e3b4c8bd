/* verify_operand.c - the shape of a fresh operand of an instance, from
 * its op's type relation run backwards (note [operand shapes]).
 *
 * note [operand shapes]: an op's type relation (TVM's Conv2DRel,
 * DenseRel, ReshapeRel, ...) gives the result's type from the operands'
 * and checks that they fit.  Building an instance goes the other way:
 * the pattern fixes some attributes (kernel_size=[1, 1], units=5,
 * newshape=[4, 5], axis=[1]) and the operands must be made to fit them,
 * or the op refuses every instance and the rule is left unchecked.  So:
 *  - nn.conv2d: weights (channels, in / groups, kernel_size) in the kernel
 *    layout, data in the data layout with 3 channels per group and rows
 *    and columns at least 5 and at least the dilated kernel's extent
 *    (TVM's Conv2DRel asserts the weights' shape against channels and
 *    kernel_size where they are given, and so does the evaluator);
 *  - nn.dense: data (2, 3), weights (units, k), square without units;
 *    nn.matmul's b and nn.batch_matmul's operands square likewise;
 *  - the norms and nn.bias_add: data (2, 3, 4, 3) and vectors the length
 *    of the data's axis (a batch norm's variance positive);
 *  - transpose with literal axes: as many dims as axes;
 *  - reshape with a literal newshape of positive dims and at most one -1,
 *    when the base shape holds no fitting count of elements: data of the
 *    base rank holding as many elements (the -1 taken as 3):
 *    the whole count as one dim at rank 1, the new shape reversed at its
 *    own rank, its leading dims merged at a lower rank, leading 1s at a
 *    higher one;
 *  - squeeze with literal axes: each of those dims 1, the rank raised to
 *    hold the largest;
 *  - split along an axis into n sections: that dim 2n; at indices, the
 *    last index + 2;
 *  - 2-d pooling: rank 4 in the layout, rows and columns at least 5 and
 *    at least the window.
 * A choice that other operands' shapes constrain (a sibling of an
 * element-wise op) is left to the caller (verify_build_leaf.c), and so is a
 * shape of more than MAX_LEAF_ELEMENTS elements (the instance is then
 * built on the base shape, which the op may refuse).
 */
#include <string.h>

#include "verify_impl.h"

enum { MIN_SPATIAL = 5, FREE_DIM = 3, MAX_LEAF_ELEMENTS = 1 << 16 };

void verify_ctx_set(LeafCtx *c, int rank, const int64_t *dims)
{
    c->rank = rank;
    for (int i = 0; i < rank; i++)
        c->dims[i] = dims[i];
}

/* (2), (2, 3), (2, 3, 3), (2, 3, 4, 3), (2, 3, 2, 2, 3), then 2s: the
 * last dim is also the channel dim (axis 1), so that a vector of it
 * broadcasts either way. */
void verify_rank_shape(int rank, LeafCtx *c)
{
    static const int64_t shapes[6][5] = {{0}, {2}, {2, 3}, {2, 3, 3}, {2, 3, 4, 3},
                                         {2, 3, 2, 2, 3}};
    int64_t dims[EVAL_MAX_RANK];
    for (int i = 0; i < rank && i < EVAL_MAX_RANK; i++)
        dims[i] = rank < 6 ? shapes[rank][i] : 2;
    verify_ctx_set(c, rank, dims);
}

/* ---- attributes ---- */

static const graft_attr_value *find(const graft_attr *attrs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(attrs[i].name, name) == 0)
            return attrs[i].value;
    return NULL;
}

const char *verify_attr_text(const graft_attr *attrs, int n, const char *name)
{
    const graft_attr_value *v = find(attrs, n, name);
    return v && v->kind == GRAFT_ATTR_STRING ? v->s : NULL;
}

const graft_attr_value *verify_attr_list(const graft_attr *attrs, int n, const char *name)
{
    const graft_attr_value *v = find(attrs, n, name);
    return v && v->kind == GRAFT_ATTR_LIST && v->nitems <= EVAL_MAX_RANK ? v : NULL;
}

int64_t verify_attr_int(const graft_attr *attrs, int n, const char *name, int64_t dflt)
{
    const graft_attr_value *v = find(attrs, n, name);
    return v && (v->kind == GRAFT_ATTR_INT || v->kind == GRAFT_ATTR_BOOL) ? v->i : dflt;
}

/* An int list attribute of count items, each positive (and at most
 * MAX_LEAF_ELEMENTS), into out (an int gives every item); false when
 * absent or of another form. */
static bool positive_ints(const graft_attr *attrs, int n, const char *name, int count,
                          int64_t *out)
{
    const graft_attr_value *v = find(attrs, n, name);
    if (v && v->kind == GRAFT_ATTR_INT && v->i > 0 && v->i <= MAX_LEAF_ELEMENTS) {
        for (int k = 0; k < count; k++)
            out[k] = v->i;
        return true;
    }
    if (!v || v->kind != GRAFT_ATTR_LIST || v->nitems != count)
        return false;
    for (int k = 0; k < count; k++)
        if (v->items[k]->kind != GRAFT_ATTR_INT || v->items[k]->i <= 0 ||
            v->items[k]->i > MAX_LEAF_ELEMENTS)
            return false;
    for (int k = 0; k < count; k++)
        out[k] = v->items[k]->i;
    return true;
}

static int64_t at_least(int64_t v, int64_t floor)
{
    return v > floor ? v : floor;
}

/* ---- layers ---- */

/* nn.conv2d's data (i 0) and weights (i 1), data being the data if built. */
static void conv2d_operand(int i, const graft_attr *attrs, int nattrs, const Tensor *data,
                           LeafCtx *c)
{
    const char *dl = verify_attr_text(attrs, nattrs, "data_layout");
    const char *kl = verify_attr_text(attrs, nattrs, "kernel_layout");
    bool nhwc = dl && strcmp(dl, "NHWC") == 0, hwio = kl && strcmp(kl, "HWIO") == 0;
    int64_t groups = verify_attr_int(attrs, nattrs, "groups", 1);
    groups = groups > 0 && groups <= MAX_LEAF_ELEMENTS ? groups : 1;
    int64_t ks[2] = {3, 3}, dil[2] = {1, 1};
    positive_ints(attrs, nattrs, "kernel_size", 2, ks);
    positive_ints(attrs, nattrs, "dilation", 2, dil);
    int64_t rows = at_least(dil[0] * (ks[0] - 1) + 1, MIN_SPATIAL);
    int64_t cols = at_least(dil[1] * (ks[1] - 1) + 1, MIN_SPATIAL);
    int64_t ch = data && data->rank == 4 ? data->dims[nhwc ? 3 : 1] : 3 * groups;
    int64_t per = ch / groups, out = verify_attr_int(attrs, nattrs, "channels", ch);
    int64_t x[4] = {2, 3 * groups, rows, cols}, xh[4] = {2, rows, cols, 3 * groups};
    int64_t w[4] = {out, per, ks[0], ks[1]}, wh[4] = {ks[0], ks[1], per, out};
    verify_ctx_set(c, 4, i == 0 ? (nhwc ? xh : x) : (hwio ? wh : w));
}

/* A layer's operands (as square as the layer allows, so that a rule
 * scaling the wrong axis still evaluates and is refuted rather than
 * failing to broadcast) and the norms' vectors. */
static bool layer_operand(const char *op, int i, const graft_attr *attrs, int nattrs,
                          const Tensor *data, LeafCtx *c)
{
    if (strcmp(op, "nn.conv2d") == 0) {
        conv2d_operand(i, attrs, nattrs, data, c);
        return true;
    }
    if (strcmp(op, "nn.dense") == 0 || strcmp(op, "nn.matmul") == 0) {
        bool ta = strcmp(op, "nn.matmul") == 0 && verify_attr_int(attrs, nattrs, "transpose_a", 0);
        int64_t k = data ? data->dims[data->rank - (ta && data->rank > 1 ? 2 : 1)] : 3;
        int64_t units = strcmp(op, "nn.dense") == 0 ? verify_attr_int(attrs, nattrs, "units", k)
                                                    : k;
        int64_t x[2] = {2, 3}, w[2] = {units, k};
        verify_ctx_set(c, 2, i == 0 ? x : w);
        return true;
    }
    if (strcmp(op, "nn.batch_matmul") == 0) {
        int64_t k = data && data->rank == 3 ? data->dims[2] : 3;
        int64_t a[3] = {2, 3, 3}, b[3] = {2, k, k};
        verify_ctx_set(c, 3, i == 0 ? a : b);
        return true;
    }
    bool norm = strcmp(op, "nn.batch_norm") == 0 || strcmp(op, "nn.layer_norm") == 0 ||
                strcmp(op, "nn.group_norm") == 0 || strcmp(op, "nn.bias_add") == 0;
    if (!norm)
        return false;
    if (i == 0) { /* channel axis 1 as long as the last, as in verify_rank_shape */
        verify_rank_shape(4, c);
        return true;
    }
    int64_t axis = verify_attr_int(attrs, nattrs, "axis",
                                   strcmp(op, "nn.layer_norm") == 0 ? -1 : 1);
    int rank = data ? data->rank : 0;
    if (axis < 0)
        axis += rank;
    int64_t n = data && axis >= 0 && axis < rank ? data->dims[axis] : 3;
    verify_ctx_set(c, 1, &n);
    c->positive = strcmp(op, "nn.batch_norm") == 0 && i == 4;
    return true;
}

/* 2-d pooling's data: rank 4 in its layout, the window fitting. */
static void pool_operand(const graft_attr *attrs, int nattrs, LeafCtx *c)
{
    const char *layout = verify_attr_text(attrs, nattrs, "layout");
    int64_t size[2] = {1, 1};
    positive_ints(attrs, nattrs, "pool_size", 2, size);
    int64_t rows = at_least(size[0], MIN_SPATIAL), cols = at_least(size[1], MIN_SPATIAL);
    int64_t x[4] = {2, 3, rows, cols}, xh[4] = {2, rows, cols, 3};
    verify_ctx_set(c, 4, layout && strcmp(layout, "NHWC") == 0 ? xh : x);
}

static bool is_pool2d(const char *op)
{
    static const char *const pools[] = {"nn.max_pool2d", "nn.avg_pool2d",
                                        "nn.global_avg_pool2d", "nn.global_max_pool2d",
                                        "nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d"};
    for (size_t i = 0; i < ARRAY_LEN(pools); i++)
        if (strcmp(op, pools[i]) == 0)
            return true;
    return false;
}

/* ---- shapes ---- */

/* reshape's data from a literal newshape of positive dims and at most one
 * -1 (taken as FREE_DIM); false for other forms (0, -2, -3, -4), and when
 * the base shape already holds a fitting count of elements. */
static bool reshape_operand(const graft_attr_value *ns, int rank, LeafCtx *c)
{
    int64_t out[EVAL_MAX_RANK], known = 1;
    int m = ns->nitems, free_dims = 0;
    if (m == 0 || rank < 1 || rank > EVAL_MAX_RANK)
        return false;
    for (int k = 0; k < m; k++) {
        const graft_attr_value *v = ns->items[k];
        if (v->kind != GRAFT_ATTR_INT || v->i == 0 || v->i < -1 || v->i > MAX_LEAF_ELEMENTS ||
            (v->i == -1 && free_dims++))
            return false;
        out[k] = v->i == -1 ? FREE_DIM : v->i;
        known *= v->i == -1 ? 1 : v->i;
        if (known > MAX_LEAF_ELEMENTS) /* each factor at most as much: no overflow */
            return false;
    }
    verify_rank_shape(rank, c);
    int64_t base = 1;
    for (int k = 0; k < rank; k++)
        base *= c->dims[k];
    if (free_dims ? base % known == 0 : base == known)
        return false;
    int64_t dims[EVAL_MAX_RANK];
    if (rank <= m) { /* the reversed shape, its first m - rank + 1 dims as one */
        for (int k = 0; k < rank; k++)
            dims[k] = out[m - 1 - k];
        for (int k = rank; k < m; k++)
            dims[rank - 1] *= out[m - 1 - k];
    } else { /* leading 1s, then the reversed shape */
        for (int k = 0; k < rank; k++)
            dims[k] = k < rank - m ? 1 : out[m - 1 - (k - (rank - m))];
    }
    verify_ctx_set(c, rank, dims);
    return true;
}

/* squeeze's data: the base shape, raised to hold the axes, each 1. */
static bool squeeze_operand(const graft_attr_value *axes, int rank, LeafCtx *c)
{
    int need = rank;
    for (int k = 0; k < axes->nitems; k++) {
        const graft_attr_value *v = axes->items[k];
        if (v->kind != GRAFT_ATTR_INT || v->i >= EVAL_MAX_RANK || v->i < -EVAL_MAX_RANK)
            return false;
        int at_least_rank = v->i >= 0 ? (int)v->i + 1 : (int)-v->i;
        need = need > at_least_rank ? need : at_least_rank;
    }
    verify_rank_shape(need, c);
    for (int k = 0; k < axes->nitems; k++) {
        int64_t a = axes->items[k]->i;
        c->dims[a < 0 ? a + need : a] = 1;
    }
    return true;
}

/* split's data: the base shape, the split axis 2 per section. */
static bool split_operand(const graft_attr *attrs, int nattrs, int rank, LeafCtx *c)
{
    const graft_attr_value *how = find(attrs, nattrs, "indices_or_sections");
    int64_t axis = verify_attr_int(attrs, nattrs, "axis", 0), size;
    if (!how)
        return false;
    if (how->kind == GRAFT_ATTR_INT && how->i > 0 && how->i <= MAX_LEAF_ELEMENTS)
        size = 2 * how->i;
    else if (how->kind == GRAFT_ATTR_LIST && how->nitems > 0 &&
             how->items[how->nitems - 1]->kind == GRAFT_ATTR_INT &&
             how->items[how->nitems - 1]->i <= MAX_LEAF_ELEMENTS)
        size = at_least(how->items[how->nitems - 1]->i + 2, 2);
    else
        return false;
    int need = axis >= 0 ? (int)axis + 1 : (int)-axis;
    if (need > EVAL_MAX_RANK)
        return false;
    verify_rank_shape(rank > need ? rank : need, c);
    c->dims[axis < 0 ? axis + c->rank : axis] = size;
    return true;
}

static bool decide(const char *op, int i, const graft_attr *attrs, int nattrs,
                   const Tensor *first, int base_rank, LeafCtx *c)
{
    if (layer_operand(op, i, attrs, nattrs, first, c) ||
        verify_onnx_operand_shape(op, i, attrs, nattrs, first, base_rank, c))
        return true;
    if (i != 0)
        return false;
    if (is_pool2d(op)) {
        pool_operand(attrs, nattrs, c);
        return true;
    }
    const graft_attr_value *list;
    if (strcmp(op, "transpose") == 0 && (list = verify_attr_list(attrs, nattrs, "axes"))) {
        verify_rank_shape(list->nitems, c); /* as many dims as axes */
        return true;
    }
    if (strcmp(op, "reshape") == 0 && (list = verify_attr_list(attrs, nattrs, "newshape")))
        return reshape_operand(list, base_rank, c);
    if (strcmp(op, "squeeze") == 0 && (list = verify_attr_list(attrs, nattrs, "axis")))
        return squeeze_operand(list, base_rank, c);
    if (strcmp(op, "split") == 0)
        return split_operand(attrs, nattrs, base_rank, c);
    return false;
}

bool verify_operand_shape(const char *op, int i, const graft_attr *attrs, int nattrs,
                          const Tensor *first, int base_rank, LeafCtx *c)
{
    if (!decide(op, i, attrs, nattrs, first, base_rank, c))
        return false;
    double size = 1; /* a pattern's kernel_size=[4096, 4096] makes no leaf of that size */
    for (int k = 0; k < c->rank; k++)
        size *= (double)c->dims[k];
    return size <= MAX_LEAF_ELEMENTS;
}
