/* match.c - trying a rule at a node: top-down verification with
 * backtracking, iteratively.
 *
 * note [goal machine]: the matcher keeps a list of goals "match pattern P
 * at node N", processed first to last.  Goals are immutable cells in a
 * pool, each pointing at the next, so a list shares its tail with the
 * list it came from.  A pattern node with several ways to match
 * (alternatives, operand orders, chain lengths) takes the first and pushes
 * a choice point remembering the rest: the goal list after it, the heights
 * of the trail of bound slots, of the matched pairs and of the goal pool.
 * Failure pops the newest choice point, undoes everything above those
 * heights and takes the next way.  Goals and choice points live in
 * arrays, so depth costs memory, never C stack.  The checker's unifier
 * (src/compiler/check_unify.c) runs the same machine over two patterns
 * instead of a pattern and a graph: its goals pair two patterns, its
 * trail undoes union-find classes, and a budget of steps ends it; it is
 * a machine of its own because the checker comes after the runtime in
 * the layers and shares none of its types.
 */
#include "match_impl.h"

#include <stdlib.h>
#include <string.h>

#include "limit.h"


Matcher *matcher_new(Labels *labels, const graft_graph *g)
{
    Matcher *m = xcalloc(1, sizeof *m);
    m->labels = labels;
    m->a = labels_automaton(labels);
    m->rs = automaton_rules(m->a);
    m->g = g;
    m->max_steps = limit_defaults.match_steps;
    const graft_automaton_index *ix = m->rs->automaton;
    if (ix && ix->proof_steps) { /* graft compile decided them (note [compiled index]) */
        m->proof = ix->proof_steps;
        m->checked = ix->checked;
    } else {
        uint32_t n = m->rs->nrules;
        m->proof = m->proof_built = xmalloc(((size_t)n + 1) * sizeof *m->proof_built);
        m->checked = m->checked_built = xmalloc(((size_t)n + 1) * sizeof *m->checked_built);
        for (uint32_t r = 0; r < n; r++)
            matcher_rule_facts(&m->rs->rules[r], &m->proof_built[r], &m->checked_built[r]);
    }
    m->direct = xmalloc(((size_t)m->rs->nrules + 1) * sizeof *m->direct);
    m->lines = xcalloc((size_t)m->rs->nrules + 1, sizeof *m->lines);
    for (uint32_t r = 0; r < m->rs->nrules; r++)
        m->direct[r] = DIRECT_UNKNOWN;
    matcher_roots_init(m);
    return m;
}

void matcher_rule_facts(const graft_rule *rule, uint32_t *proof_steps, bool *checked)
{
    *proof_steps = matcher_proof_steps(rule);
    *checked = !*proof_steps && matcher_checkable(rule);
}

void matcher_set_max_steps(Matcher *m, uint64_t max_steps)
{
    m->max_steps = max_steps;
}

void matcher_free(Matcher *m)
{
    if (!m)
        return;
    vec_free(&m->pool);
    vec_free(&m->choices);
    vec_free(&m->trail);
    vec_free(&m->pairs);
    free(m->b);
    strbuf_free(&m->k1);
    strbuf_free(&m->k2);
    free(m->mark);
    walk_free(&m->walk);
    free(m->proof_built);
    free(m->checked_built);
    free(m->at);
    walk_free(&m->todo);
    free(m->root_at);
    vec_free(&m->cands);
    vec_free(&m->level);
    free(m->seen);
    matcher_roots_free(m);
    free(m->direct);
    matcher_lines_free(m);
    walk_free(&m->line);
    for (size_t k = 0; k < m->indexes.len; k++)
        free(m->indexes.items[k]);
    vec_free(&m->indexes);
    free(m);
}

const graft_binding *matcher_bindings(const Matcher *m)
{
    return m->b;
}

const MatchPair *matcher_pairs(const Matcher *m, uint32_t *n)
{
    *n = (uint32_t)m->pairs.len;
    return m->pairs.items;
}

bool matcher_pairs_lined(const Matcher *m)
{
    return m->lined;
}

const graft_rule_set *matcher_ruleset(const Matcher *m)
{
    return m->rs;
}

const graft_graph *matcher_graph(const Matcher *m)
{
    return m->g;
}

bool matcher_node_has(const Matcher *m, const graft_node *n, uint32_t item)
{
    return has(m, n, item);
}

