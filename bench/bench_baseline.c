/* bench_baseline.c - the two baselines graft's matcher is measured against.
 *
 * (a) The floor: one pass over the node table touching every live node and
 *     every operand once.  No matcher can label a graph faster than it can
 *     read it.
 * (b) The straightforward matcher: for every node, for every rule, walk the
 *     rule's pattern tree recursively against the graph, binding variables
 *     as it goes, as TVM's DFPatternMatcher (VisitDFPattern per pattern and
 *     node) and OpenVINO's pattern::Matcher do.  A commutative op tries its
 *     second operand order and an alternative its next choice when the
 *     first fails below it; nothing retries after a sibling fails (TVM's
 *     behaviour).  Its cost grows with the number of rules by construction.
 * note [fair naive]: the naive matcher reports what graft match reports,
 * the (rule, node) matches of the nodes the outputs reach, in the same
 * order: it tries the rules at each node of graph_topo_ids's depth-first
 * order, as TVM's rewriter and partitioner visit a function post-order
 * and OpenVINO's matcher pass visits its topologically sorted ops.  It
 * used to read the node table in id order with no walk, which returns
 * the matches in another order, counts nodes no output reaches, and is
 * not what either system does; that made a 1-rule naive matcher look
 * 3x faster than graft beyond the cache (bench/RESULTS.md, "Matching:
 * fast labelling and a fair naive matcher").
 * Recursion here is over the pattern only (bounded by the rule language's
 * nesting limit); the repeated op (op*) and the dominator walk go through
 * the graph in loops.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "match.h"

uint64_t baseline_traverse(const graft_graph *g)
{
    uint64_t sum = 0;
    uint32_t count = graph_node_count(g);
    for (uint32_t id = 0; id < count; id++) {
        const graft_node *n = graph_node(g, id);
        if (node_is_dead(n))
            continue;
        int nargs = node_nargs(n);
        sum += (uint64_t)node_kind(n) + (uint64_t)(uintptr_t)node_op(n);
        for (int i = 0; i < nargs; i++)
            sum += node_id(node_arg(n, i));
    }
    return sum;
}

/* The naive matcher's state: the rules, each item's op name interned in
 * the graph (so an op test is a pointer comparison, as TVM compares Op
 * references), the variable slots and a trail to undo bindings. */
typedef struct Naive {
    const graft_rule_set *rs;   /* the rules */
    const char **ops;    /* per item: its op, interned in the graph, or NULL */
    graft_binding *slots;      /* current bindings of the rule being tried */
    uint32_t *trail;     /* slots bound since the start, in order */
    size_t ntrail;       /* entries used in trail */
    size_t cap;          /* capacity of trail */
    uint32_t *mark;      /* per node id: stamp of the last dominator walk */
    uint32_t stamp;      /* the current walk's stamp */
    graft_node **walk;         /* dominator walk stack */
    size_t walk_cap;     /* capacity of walk */
} Naive;

static bool match(Naive *nv, const graft_pat *p, graft_node *n);

static void undo(Naive *nv, size_t mark)
{
    while (nv->ntrail > mark) {
        uint32_t s = nv->trail[--nv->ntrail];
        nv->slots[s].node = NULL;
        nv->slots[s].attr = NULL;
    }
}

/* Binds slot to n, or checks that a variable seen before is n. */
static bool bind(Naive *nv, int slot, graft_node *n)
{
    if (slot < 0)
        return true;
    if (nv->slots[slot].node)
        return nv->slots[slot].node == n;
    nv->slots[slot].node = n;
    nv->trail = xgrow_items(nv->trail, &nv->cap, nv->ntrail + 1, sizeof *nv->trail);
    nv->trail[nv->ntrail++] = (uint32_t)slot;
    return true;
}

static bool preds_hold(const Naive *nv, const graft_item *it, const graft_node *n)
{
    for (int i = 0; i < it->npreds; i++)
        if (!pattern_pred_holds(&nv->rs->preds[it->preds[i]], n))
            return false;
    return true;
}

