/* onnx_export_fnkey.c - a partition's function found by its body's key,
 * or its body's fit to the last key's shape, without making it (note
 * [function keys], note [body shapes]).
 *
 * note [function keys]: partitions of one body share one FunctionProto
 * (note [one function per body] in onnx_export_fn.c), found by packing
 * each function made and comparing the bytes; but making and packing a
 * function only to find it a copy was most of writing a partitioned model
 * (bench/onnx_e2e.sh: 17,400 instructions a function of the seed's batch
 * norm, 2,000 of them).  So a function's body is first read into a key,
 * words that hold everything its bytes are made of, in the order
 * onnx_export_fn.c makes them: per node of the body in its walk's order,
 * a call's op (interned: equal names are equal pointers), its domain
 * (by its address, key_call_values), its inputs and outputs as local references (the parameter's
 * position, or the number of the value in the order local_name names
 * them "t<k>", or a left-out input), its attributes' every field; a
 * constant's dtype and value, or its name (which picks the initializer
 * written), type and bytes (by their address); and the number of
 * inputs, the doc string's text (by its interned address) and the
 * outputs.  Equal keys so make equal bytes, and a key's function is the
 * first function made with those bytes, the one the comparison of bytes
 * would find: the output is the same byte for byte, which
 * tests/check_onnx_fnkey.c asserts on partitioned models of tests/onnx/
 * (a Conv's lists of ints, functions of several outputs, an If) written
 * with the keys on and off.  Keys are compared whole (a hash
 * finds the candidates), so a hash collision costs a comparison, not a
 * wrong function.  What a key does not cover -- an attribute holding a
 * tensor or a graph (a subgraph's reads are renamed), a node made by a
 * rewrite that has attributes, a call of a function, a build whose
 * onnx.proto has fields this file does not know (export_pack_fields_known)
 * -- makes the body go the general way, and a key that differs only by an
 * address (a copy of a constant's bytes) does too: then the bytes still
 * find the function. */
#include "onnx_export_fn.h"

#include <stdlib.h>
#include <string.h>

_Thread_local bool export_function_keys_on = true;
_Thread_local unsigned long export_function_key_hits;
_Thread_local unsigned long export_function_shape_hits;

typedef struct KeyFrame {
    const graft_node *n;
    int next;
} KeyFrame;

typedef struct KeyEntry {
    size_t at, len;         /* the key's words in FunctionKeys.words */
    Onnx__FunctionProto *f; /* the function made for it */
    uint32_t next;          /* the entry of the same hash filed before, + 1 */
    uint32_t shape;         /* its body's shape + 1, 0 before the key is
                               found, or NO_SHAPE: note [body shapes] */
} KeyEntry;

/* One node of a body's shape (note [body shapes]): a call or a constant
 * of the body the shape was made from, with what its key holds but its
 * references. */
typedef struct ShapeNode {
    const char *op;       /* a call's op; NULL: a constant */
    const void *domain;   /* a call's domain, as key_call_values puts it */
    uint32_t args;        /* its operands' references (REF_ or
                             SHAPE_FIRST), at FunctionKeys.shape_args */
    int nargs;
    uint32_t words, nwords; /* a call's attributes' words, a constant's
                               (const_words), at FunctionKeys.shape_words */
    size_t nattr;         /* a call's attributes */
    int nout;             /* a call's results (export_fn_results, no tuple) */
    bool old;             /* a call of the model's: a NodeProto */
} ShapeNode;

/* A body's shape: its nodes, operands first, the root last. */
typedef struct Shape {
    uint32_t nodes, count; /* at FunctionKeys.shape_nodes */
    int nparams;
    const char *pfp;       /* its PartitionedFromPattern, as the key puts it */
    const graft_attr *attrs; /* the function's attributes, which hold it:
                                the partition gives the functions of one
                                name one array (partition_fn_attrs) */
    int nattrs;
} Shape;