uint32_t matcher_goal(Matcher *m, const graft_pat *p, graft_node *n, bool nobind, uint32_t next)
{
    vec_push(&m->pool, ((Goal){p, n, nobind, false, next, 0}));
    return (uint32_t)m->pool.len - 1;
}

void matcher_add_pair(Matcher *m, const graft_pat *p, graft_node *n)
{
    vec_push(&m->pairs, ((MatchPair){p, n, false}));
}

/* After the goals of p's operands: the tail pair, when p is variadic
 * and leaves operands of n unmatched. */
static uint32_t tail_goal(Matcher *m, const graft_pat *p, graft_node *n, uint32_t rest)
{
    if (!m->rs->items[p->item].variadic || pattern_noperands(n) <= p->nkids)
        return rest;
    uint32_t gi = matcher_goal(m, p, n, true, rest);
    m->pool.items[gi].tail = true;
    return gi;
}

static void bind(Matcher *m, int slot, graft_node *n, const graft_attr_value *v)
{
    vec_push(&m->trail, (uint32_t)slot);
    m->b[slot].node = n;
    m->b[slot].attr = v;
}

static bool same_attr(Matcher *m, const graft_attr_value *x, const graft_attr_value *y)
{
    if (x == y)
        return true;
    if (!x || !y)
        return false;
    m->k1.len = m->k2.len = 0;
    pattern_attr_key(x, &m->k1);
    pattern_attr_key(y, &m->k2);
    return strcmp(m->k1.data, m->k2.data) == 0;
}

const graft_attr_value *matcher_index_value(Matcher *m, const graft_node *n)
{
    size_t k = (size_t)node_index(n);
    while (m->indexes.len <= k) {
        graft_attr_value *v = xcalloc(1, sizeof *v);
        v->kind = GRAFT_ATTR_INT;
        v->i = (int64_t)m->indexes.len;
        vec_push(&m->indexes, v);
    }
    return m->indexes.items[k];
}

/* Binds the pattern node's slot and attribute slots; a slot bound before
 * must hold the same node (or an equal attribute value). */
static bool bind_all(Matcher *m, const graft_pat *p, graft_node *n)
{
    if (p->callee > 0) {
        graft_binding *b = &m->b[p->callee - 1];
        if (b->node && !pattern_same_callee(b->node, n)) {
            if (matcher_record(m, MFAIL_REBIND, p, n))
                m->rec->other = b->node;
            return false;
        }
        if (!b->node)
            bind(m, p->callee - 1, n, NULL);
    }
    if (p->slot >= 0) {
        graft_binding *b = &m->b[p->slot];
        if (b->node && b->node != n) {
            if (matcher_record(m, MFAIL_REBIND, p, n))
                m->rec->other = b->node;
            return false;
        }
        if (!b->node)
            bind(m, p->slot, n, NULL);
    }
    for (int i = 0; i < p->nbinds; i++) {
        const graft_attr_bind *ab = &p->binds[i];
        const graft_attr_value *v = ab->name ? node_find_attr(n, ab->name)
                                                : matcher_index_value(m, n);
        if (!v)
            v = ab->dflt;
        graft_binding *b = &m->b[ab->slot];
        if (b->attr || b->node) {
            if (!same_attr(m, b->attr, v)) {
                if (matcher_record(m, MFAIL_ATTR, p, n)) {
                    m->rec->bind = i;
                    m->rec->had = b->attr;
                    m->rec->got = v;
                }
                return false;
            }
        } else
            bind(m, ab->slot, NULL, v);
    }
    return true;
}

/* Pushes goals for kids matched with operands in the given order (order
 * NULL = 0, 1, 2, ...); returns the new list head. */
static uint32_t push_kids(Matcher *m, const graft_pat *p, graft_node *n, const int *order,
                          uint32_t rest)
{
    for (int k = p->nkids - 1; k >= 0; k--) {
        int arg = order ? order[k] : k;
        rest = matcher_goal(m, p->kids[k], pattern_operand(n, arg), false, rest);
    }
    return rest;
}

/* (fn (p) { body })(x): the operands' goals, the tail's when the call has
 * more, then the callee's (kids[0], a function pattern). */
