/* eval_onnx_conv.c - ONNX's windowed ops over any number of spatial dims
 * (N, C, D1, D2, ...): Conv, ConvTranspose, MaxPool, AveragePool, GlobalAveragePool,
 * GlobalMaxPool (onnx/defs/nn/defs.cc): kernel_shape, strides,
 * dilations, pads (every begin, then every end), auto_pad, ceil_mode. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"
#include "eval_kernels.h"

enum { MAX_SPATIAL = EVAL_MAX_RANK - 2 };

/* Where each output cell's window lies on the input. */
typedef struct Window {
    int s;                            /* spatial dims */
    int64_t in[MAX_SPATIAL], k[MAX_SPATIAL], stride[MAX_SPATIAL], dil[MAX_SPATIAL];
    int64_t pad_begin[MAX_SPATIAL], pad_end[MAX_SPATIAL], out[MAX_SPATIAL];
} Window;

/* An ints attribute of s values, dflt for each when absent. */
static bool spatial_attr(EvalCall *c, const char *name, int s, int64_t dflt, int64_t *out)
{
    int64_t got[2 * MAX_SPATIAL];
    int n = eval_attr_ints(c, name, got, 2 * MAX_SPATIAL);
    if (n == -2)
        return false;
    for (int i = 0; i < s; i++)
        out[i] = n < 0 ? dflt : got[i];
    return n < 0 || n == s || eval_fail(c, "%s has %d values for %d spatial dims", name, n, s);
}

/* The padding: auto_pad SAME_UPPER/SAME_LOWER computes it (the odd one
 * at the end, or the beginning), VALID is none, NOTSET reads pads. */
static bool window_pads(EvalCall *c, Window *w)
{
    const char *auto_pad = eval_attr_str(c, "auto_pad", "NOTSET");
    bool same = strncmp(auto_pad, "SAME", 4) == 0;
    int64_t pads[2 * MAX_SPATIAL];
    int n = eval_attr_ints(c, "pads", pads, 2 * MAX_SPATIAL);
    if (n == -2 || (n >= 0 && n != 2 * w->s))
        return n == -2 ? false : eval_fail(c, "pads has %d values for %d spatial dims", n, w->s);
    for (int i = 0; i < w->s; i++) {
        w->pad_begin[i] = n < 0 || same || strcmp(auto_pad, "VALID") == 0 ? 0 : pads[i];
        w->pad_end[i] = n < 0 || same || strcmp(auto_pad, "VALID") == 0 ? 0 : pads[w->s + i];
        if (!same)
            continue;
        int64_t out = (w->in[i] + w->stride[i] - 1) / w->stride[i];
        int64_t total = (out - 1) * w->stride[i] + w->dil[i] * (w->k[i] - 1) + 1 - w->in[i];
        total = total < 0 ? 0 : total;
        bool lower = strcmp(auto_pad, "SAME_LOWER") == 0;
        w->pad_begin[i] = lower ? total - total / 2 : total / 2;
        w->pad_end[i] = total - w->pad_begin[i];
    }
    return true;
}

/* The window of x's spatial dims for kernel dims k (NULL: the attribute
 * kernel_shape); output dims rounded down, or up with ceil_mode. */
static bool window_of(EvalCall *c, const Tensor *x, const int64_t *k, Window *w)
{
    if (x->rank < 3)
        return eval_fail(c, "input of rank %d, wants N, C and spatial dims", x->rank);
    w->s = x->rank - 2;
    memcpy(w->in, x->dims + 2, (size_t)w->s * sizeof *w->in);
    if (k)
        memcpy(w->k, k, (size_t)w->s * sizeof *w->k);
    else if (!spatial_attr(c, "kernel_shape", w->s, 0, w->k) ||
             (w->k[0] == 0 && !eval_fail(c, "no kernel_shape")))
        return false;
    if (!spatial_attr(c, "strides", w->s, 1, w->stride) ||
        !spatial_attr(c, "dilations", w->s, 1, w->dil) || !window_pads(c, w))
        return false;
    bool ceil_mode = eval_attr_int(c, "ceil_mode", 0) != 0;
    for (int i = 0; i < w->s; i++) {
        int64_t span = w->in[i] + w->pad_begin[i] + w->pad_end[i] - w->dil[i] * (w->k[i] - 1) - 1;
        if (span < 0 || w->stride[i] <= 0)
            return eval_fail(c, "window larger than spatial dim %d", i);
        int64_t round_up = ceil_mode ? w->stride[i] - 1 : 0;
        w->out[i] = (span + round_up) / w->stride[i] + 1;
        if (ceil_mode && (w->out[i] - 1) * w->stride[i] >= w->in[i] + w->pad_begin[i])
            w->out[i]--; /* a last window that starts in the end padding is dropped */
    }
    return true;
}

