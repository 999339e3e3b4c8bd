/* eval_onnx_nn.c - ONNX's normalisations and matrix products:
 * BatchNormalization (inference, and training_mode's batch statistics,
 * opset 15), LayerNormalization (opset 17), InstanceNormalization, Gemm
 * and MatMul (numpy's matmul) (onnx/defs/nn/defs.cc, math/defs.cc); the
 * products through the layers' kernel_matmul, each sum in the plain
 * loop's order (note [kernel order] in eval_kernels.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"
#include "eval_kernels.h"

/* Mean and population variance of each channel of x (axis 1), over the
 * batch and spatial dims, into mean[] and var[]. */
static void channel_stats(const Tensor *x, double *mean, double *var)
{
    int64_t ch = x->dims[1], inner = 1;
    for (int i = 2; i < x->rank; i++)
        inner *= x->dims[i];
    double n = (double)x->size / (double)ch;
    for (size_t i = 0; i < x->size; i++)
        mean[(int64_t)i / inner % ch] += x->data[i] / n;
    for (size_t i = 0; i < x->size; i++) {
        double d = x->data[i] - mean[(int64_t)i / inner % ch];
        var[(int64_t)i / inner % ch] += d * d / n;
    }
}

/* The outputs of BatchNormalization in training mode: Y, then the
 * running mean and variance (momentum weighs the inputs' statistics). */
static bool batch_norm_training(EvalCall *c, const Tensor *x, const Tensor *const *p,
                                double *mean, double *var, Tensor **y)
{
    int n = eval_noutputs(c);
    double momentum = eval_attr_float(c, "momentum", 0.9);
    int64_t ch = x->dims[1];
    channel_stats(x, mean, var);
    if (n == 1)
        return (*y = eval_result(c, x->dtype, x->rank, x->dims)) != NULL;
    if (!eval_tuple_result(c, n) || !(*y = eval_field(c, 0, x->dtype, x->rank, x->dims)))
        return false;
    for (int k = 1; k < n && k < 3; k++) {
        Tensor *run = eval_field(c, k, x->dtype, 1, &ch);
        if (!run)
            return false;
        for (int64_t i = 0; i < ch; i++)
            run->data[i] = p[2 + k]->data[i] * momentum + (k == 1 ? mean : var)[i] * (1 - momentum);
    }
    return true;
}

/* BatchNormalization(X, scale, B, mean, var, epsilon=1e-5): along axis 1. */
static bool op_batch_norm(EvalCall *c)
{
    const Tensor *p[5] = {NULL};
    for (int i = 0; i < 5; i++)
        if (!eval_nargs(c, 5, 5) || !(p[i] = eval_arg(c, i)))
            return false;
    const Tensor *x = p[0];
    int64_t ch = x->rank > 1 ? x->dims[1] : 0;
    for (int i = 1; i < 5; i++)
        if (p[i]->size != (size_t)ch || ch == 0)
            return eval_fail(c, "operand %d does not have one value per channel", i + 1);
    bool training = eval_attr_int(c, "training_mode", 0) != 0;
    double *mean = xcalloc((size_t)ch * 2, sizeof *mean), *var = mean + ch;
    Tensor *y = NULL;
    bool ok = training ? batch_norm_training(c, x, p, mean, var, &y)
                       : (y = eval_result(c, x->dtype, x->rank, x->dims)) != NULL;
    if (ok && !training)
        for (int64_t i = 0; i < ch; i++) {
            mean[i] = p[3]->data[i];
            var[i] = p[4]->data[i];
        }
    double eps = eval_attr_float(c, "epsilon", 1e-5);
    int64_t inner = ch ? (int64_t)x->size / x->dims[0] / ch : 0;
    for (size_t i = 0; ok && i < x->size; i++) {
        int64_t k = (int64_t)i / inner % ch;
        y->data[i] = p[1]->data[k] * (x->data[i] - mean[k]) / sqrt(var[k] + eps) + p[2]->data[k];
    }
    free(mean);
    return ok;
}

