/* onnx_infer.c - finding an op's inference by name, and what the op
 * files share (note [onnx inference] in onnx_infer.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "onnx_infer_impl.h"

static const InferDef *const tables[] = {onnx_infer_elem_ops, onnx_infer_shape_ops,
                                         onnx_infer_index_ops, onnx_infer_nn_ops,
                                         onnx_infer_select_ops, onnx_infer_layout_ops,
                                         onnx_infer_gather_ops, onnx_infer_contrib_ops,
                                         onnx_infer_control_ops};

/* note [inference cache]: the op's inference is looked up for every call
 * node, at load and after each rewrite, among 125 names; a small cache
 * (note [one cache slot]) saves the scan (bench/onnx_e2e.sh: 2,700
 * instructions a node before).  It is per thread, and an entry is used
 * only when its name equals op.  Its slot is the hash of the name's
 * bytes, not of its address: slots of addresses put the seed's Sub and
 * Sqrt in one, Add and Div in another (0x30 apart: 16,000 scans of
 * 24,000 lookups, 780 instructions an op node on bench/onnx_e2e.sh), and
 * hashed addresses left it to their luck (a graph's tables sized
 * otherwise put two of the seed's ops in one slot again, 330 instructions
 * an op node); which names share a slot is the same in every run, and no
 * two of the common ops' do (Add, Sub, Mul, Div, Sqrt, Relu, Conv, Gemm,
 * MatMul, Reshape, Transpose, Concat, Gather, Cast, Shape, Softmax,
 * Unsqueeze, Constant, BatchNormalization). */
enum { INFER_CACHE_BITS = 8 };
static _Thread_local const InferDef *infer_cache[1 << INFER_CACHE_BITS];
static _Thread_local bool infer_cache_symbols[1 << INFER_CACHE_BITS];

/* note [symbols in inference]: a symbolic dim (note [symbolic dims] in
 * src/ir/dim_symbol.c) is no number, and an op's inference that computed
 * with one (a window, a product, a sum) would make a wrong number of it;
 * so an op sees the symbols of its inputs only when its inference was
 * written for them: the element-wise ops (a dim copied, or broadcast by
 * infer_broadcast), and those below, which copy a dim through (Gemm,
 * Transpose, Squeeze, Unsqueeze, Reshape's 0, the normalisations and
 * Dropout: X's type), unify two (infer_dim_meet:
 * Concat's other dims) or broadcast (MatMul's batch dims), as onnx/defs'
 * helpers keep a dim_param (tests/onnx_symdims.sh says what ONNX 1.12's
 * inference gives).  Every other op sees a symbol as "?" (and a new
 * node's type that is its operand's stays shared: note [shared types] in
 * onnx_types.c; a BatchNormalization a rewrite made cost 1,400
 * instructions more as a type of its own). */
static const char *const symbol_ops[] = {
    "MatMul", "Gemm", "Concat", "Reshape", "Transpose", "Squeeze", "Unsqueeze",
    "BatchNormalization", "LayerNormalization", "InstanceNormalization", "Dropout", "LRN",
    "MeanVarianceNormalization", "Trilu", "SkipLayerNormalization",
    "SkipSimplifiedLayerNormalization", "SimplifiedLayerNormalization", "Gelu", "BiasGelu",
    "FastGelu", "BiasSoftmax"};

/* Whether op, of tables[t], keeps symbols. */
static bool keeps_symbols(size_t t, const char *op)
{
    if (tables[t] == onnx_infer_elem_ops)
        return true;
    for (size_t i = 0; i < ARRAY_LEN(symbol_ops); i++)
        if (strcmp(symbol_ops[i], op) == 0)
            return true;
    return false;
}

static const InferDef *scan_tables(const char *op, bool *symbols)
{
    for (size_t t = 0; t < ARRAY_LEN(tables); t++)
        for (const InferDef *d = tables[t]; d->name; d++)
            if (strcmp(d->name, op) == 0) {
                *symbols = keeps_symbols(t, op);
                return d;
            }
    return NULL;
}

/* op's inference, and in *symbols whether it keeps symbols. */
static InferFn find_infer(const char *op, bool *symbols)
{
    if (!op)
        return NULL;
    size_t k = cache_slot(hash_bytes(op, strlen(op), 0), INFER_CACHE_BITS);
    const InferDef **slot = &infer_cache[k];
    if (!*slot || strcmp((*slot)->name, op) != 0) {
        const InferDef *d = scan_tables(op, &infer_cache_symbols[k]);
        if (!d)
            return NULL;
        *slot = d;
    }
    *symbols = infer_cache_symbols[k];
    return (*slot)->fn;
}

bool onnx_has_infer(const char *op)
{
    bool symbols;
    return find_infer(op, &symbols) != NULL;
}

/* Whether an input of in has a symbolic dim. */
static bool any_symbol(const OnnxType *in, int nin)
{
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < in[i].rank; k++)
            if (dim_is_symbol(in[i].dims[k]))
                return true;
    return false;
}