/* Matches the kids of p against operands first.. of n (swapped: the two
 * operands in the other order). */
static bool match_kids(Naive *nv, const graft_pat *p, graft_node *n, bool swapped)
{
    for (int i = 0; i < p->nkids; i++) {
        int arg = swapped ? 1 - i : i;
        if (!match(nv, p->kids[i], node_arg(n, arg)))
            return false;
    }
    return true;
}

/* Operand list of n against the kids of p, trying the other order of a
 * commutative op when the first fails. */
static bool match_operands(Naive *nv, const graft_pat *p, const graft_item *it, graft_node *n)
{
    int nargs = node_nargs(n);
    if (it->variadic ? nargs < p->nkids : nargs != p->nkids)
        return false;
    size_t mark = nv->ntrail;
    if (match_kids(nv, p, n, false))
        return true;
    undo(nv, mark);
    return it->commutative && p->nkids == 2 && match_kids(nv, p, n, true);
}

/* Attribute bindings (strides=s) of an op pattern at n. */
static void bind_attrs(Naive *nv, const graft_pat *p, const graft_node *n)
{
    for (int i = 0; i < p->nbinds; i++) {
        const graft_attr_value *v = node_find_attr(n, p->binds[i].name);
        nv->slots[p->binds[i].slot].attr = v ? v : p->binds[i].dflt;
    }
}

static bool match_op(Naive *nv, const graft_pat *p, const graft_item *it, graft_node *n)
{
    if (node_kind(n) != NODE_CALL || node_op(n) != nv->ops[p->item] || !preds_hold(nv, it, n))
        return false;
    bind_attrs(nv, p, n);
    return match_operands(nv, p, it, n) && bind(nv, p->slot, n);
}

/* op*(q): q at n, else one op call further down, and so on. */
static bool match_star(Naive *nv, const graft_pat *p, graft_node *n)
{
    for (;;) {
        size_t mark = nv->ntrail;
        if (match(nv, p->kids[0], n))
            return bind(nv, p->slot, n);
        undo(nv, mark);
        if (node_kind(n) != NODE_CALL || node_op(n) != nv->ops[p->item] || node_nargs(n) != 1)
            return false;
        n = node_arg(n, 0);
    }
}

static bool match_alt(Naive *nv, const graft_pat *p, graft_node *n)
{
    for (int i = 0; i < p->nkids; i++) {
        size_t mark = nv->ntrail;
        if (match(nv, p->kids[i], n) && bind(nv, p->slot, n))
            return true;
        undo(nv, mark);
    }
    return false;
}

/* Whether q matches n, bindings left as they were. */
static bool probe(Naive *nv, const graft_pat *q, graft_node *n)
{
    size_t mark = nv->ntrail;
    bool ok = match(nv, q, n);
    undo(nv, mark);
    return ok;
}

/* The node the walk of dominates(parent, path, child) from n's operands
 * leads back to (note [dominator walk] in src/runtime/match_ways.c), or NULL. */
static graft_node *dom_parent(Naive *nv, const graft_pat *p, graft_node *n)
{
    graft_node *parent = NULL;
    size_t depth = 0;
    nv->stamp++;
    for (graft_node *x = n;; x = nv->walk[--depth]) {
        int na = node_kind(x) == NODE_FUNC ? 0 : node_nargs(x);
        nv->walk = xgrow_items(nv->walk, &nv->walk_cap, depth + (size_t)na + 1, sizeof *nv->walk);
        for (int i = 0; i < na; i++) {
            graft_node *o = node_arg(x, i);
            if (nv->mark[node_id(o)] == nv->stamp)
                continue;
            nv->mark[node_id(o)] = nv->stamp;
            if (probe(nv, p->kids[0], o)) {
                if (parent && parent != o)
                    return NULL;
                parent = o;
            } else if (node_kind(o) != NODE_CONST) {
                if (!probe(nv, p->kids[1], o))
                    return NULL;
                nv->walk[depth++] = o;
            }
        }
        if (depth == 0)
            return parent;
    }
}

