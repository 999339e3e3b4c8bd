/* cli_onnx.h - ONNX models on the command line (cli_onnx.c). */
#ifndef GRAFT_CLI_ONNX_H
#define GRAFT_CLI_ONNX_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "limit.h"
#include "onnx_graph.h"
#include "rulefile.h"

/* The ONNX model at path as a graph, checked against rf's registry (note
 * [onnx models checked] in cli_onnx.c; rf NULL: not checked); NULL after
 * reporting through d, also when rf's rules are for Relay. */
OnnxModel *cli_onnx_load(const char *path, const graft_limits *limits, const RuleFile *rf,
                         bool allow_unknown_ops, graft_diag *d);
/* RunOptions.write for an ONNX model: ctx is its OnnxModel. */
bool cli_onnx_write(void *ctx, const graft_graph *g, FILE *out, graft_diag *d);
/* Whether out names a file graft writes an ONNX model to (*.onnx). */
bool cli_onnx_output_ok(const char *out);

#endif