/* The input offset (within one channel) of kernel point kflat of output
 * cell oflat, or -1 when it falls in the padding. */
static int64_t window_point(const Window *w, int64_t oflat, int64_t kflat)
{
    int64_t offset = 0, stride = 1;
    for (int i = w->s - 1; i >= 0; i--) {
        int64_t o = oflat % w->out[i], kk = kflat % w->k[i];
        oflat /= w->out[i];
        kflat /= w->k[i];
        int64_t at = o * w->stride[i] - w->pad_begin[i] + kk * w->dil[i];
        if (at < 0 || at >= w->in[i])
            return -1;
        offset += at * stride;
        stride *= w->in[i];
    }
    return offset;
}

static int64_t volume(const int64_t *dims, int n)
{
    int64_t v = 1;
    for (int i = 0; i < n; i++)
        v *= dims[i];
    return v;
}

/* A 2-d Conv through the layers' kernel (eval_kernels.c), each image and
 * group in turn: each output starts at its bias and adds its products in
 * the order of op_conv's loop below (input channel, kernel row, kernel
 * column, the padding's terms left out: note [kernel order]), so the
 * values are the loop's bit for bit, some 30 times faster (doc/verify.md,
 * "ONNX models"; tests/check_eval.c compares the two). */
static void conv2d_by_kernel(const Tensor *x, const Tensor *wt, const Tensor *bias,
                             const Window *w, int64_t group, Tensor *r)
{
    int64_t m = wt->dims[0], cg = wt->dims[1], mg = m / group;
    int64_t plane = w->out[0] * w->out[1], in_plane = w->in[0] * w->in[1];
    KernelConv k = {cg, w->in[0], w->in[1], mg, w->k[0], w->k[1],
                    {w->stride[0], w->stride[1]}, {w->dil[0], w->dil[1]},
                    {w->pad_begin[0], w->pad_begin[1]}, w->out[0], w->out[1]};
    for (size_t i = 0; i < r->size; i++)
        r->data[i] = bias ? bias->data[(int64_t)i / plane % m] : 0;
    for (int64_t b = 0; b < x->dims[0]; b++)
        for (int64_t g = 0; g < group; g++)
            kernel_conv2d(x->data + (b * x->dims[1] + g * cg) * in_plane,
                          wt->data + g * mg * cg * w->k[0] * w->k[1],
                          r->data + (b * m + g * mg) * plane, &k);
}

/* Conv(x, w, b, group=1): w (M, C/group, k...). */
static bool op_conv(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 3);
    const Tensor *wt = x ? eval_arg(c, 1) : NULL, *bias = wt ? eval_opt_arg(c, 2) : NULL;
    int64_t group = eval_attr_int(c, "group", 1);
    Window w;
    if (!wt || c->err->status != EVAL_OK || !window_of(c, x, wt->dims + 2, &w))
        return false;
    int64_t m = wt->dims[0], cg = wt->rank > 1 ? wt->dims[1] : 0;
    if (wt->rank != x->rank || group <= 0 || cg * group != x->dims[1] || m % group)
        return eval_fail(c, "weight shape does not fit the input's channels and group");
    if (bias && (bias->rank != 1 || bias->dims[0] != m)) /* B is (M) */
        return eval_fail(c, "bias of %zu elements for %lld output channels", bias->size,
                         (long long)m);
    int64_t dims[EVAL_MAX_RANK] = {x->dims[0], m};
    memcpy(dims + 2, w.out, (size_t)w.s * sizeof *dims);
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    if (w.s == 2 && (!bias || (bias->rank == 1 && bias->dims[0] == m))) {
        conv2d_by_kernel(x, wt, bias, &w, group, r);
        return true;
    }
    int64_t nout = volume(w.out, w.s), nin = volume(w.in, w.s), nk = volume(w.k, w.s);
    for (size_t idx = 0; idx < r->size; idx++) {
        int64_t o = (int64_t)idx % nout, oc = (int64_t)idx / nout % m, b = (int64_t)idx / nout / m;
        int64_t g = oc / (m / group);
        double sum = bias ? bias->data[oc] : 0;
        for (int64_t ic = 0; ic < cg; ic++)
            for (int64_t k = 0; k < nk; k++) {
                int64_t at = window_point(&w, o, k);
                if (at >= 0)
                    sum += x->data[(b * x->dims[1] + g * cg + ic) * nin + at] *
                           wt->data[(oc * cg + ic) * nk + k];
            }
        r->data[idx] = sum;
    }
    return true;
}

