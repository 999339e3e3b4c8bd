/* match_check.c - deciding a match without a try: a rule whose states
 * prove it (note [proven rules]), and a rule a walk of the states decides
 * (note [checked rules]).  A rule neither covers is tried (match.c). */
#include "match_impl.h"

#include <stdlib.h>
#include <string.h>

/* Whether the states say all a try would find of a pattern node of kind
 * kind: not of a dominator walk nor of scopes, nor a repeated op's chain
 * unless star. */
static bool states_decide(graft_pat_kind kind, bool star)
{
    switch (kind) {
    case GRAFT_PAT_ANY:
    case GRAFT_PAT_OP:
    case GRAFT_PAT_FNCALL:
    case GRAFT_PAT_TUPLE:
    case GRAFT_PAT_GETITEM:
    case GRAFT_PAT_ALT:
    case GRAFT_PAT_CALL:
        return true;
    case GRAFT_PAT_STAR:
        return star;
    default:
        return false;
    }
}

/* note [proven rules]: a state is exact for everything a pattern says
 * about its nodes and their shape (automaton.h); what a try adds is a
 * variable used twice, attribute values bound twice, a guard, a
 * dominator walk and the choice of a repeated op's chain.  A rule with
 * none of these matches wherever its state offers it: each way the try
 * takes is one whose items are all in the operands' states, so no goal
 * fails and nothing backtracks, and the try ends in at most one step per
 * pattern part and tail pair, plus the final one.  Such a rule needs no
 * verifying walk (engine_match_roots), unless the steps limit is below
 * that bound or graft explain records the try. */
uint32_t matcher_proof_steps(const graft_rule *rule)
{
    return rule->guard || rule->guard_fn ? 0 : matcher_linear_steps(rule);
}

/* The same bound but for the guard: a rule whose try can fail only at its
 * guard where its state offers it (note [direct try] in match_direct.c). */
uint32_t matcher_linear_steps(const graft_rule *rule)
{
    if (!rule->pattern || rule->nroots)
        return 0;
    uint8_t *seen = xcalloc((size_t)rule->nslots + 1, 1);
    VEC(const graft_pat *) todo = {0};
    KeyMap visited = {0};
    uint32_t parts = 0;
    bool proven = true;
    vec_push(&todo, rule->pattern);
    while (todo.len && proven) {
        const graft_pat *p = vec_pop(&todo);
        int64_t *again = keymap_put(&visited, keymap_ptr_key(p), 0);
        proven = !(*again)++; /* a shared sub-pattern: a try may walk it twice */
        parts++;
        int slots[3] = {p->slot, p->callee - 1, -1};
        proven = proven && states_decide(p->kind, false); /* nor a repeated op */
        for (int i = 0; i < 2; i++) /* the node's own slot, a callee variable */
            if (slots[i] >= 0)
                proven = proven && !seen[slots[i]]++;
        for (int i = 0; i < p->nbinds; i++)
            proven = proven && !seen[p->binds[i].slot]++;
        for (int k = 0; k < p->nkids; k++)
            vec_push(&todo, p->kids[k]);
    }
    keymap_free(&visited);
    vec_free(&todo);
    free(seen);
    return proven ? 2 * parts + 1 : 0;
}

bool matcher_state_proves(const Matcher *m, uint32_t r)
{
    return m->proof[r] != 0 && m->proof[r] <= m->max_steps && !m->rec;
}

/* note [checked rules]: a rule that is proven but for a variable used
 * twice (layer_norm's x and m, gelu's x) or a repeated op's chain needs
 * its try only where the states leave it a choice.  The state of a node
 * is exact for every item (automaton.h), so where the root's state
 * offers the rule, a pattern node's item holds at the graph node it is
 * matched with, and so do its operands' items at the operands: the try's
 * goals never fail on an item, and its only choices are an alternative,
 * the order of a commutative op's two operands and a chain's length.
 * matcher_check follows the pattern down from the root as the try would,
 * taking at each such choice the one way whose items are in the states;
 * where one way fits, the try takes it and pushes no choice point, so the
 * try cannot fail but on a variable bound to two nodes, which the check
 * compares as it goes.  Where two ways fit, the try may backtrack, and
 * the check leaves it to the try (CHECK_TRY); so it does when the try's
 * steps could exceed the limit.  One stack of pattern nodes, each beside
 * its graph node; no goals, pairs or trail. */
