/* onnx_infer.h - ONNX's type relations: each op call's output types from
 * its inputs' types and its attributes, as ONNX's shape inference gives
 * them (the InferenceFunction of each schema in onnx/defs/<family>/defs.cc).
 *
 * note [onnx op hooks]: an ONNX op is three things found by its name:
 *   - its declaration, for rules: stdpatterns/onnx_ops.graft (inputs,
 *     attributes with kinds and defaults, the opset version, traits);
 *   - its type relation, here: an OnnxOpDef in the table of its family,
 *     onnx_infer_<family>.c (elem: element-wise and broadcasting; nn:
 *     convolutions, pools, norms, matrix products; shape: shapes, layout,
 *     constants; index: ops that cut, pick, repeat or make tensors from a
 *     shape; reduce: reductions), found by onnx_op_find;
 *   - its evaluator kernel, for graft verify: an EvalOpDef in
 *     src/runtime/eval_onnx_*.c (elem, act, shape, index, conv,
 *     nn, reduce: one table each, found by eval_op like Relay's kernels:
 *     ONNX spells its ops in CamelCase, Relay in lower case, so one table
 *     by name serves both).  A kernel's value is a tuple exactly when
 *     onnx_op_tuple says so for its node.
 * Adding an op is adding one line to each.  tests/check_onnx_ops.c checks
 * that every op the registry file declares has a relation and a kernel.
 *
 * note [absent inputs]: an optional input a node leaves out in the middle
 * of its inputs (Clip(x, "", max): ONNX's empty name) is an operand that
 * is an empty tuple, one per graph; left out at the end, it is no operand
 * at all.  The relations see NULL for it, the kernels a value of no
 * fields, and the writer an empty name again.
 *
 * A relation returns the call's type: a tensor type, or for an op
 * declared "-> tuple(...)" (note [several results] in graph.h) a tuple of
 * one tensor type per result the node has (c->noutputs); NULL when a
 * type is unknown (an input of unknown type, a shape read from a tensor
 * that is not a constant) or, after onnx_fail, contradictory.
 */
#ifndef GRAFT_ONNX_INFER_H
#define GRAFT_ONNX_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

enum { ONNX_MAX_RANK = 32 }; /* ranks beyond this are reported, not typed */

/* One call being typed. */
typedef struct OnnxInferCtx {
    graft_graph *g;              /* where types are made */
    const graft_node *call;      /* the op call */
    const char *op;              /* its op_type */
    const graft_type *const *in; /* its inputs' types; NULL for an optional
                                    input the node leaves out */
    int nin;                     /* entries in in */
    int noutputs;                /* the results the node names */
    bool tuple;                  /* its value is a tuple of them
                                    (onnx_op_tuple) */
    StrBuf *why;                 /* the contradiction, when there is one */
} OnnxInferCtx;

typedef const graft_type *(*OnnxInferFn)(OnnxInferCtx *c);

/* OnnxOpDef.outputs: one tensor, or a tuple of as many tensors as the
 * node names results (BatchNormalization, Split, If). */
enum { ONNX_ONE_OUTPUT = 1, ONNX_SEVERAL_OUTPUTS = -1 };

typedef struct OnnxOpDef {
    const char *op;     /* op_type as ONNX spells it: "Conv" */
    const char *domain; /* NULL for the default domain ("" or "ai.onnx") */
    OnnxInferFn infer;  /* the relation */
    int outputs;        /* ONNX_ONE_OUTPUT or ONNX_SEVERAL_OUTPUTS */
    int min_in;         /* inputs the relation needs typed (the schema's
                           required ones) */
} OnnxOpDef;

/* The family tables, each ended by an entry with a NULL op. */
extern const OnnxOpDef onnx_ops_elem[];
extern const OnnxOpDef onnx_ops_nn[];
extern const OnnxOpDef onnx_ops_shape[];
extern const OnnxOpDef onnx_ops_index[];
extern const OnnxOpDef onnx_ops_reduce[];

/* The op of that domain ("" and "ai.onnx" are the default one, as is
 * NULL) and op_type, or NULL. */
const OnnxOpDef *onnx_op_find(const char *domain, const char *op);
/* Whether a node of op d (NULL: unknown) with noutputs results has a
 * tuple as its value, read by element (note [several results]): an op
 * declared so, or a node naming more than one result. */
bool onnx_op_tuple(const OnnxOpDef *d, int noutputs);
/* Every op of the tables, in table order (for the tests). */
int onnx_op_count(void);
const OnnxOpDef *onnx_op_at(int i);

/* n's type (a GraphTypeFn, note [IR type relations] in graph.h): the
 * relation of its op, in the domain the graph records for it
 * (graph_node_domain). */
const graft_type *onnx_infer_node(graft_graph *g, const graft_node *n, StrBuf *why);

/* ---- what the relations share (onnx_infer.c) ---- */

/* A shape under construction. */
typedef struct OnnxShape {
    int rank;
    int64_t dims[ONNX_MAX_RANK]; /* DIM_ANY for an unknown dim */
} OnnxShape;

/* Reports a contradiction "Op: MESSAGE"; returns NULL for the caller. */
const graft_type *onnx_fail(OnnxInferCtx *c, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* Input i as a tensor type: NULL when absent (optional) or after
 * reporting one that is not a tensor. */
const graft_type *onnx_input(OnnxInferCtx *c, int i);
/* The shape of a tensor type; false after reporting a rank too large. */
bool onnx_shape(OnnxInferCtx *c, const graft_type *t, OnnxShape *s);
/* Appends a dim; false after reporting a rank too large. */
bool onnx_push(OnnxInferCtx *c, OnnxShape *s, int64_t d);
const graft_type *onnx_make(OnnxInferCtx *c, const char *dtype, const OnnxShape *s);
/* The call's result from the types of its results (c->noutputs of
 * them): types[0] itself, or when c->tuple the tuple of them all (NULL
 * when one is NULL, unknown). */
const graft_type *onnx_results(OnnxInferCtx *c, const graft_type *const *types);

/* Attributes, with the schema's default when absent. */
int64_t onnx_int(const OnnxInferCtx *c, const char *name, int64_t dflt);
double onnx_float(const OnnxInferCtx *c, const char *name, double dflt);
const char *onnx_str(const OnnxInferCtx *c, const char *name, const char *dflt);
/* An ints attribute into out (at most max): the count, -1 when absent,
 * -2 after reporting one that is not a list of ints or is too long. */
int onnx_ints(OnnxInferCtx *c, const char *name, int64_t *out, int max);
/* An axis in [-rank, rank) made non-negative; -1 after reporting. */
int onnx_axis(OnnxInferCtx *c, int64_t axis, int rank);
/* The values of input i when it is an int64 or int32 tensor constant (an
 * initializer, or a Constant node's value) of at most max elements: the
 * count, or -1 when they are not known. */
int onnx_const_ints(const OnnxInferCtx *c, int i, int64_t *out, int max);
/* The values of input i when it is a tensor constant of a numeric dtype
 * (floats of 32 or 64 bits, integers) of at most max elements: the
 * count, or -1 when they are not known. */
int onnx_const_values(const OnnxInferCtx *c, int i, double *out, int max);
/* The numpy broadcast of a and b into out; false after reporting. */
bool onnx_broadcast(OnnxInferCtx *c, const OnnxShape *a, const OnnxShape *b, OnnxShape *out);

#endif
