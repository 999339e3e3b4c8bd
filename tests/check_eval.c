/* check_eval.c - the reference evaluator (src/runtime/eval.h): each op on
 * small tensors against values computed by hand, the two modes, and the
 * refusals (an op without evaluator, shapes that do not fit, the element
 * limit). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "relay.h"
#include "check_main.h"

enum { MAX_PARAMS = 6 };

/* A model evaluated on parameters; the status and message on failure. */
typedef struct Result {
    bool ok;
    Value v;
    EvalError err;
} Result;

static Tensor tensor(const char *dtype, int rank, const int64_t *dims, const double *values)
{
    Tensor t = tensor_new(eval_dtype(dtype), rank, dims);
    for (size_t i = 0; i < t.size; i++)
        t.data[i] = values[i];
    return t;
}

static Result eval_model(const char *model, Tensor *params, int nparams, EvalMode mode,
                         uint64_t max_elements)
{
    graft_diag *d = diag_new(stderr);
    Source *src = source_from_string("test.relay", model, strlen(model));
    graft_graph *g = relay_load(src, d);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(graph_nparams(g), nparams);
    EvalInputs in = {params, nparams, NULL, NULL, NULL};
    EvalOptions opts = {mode, max_elements};
    Result r = {0};
    r.ok = eval_graph(g, &in, &opts, &r.v, &r.err);
    for (int i = 0; i < nparams; i++)
        tensor_free(&params[i]);
    graph_free(g);
    source_free(src);
    diag_free(d);
    return r;
}

/* The result must be a tensor of the given shape and values (to 1e-12). */
static void want(Result *r, int rank, const int64_t *dims, const double *values)
{
    ck_assert_msg(r->ok, "evaluation failed: %s", r->err.msg.data);
    ck_assert_int_eq(r->v.nfields, -1);
    ck_assert_int_eq(r->v.t.rank, rank);
    for (int i = 0; i < rank; i++)
        ck_assert_int_eq(r->v.t.dims[i], dims[i]);
    for (size_t i = 0; i < r->v.t.size; i++)
        ck_assert_msg(fabs(r->v.t.data[i] - values[i]) <= 1e-12 * (1 + fabs(values[i])),
                      "element %zu: %.17g, want %.17g", i, r->v.t.data[i], values[i]);
    value_free(&r->v);
}

static void want_error(Result *r, EvalStatus status, const char *msg)
{
    ck_assert(!r->ok);
    ck_assert_int_eq(r->err.status, status);
    ck_assert_str_eq(r->err.msg.data, msg);
    strbuf_free(&r->err.msg);
}

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})

/* One float32 parameter %x of the given shape, then op text on it. */
static Result unary(const char *body, int rank, const int64_t *dims, const double *values)
{
    char model[512];
    snprintf(model, sizeof model, "def @main(%%x) {\n  %s\n}\n", body);
    Tensor p[1] = {tensor("float32", rank, dims, values)};
    return eval_model(model, p, 1, EVAL_FLOAT64, 0);
}

static Result binary(const char *body, int ra, const int64_t *da, const double *va, int rb,
                     const int64_t *db, const double *vb)
{
    char model[512];
    snprintf(model, sizeof model, "def @main(%%x, %%y) {\n  %s\n}\n", body);
    Tensor p[2] = {tensor("float32", ra, da, va), tensor("float32", rb, db, vb)};
    return eval_model(model, p, 2, EVAL_FLOAT64, 0);
}

START_TEST(test_broadcast_arith)
{
    Result r = binary("add(%x, %y)", 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6), 1, DIMS(3),
                      VALS(10, 20, 30));
    want(&r, 2, DIMS(2, 3), VALS(11, 22, 33, 14, 25, 36));
    r = binary("subtract(%x, %y)", 2, DIMS(2, 1), VALS(1, 2), 1, DIMS(2), VALS(10, 20));
    want(&r, 2, DIMS(2, 2), VALS(-9, -19, -8, -18));
    r = binary("divide(%x, %y)", 1, DIMS(2), VALS(1, 3), 0, NULL, VALS(4));
    want(&r, 1, DIMS(2), VALS(0.25, 0.75));
    r = binary("power(%x, %y)", 1, DIMS(2), VALS(2, 3), 1, DIMS(2), VALS(3, 2));
    want(&r, 1, DIMS(2), VALS(8, 9));
    r = binary("maximum(%x, %y)", 1, DIMS(2), VALS(2, -3), 1, DIMS(2), VALS(1, 0));
    want(&r, 1, DIMS(2), VALS(2, 0));
    r = binary("less(%x, %y)", 1, DIMS(2), VALS(2, -3), 1, DIMS(2), VALS(1, 0));
    want(&r, 1, DIMS(2), VALS(0, 1));
    r = unary("multiply(%x, 2f)", 1, DIMS(2), VALS(1.5, -2));
    want(&r, 1, DIMS(2), VALS(3, -4));
}
END_TEST