/* ConvTranspose's geometry per spatial dim: the output dim and the
 * padding before, from output_shape when given (the padding then follows
 * from it, the odd one at the end for SAME_UPPER, at the beginning
 * otherwise; an output larger than the kernel reaches is padded at the
 * end only, as ONNX Runtime does: test_convtranspose_output_shape),
 * SAME_UPPER/SAME_LOWER (output in * stride), or pads. */
typedef struct TransposeGeom {
    int s;
    int64_t in[MAX_SPATIAL], k[MAX_SPATIAL], stride[MAX_SPATIAL], dil[MAX_SPATIAL];
    int64_t pad_begin[MAX_SPATIAL], out[MAX_SPATIAL];
} TransposeGeom;

static bool transpose_geometry(EvalCall *c, const Tensor *x, const Tensor *wt, TransposeGeom *t)
{
    int64_t outpad[MAX_SPATIAL], shape[MAX_SPATIAL], pads[2 * MAX_SPATIAL];
    t->s = x->rank - 2;
    memcpy(t->in, x->dims + 2, (size_t)t->s * sizeof *t->in);
    if (!spatial_attr(c, "kernel_shape", t->s, 0, t->k) ||
        !spatial_attr(c, "strides", t->s, 1, t->stride) ||
        !spatial_attr(c, "dilations", t->s, 1, t->dil) ||
        !spatial_attr(c, "output_padding", t->s, 0, outpad))
        return false;
    int nshape = eval_attr_ints(c, "output_shape", shape, MAX_SPATIAL);
    int npads = eval_attr_ints(c, "pads", pads, 2 * MAX_SPATIAL);
    if (nshape == -2 || npads == -2 || (npads >= 0 && npads != 2 * t->s))
        return npads >= 0 && npads != 2 * t->s ? eval_fail(c, "pads has %d values", npads) : false;
    const char *auto_pad = eval_attr_str(c, "auto_pad", "NOTSET");
    bool upper = strcmp(auto_pad, "SAME_UPPER") == 0, same = strncmp(auto_pad, "SAME", 4) == 0;
    for (int i = 0; i < t->s; i++) {
        t->k[i] = t->k[i] ? t->k[i] : wt->dims[2 + i];
        int64_t full = t->stride[i] * (t->in[i] - 1) + outpad[i] + (t->k[i] - 1) * t->dil[i] + 1;
        if (nshape >= 0 || same) {
            t->out[i] = nshape >= 0 ? shape[nshape - t->s + i] : t->in[i] * t->stride[i];
            int64_t total = full > t->out[i] ? full - t->out[i] : 0; /* as ONNX Runtime */
            t->pad_begin[i] = upper ? total / 2 : total - total / 2;
        } else {
            t->pad_begin[i] = npads < 0 ? 0 : pads[i];
            t->out[i] = full - (npads < 0 ? 0 : pads[i] + pads[t->s + i]);
        }
        if (t->out[i] < 0)
            return eval_fail(c, "output dim %d would be %lld", i, (long long)t->out[i]);
    }
    return true;
}

/* The output offset (within one channel) that input cell iflat and
 * kernel point kflat reach, or -1 outside the output. */
static int64_t transpose_point(const TransposeGeom *t, int64_t iflat, int64_t kflat)
{
    int64_t offset = 0, stride = 1;
    for (int i = t->s - 1; i >= 0; i--) {
        int64_t at = iflat % t->in[i] * t->stride[i] + kflat % t->k[i] * t->dil[i] -
                     t->pad_begin[i];
        iflat /= t->in[i];
        kflat /= t->k[i];
        if (at < 0 || at >= t->out[i])
            return -1;
        offset += at * stride;
        stride *= t->out[i];
    }
    return offset;
}

/* ConvTranspose(x, w, b, group=1): w (C, M/group, k...); each input cell
 * scatters its products over the output. */