/* in with every symbol "?", for an op that does not keep them (note
 * [symbols in inference]); malloc'd. */
static OnnxType *without_symbols(const OnnxType *in, int nin)
{
    OnnxType *plain = xcalloc((size_t)nin + 1, sizeof *plain); /* one more, as in[] has */
    memcpy(plain, in, (size_t)nin * sizeof *plain);
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < plain[i].rank; k++)
            if (dim_is_symbol(plain[i].dims[k]))
                plain[i].dims[k] = DIM_ANY;
    return plain;
}

bool onnx_infer_reading(const graft_node *n, const OnnxType *in, int nin, OnnxType *out,
                        int nout, StrBuf *why, bool *read_values)
{
    const char *op = node_op(n);
    bool symbols;
    InferFn fn = find_infer(op, &symbols);
    *read_values = false;
    if (!fn) {
        strbuf_printf(why, "%s: no shape inference for this op", op ? op : "call");
        return false;
    }
    for (int i = 0; i < nout; i++)
        out[i] = (OnnxType){.rank = -1};
    OnnxType *plain = !symbols && any_symbol(in, nin) ? without_symbols(in, nin) : NULL;
    InferScratch scratch = {0};
    InferCall c = {.node = n, .op = op, .in = plain ? plain : in, .nin = nin, .out = out,
                   .nout = nout, .why = why, .scratch = &scratch};
    bool ok = fn(&c);
    if (plain) /* (rare: no call for most nodes) */
        free(plain);
    for (size_t i = 0; i < scratch.owned.len; i++)
        free(scratch.owned.items[i]);
    vec_free(&scratch.owned);
    *read_values = scratch.read_values;
    return ok;
}

bool onnx_infer(const graft_node *n, const OnnxType *in, int nin, OnnxType *out, int nout,
                StrBuf *why)
{
    bool read_values;
    return onnx_infer_reading(n, in, nin, out, nout, why, &read_values);
}

bool infer_fail(InferCall *c, const char *fmt, ...)
{
    strbuf_printf(c->why, "%s: ", c->op);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(c->why, fmt, ap);
    va_end(ap);
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

int64_t infer_attr_int(const InferCall *c, const char *name, int64_t dflt)
{
    const graft_attr_value *v = node_given_attr(c->node, name);
    return v && v->kind == GRAFT_ATTR_INT ? v->i : dflt;
}

const char *infer_attr_str(const InferCall *c, const char *name, const char *dflt)
{
    const graft_attr_value *v = node_given_attr(c->node, name);
    return v && v->kind == GRAFT_ATTR_STRING ? v->s : dflt;
}

int infer_attr_ints(InferCall *c, const char *name, int64_t *out, int max)
{
    int bad_item;
    int n = attr_value_ints(node_given_attr(c->node, name), out, max, &bad_item);
    switch (n) {
    case ATTR_INTS_ABSENT: return -1;
    case ATTR_INTS_BAD_LIST:
        infer_fail(c, "attribute %s: wants a list of at most %d ints", name, max);
        return -2;
    case ATTR_INTS_BAD_ITEM:
        infer_fail(c, "attribute %s: item %d is no int", name, bad_item);
        return -2;
    default: return n;
    }
}

int infer_in_ints(InferCall *c, int i, int64_t *out, int max)
{
    const OnnxType *t = infer_in(c, i);
    int64_t n;
    const double *values = t ? infer_values(c, t, &n) : NULL;
    if (!values)
        return -1;
    if (n > max) {
        infer_fail(c, "input %d: more than %d values", i + 1, max);
        return -2;
    }
    for (int64_t k = 0; k < n; k++)
        out[k] = (int64_t)values[k];
    return (int)n;
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
    c->out[i].source = NULL;
    c->out[i].absent = false;
}

int64_t infer_dim_meet(int64_t a, int64_t b, bool *clash)
{
    *clash = dim_known(a) && dim_known(b) && a != b;
    if (a == b || dim_known(a) || b == DIM_ANY)
        return a;
    if (dim_known(b) || a == DIM_ANY)
        return b;
    return DIM_ANY; /* two symbols */
}

/* One dim of a broadcast: 1 gives way to the other; a number to no
 * symbol; two symbols of one name stay it, any other pair of unknowns is
 * unknown (onnx/defs' multidirectionalBroadcastShapeInference: N with N
 * is N, N with 3 is 3, N with M or "?" is unknown). */
static int64_t broadcast_dim(int64_t da, int64_t db)
{
    if (da == 1 || db == 1)
        return da == 1 ? db : da;
    if (da == db || dim_known(da))
        return da;
    return dim_known(db) ? db : DIM_ANY;
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
        if (da != db && da != 1 && db != 1 && dim_known(da) && dim_known(db))
            return infer_fail(c, "dims %lld and %lld do not broadcast", (long long)da,
                              (long long)db);
        r->dims[i] = broadcast_dim(da, db);
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
