/* check_fold_bytes.c - fold(Concat(...)) of ONNX initializers copied as raw
 * bytes (note [byte folds] in src/runtime/fold.h): the bytes each case
 * must give, written out by hand, and the same bytes as the evaluator's
 * path gives them (eval_op, then fold_tensor_const); the operands the
 * copy must leave to the evaluator (a NaN, a 64-bit integer past 2^53,
 * mixed dtypes, a bad axis, the limit fold-elements) and what the
 * evaluator then makes of them. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "eval.h"
#include "fold.h"
#include "graph.h"
#include "check_main.h"

enum { NO_AXIS = 99 };

/* An ONNX graph for the operands of one Concat. */
static graft_graph *onnx_graph(void)
{
    graft_graph *g = graph_new();
    graph_set_ir(g, IR_ONNX);
    return g;
}

/* An initializer of dtype and shape holding a copy of nbytes at bytes. */
static graft_node *initializer(graft_graph *g, const char *name, const char *dtype, int rank,
                               const int64_t *dims, const void *bytes, size_t nbytes)
{
    unsigned char *copy = malloc(nbytes + 1);
    ck_assert_ptr_nonnull(copy);
    if (nbytes)
        memcpy(copy, bytes, nbytes);
    graph_own(g, copy);
    return graph_add_tensor_const(g, name, graph_type_tensor(g, dtype, dims, rank), copy, nbytes);
}

/* Concat(args..., axis=axis); NO_AXIS leaves the attribute out. */
static graft_node *concat(graft_graph *g, graft_node *const *args, int nargs, int64_t axis)
{
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_INT);
    v->i = axis;
    graft_attr attr = {"axis", v};
    return graph_add_call(g, "Concat", args, nargs, &attr, axis == NO_AXIS ? 0 : 1);
}

/* The constant the evaluator's path makes of root: each operand read
 * into doubles, Concat evaluated and rounded, the result written back. */
static graft_node *evaluated(graft_graph *g, graft_node *root)
{
    Value args[4] = {{0}};
    for (int i = 0; i < node_nargs(root); i++) {
        const graft_node *a = node_arg(root, i);
        const graft_type *t = node_type(a);
        size_t nbytes;
        const unsigned char *bytes = node_const_data(a, &nbytes);
        const char *dtype = eval_dtype(t->dtype);
        args[i].nfields = -1;
        args[i].t = tensor_new(dtype, t->rank, t->dims);
        int size = (int)dtype_size(dtype_from_name(dtype));
        eval_raw_elements(args[i].t.data, args[i].t.size, bytes, dtype, size);
    }
    EvalOptions o = {.mode = EVAL_DTYPE, .max_elements = 1000};
    EvalError err = {0};
    Value out = {0};
    ck_assert_msg(eval_op(root, args, node_nargs(root), &o, &out, &err), "%s", err.msg.data);
    eval_round_array(out.t.data, out.t.size, out.t.dtype);
    graft_node *c = fold_tensor_const(g, &out.t, "folded_Concat");
    for (int i = 0; i < node_nargs(root); i++)
        value_free(&args[i]);
    value_free(&out);
    strbuf_free(&err.msg);
    return c;
}

/* c must be a tensor constant of type text holding the nbytes at want. */
static void want_bytes(const graft_node *c, const char *type, const void *want, size_t nbytes)
{
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(node_type(c)->text, type);
    size_t got;
    const unsigned char *bytes = node_const_data(c, &got);
    ck_assert_uint_eq(got, nbytes);
    ck_assert_int_eq(memcmp(bytes, want, nbytes), 0);
}

/* The copy's constant for root, checked against want and against the
 * evaluator's path. */
static void want_copied(graft_graph *g, graft_node *root, const char *type, const void *want,
                        size_t nbytes)
{
    FoldEnv env = {.max_elements = 1000};
    graft_node *c = fold_bytes_concat(g, root, &env);
    want_bytes(c, type, want, nbytes);
    ck_assert_str_eq(node_const_text(c), "folded_Concat");
    want_bytes(evaluated(g, root), type, want, nbytes);
    ck_assert_ptr_nonnull(fold_expr(g, root, &env, NULL));
}

/* ONNX Runtime's MergeQkvWeights packs (2, 2), (2, 1) and (2, 3) weights on
 * axis 1: row by row, each operand's part of the row in turn. */
START_TEST(packs_weights_row_by_row)
{
    graft_graph *g = onnx_graph();
    static const float wq[] = {1, 2, 3, 4}, wk[] = {5, -0.0f};
    static const float wv[] = {7, 8, 9, 10, INFINITY, 1e-45f};
    graft_node *args[3] = {
        initializer(g, "wq", "float32", 2, (const int64_t[]){2, 2}, wq, sizeof wq),
        initializer(g, "wk", "float32", 2, (const int64_t[]){2, 1}, wk, sizeof wk),
        initializer(g, "wv", "float32", 2, (const int64_t[]){2, 3}, wv, sizeof wv),
    };
    static const float want[] = {1, 2, 5, 7, 8, 9, 3, 4, -0.0f, 10, INFINITY, 1e-45f};
    want_copied(g, concat(g, args, 3, 1), "Tensor[(2, 6), float32]", want, sizeof want);
    want_copied(g, concat(g, args, 3, -1), "Tensor[(2, 6), float32]", want, sizeof want);
    graph_free(g);
}
END_TEST

