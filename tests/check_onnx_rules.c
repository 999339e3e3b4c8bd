/* check_onnx_rules.c - rules for ONNX: every op stdpatterns/onnx_ops.graft
 * declares has shape inference and an evaluator kernel, found by name
 * (note [onnx inference] in src/onnx/onnx_infer.h); the declaration
 * clauses (note [onnx op clauses] in src/compiler/rules_build_items.c);
 * rule files for ONNX (note [target IR] in src/compiler/registry.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "eval.h"
#include "frontend.h"
#include "onnx_infer.h"
#include "registry.h"
#include "registry_tables.h"
#include "check_main.h"

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

START_TEST(test_every_op_has_inference_and_kernel)
{
    RuleFile *rf = load_ok("opset onnx 17\n");
    int nonnx = 0;
    for (int i = 0; i < registry_count(rf->registry); i++) {
        const OpInfo *op = registry_op(rf->registry, i);
        if (!op->onnx)
            continue;
        nonnx++;
        ck_assert_msg(onnx_has_infer(op->name), "%s has no shape inference", op->name);
        ck_assert_msg(eval_has_op(op->name), "%s has no kernel", op->name);
        ck_assert_msg(op->since > 0, "%s: no 'since N'", op->name);
    }
    int declared = 0; /* "op " at the start of a line of onnx_ops.graft */
    for (const char *p = registry_onnx_table.text; (p = strstr(p, "\nop ")); p++)
        declared++;
    ck_assert_int_eq(nonnx, declared);
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

static Suite *onnx_rules_suite(void)
{
    Suite *s = suite_create("onnx_rules");
    TCase *tc = tcase_create("onnx_rules");
    tcase_add_test(tc, test_every_op_has_inference_and_kernel);
    tcase_add_test(tc, test_target_ir);
    tcase_add_test(tc, test_relay_op_named_in_onnx_file);
    tcase_add_test(tc, test_operators_are_onnx_ops);
    tcase_add_test(tc, test_declaration_clauses);
    tcase_add_test(tc, test_clause_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(onnx_rules_suite());
}
