/* runner.h - what `graft run RULES... MODEL` and a rewriter built by
 * `graft compile --exe` (PROG MODEL) share: their options and the steps
 * from a loaded model to the written result.  Keeping them here keeps
 * the two commands' options, output, statistics and exit status the same
 * (tests/emit_exe.sh and the differential tests compare them).
 */
#ifndef GRAFT_RUNNER_H
#define GRAFT_RUNNER_H

#include <stdbool.h>

#include "diag.h"
#include "graph.h"
#include "limit.h"
#include "ruleset.h"

/* Options of one run; out points into argv. */
typedef struct RunOptions {
    const char *out; /* -o: output path, NULL or "-" for standard output */
    int stats;       /* 0 none, 1 counts only, 2 counts and times */
    bool trace;      /* --trace */
    Limits limits;   /* the defaults, GRAFT_LIMITS, then --limit and
                        --max-rewrites as given */
} RunOptions;

/* The options block of both commands' --help. */
extern const char runner_options_help[];

/* argv[*i] when it is a run option (-o, --stats[=counts], --trace,
 * --max-rewrites N, --limit SPEC): takes it into o (moving *i past its
 * value) and returns -1, or a usage error's status (options.h);
 * OPTION_NOT_MINE for any other argument.  PROG prefixes messages. */
int runner_parse_option(const char *prog, int argc, char **argv, int *i, RunOptions *o);

/* Rewrites g with rs to a fixpoint, partitions it and writes it to o->out
 * (atomically); statistics go to standard error when asked, and the trace
 * too.  False after reporting through d. */
bool runner_run(const RuleSet *rs, Graph *g, const RunOptions *o, Diag *d);

#endif
