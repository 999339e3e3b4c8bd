/* fold.h - constant folding: what a node computes from constants alone,
 * computed now by the reference evaluator and put in the graph as a new
 * constant.
 *
 * note [constant folding]: two users.  A rule's action may wrap a
 * sub-expression in fold(...) (graft-rules(5), "Constants computed by
 * actions"): its leaves are the pattern's constants (initializers,
 * tensor constants with their elements), bound attribute values and
 * literals, and the rewrite puts in its place one constant holding its
 * value, as ONNX Runtime's ConvBNFusion computes new weights instead of
 * leaving arithmetic in the model.  And graft run --fold-constants
 * replaces every node whose operands are all constants by its value, as
 * onnx-simplifier and TVM's FoldConstant do.  Both evaluate in the
 * dtype's arithmetic (EVAL_DTYPE: a float32 op rounds to float32, as ONNX
 * Runtime computes), and both stop at a tensor larger than the limit
 * fold-elements: a folded weight is stored in the model, so the bound is
 * one of size, not of time.
 *
 * A folded value becomes a tensor constant whose raw bytes are the
 * elements in its dtype, little-endian (ONNX's raw_data layout), named
 * "folded_<Op>" after the op that made it; the ONNX writer gives it a
 * fresh initializer name (note [onnx export] in src/onnx/onnx_export.c).
 * Relay's printer writes a tensor constant as meta[relay.Constant][i] and
 * has no way to add values to a model's #[metadata] section, so on a
 * Relay graph only values of rank 0 fold (into scalar constants, 3f);
 * fold(...) in an action on a Relay graph builds its expression unfolded.
 */
#ifndef GRAFT_FOLD_H
#define GRAFT_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "eval.h"
#include "graph.h"
#include "util.h"

/* The value of root, every operand of which down to the leaves is a
 * constant, as a new constant node of g (typed); NULL when a leaf is not
 * a constant with known elements, an op has no evaluator or refuses its
 * operands, a tensor has more than max_elements elements, or the graph
 * cannot hold the value as a constant (a tensor of rank > 0 in Relay).
 * why, when not NULL, gets the reason. */
graft_node *fold_expr(graft_graph *g, graft_node *root, uint64_t max_elements, StrBuf *why);

/* A tensor constant named name holding t's elements as raw bytes in t's
 * dtype, which g owns (a folded value; graft verify's instance of a
 * constant whose elements a rule reads, value(p)[i]). */
graft_node *fold_tensor_const(graft_graph *g, const Tensor *t, const char *name);

/* graft run --fold-constants: every live op call (and element of one)
 * whose operands are all constants and whose value has at most
 * max_elements elements is replaced by a constant where something that is
 * not folded reads it (or it is the output); one walk in topological
 * order, so a chain of any length folds.  Returns how many nodes were
 * replaced. */
uint64_t fold_constants(graft_graph *g, uint64_t max_elements);

#endif
