/* type_infer.c - types of nodes: variables and constants from their
 * declarations, tuples and tuple elements structurally, functions as
 * "fn (...) -> T", op calls through their type relation (note [type
 * relations] in type_infer.h), constructor calls and match from the
 * module's type declarations (note [ADT types] in type_adt.h). */
#include "type_infer.h"

#include <stdlib.h>
#include <string.h>

#include "type_adt.h"
#include "type_rel.h"

static const TypeRel *const families[] = {
    type_rels_elemwise, type_rels_nn, type_rels_nn_misc, type_rels_transform, type_rels_index,
    type_rels_reduce, type_rels_misc, type_rels_einsum, type_rels_vision, type_rels_dyn,
};

static const TypeRel *find_relation(const char *op)
{
    for (size_t f = 0; f < sizeof families / sizeof *families; f++)
        for (const TypeRel *r = families[f]; r->op; r++)
            if (strcmp(r->op, op) == 0)
                return r;
    return NULL;
}

int type_relation_count(void)
{
    int n = 0;
    for (size_t f = 0; f < sizeof families / sizeof *families; f++)
        for (const TypeRel *r = families[f]; r->op; r++)
            n++;
    return n;
}

const char *type_relation_op(int i)
{
    for (size_t f = 0; f < sizeof families / sizeof *families; f++)
        for (const TypeRel *r = families[f]; r->op; r++)
            if (i-- == 0)
                return r->op;
    return NULL;
}

bool type_has_relation(const char *op)
{
    return find_relation(op) != NULL;
}

bool type_relation_tuple_operand(const char *op, int i)
{
    const TypeRel *r = find_relation(op);
    return r && i < r->tuple_in;
}

int type_relation_outputs(const char *op)
{
    const TypeRel *r = find_relation(op);
    return r ? r->outputs : TYPE_OUTPUTS_TENSOR;
}

/* What one walk looks up once: relations by interned op name (a graph
 * of a million calls has a few dozen distinct ops), and the module's type
 * declarations, read at the first call without a relation or match. */
typedef struct FnTypeEntry {
    size_t at, len;        /* its key in FnTypeMemo.words */
    const graft_type *t;   /* the function type made for it */
} FnTypeEntry;

/* note [function types remembered]: a partition makes one function per
 * match, typed by type_infer_list as "fn (T1, ...) -> R", a text built
 * and copied per function: 650 instructions an op node of issue 28's
 * partitions (bench/onnx_e2e.sh), where the 2,000 functions' types are
 * the same few.  So a walk keeping maps remembers each function type by
 * its key, the body's type and the parameters' types as pointers: equal
 * pointers are equal texts, so the type remembered has the text
 * func_type_text would make (types are not changed once made).  Unequal
 * pointers of equal texts just miss.  A key is compared whole (its hash
 * finds the one candidate filed), so a collision costs a miss, not a
 * wrong type; tests/check_relay.c asserts a remembered type's
 * text. */
typedef struct FnTypeMemo {
    VEC(const graft_type *) words; /* the keys filed, back to back */
    VEC(FnTypeEntry) entries;
    KeyMap by_hash;                /* a key's hash -> its entry + 1 */
} FnTypeMemo;

/* note [relations seen]: a loaded model asks for its calls' relations
 * in text order, a few dozen distinct ops over thousands of calls, and
 * the map's lookup (a hash and a probe) was about 57 instructions a
 * call; a direct-mapped table by the op's pointer in front of it (note
 * [one cache slot] in keymap.h) answers most in a compare or two.  It
 * holds two ops a slot, the last two asked for there (cache_pair_find
 * and cache_pair_put in keymap.h): the workload's
 * five ops took 20,000 of 60,000 lookups to the map in builds where two
 * of them shared a slot of a table of one op a slot (which ops do falls
 * as the addresses their names were interned at). */
enum { RELATIONS_SEEN_BITS = 4 }; /* slots of two ops */

