/* onnx_infer_values.c - the elements of a constant input, read when an
 * op's inference asks for them (note [onnx inference] in onnx_infer.h).
 *
 * note [values on demand]: a few ops' inference reads an input's values
 * (Reshape's shape, the axes of Unsqueeze, Range's bounds: onnx_infer.h),
 * most never do; onnx_type_of gives each input its operand as
 * OnnxType.source, and infer_values reads the elements of a constant one
 * only when an op asks (reading them for every call cost
 * bench/onnx_e2e.sh's Add(var, eps) about 230 instructions: a malloc,
 * the conversion, a free).  Asking is noted in the call's scratch,
 * whether a constant was there or not (its result depends on more than
 * the inputs' types then: note [inference memo] in onnx_types_memo.c).
 * A caller that has the values already (the tests, the node tests'
 * tensors) gives them as OnnxType.values.
 */
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_infer_impl.h"

/* Constants whose elements inference may read (shapes, axes, starts):
 * small ones, as ONNX's inference reads initializers.  Of a float
 * constant only a few: inference reads floats as scalars (Range's bounds)
 * or short lists (NonZero's input), never a weight matrix, which it cost
 * more to read than to infer its node (bench/RESULTS.md, issue 29). */
enum { MAX_CONST_VALUES = 4096, MAX_FLOAT_VALUES = 64 };

/* The raw bytes and type of a constant operand: an initializer, or a
 * Constant node's value; NULL otherwise. */
static const uint8_t *const_data(const graft_node *n, const graft_type **type, size_t *nbytes)
{
    if (node_kind(n) == NODE_CONST && !node_const_is_scalar(n)) {
        *type = node_type(n);
        return node_const_data(n, nbytes);
    }
    const graft_attr_value *v = node_kind(n) == NODE_CALL && node_op(n) &&
                                        strcmp(node_op(n), "Constant") == 0
                                    ? node_find_attr(n, "value")
                                    : NULL;
    if (!v || v->kind != GRAFT_ATTR_TENSOR)
        return NULL;
    *type = v->type;
    *nbytes = v->nbytes;
    return v->data;
}

/* The values of operand a, when it is a small constant (malloc'd). */
static double *const_values(const graft_node *a, int64_t *count)
{
    const graft_type *t = NULL;
    size_t nbytes = 0;
    const uint8_t *p = const_data(a, &t, &nbytes);
    if (!p)
        return NULL; /* most operands: no constant */
    DType dt = t && t->kind == TYPE_TENSOR ? dtype_from_name(t->dtype) : DTYPE_UNDEFINED;
    size_t size = dtype_size(dt);
    size_t max = dtype_is_float(dt) ? MAX_FLOAT_VALUES : MAX_CONST_VALUES;
    if (!size || nbytes % size != 0 || nbytes / size > max)
        return NULL;
    double *values = xmalloc((nbytes / size + 1) * sizeof *values);
    for (size_t k = 0; k < nbytes / size; k++)
        if (!dtype_read_number(dt, p + k * size, &values[k])) {
            free(values); /* complex: no values to read */
            return NULL;
        }
    *count = (int64_t)(nbytes / size);
    return values;
}

const double *infer_values(InferCall *c, const OnnxType *t, int64_t *count)
{
    c->scratch->read_values = true;
    *count = t->nvalues;
    if (t->values || !t->source)
        return t->values;
    double *values = const_values(t->source, count);
    if (values)
        vec_push(&c->scratch->owned, values);
    return values;
}
