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

/* note [op slots]: a node's op, an interned name pointer, becomes the
 * automaton's op index and that op's attribute tests.  The KeyMap holds
 * every pointer seen; in front of it a small direct-mapped array keyed by
 * the same mixed pointer answers the common case with one compare, and a
 * miss (first sight, or two ops sharing a slot) asks the map. */
typedef struct OpSlot {
    const char *op;        /* the name pointer, or NULL when empty */
    uint32_t index;        /* its op index, or SYM_OTHER_OP */
    uint32_t dense;        /* its dense class: the op index, or nops */
    uint32_t ntests;       /* its attribute tests (automaton_op_preds) */
    const uint32_t *tests;
} OpSlot;

#define OP_SLOT_BITS 8 /* 256 slots; a model uses a few dozen ops */
#define OP_SLOTS (1 << OP_SLOT_BITS)

/* note [dense steps]: labelling's common node has no tests and at most
 * two operands: a parameter, a constant, a unary or binary op call, a
 * pair.  Its memo key is then its class (its op, or its kind) and its
 * operand states, and while those are small ints the answer sits in a
 * dense table per class: entry 0 for no operands, 1 + s for one, 1 +
 * DENSE + s0 * DENSE + s1 for two.  No symbol is built and nothing is
 * hashed.  An entry is filled from automaton_step for exactly its key,
 * so the memo, the states and their numbering stay what they were
 * (note [step cache] in automaton.c); a node with tests, more operands
 * or an operand state of DENSE or more takes the general path. */
#define DENSE 32
#define DENSE_CELLS (1 + DENSE + DENSE * DENSE)

/* note [node classes]: the order's pass (note [classified order] in
 * graph_walk.c) asks for each node's class while it reads the node: a
 * dense class (note [dense steps]) or one of these, each standing for
 * one symbol without operands, so that labelling builds the node's
 * symbol from its class and the operand states through its children in
 * the flat arrays, without reading the node again: an opaque value
 * (labelled without its operands), an element access of a small index, a scalar
 * constant when rules test constants (its tests depend on its value
 * alone, so one class per value, found through a small direct-mapped
 * cache), and an op call with attribute tests (one class per op and
 * tests passed).  CLASS_NODE says: build the symbol from the node (a
 * call of a function, type tests, scopes). */
#define CLASS_NODE UINT32_MAX
#define GETITEM_CLASSES 8 /* element accesses .0 to .7 have classes */
#define MAX_CLASSES 4096  /* beyond, constants are read as nodes */
#define CONST_SLOT_BITS 6
#define CONST_SLOTS (1 << CONST_SLOT_BITS)

/* note [attribute keys]: an attribute test compares canonical texts, and
 * writing a value's text (numbers as "%.17g") costs more than the rest
 * of the node's labelling; the loader keeps each value's spelling, and a
 * value's kind, item count and spelling decide its canonical text, so a
 * small direct-mapped cache by spelling writes each distinct one once. */
#define KEY_SLOT_BITS 8
#define KEY_SLOTS (1 << KEY_SLOT_BITS)

typedef struct KeySlot {
    const char *spelling; /* the value's spelling (in the graph), or NULL */
    graft_attr_kind kind;        /* its kind */
    int nitems;           /* its item count */
    char *key;            /* its canonical text */
} KeySlot;

typedef struct ConstSlot {
    uint64_t bits;  /* the value's bits */
    uint32_t cls;   /* its class, or 0 when empty (class 0 is an op's) */
} ConstSlot;

