/* verify_onnx.c - the shape of a fresh operand of an ONNX op in an
 * instance, from the op's shape inference run backwards (note [onnx
 * operand shapes]).
 *
 * note [onnx operand shapes]: verify_operand.c does for Relay's type
 * relations what this file does for ONNX's shape inference
 * (src/onnx/onnx_infer_*.c, written from onnx/defs): the pattern fixes
 * some attributes (kernel_shape, group, perm, axis) and the operands are
 * made to fit them, or the kernels refuse every instance
 * ("Conv: input of rank 1, wants N, C and spatial dims") and the rule is
 * left unchecked:
 *  - Conv: X (N, C, spatial...) with C = 3 * group and as many spatial
 *    dims as kernel_shape has (2 without it), each at least 5 and at
 *    least the dilated kernel; W (M, C / group, k...) with M = C, square
 *    as verify_operand.c makes nn.conv2d's, so that a scale folded into
 *    the wrong axis of W still evaluates and is refuted; B (M).  An X
 *    already built gives C and the spatial rank;
 *  - ConvTranspose: X as Conv's, W (C, M / group, k...) with M = C, B (M);
 *  - BatchNormalization, InstanceNormalization: X (2, 3, 4, 3) (the
 *    channel axis 1 as long as the last), the vectors of X's channels;
 *    BatchNormalization's input_var (operand 4) drawn positive;
 *  - LayerNormalization: Scale and B of X's dims from axis (default -1);
 *  - Gemm: A (2, 3), or (3, 2) with transA; B square on A's inner dim;
 *    C a vector of B's columns; MatMul: A any rank (the base shape), B
 *    square on A's last dim;
 *  - Transpose with a literal perm: as many dims as perm;
 *  - MaxPool, AveragePool, LpPool: 2 + the kernel's dims, each at least 5
 *    and the kernel; GlobalAveragePool, GlobalMaxPool: rank 4;
 *  - Clip's min and max: scalars (onnx/defs/math: "must be a scalar");
 *  - Where's condition: bool, of the base shape.
 * The broadcasting ops (Add, Sub, Mul, ..., Where, Sum, PRelu) are left to
 * the caller, which shapes a sibling after a known operand as for Relay's
 * element-wise ops (verify_onnx_broadcasts).  Shapes read from inputs
 * (Reshape's shape, Unsqueeze's axes, Slice's starts) are not made: an
 * instance's constants hold random values, which no such input accepts.
 */
#include <string.h>

#include "verify_impl.h"

enum { MIN_SPATIAL = 5, MAX_KERNEL = 64, MAX_SPATIAL = EVAL_MAX_RANK - 2 };

static bool is(const char *op, const char *name)
{
    return strcmp(op, name) == 0;
}

bool verify_onnx_broadcasts(const char *op)
{
    static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min",
                                      "Sum", "Mean", "Equal", "Less", "LessOrEqual",
                                      "Greater", "GreaterOrEqual", "And", "Or", "Xor",
                                      "BitShift", "PRelu", "Where"};
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (is(op, ops[i]))
            return true;
    return false;
}

static const graft_attr_value *find(const graft_attr *attrs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(attrs[i].name, name) == 0)
            return attrs[i].value;
    return NULL;
}

/* An ints attribute of 1 to MAX_SPATIAL items, each in [1, MAX_KERNEL],
 * into out; its length, or 0 when absent or of another form. */
static int small_ints(const graft_attr *attrs, int n, const char *name, int64_t *out)
{
    const graft_attr_value *v = find(attrs, n, name);
    if (!v || v->kind != GRAFT_ATTR_LIST || v->nitems < 1 || v->nitems > MAX_SPATIAL)
        return 0;
    for (int k = 0; k < v->nitems; k++)
        if (v->items[k]->kind != GRAFT_ATTR_INT || v->items[k]->i < 1 ||
            v->items[k]->i > MAX_KERNEL)
            return 0;
    for (int k = 0; k < v->nitems; k++)
        out[k] = v->items[k]->i;
    return v->nitems;
}

static int64_t at_least(int64_t v, int64_t floor)
{
    return v > floor ? v : floor;
}

/* The window of a Conv, ConvTranspose or pool: its spatial rank (from
 * kernel_shape, else the data's, else 2), kernel and dilations. */
typedef struct OnnxWindow {
    int s;
    int64_t k[MAX_SPATIAL], dil[MAX_SPATIAL];
} OnnxWindow;

static void window_of(const graft_attr *attrs, int nattrs, const Tensor *x, OnnxWindow *w)
{
    w->s = small_ints(attrs, nattrs, "kernel_shape", w->k);
    if (!w->s)
        w->s = x && x->rank >= 3 && x->rank - 2 <= MAX_SPATIAL ? x->rank - 2 : 2;
    for (int d = 0; d < MAX_SPATIAL; d++) {
        w->dil[d] = 1;
        if (!find(attrs, nattrs, "kernel_shape"))
            w->k[d] = 3;
    }
    int64_t dil[MAX_SPATIAL];
    if (small_ints(attrs, nattrs, "dilations", dil) == w->s)
        memcpy(w->dil, dil, sizeof dil);
}

/* Data of a windowed op: (2, channels, spatial...), each spatial dim
 * taking the dilated kernel and at least MIN_SPATIAL. */