static uint32_t take_fn_callee(Matcher *m, const graft_pat *p, graft_node *n, uint32_t rest)
{
    matcher_add_pair(m, p, n);
    int nargs = p->nkids - 1;
    if (m->rs->items[p->item].variadic && pattern_noperands(n) > nargs) {
        rest = matcher_goal(m, p, n, true, rest);
        m->pool.items[rest].tail = true;
    }
    for (int k = nargs; k >= 1; k--)
        rest = matcher_goal(m, p->kids[k], pattern_operand(n, k - 1), false, rest);
    return matcher_goal(m, p->kids[0], node_callee(n), false, rest);
}

/* Takes way w of p at n: records the pair and returns the goals that now
 * come before rest. */
static uint32_t take_way(Matcher *m, const graft_pat *p, graft_node *n, int w, uint32_t rest)
{
    switch (p->kind) {
    case GRAFT_PAT_ANY:
        matcher_add_pair(m, p, n);
        return rest;
    case GRAFT_PAT_ALT:
        return matcher_goal(m, p->kids[w], n, false, rest);
    case GRAFT_PAT_STAR:
        if (w == 1)
            return matcher_goal(m, p->kids[0], n, false, rest);
        matcher_add_pair(m, p, n);
        return matcher_goal(m, p, node_arg(n, 0), true, rest);
    case GRAFT_PAT_GETITEM:
        matcher_add_pair(m, p, n);
        return matcher_goal(m, p->kids[0], node_arg(n, 0), false, rest);
    case GRAFT_PAT_DOM: {
        graft_node *parent;
        matcher_dom_walk(m, p, n, true, &parent);
        rest = matcher_goal(m, p->kids[2], n, false, rest);
        return matcher_goal(m, p->kids[0], parent, false, rest);
    }
    case GRAFT_PAT_FNCALLEE:
        return take_fn_callee(m, p, n, rest);
    default: /* GRAFT_PAT_OP, GRAFT_PAT_FNCALL, GRAFT_PAT_TUPLE, GRAFT_PAT_CALL,
                GRAFT_PAT_FN, GRAFT_PAT_IF, GRAFT_PAT_LET */
        matcher_add_pair(m, p, n);
        return push_kids(m, p, n, w == 1 ? swapped : NULL, tail_goal(m, p, n, rest));
    }
}

/* ---- explain mode (note [explain mode]) ---- */

void matcher_explain(Matcher *m, MatchFailure *rec)
{
    m->rec = rec;
}

void match_failure_free(MatchFailure *rec)
{
    free(rec->pairs);
    free(rec->b);
    memset(rec, 0, sizeof *rec);
}

bool matcher_record(Matcher *m, MatchFailKind kind, const graft_pat *p, graft_node *n)
{
    MatchFailure *r = m->rec;
    if (!r)
        return false;
    uint64_t score = 2 * (uint64_t)m->pairs.len + (kind == MFAIL_GUARD);
    uint64_t best = 2 * (uint64_t)r->depth + (r->kind == MFAIL_GUARD);
    if (r->kind != MFAIL_NONE && score <= best)
        return false;
    r->kind = kind;
    r->pat = p;
    r->node = n;
    r->other = NULL;
    r->depth = (uint32_t)m->pairs.len;
    r->pairs = xgrow_items(r->pairs, &r->pairs_cap, m->pairs.len + 1, sizeof *r->pairs);
    if (m->pairs.len) /* m->pairs.items is NULL before the first pair */
        memcpy(r->pairs, m->pairs.items, m->pairs.len * sizeof *r->pairs);
    r->b = xgrow_items(r->b, &r->b_cap, (size_t)m->nslots + 1, sizeof *r->b);
    memcpy(r->b, m->b, ((size_t)m->nslots + 1) * sizeof *r->b);
    return true;
}

/* Tries the ways of p at n from way w on; pushes a choice point when a
 * later way could work too.  Returns the new goal list, or fails. */
static bool try_ways(Matcher *m, const graft_pat *p, graft_node *n, bool nobind, int w,
                     uint32_t rest, uint32_t *out)
{
    int total = nways(m, p);
    while (w < total && !way_fits(m, p, n, w))
        w++;
    if (w == total) {
        matcher_record(m, MFAIL_WAYS, p, n);
        return false;
    }
    int later = w + 1;
    while (later < total && !way_fits(m, p, n, later))
        later++;
    if (later < total) {
        vec_push(&m->choices, ((Choice){p, n, nobind, later, rest, (uint32_t)m->trail.len,
                                        (uint32_t)m->pairs.len, (uint32_t)m->pool.len, 0}));
    }
    *out = take_way(m, p, n, w, rest);
    return true;
}

