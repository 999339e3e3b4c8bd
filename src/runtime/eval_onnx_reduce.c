/* eval_onnx_reduce.c - ONNX's reductions: ReduceSum (axes an input, opset
 * 13), ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
 * ReduceLogSum, ReduceLogSumExp, ReduceSumSquare (axes an attribute,
 * opset 13), keepdims=1 and noop_with_empty_axes=0; ArgMax and ArgMin
 * (onnx/defs/reduction/defs.cc). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

/* The reduced axes: operand 1 or the attribute axes; none given reduces
 * every axis, or none with noop_with_empty_axes. */
static bool onnx_reduce_axes(EvalCall *c, int rank, bool *reduced)
{
    int64_t axes[EVAL_MAX_RANK];
    int n = eval_arg_ints(c, 1, axes, EVAL_MAX_RANK);
    if (n == -1)
        n = eval_attr_ints(c, "axes", axes, EVAL_MAX_RANK);
    if (n == -2)
        return false;
    bool none = n <= 0, noop = eval_attr_int(c, "noop_with_empty_axes", 0) != 0;
    for (int i = 0; i < rank; i++)
        reduced[i] = none && !noop;
    for (int k = 0; k < n; k++) {
        int a = eval_axis(c, axes[k], rank);
        if (a < 0)
            return false;
        reduced[a] = true;
    }
    return true;
}

/* The result shape: reduced axes dropped, or kept as 1 (keepdims=1). */
static Tensor *onnx_reduce_result(EvalCall *c, const Tensor *x, const bool *reduced,
                                  const char *dtype)
{
    bool keepdims = eval_attr_int(c, "keepdims", 1) != 0;
    int64_t dims[EVAL_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < x->rank; i++)
        if (!reduced[i] || keepdims)
            dims[rank++] = reduced[i] ? 1 : x->dims[i];
    return eval_result(c, dtype, rank, dims);
}

typedef enum {
    R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LOGSUMEXP, R_SUMSQ
} RKind;

static const char *const reduce_names[] = {
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
    "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};

/* v folded into acc by kind. */
static double fold(RKind kind, double acc, double v)
{
    switch (kind) {
    case R_MAX: return v > acc || isnan(v) ? v : acc;
    case R_MIN: return v < acc || isnan(v) ? v : acc;
    case R_PROD: return acc * v;
    case R_L1: return acc + fabs(v);
    case R_L2:
    case R_SUMSQ: return acc + v * v;
    case R_LOGSUMEXP: return acc + exp(v);
    default: return acc + v;
    }
}

static bool op_reduce(EvalCall *c)
{
    RKind kind = R_SUM;
    while (strcmp(reduce_names[kind], c->op) != 0)
        kind++;
    const Tensor *x = eval_nargs_first(c, 1, 2);
    bool reduced[EVAL_MAX_RANK];
    Tensor *r = x && onnx_reduce_axes(c, x->rank, reduced)
                    ? onnx_reduce_result(c, x, reduced, x->dtype)
                    : NULL;
    if (!r)
        return false;
    double init = kind == R_MAX ? -INFINITY : kind == R_MIN ? INFINITY : kind == R_PROD;
    for (size_t i = 0; i < r->size; i++)
        r->data[i] = init;
    for (size_t i = 0; i < x->size; i++) {
        double *acc = &r->data[eval_reduce_index(x, reduced, i)];
        *acc = fold(kind, *acc, x->data[i]);
    }
    size_t count = r->size ? x->size / r->size : 0;
    for (size_t i = 0; i < r->size; i++) {
        double v = r->data[i];
        r->data[i] = kind == R_MEAN ? v / (double)count
                     : kind == R_L2 ? sqrt(v)
                     : kind == R_LOGSUM || kind == R_LOGSUMEXP ? log(v) : v;
    }
    return true;
}

/* ArgMax, ArgMin(x, axis=0, keepdims=1, select_last_index=0): int64
 * indices along axis; ties go to the first (or last) index. */
static bool op_arg(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int axis = x ? eval_attr_axis(c, 0, x->rank) : -1;
    bool reduced[EVAL_MAX_RANK] = {false};
    if (axis < 0)
        return false;
    reduced[axis] = true;
    Tensor *r = onnx_reduce_result(c, x, reduced, "int64");
    if (!r)
        return false;
    bool is_max = strcmp(c->op, "ArgMax") == 0, last = eval_attr_int(c, "select_last_index", 0);
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    double *best = xcalloc(r->size + 1, sizeof *best);
    for (size_t i = 0; i < x->size; i++) {
        size_t o = eval_reduce_index(x, reduced, i);
        double k = (double)((int64_t)i / strides[axis] % x->dims[axis]), v = x->data[i];
        bool better = k == 0 || (is_max ? v > best[o] : v < best[o]) || (last && v == best[o]);
        if (better) {
            best[o] = v;
            r->data[o] = k;
        }
    }
    free(best);
    return true;
}

const EvalOpDef eval_onnx_reduce_ops[] = {
    {"ReduceSum", op_reduce},       {"ReduceMean", op_reduce},   {"ReduceMax", op_reduce},
    {"ReduceMin", op_reduce},       {"ReduceProd", op_reduce},   {"ReduceL1", op_reduce},
    {"ReduceL2", op_reduce},        {"ReduceLogSum", op_reduce}, {"ReduceLogSumExp", op_reduce},
    {"ReduceSumSquare", op_reduce}, {"ArgMax", op_arg},          {"ArgMin", op_arg},
    {NULL, NULL},
};
