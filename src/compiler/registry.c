/* registry.c - the op registry: declarations to OpInfo, lookup, traits. */
#include "registry_impl.h"

#include <stdlib.h>
#include <string.h>


static const struct {
    const char *word; /* as written after an op declaration */
    unsigned bit;     /* OpTrait */
} trait_words[] = {
#define OP_TRAIT_WORD(trait, word, bit) {word, bit},
    OP_TRAIT_LIST(OP_TRAIT_WORD)
#undef OP_TRAIT_WORD
};

static const char *const attr_type_words[] = {
    "int", "float", "bool", "str", "dtype", "ints", "floats", "int_or_none", "ints_or_none",
    "any", "tensor", "graph", "strs",
};

Registry *registry_new(Arena *arena, Interner *names)
{
    Registry *reg = xcalloc(1, sizeof(Registry));
    reg->arena = arena;
    reg->names = names;
    return reg;
}

Registry *registry_clone(const Registry *from, Arena *arena, Interner *names)
{
    Registry *reg = registry_new(arena, names);
    vec_reserve(&reg->ops, from->ops.len + 1);
    reg->ops.len = from->ops.len;
    memcpy(reg->ops.items, from->ops.items, from->ops.len * sizeof(OpInfo *));
    keymap_copy(&reg->by_name, &from->by_name);
    reg->onnx = from->onnx;
    reg->opset = from->opset;
    reg->deferred = from->deferred;
    reg->deferred_src = from->deferred_src;
    reg->deferred_d = from->deferred_d;
    reg->deferred_onnx = from->deferred_onnx;
    reg->deferred_placed = from->deferred_placed;
    reg->deferred_at = from->deferred_at;
    reg->deferred_lookups = from->deferred_lookups;
    reg->load_deferred = from->load_deferred;
    reg->load_deferred_op = from->load_deferred_op;
    return reg;
}

void registry_free(Registry *reg)
{
    if (!reg)
        return;
    vec_free(&reg->ops);
    keymap_free(&reg->by_name);
    free(reg);
}

void registry_insert(Registry *reg, OpInfo *op)
{
    op->index = (int)reg->ops.len;
    vec_push(&reg->ops, op);
    *keymap_put(&reg->by_name, keymap_ptr_key(op->name), 0) = op->index;
}

/* note [Relay's table when needed]: declaring all of Relay's 172 ops
 * costs 340 K instructions, more than the rest of a small run's set-up
 * (bench/RESULTS.md, "Session 18: the fixed set-up" and "Session 25"),
 * and a rule file names a few of them.  So the front end defers the
 * table (declare_builtin_ops in frontend.c), and a lookup of a name that is
 * not declared yet declares the table's op of that name alone, if it has
 * one.  The lookups that may do so: a name of either IR
 * (registry_find_any: an op of the other IR is an error with a hint, an
 * op declaration must not repeat a name of either) or of the table's IR
 * (registry_find, were the target Relay's).  A walk over the ops
 * (registry_count, registry_class_ops, the suggestions) declares the rest
 * of the table first, when it is of the target IR.  So does the lookup
 * after DEFERRED_LOOKUPS_MAX that read the table: each searches it, and a
 * file that names many of its ops (stdpatterns/ops.graft names all)
 * would pay more for the searches than for the whole table.
 *
 * The ops keep the order a whole load would give them: the table's ops
 * go where the table was placed, in its order, before the ops declared
 * after that.  Placed is when the front end deferred it for Relay's
 * rules, or, for rules whose first item is "opset onnx N", at the first
 * lookup that could find one of its ops; so a lookup of an ONNX op in
 * ONNX rules never needs it, and its ops come after ONNX's in
 * registry_op's order (read by lower_onnx_ops, for ONNX's ops). */
static const OpInfo *find_loaded(const Registry *reg, const char *name)
{
    const char *key = interner_lookup(reg->names, name, strlen(name));
    const int64_t *index = key ? keymap_get(&reg->by_name, keymap_ptr_key(key)) : NULL;
    return index ? reg->ops.items[*index] : NULL;
}

/* Whether a lookup (of either IR's names when any) may read the deferred
 * table.  The cast, here and below: a lookup through a const Registry
 * completes it; every Registry is made by registry_new, none is const. */
static bool deferred_for(const Registry *creg, bool any)
{
    return creg->deferred && (any || creg->deferred_onnx == creg->onnx);
}