/* LayerNormalization(X, Scale, B, axis=-1, epsilon=1e-5): each row of the
 * dims from axis on normalised; Mean and InvStdDev as optional outputs,
 * shaped as X with those dims 1. */
static bool op_layer_norm(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 3);
    const Tensor *scale = x ? eval_arg(c, 1) : NULL, *bias = scale ? eval_opt_arg(c, 2) : NULL;
    int axis = scale && c->err->status == EVAL_OK ? eval_attr_axis(c, -1, x->rank) : -1;
    if (axis < 0)
        return false;
    int n = eval_noutputs(c);
    int64_t dims[EVAL_MAX_RANK], row = 1;
    for (int i = 0; i < x->rank; i++) {
        dims[i] = i < axis ? x->dims[i] : 1;
        row *= i < axis ? 1 : x->dims[i];
    }
    Tensor *y, *stats[2] = {NULL, NULL};
    if (n == 1)
        y = eval_result(c, x->dtype, x->rank, x->dims);
    else if (!eval_tuple_result(c, n) || !(y = eval_field(c, 0, x->dtype, x->rank, x->dims)))
        return false;
    for (int k = 1; k < n && k < 3; k++)
        if (!(stats[k - 1] = eval_field(c, k, "float32", x->rank, dims)))
            return false;
    double eps = eval_attr_float(c, "epsilon", 1e-5);
    for (size_t r = 0; y && row && r < x->size / (size_t)row; r++) {
        const double *in = x->data + r * (size_t)row;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < row; j++)
            mean += in[j] / (double)row;
        for (int64_t j = 0; j < row; j++)
            var += (in[j] - mean) * (in[j] - mean) / (double)row;
        double inv = 1 / sqrt(var + eps);
        for (int64_t j = 0; j < row; j++)
            y->data[r * (size_t)row + (size_t)j] =
                (in[j] - mean) * inv * scale->data[j % (int64_t)scale->size] +
                (bias ? bias->data[j % (int64_t)bias->size] : 0);
        if (stats[0])
            stats[0]->data[r] = mean;
        if (stats[1])
            stats[1]->data[r] = inv;
    }
    return y != NULL;
}

/* InstanceNormalization(x, scale, B, epsilon=1e-5): each (n, c) plane. */
static bool op_instance_norm(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 3, 3);
    const Tensor *scale = x ? eval_arg(c, 1) : NULL, *bias = scale ? eval_arg(c, 2) : NULL;
    if (!bias)
        return false;
    if (x->rank < 3 || scale->size != (size_t)x->dims[1] || bias->size != scale->size)
        return eval_fail(c, "scale and B need one value per channel of an N, C, D... input");
    Tensor *y = eval_result(c, x->dtype, x->rank, x->dims);
    size_t plane = x->size / (size_t)(x->dims[0] * x->dims[1]);
    double eps = eval_attr_float(c, "epsilon", 1e-5);
    for (size_t p = 0; y && plane && p < x->size / plane; p++) {
        const double *in = x->data + p * plane;
        double mean = 0, var = 0;
        for (size_t j = 0; j < plane; j++)
            mean += in[j] / (double)plane;
        for (size_t j = 0; j < plane; j++)
            var += (in[j] - mean) * (in[j] - mean) / (double)plane;
        size_t ch = p % (size_t)x->dims[1];
        for (size_t j = 0; j < plane; j++)
            y->data[p * plane + j] =
                scale->data[ch] * (in[j] - mean) / sqrt(var + eps) + bias->data[ch];
    }
    return y != NULL;
}

/* LRN(X, size, alpha=1e-4, beta=0.75, bias=1): each element divided by
 * (bias + alpha / size * the sum of squares over the size channels around
 * it)^beta; the window runs floor((size-1)/2) channels back and
 * ceil((size-1)/2) on. */