typedef struct RelationSeen {
    const char *op;     /* an interned op name, or NULL */
    const TypeRel *rel; /* its relation, or NULL for none */
} RelationSeen;

typedef struct RelCache {
    KeyMap map;      /* interned name -> TypeRel pointer, or 0 for none */
    bool use_map;    /* false for one node: no map to fill */
    AdtTable *adts;  /* NULL until needed */
    FnTypeMemo *fns; /* NULL until a function is typed with use_map */
    RelationSeen seen[1 << RELATIONS_SEEN_BITS][2]; /* in front of map */
    const char *scalar_dtype;  /* the dtype of the last scalar constant typed */
    const graft_type *scalar;  /* and its type, or NULL */
} RelCache;

static const AdtTable *cached_adts(graft_graph *g, RelCache *rc)
{
    if (!rc->adts)
        rc->adts = adt_table_new(g);
    return rc->adts;
}

static void relcache_free(RelCache *rc)
{
    keymap_free(&rc->map);
    adt_table_free(rc->adts);
    if (rc->fns) {
        vec_free(&rc->fns->words);
        vec_free(&rc->fns->entries);
        keymap_free(&rc->fns->by_hash);
        free(rc->fns);
    }
}

/* The relation of op, in neither of its slot's two (note [relations
 * seen]): from the map, or found and put there; then put in the slot. */
static const TypeRel *relation_missed(RelCache *rc, const char *op, RelationSeen *pair)
{
    int64_t *cell = keymap_get(&rc->map, keymap_ptr_key(op));
    if (!cell) {
        const TypeRel *r = find_relation(op);
        cell = keymap_put(&rc->map, keymap_ptr_key(op), (int64_t)(intptr_t)r);
    }
    RelationSeen seen = {op, (const TypeRel *)(intptr_t)*cell};
    cache_pair_put(pair, seen);
    return seen.rel;
}

static inline bool seen_op_is(const RelationSeen *seen, const char *op)
{
    return seen->op == op;
}

/* Inline, the miss apart: typing a loaded model asks for the relation of
 * nearly every call, and the call to this was nearly half of a hit. */
static inline const TypeRel *cached_relation(RelCache *rc, const char *op)
{
    RelationSeen *pair = rc->seen[cache_slot((uintptr_t)op, RELATIONS_SEEN_BITS)];
    const RelationSeen *seen = cache_pair_find(pair, op, seen_op_is);
    return seen ? seen->rel : relation_missed(rc, op, pair);
}

/* note [type size]: a tuple's type text holds its fields' texts, so a
 * chain of bindings %k = (%k-1, %k-1) would double it at every step.
 * Tuple and function types longer than this stay unknown; real models'
 * longest (a split into a hundred pieces) are a few KiB. */
enum { TYPE_TEXT_MAX = 65536 };

/* Whether a tuple or function type of these parts stays within
 * TYPE_TEXT_MAX. */
static bool small_enough(const graft_type *const *types, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        if ((len += strlen(types[i]->text) + 2) > TYPE_TEXT_MAX)
            return false;
    return true;
}

/* Operand types, or false when one is unknown. */
static bool operand_types(const graft_node *n, const graft_type **types)
{
    for (int i = 0; i < node_nargs(n); i++)
        if (!(types[i] = node_type(node_arg(n, i))))
            return false;
    return true;
}

/* The relation of n's op, through rc's map when it keeps one. */
static inline const TypeRel *relation(RelCache *rc, const graft_node *n)
{
    return rc->use_map ? cached_relation(rc, node_op(n)) : find_relation(node_op(n));
}

/* A call of an op without a relation: an ADT constructor's type, or
 * unknown. */
static const graft_type *constructor_type(graft_graph *g, const graft_node *n, RelCache *rc,
                                          StrBuf *why)
{
    const AdtTable *adts = cached_adts(g, rc);
    return adt_is_constructor(adts, node_op(n)) ? adt_call_type(g, adts, n, why) : NULL;
}