/* Undoes bindings down to trail height h. */
static void unwind(Matcher *m, size_t h)
{
    while (m->trail.len > h) {
        uint32_t s = vec_pop(&m->trail);
        m->b[s].node = NULL;
        m->b[s].attr = NULL;
    }
}

/* Resumes the newest choice point; false when none is left. */
static bool backtrack(Matcher *m, uint32_t *list)
{
    while (m->choices.len) {
        Choice c = vec_pop(&m->choices);
        unwind(m, c.trail);
        m->pairs.len = c.pairs;
        m->pool.len = c.pool;
        if (c.root ? matcher_root_way(m, c.root, c.way, c.rest, list)
                   : try_ways(m, c.pat, c.node, c.nobind, c.way, c.rest, list))
            return true;
    }
    return false;
}

/* One goal: its item must be in the node's state, its slots must bind,
 * then its first workable way is taken. */
static bool step(Matcher *m, uint32_t gi, uint32_t *list)
{
    Goal g = m->pool.items[gi];
    if (g.tail) {
        matcher_add_pair(m, g.pat, g.node);
        m->pairs.items[m->pairs.len - 1].tail = true;
        *list = g.next;
        return true;
    }
    if (g.root)
        return matcher_root_way(m, g.root, 0, g.next, list);
    if (!has(m, g.node, g.pat->item)) {
        matcher_record(m, MFAIL_ITEM, g.pat, g.node);
        return false;
    }
    if (!g.nobind && !bind_all(m, g.pat, g.node))
        return false;
    return try_ways(m, g.pat, g.node, g.nobind, 0, g.next, list);
}

bool matcher_guard_ok(const Matcher *m, const graft_rule *rule)
{
    if (rule->guard_fn)
        return rule->guard_fn(m->g, m->b);
    return !rule->guard || guard_eval(rule->guard, m->b);
}

static inline void reset(Matcher *m, const graft_rule *rule)
{
    if ((size_t)rule->nslots + 1 > m->b_cap)
        m->b = xgrow_items(m->b, &m->b_cap, (size_t)rule->nslots + 1, sizeof *m->b);
    memset(m->b, 0, ((size_t)rule->nslots + 1) * sizeof *m->b);
    m->pool.len = m->choices.len = m->trail.len = m->pairs.len = 0;
    m->lined = false;
    m->steps = 0;
    m->nslots = (uint32_t)rule->nslots;
    m->rule = rule;
    if (m->rec) {
        m->rec->kind = MFAIL_NONE;
        m->rec->depth = 0;
    }
}

MatchResult matcher_try(Matcher *m, uint32_t r, graft_node *root)
{
    const graft_rule *rule = &m->rs->rules[r];
    reset(m, rule);
    MatchResult direct;
    if (matcher_direct_fits(m, r)) { /* note [direct try] in match_direct.c */
        if (matcher_direct(m, r, root, &direct))
            return direct;
        reset(m, rule);
    }
    if (rule->nroots > 1 && !m->rec && !matcher_roots_possible(m, root))
        return MATCH_FAIL; /* note [root precheck] in match_roots.c */
    bool guard_refused = false;
    uint32_t list = matcher_goal(m, rule->pattern, root, false, matcher_root_goals(m, NIL));
    if (rule->nroots) {
        m->root_at = xgrow_items(m->root_at, &m->root_at_cap, (size_t)rule->nroots,
                                 sizeof *m->root_at);
        m->root_at[0] = root;
    }
    for (;;) {
        if (++m->steps > m->max_steps) {
            if (m->rec)
                m->rec->kind = MFAIL_BUDGET;
            return MATCH_BUDGET;
        }
        bool ok;
        if (list == NIL) {
            if (matcher_guard_ok(m, rule))
                return MATCH_OK;
            matcher_record(m, MFAIL_GUARD, rule->pattern, root);
            guard_refused = true;
            ok = false;
        } else
            ok = step(m, list, &list);
        if (!ok && !backtrack(m, &list))
            return guard_refused ? MATCH_GUARD : MATCH_FAIL;
    }
}
