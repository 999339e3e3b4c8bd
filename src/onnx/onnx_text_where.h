/* onnx_text_where.h - where the nodes of a model read from ONNX's text
 * syntax were written, and errors about them at that place.
 *
 * note [text positions]: a model read from text (note [onnx text] in
 * onnx_text.h) keeps, beside it as its other side data (onnx_model.c's
 * ModelHeader), a copy of its text and where each node's op, each of its
 * inputs, and each graph output were written, so that an
 * error found after parsing (the graph check, note [graph check] in
 * onnx_check.h; the unknown ops, note [onnx models checked] in
 * onnx_file.c; a type inference's contradiction at import; a rewrite the
 * export refuses at a node of the model, export_renamed_subgraphs in
 * onnx_export_node.c) points at its line, with the line and a caret, as
 * the parser's own errors do:
 *
 *   m.onnxtxt:3:12: error: the Relu node making 'T' of graph 'g' reads
 *   'Z', which no graph input, initializer or node makes
 *       3 |   T = Relu(Z)
 *         |            ^
 *
 * An error about a name a node reads points at that name (a node reads
 * several: the caret says which); one about the node as a whole (its
 * domain, its op unknown, its types) at its op, DOMAIN.OP, which says
 * what the node is; one about a graph output at its name in the graph's
 * signature.  No error is about a name a node makes: a value made twice
 * never reaches the graph check from text, the reader reports it first,
 * at both names (graph_defs_ok in onnx_text_build.c).  Places are keyed
 * by the decoded model's addresses, which the decoder gives each message
 * and array its own of (it shares TypeProtos only, note [shared value
 * types] in onnx_decode_fast.h): a node's by its NodeProto, a read name's
 * by its slot in the node's input array, a graph output's by its
 * ValueInfoProto.
 * A binary model has none of this (no position to give but a byte
 * offset, which its messages name where they have one) and pays nothing
 * for it: its errors take one test of a NULL pointer.
 */
#ifndef GRAFT_ONNX_TEXT_WHERE_H
#define GRAFT_ONNX_TEXT_WHERE_H

#include "diag.h"
#include "onnx.pb-c.h"

typedef struct OnnxTextWhere OnnxTextWhere;

void onnx_text_where_free(OnnxTextWhere *where);

/* The places of gp, a graph that model holds (a subgraph of one of its
 * nodes), for the model of gp alone that onnx_body_model makes, to be
 * given it with onnx_model_set_text_where (note [subgraph positions] in
 * onnx_text_where.c); it borrows model's text, so free it first.  NULL
 * when model has no places (a binary model) or does not hold gp. */
OnnxTextWhere *onnx_text_where_of_subgraph(const Onnx__ModelProto *model,
                                           const Onnx__GraphProto *gp);

/* Reports "FILE:LINE:COL: error: MESSAGE" with the line and a caret, at
 * where key (a NodeProto, the address of one of its input slots, a graph
 * output's ValueInfoProto) was written in model's text; or, for a
 * binary model or a key with no place, "FILE: error: MESSAGE" (file the
 * model's name; key may be NULL). */
void onnx_error_at(graft_diag *d, const Onnx__ModelProto *model, const char *file,
                   const void *key, const char *fmt, ...) GRAFT_PRINTF(5, 6);

#endif
