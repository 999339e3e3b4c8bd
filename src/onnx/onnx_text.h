/* onnx_text.h - ONNX's text syntax, read and printed (doc/onnx.md).
 *
 * note [onnx text]: the syntax of onnx.parser and onnx.printer (onnx/defs/
 * parser.cc and printer.cc of the onnx/onnx repository), which models and
 * their diffs are written in by hand:
 *
 *   <ir_version: 8, opset_import: ["" : 17]>
 *   agraph (float[N, 3] X) => (float[N] Y) {
 *     Y = Relu (X)
 *   }
 *
 * graft prints a ModelProto in it canonically (onnx_text_print.c) and
 * reads it back into a ModelProto (grammar/onnx_text_parse.y), so that a
 * model printed and read back is the model it was in everything the text
 * carries.  What it cannot carry (doc strings but the model's and a
 * function's, sparse initializers, training info, quantization
 * annotations, denotations, whether an empty domain or name was written)
 * is lost, as doc/onnx.md lists.  One extension of the syntax carries what
 * every exporter writes and onnx.printer would lose: a tensor's raw_data,
 * written "raw {1, 2}" (or raw {"HEX"} when its elements would not give
 * back its bytes), so that a model exported by torch comes back byte for
 * byte.  Another lets an op type that is no identifier (a partition's
 * call, graft.composite."graft.conv_bn") be quoted: note [quoted op types]
 * in grammar/onnx_text_parse.y.
 */
#ifndef GRAFT_ONNX_TEXT_H
#define GRAFT_ONNX_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "limit.h"
#include "onnx.pb-c.h"

/* Prints model in ONNX's text syntax to out.  False when writing failed
 * (the caller's outfile_commit reports it). */
bool onnx_text_print(const Onnx__ModelProto *model, FILE *out);

/* The model written in src in ONNX's text syntax, or NULL after reporting
 * "FILE:LINE:COL: error: ..." with the line and a caret through d, the
 * faults of note [graph check] (onnx_check.h) among them (note [text
 * positions] in onnx_text_where.h: the model keeps its places).  Brackets nest at most
 * limits' onnx-depth deep.  Free the result with onnx_model_free. */
Onnx__ModelProto *onnx_text_read(const Source *src, const graft_limits *limits,
                                 graft_diag *d);

/* Whether text starts like a model in ONNX's text syntax: '<' and a
 * model header key, or a graph's name and '('. */
bool onnx_text_looks_like(const char *text, size_t len);

#endif
