/* check_api.c - libgraft's public interface (graft.h) as a program sees
 * it: compiled with include/graft as its only include path and linked
 * against the installed form of libgraft.a (only graft_ symbols), with
 * tests/emit/small.graft compiled by graft compile (check_api_rules.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft.h"
#include "check_main.h"

extern const graft_rule_set small_rules;

static const char model_path[] = GRAFT_SRCDIR "/tests/emit/small.relay";

/* What graft run tests/emit/small.graft tests/emit/small.relay prints. */
static const char rewritten[] =
    "def @main(%x: Tensor[(1, 3, 8, 8), float32], %weight: Tensor[(4, 3, 3, 3), float32], "
    "%b: Tensor[(4), float32], %y: Tensor[(2, 2), float16]) {\n"
    "  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=4, out_dtype=\"float32\");\n"
    "  %1 = tanh(%0);\n"
    "  %2 = tanh(%1);\n"
    "  %3 = nn.leaky_relu(%2, alpha=2f);\n"
    "  %4 = nn.conv2d(%3, %weight, padding=[1, 1, 1, 1], groups=2) "
    "/* ty=Tensor[(1, 4, 8, 8), float32] */;\n"
    "  %5 = nn.leaky_relu(%y);\n"
    "  %6 = (%5, %5);\n"
    "  %7 = %6.1;\n"
    "  %8 = nn.relu(%7);\n"
    "  %9 = tanh(%4);\n"
    "  %10 = exp(%8);\n"
    "  (%9, %10)\n"
    "}\n";

/* Text written to a memory stream by fn(arg, stream), malloc'd. */
static char *captured(void (*fn)(const void *arg, FILE *out), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fn(arg, out);
    fclose(out);
    return text;
}

START_TEST(test_run)
{
    graft_diag *d = graft_diag_new(stderr);
    graft_graph *g = graft_model_load(model_path, NULL, d);
    ck_assert_ptr_nonnull(g);
    graft_engine *e = graft_engine_new(&small_rules, g, NULL);
    ck_assert(graft_engine_run(e, d));
    char *text = graft_model_print_string(g);
    ck_assert_str_eq(text, rewritten);
    ck_assert_uint_eq(graft_diag_errors(d), 0);
    free(text);
    graft_engine_free(e);
    graft_model_free(g);
    graft_diag_free(d);
}
END_TEST

static void print_stats(const void *e, FILE *out)
{
    graft_engine_print_stats(e, out, false);
}

/* Rewriting alone, then the statistics table of --stats=counts. */
START_TEST(test_rewrite_stats)
{
    graft_diag *d = graft_diag_new(stderr);
    graft_graph *g = graft_model_load(model_path, NULL, d);
    graft_engine *e = graft_engine_new(&small_rules, g, &(graft_run_options){.model = "m"});
    ck_assert(graft_engine_rewrite(e, d));
    graft_engine_partition(e);
    char *stats = captured(print_stats, e);
    ck_assert_ptr_nonnull(strstr(stats, "act              5        3        3        2  guard 2\n"));
    ck_assert_ptr_nonnull(strstr(stats, "total: 10 rewrites in 3 rounds, 0 groups;"));
    free(stats);
    graft_engine_free(e);
    graft_model_free(g);
    graft_diag_free(d);
}
END_TEST

/* The matches: rule, root op and root id, as graft match lists them. */
static void visit(void *ctx, uint32_t rule, graft_node *root, const graft_binding *b)
{
    char line[128];
    snprintf(line, sizeof line, "%s %s %u %s;", graft_rule_name(&small_rules, rule),
             graft_node_op(root) ? graft_node_op(root) : "-", graft_node_id(root),
             b[0].node ? "bound" : "unbound");
    strcat(ctx, line);
}

START_TEST(test_matches)
{
    ck_assert_uint_eq(graft_rule_count(&small_rules), 7);
    ck_assert_str_eq(graft_rule_name(&small_rules, 6), "conv_relu");
    ck_assert_ptr_null(graft_rule_name(&small_rules, 7));
    graft_diag *d = graft_diag_new(stderr);
    graft_graph *g = graft_model_load(model_path, NULL, d);
    graft_engine *e = graft_engine_new(&small_rules, g, NULL);
    char seen[1024] = "";
    graft_engine_matches(e, visit, seen);
    ck_assert_str_eq(seen, "fold nn.bias_add 5 bound;act nn.relu 6 bound;act sigmoid 7 bound;"
                           "scale multiply 9 bound;act nn.relu 20 bound;"
                           "conv_relu nn.relu 20 bound;scale multiply 11 bound;"
                           "skip add 15 bound;first - 17 bound;wrap exp 18 bound;");
    graft_engine_free(e);
    graft_model_free(g);
    graft_diag_free(d);
}
END_TEST

static void print_limits(const void *lim, FILE *out)
{
    graft_limits_print(lim, out);
}

START_TEST(test_limits)
{
    FILE *sink = tmpfile();
    graft_diag *d = graft_diag_new(sink);
    graft_limits *lim = graft_limits_new();
    ck_assert(!graft_limits_set(lim, "rewrite=5", d));
    ck_assert_uint_eq(graft_diag_errors(d), 1);
    ck_assert(graft_limits_set(lim, "rewrites=3", d));
    char *table = captured(print_limits, lim);
    ck_assert_ptr_nonnull(strstr(table, "\nrewrites "));
    free(table);
    /* three rewrites are not a fixpoint: reported, false */
    graft_graph *g = graft_model_load(model_path, lim, d);
    graft_engine *e = graft_engine_new(&small_rules, g, &(graft_run_options){.limits = lim});
    ck_assert(!graft_engine_rewrite(e, d));
    ck_assert_uint_eq(graft_diag_errors(d), 2);
    graft_engine_free(e);
    graft_model_free(g);
    graft_limits_free(lim);
    graft_diag_free(d);
    fclose(sink);
}
END_TEST

START_TEST(test_bad_model)
{
    FILE *sink = tmpfile();
    graft_diag *d = graft_diag_new(sink);
    static const char text[] = "def @main(%x) {\n  nn.relu(%x\n}\n";
    ck_assert_ptr_null(graft_model_parse("bad.relay", text, sizeof text - 1, NULL, d));
    ck_assert_uint_eq(graft_diag_errors(d), 1);
    ck_assert_ptr_null(graft_model_load("/nonexistent/m.relay", NULL, d));
    ck_assert_uint_eq(graft_diag_errors(d), 2);
    ck_assert_uint_eq(graft_diag_warnings(d), 0);
    graft_diag_free(d);
    fclose(sink);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("public");
    tcase_add_test(tc, test_run);
    tcase_add_test(tc, test_rewrite_stats);
    tcase_add_test(tc, test_matches);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_bad_model);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
