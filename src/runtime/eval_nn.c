/* eval_nn.c - the layers: nn.conv2d (NCHW/OIHW and NHWC/HWIO, strides,
 * padding, dilation, groups), nn.dense, nn.matmul, nn.batch_matmul,
 * nn.bias_add and 2-d pooling (max, avg, global, adaptive). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"
#include "eval_kernels.h"

/* Padding as TVM spells it: [p] all sides, [h, w], or [top, left,
 * bottom, right]; into pad[4] = top, left, bottom, right. */
static bool padding4(EvalCall *c, int64_t *pad)
{
    int64_t p[4] = {0, 0, 0, 0};
    int n = eval_attr_ints(c, "padding", p, 4);
    if (n == -2)
        return false;
    if (n == 1)
        p[1] = p[2] = p[3] = p[0];
    else if (n == 2) {
        p[2] = p[0];
        p[3] = p[1];
    } else if (n == 3)
        return eval_fail(c, "padding of 3 items");
    memcpy(pad, p, sizeof p);
    return true;
}

/* A pair attribute (strides, dilation, pool_size): [a, b] or [a]. */
static bool pair(EvalCall *c, const char *name, int64_t dflt, int64_t *out)
{
    int64_t v[2] = {dflt, dflt};
    int n = eval_attr_ints(c, name, v, 2);
    if (n == -2)
        return false;
    if (n == 1)
        v[1] = v[0];
    if (v[0] <= 0 || v[1] <= 0)
        return eval_fail(c, "%s must be positive", name);
    out[0] = v[0];
    out[1] = v[1];
    return true;
}

/* Where the four dims of a 2-d layout are: N, C, H, W of "NCHW"/"NHWC",
 * O, I, H, W of "OIHW"/"HWIO". */
static bool layout_axes(EvalCall *c, const char *layout, const char *letters, int *axes)
{
    if (strlen(layout) != 4)
        return eval_fail(c, "layout \"%s\" not evaluated", layout);
    for (int k = 0; k < 4; k++) {
        const char *at = strchr(layout, letters[k]);
        if (!at)
            return eval_fail(c, "layout \"%s\" not evaluated", layout);
        axes[k] = (int)(at - layout);
    }
    return true;
}

static double at4(const Tensor *t, const int *axes, int64_t a, int64_t b, int64_t h, int64_t w)
{
    int64_t idx[4];
    idx[axes[0]] = a;
    idx[axes[1]] = b;
    idx[axes[2]] = h;
    idx[axes[3]] = w;
    return t->data[((idx[0] * t->dims[1] + idx[1]) * t->dims[2] + idx[2]) * t->dims[3] + idx[3]];
}

static size_t off4(const Tensor *t, const int *axes, int64_t a, int64_t b, int64_t h, int64_t w)
{
    int64_t idx[4];
    idx[axes[0]] = a;
    idx[axes[1]] = b;
    idx[axes[2]] = h;
    idx[axes[3]] = w;
    return (size_t)(((idx[0] * t->dims[1] + idx[1]) * t->dims[2] + idx[2]) * t->dims[3] + idx[3]);
}

typedef struct ConvGeom {
    int xa[4], wa[4];          /* axes of N C H W in x, O I H W in w */
    int64_t n, cin, h, w;      /* input */
    int64_t cout, cpg, kh, kw; /* weights: out channels, in per group */
    int64_t groups, stride[2], dil[2], pad[4];
    int64_t oh, ow;
} ConvGeom;

/* As TVM's Conv2DRel: weights of the kernel_size and channels given. */
static bool weights_fit(EvalCall *c, const ConvGeom *g)
{
    int64_t ks[2];
    int n = eval_attr_ints(c, "kernel_size", ks, 2);
    if (n == -2)
        return false;
    if (n == 1)
        ks[1] = ks[0];
    if (n > 0 && (ks[0] != g->kh || ks[1] != g->kw))
        return eval_fail(c, "weights %lld x %lld, kernel_size [%lld, %lld]", (long long)g->kh,
                         (long long)g->kw, (long long)ks[0], (long long)ks[1]);
    int64_t channels = eval_attr_int(c, "channels", g->cout);
    if (channels != g->cout)
        return eval_fail(c, "weights for %lld output channels, channels=%lld",
                         (long long)g->cout, (long long)channels);
    return true;
}

