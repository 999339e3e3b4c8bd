/* eval_impl.h - what the evaluator's op files share (eval.h): one call's
 * context, failing with a reason, results, attributes, broadcasting. */
#ifndef GRAFT_EVAL_IMPL_H
#define GRAFT_EVAL_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "eval.h"
#include "util.h"

/* One op call being evaluated. */
typedef struct EvalCall {
    const graft_node *node;          /* the call: its op and attributes */
    const char *op;            /* node_op(node) */
    const Value *args;         /* operand values */
    int nargs;
    Value *out;                /* the result, filled by the op */
    EvalError *err;            /* why it failed */
    const EvalOptions *opts;   /* the element limit */
} EvalCall;

typedef bool (*EvalOpFn)(EvalCall *c);

typedef struct EvalOpDef {
    const char *name;  /* "nn.conv2d" */
    EvalOpFn fn;
} EvalOpDef;

/* The op tables of each file, each ended by {NULL, NULL}. */
extern const EvalOpDef eval_elem_ops[];
extern const EvalOpDef eval_reduce_ops[];
extern const EvalOpDef eval_nn_ops[];
extern const EvalOpDef eval_shape_ops[];
extern const EvalOpDef eval_einsum_ops[];
extern const EvalOpDef eval_dyn_ops[];
/* ONNX's default domain, keyed by its op names ("Conv", "Add"). */
extern const EvalOpDef eval_onnx_elem_ops[];
extern const EvalOpDef eval_onnx_act_ops[];
extern const EvalOpDef eval_onnx_nn_ops[];
extern const EvalOpDef eval_onnx_shape_ops[];
extern const EvalOpDef eval_onnx_index_ops[];
extern const EvalOpDef eval_onnx_conv_ops[];
extern const EvalOpDef eval_onnx_select_ops[];
extern const EvalOpDef eval_onnx_layout_ops[];
extern const EvalOpDef eval_onnx_gather_ops[];
extern const EvalOpDef eval_onnx_quant_ops[];
extern const EvalOpDef eval_onnx_reduce_ops[];
/* ONNX Runtime's com.microsoft contrib ops the fusion library makes. */
extern const EvalOpDef eval_onnx_contrib_ops[];
/* Their Attention and MultiHeadAttention (eval_onnx_attention.c). */
extern const EvalOpDef eval_onnx_attention_ops[];
/* ONNX's control flow: If and Loop (eval_onnx_control.c), Scan (eval_onnx_scan.c). */
extern const EvalOpDef eval_onnx_control_ops[], eval_onnx_scan_ops[];

/* Evaluates call c as op would, on operands args (an op's kernel reused
 * by another's: FusedConv computes Conv's result first); false after
 * failing. */