/* An op call's type; its relation is looked up once its operands are
 * known to be typed (an edit's untyped nodes mostly have untyped
 * operands, and the lookup is most of the cost then).  A constructor
 * types even with untyped operands (Nil's type comes from its use). */
static const graft_type *call_type(graft_graph *g, const graft_node *n, RelCache *rc, StrBuf *why)
{
    if (graph_type_fn(g)) /* another IR's relations (note [IR type relations]) */
        return graph_type_fn(g)(g, n, why);
    const graft_type *few[8]; /* most ops take a few operands: no malloc */
    const graft_type **types = node_nargs(n) < 8 ? few
                                           : xmalloc(((size_t)node_nargs(n) + 1) * sizeof *types);
    const graft_type *t = NULL;
    if (operand_types(n, types)) {
        const TypeRel *r = relation(rc, n);
        if (!r)
            t = constructor_type(g, n, rc, why);
        else if (node_nargs(n) >= r->min_in) {
            RelCtx c = {g, n, node_op(n), types, node_nargs(n), why};
            t = r->fn(&c);
        }
    } else if (!relation(rc, n))
        t = constructor_type(g, n, rc, why);
    if (types != few)
        free(types);
    return t;
}

static const graft_type *tuple_type(graft_graph *g, const graft_node *n)
{
    const graft_type **types = xmalloc(((size_t)node_nargs(n) + 1) * sizeof *types);
    const graft_type *t = operand_types(n, types) && small_enough(types, node_nargs(n))
                        ? graph_type_tuple(g, types, node_nargs(n))
                        : NULL;
    free(types);
    return t;
}

/* TupleGetItem: the field's type (type_infer.cc, VisitExpr_ of
 * TupleGetItemNode: "index out of bounds" is a type error there too). */
static const graft_type *getitem_type(const graft_node *n, StrBuf *why)
{
    const graft_type *t = node_type(node_arg(n, 0));
    if (!t || t->kind == TYPE_OTHER)
        return NULL;
    if (t->kind != TYPE_TUPLE) {
        strbuf_printf(why, "element %d of a tensor: %s is not a tuple", node_index(n),
                      t->text);
        return NULL;
    }
    if (node_index(n) >= t->nfields) {
        strbuf_printf(why, "tuple index %d out of range (%d field%s)", node_index(n),
                      t->nfields, t->nfields == 1 ? "" : "s");
        return NULL;
    }
    return t->fields[node_index(n)];
}

/* "fn (T1, T2) -> R", as TVM prints a FuncType, once every parameter and
 * the body are typed. */
static const graft_type *func_type_text(graft_graph *g, const graft_node *n)
{
    const graft_type *body = node_type(node_body(n));
    if (!body || strlen(body->text) > TYPE_TEXT_MAX)
        return NULL;
    StrBuf sb = {0};
    strbuf_puts(&sb, "fn (");
    for (int i = 0; i < node_nparams(n); i++) {
        const graft_type *t = node_type(node_param(n, i));
        if (!t) {
            strbuf_free(&sb);
            return NULL;
        }
        if (i)
            strbuf_puts(&sb, ", ");
        strbuf_puts(&sb, t->text); /* not strbuf_printf: its vsnprintf was a
                                      sixth of a partition on the corpus */
        if (sb.len > TYPE_TEXT_MAX) {
            strbuf_free(&sb);
            return NULL;
        }
    }
    strbuf_puts(&sb, ") -> ");
    strbuf_puts(&sb, body->text);
    const graft_type *t = graph_type_other(g, sb.data, sb.len);
    strbuf_free(&sb);
    return t;
}

/* n's type, its body typed, remembered by rc's memo (note [function
 * types remembered]). */
