/* automaton_label.c - labelling the nodes of one graph with states.
 *
 * A node's symbol is its kind, its op (as an index into the ops rules
 * name; every other op is SYM_OTHER_OP) and the node tests it passes among
 * those some rule asks about: tests of every node, tests of its op's
 * attributes, tests of a called function's attributes.  Its state is the
 * automaton's step from that symbol and its operands' states.  The walk
 * here labels operands first; a node's class, which stands for its
 * symbol, comes from automaton_label_class.c.  The loop never visits
 * rules, so labelling costs the same whatever their number.
 */
#include "automaton_label_impl.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
    labels_kind_tests(l);
    labels_classes_init(l);
    l->leaf[NODE_VAR] = l->leaf[NODE_CONST] = STATE_NONE;
    l->args_cap = 8;
    l->args = xmalloc(l->args_cap * sizeof *l->args);
    return l;
}

void labels_free(Labels *l)
{
    if (!l)
        return;
    free(l->st.state);
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

void labels_drop_states(Labels *l)
{
    free(l->st.state);
    l->st.state = NULL;
    l->st.cap = 0;
    l->epoch++; /* every state changed */
    /* the operands' scratch, as wide as the widest node labelled (the
     * workload's output tuple: 65,536 bytes while its output is printed);
     * each grows again at its first use */
    free(l->args);
    free(l->operands);
    l->args = NULL;
    l->operands = NULL;
    l->args_cap = l->operands_cap = 0;
}

Automaton *labels_automaton(const Labels *l)
{
    return l->a;
}

/* note [state size]: the state array covers the node ids; the first
 * labelling sizes it to the graph exactly, and nodes made since (a
 * rewrite's, labelled one by one) grow it by a quarter beyond the count,
 * not doubled: copies stay amortized constant per id, and a doubled
 * array was a megabyte of the rewrite's peak on the workload (262,144
 * slots for 140,001 ids; now 150,001).  A rewrite's first labelling,
 * which knows that edits follow, takes that quarter at once
 * (labels_reserve_edits): the array it would grow to, without copying
 * the states it holds (600,000 instructions of the workload's rewrite
 * where the first of its new nodes was labelled; its peak the same). */
static void state_reserve(Labels *l, size_t count)
{
    if (count <= l->st.cap)
        return;
    size_t old = l->st.cap, cap = old ? count + count / 4 : count;
    l->st.state = xrealloc(l->st.state, cap * sizeof *l->st.state);
    memset(l->st.state + old, 0xff, (cap - old) * sizeof *l->st.state);
    l->st.cap = cap;
}

void labels_reserve_edits(Labels *l)
{
    size_t count = graph_node_count(l->g);
    state_reserve(l, count + count / 4);
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
    if (kind <= NODE_GETITEM) { /* pattern_operand is node_arg: read inline */
        for (uint32_t k = 0; k < count; k++)
            l->operands[k] = node_id(node_arg(n, (int)k));
        return count;
    }
    for (uint32_t k = 0; k < count; k++)
        l->operands[k] = node_id(pattern_operand(n, (int)k));
    return count;
}

uint64_t labels_epoch(const Labels *l)
{
    return l->epoch;
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

/* note [offers known]: every state label_one gives was once the answer
 * of an automaton step taken here (the dense and wide entries keep only
 * such answers), and each such answer's offer is learnt as it comes
 * (stepped); so the labelling walk reads a state's offer with one load,
 * no test of the array's size or of an offer not known yet
 * (labels_offering 16.37 M -> 15.52 M instructions on the workload's
 * rewrite, 120,001 nodes).  The other readers of offers, which read
 * states a labelling stored earlier, keep offers(). */

/* A state an automaton step just gave, its offer learnt (note [offers
 * known]). */
static uint32_t stepped(Labels *l, uint32_t s)
{
    if (s >= l->offers_cap || !l->offers[s])
        offers_learn(l, s);
    return s;
}

/* Room for na operand states in l->args. */
static void args_reserve(Labels *l, uint32_t na)
{
    if (na >= l->args_cap)
        l->args = xgrow_items(l->args, &l->args_cap, na + 1, sizeof *l->args);
}

/* One step built from class c's symbol and the na operand states in
 * l->args. */
static uint32_t args_step(Labels *l, uint32_t c, uint32_t na)
{
    Symbol sym = l->syms[c];
    sym.nargs = na;
    sym.args = l->args;
    return stepped(l, automaton_step(l->a, &sym));
}

/* class_step's way when the dense entry does not answer: one step built
 * from the class's symbol, kept in the entry when there is one. */
static uint32_t class_step_memo(Labels *l, uint32_t c, const uint32_t *ids, uint32_t na,
                                uint32_t *cell)
{
    args_reserve(l, na);
    for (uint32_t k = 0; k < na; k++)
        l->args[k] = l->st.state[ids[k]];
    uint32_t s = args_step(l, c, na);
    if (cell)
        *cell = s;
    return s;
}

/* The state of n, of class c with more than WIDE_ARGS operands (an output
 * tuple of thousands), its operands' states read from its slots straight
 * into l->args: their ids are wanted nowhere. */
static uint32_t many_step(Labels *l, uint32_t c, const graft_node *n, uint32_t na)
{
    args_reserve(l, na);
    for (uint32_t k = 0; k < na; k++)
        l->args[k] = l->st.state[node_id(node_arg(n, (int)k))];
    return args_step(l, c, na);
}

/* note [wide keys]: a wide step's slot is picked by cache_slot, whose
 * multiply by an odd constant mixes the key's bits into its top ones; so
 * the operand states fold into the key by a multiply and an add each, not
 * by hash_mix, and the slot's operands are compared without a branch per
 * operand (wide_step 163 -> 128 instructions a batch norm on the
 * workload's rewrite).  Which slot a key takes changes nothing but hits
 * and misses: a miss asks the memo (note [wide steps]). */

/* The wide step of class c from the na operand states args, key their
 * fold (note [wide keys]): the slot's state, else one step kept there. */
GRAFT_HOT uint32_t wide_lookup(Labels *l, uint32_t c, const uint32_t *args, uint32_t na,
                               uint64_t key)
{
    WideSlot *w = &l->wide[cache_slot(key, WIDE_SLOT_BITS)];
    uint32_t differ = (w->cls ^ (c + 1)) | (w->nargs ^ na);
    for (uint32_t k = 0; k < na; k++)
        differ |= w->args[k] ^ args[k];
    if (!differ)
        return w->state;
    args_reserve(l, na);
    memcpy(l->args, args, na * sizeof *args);
    uint32_t s = args_step(l, c, na);
    w->cls = c + 1;
    w->nargs = na;
    memcpy(w->args, args, na * sizeof *args);
    w->state = s;
    return s;
}

/* The state of n, of class c with na operands (3 to WIDE_ARGS), their
 * states read from its slots (note [wide steps], note [wide keys]): as
 * many_step, their ids are wanted nowhere (labels_node 30 instructions
 * less a batch norm on the workload's rewrite). */
static uint32_t wide_step(Labels *l, uint32_t c, const graft_node *n, uint32_t na)
{
    uint32_t args[WIDE_ARGS];
    uint64_t key = (uint64_t)c << 8 | na;
    for (uint32_t k = 0; k < na; k++) {
        args[k] = l->st.state[node_id(node_arg(n, (int)k))];
        key = key * 31 + args[k];
    }
    return wide_lookup(l, c, args, na, key);
}

/* The dense table of class c, made on first use. */
static uint32_t *dense_table(Labels *l, uint32_t c)
{
    l->dense[c] = xmalloc(DENSE_CELLS * sizeof *l->dense[c]);
    memset(l->dense[c], 0xff, DENSE_CELLS * sizeof *l->dense[c]);
    return l->dense[c];
}

/* The state of a node of class c whose operands are the na ids at ids,
 * at most two: a dense entry (note [dense steps]), else class_step_memo. */
static uint32_t class_step(Labels *l, uint32_t c, const uint32_t *ids, uint32_t na)
{
    uint32_t s0 = na > 0 ? l->st.state[ids[0]] : 0, s1 = na > 1 ? l->st.state[ids[1]] : 0;
    if (s0 >= DENSE || s1 >= DENSE)
        return class_step_memo(l, c, ids, na, NULL);
    uint32_t *table = l->dense[c] ? l->dense[c] : dense_table(l, c);
    uint32_t *cell = &table[na == 0 ? 0 : na == 1 ? 1 + s0 : 1 + DENSE + s0 * DENSE + s1];
    return *cell != STATE_NONE ? *cell : class_step_memo(l, c, ids, na, cell);
}

/* The state of a node n of class c with at most two operands, read from
 * its slots: class_step's dense entry without copying the operands' ids,
 * which only a miss wants. */
GRAFT_HOT uint32_t small_step(Labels *l, uint32_t c, const graft_node *n, uint32_t na)
{
    const uint32_t *state = l->st.state;
    uint32_t s0 = na > 0 ? state[node_id(node_arg(n, 0))] : 0;
    uint32_t s1 = na > 1 ? state[node_id(node_arg(n, 1))] : 0;
    const uint32_t *table = l->dense[c];
    if (s0 < DENSE && s1 < DENSE && table) {
        uint32_t s = table[na == 0 ? 0 : na == 1 ? 1 + s0 : 1 + DENSE + s0 * DENSE + s1];
        if (s != STATE_NONE)
            return s;
    }
    uint32_t ids[2] = {na > 0 ? node_id(node_arg(n, 0)) : 0, na > 1 ? node_id(node_arg(n, 1)) : 0};
    return class_step(l, c, ids, na);
}

/* The state of n, whose class says to read it (a call of a function,
 * type tests, scopes): its symbol from the node, one step. */
static uint32_t node_step(Labels *l, const graft_node *n, NodeKind kind)
{
    uint32_t na = gather_operands(l, n, kind);
    if (na >= l->args_cap)
        l->args = xgrow_items(l->args, &l->args_cap, na + 1, sizeof *l->args);
    for (uint32_t k = 0; k < na; k++)
        l->args[k] = l->st.state[l->operands[k]];
    Symbol sym;
    labels_symbol(l, n, kind, &sym);
    sym.nargs = na;
    sym.args = l->args;
    return stepped(l, automaton_step(l->a, &sym));
}

/* The state of n, of kind kind and class c (opaque the opaque class,
 * l->nops + 4), its operands labelled: the one step of labels_node and
 * of label_walk's loop, inlined into both.
 * A node of a class other than CLASS_NODE and the opaque one is a
 * parameter, a constant, a tuple, an element access or an op call: its
 * operands are its arguments, most often at most two. */
GRAFT_HOT uint32_t label_one(Labels *l, const graft_node *n, NodeKind kind, uint32_t c,
                             uint32_t opaque)
{
    if (c == CLASS_NODE)
        return node_step(l, n, kind);
    uint32_t na = c == opaque ? 0 : (uint32_t)node_nargs(n); /* opaque: none */
    if (na <= 2)
        return small_step(l, c, n, na);
    return na > WIDE_ARGS ? many_step(l, c, n, na) : wide_step(l, c, n, na);
}

uint32_t labels_node(Labels *l, const graft_node *n)
{
    NodeKind kind = node_kind(n);
    uint32_t c = labels_class(l, n, kind, l->nops);
    uint32_t count = graph_node_count(l->g);
    if (count > l->st.cap)
        state_reserve(l, count); /* operands made by an edit too */
    uint32_t s = l->st.state[node_id(n)] = label_one(l, n, kind, c, l->nops + 4);
    l->epoch++;
    return s;
}

/* note [leaf states]: half of a model's nodes are parameters and
 * constants, and where the rules test none of them but by its kind (no
 * name, value or type tests; x:const is the kind's) every one of a kind
 * has the same symbol and no operands, so the same state (a constant's
 * class by value, note [node classes], steps from the same symbol).  So
 * the walk keeps that state once the first of each kind is labelled,
 * and takes it for the next without deciding the class or reading the
 * dense entry (the first one steps as before, so the states, their
 * numbering and the memo's keys stay the same): labels_offering
 * 15.52 M -> 13.43 M instructions on the workload's rewrite, whose 120,001
 * nodes have 60,000 such leaves. */

/* The state of n, of kind kind, in the labelling walk: a leaf's kept
 * state (note [leaf states]) or its step. */
GRAFT_HOT uint32_t walk_state(Labels *l, const graft_node *n, NodeKind kind, uint32_t nops,
                              uint32_t opaque)
{
    if (kind > NODE_CONST)
        return label_one(l, n, kind, labels_class(l, n, kind, nops), opaque);
    if (l->leaf[kind] != STATE_NONE)
        return l->leaf[kind];
    uint32_t s = label_one(l, n, kind, labels_class(l, n, kind, nops), opaque);
    if (l->leaf_fixed[kind])
        l->leaf[kind] = s;
    return s;
}

/* note [label order]: a node's state depends only on its symbol and its
 * operands' states, so any order that labels operands first gives every
 * node the same state; only the numbering of new automaton states
 * follows the order, and nothing prints it.  The walk's own order is
 * one, and the order the engine and graft match want: labelling takes
 * each node as the walk hands it out (note [node walk] in graph_walk.c),
 * decides its class and steps there, and keeps the nodes whose state
 * offers a rule in the same loop.  Sessions 16 to 23 labelled in a loop
 * over the order after a pass that copied every node's children and
 * class into flat arrays: faster in time on graphs beyond the cache
 * (bench/RESULTS.md, "Checked rules, one builder, labelling in the
 * walk's order"), more instructions (note [node walk]).  Labelling in id
 * order, where a graph as loaded has every operand before its user,
 * costs more, since the walk's order must still be made and read for
 * the nodes offering rules (bench/RESULTS.md, "Compiled rule sets that
 * own their walk").  Every live node is labelled exactly once; nodes no
 * root reaches are not.  Stores the order's ids in order and its nodes
 * in nodes (each when not NULL: the engine's order), and the nodes
 * offering rules in offering (when not NULL; *kept counts them); returns
 * the count labelled.  Inlined into its four callers, each with the
 * outputs it asks for constant, so that the loop tests none of the
 * others (as arrays_fill in graph_walk.c). */
GRAFT_HOT uint32_t label_walk(Labels *l, uint32_t *order, graft_node **nodes, uint32_t *offering,
                              uint32_t *kept)
{
    GraphWalk w;
    graph_walk_start(l->g, &w);
    state_reserve(l, graph_node_count(l->g));
    l->epoch++; /* every state below may change */
    *kept = 0;
    /* locals: the loop's calls may write *l, so its fields are read again;
     * none moves the states, which only labels_node grows */
    uint32_t i = 0, nops = l->nops, opaque = nops + 4, *state = l->st.state;
    for (graft_node *node; (node = graph_walk_next(&w)); i++) {
        uint32_t id = node_id(node);
        uint32_t s = state[id] = walk_state(l, node, node_kind(node), nops, opaque);
        if (offering && l->offers[s] == 2) /* note [offers known] */
            offering[(*kept)++] = id;
        if (order)
            order[i] = id;
        if (nodes)
            nodes[i] = node;
    }
    l->walk_funcs = w.nfuncs;
    graph_walk_end(&w);
    return i;
}

void labels_graph_order(Labels *l, GraphOrder *o, graft_node **nodes)
{
    uint32_t kept;
    o->ids = xmalloc(((size_t)graph_node_count(l->g) + 1) * sizeof *o->ids);
    o->n = label_walk(l, o->ids, nodes, NULL, &kept);
}

uint32_t labels_graph_nodes(Labels *l, graft_node **nodes)
{
    uint32_t kept;
    return label_walk(l, NULL, nodes, NULL, &kept);
}

uint32_t labels_order(Labels *l, const GraphOrder *o, uint32_t *offering)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; offering && i < o->n; i++)
        if (offers(l, l->st.state[o->ids[i]]))
            offering[kept++] = o->ids[i];
    return kept;
}

