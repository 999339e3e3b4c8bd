/* type_rel_nn_misc.c - relations of the neural-network ops without
 * windows: dense, matmul and batch_matmul (tvm/src/relay/op/nn/nn.h), the
 * norms, bias_add, dropout, pads, upsampling and depth/space moves
 * (tvm/src/relay/op/nn/{nn.cc,pad.cc,upsampling.cc}). */
#include "type_rel.h"

#include <math.h>
#include <string.h>

#include "type_infer.h"

/* ---- dense and matmuls ---- */

/* MatmulRel: (..., M, K) x (K, N) -> (..., M, N), either side transposed;
 * nn.dense is nn.matmul with the weight transposed. */
static const graft_type *matmul_rel(RelCtx *c, bool trans_a, bool trans_b)
{
    const graft_type *a = rel_tensor(c, 0), *b = a ? rel_tensor(c, 1) : NULL;
    if (!b)
        return NULL;
    if (a->rank < 1 || b->rank != 2)
        return rel_fail(c, "expects a weight of rank 2 (got %s)", b->text);
    if (trans_a && a->rank < 2)
        return rel_fail(c, "transpose_a needs rank 2 or more (got %s)", a->text);
    int64_t k_a = a->dims[a->rank - (trans_a ? 2 : 1)];
    int64_t k_b = b->dims[trans_b ? 1 : 0];
    int64_t n = b->dims[trans_b ? 0 : 1];
    if (k_a != DIM_ANY && k_b != DIM_ANY && k_a != k_b)
        return rel_fail(c, "%s has %lld input features, the weight %s has %lld",
                        a->text, (long long)k_a, b->text, (long long)k_b);
    int64_t units = rel_int(c, "units", n);
    if (n != DIM_ANY && units != n)
        return rel_fail(c, "units=%lld does not match the weight's %lld", (long long)units,
                        (long long)n);
    Shape s;
    if (!rel_shape(c, a, &s))
        return NULL;
    if (trans_a)
        s.dims[s.rank - 2] = s.dims[s.rank - 1];
    s.dims[s.rank - 1] = units;
    return rel_make(c, rel_dtype(c, "out_dtype", a->dtype), &s);
}

const graft_type *rel_dense(RelCtx *c)
{
    return matmul_rel(c, false, true);
}

static const graft_type *matmul(RelCtx *c)
{
    return matmul_rel(c, rel_bool(c, "transpose_a", false), rel_bool(c, "transpose_b", false));
}

/* BatchMatmulRel: (B, M, K) x (B, K, N) -> (B, M, N), a batch of 1 on
 * either side broadcasting. */
static const graft_type *batch_matmul(RelCtx *c)
{
    const graft_type *x = rel_tensor(c, 0), *y = x ? rel_tensor(c, 1) : NULL;
    if (!y)
        return NULL;
    if (x->rank != 3 || y->rank != 3)
        return rel_fail(c, "expects two rank-3 tensors (got %s and %s)", x->text, y->text);
    bool ta = rel_bool(c, "transpose_a", false), tb = rel_bool(c, "transpose_b", false);
    int64_t bx = x->dims[0], by = y->dims[0];
    int64_t m = x->dims[ta ? 2 : 1], kx = x->dims[ta ? 1 : 2];
    int64_t ky = y->dims[tb ? 2 : 1], n = y->dims[tb ? 1 : 2];
    if (bx != by && bx != 1 && by != 1 && bx != DIM_ANY && by != DIM_ANY)
        return rel_fail(c, "batch dimensions %lld and %lld do not broadcast", (long long)bx,
                        (long long)by);
    if (kx != DIM_ANY && ky != DIM_ANY && kx != ky)
        return rel_fail(c, "shapes %s and %s do not multiply (%lld vs %lld)", x->text,
                        y->text, (long long)kx, (long long)ky);
    Shape s = {3, {bx == 1 ? by : bx, m, n}};
    return rel_make(c, rel_dtype(c, "out_dtype", x->dtype), &s);
}

