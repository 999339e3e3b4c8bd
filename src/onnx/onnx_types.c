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
 * small ones, as ONNX's inference reads initializers. */
enum { MAX_CONST_VALUES = 4096 };

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
    DType dt = p && t && t->kind == TYPE_TENSOR ? dtype_from_name(t->dtype) : DTYPE_UNDEFINED;
    size_t size = dtype_size(dt);
    if (!size || nbytes % size != 0 || nbytes / size > MAX_CONST_VALUES)
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

/* An output as a graft type: NULL unless its dtype and rank are known. */
static const graft_type *output_type(graft_graph *g, const OnnxType *t)
{
    return t->dtype && t->rank >= 0 ? graph_type_tensor(g, t->dtype, t->dims, t->rank) : NULL;
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

const graft_type *onnx_type_of(graft_graph *g, const graft_node *n, StrBuf *why)
{
    if (!node_op(n) || !onnx_has_infer(node_op(n)) || graph_node_domain(g, n))
        return NULL; /* unknown to graft: untyped */
    bool tuple;
    int nin = node_nargs(n), nout = result_count(n, &tuple);
    OnnxType *in = xcalloc((size_t)nin + 1, sizeof *in);
    OnnxType *out = xcalloc((size_t)nout + 1, sizeof *out);
    for (int i = 0; i < nin; i++)
        in[i] = operand_type(node_arg(n, i));
    const graft_type *t = NULL;
    if (onnx_infer(n, in, nin, out, nout, why)) {
        const graft_type **fields = xcalloc((size_t)nout + 1, sizeof *fields);
        bool known = true;
        for (int i = 0; i < nout; i++)
            known &= (fields[i] = output_type(g, &out[i])) != NULL;
        t = !tuple ? fields[0] : known ? graph_type_tuple(g, fields, nout) : NULL;
        free(fields);
    }
    for (int i = 0; i < nin; i++)
        free((void *)in[i].values);
    free(in);
    free(out);
    return t;
}
