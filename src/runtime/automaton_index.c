/* automaton_index.c - the automaton's indexes, built once from the rule
 * set before any state (automaton.c): ops named by rules with their
 * items and attribute tests, the generic items, node and function tests
 * in test order, rules best first; and the accessors the labeller and the
 * dumper read them through.  A compiled rule set brings them as static
 * tables (note [compiled index] in graft_rules.h), which graft compile
 * writes from what this file builds. */
#include "automaton_impl.h"

#include <stdlib.h>
#include <string.h>

static uint32_t op_find_or_add(BuiltIndex *b, const char *name)
{
    for (uint32_t i = 0; i < b->nops; i++)
        if (strcmp(b->ops[i].name, name) == 0)
            return i;
    b->ops = xrealloc(b->ops, (b->nops + 1) * sizeof *b->ops);
    memset(&b->ops[b->nops], 0, sizeof *b->ops);
    b->ops[b->nops].name = name;
    return b->nops++;
}

/* note [test order]: node tests are sorted by kind and then by the value
 * they look for, attribute tests by attribute name and then by the
 * wanted value's text; so the labeller finds the tests a node passes by
 * binary search, at a cost that grows with the log of their number, not
 * with the number of rules (automaton_label.c). */
int automaton_pred_cmp(const graft_pred *x, const graft_pred *y)
{
    if (x->kind != y->kind)
        return (x->kind > y->kind) - (x->kind < y->kind);
    switch (x->kind) {
    case GRAFT_PRED_VALUE: return (x->f > y->f) - (x->f < y->f);
    case GRAFT_PRED_RANK: return (x->i > y->i) - (x->i < y->i);
    case GRAFT_PRED_VAR_NAME:
    case GRAFT_PRED_OP_VALUE:
    case GRAFT_PRED_DTYPE: return strcmp(x->s, y->s);
    case GRAFT_PRED_ATTR: {
        int c = strcmp(x->s, y->s);
        return c ? c : strcmp(x->key, y->key);
    }
    default: return 0;
    }
}

/* Test ids by automaton_pred_cmp, then id (sort_u32 is stable). */
static bool pred_before(const void *preds, uint32_t x, uint32_t y)
{
    return automaton_pred_cmp((const graft_pred *)preds + x, (const graft_pred *)preds + y) < 0;
}

static void sort_preds(uint32_t *v, uint32_t n, const graft_pred *preds)
{
    sort_u32(v, n, pred_before, preds);
}

static void index_preds(BuiltIndex *b, const graft_rule_set *rs)
{
    for (uint32_t p = 0; p < rs->npreds; p++) {
        const graft_pred *pr = &rs->preds[p];
        if (pr->kind != GRAFT_PRED_ATTR)
            vec_push(&b->node_preds, p);
        else if (!pr->op)
            vec_push(&b->fn_preds, p);
        else {
            uint32_t o = op_find_or_add(b, pr->op); /* may move b->ops */
            vec_push(&b->ops[o].preds, p);
        }
    }
}

/* Items by head op and the generic ones; whether some item is a scope. */
static bool index_items(BuiltIndex *b, const graft_rule_set *rs)
{
    bool scopes = false;
    b->item_op = xmalloc((rs->nitems + 1) * sizeof *b->item_op);
    for (uint32_t i = 0; i < rs->nitems; i++) {
        const graft_item *it = &rs->items[i];
        b->item_op[i] = SYM_OTHER_OP;
        if (it->kind == GRAFT_PITEM_OP || it->kind == GRAFT_PITEM_STAR) {
            uint32_t o = op_find_or_add(b, it->op); /* may move b->ops */
            vec_push(&b->ops[o].items, i);
            b->item_op[i] = o;
        }
        if (it->kind != GRAFT_PITEM_OP)
            vec_push(&b->generic, i);
        scopes |=
            it->kind == GRAFT_PITEM_FN || it->kind == GRAFT_PITEM_IF || it->kind == GRAFT_PITEM_LET;
    }
    return scopes;
}

bool automaton_rule_before(const void *rules, uint32_t x, uint32_t y)
{
    return ((const graft_rule *)rules)[x].priority > ((const graft_rule *)rules)[y].priority;
}

