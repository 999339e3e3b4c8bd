/* runner.h - what `graft run RULES... MODEL` and a rewriter built by
 * `graft compile --exe` (PROG MODEL) share: their options and the steps
 * from a loaded model to the written result.  Keeping them here keeps
 * the two commands' options, output, statistics and exit status the same
 * (tests/emit/differential.sh compares them).
 */
#ifndef GRAFT_RUNNER_H
#define GRAFT_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "engine.h"
#include "graph.h"
#include "limit.h"
#include "ruleset.h"

enum { RUNNER_MAX_DIMS = 16 }; /* --dim options a run takes */

/* Options of one run; out points into argv. */
typedef struct RunOptions {
    const char *out; /* -o: output path, NULL or "-" for standard output */
    int stats;       /* 0 none, 1 counts only, 2 counts and times */
    bool trace;      /* --trace */
    bool verify;     /* --verify: runner_verify first (runner_verify.h) */
    bool verify_layers; /* --verify=layers: and list every layer's RMS */
    bool fold_constants; /* --fold-constants: fold_constants after rewriting */
    /* --dim NAME=N, each as given: the value --verify gives the graph
     * inputs' dim named NAME (note [named dims in verify] in
     * runner_verify.c) */
    const char *dims[RUNNER_MAX_DIMS];
    int ndims;
    graft_limits limits;   /* the defaults, GRAFT_LIMITS, then --limit and
                        --max-rewrites as given */
    /* graft explain's options, which graft run and a compiled rewriter
     * take too: with any of them the program explains instead of
     * rewriting (runner_explain). */
    const char *at;  /* --at NODE */
    const char *rule; /* --rule NAME */
    uint32_t near;   /* --near N; 0 = 5 */
    bool check_all;  /* --check-all */
    const char *model; /* the model file's name, for node positions */
    bool rewritten;  /* --rewritten: explain the model as graft run's
                        rewriting leaves it, before partitioning */
    /* How the result is written: NULL for Relay's text (relay_print), else
     * (an ONNX model: src/onnx/onnx_file.h's onnx_file_write) write(
     * write_ctx, g, stream, d), false after reporting through d. */
    bool (*write)(void *ctx, const graft_graph *g, FILE *out, graft_diag *d);
    void *write_ctx;
    /* How --verify loads a fresh copy of the model, NULL for Relay's text
     * (relay_load on the source): an ONNX model, whose reader only the
     * command line links (runner_verify.h). */
    const struct RunModelLoader *loader;
} RunOptions;

/* A model loaded for --verify: load returns its graph (NULL after
 * reporting through d), *owner what unload frees with it, and *noutputs
 * how many fields of the graph's output tuple are the model's outputs
 * (the rest are values kept alive: note [kept values] in
 * src/onnx/onnx_graph.h), 0 when the whole output is. */
typedef struct RunModelLoader {
    graft_graph *(*load)(void *ctx, void **owner, int *noutputs, graft_diag *d);
    void (*unload)(void *owner);
    void *ctx;
} RunModelLoader;

/* The options block of both commands' --help, and of the explain
 * options. */
extern const char runner_options_help[];
extern const char runner_explain_help[];

/* argv[*i] when it is an explain option (--at, --rule, --near,
 * --check-all), as runner_parse_option. */
int runner_parse_explain_option(const char *prog, int argc, char **argv, int *i,
                                RunOptions *o);
/* Whether o asks for an explanation. */
bool runner_explaining(const RunOptions *o);
/* The options that make no sense together or alone (--rewritten without
 * --at or --rule, --near with --at, --dim without --verify): a usage
 * error's status, or -1.  PROG prefixes the message. */
int runner_check_options(const char *prog, const RunOptions *o);
/* Explains on standard output as o asks (graft explain): returns the exit
 * status; errors (no such node or rule) go through d.  model is the
 * model's text, for notes that quote it. */
int runner_explain(const graft_rule_set *rs, graft_graph *g, const Source *model,
                   const RunOptions *o, graft_diag *d);

struct OnnxModel; /* src/onnx/onnx_graph.h */

/* What an explanation asks: graft explain's (runner_explain) or the
 * API's (graft_rules_explain, src/api/api_explain.c), whose steps over
 * the main graph and an ONNX model's subgraphs are one,
 * runner_explain_graphs. */
typedef struct ExplainAsk {
    const graft_limits *limits;
    const Source *model; /* the model's text, for notes that quote it; or NULL */
    FILE *out;
    const char *at;      /* the node asked about (--at), or NULL */
    uint32_t only;       /* the rule asked about (--rule), or UINT32_MAX: every rule */
    unsigned near;       /* near misses listed a rule */
    bool check_all;      /* --check-all, counted into the count given */
    bool untimed;        /* (the API's engines read no clock) */
} ExplainAsk;

/* The index of rs's rule named name (--rule), or UINT32_MAX: none. */
uint32_t runner_find_rule(const graft_rule_set *rs, const char *name);

/* ask's explanation of g and, in onnx (NULL: none), of its subgraphs
 * (note [subgraph walk] in subgraph_walk.h): for a node, g first and the
 * subgraphs only when g has no such node (a subgraph's node names hold a
 * '/'); else the subgraphs' lists, then g's, each said to be of which
 * graph when onnx has subgraphs.  *found: whether ask->at's node was;
 * count: --check-all's, over every graph.  False after reporting a
 * subgraph's fault through d. */
bool runner_explain_graphs(const graft_rule_set *rs, graft_graph *g, struct OnnxModel *onnx,
                           const ExplainAsk *ask, bool *found, CheckAllCount *count,
                           graft_diag *d);

/* argv[*i] when it is a run option (-o, --stats[=counts], --trace,
 * --max-rewrites N, --limit SPEC): takes it into o (moving *i past its
 * value) and returns -1, or a usage error's status (options.h);
 * OPTION_NOT_MINE for any other argument.  PROG prefixes messages. */
int runner_parse_option(const char *prog, int argc, char **argv, int *i, RunOptions *o);

/* Rewrites g with rs to a fixpoint, partitions it and writes it to o->out
 * (atomically); statistics go to standard error when asked, and the trace
 * too.  False after reporting through d. */
bool runner_run(const graft_rule_set *rs, graft_graph *g, const RunOptions *o, graft_diag *d);
/* The ONNX model o writes (o->write is onnx_file_write), whose subgraphs
 * the steps look inside, or NULL. */
struct OnnxModel *runner_onnx_model(const RunOptions *o);

#endif
