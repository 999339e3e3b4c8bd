/* check.c - the checker's driver: lets, rule names, and each rule through
 * expansion, variables, guard and action; then rule-against-rule checks. */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

const AstLet *check_find_let(const CheckCtx *c, const char *name)
{
    return keymap_get_ptr(&c->lets, name);
}

/* let NAME(a, b) = ...: parameters distinct, no op of that name. */
static bool let_ok(CheckCtx *c, const AstLet *let)
{
    for (int i = 0; i < let->nparams; i++)
        for (int j = 0; j < i; j++)
            if (let->params[i] == let->params[j]) {
                diag_error(c->d, let->src, let->param_ranges[i],
                           "parameter '%s' given twice", let->params[i]);
                return false;
            }
    if (registry_find(c->reg, let->name)) {
        diag_error(c->d, let->src, let->name_range,
                   "'%s' is an op; a let cannot take its name", let->name);
        return false;
    }
    const AstLet *old = check_find_let(c, let->name);
    if (old) {
        diag_error(c->d, let->src, let->name_range, "'%s' is defined twice", let->name);
        diag_note(c->d, old->src, old->name_range, "the first definition is here");
        return false;
    }
    return true;
}

static void collect_lets(CheckCtx *c)
{
    for (int f = 0; f < c->rf->nfiles; f++) {
        const AstFile *file = c->rf->files[f];
        for (int i = 0; i < file->nitems; i++) {
            if (file->items[i].kind != ITEM_LET)
                continue;
            const AstLet *let = file->items[i].u.let;
            if (let_ok(c, let))
                keymap_put_ptr(&c->lets, let->name, let);
        }
    }
}

/* Rule names are unique across all files (rules are named in statistics,
 * traces and generated C). */
static void check_names(CheckCtx *c)
{
    KeyMap first = {0}; /* interned rule name -> index of its first rule */
    for (int r = 0; r < c->rf->nrules; r++) {
        const AstRule *rule = c->rf->rules[r];
        int64_t *seen = keymap_put(&first, keymap_ptr_key(rule->name), r);
        if (*seen == r)
            continue;
        const AstRule *earlier = c->rf->rules[*seen];
        diag_error(c->d, rule->src, rule->name_range, "duplicate rule name '%s'", rule->name);
        diag_note(c->d, earlier->src, earlier->name_range, "the first rule '%s' is here",
                  rule->name);
    }
    keymap_free(&first);
}

/* A rewrite rule's variable that neither the guard nor the action uses
 * and that appears once: _ says the same. */
static void warn_unused(CheckCtx *c)
{
    if (c->rule->kind != RULE_REWRITE)
        return;
    for (int i = 0; i < c->nvars; i++) {
        const AstVarInfo *v = &c->vars[i];
        if (v->uses > 0 || c->occurrences[i] > 1 || v->name[0] == '_')
            continue;
        const AstNode *site = v->site;
        SrcRange where = site->kind == AST_BIND   ? site->u.bind.name_range
                         : site->kind == AST_ATTR ? site->u.attr.value->range
                                                  : site->range;
        diag_warning(c->d, site->src, where, "unused-binding",
                     "'%s' is bound but never used; write _ instead", v->name);
    }
}

/* note [scope patterns]: fn, if and let patterns match nodes whose parts
 * are scopes of their own (a body, branches), which a partition cannot
 * cut out into a function's body; TVM's partition skips a function
 * pattern too.  Such rules rewrite.  A function pattern as a callee,
 * (fn (p, q) { body })(x, w) + b, is the exception: TVM partitions the
 * call with the function value inside the group, its body no input
 * (CreateGroup's fuzzy matches of a FunctionPattern), named
 * "nn.conv2d_FunctionCall_add_" (test_partition_function); graft too
 * (note [function names] in partition_name.c). */
static void find_scope(AstNode *n, void *arg)
{
    const AstNode **found = arg;
    if (*found)
        return;
    if (n->kind == AST_FNLIT || n->kind == AST_IF || n->kind == AST_LETIN)
        *found = n;
    else if (n->kind == AST_CALLPAT && n->u.call.body->kind == AST_FNLIT)
        for (int i = 0; i < n->u.call.args.count; i++)
            find_scope(n->u.call.args.items[i], arg);
    else
        ast_visit_children(n, find_scope, arg);
}

static bool check_partition_scopes(CheckCtx *c, AstRule *rule)
{
    const AstNode *found = NULL;
    if (rule->kind == RULE_PARTITION)
        find_scope(rule->pattern, &found);
    if (!found)
        return true;
    diag_error(c->d, found->src, found->range, "a partition cannot cut out '%s' patterns: "
               "their parts are scopes of their own; rewrite the match instead",
               found->u.call.name);
    return false;
}

/* One rule: expand, bind, guard, action.  Later stages run only when the
 * earlier ones succeeded, so one mistake gives one error. */
static bool check_rule(CheckCtx *c, AstRule *rule)
{
    c->rule = rule;
    c->nvars = 0;
    AstNode *pattern = check_expand_pattern(c, rule->pattern_src);
    if (!pattern)
        return false;
    rule->pattern = pattern;
    if (!check_pattern_vars(c) || !check_outputs(c, pattern) ||
        !check_partition_scopes(c, rule))
        return false;
    bool ok = true;
    if (rule->guard)
        ok = check_guard(c, rule->guard);
    ok &= check_action(c, rule->action) && check_outputs(c, rule->action);
    ok = ok && check_roots(c, rule); /* after the action's ops are resolved */
    if (ok)
        warn_unused(c);
    rule->nvars = c->nvars;
    rule->vars = arena_dup(c->rf->arena, c->nvars ? (void *)c->vars : (void *)"",
                           (size_t)c->nvars * sizeof(AstVarInfo));
    return ok;
}

unsigned check_rules(RuleFile *rf, const graft_limits *limits, graft_diag *d)
{
    unsigned before = diag_errors(d);
    CheckCtx c = {.rf = rf, .d = d, .reg = rf->registry,
                  .limits = limit_or_default(limits)};
    collect_lets(&c);
    check_names(&c);
    bool all_ok = true;
    for (int r = 0; r < rf->nrules && !diag_gave_up(d); r++)
        all_ok &= check_rule(&c, rf->rules[r]);
    if (all_ok && !diag_gave_up(d)) {
        check_overlaps(&c);
        check_dead_order(&c);
    }
    keymap_free(&c.lets);
    free(c.vars);
    free(c.var_facts);
    free(c.occurrences);
    return diag_errors(d) - before;
}

const char *const check_warning_names[CHECK_NWARNINGS] = {
    "unused-binding", "shadowed-rule", "ambiguous-overlap", "self-rewrite", "dead-order",
};

bool check_warning_known(const char *name)
{
    for (int i = 0; i < CHECK_NWARNINGS; i++)
        if (strcmp(check_warning_names[i], name) == 0)
            return true;
    return false;
}
