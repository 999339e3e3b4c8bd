/* fold.c - constant folding (note [constant folding] in fold.h): nodes
 * evaluated from constants, and their values made constants of the graph. */
#include "fold.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "eval.h"
#include "keymap.h"
#include "pattern.h"

/* ---- values of leaves ---- */

/* Whether the evaluator's doubles hold a 64-bit integer element exactly
 * (note [constant folding]): up to 2^53, and the ends INT64_MAX,
 * INT64_MIN and UINT64_MAX, which a double rounds to 2^63 (-2^63, 2^64)
 * and put_element saturates back (torch's exports write INT64_MAX as
 * Slice's open end).  A value past that would fold to another number. */
static bool exact_integer(double v, bool is_signed)
{
    return fabs(v) <= 0x1p53 || v == (is_signed ? 0x1p63 : 0x1p64) ||
           (is_signed && v == -0x1p63);
}

bool fold_exact_raw_integer(uint64_t u, bool is_signed)
{
    if (is_signed)
        return (int64_t)u == INT64_MAX || (int64_t)u == INT64_MIN ||
               ((int64_t)u >= -(1LL << 53) && (int64_t)u <= (1LL << 53));
    return u == UINT64_MAX || u <= (1ULL << 53);
}

/* Whether every element of t, of any dtype, is held exactly. */
static bool exact_tensor(const Tensor *t)
{
    bool wide = strcmp(t->dtype, "int64") == 0 || strcmp(t->dtype, "uint64") == 0;
    for (size_t i = 0; wide && i < t->size; i++)
        if (!exact_integer(t->data[i], t->dtype[0] == 'i'))
            return false;
    return true;
}

/* A Relay meta constant's elements from the module's section (note [meta
 * constants] in fold.h), of the type its annotation gives. */
static bool meta_leaf(const graft_node *n, const FoldEnv *env, Value *out, StrBuf *why)
{
    long long index;
    const graft_type *t = node_type(n);
    if (sscanf(node_const_text(n), "meta[relay.Constant][%lld]", &index) != 1) {
        strbuf_printf(why, "constant '%s' has no elements graft can read", node_const_text(n));
        return false;
    }
    Tensor v = {0};
    const char *no = eval_meta_constant(env->meta, index, &v);
    bool typed = !no && t && t->kind == TYPE_TENSOR && t->rank == v.rank &&
                 eval_dtype(t->dtype) && strcmp(eval_dtype(t->dtype), v.dtype) == 0;
    for (int i = 0; typed && i < t->rank; i++)
        typed = t->dims[i] == v.dims[i];
    if (typed && v.size > env->max_elements)
        no = "it is larger than the limit fold-elements";
    else if (!no && !typed)
        no = "its value in the metadata section is not of its annotated type";
    if (no) {
        strbuf_printf(why, "constant '%s': %s", node_const_text(n), no);
        tensor_free(&v);
        return false;
    }
    out->nfields = -1;
    out->t = v;
    return true;
}

/* A tensor constant's elements, read from its raw bytes. */
static bool tensor_leaf(const graft_node *n, const FoldEnv *env, Value *out, StrBuf *why)
{
    const graft_type *t = node_type(n);
    size_t nbytes;
    const unsigned char *bytes = node_const_data(n, &nbytes);
    if (!bytes && env->meta)
        return meta_leaf(n, env, out, why);
    uint64_t max_elements = env->max_elements;
    const char *dtype = t && t->kind == TYPE_TENSOR ? eval_dtype(t->dtype) : NULL;
    size_t size = dtype ? dtype_size(dtype_from_name(dtype)) : 0;
    uint64_t count = 1;
    for (int i = 0; t && t->kind == TYPE_TENSOR && i < t->rank; i++)
        count = t->dims[i] < 0 ? UINT64_MAX : count * (uint64_t)t->dims[i];
    if (!bytes || !dtype || size == 0 || t->rank > EVAL_MAX_RANK || count > max_elements ||
        count * size != nbytes) {
        strbuf_printf(why, "constant '%s' has no elements graft can read%s",
                      node_const_text(n), count > max_elements && count != UINT64_MAX
                          ? " within the limit fold-elements" : "");
        return false;
    }
    bool wide = size == 8 && !eval_is_float(dtype);
    for (size_t i = 0; wide && i < count; i++)
        if (!fold_exact_raw_integer(eval_le_uint(bytes + i * size, 8), dtype[0] == 'i')) {
            strbuf_printf(why, "element %zu of '%s' is past 2^53, which the evaluator's "
                          "doubles do not hold exactly", i, node_const_text(n));
            return false;
        }
    out->nfields = -1;
    out->t = tensor_new(dtype, t->rank, t->dims);
    eval_raw_elements(out->t.data, out->t.size, bytes, dtype, (int)size);
    return true;
}

