/* onnx_infer.c - finding an ONNX op's type relation by name (note [onnx op
 * hooks] in onnx_infer.h), and the helpers the relations share. */
#include "onnx_infer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

static const OnnxOpDef *const families[] = {onnx_ops_elem, onnx_ops_nn, onnx_ops_shape,
                                            onnx_ops_index, onnx_ops_reduce};

static bool default_domain(const char *domain)
{
    return !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
}

static bool same_domain(const char *a, const char *b)
{
    return default_domain(a) ? default_domain(b) : b && strcmp(a, b) == 0;
}

const OnnxOpDef *onnx_op_find(const char *domain, const char *op)
{
    for (size_t f = 0; op && f < ARRAY_LEN(families); f++)
        for (const OnnxOpDef *d = families[f]; d->op; d++)
            if (strcmp(d->op, op) == 0 && same_domain(d->domain, domain))
                return d;
    return NULL;
}

bool onnx_op_tuple(const OnnxOpDef *d, int noutputs)
{
    return noutputs > 1 || (d && d->outputs == ONNX_SEVERAL_OUTPUTS);
}

int onnx_op_count(void)
{
    int n = 0;
    for (size_t f = 0; f < ARRAY_LEN(families); f++)
        for (const OnnxOpDef *d = families[f]; d->op; d++)
            n++;
    return n;
}

const OnnxOpDef *onnx_op_at(int i)
{
    for (size_t f = 0; f < ARRAY_LEN(families); f++)
        for (const OnnxOpDef *d = families[f]; d->op; d++)
            if (i-- == 0)
                return d;
    return NULL;
}

/* Input types: NULL for an absent optional input, an empty tuple (note
 * [absent inputs] in onnx_infer.h); false when one is unknown. */
static bool input_types(const graft_node *n, const graft_type **types)
{
    for (int i = 0; i < node_nargs(n); i++) {
        const graft_node *a = node_arg(n, i);
        if (node_kind(a) == NODE_TUPLE && node_nargs(a) == 0)
            types[i] = NULL;
        else if (!(types[i] = node_type(a)))
            return false;
    }
    return true;
}

const graft_type *onnx_infer_node(graft_graph *g, const graft_node *n, StrBuf *why)
{
    const OnnxOpDef *d = onnx_op_find(graph_node_domain(g, n), node_op(n));
    if (!d || node_nargs(n) < d->min_in)
        return NULL;
    const graft_type *few[8];
    const graft_type **types = node_nargs(n) < 8 ? few
                             : xmalloc(((size_t)node_nargs(n) + 1) * sizeof *types);
    const graft_type *t = NULL;
    if (input_types(n, types)) {
        OnnxInferCtx c = {g, n, node_op(n), types, node_nargs(n), node_noutputs(n),
                          onnx_op_tuple(d, node_noutputs(n)), why};
        t = d->infer(&c);
    }
    if (types != few)
        free(types);
    return t;
}

const graft_type *onnx_fail(OnnxInferCtx *c, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->why->len = 0;
    strbuf_printf(c->why, "%s: %s", c->op, msg);
    return NULL;
}

const graft_type *onnx_input(OnnxInferCtx *c, int i)
{
    const graft_type *t = i < c->nin ? c->in[i] : NULL;
    if (t && t->kind != TYPE_TENSOR)
        return onnx_fail(c, "input %d must be a tensor (got %s)", i + 1, t->text);
    return t;
}

bool onnx_shape(OnnxInferCtx *c, const graft_type *t, OnnxShape *s)
{
    if (t->rank > ONNX_MAX_RANK) {
        onnx_fail(c, "rank %d above %d", t->rank, ONNX_MAX_RANK);
        return false;
    }
    s->rank = t->rank;
    memcpy(s->dims, t->dims, (size_t)t->rank * sizeof(int64_t));
    return true;
}

bool onnx_push(OnnxInferCtx *c, OnnxShape *s, int64_t d)
{
    if (s->rank == ONNX_MAX_RANK) {
        onnx_fail(c, "rank above %d", ONNX_MAX_RANK);
        return false;
    }
    s->dims[s->rank++] = d;
    return true;
}

const graft_type *onnx_make(OnnxInferCtx *c, const char *dtype, const OnnxShape *s)
{
    return graph_type_tensor(c->g, dtype, s->dims, s->rank);
}

const graft_type *onnx_results(OnnxInferCtx *c, const graft_type *const *types)
{
    if (!c->tuple)
        return types[0];
    for (int i = 0; i < c->noutputs; i++)
        if (!types[i])
            return NULL;
    return graph_type_tuple(c->g, types, c->noutputs);
}

int64_t onnx_int(const OnnxInferCtx *c, const char *name, int64_t dflt)
{
    const graft_attr_value *v = node_find_attr(c->call, name);
    return v && v->kind == GRAFT_ATTR_INT ? v->i : dflt;
}

double onnx_float(const OnnxInferCtx *c, const char *name, double dflt)
{
    const graft_attr_value *v = node_find_attr(c->call, name);
    return !v ? dflt : v->kind == GRAFT_ATTR_FLOAT ? v->f : v->kind == GRAFT_ATTR_INT ? (double)v->i
                                                                                       : dflt;
}