/* Each comparison at a tie and on both sides of it: [1, 2, 3] against 2. */
START_TEST(test_comparisons)
{
    static const struct {
        const char *op;
        double want[3];
    } cases[] = {
        {"equal", {0, 1, 0}},   {"not_equal", {1, 0, 1}},     {"less", {1, 0, 0}},
        {"less_equal", {1, 1, 0}}, {"greater", {0, 0, 1}}, {"greater_equal", {0, 1, 1}},
        {"minimum", {1, 2, 2}}, {"maximum", {2, 2, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[64];
        snprintf(body, sizeof body, "%s(%%x, %%y)", cases[i].op);
        Result r = binary(body, 1, DIMS(3), VALS(1, 2, 3), 1, DIMS(3), VALS(2, 2, 2));
        want(&r, 1, DIMS(3), cases[i].want);
    }
}
END_TEST

START_TEST(test_integer_division)
{
    Tensor p[2] = {tensor("int32", 1, DIMS(2), VALS(7, -7)),
                   tensor("int32", 1, DIMS(2), VALS(-2, 2))};
    Result r = eval_model("def @main(%x, %y) {\n  divide(%x, %y)\n}\n", p, 2, EVAL_DTYPE, 0);
    want(&r, 1, DIMS(2), VALS(-3, -3));
}
END_TEST

START_TEST(test_activations)
{
    Result r = unary("nn.relu(%x)", 1, DIMS(3), VALS(-1, 0, 2));
    want(&r, 1, DIMS(3), VALS(0, 0, 2));
    r = unary("sigmoid(%x)", 1, DIMS(1), VALS(0));
    want(&r, 1, DIMS(1), VALS(0.5));
    r = unary("tanh(%x)", 1, DIMS(1), VALS(0));
    want(&r, 1, DIMS(1), VALS(0));
    r = unary("clip(%x, a_min=-1f, a_max=1f)", 1, DIMS(3), VALS(-2, 0.5, 3));
    want(&r, 1, DIMS(3), VALS(-1, 0.5, 1));
    r = unary("rsqrt(%x)", 1, DIMS(2), VALS(4, 0.25));
    want(&r, 1, DIMS(2), VALS(0.5, 2));
    r = unary("erf(%x)", 1, DIMS(1), VALS(0));
    want(&r, 1, DIMS(1), VALS(0));
    r = unary("nn.hardswish(%x)", 1, DIMS(3), VALS(-4, 0, 3));
    want(&r, 1, DIMS(3), VALS(0, 0, 3));
    r = unary("nn.leaky_relu(%x, alpha=0.5f)", 1, DIMS(2), VALS(-4, 2));
    want(&r, 1, DIMS(2), VALS(-2, 2));
    r = unary("nn.gelu(%x)", 1, DIMS(1), VALS(0));
    want(&r, 1, DIMS(1), VALS(0));
}
END_TEST

START_TEST(test_reductions)
{
    const int64_t *d = DIMS(2, 3);
    const double *v = VALS(1, 2, 3, 4, 5, 9);
    Result r = unary("sum(%x, axis=[1], keepdims=True)", 2, d, v);
    want(&r, 2, DIMS(2, 1), VALS(6, 18));
    r = unary("sum(%x)", 2, d, v);
    want(&r, 0, NULL, VALS(24));
    r = unary("mean(%x, axis=[1], exclude=True)", 2, d, v);
    want(&r, 1, DIMS(3), VALS(2.5, 3.5, 6));
    r = unary("max(%x, axis=[-1])", 2, d, v);
    want(&r, 1, DIMS(2), VALS(3, 9));
    r = unary("min(%x, axis=[0])", 2, d, v);
    want(&r, 1, DIMS(3), VALS(1, 2, 3));
    r = unary("variance(%x, mean(%x, axis=[1], keepdims=True), axis=[1])", 2, d, v);
    want(&r, 1, DIMS(2), VALS(2.0 / 3, 14.0 / 3));
    r = unary("variance(%x, mean(%x, axis=[1], keepdims=True), axis=[1], unbiased=True)", 2, d,
              v);
    want(&r, 1, DIMS(2), VALS(1, 7));
}
END_TEST

/* note [empty axis]: axis None or [] combines every axis, whatever
 * exclude says, as TVM v0.14's GetReduceAxes (tvm/src/relay/op/
 * tensor/reduce.cc) types it; before, axis=[] reduced nothing and exclude=True
 * with no axis reduced nothing either, against graft's own types. */
START_TEST(test_reduce_empty_axis)
{
    const int64_t *d = DIMS(2, 3);
    const double *v = VALS(1, 2, 3, 4, 5, 9);
    Result r = unary("sum(%x, axis=[])", 2, d, v);
    want(&r, 0, NULL, VALS(24));
    r = unary("sum(%x, axis=[], exclude=True)", 2, d, v);
    want(&r, 0, NULL, VALS(24));
    r = unary("max(%x, exclude=True)", 2, d, v);
    want(&r, 0, NULL, VALS(9));
    r = unary("mean(%x, axis=[], keepdims=True)", 2, d, v);
    want(&r, 2, DIMS(1, 1), VALS(4));
    r = unary("sum(%x, axis=[0, 1], exclude=True)", 2, d, v); /* nothing left to combine */
    want(&r, 2, DIMS(2, 3), v);
}
END_TEST

START_TEST(test_softmax)
{
    Result r = unary("nn.softmax(%x)", 2, DIMS(2, 2), VALS(0, log(3), 5, 5));
    want(&r, 2, DIMS(2, 2), VALS(0.25, 0.75, 0.5, 0.5));
    r = unary("nn.softmax(%x, axis=0)", 2, DIMS(2, 2), VALS(0, 5, log(3), 5));
    want(&r, 2, DIMS(2, 2), VALS(0.25, 0.5, 0.75, 0.5));
    r = unary("nn.log_softmax(%x)", 1, DIMS(2), VALS(1, 1));
    want(&r, 1, DIMS(2), VALS(-log(2), -log(2)));
}
END_TEST

/* A non-zero epsilon: it goes under the root with the variance, so var 1
 * plus epsilon 3 halves the deviations (sqrt(var) + eps would quarter them,
 * a dropped epsilon keep them whole). */
START_TEST(test_norm_epsilon)
{
    Tensor q[3] = {tensor("float32", 2, DIMS(2, 2), VALS(1, 3, 4, 6)),
                   tensor("float32", 1, DIMS(2), VALS(2, 3)),
                   tensor("float32", 1, DIMS(2), VALS(0, 1))};
    Result r = eval_model("def @main(%x, %g, %b) {\n  nn.layer_norm(%x, %g, %b, epsilon=3f)\n}\n",
                          q, 3, EVAL_FLOAT64, 0);
    want(&r, 2, DIMS(2, 2), VALS(-1, 2.5, -1, 2.5));
    Tensor s[3] = {tensor("float32", 3, DIMS(1, 2, 2), VALS(0, 2, 7, 9)),
                   tensor("float32", 1, DIMS(2), VALS(1, 1)),
                   tensor("float32", 1, DIMS(2), VALS(0, 0))};
    r = eval_model("def @main(%x, %g, %b) {\n  nn.group_norm(%x, %g, %b, num_groups=2, "
                   "epsilon=3f)\n}\n", s, 3, EVAL_FLOAT64, 0);
    want(&r, 3, DIMS(1, 2, 2), VALS(-0.5, 0.5, -0.5, 0.5));
    /* no epsilon attribute: TVM's default, 1e-5 */
    Tensor u[3] = {tensor("float32", 2, DIMS(1, 2), VALS(1, 3)),
                   tensor("float32", 1, DIMS(2), VALS(1, 1)),
                   tensor("float32", 1, DIMS(2), VALS(0, 0))};
    r = eval_model("def @main(%x, %g, %b) {\n  nn.layer_norm(%x, %g, %b)\n}\n", u, 3,
                   EVAL_FLOAT64, 0);
    want(&r, 2, DIMS(1, 2), VALS(-1 / sqrt(1 + 1e-5), 1 / sqrt(1 + 1e-5)));
}
END_TEST

START_TEST(test_norms)
{
    /* (x - mean) / sqrt(var + eps) * gamma + beta per channel of axis 1 */
    Tensor p[5] = {tensor("float32", 4, DIMS(1, 2, 1, 2), VALS(1, 3, 2, 4)),
                   tensor("float32", 1, DIMS(2), VALS(1, 2)),
                   tensor("float32", 1, DIMS(2), VALS(0, 1)),
                   tensor("float32", 1, DIMS(2), VALS(1, 0)),
                   tensor("float32", 1, DIMS(2), VALS(3, 0))};
    Result r = eval_model("def @main(%x, %g, %b, %m, %v) {\n"
                          "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=1f);\n  %0.0\n}\n",
                          p, 5, EVAL_FLOAT64, 0);
    want(&r, 4, DIMS(1, 2, 1, 2), VALS(0, 1, 5, 9));
    /* layer norm over the last axis: [1, 3] has mean 2, variance 1 */
    Tensor q[3] = {tensor("float32", 2, DIMS(2, 2), VALS(1, 3, 4, 6)),
                   tensor("float32", 1, DIMS(2), VALS(2, 3)),
                   tensor("float32", 1, DIMS(2), VALS(0, 1))};
    r = eval_model("def @main(%x, %g, %b) {\n  nn.layer_norm(%x, %g, %b, epsilon=0f)\n}\n", q,
                   3, EVAL_FLOAT64, 0);
    want(&r, 2, DIMS(2, 2), VALS(-2, 4, -2, 4));
    /* group norm, 2 groups of 1 channel: each channel normalised alone */
    Tensor s[3] = {tensor("float32", 3, DIMS(1, 2, 2), VALS(0, 2, 7, 9)),
                   tensor("float32", 1, DIMS(2), VALS(1, 1)),
                   tensor("float32", 1, DIMS(2), VALS(0, 0))};
    r = eval_model("def @main(%x, %g, %b) {\n  nn.group_norm(%x, %g, %b, num_groups=2, "
                   "epsilon=0f)\n}\n", s, 3, EVAL_FLOAT64, 0);
    want(&r, 3, DIMS(1, 2, 2), VALS(-1, 1, -1, 1));
    /* batch norm's input gradient over the rows (seeds/003): column 0 has
       ivar 1, g = [1, 3], xhat = [1, -1]: dx = [-1, 1] - xhat * -1 = 0;
       column 1 has ivar 2, xhat = [-2, 2]: dx = 2 ([-1, 1] - 2 xhat) */
    const char *bprop = "def @main(%d, %x, %g, %xmu, %iv) {\n"
                        "  graft.batch_norm_bprop_dx(%d, %x, %g, %xmu, %iv)\n}\n";
    Tensor u[5] = {tensor("float32", 2, DIMS(2, 2), VALS(1, 2, 3, 4)),
                   tensor("float32", 2, DIMS(2, 2), VALS(0, 0, 0, 0)),
                   tensor("float32", 1, DIMS(2), VALS(1, 1)),
                   tensor("float32", 2, DIMS(2, 2), VALS(1, -1, -1, 1)),
                   tensor("float32", 1, DIMS(2), VALS(1, 2))};
    r = eval_model(bprop, u, 5, EVAL_FLOAT64, 0);
    want(&r, 2, DIMS(2, 2), VALS(0, 6, 0, -6));
    /* gamma 2 on delta 1: g = [2, 2]; ivar [1, 2] differs by row, so
       ivar g = [2, 4] (mean 3) and b = xmu ivar^3 = [1, 24] (mean 12.5),
       scaled by mean(g xmu) = 4: dx = [2 - 3 + 46, 4 - 3 - 46] */
    Tensor w[5] = {tensor("float32", 2, DIMS(2, 1), VALS(1, 1)),
                   tensor("float32", 2, DIMS(2, 1), VALS(0, 0)),
                   tensor("float32", 1, DIMS(1), VALS(2)),
                   tensor("float32", 2, DIMS(2, 1), VALS(1, 3)),
                   tensor("float32", 2, DIMS(2, 1), VALS(1, 2))};
    r = eval_model(bprop, w, 5, EVAL_FLOAT64, 0);
    want(&r, 2, DIMS(2, 1), VALS(45, -45));
    Tensor bad[5] = {tensor("float32", 2, DIMS(2, 1), VALS(1, 1)),
                     tensor("float32", 1, DIMS(1), VALS(0)),
                     tensor("float32", 1, DIMS(1), VALS(2)),
                     tensor("float32", 2, DIMS(2, 1), VALS(1, 3)),
                     tensor("float32", 1, DIMS(1), VALS(1))};
    r = eval_model(bprop, bad, 5, EVAL_FLOAT64, 0);
    want_error(&r, EVAL_BAD_INPUT,
               "graft.batch_norm_bprop_dx: operand 1 does not have delta's shape");
    Result t = binary("nn.bias_add(%x, %y)", 2, DIMS(2, 2), VALS(1, 2, 3, 4), 1, DIMS(2),
                      VALS(10, 20));
    want(&t, 2, DIMS(2, 2), VALS(11, 22, 13, 24));
}
END_TEST

START_TEST(test_conv2d)
{
    const double *x = VALS(1, 2, 3, 4, 5, 6, 7, 8, 9);
    Result r = binary("nn.conv2d(%x, %y)", 4, DIMS(1, 1, 3, 3), x, 4, DIMS(1, 1, 2, 2),
                      VALS(1, 1, 1, 1));
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(12, 16, 24, 28));
    r = binary("nn.conv2d(%x, %y, strides=[2, 2], padding=[1, 1, 1, 1])", 4, DIMS(1, 1, 3, 3), x,
               4, DIMS(1, 1, 2, 2), VALS(1, 1, 1, 1));
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(1, 5, 11, 28));
    /* TVM's short paddings: [p] pads all four sides, [h, w] top and bottom by h */
    r = binary("nn.conv2d(%x, %y, padding=[1])", 4, DIMS(1, 1, 3, 3), x, 4, DIMS(1, 1, 2, 2),
               VALS(1, 1, 1, 1));
    want(&r, 4, DIMS(1, 1, 4, 4), VALS(1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9));
    r = binary("nn.conv2d(%x, %y, padding=[1, 0])", 4, DIMS(1, 1, 3, 3), x, 4, DIMS(1, 1, 2, 2),
               VALS(1, 1, 1, 1));
    want(&r, 4, DIMS(1, 1, 4, 2), VALS(3, 5, 12, 16, 24, 28, 15, 17));
    r = binary("nn.conv2d(%x, %y, dilation=[2, 2])", 4, DIMS(1, 1, 3, 3), x, 4, DIMS(1, 1, 2, 2),
               VALS(1, 0, 0, 1));
    want(&r, 4, DIMS(1, 1, 1, 1), VALS(10));
    r = binary("nn.conv2d(%x, %y, groups=2)", 4, DIMS(1, 2, 1, 1), VALS(1, 2), 4,
               DIMS(2, 1, 1, 1), VALS(3, 4));
    want(&r, 4, DIMS(1, 2, 1, 1), VALS(3, 8));
    /* NHWC data, HWIO weights: 2 input channels summed into 1 */
    r = binary("nn.conv2d(%x, %y, data_layout=\"NHWC\", kernel_layout=\"HWIO\")", 4,
               DIMS(1, 1, 2, 2), VALS(1, 2, 3, 4), 4, DIMS(1, 1, 2, 1), VALS(10, 1));
    want(&r, 4, DIMS(1, 1, 2, 1), VALS(12, 34));
}
END_TEST

