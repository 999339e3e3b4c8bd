/* automaton_label.c - labelling the nodes of one graph with states.
 *
 * A node's symbol is its kind, its op (as an index into the ops rules
 * name; every other op is SYM_OTHER_OP) and the node tests it passes among
 * those some rule asks about: tests of every node, tests of its op's
 * attributes, tests of a called function's attributes.  The loop never
 * visits rules, so labelling costs the same whatever their number.
 */
#include "automaton.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct Labels {
    Automaton *a;      /* the automaton, borrowed */
    const Graph *g;    /* the graph, borrowed */
    uint32_t *state;   /* per node id, STATE_NONE when unlabelled */
    size_t cap;        /* entries allocated in state */
    KeyMap ops;        /* op name pointer -> op index (graph names are
                          interned: one graph has few distinct pointers) */
    uint32_t *preds;   /* scratch: passed tests */
    size_t pcap;       /* capacity of preds */
    uint32_t *args;    /* scratch: operand states */
    size_t acap;       /* capacity of args */
    StrBuf key;        /* scratch: canonical attribute text */
    uint32_t lo[PRED_ATTR + 1]; /* per test kind: its run in the node */
    uint32_t hi[PRED_ATTR + 1]; /* tests (automaton_node_preds) */
};

Labels *labels_new(Automaton *a, const Graph *g)
{
    Labels *l = xcalloc(1, sizeof *l);
    l->a = a;
    l->g = g;
    uint32_t n;
    const uint32_t *ps = automaton_node_preds(a, &n);
    const PatPred *all = automaton_rules(a)->preds;
    for (uint32_t i = n; i-- > 0;) /* runs of each kind (sorted by kind) */
        l->lo[all[ps[i]].kind] = i;
    for (uint32_t i = 0; i < n; i++)
        l->hi[all[ps[i]].kind] = i + 1;
    return l;
}

void labels_free(Labels *l)
{
    if (!l)
        return;
    free(l->state);
    keymap_free(&l->ops);
    free(l->preds);
    free(l->args);
    strbuf_free(&l->key);
    free(l);
}

Automaton *labels_automaton(const Labels *l)
{
    return l->a;
}

/* The op index of an op name pointer, looked up once per distinct name. */
static uint32_t op_index(Labels *l, const char *op)
{
    const int64_t *known = keymap_get(&l->ops, (uintptr_t)op);
    if (known)
        return (uint32_t)*known;
    int64_t *index = keymap_put(&l->ops, (uintptr_t)op, 0);
    *index = automaton_op_index(l->a, op);
    return (uint32_t)*index;
}

static void add_pred(Labels *l, uint32_t *n, uint32_t p)
{
    l->preds = xgrow_items(l->preds, &l->pcap, *n + 1, sizeof *l->preds);
    uint32_t j = (*n)++;
    while (j > 0 && l->preds[j - 1] > p) /* keep ascending */
        l->preds[j] = l->preds[j - 1], j--;
    l->preds[j] = p;
}

/* Adds the tests among ps[0, n) equal to probe by automaton_pred_cmp:
 * binary search for the first, then the run of equals. */