/* Declares the deferred table now, if there is one and (any false) its
 * ops are of the target IR. */
static void load_deferred(const Registry *creg, bool any)
{
    if (deferred_for(creg, any))
        creg->load_deferred((Registry *)creg);
}

enum { DEFERRED_LOOKUPS_MAX = 32 };

/* The deferred table's op named name, declared now, or NULL. */
static const OpInfo *find_deferred(const Registry *creg, const char *name, bool any)
{
    if (!deferred_for(creg, any))
        return NULL;
    Registry *reg = (Registry *)creg;
    if (!reg->deferred_placed)
        registry_place_deferred(reg);
    if (reg->deferred_lookups++ < DEFERRED_LOOKUPS_MAX)
        return reg->load_deferred_op(reg, name);
    reg->load_deferred(reg);
    return find_loaded(reg, name);
}

void registry_place_deferred(Registry *reg)
{
    reg->deferred_placed = true;
    reg->deferred_at = reg->ops.len;
}

const OpInfo *registry_find_any(const Registry *reg, const char *name)
{
    const OpInfo *op = find_loaded(reg, name);
    return op ? op : find_deferred(reg, name, true);
}

const OpInfo *registry_find(const Registry *reg, const char *name)
{
    const OpInfo *op = find_loaded(reg, name);
    if (!op)
        op = find_deferred(reg, name, false);
    return op && op->onnx == reg->onnx ? op : NULL;
}

void registry_load_deferred_of_target(const Registry *reg)
{
    load_deferred(reg, false);
}

void registry_set_onnx(Registry *reg, int opset)
{
    reg->onnx = true;
    reg->opset = opset;
}

int registry_onnx_opset(const Registry *reg)
{
    return reg->onnx ? reg->opset : 0;
}

const char *registry_counterpart(const Registry *reg, const OpInfo *other)
{
    if (other->onnx)
        return other->decl->relay && registry_find(reg, other->decl->relay) ? other->decl->relay
                                                                            : NULL;
    for (size_t i = 0; i < reg->ops.len; i++) {
        const char *relay = reg->ops.items[i]->decl->relay;
        if (reg->ops.items[i]->onnx && relay && strcmp(relay, other->name) == 0)
            return reg->ops.items[i]->name;
    }
    return NULL;
}

int registry_count(const Registry *reg)
{
    load_deferred(reg, false); /* the target IR's ops are all counted */
    return (int)reg->ops.len;
}

const OpInfo *registry_op(const Registry *reg, int i)
{
    return reg->ops.items[i];
}

unsigned registry_trait_by_name(const char *word)
{
    for (size_t i = 0; i < ARRAY_LEN(trait_words); i++)
        if (strcmp(word, trait_words[i].word) == 0)
            return trait_words[i].bit;
    return 0;
}

const char *registry_trait_name(unsigned bit)
{
    for (size_t i = 0; i < ARRAY_LEN(trait_words); i++)
        if (trait_words[i].bit == bit)
            return trait_words[i].word;
    return "?";
}

int registry_class_ops(const Registry *reg, unsigned mask, const OpInfo **out)
{
    load_deferred(reg, false);
    int n = 0;
    for (size_t i = 0; i < reg->ops.len; i++)
        if ((reg->ops.items[i]->traits & mask) == mask && reg->ops.items[i]->onnx == reg->onnx)
            out[n++] = reg->ops.items[i];
    return n;
}

bool registry_attr_type(const char *word, AttrType *out)
{
    for (size_t i = 0; i < ARRAY_LEN(attr_type_words); i++)
        if (strcmp(word, attr_type_words[i]) == 0) {
            *out = (AttrType)i;
            return true;
        }
    return false;
}

const char *registry_attr_type_name(AttrType type)
{
    return attr_type_words[type];
}

static bool all_items(const AstNode *lit, bool ints)
{
    if (lit->kind != AST_LIST)
        return false;
    for (int i = 0; i < lit->u.list.items.count; i++) {
        const AstNode *it = lit->u.list.items.items[i];
        if (it->kind != AST_NUMBER || (ints && !it->u.num.is_int))
            return false;
    }
    return true;
}

static bool all_string_items(const AstNode *lit)
{
    if (lit->kind != AST_LIST)
        return false;
    for (int i = 0; i < lit->u.list.items.count; i++)
        if (lit->u.list.items.items[i]->kind != AST_STRING)
            return false;
    return true;
}