/* ---- norms and friends ---- */

/* Operand i must be the vector (channels) with data's dtype. */
static bool check_vector(RelCtx *c, int i, const char *what, int64_t channels)
{
    const graft_type *t = rel_tensor(c, i);
    if (!t)
        return false;
    if (t->rank != 1 || (channels != DIM_ANY && t->dims[0] != DIM_ANY &&
                         t->dims[0] != channels)) {
        rel_fail(c, "%s must be Tensor[(%lld), ...] (got %s)", what, (long long)channels,
                 t->text);
        return false;
    }
    return true;
}

/* The data (operand 0) when operands 1..n are vectors of the size of its
 * axis (attribute axis, default dflt), each with its name for messages;
 * NULL after reporting otherwise.  *channels: the axis's size. */
static const graft_type *data_and_vectors(RelCtx *c, int dflt, const char *const *names, int n,
                                    int64_t *channels)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    int axis = rel_axis(c, rel_int(c, "axis", dflt), data->rank);
    if (axis < 0)
        return NULL;
    for (int i = 0; i < n; i++)
        if (!check_vector(c, i + 1, names[i], data->dims[axis]))
            return NULL;
    *channels = data->dims[axis];
    return data;
}

/* BatchNormRel: (data, mean, var) with the mean and variance as vectors
 * of the axis's size. */
static const graft_type *batch_norm(RelCtx *c)
{
    static const char *const names[] = {"gamma", "beta", "moving_mean", "moving_var"};
    int64_t ch;
    const graft_type *data = data_and_vectors(c, 1, names, 4, &ch);
    if (!data)
        return NULL;
    const graft_type *vec = graph_type_tensor(c->g, data->dtype, &ch, 1);
    const graft_type *fields[3] = {data, vec, vec};
    return graph_type_tuple(c->g, fields, 3);
}

/* LayerNormRel, GroupNormRel, InstanceNormRel: the data's type; gamma and
 * beta are vectors of the axis's size. */
static const graft_type *norm(RelCtx *c)
{
    static const char *const names[] = {"gamma", "beta"};
    int64_t ch;
    return data_and_vectors(c, strcmp(c->op, "nn.layer_norm") ? 1 : -1, names, 2, &ch);
}

/* BiasAddRel: the bias is a vector of the axis's size. */
static const graft_type *bias_add(RelCtx *c)
{
    static const char *const names[] = {"bias"};
    int64_t ch;
    return data_and_vectors(c, 1, names, 1, &ch);
}

static const graft_type *identity(RelCtx *c)
{
    return rel_tensor(c, 0);
}

/* DropoutRel: (output, mask), both of the data's type. */
static const graft_type *dropout(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    const graft_type *fields[2] = {data, data};
    return graph_type_tuple(c->g, fields, 2);
}

/* BatchFlattenRel: (N, product of the rest). */
static const graft_type *batch_flatten(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data)
        return NULL;
    if (data->rank < 1)
        return rel_fail(c, "expects rank 1 or more (got %s)", data->text);
    Shape s = {2, {data->dims[0], 1}};
    for (int i = 1; i < data->rank; i++)
        s.dims[1] = dim_mul(s.dims[1], data->dims[i]);
    return rel_make(c, data->dtype, &s);
}

/* PadRel, MirrorPadRel: each dim grows by its [before, after] pair. */
static const graft_type *pad(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    const graft_attr_value *w = rel_attr(c, "pad_width");
    if (!data || !w || w->kind != GRAFT_ATTR_LIST)
        return NULL;
    if (w->nitems != data->rank)
        return rel_fail(c, "pad_width has %d pairs for rank %d", w->nitems, data->rank);
    Shape s;
    if (!rel_shape(c, data, &s))
        return NULL;
    for (int i = 0; i < w->nitems; i++) {
        const graft_attr_value *p = w->items[i];
        if (p->kind != GRAFT_ATTR_LIST || p->nitems != 2 || p->items[0]->kind != GRAFT_ATTR_INT ||
            p->items[1]->kind != GRAFT_ATTR_INT)
            return rel_fail(c, "pad_width must be [before, after] pairs of integers");
        s.dims[i] = dim_add(s.dims[i], p->items[0]->i + p->items[1]->i);
    }
    return rel_make(c, data->dtype, &s);
}

