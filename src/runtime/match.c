/* match.c - top-down verification with backtracking, iteratively.
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
 * arrays, so depth costs memory, never C stack.
 */
#include "match.h"

#include <stdlib.h>
#include <string.h>

#include "limit.h"
#include "util.h"
#include "walk.h"

enum { NIL = UINT32_MAX };

static bool record(Matcher *m, MatchFailKind kind, const graft_pat *p, graft_node *n);

typedef struct Goal {
    const graft_pat *pat; /* what to match */
    graft_node *node;         /* where */
    bool nobind;        /* a further step of a repeated op: the pattern's
                           slot is already bound at the chain's top */
    bool tail;          /* no match: records the tail pair of a variadic
                           pattern (MatchPair) */
    uint32_t next;      /* the goal after this one, or NIL */
} Goal;

typedef struct Choice {
    const graft_pat *pat; /* the pattern node with more ways */
    graft_node *node;         /* its node */
    bool nobind;        /* as in Goal */
    int way;            /* the next way to try */
    uint32_t rest;      /* goals after this one */
    uint32_t trail;     /* trail height to restore */
    uint32_t pairs;     /* pair count to restore */
    uint32_t pool;      /* goal pool height to restore */
} Choice;

/* matcher_check's goal: a pattern node and its graph node. */
typedef struct CheckGoal {
    const graft_pat *pat; /* what to match */
    graft_node *node;         /* where */
    bool nobind;        /* as in Goal */
} CheckGoal;

struct Matcher {
    Labels *labels;      /* node states, borrowed */
    const Automaton *a;  /* the automaton, borrowed */
    const graft_rule_set *rs;   /* its rules */
    const graft_graph *g;      /* the graph */
    Goal *pool;          /* goal cells */
    size_t npool, pool_cap; /* used / allocated */
    Choice *choices;     /* choice point stack */
    size_t nchoices, choices_cap;
    uint32_t *trail;     /* slots bound, in order */
    size_t ntrail, trail_cap;
    MatchPair *pairs;    /* matched pairs, in order */
    size_t npairs, pairs_cap;
    graft_binding *b;          /* per slot of the current rule */
    size_t b_cap;        /* slots allocated */
    StrBuf k1, k2;       /* scratch for comparing attribute values */
    uint32_t *mark;      /* per node id: stamp of the last dominator walk */
    size_t mark_cap;     /* entries in mark */
    uint32_t stamp;      /* current walk's stamp */
    WALK(graft_node *) walk;   /* dominator walk stack */
    uint64_t steps;      /* steps of the current try */
    uint64_t max_steps;  /* steps a try may take */
    MatchFailure *rec;   /* explain mode: the deepest failure, or NULL */
    uint32_t nslots;     /* slots of the current rule */
    uint32_t *proof;     /* per rule: the most steps its try can take when
                            its state proves it (note [proven rules]), or
                            0 when a try must verify it */
    bool *checked;       /* per rule: matcher_check can tell without a try
                            (note [checked rules]) */
    graft_node **at;           /* matcher_check: per slot, the node it holds */
    size_t at_cap;       /* entries allocated in at */
    WALK(CheckGoal) todo; /* matcher_check: pattern nodes to look at */
};

static uint32_t proof_steps(const graft_rule *rule);
static bool checkable(const graft_rule *rule);

Matcher *matcher_new(Labels *labels, const graft_graph *g)
{
    Matcher *m = xcalloc(1, sizeof *m);
    m->labels = labels;
    m->a = labels_automaton(labels);
    m->rs = automaton_rules(m->a);
    m->g = g;
    m->max_steps = limit_defaults.match_steps;
    m->proof = xmalloc(((size_t)m->rs->nrules + 1) * sizeof *m->proof);
    m->checked = xmalloc(((size_t)m->rs->nrules + 1) * sizeof *m->checked);
    for (uint32_t r = 0; r < m->rs->nrules; r++) {
        m->proof[r] = proof_steps(&m->rs->rules[r]);
        m->checked[r] = !m->proof[r] && checkable(&m->rs->rules[r]);
    }
    return m;
}

void matcher_set_max_steps(Matcher *m, uint64_t max_steps)
{
    m->max_steps = max_steps;
}