/* A model's list of numbers (ints: integers only). */
static bool all_model_items(const graft_attr_value *v, bool ints)
{
    if (v->kind != GRAFT_ATTR_LIST)
        return false;
    for (int i = 0; i < v->nitems; i++) {
        graft_attr_kind k = v->items[i]->kind;
        if (k != GRAFT_ATTR_INT && (ints || k != GRAFT_ATTR_FLOAT))
            return false;
    }
    return true;
}

/* A model's list of strings (ONNX's STRINGS). */
static bool all_model_strings(const graft_attr_value *v)
{
    if (v->kind != GRAFT_ATTR_LIST)
        return false;
    for (int i = 0; i < v->nitems; i++)
        if (v->items[i]->kind != GRAFT_ATTR_STRING)
            return false;
    return true;
}

bool registry_model_value_fits(AttrType t, const graft_attr_value *v)
{
    if (v->kind == GRAFT_ATTR_OPAQUE)
        return true;
    switch (t) {
    case ATYPE_INT: return v->kind == GRAFT_ATTR_INT;
    case ATYPE_FLOAT: return v->kind == GRAFT_ATTR_FLOAT || v->kind == GRAFT_ATTR_INT;
    case ATYPE_BOOL: return v->kind == GRAFT_ATTR_BOOL;
    case ATYPE_STR:
    case ATYPE_DTYPE: return v->kind == GRAFT_ATTR_STRING;
    case ATYPE_INTS: return all_model_items(v, true);
    case ATYPE_FLOATS: return all_model_items(v, false);
    case ATYPE_INT_OR_NONE: return v->kind == GRAFT_ATTR_NULL || v->kind == GRAFT_ATTR_INT;
    case ATYPE_INTS_OR_NONE: return v->kind == GRAFT_ATTR_NULL || all_model_items(v, true);
    case ATYPE_ANY: return true;
    case ATYPE_TENSOR: return v->kind == GRAFT_ATTR_TENSOR;
    case ATYPE_GRAPH: return v->kind == GRAFT_ATTR_GRAPH;
    case ATYPE_STRS: return all_model_strings(v);
    }
    return false;
}

bool registry_value_fits(AttrType t, const AstNode *lit)
{
    switch (t) {
    case ATYPE_INT:
        return lit->kind == AST_NUMBER && lit->u.num.is_int;
    case ATYPE_FLOAT:
        return lit->kind == AST_NUMBER;
    case ATYPE_BOOL:
        return lit->kind == AST_BOOL;
    case ATYPE_STR:
        return lit->kind == AST_STRING;
    case ATYPE_DTYPE:
        return lit->kind == AST_STRING || lit->kind == AST_DTYPE;
    case ATYPE_INTS:
        return all_items(lit, true);
    case ATYPE_FLOATS:
        return all_items(lit, false);
    case ATYPE_INT_OR_NONE:
        return lit->kind == AST_NONE || (lit->kind == AST_NUMBER && lit->u.num.is_int);
    case ATYPE_INTS_OR_NONE:
        return lit->kind == AST_NONE || all_items(lit, true);
    case ATYPE_ANY:
        return ast_is_literal(lit);
    case ATYPE_TENSOR:
    case ATYPE_GRAPH:
        return false; /* no literal is one */
    case ATYPE_STRS:
        return all_string_items(lit);
    }
    return false;
}

const OpAttrInfo *opinfo_find_attr(const OpInfo *op, const char *name)
{
    for (int i = 0; i < op->nattrs; i++)
        if (strcmp(op->attrs[i].name, name) == 0)
            return &op->attrs[i];
    return NULL;
}

bool opinfo_has_trait(const OpInfo *op, OpTrait trait)
{
    return (op->traits & (unsigned)trait) != 0;
}

bool opinfo_accepts_nargs(const OpInfo *op, int n)
{
    return n >= op->min_args && (op->max_args == OP_VARIADIC || n <= op->max_args);
}

bool opinfo_accepts_pattern(const OpInfo *op, int n, bool more, const AstList *attrs)
{
    bool arity = more ? op->max_args == OP_VARIADIC || n <= op->max_args
                      : opinfo_accepts_nargs(op, n);
    for (int i = 0; arity && i < attrs->count; i++)
        arity = opinfo_find_attr(op, attrs->items[i]->u.attr.name) != NULL;
    return arity;
}
