/* check_onnx_control.c - ONNX's control flow ops, If, Loop and Scan: their
 * kernels (src/runtime/eval_onnx_control.c, eval_onnx_scan.c) on what
 * libonnx-testdata's node tests leave out (check_onnx_ops runs those:
 * test_if, test_loop11, test_scan_sum, test_scan9_sum): subgraphs that
 * read values of the graphs around them (note [outer reads] in
 * src/onnx/onnx_subgraph.h), nested ones, a Loop that its condition ends,
 * a Scan in reverse with its scan output on axis 1, and the errors; and
 * their inference (src/onnx/onnx_control_infer.c) where the branches
 * disagree and where the iteration count is unknown.  The expected
 * values are worked out by hand from onnx/defs/controlflow/defs.cc's
 * definitions (each case says how).
 *
 * Each case is an ONNX model in text form whose inputs are initializers,
 * imported as graft imports any model and evaluated by the reference
 * evaluator; every output is compared exactly. */
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

#define HEADER "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"

/* One expected output: its shape as text ("(2, 3)") and its values. */
typedef struct Want {
    const char *shape;
    double values[16];
} Want;

static OnnxModel *import_text(const char *text, graft_diag *d)
{
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    Onnx__ModelProto *proto = onnx_text_read(src, NULL, d);
    source_free(src);
    ck_assert_ptr_nonnull(proto);
    OnnxModel *m = onnx_import(proto, "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    return m;
}

/* Evaluates the model; true with *out its value, or false with the
 * error's message in *msg. */
static bool run_model(OnnxModel *m, Value *out, StrBuf *msg)
{
    Consts cs = {.n = 0};
    EvalInputs in = {.constant = constant, .ctx = &cs};
    EvalOptions opts = {.mode = EVAL_DTYPE, .max_elements = 1000};
    EvalError err = {0};
    bool ok = eval_graph(m->g, &in, &opts, out, &err);
    if (!ok)
        strbuf_puts(msg, err.msg.data ? err.msg.data : "?");
    for (int i = 0; i < cs.n; i++)
        tensor_free(&cs.t[i]);
    strbuf_free(&err.msg);
    return ok;
}

/* Evaluates the model in text and compares graph output k (a field of a
 * tuple output, note [kept values], or the output itself) with want[k],
 * for each of its nwant outputs. */
static void check_model(const char *text, const Want *want, int nwant)
{
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = import_text(text, d);
    Value out;
    StrBuf msg = {0};
    ck_assert_msg(run_model(m, &out, &msg), "%s", msg.data ? msg.data : "");
    ck_assert_int_eq(m->noutputs, nwant);
    for (int k = 0; k < nwant; k++) {
        const Tensor *y = m->tupled ? &out.fields[k].t : &out.t;
        StrBuf shape = {0};
        tensor_shape_text(y, &shape);
        ck_assert_str_eq(shape.data, want[k].shape);
        strbuf_free(&shape);
        for (size_t i = 0; i < y->size; i++)
            ck_assert_msg(y->data[i] == want[k].values[i], "output %d, element %zu: %.9g, want %.9g",
                          k, i, y->data[i], want[k].values[i]);
    }
    value_free(&out);
    strbuf_free(&msg);
    onnx_graph_free(m);
    diag_free(d);
}

/* Evaluates the model in text and checks that it fails with message. */
static void check_error(const char *text, const char *message)
{
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = import_text(text, d);
    Value out;
    StrBuf msg = {0};
    ck_assert(!run_model(m, &out, &msg));
    ck_assert_str_eq(msg.data, message);
    strbuf_free(&msg);
    onnx_graph_free(m);
    diag_free(d);
}

/* The type inference gives the node making value name (graph_value_name)
 * of the model in text, as graft prints types. */
static void check_type(const char *text, const char *name, const char *want)
{
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = import_text(text, d);
    const graft_node *n = NULL;
    for (uint32_t id = 0; id < graph_node_count(m->g) && !n; id++) {
        const char *v = graph_value_name(m->g, graph_node(m->g, id));
        if (v && strcmp(v, name) == 0)
            n = graph_node(m->g, id);
    }
    ck_assert_ptr_nonnull(n);
    ck_assert_ptr_nonnull(node_type(n));
    ck_assert_str_eq(node_type(n)->text, want);
    onnx_graph_free(m);
    diag_free(d);
}

/* If whose branches read x and w of the main graph: then x + w, else
 * x * w. */
#define IF_OUTER(cond)                                                          \
    HEADER "g () => (float[2] y) <int64 ci = {" cond "}, float[2] x = {1, 2},\n"  \
           "  float[2] w = {10, 20}> {\n"                                       \
           "  c = Cast <to = 9> (ci)\n"                                          \
           "  y = If (c) <then_branch: graph = t () => (float[2] a) {\n"       \
           "    a = Add (x, w)\n"                                               \
           "  }, else_branch: graph = e () => (float[2] b) {\n"                 \
           "    b = Mul (x, w)\n"                                               \
           "  }>\n"                                                             \
           "}\n"

START_TEST(test_if_outer_reads)
{
    Want then_want = {"(2)", {11, 22}}, else_want = {"(2)", {10, 40}};
    check_model(IF_OUTER("1"), &then_want, 1);
    check_model(IF_OUTER("0"), &else_want, 1);
}
END_TEST

/* An If in the then_branch of an If, reading x two graphs out and the
 * outer branch's own t: Neg(x) + 1 = (-1, -2) + 1. */
START_TEST(test_if_nested)
{
    const char *text = HEADER
        "g () => (float[2] y) <int64 ci = {1}, float[2] x = {1, 2}> {\n"
        "  c = Cast <to = 9> (ci)\n"
        "  y = If (c) <then_branch: graph = t () => (float[2] a) {\n"
        "    one = Constant <value = float[1] {1}> ()\n"
        "    a = If (c) <then_branch: graph = tt () => (float[2] b) {\n"
        "      n = Neg (x)\n"
        "      b = Add (n, one)\n"
        "    }, else_branch: graph = te () => (float[2] b) {\n"
        "      b = Identity (x)\n"
        "    }>\n"
        "  }, else_branch: graph = e () => (float[2] a) {\n"
        "    a = Identity (x)\n"
        "  }>\n"
        "}\n";
    Want want = {"(2)", {0, -1}};
    check_model(text, &want, 1);
}
END_TEST

/* Loop M=3 carrying s (from 0) through s + x, x read from the main
 * graph, its scan output s after each iteration: (1, 2), (2, 4), (3, 6). */
START_TEST(test_loop_outer_read)
{
    const char *text = HEADER
        "g () => (float[2] s, float[3, 2] all) <int64 m = {3}, int64 ci = {1},\n"
        "  float[2] s0 = {0, 0}, float[2] x = {1, 2}> {\n"
        "  c = Cast <to = 9> (ci)\n"
        "  s, all = Loop (m, c, s0) <body: graph = b (int64 i, bool ci, float[2] si)\n"
        "      => (bool co, float[2] so, float[2] sc) {\n"
        "    co = Identity (ci)\n"
        "    so = Add (si, x)\n"
        "    sc = Identity (so)\n"
        "  }>\n"
        "}\n";
    Want want[2] = {{"(2)", {3, 6}}, {"(3, 2)", {1, 2, 2, 4, 3, 6}}};
    check_model(text, want, 2);
}
END_TEST

/* A Loop its condition ends: co = i < 1 stops it after iterations 0 and
 * 1 of M=10; the scan output is the iteration number, cast to float. */
START_TEST(test_loop_condition_ends)
{
    const char *text = HEADER
        "g () => (float[2] all) <int64 m = {10}, int64 ci = {1}, int64 one = {1}> {\n"
        "  c = Cast <to = 9> (ci)\n"
        "  all = Loop (m, c) <body: graph = b (int64 i, bool ci) => (bool co, float f) {\n"
        "    co = Less (i, one)\n"
        "    f = Cast <to = 1> (i)\n"
        "  }>\n"
        "}\n";
    Want want = {"(2)", {0, 1}};
    check_model(text, &want, 1);
}
END_TEST

/* Scan over the rows of x in reverse (scan_input_directions [1]), summing
 * them: rows (5, 6), (3, 4), (1, 2) give (5, 6), (8, 10), (9, 12), stacked
 * on axis 1 (scan_output_axes [1]) into a [2, 3] tensor. */
START_TEST(test_scan_reverse_axis1)
{
    const char *text = HEADER
        "g () => (float[2] s, float[2, 3] all) <float[2] s0 = {0, 0},\n"
        "  float[3, 2] x = {1, 2, 3, 4, 5, 6}> {\n"
        "  s, all = Scan <num_scan_inputs = 1, scan_input_directions = [1],\n"
        "      scan_output_axes = [1], body: graph = b (float[2] si, float[2] r)\n"
        "      => (float[2] so, float[2] sc) {\n"
        "    so = Add (si, r)\n"
        "    sc = Identity (so)\n"
        "  }> (s0, x)\n"
        "}\n";
    Want want[2] = {{"(2)", {9, 12}}, {"(2, 3)", {5, 8, 9, 6, 10, 12}}};
    check_model(text, want, 2);
}
END_TEST

/* Scan along axis 1 of x, columns (1, 4), (2, 5), (3, 6), and a body that
 * reads w of the main graph: the state times w plus the column. */
START_TEST(test_scan_input_axis_outer_read)
{
    const char *text = HEADER
        "g () => (float[2] s) <float[2] s0 = {0, 0}, float[2, 3] x = {1, 2, 3, 4, 5, 6},\n"
        "  float[2] w = {10, 1}> {\n"
        "  s = Scan <num_scan_inputs = 1, scan_input_axes = [1],\n"
        "      body: graph = b (float[2] si, float[2] col) => (float[2] so) {\n"
        "    t = Mul (si, w)\n"
        "    so = Add (t, col)\n"
        "  }> (s0, x)\n"
        "}\n";
    /* column 0: (1, 4); 1: (10 + 2, 4 + 5) = (12, 9); 2: (123, 15) */
    Want want = {"(2)", {123, 15}};
    check_model(text, &want, 1);
}
END_TEST

START_TEST(test_errors)
{
    check_error(HEADER "g () => (float[2] y) <int64[2] ci = {1, 0}> {\n"
                       "  c = Cast <to = 9> (ci)\n"
                       "  y = If (c) <then_branch: graph = t () => (float[2] a) {\n"
                       "    a = Constant <value = float[2] {1, 2}> ()\n"
                       "  }, else_branch: graph = e () => (float[2] a) {\n"
                       "    a = Constant <value = float[2] {3, 4}> ()\n"
                       "  }>\n"
                       "}\n",
                "If: cond has 2 elements, wants 1");
    check_error(HEADER "g () => (float[2] s) <float[2] s0 = {1, 2}> {\n"
                       "  s = Loop (, , s0) <body: graph = b (int64 i, bool c, float[2] si)\n"
                       "      => (bool co, float[2] so) {\n"
                       "    co = Identity (c)\n"
                       "    so = Identity (si)\n"
                       "  }>\n"
                       "}\n",
                "Loop: neither M nor cond is given: the loop never ends");
    /* an error inside a body names the branch and the body's node */
    check_error(HEADER "g () => (float[2] y) <int64 ci = {1}, float[2] x = {1, 2},\n"
                       "  float[3] z = {1, 2, 3}> {\n"
                       "  c = Cast <to = 9> (ci)\n"
                       "  y = If (c) <then_branch: graph = t () => (float[2] a) {\n"
                       "    [sum] a = Add (x, z)\n"
                       "  }, else_branch: graph = e () => (float[2] a) {\n"
                       "    a = Identity (x)\n"
                       "  }>\n"
                       "}\n",
                "If: then_branch, node 'sum': Add: shapes (2) and (3) do not broadcast");
    /* a while loop that never ends stops at the element limit */
    check_error(HEADER "g () => (float[2] s) <int64 ci = {1}, float[2] s0 = {1, 2}> {\n"
                       "  c = Cast <to = 9> (ci)\n"
                       "  s = Loop (, c, s0) <body: graph = b (int64 i, bool ci, float[2] si)\n"
                       "      => (bool co, float[2] so) {\n"
                       "    co = Identity (ci)\n"
                       "    so = Identity (si)\n"
                       "  }>\n"
                       "}\n",
                "Loop: ran 1000 iterations, the element limit");
}
END_TEST

/* The values inferred are the control node's, read by an Identity whose
 * result the graph output types (the graph's outputs take their declared
 * types, note [onnx import]). */
START_TEST(test_inference)
{
    /* branches of (2) and (3): ONNX's UnionShapeInfo leaves the dim unknown */
    check_type(HEADER "g (bool c) => (float[?] z) {\n"
                      "  y = If (c) <then_branch: graph = t () => (float[2] a) {\n"
                      "    a = Constant <value = float[2] {1, 2}> ()\n"
                      "  }, else_branch: graph = e () => (float[3] a) {\n"
                      "    a = Constant <value = float[3] {3, 4, 5}> ()\n"
                      "  }>\n"
                      "  z = Identity (y)\n"
                      "}\n",
               "y", "Tensor[(?), float32]");
#define LOOP_TYPES                                                                  \
    HEADER "g (int64 m, float[2] x) => (float[2] u, float[?, 2] v) {\n"            \
           "  s, all = Loop (m, , x) <body: graph = b (int64 i, bool ci, float[2] si)\n" \
           "      => (bool co, float[2] so, float[2] sc) {\n"                       \
           "    co = Identity (ci)\n"                                              \
           "    so = Identity (si)\n"                                              \
           "    sc = Identity (si)\n"                                              \
           "  }>\n"                                                                \
           "  u = Identity (s)\n"                                                  \
           "  v = Identity (all)\n"                                                \
           "}\n"
    check_type(LOOP_TYPES, "s", "Tensor[(2), float32]");
    /* Loop's scan output: the iteration count unknown, as ONNX leaves it */
    check_type(LOOP_TYPES, "all", "Tensor[(?, 2), float32]");
    /* Scan's: the scan input's dim on its axis, inserted at axis 1 */
    check_type(HEADER "g (float[2] s0, float[5, 2] x) => (float[2, 5] v) {\n"
                      "  s, all = Scan <num_scan_inputs = 1, scan_output_axes = [-1],\n"
                      "      body: graph = b (float[2] si, float[2] r) => (float[2] so, float[2] sc) {\n"
                      "    so = Add (si, r)\n"
                      "    sc = Identity (so)\n"
                      "  }> (s0, x)\n"
                      "  v = Identity (all)\n"
                      "}\n",
               "all", "Tensor[(2, 5), float32]");
}
END_TEST

static Suite *control_suite(void)
{
    Suite *s = suite_create("onnx_control");
    TCase *tc = tcase_create("control");
    tcase_add_test(tc, test_if_outer_reads);
    tcase_add_test(tc, test_if_nested);
    tcase_add_test(tc, test_loop_outer_read);
    tcase_add_test(tc, test_loop_condition_ends);
    tcase_add_test(tc, test_scan_reverse_axis1);
    tcase_add_test(tc, test_scan_input_axis_outer_read);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_inference);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(control_suite());
}