bool matcher_checkable(const graft_rule *rule)
{
    if (rule->guard || rule->guard_fn || !rule->pattern || rule->nroots)
        return false;
    uint8_t *node_slot = xcalloc((size_t)rule->nslots + 1, 1);
    uint8_t *value_slot = xcalloc((size_t)rule->nslots + 1, 1);
    VEC(const graft_pat *) todo = {0};
    KeyMap visited = {0}; /* alternatives and macros share sub-patterns */
    bool ok = true, shared = false, values = false;
    vec_push(&todo, rule->pattern);
    while (todo.len && ok) {
        const graft_pat *p = vec_pop(&todo);
        int64_t *again = keymap_put(&visited, keymap_ptr_key(p), 0);
        if ((*again)++) {
            shared = true;
            continue;
        }
        ok = states_decide(p->kind, true);
        if (p->slot >= 0)
            node_slot[p->slot] = 1;
        values = values || p->callee > 0 || p->nbinds > 0;
        if (p->callee > 0) /* compared by callee, not by node: once only */
            ok = ok && !value_slot[p->callee - 1]++;
        for (int i = 0; i < p->nbinds; i++) /* compared by value: once only */
            ok = ok && !value_slot[p->binds[i].slot]++;
        for (int k = 0; k < p->nkids; k++)
            vec_push(&todo, p->kids[k]);
    }
    ok = ok && !(shared && values); /* a value bound on two paths of one match */
    for (int i = 0; ok && i <= rule->nslots; i++)
        ok = !(node_slot[i] && value_slot[i]);
    keymap_free(&visited);
    vec_free(&todo);
    free(node_slot);
    free(value_slot);
    return ok;
}

/* The one way of p at n whose items the states hold, or -1 when there
 * are two (or none, which the exact states rule out). */
static int only_way(Matcher *m, const graft_pat *p, graft_node *n)
{
    int total = nways(m, p), way = -1;
    for (int w = 0; w < total; w++) {
        if (!way_fits(m, p, n, w))
            continue;
        if (way >= 0)
            return -1;
        way = w;
    }
    return way;
}

MatchCheck matcher_check(Matcher *m, uint32_t r, graft_node *root)
{
    if (matcher_state_proves(m, r))
        return CHECK_MATCHES;
    const graft_rule *rule = &m->rs->rules[r];
    if (!m->checked[r] || m->rec)
        return CHECK_TRY;
    if ((size_t)rule->nslots + 1 > m->at_cap)
        m->at = xgrow_items(m->at, &m->at_cap, (size_t)rule->nslots + 1, sizeof *m->at);
    memset(m->at, 0, ((size_t)rule->nslots + 1) * sizeof *m->at);
    uint64_t steps = 1; /* the try's last step, which finds no goal left */
    walk_clear(&m->todo);
    walk_push(&m->todo, ((CheckGoal){rule->pattern, root, false}));
    while (m->todo.depth) {
        CheckGoal g = walk_pop(&m->todo);
        const graft_pat *p = g.pat;
        if (++steps > m->max_steps)
            return CHECK_TRY;
        if (p->slot >= 0 && !g.nobind) {
            if (m->at[p->slot] && m->at[p->slot] != g.node)
                return CHECK_FAILS;
            m->at[p->slot] = g.node;
        }
        int w = nways(m, p) == 1 ? 0 : only_way(m, p, g.node);
        if (w < 0)
            return CHECK_TRY;
        switch (p->kind) {
        case GRAFT_PAT_ANY: break;
        case GRAFT_PAT_ALT: walk_push(&m->todo, ((CheckGoal){p->kids[w], g.node, false})); break;
        case GRAFT_PAT_STAR:
            if (w == 0) /* one more op of the chain */
                walk_push(&m->todo, ((CheckGoal){p, node_arg(g.node, 0), true}));
            else
                walk_push(&m->todo, ((CheckGoal){p->kids[0], g.node, false}));
            break;
        case GRAFT_PAT_GETITEM:
            walk_push(&m->todo, ((CheckGoal){p->kids[0], node_arg(g.node, 0), false}));
            break;
        default: /* GRAFT_PAT_OP, GRAFT_PAT_FNCALL, GRAFT_PAT_TUPLE, GRAFT_PAT_CALL */
            steps += m->rs->items[p->item].variadic && pattern_noperands(g.node) > p->nkids;
            walk_reserve(&m->todo, (size_t)p->nkids);
            for (int k = p->nkids - 1; k >= 0; k--) {
                graft_node *o = pattern_operand(g.node, w == 1 ? swapped[k] : k);
                walk_push_reserved(&m->todo, ((CheckGoal){p->kids[k], o, false}));
            }
        }
    }
    return steps <= m->max_steps ? CHECK_MATCHES : CHECK_TRY;
}
