/* onnx_control.h - the subgraphs of ONNX's control flow ops (If's
 * branches, Loop's and Scan's bodies) read back out of their node's
 * attribute, for their shape inference (onnx_control_infer.c) and their
 * evaluation (src/runtime/eval_onnx_control.c).
 *
 * note [control bodies]: the import keeps a GRAPH attribute as the
 * GraphProto's protobuf encoding (note [onnx attributes] in
 * onnx_import.c), and the values the subgraph reads from the graphs
 * around it as the node's operands after its own inputs (note [outer
 * reads] in onnx_subgraph.h), in the order onnx_outer_reads finds them
 * over all the node's subgraphs.  A body is evaluated as a graph of its
 * own: its encoding is unpacked, its outer reads made graph inputs after
 * its own (untyped), and the result imported as a model is (note [onnx
 * import] in onnx_graph.h), so that its parameters are the body's inputs,
 * then the outer values it reads, each of which OnnxBody.outer_at maps to
 * the node's operand that holds it.  A body that reads no outer value and
 * one that reads several are imported alike; nested control flow inside
 * a body is a node of the body's graph, whose own subgraphs are imported
 * when that node is evaluated.
 */
#ifndef GRAFT_ONNX_CONTROL_H
#define GRAFT_ONNX_CONTROL_H

#include <stdbool.h>

#include "graph.h"
#include "onnx.pb-c.h"
#include "onnx_graph.h"
#include "onnx_infer.h"

/* The GraphProto that a GRAPH attribute holds, unpacked by protobuf-c
 * (free with onnx_body_proto_free); NULL when v is no graph or its bytes
 * do not unpack. */
Onnx__GraphProto *onnx_body_proto(const graft_attr_value *v);
void onnx_body_proto_free(Onnx__GraphProto *gp);

/* The type a body's input or output declares, as inference holds one
 * (dtype NULL and rank -1 where it declares none). */
OnnxType onnx_body_value_type(const Onnx__ValueInfoProto *vi);

/* How many of call's operands are the values its subgraphs read from
 * outside them (note [outer reads]); -1 when a GRAPH attribute does not
 * unpack. */
int onnx_call_nouter(const graft_node *call);

/* The outer names subgraph gp reads (nested subgraphs' reads too), each
 * once, in the order first read, interned in g: *names is malloc'd, the
 * result its length (onnx_outer_reads of a node holding gp alone). */
size_t onnx_graph_outer_reads(graft_graph *g, const Onnx__GraphProto *gp, const char ***names);

/* gp as a model of its own (note [control bodies]): its inputs, then the
 * outer names (nouter of them) as inputs of types[k] (untyped where types
 * or types[k] is NULL, or not a tensor type); the opset imports of top
 * (NULL: none) and one of each other domain its nodes call.  NULL after
 * reporting through d.  Free with onnx_model_free. */
Onnx__ModelProto *onnx_body_model(const Onnx__GraphProto *gp, const Onnx__ModelProto *top,
                                  const char *const *outer, const graft_type *const *types,
                                  size_t nouter, graft_diag *d);

/* A body imported as a graph of its own (note [control bodies]). */
typedef struct OnnxBody {
    OnnxModel *m;   /* its graph: parameters its inputs, then its outer reads */
    int ninputs;    /* its own inputs: the first parameters */
    int noutputs;   /* its outputs: the first fields of m's output (note [kept values]) */
    int nouter;     /* the outer values it reads: parameters ninputs on */
    int *outer_at;  /* per outer read k: its place among call's outer operands */
    int call_nouter; /* call's outer operands (onnx_call_nouter) */
} OnnxBody;

/* Imports call's subgraph attribute attr into *b; false with the reason
 * in why (no such attribute, bytes that do not unpack, an import error:
 * a type contradiction inside). */
bool onnx_body_import(const graft_node *call, const char *attr, OnnxBody *b, StrBuf *why);
void onnx_body_free(OnnxBody *b);

#endif
