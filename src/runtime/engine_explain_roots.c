/* engine_explain_roots.c - graft explain of a rule of several roots
 * (note [several roots] in src/compiler/check_roots.c): the node each
 * root matched, and when the try failed, which root it failed in and
 * through which shared binding that root was looked for (note [root
 * candidates] in match_roots.c). */
#include "engine_explain_impl.h"

#include <stdlib.h>

#include "walk.h"

/* Whether part p is in the tree under t. */
static bool in_tree(const graft_pat *t, const graft_pat *p)
{
    WALK(const graft_pat *) w = {0};
    walk_push(&w, t);
    bool found = false;
    while (w.depth && !found) {
        const graft_pat *n = walk_pop(&w);
        found = n == p;
        walk_reserve(&w, (size_t)n->nkids);
        for (int i = 0; i < n->nkids; i++)
            walk_push_reserved(&w, n->kids[i]);
    }
    walk_free(&w);
    return found;
}

/* The root (from 0) whose tree holds part p, or -1. */
static int root_of(const graft_rule *rule, const graft_pat *p)
{
    for (int j = 0; p && j < rule->nroots; j++)
        if (in_tree(rule->roots[j].pattern, p))
            return j;
    return -1;
}

void explain_roots_matched(Explainer *x, const graft_rule *rule)
{
    int n;
    graft_node *const *roots = matcher_roots(x->e->m, &n);
    for (int j = 0; j < n; j++)
        fprintf(x->out, "  root %d: %s\n", j + 1, explain_label_at(x, roots[j], &x->sb));
    (void)rule;
}

/* No user of the shared binding's node fits root j. */
static void explain_no_candidate(Explainer *x, const graft_rule *rule, const MatchFailure *f)
{
    int j = root_of(rule, f->pat);
    const char *via = rule->slot_names[f->bind];
    StrBuf msg = {0};
    fprintf(x->out, "  root %d of %d: no candidate among the users of '%s'\n", j + 1,
            rule->nroots, via);
    strbuf_printf(&msg, "root %d is looked for among the nodes %d operand step%s above '%s'",
                  j + 1, rule->roots[j].depth, rule->roots[j].depth == 1 ? "" : "s", via);
    explain_rule_note(x, rule, f->pat, msg.data);
    msg.len = 0;
    if (f->node) {
        strbuf_printf(&msg, "'%s' is %s; no node that far above it has the root's form, "
                      "or each is a node an earlier root matched",
                      via, explain_label(x, f->node, &x->sb));
        explain_model_note(x, f->node, msg.data);
    } else {
        fprintf(x->out, "  '%s' is bound in no way the earlier roots matched\n", via);
    }
    strbuf_free(&msg);
}

void explain_roots_failed(Explainer *x, const graft_rule *rule, const MatchFailure *f)
{
    if (!rule->nroots || f->kind == MFAIL_GUARD || f->kind == MFAIL_BUDGET)
        return; /* the guard reads every root's bindings */
    if (f->kind == MFAIL_ROOT) {
        explain_no_candidate(x, rule, f);
        return;
    }
    int j = root_of(rule, f->pat);
    if (j > 0)
        fprintf(x->out, "  in root %d of %d, looked for among the users of '%s'\n", j + 1,
                rule->nroots, rule->slot_names[rule->roots[j].via]);
}
