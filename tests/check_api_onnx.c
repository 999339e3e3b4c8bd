/* check_api_onnx.c - ONNX models through the API of graft_api.h, as a
 * binding sees it: include/graft the only include path, the installed
 * form of libgraft.a the library.  Models from an .onnx file, from ONNX
 * bytes and ONNX text in memory; run, rewrite, partition, match, explain
 * and verify; the result written in the input's form; bad input as
 * structured diagnostics (bytes: the byte offset; text: line, column and
 * the line).  The expected texts are graft's command's (the golden files of tests/onnx
 * and what `graft run`, `graft match` and `graft explain` print for the
 * same inputs). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graft_api.h"
#include "check_main.h"

#define SRC GRAFT_SRCDIR "/"

static const char fold_rules[] = SRC "stdpatterns/onnx_fold_bn.graft";
static const char conv_bn[] = SRC "tests/onnx/conv_bn.onnx";

/* A model in ONNX's text syntax: two Relus in a row, and rules that fold
 * them into one and put the Relu in a partition. */
static const char relu_text[] =
    "<ir_version: 8, opset_import: [\"\" : 17]>\n"
    "g (float[2] x) => (float[2] y) {\n"
    "  r1 = Relu (x)\n"
    "  y = Relu (r1)\n"
    "}\n";
static const char relu_rules[] =
    "opset onnx 17\n"
    "twice := Relu(Relu(x)) => Relu(x)\n";

/* What graft run of relu_rules prints for relu_text (the second Relu,
 * which makes the graph output, reads x itself). */
static const char relu_run[] =
    "<\n"
    "  ir_version: 8,\n"
    "  opset_import: [\"\" : 17]\n"
    ">\n"
    "g (float[2] x) => (float[2] y) {\n"
    "  [graft_Relu_0] y = Relu (x)\n"
    "}\n";

/* The bytes of file path, *len of them, malloc'd. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *data = NULL;
    size_t cap = 0, n = 0, got;
    do {
        cap = cap ? 2 * cap : 4096;
        data = realloc(data, cap + 1);
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (n == cap);
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

/* A golden file's expected output: its lines between the command line
 * and "# exit N", malloc'd. */
static char *golden_output(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    char *body = strchr(text, '\n') + 1;
    char *end = strstr(body, "# exit ");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    char *out = strdup(body);
    free(text);
    return out;
}

/* Every test's diagnostics, captured (a checked fixture: made before
 * each test and freed after it). */
static graft_diag *d;

static void capture_diags(void)
{
    d = graft_diag_capture();
}

static void free_diags(void)
{
    graft_diag_free(d);
    d = NULL;
}

static graft_rules *rules_file(const char *path)
{
    graft_rules *r = graft_rules_load(&path, 1, NULL, d);
    ck_assert_ptr_nonnull(r);
    return r;
}

static void no_errors(void)
{
    ck_assert_uint_eq(graft_diag_count(d), 0);
}

START_TEST(test_text_run)
{
    graft_rules *r = graft_rules_parse("relu.graft", relu_rules, strlen(relu_rules), NULL, d);
    graft_graph *g = graft_model_parse("relu.onnxtxt", relu_text, strlen(relu_text), NULL, d);
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(graft_model_form(g), GRAFT_MODEL_ONNX_TEXT);
    ck_assert(graft_rules_run(r, g, NULL, d));
    size_t len;
    char *out = graft_model_write(g, &len, d);
    ck_assert_str_eq(out, relu_run);
    ck_assert_uint_eq(len, strlen(relu_run));
    graft_string_free(out);
    out = graft_model_print_string(g);
    ck_assert_str_eq(out, relu_run);
    graft_string_free(out);
    no_errors();
    graft_model_free(g);
    graft_rules_free(r);
}
END_TEST