START_TEST(test_products)
{
    Result r = binary("nn.dense(%x, %y)", 2, DIMS(1, 2), VALS(1, 2), 2, DIMS(2, 2),
                      VALS(1, 0, 1, 1));
    want(&r, 2, DIMS(1, 2), VALS(1, 3));
    /* TVM's BatchMatmulAttrs: transpose_b defaults to false */
    r = binary("nn.batch_matmul(%x, %y)", 3, DIMS(1, 1, 2), VALS(1, 2), 3, DIMS(1, 2, 2),
               VALS(3, 4, 5, 6));
    want(&r, 3, DIMS(1, 1, 2), VALS(13, 16));
    r = binary("nn.batch_matmul(%x, %y, transpose_b=True)", 3, DIMS(1, 1, 2), VALS(1, 2), 3,
               DIMS(1, 2, 2), VALS(3, 4, 5, 6));
    want(&r, 3, DIMS(1, 1, 2), VALS(11, 17));
    r = binary("nn.matmul(%x, %y, transpose_a=True)", 2, DIMS(2, 1), VALS(1, 2), 2, DIMS(2, 1),
               VALS(3, 4));
    want(&r, 2, DIMS(1, 1), VALS(11));
}
END_TEST

START_TEST(test_matmul_ranks)
{
    /* MatmulRel: a vector a (k) gives (n); a (..., m, k) keeps its batch */
    Result r = binary("nn.matmul(%x, %y)", 1, DIMS(2), VALS(1, 2), 2, DIMS(2, 3),
                      VALS(1, 2, 3, 4, 5, 6));
    want(&r, 1, DIMS(3), VALS(9, 12, 15));
    r = binary("nn.matmul(%x, %y, transpose_b=True)", 3, DIMS(2, 1, 2), VALS(1, 2, 3, 4), 2,
               DIMS(2, 2), VALS(1, 0, 1, 1));
    want(&r, 3, DIMS(2, 1, 2), VALS(1, 3, 3, 7));
}
END_TEST

START_TEST(test_onnx_clip_bounds_crossed)
{
    /* Clip with min > max: max everywhere, as ONNX Runtime (cwiseMax(min),
       then cwiseMin(max)) and onnx's reference (np.clip) compute it; the
       kernel once gave min below it (graft verify then refuted ONNX
       Runtime's FuseReluClip) */
    Result r = unary("Clip(%x, 1f, -1f)", 1, DIMS(3), VALS(-2, 0, 2));
    want(&r, 1, DIMS(3), VALS(-1, -1, -1));
    r = unary("Clip(%x, -1f, 1f)", 1, DIMS(3), VALS(-2, 0, 2));
    want(&r, 1, DIMS(3), VALS(-1, 0, 1));
}
END_TEST

START_TEST(test_onnx_unsqueeze_max_rank)
{
    /* Unsqueeze up to EVAL_MAX_RANK (8): the ones at the given axes of the
       result, x's dims in order in the others; one axis more is refused */
    const double *v = VALS(1, 2, 3, 4, 5, 6);
    Result r = unary("Unsqueeze(%x, axes=[0, 2, 4, 7])", 4, DIMS(2, 1, 3, 1), v);
    want(&r, 8, DIMS(1, 2, 1, 1, 1, 3, 1, 1), v);
    r = unary("Unsqueeze(%x, axes=[0, 2, 4, 7, 8])", 4, DIMS(2, 3, 1, 1), v);
    want_error(&r, EVAL_BAD_INPUT, "Unsqueeze: result of rank 9");
}
END_TEST