static bool leaf_value(const graft_node *n, const FoldEnv *env, Value *out, StrBuf *why)
{
    if (node_kind(n) == NODE_TUPLE && node_nargs(n) == 0) {
        out->nfields = 0; /* a left-out optional input */
        out->fields = NULL;
        return true;
    }
    if (node_kind(n) != NODE_CONST) {
        strbuf_printf(why, "%s is not a constant",
                      node_kind(n) == NODE_VAR ? node_name(n) : "an operand");
        return false;
    }
    if (!node_const_is_scalar(n))
        return tensor_leaf(n, env, out, why);
    const char *dtype = eval_dtype(node_const_dtype(n));
    if (!dtype) {
        strbuf_printf(why, "constant %s: dtype not evaluated", node_const_text(n));
        return false;
    }
    out->nfields = -1;
    out->t = tensor_new(dtype, 0, NULL);
    out->t.data[0] = eval_round(node_const_value(n), dtype); /* 1e-05f is a float32 */
    return true;
}

/* Rounds every tensor of v to its dtype (note [constant folding]). */
static void round_value(Value *v)
{
    for (int i = 0; i < v->nfields; i++)
        round_value(&v->fields[i]);
    if (v->nfields < 0)
        eval_round_array(v->t.data, v->t.size, v->t.dtype);
}

/* n's value from its operands' (args), or from itself for a leaf. */
static bool node_value(const graft_node *n, const Value *args, const FoldEnv *env, Value *out,
                       StrBuf *why)
{
    int nargs = node_nargs(n);
    if (node_kind(n) == NODE_CALL && node_op(n)) {
        EvalOptions o = {.mode = EVAL_DTYPE, .max_elements = env->max_elements};
        EvalError err = {0};
        bool ok = eval_op(n, args, nargs, &o, out, &err);
        if (!ok)
            strbuf_printf(why, "%s", err.msg.data ? err.msg.data : node_op(n));
        else /* each op's result in its dtype, as eval.c's walk rounds it */
            round_value(out);
        strbuf_free(&err.msg);
        return ok;
    }
    if (node_kind(n) == NODE_GETITEM) {
        if (args[0].nfields <= node_index(n)) {
            strbuf_printf(why, "field %d of a value without it", node_index(n));
            return false;
        }
        *out = value_copy(&args[0].fields[node_index(n)]);
        return true;
    }
    if (node_kind(n) == NODE_TUPLE && nargs > 0) {
        out->nfields = nargs;
        out->fields = xcalloc((size_t)nargs, sizeof *out->fields);
        for (int i = 0; i < nargs; i++)
            out->fields[i] = value_copy(&args[i]);
        return true;
    }
    return leaf_value(n, env, out, why);
}

/* ---- values as constants ---- */

/* The float16 bits of v, which holds a float16 value (EVAL_DTYPE rounded
 * it); larger magnitudes are infinite. */