struct Labels {
    Automaton *a;      /* the automaton, borrowed */
    const graft_graph *g;    /* the graph, borrowed */
    uint32_t *state;   /* per node id, STATE_NONE when unlabelled */
    size_t cap;        /* entries allocated in state */
    KeyMap ops;        /* keymap_ptr_key(op name) -> op index (op_index) */
    OpSlot recent[OP_SLOTS]; /* direct-mapped front of ops (note [op slots]) */
    bool kind_tests[NODE_MATCH + 1]; /* per node kind: a node test may apply */
    uint32_t *preds;   /* scratch: passed tests */
    size_t preds_cap;  /* capacity of preds */
    uint32_t *args;    /* scratch: operand states */
    size_t args_cap;   /* capacity of args */
    uint32_t *operands; /* scratch: operand ids (labels_node) */
    size_t operands_cap; /* capacity of operands */
    StrBuf key;        /* scratch: canonical attribute text */
    uint32_t **dense;  /* per dense class, its table or NULL (note [dense steps]) */
    uint32_t nclasses; /* classes: ops named, other ops, var, const, tuple,
                          then those of note [node classes] */
    uint32_t nops;     /* ops rules name (automaton_nops) */
    size_t classes_cap; /* entries allocated in dense and syms */
    Symbol *syms;      /* per class: its symbol, no operands (note [node classes]) */
    ConstSlot consts[CONST_SLOTS]; /* scalar constants' classes by value */
    KeySlot keys[KEY_SLOTS]; /* canonical texts by spelling (note [attribute keys]) */
    KeyMap tested;     /* hash of an op and its tests passed -> class */
    uint8_t *offers;   /* per state: 0 not known yet, 1 offers no rule, 2 some */
    size_t offers_cap; /* entries allocated in offers */
    bool scopes;       /* label fns, ifs and lets with their operands */
    bool type_tests;   /* some rule tests dtypes, ranks or shapes */
    uint32_t lo[GRAFT_PRED_ATTR + 1]; /* per test kind: its run in the node */
    uint32_t hi[GRAFT_PRED_ATTR + 1]; /* tests (automaton_node_preds) */
};

static bool has_tests(const Labels *l, graft_pred_kind kind)
{
    return l->lo[kind] < l->hi[kind];
}

/* Which kinds of node a node test can apply to (node_preds below), so
 * that the common node, an op call when no rule tests types or shapes,
 * skips them without a look. */
static void note_kind_tests(Labels *l)
{
    bool any = has_tests(l, GRAFT_PRED_DTYPE) || has_tests(l, GRAFT_PRED_RANK) ||
               has_tests(l, GRAFT_PRED_SHAPE);
    l->type_tests = any;
    for (int k = 0; k <= NODE_MATCH; k++)
        l->kind_tests[k] = any;
    l->kind_tests[NODE_CONST] |=
        has_tests(l, GRAFT_PRED_IS_CONST) || has_tests(l, GRAFT_PRED_VALUE);
    l->kind_tests[NODE_VAR] |= has_tests(l, GRAFT_PRED_IS_VAR) || has_tests(l, GRAFT_PRED_VAR_NAME);
    l->kind_tests[NODE_OPREF] |= has_tests(l, GRAFT_PRED_OP_VALUE);
}

/* Adds a class for sym (its preds copied); returns its index. */
static uint32_t class_add(Labels *l, Symbol sym)
{
    if (l->nclasses == l->classes_cap) {
        size_t old = l->classes_cap;
        l->dense = xgrow_items(l->dense, &l->classes_cap, old + 1, sizeof *l->dense);
        l->syms = xrealloc(l->syms, l->classes_cap * sizeof *l->syms);
        memset(l->dense + old, 0, (l->classes_cap - old) * sizeof *l->dense);
    }
    if (sym.npreds) {
        uint32_t *copy = xmalloc(sym.npreds * sizeof *copy);
        memcpy(copy, sym.preds, sym.npreds * sizeof *copy);
        sym.preds = copy;
    } else
        sym.preds = NULL;
    l->syms[l->nclasses] = sym;
    return l->nclasses++;
}

/* The fixed classes: first the dense ones (an op named by a rule, other
 * ops, var, const, tuple: note [dense steps]), then an opaque value and
 * the element accesses (note [node classes]). */
static void classes_init(Labels *l)
{
    uint32_t nops = l->nops = automaton_nops(l->a);
    for (uint32_t op = 0; op < nops; op++)
        class_add(l, (Symbol){.tag = SYM_OP, .a = op});
    class_add(l, (Symbol){.tag = SYM_OP, .a = SYM_OTHER_OP});
    class_add(l, (Symbol){.tag = SYM_VAR});
    class_add(l, (Symbol){.tag = SYM_CONST});
    class_add(l, (Symbol){.tag = SYM_TUPLE});
    class_add(l, (Symbol){.tag = SYM_FUNC});
    for (uint32_t k = 0; k < GETITEM_CLASSES; k++)
        class_add(l, (Symbol){.tag = SYM_GETITEM, .a = k});
}