START_TEST(test_onnx_matmul_batch)
{
    /* ONNX's MatMul, as numpy.matmul: a batch of two (1, 2) rows against one
       (2, 3) matrix, read for each (the encoder's projections; the kernel
       once read a second matrix past b's end) */
    Result r = binary("MatMul(%x, %y)", 3, DIMS(2, 1, 2), VALS(1, 2, 3, 4), 2, DIMS(2, 3),
                      VALS(1, 2, 3, 4, 5, 6));
    want(&r, 3, DIMS(2, 1, 3), VALS(9, 12, 15, 19, 26, 33));
    r = binary("MatMul(%x, %y)", 2, DIMS(1, 2), VALS(1, 2), 3, DIMS(2, 2, 1), VALS(1, 2, 3, 4));
    want(&r, 3, DIMS(2, 1, 1), VALS(5, 11));
}
END_TEST

/* ---- the layers' kernels (src/runtime/eval_kernels.c) against the plain
 * loops of the ops' definitions, bit for bit (note [kernel order]) ---- */

/* Irregular values in about [-1, 1], from a fixed sequence. */
static double *irregular(size_t n, uint64_t *state)
{
    double *v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        *state = *state * 6364136223846793005u + 1442695040888963407u;
        v[i] = (double)(int)((*state >> 33) % 2001 - 1000) / 997.0;
    }
    return v;
}

/* The result must hold exactly want's values. */
static void want_exactly(Result *r, size_t n, const double *want)
{
    ck_assert_msg(r->ok, "evaluation failed: %s", r->err.msg.data);
    ck_assert_uint_eq(r->v.t.size, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r->v.t.data[i] == want[i], "element %zu: %.17g, want %.17g", i,
                      r->v.t.data[i], want[i]);
    value_free(&r->v);
}

typedef struct Conv {
    int64_t n, cin, h, w, cout, kh, kw, groups, sh, sw, dh, dw, top, left, bottom, right;
} Conv;

/* The convolution of x (NCHW) and w (OIHW) as nn.conv2d defines it: each
 * output the sum over input channel, kernel row, kernel column in turn. */
static double *plain_conv(const Conv *k, const double *x, const double *w, int64_t oh,
                          int64_t ow)
{
    double *out = calloc((size_t)(k->n * k->cout * oh * ow) + 1, sizeof *out);
    int64_t cpg = k->cin / k->groups, opg = k->cout / k->groups;
    for (int64_t b = 0; b < k->n; b++)
        for (int64_t o = 0; o < k->cout; o++)
            for (int64_t i = 0; i < oh * ow; i++) {
                double acc = 0;
                for (int64_t ci = 0; ci < cpg; ci++)
                    for (int64_t ki = 0; ki < k->kh; ki++)
                        for (int64_t kj = 0; kj < k->kw; kj++) {
                            int64_t y = i / ow * k->sh - k->top + ki * k->dh;
                            int64_t xx = i % ow * k->sw - k->left + kj * k->dw;
                            if (y >= 0 && y < k->h && xx >= 0 && xx < k->w)
                                acc += x[((b * k->cin + o / opg * cpg + ci) * k->h + y) * k->w +
                                         xx] * w[((o * cpg + ci) * k->kh + ki) * k->kw + kj];
                        }
                out[(b * k->cout + o) * oh * ow + i] = acc;
            }
    return out;
}

static void check_conv(const Conv *k)
{
    uint64_t state = 7;
    int64_t cpg = k->cin / k->groups;
    double *x = irregular((size_t)(k->n * k->cin * k->h * k->w), &state);
    double *w = irregular((size_t)(k->cout * cpg * k->kh * k->kw), &state);
    int64_t oh = (k->h + k->top + k->bottom - k->dh * (k->kh - 1) - 1) / k->sh + 1;
    int64_t ow = (k->w + k->left + k->right - k->dw * (k->kw - 1) - 1) / k->sw + 1;
    double *want_v = plain_conv(k, x, w, oh, ow);
    char body[256];
    snprintf(body, sizeof body, "nn.conv2d(%%x, %%y, strides=[%lld, %lld], padding=[%lld, %lld, "
             "%lld, %lld], dilation=[%lld, %lld], groups=%lld)", (long long)k->sh,
             (long long)k->sw, (long long)k->top, (long long)k->left, (long long)k->bottom,
             (long long)k->right, (long long)k->dh, (long long)k->dw, (long long)k->groups);
    Result r = binary(body, 4, DIMS(k->n, k->cin, k->h, k->w), x, 4,
                      DIMS(k->cout, cpg, k->kh, k->kw), w);
    want_exactly(&r, (size_t)(k->n * k->cout * oh * ow), want_v);
    free(want_v);
    free(w);
    free(x);
}

/* ONNX's Conv attributes for k, with extra trailing spatial dims of 1 (a
 * 2-d Conv as a 3-d one, which takes the plain loop). */
static void onnx_conv_body(const Conv *k, int extra, const char *bias, char *body, size_t size)
{
    const char *one = extra ? ", 1" : "", *zero = extra ? ", 0" : "";
    snprintf(body, size, "Conv(%%x, %%y%s, strides=[%lld, %lld%s], pads=[%lld, %lld%s, %lld, "
             "%lld%s], dilations=[%lld, %lld%s], group=%lld)", bias, (long long)k->sh,
             (long long)k->sw, one, (long long)k->top, (long long)k->left, zero,
             (long long)k->bottom, (long long)k->right, zero, (long long)k->dh, (long long)k->dw,
             one, (long long)k->groups);
}

/* A 2-d ONNX Conv (through kernel_conv2d: eval_onnx_conv.c) holds the plain
 * definition's values exactly; with a bias, those of the plain loop that
 * a 3-d Conv (a trailing dim of 1) takes. */
static void check_onnx_conv(const Conv *k)
{
    uint64_t state = 11;
    int64_t cpg = k->cin / k->groups;
    size_t nx = (size_t)(k->n * k->cin * k->h * k->w), nw = (size_t)(k->cout * cpg * k->kh * k->kw);
    double *x = irregular(nx, &state), *w = irregular(nw, &state);
    double *b = irregular((size_t)k->cout, &state);
    int64_t oh = (k->h + k->top + k->bottom - k->dh * (k->kh - 1) - 1) / k->sh + 1;
    int64_t ow = (k->w + k->left + k->right - k->dw * (k->kw - 1) - 1) / k->sw + 1;
    size_t nout = (size_t)(k->n * k->cout * oh * ow);
    double *want_v = plain_conv(k, x, w, oh, ow);
    char body[320], model[512];
    onnx_conv_body(k, 0, "", body, sizeof body);
    Result r = binary(body, 4, DIMS(k->n, k->cin, k->h, k->w), x, 4,
                      DIMS(k->cout, cpg, k->kh, k->kw), w);
    want_exactly(&r, nout, want_v);
    Result with_bias[2];
    for (int extra = 0; extra < 2; extra++) {
        onnx_conv_body(k, extra, ", %b", body, sizeof body);
        snprintf(model, sizeof model, "def @main(%%x, %%y, %%b) {\n  %s\n}\n", body);
        Tensor p[3] = {tensor("float32", 4 + extra, DIMS(k->n, k->cin, k->h, k->w, 1), x),
                       tensor("float32", 4 + extra, DIMS(k->cout, cpg, k->kh, k->kw, 1), w),
                       tensor("float32", 1, DIMS(k->cout), b)};
        with_bias[extra] = eval_model(model, p, 3, EVAL_FLOAT64, 0);
        ck_assert_msg(with_bias[extra].ok, "%s", with_bias[extra].err.msg.data);
    }
    want_exactly(&with_bias[0], nout, with_bias[1].v.t.data);
    value_free(&with_bias[1].v);
    free(want_v);
    free(b);
    free(w);
    free(x);
}