/* UpSamplingRel, UpSampling3DRel: spatial dims times their scale,
 * rounded. */
static const graft_type *upsampling(RelCtx *c, int nsp)
{
    const graft_type *data = rel_tensor(c, 0);
    const char *layout = rel_str(c, "layout", rel_pool_layout(nsp));
    if (!data || data->rank != nsp + 2 || !rel_layout_fits(layout, nsp, "NC"))
        return NULL;
    static const char *const scales[] = {"scale_d", "scale_h", "scale_w"};
    Shape s;
    if (!rel_shape(c, data, &s))
        return NULL;
    const char *sp = rel_spatial_letters(nsp);
    for (int i = 0; i < nsp; i++) {
        int at = rel_layout_pos(layout, sp[i]);
        double scale = rel_float(c, scales[3 - nsp + i], 1.0);
        if (s.dims[at] != DIM_ANY)
            s.dims[at] = (int64_t)llround((double)s.dims[at] * scale);
    }
    return rel_make(c, data->dtype, &s);
}

static const graft_type *upsampling2d(RelCtx *c) { return upsampling(c, 2); }
static const graft_type *upsampling3d(RelCtx *c) { return upsampling(c, 3); }

/* DepthToSpaceRel (block_size up) and SpaceToDepthRel (down). */
static const graft_type *depth_space(RelCtx *c, bool to_space)
{
    const graft_type *data = rel_tensor(c, 0);
    const char *layout = rel_str(c, "layout", "NCHW");
    int64_t b = rel_int(c, "block_size", 0);
    if (!data || data->rank != 4 || !rel_layout_fits(layout, 2, "NC") || b <= 0)
        return NULL;
    Shape s;
    if (!rel_shape(c, data, &s))
        return NULL;
    int ci = rel_layout_pos(layout, 'C'), hi = rel_layout_pos(layout, 'H');
    int wi = rel_layout_pos(layout, 'W');
    if (to_space) {
        if (s.dims[ci] != DIM_ANY && s.dims[ci] % (b * b))
            return rel_fail(c, "%lld channels do not divide by block_size^2 = %lld",
                            (long long)s.dims[ci], (long long)(b * b));
        s.dims[ci] = dim_div(s.dims[ci], b * b);
        s.dims[hi] = dim_mul(s.dims[hi], b);
        s.dims[wi] = dim_mul(s.dims[wi], b);
    } else {
        s.dims[ci] = dim_mul(s.dims[ci], b * b);
        s.dims[hi] = dim_div(s.dims[hi], b);
        s.dims[wi] = dim_div(s.dims[wi], b);
    }
    return rel_make(c, data->dtype, &s);
}

static const graft_type *depth_to_space(RelCtx *c) { return depth_space(c, true); }
static const graft_type *space_to_depth(RelCtx *c) { return depth_space(c, false); }

const TypeRel type_rels_nn_misc[] = {
    {"nn.dense", rel_dense, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.matmul", matmul, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.batch_matmul", batch_matmul, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.batch_norm", batch_norm, 3, 5, 0},
    {"nn.layer_norm", norm, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"nn.group_norm", norm, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"nn.instance_norm", norm, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"nn.bias_add", bias_add, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.softmax", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.log_softmax", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.fast_softmax", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.lrn", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.l2_normalize", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.dropout", dropout, 2, 1, 0},
    {"nn.batch_flatten", batch_flatten, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.pad", pad, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.mirror_pad", pad, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.upsampling", upsampling2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.upsampling3d", upsampling3d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.depth_to_space", depth_to_space, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.space_to_depth", space_to_depth, TYPE_OUTPUTS_TENSOR, 1, 0},
    {NULL, NULL, 0, 0, 0},
};
