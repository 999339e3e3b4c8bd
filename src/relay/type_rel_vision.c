/* type_rel_vision.c - relations of the detection ops TVM's importers emit
 * for SSD, Faster/Mask R-CNN, RetinaNet and YOLO models: anchors
 * (tvm/src/relay/op/vision/multibox_op.cc), non-maximum suppression
 * (vision/nms.cc), region proposals (vision/rcnn_op.cc) and YOLO's reorg
 * (vision/yolo.cc).  Each ICHECK of TVM's relation is a contradiction
 * here; vision.roi_align and vision.roi_pool are in type_rel_misc.c. */
#include "type_rel.h"

#include <string.h>

#include "dim_symbol.h"
#include "type_infer.h"

/* Operand i as a tensor of rank want; NULL after reporting otherwise. */
static const graft_type *ranked(RelCtx *c, int i, int want, const char *what)
{
    const graft_type *t = rel_tensor(c, i);
    if (t && t->rank != want)
        return rel_fail(c, "%s must be %d-D (got %s)", what, want, t->text);
    return t;
}

/* The length of a list attribute, dflt when absent (sizes=[1f, 0.5f]). */
static int list_len(const RelCtx *c, const char *name, int dflt)
{
    const graft_attr_value *v = rel_attr(c, name);
    if (!v || v->kind == GRAFT_ATTR_NULL)
        return dflt;
    return v->kind == GRAFT_ATTR_LIST ? v->nitems : 1;
}

/* Whether two dims may be equal (a "?" may be anything), as TVM's
 * reporter->AssertEQ, which defers what it cannot decide: a symbol is
 * only itself (note [dims may be equal] in src/ir/dim_symbol.h). */
static bool dims_agree(int64_t a, int64_t b)
{
    return dims_may_be_equal(a, b, DIM_SYMBOL_ITSELF);
}

static const graft_type *tensor(RelCtx *c, const char *dtype, int rank, const int64_t *dims)
{
    return graph_type_tensor(c->g, dtype, dims, rank);
}

/* MultiboxPriorRel: (1, H * W * (sizes + ratios - 1), 4) anchors. */
static const graft_type *multibox_prior(RelCtx *c)
{
    const graft_type *data = ranked(c, 0, 4, "data");
    if (!data)
        return NULL;
    int64_t per_pixel = list_len(c, "sizes", 1) + list_len(c, "ratios", 1) - 1;
    int64_t dims[3] = {1, dim_mul(dim_mul(data->dims[2], data->dims[3]), per_pixel), 4};
    return tensor(c, data->dtype, 3, dims);
}

/* MultiBoxTransformLocRel: (cls_prob (N, classes, anchors), loc_pred
 * (N, anchors * 4), anchor (1, anchors, 4)) -> ((N, anchors, 6),
 * valid counts (N) int32). */
static const graft_type *multibox_transform_loc(RelCtx *c)
{
    const graft_type *cls = ranked(c, 0, 3, "class probabilities");
    const graft_type *loc = cls ? ranked(c, 1, 2, "location predictions") : NULL;
    const graft_type *anchor = loc ? ranked(c, 2, 3, "anchors") : NULL;
    if (!anchor)
        return NULL;
    if (!dims_agree(cls->dims[2], anchor->dims[1]))
        return rel_fail(c, "%lld anchors in the class probabilities, %lld in the anchors",
                        (long long)cls->dims[2], (long long)anchor->dims[1]);
    if (!dims_agree(dim_mul(cls->dims[2], 4), loc->dims[1]))
        return rel_fail(c, "location predictions %s do not have 4 values per anchor",
                        loc->text);
    if (!dims_agree(anchor->dims[2], 4))
        return rel_fail(c, "anchors %s do not have 4 coordinates", anchor->text);
    int64_t boxes[3] = {cls->dims[0], anchor->dims[1], 6};
    const graft_type *fields[2] = {tensor(c, cls->dtype, 3, boxes),
                                   tensor(c, "int32", 1, cls->dims)};
    return graph_type_tuple(c->g, fields, 2);
}

/* GetValidCountRel: data (N, M, K) -> (valid counts (N) int32, the boxes
 * moved to the top, their indices (N, M) int32). */