START_TEST(test_onnx_conv2d_kernel_exact)
{
    check_onnx_conv(&(Conv){2, 4, 7, 6, 6, 3, 2, 2, 2, 1, 1, 2, 1, 2, 0, 1});
    check_onnx_conv(&(Conv){1, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    check_onnx_conv(&(Conv){1, 8, 5, 5, 8, 1, 1, 8, 1, 1, 1, 1, 0, 0, 0, 0});
    check_onnx_conv(&(Conv){1, 2, 6, 5, 9, 5, 5, 1, 3, 2, 1, 1, 4, 4, 4, 4});
}
END_TEST

START_TEST(test_conv2d_kernel_exact)
{
    /* 6 output channels: a block of 4 and a remainder; padding on every
     * side, strides, dilation, groups */
    check_conv(&(Conv){2, 4, 7, 6, 6, 3, 2, 2, 2, 1, 1, 2, 1, 2, 0, 1});
    check_conv(&(Conv){1, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    check_conv(&(Conv){1, 8, 5, 5, 8, 1, 1, 8, 1, 1, 1, 1, 0, 0, 0, 0});
    check_conv(&(Conv){1, 2, 6, 5, 9, 5, 5, 1, 3, 2, 1, 1, 4, 4, 4, 4});
}
END_TEST

/* (m, k) times (k, n), each stored transposed when asked, as the plain
 * definition: each output the sum over t in turn. */
static double *plain_product(const double *a, const double *b, int64_t m, int64_t k, int64_t n,
                             bool ta, bool tb)
{
    double *out = calloc((size_t)(m * n) + 1, sizeof *out);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t t = 0; t < k; t++)
                acc += a[ta ? t * m + i : i * k + t] * b[tb ? j * k + t : t * n + j];
            out[i * n + j] = acc;
        }
    return out;
}

static void check_product(const char *op, int64_t m, int64_t k, int64_t n, bool ta, bool tb)
{
    uint64_t state = 11;
    double *a = irregular((size_t)(m * k), &state), *b = irregular((size_t)(k * n), &state);
    double *want_v = plain_product(a, b, m, k, n, ta, tb);
    char body[128];
    bool dense = strcmp(op, "nn.dense") == 0;
    snprintf(body, sizeof body, dense ? "%s(%%x, %%y)" : "%s(%%x, %%y, transpose_a=%s, "
             "transpose_b=%s)", op, ta ? "True" : "False", tb ? "True" : "False");
    int rank = strcmp(op, "nn.batch_matmul") == 0 ? 3 : 2;
    int64_t da[3] = {1, ta ? k : m, ta ? m : k}, db[3] = {1, tb ? n : k, tb ? k : n};
    Result r = binary(body, rank, da + 3 - rank, a, rank, db + 3 - rank, b);
    want_exactly(&r, (size_t)(m * n), want_v);
    free(want_v);
    free(b);
    free(a);
}

START_TEST(test_products_kernel_exact)
{
    check_product("nn.dense", 6, 9, 7, false, true); /* dense: w is (units, k) */
    for (int f = 0; f < 4; f++) {
        check_product("nn.batch_matmul", 5, 7, 6, f & 1, f & 2);
        check_product("nn.matmul", 6, 3, 9, f & 1, f & 2);
    }
}
END_TEST

/* ONNX's Gemm (either operand transposed, alpha, beta, a C of (n) broadcast
 * to each row) and MatMul (a batch of three against one matrix), through
 * kernel_matmul (eval_onnx_nn.c): the values of the plain loops they had
 * before, alpha times the sum plus beta times C, bit for bit. */
static void check_onnx_gemm(int64_t m, int64_t k, int64_t n, bool ta, bool tb)
{
    uint64_t state = 5;
    double *a = irregular((size_t)(m * k), &state), *b = irregular((size_t)(k * n), &state);
    double *cv = irregular((size_t)n, &state);
    double *want_v = plain_product(a, b, m, k, n, ta, tb);
    for (int64_t i = 0; i < m * n; i++)
        want_v[i] = 0.5 * want_v[i] + -1.5 * cv[i % n];
    char model[256];
    snprintf(model, sizeof model, "def @main(%%x, %%y, %%c) {\n  Gemm(%%x, %%y, %%c, alpha=0.5f, "
             "beta=-1.5f, transA=%d, transB=%d)\n}\n", ta, tb);
    Tensor p[3] = {tensor("float32", 2, DIMS(ta ? k : m, ta ? m : k), a),
                   tensor("float32", 2, DIMS(tb ? n : k, tb ? k : n), b),
                   tensor("float32", 1, DIMS(n), cv)};
    Result r = eval_model(model, p, 3, EVAL_FLOAT64, 0);
    want_exactly(&r, (size_t)(m * n), want_v);
    free(want_v);
    free(cv);
    free(b);
    free(a);
}

START_TEST(test_onnx_products_kernel_exact)
{
    for (int f = 0; f < 4; f++)
        check_onnx_gemm(5, 7, 6, f & 1, f & 2);
    uint64_t state = 7;
    int64_t m = 4, k = 9, n = 5;
    double *a = irregular((size_t)(3 * m * k), &state), *b = irregular((size_t)(k * n), &state);
    double *want_v = malloc((size_t)(3 * m * n) * sizeof *want_v);
    for (int64_t s = 0; s < 3; s++) {
        double *one = plain_product(a + s * m * k, b, m, k, n, false, false);
        memcpy(want_v + s * m * n, one, (size_t)(m * n) * sizeof *one);
        free(one);
    }
    Result r = binary("MatMul(%x, %y)", 3, DIMS(3, m, k), a, 2, DIMS(k, n), b);
    want_exactly(&r, (size_t)(3 * m * n), want_v);
    free(want_v);
    free(b);
    free(a);
}
END_TEST

START_TEST(test_einsum)
{
    Result r = binary("einsum((%x, %y), equation=\"ij,jk->ik\")", 2, DIMS(2, 2),
                      VALS(1, 2, 3, 4), 2, DIMS(2, 2), VALS(5, 6, 7, 8));
    want(&r, 2, DIMS(2, 2), VALS(19, 22, 43, 50));
    r = binary("einsum((%x, %y), equation=\"i,j->ij\")", 1, DIMS(2), VALS(1, 2), 1, DIMS(3),
               VALS(3, 4, 5));
    want(&r, 2, DIMS(2, 3), VALS(3, 4, 5, 6, 8, 10));
    r = binary("einsum((%x, %y), equation=\"i,i->\")", 1, DIMS(3), VALS(1, 2, 3), 1, DIMS(3),
               VALS(4, 5, 6));
    want(&r, 0, DIMS(0), VALS(32));
    r = binary("einsum((%x, %y), equation=\",i->i\")", 0, DIMS(0), VALS(2), 1, DIMS(3),
               VALS(1, 2, 3));
    want(&r, 1, DIMS(3), VALS(2, 4, 6));
    r = binary("einsum((%x, %y), equation=\"bij,bjk->bik\")", 3, DIMS(2, 1, 2),
               VALS(1, 2, 3, 4), 3, DIMS(2, 2, 1), VALS(5, 6, 7, 8));
    want(&r, 3, DIMS(2, 1, 1), VALS(17, 53));
    /* a letter twice in one operand: its diagonal */
    r = unary("einsum((%x,), equation=\"ii->i\")", 2, DIMS(2, 2), VALS(1, 2, 3, 4));
    want(&r, 1, DIMS(2), VALS(1, 4));
    /* no "->": the letters that occur once, alphabetically (a transpose) */
    r = unary("einsum((%x,), equation=\"ji\")", 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    want(&r, 2, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6));
    r = binary("einsum((%x, %y), equation=\"ij,jk->ik\")", 2, DIMS(2, 3),
               VALS(1, 2, 3, 4, 5, 6), 2, DIMS(2, 1), VALS(1, 2));
    want_error(&r, EVAL_BAD_INPUT, "einsum: operand 2's dim 0 is 2, elsewhere 3");
    /* a size of 0 is a size: 3 against it disagrees, 0 against it sums nothing */
    r = binary("einsum((%x, %y), equation=\"ij,jk->ik\")", 2, DIMS(2, 0), VALS(0), 2,
               DIMS(3, 2), VALS(1, 2, 3, 4, 5, 6));
    want_error(&r, EVAL_BAD_INPUT, "einsum: operand 2's dim 0 is 3, elsewhere 0");
    r = binary("einsum((%x, %y), equation=\"ij,jk->ik\")", 2, DIMS(2, 0), VALS(0), 2,
               DIMS(0, 3), VALS(0));
    want(&r, 2, DIMS(2, 3), VALS(0, 0, 0, 0, 0, 0));
    r = binary("einsum((%x, %y), equation=\"...ij,...jk\")", 2, DIMS(1, 1), VALS(1), 2,
               DIMS(1, 1), VALS(1));
    want_error(&r, EVAL_BAD_INPUT,
               "einsum: equation \"...ij,...jk\": an ellipsis ('...') is not supported");
}
END_TEST

START_TEST(test_pooling)
{
    const double *x = VALS(1, 2, 3, 4, 5, 6, 7, 8, 9);
    Result r = unary("nn.max_pool2d(%x, pool_size=[2, 2])", 4, DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(5, 6, 8, 9));
    r = unary("nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1])", 4,
              DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(1, 2.5, 5.5, 7));
    r = unary("nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1], "
              "count_include_pad=True)", 4, DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(0.25, 1.25, 2.75, 7));
    r = unary("nn.global_avg_pool2d(%x)", 4, DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 1, 1), VALS(5));
    r = unary("nn.adaptive_avg_pool2d(%x, output_size=[2, 2])", 4, DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(3, 4, 6, 7));
    /* output_size=[] keeps the input's size, as the type relation (and
     * TVM's AdaptivePool2DRel) give it: each window one element */
    r = unary("nn.adaptive_avg_pool2d(%x, output_size=[])", 4, DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 3, 3), x);
    r = unary("nn.adaptive_max_pool2d(%x, output_size=[1, 3])", 4, DIMS(1, 1, 3, 3), x);
    want(&r, 4, DIMS(1, 1, 1, 3), VALS(7, 8, 9));
}
END_TEST