struct FunctionKeys {
    VEC(uint64_t) words;  /* the keys filed, back to back, then the one made */
    size_t start;         /* where the key made last starts, when pending */
    uint64_t hash;        /* the key made last, when pending */
    bool pending;         /* a key was made and not found */
    VEC(KeyEntry) entries;
    KeyMap by_hash;       /* a key's hash -> its last entry + 1 */
    uint32_t last;        /* the entry found or filed last, + 1: note [last key first] */
    uint32_t *mark;       /* per node id: note [walk marks] */
    uint64_t *ref;        /* per node id: its local reference, when
                             mark says it has one */
    uint32_t nids, met;   /* entries in the per-id arrays; the walk's
                             mark of a node met (note [walk marks]) */
    uint32_t next;        /* the next local number */
    VEC(KeyFrame) stack;  /* key_nodes's, kept from one body to the next */
    VEC(const graft_node *) order; /* the calls and constants the key
                                      made last met, in its order */
    VEC(Shape) shapes;    /* note [body shapes] */
    VEC(ShapeNode) shape_nodes;
    VEC(uint32_t) shape_args;     /* the shape nodes' operands' references */
    VEC(uint64_t) shape_words;    /* their attributes' or constants' words */
    VEC(const graft_node *) image; /* shape_fits's: the body's node each
                                      shape node is taken to */
    bool fields_known;    /* export_pack_fields_known, asked once */
    const char *pfp;      /* "PartitionedFromPattern", interned: the
                             partition's name of the attribute, which
                             node_find_attr finds by its address first (a
                             strcmp was 40 instructions a function) */
};
typedef struct FunctionKeys FunctionKeys;

/* Local references: a number "t<k>" (k << 2), a parameter (position << 2
 * | 1), a left-out input (2), a variable no parameter (3, then its name). */
enum { REF_TEMP = 0, REF_PARAM = 1, REF_NONE = 2, REF_VAR = 3 };
/* A shape's reference to an operand: a local reference (REF_TEMP, whose
 * number is the shape node's index, REF_PARAM or REF_NONE), or, for the
 * first reference to a node in shape_fits's order, that node's index
 * shifted as a REF_TEMP's, SHAPE_FIRST (a shape has no REF_VAR). */
enum { SHAPE_FIRST = REF_VAR };
/* A key entry's shape when its body holds what a shape does not. */
#define NO_SHAPE UINT32_MAX
/* What a node of the key is, so that no two lists run together. */
enum { KEY_CALL = 0x100, KEY_SCALAR, KEY_TENSOR, KEY_ATTR, KEY_END };

static void put(FunctionKeys *k, uint64_t w)
{
    vec_push(&k->words, w);
}

static void put_ptr(FunctionKeys *k, const void *p)
{
    put(k, (uint64_t)(uintptr_t)p);
}

/* len bytes at data as words, the last one zero-padded. */
static void put_words(FunctionKeys *k, const void *data, size_t len)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = 0;
        memcpy(&w, (const uint8_t *)data + i, len - i < 8 ? len - i : 8);
        put(k, w);
    }
}

/* Bytes: their length, then their words. */
static void put_bytes(FunctionKeys *k, const void *data, size_t len)
{
    put(k, len);
    put_words(k, data, len);
}

/* A string field: 0 when unset, else its length + 1 and its words. */
static void put_string(FunctionKeys *k, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    put(k, s ? len + 1 : 0);
    put_words(k, s, len);
}

/* note [walk marks]: a walk of a body marks the nodes it meets and
 * those it gave a local reference in one array of words, cleared once:
 * each walk takes two marks of its own, met (even) and met + 1, a node
 * it met at least met, one with a reference met + 1, so that every mark
 * of the walks before is below both.  Every node is met before it gets a
 * reference, but for a parameter (given one at the start; a variable is
 * never walked) and an element of a call's result (given one with the
 * call; walked, it would only read the call, met already).  A second
 * array of marks cleared was 13 instructions an op node of the
 * workload's partition (bench/workload.sh). */

/* The per-id arrays, for ids below n, the marks cleared where new. */
static void cover_ids(FunctionKeys *k, uint32_t n)
{
    if (n <= k->nids)
        return;
    k->mark = xrealloc(k->mark, n * sizeof *k->mark);
    k->ref = xrealloc(k->ref, n * sizeof *k->ref);
    memset(k->mark + k->nids, 0, (n - k->nids) * sizeof *k->mark);
    k->nids = n;
}

/* n's local reference, numbered as local_name in onnx_export_fn.c names
 * it: a new value takes the next number when first asked for.  Written
 * at w (room for two words, reserved by the caller: a push per word
 * reloaded the vector's length after each store); returns the word
 * after it. */
