/* check_onnx_contrib.c - the evaluator kernels of ONNX Runtime's contrib
 * ops (src/runtime/eval_onnx_contrib.c) on the values of ONNX Runtime's
 * own tests, onnxruntime/test/contrib_ops/NAME_test.cc of the
 * microsoft/onnxruntime repository (each test names the file and the
 * TEST it copies): inputs and expected outputs as the test writes them,
 * compared within the test's float32 (or float16) precision.  Where an
 * ONNX Runtime test computes its expectation with a reference function
 * instead of listing it, the values here are worked out by hand from the
 * operator's documentation (docs/ContribOperators.md), and say so.
 *
 * Each case is a one-node ONNX model in text form whose inputs are all
 * initializers, imported as graft imports any model and evaluated by the
 * reference evaluator. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_consts.h"
#include "eval.h"
#include "onnx_graph.h"
#include "onnx_text.h"
#include "check_main.h"

/* Evaluates the model in text (its output: field 0 of a tuple output or
 * the output) and compares each element with want[i] within
 * tol * max(1, |want[i]|). */
static void check_model(const char *text, const double *want, size_t n, double tol)
{
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    Onnx__ModelProto *proto = onnx_text_read(src, NULL, d);
    ck_assert_ptr_nonnull(proto);
    OnnxModel *m = onnx_import(proto, "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    Consts cs = {.n = 0};
    EvalInputs in = {.constant = constant, .ctx = &cs};
    EvalOptions opts = {.mode = EVAL_FLOAT64};
    EvalError err = {0};
    Value out;
    bool ok = eval_graph(m->g, &in, &opts, &out, &err);
    ck_assert_msg(ok, "%s", err.msg.data ? err.msg.data : "?");
    const Tensor *y = out.nfields >= 0 ? &out.fields[0].t : &out.t;
    ck_assert_uint_eq(y->size, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(fabs(y->data[i] - want[i]) <= tol * fmax(1, fabs(want[i])),
                      "element %zu: %.9g, want %.9g", i, y->data[i], want[i]);
    value_free(&out);
    for (int i = 0; i < cs.n; i++)
        tensor_free(&cs.t[i]);
    strbuf_free(&err.msg);
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}

#define HEADER "<\n  ir_version: 8,\n  opset_import: [\"\" : 17, \"com.microsoft\" : 1]\n>\n"

/* fused_conv_test.cc, FusedConvTest.Conv2D_Relu. */
START_TEST(test_fused_conv_relu)
{
    const double want[] = {12, 16, 24, 28, 0, 0, 0, 0};
    check_model(HEADER "g () => (float[1, 2, 2, 2] y) <\n"
                "  float[1, 1, 3, 3] x = {1, 2, 3, 4, 5, 6, 7, 8, 9},\n"
                "  float[2, 1, 2, 2] w = {1, 1, 1, 1, -1, -1, -1, -1}\n"
                "> {\n  y = com.microsoft.FusedConv <activation: string = \"Relu\", "
                "kernel_shape: ints = [2, 2]> (x, w)\n}\n", want, 8, 1e-6);
}
END_TEST

/* fused_conv_test.cc, FusedConvTest.Conv2D_Bias_Relu. */
START_TEST(test_fused_conv_bias_relu)
{
    const double want[] = {13, 17, 25, 29, 11, 15, 23, 27};
    check_model(HEADER "g () => (float[1, 2, 2, 2] y) <\n"
                "  float[1, 1, 3, 3] x = {1, 2, 3, 4, 5, 6, 7, 8, 9},\n"
                "  float[2, 1, 2, 2] w = {1, 1, 1, 1, 1, 1, 1, 1},\n  float[2] b = {1, -1}\n"
                "> {\n  y = com.microsoft.FusedConv <activation: string = \"Relu\", "
                "kernel_shape: ints = [2, 2]> (x, w, b)\n}\n", want, 8, 1e-6);
}
END_TEST

/* fused_conv_test.cc, FusedConvTest.Cpu_Conv2D_Bias_Z_Relu: Z added
 * before the activation. */
START_TEST(test_fused_conv_bias_z_relu)
{
    const double want[] = {12, 17, 25, 29, 11, 15, 23, 28};
    check_model(HEADER "g () => (float[1, 2, 2, 2] y) <\n"
                "  float[1, 1, 3, 3] x = {1, 2, 3, 4, 5, 6, 7, 8, 9},\n"
                "  float[2, 1, 2, 2] w = {1, 1, 1, 1, 1, 1, 1, 1},\n  float[2] b = {1, -1},\n"
                "  float[1, 2, 2, 2] z = {-1, 0, 0, 0, 0, 0, 0, 1}\n"
                "> {\n  y = com.microsoft.FusedConv <activation: string = \"Relu\", "
                "kernel_shape: ints = [2, 2]> (x, w, b, z)\n}\n", want, 8, 1e-6);
}
END_TEST

/* fused_conv_test.cc, FusedConvTest.Conv2D_HardSigmoid: activation_params
 * are HardSigmoid's alpha and beta. */
START_TEST(test_fused_conv_hard_sigmoid)
{
    const double want[] = {0.8, 0.9, 1.0, 1.0, 0.2, 0.1, 0.0, 0.0};
    check_model(HEADER "g () => (float[1, 2, 2, 2] y) <\n"
                "  float[1, 1, 3, 3] x = {1, 2, 3, 4, 5, 6, 7, 8, 9},\n"
                "  float[2, 1, 2, 2] w = {0.125, 0.125, 0.125, 0.125, -0.125, -0.125, -0.125, "
                "-0.125}\n> {\n  y = com.microsoft.FusedConv <activation: string = "
                "\"HardSigmoid\", activation_params: floats = [0.2, 0.5], kernel_shape: ints = "
                "[2, 2]> (x, w)\n}\n", want, 8, 1e-6);
}
END_TEST

/* fastgelu_op_test.cc, FastGeluTest.FastGeluWithBiasFloat16: its
 * expected values are float16, so within float16's precision (2^-10). */
START_TEST(test_fast_gelu_bias)
{
    const double want[] = {0.1851806640625, 0.054046630859375, 1.0615234375, 3.095703125,
                           0, 0.63037109375, 1.3984375, 1.3984375};
    check_model(HEADER "g () => (float[1, 2, 4] y) <\n"
                "  float[1, 2, 4] x = {0.8, -0.5, 0, 1, 0.5, 0.2, 0.3, -0.6},\n"
                "  float[4] b = {-0.5, 0.6, 1.2, 2.1}\n"
                "> {\n  y = com.microsoft.FastGelu (x, b)\n}\n", want, 8, 1e-3);
}
END_TEST

/* fastgelu_op_test.cc, FastGeluTest.FastGeluWithoutBiasFloat16. */
START_TEST(test_fast_gelu)
{
    const double want[] = {0.63037109375, -0.154296875, 0.0, 0.8408203125,
                           0.345703125, 0.11578369140625, 0.1854248046875, -0.1646728515625};
    check_model(HEADER "g () => (float[1, 2, 4] y) <\n"
                "  float[1, 2, 4] x = {0.8, -0.5, 0, 1, 0.5, 0.2, 0.3, -0.6}\n"
                "> {\n  y = com.microsoft.FastGelu (x)\n}\n", want, 8, 1e-3);
}
END_TEST

/* skiplayernorm_op_test.cc, SkipLayerNormTest.SkipLayerNormBatch2
 * (epsilon 1e-12, the schema's default, as the test's epsilon_). */
static const double skip_ln_want[] = {
    0.28433859348297119, -0.17090578377246857, -0.92897164821624756, 4.6924152374267578,
    0.46111652255058289, -0.21333980560302734, -0.29631003737449646, 3.5148544311523438,
    0.55470430850982666, -0.15080101788043976, -2.3229825496673584,  3.255286693572998,
    0.15631480515003204, 0.21066918969154358,  4.9432611465454102,  -1.7957965135574341};

START_TEST(test_skip_layer_norm)
{
    check_model(HEADER "g () => (float[2, 2, 4] y) <\n"
                "  float[2, 2, 4] x = {0.8, -0.5, 0, 1, 0.5, 0.2, 0.3, -0.6, 0.8, -0.5, 0, 1, "
                "0.5, 0.2, 0.3, -0.6},\n"
                "  float[2, 2, 4] s = {0.1, -0.2, 0.3, 1, 0.5, 0.1, 0.4, 1.6, 1.8, -0.3, 0, 1, "
                "-0.5, 0.4, 0.8, -0.6},\n"
                "  float[4] gamma = {0.3, 0.2, 4, 2.2},\n  float[4] beta = {0.2, 0.1, 0.4, 1.6}\n"
                "> {\n  y = com.microsoft.SkipLayerNormalization (x, s, gamma, beta)\n}\n",
                skip_ln_want, 16, 1e-5);
}
END_TEST

/* skiplayernorm_op_test.cc, SkipLayerNormTest.SkipLayerNormBatch2_Bias:
 * the input less the bias, the bias added back. */
START_TEST(test_skip_layer_norm_bias)
{
    check_model(HEADER "g () => (float[2, 2, 4] y) <\n"
                "  float[2, 2, 4] x = {0.7, -0.4, -0.2, 1.2, 0.4, 0.3, 0.1, -0.4, 0.7, -0.4, "
                "-0.2, 1.2, 0.4, 0.3, 0.1, -0.4},\n"
                "  float[2, 2, 4] s = {0.1, -0.2, 0.3, 1, 0.5, 0.1, 0.4, 1.6, 1.8, -0.3, 0, 1, "
                "-0.5, 0.4, 0.8, -0.6},\n"
                "  float[4] gamma = {0.3, 0.2, 4, 2.2},\n  float[4] beta = {0.2, 0.1, 0.4, 1.6},\n"
                "  float[4] bias = {0.1, -0.1, 0.2, -0.2}\n"
                "> {\n  y = com.microsoft.SkipLayerNormalization (x, s, gamma, beta, bias)\n}\n",
                skip_ln_want, 16, 1e-5);
}
END_TEST

/* By hand (ONNX Runtime's gelu and bias_gelu tests compute theirs with a
 * reference function): Gelu(0) = 0, Gelu(1) = 0.5 (1 + erf(1 / sqrt 2)),
 * Gelu(-1) = 0.5 * -1 * (1 - erf(1 / sqrt 2)); BiasGelu adds the bias
 * first. */
START_TEST(test_gelu_and_bias_gelu)
{
    double e = erf(1 / sqrt(2.0));
    const double want[] = {0, 0.5 * (1 + e), -0.5 * (1 - e), 0.5 * (1 + e)};
    check_model(HEADER "g () => (float[4] y) <\n  float[4] x = {0, 1, -1, 1}\n"
                "> {\n  y = com.microsoft.Gelu (x)\n}\n", want, 4, 1e-6);
    check_model(HEADER "g () => (float[2, 2] y) <\n  float[2, 2] x = {1, 0, 0, 0},\n"
                "  float[2] b = {-1, 1}\n> {\n  y = com.microsoft.BiasGelu (x, b)\n}\n",
                want, 4, 1e-6);
}
END_TEST

/* By hand: FusedMatMul's alpha and transB on integers (exact), against
 * A = [[1, 2], [3, 4]], B' = [[5, 6], [7, 8]] (B given transposed):
 * 0.5 * A @ B = 0.5 * [[19, 22], [43, 50]]. */
START_TEST(test_fused_matmul)
{
    const double want[] = {9.5, 11, 21.5, 25};
    check_model(HEADER "g () => (float[2, 2] y) <\n  float[2, 2] a = {1, 2, 3, 4},\n"
                "  float[2, 2] b = {5, 7, 6, 8}\n> {\n  y = com.microsoft.FusedMatMul "
                "<alpha: float = 0.5, transB: int = 1> (a, b)\n}\n", want, 4, 1e-9);
}
END_TEST

/* By hand: FusedGemm with LeakyRelu (activation_alpha 0.1): A @ B + C =
 * [[1, -3]] becomes [[1, -0.3]]. */
START_TEST(test_fused_gemm)
{
    const double want[] = {1, -0.3};
    check_model(HEADER "g () => (float[1, 2] y) <\n  float[1, 2] a = {1, 2},\n"
                "  float[2, 2] b = {1, -1, 0, -1},\n  float[2] c = {0, 0}\n"
                "> {\n  y = com.microsoft.FusedGemm <activation: string = \"LeakyRelu\", "
                "activation_alpha: float = 0.1> (a, b, c)\n}\n", want, 2, 1e-6);
}
END_TEST

/* By hand: BiasSoftmax of rows [0, 0] and [1, -1] plus a bias broadcast
 * over them (the documented softmax(data + bias) along axis 2). */
START_TEST(test_bias_softmax)
{
    const double want[] = {0.5, 0.5, 1 / (1 + exp(-2.0)), 1 - 1 / (1 + exp(-2.0))};
    check_model(HEADER "g () => (float[1, 2, 2] y) <\n  float[1, 2, 2] x = {1, 1, 1.5, -0.5},\n"
                "  float[1, 1, 2] b = {-1, -1}\n> {\n  y = com.microsoft.BiasSoftmax <axis: int = "
                "2, is_inner_broadcast: int = 0> (x, b)\n}\n", want, 4, 1e-9);
}
END_TEST

/* By hand: SimplifiedLayerNormalization of [3, 4] (root mean square
 * sqrt(12.5)) with scale [1, 2] and SkipSimplifiedLayerNormalization of
 * [1, 4] + [2, 0] (the same row). */
START_TEST(test_simplified_layer_norm)
{
    double r = sqrt(12.5 + 1e-5);
    const double want[] = {3 / r, 8 / r};
    check_model(HEADER "g () => (float[1, 2] y) <\n  float[1, 2] x = {3, 4},\n"
                "  float[2] g = {1, 2}\n> {\n  y = com.microsoft.SimplifiedLayerNormalization "
                "(x, g)\n}\n", want, 2, 1e-6);
    check_model(HEADER "g () => (float[1, 1, 2] y) <\n  float[1, 1, 2] x = {1, 4},\n"
                "  float[1, 1, 2] s = {2, 0},\n  float[2] g = {1, 2}\n> {\n  y = "
                "com.microsoft.SkipSimplifiedLayerNormalization <epsilon: float = 1e-05> "
                "(x, s, g)\n}\n", want, 2, 1e-6);
}
END_TEST

/* Gemm's kernel refuses a C that does not broadcast to (M, N) instead of
 * reading past its end (graft verify's instances once gave it one, and
 * found a rewrite of Gemm "refuted" by the garbage): the node of a valid
 * model, evaluated on a C of 2 rows for a 3 x 3 result. */
START_TEST(test_gemm_c_shape)
{
    const char *text = HEADER "g (float[3, 2] a, float[2, 3] b, float[3, 3] c) => "
                       "(float[3, 3] y) {\n  y = com.microsoft.FusedGemm (a, b, c)\n}\n";
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    int64_t da[2] = {3, 2}, db[2] = {2, 3}, dc[2] = {2, 3};
    Value args[3] = {{.nfields = -1, .t = tensor_new("float32", 2, da)},
                     {.nfields = -1, .t = tensor_new("float32", 2, db)},
                     {.nfields = -1, .t = tensor_new("float32", 2, dc)}};
    EvalOptions opts = {.mode = EVAL_FLOAT64};
    EvalError err = {0};
    Value out = {0}; /* (eval_op frees it on failure) */
    const graft_node *gemm = NULL;
    for (uint32_t id = 0; id < graph_node_count(m->g); id++)
        if (node_kind(graph_node(m->g, id)) == NODE_CALL)
            gemm = graph_node(m->g, id);
    ck_assert_ptr_nonnull(gemm);
    ck_assert(!eval_op(gemm, args, 3, &opts, &out, &err));
    ck_assert_str_eq(err.msg.data, "Gemm: C does not broadcast to (3, 3)");
    for (int i = 0; i < 3; i++)
        value_free(&args[i]);
    strbuf_free(&err.msg);
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}
END_TEST

/* attention_op_test.cc, AttentionTest.AttentionBatch1 (its mask_index
 * {2} masks nothing of the two tokens, so the input is left out here). */
static const char attention_w[] =
    "0.1, -0.2, 0.3, 1.0, 1.1, 0.3, 0.5, 0.2, 0.3, -0.6, 1.5, 2.0, "
    "0.5, 0.1, 0.4, 1.6, 1.0, 2.0, 0.4, 0.8, 0.9, 0.1, -1.3, 0.7, "
    "0.3, 0.2, 4.0, 2.2, 1.6, 1.1, 0.7, 0.2, 0.4, 1.0, 1.2, 0.5, "
    "0.2, 0.1, 0.4, 1.6, 2.4, 3.3, 2.1, 4.2, 8.4, 0.0, 2.1, 3.2";
#define ATTENTION_BIAS "-0.5, 0.6, 1.2, 2.1, 0.5, 0.7, 0.2, 1.2, 0.5, 0.4, 0.3, 1.2"
static const double attention_want[] = {
    3.1495983600616455, 0.10843668878078461, 4.25, 5.6499996185302734,
    3.9696791172027588, 0.073143675923347473, 4.2499995231628418, 5.6499991416931152};

START_TEST(test_attention)
{
    char text[2048];
    snprintf(text, sizeof text, HEADER
             "g () => (float[1, 2, 4] y) <\n"
             "  float[1, 2, 4] x = {0.8, -0.5, 0.0, 1.0, 0.5, 0.2, 0.3, -0.6},\n"
             "  float[4, 12] w = {%s},\n  float[12] b = {" ATTENTION_BIAS "}\n> {\n"
             "  y = com.microsoft.Attention <num_heads = 2> (x, w, b)\n}\n", attention_w);
    check_model(text, attention_want, 8, 1e-6);
}
END_TEST

/* MultiHeadAttention on the same values: its query, key and value are
 * the thirds of AttentionBatch1's input @ weights (worked out by hand,
 * exact in decimal), its bias Attention's, so ONNX Runtime's expected
 * output is the same (docs/ContribOperators.md: the bias is added to the
 * query, key and value before the heads are split). */
START_TEST(test_multi_head_attention)
{
    static const char text[] = HEADER
        "g () => (float[1, 2, 4] y) <\n"
        "  float[1, 2, 4] q = {0.03, -0.11, 0.44, 1.6, 0.12, -0.08, 1.19, 0.52},\n"
        "  float[1, 2, 4] k = {2.78, 2.54, 2.3, 3.96, -0.21, -1.1, -0.72, -2.2},\n"
        "  float[1, 2, 4] v = {8.19, -0.53, 3.95, 4.45, -4.59, 0.02, -0.41, -0.63},\n"
        "  float[12] b = {" ATTENTION_BIAS "}\n> {\n"
        "  y = com.microsoft.MultiHeadAttention <num_heads = 2> (q, k, v, b)\n}\n";
    check_model(text, attention_want, 8, 1e-6);
}
END_TEST

/* SDPA, the private op of stdpatterns/onnx/sdpa_mha.graft (onnxscript's
 * staged fusions), on the same values: the biased query, key and value
 * of test_multi_head_attention (worked out by hand) split into (batch,
 * head, token, 2), the key transposed per head, the scale Attention's
 * default 1 / sqrt(2); its output is AttentionBatch1's, head by head. */
START_TEST(test_sdpa)
{
    static const char text[] = "<\n  ir_version: 8,\n"
        "  opset_import: [\"\" : 17, \"graft.private\" : 1]\n>\n"
        "g () => (float[1, 2, 2, 2] y) <\n"
        "  float[1, 2, 2, 2] q = {-0.47, 0.49, -0.38, 0.52, 1.64, 3.7, 2.39, 2.62},\n"
        "  float[1, 2, 2, 2] kt = {3.28, 0.29, 3.24, -0.4, 2.5, -0.52, 5.16, -1.0},\n"
        "  float[1, 2, 2, 2] v = {8.69, -0.13, -4.09, 0.42, 4.25, 5.65, -0.11, 0.57}\n> {\n"
        "  y = graft.private.SDPA <scale: float = 0.70710678> (q, kt, v)\n}\n";
    static const double want[] = {attention_want[0], attention_want[1], attention_want[4],
                                  attention_want[5], attention_want[2], attention_want[3],
                                  attention_want[6], attention_want[7]};
    check_model(text, want, 8, 1e-6);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("onnx_contrib");
    TCase *tc = tcase_create("kernels");
    tcase_add_test(tc, test_fused_conv_relu);
    tcase_add_test(tc, test_fused_conv_bias_relu);
    tcase_add_test(tc, test_fused_conv_bias_z_relu);
    tcase_add_test(tc, test_fused_conv_hard_sigmoid);
    tcase_add_test(tc, test_fast_gelu_bias);
    tcase_add_test(tc, test_fast_gelu);
    tcase_add_test(tc, test_skip_layer_norm);
    tcase_add_test(tc, test_skip_layer_norm_bias);
    tcase_add_test(tc, test_gelu_and_bias_gelu);
    tcase_add_test(tc, test_fused_matmul);
    tcase_add_test(tc, test_fused_gemm);
    tcase_add_test(tc, test_bias_softmax);
    tcase_add_test(tc, test_simplified_layer_norm);
    tcase_add_test(tc, test_gemm_c_shape);
    tcase_add_test(tc, test_attention);
    tcase_add_test(tc, test_multi_head_attention);
    tcase_add_test(tc, test_sdpa);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(suite());
}