START_TEST(test_shapes)
{
    const double *v = VALS(1, 2, 3, 4, 5, 6);
    Result r = unary("reshape(%x, newshape=[0, -1])", 3, DIMS(2, 3, 1), v);
    want(&r, 2, DIMS(2, 3), v);
    r = unary("reshape(%x, newshape=[-3, -2])", 3, DIMS(2, 3, 1), v);
    want(&r, 2, DIMS(6, 1), v);
    r = unary("reshape(%x, newshape=[-4, 1, -1, -2])", 2, DIMS(2, 3), v);
    want(&r, 3, DIMS(1, 2, 3), v);
    r = unary("transpose(%x, axes=[1, 0])", 2, DIMS(2, 3), v);
    want(&r, 2, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6));
    r = unary("transpose(%x)", 2, DIMS(3, 2), v);
    want(&r, 2, DIMS(2, 3), VALS(1, 3, 5, 2, 4, 6));
    r = unary("expand_dims(%x, axis=1, num_newaxis=2)", 1, DIMS(6), v);
    want(&r, 3, DIMS(6, 1, 1), v);
    r = unary("squeeze(%x)", 3, DIMS(1, 6, 1), v);
    want(&r, 1, DIMS(6), v);
    r = unary("nn.batch_flatten(%x)", 3, DIMS(2, 3, 1), v);
    want(&r, 2, DIMS(2, 3), v);
    r = unary("broadcast_to(%x, shape=[2, 3])", 1, DIMS(3), VALS(1, 2, 3));
    want(&r, 2, DIMS(2, 3), VALS(1, 2, 3, 1, 2, 3));
    r = unary("concatenate((%x, %x), axis=1)", 2, DIMS(2, 1), VALS(1, 2));
    want(&r, 2, DIMS(2, 2), VALS(1, 1, 2, 2));
    r = unary("%0 = split(%x, indices_or_sections=[1], axis=1);\n  %0.1", 2, DIMS(2, 3), v);
    want(&r, 2, DIMS(2, 2), VALS(2, 3, 5, 6));
    r = unary("%0 = split(%x, indices_or_sections=3);\n  %0.2", 1, DIMS(6), v);
    want(&r, 1, DIMS(2), VALS(5, 6));
    r = unary("strided_slice(%x, begin=[1], end=[5], strides=[2])", 1, DIMS(6), v);
    want(&r, 1, DIMS(2), VALS(2, 4));
    r = unary("strided_slice(%x, begin=[0, 1], end=[2, 3])", 2, DIMS(2, 3), v);
    want(&r, 2, DIMS(2, 2), VALS(2, 3, 5, 6));
    r = unary("take(%x, 1, axis=1)", 2, DIMS(2, 3), v);
    want(&r, 1, DIMS(2), VALS(2, 5));
}
END_TEST

/* dyn.reshape and dyn.strided_slice (eval_dyn.c) by shapes the graph
 * computes, as an importer's module with unknown dims has them: x's shape
 * [2, 3] read back as [3, 2]; begin [0, 1], end [2, 3], strides [1, 2]
 * read from the shapes of slices of x. */
START_TEST(test_dyn_shapes)
{
    const double *v = VALS(1, 2, 3, 4, 5, 6);
    Result r = unary("%0 = shape_of(%x, dtype=\"int64\");\n"
                     "  %1 = expand_dims(take(%0, 1i64, axis=0), axis=0);\n"
                     "  %2 = expand_dims(take(%0, 0i64, axis=0), axis=0);\n"
                     "  dyn.reshape(%x, concatenate((%1, %2), axis=0), newshape=[])",
                     2, DIMS(2, 3), v);
    want(&r, 2, DIMS(3, 2), v);
    r = unary("%0 = shape_of(strided_slice(%x, begin=[0, 0], end=[0, 1]), dtype=\"int64\");\n"
              "  %1 = shape_of(strided_slice(%x, begin=[0, 0], end=[1, 2]), dtype=\"int64\");\n"
              "  dyn.strided_slice(%x, %0, shape_of(%x, dtype=\"int64\"), %1, begin=None, "
              "end=None, strides=None, axes=None)",
              2, DIMS(2, 3), v);
    want(&r, 2, DIMS(2, 1), VALS(2, 5));
}
END_TEST

START_TEST(test_cast_and_rounding)
{
    /* float16 keeps 11 significant bits: 1 + 2^-10 stays, 1 + 2^-11 ties
     * to even (1), 2049 becomes 2048; int8 wraps; ints truncate */
    ck_assert(eval_round(1 + 0x1p-10, "float16") == 1 + 0x1p-10);
    ck_assert(eval_round(1 + 0x1p-11, "float16") == 1);
    ck_assert(eval_round(1 + 0x1p-11 + 0x1p-20, "float16") == 1 + 0x1p-10);
    ck_assert(eval_round(2049, "float16") == 2048);
    ck_assert(eval_round(70000, "float16") == INFINITY);
    ck_assert(eval_round(0x1p-25, "float16") == 0);
    ck_assert(eval_round(0x1p-24, "float16") == 0x1p-24);
    ck_assert(eval_round(0.1, "float32") == (double)0.1f);
    ck_assert(eval_round(1 + 0x1p-9, "bfloat16") == 1);
    ck_assert(eval_round(200.7, "int8") == -56);
    ck_assert(eval_round(-2.7, "int32") == -2);
    ck_assert(eval_round(300, "uint8") == 44);
    ck_assert(eval_round(0.5, "bool") == 1);
    Result r = unary("cast(%x, dtype=\"int8\")", 1, DIMS(2), VALS(200.7, -3.9));
    ck_assert_str_eq(r.v.t.dtype, "int8");
    want(&r, 1, DIMS(2), VALS(-56, -3));
    /* each op rounded to its dtype in EVAL_DTYPE, not in EVAL_FLOAT64 */
    const char *model = "def @main(%x) {\n  add(%x, 1f16)\n}\n";
    Tensor p[1] = {tensor("float16", 1, DIMS(1), VALS(2048))};
    r = eval_model(model, p, 1, EVAL_DTYPE, 0);
    want(&r, 1, DIMS(1), VALS(2048));
    p[0] = tensor("float16", 1, DIMS(1), VALS(2048));
    r = eval_model(model, p, 1, EVAL_FLOAT64, 0);
    want(&r, 1, DIMS(1), VALS(2049));
}
END_TEST