static uint32_t lower_bound(const PatPred *all, const uint32_t *ps, uint32_t n,
                            const PatPred *probe)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (automaton_pred_cmp(&all[ps[mid]], probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void add_equal(Labels *l, uint32_t *np, const uint32_t *ps, uint32_t n,
                      const PatPred *probe)
{
    const PatPred *all = automaton_rules(l->a)->preds;
    uint32_t lo = lower_bound(all, ps, n, probe);
    for (; lo < n && automaton_pred_cmp(&all[ps[lo]], probe) == 0; lo++)
        add_pred(l, np, ps[lo]);
}

/* The end of the run of attribute tests on name starting at k. */
static uint32_t name_end(const PatPred *all, const uint32_t *ps, uint32_t k, uint32_t n,
                         const char *name)
{
    uint32_t lo = k, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(all[ps[mid]].s, name) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Attribute tests of one op, sorted by name then wanted value (note [test
 * order] in automaton.c): per attribute name, the node's value (or the
 * op's default when the node omits it) is put in canonical form once and
 * looked up by binary search. */
static void attr_preds(Labels *l, const Node *holder, const uint32_t *ps,
                       uint32_t np, uint32_t *n)
{
    const PatPred *all = automaton_rules(l->a)->preds;
    const RuleAttrTestFn *fns = automaton_rules(l->a)->attr_fns;
    for (uint32_t k = 0; k < np;) {
        const PatPred *first = &all[ps[k]];
        uint32_t end = name_end(all, ps, k, np, first->s);
        const AttrValue *v = node_find_attr(holder, first->s);
        if (fns) { /* compiled tests (graft compile): no canonical text */
            for (; k < end; k++)
                if (fns[ps[k]](v))
                    add_pred(l, n, ps[k]);
            continue;
        }
        l->key.len = 0;
        if (v)
            pattern_attr_key(v, &l->key);
        const char *have = v ? l->key.data : first->dflt;
        if (have) {
            PatPred probe = {.kind = PRED_ATTR, .s = first->s, .key = have};
            add_equal(l, n, ps + k, end - k, &probe);
        }
        k = end;
    }
}

/* The tests of kind probe->kind equal to probe, found by binary search in
 * that kind's run. */
static void add_kind(Labels *l, uint32_t *np, const PatPred *probe)
{
    uint32_t lo = l->lo[probe->kind], hi = l->hi[probe->kind];
    if (lo < hi)
        add_equal(l, np, automaton_node_preds(l->a, &(uint32_t){0}) + lo, hi - lo, probe);
}

/* Tests of the node itself: one binary search per kind of test some rule
 * asks about; shape tests, rare, are evaluated one by one. */
static void node_preds(Labels *l, const Node *n, uint32_t *np)
{
    uint32_t cnt;
    const uint32_t *ps = automaton_node_preds(l->a, &cnt);
    const PatPred *all = automaton_rules(l->a)->preds;
    if (cnt == 0)
        return;
    NodeKind k = node_kind(n);
    if (k == NODE_CONST || k == NODE_VAR)
        add_kind(l, np, &(PatPred){.kind = k == NODE_CONST ? PRED_IS_CONST : PRED_IS_VAR});
    if (k == NODE_VAR)
        add_kind(l, np, &(PatPred){.kind = PRED_VAR_NAME, .s = node_name(n)});
    if (k == NODE_CONST && node_const_is_scalar(n))
        add_kind(l, np, &(PatPred){.kind = PRED_VALUE, .f = node_const_value(n)});
    if (l->lo[PRED_DTYPE] < l->hi[PRED_DTYPE] && pattern_node_dtype(n))
        add_kind(l, np, &(PatPred){.kind = PRED_DTYPE, .s = pattern_node_dtype(n)});
    if (l->lo[PRED_RANK] < l->hi[PRED_RANK] && pattern_node_rank(n) >= 0)
        add_kind(l, np, &(PatPred){.kind = PRED_RANK, .i = pattern_node_rank(n)});
    for (uint32_t i = l->lo[PRED_SHAPE]; i < l->hi[PRED_SHAPE]; i++)
        if (pattern_pred_holds(&all[ps[i]], n))
            add_pred(l, np, ps[i]);
}

/* Fills sym with n's symbol (operand states excluded). */
static void node_symbol(Labels *l, const Node *n, Symbol *sym)
{
    uint32_t np = 0, cnt;
    const uint32_t *ps;
    node_preds(l, n, &np);
    sym->a = 0;
    switch (node_kind(n)) {
    case NODE_VAR: sym->tag = SYM_VAR; break;
    case NODE_CONST: sym->tag = SYM_CONST; break;
    case NODE_TUPLE: sym->tag = SYM_TUPLE; break;
    case NODE_FUNC:
    case NODE_GLOBAL:
    case NODE_OPREF:
    case NODE_LET:
    case NODE_IF:
    case NODE_MATCH: sym->tag = SYM_FUNC; break; /* opaque values */
    case NODE_GETITEM:
        sym->tag = SYM_GETITEM;
        sym->a = (uint32_t)node_index(n);
        break;
    case NODE_CALL:
        if (node_op(n)) {
            sym->tag = SYM_OP;
            sym->a = op_index(l, node_op(n));
            ps = automaton_op_preds(l->a, sym->a, &cnt);
            attr_preds(l, n, ps, cnt, &np);
        } else {
            sym->tag = SYM_FNCALL;
            ps = automaton_fn_preds(l->a, &cnt);
            if (node_callee(n) && node_kind(node_callee(n)) == NODE_FUNC)
                attr_preds(l, node_callee(n), ps, cnt, &np);
        }
        break;
    }
    sym->npreds = np;
    sym->preds = l->preds;
}

uint32_t labels_node(Labels *l, const Node *n)
{
    Symbol sym;
    node_symbol(l, n, &sym);
    uint32_t na = node_is_opaque(n) ? 0 : (uint32_t)node_nargs(n);
    l->args = xgrow_items(l->args, &l->acap, na + 1, sizeof *l->args);
    for (uint32_t k = 0; k < na; k++)
        l->args[k] = labels_state(l, node_arg(n, (int)k));
    sym.nargs = na;
    sym.args = l->args;
    uint32_t s = automaton_step(l->a, &sym);
    uint32_t id = node_id(n);
    if (id >= l->cap) {
        size_t old = l->cap;
        l->state = xgrow_items(l->state, &l->cap, (size_t)id + 1, sizeof *l->state);
        memset(l->state + old, 0xff, (l->cap - old) * sizeof *l->state);
    }
    l->state[id] = s;
    return s;
}

uint32_t labels_state(const Labels *l, const Node *n)
{
    uint32_t id = node_id(n);
    return id < l->cap ? l->state[id] : STATE_NONE;
}

uint32_t labels_state_id(const Labels *l, uint32_t id)
{
    return id < l->cap ? l->state[id] : STATE_NONE;
}

/* Whether every operand of n has a smaller id than n. */
static bool args_before(const Node *n)
{
    if (node_is_opaque(n))
        return true; /* labelled without its operands' states */
    for (int k = 0; k < node_nargs(n); k++)
        if (node_id(node_arg(n, k)) > node_id(n))
            return false;
    return true;
}

/* note [label order]: a node's state depends only on its symbol and its
 * operands' states, so any order that labels operands first gives every
 * node the same state; only the numbering of new automaton states follows
 * the order, and nothing prints it.  A walk in id order reads the nodes
 * where they sit in memory, which on graphs larger than the cache is
 * several times faster than a depth-first order (bench/RESULTS.md,
 * finding 4).  Ids are topological right after loading (an operand is
 * made before its users) but not after edits (graph_replace_all_uses), so
 * the walk checks each node's operands before labelling it; at the first
 * operand with a larger id it leaves the rest to the given order.  Every
 * node is labelled exactly once either way. */
bool labels_topo(Labels *l, const uint32_t *ids, uint32_t n)
{
    uint32_t count = graph_node_count(l->g);
    uint8_t *todo = xcalloc((size_t)count + 1, 1);
    for (uint32_t i = 0; i < n; i++)
        todo[ids[i]] = 1;
    uint32_t id = 0;
    for (; id < count; id++) {
        if (!todo[id])
            continue;
        const Node *x = graph_node(l->g, id);
        if (!args_before(x))
            break;
        labels_node(l, x);
        todo[id] = 0;
    }
    bool in_id_order = id == count;
    for (uint32_t i = 0; i < n && !in_id_order; i++)
        if (todo[ids[i]])
            labels_node(l, graph_node(l->g, ids[i]));
    free(todo);
    return in_id_order;
}

void labels_all(Labels *l)
{
    uint32_t count = graph_node_count(l->g);
    uint32_t *ids = xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(l->g, ids);
    labels_topo(l, ids, n);
    free(ids);
}
