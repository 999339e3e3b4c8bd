/* onnx_subgraph.h - the names a node's subgraphs read from the graphs
 * around them, and the subgraphs copied with those reads renamed.
 *
 * note [outer reads]: an If's branches and a Loop's or Scan's body read
 * values of the graphs around them by name alone (ONNX's IR: "a node
 * output name MUST be distinct from the names from the outer scopes that
 * are visible in the nested subgraph").  Nothing in the NodeProto's inputs
 * says so, but the value is read all the same: ONNX Runtime makes these
 * the node's implicit inputs (onnxruntime/core/graph/graph.cc,
 * Node::ImplicitInputDefs), so that no transformer removes or replaces
 * their producer behind the subgraph's back.  graft does the same: the
 * import gives the node these values as operands after its own inputs
 * (note [onnx import] in onnx_graph.h), so that the producer has a user
 * and a rewrite that replaces the value replaces it there too; the export
 * writes the node's own inputs only and, when such an operand is now
 * written under another name (Identity(x) => x replaced y by x), the
 * subgraphs with their reads of the old name made reads of the new one
 * (onnx_export_node.c).  A name a subgraph defines itself is never an
 * outer read, nor renamed, even where it repeats an outer name; and when
 * the new name is one a subgraph that reads the value defines itself
 * (ONNX's checker refuses such a subgraph, graft's graph check does not),
 * the read cannot be renamed, and the model is not written: an error
 * names the node and the name
 * (tests/onnx/subgraph/shadowed.golden).
 */
#ifndef GRAFT_ONNX_SUBGRAPH_H
#define GRAFT_ONNX_SUBGRAPH_H

#include <stddef.h>

#include "graph.h"
#include "onnx.pb-c.h"

/* The names of values of the graphs around np that np's subgraphs
 * (nested ones too) read, each once, in the order first read, interned
 * in g: *names is malloc'd (NULL when there are none), the result its
 * length. */
size_t onnx_outer_reads(graft_graph *g, const Onnx__NodeProto *np, const char ***names);

/* np's attributes (np->n_attribute of them) with every read of an outer
 * name that renames maps (an interned name of g -> the name to read
 * instead) renamed in its subgraphs; what differs from np's is copied
 * into g's arena, the rest shared.  NULL, captured the old name and the
 * new, when a subgraph that reads a renamed value makes a value of the
 * new name itself, which the read would take instead. */
Onnx__AttributeProto **onnx_rename_outer_reads(graft_graph *g, const Onnx__NodeProto *np,
                                               const KeyMap *renames, const char *captured[2]);

#endif
