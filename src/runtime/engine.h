/* engine.h - the driver: runs a rule set over a graph.
 *
 * The same driver serves interpreted rule sets (lower.h) and compiled
 * ones (note [one runtime] in ruleset.h):
 *
 *   graft_engine *e = engine_new(rs, g, &opts);
 *   if (!engine_rewrite(e, d)) ... no fixpoint, reported through d
 *   engine_partition(e);
 *   stats_print(engine_stats(e), rs, stderr, true);
 *   engine_free(e);
 *
 * Rewrite rules run first, to a fixpoint; then each partition rule, best
 * first, makes one partition pass (as TVM's MergeComposite runs one
 * pattern after another).
 */
#ifndef GRAFT_ENGINE_H
#define GRAFT_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "graph.h"
#include "limit.h"
#include "match.h"
#include "node_label.h"
#include "ruleset.h"
#include "stats.h"

typedef struct EngineOptions {
    uint64_t max_rewrites; /* bound on rewrites; 0 = limits->rewrites, and
                              when that is 0 too, 10 per live node at the
                              start plus 1000 */
    FILE *trace;           /* each rewrite and group as it happens, or NULL */
    const graft_limits *limits;  /* match-steps, rewrites, round-factor; NULL:
                              limit_defaults */
    const char *model;     /* the model file's name, for node positions in
                              the trace and refusals (note [node names]) */
    const NodeLabels *names; /* the names of the graph's nodes there, or
                              NULL to name them from the graph (an ONNX
                              subgraph's: note [subgraph node names]) */
    bool refusals;         /* keep a line per refusal with its nodes in
                              the statistics (Stats.refusals) */
    uint64_t stop_after;   /* stop, without error, after this many
                              rewrites (graft verify, and run --verify's
                              bisection: the first k rewrites); 0: no */
    bool untimed;          /* leave the per-rule times (Stats) at 0: no
                              clock read per try and per rewrite, for a
                              caller that will not print them */
    bool folds_built;      /* fold(x) in an action builds x (graft verify:
                              its instance's leaves are values, not
                              constants whose bytes a fold reads, and it
                              evaluates x to the value fold would make) */
} EngineOptions;

graft_engine *engine_new(const graft_rule_set *rs, graft_graph *g, const EngineOptions *opts);
void engine_free(graft_engine *e);

/* Applies the rewrite rules to a fixpoint.  When the bound is reached it
 * stops, reports the rules that kept firing through d and returns false. */
bool engine_rewrite(graft_engine *e, graft_diag *d);
/* Makes the partition passes. */
void engine_partition(graft_engine *e);
/* Both, as graft run does; false when rewriting found no fixpoint. */
bool engine_run(graft_engine *e, graft_diag *d);

/* Calls fn for every rule that matches at every node: nodes in graph
 * order (operands first), rules in file order at each node. */
typedef void (*MatchVisitor)(void *ctx, uint32_t rule, graft_node *root, const graft_binding *b);
void engine_matches(graft_engine *e, MatchVisitor fn, void *ctx);
/* The same matches, the same order, with bindings on request: a visitor
 * that wants them calls engine_match_bindings.  A rule whose state
 * proves it (note [proven rules] in match_check.c) is then accepted without a
 * verifying walk, which runs only when its bindings are asked for. */
typedef void (*MatchRootVisitor)(void *ctx, uint32_t rule, graft_node *root);
void engine_match_roots(graft_engine *e, MatchRootVisitor fn, void *ctx);
/* Inside engine_match_roots' visitor: the bindings of the match visited,
 * one per variable slot of its rule (valid until the visitor returns). */
const graft_binding *engine_match_bindings(graft_engine *e);
/* Inside either visitor, for a rule of several roots: the node of each
 * root, *n of them (note [root candidates] in match_roots.c); *n is 0
 * for a rule of one root. */
graft_node *const *engine_match_root_nodes(graft_engine *e, int *n);

/* ---- graft explain (engine_explain.c, note [explain mode]) ---- */

typedef struct Explainer Explainer;

/* An explainer of e's rules on e's graph, writing to out; model is the
 * model's text (for notes with its lines), or NULL. */
Explainer *explainer_new(graft_engine *e, const Source *model, FILE *out);
void explainer_free(Explainer *x);
/* The node named text (note [node names] in node_label.h), or NULL. */
graft_node *explainer_find(const Explainer *x, const char *text);
/* Says whether rule r matches with root as root and why not, or why a
 * match would not be applied; true when it matches. */
bool explainer_at(Explainer *x, uint32_t r, graft_node *root);
/* The n best partial matches of rule r in the graph, deepest first, one
 * line each. */
void explainer_near(Explainer *x, uint32_t r, uint32_t n);
/* The nodes of rule r's try at root for a picture (graft viz --explain):
 * those its pattern parts matched (a match, or the deepest partial match
 * and the parts the failure analysis passed), malloc'd into *ids, and the
 * node that failed (NULL on a match).  True on a match. */
bool explainer_parts(Explainer *x, uint32_t r, graft_node *root, uint32_t **ids, uint32_t *n,
                     graft_node **failed);
/* For every node and rule: whether explainer_at's verdict is where
 * engine_matches reports a match.  Prints a summary line (and every
 * disagreement); returns the number of disagreements. */
uint64_t explainer_check_all(Explainer *x);
/* The same in parts, for the graphs of one model (an ONNX model's
 * subgraphs): each graph's disagreements printed and counted into
 * *count, then the summary line of them all. */
typedef struct CheckAllCount {
    uint64_t nodes, matches, bad; /* nodes tried, matches, disagreements */
} CheckAllCount;
void explainer_check_graph(Explainer *x, CheckAllCount *count);
void explainer_check_summary(FILE *out, uint32_t nrules, const CheckAllCount *count);
/* Says "in WHERE: " ("in subgraph then_body: ") before explainer_near's
 * next list; when quiet, leaves the list out if the rule has no match
 * or partial match there (WHERE borrowed, used once). */
void explainer_in_graph(Explainer *x, const char *where, bool quiet);

const Stats *engine_stats(const graft_engine *e);
const Automaton *engine_automaton(const graft_engine *e);
/* Whether e's messages name nodes by where the model wrote them (a trace,
 * refusals): the only reads of the graph's positions by its passes. */
bool engine_names_positions(const graft_engine *e);

/* ---- spliced calls (rewrite_build_*.c, note [spliced operand counts] in
 * src/compiler/check_action.c) ---- */

/* The fields splice x takes of a tuple of nfields (-1: no tuple), or -1
 * when it has too few; whether spliced call x's op takes n operands (its
 * counts [x->i, x->cmp)).  What the rewrite asks of a match, and graft
 * verify of the tuples it builds (note [spliced captures] in
 * verify_choose.c). */
int rewrite_splice_fields(const graft_expr *x, int nfields);
bool rewrite_count_taken(const graft_expr *x, int n);

#endif
