/* onnx_types.c - the types of an ONNX graph's calls through ONNX's shape
 * inference (note [onnx inference] in onnx_infer.h): the GraphTypeFn the
 * importer gives its graph (note [IR type relations] in graph.h), so that
 * type inference types what rewrites make too. */
#include "onnx_graph.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_infer.h"

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

/* What is known of operand a (note [absent operands] in
 * src/runtime/eval_impl.h: an empty tuple is a left-out input). */
static OnnxType operand_type(const graft_node *a)
{
    OnnxType t = {.rank = -1};
    const graft_type *gt = node_type(a);
    if (node_kind(a) == NODE_TUPLE && node_nargs(a) == 0)
        t.absent = true;
    else if (gt && gt->kind == TYPE_TENSOR && gt->rank <= ONNX_MAX_RANK) {
        t.dtype = gt->dtype;
        t.rank = gt->rank;
        memcpy(t.dims, gt->dims, (size_t)gt->rank * sizeof(int64_t));
        t.values = const_values(a, &t.nvalues);
    }
    return t;
}

/* note [shared types]: an output whose dtype and dims are an operand's
 * (the element-wise ops, most of a model) takes that operand's type
 * rather than a new one; a type is never changed once made, so one type
 * may stand for many values (bench/onnx_e2e.sh: a new type's text and
 * copy cost 2,700 instructions per node). */
static const graft_type *operand_type_equal(const graft_node *n, const OnnxType *t)
{
    for (int i = 0; i < node_nargs(n); i++) {
        const graft_type *a = node_type(node_arg(n, i));
        if (a && a->kind == TYPE_TENSOR && a->rank == t->rank &&
            strcmp(a->dtype, t->dtype) == 0 &&
            (t->rank == 0 || memcmp(a->dims, t->dims, (size_t)t->rank * sizeof *a->dims) == 0))
            return a;
    }
    return NULL;
}

/* An output of n as a graft type: NULL unless its dtype and rank are
 * known. */
static const graft_type *output_type(graft_graph *g, const graft_node *n, const OnnxType *t)
{
    if (!t->dtype || t->rank < 0)
        return NULL;
    const graft_type *same = operand_type_equal(n, t);
    return same ? same : graph_type_tensor(g, t->dtype, t->dims, t->rank);
}

/* The results a call has: those the model named, or for a call a rewrite
 * made that is read by element, up to the last element read; *tuple:
 * whether its value is a tuple of them (note [several results]). */
static int result_count(const graft_node *n, bool *tuple)
{
    int count = node_noutputs(n);
    *tuple = count > 1;
    for (const Use *u = node_first_use(n); u; u = use_next(u))
        if (node_kind(use_user(u)) == NODE_GETITEM) {
            *tuple = true;
            if (node_index(use_user(u)) >= count)
                count = node_index(use_user(u)) + 1;
        }
    return count;
}

/* Inference's arrays for a call of up to FEW inputs and outputs live on
 * the stack (a calloc of each per node cost 1,000 instructions); one more
 * than used is zeroed, as an op's inference may look at in[0] or write
 * out[0] of a call with none. */
enum { FEW = 4 };

/* The type of call n from the outputs inference found. */
static const graft_type *call_type(graft_graph *g, const graft_node *n, const OnnxType *out,
                                   int nout, bool tuple)
{
    const graft_type *few[FEW] = {0};
    const graft_type **fields = nout <= FEW ? few : xcalloc((size_t)nout, sizeof *fields);
    bool known = true;
    for (int i = 0; i < nout; i++)
        known &= (fields[i] = output_type(g, n, &out[i])) != NULL;
    const graft_type *t = !tuple ? fields[0] : known ? graph_type_tuple(g, fields, nout) : NULL;
    if (fields != few)
        free(fields);
    return t;
}

const graft_type *onnx_type_of(graft_graph *g, const graft_node *n, StrBuf *why)
{
    if (!node_op(n) || !onnx_has_infer(node_op(n)) || graph_node_domain(g, n))
        return NULL; /* unknown to graft: untyped */
    bool tuple;
    int nin = node_nargs(n), nout = result_count(n, &tuple);
    OnnxType in_few[FEW + 1], out_few[FEW + 1];
    OnnxType *in = nin <= FEW ? in_few : xmalloc(((size_t)nin + 1) * sizeof *in);
    OnnxType *out = nout <= FEW ? out_few : xmalloc(((size_t)nout + 1) * sizeof *out);
    in[nin] = out[nout] = (OnnxType){0};
    for (int i = 0; i < nin; i++)
        in[i] = operand_type(node_arg(n, i));
    const graft_type *t = NULL;
    if (onnx_infer(n, in, nin, out, nout, why))
        t = call_type(g, n, out, nout, tuple);
    for (int i = 0; i < nin; i++)
        free((void *)in[i].values);
    if (in != in_few)
        free(in);
    if (out != out_few)
        free(out);
    return t;
}