/* Without axis, on axis 0: the operands one after the other (biases). */
START_TEST(joins_on_axis_0)
{
    graft_graph *g = onnx_graph();
    static const uint16_t bq[] = {0x3c00, 0x8001}, bk[] = {0x7c00}; /* float16 1, -2^-24, inf */
    graft_node *args[2] = {
        initializer(g, "bq", "float16", 1, (const int64_t[]){2}, bq, sizeof bq),
        initializer(g, "bk", "float16", 1, (const int64_t[]){1}, bk, sizeof bk),
    };
    static const uint16_t want[] = {0x3c00, 0x8001, 0x7c00};
    want_copied(g, concat(g, args, 2, NO_AXIS), "Tensor[(3), float16]", want, sizeof want);
    want_copied(g, concat(g, args, 2, 0), "Tensor[(3), float16]", want, sizeof want);
    graph_free(g);
}
END_TEST

/* Integers the evaluator holds exactly, the ends of int64 among them
 * (put_element saturates 2^63 back to INT64_MAX), and an empty operand. */
START_TEST(copies_exact_integers)
{
    graft_graph *g = onnx_graph();
    static const int64_t a[] = {INT64_MAX, INT64_MIN, -3, (int64_t)1 << 53};
    graft_node *ints[3] = {
        initializer(g, "a", "int64", 2, (const int64_t[]){2, 2}, a, sizeof a),
        initializer(g, "e", "int64", 2, (const int64_t[]){0, 2}, NULL, 0),
        initializer(g, "b", "int64", 2, (const int64_t[]){1, 2}, a, 2 * sizeof *a),
    };
    static const int64_t want[] = {INT64_MAX, INT64_MIN, -3, (int64_t)1 << 53,
                                   INT64_MAX, INT64_MIN};
    want_copied(g, concat(g, ints, 3, 0), "Tensor[(3, 2), int64]", want, sizeof want);
    static const int8_t c[] = {-128, 127, 0};
    graft_node *bytes[2] = {
        initializer(g, "c", "int8", 2, (const int64_t[]){1, 3}, c, sizeof c),
        initializer(g, "d", "int8", 2, (const int64_t[]){1, 3}, c, sizeof c),
    };
    static const int8_t want8[] = {-128, 127, 0, -128, 127, 0};
    want_copied(g, concat(g, bytes, 2, 1), "Tensor[(1, 6), int8]", want8, sizeof want8);
    graph_free(g);
}
END_TEST

/* A NaN is left to the evaluator, whose float16 makes every NaN 0x7e00: the
 * copy would have kept 0x7d01 and 0xfe00. */
START_TEST(leaves_nan_to_the_evaluator)
{
    graft_graph *g = onnx_graph();
    static const uint16_t x[] = {0x7d01, 0x3c00}, y[] = {0xfe00};
    graft_node *args[2] = {
        initializer(g, "x", "float16", 1, (const int64_t[]){2}, x, sizeof x),
        initializer(g, "y", "float16", 1, (const int64_t[]){1}, y, sizeof y),
    };
    graft_node *root = concat(g, args, 2, 0);
    FoldEnv env = {.max_elements = 1000};
    ck_assert_ptr_null(fold_bytes_concat(g, root, &env));
    static const uint16_t want[] = {0x7e00, 0x3c00, 0x7e00};
    want_bytes(fold_expr(g, root, &env, NULL), "Tensor[(3), float16]", want, sizeof want);
    static const uint32_t nan32[] = {0x7f800001};
    graft_node *n = initializer(g, "n", "float32", 1, (const int64_t[]){1}, nan32, 4);
    ck_assert_ptr_null(fold_bytes_concat(g, concat(g, &n, 1, 0), &env));
    graph_free(g);
}
END_TEST

/* What the evaluator refuses is refused with its reason, not copied. */
START_TEST(leaves_refusals_to_the_evaluator)
{
    graft_graph *g = onnx_graph();
    static const int64_t big[] = {((int64_t)1 << 53) + 1};
    static const int32_t small[] = {1, 2};
    graft_node *wide = initializer(g, "big", "int64", 1, (const int64_t[]){1}, big, 8);
    graft_node *two = initializer(g, "two", "int32", 1, (const int64_t[]){2}, small, 8);
    FoldEnv env = {.max_elements = 1000};
    StrBuf why = {0};
    graft_node *root = concat(g, &wide, 1, 0);
    ck_assert_ptr_null(fold_bytes_concat(g, root, &env));
    ck_assert_ptr_null(fold_expr(g, root, &env, &why));
    ck_assert_str_eq(why.data, "element 0 of 'big' is past 2^53, which the evaluator's "
                               "doubles do not hold exactly");
    graft_node *mixed[2] = {two, initializer(g, "f", "float32", 1, (const int64_t[]){1},
                                             (const float[]){1}, 4)};
    ck_assert_ptr_null(fold_bytes_concat(g, concat(g, mixed, 2, 0), &env));
    ck_assert_ptr_null(fold_bytes_concat(g, concat(g, &two, 1, 1), &env));
    why.len = 0;
    ck_assert_ptr_null(fold_expr(g, concat(g, &two, 1, 1), &env, &why));
    ck_assert_str_eq(why.data, "Concat: axis 1 out of range for rank 1");
    graft_node *twice[2] = {two, two};
    FoldEnv three = {.max_elements = 3};
    ck_assert_ptr_null(fold_bytes_concat(g, concat(g, twice, 2, 0), &three));
    why.len = 0;
    ck_assert_ptr_null(fold_expr(g, concat(g, twice, 2, 0), &three, &why));
    ck_assert_str_eq(why.data, "Concat: result of 4 elements passes the eval-elements "
                               "limit (3)");
    strbuf_free(&why);
    graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fold_bytes");
    TCase *tc = tcase_create("concat");
    tcase_add_test(tc, packs_weights_row_by_row);
    tcase_add_test(tc, joins_on_axis_0);
    tcase_add_test(tc, copies_exact_integers);
    tcase_add_test(tc, leaves_nan_to_the_evaluator);
    tcase_add_test(tc, leaves_refusals_to_the_evaluator);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