static bool conv_geometry(EvalCall *c, const Tensor *x, const Tensor *wt, ConvGeom *g)
{
    const char *out_layout = eval_attr_str(c, "out_layout", "");
    if (x->rank != 4 || wt->rank != 4)
        return eval_fail(c, "data and weight must have 4 dims");
    if (!layout_axes(c, eval_attr_str(c, "data_layout", "NCHW"), "NCHW", g->xa) ||
        !layout_axes(c, eval_attr_str(c, "kernel_layout", "OIHW"), "OIHW", g->wa) ||
        !pair(c, "strides", 1, g->stride) || !pair(c, "dilation", 1, g->dil) ||
        !padding4(c, g->pad))
        return false;
    if (out_layout[0] && strcmp(out_layout, eval_attr_str(c, "data_layout", "NCHW")) != 0)
        return eval_fail(c, "out_layout \"%s\" not evaluated", out_layout);
    g->n = x->dims[g->xa[0]], g->cin = x->dims[g->xa[1]];
    g->h = x->dims[g->xa[2]], g->w = x->dims[g->xa[3]];
    g->cout = wt->dims[g->wa[0]], g->cpg = wt->dims[g->wa[1]];
    g->kh = wt->dims[g->wa[2]], g->kw = wt->dims[g->wa[3]];
    g->groups = eval_attr_int(c, "groups", 1);
    if (g->groups <= 0 || g->cin != g->cpg * g->groups || g->cout % g->groups != 0)
        return eval_fail(c, "%lld input channels, weights want %lld x %lld groups",
                         (long long)g->cin, (long long)g->cpg, (long long)g->groups);
    g->oh = (g->h + g->pad[0] + g->pad[2] - g->dil[0] * (g->kh - 1) - 1) / g->stride[0] + 1;
    g->ow = (g->w + g->pad[1] + g->pad[3] - g->dil[1] * (g->kw - 1) - 1) / g->stride[1] + 1;
    if (g->oh <= 0 || g->ow <= 0)
        return eval_fail(c, "kernel larger than the padded input");
    return weights_fit(c, g);
}

/* t's elements with its axes in the order axes names (N C H W of a
 * layout), contiguous, into dst. */
static void pack4(const Tensor *t, const int *axes, double *dst)
{
    int64_t d[4];
    for (int k = 0; k < 4; k++)
        d[k] = t->dims[axes[k]];
    size_t i = 0;
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++)
            for (int64_t h = 0; h < d[2]; h++)
                for (int64_t w = 0; w < d[3]; w++)
                    dst[i++] = at4(t, axes, a, b, h, w);
}

static bool is_nchw(const int *axes)
{
    return axes[0] == 0 && axes[1] == 1 && axes[2] == 2 && axes[3] == 3;
}

/* t's data in the order axes names: t's own when it is, else a copy in
 * *copy (freed by the caller). */
static const double *in_order(const Tensor *t, const int *axes, double **copy)
{
    *copy = NULL;
    if (is_nchw(axes))
        return t->data;
    *copy = xcalloc(t->size + 1, sizeof **copy);
    pack4(t, axes, *copy);
    return *copy;
}

/* Every image and group of the convolution, x NCHW and w OIHW, into
 * out NCHW (eval_kernels.c). */
static void conv_groups(const double *x, const double *w, double *out, const ConvGeom *g)
{
    int64_t cout = g->cout / g->groups;
    KernelConv k = {g->cpg, g->h, g->w, cout, g->kh, g->kw, {g->stride[0], g->stride[1]},
                    {g->dil[0], g->dil[1]}, {g->pad[0], g->pad[1]}, g->oh, g->ow};
    for (int64_t b = 0; b < g->n; b++)
        for (int64_t gr = 0; gr < g->groups; gr++)
            kernel_conv2d(x + (b * g->cin + gr * g->cpg) * g->h * g->w,
                          w + gr * cout * g->cpg * g->kh * g->kw,
                          out + (b * g->cout + gr * cout) * g->oh * g->ow, &k);
}

static bool op_conv2d(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *wt = x ? eval_arg(c, 1) : NULL;
    ConvGeom g;
    if (!wt || !conv_geometry(c, x, wt, &g))
        return false;
    int64_t dims[4];
    dims[g.xa[0]] = g.n, dims[g.xa[1]] = g.cout, dims[g.xa[2]] = g.oh, dims[g.xa[3]] = g.ow;
    Tensor *r = eval_result(c, x->dtype, 4, dims);
    if (!r)
        return false;
    double *x_copy, *w_copy;
    const double *xd = in_order(x, g.xa, &x_copy), *wd = in_order(wt, g.wa, &w_copy);
    double *out = is_nchw(g.xa) ? r->data : xcalloc(r->size + 1, sizeof *out);
    conv_groups(xd, wd, out, &g);
    if (out != r->data) { /* back into the data layout */
        size_t i = 0;
        for (int64_t b = 0; b < g.n; b++)
            for (int64_t o = 0; o < g.cout; o++)
                for (int64_t y = 0; y < g.oh; y++)
                    for (int64_t xx = 0; xx < g.ow; xx++)
                        r->data[off4(r, g.xa, b, o, y, xx)] = out[i++];
        free(out);
    }
    free(x_copy);
    free(w_copy);
    return true;
}