/* Rewrite alone, partition alone, and apply in one call, text in and out. */
START_TEST(test_text_steps)
{
    graft_rules *r = graft_rules_parse("relu.graft", relu_rules, strlen(relu_rules), NULL, d);
    graft_graph *g = graft_model_parse("relu.onnxtxt", relu_text, strlen(relu_text), NULL, d);
    ck_assert(graft_rules_partition(r, g, NULL, d)); /* no partition rule: unchanged */
    char *out = graft_model_print_string(g);
    ck_assert_ptr_nonnull(strstr(out, "  r1 = Relu (x)\n  y = Relu (r1)\n"));
    graft_string_free(out);
    ck_assert(graft_rules_rewrite(r, g, NULL, d));
    out = graft_model_print_string(g);
    ck_assert_str_eq(out, relu_run);
    graft_string_free(out);
    size_t len;
    graft_model_kind form;
    out = graft_rules_apply_model(r, "relu.onnxtxt", relu_text, strlen(relu_text),
                                  GRAFT_STEP_REWRITE, NULL, &len, &form, d);
    ck_assert_str_eq(out, relu_run);
    ck_assert_int_eq(form, GRAFT_MODEL_ONNX_TEXT);
    graft_string_free(out);
    out = graft_rules_apply(r, "relu.onnxtxt", relu_text, strlen(relu_text),
                            GRAFT_STEP_REWRITE | GRAFT_STEP_PARTITION, NULL, d);
    ck_assert_str_eq(out, relu_run);
    graft_string_free(out);
    no_errors();
    graft_model_free(g);
    graft_rules_free(r);
}
END_TEST

/* A node a rule makes is in its op's declared domain, and the model gains
 * the domain's opset import (note [made ops' opsets] in
 * src/onnx/onnx_export_opset.c), through the API as with graft run, which
 * prints exactly this for the same rule file and model. */
START_TEST(test_made_op_domain)
{
    static const char rules[] = "opset onnx 17\n"
                                "op MyGelu(X) elementwise domain \"com.example\" since 1\n"
                                "g := Relu(x) => MyGelu(x)\n";
    static const char model[] = "<ir_version: 8, opset_import: [\"\" : 17]>\n"
                                "g (float[2] x) => (float[2] y) {\n"
                                "  y = Relu (x)\n"
                                "}\n";
    static const char want[] = "<\n"
                               "  ir_version: 8,\n"
                               "  opset_import: [\"\" : 17, \"com.example\" : 1]\n"
                               ">\n"
                               "g (float[2] x) => (float[2] y) {\n"
                               "  [graft_MyGelu_0] y = com.example.MyGelu (x)\n"
                               "}\n";
    graft_rules *r = graft_rules_parse("d.graft", rules, strlen(rules), NULL, d);
    size_t len;
    graft_model_kind form;
    char *out = graft_rules_apply_model(r, "m.onnxtxt", model, strlen(model),
                                        GRAFT_STEP_REWRITE, NULL, &len, &form, d);
    ck_assert_str_eq(out, want);
    graft_string_free(out);
    no_errors();
    graft_rules_free(r);
}
END_TEST

/* An .onnx file nothing rewrites is written back byte for byte (note
 * [onnx bytes] in src/onnx/onnx_model.h). */
START_TEST(test_bytes_unchanged)
{
    graft_graph *g = graft_model_load(conv_bn, NULL, d);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(graft_model_form(g), GRAFT_MODEL_ONNX_BYTES);
    size_t len, want_len;
    char *want = slurp(conv_bn, &want_len);
    char *out = graft_model_write(g, &len, d);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(out, want, len) == 0);
    graft_string_free(out);
    free(want);
    no_errors();
    graft_model_free(g);
}
END_TEST

/* ONNX bytes in memory, rewritten by the standard batch-norm folding:
 * bytes out, which read back are what graft run prints
 * (tests/onnx/fold_run_text.golden). */
START_TEST(test_bytes_run)
{
    graft_rules *r = rules_file(fold_rules);
    size_t in_len, len;
    char *in = slurp(conv_bn, &in_len);
    ck_assert_int_eq(graft_model_kind_of(in, in_len), GRAFT_MODEL_ONNX_BYTES);
    graft_model_kind form;
    char *out = graft_rules_apply_model(r, "conv_bn.onnx", in, in_len,
                                        GRAFT_STEP_REWRITE | GRAFT_STEP_PARTITION, NULL, &len,
                                        &form, d);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(form, GRAFT_MODEL_ONNX_BYTES);
    ck_assert_int_eq(graft_model_kind_of(out, len), GRAFT_MODEL_ONNX_BYTES);
    graft_graph *back = graft_model_parse("out.onnx", out, len, NULL, d);
    ck_assert_ptr_nonnull(back);
    char *text = graft_model_print_string(back);
    char *want = golden_output(SRC "tests/onnx/fold_run_text.golden");
    ck_assert_str_eq(text, want);
    free(want);
    graft_string_free(text);
    graft_model_free(back);
    /* graft_rules_apply gives the same model in ONNX's text syntax */
    char *applied = graft_rules_apply(r, conv_bn, NULL, 0, GRAFT_STEP_REWRITE, NULL, d);
    want = golden_output(SRC "tests/onnx/fold_run_text.golden");
    ck_assert_str_eq(applied, want);
    free(want);
    graft_string_free(applied);
    graft_string_free(out);
    free(in);
    no_errors();
    graft_rules_free(r);
}
END_TEST

