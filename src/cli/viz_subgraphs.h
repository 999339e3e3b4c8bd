/* viz_subgraphs.h - an ONNX model's subgraphs drawn as clusters (graft
 * viz on a model with If, Loop or Scan). */
#ifndef GRAFT_VIZ_SUBGRAPHS_H
#define GRAFT_VIZ_SUBGRAPHS_H

#include <stdbool.h>

#include "onnx_graph.h"
#include "viz_rules.h"

/* Every subgraph of m as a cluster (graph_dot.h's viz_write_subgraph),
 * nested ones inside the clusters of the subgraphs that hold them, with
 * the matches of rs (NULL: none) highlighted and numbered into vm as
 * graft match lists them (note [subgraph walk] in
 * src/runtime/subgraph_walk.h): the text for viz_write_with, malloc'd,
 * or NULL after reporting through d. */
char *viz_subgraphs(OnnxModel *m, const graft_rule_set *rs, const graft_limits *limits,
                    VizMatches *vm, graft_diag *d);

#endif
