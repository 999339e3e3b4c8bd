/* bench_run.h - the measurements graft-bench makes: one graph size, or one
 * model under rule sets of growing size.  Each prints key=value lines that
 * bench/run.sh turns into the tables of bench/RESULTS.md. */
#ifndef GRAFT_BENCH_RUN_H
#define GRAFT_BENCH_RUN_H

#include <stdint.h>

#include "bench.h"

/* Generates a model of nops op nodes, then times load, the match listing,
 * the bare traversal and the naive matcher, rewriting to a fixpoint,
 * partitioning and printing, with the rules of rules_path.  Prints one
 * "graph ..." line; returns the exit status. */
int bench_graph(const ModelKit *kit, uint64_t nops, const char *rules_path);

/* Generates one model of nops op nodes and, for each count in argv, a rule
 * set of that many rules (bench_rules.c); times compiling the rules and
 * matching them (graft and the naive matcher).  Prints one "rules ..."
 * line per count. */
int bench_rulescale(const ModelKit *kit, uint64_t nops, char **counts, int ncounts);

/* The model at model_path (Relay text) with the rules of rules_path:
 * the bare traversal, the order, labelling and graft match, then the
 * same on the graph as arrays (note [flat graph] in bench_flat.c).
 * Prints one "model ..." line; returns the exit status. */
int bench_model_file(const char *model_path, const char *rules_path);

/* The same for a compiled rule set of n rules (bench_compiled.c): prints
 * one "compiled ..." line. */
int bench_compiled(const ModelKit *kit, uint64_t nops, const graft_rule_set *rs, uint32_t n);

#endif