/* meta[relay.Constant][i] from a metadata section (note [metadata
 * values]): four arrays, made by hand with Python's struct and base64 in
 * NDArray::Save's layout; constant 4 points past the arrays. */
static const char meta_section[] =
    "#[metadata]\n{\n  \"root\": 1,\n  \"nodes\": [\n    {\"type_key\": \"\"},\n"
    "    {\"type_key\": \"Map\", \"keys\": [\"relay.Constant\"], \"data\": [2]},\n"
    "    {\"type_key\": \"Array\", \"data\": [3, 4, 5, 6, 7]},\n"
    "    {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"3\"}},\n"
    "    {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"0\"}},\n"
    "    {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"1\"}},\n"
    "    {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"2\"}},\n"
    "    {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"9\"}}\n  ],\n"
    "  \"b64ndarrays\": [\n"
    "    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAIAQACAAAAAAAAAAIAAAAAAAAA/wI=\",\n"
    "    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIQAQACAAAAAAAAAAQAAAAAAAAAAD4AwA==\",\n"
    "    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAABAAQABAAAAAAAAAAgAAAAAAAAA+f////////8=\",\n"
    "    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAIAAAAAAAAAEAAAAAAAAAAAAAA/"
    "AACAvwAAAEAAAIBA\"\n  ],\n  \"attrs\": {\"tvm_version\": \"0.14.0\"}\n}\n";

static void want_meta(const EvalMeta *m, int64_t index, const char *dtype, int rank,
                      const int64_t *dims, const double *values)
{
    Tensor t;
    const char *why = eval_meta_constant(m, index, &t);
    ck_assert_msg(why == NULL, "constant %lld: %s", (long long)index, why);
    ck_assert_str_eq(t.dtype, dtype);
    ck_assert_int_eq(t.rank, rank);
    for (int i = 0; i < rank; i++)
        ck_assert_int_eq(t.dims[i], dims[i]);
    for (size_t i = 0; i < t.size; i++)
        ck_assert_msg(t.data[i] == values[i], "constant %lld element %zu: %g, want %g",
                      (long long)index, i, t.data[i], values[i]);
    tensor_free(&t);
}

START_TEST(test_meta_constants)
{
    EvalMeta *m = eval_meta_new(meta_section);
    want_meta(m, 0, "float32", 2, DIMS(2, 2), VALS(0.5, -1, 2, 4));
    want_meta(m, 1, "int8", 1, DIMS(2), VALS(-1, 2));
    want_meta(m, 2, "float16", 1, DIMS(2), VALS(1.5, -2));
    want_meta(m, 3, "int64", 1, DIMS(1), VALS(-7));
    Tensor t;
    ck_assert_str_eq(eval_meta_constant(m, 4, &t), "the metadata section holds no value for it");
    ck_assert_str_eq(eval_meta_constant(m, 5, &t), "the metadata section holds no value for it");
    eval_meta_free(m);
    m = eval_meta_new(NULL);
    ck_assert_str_eq(eval_meta_constant(m, 0, &t), "the module has no metadata section");
    eval_meta_free(m);
    m = eval_meta_new("#[metadata]\n{\"root\": 1, \"nodes\": [");
    ck_assert_str_eq(eval_meta_constant(m, 0, &t),
                     "its metadata section is not JSON as TVM writes it");
    eval_meta_free(m);
}
END_TEST

START_TEST(test_refusals)
{
    Result r = binary("add(%x, %y)", 1, DIMS(2), VALS(1, 2), 1, DIMS(3), VALS(1, 2, 3));
    want_error(&r, EVAL_BAD_INPUT, "add: shapes (2) and (3) do not broadcast");
    r = unary("nn.lrn(%x)", 1, DIMS(2), VALS(1, 2));
    want_error(&r, EVAL_NO_OP, "nn.lrn: no evaluator for this op");
    static const double zeros[18];
    r = binary("nn.conv2d(%x, %y)", 4, DIMS(1, 2, 3, 3), zeros, 4, DIMS(1, 1, 1, 1), VALS(1));
    want_error(&r, EVAL_BAD_INPUT, "nn.conv2d: 2 input channels, weights want 1 x 1 groups");
    /* TVM's Conv2DRel and DenseRel: weights of the kernel_size, channels
     * and units the call gives */
    r = binary("nn.conv2d(%x, %y, kernel_size=[3, 3])", 4, DIMS(1, 1, 3, 3), zeros, 4,
               DIMS(1, 1, 1, 1), VALS(1));
    want_error(&r, EVAL_BAD_INPUT, "nn.conv2d: weights 1 x 1, kernel_size [3, 3]");
    r = binary("nn.conv2d(%x, %y, channels=2, kernel_size=[1, 1])", 4, DIMS(1, 1, 3, 3), zeros,
               4, DIMS(1, 1, 1, 1), VALS(1));
    want_error(&r, EVAL_BAD_INPUT, "nn.conv2d: weights for 1 output channels, channels=2");
    r = binary("nn.dense(%x, %y, units=3)", 2, DIMS(1, 2), VALS(1, 2), 2, DIMS(2, 2), zeros);
    want_error(&r, EVAL_BAD_INPUT, "nn.dense: weight of 2 units, units=3");
    r = binary("nn.dense(%x, %y, units=2)", 2, DIMS(1, 2), VALS(1, 2), 2, DIMS(2, 2),
               VALS(1, 0, 1, 1));
    want(&r, 2, DIMS(1, 2), VALS(1, 3));
    Tensor p[1] = {tensor("float32", 1, DIMS(3), VALS(1, 2, 3))};
    r = eval_model("def @main(%x) {\n  broadcast_to(%x, shape=[2, 3])\n}\n", p, 1, EVAL_FLOAT64,
                   4);
    want_error(&r, EVAL_TOO_LARGE,
               "broadcast_to: result of 6 elements passes the eval-elements limit (4)");
    ck_assert(eval_has_op("nn.conv2d"));
    ck_assert(!eval_has_op("nn.lrn"));
}
END_TEST

/* EvalInputs.prepare (graft run --verify's calibration): before the
 * multiply it sets %w to (3, 4), and after it, once, to (5, 6), asking
 * for the multiply again; the result is x * (5, 6), and the hook saw the
 * call three times, the first result x * (3, 4). */
typedef struct PrepareLog {
    Tensor *params;
    int calls;
    double first[2];
} PrepareLog;

static bool prepare_w(void *ctx, const graft_node *n, const Value *vals, const Value *out)
{
    PrepareLog *log = ctx;
    (void)vals;
    ck_assert_str_eq(node_op(n), "multiply");
    double *w = log->params[1].data;
    log->calls++;
    if (!out) {
        w[0] = 3, w[1] = 4;
        return true;
    }
    if (log->calls == 2) {
        log->first[0] = out->t.data[0], log->first[1] = out->t.data[1];
        w[0] = 5, w[1] = 6;
        return true;
    }
    return false;
}

START_TEST(test_prepare_hook)
{
    const char *model = "def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {\n"
                        "  multiply(%x, %w)\n}\n";
    graft_diag *d = diag_new(stderr);
    Source *src = source_from_string("test.relay", model, strlen(model));
    graft_graph *g = relay_load(src, d);
    ck_assert_ptr_nonnull(g);
    Tensor params[2] = {tensor("float32", 1, DIMS(2), VALS(1, 2)),
                        tensor("float32", 1, DIMS(2), VALS(0, 0))};
    PrepareLog log = {params, 0, {0, 0}};
    EvalInputs in = {params, 2, NULL, &log, prepare_w};
    EvalOptions opts = {EVAL_DTYPE, 0};
    Value v;
    EvalError err = {0};
    ck_assert(eval_graph(g, &in, &opts, &v, &err));
    ck_assert_int_eq(log.calls, 3);
    ck_assert(log.first[0] == 3 && log.first[1] == 8);
    ck_assert(v.t.data[0] == 5 && v.t.data[1] == 12);
    value_free(&v);
    tensor_free(&params[0]);
    tensor_free(&params[1]);
    graph_free(g);
    source_free(src);
    diag_free(d);
}
END_TEST

/* divide and floor_divide on integers: truncated and floored quotients,
 * 0 for a zero divisor; floor_divide on floats floors the quotient. */