static uint16_t half_bits(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (isnan(v))
        return 0x7e00;
    if (a >= 65520.0)
        return sign | 0x7c00;
    if (a < 0x1p-14)
        return sign | (uint16_t)lrint(a * 0x1p24); /* subnormal (0x400: the least normal) */
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    long frac = lrint((m * 2 - 1) * 1024);
    int biased = e - 1 + 15;
    if (frac == 1024)
        frac = 0, biased++;
    return biased >= 31 ? sign | 0x7c00 : (uint16_t)(sign | biased << 10 | frac);
}

/* The bits of an integer element: two's complement, saturated at the
 * ends of int64 (or uint64), so that INT64_MAX, which a double holds as
 * 2^63, comes back (torch exports write it as Slice's open end). */
static uint64_t integer_bits(double v, bool is_signed)
{
    if (isnan(v))
        return 0;
    if (is_signed)
        return v >= 0x1p63 ? (uint64_t)INT64_MAX
               : v <= -0x1p63 ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)v;
    return v >= 0x1p64 ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)v;
}

/* Element v of dtype d, size bytes, little-endian at p. */
static void put_element(unsigned char *p, double v, DType d, size_t size)
{
    uint64_t bits;
    if (d == DTYPE_FLOAT32 || d == DTYPE_BFLOAT16) {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        bits = d == DTYPE_FLOAT32 ? w : w >> 16; /* v holds a bfloat16 value */
    } else if (d == DTYPE_FLOAT64) {
        memcpy(&bits, &v, sizeof bits);
    } else if (d == DTYPE_FLOAT16) {
        bits = half_bits(v);
    } else if (d == DTYPE_BOOL) {
        bits = v != 0;
    } else {
        const DTypeInfo *info = dtype_info(d);
        bits = integer_bits(v, info && info->is_signed);
    }
    for (size_t b = 0; b < size; b++)
        p[b] = (unsigned char)(bits >> (8 * b));
}

graft_node *fold_raw_const(graft_graph *g, const char *name, const char *dtype, int rank,
                           const int64_t *dims, unsigned char *bytes, size_t nbytes)
{
    graph_own(g, bytes);
    graft_node *c = graph_add_tensor_const(g, name, NULL, bytes, nbytes);
    graph_set_type(g, c, graph_type_tensor(g, dtype, dims, rank));
    return c;
}

graft_node *fold_tensor_const(graft_graph *g, const Tensor *t, const char *name)
{
    DType d = dtype_from_name(t->dtype);
    size_t size = dtype_size(d);
    unsigned char *bytes = xmalloc(t->size * size + 1);
    for (size_t i = 0; i < t->size; i++)
        put_element(bytes + i * size, t->data[i], d, size);
    return fold_raw_const(g, name, t->dtype, t->rank, t->dims, bytes, t->size * size);
}

/* A new meta[relay.Constant][k] holding t (note [meta constants]), typed
 * and annotated as TVM's printer writes a constant. */
static graft_node *meta_const(graft_graph *g, const Tensor *t, int64_t *next_meta)
{
    StrBuf name = {0};
    strbuf_printf(&name, "meta[relay.Constant][%lld]", (long long)(*next_meta)++);
    graft_node *c = fold_tensor_const(g, t, name.data);
    name.len = 0;
    strbuf_printf(&name, "/* ty=%s */", node_type(c)->text);
    graph_set_annotation(g, c, name.data);
    strbuf_free(&name);
    return c;
}

/* The constant of value v that n computed: a tensor constant in ONNX, a
 * scalar or a meta constant in Relay (note [meta constants]). */