/* nn.dense(x, w): x (..., k) times w (units, k) transposed. */
static bool op_dense(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *w = x ? eval_arg(c, 1) : NULL;
    if (!w)
        return false;
    if (x->rank < 1 || w->rank != 2 || x->dims[x->rank - 1] != w->dims[1])
        return eval_fail(c, "data's last dim and weight (units, k) disagree");
    if (eval_attr_int(c, "units", w->dims[0]) != w->dims[0]) /* as TVM's DenseRel */
        return eval_fail(c, "weight of %lld units, units=%lld", (long long)w->dims[0],
                         (long long)eval_attr_int(c, "units", 0));
    int64_t dims[EVAL_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[x->rank - 1] = w->dims[0];
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    int64_t k = w->dims[1], units = w->dims[0];
    int64_t rows = k ? (int64_t)x->size / k : 0; /* k 0: the zeroed result is right */
    KernelMat xm = {x->data, k, 1}, wm = {w->data, 1, k}; /* w transposed: (k, units) */
    kernel_matmul(xm, wm, r->data, rows, k, units);
    return true;
}

/* The (rows, cols) operand at data, stored transposed (cols, rows) when
 * transposed. */
static KernelMat operand(const double *data, bool transposed, int64_t rows, int64_t cols)
{
    return transposed ? (KernelMat){data, 1, rows} : (KernelMat){data, cols, 1};
}

/* A batch of matrix products: a (batch, m, k) and b (batch, k, n), each
 * possibly transposed, batch 1 broadcast. */
static bool batch_product(EvalCall *c, const Tensor *a, const Tensor *b, bool ta, bool tb)
{
    int ra = a->rank, rb = b->rank;
    int64_t ba = ra == 3 ? a->dims[0] : 1, bb = rb == 3 ? b->dims[0] : 1;
    int64_t m = ta ? a->dims[ra - 1] : a->dims[ra - 2], k = ta ? a->dims[ra - 2] : a->dims[ra - 1];
    int64_t kb = tb ? b->dims[rb - 1] : b->dims[rb - 2], n = tb ? b->dims[rb - 2] : b->dims[rb - 1];
    if (k != kb || (ba != bb && ba != 1 && bb != 1))
        return eval_fail(c, "operand shapes do not multiply");
    int64_t batch = ba > bb ? ba : bb;
    int64_t dims[3] = {batch, m, n};
    Tensor *r = ra == 3 ? eval_result(c, a->dtype, 3, dims) : eval_result(c, a->dtype, 2, dims + 1);
    if (!r)
        return false;
    for (int64_t s = 0; s < batch; s++)
        kernel_matmul(operand(a->data + (ba == 1 ? 0 : s) * m * k, ta, m, k),
                      operand(b->data + (bb == 1 ? 0 : s) * k * n, tb, k, n),
                      r->data + s * m * n, m, k, n);
    return true;
}

static bool op_batch_matmul(EvalCall *c)
{
    const Tensor *a = eval_nargs_first(c, 2, 2);
    const Tensor *b = a ? eval_arg(c, 1) : NULL;
    if (!b)
        return false;
    if (a->rank != 3 || b->rank != 3)
        return eval_fail(c, "operands must have 3 dims");
    /* TVM's BatchMatmulAttrs default both flags to false (its printer
     * leaves them out then: the corpus's batch_matmuls multiply an
     * untransposed b), whatever relay.nn.batch_matmul's Python default */
    return batch_product(c, a, b, eval_attr_bool(c, "transpose_a", false),
                         eval_attr_bool(c, "transpose_b", false));
}

/* nn.matmul(a, b): as TVM's MatmulRel, a (..., m, k) times b (k, n) into
 * (..., m, n), either transposed; a vector a (k) gives (n). */
static bool op_matmul(EvalCall *c)
{
    const Tensor *a = eval_nargs_first(c, 2, 2);
    const Tensor *b = a ? eval_arg(c, 1) : NULL;
    if (!b)
        return false;
    bool ta = eval_attr_bool(c, "transpose_a", false), tb = eval_attr_bool(c, "transpose_b", false);
    if (a->rank < 1 || b->rank != 2 || (ta && a->rank < 2))
        return eval_fail(c, "operands must be (..., m, k) and (k, n)");
    if (a->rank == 2)
        return batch_product(c, a, b, ta, tb);
    int r = a->rank;
    int64_t m = r == 1 ? 1 : a->dims[ta ? r - 1 : r - 2], k = a->dims[ta && r > 1 ? r - 2 : r - 1];
    int64_t kb = b->dims[tb ? 1 : 0], n = b->dims[tb ? 0 : 1];
    if (k != kb)
        return eval_fail(c, "operand shapes do not multiply");
    int64_t dims[EVAL_MAX_RANK];
    memcpy(dims, a->dims, sizeof dims);
    if (r > 1)
        dims[r - 2] = m;
    dims[r - 1] = n;
    Tensor *out = eval_result(c, a->dtype, r, dims);
    if (!out)
        return false;
    size_t mk = (size_t)(m * k), batch = mk ? a->size / mk : 0;
    for (size_t s = 0; s < batch; s++)
        kernel_matmul(operand(a->data + s * mk, ta, m, k), operand(b->data, tb, k, n),
                      out->data + s * (size_t)(m * n), m, k, n);
    return true;
}

/* nn.bias_add(x, b, axis=1): b added along axis. */
static bool op_bias_add(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 2);
    const Tensor *b = x ? eval_arg(c, 1) : NULL;
    int axis = b ? eval_attr_axis(c, 1, x->rank) : -1;
    if (axis < 0)
        return false;
    if (b->rank != 1 || b->dims[0] != x->dims[axis])
        return eval_fail(c, "bias must have shape (%lld)", (long long)x->dims[axis]);
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    if (!r)
        return false;
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    for (size_t i = 0; i < x->size; i++)
        r->data[i] = x->data[i] + b->data[(i / (size_t)strides[axis]) % (size_t)b->dims[0]];
    return true;
}

