/* eval_onnx_act.c - ONNX's activations: the element-wise ones with their
 * attributes' defaults, PRelu, Clip, and Softmax, LogSoftmax and Hardmax
 * along one axis (opset 13's form; onnx/defs/math/defs.cc). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

typedef double (*ActFn)(double x, const EvalCall *c);

static double f_relu(double x, const EvalCall *c)
{
    (void)c;
    return x > 0 ? x : 0 * x;
}

static double f_leaky(double x, const EvalCall *c)
{
    return x >= 0 ? x : x * eval_attr_float(c, "alpha", 0.01);
}

static double f_elu(double x, const EvalCall *c)
{
    return x >= 0 ? x : eval_attr_float(c, "alpha", 1.0) * expm1(x);
}

/* Selu's defaults are float32 constants, as the schema writes them. */
static double f_selu(double x, const EvalCall *c)
{
    double alpha = eval_attr_float(c, "alpha", 1.67326319217681884765625);
    double gamma = eval_attr_float(c, "gamma", 1.05070102214813232421875);
    return gamma * (x > 0 ? x : alpha * expm1(x));
}

static double f_celu(double x, const EvalCall *c)
{
    double alpha = eval_attr_float(c, "alpha", 1.0);
    return fmax(0, x) + fmin(0, alpha * expm1(x / alpha));
}

static double f_sigmoid(double x, const EvalCall *c)
{
    (void)c;
    return 1 / (1 + exp(-x));
}

static double f_hard_sigmoid(double x, const EvalCall *c)
{
    double y = eval_attr_float(c, "alpha", 0.2) * x + eval_attr_float(c, "beta", 0.5);
    return fmax(0, fmin(1, y));
}

static double f_hard_swish(double x, const EvalCall *c)
{
    (void)c;
    return x * fmax(0, fmin(1, x / 6 + 0.5));
}

static double f_softplus(double x, const EvalCall *c)
{
    (void)c;
    return log1p(exp(x));
}

static double f_softsign(double x, const EvalCall *c)
{
    (void)c;
    return x / (1 + fabs(x));
}

static double f_thresholded(double x, const EvalCall *c)
{
    return x > eval_attr_float(c, "alpha", 1.0) ? x : 0;
}

static double f_shrink(double x, const EvalCall *c)
{
    double lambd = eval_attr_float(c, "lambd", 0.5), bias = eval_attr_float(c, "bias", 0);
    return x < -lambd ? x + bias : x > lambd ? x - bias : 0;
}

static const struct {
    const char *op;
    ActFn fn;
} act_fns[] = {
    {"Relu", f_relu},         {"LeakyRelu", f_leaky},         {"Elu", f_elu},
    {"Selu", f_selu},         {"Celu", f_celu},               {"Sigmoid", f_sigmoid},
    {"HardSigmoid", f_hard_sigmoid}, {"HardSwish", f_hard_swish}, {"Softplus", f_softplus},
    {"Softsign", f_softsign}, {"ThresholdedRelu", f_thresholded}, {"Shrink", f_shrink},
};

static bool op_act(EvalCall *c)
{
    size_t k = 0;
    while (strcmp(act_fns[k].op, c->op) != 0)
        k++;
    const Tensor *x = eval_nargs_first(c, 1, 1);
    Tensor *r = x ? eval_result(c, x->dtype, x->rank, x->dims) : NULL;
    if (!r)
        return false;
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = act_fns[k].fn(x->data[i], c);
    return true;
}

/* PRelu(x, slope): slope broadcasts to x (unidirectionally). */
static bool op_prelu(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *slope = x ? eval_arg(c, 1) : NULL;
    Tensor *r = slope ? eval_broadcast_result(c, x, slope, x->dtype) : NULL;
    if (!r)
        return false;
    for (size_t i = 0; i < r->size; i++) {
        double v = x->data[eval_bcast_index(x, r->rank, r->dims, i)];
        r->data[i] = v >= 0 ? v : v * slope->data[eval_bcast_index(slope, r->rank, r->dims, i)];
    }
    return true;
}

/* Clip(x, min, max): bounds as optional scalar inputs (opset 11 on), or
 * as attributes min and max (opset 6). */
static bool op_clip(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 3);
    if (!x)
        return false;
    double lo = eval_attr_float(c, "min", -INFINITY), hi = eval_attr_float(c, "max", INFINITY);
    for (int i = 1; i < 3; i++) {
        const Tensor *b = eval_opt_arg(c, i);
        if (!b && i < c->nargs && c->args[i].nfields > 0)
            return false;
        if (b && b->size != 1)
            return eval_fail(c, "operand %d: wants a scalar bound", i + 1);
        if (b)
            *(i == 1 ? &lo : &hi) = b->data[0];
    }
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    if (!r)
        return false;
    for (size_t i = 0; i < x->size; i++) { /* the lower bound, then the upper: with min >
                                             max every value is max, as ONNX Runtime's
                                             cwiseMax(min).cwiseMin(max) and the reference's
                                             np.clip give */
        double v = x->data[i] < lo ? lo : x->data[i];
        r->data[i] = v > hi ? hi : v;
    }
    return true;
}

/* Softmax, LogSoftmax, Hardmax along axis (default -1). */
static bool op_softmax(EvalCall *c)
{
    EvalSoftmaxKind kind = c->op[0] == 'S' ? EVAL_SOFTMAX :
                           c->op[0] == 'L' ? EVAL_LOG_SOFTMAX : EVAL_HARDMAX;
    return eval_softmax(c, kind);
}

const EvalOpDef eval_onnx_act_ops[] = {
    {"Relu", op_act},        {"LeakyRelu", op_act},   {"Elu", op_act},
    {"Selu", op_act},        {"Celu", op_act},        {"Sigmoid", op_act},
    {"HardSigmoid", op_act}, {"HardSwish", op_act},   {"Softplus", op_act},
    {"Softsign", op_act},    {"ThresholdedRelu", op_act}, {"Shrink", op_act},
    {"PRelu", op_prelu},     {"Clip", op_clip},       {"Softmax", op_softmax},
    {"LogSoftmax", op_softmax}, {"Hardmax", op_softmax},
    {NULL, NULL},
};
