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
#include "frontend.h"
#include "onnx_infer.h"
#include "onnx_model.h"
#include "onnx_node_test.h"
#include "registry.h"
#include "check_files.h"
#include "check_main.h"

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

/* Every op stdpatterns/onnx_ops.graft declares passes a node test, and
 * every op whose node tests ran (it has a kernel or inference) is
 * declared: the count of faults, each printed. */
static int check_declared(const OpCount *counts, int nops)
{
    graft_diag *d = diag_new(stderr);
    FrontendOptions opts = {0};
    RuleFile *rf = frontend_load_string("t.graft", "opset onnx 17\n", &opts, d);
    diag_free(d);
    ck_assert_ptr_nonnull(rf);
    int faults = 0;
    for (int i = 0; i < registry_count(rf->registry); i++) {
        const OpInfo *op = registry_op(rf->registry, i);
        int k = 0;
        while (k < nops && strcmp(counts[k].op, op->name) != 0)
            k++;
        if (op->onnx && (k == nops || counts[k].passed == 0)) {
            printf("FAIL: %s is declared, but passes no node test\n", op->name);
            faults++;
        }
    }
    for (int k = 0; k < nops; k++) {
        const OpInfo *op = registry_find(rf->registry, counts[k].op);
        if (!op || !op->onnx) {
            printf("FAIL: %s has a kernel or inference, but no declaration\n", counts[k].op);
            faults++;
        }
    }
    rulefile_free(rf);
    return faults;
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
    if (!getenv("GRAFT_ONNX_TEST")) /* a few tests alone: the list and ops are not all seen */
        failures += onnx_node_skips_unseen(&skips) + check_declared(counts, nops);
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

/* ---- inference on what node tests do not show: unknown dims, shapes
 * read from inputs that are not constants, contradictions ---- */

/* An input type from text: "float32 2,?,3" (? an unknown dim; no dims:
 * a scalar), "float32 *" (rank unknown), "-" (absent), or "int64 =v,v"
 * (a constant vector of those values). */
static OnnxType type_of(const char *text, double *values)
{
    OnnxType t = {.rank = -1};
    if (strcmp(text, "-") == 0)
        return (OnnxType){.absent = true, .rank = -1};
    const char *sp = strchr(text, ' ');
    size_t len = sp ? (size_t)(sp - text) : strlen(text);
    t.dtype = strncmp(text, "int64", len) == 0 ? "int64" : strncmp(text, "bool", len) == 0
                                                            ? "bool" : "float32";
    if (sp && sp[1] == '*')
        return t;
    bool constant = sp && sp[1] == '=';
    t.rank = constant;
    for (const char *p = sp ? sp + 1 + constant : ""; *p; p += *p == ',') {
        char *end;
        double v = strtod(p, &end);
        if (end == p && *p == '?') {
            end = (char *)p + 1;
            v = DIM_ANY;
        }
        if (constant)
            values[t.nvalues++] = v;
        else
            t.dims[t.rank++] = (int64_t)v;
        p = end;
    }
    if (constant) {
        t.dims[0] = t.nvalues;
        t.values = values;
    }
    return t;
}

/* The inferred type of output 0 of op on the inputs ("float32 (2, ?)",
 * "? (rank unknown)") or "error: WHY". */
static char *inferred(const char *op, const char *const *inputs, int nin, int nout, int out)
{
    graft_graph *g = graph_new();
    graft_node *call = graph_add_call(g, op, NULL, 0, NULL, 0);
    double values[8][8];
    OnnxType in[8], res[8];
    for (int i = 0; i < nin; i++)
        in[i] = type_of(inputs[i], values[i]);
    StrBuf text = {0};
    if (!onnx_infer(call, in, nin, res, nout, &text)) {
        StrBuf e = {0};
        strbuf_printf(&e, "error: %s", text.data);
        strbuf_free(&text);
        graph_free(g);
        return e.data;
    }
    const OnnxType *t = &res[out];
    strbuf_printf(&text, "%s (", t->dtype ? t->dtype : "?");
    for (int i = 0; i < t->rank; i++)
        strbuf_printf(&text, t->dims[i] == DIM_ANY ? "%s?" : "%s%lld", i ? ", " : "",
                      (long long)t->dims[i]);
    strbuf_puts(&text, t->rank < 0 ? "rank unknown)" : ")");
    graph_free(g);
    return text.data;
}

static void assert_inferred(const char *op, const char *const *inputs, int nin, const char *want)
{
    char *got = inferred(op, inputs, nin, 1, 0);
    ck_assert_str_eq(got, want);
    free(got);
}

START_TEST(test_inference_unknown_and_contradictions)
{
    assert_inferred("Add", (const char *[]){"float32 ?,3", "float32 3"}, 2, "float32 (?, 3)");
    assert_inferred("Add", (const char *[]){"float32 2,3", "float32 4,3"}, 2,
                    "error: Add: dims 2 and 4 do not broadcast");
    assert_inferred("Add", (const char *[]){"float32 2,3", "int64 2,3"}, 2,
                    "error: Add: inputs of dtypes float32 and int64");
    assert_inferred("Equal", (const char *[]){"int64 2,1", "int64 1,5"}, 2, "bool (2, 5)");
    assert_inferred("Sum", (const char *[]){"float32 3", "float32 2,1", "float32 1,1,3"}, 3,
                    "float32 (1, 2, 3)");
    assert_inferred("Relu", (const char *[]){"float32 *"}, 1, "float32 (rank unknown)");
    /* a shape computed in the graph: its length known, its dims not */
    assert_inferred("Reshape", (const char *[]){"float32 2,6", "int64 3"}, 2, "float32 (?, ?, ?)");
    assert_inferred("Reshape", (const char *[]){"float32 2,6", "int64 =4,-1"}, 2, "float32 (4, 3)");
    assert_inferred("Unsqueeze", (const char *[]){"float32 3,4", "int64 2"}, 2,
                    "float32 (rank unknown)");
    assert_inferred("Unsqueeze", (const char *[]){"float32 3,4", "int64 =0,-1"}, 2,
                    "float32 (1, 3, 4, 1)");
    assert_inferred("Squeeze", (const char *[]){"float32 2,4", "int64 =0"}, 2,
                    "error: Squeeze: dim 0 is 2, not 1");
    /* axes given but empty squeeze nothing, not every dim of 1: onnx 1.12's
     * shape inference gives (N, 1) for Squeeze of (N, 1) by axes = [] */
    assert_inferred("Squeeze", (const char *[]){"float32 ?,1", "int64 ="}, 2, "float32 (?, 1)");
    /* empty starts and ends slice no axis: onnx 1.12's shape inference
     * gives (2, 3) for Slice of (2, 3) by starts = ends = [] */
    assert_inferred("Slice", (const char *[]){"float32 2,3", "int64 =", "int64 ="}, 3,
                    "float32 (2, 3)");
    assert_inferred("Pad", (const char *[]){"float32 ?,4", "int64 =1,0,1,2"}, 2, "float32 (?, 6)");
    assert_inferred("Pad", (const char *[]){"float32 3,4", "int64 4"}, 2, "float32 (?, ?)");
    assert_inferred("Conv", (const char *[]){"float32 ?,3,8,8", "float32 5,3,3,3"}, 2,
                    "float32 (?, 5, 6, 6)");
    assert_inferred("Where", (const char *[]){"bool 3", "float32 3", "int64 3"}, 3,
                    "error: Where: inputs of dtypes float32 and int64");
    assert_inferred("ReduceSum", (const char *[]){"float32 2,3,4", "int64 =-1"}, 2,
                    "float32 (2, 3, 1)");
    assert_inferred("ReduceSum", (const char *[]){"float32 2,3,4", "int64 1"}, 2,
                    "float32 (?, ?, ?)");
    assert_inferred("OneHot", (const char *[]){"int64 2,3", "int64 1", "float32 2"}, 3,
                    "float32 (2, 3, ?)");
    assert_inferred("GatherND", (const char *[]){"float32 2,3,4", "int64 5,2"}, 2,
                    "float32 (5, 4)");
}
END_TEST

/* TopK and Split give several outputs. */
START_TEST(test_inference_several_outputs)
{
    char *got = inferred("TopK", (const char *[]){"float32 3,4", "int64 =2"}, 2, 2, 1);
    ck_assert_str_eq(got, "int64 (3, 2)");
    free(got);
    got = inferred("Split", (const char *[]){"float32 7,2", "int64 =3,4"}, 2, 2, 1);
    ck_assert_str_eq(got, "float32 (4, 2)");
    free(got);
    got = inferred("Split", (const char *[]){"float32 7,2", "int64 =3,3"}, 2, 2, 1);
    ck_assert_str_eq(got, "error: Split: sizes add up to 6, not dim 0 (7)");
    free(got);
}
END_TEST

/* Squeeze of a float32 (1, 3, 1) by the attribute axes (none when NULL):
 * its result's dims as "(3, 1)", or "error: WHY". */
static char *squeezed_by(const graft_attr_value *axes)
{
    graft_graph *g = graph_new();
    graft_attr attr = {"axes", axes};
    graft_node *call = graph_add_call(g, "Squeeze", NULL, 0, &attr, axes ? 1 : 0);
    OnnxType in = {.dtype = "float32", .rank = 3, .dims = {1, 3, 1}}, res;
    StrBuf text = {0};
    if (!onnx_infer(call, &in, 1, &res, 1, &text)) {
        StrBuf e = {0};
        strbuf_printf(&e, "error: %s", text.data);
        strbuf_free(&text);
        text = e;
    } else {
        for (int i = 0; i < res.rank; i++)
            strbuf_printf(&text, "%s%lld", i ? ", " : "(", (long long)res.dims[i]);
        strbuf_puts(&text, ")");
    }
    graph_free(g);
    return text.data;
}

/* note [int lists] in src/ir/graph_attr.c, as ONNX's inference reads it
 * (infer_attr_ints): Squeeze's axes as one int, a list of two, absent or
 * None (every dim of 1), and the errors of a list of nine (past
 * ONNX_MAX_RANK) and of a float item, in infer_attr_ints' words. */
START_TEST(test_int_list_attributes)
{
    static const graft_attr_value none = {.kind = GRAFT_ATTR_NULL};
    static const graft_attr_value zero = {.kind = GRAFT_ATTR_INT, .i = 0};
    static const graft_attr_value two = {.kind = GRAFT_ATTR_INT, .i = 2};
    static const graft_attr_value half = {.kind = GRAFT_ATTR_FLOAT, .f = 0.5};
    static const graft_attr_value *const ends[] = {&zero, &two};
    static const graft_attr_value *const zeros[] = {&zero, &zero, &zero, &zero, &zero,
                                                    &zero, &zero, &zero, &zero};
    static const graft_attr_value *const mixed[] = {&zero, &half};
    static const graft_attr_value list = {.kind = GRAFT_ATTR_LIST, .nitems = 2, .items = ends};
    static const graft_attr_value nine = {.kind = GRAFT_ATTR_LIST, .nitems = 9, .items = zeros};
    static const graft_attr_value odd = {.kind = GRAFT_ATTR_LIST, .nitems = 2, .items = mixed};
    static const struct {
        const graft_attr_value *axes;
        const char *want;
    } cases[] = {
        {&zero, "(3, 1)"},
        {&list, "(3)"},
        {NULL, "(3)"},
        {&none, "(3)"},
        {&nine, "error: Squeeze: attribute axes: wants a list of at most 8 ints"},
        {&odd, "error: Squeeze: attribute axes: item 1 is no int"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char *got = squeezed_by(cases[i].axes);
        ck_assert_str_eq(got, cases[i].want);
        free(got);
    }
}
END_TEST

static Suite *onnx_ops_suite(void)
{
    Suite *s = suite_create("onnx_ops");
    TCase *tc = tcase_create("node_tests");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_node_tests);
    tcase_add_test(tc, test_inference_unknown_and_contradictions);
    tcase_add_test(tc, test_inference_several_outputs);
    tcase_add_test(tc, test_int_list_attributes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(onnx_ops_suite());
}