Labels *labels_new(Automaton *a, const graft_graph *g)
{
    Labels *l = xcalloc(1, sizeof *l);
    l->a = a;
    l->g = g;
    l->scopes = automaton_has_scopes(a);
    uint32_t n;
    const uint32_t *ps = automaton_node_preds(a, &n);
    const graft_pred *all = automaton_rules(a)->preds;
    for (uint32_t i = n; i-- > 0;) /* runs of each kind (sorted by kind) */
        l->lo[all[ps[i]].kind] = i;
    for (uint32_t i = 0; i < n; i++)
        l->hi[all[ps[i]].kind] = i + 1;
    note_kind_tests(l);
    classes_init(l);
    l->args_cap = 8;
    l->args = xmalloc(l->args_cap * sizeof *l->args);
    return l;
}

void labels_free(Labels *l)
{
    if (!l)
        return;
    free(l->state);
    keymap_free(&l->ops);
    keymap_free(&l->tested);
    free(l->preds);
    free(l->args);
    free(l->operands);
    strbuf_free(&l->key);
    for (uint32_t c = 0; c < l->nclasses; c++) {
        free(l->dense[c]);
        free((uint32_t *)l->syms[c].preds);
    }
    for (int k = 0; k < KEY_SLOTS; k++)
        free(l->keys[k].key);
    free(l->dense);
    free(l->syms);
    free(l->offers);
    free(l);
}

Automaton *labels_automaton(const Labels *l)
{
    return l->a;
}

/* Fills slot for op from the map, itself filled once per distinct name. */
static void op_slot_fill(Labels *l, OpSlot *slot, const char *op)
{
    uint64_t key = keymap_ptr_key(op);
    int64_t *v = keymap_get(&l->ops, key);
    if (!v)
        v = keymap_put(&l->ops, key, automaton_op_index(l->a, op));
    slot->op = op;
    slot->index = (uint32_t)*v;
    slot->tests = automaton_op_preds(l->a, slot->index, &slot->ntests);
    slot->dense = slot->index == SYM_OTHER_OP ? automaton_nops(l->a) : slot->index;
}

/* The op slot of an op name pointer (note [one cache slot] in keymap.h),
 * filled when it holds another op. */
static inline const OpSlot *op_slot(Labels *l, const char *op)
{
    OpSlot *slot = &l->recent[cache_slot((uint64_t)(uintptr_t)op, OP_SLOT_BITS)];
    if (slot->op != op)
        op_slot_fill(l, slot, op);
    return slot;
}

static void add_pred(Labels *l, uint32_t *n, uint32_t p)
{
    l->preds = xgrow_items(l->preds, &l->preds_cap, *n + 1, sizeof *l->preds);
    uint32_t j = (*n)++;
    while (j > 0 && l->preds[j - 1] > p) /* keep ascending */
        l->preds[j] = l->preds[j - 1], j--;
    l->preds[j] = p;
}

/* Adds the tests among ps[0, n) equal to probe by automaton_pred_cmp:
 * binary search for the first, then the run of equals. */
static uint32_t lower_bound(const graft_pred *all, const uint32_t *ps, uint32_t n,
                            const graft_pred *probe)
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
                      const graft_pred *probe)
{
    const graft_pred *all = automaton_rules(l->a)->preds;
    uint32_t lo = lower_bound(all, ps, n, probe);
    for (; lo < n && automaton_pred_cmp(&all[ps[lo]], probe) == 0; lo++)
        add_pred(l, np, ps[lo]);
}