uint32_t labels_next_offering(Labels *l, graft_node *const *nodes, uint32_t from, uint32_t n)
{
    for (uint32_t i = from; i < n; i++) {
        uint32_t s = labels_state(l, nodes[i]);
        if (s != STATE_NONE && offers(l, s)) /* unlabelled: offers nothing */
            return i;
    }
    return n;
}

/* LabelsHead reads a Labels's first members (note [offers inline]). */
_Static_assert(offsetof(Labels, offers) == offsetof(LabelsHead, offers) &&
                  offsetof(Labels, offers_cap) == offsetof(LabelsHead, offers_cap),
              "a Labels begins as a LabelsHead");

bool labels_offers_learnt(Labels *l, uint32_t s)
{
    return offers(l, s);
}

uint32_t labels_walk_funcs(const Labels *l)
{
    return l->walk_funcs;
}

uint32_t labels_offering(Labels *l, uint32_t *offering, uint32_t *nlabelled)
{
    uint32_t kept;
    *nlabelled = label_walk(l, NULL, NULL, offering, &kept);
    return kept;
}

void labels_all(Labels *l)
{
    uint32_t kept;
    label_walk(l, NULL, NULL, NULL, &kept);
}

/* ---- labelling from stored classes (note [stored classes] in automaton.h) ---- */

