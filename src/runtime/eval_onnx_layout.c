/* eval_onnx_layout.c - ONNX's ops that move elements to new places or
 * make them from positions: Pad (constant, reflect, edge), DepthToSpace
 * (DCR, CRD), SpaceToDepth, Trilu, EyeLike (onnx/defs/tensor/defs.cc,
 * generator/defs.cc at the opsets of onnx 1.12). */
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "eval_impl.h"

/* The source coordinate of output coordinate o along a dim of n padded by
 * begin before: inside, reflected (mode 'r') or clamped ('e'); -1 for a
 * constant pad. */
static int64_t pad_source(int64_t o, int64_t begin, int64_t n, char mode)
{
    int64_t i = o - begin;
    if (i >= 0 && i < n)
        return i;
    if (mode == 'e')
        return i < 0 ? 0 : n - 1;
    if (mode != 'r' || n == 1)
        return mode == 'r' ? 0 : -1;
    int64_t period = 2 * (n - 1);
    i = ((i % period) + period) % period;
    return i < n ? i : period - i;
}

/* Pad(data, pads, constant_value=0, mode="constant"): pads holds every
 * dim's begin, then every dim's end (negative ones crop). */
static bool op_pad(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 3);
    int64_t pads[2 * EVAL_MAX_RANK], dims[EVAL_MAX_RANK], strides[EVAL_MAX_RANK];
    int n = x ? eval_arg_ints(c, 1, pads, 2 * EVAL_MAX_RANK) : -2;
    const Tensor *value = n >= 0 ? eval_opt_arg(c, 2) : NULL;
    if (n < 0 || c->err->status != EVAL_OK)
        return n == -1 ? eval_fail(c, "no pads") : false;
    if (n != 2 * x->rank)
        return eval_fail(c, "%d pads for rank %d", n, x->rank);
    const char *mode = eval_attr_str(c, "mode", "constant");
    if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
        return eval_fail(c, "mode '%s'", mode);
    for (int d = 0; d < x->rank; d++)
        dims[d] = x->dims[d] + pads[d] + pads[x->rank + d];
    Tensor *r = eval_result(c, x->dtype, x->rank, dims);
    if (!r)
        return false;
    eval_strides(x->rank, x->dims, strides);
    double fill = value && value->size ? value->data[0] : 0;
    for (size_t i = 0; i < r->size; i++) {
        size_t flat = i, at = 0;
        bool inside = true;
        for (int d = x->rank - 1; d >= 0; d--) {
            int64_t o = (int64_t)(flat % (size_t)dims[d]);
            flat /= (size_t)dims[d];
            int64_t s = pad_source(o, pads[d], x->dims[d], mode[0]);
            inside = inside && s >= 0;
            at += (size_t)(s * strides[d]);
        }
        r->data[i] = inside ? x->data[at] : fill;
    }
    return true;
}

/* DepthToSpace(input, blocksize, mode="DCR") and SpaceToDepth(input,
 * blocksize) on N, C, H, W: blocks of b x b move between the channels and
 * the spatial dims. */
static bool op_depth_space(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int64_t b = eval_attr_int(c, "blocksize", 0);
    bool to_space = strcmp(c->op, "DepthToSpace") == 0;
    if (!x)
        return false;
    if (x->rank != 4 || b <= 0 || (to_space ? x->dims[1] % (b * b)
                                            : x->dims[2] % b || x->dims[3] % b))
        return eval_fail(c, "input (N, C, H, W) does not divide in blocks of %lld", (long long)b);
    int64_t d[4] = {x->dims[0], to_space ? x->dims[1] / (b * b) : x->dims[1] * b * b,
                    to_space ? x->dims[2] * b : x->dims[2] / b,
                    to_space ? x->dims[3] * b : x->dims[3] / b};
    Tensor *r = eval_result(c, x->dtype, 4, d);
    bool crd = strcmp(eval_attr_str(c, "mode", "DCR"), "CRD") == 0;
    const Tensor *big = to_space ? r : x; /* the spatial side */
    int64_t ch = to_space ? d[1] : x->dims[1];
    for (size_t i = 0; r && i < big->size; i++) {
        int64_t w = (int64_t)i % big->dims[3], h = (int64_t)i / big->dims[3] % big->dims[2];
        int64_t k = (int64_t)i / big->dims[3] / big->dims[2] % ch, n = (int64_t)i / (ch *
                    big->dims[2] * big->dims[3]);
        int64_t block = h % b * b + w % b;
        int64_t deep = crd && to_space ? k * b * b + block : block * ch + k;
        size_t at = (size_t)(((n * ch * b * b + deep) * (big->dims[2] / b) + h / b) *
                             (big->dims[3] / b) + w / b);
        if (to_space)
            r->data[i] = x->data[at];
        else
            r->data[at] = x->data[i];
    }
    return r != NULL;
}

/* Trilu(input, k=0, upper=1): the last two dims' upper (j - i >= k) or
 * lower (j - i <= k) triangle kept, the rest zero. */
static bool op_trilu(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 2);
    int64_t k = 0;
    int nk = x ? eval_arg_ints(c, 1, &k, 1) : -2;
    if (nk == -2)
        return false;
    if (x->rank < 2)
        return eval_fail(c, "input of rank %d, wants 2 or more", x->rank);
    Tensor *r = eval_result(c, x->dtype, x->rank, x->dims);
    bool upper = eval_attr_int(c, "upper", 1) != 0;
    int64_t cols = x->dims[x->rank - 1], rows = x->dims[x->rank - 2];
    for (size_t i = 0; r && i < x->size; i++) {
        int64_t j = (int64_t)i % cols, row = (int64_t)i / cols % rows;
        bool keep = upper ? j - row >= k : j - row <= k;
        r->data[i] = keep ? x->data[i] : 0;
    }
    return r != NULL;
}

/* EyeLike(input, dtype=input's, k=0): input's 2-D shape, ones on the
 * k-th diagonal. */
static bool op_eye_like(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    if (!x)
        return false;
    int64_t to = eval_attr_int(c, "dtype", 0);
    const char *dtype = to ? eval_dtype(dtype_name((DType)to)) : x->dtype;
    if (!dtype || x->rank != 2)
        return eval_fail(c, !dtype ? "dtype %lld not evaluated" : "input of rank %lld, wants 2",
                         !dtype ? (long long)to : (long long)x->rank);
    Tensor *r = eval_result(c, dtype, 2, x->dims);
    int64_t k = eval_attr_int(c, "k", 0);
    for (size_t i = 0; r && i < r->size; i++)
        r->data[i] = (int64_t)i % x->dims[1] - (int64_t)i / x->dims[1] == k;
    return r != NULL;
}

const EvalOpDef eval_onnx_layout_ops[] = {
    {"Pad", op_pad},     {"DepthToSpace", op_depth_space}, {"SpaceToDepth", op_depth_space},
    {"Trilu", op_trilu}, {"EyeLike", op_eye_like},
    {NULL, NULL},
};
