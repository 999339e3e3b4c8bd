/* check_rules_check.c - the checker: what it resolves for the engine, the
 * diagnostics (exact text), subsumption and unification, includes. */
#include "check_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker.h"
#include "registry.h"

static RuleFile *load_ok(const char *text)
{
    char *diag;
    RuleFile *rf = load_text(text, false, &diag);
    ck_assert_msg(rf != NULL, "does not check:\n%s", diag);
    free(diag);
    return rf;
}

/* ---- resolve ---- */

START_TEST(test_resolve_golden)
{
    RuleFile *rf = load_ok("bn := gamma*(x-mean)/sqrt(var+eps:const)+beta\n"
                           "      => nn.batch_norm(x, gamma, beta, mean, var, epsilon=eps)[0]\n");
    const AstRule *r = rf->rules[0];
    const AstNode *add = r->pattern;
    ck_assert_ptr_eq(add->u.call.op, registry_find(rf->registry, "add"));
    const AstNode *mul = add->u.call.args.items[0]->u.call.args.items[0];
    ck_assert_int_eq(mul->kind, AST_CALL); /* gamma*( is a multiplication */
    ck_assert_str_eq(mul->u.call.name, "multiply");
    ck_assert_ptr_eq(mul->u.call.op, registry_find(rf->registry, "multiply"));
    ck_assert_str_eq(mul->u.call.args.items[0]->u.var.name, "gamma");
    ck_assert_int_eq(r->pattern_src->u.call.args.items[0]->u.call.args.items[0]->kind, AST_REPEAT);
    ck_assert_int_eq(r->nvars, 6);
    static const char *const order[] = {"gamma", "x", "mean", "var", "eps", "beta"};
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(r->vars[i].name, order[i]);
        ck_assert(r->vars[i].always_bound);
        ck_assert_int_eq(r->vars[i].kind, VARKIND_NODE);
        ck_assert_int_eq(r->vars[i].uses, 1);
    }
    const AstNode *eps_attr = r->action->u.item.base->u.call.attrs.items[0];
    ck_assert_int_eq(eps_attr->u.attr.value->u.var.slot, 4);
    ck_assert_ptr_eq(r->action->u.item.base->u.call.op, registry_find(rf->registry, "nn.batch_norm"));
    rulefile_free(rf);
}
END_TEST

START_TEST(test_resolve_macros_and_repeat)
{
    RuleFile *rf = load_ok("let act(p) = nn.relu(p) | sigmoid(p)\n"
                           "let conv = c@nn.conv2d(x, w)\n"
                           "a := act(conv) => partition\n"
                           "b := act(broadcast_to*(y)) => partition\n");
    const AstRule *a = rf->rules[0];
    ck_assert_int_eq(a->pattern_src->kind, AST_CALL); /* as written: act(conv) */
    ck_assert_int_eq(a->pattern->kind, AST_ALT);
    const AstNode *relu = a->pattern->u.alt.left;
    ck_assert_ptr_eq(relu->u.call.op, registry_find(rf->registry, "nn.relu"));
    ck_assert_int_eq(relu->u.call.args.items[0]->kind, AST_BIND);
    ck_assert_int_eq(a->nvars, 3);
    ck_assert_str_eq(a->vars[0].name, "c");
    ck_assert_int_eq(a->vars[0].site->kind, AST_BIND);
    const AstNode *rep = rf->rules[1]->pattern->u.alt.right->u.call.args.items[0];
    ck_assert_int_eq(rep->kind, AST_REPEAT);
    ck_assert_ptr_eq(rep->u.call.op, registry_find(rf->registry, "broadcast_to"));
    /* Each use of a macro gets its own nodes (and variable slots). */
    ck_assert_ptr_ne(rf->rules[0]->pattern->u.alt.left, rf->rules[1]->pattern->u.alt.left);
    rulefile_free(rf);
}
END_TEST