uint32_t labels_node_class(Labels *l, const graft_node *n)
{
    return labels_class(l, n, node_kind(n), l->nops);
}

uint32_t labels_opaque_class(const Labels *l)
{
    return l->nops + 4;
}

_Static_assert(LABEL_DENSE == DENSE, "the dense side automaton.h gives is the tables'");

const uint32_t *labels_class_table(const Labels *l, uint32_t c)
{
    return l->dense[c];
}

uint32_t *labels_state_array(Labels *l)
{
    state_reserve(l, graph_node_count(l->g));
    l->epoch++;
    return l->st.state;
}

uint32_t labels_class_step(Labels *l, uint32_t c, const uint32_t *ids, uint32_t na)
{
    if (na <= 2)
        return class_step(l, c, ids, na);
    if (na > WIDE_ARGS) {
        args_reserve(l, na);
        for (uint32_t k = 0; k < na; k++)
            l->args[k] = l->st.state[ids[k]];
        return args_step(l, c, na);
    }
    uint32_t args[WIDE_ARGS];
    uint64_t key = (uint64_t)c << 8 | na;
    for (uint32_t k = 0; k < na; k++) {
        args[k] = l->st.state[ids[k]];
        key = key * 31 + args[k];
    }
    return wide_lookup(l, c, args, na, key);
}