static inline uint64_t *put_ref_at(FunctionKeys *k, uint64_t *w, const graft_node *n)
{
    uint32_t id = node_id(n);
    if (k->mark[id] == k->met + 1) { /* (most: a parameter, a value met) */
        *w = k->ref[id];
        return w + 1;
    }
    if (node_kind(n) == NODE_TUPLE && node_nargs(n) == 0) {
        *w = REF_NONE;
        return w + 1;
    }
    if (node_kind(n) == NODE_VAR) {
        w[0] = REF_VAR;
        w[1] = (uint64_t)(uintptr_t)node_name(n);
        return w + 2;
    }
    k->mark[id] = k->met + 1;
    k->ref[id] = (uint64_t)k->next++ << 2 | REF_TEMP;
    *w = k->ref[id];
    return w + 1;
}

static void put_ref(FunctionKeys *k, const graft_node *n)
{
    vec_reserve(&k->words, k->words.len + 2);
    k->words.len = (size_t)(put_ref_at(k, k->words.items + k->words.len, n) - k->words.items);
}

/* Whether a sets only the fields a key holds: a number, a string, or
 * lists of them (tensor_attribute in onnx_export_pack.c asks the same
 * fields). */
static bool plain_attribute(const Onnx__AttributeProto *a)
{
    return a && !a->t && !a->g && !a->sparse_tensor && !a->tp && !a->n_tensors &&
           !a->n_graphs && !a->n_sparse_tensors && !a->n_type_protos && !a->ref_attr_name &&
           !a->doc_string && !a->base.n_unknown_fields;
}

static void put_attribute(FunctionKeys *k, const Onnx__AttributeProto *a)
{
    put(k, KEY_ATTR);
    put_string(k, a->name);
    put(k, (uint64_t)a->has_type << 32 | (uint32_t)a->type);
    put(k, (uint64_t)a->has_f << 1 | a->has_i << 2 | a->has_s << 3);
    uint32_t f;
    memcpy(&f, &a->f, sizeof f);
    put(k, a->has_f ? f : 0);
    put(k, a->has_i ? (uint64_t)a->i : 0);
    if (a->has_s)
        put_bytes(k, a->s.data, a->s.len);
    put_bytes(k, a->floats, a->n_floats * sizeof *a->floats);
    put_bytes(k, a->ints, a->n_ints * sizeof *a->ints);
    put(k, a->n_strings);
    for (size_t i = 0; i < a->n_strings; i++)
        put_bytes(k, a->strings[i].data, a->strings[i].len);
}

/* Call n's op, domain, inputs and outputs at the end of k's words, as
 * body_call writes them.  The domain by its address, not its text (a
 * strlen and its words, 36 instructions a node of the key,
 * bench/onnx_e2e.sh): the decoder interns every string (note [interned
 * strings] in onnx_decode.h), so equal addresses are equal texts, and a
 * text at two addresses would only send a body the general way (note
 * [function keys]), which finds its function by the bytes. */
GRAFT_HOT void key_call_values(const Exporter *ex, FunctionKeys *k, const graft_node *n,
                               const Onnx__NodeProto *old, size_t nin)
{
    bool tuple;
    int nout = export_fn_results(n, &tuple);
    vec_reserve(&k->words, k->words.len + 6 + 2 * (nin + (size_t)nout));
    uint64_t *w = k->words.items + k->words.len;
    *w++ = KEY_CALL;
    *w++ = (uint64_t)(uintptr_t)node_op(n);
    *w++ = (uint64_t)(uintptr_t)(old ? old->domain : graph_node_domain(ex->g, n));
    *w++ = nin;
    for (size_t i = 0; i < nin; i++)
        w = put_ref_at(k, w, node_arg(n, (int)i));
    *w++ = (uint64_t)nout << 1 | tuple;
    for (int i = 0; i < nout; i++) {
        const graft_node *r = tuple ? export_result_of(ex, n, i) : n;
        if (r)
            w = put_ref_at(k, w, r);
        else
            *w++ = REF_NONE;
    }
    *w++ = old ? old->n_attribute : 0;
    k->words.len = (size_t)(w - k->words.items);
}

/* The attributes of a call's NodeProto old (NULL: none) at the end of
 * k's words; false for one a key does not cover. */
static bool key_attributes(FunctionKeys *k, const Onnx__NodeProto *old)
{
    for (size_t i = 0; old && i < old->n_attribute; i++) {
        if (!plain_attribute(old->attribute[i]))
            return false;
        put_attribute(k, old->attribute[i]);
    }
    return true;
}

