/* automaton.h - the bottom-up matcher automaton of a rule set.
 *
 * All rules of a rule set share one automaton.  A node's state is the set
 * of items (shared sub-patterns, pattern.h) that the node may match; it is
 * computed from the node's symbol (its kind, op and the node tests some
 * rule asks about) and its operands' states with one hash lookup.  Missing
 * transitions are computed on first use and memoised, so the cost per node
 * does not grow with the number of rules (doc/automaton.md).
 *
 * A state is exact for everything a pattern says about one node and the
 * shape below it; what it cannot see (a variable used twice, guards) is
 * checked when a rule accepts, by match.h.
 */
#ifndef GRAFT_AUTOMATON_H
#define GRAFT_AUTOMATON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "graph.h"
#include "ruleset.h"

typedef struct Automaton Automaton;

/* Macros, not enumerators: ISO C wants an enumerator to fit in int, and
 * clang -Wpedantic says so in every file including this header. */
#define STATE_NONE UINT32_MAX /* a node not labelled yet */

/* What a node looks like to the automaton. */
typedef enum SymTag {
    SYM_VAR,     /* a parameter */
    SYM_CONST,   /* a constant */
    SYM_OP,      /* an op call; a = op index, or SYM_OTHER_OP */
    SYM_FNCALL,  /* a call of a local function */
    SYM_TUPLE,   /* a tuple */
    SYM_GETITEM, /* element access; a = the index */
    SYM_FUNC,    /* an opaque value: a global function, an op, a match */
    SYM_FN,      /* a function; operands: body, then parameters */
    SYM_IF,      /* an if; operands: condition, then, else */
    SYM_LET,     /* a let; operands: variable, value, body */
} SymTag;

#define SYM_OTHER_OP UINT32_MAX /* an op no rule names (a macro: see STATE_NONE) */

typedef struct Symbol {
    SymTag tag;             /* node kind */
    uint32_t a;             /* op index or getitem index */
    uint32_t npreds;        /* node tests the node passes */
    const uint32_t *preds;  /* their ids, ascending */
    uint32_t nargs;         /* operands */
    const uint32_t *args;   /* operand states */
} Symbol;

Automaton *automaton_new(const graft_rule_set *rs);
void automaton_free(Automaton *a);
const graft_rule_set *automaton_rules(const Automaton *a);
/* The index the automaton reads (note [compiled index] in graft_rules.h):
 * what graft compile writes for the rule set. */
const graft_automaton_index *automaton_index_of(const Automaton *a);

/* Whether some rule has a fn, if or let pattern: only then are
 * functions, ifs and lets labelled with their operands' states (note
 * [pattern operands] in pattern.h); else they are opaque values, which
 * keeps the states and transitions of other rule sets as they were. */
bool automaton_has_scopes(const Automaton *a);

/* The op index of an op name, or SYM_OTHER_OP when no rule names it. */
uint32_t automaton_op_index(const Automaton *a, const char *op);
/* The node tests to evaluate on every node, on calls of op index i, and on
 * calls of local functions (their attributes), each sorted by
 * automaton_pred_cmp (note [test order] in automaton_index.c). */
const uint32_t *automaton_node_preds(const Automaton *a, uint32_t *n);
const uint32_t *automaton_op_preds(const Automaton *a, uint32_t op, uint32_t *n);
const uint32_t *automaton_fn_preds(const Automaton *a, uint32_t *n);
/* Orders tests by kind, then by what they look for (attribute tests by
 * name, then wanted value). */
int automaton_pred_cmp(const graft_pred *x, const graft_pred *y);
/* Rule x (of the graft_rule array rules) runs before rule y: a higher
 * priority; with sort_u32, ties keep file order (best first). */
bool automaton_rule_before(const void *rules, uint32_t x, uint32_t y);

/* The state reached from sym: one memo lookup, or computed and memoised. */
uint32_t automaton_step(Automaton *a, const Symbol *sym);

bool automaton_state_has(const Automaton *a, uint32_t state, uint32_t item);
/* 64-bit words in a state's item set over nitems items, one at least:
 * the automaton's layout, which compiled tables (emit_c_states.c) keep. */
