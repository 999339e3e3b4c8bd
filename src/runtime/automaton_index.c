/* automaton_index.c - the automaton's indexes, built once from the rule
 * set before any state (automaton.c): ops named by rules with their
 * items and attribute tests, the generic items, node and function tests
 * in test order, rules best first; and the accessors the labeller and the
 * dumper read them through. */
#include "automaton_impl.h"

#include <stdlib.h>
#include <string.h>

static uint32_t op_find_or_add(Automaton *a, const char *name)
{
    for (uint32_t i = 0; i < a->nops; i++)
        if (strcmp(a->ops[i].name, name) == 0)
            return i;
    a->ops = xrealloc(a->ops, (a->nops + 1) * sizeof *a->ops);
    memset(&a->ops[a->nops], 0, sizeof *a->ops);
    a->ops[a->nops].name = name;
    return a->nops++;
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

static void index_preds(Automaton *a)
{
    const graft_rule_set *rs = a->rs;
    for (uint32_t p = 0; p < rs->npreds; p++) {
        const graft_pred *pr = &rs->preds[p];
        if (pr->kind != GRAFT_PRED_ATTR)
            vec_push(&a->node_preds, p);
        else if (!pr->op)
            vec_push(&a->fn_preds, p);
        else {
            uint32_t o = op_find_or_add(a, pr->op); /* may move a->ops */
            vec_push(&a->ops[o].preds, p);
        }
    }
}

static void index_items(Automaton *a)
{
    a->item_op = xmalloc((a->rs->nitems + 1) * sizeof *a->item_op);
    for (uint32_t i = 0; i < a->rs->nitems; i++) {
        const graft_item *it = &a->rs->items[i];
        a->item_op[i] = SYM_OTHER_OP;
        if (it->kind == GRAFT_PITEM_OP || it->kind == GRAFT_PITEM_STAR) {
            uint32_t o = op_find_or_add(a, it->op); /* may move a->ops */
            vec_push(&a->ops[o].items, i);
            a->item_op[i] = o;
        }
        if (it->kind != GRAFT_PITEM_OP)
            vec_push(&a->generic, i);
        a->scopes |=
            it->kind == GRAFT_PITEM_FN || it->kind == GRAFT_PITEM_IF || it->kind == GRAFT_PITEM_LET;
    }
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

void automaton_index(Automaton *a)
{
    const graft_rule_set *rs = a->rs;
    index_items(a);
    index_preds(a);
    for (uint32_t o = 0; o < a->nops; o++)
        sort_preds(a->ops[o].preds.items, (uint32_t)a->ops[o].preds.len, rs->preds);
    sort_preds(a->node_preds.items, (uint32_t)a->node_preds.len, rs->preds);
    sort_preds(a->fn_preds.items, (uint32_t)a->fn_preds.len, rs->preds);
    a->rule_order = xmalloc((rs->nrules + 1) * sizeof(uint32_t));
    sort_rules(a->rule_order, rs->nrules, rs->rules);
}

const graft_rule_set *automaton_rules(const Automaton *a)
{
    return a->rs;
}

uint32_t automaton_op_index(const Automaton *a, const char *op)
{
    for (uint32_t i = 0; i < a->nops; i++)
        if (strcmp(a->ops[i].name, op) == 0)
            return i;
    return SYM_OTHER_OP;
}

bool automaton_has_scopes(const Automaton *a)
{
    return a->scopes;
}

const uint32_t *automaton_node_preds(const Automaton *a, uint32_t *n)
{
    *n = (uint32_t)a->node_preds.len;
    return a->node_preds.items;
}

const uint32_t *automaton_op_preds(const Automaton *a, uint32_t op, uint32_t *n)
{
    if (op >= a->nops) {
        *n = 0;
        return NULL;
    }
    *n = (uint32_t)a->ops[op].preds.len;
    return a->ops[op].preds.items;
}

const uint32_t *automaton_fn_preds(const Automaton *a, uint32_t *n)
{
    *n = (uint32_t)a->fn_preds.len;
    return a->fn_preds.items;
}

/* ---- accessors for the dumper (automaton_dump.c) ---- */

uint32_t automaton_nops(const Automaton *a)
{
    return a->nops;
}

const char *automaton_op_name(const Automaton *a, uint32_t op)
{
    return a->ops[op].name;
}

const uint32_t *automaton_op_items(const Automaton *a, uint32_t op, uint32_t *n)
{
    *n = (uint32_t)a->ops[op].items.len;
    return a->ops[op].items.items;
}
