/* onnx_types_memo.c - the types ONNX's inference gave a graph's calls,
 * remembered by what inference reads (onnx_types_memo.h).
 *
 * note [inference memo]: a model repeats a few calls many times (the
 * same op on operands of the same types: its blocks, its layers), and
 * onnx_type_of inferred each afresh, 1,334 instructions a call on
 * bench/onnx_e2e.sh (the op's inference found by name, its inputs'
 * types copied, attributes looked up by name, a new type made when the
 * result is no operand's).  The type inference gives a call is a
 * function of what it reads of the call, and the key holds all of it:
 *   - the op: interned in the graph (graph_add_call), so its address
 *     stands for its name (note [canonical pointers] in graph.c);
 *   - the attributes, in order: each name (interned the same way) and
 *     value by value (kind; an int, a float's bits, a string interned in
 *     the graph, a list's items of one kind); a tensor, subgraph, opaque
 *     or nested value is no key, so Constant, If, Loop and Scan (whose
 *     inference reads tensors and bodies) are inferred each time;
 *   - each operand as operand_type in onnx_types.c sees it: left out,
 *     a tensor's dtype and dims, or nothing known (no type, a tuple); a
 *     tensor by its type's address, which stands for its dtype and dims
 *     as long as the graph lives: every tensor type is made by
 *     graph_type_tensor, one per dtype and dims (note [canonical tensor
 *     types] in src/ir/graph_type.c), never changed once made and kept
 *     in the graph's arena (note [shared types] in onnx_types.c); the
 *     operands' types are also all that output_type reads to share one
 *     as a result, so a key's type is the one its first call got, of
 *     the dtype and dims inference would give again (types may be
 *     shared, graph.h);
 *   - the result count and whether the value is a tuple of them
 *     (result_count in onnx_types.c).
 * The domain is no part of it: only default-domain calls are inferred.
 * Two things are never remembered: a call whose op asked for an input's
 * values (Reshape's shape, Unsqueeze's axes: note [values on demand] in
 * onnx_infer_values.c), as its type depends on a constant's bytes; and a
 * contradiction, whose message names each node where it is found.
 * The 1,714 calls of the corpus make 560 keys, as keys by dtype and
 * dims words do (which cost bench/onnx_e2e.sh about 70 instructions a
 * call more); before the graph's types were canonical, the memo mapped
 * each type to the first of its dtype and dims itself (1,359 keys
 * without that).  The memo belongs to the graph
 * (graph_set_type_memo), freed with it: a graph made later at the same
 * address, whose types and names may sit at the old ones' addresses,
 * starts without one.  A key's hash (hash_bytes of its words) finds its
 * entry through one KeyMap; a second key of a hash already taken is
 * inferred each time (as note [action types] in
 * src/runtime/rewrite_types.c does).  tests/check_onnx_infer_memo.c
 * types every corpus model with the memo and afresh
 * (onnx_type_of_fresh) and finds the same types.
 */
#include "onnx_types_memo.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_graph.h"
#include "util.h"

/* Slots of the cache in front of the memo's KeyMap (note [hot keys]). */
enum { RECENT_BITS = 6 };

/* One key remembered: its words in the pool, and the type. */
typedef struct MemoEntry {
    size_t at, len; /* words[at .. at + len - 1] of the pool */
    const graft_type *type;
} MemoEntry;

typedef struct TypeMemo {
    KeyMap by_hash;          /* a key's hash -> its entry + 1 */
    VEC(MemoEntry) entries;
    VEC(uint64_t) words;     /* the keys' words, one after another */
    struct {                 /* by_hash's recent answers: note [hot keys] */
        uint64_t hash;
        int64_t entry;       /* + 1 */
    } hot[1 << RECENT_BITS];
    OnnxPlainTypes plain;    /* note [plain calls] in onnx_types.c */
} TypeMemo;

static void memo_free(void *memo)
{
    TypeMemo *m = memo;
    keymap_free(&m->by_hash);
    vec_free(&m->entries);
    vec_free(&m->words);
    free(m);
}

/* g's memo, made on first use. */
static TypeMemo *memo_of(graft_graph *g)
{
    TypeMemo *m = graph_type_memo(g, memo_free);
    if (!m) {
        m = xcalloc(1, sizeof *m);
        graph_set_type_memo(g, m, memo_free);
    }
    return m;
}

/* ---- keys ---- */

/* An operand's word when it is no tensor: no type's address (types are
 * aligned). */
enum { UNKNOWN_OPERAND = 0, ABSENT_OPERAND = 1 };

static bool put_word(TypeKey *k, uint64_t w)
{
    if (k->len == TYPE_KEY_WORDS)
        return false;
    k->words[k->len++] = w;
    return true;
}

