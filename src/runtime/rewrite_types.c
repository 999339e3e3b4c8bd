/* rewrite_types.c - the types of the calls actions make, remembered.
 *
 * note [action types]: a rule's action makes the same calls on operands
 * of the same types again and again across a model (fold_bn on resnet50:
 * 53 rewrites make 742 nodes, mostly the same few shapes: its bottleneck
 * blocks repeat), and typing each by its relation cost about 1,470
 * instructions (src/relay/type_rel*.c: the operands' types read, the
 * attributes looked up by name, a new type and its text made).  A Relay
 * call's type is a function of its op, its attributes and its operands'
 * types, and of the value of a scalar constant operand (arange reads
 * them): so the engine remembers, per such key, the first node typed and
 * its type, and a later node with an equal key takes that type (types
 * are immutable and may be shared between nodes, graph.h), the same
 * type the relation would make, printed the same.  Equal here is strict:
 * the same op, attributes of the same kinds and values in the same
 * order, operand types of the same dtype and dims (or text), scalar
 * constants of the same spelling and dtype.  What is not remembered:
 * calls of functions or of no op, attributes that are tensors, graphs
 * or kept as printed (compared by bytes elsewhere, rare in actions), an
 * operand of no type (no relation types such a call), another IR's
 * relations (ONNX's read initializers' bytes), and a key whose hash
 * another key holds already (the second is typed each time).
 */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "keymap.h"
#include "util.h"

/* An operand as a key holds it: its type, or a scalar constant's
 * spelling and dtype (interned). */
typedef struct Operand {
    const graft_type *type;
    const char *text, *dtype;
} Operand;

/* A call typed once, its key copied (the node's operands may be edited
 * later: a rewrite moves uses), and the type. */
typedef struct Typed {
    const char *op;
    int nargs, nattrs;
    Operand *args;           /* nargs */
    graft_attr *attrs;       /* nattrs names and values (attribute values
                                are never changed once made) */
    const graft_type *type;
} Typed;

/* An ONNX call typed once, its key by addresses (note [action types by
 * address]), copied, and the type. */
typedef struct AddressTyped {
    const char *op, *domain;
    int nargs, nattrs, noutputs;
    const graft_type **args; /* nargs operand types */
    graft_attr *attrs;       /* nattrs names and values */
    const graft_type *type;
} AddressTyped;

struct ActionTypes {
    Arena *keys;          /* the keys' copies (note [action keys in an
                             arena]) */
    KeyMap by_key;        /* a key's hash -> its entry in typed, +1 */
    VEC(Typed) typed;
    KeyMap by_address;    /* an address key's hash -> its entry in
                             addressed, +1 */
    VEC(AddressTyped) addressed;
    size_t last_addressed; /* the entry address_type took or made last,
                              +1 (note [last address key]) */
    TypeCache *relations; /* type_infer_cached's cache of relations */
    IrKind ir;            /* the graph's IR */
};

ActionTypes *action_types_new(const graft_graph *g)
{
    ActionTypes *at = xcalloc(1, sizeof *at);
    at->keys = arena_new();
    at->relations = type_cache_new();
    at->ir = graph_ir(g);
    return at;
}

void action_types_free(ActionTypes *at)
{
    if (!at)
        return;
    keymap_free(&at->by_key);
    vec_free(&at->typed);
    keymap_free(&at->by_address);
    vec_free(&at->addressed);
    arena_free(at->keys);
    type_cache_free(at->relations);
    free(at);
}

/* ---- keys ---- */

static bool plain_attr(const graft_attr_value *v)
{
    if (v->kind == GRAFT_ATTR_LIST) {
        for (int i = 0; i < v->nitems; i++)
            if (!plain_attr(v->items[i]))
                return false;
        return true;
    }
    return v->kind != GRAFT_ATTR_OPAQUE && v->kind != GRAFT_ATTR_TENSOR &&
           v->kind != GRAFT_ATTR_GRAPH;
}

static uint64_t attr_hash(uint64_t h, const graft_attr_value *v)
{
    uint64_t bits;
    memcpy(&bits, &v->f, sizeof bits);
    h = hash_mix(hash_mix(hash_mix(h, (uint64_t)v->kind), (uint64_t)v->i), bits);
    if (v->kind == GRAFT_ATTR_STRING && v->s)
        h = hash_bytes(v->s, strlen(v->s), h);
    for (int i = 0; i < v->nitems; i++)
        h = attr_hash(h, v->items[i]);
    return hash_mix(h, (uint64_t)v->nitems);
}

