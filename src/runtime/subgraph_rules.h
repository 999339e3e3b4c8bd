/* subgraph_rules.h - a rule set applied inside an ONNX model's subgraphs
 * (If's branches, Loop's and Scan's bodies), nested ones too.
 *
 * note [rules in subgraphs]: graft run rewrites each subgraph as a graph
 * of its own, before the main graph: its encoding is made a model whose
 * inputs are the subgraph's, then the outer values it reads (note
 * [control bodies] in src/onnx/onnx_control.h), which are its parameters
 * to the rules (a rule sees no initializer of an outer graph as a
 * constant there); its own subgraphs are rewritten first, then the rules
 * run on it (rewrites only: a partition applies to the main graph), and
 * a subgraph that changed is written back (note [onnx export] in
 * src/onnx/onnx_export.c), those inputs taken off again, into the
 * attribute of the NodeProto that holds it, which the model's export
 * then writes as it is.  A subgraph nothing changed is left as it was,
 * so a model the rules do not touch inside comes back byte for byte.
 * The names the export makes for what a rewrite made there
 * ("graft_Relu_0") are unique in that subgraph only; each becomes
 * "GRAPH/NAME" (GRAPH the subgraph's name), with "_2", "_3", ... added
 * until no graph of the model has it, so that no two subgraphs, and no
 * subgraph and the graph around it, make one name (ONNX forbids a
 * subgraph to repeat a name of the graphs around it; the main graph's
 * own fresh names, "graft_<Op>_<k>", never hold a '/').  Rewrites inside
 * subgraphs are traced (--trace), their nodes named as note [subgraph
 * node names] in node_label.h says, and counted in --stats, whose table
 * adds them up with the main graph's and says how many were inside.
 */
#ifndef GRAFT_SUBGRAPH_RULES_H
#define GRAFT_SUBGRAPH_RULES_H

#include <stdbool.h>

#include "engine.h"
#include "onnx_graph.h"

/* Applies rs to every subgraph of m (note [rules in subgraphs]), with
 * the engine options opts, adding what the rules did to stats (may be
 * NULL: stats_add); false after reporting through d (a rewrite limit
 * reached, a subgraph that cannot be written). */
bool subgraph_rules_run(const graft_rule_set *rs, OnnxModel *m, const EngineOptions *opts,
                        Stats *stats, graft_diag *d);

#endif
