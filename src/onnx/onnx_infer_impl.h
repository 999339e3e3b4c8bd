/* onnx_infer_impl.h - what the inference files share (onnx_infer.h): one
 * call's context, failing with a reason, attributes, broadcasting. */
#ifndef GRAFT_ONNX_INFER_IMPL_H
#define GRAFT_ONNX_INFER_IMPL_H

#include "dim_symbol.h"
#include "onnx_infer.h"

/* What one onnx_infer shares with the calls it makes through others'
 * inference (infer_as): the values it read, owned until it returns. */
typedef struct InferScratch {
    bool read_values;    /* an op asked for an input's values */
    VEC(double *) owned; /* the values read from sources (malloc'd) */
} InferScratch;

/* One node being inferred. */
typedef struct InferCall {
    const graft_node *node;
    const char *op;
    const OnnxType *in;
    int nin;
    OnnxType *out;
    int nout;
    StrBuf *why;
    InferScratch *scratch;
} InferCall;

typedef bool (*InferFn)(InferCall *c);

typedef struct InferDef {
    const char *name;
    InferFn fn;
} InferDef;

/* The tables of each file, each ended by {NULL, NULL}. */
extern const InferDef onnx_infer_elem_ops[];
extern const InferDef onnx_infer_shape_ops[];
extern const InferDef onnx_infer_index_ops[];
extern const InferDef onnx_infer_nn_ops[];
extern const InferDef onnx_infer_select_ops[];
extern const InferDef onnx_infer_layout_ops[];
extern const InferDef onnx_infer_gather_ops[];
extern const InferDef onnx_infer_contrib_ops[]; /* ONNX Runtime's com.microsoft ops */
extern const InferDef onnx_infer_control_ops[]; /* If, Loop, Scan (onnx_control_infer.c) */

/* Fails: "op: why" in c->why; returns false. */
bool infer_fail(InferCall *c, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* Input i, or NULL when it is absent or past the inputs. */
const OnnxType *infer_in(const InferCall *c, int i);
/* Input i, failing when it is absent. */
const OnnxType *infer_need(InferCall *c, int i);
/* Checks the input count is within lo..hi. */
bool infer_nin(InferCall *c, int lo, int hi);

int64_t infer_attr_int(const InferCall *c, const char *name, int64_t dflt);
const char *infer_attr_str(const InferCall *c, const char *name, const char *dflt);
/* An ints attribute into out[0..max-1]: the count, -1 when absent, -2
 * after failing (not an int list, or longer than max; note [int lists] in
 * src/ir/graph_attr.c). */
int infer_attr_ints(InferCall *c, const char *name, int64_t *out, int max);
/* The elements of t, an input of c, when it is a small constant (in
 * *count; owned by the call), else NULL (note [values on demand] in
 * onnx_infer_values.c). */
const double *infer_values(InferCall *c, const OnnxType *t, int64_t *count);
/* The values of a constant integer input i into out: the count, -1 when
 * absent or not constant, -2 after failing (more than max). */
int infer_in_ints(InferCall *c, int i, int64_t *out, int max);
/* An axis normalised to 0..rank-1, -1 after failing. */
int infer_axis(InferCall *c, int64_t axis, int rank);

/* Output i set to dtype and rank (dims DIM_ANY); rank -1 leaves the
 * shape unknown. */
OnnxType *infer_set(InferCall *c, int i, const char *dtype, int rank);
/* Output i a copy of the type of t (values dropped). */
void infer_copy(InferCall *c, int i, const OnnxType *t);
/* The numpy broadcast of a and b into *r (dtype not set); false after
 * failing. */
bool infer_broadcast(InferCall *c, const OnnxType *a, const OnnxType *b, OnnxType *r);
/* Two dims the schema says are one (Concat's dims off its axis): the
 * same, a number over a symbol or "?", a symbol over "?", and two
 * symbols of different names "?"; *clash when both are numbers that
 * differ (note [symbols in inference] in onnx_infer.c). */
int64_t infer_dim_meet(int64_t a, int64_t b, bool *clash);
/* Whether a and b have one dtype (either unknown counts), else fails. */
bool infer_same_dtype(InferCall *c, const OnnxType *a, const OnnxType *b);

#endif