static bool attr_same(const graft_attr_value *a, const graft_attr_value *b)
{
    if (a->kind != b->kind || a->i != b->i || memcmp(&a->f, &b->f, sizeof a->f) != 0 ||
        a->nitems != b->nitems)
        return false;
    if (a->kind == GRAFT_ATTR_STRING && a->s != b->s && (!a->s || !b->s || strcmp(a->s, b->s)))
        return false;
    for (int i = 0; i < a->nitems; i++)
        if (!attr_same(a->items[i], b->items[i]))
            return false;
    return true;
}

/* A tensor type hashes by its address: one type per dtype and dims (note
 * [canonical tensor types] in src/ir/graph_type.c; type_same still
 * compares the key whole). */
static uint64_t type_hash(uint64_t h, const graft_type *t)
{
    if (t->kind == TYPE_TENSOR)
        return hash_mix(h, (uint64_t)(uintptr_t)t);
    h = hash_mix(h, (uint64_t)t->kind);
    if (t->kind == TYPE_TUPLE) {
        for (int i = 0; i < t->nfields; i++)
            h = type_hash(h, t->fields[i]);
        return hash_mix(h, (uint64_t)t->nfields);
    }
    return t->text ? hash_bytes(t->text, strlen(t->text), h) : h;
}

/* Whether two types are one type (dtypes are interned in the graph). */
static bool type_same(const graft_type *a, const graft_type *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind)
        return false;
    if (a->kind == TYPE_TENSOR)
        return a->dtype == b->dtype && a->rank == b->rank &&
               (a->rank == 0 || memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims) == 0);
    if (a->kind == TYPE_TUPLE) {
        if (a->nfields != b->nfields)
            return false;
        for (int i = 0; i < a->nfields; i++)
            if (!type_same(a->fields[i], b->fields[i]))
                return false;
        return true;
    }
    return a->text && b->text && strcmp(a->text, b->text) == 0;
}

/* A scalar constant counts by its spelling and dtype (both interned). */
static bool scalar_const(const graft_node *n)
{
    return node_kind(n) == NODE_CONST && node_const_is_scalar(n);
}

/* Whether n's type may be remembered (note [action types]). */
static bool rememberable(const ActionTypes *at, const graft_node *n)
{
    if (at->ir != IR_RELAY || node_kind(n) != NODE_CALL || !node_op(n) || node_callee(n))
        return false;
    for (int i = 0; i < node_nargs(n); i++)
        if (!scalar_const(node_arg(n, i)) && !node_type(node_arg(n, i)))
            return false;
    for (int i = 0; i < node_nattrs(n); i++)
        if (!plain_attr(node_attr(n, i)->value))
            return false;
    return true;
}

static uint64_t call_hash(const graft_node *n)
{
    uint64_t h = hash_mix((uint64_t)(uintptr_t)node_op(n), (uint64_t)node_nargs(n));
    for (int i = 0; i < node_nargs(n); i++) {
        const graft_node *a = node_arg(n, i);
        h = scalar_const(a) ? hash_mix(hash_mix(h, (uint64_t)(uintptr_t)node_const_text(a)),
                                       (uint64_t)(uintptr_t)node_const_dtype(a))
                            : type_hash(h, node_type(a));
    }
    for (int i = 0; i < node_nattrs(n); i++)
        h = attr_hash(hash_mix(h, (uint64_t)(uintptr_t)node_attr(n, i)->name),
                      node_attr(n, i)->value);
    return h | 1; /* a KeyMap key is never 0 */
}

static Operand operand_key(const graft_node *a)
{
    if (scalar_const(a))
        return (Operand){NULL, node_const_text(a), node_const_dtype(a)};
    return (Operand){node_type(a), NULL, NULL};
}

static bool operand_same(const Operand *k, const graft_node *a)
{
    if (scalar_const(a))
        return !k->type && k->text == node_const_text(a) && k->dtype == node_const_dtype(a);
    return k->type && type_same(k->type, node_type(a));
}

