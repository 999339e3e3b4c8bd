/* graph_dot.h - a graph drawn as Graphviz dot text.
 *
 * Data flows top to bottom: variables are ellipses, constants plain
 * text, op calls labelled boxes ("%3 = nn.conv2d" plus the result type),
 * tuples and element accesses small boxes, and each local function a
 * cluster holding its body, with a dashed edge to its calls.  Nodes
 * appear in data-flow (topological) order, so the output is
 * deterministic.  Callers that matched rules pass highlights (graft viz
 * MODEL RULES... does, through viz_rules.h): each names a set of node ids
 * and a label ("bn #2"); highlighted nodes are filled and carry the
 * labels of every match they are in.
 */
#ifndef GRAFT_GRAPH_DOT_H
#define GRAFT_GRAPH_DOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "graph.h"

typedef struct VizSubgraph VizSubgraph;

typedef struct VizHighlight {
    const uint32_t *nodes; /* node ids in the match */
    size_t nnodes;         /* entries in nodes */
    const char *label;     /* shown on each of them, e.g. "bn #2" */
    const char *color;     /* fill colour ("#b7e4a0"), or NULL for the
                              default; a node's first highlight sets it */
} VizHighlight;

/* Writes g as a dot digraph; highlights may be NULL when n is 0. */
void viz_write(const graft_graph *g, const VizHighlight *highlights, size_t n, FILE *out);
/* The same, drawing only the nodes whose keep[id] is set (keep NULL: all)
 * and the edges between them (graft viz --at NODE --radius K); with model
 * (the model file's name, or NULL) each label shows its node's position
 * in it, "model.relay:5:8" (note [node names] in node_label.h). */
void viz_write_some(const graft_graph *g, const VizHighlight *highlights, size_t n,
                    const uint8_t *keep, const char *model, FILE *out);

/* The same, with clusters (NULL: none), the text viz_write_subgraph
 * wrote for the graph's subgraphs, before the closing brace. */
void viz_write_with(const graft_graph *g, const VizHighlight *highlights, size_t n,
                    const uint8_t *keep, const char *model, const char *clusters, FILE *out);

/* An ONNX subgraph as a cluster of the drawing of the graph around it:
 * its nodes' ids are prefix and the id ("s2_7"), the parameters that
 * stand for outer values are not drawn but their edges come from those
 * values' nodes, and a dashed edge labelled attr goes from its result to
 * the node that holds it (graft viz on a model with control flow). */
struct VizSubgraph {
    const char *prefix; /* its nodes' dot ids: prefix, then the id */
    const char *label;  /* the cluster's label */
    char **outer;       /* per node id below nouter: the dot id of the
                           outer node a parameter stands for, or NULL */
    uint32_t nouter;    /* entries in outer */
    const char *holder; /* the dot id of the node that holds it */
    const char *attr;   /* the attribute that holds it ("then_branch") */
    const struct NodeLabels *names; /* its nodes' names (node_label.h) */
};

/* Writes g, a subgraph, as sub says, with inner (NULL: none), the
 * clusters of its own subgraphs, inside. */
void viz_write_subgraph(const graft_graph *g, const VizHighlight *highlights, size_t n,
                        const VizSubgraph *sub, const char *inner, FILE *out);

/* Runs Graphviz's dot (or $GRAFT_DOT) on dot_text with -Tformat ("svg",
 * "png", "pdf"), writing the result to out's file descriptor.  Returns
 * false after printing "graft viz: ..." to stderr when dot is not
 * installed or fails. */
bool viz_render(const char *dot_text, size_t len, const char *format, FILE *out);

#endif