/* Call n as body_call writes it; false for what a key does not cover. */
GRAFT_HOT bool key_call(const Exporter *ex, FunctionKeys *k, const graft_node *n)
{
    uint32_t id = node_id(n);
    const Onnx__NodeProto *old = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    size_t nin = export_own_inputs(ex, n);
    if (nin != (size_t)node_nargs(n) || (!old && node_nattrs(n)))
        return false;
    key_call_values(ex, k, n, old, nin);
    return key_attributes(k, old);
}

/* Constant c as constant_node writes it, at w (CONST_WORDS words);
 * returns how many: a scalar's dtype and value, or a tensor's name
 * (which picks the initializer written), type and bytes. */
enum { CONST_WORDS = 5 };
static size_t const_words(const graft_node *c, uint64_t *w)
{
    if (node_const_is_scalar(c)) {
        double v = node_const_value(c);
        w[0] = KEY_SCALAR;
        w[1] = (uint64_t)(uintptr_t)node_const_dtype(c);
        memcpy(&w[2], &v, sizeof w[2]);
        return 3;
    }
    size_t nbytes = 0;
    const void *data = node_const_data(c, &nbytes);
    w[0] = KEY_TENSOR;
    w[1] = (uint64_t)(uintptr_t)node_const_text(c);
    w[2] = (uint64_t)(uintptr_t)node_type(c);
    w[3] = (uint64_t)(uintptr_t)data;
    w[4] = nbytes;
    return 5;
}

/* Constant c's words at the end of k's. */
static void key_const_words(FunctionKeys *k, const graft_node *c)
{
    vec_reserve(&k->words, k->words.len + CONST_WORDS);
    k->words.len += const_words(c, k->words.items + k->words.len);
}

/* Constant c as constant_node writes it, then its name. */
static void key_const(FunctionKeys *k, const graft_node *c)
{
    key_const_words(k, c);
    put_ref(k, c);
}

/* Node n of the body as body_nodes writes it; false for what a key does
 * not cover.  Inline in key_nodes, its two callers, with key_call and
 * key_call_values: the three calls' saving and restoring of registers
 * was 27 instructions a call of the body (bench/workload.sh's partition:
 * 60,000 calls in its 10,000 keys, 22.2 M instructions -> 20.6 M). */
GRAFT_HOT bool key_node(const Exporter *ex, FunctionKeys *k, const graft_node *n)
{
    if (node_kind(n) == NODE_CALL && node_op(n)) {
        vec_push(&k->order, n); /* (for its shape: note [body shapes]) */
        return key_call(ex, k, n);
    }
    if (node_kind(n) == NODE_CONST) {
        vec_push(&k->order, n);
        key_const(k, n);
        return true;
    }
    return node_kind(n) == NODE_VAR || node_kind(n) == NODE_GETITEM ||
           node_kind(n) == NODE_TUPLE;
}

/* The body's calls and constants, operands first, as body_nodes in
 * onnx_export_fn.c walks them; false for what a key does not cover.
 * note [leaves keyed at once]: an operand that reads nothing is keyed
 * when the walk meets it, without a frame it would leave at once (the
 * order is the same), and a variable, which puts nothing in the key,
 * not at all: of the eleven operands of a batch norm's body, five are
 * parameters and one a constant (as emit_from in onnx_export.c does;
 * bench/workload.sh). */
static bool key_nodes(const Exporter *ex, FunctionKeys *k, const graft_node *root)
{
    bool covered = true;
    k->stack.len = 0;
    vec_push(&k->stack, ((KeyFrame){root, 0}));
    while (k->stack.len && covered) {
        KeyFrame *f = &k->stack.items[k->stack.len - 1];
        if (f->next < node_nargs(f->n) && node_kind(f->n) != NODE_VAR) {
            const graft_node *a = node_arg(f->n, f->next++);
            if (node_kind(a) == NODE_VAR || k->mark[node_id(a)] >= k->met)
                continue;
            k->mark[node_id(a)] = k->met;
            if (node_nargs(a) == 0)
                covered = key_node(ex, k, a);
            else
                vec_push(&k->stack, ((KeyFrame){a, 0}));
            continue;
        }
        const graft_node *n = f->n;
        k->stack.len--;
        covered = key_node(ex, k, n);
    }
    return covered;
}