static bool op_lrn(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int64_t size = eval_attr_int(c, "size", 0);
    if (!x)
        return false;
    if (x->rank < 3 || size <= 0)
        return eval_fail(c, "wants N, C, D... and a size above 0");
    Tensor *y = eval_result(c, x->dtype, x->rank, x->dims);
    double alpha = eval_attr_float(c, "alpha", 1e-4), beta = eval_attr_float(c, "beta", 0.75);
    double bias = eval_attr_float(c, "bias", 1.0);
    int64_t ch = x->dims[1], inner = (int64_t)x->size / x->dims[0] / (ch ? ch : 1);
    for (size_t i = 0; y && ch && i < x->size; i++) {
        int64_t k = (int64_t)i / inner % ch;
        double sum = 0;
        for (int64_t j = k - (size - 1) / 2; j <= k + size / 2; j++)
            if (j >= 0 && j < ch) {
                double v = x->data[(int64_t)i + (j - k) * inner];
                sum += v * v;
            }
        y->data[i] = x->data[i] / pow(bias + alpha / (double)size * sum, beta);
    }
    return y != NULL;
}

/* MeanVarianceNormalization(X, axes=[0, 2, 3]): (X - mean) / (sqrt(var)
 * + 1e-9), mean and var over axes (the schema's function body). */
static bool op_mvn(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int64_t axes[EVAL_MAX_RANK] = {0, 2, 3};
    int n = x ? eval_attr_ints(c, "axes", axes, EVAL_MAX_RANK) : -2;
    bool reduced[EVAL_MAX_RANK] = {false};
    n = n == -1 ? 3 : n;
    for (int i = 0; i < n; i++) {
        int a = eval_axis(c, axes[i], x->rank);
        if (a < 0)
            return false;
        reduced[a] = true;
    }
    Tensor *y = n >= 0 ? eval_result(c, x->dtype, x->rank, x->dims) : NULL;
    if (!y)
        return false;
    double *mean = xcalloc(x->size * 2 + 1, sizeof *mean), *sq = mean + x->size, count = 1;
    for (int i = 0; i < x->rank; i++)
        count *= reduced[i] ? (double)x->dims[i] : 1;
    for (size_t i = 0; i < x->size; i++) {
        size_t o = eval_reduce_index(x, reduced, i);
        mean[o] += x->data[i] / count;
        sq[o] += x->data[i] * x->data[i] / count;
    }
    for (size_t i = 0; i < x->size; i++) {
        size_t o = eval_reduce_index(x, reduced, i);
        y->data[i] = (x->data[i] - mean[o]) / (sqrt(sq[o] - mean[o] * mean[o]) + 1e-9);
    }
    free(mean);
    return true;
}

/* Whether t broadcasts one way to (m, n), as Gemm's C must (a C that
 * does not would be read past its end). */
static bool broadcasts_to(const Tensor *t, int64_t m, int64_t n)
{
    const int64_t want[2] = {m, n};
    for (int i = 0; i < t->rank; i++) {
        int64_t d = t->dims[t->rank - 1 - i];
        if (i >= 2 || (d != 1 && d != want[1 - i]))
            return false;
    }
    return true;
}

/* Gemm(A, B, C, alpha=1, beta=1, transA=0, transB=0): alpha A'B' + beta C,
 * C broadcast to (M, N). */