size_t automaton_set_words(uint32_t nitems);
/* The states' item sets as they stand, *words 64-bit words each (state
 * s's from s * *words), until the next state is built: for a reader that
 * asks many items between two steps and tests the bits inline (note
 * [direct try] in match_direct.c). */
const uint64_t *automaton_state_sets(const Automaton *a, size_t *words);
/* Rules whose whole pattern is in state, best first (priority, then file
 * order). */
const uint32_t *automaton_state_rules(const Automaton *a, uint32_t state, uint32_t *n);

/* Sizes, for statistics and the benchmark: the states steps reached and
 * the distinct steps taken (note [states reached] in automaton.c). */
uint32_t automaton_nstates(const Automaton *a);
uint32_t automaton_ntransitions(const Automaton *a);
/* States built at run time: all of an interpreted rule set's, those
 * beyond the written ones of a compiled set (note [compiled states]). */
uint32_t automaton_nbuilt(const Automaton *a);

/* graft compile's states and transitions of rs, computed ahead (note
 * [compiled states] in graft_rules.h, automaton_close.c); NULL when the
 * rule set reaches more states than are worth writing.  Free with
 * automaton_states_free. */
graft_automaton_states *automaton_close(const graft_rule_set *rs);
void automaton_states_free(graft_automaton_states *st);

/* The ops rules name, in first-use order, and the items headed by each. */
uint32_t automaton_nops(const Automaton *a);
const char *automaton_op_name(const Automaton *a, uint32_t op);
const uint32_t *automaton_op_items(const Automaton *a, uint32_t op, uint32_t *n);

/* Writes the automaton: items (the merged pattern DAG with the rules that
 * accept at each), node tests, op dispatch, and the states built so far;
 * as Graphviz when dot. */
void automaton_dump(const Automaton *a, FILE *out, bool dot);

/* ---- labelling one graph ---- */

typedef struct Labels Labels;

Labels *labels_new(Automaton *a, const graft_graph *g);
void labels_free(Labels *l);
/* Forgets every node's state, the array freed, and frees the operands'
 * scratch: note [pass scratch] in engine.c.  The next labelling of a
 * node starts them again. */
void labels_drop_states(Labels *l);
/* Computes and stores n's state from its operands' states (which must be
 * labelled already); returns it. */
uint32_t labels_node(Labels *l, const graft_node *n);
/* Labels every live node, operands first. */
void labels_all(Labels *l);
/* Labels every live node in the order of the depth-first walk from the
 * roots (note [label order] in automaton_label.c), and gives that order,
 * graph_topo_ids's; free with graph_order_free.  When nodes is not NULL
 * (graph_node_count entries), the same order as nodes, graph_topo_order's. */
void labels_graph_order(Labels *l, GraphOrder *o, graft_node **nodes);
/* labels_graph_order's walk keeping only the nodes, in nodes
 * (graph_node_count entries); returns their count. */
uint32_t labels_graph_nodes(Labels *l, graft_node **nodes);
/* Room in the states for a quarter more nodes than the graph has, where
 * edits will make nodes to label (note [state size] in
 * automaton_label.c). */
void labels_reserve_edits(Labels *l);
/* After labels_graph_order made o: stores in offering (when not NULL),
 * in o's order, the ids whose state accepts some rule (the nodes worth
 * verifying) and returns how many.  offering may be o->ids. */
uint32_t labels_order(Labels *l, const GraphOrder *o, uint32_t *offering);
/* labels_graph_order and labels_order in one loop, without keeping the
 * order: offering has graph_node_count entries; *nlabelled gets the
 * count of nodes labelled. */
uint32_t labels_offering(Labels *l, uint32_t *offering, uint32_t *nlabelled);
/* The first i of [from, n) whose nodes[i]'s state accepts some rule, or
 * n: a sweep over an order for the nodes worth verifying, one call per
 * such node (rewrite.c's candidate lists). */
uint32_t labels_next_offering(Labels *l, graft_node *const *nodes, uint32_t from, uint32_t n);
/* The functions the last walk of the whole graph listed (labels_all,
 * labels_graph_order, labels_offering): GraphWalk.nfuncs. */
uint32_t labels_walk_funcs(const Labels *l);
/* note [states inline]: the matcher asks a node's state at every
 * pattern step (about 290,000 times on the workload's 60,000 op nodes),
 * so the states are read inline, not through a call: a Labels begins
 * with its LabelStates, which a pointer to it, converted, points to. */
