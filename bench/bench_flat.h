/* bench_flat.h - the graph as arrays by field (note [flat graph] in
 * bench_flat.c): built from a loaded graph, traversed, labelled from its
 * stored classes, its offered candidates verified by today's matcher. */
#ifndef GRAFT_BENCH_FLAT_H
#define GRAFT_BENCH_FLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automaton.h"
#include "graph.h"
#include "match.h"

#define FLAT_DEAD 0xff /* FlatGraph.kind of an id the graph has dead */

typedef struct FlatGraph {
    const graft_graph *g; /* the graph copied, borrowed */
    uint32_t n;        /* ids */
    uint8_t *kind;     /* per id: its NodeKind, or FLAT_DEAD */
    uint32_t *cls;     /* per id: its class (flat_classify), or LABEL_CLASS_NODE */
    uint32_t *first;   /* n + 1 entries: id i's operands are args[first[i], first[i + 1]) */
    uint32_t *args;    /* operand ids, every one below its user's */
    uint32_t nargs;    /* entries in args */
    uint32_t *ids;     /* per id: the graft node's id (the same when by_id) */
    bool by_id;        /* the graph's own ids were in an order operands first */
} FlatGraph;

/* The arrays of g, classes not decided (all LABEL_CLASS_NODE). */
void flat_build(FlatGraph *f, const graft_graph *g);
void flat_free(FlatGraph *f);
/* Bytes of the arrays (ids only where they are not the graph's). */
size_t flat_bytes(const FlatGraph *f);
/* Stores each id's class as l decides it (labels_node_class): what the
 * loader would store. */
void flat_classify(FlatGraph *f, Labels *l);
/* The bare traversal of the arrays: each live id's kind, class and
 * operand ids, summed (baseline_traverse's work). */
uint64_t flat_traverse(const FlatGraph *f);
/* Labels every live id in order from the stored classes (l holds them:
 * labels_adopt_classes; nclasses of them); stores the ids whose state
 * offers a rule in offering (n entries, when not NULL) and returns their
 * count.  The states go to l's array, by graft id: where the arrays' ids
 * are not the graph's (!f->by_id) it labels nothing and returns 0. */
uint32_t flat_label(const FlatGraph *f, Labels *l, uint32_t nclasses, uint32_t *offering);

/* What verifying the offered candidates found. */
typedef struct FlatVerified {
    uint64_t candidates; /* (rule, node) pairs offered */
    uint64_t proven;     /* of them, proven by their state (note [proven rules]) */
    uint64_t checked;    /* decided by matcher_check's walk down the pattern */
    uint64_t tried;      /* left to a try (CHECK_TRY) */
    uint64_t matches;    /* of them, matched */
} FlatVerified;

/* Verifies, as graft match does (matcher_check, then matcher_try where it
 * says so), every rule offered at the n ids of offering, labelled in l. */
FlatVerified flat_verify(const FlatGraph *f, Matcher *m, Automaton *a, const Labels *l,
                         const uint32_t *offering, uint32_t n);
/* The live ids whose states in flat and in walk differ. */
uint32_t flat_states_differ(const FlatGraph *f, const Labels *flat, const Labels *walk);

#endif
