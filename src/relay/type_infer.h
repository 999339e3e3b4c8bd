/* type_infer.h - type inference: each node's type from its operands' types
 * and its attributes, following TVM v0.14's type relations.
 *
 * note [type relations]: TVM gives every op a type relation (a C++
 * function registered with add_type_rel) that computes the output type
 * from the input types and the attributes, or reports a contradiction.
 * graft has one relation per op name here, in src/relay (the types are
 * Relay's; the compiler-side registry cannot be called from relay or
 * runtime), one file per op family:
 *   type_rel_elemwise.c  unary and broadcasting binary ops
 *                        (tvm/src/relay/op/type_relations.cc)
 *   type_rel_nn.c        convolutions and pools, and the layouts they read
 *                        (tvm/src/relay/op/nn/{convolution.h,pooling.cc})
 *   type_rel_nn_misc.c   dense, matmuls, norms, pads, upsampling
 *                        (tvm/src/relay/op/nn/{nn.cc,pad.cc,upsampling.cc})
 *   type_rel_transform.c shapes: reshape, transpose, concatenate, split, ...
 *   type_rel_index.c     indexing and the rest of
 *                        tvm/src/relay/op/tensor/transform.cc
 *   type_rel_reduce.c    reductions and arg-reductions
 *                        (tvm/src/relay/op/tensor/reduce.cc)
 *   type_rel_misc.c      image, vision and qnn ops (tvm/src/relay/op/image/,
 *                        tvm/src/relay/qnn/op/)
 *   type_rel_vision.c    detection: anchors, NMS, proposals
 *                        (tvm/src/relay/op/vision/)
 *   type_rel_dyn.c       dyn.* ops, shapes computed in the graph: "?"
 *                        dims of a known rank (tvm/src/relay/op/dyn/)
 * and, not ops, constructor calls and match from the module's type
 * declarations in type_adt.c (note [ADT types] in type_adt.h).
 * The registry's ops (stdpatterns/ops.graft) and these relations are
 * checked against each other by tests/check_rules_check.c.
 *
 * Three outcomes: a type; unknown (an op without a relation, an operand of
 * unknown type, a dimension "?" where a number is needed), which leaves
 * the node's type unset as TVM's IncompleteType would stay; or a
 * contradiction (mismatched conv2d channels, shapes that do not
 * broadcast), which TVM reports as a type error and graft as
 * "file:line:col: error:" at the node.
 */
#ifndef GRAFT_TYPE_INFER_H
#define GRAFT_TYPE_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

/* n's type from its operands' current types: NULL when unknown (why left
 * empty) or contradictory (why holds the message, without "error: "). */
const graft_type *type_infer_node(graft_graph *g, const graft_node *n, StrBuf *why);

/* Relations by op name for many type_infer_cached calls on one graph
 * (what rewrites make, rule after rule): finding a relation by name is
 * most of typing a node otherwise. */
typedef struct TypeCache TypeCache;
TypeCache *type_cache_new(void);
void type_cache_free(TypeCache *tc);
/* type_infer_node with tc's relations; tc serves one graph only (it
 * keys them by g's interned op names). */
const graft_type *type_infer_cached(graft_graph *g, const graft_node *n, TypeCache *tc,
                                    StrBuf *why);

/* Gives every live node without a type its inferred type, operands
 * first.  Returns NULL, or the first node whose relation found a
 * contradiction (its message in why; earlier nodes keep their types). */
graft_node *type_infer_graph(graft_graph *g, StrBuf *why);
/* type_infer_graph for a graph as the loader builds it, the same types
 * and the same first contradiction, in id order where the graph allows
 * (note [types in id order] in type_infer.c). */
graft_node *type_infer_loaded(graft_graph *g, StrBuf *why);

/* The same for the nodes with ids from first on (what an edit made;
 * operands are made before their users, so id order is enough). */
graft_node *type_infer_new(graft_graph *g, uint32_t first, StrBuf *why);

/* Types what an edit made (ids from first on) as far as it can: a node
 * whose relation finds a contradiction stays untyped and the rest goes
 * on (the rule that built it is at fault, not the model; the runtime
 * has no source position to report). */
void type_infer_edit(graft_graph *g, uint32_t first);

/* The same for the n nodes of list, in that order (operands before
 * users): what an edit moved and re-pointed rather than made (a
 * partition's body, note [moved body] in src/runtime/partition_region.c). */
void type_infer_list(graft_graph *g, graft_node *const *list, size_t n);

/* Whether operand i of op is a tuple (concatenate's); false for a tensor
 * operand and for an op without a relation. */
bool type_relation_tuple_operand(const char *op, int i);

/* The ops that have a relation, in table order (for tests that compare
 * them with the registry). */
int type_relation_count(void);
const char *type_relation_op(int i);

/* Whether op has a type relation. */
bool type_has_relation(const char *op);

/* What op's relation gives: TYPE_OUTPUTS_TENSOR, N for a tuple of N,
 * TYPE_OUTPUTS_VARIES when attributes decide (split); the same numbers as
 * the registry's (note [output arity] in src/compiler/rules_build_items.c).
 * TYPE_OUTPUTS_TENSOR also for an op without a relation. */
enum { TYPE_OUTPUTS_TENSOR = 0, TYPE_OUTPUTS_VARIES = -1 };
int type_relation_outputs(const char *op);

#endif