/* The end of the run of attribute tests on name starting at k. */
static uint32_t name_end(const graft_pred *all, const uint32_t *ps, uint32_t k, uint32_t n,
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

/* The canonical text of v (pattern_attr_key), written once per spelling
 * (note [attribute keys]); valid until the next call. */
static const char *attr_key(Labels *l, const graft_attr_value *v)
{
    l->key.len = 0;
    if (!v->spelling) { /* made by an edit */
        pattern_attr_key(v, &l->key);
        return l->key.data;
    }
    uint64_t h = hash_bytes(v->spelling, strlen(v->spelling), 0);
    KeySlot *slot = &l->keys[cache_slot(h, KEY_SLOT_BITS)];
    if (slot->spelling && slot->kind == v->kind && slot->nitems == v->nitems &&
        strcmp(slot->spelling, v->spelling) == 0)
        return slot->key;
    pattern_attr_key(v, &l->key);
    free(slot->key);
    *slot = (KeySlot){v->spelling, v->kind, v->nitems, xstrdup(l->key.data)};
    return slot->key;
}

/* Attribute tests of one op, sorted by name then wanted value (note [test
 * order] in automaton.c): per attribute name, the node's value (or the
 * op's default when the node omits it) is put in canonical form once and
 * looked up by binary search. */
static void attr_preds(Labels *l, const graft_node *holder, const uint32_t *ps,
                       uint32_t np, uint32_t *n)
{
    const graft_pred *all = automaton_rules(l->a)->preds;
    const graft_attr_test_fn *fns = automaton_rules(l->a)->attr_fns;
    for (uint32_t k = 0; k < np;) {
        const graft_pred *first = &all[ps[k]];
        uint32_t end = name_end(all, ps, k, np, first->s);
        const graft_attr_value *v = node_find_attr(holder, first->s);
        if (fns) { /* compiled tests (graft compile): no canonical text */
            for (; k < end; k++)
                if (fns[ps[k]](v))
                    add_pred(l, n, ps[k]);
            continue;
        }
        const char *have = v ? attr_key(l, v) : first->dflt;
        if (have) {
            graft_pred probe = {.kind = GRAFT_PRED_ATTR, .s = first->s, .key = have};
            add_equal(l, n, ps + k, end - k, &probe);
        }
        k = end;
    }
}

/* The tests of kind probe->kind equal to probe, found by binary search in
 * that kind's run. */
static void add_kind(Labels *l, uint32_t *np, const graft_pred *probe)
{
    uint32_t lo = l->lo[probe->kind], hi = l->hi[probe->kind];
    if (lo < hi)
        add_equal(l, np, automaton_node_preds(l->a, &(uint32_t){0}) + lo, hi - lo, probe);
}

/* Tests of the node itself: one binary search per kind of test some rule
 * asks about; shape tests, rare, are evaluated one by one. */
static void node_preds(Labels *l, const graft_node *n, uint32_t *np)
{
    uint32_t cnt;
    const uint32_t *ps = automaton_node_preds(l->a, &cnt);
    const graft_pred *all = automaton_rules(l->a)->preds;
    if (cnt == 0)
        return;
    NodeKind k = node_kind(n);
    if (k == NODE_CONST || k == NODE_VAR)
        add_kind(l, np,
                 &(graft_pred){.kind = k == NODE_CONST ? GRAFT_PRED_IS_CONST : GRAFT_PRED_IS_VAR});
    if (k == NODE_VAR)
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_VAR_NAME, .s = node_name(n)});
    if (k == NODE_OPREF)
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_OP_VALUE, .s = node_name(n)});
    if (k == NODE_CONST && node_const_is_scalar(n))
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_VALUE, .f = node_const_value(n)});
    if (l->lo[GRAFT_PRED_DTYPE] < l->hi[GRAFT_PRED_DTYPE] && pattern_node_dtype(n))
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_DTYPE, .s = pattern_node_dtype(n)});
    if (l->lo[GRAFT_PRED_RANK] < l->hi[GRAFT_PRED_RANK] && pattern_node_rank(n) >= 0)
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_RANK, .i = pattern_node_rank(n)});
    for (uint32_t i = l->lo[GRAFT_PRED_SHAPE]; i < l->hi[GRAFT_PRED_SHAPE]; i++)
        if (pattern_pred_holds(&all[ps[i]], n))
            add_pred(l, np, ps[i]);
}