START_TEST(test_resolve_vars)
{
    RuleFile *rf = load_ok("r := c@nn.conv2d(x, w, strides=s) | nn.relu(x)"
                           " where users(x) == 1 && dtype(x) == float32 => partition\n"
                           "q := add(x, x) => x\n");
    const AstRule *r = rf->rules[0];
    ck_assert_int_eq(r->nvars, 4);
    ck_assert_str_eq(r->vars[0].name, "c");
    ck_assert(!r->vars[0].always_bound);
    ck_assert_str_eq(r->vars[1].name, "x");
    ck_assert(r->vars[1].always_bound);
    ck_assert_int_eq(r->vars[1].uses, 2);
    ck_assert_int_eq(r->vars[3].kind, VARKIND_ATTR);
    ck_assert_int_eq(r->vars[3].site->kind, AST_ATTR);
    ck_assert_int_eq(r->guard->u.op.left->u.op.left->u.query.query, QUERY_USERS);
    ck_assert_int_eq(r->guard->u.op.right->u.op.left->u.query.query, QUERY_DTYPE);
    const AstRule *q = rf->rules[1];
    ck_assert_int_eq(q->nvars, 1);
    ck_assert_int_eq(q->pattern->u.call.args.items[1]->u.var.slot, 0);
    ck_assert_ptr_eq(q->vars[0].site, q->pattern->u.call.args.items[0]);
    rulefile_free(rf);
}
END_TEST

/* ---- diagnostics not covered by tests/rules/ ---- */

static const struct {
    const char *text;   /* a rule file */
    const char *expect; /* everything graft check reports */
} diags[] = {
    {"r := nn.relu(x) => nn.relu(x, alpha=1)\n",
     "t.graft:1:31: error: op 'nn.relu' has no attribute 'alpha'\n"
     "    1 | r := nn.relu(x) => nn.relu(x, alpha=1)\n"
     "      |                               ^~~~~\n"},
    {"r := <fast>(x) => x\n",
     "t.graft:1:7: error: unknown op class '<fast>'; expected <commutative>, <elementwise>, "
     "<broadcast>, <reduce>, <injective>, <out_elemwise_fusable> or <opaque>\n"
     "    1 | r := <fast>(x) => x\n"
     "      |       ^~~~\n"},
    {"r := dominates(nn.conv2d(x, w), nn.relu(y), sigmoid(_)) => partition\n",
     "t.graft:1:41: error: variable 'y' inside a dominator path; a path matches many "
     "nodes, so use _ there\n"
     "    1 | r := dominates(nn.conv2d(x, w), nn.relu(y), sigmoid(_)) => partition\n"
     "      |                                         ^\n"},
    {"r := nn.conv2d(x, w, strides=s) => nn.relu(x) where\n",
     "t.graft:1:47: error: unexpected 'where'; expected end of file\n"
     "    1 | r := nn.conv2d(x, w, strides=s) => nn.relu(x) where\n"
     "      |                                               ^~~~~\n"
     "t.graft:1:19: warning: 'w' is bound but never used; write _ instead [-Wunused-binding]\n"
     "    1 | r := nn.conv2d(x, w, strides=s) => nn.relu(x) where\n"
     "      |                   ^\n"
     "t.graft:1:30: warning: 's' is bound but never used; write _ instead [-Wunused-binding]\n"
     "    1 | r := nn.conv2d(x, w, strides=s) => nn.relu(x) where\n"
     "      |                              ^\n"},
    {"r := nn.relu(x) | sigmoid(x) => x\nr2 := nn.conv2d(x, w, groups=g, strides=g) => x\n",
     "t.graft:2:20: warning: 'w' is bound but never used; write _ instead [-Wunused-binding]\n"
     "    2 | r2 := nn.conv2d(x, w, groups=g, strides=g) => x\n"
     "      |                    ^\n"},
    {"r := add(x, s) + nn.conv2d(x, w, strides=s) => x\n",
     "t.graft:1:42: error: 's' is bound to an attribute here but to a node elsewhere\n"
     "    1 | r := add(x, s) + nn.conv2d(x, w, strides=s) => x\n"
     "      |                                          ^\n"},
    {"r := nn.relu(x) => nn.relu(1.5:float32) + x:int8\n",
     "t.graft:1:45: error: in an action only a number literal can be given a dtype\n"
     "    1 | r := nn.relu(x) => nn.relu(1.5:float32) + x:int8\n"
     "      |                                             ^~~~\n"},
    {"r := nn.relu(x) => x\n\n\n   # trailing comment only\n", ""},
};

START_TEST(test_diagnostic_text)
{
    char *got = diagnostics(diags[_i].text);
    ck_assert_str_eq(got, diags[_i].expect);
    free(got);
}
END_TEST

