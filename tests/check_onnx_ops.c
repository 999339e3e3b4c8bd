/* check_onnx_ops.c - ONNX's operators: every op stdpatterns/onnx_ops.graft
 * declares has a type relation and an evaluator kernel, found by name
 * (note [onnx op hooks] in src/onnx/onnx_infer.h), both checked against
 * every single-node test of the op in Debian's libonnx-testdata
 * (data/node/test_*: model.onnx, test_data_set_0/input_N.pb,
 * output_N.pb; onnx_node_test.c runs one); the declaration clauses (note
 * [onnx op clauses] in src/compiler/rules_build_items.c); rule files for
 * ONNX (note [target IR] in src/compiler/registry.h).
 *
 * The tolerance: floats compare as ONNX's own backend test runner
 * compares them (onnx/backend/test/loader/__init__.py in onnx 1.12:
 * numpy.testing.assert_allclose with rtol 1e-3, atol 1e-7): the expected
 * outputs were computed by numpy in float32, in its own order of
 * summation, and graft computes in float64 and rounds each result to its
 * dtype, so last-place differences are expected and nothing more.  NaN
 * equals only NaN; integers and bools compare exactly.  A relation's type
 * must give every output's dtype and every dim, equal to the expected
 * output's.
 *
 * The skip list (tests/onnx/node_skips.txt) names each node test of a
 * covered op that graft does not pass, with the reason; a listed test that
 * passes, or a listed name that is no node test of a covered op, fails
 * the run, so the list stays exact. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "eval.h"
#include "frontend.h"
#include "onnx_infer.h"
#include "onnx_node_test.h"
#include "registry.h"

/* Loads text as "t.graft"; the diagnostics in *diag (malloc'd). */
static RuleFile *load(const char *text, char **diag)
{
    size_t len = 0;
    FILE *out = open_memstream(diag, &len);
    graft_diag *d = diag_new(out);
    FrontendOptions opts = {0};
    RuleFile *rf = frontend_load_string("t.graft", text, &opts, d);
    diag_free(d);
    fclose(out);
    return rf;
}

static RuleFile *load_ok(const char *text)
{
    char *diag = NULL;
    RuleFile *rf = load(text, &diag);
    ck_assert_msg(rf != NULL, "does not check:\n%s", diag);
    free(diag);
    return rf;
}

/* The first line of what loading text reports (it must fail). */
static void assert_error(const char *text, const char *want)
{
    char *diag = NULL;
    RuleFile *rf = load(text, &diag);
    ck_assert_ptr_null(rf);
    char *nl = strchr(diag, '\n');
    if (nl)
        *nl = '\0';
    ck_assert_str_eq(diag, want);
    free(diag);
}

/* Declared ops without a kernel: If, whose branches are subgraphs the
 * evaluator does not run (graft keeps them as bytes, GRAFT_ATTR_GRAPH);
 * an op leaves the list when its kernel lands, and the test fails until
 * it does. */
static const char *const kernel_pending[] = {
    "If",
};

static bool pending(const char *op)
{
    for (size_t i = 0; i < sizeof kernel_pending / sizeof *kernel_pending; i++)
        if (strcmp(kernel_pending[i], op) == 0)
            return true;
    return false;
}

START_TEST(test_every_op_has_relation_and_kernel)
{
    RuleFile *rf = load_ok("opset onnx 17\n");
    int nonnx = 0;
    for (int i = 0; i < registry_count(rf->registry); i++) {
        const OpInfo *op = registry_op(rf->registry, i);
        if (!op->onnx)
            continue;
        nonnx++;
        const OnnxOpDef *d = onnx_op_find(op->domain, op->name);
        ck_assert_msg(d != NULL, "%s has no type relation", op->name);
        ck_assert_msg((op->outputs != AST_OUTPUTS_TENSOR) == (d->outputs == ONNX_SEVERAL_OUTPUTS),
                      "%s: declared and relation outputs differ", op->name);
        ck_assert_msg(d->min_in == op->min_args, "%s: %d required inputs, relation needs %d",
                      op->name, op->min_args, d->min_in);
        ck_assert_msg(op->since > 0, "%s: no 'since N'", op->name);
        ck_assert_msg(eval_has_op(op->name) != pending(op->name),
                      pending(op->name) ? "%s has a kernel: take it off kernel_pending"
                                        : "%s has no kernel", op->name);
    }
    ck_assert_int_eq(nonnx, onnx_op_count());
    rulefile_free(rf);
}
END_TEST

START_TEST(test_every_relation_declared)
{
    RuleFile *rf = load_ok("opset onnx 17\n");
    for (int i = 0; i < onnx_op_count(); i++) {
        const OpInfo *op = registry_find(rf->registry, onnx_op_at(i)->op);
        ck_assert_msg(op && op->onnx, "%s has a relation but no declaration", onnx_op_at(i)->op);
    }
    rulefile_free(rf);
}
END_TEST

/* Relay's ops are not found in a rule file for ONNX, nor ONNX's in one
 * for Relay (which loads none of them). */
START_TEST(test_target_ir)
{
    RuleFile *rf = load_ok("opset onnx 17\n");
    ck_assert_ptr_nonnull(registry_find(rf->registry, "Conv"));
    ck_assert_ptr_null(registry_find(rf->registry, "nn.conv2d"));
    ck_assert_ptr_nonnull(registry_find_any(rf->registry, "nn.conv2d"));
    rulefile_free(rf);
    rf = load_ok("r := nn.relu(x) => x\n");
    ck_assert_ptr_null(registry_find(rf->registry, "Conv"));
    ck_assert_ptr_null(registry_find_any(rf->registry, "Conv"));
    rulefile_free(rf);
}
END_TEST