/* Rules applied inside an ONNX model's subgraphs (If's branches, a nested
 * If's too) through the API, as graft run applies them
 * (tests/onnx/subgraph/run_branches.golden): the API once rewrote the main
 * graph only.  A partition alone leaves the branches as they are. */
START_TEST(test_subgraphs_run)
{
    graft_rules *r = rules_file(SRC "tests/onnx/subgraph/branch_rules.graft");
    const char *model = SRC "tests/onnx/subgraph/branch_rules.onnxtxt";
    char *out = graft_rules_apply(r, model, NULL, 0, GRAFT_STEP_REWRITE, NULL, d);
    char *want = golden_output(SRC "tests/onnx/subgraph/run_branches.golden");
    ck_assert_str_eq(out, want);
    free(want);
    graft_string_free(out);
    out = graft_rules_apply(r, model, NULL, 0, GRAFT_STEP_PARTITION, NULL, d);
    ck_assert_ptr_nonnull(strstr(out, "    u = Add (x, m)\n    a = Exp (u)\n"));
    graft_string_free(out);
    no_errors();
    graft_rules_free(r);
}
END_TEST

/* m's matches as graft match prints them (src/cli/cmd_match.c), one a
 * line, into buf; the nodes of these ONNX models have no positions. */
static void match_text(const graft_matches *m, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < graft_matches_count(m); i++) {
        const graft_match *x = graft_matches_get(m, i);
        ck_assert_int_eq(x->line, 0);
        n += (size_t)snprintf(buf + n, size - n, "%s at %s %s", x->rule, x->root, x->kind);
        for (size_t b = 0; b < x->nbindings && n < size; b++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%s", b ? ", " : ": ",
                                  x->bindings[b].var, x->bindings[b].value);
        n += (size_t)snprintf(buf + n, size - n, "\n");
        ck_assert_uint_lt(n, size);
    }
}

/* A golden file of tests/onnx/subgraph/ and the rules and model of its
 * command (at and rule: graft explain's --at and --rule). */
typedef struct SubgraphCase {
    const char *golden, *rules, *model, *at, *rule;
} SubgraphCase;

#define SUBGRAPH SRC "tests/onnx/subgraph/"

/* graft match through the API lists what the command prints: in a model
 * with If and Loop bodies, the matches inside them first, their nodes
 * named GRAPH/NAME (the API once listed the main graph's alone); in a
 * model with none, the same list as before.  Twice on one graph, the
 * same. */
START_TEST(test_match_subgraphs)
{
    static const SubgraphCase cases[] = {
        {"match_branches", "branch_rules.graft", "branch_rules.onnxtxt", NULL, NULL},
        {"match_loop", "body_rules.graft", "loop_reads.onnxtxt", NULL, NULL},
        {"same_names_match", "branch_rules.graft", "same_names.onnxtxt", NULL, NULL},
        {"../fold_match", "../../../stdpatterns/onnx_fold_bn.graft", "../conv_bn.onnx", NULL,
         NULL},
    };
    char path[3][512], got[2][2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const SubgraphCase *c = &cases[i];
        snprintf(path[0], sizeof path[0], SUBGRAPH "%s.golden", c->golden);
        snprintf(path[1], sizeof path[1], SUBGRAPH "%s", c->rules);
        snprintf(path[2], sizeof path[2], SUBGRAPH "%s", c->model);
        graft_rules *r = rules_file(path[1]);
        graft_graph *g = graft_model_load(path[2], NULL, d);
        for (int k = 0; k < 2; k++) {
            graft_matches *m = graft_rules_match(r, g, NULL, d);
            ck_assert_ptr_nonnull(m);
            match_text(m, got[k], sizeof got[k]);
            graft_matches_free(m);
        }
        char *want = golden_output(path[0]);
        ck_assert_str_eq(got[0], want);
        ck_assert_str_eq(got[1], want);
        free(want);
        graft_model_free(g);
        graft_rules_free(r);
    }
    no_errors();
}
END_TEST

/* Where each match's root is: the subgraph, its holder named as the graph
 * around it names it, and the attribute; NULL three times in the main
 * graph (tests/onnx/subgraph/match_branches.golden and match_loop.golden
 * list the same matches). */