/* dominates(parent, path, child): child at n, then parent where the walk
 * leads. */
static bool match_dom(Naive *nv, const graft_pat *p, graft_node *n)
{
    graft_node *parent = dom_parent(nv, p, n);
    return parent && match(nv, p->kids[2], n) && match(nv, p->kids[0], parent) &&
           bind(nv, p->slot, n);
}

static bool match(Naive *nv, const graft_pat *p, graft_node *n)
{
    const graft_item *it = &nv->rs->items[p->item];
    switch (p->kind) {
    case GRAFT_PAT_ANY:
        return preds_hold(nv, it, n) && bind(nv, p->slot, n);
    case GRAFT_PAT_OP:
        return match_op(nv, p, it, n);
    case GRAFT_PAT_FNCALL:
        return node_kind(n) == NODE_CALL && !node_op(n) && preds_hold(nv, it, n) &&
               match_operands(nv, p, it, n) && bind(nv, p->slot, n);
    case GRAFT_PAT_TUPLE:
        return node_kind(n) == NODE_TUPLE && match_operands(nv, p, it, n) &&
               bind(nv, p->slot, n);
    case GRAFT_PAT_GETITEM:
        return node_kind(n) == NODE_GETITEM && node_index(n) == it->index &&
               match(nv, p->kids[0], node_arg(n, 0)) && bind(nv, p->slot, n);
    case GRAFT_PAT_ALT:
        return match_alt(nv, p, n);
    case GRAFT_PAT_STAR:
        return match_star(nv, p, n);
    case GRAFT_PAT_DOM:
        return match_dom(nv, p, n);
    case GRAFT_PAT_CALL: case GRAFT_PAT_FN: case GRAFT_PAT_IF: case GRAFT_PAT_LET:
    case GRAFT_PAT_FNCALLEE:
        /* not in the bench's rules (bench/rules/models.graft, bench_rules.c);
           the tables' "matches graft" and "matches naive" columns would
           differ if they were */
        return false;
    }
    return false;
}

/* One rule at one node: pattern, then guard. */
static bool try_rule(Naive *nv, const graft_graph *g, const graft_rule *r, graft_node *n)
{
    undo(nv, 0);
    for (int s = 0; s < r->nslots; s++)
        nv->slots[s].attr = NULL;
    if (!match(nv, r->pattern, n))
        return false;
    if (r->guard_fn)
        return r->guard_fn(g, nv->slots);
    return !r->guard || guard_eval(r->guard, nv->slots);
}

static void naive_init(Naive *nv, const graft_rule_set *rs, graft_graph *g)
{
    int nslots = 1;
    memset(nv, 0, sizeof *nv);
    nv->rs = rs;
    nv->ops = xcalloc(rs->nitems + 1, sizeof *nv->ops);
    for (uint32_t i = 0; i < rs->nitems; i++)
        if (rs->items[i].op)
            nv->ops[i] = graph_intern(g, rs->items[i].op);
    for (uint32_t r = 0; r < rs->nrules; r++)
        if (rs->rules[r].nslots > nslots)
            nslots = rs->rules[r].nslots;
    nv->slots = xcalloc((size_t)nslots, sizeof *nv->slots);
    nv->mark = xcalloc((size_t)graph_node_count(g) + 1, sizeof *nv->mark);
}

uint64_t baseline_match_all(const graft_rule_set *rs, graft_graph *g)
{
    Naive nv;
    uint64_t found = 0;
    uint32_t *ids = xmalloc(((size_t)graph_node_count(g) + 1) * sizeof *ids);
    uint32_t count = graph_topo_ids(g, ids);
    naive_init(&nv, rs, g);
    for (uint32_t i = 0; i < count; i++) {
        graft_node *n = graph_node(g, ids[i]);
        for (uint32_t r = 0; r < rs->nrules; r++)
            found += try_rule(&nv, g, &rs->rules[r], n);
    }
    free(ids);
    free(nv.ops);
    free(nv.slots);
    free(nv.trail);
    free(nv.mark);
    free(nv.walk);
    return found;
}