const char *onnx_str(const OnnxInferCtx *c, const char *name, const char *dflt)
{
    const graft_attr_value *v = node_find_attr(c->call, name);
    return v && v->kind == GRAFT_ATTR_STRING ? v->s : dflt;
}

int onnx_ints(OnnxInferCtx *c, const char *name, int64_t *out, int max)
{
    const graft_attr_value *v = node_find_attr(c->call, name);
    if (!v)
        return -1;
    if (v->kind != GRAFT_ATTR_LIST || v->nitems > max) {
        onnx_fail(c, "attribute '%s' must be a list of at most %d ints", name, max);
        return -2;
    }
    for (int i = 0; i < v->nitems; i++) {
        if (v->items[i]->kind != GRAFT_ATTR_INT) {
            onnx_fail(c, "attribute '%s' must be a list of ints", name);
            return -2;
        }
        out[i] = v->items[i]->i;
    }
    return v->nitems;
}

int onnx_axis(OnnxInferCtx *c, int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank) {
        onnx_fail(c, "axis %lld out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

/* The raw bytes of a constant input: an initializer's, or a Constant
 * node's value attribute; NULL when not known. */
static const void *const_bytes(const graft_node *n, const graft_type **type, size_t *nbytes)
{
    if (node_kind(n) == NODE_CONST && !node_const_is_scalar(n)) {
        *type = node_type(n);
        return node_const_data(n, nbytes);
    }
    if (node_kind(n) != NODE_CALL || !node_op(n) || strcmp(node_op(n), "Constant") != 0)
        return NULL;
    const graft_attr_value *v = node_find_attr(n, "value");
    if (!v || v->kind != GRAFT_ATTR_TENSOR)
        return NULL;
    *type = v->type;
    *nbytes = v->nbytes;
    return v->data;
}

int onnx_const_ints(const OnnxInferCtx *c, int i, int64_t *out, int max)
{
    const graft_type *t = NULL;
    size_t nbytes = 0;
    const uint8_t *p = i < c->nin && c->in[i] ? const_bytes(node_arg(c->call, i), &t, &nbytes)
                                              : NULL;
    if (!p || !t || t->kind != TYPE_TENSOR)
        return -1;
    size_t size = strcmp(t->dtype, "int64") == 0 ? 8 : strcmp(t->dtype, "int32") == 0 ? 4 : 0;
    if (!size || nbytes % size != 0 || nbytes / size > (size_t)max)
        return -1;
    for (size_t k = 0; k < nbytes / size; k++) {
        uint64_t v = 0;
        for (size_t b = 0; b < size; b++) /* little-endian, as raw_data is */
            v |= (uint64_t)p[k * size + b] << (8 * b);
        out[k] = size == 8 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
    }
    return (int)(nbytes / size);
}

/* Element k of raw little-endian data of dtype d (size bytes each). */
static double raw_value(const uint8_t *p, const DTypeInfo *d, size_t size, size_t k)
{
    uint64_t v = 0;
    for (size_t b = 0; b < size; b++)
        v |= (uint64_t)p[k * size + b] << (8 * b);
    if (d->is_float && size == 4) {
        float f;
        uint32_t w = (uint32_t)v;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    if (d->is_float) {
        double f;
        memcpy(&f, &v, sizeof f);
        return f;
    }
    if (d->is_signed && size < 8 && (v >> (8 * size - 1) & 1))
        return (double)(int64_t)(v | ~0ull << (8 * size));
    return d->is_signed ? (double)(int64_t)v : (double)v;
}

int onnx_const_values(const OnnxInferCtx *c, int i, double *out, int max)
{
    const graft_type *t = NULL;
    size_t nbytes = 0;
    const uint8_t *p = i < c->nin && c->in[i] ? const_bytes(node_arg(c->call, i), &t, &nbytes)
                                              : NULL;
    const DTypeInfo *d = p && t && t->kind == TYPE_TENSOR ? dtype_info(dtype_from_name(t->dtype))
                                                          : NULL;
    bool readable = d && d->size && (!d->is_float || d->size == 4 || d->size == 8);
    if (!readable || nbytes % d->size != 0 || nbytes / d->size > (size_t)max)
        return -1;
    for (size_t k = 0; k < nbytes / d->size; k++)
        out[k] = raw_value(p, d, d->size, k);
    return (int)(nbytes / d->size);
}

bool onnx_broadcast(OnnxInferCtx *c, const OnnxShape *a, const OnnxShape *b, OnnxShape *out)
{
    out->rank = a->rank > b->rank ? a->rank : b->rank;
    for (int k = 0; k < out->rank; k++) {
        int ia = k - (out->rank - a->rank), ib = k - (out->rank - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da == 1 || da == db)
            out->dims[k] = db;
        else if (db == 1)
            out->dims[k] = da;
        else if (da == DIM_ANY || db == DIM_ANY)
            out->dims[k] = DIM_ANY;
        else {
            onnx_fail(c, "shapes do not broadcast: dim %d is %lld and %lld", k, (long long)da,
                      (long long)db);
            return false;
        }
    }
    return true;
}
