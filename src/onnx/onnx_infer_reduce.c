/* onnx_infer_reduce.c - type relations of ONNX's reductions
 * (onnx/defs/reduction/defs.cc, opset 13): ReduceSum with its axes as an
 * input, the other Reduce ops with an attribute axes, keepdims=1 and
 * noop_with_empty_axes=0; ArgMax and ArgMin (axis=0, int64 indices). */
#include "onnx_infer.h"

#include <string.h>

/* The axes to reduce into axes: ArgMax's and ArgMin's one axis, the
 * constant input axes, or the attribute; -1 when none are given, -2 when
 * the input is not a constant (unknown), -3 after failing. */
static int reduce_axes(OnnxInferCtx *c, int64_t *axes)
{
    if (strncmp(c->op, "Arg", 3) == 0) {
        axes[0] = onnx_int(c, "axis", 0);
        return 1;
    }
    if (c->nin > 1 && c->in[1]) {
        int n = onnx_const_ints(c, 1, axes, ONNX_MAX_RANK);
        return n >= 0 ? n : -2;
    }
    int n = onnx_ints(c, "axes", axes, ONNX_MAX_RANK);
    return n == -2 ? -3 : n;
}

static const graft_type *reduce(OnnxInferCtx *c)
{
    const graft_type *x = onnx_input(c, 0);
    int64_t axes[ONNX_MAX_RANK];
    int n = x ? reduce_axes(c, axes) : -3;
    if (n < -1 || x->rank > ONNX_MAX_RANK)
        return n < -1 ? NULL : onnx_fail(c, "rank %d above %d", x->rank, ONNX_MAX_RANK);
    bool reduced[ONNX_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        int a = onnx_axis(c, axes[i], x->rank);
        if (a < 0)
            return NULL;
        reduced[a] = true;
    }
    bool keep = onnx_int(c, "keepdims", 1) != 0;
    bool all = n <= 0 && onnx_int(c, "noop_with_empty_axes", 0) == 0; /* no axes: every one */
    OnnxShape s = {.rank = 0};
    for (int i = 0; i < x->rank; i++) {
        bool r = all || reduced[i];
        if (!r || keep)
            s.dims[s.rank++] = r ? 1 : x->dims[i];
    }
    return onnx_make(c, strncmp(c->op, "Arg", 3) == 0 ? "int64" : x->dtype, &s);
}

const OnnxOpDef onnx_ops_reduce[] = {
    {"ReduceSum", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceMean", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceMax", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceMin", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceProd", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceL1", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceL2", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceLogSum", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceLogSumExp", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ReduceSumSquare", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ArgMax", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {"ArgMin", NULL, reduce, ONNX_ONE_OUTPUT, 1},
    {NULL, NULL, NULL, 0, 0},
};
