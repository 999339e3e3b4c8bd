/* onnx_infer.h - shape and type inference of ONNX's default-domain ops:
 * each output's dtype and dims from the inputs' and the attributes, as
 * the op's schema in onnx/defs (its TypeAndShapeInferenceFunction)
 * computes them, keyed by op name ("Conv", "Add").
 *
 * note [onnx inference]: an input's type may be partly known: dtype NULL,
 * rank -1 or a dim DIM_ANY (graph.h) is unknown, and what follows from it
 * is unknown too, never guessed.  Ops whose output shape depends on an
 * input's values (Reshape's shape, Slice's starts, Expand, Tile,
 * ConstantOfShape, Range, Split's sizes, the axes of Squeeze, Unsqueeze
 * and ReduceSum) read them when the input is a constant (an initializer,
 * a Constant node's value: OnnxType.values, or OnnxType.source's read on
 * demand by infer_values), as ONNX's inference reads initializers, and
 * give unknown dims otherwise.  A contradiction (shapes
 * that do not broadcast, an axis out of range, dtypes that differ where
 * the schema binds them to one type variable) is an error with a reason;
 * so the loader can report it at the node.  One file per op family:
 * onnx_infer_elem.c, onnx_infer_shape.c, onnx_infer_index.c,
 * onnx_infer_nn.c, onnx_infer_select.c, onnx_infer_layout.c,
 * onnx_infer_gather.c.
 */
#ifndef GRAFT_ONNX_INFER_H
#define GRAFT_ONNX_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

enum { ONNX_MAX_RANK = 8 };

/* What is known of one input or output. */
typedef struct OnnxType {
    bool absent;                  /* an optional input left out ("" in ONNX) */
    const char *dtype;            /* Relay's spelling ("float32", dtype.h), NULL unknown */
    int rank;                     /* -1 unknown */
    int64_t dims[ONNX_MAX_RANK];  /* DIM_ANY unknown */
    const double *values;         /* a constant's elements (row-major), or NULL */
    int64_t nvalues;
    const graft_node *source;     /* without values: the operand whose elements
                                     are read when an op asks (note
                                     [values on demand] in onnx_infer_values.c) */
} OnnxType;

/* Infers the outputs of call n (its op and attributes; nout of them, the
 * node's outputs) from its nin inputs into out[].  False, with the
 * reason in *why, on a contradiction or an op without inference. */
bool onnx_infer(const graft_node *n, const OnnxType *in, int nin, OnnxType *out, int nout,
                StrBuf *why);
/* onnx_infer, and *read_values whether the op asked for an input's
 * values (then its result depends on more than the inputs' types: note
 * [inference memo] in onnx_types_memo.c). */
bool onnx_infer_reading(const graft_node *n, const OnnxType *in, int nin, OnnxType *out,
                        int nout, StrBuf *why, bool *read_values);
/* Whether op has inference. */
bool onnx_has_infer(const char *op);

#endif