static const graft_type *remembered_func_type(graft_graph *g, const graft_node *n, RelCache *rc)
{
    if (!rc->fns)
        rc->fns = xcalloc(1, sizeof *rc->fns);
    FnTypeMemo *m = rc->fns;
    size_t at = m->words.len;
    vec_push(&m->words, node_type(node_body(n)));
    for (int i = 0; i < node_nparams(n); i++)
        vec_push(&m->words, node_type(node_param(n, i)));
    size_t len = m->words.len - at;
    uint64_t hash = hash_bytes(m->words.items + at, len * sizeof *m->words.items, 0) | 1;
    const int64_t *slot = keymap_get(&m->by_hash, hash);
    const FnTypeEntry *e = slot ? &m->entries.items[*slot - 1] : NULL;
    if (e && e->len == len &&
        memcmp(m->words.items + e->at, m->words.items + at, len * sizeof *m->words.items) == 0) {
        m->words.len = at;
        return e->t;
    }
    const graft_type *t = func_type_text(g, n);
    if (slot) { /* a collision: the first key filed keeps the hash */
        m->words.len = at;
        return t;
    }
    vec_push(&m->entries, ((FnTypeEntry){at, len, t}));
    keymap_put(&m->by_hash, hash, (int64_t)m->entries.len);
    return t;
}

/* n's type: unknown while its body's is (Relay's partitions, untyped,
 * stop here), else remembered when rc keeps maps. */
static const graft_type *func_type(graft_graph *g, const graft_node *n, RelCache *rc)
{
    if (!node_type(node_body(n)))
        return NULL;
    return rc->use_map ? remembered_func_type(g, n, rc) : func_type_text(g, n);
}

/* The type of a call of callee: a function literal's body's, or for a
 * value of function type "fn (T, ...) -> R" (a parameter or let of that
 * type, as TVM's FuncType prints it) R; unknown for a generic one
 * ("fn [A](A) -> A"), whose result is its instantiation's. */
static const graft_type *called_type(graft_graph *g, const graft_node *callee)
{
    if (node_kind(callee) == NODE_FUNC)
        return node_type(node_body(callee));
    const graft_type *t = node_type(callee);
    if (!t || t->kind != TYPE_OTHER || strncmp(t->text, "fn (", 4) != 0)
        return NULL;
    const char *s = t->text + 3;
    for (int depth = 0; *s; s++) { /* to the ')' closing the parameters */
        depth += (*s == '(' || *s == '[') - (*s == ')' || *s == ']');
        if (depth == 0)
            break;
    }
    if (strncmp(s, ") -> ", 5) != 0)
        return NULL;
    s += 5;
    size_t len = strlen(s), used = 0;
    const graft_type *r = strncmp(s, "fn ", 3) ? graph_parse_type(g, s, len, &used) : NULL;
    return r && used == len ? r : graph_type_other(g, s, len);
}

/* A scalar constant's type: the last one's again when its dtype is
 * (graph_type_tensor gives one type a dtype: models repeat a literal). */
static const graft_type *scalar_const_type(graft_graph *g, const graft_node *n, RelCache *rc)
{
    const char *dtype = node_const_dtype(n);
    if (!rc->scalar || dtype != rc->scalar_dtype) {
        rc->scalar = graph_type_tensor(g, dtype, NULL, 0);
        rc->scalar_dtype = dtype;
    }
    return rc->scalar;
}

static const graft_type *infer(graft_graph *g, const graft_node *n, RelCache *rc, StrBuf *why)
{
    switch (node_kind(n)) {
    case NODE_VAR:
        return node_type(n);
    case NODE_CONST:
        return node_const_is_scalar(n) ? scalar_const_type(g, n, rc) : NULL;
    case NODE_TUPLE:
        return tuple_type(g, n);
    case NODE_GETITEM:
        return getitem_type(n, why);
    case NODE_FUNC:
        return func_type(g, n, rc);
    case NODE_CALL:
        if (node_callee(n))
            return called_type(g, node_callee(n));
        return call_type(g, n, rc, why);
    case NODE_LET: /* operands %v, value, body: the body's type */
        return node_type(node_arg(n, 2));
    case NODE_IF: { /* both branches have one type (TVM unifies them) */
        const graft_type *t = node_type(node_arg(n, 1)), *e = node_type(node_arg(n, 2));
        return t && e && strcmp(t->text, e->text) == 0 ? t : NULL;
    }
    case NODE_MATCH:
        return adt_match_type(g, cached_adts(g, rc), n, why);
    case NODE_GLOBAL: /* values whose types graft does not infer */
    case NODE_OPREF:
        return NULL;
    }
    return NULL;
}