START_TEST(test_werror_and_counts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    graft_diag *d = diag_new(out);
    RuleFile *rf = frontend_load_string("t.graft", "a := add(x, y) => x\n", NULL, d);
    ck_assert_ptr_nonnull(rf);
    ck_assert_uint_eq(diag_warnings(d), 1);
    ck_assert_uint_eq(diag_errors(d), 0);
    rulefile_free(rf);
    diag_set_werror(d, true);
    rf = frontend_load_string("t.graft", "a := add(x, y) => x\n", NULL, d);
    ck_assert_ptr_null(rf);
    ck_assert_uint_eq(diag_errors(d), 1);
    diag_free(d);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(buf, "error: 'y' is bound but never used; write _ instead "
                                      "[-Werror,-Wunused-binding]"));
    free(buf);
}
END_TEST

/* ---- subsumption and unification ---- */

static const struct {
    const char *a, *b; /* two patterns */
    bool a_subsumes_b; /* check_subsumes(a, b) */
    bool unify;        /* check_may_unify(a, b) */
} pairs[] = {
    {"_", "nn.relu(x)", true, true},
    {"x", "add(y, 1)", true, true},
    {"add(x, y)", "add(a, 0)", true, true},
    {"add(x, 0)", "add(0, y)", true, true},           /* commutative */
    {"subtract(x, 0)", "subtract(0, y)", false, true},
    {"add(x, x)", "add(a, b)", false, true},          /* non-linear */
    {"add(x, x)", "add(a, a)", true, true},
    {"nn.relu(x)", "sigmoid(x)", false, false},
    {"x:const", "1", true, true},
    {"x:const", "nn.relu(y)", false, false},
    {"x:float32", "y:float32:const", true, true},
    {"x:float32", "y:int8", false, false},
    {"x:Tensor[(1, _), float32]", "y:Tensor[(1, 3), float32]", true, true},
    {"x:Tensor[(1, 4), _]", "y:Tensor[(1, 3), _]", false, false},
    {"x:rank(2)", "y:Tensor[(1, 3), _]", true, true},
    {"nn.conv2d(x, w)", "nn.conv2d(x, w, groups=1)", true, true},
    {"nn.conv2d(x, w, groups=1)", "nn.conv2d(x, w)", false, true},
    {"nn.conv2d(x, w, groups=1)", "nn.conv2d(x, w, groups=2)", false, false},
    {"nn.relu(x) | sigmoid(x)", "sigmoid(y)", true, true},
    {"nn.relu(x)", "nn.relu(y) | sigmoid(y)", false, true},
    {"nn.relu?(x)", "y", true, true}, /* x alone matches anything */
    {"nn.relu?(x:const)", "y", false, true},
    {"nn.relu?(x)", "nn.relu(y)", true, true},
    {"broadcast_to*(x:const)", "broadcast_to(broadcast_to(1))", true, true},
    {"broadcast_to*(x:const)", "nn.relu(y)", false, false},
    {"<elementwise>(x)", "nn.relu(y)", true, true},
    {"<elementwise>(x, y)", "nn.conv2d(a, b)", false, false},
    {"concatenate(...)", "concatenate((a, b))", true, true},
    {"concatenate((a, ...))", "concatenate((x, y, z))", true, true},
    {"(a, b)", "(x, y, z)", false, false},
    {"p[0]", "nn.batch_norm(a, b, c, d, e)[0]", true, true},
    {"p[0]", "q[1]", false, false},
    {"fn[Composite=\"a\"](x)", "fn[Composite=\"a\", Other=1](y)", true, true},
    {"fn[Composite=\"a\"](x)", "fn[Composite=\"b\"](y)", false, false},
    {"dominates(nn.conv2d(x, w), <elementwise>(_), nn.relu(_))", "nn.relu(y)", false, true},
    {"c@nn.relu(x)", "nn.relu(y)", true, true},
    /* repeated variables: one name, one node (note [unification]) */
    {"multiply(x, sigmoid(x))", "multiply(y, tanh(y))", false, false},
    {"multiply(x, x)", "multiply(a, b)", false, true},
    {"multiply(x, y)", "multiply(a, a)", true, true},
    {"multiply(x, x)", "multiply(_, _)", false, true},
    {"add(x, x)", "add(nn.relu(a), b)", false, true},
    {"add(x, x)", "add(nn.relu(a), sigmoid(b))", false, false},
    {"add(x, x)", "add(nn.relu(a) | tanh(a), tanh(b))", false, true},
    {"add(x, x)", "add(nn.relu(a) | sigmoid(a), tanh(b))", false, false},
    {"add(x, nn.relu(x))", "add(nn.relu(y), y)", true, true},   /* swapped */
    {"add(x, nn.relu(x))", "add(y, y)", false, false},          /* occurs check */
    {"multiply(x, nn.relu?(x))", "multiply(y, y)", true, true}, /* relu absent */
    {"add(x:const, x)", "add(y, nn.relu(z))", false, false},    /* x is a constant */
    {"add(x:const, x)", "add(y:var, z)", false, false},
    {"add(c@nn.relu(x), c)", "add(y, sigmoid(z))", false, false},
    {"add(c@nn.relu(x), c)", "add(d@nn.relu(y), d)", true, true},
    {"(x, x)", "(nn.relu(a), sigmoid(b))", false, false},
    {"(x, nn.relu(x))", "(y, nn.relu(y))", true, true},
    {"(x, nn.relu(x))", "(nn.relu(y), y)", false, false},
    {"(x, y)", "(y, x)", true, true},
    {"(x, x, x)", "(a, b, nn.relu(b))", false, false},
    {"(x, x, x)", "(a, b, nn.relu?(b))", false, true},
};

