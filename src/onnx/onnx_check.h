/* onnx_check.h - the graph-level checks of an ONNX model: names, order
 * and opsets, before anything reads the graph.
 *
 * note [graph check]: the decoder reads any well-formed message; a model
 * can still read a value nothing makes, make one value twice, list a node
 * before the node whose output it reads, or call an op of a domain it
 * imports no opset of.  ONNX requires graphs in topological order, and
 * graft refuses one that is not (rather than sorting it: a model graft
 * leaves untouched is written back as it came, note [onnx bytes]).  Each
 * fault is an error naming the node (its name, or the value it makes
 * when it has none) and the graph:
 *
 *   model.onnx: error: node 'relu' (Relu) of graph 'g' reads 'c' before
 *   node 'conv' (Conv) makes it; ONNX lists nodes in topological order
 *
 * (one line).  A model read from text has it at the place it is about,
 * with the line and a caret (note [text positions] in onnx_text_where.h).
 *
 * Subgraphs (If's branches, Loop's and Scan's bodies) are checked the
 * same way, seeing the names of the graphs around them; the nodes of
 * model-local functions are checked for their opsets only.  A binary
 * model loaded to be worked on is checked as it is imported, with the
 * same messages (note [check in the import] in onnx_import.c).
 */
#ifndef GRAFT_ONNX_CHECK_H
#define GRAFT_ONNX_CHECK_H

#include <stdbool.h>

#include "diag.h"
#include "onnx.pb-c.h"

/* Checks model, named name in messages; false after reporting every
 * fault found (up to the error limit). */
bool onnx_model_check(const Onnx__ModelProto *model, const char *name, graft_diag *d);

#endif
