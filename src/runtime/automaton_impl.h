/* automaton_impl.h - the automaton's state, shared by its two files:
 * automaton.c (states, steps, the memo) and automaton_index.c (the
 * indexes built once from the rule set). */
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
    uint64_t *bits;        /* nstates * words */
    size_t bits_cap;       /* words allocated in bits */
    VEC(uint32_t) acc;     /* accepting rules of all states, back to back */
    uint32_t *acc_off;     /* per state: offset into acc */
    uint32_t *acc_len;     /* per state: number of accepting rules */
    size_t acc_off_cap;    /* states allocated in acc_off/acc_len */
    uint32_t nstates;      /* states built */
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

#endif
