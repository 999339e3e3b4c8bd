/* cli_load.h - what graft run and graft match share: loading rule
 * files into a lowered rule set and a model into a graph, and splitting
 * their command lines (RULES... MODEL). */
#ifndef GRAFT_CLI_LOAD_H
#define GRAFT_CLI_LOAD_H

#include <stdbool.h>

#include "diag.h"
#include "graph.h"
#include "limit.h"
#include "lower.h"
#include "onnx_graph.h"
#include "rulefile.h"

/* A loaded rule set and model; free with cli_load_free. */
typedef struct Loaded {
    Lowered *rules;  /* the lowered rules */
    Source *src;     /* the model's text (for an ONNX model: its name only) */
    graft_graph *g;        /* the model */
    OnnxModel *onnx; /* an ONNX model (whose graph g is), else NULL */
} Loaded;

/* Loads paths[0..n-2] as rules and paths[n-1] as the model within limits
 * (NULL: limit_defaults), the model checked against the rules' registry
 * (cli_load_model); false after reporting through d (whatever was loaded
 * is freed). */
bool cli_load(const char *const *paths, int n, const graft_limits *limits,
              bool allow_unknown_ops, Loaded *out, graft_diag *d);
/* The model in src, loaded and checked against rf's registry (NULL: the
 * builtin ops) as note [models checked like rules] says; NULL after
 * reporting through d. */
graft_graph *cli_load_model(const Source *src, const graft_limits *limits, const RuleFile *rf,
                            bool allow_unknown_ops, graft_diag *d);
void cli_load_free(Loaded *l);

#endif