/* Function fn's PartitionedFromPattern (its doc string), or NULL. */
static const char *partition_pattern(const Exporter *ex, FunctionKeys *k,
                                     const graft_node *fn)
{
    if (!k->pfp)
        k->pfp = graph_intern(ex->g, "PartitionedFromPattern");
    const graft_attr_value *pfp = node_find_attr(fn, k->pfp);
    return pfp && pfp->kind == GRAFT_ATTR_STRING ? pfp->s : NULL;
}

/* Function fn's key after k's words: its nodes, inputs, doc string and
 * outputs (function_proto in onnx_export_fn.c); false when not covered. */
static bool make_key(const Exporter *ex, FunctionKeys *k, const graft_node *fn)
{
    k->met += 2;
    k->next = 0;
    k->order.len = 0;
    for (int i = 0, nparams = node_nparams(fn); i < nparams; i++) {
        uint32_t id = node_id(node_param(fn, i));
        k->mark[id] = k->met + 1;
        k->ref[id] = (uint64_t)i << 2 | REF_PARAM;
    }
    if (!key_nodes(ex, k, node_body(fn)))
        return false;
    put(k, KEY_END);
    put(k, (uint64_t)node_nparams(fn));
    put_ptr(k, partition_pattern(ex, k, fn));
    const graft_node *body = node_body(fn);
    bool tuple = node_kind(body) == NODE_TUPLE;
    int nout = tuple ? node_nargs(body) : 1;
    put(k, (uint64_t)nout << 1 | tuple);
    for (int i = 0; i < nout; i++)
        put_ref(k, tuple ? node_arg(body, i) : body);
    return true;
}

/* Whether entry o's key is words[at, at + len). */
static bool same_key(const FunctionKeys *k, const KeyEntry *o, size_t at, size_t len)
{
    return o->len == len &&
           memcmp(k->words.items + o->at, k->words.items + at, len * sizeof *k->words.items) == 0;
}

/* The entry filed with key words[at, at + len) under hash, or NULL. */
static const KeyEntry *find(const FunctionKeys *k, uint64_t hash, size_t at, size_t len)
{
    const int64_t *last = keymap_get(&k->by_hash, hash);
    for (uint32_t e = last ? (uint32_t)*last : 0; e; e = k->entries.items[e - 1].next)
        if (same_key(k, &k->entries.items[e - 1], at, len))
            return &k->entries.items[e - 1];
    return NULL;
}

/* note [last key first]: a model's partitions of one body mostly come one
 * after another (the seed's workload: 10,000 batch norms, one key), so
 * the key found or filed last is compared first, and only a key that is
 * not it is hashed and looked up (the hash of a batch norm's 70 words
 * was 540 instructions of its 3,000, bench/onnx_e2e.sh).  A key is filed
 * once (a key found is not filed again), so the entry that has the key
 * is the one find would give. */
static const KeyEntry *last_if_same(const FunctionKeys *k, size_t at, size_t len)
{
    const KeyEntry *o = k->last ? &k->entries.items[k->last - 1] : NULL;
    return o && same_key(k, o, at, len) ? o : NULL;
}

/* note [body shapes]: making a body's key walks it and writes some
 * seventy words for a batch norm, which are compared with the last key's:
 * 2,050 instructions a function of bench/workload.sh's partition, a third
 * of writing its ONNX.  A key found also keeps its body's shape: the
 * calls and constants its walk met, in the walk's order (operands first,
 * the root last), each with what the key holds of it but its references
 * (a call's op, domain, operand and result counts, attributes; a
 * constant's words), and its operands as references to the shape's
 * nodes or to the function's parameters by position.  A body fits a
 * shape when a one-to-one map takes the shape's root to the body's root,
 * each node's operands to the operands of the node it is taken to, and
 * every node to one of the same values: then its key's walk meets those
 * nodes in the same order, numbers them the same and writes the same
 * words, so its function is that key's (tests/check_onnx_fnkey.c writes
 * models both ways).  The fit is tested from the root down (the shape's
 * nodes in reverse, where every node's users come before it, so the
 * node it is taken to is known when it is reached), each node's image
 * marked as the key's walk marks what it met (note [walk marks]), with
 * no stack and no words written; a function whose body fits the last
 * key's shape (note [last key first]) makes no key.  The shape is made
 * when its key is found the first time, from the body that found it: a
 * model whose bodies all differ makes none and tries no fit (made as
 * each key was filed, shapes and failed fits cost 2,800 instructions a
 * function of 2,000 batch norms of 2,000 epsilons, bench/RESULTS.md).
 * A body holding what a shape does not (an element of a tuple, a tuple,
 * a variable no parameter) keeps none (NO_SHAPE), and its key is made
 * each time. */

