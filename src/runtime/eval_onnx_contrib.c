/* eval_onnx_contrib.c - ONNX Runtime's com.microsoft contrib ops that the
 * ONNX fusion library makes (stdpatterns/onnx/contrib_ops.graft), written
 * from ONNX Runtime's operator documentation (docs/ContribOperators.md)
 * and checked on the values of its tests (tests/check_onnx_contrib.c):
 * Gelu, FastGelu, BiasGelu, FusedMatMul, FusedGemm, FusedConv,
 * BiasSoftmax, SkipLayerNormalization, SimplifiedLayerNormalization and
 * SkipSimplifiedLayerNormalization.  They are evaluated independently of
 * the rules that make them, so that graft verify checks those rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

static double gelu(double x)
{
    return 0.5 * x * (1 + erf(x / sqrt(2.0)));
}

/* The tanh approximation, with the constants ONNX Runtime's kernel uses
 * (contrib_ops/cpu/bert/fast_gelu.cc: sqrt(2 / pi) and 0.044715). */
static double fast_gelu(double x)
{
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* y = f(x + bias), bias (optional) broadcast as numpy does. */
static bool unary_bias(EvalCall *c, double (*f)(double), bool bias_required)
{
    const Tensor *x = eval_nargs_first(c, bias_required ? 2 : 1, 2);
    const Tensor *b = x ? eval_opt_arg(c, 1) : NULL;
    if (!x || c->err->status != EVAL_OK)
        return false;
    int rank = x->rank;
    int64_t dims[EVAL_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    if (b && !eval_broadcast(c, x, b, &rank, dims))
        return false;
    Tensor *y = eval_result(c, x->dtype, rank, dims);
    for (size_t i = 0; y && i < y->size; i++) {
        double v = x->data[eval_bcast_index(x, rank, dims, i)];
        y->data[i] = f(b ? v + b->data[eval_bcast_index(b, rank, dims, i)] : v);
    }
    return y != NULL;
}

static bool op_gelu(EvalCall *c)
{
    return unary_bias(c, gelu, false);
}

static bool op_bias_gelu(EvalCall *c)
{
    return unary_bias(c, gelu, true);
}

static bool op_fast_gelu(EvalCall *c)
{
    return unary_bias(c, fast_gelu, false);
}

/* t with its last two dims swapped, a new tensor in *out. */
static void swap_last(const Tensor *t, Tensor *out)
{
    *out = tensor_copy(t);
    if (t->rank < 2)
        return;
    int64_t m = t->dims[t->rank - 2], n = t->dims[t->rank - 1];
    out->dims[t->rank - 2] = n;
    out->dims[t->rank - 1] = m;
    size_t plane = (size_t)(m * n);
    for (size_t base = 0; plane && base < t->size; base += plane)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                out->data[base + (size_t)(j * m + i)] = t->data[base + (size_t)(i * n + j)];
}

/* FusedMatMul(A, B, alpha, transA, transB): alpha * op(A) @ op(B), op
 * swapping the last two dims when trans is set, as MatMul otherwise
 * (numpy.matmul's broadcasting).  transBatchA and transBatchB, which move
 * the batch dims, are refused. */
static bool op_fused_matmul(EvalCall *c)
{
    const Tensor *a = eval_nargs_first(c, 2, 2);
    const Tensor *b = a ? eval_arg(c, 1) : NULL;
    if (!b)
        return false;
    if (eval_attr_int(c, "transBatchA", 0) || eval_attr_int(c, "transBatchB", 0))
        return eval_fail(c, "transBatchA and transBatchB are not evaluated");
    Value args[2] = {{.nfields = -1}, {.nfields = -1}};
    if (eval_attr_int(c, "transA", 0) && a->rank >= 2)
        swap_last(a, &args[0].t);
    else
        args[0].t = tensor_copy(a);
    if (eval_attr_int(c, "transB", 0) && b->rank >= 2)
        swap_last(b, &args[1].t);
    else
        args[1].t = tensor_copy(b);
    bool ok = eval_call_as(c, "MatMul", args, 2);
    double alpha = eval_attr_float(c, "alpha", 1.0);
    for (size_t i = 0; ok && i < c->out->t.size; i++)
        c->out->t.data[i] *= alpha;
    value_free(&args[0]);
    value_free(&args[1]);
    return ok;
}

/* The activation a Fused op names (activation="Relu", ...), its
 * parameters p (activation_params of FusedConv; activation_alpha, _beta
 * of FusedGemm), applied to y in place; false after failing for one ONNX
 * Runtime's MLAS activations do not have. */
static bool activate(EvalCall *c, Tensor *y, const char *act, const double *p)
{
    for (size_t i = 0; i < y->size; i++) {
        double v = y->data[i];
        if (strcmp(act, "Relu") == 0)
            v = v > 0 ? v : 0 * v;
        else if (strcmp(act, "Sigmoid") == 0)
            v = 1 / (1 + exp(-v));
        else if (strcmp(act, "Tanh") == 0)
            v = tanh(v);
        else if (strcmp(act, "LeakyRelu") == 0)
            v = v >= 0 ? v : p[0] * v;
        else if (strcmp(act, "Clip") == 0)
            v = v < p[0] ? p[0] : v > p[1] ? p[1] : v;
        else if (strcmp(act, "HardSigmoid") == 0)
            v = fmax(0, fmin(1, p[0] * v + p[1]));
        else if (act[0])
            return eval_fail(c, "unknown activation '%s'", act);
        y->data[i] = v;
    }
    return true;
}

/* FusedGemm(A, B, C): Gemm's result (its attributes alpha, beta, transA,
 * transB), then the activation (activation_alpha, activation_beta; the
 * defaults of LeakyRelu's 0.01 and HardSigmoid's 0.2, 0.5 when absent). */
static bool op_fused_gemm(EvalCall *c)
{
    if (!eval_call_as(c, "Gemm", c->args, c->nargs))
        return false;
    const char *act = eval_attr_str(c, "activation", "");
    bool leaky = strcmp(act, "LeakyRelu") == 0;
    double p[2] = {eval_attr_float(c, "activation_alpha", leaky ? 0.01 : 0.2),
                   eval_attr_float(c, "activation_beta", 0.5)};
    return activate(c, &c->out->t, act, p);
}

/* FusedConv(X, W, B, Z): Conv's result (its attributes), plus Z when
 * given (a residual of the result's shape), then the activation with
 * activation_params (Clip's min and max; LeakyRelu's alpha; HardSigmoid's
 * alpha and beta). */
static bool op_fused_conv(EvalCall *c)
{
    const Tensor *z = c->nargs > 3 ? eval_opt_arg(c, 3) : NULL;
    if (c->err->status != EVAL_OK || !eval_call_as(c, "Conv", c->args, c->nargs < 3 ? c->nargs : 3))
        return false;
    Tensor *y = &c->out->t;
    if (z && z->size != y->size)
        return eval_fail(c, "Z has %zu elements, the result %zu", z->size, y->size);
    for (size_t i = 0; z && i < y->size; i++)
        y->data[i] += z->data[i];
    double p[2] = {0, 0};
    const graft_attr_value *params = node_find_attr(c->node, "activation_params");
    for (int i = 0; params && params->kind == GRAFT_ATTR_LIST && i < params->nitems && i < 2; i++)
        p[i] = params->items[i]->kind == GRAFT_ATTR_INT ? (double)params->items[i]->i
                                                        : params->items[i]->f;
    return activate(c, y, eval_attr_str(c, "activation", ""), p);
}

/* BiasSoftmax(data, bias, axis): Softmax of data + bias along axis, the
 * bias broadcast to data's shape (numpy's rules cover both of ONNX
 * Runtime's forms, is_inner_broadcast 0 and 1, where the bias has 1 in the
 * dims it broadcasts along). */
static bool op_bias_softmax(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *b = x ? eval_arg(c, 1) : NULL;
    if (!b)
        return false;
    int rank;
    int64_t dims[EVAL_MAX_RANK];
    if (!eval_broadcast(c, x, b, &rank, dims))
        return false;
    if (rank != x->rank || memcmp(dims, x->dims, (size_t)rank * sizeof *dims) != 0)
        return eval_fail(c, "the bias broadcasts data to another shape");
    int axis = eval_attr_axis(c, 1, rank); /* (BiasSoftmax's default axis is 1) */
    Tensor *y = axis >= 0 ? eval_result(c, x->dtype, rank, dims) : NULL;
    if (!y)
        return false;
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(rank, dims, strides);
    int64_t n = dims[axis], inner = strides[axis];
    for (size_t i = 0; i < y->size; i++)
        y->data[i] = x->data[i] + b->data[eval_bcast_index(b, rank, dims, i)];
    for (size_t base = 0; n && base < y->size; base++) {
        if ((int64_t)base / inner % n != 0)
            continue;
        double *row = y->data + base, max = -INFINITY, sum = 0;
        for (int64_t j = 0; j < n; j++)
            max = fmax(max, row[j * inner]);
        for (int64_t j = 0; j < n; j++)
            sum += exp(row[j * inner] - max);
        for (int64_t j = 0; j < n; j++)
            row[j * inner] = exp(row[j * inner] - max) / sum;
    }
    return true;
}

/* The sum input + skip (+ bias) of the Skip ops, in *sum (same shape,
 * bias one-dimensional along the last axis); false after failing. */
static bool skip_sum(EvalCall *c, const Tensor *x, const Tensor *skip, const Tensor *bias,
                     Tensor *sum)
{
    if (skip->size != x->size || x->rank < 1)
        return eval_fail(c, "input and skip have %zu and %zu elements", x->size, skip->size);
    int64_t hidden = x->dims[x->rank - 1];
    if (bias && (int64_t)bias->size != hidden)
        return eval_fail(c, "bias has %zu elements, the hidden size is %lld", bias->size,
                         (long long)hidden);
    *sum = tensor_copy(x);
    for (size_t i = 0; i < x->size; i++)
        sum->data[i] += skip->data[i] + (bias ? bias->data[i % (size_t)hidden] : 0);
    return true;
}

/* Normalises each row of hidden values of s into y: by its mean and
 * standard deviation (LayerNorm), or by its root mean square (simplified),
 * times gamma, plus beta; the mean and the inverse standard deviation of
 * each row into mean and inv when given. */
static void normalize_rows(const Tensor *s, Tensor *y, const Tensor *gamma, const Tensor *beta,
                           double eps, bool simplified, Tensor *mean, Tensor *inv)
{
    int64_t hidden = s->dims[s->rank - 1];
    for (size_t r = 0; hidden && r < s->size / (size_t)hidden; r++) {
        const double *in = s->data + r * (size_t)hidden;
        double mu = 0, var = 0;
        for (int64_t j = 0; j < hidden && !simplified; j++)
            mu += in[j] / (double)hidden;
        for (int64_t j = 0; j < hidden; j++)
            var += (in[j] - mu) * (in[j] - mu) / (double)hidden;
        double k = 1 / sqrt(var + eps);
        for (int64_t j = 0; j < hidden; j++)
            y->data[r * (size_t)hidden + (size_t)j] =
                (in[j] - mu) * k * gamma->data[j % (int64_t)gamma->size] +
                (beta ? beta->data[j % (int64_t)beta->size] : 0);
        if (mean)
            mean->data[r] = mu;
        if (inv)
            inv->data[r] = k;
    }
}

/* The outputs of a normalisation: Y (x's shape), then up to three more:
 * mean and inverse standard deviation (x's shape with the last dim 1, in
 * float32 as ONNX Runtime's CPU kernels make them) and, for the Skip ops,
 * the sum (x's shape).  y[0..3] are NULL for those not asked for. */
static bool norm_outputs(EvalCall *c, const Tensor *x, int n, Tensor **y)
{
    int64_t dims[EVAL_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[x->rank - 1] = 1;
    if (n == 1)
        return (y[0] = eval_result(c, x->dtype, x->rank, x->dims)) != NULL;
    if (!eval_tuple_result(c, n))
        return false;
    for (int k = 0; k < n && k < 4; k++)
        if (!(y[k] = eval_field(c, k, k == 1 || k == 2 ? "float32" : x->dtype, x->rank,
                                k == 1 || k == 2 ? dims : x->dims)))
            return false;
    return true;
}

/* SkipLayerNormalization(input, skip, gamma, beta, bias, epsilon) and
 * SkipSimplifiedLayerNormalization(input, skip, gamma, bias, epsilon):
 * LayerNorm (or RMS normalisation) of input + skip + bias along the last
 * axis; outputs Y, mean, inv_std_var, input_skip_bias_sum. */
static bool op_skip_norm(EvalCall *c)
{
    bool simplified = strcmp(c->op, "SkipSimplifiedLayerNormalization") == 0;
    const Tensor *x = eval_nargs_first(c, 3, simplified ? 4 : 5);
    const Tensor *skip = x ? eval_arg(c, 1) : NULL, *gamma = skip ? eval_arg(c, 2) : NULL;
    const Tensor *beta = gamma && !simplified ? eval_opt_arg(c, 3) : NULL;
    const Tensor *bias = gamma ? eval_opt_arg(c, simplified ? 3 : 4) : NULL;
    Tensor sum = {0}, *y[4] = {NULL, NULL, NULL, NULL};
    int n = eval_noutputs(c);
    if (!gamma || c->err->status != EVAL_OK || !skip_sum(c, x, skip, bias, &sum))
        return false;
    bool ok = norm_outputs(c, x, n, y);
    if (ok)
        normalize_rows(&sum, y[0], gamma, beta, eval_attr_float(c, "epsilon", 1e-12), simplified,
                       y[1], y[2]);
    if (ok && y[3])
        memcpy(y[3]->data, sum.data, sum.size * sizeof *sum.data);
    tensor_free(&sum);
    return ok;
}

/* SimplifiedLayerNormalization(X, scale, axis=-1, epsilon=1e-5): RMS
 * normalisation along the last axis (the one ONNX Runtime's fusion
 * makes; another axis is refused); outputs Y and inv_std_var. */
static bool op_simplified_norm(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *scale = x ? eval_arg(c, 1) : NULL;
    int axis = scale ? eval_attr_axis(c, -1, x->rank) : -1;
    if (axis < 0)
        return false;
    if (axis != x->rank - 1)
        return eval_fail(c, "axis %d is not the last", axis);
    Tensor *y[4] = {NULL, NULL, NULL, NULL};
    int n = eval_noutputs(c);
    if (!norm_outputs(c, x, n, y))
        return false;
    normalize_rows(x, y[0], scale, NULL, eval_attr_float(c, "epsilon", 1e-5), true, NULL,
                   n > 1 ? y[1] : NULL);
    return true;
}

const EvalOpDef eval_onnx_contrib_ops[] = {
    {"Gelu", op_gelu},
    {"BiasGelu", op_bias_gelu},
    {"FastGelu", op_fast_gelu},
    {"FusedMatMul", op_fused_matmul},
    {"FusedGemm", op_fused_gemm},
    {"FusedConv", op_fused_conv},
    {"BiasSoftmax", op_bias_softmax},
    {"SkipLayerNormalization", op_skip_norm},
    {"SkipSimplifiedLayerNormalization", op_skip_norm},
    {"SimplifiedLayerNormalization", op_simplified_norm},
    {NULL, NULL},
};