/* ---- pooling ---- */

typedef struct PoolWindow {
    int64_t y0, y1, x0, x1; /* rows [y0, y1), columns [x0, x1) */
    int64_t full;           /* window size with padding counted */
} PoolWindow;

/* How an output cell's window is placed on an input of h x w. */
typedef struct PoolGeom {
    int64_t h, w;         /* the input's rows and columns */
    int64_t out[2];       /* the output's rows and columns */
    bool adaptive;        /* windows split the input evenly (below), else: */
    int64_t size[2];      /* pool_size */
    int64_t stride[2];    /* strides */
    int64_t pad[4];       /* padding: top, left, bottom, right */
} PoolGeom;

/* The window of output cell (i, j): a strided window, clipped to the
 * input, its padded size kept for count_include_pad; or, adaptive, the
 * input rows [floor(i*h/n), ceil((i+1)*h/n)) of n, and the columns so. */
static PoolWindow pool_window(const PoolGeom *g, int64_t i, int64_t j)
{
    int64_t h = g->h, w = g->w;
    if (g->adaptive)
        return (PoolWindow){i * h / g->out[0], ((i + 1) * h + g->out[0] - 1) / g->out[0],
                            j * w / g->out[1], ((j + 1) * w + g->out[1] - 1) / g->out[1], 0};
    int64_t y0 = i * g->stride[0] - g->pad[0], x0 = j * g->stride[1] - g->pad[1];
    int64_t y1 = y0 + g->size[0], x1 = x0 + g->size[1];
    int64_t fy1 = y1 < h + g->pad[2] ? y1 : h + g->pad[2];
    int64_t fx1 = x1 < w + g->pad[3] ? x1 : w + g->pad[3];
    return (PoolWindow){y0 < 0 ? 0 : y0, y1 < h ? y1 : h, x0 < 0 ? 0 : x0, x1 < w ? x1 : w,
                        (fy1 - y0) * (fx1 - x0)};
}

static double pool(const Tensor *x, const int *xa, int64_t b, int64_t ch, const PoolWindow *win,
                   bool is_max, bool count_pad)
{
    double acc = is_max ? -INFINITY : 0;
    int64_t n = 0;
    for (int64_t y = win->y0; y < win->y1; y++)
        for (int64_t xx = win->x0; xx < win->x1; xx++) {
            double v = at4(x, xa, b, ch, y, xx);
            acc = is_max ? (v > acc ? v : acc) : acc + v;
            n++;
        }
    if (is_max)
        return acc;
    return acc / (double)(count_pad ? win->full : n ? n : 1);
}