bool eval_call_as(EvalCall *c, const char *op, const Value *args, int nargs);
/* Fails the call: status EVAL_BAD_INPUT, message "op: why".  Returns false. */
bool eval_fail(EvalCall *c, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* Operand i as a tensor, or NULL after failing (missing, or a tuple). */
const Tensor *eval_arg(EvalCall *c, int i);
/* note [absent operands]: an ONNX node leaves out an optional input by
 * giving it the empty name; it reaches its kernel as an empty tuple
 * (nfields 0), or, for trailing ones, as fewer operands.  Operand i of
 * an ONNX op, or NULL when it is absent (no failure) or a tuple of
 * fields (after failing). */
const Tensor *eval_opt_arg(EvalCall *c, int i);
/* The values of an integer operand i (ONNX's shape, axes, pads inputs)
 * into out[0..max-1]: the count, -1 when absent, -2 after failing. */
int eval_arg_ints(EvalCall *c, int i, int64_t *out, int max);
/* A tensor attribute (ONNX's TENSOR kind) decoded into *out; false when
 * absent, or after failing when it is not a tensor of an evaluated dtype. */
bool eval_attr_tensor(EvalCall *c, const char *name, Tensor *out);
/* How many results the call has (ONNX's outputs; 1 for Relay). */
int eval_noutputs(const EvalCall *c);
/* Checks the operand count: between lo and hi. */
bool eval_nargs(EvalCall *c, int lo, int hi);
/* Checks the operand count (eval_nargs) and takes operand 0 as a tensor
 * (eval_arg), as most kernels begin; NULL after failing either. */
const Tensor *eval_nargs_first(EvalCall *c, int lo, int hi);
/* Allocates the result tensor (zeroed) in c->out; NULL after failing
 * when it would pass the element limit or EVAL_MAX_RANK. */
Tensor *eval_result(EvalCall *c, const char *dtype, int rank, const int64_t *dims);
/* The result of an op on a and b, which broadcast (eval_broadcast): as
 * eval_result, of their broadcast shape; NULL after failing. */
Tensor *eval_broadcast_result(EvalCall *c, const Tensor *a, const Tensor *b, const char *dtype);
/* The result as a tuple of n fields, each to be filled with eval_field. */
bool eval_tuple_result(EvalCall *c, int n);
Tensor *eval_field(EvalCall *c, int i, const char *dtype, int rank, const int64_t *dims);

/* Attributes of the call, with TVM's default when absent (or None). */
int64_t eval_attr_int(const EvalCall *c, const char *name, int64_t dflt);
double eval_attr_float(const EvalCall *c, const char *name, double dflt);
bool eval_attr_bool(const EvalCall *c, const char *name, bool dflt);
const char *eval_attr_str(const EvalCall *c, const char *name, const char *dflt);
/* An int list attribute (a single int counts as a one-item list) into
 * out[0..max-1]; returns the count, -1 when absent or None, -2 (after
 * failing) when it is no int list or longer than max (note [int lists]
 * in src/ir/graph_attr.c). */
int eval_attr_ints(EvalCall *c, const char *name, int64_t *out, int max);
/* A (possibly negative) axis normalised to 0..rank-1; -1 after failing. */
int eval_axis(EvalCall *c, int64_t axis, int rank);
/* The same for the call's attribute axis, dflt when it has none. */
int eval_attr_axis(EvalCall *c, int64_t dflt, int rank);

/* The result as a copy of x's elements (in their order) under the shape
 * rank/dims; false after failing when the sizes differ. */
bool eval_same_elements(EvalCall *c, const Tensor *x, int rank, const int64_t *dims);
/* x without its dims of 1 at axes[0..naxes-1] (each must be 1), or
 * without every dim of 1 when naxes is -1: Relay's squeeze and ONNX's
 * Squeeze (eval_shape.c). */
bool eval_squeeze(EvalCall *c, const Tensor *x, const int64_t *axes, int naxes);
/* reshape's newshape spec[0..n-1] (TVM's special values 0, -1 to -4)
 * applied to x: the dims into dims/rank; false after failing. */
bool eval_new_shape(EvalCall *c, const Tensor *x, const int64_t *spec, int n, int64_t *dims,
                    int *rank);

/* A slice of strided_slice: begin, end and strides per axis of axes (the
 * counts -1 when absent; naxes < 0: the first nbegin axes). */
typedef struct EvalSlice {
    int64_t begin[EVAL_MAX_RANK], end[EVAL_MAX_RANK], step[EVAL_MAX_RANK], axes[EVAL_MAX_RANK];
    int nbegin, nend, nstep, naxes;
} EvalSlice;
/* The slice sl of x, slice_mode read from the call (eval_shape.c). */
bool eval_slice(EvalCall *c, const Tensor *x, EvalSlice *sl);

/* The broadcast shape of a and b (numpy rules) into rank/dims; false
 * after failing. */
bool eval_broadcast(EvalCall *c, const Tensor *a, const Tensor *b, int *rank, int64_t *dims);
/* The flat index into t of output element flat of a broadcast shape. */
size_t eval_bcast_index(const Tensor *t, int rank, const int64_t *dims, size_t flat);
/* Fills r (its shape already the broadcast of a's and b's) with
 * fn(a[i], b[i]) for each element, a and b broadcast. */
void eval_bcast_apply(Tensor *r, const Tensor *a, const Tensor *b,
                      double (*fn)(double x, double y, const EvalCall *c), const EvalCall *c);
/* The larger and the smaller of x and y, NaN winning as in numpy's
 * maximum and minimum (C's fmax and fmin drop it): eval_bcast_apply's fn
 * for Relay's maximum and minimum and ONNX's Max and Min. */
double eval_maximum(double x, double y, const EvalCall *c);
double eval_minimum(double x, double y, const EvalCall *c);
/* Relay's where(cond, x, y) and ONNX's Where: x's element where cond's is
 * not 0, else y's, all three broadcast (eval_elem.c). */
bool eval_where(EvalCall *c);
/* The output element of a reduction of x that input element flat falls
 * in: its coordinates with the reduced axes dropped. */
size_t eval_reduce_index(const Tensor *x, const bool *reduced, size_t flat);
/* Row-major strides of dims. */
void eval_strides(int rank, const int64_t *dims, int64_t *strides);

/* Relay's nn.softmax and nn.log_softmax, ONNX's Softmax, LogSoftmax and
 * Hardmax: one kernel, kind says which. */
typedef enum { EVAL_SOFTMAX, EVAL_LOG_SOFTMAX, EVAL_HARDMAX } EvalSoftmaxKind;
/* The call's one operand's softmax of kind along its attribute axis
 * (default -1): each row shifted by its maximum (hardmax: 1 at the first
 * maximum, 0 elsewhere); false after failing. */
bool eval_softmax(EvalCall *c, EvalSoftmaxKind kind);

#endif
