/* type_rel_dyn.c - relations of the dynamic ops (tvm/src/relay/op/dyn/), which
 * TVM's importers emit where a shape, a size or k is computed in the
 * graph rather than known: the operand that TVM's static op takes as an
 * attribute is a tensor here, so the dims it decides are "?" (Any) and
 * only the rank is known, from that tensor's static length.
 *   dyn/tensor/transform.cc  reshape, broadcast_to, zeros, ones, full,
 *                            tile, one_hot, strided_slice, expand_dims,
 *                            squeeze
 *   dyn/algorithm/topk.cc, dyn/image/resize.cc, dyn/nn/pad.cc,
 *   dyn/nn/upsampling.cc     topk, image.resize2d, nn.pad, nn.upsampling
 */
#include "type_rel.h"

#include <string.h>

#include "type_infer.h"

/* The static length of operand i, a 1-D shape tensor (ReshapeRel's
 * newshape->shape[0]): -1 after reporting a rank or length that is not
 * one static number ("Parameter shape must have static rank"). */
static int shape_operand_len(RelCtx *c, int i, const char *what)
{
    const graft_type *t = rel_tensor(c, i);
    if (!t)
        return -1;
    if (t->rank != 1) {
        rel_fail(c, "%s must be 1-D (got %s)", what, t->text);
        return -1;
    }
    if (t->dims[0] == DIM_ANY || t->dims[0] > REL_MAX_RANK) {
        rel_fail(c, "%s must have a static length of at most %d (got %s)", what,
                 REL_MAX_RANK, t->text);
        return -1;
    }
    return (int)t->dims[0];
}

/* A tensor of rank dims, all "?". */
static const graft_type *all_any(RelCtx *c, const char *dtype, int rank)
{
    Shape s = {rank, {0}};
    for (int i = 0; i < rank; i++)
        s.dims[i] = DIM_ANY;
    return rel_make(c, dtype, &s);
}

/* ReshapeRel (DynamicReshape): newshape's length dims. */
static const graft_type *reshape(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    int n = data ? shape_operand_len(c, 1, "newshape") : -1;
    return n < 0 ? NULL : all_any(c, data->dtype, n);
}

/* BroadCastToRel (DynamicBroadCastTo): the target shape's length dims. */
static const graft_type *broadcast_to(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    int n = data ? shape_operand_len(c, 1, "shape") : -1;
    return n < 0 ? NULL : all_any(c, data->dtype, n);
}

/* InitOpRel (DynamicInitOp): zeros and ones in the dtype attribute (none
 * given leaves the type unknown: TVM's void dtype). */
static const graft_type *init_op(RelCtx *c)
{
    int n = shape_operand_len(c, 0, "shape");
    const char *dtype = rel_dtype(c, "dtype", NULL);
    return n < 0 || !dtype ? NULL : all_any(c, dtype, n);
}

/* FullRel (DynamicFull): a scalar fill value, its dtype unless dtype. */
static const graft_type *full(RelCtx *c)
{
    const graft_type *fill = rel_tensor(c, 0);
    if (fill && fill->rank != 0)
        return rel_fail(c, "the fill value must be a scalar (got %s)", fill->text);
    int n = fill ? shape_operand_len(c, 1, "shape") : -1;
    return n < 0 ? NULL : all_any(c, rel_dtype(c, "dtype", fill->dtype), n);
}

/* TileRel (DynamicTile): max(rank, reps' length) dims. */
static const graft_type *tile(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    int n = data ? shape_operand_len(c, 1, "reps") : -1;
    return n < 0 ? NULL : all_any(c, data->dtype, n > data->rank ? n : data->rank);
}

/* OneHotRel (DynOneHot): the indices' shape with a "?" depth at axis. */
static const graft_type *one_hot(RelCtx *c)
{
    const graft_type *ind = rel_tensor(c, 0);
    if (!ind)
        return NULL;
    int axis = rel_axis(c, rel_int(c, "axis", -1), ind->rank + 1);
    if (axis < 0 || ind->rank + 1 > REL_MAX_RANK)
        return axis < 0 ? NULL : rel_fail(c, "rank above %d", REL_MAX_RANK);
    Shape s = {0, {0}};
    for (int i = 0; i <= ind->rank; i++)
        s.dims[s.rank++] = i == axis ? DIM_ANY : ind->dims[i - (i > axis)];
    return rel_make(c, rel_dtype(c, "dtype", "int32"), &s);
}

