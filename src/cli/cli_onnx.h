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
/* Where graft run writes an ONNX model: binary to a file named *.onnx,
 * else (standard output among them) in ONNX's text syntax. */
typedef struct CliOnnxOut {
    OnnxModel *model;
    bool text;
} CliOnnxOut;
/* RunOptions.write for an ONNX model: ctx is a CliOnnxOut. */
bool cli_onnx_write(void *ctx, const graft_graph *g, FILE *out, graft_diag *d);

#endif