typedef struct LabelStates {
    uint32_t *state; /* per node id, STATE_NONE when unlabelled */
    size_t cap;      /* entries allocated in state */
} LabelStates;

/* The stored state of node id, STATE_NONE if never labelled. */
static inline uint32_t labels_state_id(const Labels *l, uint32_t id)
{
    const LabelStates *st = (const LabelStates *)(const void *)l;
    return id < st->cap ? st->state[id] : STATE_NONE;
}

/* The stored state of n, STATE_NONE if never labelled. */
static inline uint32_t labels_state(const Labels *l, const graft_node *n)
{
    return labels_state_id(l, node_id(n));
}

/* note [offers inline]: a rewrite asks whether a node's state accepts
 * some rule of every node its edits touch (20,000 asks on the workload's
 * rewrite), and a call cost 25 instructions where the answer, once
 * learnt, is a byte per state: so a Labels begins with the states, then
 * the answers learnt so far, which labels_id_offers reads inline as a
 * LabelsHead; an answer not learnt yet is learnt by a call. */
typedef struct LabelsHead {
    LabelStates st;       /* the states (note [states inline]) */
    const uint8_t *offers; /* per state: 0 not known yet, 1 offers no rule,
                             2 some */
    size_t offers_cap;    /* entries allocated in offers */
} LabelsHead;

/* Learns whether state s accepts some rule: labels_id_offers's call. */
bool labels_offers_learnt(Labels *l, uint32_t s);

/* Whether node id has a state that accepts some rule (a node never
 * labelled has none). */
static inline bool labels_id_offers(Labels *l, uint32_t id)
{
    const LabelsHead *h = (const LabelsHead *)(const void *)l;
    uint32_t s = labels_state_id(l, id);
    if (s == STATE_NONE)
        return false;
    if (s < h->offers_cap && h->offers[s])
        return h->offers[s] == 2;
    return labels_offers_learnt(l, s);
}
/* Changes whenever a state is stored: what was found from the states
 * (and the users lists, which change only where nodes are relabelled
 * next) holds while it stays the same (note [root misses] in
 * match_roots.c). */
uint64_t labels_epoch(const Labels *l);
Automaton *labels_automaton(const Labels *l);

/* ---- labelling from stored classes (bench/bench_flat.c) ----
 * note [stored classes]: issue 34's graph as arrays by field keeps each
 * node's labelling class, as a loader would store it, and labels the
 * arrays in their order: the class's dense entry from the operands'
 * stored states, else one step.  These give such a labeller what the
 * walk's own loop uses (note [dense steps], note [wide steps] in
 * automaton_label_impl.h), so its states are the walk's. */
#define LABEL_CLASS_NODE UINT32_MAX /* a class that says: read the node */
/* The class of n as the labelling walk decides it (labels_class), or
 * LABEL_CLASS_NODE; the opaque class, labelled without operands. */
uint32_t labels_node_class(Labels *l, const graft_node *n);
uint32_t labels_opaque_class(const Labels *l);
/* Gives l, which has decided no class of its own yet, the classes that
 * from decided (for the same rule set), in the same numbers; returns
 * their count. */
uint32_t labels_adopt_classes(Labels *l, const Labels *from);
/* Class c's dense table, NULL while it has none (a step of the class
 * with at most two operands makes it): entry 0 for no operands, 1 + s
 * for one, 1 + LABEL_DENSE + s0 * LABEL_DENSE + s1 for two, each state
 * below LABEL_DENSE; STATE_NONE where no step was taken yet. */
#define LABEL_DENSE 32
const uint32_t *labels_class_table(const Labels *l, uint32_t c);
/* The state array, sized to the graph's ids, for a labeller that stores
 * into it directly; every state may change (labels_epoch). */
uint32_t *labels_state_array(Labels *l);
/* The state of a node of class c (not LABEL_CLASS_NODE) whose operands
 * are the na ids at ids, all labelled: the walk's step for it, its dense
 * entry or its wide cache filled. */
uint32_t labels_class_step(Labels *l, uint32_t c, const uint32_t *ids, uint32_t na);

#endif