/* Whether operand a of a node of the body just keyed has a reference a
 * shape holds, into *ref: a call's or constant's number, which is its
 * place in the walk's order (FunctionKeys.order), a parameter's
 * position, or a left-out input. */
static bool shape_ref(const FunctionKeys *k, const graft_node *a, uint32_t *ref)
{
    if (node_kind(a) == NODE_TUPLE && node_nargs(a) == 0) {
        *ref = REF_NONE;
        return true;
    }
    bool valued = node_kind(a) == NODE_CALL || node_kind(a) == NODE_CONST;
    if (!valued && node_kind(a) != NODE_VAR)
        return false;
    if (k->mark[node_id(a)] != k->met + 1)
        return false; /* a variable no parameter */
    uint64_t r = k->ref[node_id(a)];
    *ref = (uint32_t)r;
    return (r & 3) == (valued ? REF_TEMP : REF_PARAM) && r >> 32 == 0;
}

/* The NodeProto call n was read from, or NULL (a call made since). */
static inline const Onnx__NodeProto *origin_of(const Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    return id < ex->m->norigin ? ex->m->origin[id] : NULL;
}

/* n, the j-th node of the body keyed last, as a shape's node; false for
 * what a shape does not hold. */
static bool shape_node(const Exporter *ex, FunctionKeys *k, const graft_node *n, size_t j)
{
    if (k->ref[node_id(n)] != ((uint64_t)j << 2 | REF_TEMP))
        return false; /* (numbered otherwise: a tuple's element met) */
    ShapeNode sn = {.op = node_op(n), .args = (uint32_t)k->shape_args.len,
                    .nargs = node_nargs(n)};
    size_t at = k->words.len; /* its words made there, then copied */
    if (node_kind(n) == NODE_CALL) {
        bool tuple;
        const Onnx__NodeProto *old = origin_of(ex, n);
        sn.nout = export_fn_results(n, &tuple);
        if (tuple)
            return false;
        sn.old = old != NULL;
        sn.domain = old ? old->domain : graph_node_domain(ex->g, n);
        sn.nattr = old ? old->n_attribute : 0;
        key_attributes(k, old); /* (covered: the key holds them) */
    } else
        key_const_words(k, n);
    sn.words = (uint32_t)k->shape_words.len;
    sn.nwords = (uint32_t)(k->words.len - at);
    for (size_t i = at; i < k->words.len; i++)
        vec_push(&k->shape_words, k->words.items[i]);
    k->words.len = at;
    for (int i = 0; i < node_nargs(n); i++) {
        uint32_t ref;
        if (!shape_ref(k, node_arg(n, i), &ref))
            return false;
        vec_push(&k->shape_args, ref);
    }
    vec_push(&k->shape_nodes, sn);
    return true;
}

/* Marks the first reference to each node of shape s, in shape_fits's
 * order (its nodes from the root down, each one's operands in order), as
 * SHAPE_FIRST: where the fit takes the node to its image.  The nodes of
 * the body keyed last (FunctionKeys.order) are marked as met. */
static void mark_first_refs(FunctionKeys *k, const Shape *s)
{
    k->met += 2;
    for (uint32_t j = s->count; j-- > 0;) {
        const ShapeNode *x = &k->shape_nodes.items[s->nodes + j];
        uint32_t *refs = k->shape_args.items + x->args;
        for (int i = 0; i < x->nargs; i++) {
            if ((refs[i] & 3) != REF_TEMP)
                continue; /* (a parameter, a left-out input) */
            uint32_t id = node_id(k->order.items[refs[i] >> 2]);
            if (k->mark[id] != k->met) {
                k->mark[id] = k->met;
                refs[i] |= SHAPE_FIRST;
            }
        }
    }
}

/* The shape of function fn's body, from the key just made of it (its
 * walk's order and references): its index + 1, or NO_SHAPE for a body
 * holding what a shape does not. */
