/* node_label.h - one way to name a model node, everywhere.
 *
 * note [node names]: graft match, graft explain, --trace, --stats and
 * diagnostics name a node as graft fmt prints the model: %N for a temp
 * (TVM's numbering, relay_temp_numbers), %name for a variable, a
 * constant by its text, <output> for @main's result when it is printed
 * inline, and #ID for a node printed inline elsewhere (a function's
 * result) or built by a rewrite; with its model file position when it
 * has one: "%7 (model.relay:14:8)".  The same names are accepted back by
 * graft explain --at, also as "@main:%7", as is a position
 * "model.relay:42", ":42" or ":42:7".  A node of an ONNX model is named by
 * its NodeProto's name, or the name of the value it makes when it has
 * none ("/features/features.0/Conv", "y"); variables and initializers by
 * their names ("%input", the constant's name).
 */
#ifndef GRAFT_NODE_LABEL_H
#define GRAFT_NODE_LABEL_H

#include <stdint.h>

#include "graph.h"
#include "util.h"

typedef struct NodeLabels {
    const graft_graph *g;   /* the graph named, borrowed */
    const char *file; /* the model file's name, for positions, or NULL */
    uint32_t *temps;  /* per node id: printed temp number, or UINT32_MAX */
    uint32_t ntemps;  /* entries in temps */
    const graft_node *output; /* @main's result then, named <output> */
} NodeLabels;

/* Names g's nodes as printed now; renew after rewriting. */
void node_labels_init(NodeLabels *nl, const graft_graph *g, const char *file);
void node_labels_free(NodeLabels *nl);

/* Appends the name of n: "%7", "%x", "1f", "<output>", "#12". */
void node_label(const NodeLabels *nl, const graft_node *n, StrBuf *out);
/* The name with the position, "%7 (model.relay:14:8)", when n has one. */
void node_label_at(const NodeLabels *nl, const graft_node *n, StrBuf *out);
/* What n is, for explanations: "a call of reshape", "a constant",
 * "a variable", "a tuple", "element 0 of a tuple", "a function", "a call
 * of a function". */
void node_describe(const graft_node *n, StrBuf *out);
/* A node's kind as graft match lists a binding: its op for an op call,
 * else "call", "tuple", "getitem", "fn", "var", "const" or "value". */
const char *node_kind_name(const graft_node *n);

/* The node named by text (a name as node_label writes it, or a position
 * "FILE:LINE[:COL]" or ":LINE[:COL]": the first live node written on
 * that line, at or after that column); NULL when none. */
graft_node *node_labels_find(const NodeLabels *nl, const char *text);

#endif