static graft_node *make_const(graft_graph *g, const graft_node *n, const Value *v,
                              const FoldEnv *env, StrBuf *why)
{
    if (v->nfields >= 0 || !exact_tensor(&v->t)) {
        strbuf_printf(why, v->nfields >= 0 ? "the value is a tuple"
                                            : "an integer of the value is past 2^53");
        return NULL;
    }
    const graft_node *call = node_kind(n) == NODE_GETITEM ? node_arg(n, 0) : n;
    if (graph_ir(g) == IR_ONNX) {
        StrBuf name = {0};
        strbuf_printf(&name, "folded_%s", node_op(call) ? node_op(call) : "value");
        graft_node *c = fold_tensor_const(g, &v->t, name.data);
        strbuf_free(&name);
        return c;
    }
    if (v->t.rank > 0 && env->next_meta)
        return meta_const(g, &v->t, env->next_meta);
    StrBuf text = {0};
    const char *no = v->t.rank > 0 ? "the metadata section cannot take a new constant"
                                   : pattern_const_text(v->t.data[0], v->t.dtype, &text);
    graft_node *c = NULL;
    if (no)
        strbuf_printf(why, "%s", no);
    else {
        c = graph_add_const(g, text.data, eval_round(v->t.data[0], v->t.dtype), v->t.dtype);
        graph_set_type(g, c, graph_type_tensor(g, v->t.dtype, NULL, 0));
    }
    strbuf_free(&text);
    return c;
}

/* ---- fold(...) in an action ---- */

typedef VEC(graft_node *) NodeList;

/* The nodes under root, operands first; false when one of them is
 * opaque (a function, a let): the map gives each its index. */
static bool collect(graft_node *root, NodeList *order, KeyMap *index)
{
    typedef struct Frame {
        graft_node *n;
        int next;
    } Frame;
    VEC(Frame) stack = {0};
    vec_push(&stack, ((Frame){root, 0}));
    keymap_put_ptr(index, root, root);
    bool ok = true;
    while (stack.len && ok) {
        Frame *f = &stack.items[stack.len - 1];
        ok = !node_is_opaque(f->n);
        if (ok && f->next < node_nargs(f->n)) {
            graft_node *a = node_arg(f->n, f->next++);
            if (!keymap_get_ptr(index, a)) {
                keymap_put_ptr(index, a, a);
                vec_push(&stack, ((Frame){a, 0}));
            }
            continue;
        }
        *keymap_put(index, keymap_ptr_key(f->n), 0) = (int64_t)order->len;
        vec_push(order, f->n);
        stack.len--;
    }
    vec_free(&stack);
    return ok;
}

/* The operand values of n, gathered into args (nargs + 1 entries). */
static void gather(const graft_node *n, const Value *vals, const KeyMap *index, Value *args)
{
    for (int i = 0; i < node_nargs(n); i++)
        args[i] = vals[*keymap_get(index, keymap_ptr_key(node_arg(n, i)))];
}

graft_node *fold_expr(graft_graph *g, graft_node *root, const FoldEnv *env, StrBuf *why)
{
    graft_node *packed = fold_bytes_concat(g, root, env); /* note [byte folds] */
    if (packed)
        return packed;
    StrBuf scratch = {0};
    why = why ? why : &scratch;
    NodeList order = {0};
    KeyMap index = {0};
    bool ok = collect(root, &order, &index);
    if (!ok)
        strbuf_printf(why, "an operand is a function or control flow");
    Value *vals = xcalloc(order.len + 1, sizeof *vals);
    size_t done = 0;
    for (; ok && done < order.len; done++) {
        graft_node *n = order.items[done];
        Value *args = xcalloc((size_t)node_nargs(n) + 1, sizeof *args);
        gather(n, vals, &index, args);
        ok = node_value(n, args, env, &vals[done], why);
        free(args);
    }
    graft_node *c = ok ? make_const(g, root, &vals[order.len - 1], env, why) : NULL;
    for (size_t i = 0; i < done; i++)
        value_free(&vals[i]);
    free(vals);
    vec_free(&order);
    keymap_free(&index);
    strbuf_free(&scratch);
    return c;
}

/* ---- graft run --fold-constants ---- */

/* One walk's state, per node id. */
typedef struct Folder {
    graft_graph *g;
    FoldEnv env;
    Value *vals;        /* the value of a constant node, until settled */
    uint8_t *constant;  /* 1: its value is known (kept after settling) */
    uint32_t *pending;  /* operand slots of unvisited nodes reading it */
    uint64_t replaced;
} Folder;

