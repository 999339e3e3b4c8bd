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
 *
 * note [meta constants]: in Relay a tensor constant is
 * meta[relay.Constant][i], its value the i-th entry of the module's
 * #[metadata] section (note [metadata values] in eval_meta.c), which is
 * where a fold reads a leaf's elements.  A folded tensor becomes a new
 * meta[relay.Constant][k] holding its bytes, k counted on from the
 * section's entries (FoldEnv.next_meta; a value of rank 0 stays a scalar
 * constant, 3f); fold_meta_commit then writes the values that are still
 * used into the section (meta_write.c).
 */
#ifndef GRAFT_FOLD_H
#define GRAFT_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "eval.h"
#include "graph.h"
#include "util.h"

/* What a fold reads and makes besides the graph's nodes. */
typedef struct FoldEnv {
    uint64_t max_elements;   /* the limit fold-elements */
    const EvalMeta *meta;    /* Relay: the section's values, or NULL */
    int64_t *next_meta;      /* Relay: the index of the next new meta
                                constant; NULL: only scalars fold */
} FoldEnv;

/* The value of root, every operand of which down to the leaves is a
 * constant, as a new constant node of g (typed); NULL when a leaf is not
 * a constant with known elements, an op has no evaluator or refuses its
 * operands, a tensor has more than env->max_elements elements, or the
 * graph cannot hold the value as a constant (a tensor of rank > 0 in
 * Relay without env->next_meta).  why, when not NULL, gets the reason. */
graft_node *fold_expr(graft_graph *g, graft_node *root, const FoldEnv *env, StrBuf *why);

/* note [byte folds]: packing weights is most of what a fusion's folds
 * do (attention's fold(Concat(wq, wk, wv, axis=1)), ONNX Runtime's
 * MergeQkvWeights), and the evaluator would read each element into a
 * double, round it to its dtype and write it back.  fold_expr first tries
 * fold_bytes_concat, which copies the blocks of the initializers' raw
 * bytes instead.  It takes only what the evaluator would give back byte
 * for byte: an ONNX Concat of tensor constants of one dtype with known
 * elements within the limit fold-elements, no float of which is a NaN
 * (the round trip changes a NaN's payload) and no 64-bit integer past
 * 2^53; anything else, and every refusal with its reason, is left to the
 * evaluator. */
graft_node *fold_bytes_concat(graft_graph *g, const graft_node *root, const FoldEnv *env);
/* Whether a 64-bit integer's bits (two's complement when is_signed) are
 * held exactly by the evaluator's double: up to 2^53, and the ends of the
 * range, which it saturates back. */
bool fold_exact_raw_integer(uint64_t u, bool is_signed);

/* The index of the first new meta[relay.Constant] of g (the count of its
 * section's entries, 0 without a section; m is eval_meta_new of the
 * section), or -1 with *why when the section cannot take more
 * (meta_write.c). */
int64_t fold_meta_base(const graft_graph *g, const EvalMeta *m, const char **why);
/* Writes the values of g's new meta constants that the module still uses
 * into its #[metadata] section (a section made when it has none), renumbered
 * without gaps in the order they were made; the entries the section had
 * keep their indices and bytes.  A no-op on ONNX graphs. */
void fold_meta_commit(graft_graph *g);

/* A tensor constant named name holding t's elements as raw bytes in t's
 * dtype, which g owns (a folded value; graft verify's instance of a
 * constant whose elements a rule reads, value(p)[i]). */
graft_node *fold_tensor_const(graft_graph *g, const Tensor *t, const char *name);
/* A tensor constant named name of dtype (eval_dtype's name) and dims
 * holding nbytes raw bytes, which g takes (xmalloc'd). */
graft_node *fold_raw_const(graft_graph *g, const char *name, const char *dtype, int rank,
                           const int64_t *dims, unsigned char *bytes, size_t nbytes);

/* graft run --fold-constants: every live op call (and element of one)
 * whose operands are all constants and whose value has at most
 * max_elements elements is replaced by a constant where something that is
 * not folded reads it (or it is the output); one walk in topological
 * order, so a chain of any length folds.  Returns how many nodes were
 * replaced. */
uint64_t fold_constants(graft_graph *g, uint64_t max_elements);

#endif
