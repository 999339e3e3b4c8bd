/* graft_api_onnx.h - ONNX models through graft.h and graft_api.h
 * (graft_api_onnx.c): loaded from a file's or a buffer's bytes or text,
 * and written back in the form they came in. */
#ifndef GRAFT_GRAFT_API_ONNX_H
#define GRAFT_GRAFT_API_ONNX_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "engine.h"
#include "graph.h"
#include "graft_rules.h"
#include "limit.h"

/* The ONNX model in src, protobuf bytes or (text) ONNX's text syntax, as
 * a graph (note [onnx import] in src/onnx/onnx_graph.h) whose host
 * (graph_host) keeps the model; NULL after reporting through d ("NAME:
 * error: byte N: ..." for bad bytes, FILE:LINE:COL for bad text).  src
 * stays the caller's.  Free with api_onnx_free. */
graft_graph *api_onnx_load(const Source *src, bool text, const graft_limits *lim,
                           graft_diag *d);
/* Whether g is the graph of a model api_onnx_load made. */
bool api_onnx_is(const graft_graph *g);
/* Tells g's model the ops rs declares, so that a node a rewrite makes is
 * written in its op's domain (onnx_file_keep_decls). */
void api_onnx_keep_decls(graft_graph *g, const graft_rule_set *rs);
/* Rewrites g's subgraphs (If's branches, Loop's and Scan's bodies) with
 * rs, as graft run does before the main graph (note [rules in subgraphs]
 * in subgraph_rules.h); false after reporting through d. */
bool api_onnx_rewrite_subgraphs(graft_graph *g, const graft_rule_set *rs,
                                const EngineOptions *opts, graft_diag *d);
/* The model g's host keeps (g a graph of api_onnx_load), for the walks
 * of its subgraphs (subgraph_walk.h) that the API's match and explain
 * make. */
struct OnnxModel *api_onnx_model(const graft_graph *g);
/* Whether it came as text. */
bool api_onnx_text(const graft_graph *g);
/* Frees the model and g with it. */
void api_onnx_free(graft_graph *g);
/* The model as g now has it (note [onnx export] in
 * src/onnx/onnx_export.c), in ONNX's text syntax (with a NUL after it)
 * or as protobuf bytes, *len bytes, malloc'd; NULL after reporting
 * through d. */
char *api_onnx_string(const graft_graph *g, bool text, size_t *len, graft_diag *d);

#endif
