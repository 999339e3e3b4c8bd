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
 *
 * note [subgraph node names]: a node inside an ONNX subgraph (an If's
 * branch, a Loop's or Scan's body, nested ones too) is named
 * "GRAPH/NAME": GRAPH the subgraph's name, NAME as above ("then_body/a",
 * "body/%i"), the form graft run gives what a rewrite makes there (note
 * [rules in subgraphs] in subgraph_rules.h).  GRAPH is the name of the
 * innermost subgraph, or "subgraph" when it has none; a name that an
 * earlier subgraph of the model (outer ones first, then in node order)
 * already has, or that another graph of the model has, gets "_2", "_3",
 * ... added, so every subgraph's GRAPH differs.  A value a subgraph reads
 * from a graph around it is named as in that graph ("%x", "m").  graft
 * explain --at takes these names back (the main graph's nodes first).
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
    const char *prefix; /* "GRAPH/" before the names of an ONNX subgraph's
                           own nodes (note [subgraph node names]), or NULL */
    char **given;     /* per node id below ngiven: a name given (an outer
                         value a subgraph reads), owned, or NULL */
    uint32_t ngiven;  /* entries in given */
} NodeLabels;

/* Names g's nodes as printed now; renew after rewriting. */
void node_labels_init(NodeLabels *nl, const graft_graph *g, const char *file);
void node_labels_free(NodeLabels *nl);
/* Names the nodes as those of an ONNX subgraph: prefix (copied) before
 * each name (note [subgraph node names]). */
void node_labels_scope(NodeLabels *nl, const char *prefix);
/* Names n label (copied) instead, and node_labels_find does not find it:
 * a parameter that stands for a value of a graph around it. */
void node_labels_give(NodeLabels *nl, const graft_node *n, const char *label);

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