static bool op_conv_transpose(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 3);
    const Tensor *wt = x ? eval_arg(c, 1) : NULL, *bias = wt ? eval_opt_arg(c, 2) : NULL;
    int64_t group = eval_attr_int(c, "group", 1);
    TransposeGeom t;
    if (!wt || c->err->status != EVAL_OK)
        return false;
    if (x->rank < 3 || wt->rank != x->rank || group <= 0 || wt->dims[0] != x->dims[1] ||
        x->dims[1] % group)
        return eval_fail(c, "weight shape does not fit the input's channels and group");
    if (!transpose_geometry(c, x, wt, &t))
        return false;
    int64_t mg = wt->dims[1], cg = x->dims[1] / group, m = mg * group;
    int64_t dims[EVAL_MAX_RANK] = {x->dims[0], m};
    memcpy(dims + 2, t.out, (size_t)t.s * sizeof *dims);
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    int64_t nout = volume(t.out, t.s), nin = volume(t.in, t.s), nk = volume(t.k, t.s);
    for (size_t idx = 0; idx < x->size; idx++) {
        int64_t i = (int64_t)idx % nin, ic = (int64_t)idx / nin % x->dims[1];
        int64_t b = (int64_t)idx / nin / x->dims[1], g = ic / cg;
        for (int64_t oc = 0; oc < mg; oc++)
            for (int64_t k = 0; k < nk; k++) {
                int64_t at = transpose_point(&t, i, k);
                if (at >= 0)
                    r->data[(b * m + g * mg + oc) * nout + at] +=
                        x->data[idx] * wt->data[(ic * mg + oc) * nk + k];
            }
    }
    for (size_t idx = 0; bias && idx < r->size; idx++)
        r->data[idx] += bias->data[(int64_t)idx / nout % m];
    return true;
}

/* One pooled cell: max (and its input index in *arg) or average. */
static double pool_cell(const Window *w, const double *chan, int64_t o, bool is_max,
                        bool count_pad, int64_t *arg)
{
    int64_t nk = volume(w->k, w->s), count = 0;
    double acc = is_max ? -INFINITY : 0;
    for (int64_t k = 0; k < nk; k++) {
        int64_t at = window_point(w, o, k);
        if (at < 0)
            continue;
        count++;
        if (!is_max)
            acc += chan[at];
        else if (chan[at] > acc || *arg < 0) {
            acc = chan[at];
            *arg = at;
        }
    }
    return is_max ? acc : acc / (double)(count_pad ? nk : count);
}

/* The spatial offset at (row-major) as MaxPool's Indices give it: row
 * major, or column major (the first spatial dim fastest) with
 * storage_order=1. */
static int64_t index_order(const EvalCall *c, const Window *w, int64_t at)
{
    if (eval_attr_int(c, "storage_order", 0) == 0)
        return at;
    int64_t coords[MAX_SPATIAL], index = 0;
    for (int i = w->s - 1; i >= 0; i--) {
        coords[i] = at % w->in[i];
        at /= w->in[i];
    }
    for (int i = w->s - 1; i >= 0; i--)
        index = index * w->in[i] + coords[i];
    return index;
}

/* MaxPool (with Indices as a second output),
 * AveragePool (count_include_pad=0), GlobalMaxPool, GlobalAveragePool. */
static bool op_pool(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    bool global = strncmp(c->op, "Global", 6) == 0, is_max = strstr(c->op, "Max") != NULL;
    bool with_indices = eval_noutputs(c) == 2;
    Window w;
    if (!x || !window_of(c, x, global ? x->dims + 2 : NULL, &w))
        return false;
    int64_t dims[EVAL_MAX_RANK] = {x->dims[0], x->dims[1]};
    memcpy(dims + 2, w.out, (size_t)w.s * sizeof *dims);
    Tensor *r, *ind = NULL;
    if (with_indices && eval_tuple_result(c, 2)) {
        r = eval_field(c, 0, x->dtype, x->rank, dims);
        ind = r ? eval_field(c, 1, "int64", x->rank, dims) : NULL;
        if (!ind)
            return false;
    } else if (!(r = eval_result(c, x->dtype, x->rank, dims))) {
        return false;
    }
    int64_t nout = volume(w.out, w.s), nin = volume(w.in, w.s);
    bool count_pad = eval_attr_int(c, "count_include_pad", 0) != 0;
    for (size_t idx = 0; idx < r->size; idx++) {
        int64_t chan = (int64_t)idx / nout, arg = -1;
        r->data[idx] = pool_cell(&w, x->data + chan * nin, (int64_t)idx % nout, is_max,
                                 count_pad, &arg);
        if (ind)
            ind->data[idx] = (double)(chan * nin + index_order(c, &w, arg));
    }
    return true;
}

const EvalOpDef eval_onnx_conv_ops[] = {
    {"Conv", op_conv},
    {"ConvTranspose", op_conv_transpose},
    {"MaxPool", op_pool},
    {"AveragePool", op_pool},
    {"GlobalMaxPool", op_pool},
    {"GlobalAveragePool", op_pool},
    {NULL, NULL},
};