START_TEST(test_match_where)
{
    static const struct {
        const char *rules, *model, *want;
    } cases[] = {
        {"branch_rules.graft", "branch_rules.onnxtxt",
         "then_body/a: then_body in y's then_branch\n"
         "inner_then/d: inner_then in else_body/b's then_branch\n"
         "inner_else/d: inner_else in else_body/b's else_branch\n"
         "m: main graph\n"},
        {"body_rules.graft", "loop_reads.onnxtxt", "body/v_out: body in z's body\n"},
    };
    char path[2][512], got[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path[0], sizeof path[0], SUBGRAPH "%s", cases[i].rules);
        snprintf(path[1], sizeof path[1], SUBGRAPH "%s", cases[i].model);
        graft_rules *r = rules_file(path[0]);
        graft_graph *g = graft_model_load(path[1], NULL, d);
        graft_matches *m = graft_rules_match(r, g, NULL, d);
        ck_assert_ptr_nonnull(m);
        size_t n = 0;
        for (size_t k = 0; k < graft_matches_count(m); k++) {
            const graft_match *x = graft_matches_get(m, k);
            ck_assert((x->subgraph == NULL) == (x->holder == NULL));
            ck_assert((x->subgraph == NULL) == (x->attribute == NULL));
            if (x->subgraph)
                n += (size_t)snprintf(got + n, sizeof got - n, "%s: %s in %s's %s\n", x->root,
                                      x->subgraph, x->holder, x->attribute);
            else
                n += (size_t)snprintf(got + n, sizeof got - n, "%s: main graph\n", x->root);
            ck_assert_uint_lt(n, sizeof got);
        }
        ck_assert_str_eq(got, cases[i].want);
        graft_matches_free(m);
        graft_model_free(g);
        graft_rules_free(r);
    }
    no_errors();
}
END_TEST

/* graft explain through the API at a node of a subgraph, named as graft
 * match names it, and a rule's near misses in every graph, as the command
 * prints them: run where the goldens' commands run, so that the rules'
 * file is named as they name it (Check runs each test in a process of
 * its own; the other tests name their files by absolute paths). */
START_TEST(test_explain_subgraphs)
{
    static const SubgraphCase cases[] = {
        {"explain_at_branch", "branch_rules.graft", "branch_rules.onnxtxt", "then_body/a",
         NULL},
        {"explain_at_nested", "branch_rules.graft", "branch_rules.onnxtxt", "inner_else/d",
         "neg_neg"},
        {"explain_rule_branches", "branch_rules.graft", "branch_rules.onnxtxt", NULL,
         "neg_neg"},
        {"explain_loop", "body_rules.graft", "loop_reads.onnxtxt", "body/v_out", NULL},
        {"same_names_explain", "branch_rules.graft", "same_names.onnxtxt", "branch_4/a2",
         "neg_neg"},
    };
    ck_assert_int_eq(chdir(SUBGRAPH), 0);
    char path[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const SubgraphCase *c = &cases[i];
        graft_rules *r = rules_file(c->rules);
        graft_graph *g = graft_model_load(c->model, NULL, d);
        char *got = graft_rules_explain(r, g, c->at, c->rule, NULL, d);
        snprintf(path, sizeof path, "%s.golden", c->golden);
        char *want = golden_output(path);
        ck_assert_str_eq(got, want);
        free(want);
        graft_string_free(got);
        graft_model_free(g);
        graft_rules_free(r);
    }
    no_errors();
}
END_TEST

/* graft explain at a node g does not have: nothing, and the one error
 * that names it (after no other). */
static void explain_no_node(graft_rules *r, graft_graph *g, const char *at)
{
    ck_assert_ptr_null(graft_rules_explain(r, g, at, NULL, NULL, d));
    ck_assert_uint_eq(graft_diag_count(d), 1);
    char want[256];
    snprintf(want, sizeof want, "no node '%s' in the model (name it as 'graft fmt' prints it, "
             "or by its position, :LINE[:COL])", at);
    ck_assert_str_eq(graft_diag_message(d, 0)->text, want);
}

/* A subgraph's parameter that stands for an outer value is no node of
 * its own (tests/onnx/subgraph/explain_at_outer.golden). */
START_TEST(test_explain_outer_read)
{
    graft_rules *r = rules_file(SUBGRAPH "branch_rules.graft");
    graft_graph *g = graft_model_load(SUBGRAPH "branch_rules.onnxtxt", NULL, d);
    no_errors();
    explain_no_node(r, g, "inner_then/%x");
    graft_model_free(g);
    graft_rules_free(r);
}
END_TEST

