/* eval.h - a reference evaluator: what a graph computes, on small tensors.
 *
 * note [reference evaluator]: graft verify (does a rule keep meaning?) and
 * graft run --verify (does a rewritten model compute what the original
 * did?) need to run graphs.  This evaluator is plain rather than fast:
 * every tensor holds doubles, whatever its dtype, and every op is a few
 * loops written from the op's definition in TVM.  Two modes:
 *  - EVAL_FLOAT64: every op computes in float64 (cast to an integer dtype
 *    still truncates: that is its meaning, not rounding);
 *  - EVAL_DTYPE: each op's result is rounded to its dtype (float32 by a
 *    round trip through float, float16 and bfloat16 by rounding the
 *    mantissa to nearest even, integers by truncation and wrapping), so
 *    the evaluator sees the rounding a real float32 model sees.
 * Each op checks the shapes it is given and refuses bad ones with a
 * reason; an op without an evaluator is named (EVAL_NO_OP), never guessed.
 * Shapes come out of evaluation, so no type inference is needed.
 */
#ifndef GRAFT_EVAL_H
#define GRAFT_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

enum { EVAL_MAX_RANK = 8 };

/* A dense tensor, row-major.  dtype is a static string ("float32"). */
typedef struct Tensor {
    const char *dtype;             /* eval_dtype: one of the known dtypes */
    int rank;                      /* number of dims, 0 for a scalar */
    int64_t dims[EVAL_MAX_RANK];   /* the shape */
    size_t size;                   /* product of dims */
    double *data;                  /* size values, owned (xmalloc) */
} Tensor;

/* A node's value: a tensor, or a tuple of values (nn.batch_norm, split). */
typedef struct Value {
    int nfields;           /* -1 for a tensor, else the tuple's fields */
    Tensor t;              /* nfields == -1 */
    struct Value *fields;  /* nfields >= 0: owned array */
} Value;

/* Whether every element of v (of each field, for a tuple) is finite. */
bool eval_value_finite(const Value *v);

typedef enum EvalMode { EVAL_FLOAT64, EVAL_DTYPE } EvalMode;

typedef enum EvalStatus {
    EVAL_OK,
    EVAL_NO_OP,      /* an op (or node kind) without an evaluator */
    EVAL_BAD_INPUT,  /* an op refused its operands' shapes or attributes */
    EVAL_TOO_LARGE,  /* a tensor past the element limit */
} EvalStatus;

/* Why evaluation stopped: the node and a message ("nn.conv2d: weight has
 * 2 dims, wants 4"). */
typedef struct EvalError {
    EvalStatus status;
    const graft_node *node;  /* the node being evaluated, or NULL */
    StrBuf msg;        /* free with strbuf_free */
} EvalError;

/* Values for @main's parameters and for non-scalar constants
 * (meta[relay.Constant][i]), which carry no values in the graph. */
typedef struct EvalInputs {
    const Tensor *params;   /* one per graph_param, in order */
    int nparams;
    /* A constant's value, or NULL when unknown (then: EVAL_NO_OP). */
    const Tensor *(*constant)(void *ctx, const graft_node *n);
    void *ctx;
    /* Optional (graft run --verify, verify_model.c): called for each op
     * call n before it is evaluated (out NULL) and after (out its value,
     * rounded), vals holding the values so far by node id.  True when it
     * changed params[] for the parameters n reads: they are read again
     * and, after, n is evaluated again (once). */
    bool (*prepare)(void *ctx, const graft_node *n, const Value *vals, const Value *out);
} EvalInputs;

typedef struct EvalOptions {
    EvalMode mode;          /* float64 or the dtype's rounding */
    uint64_t max_elements;  /* bound on one tensor's elements; 0: none */
} EvalOptions;

/* ---- tensors (eval_tensor.c) ---- */

/* The interned-static name of a dtype graft knows ("float32", "int64",
 * "bool", ...), or NULL. */
const char *eval_dtype(const char *name);
/* x rounded to dtype as a value of that dtype holds it. */
double eval_round(double x, const char *dtype);
/* The n values at data rounded so (the dtype looked up once). */
void eval_round_array(double *data, size_t n, const char *dtype);
/* Whether dtype is a floating-point type. */
bool eval_is_float(const char *dtype);
/* Machine epsilon of a float dtype (2^-23 for float32); 0 for integers. */
double eval_dtype_eps(const char *dtype);
/* The little-endian unsigned integer of bytes bytes at p. */
uint64_t eval_le_uint(const unsigned char *p, int bytes);
/* The element of dtype, bytes wide, stored little-endian at p (raw
 * tensor data: a Relay NDArray's, an ONNX initializer's). */
double eval_raw_element(const unsigned char *p, const char *dtype, int bytes);
/* The n elements of dtype, bytes wide each, stored from p, into out: the
 * dtype looked up once (a model's weights are read through it). */
void eval_raw_elements(double *out, size_t n, const unsigned char *p, const char *dtype,
                       int bytes);
/* The elements tensor constant n carries (an ONNX initializer, a
 * Constant's value), read into *slot after freeing what it held: slot, or
 * NULL when n carries none of a dtype and rank the evaluator holds. */
const Tensor *eval_const_tensor(Tensor *slot, const graft_node *n);
/* A new zeroed tensor; dims may be NULL when rank is 0. */
Tensor tensor_new(const char *dtype, int rank, const int64_t *dims);
void tensor_free(Tensor *t);
Tensor tensor_copy(const Tensor *t);
/* "(2, 3)": the shape as text, appended to out. */
void tensor_shape_text(const Tensor *t, StrBuf *out);
void value_free(Value *v);
Value value_copy(const Value *v);

/* ---- graphs (eval.c) ---- */

/* Evaluates g's output into *out (free with value_free).  False with
 * *err filled (free its msg) when an op refuses or has no evaluator. */
bool eval_graph(const graft_graph *g, const EvalInputs *in, const EvalOptions *opts, Value *out,
                EvalError *err);
/* Evaluates one op call n on operand values args (graft verify builds
 * pattern instances node by node, learning shapes as it goes). */
bool eval_op(const graft_node *n, const Value *args, int nargs, const EvalOptions *opts, Value *out,
             EvalError *err);
/* Whether op has an evaluator. */
bool eval_has_op(const char *op);

/* ---- meta constants (eval_meta.c, note [metadata values]) ---- */

/* A module's "#[metadata]" section (graph_metadata), read once. */
typedef struct EvalMeta EvalMeta;
/* Never NULL: a section that is missing or unreadable makes every
 * eval_meta_constant say why. */
EvalMeta *eval_meta_new(const char *metadata);
void eval_meta_free(EvalMeta *m);
/* The value of meta[relay.Constant][index] into *out (a new tensor);
 * NULL, or why there is none ("the metadata section holds no value for
 * it", "dtype not evaluated", ...) with *out untouched. */
const char *eval_meta_constant(const EvalMeta *m, int64_t index, Tensor *out);

/* Where new constants go into the section (meta_write.c): the counts of
 * its relay.Constant entries, JSON nodes and base64 arrays, and the byte
 * offsets in the section text after the last of each. */
typedef struct EvalMetaLayout {
    int64_t nconstants, nnodes, narrays;
    size_t list_at, nodes_at, arrays_at;
} EvalMetaLayout;
/* NULL, or why constants cannot be added (no section, or one without a
 * relay.Constant list). */
const char *eval_meta_layout(const EvalMeta *m, EvalMetaLayout *out);

#endif