START_TEST(test_subsume_unify)
{
    char text[512];
    snprintf(text, sizeof text, "a := %s => partition\nb := %s => partition\n",
             pairs[_i].a, pairs[_i].b);
    char *diag;
    RuleFile *rf = load_text(text, false, &diag);
    ck_assert_msg(rf != NULL, "%s", diag);
    free(diag);
    const AstRule *a = rf->rules[0], *b = rf->rules[1];
    ck_assert_msg(check_subsumes(a, b) == pairs[_i].a_subsumes_b, "subsumes(%s, %s)",
                  pairs[_i].a, pairs[_i].b);
    ck_assert_msg(check_may_unify(a->pattern, b->pattern) == pairs[_i].unify,
                  "unify(%s, %s)", pairs[_i].a, pairs[_i].b);
    ck_assert(check_may_unify(b->pattern, a->pattern) == pairs[_i].unify);
    rulefile_free(rf);
}
END_TEST

/* ---- includes ---- */

/* out = dir/name. */
static void dir_path(char out[4096], const char *dir, const char *name)
{
    snprintf(out, 4096, "%s/%s", dir, name);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    dir_path(path, dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Removes files names[0..n) from dir, then dir. */
static void remove_dir(const char *dir, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        dir_path(path, dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

START_TEST(test_include_diamond_once)
{
    char dir[] = "/tmp/graft-rules-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_file(dir, "base.graft", "let act(p) = nn.relu(p) | sigmoid(p)\n"
                                  "op my.op(a) elementwise\n");
    write_file(dir, "left.graft", "include \"base.graft\"\nl := act(x) => partition\n");
    write_file(dir, "right.graft", "include \"base.graft\"\nr := my.op(act(x)) => partition\n");
    write_file(dir, "top.graft", "include \"left.graft\"\ninclude \"right.graft\"\n"
                                 "t := tanh(x) => partition\n");
    char top[4096];
    dir_path(top, dir, "top.graft");
    char *buf;
    RuleFile *rf = load_path(top, &buf);
    ck_assert_msg(rf != NULL, "%s", buf);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(rf->nrules, 3);
    ck_assert_str_eq(rf->rules[0]->name, "l");
    ck_assert_str_eq(rf->rules[1]->name, "r");
    ck_assert_str_eq(rf->rules[2]->name, "t");
    ck_assert_int_eq(rf->rules[2]->index, 2);
    ck_assert_int_eq(rf->nfiles, 4);
    rulefile_free(rf);
    free(buf);
    const char *names[] = {"base.graft", "left.graft", "right.graft", "top.graft"};
    remove_dir(dir, names, ARRAY_LEN(names));
}
END_TEST

START_TEST(test_self_include)
{
    char dir[] = "/tmp/graft-rules-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_file(dir, "self.graft", "include \"self.graft\"\n");
    char path[4096];
    dir_path(path, dir, "self.graft");
    char *buf;
    RuleFile *rf = load_path(path, &buf);
    ck_assert_ptr_null(rf);
    ck_assert_ptr_nonnull(strstr(buf, "self.graft:1:9: error: include cycle: 'self.graft' is "
                                      "already being loaded"));
    free(buf);
    const char *names[] = {"self.graft"};
    remove_dir(dir, names, ARRAY_LEN(names));
}
END_TEST

/* ---- the builtin registry shared by many loads ---- */

static RuleFile *load_shared(const FrontendBuiltin *b, const char *text, char **diag)
{
    size_t len = 0;
    FILE *out = open_memstream(diag, &len);
    graft_diag *d = diag_new(out);
    FrontendOptions opts = {.builtin = b};
    RuleFile *rf = frontend_load_string("t.graft", text, b ? &opts : NULL, d);
    diag_free(d);
    fclose(out);
    return rf;
}

START_TEST(test_shared_builtin)
{
    graft_diag *d = diag_new(stderr);
    FrontendBuiltin *b = frontend_builtin_new(d);
    diag_free(d);
    ck_assert_ptr_nonnull(b);
    char *diag;
    RuleFile *mine = load_shared(b, "op my.op(x)\nr := my.op(add(x, x)) => x\n", &diag);
    ck_assert_msg(mine != NULL, "%s", diag);
    free(diag);
    RuleFile *other = load_shared(b, "r := add(x, x) => x\n", &diag);
    ck_assert_msg(other != NULL, "%s", diag);
    free(diag);
    RuleFile *alone = load_shared(NULL, "r := add(x, x) => x\n", &diag);
    free(diag);
    /* the builtin ops are the same OpInfo in both loads, a load's own op
       is in its registry only, and a load on its own has the same ops */
    ck_assert_ptr_nonnull(registry_find(mine->registry, "add"));
    ck_assert_ptr_eq(registry_find(mine->registry, "add"), registry_find(other->registry, "add"));
    ck_assert_ptr_nonnull(registry_find(mine->registry, "my.op"));
    ck_assert_ptr_null(registry_find(other->registry, "my.op"));
    ck_assert_int_eq(registry_count(mine->registry), registry_count(alone->registry) + 1);
    ck_assert_int_eq(registry_count(other->registry), registry_count(alone->registry));
    ck_assert_ptr_eq(other->rules[0]->pattern->u.call.op, registry_find(other->registry, "add"));
    rulefile_free(mine);
    rulefile_free(other);
    rulefile_free(alone);
    /* the same diagnostics either way, their excerpts from ops.graft too */
    const char *bad = "op add(x)\nr := ad(x, y) => x\n";
    char *shared_diag, *own_diag;
    ck_assert_ptr_null(load_shared(b, bad, &shared_diag));
    ck_assert_ptr_null(load_shared(NULL, bad, &own_diag));
    ck_assert_str_eq(shared_diag, own_diag);
    ck_assert_ptr_nonnull(strstr(own_diag, "did you mean"));
    free(shared_diag);
    free(own_diag);
    frontend_builtin_free(b);
}
END_TEST

Suite *suite_rules_check(void)
{
    Suite *s = suite_create("rules_check");
    TCase *tc = tcase_create("resolve");
    tcase_add_test(tc, test_resolve_golden);
    tcase_add_test(tc, test_resolve_macros_and_repeat);
    tcase_add_test(tc, test_resolve_vars);
    tcase_add_test(tc, test_shared_builtin);
    suite_add_tcase(s, tc);
    tc = tcase_create("diagnostics");
    tcase_add_loop_test(tc, test_diagnostic_text, 0, (int)ARRAY_LEN(diags));
    tcase_add_test(tc, test_werror_and_counts);
    suite_add_tcase(s, tc);
    tc = tcase_create("overlap");
    tcase_add_loop_test(tc, test_subsume_unify, 0, (int)ARRAY_LEN(pairs));
    suite_add_tcase(s, tc);
    tc = tcase_create("include");
    tcase_add_test(tc, test_include_diamond_once);
    tcase_add_test(tc, test_self_include);
    suite_add_tcase(s, tc);
    return s;
}