START_TEST(test_integer_floor_division)
{
    static const struct {
        const char *model;
        double want[3];
    } cases[] = {
        {"def @main(%x, %y) {\n  floor_divide(%x, %y)\n}\n", {-4, -4, 0}},
        {"def @main(%x, %y) {\n  divide(%x, %y)\n}\n", {-3, -3, 0}},
    };
    Result r;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Tensor p[2] = {tensor("int32", 1, DIMS(3), VALS(7, -7, 5)),
                       tensor("int32", 1, DIMS(3), VALS(-2, 2, 0))};
        r = eval_model(cases[i].model, p, 2, EVAL_DTYPE, 0);
        want(&r, 1, DIMS(3), cases[i].want);
    }
    r = binary("floor_divide(%x, %y)", 1, DIMS(2), VALS(7.5, -7.5), 0, NULL, VALS(-2));
    want(&r, 1, DIMS(2), VALS(-4, 3));
}
END_TEST

/* maximum and minimum, and ONNX's Max and Min: NaN wins from either
 * side, as numpy's (eval_maximum, eval_minimum). */
START_TEST(test_max_min_nan)
{
    static const struct {
        const char *body;
        double last; /* of 2 and 3 */
    } cases[] = {
        {"maximum(%x, %y)", 3}, {"minimum(%x, %y)", 2}, {"Max(%x, %y)", 3}, {"Min(%x, %y)", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Result r = binary(cases[i].body, 1, DIMS(3), VALS(NAN, 1, 2), 1, DIMS(3),
                          VALS(1, NAN, 3));
        ck_assert_msg(r.ok, "%s: %s", cases[i].body, r.err.msg.data);
        ck_assert(isnan(r.v.t.data[0]) && isnan(r.v.t.data[1]));
        ck_assert_double_eq(r.v.t.data[2], cases[i].last);
        value_free(&r.v);
    }
}
END_TEST

/* where(cond, x, y) and ONNX's Where broadcast all three: cond (2, 1),
 * x (3) and y a scalar give (2, 3). */
START_TEST(test_where_broadcasts)
{
    static const char *const models[] = {
        "def @main(%c, %x, %y) {\n  where(%c, %x, %y)\n}\n",
        "def @main(%c, %x, %y) {\n  Where(%c, %x, %y)\n}\n",
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        Tensor p[3] = {tensor("bool", 2, DIMS(2, 1), VALS(1, 0)),
                       tensor("float32", 1, DIMS(3), VALS(1, 2, 3)),
                       tensor("float32", 0, NULL, VALS(9))};
        Result r = eval_model(models[i], p, 3, EVAL_FLOAT64, 0);
        want(&r, 2, DIMS(2, 3), VALS(1, 2, 3, 9, 9, 9));
    }
}
END_TEST

/* ONNX ConvTranspose's pads: 2 values a spatial dim, the ends' taken off
 * the full result (x 1..4 by a 2 x 2 kernel of 1s is 3 x 3: [1, 3, 2],
 * [4, 10, 6], [3, 7, 4]); 3 values for 2 dims are refused. */
START_TEST(test_onnx_conv_transpose_pads)
{
    const double *x = VALS(1, 2, 3, 4), *w = VALS(1, 1, 1, 1);
    Result r = binary("ConvTranspose(%x, %y, pads=[0, 0, 1, 1])", 4, DIMS(1, 1, 2, 2), x, 4,
                      DIMS(1, 1, 2, 2), w);
    want(&r, 4, DIMS(1, 1, 2, 2), VALS(1, 3, 4, 10));
    r = binary("ConvTranspose(%x, %y, pads=[0, 0, 1])", 4, DIMS(1, 1, 2, 2), x, 4,
               DIMS(1, 1, 2, 2), w);
    want_error(&r, EVAL_BAD_INPUT, "ConvTranspose: pads has 3 values");
}
END_TEST

/* note [int lists] in src/ir/graph_attr.c, as the evaluator reads it
 * (eval_attr_ints): ONNX's Squeeze of x (1, 3, 1) by axes as one int, a
 * list of two, absent or None (every dim of 1), and the errors of a list
 * of nine (past EVAL_MAX_RANK) and of a float item, in eval_attr_ints'
 * words. */
START_TEST(test_int_list_attributes)
{
    static const struct {
        const char *body;
        int rank; /* of the result; -1: the error msg */
        const char *msg;
    } cases[] = {
        {"Squeeze(%x, axes=0)", 2, NULL},
        {"Squeeze(%x, axes=[0, 2])", 1, NULL},
        {"Squeeze(%x)", 1, NULL},
        {"Squeeze(%x, axes=None)", 1, NULL},
        {"Squeeze(%x, axes=[0, 0, 0, 0, 0, 0, 0, 0, 0])", -1,
         "Squeeze: attribute axes: wants a list of at most 8 ints"},
        {"Squeeze(%x, axes=[0, 1.5f])", -1, "Squeeze: attribute axes: item 1 is no int"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Result r = unary(cases[i].body, 3, DIMS(1, 3, 1), VALS(1, 2, 3));
        if (cases[i].rank < 0)
            want_error(&r, EVAL_BAD_INPUT, cases[i].msg);
        else
            want(&r, cases[i].rank, DIMS(3, 1), VALS(1, 2, 3));
    }
}
END_TEST

/* eval_nargs_first, how most kernels begin: an operand count past the
 * op's fails as eval_nargs says, a tuple for operand 0 as eval_arg says,
 * and a count between lo and hi takes operand 0. */
START_TEST(test_nargs_first)
{
    Result r = unary("Squeeze(%x, %x, %x)", 1, DIMS(1), VALS(1));
    want_error(&r, EVAL_BAD_INPUT, "Squeeze: 3 operands, wants 2");
    r = unary("Squeeze((%x, %x))", 1, DIMS(1), VALS(1));
    want_error(&r, EVAL_BAD_INPUT, "Squeeze: operand 1 is a tuple, wants a tensor");
    r = unary("Squeeze(%x)", 2, DIMS(1, 2), VALS(1, 2));
    want(&r, 1, DIMS(2), VALS(1, 2));
}
END_TEST

static Suite *eval_suite(void)
{
    Suite *s = suite_create("eval");
    TCase *tc = tcase_create("ops");
    tcase_add_test(tc, test_broadcast_arith);
    tcase_add_test(tc, test_comparisons);
    tcase_add_test(tc, test_integer_division);
    tcase_add_test(tc, test_activations);
    tcase_add_test(tc, test_reductions);
    tcase_add_test(tc, test_reduce_empty_axis);
    tcase_add_test(tc, test_softmax);
    tcase_add_test(tc, test_norms);
    tcase_add_test(tc, test_norm_epsilon);
    tcase_add_test(tc, test_conv2d);
    tcase_add_test(tc, test_products);
    tcase_add_test(tc, test_matmul_ranks);
    tcase_add_test(tc, test_onnx_clip_bounds_crossed);
    tcase_add_test(tc, test_onnx_matmul_batch);
    tcase_add_test(tc, test_onnx_unsqueeze_max_rank);
    tcase_add_test(tc, test_onnx_conv2d_kernel_exact);
    tcase_add_test(tc, test_conv2d_kernel_exact);
    tcase_add_test(tc, test_products_kernel_exact);
    tcase_add_test(tc, test_onnx_products_kernel_exact);
    tcase_add_test(tc, test_einsum);
    tcase_add_test(tc, test_pooling);
    tcase_add_test(tc, test_shapes);
    tcase_add_test(tc, test_dyn_shapes);
    tcase_add_test(tc, test_cast_and_rounding);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_meta_constants);
    tcase_add_test(tc, test_prepare_hook);
    tcase_add_test(tc, test_integer_floor_division);
    tcase_add_test(tc, test_max_min_nan);
    tcase_add_test(tc, test_where_broadcasts);
    tcase_add_test(tc, test_onnx_conv_transpose_pads);
    tcase_add_test(tc, test_int_list_attributes);
    tcase_add_test(tc, test_nargs_first);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(eval_suite());
}