static uint32_t make_shape(const Exporter *ex, FunctionKeys *k, const graft_node *fn)
{
    size_t count = k->order.len;
    Shape s = {(uint32_t)k->shape_nodes.len, (uint32_t)count, node_nparams(fn),
               partition_pattern(ex, k, fn), NULL, node_nattrs(fn)};
    s.attrs = s.nattrs ? node_attr(fn, 0) : NULL;
    size_t args = k->shape_args.len, words = k->shape_words.len;
    bool held = count && k->order.items[count - 1] == node_body(fn); /* (no tuple) */
    for (size_t j = 0; j < count && held; j++)
        held = shape_node(ex, k, k->order.items[j], j);
    if (!held) {
        k->shape_nodes.len = s.nodes;
        k->shape_args.len = args;
        k->shape_words.len = words;
        return NO_SHAPE;
    }
    mark_first_refs(k, &s);
    vec_push(&k->shapes, s);
    return (uint32_t)k->shapes.len;
}

/* Whether constant y writes what the shape's x does. */
static bool same_const(const FunctionKeys *k, const ShapeNode *x, const graft_node *y)
{
    if (node_kind(y) != NODE_CONST)
        return false;
    uint64_t w[CONST_WORDS];
    size_t n = const_words(y, w);
    return n == x->nwords &&
           memcmp(w, k->shape_words.items + x->words, n * sizeof *w) == 0;
}

/* Whether the attributes of call y's NodeProto old are the shape's x's
 * (the words the key would hold of them). */
static bool same_attributes(FunctionKeys *k, const ShapeNode *x, const Onnx__NodeProto *old)
{
    size_t n = old ? old->n_attribute : 0;
    if (n != x->nattr)
        return false;
    if (!n)
        return true; /* (most: elementwise ops) */
    size_t at = k->words.len;
    bool same = key_attributes(k, old) && k->words.len - at == x->nwords &&
                memcmp(k->words.items + at, k->shape_words.items + x->words,
                       x->nwords * sizeof *k->words.items) == 0;
    k->words.len = at;
    return same;
}

/* Whether y is a call that writes what the shape's call x does but its
 * references (key_call and key_call_values): the same op (so a call),
 * operands, results, NodeProto or none, domain and attributes. */
static bool same_call(const Exporter *ex, FunctionKeys *k, const ShapeNode *x,
                      const graft_node *y)
{
    if (node_op(y) != x->op || node_nargs(y) != x->nargs)
        return false;
    bool tuple;
    if (export_fn_results(y, &tuple) != x->nout || tuple)
        return false;
    const Onnx__NodeProto *old = origin_of(ex, y);
    if (!old) /* a call a rewrite made, of no attributes (key_call) */
        return !x->old && !node_nattrs(y) && graph_node_domain(ex->g, y) == x->domain;
    return x->old && (const void *)old->domain == x->domain &&
           export_proto_inputs(old) == (size_t)x->nargs && same_attributes(k, x, old);
}

/* Whether y's nargs operands are what the shape's references refs take
 * them to: a parameter of the function (params) by position, a left-out
 * input, or the image of a shape's node, which each node is of one only
 * (the first reference makes it, mark_first_refs). */
static bool same_operands(FunctionKeys *k, const graft_node *y, int nargs,
                          const uint32_t *refs, graft_node *const *params,
                          const graft_node **image)
{
    uint32_t met = k->met;
    for (int i = 0; i < nargs; i++) {
        const graft_node *a = node_arg(y, i);
        uint32_t r = refs[i];
        switch (r & 3) {
        case SHAPE_FIRST:
            if (k->mark[node_id(a)] == met)
                return false; /* the image of another node already */
            k->mark[node_id(a)] = met;
            image[r >> 2] = a;
            break;
        case REF_TEMP:
            if (image[r >> 2] != a)
                return false;
            break;
        case REF_PARAM:
            if (a != params[r >> 2])
                return false;
            break;
        default: /* REF_NONE */
            if (node_kind(a) != NODE_TUPLE || node_nargs(a) != 0)
                return false;
        }
    }
    return true;
}

/* Whether function fn, of nattrs attributes, has the
 * PartitionedFromPattern of shape s's: the same attributes (by address,
 * most), or the same one among them. */
static bool same_pattern(const Exporter *ex, FunctionKeys *k, const Shape *s,
                         const graft_node *fn, int nattrs)
{
    if (nattrs == s->nattrs && (!nattrs || node_attr(fn, 0) == s->attrs))
        return true;
    return partition_pattern(ex, k, fn) == s->pfp;
}

