/* automaton_impl.h - the automaton's state, shared by its files:
 * automaton.c (states, steps, the memo), automaton_index.c (the indexes
 * built once from the rule set) and automaton_tables.c (the states and
 * transitions graft compile wrote). */
#ifndef GRAFT_AUTOMATON_IMPL_H
#define GRAFT_AUTOMATON_IMPL_H

#include "automaton.h"
#include "util.h"

/* One op named by some rule, as automaton_index builds it for a rule set
 * without graft compile's index (note [compiled index] in graft_rules.h). */
typedef struct OpEntry {
    const char *name;    /* the op name, owned by the rule set */
    VEC(uint32_t) items; /* OP and STAR items headed by it, ascending */
    VEC(uint32_t) preds; /* its GRAFT_PRED_ATTR tests, grouped by attribute */
} OpEntry;

/* The index automaton_index built, which Automaton.ix points into. */
typedef struct BuiltIndex {
    OpEntry *ops;          /* ops named by rules, in first-use order */
    uint32_t nops;
    graft_automaton_op *views; /* per op: its entry as ix.ops reads it */
    uint32_t *item_op;     /* per item: the op index of its head op */
    VEC(uint32_t) generic; /* items not headed by an op, ascending */
    VEC(uint32_t) node_preds; /* tests evaluated on every node */
    VEC(uint32_t) fn_preds; /* function attribute tests */
    uint32_t *rule_order;  /* rule indices, best first */
} BuiltIndex;

/* One open-addressing table entry: a key of uint32 words in a pool. */
typedef struct Slot {
    uint64_t hash;   /* full hash; 0 = empty */
    uint32_t off;    /* key offset in the pool */
    uint32_t len;    /* key length in words */
    uint32_t value;  /* state id */
} Slot;

/* One entry of the step cache (note [step cache]); state 0 = empty,
 * otherwise the state id plus one. */
typedef struct StepEntry {
    uint64_t head;   /* tag, operand and test counts, symbol a */
    uint64_t words;  /* the tests, then the operand states, two at most */
    uint32_t state;  /* state id + 1, or 0 when empty */
} StepEntry;

#define STEP_CACHE_BITS 10 /* 1024 entries, 24 KB: within the L1 cache */

typedef struct Table {
    Slot *slots;     /* power-of-two array */
    size_t cap;      /* slots allocated */
    size_t count;    /* slots used */
    VEC(uint32_t) pool; /* keys, back to back */
} Table;

struct Automaton {
    const graft_rule_set *rs;     /* the rules, borrowed */
    graft_automaton_index ix; /* the index read: the rule set's own (graft
                                 compile's) or built's */
    BuiltIndex *built;     /* the index built at start-up; NULL when the rule
                              set brought its own */
    size_t words;          /* 64-bit words per state bitset */
    const graft_automaton_states *st; /* the states written ahead (note
                              [compiled states] in graft_rules.h), or NULL */
    uint32_t nwritten;     /* their number: states below it are st's */
    uint8_t *reached;      /* per written state: a step reached it */
    uint32_t nreached;     /* states reached: written ones reached, and built */
    bool sets_seeded;      /* the written states are in sets */
    /* note [written until built]: the states are read through bits, acc
     * and acc_off alone, as they were before states were written; they
     * point at the written tables until the first state is built, which
     * copies those into the arrays owned below and appends to them. */
    const uint64_t *bits;  /* per state, words each */
    const uint32_t *acc;   /* the rules each state accepts, back to back */
    const uint32_t *acc_off; /* per state and one more: its run in acc */
    uint64_t *own_bits;    /* the states' sets once one is built */
    size_t own_bits_cap;   /* words allocated in own_bits */
    VEC(uint32_t) own_acc; /* acc once a state is built */
    uint32_t *own_off;     /* acc_off once a state is built */
    size_t own_off_cap;    /* entries allocated in own_off */
    uint32_t nstates;      /* states: written, then built */
    Table memo;            /* (symbol, operand states) -> state */
    Table sets;            /* item set -> state, to share equal sets */
    uint64_t *scratch;     /* one bitset being built */
    StepEntry *cache;      /* small memo keys -> state (note [step cache]),
                              allocated by the first step */
};

/* Indexes a->rs into a->built and points a->ix at it: items by head op,
 * tests by kind (note [test order]), rules best first (automaton_index.c);
 * automaton_index_free frees it. */
void automaton_index(Automaton *a);
void automaton_index_free(BuiltIndex *b);

/* ---- automaton_tables.c: the written states (note [compiled states]) ---- */

/* The state of sym from the written rows, STATE_NONE when they do not
 * cover it. */
uint32_t automaton_table_step(const Automaton *a, const Symbol *sym);
/* Records that a step reached state s (automaton_nstates counts them). */
void automaton_reach(Automaton *a, uint32_t s);
/* The item set of state s, written or built: a->words words. */
const uint64_t *automaton_state_set(const Automaton *a, uint32_t s);

#endif