/* Whether call n (rememberable) has t's key. */
static bool call_same(const Typed *t, const graft_node *n)
{
    if (t->op != node_op(n) || t->nargs != node_nargs(n) || t->nattrs != node_nattrs(n))
        return false;
    for (int i = 0; i < t->nargs; i++)
        if (!operand_same(&t->args[i], node_arg(n, i)))
            return false;
    for (int i = 0; i < t->nattrs; i++)
        if (t->attrs[i].name != node_attr(n, i)->name ||
            !attr_same(t->attrs[i].value, node_attr(n, i)->value))
            return false;
    return true;
}

/* note [action keys in an arena]: a key remembered holds copies of its
 * call's attributes and operands (the call may be edited later), and
 * each was two mallocs, freed one by one with the memo: 700
 * instructions a call typed by its relation on fold_bn's models, where
 * most keys of a model are new (mobilenet_v2: 154 of 728 calls).  They
 * live as long as the memo, so they are allocated from an arena of its
 * own, freed at once. */

/* A copy of n's attributes (pointers to its names and values), for a
 * key remembered. */
static graft_attr *attrs_copied(ActionTypes *at, const graft_node *n)
{
    graft_attr *attrs = arena_alloc_raw(at->keys, ((size_t)node_nattrs(n) + 1) * sizeof *attrs);
    for (int i = 0; i < node_nattrs(n); i++)
        attrs[i] = *node_attr(n, i);
    return attrs;
}

/* Remembers n's key and type. */
static void remember(ActionTypes *at, const graft_node *n, const graft_type *type)
{
    Typed t = {node_op(n), node_nargs(n), node_nattrs(n), NULL, attrs_copied(at, n), type};
    t.args = arena_alloc_raw(at->keys, ((size_t)t.nargs + 1) * sizeof *t.args);
    for (int i = 0; i < t.nargs; i++)
        t.args[i] = operand_key(node_arg(n, i));
    vec_push(&at->typed, t);
}

/* ---- ONNX calls, by address ---- */

/* note [action types by address]: ONNX's relations are not remembered
 * by note [action types] (they read initializers' bytes), and its own
 * memo (note [inference memo] in src/onnx/onnx_types_memo.c) answers a
 * call of attributes from its whole key, 588 instructions a rewrite on
 * the workload's ONNX rewrite with the calls between (this, 357:
 * bench/RESULTS.md, session 28, branch infer), where the action makes
 * the same call (its op, epsilon=eps) on operands of the same few types
 * each time: the graph gives the values of one dtype and dims one type
 * (note [canonical tensor types] in src/ir/graph_type.c), and the
 * attributes' values are the engine's shared copies (note [names
 * interned once], note [constant read once] in rewrite_build.c).  An
 * ONNX call's type is a function of what onnx_type_of reads: its op and
 * domain, its attributes, its result count, and its operands' types,
 * and the values of a constant operand (an initializer, a Constant
 * call: note [values on demand] in src/onnx/onnx_infer_values.c).  Types
 * and attribute values are never changed once made, so an address
 * stands for one type or value as long as the graph lives: a call whose
 * op, domain, result count, operand types and attribute names and
 * values are the addresses of one typed before takes its type.  Not
 * keyed so, and typed as before: a call with an operand untyped, absent
 * or constant, or with users (the result count reads its elements), and
 * a call that found a contradiction (its message names the node); a
 * second key of a hash already taken is typed each time. */

/* Whether operand a of an ONNX call keys by its type's address. */
static bool address_operand(const graft_node *a)
{
    NodeKind k = node_kind(a);
    return node_type(a) && k != NODE_CONST && k != NODE_TUPLE &&
           !(k == NODE_CALL && node_op(a) && strcmp(node_op(a), "Constant") == 0);
}

/* Whether ONNX call n keys by addresses. */
static bool addressable(const graft_node *n)
{
    if (node_kind(n) != NODE_CALL || !node_op(n) || node_callee(n) || node_nusers(n))
        return false;
    for (int i = 0; i < node_nargs(n); i++)
        if (!address_operand(node_arg(n, i)))
            return false;
    return true;
}