/* Every output cell of every batch and channel, pooled over its window. */
static bool pool_all(EvalCall *c, const Tensor *x, const int *xa, const PoolGeom *g, bool is_max,
                     bool count_pad)
{
    int64_t dims[4];
    dims[xa[0]] = x->dims[xa[0]], dims[xa[1]] = x->dims[xa[1]];
    dims[xa[2]] = g->out[0], dims[xa[3]] = g->out[1];
    Tensor *r = eval_result(c, x->dtype, 4, dims);
    if (!r)
        return false;
    for (int64_t b = 0; b < dims[xa[0]]; b++)
        for (int64_t ch = 0; ch < dims[xa[1]]; ch++)
            for (int64_t i = 0; i < g->out[0]; i++)
                for (int64_t j = 0; j < g->out[1]; j++) {
                    PoolWindow win = pool_window(g, i, j);
                    r->data[off4(r, xa, b, ch, i, j)] = pool(x, xa, b, ch, &win, is_max, count_pad);
                }
    return true;
}

/* The layout's N C H W axes, from attribute layout (default NCHW). */
static bool pool_layout(EvalCall *c, const Tensor *x, int *xa)
{
    if (x->rank != 4)
        return eval_fail(c, "data must have 4 dims");
    return layout_axes(c, eval_attr_str(c, "layout", "NCHW"), "NCHW", xa);
}

static bool op_pool2d(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int xa[4];
    int64_t dil[2];
    PoolGeom g = {.adaptive = false};
    if (!x || !pool_layout(c, x, xa) || !pair(c, "pool_size", 1, g.size) ||
        !pair(c, "strides", 1, g.stride) || !pair(c, "dilation", 1, dil) || !padding4(c, g.pad))
        return false;
    if (dil[0] != 1 || dil[1] != 1)
        return eval_fail(c, "dilation not evaluated");
    bool ceil_mode = eval_attr_bool(c, "ceil_mode", false);
    g.h = x->dims[xa[2]], g.w = x->dims[xa[3]];
    int64_t ext[2] = {g.h + g.pad[0] + g.pad[2] - g.size[0], g.w + g.pad[1] + g.pad[3] - g.size[1]};
    if (ext[0] < 0 || ext[1] < 0)
        return eval_fail(c, "window larger than the padded input");
    g.out[0] = (ext[0] + (ceil_mode ? g.stride[0] - 1 : 0)) / g.stride[0] + 1;
    g.out[1] = (ext[1] + (ceil_mode ? g.stride[1] - 1 : 0)) / g.stride[1] + 1;
    return pool_all(c, x, xa, &g, strcmp(c->op, "nn.max_pool2d") == 0,
                    eval_attr_bool(c, "count_include_pad", false));
}

/* Adaptive pooling to output_size (global pooling: 1 x 1). */
static bool op_adaptive_pool2d(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int xa[4];
    if (!x || !pool_layout(c, x, xa))
        return false;
    PoolGeom g = {.h = x->dims[xa[2]], .w = x->dims[xa[3]], .out = {1, 1}, .adaptive = true};
    if (!strstr(c->op, "global")) {
        int n = eval_attr_ints(c, "output_size", g.out, 2);
        if (n == -2)
            return false;
        if (n <= 0) /* absent or [], as the type relation: the input's dims */
            g.out[0] = g.h, g.out[1] = g.w;
        else if (n == 1)
            g.out[1] = g.out[0];
    }
    return pool_all(c, x, xa, &g, strstr(c->op, "max") != NULL, false);
}

const EvalOpDef eval_nn_ops[] = {
    {"nn.conv2d", op_conv2d},
    {"nn.dense", op_dense},
    {"nn.matmul", op_matmul},
    {"nn.batch_matmul", op_batch_matmul},
    {"nn.bias_add", op_bias_add},
    {"nn.max_pool2d", op_pool2d},
    {"nn.avg_pool2d", op_pool2d},
    {"nn.global_avg_pool2d", op_adaptive_pool2d},
    {"nn.global_max_pool2d", op_adaptive_pool2d},
    {"nn.adaptive_avg_pool2d", op_adaptive_pool2d},
    {"nn.adaptive_max_pool2d", op_adaptive_pool2d},
    {NULL, NULL},
};
