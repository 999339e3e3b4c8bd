/* type_rel_misc.c - relations of the image ops (tvm/src/relay/op/image/),
 * vision.roi_align (tvm/src/relay/op/vision/rcnn_op.cc), sorting
 * (tvm/src/relay/op/algorithm/) and the qnn ops (tvm/src/relay/qnn/op/), which
 * type as their float counterparts with the quantized dtypes. */
#include "type_rel.h"

#include <string.h>

#include "type_infer.h"

/* Where the spatial dims of a plain layout sit: H and W (or just W, or D,
 * H and W); false for other layouts. */
static bool spatial_at(const char *layout, int nsp, int rank, int *at)
{
    if ((int)strlen(layout) != rank || rank != nsp + 2 || !strchr(layout, 'N') ||
        !strchr(layout, 'C'))
        return false;
    const char *letters = "DHW" + (3 - nsp);
    for (int i = 0; i < nsp; i++) {
        const char *p = strchr(layout, letters[i]);
        if (!p)
            return false;
        at[i] = (int)(p - layout);
    }
    return true;
}

/* Resize1DRel, Resize2DRel, Resize3DRel: the spatial dims become size. */
static const graft_type *resize(RelCtx *c, int nsp, const char *dflt_layout)
{
    const graft_type *data = rel_tensor(c, 0);
    int64_t size[3];
    int at[3];
    int n = data ? rel_ints(c, "size", size, nsp) : -1;
    if (n < 0 || !spatial_at(rel_str(c, "layout", dflt_layout), nsp, data->rank, at))
        return NULL;
    if (n != nsp)
        return rel_fail(c, "size has %d values (expected %d)", n, nsp);
    Shape s;
    if (!rel_shape(c, data, &s))
        return NULL;
    for (int i = 0; i < nsp; i++)
        s.dims[at[i]] = size[i];
    return rel_make(c, rel_dtype(c, "out_dtype", data->dtype), &s);
}

static const graft_type *resize1d(RelCtx *c) { return resize(c, 1, "NCW"); }
static const graft_type *resize2d(RelCtx *c) { return resize(c, 2, "NCHW"); }
static const graft_type *resize3d(RelCtx *c) { return resize(c, 3, "NCDHW"); }

/* (count, C, h, w) in NCHW, or (count, h, w, C) in NHWC: crops and ROI
 * pools.  size is the attribute of the output's spatial dims. */
static const graft_type *per_box(RelCtx *c, int64_t count, const char *size_attr,
                           const char *dtype)
{
    const graft_type *data = c->in[0];
    const char *layout = rel_str(c, "layout", "NCHW");
    int64_t size[2];
    int at[2];
    int n = rel_ints(c, size_attr, size, 2);
    if (n < 0 || !spatial_at(layout, 2, data->rank, at))
        return NULL;
    if (n == 1)
        size[1] = size[0];
    else if (n != 2)
        return rel_fail(c, "%s has %d values (expected 2)", size_attr, n);
    Shape s = {4, {0}};
    s.dims[strchr(layout, 'N') - layout] = count;
    s.dims[strchr(layout, 'C') - layout] = data->dims[strchr(layout, 'C') - layout];
    s.dims[at[0]] = size[0];
    s.dims[at[1]] = size[1];
    return rel_make(c, dtype, &s);
}

/* CropAndResizeRel: one crop per box. */
static const graft_type *crop_and_resize(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *boxes = data ? rel_tensor(c, 1) : NULL;
    if (!boxes || boxes->rank != 2)
        return boxes ? rel_fail(c, "boxes must be (N, 4) (got %s)", boxes->text) : NULL;
    return per_box(c, boxes->dims[0], "crop_size", rel_dtype(c, "out_dtype", data->dtype));
}

/* ROIAlignRel, ROIPoolRel: one pooled map per ROI. */
static const graft_type *roi_pool(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *rois = data ? rel_tensor(c, 1) : NULL;
    if (!rois || rois->rank != 2)
        return rois ? rel_fail(c, "rois must be (N, 5) (got %s)", rois->text) : NULL;
    return per_box(c, rois->dims[0], "pooled_size", data->dtype);
}