static uint64_t address_hash(const graft_node *n, const char *domain)
{
    uint64_t h = hash_mix(hash_mix((uint64_t)(uintptr_t)node_op(n), (uint64_t)(uintptr_t)domain),
                          (uint64_t)node_nargs(n) << 32 | (uint32_t)node_noutputs(n));
    for (int i = 0; i < node_nargs(n); i++)
        h = hash_mix(h, (uint64_t)(uintptr_t)node_type(node_arg(n, i)));
    for (int i = 0; i < node_nattrs(n); i++)
        h = hash_mix(hash_mix(h, (uint64_t)(uintptr_t)node_attr(n, i)->name),
                     (uint64_t)(uintptr_t)node_attr(n, i)->value);
    return h | 1; /* a KeyMap key is never 0 */
}

/* Whether call n has t's key by addresses. */
static bool address_same(const AddressTyped *t, const graft_node *n, const char *domain)
{
    if (t->op != node_op(n) || t->domain != domain || t->nargs != node_nargs(n) ||
        t->nattrs != node_nattrs(n) || t->noutputs != node_noutputs(n))
        return false;
    for (int i = 0; i < t->nargs; i++)
        if (t->args[i] != node_type(node_arg(n, i)))
            return false;
    for (int i = 0; i < t->nattrs; i++)
        if (t->attrs[i].name != node_attr(n, i)->name ||
            t->attrs[i].value != node_attr(n, i)->value)
            return false;
    return true;
}

/* Remembers n's key by addresses and its type. */
static void address_remember(ActionTypes *at, const graft_node *n, const char *domain,
                             const graft_type *type)
{
    AddressTyped t = {node_op(n), domain, node_nargs(n), node_nattrs(n), node_noutputs(n),
                      NULL, attrs_copied(at, n), type};
    t.args = arena_alloc_raw(at->keys, ((size_t)t.nargs + 1) * sizeof *t.args);
    for (int i = 0; i < t.nargs; i++)
        t.args[i] = node_type(node_arg(n, i));
    vec_push(&at->addressed, t);
}

/* note [last address key]: an action makes its call on operands of the
 * same types rewrite after rewrite (the workload's ONNX rewrite: one
 * key, 10,000 times), so the entry address_type took or made last is
 * compared first, before the key's hash and the KeyMap's probe: 120
 * instructions a rewrite, 1.2 M of that job (bench/RESULTS.md, session
 * 28, branch infer).  Any other key goes on to the map. */

/* action_type of an ONNX call (note [action types by address]). */
static const graft_type *address_type(ActionTypes *at, graft_graph *g, const graft_node *n,
                                      StrBuf *why)
{
    if (!addressable(n))
        return type_infer_cached(g, n, at->relations, why);
    const char *domain = graph_node_domain(g, n);
    const AddressTyped *last = at->last_addressed ? &at->addressed.items[at->last_addressed - 1]
                                                  : NULL;
    if (last && address_same(last, n, domain))
        return last->type; /* note [last address key] */
    int64_t *entry = keymap_put(&at->by_address, address_hash(n, domain), 0);
    if (*entry) {
        const AddressTyped *t = &at->addressed.items[*entry - 1];
        if (!address_same(t, n, domain))
            return type_infer_cached(g, n, at->relations, why); /* another key's hash */
        at->last_addressed = (size_t)*entry;
        return t->type;
    }
    const graft_type *type = type_infer_cached(g, n, at->relations, why);
    if (!type || why->len) {
        *entry = 0; /* nothing kept: the key's slot stays free */
        return type;
    }
    address_remember(at, n, domain, type);
    *entry = (int64_t)at->addressed.len;
    at->last_addressed = at->addressed.len;
    return type;
}

/* ---- typing ---- */

const graft_type *action_type(ActionTypes *at, graft_graph *g, const graft_node *n, StrBuf *why)
{
    if (at->ir == IR_ONNX)
        return address_type(at, g, n, why);
    if (!rememberable(at, n))
        return type_infer_cached(g, n, at->relations, why);
    int64_t *entry = keymap_put(&at->by_key, call_hash(n), 0);
    if (*entry) {
        const Typed *t = &at->typed.items[*entry - 1];
        if (call_same(t, n))
            return t->type;
        return type_infer_cached(g, n, at->relations, why); /* another key's hash */
    }
    const graft_type *type = type_infer_cached(g, n, at->relations, why);
    remember(at, n, type);
    *entry = (int64_t)at->typed.len;
    return type;
}
