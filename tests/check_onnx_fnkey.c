/* check_onnx_fnkey.c - a partition's function found by its body's key
 * (note [function keys] in src/onnx/onnx_export_fnkey.c), or by its
 * body's fit to the last key's shape (note [body shapes] there), is the
 * one the general path finds by making and packing it: partitioned models
 * of tests/ are written with the keys on and off, the same bytes, and the
 * keys found as many functions as there are calls of a function made
 * before (the count of calls less the count of functions). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "graft_api.h"
#include "onnx_export_fn.h"
#include "check_main.h"

#define SRC GRAFT_SRCDIR "/"

/* The calls of the last write whose body fitted the last key's shape
 * (note [body shapes] in src/onnx/onnx_export_fnkey.c). */
static unsigned long shape_hits;

/* The model at model_path after the rules at rules_path, written (its
 * form's bytes, *len of them), with the keys on or off; *hits the calls
 * whose function a key found. */
static char *partitioned(const char *rules_path, const char *model_path, bool keys,
                         size_t *len, unsigned long *hits)
{
    graft_diag *d = graft_diag_capture();
    graft_rules *r = graft_rules_load(&rules_path, 1, NULL, d);
    graft_graph *g = graft_model_load(model_path, NULL, d);
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_nonnull(g);
    ck_assert(graft_rules_run(r, g, NULL, d));
    export_function_keys_on = keys;
    export_function_key_hits = 0;
    export_function_shape_hits = 0;
    char *out = graft_model_write(g, len, d);
    *hits = export_function_key_hits;
    shape_hits = export_function_shape_hits;
    export_function_keys_on = true;
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(graft_diag_count(d), 0);
    graft_model_free(g);
    graft_rules_free(r);
    graft_diag_free(d);
    return out;
}

/* The same bytes both ways, and want_hits functions found by key. */
static void assert_agree(const char *rules, const char *model, unsigned long want_hits)
{
    size_t len_on, len_off;
    unsigned long hits, no_hits;
    char *on = partitioned(rules, model, true, &len_on, &hits);
    char *off = partitioned(rules, model, false, &len_off, &no_hits);
    ck_assert_uint_eq(len_on, len_off);
    ck_assert_msg(memcmp(on, off, len_on) == 0, "%s on %s: the keys wrote other bytes",
                  rules, model);
    ck_assert_uint_eq(hits, want_hits);
    ck_assert_uint_eq(no_hits, 0);
    graft_string_free(on);
    graft_string_free(off);
}

/* Three batch norms, two reading one eps (1 found), the third eps2. */
START_TEST(test_shared_partition)
{
    assert_agree(SRC "tests/onnx/shared_partition.graft",
                 SRC "tests/onnx/shared_partition.onnxtxt", 1);
}
END_TEST

/* Two partitions of one eps, one copying it, one moving it: one key. */
START_TEST(test_shared_const)
{
    assert_agree(SRC "tests/onnx/shared_const/rules.graft",
                 SRC "tests/onnx/shared_const/model.onnxtxt", 1);
}
END_TEST

/* Relu, Sigmoid, Tanh, Relu of composites c, c, c_1, c: the last Relu. */
START_TEST(test_function_names)
{
    assert_agree(SRC "tests/onnx/function_names/rules.graft",
                 SRC "tests/onnx/function_names/model.onnxtxt", 1);
}
END_TEST

/* 52 Conv and BatchNormalization pairs, 9 functions (their attributes,
 * lists of ints among them, tell them apart): 43 found, in binary. */
START_TEST(test_mobilenet)
{
    assert_agree(SRC "stdpatterns/onnx_partition.graft",
                 SRC "tests/onnx/mobilenet_v2_op13.onnx", 43);
}
END_TEST

/* Functions of several outputs (tuple bodies), two of other bodies. */
START_TEST(test_several_roots)
{
    assert_agree(SRC "tests/onnx/roots_partition.graft",
                 SRC "tests/std/onnx_merge/input.onnx", 0);
}
END_TEST

/* Two partitions of an If whose branches read a parameter: no key (a
 * graph attribute), the general path, which finds them one function. */
START_TEST(test_subgraph_general)
{
    assert_agree(SRC "tests/onnx/subgraph/partition_if.graft",
                 SRC "tests/onnx/shared_partition_if/model.onnxtxt", 0);
}
END_TEST

/* Bodies of one pattern, wired two ways, the two ways in turn: a body
 * fits the shape of the last key only when it is wired as that key's
 * body (y4 after y3, which found y1's key and made its shape); the others
 * are found by their keys (y2, y3).  In
 * model.onnxtxt the ways differ in which operand reads a call, in
 * params.onnxtxt in which parameter a call reads first. */
static void assert_wiring(const char *rules, const char *model)
{
    size_t len;
    unsigned long hits;
    assert_agree(rules, model, 3);
    graft_string_free(partitioned(rules, model, true, &len, &hits));
    ck_assert_uint_eq(hits, 3);
    ck_assert_uint_eq(shape_hits, 1);
}

START_TEST(test_shape_wiring)
{
    assert_wiring(SRC "tests/onnx/shape_wiring/rules.graft",
                  SRC "tests/onnx/shape_wiring/model.onnxtxt");
    assert_wiring(SRC "tests/onnx/shape_wiring/params.graft",
                  SRC "tests/onnx/shape_wiring/params.onnxtxt");
}
END_TEST

/* The bodies that fit the last key's shape, which a key found the first
 * time makes: none of shared_partition's three (y1 finds y0's key and
 * makes its shape, y2 reads another eps and does not fit it), and of
 * mobilenet's 43 found, the 16 whose Conv is the last one found's (its
 * attributes' words the same). */
START_TEST(test_shape_hits)
{
    size_t len;
    unsigned long hits;
    graft_string_free(partitioned(SRC "tests/onnx/shared_partition.graft",
                                  SRC "tests/onnx/shared_partition.onnxtxt", true, &len,
                                  &hits));
    ck_assert_uint_eq(hits, 1);
    ck_assert_uint_eq(shape_hits, 0);
    graft_string_free(partitioned(SRC "stdpatterns/onnx_partition.graft",
                                  SRC "tests/onnx/mobilenet_v2_op13.onnx", true, &len,
                                  &hits));
    ck_assert_uint_eq(hits, 43);
    ck_assert_uint_eq(shape_hits, 16);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("onnx_fnkey");
    TCase *tc = tcase_create("fnkey");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_shared_partition);
    tcase_add_test(tc, test_shared_const);
    tcase_add_test(tc, test_function_names);
    tcase_add_test(tc, test_mobilenet);
    tcase_add_test(tc, test_several_roots);
    tcase_add_test(tc, test_subgraph_general);
    tcase_add_test(tc, test_shape_wiring);
    tcase_add_test(tc, test_shape_hits);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