/* Orders rule indices best first: higher priority, then earlier in the
 * file (the identity order, sorted stably). */
static void sort_rules(uint32_t *v, uint32_t n, const graft_rule *rules)
{
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    sort_u32(v, n, automaton_rule_before, rules);
}

/* Points a->ix at what b holds. */
static void index_view(Automaton *a, BuiltIndex *b)
{
    b->views = xcalloc(b->nops + 1, sizeof *b->views);
    for (uint32_t o = 0; o < b->nops; o++)
        b->views[o] = (graft_automaton_op){
            .name = b->ops[o].name,
            .nitems = (uint32_t)b->ops[o].items.len, .items = b->ops[o].items.items,
            .npreds = (uint32_t)b->ops[o].preds.len, .preds = b->ops[o].preds.items,
        };
    a->ix.nops = b->nops;
    a->ix.ops = b->views;
    a->ix.item_op = b->item_op;
    a->ix.ngeneric = (uint32_t)b->generic.len;
    a->ix.generic = b->generic.items;
    a->ix.nnode_preds = (uint32_t)b->node_preds.len;
    a->ix.node_preds = b->node_preds.items;
    a->ix.nfn_preds = (uint32_t)b->fn_preds.len;
    a->ix.fn_preds = b->fn_preds.items;
    a->ix.rule_order = b->rule_order;
}

void automaton_index(Automaton *a)
{
    const graft_rule_set *rs = a->rs;
    BuiltIndex *b = a->built = xcalloc(1, sizeof *b);
    a->ix.scopes = index_items(b, rs);
    index_preds(b, rs);
    for (uint32_t o = 0; o < b->nops; o++)
        sort_preds(b->ops[o].preds.items, (uint32_t)b->ops[o].preds.len, rs->preds);
    sort_preds(b->node_preds.items, (uint32_t)b->node_preds.len, rs->preds);
    sort_preds(b->fn_preds.items, (uint32_t)b->fn_preds.len, rs->preds);
    b->rule_order = xmalloc((rs->nrules + 1) * sizeof(uint32_t));
    sort_rules(b->rule_order, rs->nrules, rs->rules);
    index_view(a, b);
}

void automaton_index_free(BuiltIndex *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->nops; i++) {
        vec_free(&b->ops[i].items);
        vec_free(&b->ops[i].preds);
    }
    free(b->ops);
    free(b->views);
    free(b->item_op);
    vec_free(&b->generic);
    vec_free(&b->node_preds);
    vec_free(&b->fn_preds);
    free(b->rule_order);
    free(b);
}

const graft_automaton_index *automaton_index_of(const Automaton *a)
{
    return &a->ix;
}

const graft_rule_set *automaton_rules(const Automaton *a)
{
    return a->rs;
}

uint32_t automaton_op_index(const Automaton *a, const char *op)
{
    for (uint32_t i = 0; i < a->ix.nops; i++)
        if (strcmp(a->ix.ops[i].name, op) == 0)
            return i;
    return SYM_OTHER_OP;
}

bool automaton_has_scopes(const Automaton *a)
{
    return a->ix.scopes;
}

const uint32_t *automaton_node_preds(const Automaton *a, uint32_t *n)
{
    *n = a->ix.nnode_preds;
    return a->ix.node_preds;
}

const uint32_t *automaton_op_preds(const Automaton *a, uint32_t op, uint32_t *n)
{
    if (op >= a->ix.nops) {
        *n = 0;
        return NULL;
    }
    *n = a->ix.ops[op].npreds;
    return a->ix.ops[op].preds;
}

const uint32_t *automaton_fn_preds(const Automaton *a, uint32_t *n)
{
    *n = a->ix.nfn_preds;
    return a->ix.fn_preds;
}

/* ---- accessors for the dumper (automaton_dump.c) ---- */

uint32_t automaton_nops(const Automaton *a)
{
    return a->ix.nops;
}

const char *automaton_op_name(const Automaton *a, uint32_t op)
{
    return a->ix.ops[op].name;
}

const uint32_t *automaton_op_items(const Automaton *a, uint32_t op, uint32_t *n)
{
    *n = a->ix.ops[op].nitems;
    return a->ix.ops[op].items;
}
