/* automaton_label_impl.h - the labeller's state, shared by its files:
 *
 *   automaton_label.c        the walk: each node's state from its class
 *                            and its operands' states, one automaton step
 *                            (or a dense table's entry) per node
 *   automaton_label_class.c  a node's class and symbol: the node tests it
 *                            passes, found through the caches below
 *
 * The caches (ops, constants, attribute texts) are direct-mapped, each
 * slot picked by cache_slot (note [one cache slot] in keymap.h).
 */
#ifndef GRAFT_AUTOMATON_LABEL_IMPL_H
#define GRAFT_AUTOMATON_LABEL_IMPL_H

#include "automaton.h"

#include "keymap.h"
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

/* note [node classes]: labelling asks for each node's class as the walk
 * hands it out (note [node walk] in graph_walk.c): a dense class (note
 * [dense steps]) or one of these, each standing for one symbol without
 * operands, so that labelling builds the node's symbol from its class and
 * its operands' states alone: an opaque value (labelled without its
 * operands), an element access of a small index, a scalar constant when
 * rules test constants (its tests depend on its value alone, so one class
 * per value, found through a small direct-mapped cache), and an op call
 * with attribute tests (one class per op and tests passed).  CLASS_NODE
 * says: build the symbol from the node (a call of a function, type
 * tests, scopes). */
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

/* note [wide steps]: a node of a dense class with three to WIDE_ARGS
 * operands (nn.batch_norm's five, a concatenate of a few) has no dense
 * entry, and its step went to the automaton's memo, which hashes and
 * compares the whole symbol: about 280 instructions, most of labelling a
 * rewrite's new batch norm.  Such steps go first to a direct-mapped cache
 * keyed by the class and the operand states (note [one cache slot] in
 * keymap.h), which holds only answers the memo gave, as the dense tables
 * do, so the states and their numbering stay the same. */
#define WIDE_ARGS 6
#define WIDE_SLOT_BITS 6
#define WIDE_SLOTS (1 << WIDE_SLOT_BITS)

typedef struct WideSlot {
    uint32_t cls;             /* the class + 1, or 0 when empty */
    uint32_t nargs;           /* operands, 3 to WIDE_ARGS */
    uint32_t args[WIDE_ARGS]; /* their states */
    uint32_t state;           /* the step's state */
} WideSlot;

typedef struct ConstSlot {
    uint64_t bits;  /* the value's bits */
    uint32_t cls;   /* its class, or 0 when empty (class 0 is an op's) */
} ConstSlot;

struct Labels {
    LabelStates st;    /* first: read inline by labels_state (automaton.h) */
    uint8_t *offers;   /* per state: 0 not known yet, 1 offers no rule, 2 some;
                          with offers_cap, second and third as LabelsHead
                          says (note [offers inline] in automaton.h) */
    size_t offers_cap; /* entries allocated in offers */
    Automaton *a;      /* the automaton, borrowed */
    const graft_graph *g;    /* the graph, borrowed */
    uint64_t epoch;    /* counts the labellings (labels_epoch) */
    uint32_t walk_funcs; /* the last walk's GraphWalk.nfuncs */
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
    WideSlot wide[WIDE_SLOTS]; /* steps of three to WIDE_ARGS operands (note [wide steps]) */
    KeyMap tested;     /* hash of an op and its tests passed -> class */
    bool leaf_fixed[NODE_CONST + 1]; /* every parameter's (constant's)
                          symbol is the same: its tests are none or of its
                          kind alone (note [leaf states]) */
    uint32_t leaf[NODE_CONST + 1]; /* then their state, once known, else
                          STATE_NONE */
    bool scopes;       /* label fns, ifs and lets with their operands */
    bool type_tests;   /* some rule tests dtypes, ranks or shapes */
    uint32_t lo[GRAFT_PRED_ATTR + 1]; /* per test kind: its run in the node */
    uint32_t hi[GRAFT_PRED_ATTR + 1]; /* tests (automaton_node_preds) */
};

/* ---- automaton_label_class.c ---- */

/* Which kinds of node a node test can apply to (labels_new). */
void labels_kind_tests(Labels *l);
/* The fixed classes (note [dense steps], note [node classes]). */
void labels_classes_init(Labels *l);
/* Fills sym with n's symbol (operand states excluded). */
void labels_symbol(Labels *l, const graft_node *n, NodeKind kind, Symbol *sym);
/* Fills slot for op (note [op slots]). */
void labels_op_slot_fill(Labels *l, OpSlot *slot, const char *op);
/* A scalar constant's class when rules test constants and not types
 * (note [node classes]), or CLASS_NODE. */
uint32_t labels_const_class(Labels *l, const graft_node *n);
/* The class of op call n, whose op (in slot) has attribute tests, or
 * CLASS_NODE. */
uint32_t labels_tested_class(Labels *l, const graft_node *n, const OpSlot *slot);

/* The op slot of an op name pointer (note [one cache slot] in keymap.h),
 * filled when it holds another op. */
static inline const OpSlot *labels_op_slot(Labels *l, const char *op)
{
    OpSlot *slot = &l->recent[cache_slot((uint64_t)(uintptr_t)op, OP_SLOT_BITS)];
    if (slot->op != op)
        labels_op_slot_fill(l, slot, op);
    return slot;
}

/* The class of n, of kind kind (note [node classes]), nops l->nops: the
 * one place a node's class is decided, inlined into the labelling walk's
 * loop and labels_node. */
GRAFT_HOT uint32_t labels_class(Labels *l, const graft_node *n, NodeKind kind, uint32_t nops)
{
    if (kind > NODE_MATCH) /* a kind added later: read it */
        return CLASS_NODE;
    if (l->kind_tests[kind])
        return kind == NODE_CONST && !l->type_tests ? labels_const_class(l, n) : CLASS_NODE;
    if (kind == NODE_CALL) { /* the most common kind past the leaves: before the switch */
        const char *op = node_op(n);
        if (!op)
            return CLASS_NODE;
        const OpSlot *slot = labels_op_slot(l, op);
        return slot->ntests ? labels_tested_class(l, n, slot) : slot->dense;
    }
    switch (kind) {
    case NODE_VAR: return nops + 1;
    case NODE_CONST: return nops + 2;
    case NODE_TUPLE: return nops + 3;
    case NODE_GETITEM: {
        int k = node_index(n);
        return k >= 0 && k < GETITEM_CLASSES ? nops + 5 + (uint32_t)k : CLASS_NODE;
    }
    case NODE_FUNC: case NODE_IF: case NODE_LET:
        return l->scopes ? CLASS_NODE : nops + 4;
    default: return nops + 4; /* a global, an op value, a match: opaque */
    }
}

#endif
