/* eval_onnx_body.h - what ONNX's control flow kernels share
 * (eval_onnx_control.c: If, Loop; eval_onnx_scan.c: Scan): a subgraph
 * imported and run on its inputs and the outer values it reads (note
 * [control bodies] in src/onnx/onnx_control.h), and scan outputs stacked
 * and scan inputs sliced (note [scan stacking] in eval_onnx_body.c). */
#ifndef GRAFT_EVAL_ONNX_BODY_H
#define GRAFT_EVAL_ONNX_BODY_H

#include "eval_impl.h"
#include "onnx_control.h"

/* A body ready to run: its graph, and the tensors its parameters take
 * (its inputs, set per run; the outer values, borrowed from the call). */
typedef struct BodyRun {
    OnnxBody b;
    const char *attr;  /* the attribute it came from, for messages */
    Tensor *params;    /* b.ninputs + b.nouter, shallow: never freed here */
    Tensor given;      /* the last tensor constant read from its bytes */
} BodyRun;

/* Imports subgraph attr of c's node and binds the outer values it reads;
 * *own gets the call's own operand count.  False after failing. */
bool eval_body_open(EvalCall *c, const char *attr, BodyRun *r, int *own);
void eval_body_close(BodyRun *r);
/* Runs the body on r->params: its outputs into outs[0..b.noutputs-1]
 * (tensors, owned by the caller).  False after failing, the body's
 * error passed on with the node it names. */
bool eval_body_run(EvalCall *c, BodyRun *r, Tensor *outs);
/* The call's result from the first of outs[0..n-1] (one per output of
 * the node), moved; every tensor of outs is freed or moved. */
bool eval_body_results(EvalCall *c, Tensor *outs, int n);

/* parts[0..n-1] stacked along a new axis (reversed: part t at n-1-t)
 * into *out; false after failing on shapes that differ. */
bool eval_stack(EvalCall *c, const Tensor *parts, size_t n, int axis, bool reverse, Tensor *out);
/* Slice t of x along axis: a scan input's iteration t. */
Tensor eval_slice_at(const Tensor *x, int axis, int64_t t);

typedef VEC(Tensor) TensorList;
void eval_tensor_list_free(TensorList *l);
/* The scan outputs of r's body from its output first on (k of them,
 * iterations in lists[j]) stacked along a new first axis into
 * outs[0..k-1]; with no iteration, an empty tensor of the body's output
 * type where its graph knows it (else float32 [0]). */
bool eval_stack_lists(EvalCall *c, const BodyRun *r, int first, TensorList *lists, int k,
                      Tensor *outs);

#endif
