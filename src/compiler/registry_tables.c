/* registry_tables.c - the builtin registry built from its compiled tables
 * (note [compiled registry] in registry_tables.h): the AstOpDecl the
 * parser would make of each declaration and its OpInfo, with no parsing
 * and no checking (registry_gen.c checked them when it wrote the table). */
#include "registry_tables.h"

#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "registry_impl.h"

enum { NAME_CACHE_BITS = 9 };

/* What one table load builds into: the registry's arena and names, and
 * the Source every node and declaration points into.  A table spells
 * "data", "int" and "1" hundreds of times, and the compiler keeps one
 * copy of each string literal, so a direct-mapped cache by the literal's
 * address (note [one cache slot] in keymap.h) interns most of them with
 * no hashing. */
typedef struct NameCache {
    const char *literal;  /* a string of the table */
    const char *interned; /* its canonical copy */
} NameCache;

typedef struct TableLoad {
    Registry *reg;
    const Source *src;
    NameCache *names; /* 1 << NAME_CACHE_BITS slots; NULL for one op's load */
} TableLoad;

static inline const char *intern(TableLoad *t, const char *s)
{
    if (!s)
        return NULL;
    if (!t->names)
        return interner_cstr(t->reg->names, s);
    size_t slot = cache_slot((uint64_t)(uintptr_t)s, NAME_CACHE_BITS);
    if (t->names[slot].literal != s) {
        t->names[slot].literal = s;
        t->names[slot].interned = interner_cstr(t->reg->names, s);
    }
    return t->names[slot].interned;
}

/* The AST node build_number, build_string, ... make of lit. */
static AstNode *literal_node(TableLoad *t, const RegLiteral *lit)
{
    AstBuilder b = {t->reg->arena, t->reg->names, t->src, false};
    AstNode *n = ast_new(&b, lit->kind, lit->range);
    switch (lit->kind) {
    case AST_NUMBER:
        n->u.num.text = intern(t, lit->text);
        n->u.num.value = lit->value;
        n->u.num.ival = lit->ival;
        n->u.num.is_int = lit->is_int;
        break;
    case AST_STRING: n->u.str.text = intern(t, lit->text); break;
    case AST_DTYPE: n->u.dtype.name = intern(t, lit->text); break;
    case AST_BOOL: n->u.boolean = lit->boolean; break;
    case AST_LIST:
        n->u.list.items.count = lit->nitems;
        n->u.list.items.items = arena_array(t->reg->arena, (size_t)lit->nitems + 1,
                                            sizeof(AstNode *));
        for (int i = 0; i < lit->nitems; i++)
            n->u.list.items.items[i] = literal_node(t, &lit->items[i]);
        ast_update_depth(n);
        break;
    default: break; /* AST_NONE: the kind says it all */
    }
    return n;
}

/* decl's attributes and op's, which share their names and defaults. */
static void load_attrs(TableLoad *t, const RegOp *r, AstOpDecl *decl, OpInfo *op)
{
    Arena *arena = t->reg->arena;
    decl->attrs = arena_array(arena, (size_t)r->nattrs + 1, sizeof(AstAttrDecl));
    OpAttrInfo *infos = arena_array(arena, (size_t)r->nattrs + 1, sizeof(OpAttrInfo));
    for (int i = 0; i < r->nattrs; i++) {
        const RegAttr *a = &r->attrs[i];
        AstNode *dflt = a->dflt ? literal_node(t, a->dflt) : NULL;
        const char *name = intern(t, a->name);
        decl->attrs[i] = (AstAttrDecl){name, a->range, intern(t, a->type), dflt, a->since};
        infos[i] = (OpAttrInfo){name, a->kind, dflt, a->dflt_text, a->since};
    }
    decl->nattrs = op->nattrs = r->nattrs;
    op->attrs = infos;
}

static void load_operands_traits(TableLoad *t, const RegOp *r, AstOpDecl *decl)
{
    Arena *arena = t->reg->arena;
    decl->operands = arena_array(arena, (size_t)r->noperands + 1, sizeof(AstOperand));
    for (int i = 0; i < r->noperands; i++) {
        decl->operands[i] = r->operands[i];
        decl->operands[i].name = intern(t, r->operands[i].name);
    }
    decl->noperands = r->noperands;
    decl->traits = arena_array(arena, (size_t)r->ntraits + 1, sizeof(char *));
    decl->trait_ranges = arena_array(arena, (size_t)r->ntraits + 1, sizeof(SrcRange));
    for (int i = 0; i < r->ntraits; i++) {
        decl->traits[i] = intern(t, r->traits[i].word);
        decl->trait_ranges[i] = r->traits[i].range;
    }
    decl->ntraits = r->ntraits;
}

/* The declaration as build_opdecl_* leave it, and its OpInfo (op). */
static AstOpDecl *load_decl(TableLoad *t, const RegOp *r, OpInfo *op)
{
    AstOpDecl *decl = arena_alloc(t->reg->arena, sizeof(AstOpDecl));
    decl->name = intern(t, r->name);
    decl->name_range = r->name_range;
    decl->src = t->src;
    decl->outputs = r->outputs;
    decl->onnx = r->onnx;
    decl->domain = intern(t, r->domain);
    decl->since = r->since;
    decl->relay = intern(t, r->relay);
    load_operands_traits(t, r, decl);
    load_attrs(t, r, decl, op);
    return decl;
}