static const graft_type *get_valid_counts(RelCtx *c)
{
    const graft_type *data = ranked(c, 0, 3, "data");
    if (!data)
        return NULL;
    const graft_type *fields[3] = {tensor(c, "int32", 1, data->dims), data,
                             tensor(c, "int32", 2, data->dims)};
    return graph_type_tuple(c->g, fields, 3);
}

/* NMSRel: data (N, M, K), valid_count (N); with return_indices (the
 * default) (indices (N, M) int32, counts (N, 1) int32), else the boxes. */
static const graft_type *non_max_suppression(RelCtx *c)
{
    const graft_type *data = ranked(c, 0, 3, "data");
    if (!data || !ranked(c, 1, 1, "the valid count"))
        return NULL;
    if (!rel_bool(c, "return_indices", true))
        return data;
    int64_t counts[2] = {data->dims[0], 1};
    const graft_type *fields[2] = {tensor(c, "int32", 2, data->dims),
                                   tensor(c, "int32", 2, counts)};
    return graph_type_tuple(c->g, fields, 2);
}

/* AllClassNMSRel: boxes (B, boxes, 4), scores (B, classes, boxes).  ONNX's
 * format: (selected (B * classes * boxes, 3) int64, count (1) int64);
 * TensorFlow's: (indices (B, classes * boxes, 2) int64, scores float32,
 * counts (B) int64).  A "?" batch or box count makes the total "?". */
static const graft_type *all_class_nms(RelCtx *c)
{
    const graft_type *boxes = ranked(c, 0, 3, "boxes");
    const graft_type *scores = boxes ? ranked(c, 1, 3, "scores") : NULL;
    if (!scores)
        return NULL;
    int64_t batch = boxes->dims[0], nboxes = boxes->dims[1], classes = scores->dims[1];
    if (strcmp(rel_str(c, "output_format", "onnx"), "onnx") == 0) {
        int64_t selected[2] = {dim_mul(dim_mul(batch, classes), nboxes), 3}, one = 1;
        const graft_type *fields[2] = {tensor(c, "int64", 2, selected),
                                       tensor(c, "int64", 1, &one)};
        return graph_type_tuple(c->g, fields, 2);
    }
    int64_t indices[3] = {batch, dim_mul(classes, nboxes), 2};
    const graft_type *fields[3] = {tensor(c, "int64", 3, indices), tensor(c, "float32", 2, indices),
                             tensor(c, "int64", 1, &batch)};
    return graph_type_tuple(c->g, fields, 3);
}

/* ProposalRel: (batch * rpn_post_nms_top_n, 5) boxes in cls_prob's dtype. */
static const graft_type *proposal(RelCtx *c)
{
    const graft_type *cls = rel_tensor(c, 0);
    if (!cls || !rel_tensor(c, 1) || !rel_tensor(c, 2))
        return NULL;
    if (cls->rank < 1)
        return rel_fail(c, "class probabilities must have a batch dim (got %s)", cls->text);
    int64_t dims[2] = {dim_mul(cls->dims[0], rel_int(c, "rpn_post_nms_top_n", 300)), 5};
    return tensor(c, cls->dtype, 2, dims);
}

/* YoloReorgRel: NCHW; C * stride^2 channels, H / stride, W / stride. */
static const graft_type *yolo_reorg(RelCtx *c)
{
    const graft_type *data = ranked(c, 0, 4, "data");
    if (!data)
        return NULL;
    int64_t stride = rel_int(c, "stride", 1);
    if (stride < 1)
        return rel_fail(c, "stride %lld is not positive", (long long)stride);
    int64_t dims[4] = {data->dims[0], dim_mul(data->dims[1], stride * stride),
                       dim_div(data->dims[2], stride), dim_div(data->dims[3], stride)};
    return tensor(c, data->dtype, 4, dims);
}

const TypeRel type_rels_vision[] = {
    {"vision.multibox_prior", multibox_prior, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"vision.multibox_transform_loc", multibox_transform_loc, 2, 3, 0},
    {"vision.get_valid_counts", get_valid_counts, 3, 2, 0},
    {"vision.non_max_suppression", non_max_suppression, TYPE_OUTPUTS_VARIES, 5, 0},
    {"vision.all_class_non_max_suppression", all_class_nms, TYPE_OUTPUTS_VARIES, 5, 0},
    {"vision.proposal", proposal, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"vision.yolo_reorg", yolo_reorg, TYPE_OUTPUTS_TENSOR, 1, 0},
    {NULL, NULL, 0, 0, 0},
};