/* Whether function fn's body fits shape s (note [body shapes]). */
static bool shape_fits(const Exporter *ex, FunctionKeys *k, const Shape *s,
                       const graft_node *fn)
{
    FuncParts parts = node_func_parts(fn); /* (one call, not four) */
    if (parts.nparams != s->nparams || !same_pattern(ex, k, s, fn, parts.nattrs))
        return false;
    k->met += 2;
    vec_reserve(&k->image, s->count);
    const graft_node **image = k->image.items;
    image[s->count - 1] = parts.body;
    k->mark[node_id(parts.body)] = k->met;
    const ShapeNode *nodes = k->shape_nodes.items + s->nodes;
    for (uint32_t j = s->count; j-- > 0;) {
        const ShapeNode *x = &nodes[j];
        const graft_node *y = image[j]; /* (made by a user of it, before) */
        if (x->op ? !same_call(ex, k, x, y) : !same_const(k, x, y))
            return false;
        if (!same_operands(k, y, x->nargs, k->shape_args.items + x->args, parts.params,
                           image))
            return false;
    }
    return true;
}

/* The function of the last key when fn's body fits its shape, else NULL. */
static Onnx__FunctionProto *last_shape_fits(const Exporter *ex, FunctionKeys *k,
                                            const graft_node *fn)
{
    const KeyEntry *o = k->last ? &k->entries.items[k->last - 1] : NULL;
    if (!o || !o->shape || o->shape == NO_SHAPE ||
        !shape_fits(ex, k, &k->shapes.items[o->shape - 1], fn))
        return NULL;
    return o->f;
}

Onnx__FunctionProto *export_keyed_function(Exporter *ex, const graft_node *fn)
{
    if (!export_function_keys_on)
        return NULL;
    if (!ex->keys) {
        ex->keys = xcalloc(1, sizeof *ex->keys);
        ex->keys->fields_known = export_pack_fields_known();
        cover_ids(ex->keys, graph_node_count(ex->g)); /* (the export makes no node) */
    }
    FunctionKeys *k = ex->keys;
    if (!k->fields_known)
        return NULL; /* fields plain_attribute would not know of */
    k->pending = false;
    Onnx__FunctionProto *f = last_shape_fits(ex, k, fn);
    if (f) {
        export_function_key_hits++;
        export_function_shape_hits++;
        return f;
    }
    k->start = k->words.len;
    if (!make_key(ex, k, fn)) {
        k->words.len = k->start;
        return NULL;
    }
    size_t len = k->words.len - k->start;
    const KeyEntry *same = last_if_same(k, k->start, len);
    if (!same) {
        k->hash = hash_bytes(k->words.items + k->start, len * sizeof *k->words.items, 0) | 1;
        same = find(k, k->hash, k->start, len);
    }
    if (same) {
        k->words.len = k->start;
        k->last = (uint32_t)(same - k->entries.items) + 1;
        if (!same->shape) /* found a first time: note [body shapes] */
            k->entries.items[k->last - 1].shape = make_shape(ex, k, fn);
        export_function_key_hits++;
        return same->f;
    }
    k->pending = true;
    return NULL;
}

void export_key_function(Exporter *ex, Onnx__FunctionProto *f)
{
    FunctionKeys *k = ex->keys;
    if (!k || !k->pending)
        return;
    k->pending = false;
    int64_t *last = keymap_put(&k->by_hash, k->hash, 0);
    KeyEntry e = {k->start, k->words.len - k->start, f, (uint32_t)*last, 0};
    vec_push(&k->entries, e);
    *last = (int64_t)k->entries.len;
    k->last = (uint32_t)k->entries.len;
}

void export_function_keys_free(Exporter *ex)
{
    FunctionKeys *k = ex->keys;
    if (!k)
        return;
    vec_free(&k->words);
    vec_free(&k->entries);
    vec_free(&k->stack);
    vec_free(&k->order);
    vec_free(&k->shapes);
    vec_free(&k->shape_nodes);
    vec_free(&k->shape_args);
    vec_free(&k->shape_words);
    vec_free(&k->image);
    keymap_free(&k->by_hash);
    free(k->mark);
    free(k->ref);
    free(k);
    ex->keys = NULL;
}
