/* onnx_infer.c - finding an op's inference by name, and what the op
 * files share (note [onnx inference] in onnx_infer.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onnx_infer_impl.h"
#include "keymap.h"

static const InferDef *const tables[] = {onnx_infer_elem_ops, onnx_infer_shape_ops,
                                         onnx_infer_index_ops, onnx_infer_nn_ops,
                                         onnx_infer_select_ops, onnx_infer_layout_ops,
                                         onnx_infer_gather_ops, onnx_infer_contrib_ops,
                                         onnx_infer_control_ops};

/* note [inference cache]: the op's inference is looked up for every call
 * node, at load and after each rewrite, among 125 names; a small cache
 * keyed by the address of the op's name (interned by its graph) saves the
 * scan (bench/onnx_e2e.sh: 2,700 instructions a node before).  It is per
 * thread, and an entry is used only when its name equals op, since another
 * graph may intern another name at the same address.  The address is
 * hashed before its slot is taken: a graph interns a model's op names a
 * fixed stride apart, and cache_slot of the bare addresses put the seed's
 * Sub and Sqrt in one slot, Add and Div in another (0x30 apart: 16,000
 * scans of 24,000 lookups, 780 instructions an op node on
 * bench/onnx_e2e.sh). */
enum { INFER_CACHE_BITS = 8 };
static _Thread_local const InferDef *infer_cache[1 << INFER_CACHE_BITS];

static const InferDef *scan_tables(const char *op)
{
    for (size_t t = 0; t < ARRAY_LEN(tables); t++)
        for (const InferDef *d = tables[t]; d->name; d++)
            if (strcmp(d->name, op) == 0)
                return d;
    return NULL;
}

static InferFn find_infer(const char *op)
{
    if (!op)
        return NULL;
    uintptr_t at = (uintptr_t)op;
    const InferDef **slot = &infer_cache[cache_slot(hash_bytes(&at, sizeof at, 0),
                                                    INFER_CACHE_BITS)];
    if (!*slot || strcmp((*slot)->name, op) != 0) {
        const InferDef *d = scan_tables(op);
        if (!d)
            return NULL;
        *slot = d;
    }
    return (*slot)->fn;
}

bool onnx_has_infer(const char *op)
{
    return find_infer(op) != NULL;
}

bool onnx_infer(const graft_node *n, const OnnxType *in, int nin, OnnxType *out, int nout,
                StrBuf *why)
{
    const char *op = node_op(n);
    InferFn fn = find_infer(op);
    if (!fn) {
        strbuf_printf(why, "%s: no shape inference for this op", op ? op : "call");
        return false;
    }
    for (int i = 0; i < nout; i++)
        out[i] = (OnnxType){.rank = -1};
    InferCall c = {.node = n, .op = op, .in = in, .nin = nin, .out = out, .nout = nout,
                   .why = why};
    return fn(&c);
}

bool infer_fail(InferCall *c, const char *fmt, ...)
{
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    strbuf_printf(c->why, "%s: %s", c->op, buf);
    return false;
}

const OnnxType *infer_in(const InferCall *c, int i)
{
    return i < c->nin && !c->in[i].absent ? &c->in[i] : NULL;
}

const OnnxType *infer_need(InferCall *c, int i)
{
    const OnnxType *t = infer_in(c, i);
    if (!t)
        infer_fail(c, "input %d missing", i + 1);
    return t;
}

bool infer_nin(InferCall *c, int lo, int hi)
{
    if (c->nin < lo || c->nin > hi)
        return infer_fail(c, "%d inputs, wants %d", c->nin, c->nin < lo ? lo : hi);
    return true;
}

static const graft_attr_value *find_attr(const InferCall *c, const char *name)
{
    const graft_attr_value *v = node_find_attr(c->node, name);
    return v && v->kind != GRAFT_ATTR_NULL ? v : NULL;
}

int64_t infer_attr_int(const InferCall *c, const char *name, int64_t dflt)
{
    const graft_attr_value *v = find_attr(c, name);
    return v && v->kind == GRAFT_ATTR_INT ? v->i : dflt;
}

const char *infer_attr_str(const InferCall *c, const char *name, const char *dflt)
{
    const graft_attr_value *v = find_attr(c, name);
    return v && v->kind == GRAFT_ATTR_STRING ? v->s : dflt;
}

int infer_attr_ints(InferCall *c, const char *name, int64_t *out, int max)
{
    const graft_attr_value *v = find_attr(c, name);
    if (!v)
        return -1;
    if (v->kind == GRAFT_ATTR_INT && max >= 1) {
        out[0] = v->i;
        return 1;
    }
    if (v->kind != GRAFT_ATTR_LIST || v->nitems > max) {
        infer_fail(c, "attribute %s: wants a list of at most %d ints", name, max);
        return -2;
    }
    for (int i = 0; i < v->nitems; i++) {
        if (v->items[i]->kind != GRAFT_ATTR_INT) {
            infer_fail(c, "attribute %s: item %d is no int", name, i);
            return -2;
        }
        out[i] = v->items[i]->i;
    }
    return v->nitems;
}

int infer_in_ints(InferCall *c, int i, int64_t *out, int max)
{
    const OnnxType *t = infer_in(c, i);
    if (!t || !t->values)
        return -1;
    if (t->nvalues > max) {
        infer_fail(c, "input %d: more than %d values", i + 1, max);
        return -2;
    }
    for (int64_t k = 0; k < t->nvalues; k++)
        out[k] = (int64_t)t->values[k];
    return (int)t->nvalues;
}

int infer_axis(InferCall *c, int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank) {
        infer_fail(c, "axis %lld out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

OnnxType *infer_set(InferCall *c, int i, const char *dtype, int rank)
{
    OnnxType *t = &c->out[i];
    *t = (OnnxType){.dtype = dtype, .rank = rank};
    for (int k = 0; k < rank; k++)
        t->dims[k] = DIM_ANY;
    return t;
}

void infer_copy(InferCall *c, int i, const OnnxType *t)
{
    c->out[i] = *t;
    c->out[i].values = NULL;
    c->out[i].nvalues = 0;
    c->out[i].absent = false;
}

bool infer_broadcast(InferCall *c, const OnnxType *a, const OnnxType *b, OnnxType *r)
{
    if (a->rank < 0 || b->rank < 0) {
        r->rank = -1;
        return true;
    }
    OnnxType ca = *a, cb = *b; /* r may be a or b: read copies */
    a = &ca;
    b = &cb;
    int rank = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < rank; i++) {
        int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1 && da != DIM_ANY && db != DIM_ANY)
            return infer_fail(c, "dims %lld and %lld do not broadcast", (long long)da,
                              (long long)db);
        r->dims[i] = da == 1 ? db : db == 1 ? da : da == DIM_ANY ? db : da;
    }
    r->rank = rank;
    return true;
}

bool infer_same_dtype(InferCall *c, const OnnxType *a, const OnnxType *b)
{
    if (a->dtype && b->dtype && strcmp(a->dtype, b->dtype) != 0)
        return infer_fail(c, "inputs of dtypes %s and %s", a->dtype, b->dtype);
    return true;
}
