/* check_onnx_ops.c - ONNX's operator set against its own node tests: for
 * every op with an evaluator kernel, every single-node test of Debian's
 * libonnx-testdata (data/node/test_*: model.onnx, test_data_set_0/
 * input_N.pb, output_N.pb) is evaluated by graft's kernel and compared
 * with the expected outputs (doc/onnx.md, "The operator set").
 *
 * The tolerance: floats compare as ONNX's own backend test
 * runner compares them (onnx/backend/test/loader/__init__.py in onnx 1.12:
 * numpy.testing.assert_allclose with rtol 1e-3, atol 1e-7): the expected
 * outputs were computed by numpy in float32, in its own order of
 * summation, and graft computes in float64 and rounds each result to its
 * dtype, so last-place differences are expected and nothing more.  NaN
 * equals only NaN; integers and bools compare exactly.
 *
 * The skip list (tests/onnx/node_skips.txt) names each node test of a
 * covered op that graft does not pass, with the reason; a listed test that
 * passes, or a listed name that is no node test of a covered op, fails
 * the run, so the list stays exact. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dtype.h"
#include "eval.h"
#include "graph.h"
#include "keymap.h"
#include "limit.h"
#include "onnx_model.h"
#include "onnx_node_test.h"

static const char *srcdir(void)
{
    const char *dir = getenv("GRAFT_SRCDIR");
    return dir ? dir : GRAFT_SRCDIR;
}

static const char *testdata(void)
{
    const char *dir = getenv("GRAFT_ONNX_TESTDATA");
    return dir ? dir : "/usr/share/libonnx-testdata/data/node";
}

/* The sorted names of the node tests (test_*), count in *n. */
static char **list_tests(int *n)
{
    DIR *d = opendir(testdata());
    ck_assert_msg(d != NULL, "%s: libonnx-testdata is not installed", testdata());
    char **names = NULL;
    int count = 0;
    const char *only = getenv("GRAFT_ONNX_TEST"); /* a prefix, to run some alone */
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "test_", 5) != 0 || (only && strncmp(e->d_name, only, strlen(only))))
            continue;
        names = xrealloc(names, (size_t)(count + 1) * sizeof *names);
        names[count++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, onnx_node_test_cmp_names);
    *n = count;
    return names;
}

/* Tallies of one op. */
typedef struct OpCount {
    char *op;
    int passed, skipped;
} OpCount;

static OpCount *count_of(OpCount *counts, int *ncounts, const char *op)
{
    for (int i = 0; i < *ncounts; i++)
        if (strcmp(counts[i].op, op) == 0)
            return &counts[i];
    counts[*ncounts] = (OpCount){.op = xstrdup(op)};
    return &counts[(*ncounts)++];
}

static int cmp_counts(const void *a, const void *b)
{
    return strcmp(((const OpCount *)a)->op, ((const OpCount *)b)->op);
}

START_TEST(test_node_tests)
{
    SkipList skips = onnx_node_skips_read(srcdir());
    int ntests, failures = 0, nops = 0;
    char **tests = list_tests(&ntests);
    OpCount *counts = xcalloc((size_t)ntests + 1, sizeof *counts);
    for (int i = 0; i < ntests; i++) {
        if (getenv("GRAFT_ONNX_VERBOSE"))
            fprintf(stderr, "%s\n", tests[i]);
        NodeTestResult r = onnx_node_test_run(testdata(), tests[i]);
        const char *why = onnx_node_skips_find(&skips, tests[i]);
        if (r.status == NODE_TEST_NOT_COVERED) {
            onnx_node_test_result_free(&r);
            continue; /* a listed one is reported by onnx_node_skips_unseen */
        }
        OpCount *oc = count_of(counts, &nops, r.op ? r.op : "(model unreadable)");
        if (r.status == NODE_TEST_PASSED && why) {
            printf("FAIL: %s: passes, but the skip list says: %s\n", tests[i], why);
            failures++;
        } else if (r.status == NODE_TEST_FAILED && !why) {
            printf("FAIL: %s: %s\n", tests[i], r.why.data);
            failures++;
        }
        oc->passed += r.status == NODE_TEST_PASSED;
        oc->skipped += r.status == NODE_TEST_FAILED && why;
        onnx_node_skips_seen(&skips, tests[i]);
        onnx_node_test_result_free(&r);
    }
    failures += onnx_node_skips_unseen(&skips);
    qsort(counts, (size_t)nops, sizeof *counts, cmp_counts);
    int passed = 0;
    for (int i = 0; i < nops; i++) {
        printf("%s: %d node tests pass, %d skipped\n", counts[i].op, counts[i].passed,
               counts[i].skipped);
        passed += counts[i].passed;
        free(counts[i].op);
    }
    printf("%d ops, %d node tests pass\n", nops, passed);
    for (int i = 0; i < ntests; i++)
        free(tests[i]);
    free(tests);
    free(counts);
    onnx_node_skips_free(&skips);
    ck_assert_int_eq(failures, 0);
}
END_TEST

static Suite *onnx_ops_suite(void)
{
    Suite *s = suite_create("onnx_ops");
    TCase *tc = tcase_create("node_tests");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_node_tests);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(onnx_ops_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