/* StridedSliceRel (DynStridedSlice): the data's rank, every dim "?". */
static const graft_type *strided_slice(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? all_any(c, data->dtype, data->rank) : NULL;
}

/* ExpandDimsRel (dyn): rank + num_newaxis dims, the axis a scalar. */
static const graft_type *expand_dims(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *axis = data ? rel_tensor(c, 1) : NULL;
    if (!axis)
        return NULL;
    if (axis->rank != 0)
        return rel_fail(c, "axis must be a scalar (got %s)", axis->text);
    int64_t rank = data->rank + rel_int(c, "num_newaxis", 1);
    if (rank < data->rank || rank > REL_MAX_RANK)
        return rel_fail(c, "num_newaxis %lld out of range",
                        (long long)rel_int(c, "num_newaxis", 1));
    return all_any(c, data->dtype, (int)rank);
}

/* DynSqueezeRel: the data's rank less the axes' static length. */
static const graft_type *squeeze(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    int n = data ? shape_operand_len(c, 1, "axis") : -1;
    if (n < 0)
        return NULL;
    if (n > data->rank)
        return rel_fail(c, "%d axes to squeeze from rank %d", n, data->rank);
    return all_any(c, data->dtype, data->rank - n);
}

/* TopKRel (dyn): k a scalar or of shape (1); the axis dim "?". */
static const graft_type *topk(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *k = data ? rel_tensor(c, 1) : NULL;
    if (!k)
        return NULL;
    if (k->rank > 1 || (k->rank == 1 && k->dims[0] != 1))
        return rel_fail(c, "k must be a scalar or of shape (1) (got %s)", k->text);
    int axis = rel_axis(c, rel_int(c, "axis", -1), data->rank);
    Shape s;
    if (axis < 0 || !rel_shape(c, data, &s))
        return NULL;
    s.dims[axis] = DIM_ANY;
    return rel_topk_result(c, data->dtype, &s);
}

/* Where a layout keeps H and W (Resize2DRel and UpSamplingRel convert it
 * to NCHW and back): false for a layout of another rank or without both. */
static bool hw_at(RelCtx *c, const graft_type *data, const char *dflt, int *h, int *w)
{
    const char *layout = rel_str(c, "layout", dflt);
    const char *ph = strchr(layout, 'H'), *pw = strchr(layout, 'W');
    if ((int)strlen(layout) != data->rank || !ph || !pw) {
        rel_fail(c, "layout \"%s\" does not fit %s", layout, data->text);
        return false;
    }
    *h = (int)(ph - layout);
    *w = (int)(pw - layout);
    return true;
}

/* Resize2DRel (dyn) and UpSamplingRel (dyn): H and W become "?". */
static const graft_type *resize_hw(RelCtx *c, const char *dtype)
{
    const graft_type *data = c->in[0];
    int h, w;
    Shape s;
    if (!hw_at(c, data, "NCHW", &h, &w) || !rel_shape(c, data, &s))
        return NULL;
    s.dims[h] = s.dims[w] = DIM_ANY;
    return rel_make(c, dtype, &s);
}

static const graft_type *resize2d(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? resize_hw(c, rel_dtype(c, "out_dtype", data->dtype)) : NULL;
}

static const graft_type *upsampling(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? resize_hw(c, data->dtype) : NULL;
}

/* PadRel (dyn): pad_width (rank, 2); every dim "?". */
static const graft_type *pad(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *width = data ? rel_tensor(c, 1) : NULL;
    if (!width || !rel_tensor(c, 2))
        return NULL;
    if (width->rank != 2)
        return rel_fail(c, "pad width must be 2-D (got %s)", width->text);
    return all_any(c, data->dtype, data->rank);
}

const TypeRel type_rels_dyn[] = {
    {"dyn.reshape", reshape, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"dyn.broadcast_to", broadcast_to, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"dyn.zeros", init_op, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"dyn.ones", init_op, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"dyn.full", full, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"dyn.tile", tile, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"dyn.one_hot", one_hot, TYPE_OUTPUTS_TENSOR, 4, 0},
    {"dyn.strided_slice", strided_slice, TYPE_OUTPUTS_TENSOR, 4, 0},
    {"dyn.expand_dims", expand_dims, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"dyn.squeeze", squeeze, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"dyn.topk", topk, TYPE_OUTPUTS_VARIES, 2, 0},
    {"dyn.image.resize2d", resize2d, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"dyn.nn.pad", pad, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"dyn.nn.upsampling", upsampling, TYPE_OUTPUTS_TENSOR, 3, 0},
    {NULL, NULL, 0, 0, 0},
};