/* graft match on an ONNX model (tests/onnx/fold_match.golden): node names
 * as the model gives them; protobuf bytes have no lines, so no
 * positions. */
START_TEST(test_match)
{
    graft_rules *r = rules_file(fold_rules);
    graft_graph *g = graft_model_load(conv_bn, NULL, d);
    graft_matches *m = graft_rules_match(r, g, NULL, d);
    ck_assert_uint_eq(graft_matches_count(m), 1);
    const graft_match *x = graft_matches_get(m, 0);
    ck_assert_str_eq(x->rule, "fold_conv_bn");
    ck_assert_str_eq(x->root, "bn");
    ck_assert_str_eq(x->kind, "BatchNormalization");
    ck_assert_int_eq(x->line, 0);
    static const char *const want[][2] = {
        {"c", "conv"}, {"x", "%x"}, {"w", "w"}, {"gamma", "scale"}, {"beta", "bias"},
        {"mean", "mean"}, {"var", "var"}, {"e", "9.9999997473787516e-06"},
    };
    ck_assert_uint_eq(x->nbindings, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < x->nbindings; i++) {
        ck_assert_str_eq(x->bindings[i].var, want[i][0]);
        ck_assert_str_eq(x->bindings[i].value, want[i][1]);
        ck_assert(x->bindings[i].is_node == (i + 1 < x->nbindings));
        ck_assert_int_eq(x->bindings[i].line, 0);
    }
    graft_matches_free(m);
    no_errors();
    graft_model_free(g);
    graft_rules_free(r);
}
END_TEST

/* graft explain on an ONNX model, at a node by its ONNX name and a rule's
 * near misses (tests/onnx/fold_explain.golden, the rule file named as
 * given). */
START_TEST(test_explain)
{
    graft_rules *r = rules_file(fold_rules);
    graft_graph *g = graft_model_load(conv_bn, NULL, d);
    char *near = graft_rules_explain(r, g, NULL, "fold_conv_bias_bn", NULL, d);
    ck_assert_str_eq(near,
        "fold_conv_bias_bn (" SRC "stdpatterns/onnx_fold_bn.graft:34): 0 matches; all 1 "
        "partial match:\n"
        "  bn: 1 part matched; 'Conv(x, w:const, b:const)' (" SRC
        "stdpatterns/onnx_fold_bn.graft:34:43) wants 3 operands; conv has 2 operands\n");
    graft_string_free(near);
    char *at = graft_rules_explain(r, g, "bn", "fold_conv_bn", NULL, d);
    ck_assert_str_eq(at,
        "fold_conv_bn (" SRC "stdpatterns/onnx_fold_bn.graft:27) at bn: matches: c=conv, "
        "x=%x, w=w, gamma=scale, beta=bias, mean=mean, var=var, e=9.9999997473787516e-06\n"
        "  applied by graft run's next round\n");
    graft_string_free(at);
    no_errors();
    explain_no_node(r, g, "no_such_node");
    graft_model_free(g);
    graft_rules_free(r);
}
END_TEST

/* graft verify of rules for ONNX: what the command says of each (both
 * verified, 215 trials). */
START_TEST(test_verify)
{
    graft_rules *r = rules_file(fold_rules);
    graft_verdicts *v = graft_rules_verify(r, NULL);
    ck_assert_uint_eq(graft_verdicts_count(v), 2);
    static const char *const names[] = {"fold_conv_bn", "fold_conv_bias_bn"};
    for (size_t i = 0; i < 2; i++) {
        const graft_verdict *x = graft_verdicts_get(v, i);
        ck_assert_str_eq(x->rule, names[i]);
        /* as tests/verify_onnx/stdpatterns.golden says of the command */
        ck_assert_str_eq(x->verdict, "verified");
        ck_assert_int_eq(x->trials, 215);
        ck_assert_str_eq(x->why, "");
        ck_assert(x->max_error > 0 && x->max_error <= x->tolerance);
    }
    graft_verdicts_free(v);
    graft_rules_free(r);
}
END_TEST

/* The one diagnostic of the model in file path parsed from memory as
 * name: an error about name, and no model. */
static const graft_message *parse_error(const char *path, const char *name)
{
    size_t len;
    char *in = slurp(path, &len);
    ck_assert_ptr_null(graft_model_parse(name, in, len, NULL, d));
    free(in); /* (the diagnostic holds its own copies) */
    ck_assert_uint_eq(graft_diag_count(d), 1);
    const graft_message *m = graft_diag_message(d, 0);
    ck_assert_int_eq(m->severity, GRAFT_SEVERITY_ERROR);
    ck_assert_str_eq(m->file, name);
    return m;
}