void matcher_free(Matcher *m)
{
    if (!m)
        return;
    free(m->pool);
    free(m->choices);
    free(m->trail);
    free(m->pairs);
    free(m->b);
    strbuf_free(&m->k1);
    strbuf_free(&m->k2);
    free(m->mark);
    walk_free(&m->walk);
    free(m->proof);
    free(m->checked);
    free(m->at);
    walk_free(&m->todo);
    free(m);
}

const graft_binding *matcher_bindings(const Matcher *m)
{
    return m->b;
}

const MatchPair *matcher_pairs(const Matcher *m, uint32_t *n)
{
    *n = (uint32_t)m->npairs;
    return m->pairs;
}

static bool has(const Matcher *m, const graft_node *n, uint32_t item)
{
    return automaton_state_has(m->a, labels_state(m->labels, n), item);
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

static uint32_t goal(Matcher *m, const graft_pat *p, graft_node *n, bool nobind, uint32_t next)
{
    if (m->npool == m->pool_cap) /* xgrow is a call; most goals fit */
        m->pool = xgrow_items(m->pool, &m->pool_cap, m->npool + 1, sizeof *m->pool);
    m->pool[m->npool] = (Goal){p, n, nobind, false, next};
    return (uint32_t)m->npool++;
}

static void add_pair(Matcher *m, const graft_pat *p, graft_node *n)
{
    if (m->npairs == m->pairs_cap)
        m->pairs = xgrow_items(m->pairs, &m->pairs_cap, m->npairs + 1, sizeof *m->pairs);
    m->pairs[m->npairs++] = (MatchPair){p, n, false};
}

/* After the goals of p's operands: the tail pair, when p is variadic
 * and leaves operands of n unmatched. */
static uint32_t tail_goal(Matcher *m, const graft_pat *p, graft_node *n, uint32_t rest)
{
    if (!m->rs->items[p->item].variadic || pattern_noperands(n) <= p->nkids)
        return rest;
    uint32_t gi = goal(m, p, n, true, rest);
    m->pool[gi].tail = true;
    return gi;
}

static void bind(Matcher *m, int slot, graft_node *n, const graft_attr_value *v)
{
    if (m->ntrail == m->trail_cap)
        m->trail = xgrow_items(m->trail, &m->trail_cap, m->ntrail + 1, sizeof *m->trail);
    m->trail[m->ntrail++] = (uint32_t)slot;
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

/* Binds the pattern node's slot and attribute slots; a slot bound before
 * must hold the same node (or an equal attribute value). */
static bool bind_all(Matcher *m, const graft_pat *p, graft_node *n)
{
    if (p->callee > 0) {
        graft_binding *b = &m->b[p->callee - 1];
        if (b->node && !pattern_same_callee(b->node, n)) {
            if (record(m, MFAIL_REBIND, p, n))
                m->rec->other = b->node;
            return false;
        }
        if (!b->node)
            bind(m, p->callee - 1, n, NULL);
    }
    if (p->slot >= 0) {
        graft_binding *b = &m->b[p->slot];
        if (b->node && b->node != n) {
            if (record(m, MFAIL_REBIND, p, n))
                m->rec->other = b->node;
            return false;
        }
        if (!b->node)
            bind(m, p->slot, n, NULL);
    }
    for (int i = 0; i < p->nbinds; i++) {
        const graft_attr_bind *ab = &p->binds[i];
        const graft_attr_value *v = node_find_attr(n, ab->name);
        if (!v)
            v = ab->dflt;
        graft_binding *b = &m->b[ab->slot];
        if (b->attr || b->node) {
            if (!same_attr(m, b->attr, v)) {
                if (record(m, MFAIL_ATTR, p, n)) {
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
        rest = goal(m, p->kids[k], pattern_operand(n, arg), false, rest);
    }
    return rest;
}

static bool kids_fit(const Matcher *m, const graft_pat *p, graft_node *n, const int *order)
{
    for (int k = 0; k < p->nkids; k++)
        if (!has(m, pattern_operand(n, order ? order[k] : k), p->kids[k]->item))
            return false;
    return true;
}

/* note [nested stars]: op*(op*(P)) matches what op*(P) matches, but with
 * both stars free to extend, a chain of L ops is split between them in
 * every way: L + 1 splits, (L + 1)(L + 2) / 2 for three stars, each
 * tried again when the guard or a later goal refuses (a fuzzed rule with
 * three nested nn.relu* took minutes).  The outer star leaves the chain
 * to the inner one when the inner binds nothing and tests the same: the
 * outer star's own slot still binds the chain's top, and the inner one
 * still tries every length. */
static bool star_leaves_chain(const Matcher *m, const graft_pat *p)
{
    const graft_pat *q = p->kids[0];
    if (q->kind != GRAFT_PAT_STAR || q->slot >= 0 || q->callee > 0 || q->nbinds > 0)
        return false;
    const graft_item *outer = &m->rs->items[p->item], *inner = &m->rs->items[q->item];
    return strcmp(outer->op, inner->op) == 0 && outer->npreds == inner->npreds &&
           (outer->npreds == 0 || memcmp(outer->preds, inner->preds,
                                         (size_t)outer->npreds * sizeof *outer->preds) == 0);
}

static bool star_can_extend(const Matcher *m, const graft_pat *p, graft_node *n)
{
    const graft_item *it = &m->rs->items[p->item];
    return node_kind(n) == NODE_CALL && node_op(n) && strcmp(node_op(n), it->op) == 0 &&
           node_nargs(n) == 1 && has(m, node_arg(n, 0), p->item) && !star_leaves_chain(m, p);
}

/* A fresh stamp for a walk, with mark sized for every node. */
static uint32_t new_stamp(Matcher *m)
{
    size_t count = graph_node_count(m->g);
    if (count > m->mark_cap) {
        size_t old = m->mark_cap;
        m->mark = xgrow_items(m->mark, &m->mark_cap, count, sizeof *m->mark);
        memset(m->mark + old, 0, (m->mark_cap - old) * sizeof *m->mark);
    }
    if (++m->stamp == 0) {
        memset(m->mark, 0, m->mark_cap * sizeof *m->mark);
        m->stamp = 1;
    }
    return m->stamp;
}

/* note [dominator walk]: dominates(parent, path, child) at n walks from
 * n's operands towards the inputs: a node matching parent ends the walk
 * there, a constant is passed over, a node matching path is walked
 * through; anything else fails.  The walk must reach parent, and always
 * the same node: that node dominates n.  When record is set, the path
 * nodes join the match's pairs. */
static bool dom_walk(Matcher *m, const graft_pat *p, graft_node *n, bool record,
                     graft_node **parent)
{
    uint32_t pi = p->kids[0]->item, qi = p->kids[1]->item, stamp = new_stamp(m);
    *parent = NULL;
    walk_clear(&m->walk); /* a failed walk returns with frames left */
    for (graft_node *x = n;; x = walk_pop(&m->walk)) {
        if (x != n && record)
            add_pair(m, p, x);
        int na = node_is_opaque(x) ? 0 : node_nargs(x);
        walk_reserve(&m->walk, (size_t)na);
        for (int i = 0; i < na; i++) {
            graft_node *o = node_arg(x, i);
            if (m->mark[node_id(o)] == stamp)
                continue;
            m->mark[node_id(o)] = stamp;
            if (has(m, o, pi)) {
                if (*parent && *parent != o)
                    return false;
                *parent = o;
            } else if (node_kind(o) == NODE_CONST)
                continue;
            else if (has(m, o, qi))
                walk_push_reserved(&m->walk, o);
            else
                return false;
        }
        if (m->walk.depth == 0)
            return *parent != NULL;
    }
}

/* How many ways pattern node p has to match. */
static int nways(const Matcher *m, const graft_pat *p)
{
    if (p->kind == GRAFT_PAT_ALT)
        return p->nkids;
    if (p->kind == GRAFT_PAT_STAR)
        return 2;
    if (p->kind == GRAFT_PAT_OP && p->nkids == 2 && m->rs->items[p->item].commutative)
        return 2;
    return 1;
}

static const int swapped[2] = {1, 0};

/* Whether way w of p at n can work, judged by the states (and for a
 * dominator pattern by its walk). */
static bool way_fits(Matcher *m, const graft_pat *p, graft_node *n, int w)
{
    graft_node *parent;
    switch (p->kind) {
    case GRAFT_PAT_DOM:
        return dom_walk(m, p, n, false, &parent);
    case GRAFT_PAT_ALT:
        return has(m, n, p->kids[w]->item);
    case GRAFT_PAT_STAR:
        return w == 0 ? star_can_extend(m, p, n) : has(m, n, p->kids[0]->item);
    case GRAFT_PAT_OP:
        return kids_fit(m, p, n, w == 1 ? swapped : NULL);
    case GRAFT_PAT_FNCALLEE:
        return node_callee(n) && node_kind(node_callee(n)) == NODE_FUNC;
    default:
        return true;
    }
}

/* (fn (p) { body })(x): the operands' goals, the tail's when the call has
 * more, then the callee's (kids[0], a function pattern). */
static uint32_t take_fn_callee(Matcher *m, const graft_pat *p, graft_node *n, uint32_t rest)
{
    add_pair(m, p, n);
    int nargs = p->nkids - 1;
    if (m->rs->items[p->item].variadic && pattern_noperands(n) > nargs) {
        rest = goal(m, p, n, true, rest);
        m->pool[rest].tail = true;
    }
    for (int k = nargs; k >= 1; k--)
        rest = goal(m, p->kids[k], pattern_operand(n, k - 1), false, rest);
    return goal(m, p->kids[0], node_callee(n), false, rest);
}

/* Takes way w of p at n: records the pair and returns the goals that now
 * come before rest. */
static uint32_t take_way(Matcher *m, const graft_pat *p, graft_node *n, int w, uint32_t rest)
{
    switch (p->kind) {
    case GRAFT_PAT_ANY:
        add_pair(m, p, n);
        return rest;
    case GRAFT_PAT_ALT:
        return goal(m, p->kids[w], n, false, rest);
    case GRAFT_PAT_STAR:
        if (w == 1)
            return goal(m, p->kids[0], n, false, rest);
        add_pair(m, p, n);
        return goal(m, p, node_arg(n, 0), true, rest);
    case GRAFT_PAT_GETITEM:
        add_pair(m, p, n);
        return goal(m, p->kids[0], node_arg(n, 0), false, rest);
    case GRAFT_PAT_DOM: {
        graft_node *parent;
        dom_walk(m, p, n, true, &parent);
        rest = goal(m, p->kids[2], n, false, rest);
        return goal(m, p->kids[0], parent, false, rest);
    }
    case GRAFT_PAT_FNCALLEE:
        return take_fn_callee(m, p, n, rest);
    default: /* GRAFT_PAT_OP, GRAFT_PAT_FNCALL, GRAFT_PAT_TUPLE, GRAFT_PAT_CALL,
                GRAFT_PAT_FN, GRAFT_PAT_IF, GRAFT_PAT_LET */
        add_pair(m, p, n);
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

/* Records a failure of kind at (p, n) when it is the deepest so far;
 * true when recorded. */
static bool record(Matcher *m, MatchFailKind kind, const graft_pat *p, graft_node *n)
{
    MatchFailure *r = m->rec;
    if (!r)
        return false;
    uint64_t score = 2 * (uint64_t)m->npairs + (kind == MFAIL_GUARD);
    uint64_t best = 2 * (uint64_t)r->depth + (r->kind == MFAIL_GUARD);
    if (r->kind != MFAIL_NONE && score <= best)
        return false;
    r->kind = kind;
    r->pat = p;
    r->node = n;
    r->other = NULL;
    r->depth = (uint32_t)m->npairs;
    r->pairs = xgrow_items(r->pairs, &r->pairs_cap, m->npairs + 1, sizeof *r->pairs);
    if (m->npairs) /* m->pairs is NULL before the first pair */
        memcpy(r->pairs, m->pairs, m->npairs * sizeof *r->pairs);
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
        record(m, MFAIL_WAYS, p, n);
        return false;
    }
    int later = w + 1;
    while (later < total && !way_fits(m, p, n, later))
        later++;
    if (later < total) {
        m->choices = xgrow_items(m->choices, &m->choices_cap, m->nchoices + 1, sizeof *m->choices);
        m->choices[m->nchoices++] = (Choice){p, n, nobind, later, rest,
            (uint32_t)m->ntrail, (uint32_t)m->npairs, (uint32_t)m->npool};
    }
    *out = take_way(m, p, n, w, rest);
    return true;
}

/* Undoes bindings down to trail height h. */
static void unwind(Matcher *m, size_t h)
{
    while (m->ntrail > h) {
        uint32_t s = m->trail[--m->ntrail];
        m->b[s].node = NULL;
        m->b[s].attr = NULL;
    }
}

/* Resumes the newest choice point; false when none is left. */
static bool backtrack(Matcher *m, uint32_t *list)
{
    while (m->nchoices) {
        Choice c = m->choices[--m->nchoices];
        unwind(m, c.trail);
        m->npairs = c.pairs;
        m->npool = c.pool;
        if (try_ways(m, c.pat, c.node, c.nobind, c.way, c.rest, list))
            return true;
    }
    return false;
}

/* One goal: its item must be in the node's state, its slots must bind,
 * then its first workable way is taken. */
static bool step(Matcher *m, uint32_t gi, uint32_t *list)
{
    Goal g = m->pool[gi];
    if (g.tail) {
        add_pair(m, g.pat, g.node);
        m->pairs[m->npairs - 1].tail = true;
        *list = g.next;
        return true;
    }
    if (!has(m, g.node, g.pat->item)) {
        record(m, MFAIL_ITEM, g.pat, g.node);
        return false;
    }
    if (!g.nobind && !bind_all(m, g.pat, g.node))
        return false;
    return try_ways(m, g.pat, g.node, g.nobind, 0, g.next, list);
}

static bool guard_ok(const Matcher *m, const graft_rule *rule)
{
    if (rule->guard_fn)
        return rule->guard_fn(m->g, m->b);
    return !rule->guard || guard_eval(rule->guard, m->b);
}

static void reset(Matcher *m, const graft_rule *rule)
{
    if ((size_t)rule->nslots + 1 > m->b_cap)
        m->b = xgrow_items(m->b, &m->b_cap, (size_t)rule->nslots + 1, sizeof *m->b);
    memset(m->b, 0, ((size_t)rule->nslots + 1) * sizeof *m->b);
    m->npool = m->nchoices = m->ntrail = m->npairs = 0;
    m->steps = 0;
    m->nslots = (uint32_t)rule->nslots;
    if (m->rec) {
        m->rec->kind = MFAIL_NONE;
        m->rec->depth = 0;
    }
}

MatchResult matcher_try(Matcher *m, uint32_t r, graft_node *root)
{
    const graft_rule *rule = &m->rs->rules[r];
    reset(m, rule);
    bool guard_refused = false;
    uint32_t list = goal(m, rule->pattern, root, false, NIL);
    for (;;) {
        if (++m->steps > m->max_steps) {
            if (m->rec)
                m->rec->kind = MFAIL_BUDGET;
            return MATCH_BUDGET;
        }
        bool ok;
        if (list == NIL) {
            if (guard_ok(m, rule))
                return MATCH_OK;
            record(m, MFAIL_GUARD, rule->pattern, root);
            guard_refused = true;
            ok = false;
        } else
            ok = step(m, list, &list);
        if (!ok && !backtrack(m, &list))
            return guard_refused ? MATCH_GUARD : MATCH_FAIL;
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
static uint32_t proof_steps(const graft_rule *rule)
{
    if (rule->guard || rule->guard_fn || !rule->pattern)
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
        switch (p->kind) {
        case GRAFT_PAT_ANY:
        case GRAFT_PAT_OP:
        case GRAFT_PAT_FNCALL:
        case GRAFT_PAT_TUPLE:
        case GRAFT_PAT_GETITEM:
        case GRAFT_PAT_ALT: case GRAFT_PAT_CALL: break;
        default: proven = false; /* a repeated op, a dominator walk, scopes */
        }
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
static bool checkable(const graft_rule *rule)
{
    if (rule->guard || rule->guard_fn || !rule->pattern)
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
        switch (p->kind) {
        case GRAFT_PAT_ANY:
        case GRAFT_PAT_OP:
        case GRAFT_PAT_FNCALL:
        case GRAFT_PAT_TUPLE:
        case GRAFT_PAT_GETITEM:
        case GRAFT_PAT_ALT: case GRAFT_PAT_CALL: case GRAFT_PAT_STAR: break;
        default: ok = false; /* a dominator walk, scopes */
        }
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