static void window_data(const OnnxWindow *w, int64_t channels, LeafCtx *c)
{
    int64_t dims[EVAL_MAX_RANK] = {2, channels};
    for (int d = 0; d < w->s; d++)
        dims[2 + d] = at_least(w->dil[d] * (w->k[d] - 1) + 1, MIN_SPATIAL);
    verify_ctx_set(c, 2 + w->s, dims);
}

/* Conv's and ConvTranspose's operands (X 0, W 1, B 2). */
static void conv_operand(int i, const graft_attr *attrs, int nattrs,
                         const Tensor *x, LeafCtx *c)
{
    OnnxWindow w;
    window_of(attrs, nattrs, x, &w);
    int64_t group = verify_attr_int(attrs, nattrs, "group", 1);
    group = group >= 1 && group <= MAX_KERNEL ? group : 1;
    int64_t ch = x && x->rank == 2 + w.s ? x->dims[1] : 3 * group, per = ch / group;
    if (i == 0) {
        window_data(&w, ch, c);
        return;
    }
    if (i == 2) { /* M = C: as many output channels as input ones */
        verify_ctx_set(c, 1, &ch);
        return;
    }
    /* Conv's W is (M, C / group, k...), ConvTranspose's (C, M / group, k...):
       with M = C both are (C, C / group, k...) */
    int64_t dims[EVAL_MAX_RANK] = {ch, per};
    for (int d = 0; d < w.s; d++)
        dims[2 + d] = w.k[d];
    verify_ctx_set(c, 2 + w.s, dims);
}

/* The norms' data (rank 4) and vectors (X's channels, or from axis on
 * for LayerNormalization). */
static void norm_operand(const char *op, int i, const graft_attr *attrs, int nattrs,
                         const Tensor *x, LeafCtx *c)
{
    if (i == 0) {
        verify_rank_shape(4, c);
        return;
    }
    if (!is(op, "LayerNormalization")) {
        int64_t ch = x && x->rank >= 2 ? x->dims[1] : 3;
        verify_ctx_set(c, 1, &ch);
        c->positive = is(op, "BatchNormalization") && i == 4;
        return;
    }
    int rank = x ? x->rank : 4;
    int64_t axis = verify_attr_int(attrs, nattrs, "axis", -1);
    axis = axis < 0 ? axis + rank : axis;
    if (!x || axis < 0 || axis >= rank) {
        int64_t three = 3;
        verify_ctx_set(c, 1, &three);
        return;
    }
    verify_ctx_set(c, rank - (int)axis, x->dims + axis);
}

/* Gemm's and MatMul's operands: square on the inner dim. */
static void product_operand(const char *op, int i, const graft_attr *attrs, int nattrs,
                            const Tensor *a, int base_rank, LeafCtx *c)
{
    bool gemm = is(op, "Gemm");
    bool ta = gemm && verify_attr_int(attrs, nattrs, "transA", 0);
    if (i == 0) {
        int64_t x[2] = {ta ? 3 : 2, ta ? 2 : 3};
        if (gemm)
            verify_ctx_set(c, 2, x);
        else
            verify_rank_shape(base_rank, c);
        return;
    }
    int64_t k = 3;
    if (a && a->rank >= 1)
        k = a->dims[a->rank - (ta && a->rank > 1 ? 2 : 1)];
    int64_t w[2] = {k, k};
    verify_ctx_set(c, i == 2 ? 1 : 2, w);
}

static bool pool_operand(const char *op, int i, const graft_attr *attrs, int nattrs, LeafCtx *c)
{
    if (i != 0)
        return false;
    if (is(op, "GlobalAveragePool") || is(op, "GlobalMaxPool")) {
        int64_t x[4] = {2, 3, MIN_SPATIAL, MIN_SPATIAL};
        verify_ctx_set(c, 4, x);
        return true;
    }
    if (!find(attrs, nattrs, "kernel_shape"))
        return false; /* required: the kernel refuses the node, as ONNX does */
    OnnxWindow w;
    window_of(attrs, nattrs, NULL, &w);
    window_data(&w, 3, c);
    return true;
}

static bool is_pool(const char *op)
{
    return is(op, "MaxPool") || is(op, "AveragePool") || is(op, "LpPool") ||
           is(op, "GlobalAveragePool") || is(op, "GlobalMaxPool");
}

bool verify_onnx_operand_shape(const char *op, int i, const graft_attr *attrs, int nattrs,
                               const Tensor *first, int base_rank, LeafCtx *c)
{
    if (is(op, "Conv") || is(op, "ConvTranspose")) {
        conv_operand(i, attrs, nattrs, first, c);
        return true;
    }
    if (is(op, "BatchNormalization") || is(op, "InstanceNormalization") ||
        is(op, "LayerNormalization")) {
        norm_operand(op, i, attrs, nattrs, first, c);
        return true;
    }
    if (is(op, "Gemm") || is(op, "MatMul")) {
        product_operand(op, i, attrs, nattrs, first, base_rank, c);
        return true;
    }
    if (is_pool(op))
        return pool_operand(op, i, attrs, nattrs, c);
    const graft_attr_value *perm;
    if (is(op, "Transpose") && i == 0 && (perm = verify_attr_list(attrs, nattrs, "perm"))) {
        verify_rank_shape(perm->nitems, c);
        return true;
    }
    if (is(op, "Clip") && i > 0) {
        verify_ctx_set(c, 0, NULL);
        return true;
    }
    if (is(op, "Where") && i == 0) {
        verify_rank_shape(base_rank, c);
        c->dtype = "bool";
        return true;
    }
    return false;
}