/* op, the OpInfo of r, whose declaration load_decl made (op's attributes
 * with it). */
static void fill_op(OpInfo *op, const RegOp *r, const AstOpDecl *decl)
{
    *op = (OpInfo){.name = decl->name, .min_args = r->min_args, .max_args = r->max_args,
                   .traits = r->trait_bits, .attrs = op->attrs, .nattrs = op->nattrs,
                   .decl = decl, .outputs = r->outputs, .onnx = r->onnx,
                   .domain = decl->domain, .since = r->since};
}

/* The op declared under name so far, or NULL. */
static OpInfo *declared(const Registry *reg, const char *name)
{
    const int64_t *index = keymap_get(&reg->by_name, keymap_ptr_key(name));
    return index ? reg->ops.items[*index] : NULL;
}

/* Puts the table's ops (ours, n of them, in its order) at ops[at], before
 * the other ops declared since, and reindexes what moved. */
static void place_table_ops(Registry *reg, size_t at, OpInfo **ours, size_t n,
                            const Source *src)
{
    size_t nrest = reg->ops.len - at;
    if (nrest == n && memcmp(reg->ops.items + at, ours, n * sizeof *ours) == 0)
        return; /* in place already: no op was declared alone or since */
    OpInfo **rest = xmalloc((nrest + 1) * sizeof *rest);
    memcpy(rest, reg->ops.items + at, nrest * sizeof *rest);
    memcpy(reg->ops.items + at, ours, n * sizeof *ours);
    size_t k = at + n;
    for (size_t i = 0; i < nrest; i++)
        if (rest[i]->decl->src != src)
            reg->ops.items[k++] = rest[i];
    free(rest);
    for (size_t i = at; i < reg->ops.len; i++) {
        reg->ops.items[i]->index = (int)i;
        *keymap_put(&reg->by_name, keymap_ptr_key(reg->ops.items[i]->name), 0) = (int64_t)i;
    }
}

/* registry_load_table with the table's ops placed at ops[at]. */
static void load_table_at(Registry *reg, const RegistryTable *table, const Source *src,
                          graft_diag *d, size_t at)
{
    TableLoad t = {reg, src, xcalloc(1u << NAME_CACHE_BITS, sizeof(NameCache))};
    OpInfo **ours = xmalloc(((size_t)table->nops + 1) * sizeof *ours);
    size_t n = 0;
    interner_reserve(reg->names, interner_count(reg->names) + (size_t)table->nstrings);
    for (int i = 0; i < table->nops; i++) {
        const RegOp *r = &table->ops[i];
        OpInfo *old = declared(reg, intern(&t, r->name));
        if (old && old->decl->src == src) { /* a lookup declared it alone */
            ours[n++] = old;
            continue;
        }
        OpInfo *op = arena_alloc(reg->arena, sizeof(OpInfo));
        const AstOpDecl *decl = load_decl(&t, r, op);
        if (old) {
            registry_declare(reg, decl, d); /* a rule file's before "opset onnx N" */
            continue;
        }
        fill_op(op, r, decl);
        registry_insert(reg, op);
        ours[n++] = op;
    }
    place_table_ops(reg, at, ours, n, src);
    free(ours);
    free(t.names);
}

void registry_load_table(Registry *reg, const RegistryTable *table, const Source *src,
                         graft_diag *d)
{
    load_table_at(reg, table, src, d, reg->ops.len);
}

/* registry_impl.h's load_deferred. */
static void load_deferred_table(Registry *reg)
{
    const RegistryTable *table = reg->deferred;
    reg->deferred = NULL; /* first: the load looks names up */
    size_t at = reg->deferred_placed ? reg->deferred_at : reg->ops.len;
    load_table_at(reg, table, reg->deferred_src, reg->deferred_d, at);
}

/* registry_impl.h's load_deferred_op: a search of the table's names, as
 * a rule file names a few ops, each found once. */
static const OpInfo *load_deferred_op(Registry *reg, const char *name)
{
    const RegistryTable *table = reg->deferred;
    for (int i = 0; i < table->nops; i++) {
        const RegOp *r = &table->ops[i];
        if (strcmp(r->name, name) != 0)
            continue;
        TableLoad t = {reg, reg->deferred_src, NULL};
        OpInfo *op = arena_alloc(reg->arena, sizeof(OpInfo));
        fill_op(op, r, load_decl(&t, r, op));
        registry_insert(reg, op);
        return op;
    }
    return NULL;
}

void registry_defer_table(Registry *reg, const RegistryTable *table, const Source *src,
                          graft_diag *d, bool placed_now)
{
    reg->deferred = table;
    reg->deferred_src = src;
    reg->deferred_d = d;
    reg->deferred_onnx = table->nops > 0 && table->ops[0].onnx;
    reg->load_deferred = load_deferred_table;
    reg->load_deferred_op = load_deferred_op;
    if (placed_now)
        registry_place_deferred(reg);
}

Source *registry_table_source(const RegistryTable *table)
{
    return source_borrow(table->name, table->text, table->len); /* a static string */
}
