/* eval_onnx.c - evaluator kernels of ONNX's ops (note [onnx op hooks] in
 * src/onnx/onnx_infer.h), by the semantics of onnx/defs: ops that mean
 * what a Relay op without attributes means run that op's kernel; the
 * rest are here.  An optional input a node leaves out is an empty tuple
 * (note [absent inputs] in src/onnx/onnx_infer.h). */
#include <math.h>
#include <string.h>

#include "eval_impl.h"

/* ONNX ops with the meaning of a Relay op that has no attributes. */
static const struct {
    const char *onnx, *relay;
} same_as_relay[] = {
    {"Add", "add"},   {"Sub", "subtract"}, {"Mul", "multiply"}, {"Div", "divide"},
    {"Pow", "power"}, {"Sqrt", "sqrt"},    {"Relu", "nn.relu"}, {"Erf", "erf"},
    {"Identity", "copy"}, {"Neg", "negative"},
};

static bool op_as_relay(EvalCall *c)
{
    for (size_t i = 0; i < ARRAY_LEN(same_as_relay); i++)
        if (strcmp(same_as_relay[i].onnx, c->op) == 0) {
            EvalCall r = *c;
            r.op = same_as_relay[i].relay;
            return eval_find_op(r.op)(&r);
        }
    return eval_fail(c, "no kernel");
}

/* Whether optional input i is given (not left out, not past the end). */
static bool given(const EvalCall *c, int i)
{
    return i < c->nargs && c->args[i].nfields != 0;
}

/* Clip(input, min?, max?): min and max are scalars; absent, no bound. */
static bool op_clip(EvalCall *c)
{
    const Tensor *x = eval_nargs(c, 1, 3) ? eval_arg(c, 0) : NULL;
    const Tensor *lo = x && given(c, 1) ? eval_arg(c, 1) : NULL;
    const Tensor *hi = x && given(c, 2) ? eval_arg(c, 2) : NULL;
    if (!x || (given(c, 1) && !lo) || (given(c, 2) && !hi))
        return false;
    if ((lo && lo->size != 1) || (hi && hi->size != 1))
        return eval_fail(c, "min and max must be scalars");
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    if (!r)
        return false;
    double a = lo ? lo->data[0] : -INFINITY, b = hi ? hi->data[0] : INFINITY;
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = x->data[i] < a ? a : x->data[i] > b ? b : x->data[i];
    return true;
}

/* Checks BatchNormalization's [C] operands against X's channels. */
static bool bn_operands(EvalCall *c, const Tensor *x, const Tensor *const *p)
{
    for (int k = 0; k < 4; k++)
        if (!p[k] || p[k]->rank != 1 || p[k]->dims[0] != x->dims[1])
            return p[k] ? eval_fail(c, "input %d must have shape [%lld]", k + 2,
                                    (long long)x->dims[1])
                        : false;
    return true;
}

/* BatchNormalization in inference mode (training_mode=0): Y = scale *
 * (X - mean) / sqrt(var + epsilon) + B, per channel (dim 1); one result,
 * read by element (note [several results] in graph.h). */
static bool op_batch_norm(EvalCall *c)
{
    const Tensor *x = eval_nargs(c, 5, 5) ? eval_arg(c, 0) : NULL;
    if (!x)
        return false;
    if (x->rank < 2)
        return eval_fail(c, "X must have rank 2 or more");
    if (eval_attr_int(c, "training_mode", 0) != 0)
        return eval_fail(c, "training_mode=1 is not evaluated");
    const Tensor *p[4];
    for (int k = 0; k < 4; k++)
        p[k] = eval_arg(c, k + 1);
    if (!bn_operands(c, x, p) || !eval_tuple_result(c, 1))
        return false;
    Tensor *y = eval_field(c, 0, x->dtype, x->rank, x->dims);
    if (!y)
        return false;
    double eps = eval_attr_float(c, "epsilon", 1e-05);
    size_t inner = 1;
    for (int d = 2; d < x->rank; d++)
        inner *= (size_t)x->dims[d];
    for (size_t i = 0; i < x->size; i++) {
        size_t ch = i / inner % (size_t)x->dims[1];
        y->data[i] = p[0]->data[ch] * (x->data[i] - p[2]->data[ch]) /
                         sqrt(p[3]->data[ch] + eps) + p[1]->data[ch];
    }
    return true;
}

const EvalOpDef eval_onnx_ops[] = {
    {"Add", op_as_relay},      {"Sub", op_as_relay},  {"Mul", op_as_relay},
    {"Div", op_as_relay},      {"Pow", op_as_relay},  {"Sqrt", op_as_relay},
    {"Relu", op_as_relay},     {"Erf", op_as_relay},  {"Identity", op_as_relay},
    {"Neg", op_as_relay},
    {"Clip", op_clip},         {"BatchNormalization", op_batch_norm},
    {NULL, NULL},
};