/* GridSampleRel (2-D): the grid's (N, 2, H, W) gives the output's H, W. */
static const graft_type *grid_sample(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0), *grid = data ? rel_tensor(c, 1) : NULL;
    if (!grid || data->rank != 4 || grid->rank != 4 ||
        strcmp(rel_str(c, "layout", "NCHW"), "NCHW") != 0)
        return NULL;
    Shape s = {4, {data->dims[0], data->dims[1], grid->dims[2], grid->dims[3]}};
    return rel_make(c, data->dtype, &s);
}

/* ArgsortRel: the data's shape, the indices' dtype. */
static const graft_type *argsort(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? graph_type_tensor(c->g, rel_dtype(c, "dtype", "int32"), data->dims,
                                    data->rank)
                : NULL;
}

static const graft_type *identity(RelCtx *c)
{
    return rel_tensor(c, 0);
}

/* TopKRel: k along axis (k < 1 keeps the whole dim); ret_type "both" is
 * (values, indices). */
static const graft_type *topk(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    if (!data || !rel_has(c, "k"))
        return NULL;
    int axis = rel_axis(c, rel_int(c, "axis", -1), data->rank);
    Shape s;
    if (axis < 0 || !rel_shape(c, data, &s))
        return NULL;
    int64_t k = rel_int(c, "k", 1);
    if (k >= 1)
        s.dims[axis] = k;
    return rel_topk_result(c, data->dtype, &s);
}

const graft_type *rel_topk_result(RelCtx *c, const char *dtype, const Shape *s)
{
    const graft_type *values = rel_make(c, dtype, s);
    const graft_type *indices = rel_make(c, rel_dtype(c, "dtype", "int32"), s);
    const char *ret = rel_str(c, "ret_type", "both");
    if (strcmp(ret, "values") == 0)
        return values;
    if (strcmp(ret, "indices") == 0)
        return indices;
    if (strcmp(ret, "both") != 0)
        return rel_fail(c, "unsupported ret_type \"%s\"", ret);
    const graft_type *fields[2] = {values, indices};
    return graph_type_tuple(c->g, fields, 2);
}

/* The data's shape in another dtype (QuantizeRel, DequantizeRel,
 * RequantizeRel). */
static const graft_type *requant(RelCtx *c, const char *dflt)
{
    const graft_type *data = rel_tensor(c, 0);
    return data ? graph_type_tensor(c->g, rel_dtype(c, "out_dtype", dflt), data->dims,
                                    data->rank)
                : NULL;
}

static const graft_type *quantize(RelCtx *c) { return requant(c, "int8"); }
static const graft_type *dequantize(RelCtx *c) { return requant(c, "float32"); }

/* QnnConv2DRel, QnnDenseRel: the float relation, accumulating in int32
 * unless out_dtype says otherwise. */
static const graft_type *with_int32(RelCtx *c, const graft_type *t)
{
    if (!t || *rel_str(c, "out_dtype", ""))
        return t;
    return graph_type_tensor(c->g, "int32", t->dims, t->rank);
}

static const graft_type *qnn_conv2d(RelCtx *c) { return with_int32(c, rel_conv2d(c)); }
static const graft_type *qnn_dense(RelCtx *c) { return with_int32(c, rel_dense(c)); }

const TypeRel type_rels_misc[] = {
    {"image.resize1d", resize1d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"image.resize2d", resize2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"image.resize3d", resize3d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"image.crop_and_resize", crop_and_resize, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"image.grid_sample", grid_sample, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"vision.roi_align", roi_pool, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"vision.roi_pool", roi_pool, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"sort", identity, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"argsort", argsort, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"topk", topk, TYPE_OUTPUTS_VARIES, 1, 0},
    {"qnn.quantize", quantize, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"qnn.dequantize", dequantize, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"qnn.requantize", quantize, TYPE_OUTPUTS_TENSOR, 5, 0},
    {"qnn.conv2d", qnn_conv2d, TYPE_OUTPUTS_TENSOR, 6, 0},
    {"qnn.dense", qnn_dense, TYPE_OUTPUTS_TENSOR, 6, 0},
    {"qnn.add", rel_broadcast, TYPE_OUTPUTS_TENSOR, 8, 0},
    {"qnn.subtract", rel_broadcast, TYPE_OUTPUTS_TENSOR, 8, 0},
    {"qnn.mul", rel_broadcast, TYPE_OUTPUTS_TENSOR, 8, 0},
    {"qnn.concatenate", rel_concatenate, TYPE_OUTPUTS_TENSOR, 5, 3},
    {NULL, NULL, 0, 0, 0},
};