const graft_type *type_infer_node(graft_graph *g, const graft_node *n, StrBuf *why)
{
    RelCache rc = {.use_map = false};
    why->len = 0;
    const graft_type *t = infer(g, n, &rc, why);
    relcache_free(&rc);
    return t;
}

struct TypeCache {
    RelCache rc;
};

TypeCache *type_cache_new(void)
{
    TypeCache *tc = xcalloc(1, sizeof(TypeCache));
    tc->rc.use_map = true;
    return tc;
}

void type_cache_free(TypeCache *tc)
{
    if (!tc)
        return;
    relcache_free(&tc->rc);
    free(tc);
}

/* Whether n's type stays unknown for an operand's, whatever its
 * relation: an op call, tuple or element access reading an untyped node
 * (the common case among untyped nodes, told without a relation
 * lookup). */
static bool unknown_operand(const graft_node *n)
{
    NodeKind k = node_kind(n);
    if (!(k == NODE_TUPLE || k == NODE_GETITEM || (k == NODE_CALL && !node_callee(n))))
        return false;
    for (int i = 0; i < node_nargs(n); i++)
        if (!node_type(node_arg(n, i)))
            return true;
    return false;
}

const graft_type *type_infer_cached(graft_graph *g, const graft_node *n, TypeCache *tc, StrBuf *why)
{
    why->len = 0;
    return unknown_operand(n) ? NULL : infer(g, n, &tc->rc, why);
}

/* Types one node; false on a contradiction.  A variable's type is its
 * declaration's, or none (a model's untyped parameters: every one of the
 * workload's, bench/RESULTS.md "Session 21: loading"). */
static bool infer_one(graft_graph *g, graft_node *n, RelCache *rc, StrBuf *why)
{
    if (node_type(n) || node_is_dead(n) || node_kind(n) == NODE_VAR)
        return true;
    why->len = 0;
    const graft_type *t = infer(g, n, rc, why);
    if (t)
        graph_set_type(g, n, t);
    return why->len == 0;
}

/* Gives the pattern variables of each match whose data has a type
 * theirs; *bad on a contradiction.  Returns how many it typed. */
static int bind_patterns(graft_graph *g, graft_node *const *matches, size_t n, RelCache *rc,
                         StrBuf *why, graft_node **bad)
{
    int typed = 0;
    for (size_t i = 0; i < n && !*bad; i++) {
        why->len = 0;
        int k = adt_bind_patterns(g, cached_adts(g, rc), matches[i], why);
        if (k < 0)
            *bad = matches[i];
        else
            typed += k;
    }
    return typed;
}

/* note [match passes]: a match's pattern variables take their types
 * from its data's, which the walk reaches with the match itself, after
 * the clauses that use them (operands come first).  So the walk runs
 * again, typing what is still untyped, while matches gave variables
 * types; a model without match takes one walk. */
graft_node *type_infer_graph(graft_graph *g, StrBuf *why)
{
    graft_node **order = xmalloc(((size_t)graph_node_count(g) + 1) * sizeof *order);
    uint32_t count = graph_topo_order(g, order);
    RelCache rc = {.use_map = true};
    VEC(graft_node *) matches = {0};
    graft_node *bad = NULL;
    for (uint32_t i = 0; i < count && !bad; i++) {
        if (node_kind(order[i]) == NODE_MATCH)
            vec_push(&matches, order[i]);
        if (!infer_one(g, order[i], &rc, why))
            bad = order[i];
    }
    while (!bad && matches.len && bind_patterns(g, matches.items, matches.len, &rc, why, &bad))
        for (uint32_t i = 0; i < count && !bad; i++)
            if (!infer_one(g, order[i], &rc, why))
                bad = order[i];
    vec_free(&matches);
    relcache_free(&rc);
    free(order);
    return bad;
}