static bool op_gemm(EvalCall *c)
{
    const Tensor *a = eval_nargs_first(c, 2, 3);
    const Tensor *b = a ? eval_arg(c, 1) : NULL, *cc = b ? eval_opt_arg(c, 2) : NULL;
    if (!b || c->err->status != EVAL_OK)
        return false;
    bool ta = eval_attr_int(c, "transA", 0), tb = eval_attr_int(c, "transB", 0);
    if (a->rank != 2 || b->rank != 2)
        return eval_fail(c, "A and B must be matrices");
    int64_t m = a->dims[ta], k = a->dims[!ta], n = b->dims[!tb];
    if (b->dims[tb] != k)
        return eval_fail(c, "inner dims %lld and %lld differ", (long long)k,
                         (long long)b->dims[tb]);
    if (cc && !broadcasts_to(cc, m, n))
        return eval_fail(c, "C does not broadcast to (%lld, %lld)", (long long)m, (long long)n);
    int64_t dims[2] = {m, n};
    Tensor *y = eval_result(c, a->dtype, 2, dims);
    if (!y)
        return false;
    double alpha = eval_attr_float(c, "alpha", 1.0), beta = eval_attr_float(c, "beta", 1.0);
    KernelMat am = ta ? (KernelMat){a->data, 1, m} : (KernelMat){a->data, k, 1};
    KernelMat bm = tb ? (KernelMat){b->data, 1, k} : (KernelMat){b->data, n, 1};
    kernel_matmul(am, bm, y->data, m, k, n); /* A'B', then alpha and beta C */
    for (size_t i = 0; i < y->size; i++) {
        double add = cc ? cc->data[eval_bcast_index(cc, 2, dims, i)] : 0;
        y->data[i] = alpha * y->data[i] + beta * add;
    }
    return true;
}

/* MatMul(a, b) as numpy.matmul: 1-D operands made matrices (and the dim
 * dropped after), batch dims broadcast. */
static bool op_matmul(EvalCall *c)
{
    const Tensor *a0 = eval_nargs_first(c, 2, 2);
    const Tensor *b0 = a0 ? eval_arg(c, 1) : NULL;
    if (!b0)
        return false;
    if (a0->rank == 0 || b0->rank == 0)
        return eval_fail(c, "scalar operands");
    Tensor a = *a0, b = *b0; /* views: shapes changed, data shared */
    if (a.rank == 1)
        a = (Tensor){.rank = 2, .dims = {1, a0->dims[0]}, .size = a0->size, .data = a0->data};
    if (b.rank == 1)
        b = (Tensor){.rank = 2, .dims = {b0->dims[0], 1}, .size = b0->size, .data = b0->data};
    int64_t m = a.dims[a.rank - 2], k = a.dims[a.rank - 1], n = b.dims[b.rank - 1];
    if (b.dims[b.rank - 2] != k)
        return eval_fail(c, "inner dims %lld and %lld differ", (long long)k,
                         (long long)b.dims[b.rank - 2]);
    Tensor ab = a, bb = b; /* the batch dims alone, and their count (eval_bcast_index
                              reads it: a (64, 192) b is one matrix, whatever a's batch) */
    ab.rank -= 2;
    bb.rank -= 2;
    ab.size = m > 0 && k > 0 ? a.size / (size_t)(m * k) : 0;
    bb.size = k > 0 && n > 0 ? b.size / (size_t)(k * n) : 0;
    int rank;
    int64_t dims[EVAL_MAX_RANK * 2];
    if (!eval_broadcast(c, &ab, &bb, &rank, dims))
        return false;
    size_t batch = 1;
    for (int i = 0; i < rank; i++)
        batch *= (size_t)dims[i];
    int out_rank = rank;
    if (a0->rank > 1)
        dims[out_rank++] = m;
    if (b0->rank > 1)
        dims[out_rank++] = n;
    Tensor *y = eval_result(c, a0->dtype, out_rank, dims);
    for (size_t s = 0; y && s < batch; s++) {
        const double *pa = a.data + eval_bcast_index(&ab, rank, dims, s) * (size_t)(m * k);
        const double *pb = b.data + eval_bcast_index(&bb, rank, dims, s) * (size_t)(k * n);
        kernel_matmul((KernelMat){pa, k, 1}, (KernelMat){pb, n, 1},
                      y->data + s * (size_t)(m * n), m, k, n);
    }
    return y != NULL;
}

const EvalOpDef eval_onnx_nn_ops[] = {
    {"BatchNormalization", op_batch_norm},
    {"LayerNormalization", op_layer_norm},
    {"InstanceNormalization", op_instance_norm},
    {"LRN", op_lrn},
    {"MeanVarianceNormalization", op_mvn},
    {"Gemm", op_gemm},
    {"MatMul", op_matmul},
    {NULL, NULL},
};
