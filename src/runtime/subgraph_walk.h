/* subgraph_walk.h - every subgraph of an ONNX model (If's branches,
 * Loop's and Scan's bodies, nested ones too), each imported as a graph of
 * its own with its nodes' names, for the commands that look inside them:
 * graft run (note [rules in subgraphs] in subgraph_rules.h), match,
 * explain and viz.
 *
 * note [subgraph walk]: a subgraph is imported as graft run rewrites it:
 * its encoding made a model whose inputs are the subgraph's, then the
 * outer values it reads (note [control bodies] in
 * src/onnx/onnx_control.h), typed as the node that holds it has them.
 * The walk enters the subgraphs of the main graph's nodes in node order
 * and, in each, those of its own nodes before it leaves it, so a visitor
 * sees nested subgraphs before the graph that holds them, as graft run
 * rewrites them.  Each graph's nodes are named as note [subgraph node
 * names] in node_label.h says, its parameters that stand for outer values
 * by those values' names in the graph around it.
 */
#ifndef GRAFT_SUBGRAPH_WALK_H
#define GRAFT_SUBGRAPH_WALK_H

#include <stdbool.h>

#include "node_label.h"
#include "onnx_graph.h"
#include "ruleset.h"

/* One graph of the walk: the main graph, or a subgraph. */
typedef struct SubgraphView SubgraphView;
struct SubgraphView {
    OnnxModel *m;               /* the graph, as a model of its own */
    NodeLabels labels;          /* its nodes' names */
    const char *name;           /* the subgraph's name in labels, without
                                   the '/'; NULL for the main graph */
    const Onnx__GraphProto *gp; /* the subgraph as its node holds it; NULL
                                   for the main graph */
    const SubgraphView *outer;  /* the graph around it; NULL for the main */
    uint32_t holder;            /* the node of outer's graph that holds it */
    const char *attr;           /* its attribute there ("then_branch") */
    uint32_t serial;            /* 0 for the main graph, then 1, 2, ... in
                                   the order entered */
    uint32_t ninputs;           /* its own inputs: the first parameters */
    uint32_t nouter;            /* the outer values it reads: the
                                   parameters after them */
    graft_node **outer_nodes;   /* per outer value read: its node in
                                   outer's graph, or NULL */
};

/* What a walk calls.  enter (may be NULL) before a subgraph's subgraphs;
 * leave after them, told whether one of them changed (leave returned a
 * graph for it): a changed GraphProto to put in the holder's attribute
 * in its place (in the main model's graph's arena), or NULL.  Either
 * sets ok false to stop the walk after reporting a failure. */
typedef struct SubgraphVisitor {
    void (*enter)(void *ctx, SubgraphView *v);
    Onnx__GraphProto *(*leave)(void *ctx, SubgraphView *v, bool changed);
    void *ctx;
    bool ok;
} SubgraphVisitor;

/* Walks the subgraphs of top (note [subgraph walk]), whose file is named
 * file in labels' positions (may be NULL); rs (may be NULL) declares the
 * ops it keeps for rules.  False after reporting through d (a subgraph
 * that does not import) or when a visitor set ok false. */
bool subgraph_walk(OnnxModel *top, const graft_rule_set *rs, const char *file,
                   SubgraphVisitor *vis, graft_diag *d);

/* Whether any node of top holds a subgraph. */
bool subgraph_any(const OnnxModel *top);

#endif
