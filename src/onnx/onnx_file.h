/* onnx_file.h - an ONNX model file as every command reads and writes it:
 * in either format (binary .onnx or ONNX's text syntax), imported as a
 * graph and checked against a rule set's ops (note [onnx models checked]
 * in onnx_file.c), written back in the format the output's name asks
 * for.  graft run, match, explain, viz and fmt and the rewriters graft
 * compile --exe builds all go through it, so they read a model alike and
 * report a bad one with the same messages. */
#ifndef GRAFT_ONNX_FILE_H
#define GRAFT_ONNX_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "graft_rules.h"
#include "limit.h"
#include "onnx_graph.h"
#include "onnx_model.h"

/* Whether out names a .onnx file, which gets the binary format; any other
 * output (standard output among them) gets ONNX's text syntax. */
bool onnx_file_binary_output(const char *out);

/* The ONNX model at path, binary or text as input_onnx_is_text says
 * (input_kind.h), or NULL after reporting through d; a file in the other
 * format, or a Relay model or rule file, is named for what it is.  Free
 * it with onnx_model_free. */
Onnx__ModelProto *onnx_file_read(const char *path, const graft_limits *limits, graft_diag *d);

/* The same, a binary model read lean (note [lean read] in onnx_lean.h):
 * only to be written back with onnx_model_write_from. */
Onnx__ModelProto *onnx_file_read_lean(const char *path, const graft_limits *limits,
                                      graft_diag *d);

/* The ONNX model at path as a graph, its nodes checked against the ops of
 * rs (note [onnx models checked]; rs NULL: not checked); NULL after
 * reporting through d, also when rs holds rules for Relay. */
OnnxModel *onnx_file_load(const char *path, const graft_limits *limits,
                          const graft_rule_set *rs, bool allow_unknown_ops, graft_diag *d);

/* Gives m the domain and version of every ONNX op rs declares, for the
 * nodes a rewrite makes (note [made ops' opsets] in onnx_export_opset.c);
 * onnx_file_load does it for the rules it is given. */
void onnx_file_keep_decls(OnnxModel *m, const graft_rule_set *rs);

/* Where a command writes an ONNX model: binary to a file named *.onnx,
 * else (standard output among them) in ONNX's text syntax. */
typedef struct OnnxOut {
    OnnxModel *model;
    bool text;
} OnnxOut;
/* RunOptions.write (runner.h) for an ONNX model: ctx is an OnnxOut. */
bool onnx_file_write(void *ctx, const graft_graph *g, FILE *out, graft_diag *d);

#endif