/* Whether a node of a folded value may be replaced itself: an op call or
 * an element of one (a tuple stays, the graph's output tuple among them). */
static bool replaceable(const graft_node *n)
{
    return node_kind(n) == NODE_GETITEM || (node_kind(n) == NODE_CALL && node_op(n));
}

/* Whether a constant n is read by something that is not folded: then the
 * value is needed as a constant node; one nothing reads is a root (the
 * output, a function's body). */
static bool read_unfolded(const Folder *f, const graft_node *n)
{
    if (!node_nusers(n))
        return true;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        const graft_node *user = node_user(n, k);
        if (!f->constant[node_id(user)] || !replaceable(user))
            return true;
    }
    return false;
}

/* Once every reader of n was visited: n is replaced by its value where
 * an unfolded node reads it (a call or an element; leaves and tuples
 * stay), and its value is freed. */
static void settle(Folder *f, graft_node *n)
{
    uint32_t id = node_id(n);
    if (replaceable(n) && f->vals[id].nfields < 0 && read_unfolded(f, n)) {
        StrBuf why = {0};
        graft_node *c = make_const(f->g, n, &f->vals[id], &f->env, &why);
        strbuf_free(&why);
        if (c) {
            graph_replace_all_uses(f->g, n, c);
            f->replaced++;
        }
    }
    value_free(&f->vals[id]);
}

/* Visits n: its value when its operands all have one. */
static void visit(Folder *f, graft_node *n)
{
    int nargs = node_nargs(n);
    bool all = !node_is_opaque(n) && node_kind(n) != NODE_VAR &&
               (node_kind(n) != NODE_CALL || node_op(n));
    for (int i = 0; i < nargs && all; i++)
        all = f->constant[node_id(node_arg(n, i))];
    if (all) {
        Value *args = xcalloc((size_t)nargs + 1, sizeof *args);
        for (int i = 0; i < nargs; i++)
            args[i] = f->vals[node_id(node_arg(n, i))];
        StrBuf why = {0};
        f->constant[node_id(n)] = node_value(n, args, &f->env, &f->vals[node_id(n)], &why);
        strbuf_free(&why);
        free(args);
    }
    for (int i = 0; i < nargs; i++) {
        graft_node *a = node_arg(n, i);
        if (--f->pending[node_id(a)] == 0 && f->constant[node_id(a)])
            settle(f, a);
    }
}

uint64_t fold_constants(graft_graph *g, uint64_t max_elements)
{
    uint32_t count = graph_node_count(g);
    graft_node **order = xcalloc((size_t)count + 1, sizeof *order);
    uint32_t n = graph_remove_dead_order(g, order);
    Folder f = {.g = g, .env = {.max_elements = max_elements}};
    EvalMeta *meta = graph_ir(g) == IR_RELAY ? eval_meta_new(graph_metadata(g)) : NULL;
    int64_t next_meta = meta ? fold_meta_base(g, meta, NULL) : -1; /* note [meta constants] */
    f.env.meta = meta;
    f.env.next_meta = next_meta >= 0 ? &next_meta : NULL;
    f.vals = xcalloc((size_t)count + 1, sizeof *f.vals);
    f.constant = xcalloc((size_t)count + 1, 1);
    f.pending = xcalloc((size_t)count + 1, sizeof *f.pending);
    for (uint32_t k = 0; k < n; k++)
        for (int i = 0; i < node_nargs(order[k]); i++)
            f.pending[node_id(node_arg(order[k], i))]++;
    for (uint32_t k = 0; k < n; k++) {
        visit(&f, order[k]);
        if (f.pending[node_id(order[k])] == 0 && f.constant[node_id(order[k])])
            settle(&f, order[k]);
    }
    free(f.vals);
    free(f.constant);
    free(f.pending);
    free(order);
    eval_meta_free(meta);
    fold_meta_commit(g);
    return f.replaced;
}
