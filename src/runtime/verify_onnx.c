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
 *    C a vector of B's columns (of the B built, when B is an op's result
 *    of another shape: a Transpose's, verify_onnx_gemm_c); MatMul: A any rank (the base shape), B
 *    square on A's last dim;
 *  - Transpose with a literal perm: as many dims as perm;
 *  - MaxPool, AveragePool, LpPool: 2 + the kernel's dims, each at least 5
 *    and the kernel; GlobalAveragePool, GlobalMaxPool: rank 4;
 *  - Clip's min and max: scalars (onnx/defs/math: "must be a scalar");
 *  - Where's condition: bool, of the base shape.
 * The broadcasting ops (Add, Sub, Mul, ..., Where, Sum, PRelu) are left to
 * the caller, which shapes a sibling after a known operand as for Relay's
 * element-wise ops (verify_onnx_broadcasts).
 *
 * note [onnx shape inputs]: since opset 13 ONNX reads shapes, axes and
 * bounds from int64 inputs (Reshape's shape, Expand's, Unsqueeze's and
 * Squeeze's axes, Slice's starts, ends, axes and steps, Tile's repeats,
 * Pad's pads, ReduceSum's axes, TopK's K), which random values do not
 * fit, and so do Gather's indices (in range on its axis: [1, 0] or [-1],
 * every dim of an instance being 2 or more).  The instance gives such an
 * input a constant of values chosen from a few candidates built from the
 * data's shape (its own shape first, so that a rule for a no-op, "a
 * Reshape to the shape it has", is checked on one), the values fixed for
 * every trial (verify_onnx_shape_input).  The candidates are numbered
 * from 0 without a gap: the first -1 ends them, so one the data's rank
 * does not allow is skipped, not answered -1.
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
    int64_t k[MAX_SPATIAL], dil[MAX_SPATIAL];
    int nk = small_ints(attrs, nattrs, "kernel_shape", k);
    w->s = nk;
    if (!nk) /* the data's spatial dims, else 2 */
        w->s = x && x->rank >= 3 && x->rank - 2 <= MAX_SPATIAL ? x->rank - 2 : 2;
    bool dilated = small_ints(attrs, nattrs, "dilations", dil) == w->s;
    for (int d = 0; d < MAX_SPATIAL; d++) {
        w->k[d] = d < nk ? k[d] : 3;
        w->dil[d] = dilated && d < w->s ? dil[d] : 1;
    }
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

bool verify_onnx_gemm_c(const char *op, int i, const graft_attr *attrs, int nattrs,
                        const Tensor *b, LeafCtx *c)
{
    if (!is(op, "Gemm") || i != 2 || !b || b->rank != 2)
        return false;
    bool tb = verify_attr_int(attrs, nattrs, "transB", 0) != 0;
    memset(c, 0, sizeof *c);
    verify_ctx_set(c, 1, &b->dims[tb ? 0 : 1]);
    return true;
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
        c->upper = i == 2;
        return true;
    }
    if (is(op, "Where") && i == 0) {
        verify_rank_shape(base_rank, c);
        c->dtype = "bool";
        return true;
    }
    return false;
}

/* ---- shape inputs (note [onnx shape inputs]) ---- */

bool verify_onnx_is_shape_input(const char *op, int i)
{
    static const struct {
        const char *op;
        int lo, hi; /* the operands that are shape inputs */
    } inputs[] = {{"Reshape", 1, 1}, {"Expand", 1, 1},    {"Unsqueeze", 1, 1},
                  {"Squeeze", 1, 1}, {"Slice", 1, 4},     {"Tile", 1, 1},
                  {"Pad", 1, 1},     {"ReduceSum", 1, 1}, {"TopK", 1, 1},
                  {"Gather", 1, 1}};
    for (size_t k = 0; k < ARRAY_LEN(inputs); k++)
        if (is(op, inputs[k].op))
            return i >= inputs[k].lo && i <= inputs[k].hi;
    return false;
}

/* n copies of v into out; n. */
static int fill(int64_t *out, int n, int64_t v)
{
    for (int d = 0; d < n; d++)
        out[d] = v;
    return n;
}

/* Reshape's target that splits the data's last dim into (d, 1) (k 3:
 * heads of one element) or joins its last two (k 4), as attention's
 * views into heads and back do (attention.graft's attention_fusion_bert);
 * -1 past them.  A candidate the rank does not allow is skipped, not -1:
 * the caller reads the first -1 as the end of the candidates. */
