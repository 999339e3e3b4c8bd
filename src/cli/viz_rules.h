/* viz_rules.h - the matches of a rule set as highlights for viz_write
 * (graft viz MODEL RULES...). */
#ifndef GRAFT_VIZ_RULES_H
#define GRAFT_VIZ_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "graph.h"
#include "limit.h"
#include "ruleset.h"
#include "graph_dot.h"

/* Highlights with the node ids and labels they own. */
typedef struct VizMatches {
    VEC(VizHighlight) h; /* one per match */
    uint64_t marks;  /* (match, node) pairs in h: the sum of nnodes */
    uint32_t *count; /* per rule: its matches so far (the K of "RULE #K") */
    size_t main;     /* h's first highlight of the main graph (after an
                        ONNX model's subgraphs': viz_subgraphs.h) */
} VizMatches;

/* Every match of every rule, as graft match lists them (nodes in graph
 * order, rules in file order at each node): each highlight holds the
 * nodes the pattern's ops, calls, tuples and element accesses matched
 * (not its leaves) and is labelled "RULE #K" (the rule's K-th match).
 * limits (NULL: the defaults) gives match-steps, the budget of one match
 * attempt, and viz-marks, the (match, node) pairs out may hold in all, so
 * memory stays proportional to the model plus that bound (a deep pattern
 * matching all along a long chain would otherwise mark nodes x depth).
 * Returns false after reporting to d, at the first match that would pass
 * viz-marks; out then holds the matches before it, for viz_matches_free. */
bool viz_find_matches(const graft_rule_set *rs, const graft_graph *g, const graft_limits *limits,
                      VizMatches *out, graft_diag *d);
/* The same for one more graph of the model (an ONNX subgraph, or the
 * main graph after its subgraphs, as graft match lists them): its
 * matches appended to out, numbered on from those out holds, and the
 * viz-marks bound counting them all. */
bool viz_find_more(const graft_rule_set *rs, const graft_graph *g, const graft_limits *limits,
                   VizMatches *out, graft_diag *d);
void viz_matches_free(VizMatches *vm);

#endif