/* Bad bytes: the file, no line, the byte offset, the message without it
 * (tests/onnx/bad/truncated.golden). */
START_TEST(test_bad_bytes)
{
    const graft_message *m = parse_error(SRC "tests/onnx/bad/truncated.onnx", "truncated.onnx");
    ck_assert_int_eq(m->line, 0);
    ck_assert_int_eq(m->byte, 16);
    ck_assert_str_eq(m->text, "length 69 of field 'graph' (7) of onnx.ModelProto runs past "
                              "the end of the file (byte 40)");
}
END_TEST

/* Bad text: line, column, the line quoted and the note
 * (tests/onnx/text/mismatched_brace.golden). */
START_TEST(test_bad_text)
{
    const graft_message *m = parse_error(SRC "tests/onnx/text/mismatched_brace.onnxtxt",
                                         "mismatched_brace.onnxtxt");
    ck_assert_int_eq(m->line, 4);
    ck_assert_int_eq(m->column, 1);
    ck_assert_int_eq(m->byte, -1);
    ck_assert_str_eq(m->text, "unexpected ']'; expected '}'");
    ck_assert_str_eq(m->source_line, "]");
    ck_assert_uint_eq(m->nnotes, 1);
    ck_assert_int_eq(m->notes[0].line, 2);
    ck_assert_int_eq(m->notes[0].column, 32);
    ck_assert_str_eq(m->notes[0].text, "inside this '{'");
}
END_TEST

/* Rules for one IR on a model of the other: an error, nothing run. */
START_TEST(test_wrong_ir)
{
    static const char relay_rules[] = "add_zero := add(x, 0f) => x\n";
    static const char relay_model[] = "def @main(%x: Tensor[(4), float32]) {\n  add(%x, 0f)\n}\n";
    graft_rules *relay = graft_rules_parse("r.graft", relay_rules, strlen(relay_rules), NULL, d);
    graft_rules *onnx = graft_rules_parse("o.graft", relu_rules, strlen(relu_rules), NULL, d);
    graft_graph *g = graft_model_parse("m.onnxtxt", relu_text, strlen(relu_text), NULL, d);
    graft_graph *rg = graft_model_parse("m.relay", relay_model, strlen(relay_model), NULL, d);
    no_errors();
    ck_assert(!graft_rules_run(relay, g, NULL, d));
    ck_assert_str_eq(graft_diag_message(d, 0)->text,
                     "the model is an ONNX model, but the rules are for Relay; a rule file for "
                     "ONNX starts with 'opset onnx N'");
    ck_assert_ptr_null(graft_rules_explain(relay, g, NULL, "add_zero", NULL, d));
    ck_assert(!graft_rules_rewrite(onnx, rg, NULL, d));
    ck_assert_str_eq(graft_diag_message(d, 2)->text,
                     "the model is a Relay model, but the rules are for ONNX ('opset onnx 17')");
    ck_assert_uint_eq(graft_diag_count(d), 3);
    graft_matches *m = graft_rules_match(onnx, rg, NULL, d);
    ck_assert_ptr_null(m);
    ck_assert_uint_eq(graft_diag_count(d), 4);
    graft_model_free(rg);
    graft_model_free(g);
    graft_rules_free(onnx);
    graft_rules_free(relay);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api_onnx");
    TCase *tc = tcase_create("onnx");
    tcase_add_checked_fixture(tc, capture_diags, free_diags);
    tcase_add_test(tc, test_text_run);
    tcase_add_test(tc, test_text_steps);
    tcase_add_test(tc, test_made_op_domain);
    tcase_add_test(tc, test_bytes_unchanged);
    tcase_add_test(tc, test_bytes_run);
    tcase_add_test(tc, test_subgraphs_run);
    tcase_add_test(tc, test_match);
    tcase_add_test(tc, test_explain);
    tcase_add_test(tc, test_match_subgraphs);
    tcase_add_test(tc, test_match_where);
    tcase_add_test(tc, test_explain_subgraphs);
    tcase_add_test(tc, test_explain_outer_read);
    tcase_add_test(tc, test_verify);
    tcase_add_test(tc, test_bad_bytes);
    tcase_add_test(tc, test_bad_text);
    tcase_add_test(tc, test_wrong_ir);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