/* note [types in id order]: the loader makes every node after its
 * operands, a function after its parameters and body, so node ids are
 * already an order with children first, and a loaded model can be typed
 * in id order without the walk that orders it (the walk was a third of
 * typing on the batch-norm workload, bench/RESULTS.md).  A node's type
 * depends only on its children's, typed before it in either order, so
 * each node gets the type the walk's first pass gives it.  Only what the
 * walk reaches is typed (a binding no one uses stays untyped), marked
 * by graph_reached_by_ids.  When a child comes after its node, the walk
 * does it all.  At a match, or after a contradiction, the walk takes
 * over: every node typed so far has the type its first pass would give
 * it and is skipped, so it types the rest as it would have, runs the
 * match passes (note [match passes]), and reports its own first
 * contradiction (which of two comes first depends on the order). */

/* Whether n, untyped, is an op call that reads an untyped operand and
 * whose op has a relation: call_type leaves it untyped, with no
 * contradiction (every call of a model whose parameters are untyped,
 * as the workload's: told here without infer_one's calls). */
static bool stays_untyped(const graft_node *n, RelCache *rc)
{
    const char *op = node_op(n); /* (NULL but for an op's call) */
    if (!op || node_type(n))
        return false;
    for (int i = 0; i < node_nargs(n); i++)
        if (!node_type(node_arg(n, i)))
            return cached_relation(rc, op) != NULL;
    return false;
}

graft_node *type_infer_loaded(graft_graph *g, StrBuf *why)
{
    uint32_t count = graph_node_count(g);
    uint8_t *reached = xcalloc(count ? count : 1, 1);
    bool typed = graph_reached_by_ids(g, reached);
    bool relay = !graph_type_fn(g); /* (another IR's calls have their own relations) */
    RelCache rc = {.use_map = true};
    graft_node *const *nodes = graph_node_table(g); /* (without graph_node's bound check) */
    for (uint32_t id = 0; typed && id < count; id++) {
        if (!reached[id])
            continue;
        graft_node *n = nodes[id];
        if (node_kind(n) == NODE_VAR) /* infer_one keeps its type: not called for */
            continue;                 /* a model's many parameters */
        if (relay && stays_untyped(n, &rc))
            continue;
        typed = node_kind(n) != NODE_MATCH && infer_one(g, n, &rc, why);
    }
    relcache_free(&rc);
    free(reached);
    return typed ? NULL : type_infer_graph(g, why);
}

graft_node *type_infer_new(graft_graph *g, uint32_t first, StrBuf *why)
{
    RelCache rc = {.use_map = true};
    graft_node *bad = NULL;
    for (uint32_t id = first; id < graph_node_count(g) && !bad; id++)
        if (!infer_one(g, graph_node(g, id), &rc, why))
            bad = graph_node(g, id);
    relcache_free(&rc);
    return bad;
}

void type_infer_edit(graft_graph *g, uint32_t first)
{
    StrBuf why = {0};
    for (uint32_t id = first; id < graph_node_count(g);) {
        graft_node *bad = type_infer_new(g, id, &why);
        id = bad ? node_id(bad) + 1 : graph_node_count(g);
    }
    strbuf_free(&why);
}

void type_infer_list(graft_graph *g, graft_node *const *list, size_t n)
{
    StrBuf why = {0};
    RelCache rc = {.use_map = true};
    for (size_t i = 0; i < n; i++)
        if (!node_type(list[i]) && !unknown_operand(list[i]))
            infer_one(g, list[i], &rc, &why); /* a contradiction leaves it untyped */
    relcache_free(&rc);
    strbuf_free(&why);
}
