/* stats.h - what each rule did during a run (graft run --stats).
 *
 * Counts are deterministic and print first; times are not, and print only
 * when asked (--stats, not --stats=counts).
 */
#ifndef GRAFT_STATS_H
#define GRAFT_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ruleset.h"
#include "util.h"

typedef struct RuleStats {
    uint64_t tried;    /* verifications started at a root the automaton
                          offered */
    uint64_t matched;  /* pattern and guard held */
    uint64_t applied;  /* rewrites done or groups made */
    uint64_t guard;    /* pattern held, guard refused */
    uint64_t interior; /* dropped: an interior node used outside the match
                          and not post-dominated by its root */
    uint64_t overlap;  /* dropped: overlaps an earlier group */
    uint64_t budget;   /* gave up: search too long */
    double seconds;    /* time verifying and applying */
} RuleStats;

typedef struct Stats {
    uint32_t nrules;     /* entries in rules */
    RuleStats *rules;    /* per rule, file order */
    uint64_t labelled;   /* node labellings */
    uint64_t rounds;     /* rewriting rounds */
    uint64_t rewrites;   /* rewrites done */
    uint64_t groups;     /* partition groups made */
    uint32_t states;     /* automaton states built */
    uint32_t transitions;/* automaton transitions memoised */
    StrBuf refusals;     /* the first refusals with their nodes, a line
                            each (note [refusal lines] in engine.c) */
    uint64_t nrefusals;  /* refusals in all, listed or not */
    uint32_t subgraphs;  /* ONNX subgraphs whose counts were added */
    uint64_t inside;     /* of rewrites, those inside them */
    uint64_t orders;     /* walks that ordered the whole graph (not
                            printed: the tests and the bench read it) */
    uint64_t kills;      /* sweeps that killed given nodes (note [kill of
                            given nodes] in src/ir/graph_walk.c; not printed) */
} Stats;

void stats_init(Stats *s, uint32_t nrules);
void stats_free(Stats *s);
/* Adds the counts of from, a run of the same rules, to to: the automaton's
 * states and transitions are the larger (each run builds its own), the
 * rest summed; inside: from ran in an ONNX subgraph (note [rules in
 * subgraphs] in subgraph_rules.h). */
void stats_add(Stats *to, const Stats *from, bool inside);
/* The table: one line per rule; times only when times is true. */
void stats_print(const Stats *s, const graft_rule_set *rs, FILE *out, bool times);

#endif