/* The value of a scalar attribute (its kind is written before it). */
static bool put_scalar(graft_graph *g, TypeKey *k, const graft_attr_value *v)
{
    uint64_t bits;
    switch (v->kind) {
    case GRAFT_ATTR_INT:
    case GRAFT_ATTR_BOOL:
        return put_word(k, (uint64_t)v->i);
    case GRAFT_ATTR_FLOAT:
        memcpy(&bits, &v->f, sizeof bits);
        return put_word(k, bits);
    case GRAFT_ATTR_STRING: /* interned here: a rule's value may be freed */
        return put_word(k, (uint64_t)(uintptr_t)graph_intern(g, v->s));
    case GRAFT_ATTR_NULL:
        return true;
    default: /* a list in a list, a tensor, a subgraph, an opaque value */
        return false;
    }
}

/* An attribute's value: its kind (a list's with its items' kind and
 * count), then its value or its items'. */
static bool put_value(graft_graph *g, TypeKey *k, const graft_attr_value *v)
{
    if (v->kind != GRAFT_ATTR_LIST)
        return put_word(k, (uint64_t)v->kind) && put_scalar(g, k, v);
    uint64_t item = v->nitems ? (uint64_t)v->items[0]->kind : 0;
    if (!put_word(k, (uint64_t)v->kind | item << 8 | (uint64_t)v->nitems << 16))
        return false;
    for (int i = 0; i < v->nitems; i++)
        if ((uint64_t)v->items[i]->kind != item || !put_scalar(g, k, v->items[i]))
            return false;
    return true;
}

/* Operand a as inference sees it (operand_type in onnx_types.c): left
 * out, a tensor's dtype and dims (its type's address: note [inference
 * memo]), or nothing known (no type, a tuple). */
static uint64_t operand_word(const graft_node *a)
{
    const graft_type *t = node_type(a);
    if (node_kind(a) == NODE_TUPLE && node_nargs(a) == 0)
        return ABSENT_OPERAND;
    if (!t || t->kind != TYPE_TENSOR || t->rank < 0)
        return UNKNOWN_OPERAND;
    return (uint64_t)(uintptr_t)t;
}

bool type_key_of(graft_graph *g, const graft_node *n, int nout, bool tuple, TypeKey *key)
{
    int nargs = node_nargs(n), nattrs = node_nattrs(n);
    key->words[0] = (uint64_t)(uintptr_t)node_op(n);
    key->words[1] = (uint64_t)(uint32_t)nargs | (uint64_t)(uint32_t)nattrs << 32;
    key->words[2] = (uint64_t)(uint32_t)nout << 1 | tuple;
    key->len = 3;
    key->memo = memo_of(g);
    for (int i = 0; i < nargs; i++)
        if (!put_word(key, operand_word(node_arg(n, i))))
            return false;
    for (int i = 0; i < nattrs; i++) {
        const graft_attr *at = node_attr(n, i);
        if (!put_word(key, (uint64_t)(uintptr_t)at->name) || !put_value(g, key, at->value))
            return false;
    }
    return true;
}

/* ---- the memo ---- */

static uint64_t key_hash(const TypeKey *key)
{
    return hash_bytes(key->words, key->len * sizeof *key->words, 0) | 1; /* no KeyMap key is 0 */
}

/* note [hot keys]: a model's calls meet a few keys over and over (the
 * seed's workload: five, 70,000 times), so the entry of a hash found
 * lately is kept in a slot of hot chosen by the hash, and a hash found
 * there skips by_hash's lookup (9 instructions a call of
 * bench/onnx_e2e.sh's rewrite).  The words are compared either way. */
bool type_memo_find(const TypeKey *key, const graft_type **type)
{
    TypeMemo *m = key->memo;
    uint64_t h = key_hash(key);
    size_t k = cache_slot(h, RECENT_BITS);
    int64_t entry = m->hot[k].hash == h ? m->hot[k].entry : 0;
    if (!entry) {
        const int64_t *slot = keymap_get(&m->by_hash, h);
        if (!slot)
            return false;
        entry = *slot;
        m->hot[k].hash = h;
        m->hot[k].entry = entry;
    }
    const MemoEntry *e = &m->entries.items[entry - 1];
    if (e->len != key->len ||
        memcmp(&m->words.items[e->at], key->words, key->len * sizeof *key->words) != 0)
        return false; /* another key of this hash */
    *type = e->type;
    return true;
}

void type_memo_put(const TypeKey *key, const graft_type *type)
{
    TypeMemo *m = key->memo;
    int64_t *slot = keymap_put(&m->by_hash, key_hash(key), 0);
    if (*slot)
        return; /* the hash is another key's: this one is inferred each time */
    MemoEntry e = {m->words.len, key->len, type};
    vec_reserve(&m->words, m->words.len + key->len);
    memcpy(&m->words.items[m->words.len], key->words, key->len * sizeof *key->words);
    m->words.len += key->len;
    vec_push(&m->entries, e);
    *slot = (int64_t)m->entries.len;
}

OnnxPlainTypes *onnx_plain_types(graft_graph *g)
{
    return &memo_of(g)->plain;
}

size_t type_memo_size(const graft_graph *g)
{
    const TypeMemo *m = graph_type_memo(g, memo_free);
    return m ? m->entries.len : 0;
}