/* Fills sym with n's symbol (operand states excluded). */
static void node_symbol(Labels *l, const graft_node *n, NodeKind kind, Symbol *sym)
{
    uint32_t np = 0, cnt;
    const uint32_t *ps;
    const char *op;
    if (kind > NODE_MATCH || l->kind_tests[kind]) /* a kind added later: look */
        node_preds(l, n, &np);
    sym->a = 0;
    switch (kind) {
    case NODE_VAR: sym->tag = SYM_VAR; break;
    case NODE_CONST: sym->tag = SYM_CONST; break;
    case NODE_TUPLE: sym->tag = SYM_TUPLE; break;
    case NODE_FUNC:
        sym->tag = l->scopes ? SYM_FN : SYM_FUNC;
        ps = automaton_fn_preds(l->a, &cnt);
        if (l->scopes)
            attr_preds(l, n, ps, cnt, &np);
        break;
    case NODE_IF: sym->tag = l->scopes ? SYM_IF : SYM_FUNC; break;
    case NODE_LET: sym->tag = l->scopes ? SYM_LET : SYM_FUNC; break;
    case NODE_GLOBAL:
    case NODE_OPREF:
    case NODE_MATCH: sym->tag = SYM_FUNC; break; /* opaque values */
    case NODE_GETITEM:
        sym->tag = SYM_GETITEM;
        sym->a = (uint32_t)node_index(n);
        break;
    case NODE_CALL:
        if ((op = node_op(n)) != NULL) {
            const OpSlot *slot = op_slot(l, op);
            sym->tag = SYM_OP;
            sym->a = slot->index;
            if (slot->ntests)
                attr_preds(l, n, slot->tests, slot->ntests, &np);
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

/* Makes room for node ids below count in the state array. */
static void state_reserve(Labels *l, size_t count)
{
    if (count <= l->cap)
        return;
    size_t old = l->cap;
    l->state = xgrow_items(l->state, &l->cap, count, sizeof *l->state);
    memset(l->state + old, 0xff, (l->cap - old) * sizeof *l->state);
}

/* Puts the ids of n's operands (pattern_operand) in l->operands and
 * returns their number; an opaque node is labelled without its operands
 * (the five kinds before NODE_FUNC never are). */
static uint32_t gather_operands(Labels *l, const graft_node *n, NodeKind kind)
{
    bool opaque = !l->scopes && kind > NODE_GETITEM && node_is_opaque(n);
    uint32_t count = opaque ? 0 : (uint32_t)pattern_noperands(n);
    if (count >= l->operands_cap)
        l->operands = xgrow_items(l->operands, &l->operands_cap, count + 1,
                                  sizeof *l->operands);
    for (uint32_t k = 0; k < count; k++)
        l->operands[k] = node_id(pattern_operand(n, (int)k));
    return count;
}

uint32_t labels_state(const Labels *l, const graft_node *n)
{
    uint32_t id = node_id(n);
    return id < l->cap ? l->state[id] : STATE_NONE;
}

uint32_t labels_state_id(const Labels *l, uint32_t id)
{
    return id < l->cap ? l->state[id] : STATE_NONE;
}

/* A scalar constant's class when rules test constants and not types:
 * one per value (note [node classes]), or CLASS_NODE once there are too
 * many classes. */
static uint32_t const_class(Labels *l, const graft_node *n)
{
    uint32_t nops = l->nops, np = 0;
    if (!node_const_is_scalar(n))
        return CLASS_NODE;
    double v = node_const_value(n);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    ConstSlot *slot = &l->consts[cache_slot(bits, CONST_SLOT_BITS)];
    if (slot->cls > nops && slot->bits == bits)
        return slot->cls;
    if (l->nclasses >= MAX_CLASSES)
        return CLASS_NODE;
    node_preds(l, n, &np);
    *slot = (ConstSlot){bits, class_add(l, (Symbol){.tag = SYM_CONST, .npreds = np,
                                                    .preds = l->preds})};
    return slot->cls;
}

/* The class of op call n, whose op has attribute tests: its tests are
 * decided here, in the order's pass, and each op with each set of tests
 * passed gets one class (note [node classes]); CLASS_NODE on a clash of
 * hashes or once there are too many classes. */
static uint32_t tested_class(Labels *l, const graft_node *n, const OpSlot *slot)
{
    uint32_t np = 0;
    attr_preds(l, n, slot->tests, slot->ntests, &np);
    uint64_t key = hash_bytes(l->preds, np * sizeof *l->preds, slot->index) | 1;
    int64_t *c = keymap_get(&l->tested, key);
    if (c) {
        const Symbol *sym = &l->syms[*c];
        bool same = sym->a == slot->index && sym->npreds == np &&
                    (np == 0 || memcmp(sym->preds, l->preds, np * sizeof *l->preds) == 0);
        return same ? (uint32_t)*c : CLASS_NODE;
    }
    if (l->nclasses >= MAX_CLASSES)
        return CLASS_NODE;
    uint32_t cls = class_add(l, (Symbol){.tag = SYM_OP, .a = slot->index, .npreds = np,
                                          .preds = l->preds});
    keymap_put(&l->tested, key, cls);
    return cls;
}

/* The class of n, of kind kind (note [node classes]), whose op, for an
 * op call, is op (NULL for a call of a function value).  The one place a
 * node's class is decided, for the order's pass (node_class) and for
 * labels_node alike. */
static inline uint32_t class_of(Labels *l, NodeKind kind, const char *op, const graft_node *n)
{
    uint32_t nops = l->nops;
    if (kind > NODE_MATCH) /* a kind added later: read it */
        return CLASS_NODE;
    if (l->kind_tests[kind])
        return kind == NODE_CONST && !l->type_tests ? const_class(l, n) : CLASS_NODE;
    switch (kind) {
    case NODE_VAR: return nops + 1;
    case NODE_CONST: return nops + 2;
    case NODE_TUPLE: return nops + 3;
    case NODE_CALL: {
        if (!op)
            return CLASS_NODE;
        const OpSlot *slot = op_slot(l, op);
        return slot->ntests ? tested_class(l, n, slot) : slot->dense;
    }
    case NODE_GETITEM: {
        int k = node_index(n);
        return k >= 0 && k < GETITEM_CLASSES ? nops + 5 + (uint32_t)k : CLASS_NODE;
    }
    case NODE_FUNC: case NODE_IF: case NODE_LET:
        return l->scopes ? CLASS_NODE : nops + 4;
    default: return nops + 4; /* a global, an op value, a match: opaque */
    }
}

/* Learns whether state s accepts some rule. */
static void offers_learn(Labels *l, uint32_t s)
{
    if (s >= l->offers_cap) {
        size_t old = l->offers_cap;
        l->offers = xgrow_items(l->offers, &l->offers_cap, (size_t)s + 1, sizeof *l->offers);
        memset(l->offers + old, 0, l->offers_cap - old);
    }
    uint32_t nr;
    automaton_state_rules(l->a, s, &nr);
    l->offers[s] = nr ? 2 : 1;
}

/* Whether state s accepts some rule, remembered per state. */
static inline bool offers(Labels *l, uint32_t s)
{
    if (s >= l->offers_cap || !l->offers[s])
        offers_learn(l, s);
    return l->offers[s] == 2;
}

/* class_step's way when the dense entry does not answer: one step built
 * from the class's symbol, kept in the entry when there is one. */
static uint32_t class_step_memo(Labels *l, uint32_t c, const uint32_t *ids, uint32_t na,
                                uint32_t *cell)
{
    if (na >= l->args_cap)
        l->args = xgrow_items(l->args, &l->args_cap, na + 1, sizeof *l->args);
    for (uint32_t k = 0; k < na; k++)
        l->args[k] = l->state[ids[k]];
    Symbol sym = l->syms[c];
    sym.nargs = na;
    sym.args = l->args;
    uint32_t s = automaton_step(l->a, &sym);
    if (cell)
        *cell = s;
    return s;
}

/* The dense table of class c, made on first use. */
static uint32_t *dense_table(Labels *l, uint32_t c)
{
    l->dense[c] = xmalloc(DENSE_CELLS * sizeof *l->dense[c]);
    memset(l->dense[c], 0xff, DENSE_CELLS * sizeof *l->dense[c]);
    return l->dense[c];
}

/* The state of a node of class c whose operands are the na ids at ids:
 * a dense entry (note [dense steps]), else class_step_memo. */
static inline uint32_t class_step(Labels *l, uint32_t c, const uint32_t *ids, uint32_t na)
{
    if (na > 2)
        return class_step_memo(l, c, ids, na, NULL);
    uint32_t s0 = na > 0 ? l->state[ids[0]] : 0, s1 = na > 1 ? l->state[ids[1]] : 0;
    if (s0 >= DENSE || s1 >= DENSE)
        return class_step_memo(l, c, ids, na, NULL);
    uint32_t *table = l->dense[c] ? l->dense[c] : dense_table(l, c);
    uint32_t *cell = &table[na == 0 ? 0 : na == 1 ? 1 + s0 : 1 + DENSE + s0 * DENSE + s1];
    return *cell != STATE_NONE ? *cell : class_step_memo(l, c, ids, na, cell);
}

/* The state of n, whose class says to read it (a call of a function,
 * type tests, scopes): its symbol from the node, one step. */
static uint32_t node_step(Labels *l, const graft_node *n, NodeKind kind)
{
    uint32_t na = gather_operands(l, n, kind);
    if (na >= l->args_cap)
        l->args = xgrow_items(l->args, &l->args_cap, na + 1, sizeof *l->args);
    for (uint32_t k = 0; k < na; k++)
        l->args[k] = l->state[l->operands[k]];
    Symbol sym;
    node_symbol(l, n, kind, &sym);
    sym.nargs = na;
    sym.args = l->args;
    return automaton_step(l->a, &sym);
}

uint32_t labels_node(Labels *l, const graft_node *n)
{
    NodeKind kind = node_kind(n);
    uint32_t id = node_id(n), c = class_of(l, kind, node_op(n), n), s;
    state_reserve(l, graph_node_count(l->g)); /* operands made by an edit too */
    if (c == CLASS_NODE)
        s = node_step(l, n, kind);
    else if (c == l->nops + 4) /* opaque: no operands */
        s = class_step(l, c, NULL, 0);
    else {
        uint32_t na = gather_operands(l, n, kind);
        s = class_step(l, c, l->operands, na);
    }
    l->state[id] = s;
    return s;
}

/* The class of n as the order's pass asks for it (note [classified
 * order] in graph_walk.c), once per live node, in id order. */
static uint32_t node_class(void *ctx, const graft_node *n)
{
    return class_of(ctx, node_kind(n), node_op(n), n);
}

/* note [label order]: a node's state depends only on its symbol and its
 * operands' states, so any order that labels operands first gives every
 * node the same state; only the numbering of new automaton states
 * follows the order, and nothing prints it.  The walk's own order is
 * one: labelling follows it over the flat arrays of note [classified
 * order], reading a node only when its class says so, which beyond the
 * cache keeps the labelling off the nodes, and keeps the nodes whose
 * state offers a rule in the same loop.  Labelling where the walk
 * finishes each node, in the walk's own loop, saves this loop's
 * instructions (the match 451 against 472 per op node) but costs time
 * (labels_all 118-125 ns per op node against 86-91 at 10^5 op nodes):
 * bench/RESULTS.md, "Checked rules, one builder, labelling in the walk's
 * order".  Every live node is labelled exactly
 * once; nodes no root reaches are not.  Stores the order in order (when
 * not NULL, else in scratch) and the nodes offering rules in offering
 * (when not NULL; *kept counts them); returns the count labelled. */
static uint32_t label_walk(Labels *l, uint32_t *order, uint32_t *offering, uint32_t *kept)
{
    const graft_graph *g = l->g;
    uint32_t count = graph_node_count(g), opaque = l->nops + 4;
    GraphArrays a;
    graph_arrays_classified(g, node_class, l, &a);
    uint32_t *ids = order ? order : xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_arrays_topo_ids(g, &a, ids);
    state_reserve(l, count);
    *kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = ids[i], c = a.cls[id], s;
        if (c == CLASS_NODE) {
            const graft_node *node = a.nodes[id];
            s = l->state[id] = node_step(l, node, node_kind(node));
        } else {
            uint32_t first = a.start[id], na = c == opaque ? 0 : a.start[id + 1] - first;
            s = l->state[id] = class_step(l, c, a.kids + first, na);
        }
        if (offering && offers(l, s))
            offering[(*kept)++] = id;
    }
    if (!order)
        free(ids);
    graph_arrays_free(&a);
    return n;
}

void labels_graph_order(Labels *l, GraphOrder *o)
{
    uint32_t kept;
    o->ids = xmalloc(((size_t)graph_node_count(l->g) + 1) * sizeof *o->ids);
    o->n = label_walk(l, o->ids, NULL, &kept);
}

uint32_t labels_order(Labels *l, const GraphOrder *o, uint32_t *offering)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; offering && i < o->n; i++)
        if (offers(l, l->state[o->ids[i]]))
            offering[kept++] = o->ids[i];
    return kept;
}

uint32_t labels_offering(Labels *l, uint32_t *offering, uint32_t *nlabelled)
{
    uint32_t kept;
    *nlabelled = label_walk(l, NULL, offering, &kept);
    return kept;
}

void labels_all(Labels *l)
{
    uint32_t kept;
    label_walk(l, NULL, NULL, &kept);
}