START_TEST(test_relay_op_named_in_onnx_file)
{
    assert_error("opset onnx 17\nr := nn.conv2d(x, w) => x\n",
                 "t.graft:2:6: error: 'nn.conv2d' is a Relay op; this file is for ONNX: "
                 "did you mean 'Conv'?");
    assert_error("opset onnx 17\nr := nn.bias_add(x, b) => x\n",
                 "t.graft:2:6: error: 'nn.bias_add' is a Relay op; this file is for ONNX");
}
END_TEST

/* + - * / and unary - mean Add, Sub, Mul, Div and Neg in a file for ONNX. */
START_TEST(test_operators_are_onnx_ops)
{
    RuleFile *rf = load_ok("opset onnx 17\nr := x * (y + z) - -w / v => Relu(x)\n");
    const AstNode *sub = rf->rules[0]->pattern;
    ck_assert_str_eq(sub->u.call.name, "Sub");
    ck_assert_ptr_eq(sub->u.call.op, registry_find(rf->registry, "Sub"));
    const AstNode *mul = sub->u.call.args.items[0];
    ck_assert_str_eq(mul->u.call.name, "Mul");
    ck_assert_str_eq(mul->u.call.args.items[1]->u.call.name, "Add");
    const AstNode *div = sub->u.call.args.items[1];
    ck_assert_str_eq(div->u.call.name, "Div");
    ck_assert_str_eq(div->u.call.args.items[0]->u.call.name, "Neg");
    StrBuf sb = {0};
    ast_print_rule(&sb, rf->rules[0]);
    ck_assert_str_eq(sb.data, "r := x * (y + z) - -w / v => Relu(x)");
    strbuf_free(&sb);
    rulefile_free(rf);
}
END_TEST

START_TEST(test_declaration_clauses)
{
    const char *text = "opset onnx 17\n"
                       "op Gelu(X, approximate: str = \"none\" since 20) elementwise "
                       "domain \"com.example\" since 1 relay \"nn.gelu\"\n";
    RuleFile *rf = load_ok(text);
    const OpInfo *op = registry_find(rf->registry, "Gelu");
    ck_assert(op->onnx);
    ck_assert_str_eq(op->domain, "com.example");
    ck_assert_int_eq(op->since, 1);
    ck_assert_int_eq(op->attrs[0].since, 20);
    ck_assert(opinfo_has_trait(op, TRAIT_ELEMENTWISE));
    StrBuf sb = {0};
    ast_print_file(&sb, rf->files[0]);
    ck_assert_str_eq(sb.data, text);
    strbuf_free(&sb);
    rulefile_free(rf);
}
END_TEST

START_TEST(test_clause_errors)
{
    assert_error("op F(x) since 3\n", "t.graft:1:9: error: 'since N' declares an ONNX op: it "
                                      "needs 'opset onnx N' before it in the file");
    assert_error("opset onnx 17\nop F(x) domian \"a\"\n",
                 "t.graft:2:9: error: unknown op clause 'domian \"...\"'; expected 'domain "
                 "\"NAME\"', 'since N' or 'relay \"OP\"'");
    assert_error("r := nn.relu(x) => x\nopset onnx 17\n",
                 "t.graft:2:7: error: 'opset onnx N' must be the first item of its file");
    assert_error("opset tvm 1\n", "t.graft:1:7: error: unknown IR 'tvm' after 'opset'; expected "
                                  "'opset onnx N' (a file without it is for Relay)");
    assert_error("opset onnx 0\n", "t.graft:1:12: error: an opset version is a whole number "
                                   "from 1 on");
}
END_TEST

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

/* Every op the registry file declares (but kernel_pending's) passes a
 * node test, and every op with node tests run is declared; the count of
 * faults, each printed. */
static int check_declared(const OpCount *counts, int nops)
{
    RuleFile *rf = load_ok("opset onnx 17\n");
    int faults = 0;
    for (int i = 0; i < registry_count(rf->registry); i++) {
        const OpInfo *op = registry_op(rf->registry, i);
        int k = 0;
        while (k < nops && strcmp(counts[k].op, op->name) != 0)
            k++;
        if (op->onnx && !pending(op->name) && (k == nops || counts[k].passed == 0)) {
            printf("FAIL: %s is declared, but passes no node test\n", op->name);
            faults++;
        }
    }
    for (int k = 0; k < nops; k++) {
        const OpInfo *op = registry_find(rf->registry, counts[k].op);
        if (!op || !op->onnx) {
            printf("FAIL: %s has a kernel or a relation, but no declaration\n", counts[k].op);
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

static Suite *onnx_ops_suite(void)
{
    Suite *s = suite_create("onnx_ops");
    TCase *tc = tcase_create("onnx_ops");
    tcase_add_test(tc, test_every_op_has_relation_and_kernel);
    tcase_add_test(tc, test_every_relation_declared);
    tcase_add_test(tc, test_target_ir);
    tcase_add_test(tc, test_relay_op_named_in_onnx_file);
    tcase_add_test(tc, test_operators_are_onnx_ops);
    tcase_add_test(tc, test_declaration_clauses);
    tcase_add_test(tc, test_clause_errors);
    suite_add_tcase(s, tc);
    TCase *nodes = tcase_create("node_tests");
    tcase_set_timeout(nodes, 600);
    tcase_add_test(nodes, test_node_tests);
    suite_add_tcase(s, nodes);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(onnx_ops_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
