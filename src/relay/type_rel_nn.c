/* type_rel_nn.c - relations of the neural-network ops over windows:
 * convolutions and their transposes in 1, 2 and 3 dimensions (Conv2DRel
 * and friends in tvm/src/relay/op/nn/convolution.h) and pools
 * (tvm/src/relay/op/nn/pooling.cc), with the layouts they read; the other
 * nn ops are type_rel_nn_misc.c's. */
#include "type_rel.h"

#include <math.h>
#include <string.h>

#include "type_infer.h"

/* ---- layouts ---- */

/* A plain layout ("NCHW", "NHWC", "OIHW", "HWIO"): where each letter sits.
 * Packed layouts ("NCHW4c") are not plain: their types stay unknown. */
typedef struct Layout {
    const char *text; /* the layout string */
    int rank;         /* its length */
} Layout;

static bool layout_plain(const char *s, int rank)
{
    if ((int)strlen(s) != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (s[i] < 'A' || s[i] > 'Z' || strchr(s + i + 1, s[i]))
            return false;
    return true;
}

int rel_layout_pos(const char *layout, char axis)
{
    const char *p = strchr(layout, axis);
    return p ? (int)(p - layout) : -1;
}

/* The spatial letters of a layout in the order "DHW" names them, for a
 * layout of nsp spatial dims: W; H, W; D, H, W. */
const char *rel_spatial_letters(int nsp)
{
    return "DHW" + (3 - nsp);
}

/* Checks that layout is plain, of rank nsp + 2, with the two letters a and
 * b ("NC" or "OI") and the spatial letters. */
bool rel_layout_fits(const char *layout, int nsp, const char *ab)
{
    if (!layout_plain(layout, nsp + 2) || rel_layout_pos(layout, ab[0]) < 0 ||
        rel_layout_pos(layout, ab[1]) < 0)
        return false;
    for (const char *l = rel_spatial_letters(nsp); *l; l++)
        if (rel_layout_pos(layout, *l) < 0)
            return false;
    return true;
}

/* Padding as TVM's GetPaddingHeightWidth and friends read it: one value
 * for every side, one per spatial dim for both sides, or all the begins
 * then all the ends. */
static bool read_padding(RelCtx *c, const char *name, int nsp, int64_t *begin,
                         int64_t *end)
{
    int64_t pad[2 * 3];
    int n = rel_ints(c, name, pad, 2 * nsp);
    if (n < 0)
        return false;
    for (int i = 0; i < nsp; i++) {
        if (n == 0)
            begin[i] = end[i] = 0;
        else if (n == 1)
            begin[i] = end[i] = pad[0];
        else if (n == nsp)
            begin[i] = end[i] = pad[i];
        else if (n == 2 * nsp) {
            begin[i] = pad[i];
            end[i] = pad[nsp + i];
        } else {
            rel_fail(c, "'%s' has %d values (expected 1, %d or %d)", name, n, nsp, 2 * nsp);
            return false;
        }
    }
    return true;
}

/* A per-dimension attribute (strides, dilation, output_padding): n
 * values, or dflt everywhere when absent; one value means every dim.
 * None may be below least. */
static bool read_per_dim(RelCtx *c, const char *name, int nsp, int64_t dflt, int64_t least,
                         int64_t *out)
{
    int n = rel_ints(c, name, out, nsp);
    if (n < 0)
        return false;
    if (n == 0 || n == 1)
        for (int i = 0; i < nsp; i++)
            out[i] = n ? out[0] : dflt;
    else if (n != nsp) {
        rel_fail(c, "'%s' has %d values (expected %d)", name, n, nsp);
        return false;
    }
    for (int i = 0; i < nsp; i++)
        if (out[i] < least) {
            rel_fail(c, "'%s' must be at least %lld", name, (long long)least);
            return false;
        }
    return true;
}

/* What window_out gives when the window is larger than the padded input. */
#define WINDOW_EMPTY INT64_MIN

/* The size of a sliding window's output: (in + pads - dilated kernel) /
 * stride + 1, rounding up in ceil mode (Pool2DRel, Conv2DRel). */
static int64_t window_out(int64_t in, int64_t pads, int64_t k, int64_t dil, int64_t stride,
                          bool ceil_mode)
{
    if (in == DIM_ANY || k == DIM_ANY)
        return DIM_ANY;
    int64_t span = in + pads - ((k - 1) * dil + 1);
    if (ceil_mode)
        span += stride - 1;
    return span < 0 ? WINDOW_EMPTY : span / stride + 1;
}

/* ---- convolutions ---- */

/* What a convolution reads from its attributes. */
typedef struct ConvParams {
    int nsp;                               /* spatial dims */
    int64_t strides[3], dilation[3];       /* per spatial dim */
    int64_t pad_begin[3], pad_end[3];      /* per spatial dim */
    int64_t groups;                        /* groups attribute */
    const char *data_layout, *kernel_layout, *out_layout;
} ConvParams;

static bool conv_params(RelCtx *c, int nsp, const char *dl, const char *kl, ConvParams *p)
{
    p->nsp = nsp;
    p->groups = rel_int(c, "groups", 1);
    p->data_layout = rel_str(c, "data_layout", dl);
    p->kernel_layout = rel_str(c, "kernel_layout", kl);
    p->out_layout = rel_str(c, "out_layout", "");
    if (!*p->out_layout)
        p->out_layout = p->data_layout;
    if (p->groups <= 0) {
        rel_fail(c, "groups must be positive");
        return false;
    }
    return read_per_dim(c, "strides", nsp, 1, 1, p->strides) &&
           read_per_dim(c, "dilation", nsp, 1, 1, p->dilation) &&
           read_padding(c, "padding", nsp, p->pad_begin, p->pad_end);
}

/* Whether the layouts are ones graft can read (else the type stays
 * unknown, as for a packed layout). */
static bool conv_layouts_plain(const ConvParams *p, const graft_type *data,
                               const graft_type *weight)
{
    return data->rank == p->nsp + 2 && weight->rank == p->nsp + 2 &&
           rel_layout_fits(p->data_layout, p->nsp, "NC") &&
           rel_layout_fits(p->kernel_layout, p->nsp, "OI") &&
           rel_layout_fits(p->out_layout, p->nsp, "NC");
}

/* The output in out_layout from batch, channels and spatial dims. */
static const graft_type *conv_output(RelCtx *c, const ConvParams *p, const graft_type *data,
                               int64_t channels, const int64_t *spatial)
{
    Shape s = {p->nsp + 2, {0}};
    s.dims[rel_layout_pos(p->out_layout, 'N')] = data->dims[rel_layout_pos(p->data_layout, 'N')];
    s.dims[rel_layout_pos(p->out_layout, 'C')] = channels;
    const char *sp = rel_spatial_letters(p->nsp);
    for (int i = 0; i < p->nsp; i++)
        s.dims[rel_layout_pos(p->out_layout, sp[i])] = spatial[i];
    return rel_make(c, rel_dtype(c, "out_dtype", data->dtype), &s);
}

/* The kernel's spatial dims; checks them against kernel_size when given. */
static bool conv_kernel(RelCtx *c, const ConvParams *p, const graft_type *weight, int64_t *k)
{
    int64_t ks[3];
    int nks = rel_ints(c, "kernel_size", ks, p->nsp);
    if (nks < 0)
        return false;
    const char *sp = rel_spatial_letters(p->nsp);
    for (int i = 0; i < p->nsp; i++) {
        k[i] = weight->dims[rel_layout_pos(p->kernel_layout, sp[i])];
        if (nks == p->nsp && k[i] != DIM_ANY && k[i] != ks[i]) {
            rel_fail(c, "kernel_size %lld does not match the weight's %lld (%s)",
                     (long long)ks[i], (long long)k[i], weight->text);
            return false;
        }
    }
    return true;
}

/* Conv1DRel, Conv2DRel, Conv3DRel: input channels / groups must equal the
 * weight's input channels; the output has the weight's (or the channels
 * attribute's) output channels. */
static const graft_type *conv(RelCtx *c, int nsp, const char *dl, const char *kl)
{
    const graft_type *data = rel_tensor(c, 0), *weight = data ? rel_tensor(c, 1) : NULL;
    ConvParams p;
    if (!weight || !conv_params(c, nsp, dl, kl, &p))
        return NULL;
    if (!conv_layouts_plain(&p, data, weight))
        return NULL;
    int64_t in_c = data->dims[rel_layout_pos(p.data_layout, 'C')];
    int64_t w_in = weight->dims[rel_layout_pos(p.kernel_layout, 'I')];
    int64_t w_out = weight->dims[rel_layout_pos(p.kernel_layout, 'O')];
    if (in_c != DIM_ANY && w_in != DIM_ANY && in_c / p.groups != w_in)
        return rel_fail(c, "input channels %lld / groups %lld = %lld do not match the "
                        "weight's %lld input channels (%s)",
                        (long long)in_c, (long long)p.groups, (long long)(in_c / p.groups),
                        (long long)w_in, weight->text);
    int64_t channels = rel_int(c, "channels", w_out);
    if (w_out != DIM_ANY && channels != w_out)
        return rel_fail(c, "channels=%lld does not match the weight's %lld output "
                        "channels (%s)", (long long)channels, (long long)w_out, weight->text);
    int64_t k[3], out[3];
    if (!conv_kernel(c, &p, weight, k))
        return NULL;
    const char *sp = rel_spatial_letters(nsp);
    for (int i = 0; i < nsp; i++) {
        int64_t in = data->dims[rel_layout_pos(p.data_layout, sp[i])];
        out[i] = window_out(in, p.pad_begin[i] + p.pad_end[i], k[i], p.dilation[i],
                            p.strides[i], false);
        if (out[i] == WINDOW_EMPTY)
            return rel_fail(c, "the kernel (%lld) is larger than the padded input (%lld)",
                            (long long)k[i], (long long)(in + p.pad_begin[i] + p.pad_end[i]));
    }
    return conv_output(c, &p, data, channels, out);
}

static const graft_type *conv1d(RelCtx *c) { return conv(c, 1, "NCW", "OIW"); }
const graft_type *rel_conv2d(RelCtx *c) { return conv(c, 2, "NCHW", "OIHW"); }
static const graft_type *conv3d(RelCtx *c) { return conv(c, 3, "NCDHW", "OIDHW"); }

/* Conv2DTransposeRel and friends: the weight holds (in, out / groups, k...)
 * with the input channels at letter in_at of the kernel layout ('I' of
 * IOHW; Conv1DTransposeRel reads its canonical OIW with the input
 * channels first, at 'O'); each spatial dim becomes (in - 1) * stride -
 * pads + dilated kernel + output_padding. */
static const graft_type *conv_transpose(RelCtx *c, int nsp, const char *dl, const char *kl,
                                  char in_at)
{
    const graft_type *data = rel_tensor(c, 0), *weight = data ? rel_tensor(c, 1) : NULL;
    ConvParams p;
    int64_t opad[3];
    if (!weight || !conv_params(c, nsp, dl, kl, &p) ||
        !read_per_dim(c, "output_padding", nsp, 0, 0, opad))
        return NULL;
    if (!conv_layouts_plain(&p, data, weight))
        return NULL;
    int64_t in_c = data->dims[rel_layout_pos(p.data_layout, 'C')];
    int64_t w_in = weight->dims[rel_layout_pos(p.kernel_layout, in_at)];
    int64_t w_out = weight->dims[rel_layout_pos(p.kernel_layout, in_at == 'I' ? 'O' : 'I')];
    if (in_c != DIM_ANY && w_in != DIM_ANY && in_c != w_in)
        return rel_fail(c, "input channels %lld do not match the weight's %lld (%s)",
                        (long long)in_c, (long long)w_in, weight->text);
    int64_t channels = rel_int(c, "channels", dim_mul(w_out, p.groups));
    int64_t k[3], out[3];
    if (!conv_kernel(c, &p, weight, k))
        return NULL;
    const char *sp = rel_spatial_letters(nsp);
    for (int i = 0; i < nsp; i++) {
        int64_t in = data->dims[rel_layout_pos(p.data_layout, sp[i])];
        out[i] = in == DIM_ANY || k[i] == DIM_ANY
                     ? DIM_ANY
                     : (in - 1) * p.strides[i] - p.pad_begin[i] - p.pad_end[i] +
                           (k[i] - 1) * p.dilation[i] + 1 + opad[i];
    }
    return conv_output(c, &p, data, channels, out);
}

static const graft_type *conv1d_transpose(RelCtx *c)
{
    return conv_transpose(c, 1, "NCW", "OIW", 'O');
}

static const graft_type *conv2d_transpose(RelCtx *c)
{
    return conv_transpose(c, 2, "NCHW", "IOHW", 'I');
}

static const graft_type *conv3d_transpose(RelCtx *c)
{
    return conv_transpose(c, 3, "NCDHW", "IODHW", 'I');
}

/* ---- pools ---- */

const char *rel_pool_layout(int nsp)
{
    return nsp == 1 ? "NCW" : nsp == 2 ? "NCHW" : "NCDHW";
}

/* The data shape with its spatial dims replaced: the layout and output
 * layout must be plain. */
static const graft_type *pool_output(RelCtx *c, const graft_type *data, int nsp, const char *layout,
                               const int64_t *spatial)
{
    const char *out_layout = rel_str(c, "out_layout", "");
    if (!*out_layout)
        out_layout = layout;
    if (!rel_layout_fits(out_layout, nsp, "NC"))
        return NULL;
    Shape s = {nsp + 2, {0}};
    s.dims[rel_layout_pos(out_layout, 'N')] = data->dims[rel_layout_pos(layout, 'N')];
    s.dims[rel_layout_pos(out_layout, 'C')] = data->dims[rel_layout_pos(layout, 'C')];
    const char *sp = rel_spatial_letters(nsp);
    for (int i = 0; i < nsp; i++)
        s.dims[rel_layout_pos(out_layout, sp[i])] = spatial[i];
    return rel_make(c, data->dtype, &s);
}

/* Pool1DRel, Pool2DRel, Pool3DRel (max and avg). */
static const graft_type *pool(RelCtx *c, int nsp)
{
    const graft_type *data = rel_tensor(c, 0);
    const char *layout = rel_str(c, "layout", rel_pool_layout(nsp));
    int64_t size[3], strides[3], dilation[3], begin[3], end[3];
    if (!data || !read_per_dim(c, "pool_size", nsp, 1, 1, size) ||
        !read_per_dim(c, "strides", nsp, 1, 1, strides) ||
        !read_per_dim(c, "dilation", nsp, 1, 1, dilation) ||
        !read_padding(c, "padding", nsp, begin, end))
        return NULL;
    if (data->rank != nsp + 2 || !rel_layout_fits(layout, nsp, "NC"))
        return NULL;
    bool ceil_mode = rel_bool(c, "ceil_mode", false);
    int64_t out[3];
    const char *sp = rel_spatial_letters(nsp);
    for (int i = 0; i < nsp; i++) {
        int64_t in = data->dims[rel_layout_pos(layout, sp[i])];
        out[i] = window_out(in, begin[i] + end[i], size[i], dilation[i], strides[i],
                            ceil_mode);
        if (out[i] == WINDOW_EMPTY)
            return rel_fail(c, "the pool (%lld) is larger than the padded input (%lld)",
                            (long long)size[i], (long long)(in + begin[i] + end[i]));
    }
    return pool_output(c, data, nsp, layout, out);
}

static const graft_type *pool1d(RelCtx *c) { return pool(c, 1); }
static const graft_type *pool2d(RelCtx *c) { return pool(c, 2); }
static const graft_type *pool3d(RelCtx *c) { return pool(c, 3); }

/* AdaptivePool2DRel and friends: output_size None keeps the input's
 * spatial dims, one value is every dim. */
static const graft_type *adaptive_pool(RelCtx *c, int nsp)
{
    const graft_type *data = rel_tensor(c, 0);
    const char *layout = rel_str(c, "layout", rel_pool_layout(nsp));
    if (!data || data->rank != nsp + 2 || !rel_layout_fits(layout, nsp, "NC"))
        return NULL;
    int64_t size[3], out[3];
    int n = rel_ints(c, "output_size", size, nsp);
    if (n < 0)
        return NULL;
    const char *sp = rel_spatial_letters(nsp);
    for (int i = 0; i < nsp; i++)
        out[i] = n == 0 ? data->dims[rel_layout_pos(layout, sp[i])] : n == 1 ? size[0] : size[i];
    if (n > 1 && n != nsp)
        return rel_fail(c, "output_size has %d values (expected %d)", n, nsp);
    return pool_output(c, data, nsp, layout, out);
}

static const graft_type *adaptive_pool1d(RelCtx *c) { return adaptive_pool(c, 1); }
static const graft_type *adaptive_pool2d(RelCtx *c) { return adaptive_pool(c, 2); }
static const graft_type *adaptive_pool3d(RelCtx *c) { return adaptive_pool(c, 3); }

/* GlobalPool2DRel: every spatial dim becomes 1. */
static const graft_type *global_pool2d(RelCtx *c)
{
    const graft_type *data = rel_tensor(c, 0);
    const char *layout = rel_str(c, "layout", "NCHW");
    if (!data || data->rank != 4 || !rel_layout_fits(layout, 2, "NC"))
        return NULL;
    int64_t ones[2] = {1, 1};
    return pool_output(c, data, 2, layout, ones);
}

const TypeRel type_rels_nn[] = {
    {"nn.conv1d", conv1d, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.conv2d", rel_conv2d, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.conv3d", conv3d, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.conv1d_transpose", conv1d_transpose, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.conv2d_transpose", conv2d_transpose, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.conv3d_transpose", conv3d_transpose, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"nn.max_pool1d", pool1d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.max_pool2d", pool2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.max_pool3d", pool3d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.avg_pool1d", pool1d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.avg_pool2d", pool2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.avg_pool3d", pool3d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.adaptive_avg_pool1d", adaptive_pool1d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.adaptive_avg_pool2d", adaptive_pool2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.adaptive_avg_pool3d", adaptive_pool3d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.adaptive_max_pool1d", adaptive_pool1d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.adaptive_max_pool2d", adaptive_pool2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.adaptive_max_pool3d", adaptive_pool3d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.global_avg_pool2d", global_pool2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"nn.global_max_pool2d", global_pool2d, TYPE_OUTPUTS_TENSOR, 1, 0},
    {NULL, NULL, 0, 0, 0},
};