static int heads_shape(const Tensor *x, int k, int64_t *out)
{
    int r = x->rank;
    if (k >= 3 && r >= EVAL_MAX_RANK) /* no room for the split: the join next */
        k++;
    if ((k == 4 && r < 2) || k > 4)
        return -1;
    memcpy(out, x->dims, (size_t)r * sizeof *out);
    if (k == 3) {
        out[r] = 1;
        return r + 1;
    }
    out[r - 2] *= x->dims[r - 1];
    return r - 1;
}

/* Reshape's and Expand's target: the data's shape, reversed (Reshape),
 * or with a leading 2 (Expand, but for data of the largest rank), then
 * flattened or 1s; then heads_shape's (Reshape). */
static int target_shape(bool reshape, const Tensor *x, int k, int64_t *out)
{
    int r = x->rank;
    if (k >= 3 && reshape)
        return heads_shape(x, k, out);
    if (k >= 1 && !reshape && r >= EVAL_MAX_RANK) /* no room for a leading 2: the 1s next */
        k++;
    if (k == 0)
        memcpy(out, x->dims, (size_t)r * sizeof *out);
    else if (k == 1 && reshape)
        for (int d = 0; d < r; d++)
            out[d] = x->dims[r - 1 - d];
    else if (k == 1) {
        out[0] = 2;
        memcpy(out + 1, x->dims, (size_t)r * sizeof *out);
        return r + 1;
    } else if (k == 2)
        return reshape ? fill(out, 1, -1) : fill(out, r, 1);
    else
        return -1;
    return r;
}

/* Slice's inputs: starts 0 (or 1), ends the dims (or one short), axes in
 * order, steps 1 (or 2 on the last axis). */
static int slice_input(int i, const Tensor *x, int k, int64_t *out)
{
    int r = x->rank;
    if (k > (i == 3 ? 0 : 1))
        return -1;
    if (i == 1)
        return fill(out, r, k);
    if (i == 3) {
        for (int d = 0; d < r; d++)
            out[d] = d;
        return r;
    }
    fill(out, r, 1);
    if (i == 2)
        memcpy(out, x->dims, (size_t)r * sizeof *out);
    if (k == 1)
        out[r - 1] += i == 2 ? -1 : 1;
    return r;
}

/* Squeeze's axes: the data's dims of 1. */
static int squeeze_axes(const Tensor *x, int k, int64_t *out)
{
    int n = 0;
    for (int d = 0; d < x->rank; d++)
        if (x->dims[d] == 1)
            out[n++] = d;
    return k == 0 && n > 0 ? n : -1;
}

/* Pad's pads: (rank 3 and more) the spatial dims only, 1 before and 2
 * after, as a Conv's or pool's own pads read them (PadFusion folds such a
 * Pad into them), first, so that such a rule is checked on a Pad that
 * pads; then none, and 1 on every side. */
static int pad_input(const Tensor *x, int k, int64_t *out)
{
    int r = x->rank;
    if (r < 3)
        k++;
    if (k > 0)
        return k < 3 ? fill(out, 2 * r, k - 1) : -1;
    fill(out, 2 * r, 0);
    fill(out + 2, r - 2, 1);
    fill(out + r + 2, r - 2, 2);
    return 2 * r;
}

int verify_onnx_shape_input(const char *op, int i, const Tensor *x, int k, int64_t *out)
{
    static const int64_t axes[] = {1, -1, 0};
    if (x && x->rank == 0 && is(op, "Unsqueeze")) /* a scalar made a 1-D dim of a shape */
        return k < 2 ? fill(out, 1, -k) : -1;
    if (!x || x->rank < 1 || !verify_onnx_is_shape_input(op, i))
        return -1;
    if (is(op, "Reshape") || is(op, "Expand"))
        return target_shape(is(op, "Reshape"), x, k, out);
    if (is(op, "Slice"))
        return slice_input(i, x, k, out);
    if (is(op, "Squeeze"))
        return squeeze_axes(x, k, out);
    if (is(op, "Tile")) { /* repeats 1, or 2 on the first axis */
        if (k >= 2)
            return -1;
        fill(out, x->rank, 1);
        out[0] += k;
        return x->rank;
    }
    if (is(op, "Pad"))
        return pad_input(x, k, out);
    if (is(op, "TopK"))
        return k < 2 ? fill(out, 1, k + 1) : -1;
    if (is(op, "Gather")) { /* [1, 0] or [-1]: in range on any axis (dims >= 2) */
        if (k == 0)
            out[0] = 1, out[1] = 0;
        return k == 0 ? 2 : k == 1 ? fill(out, 1, -1) : -1;
    }
    return k < 3 ? fill(out, 1, axes[k]) : -1; /* Unsqueeze's and ReduceSum's axes */
}
