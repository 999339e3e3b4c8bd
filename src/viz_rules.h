/* viz_rules.h - the matches of a rule set as highlights for viz_write
 * (graft viz MODEL RULES...). */
#ifndef GRAFT_VIZ_RULES_H
#define GRAFT_VIZ_RULES_H

#include <stddef.h>

#include "graph.h"
#include "ruleset.h"
#include "viz.h"

/* Highlights with the node ids and labels they own. */
typedef struct VizMatches {
    VizHighlight *h; /* one per match */
    size_t n;        /* matches */
    size_t cap;      /* capacity of h */
} VizMatches;

/* Every match of every rule, as graft match lists them (nodes in graph
 * order, rules in file order at each node): each highlight holds the
 * nodes the pattern's ops, calls, tuples and element accesses matched
 * (not its leaves) and is labelled "RULE #K" (the rule's K-th match). */
void viz_find_matches(const RuleSet *rs, const Graph *g, uint64_t max_steps,
                      VizMatches *out);
void viz_matches_free(VizMatches *vm);

#endif
