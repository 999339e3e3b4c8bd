/* registry_decl.c - turning op declarations into OpInfo, and "did you
 * mean" suggestions for unknown op names. */
#include "registry_impl.h"

#include <stdlib.h>
#include <string.h>

/* Operands: required ones first, then optional ones, at most one variadic
 * operand and only last. */
static bool decl_operands(const AstOpDecl *decl, OpInfo *op, graft_diag *d)
{
    bool ok = true, seen_optional = false;
    for (int i = 0; i < decl->noperands; i++) {
        const AstOperand *o = &decl->operands[i];
        if (o->variadic && i + 1 != decl->noperands) {
            diag_error(d, decl->src, decl->name_range,
                       "op '%s': only the last operand can be variadic ('%s...')",
                       decl->name, o->name);
            ok = false;
        }
        if (!o->optional && !o->variadic && seen_optional) {
            diag_error(d, decl->src, decl->name_range,
                       "op '%s': required operand '%s' after an optional one",
                       decl->name, o->name);
            ok = false;
        }
        seen_optional |= o->optional;
        if (!o->optional && !o->variadic)
            op->min_args++;
    }
    bool variadic = decl->noperands > 0 && decl->operands[decl->noperands - 1].variadic;
    op->max_args = variadic ? OP_VARIADIC : decl->noperands;
    return ok;
}

static bool decl_traits(const AstOpDecl *decl, OpInfo *op, graft_diag *d)
{
    bool ok = true;
    for (int i = 0; i < decl->ntraits; i++) {
        unsigned bit = registry_trait_by_name(decl->traits[i]);
        if (!bit) {
            diag_error(d, decl->src, decl->trait_ranges[i],
                       "unknown op trait '%s'; expected commutative, elementwise, "
                       "broadcast or reduce", decl->traits[i]);
            ok = false;
        }
        op->traits |= bit;
    }
    if ((op->traits & TRAIT_COMMUTATIVE) && (op->min_args != 2 || op->max_args != 2)) {
        diag_error(d, decl->src, decl->name_range,
                   "op '%s' is declared commutative but does not take exactly two "
                   "operands", decl->name);
        ok = false;
    }
    return ok;
}

static bool decl_attr(Registry *reg, const AstOpDecl *decl, int i, OpAttrInfo *out,
                      graft_diag *d)
{
    const AstAttrDecl *a = &decl->attrs[i];
    for (int j = 0; j < i; j++)
        if (decl->attrs[j].name == a->name) {
            diag_error(d, decl->src, a->range, "op '%s': attribute '%s' declared twice",
                       decl->name, a->name);
            return false;
        }
    if (!registry_attr_type(a->type, &out->type)) {
        diag_error(d, decl->src, a->range, "op '%s': unknown attribute kind '%s'; "
                   "expected int, float, bool, str, dtype, ints, floats, int_or_none, "
                   "ints_or_none, any, tensor, graph or strs",
                   decl->name, a->type);
        return false;
    }
    out->name = a->name;
    out->dflt = a->dflt;
    out->since = a->since;
    if (a->dflt && !registry_value_fits(out->type, a->dflt)) {
        diag_error(d, a->dflt->src, a->dflt->range,
                   "default of attribute '%s' is not a value of kind %s", a->name, a->type);
        return false;
    }
    if (a->dflt) {
        StrBuf sb = {0};
        ast_print_node(&sb, a->dflt);
        out->dflt_text = arena_strdup(reg->arena, sb.data);
        strbuf_free(&sb);
    }
    return true;
}

/* Whether two declarations print the same. */
static bool printed_same(const AstOpDecl *a, const AstOpDecl *b)
{
    StrBuf sa = {0}, sb = {0};
    AstItem ia = {.kind = ITEM_OP, .u.op = (AstOpDecl *)a};
    AstItem ib = {.kind = ITEM_OP, .u.op = (AstOpDecl *)b};
    ast_print_item(&sa, &ia);
    ast_print_item(&sb, &ib);
    bool same = strcmp(sa.data, sb.data) == 0;
    strbuf_free(&sa);
    strbuf_free(&sb);
    return same;
}

static bool same_default(const AstNode *a, const AstNode *b)
{
    if (!a || !b)
        return a == b;
    StrBuf sa = {0}, sb = {0};
    ast_print_node(&sa, a);
    ast_print_node(&sb, b);
    bool same = strcmp(sa.data, sb.data) == 0;
    strbuf_free(&sa);
    strbuf_free(&sb);
    return same;
}

/* Whether every field print_opdecl (ast_print.c) prints is equal; then
 * the two print the same. */
static bool same_fields(const AstOpDecl *a, const AstOpDecl *b)
{
    if (strcmp(a->name, b->name) != 0 || a->noperands != b->noperands ||
        a->nattrs != b->nattrs || a->ntraits != b->ntraits || a->outputs != b->outputs ||
        a->onnx != b->onnx || a->since != b->since || a->domain != b->domain ||
        (a->relay ? !b->relay || strcmp(a->relay, b->relay) != 0 : b->relay != NULL))
        return false;
    for (int i = 0; i < a->noperands; i++) {
        const AstOperand *x = &a->operands[i], *y = &b->operands[i];
        if (strcmp(x->name, y->name) != 0 || x->optional != y->optional ||
            x->variadic != y->variadic)
            return false;
    }
    for (int i = 0; i < a->ntraits; i++)
        if (strcmp(a->traits[i], b->traits[i]) != 0)
            return false;
    for (int i = 0; i < a->nattrs; i++) {
        const AstAttrDecl *x = &a->attrs[i], *y = &b->attrs[i];
        if (strcmp(x->name, y->name) != 0 || strcmp(x->type, y->type) != 0 ||
            x->since != y->since || !same_default(x->dflt, y->dflt))
            return false;
    }
    return true;
}

/* Whether two declarations say the same (a file may repeat a builtin):
 * whether they print the same.  Printing a whole declaration costs some
 * 13,000 instructions, so a word-for-word repeat, the usual case, is
 * settled field by field; the rest are printed, as before. */
static bool same_decl(const AstOpDecl *a, const AstOpDecl *b)
{
    return same_fields(a, b) || printed_same(a, b);
}

bool registry_declare(Registry *reg, const AstOpDecl *decl, graft_diag *d)
{
    const OpInfo *old = registry_find_any(reg, decl->name);
    if (old) {
        if (same_decl(old->decl, decl))
            return true;
        diag_error(d, decl->src, decl->name_range,
                   "op '%s' is already declared differently", decl->name);
        diag_note(d, old->decl->src, old->decl->name_range, "previous declaration is here");
        return false;
    }
    OpInfo *op = arena_alloc(reg->arena, sizeof(OpInfo));
    op->name = interner_cstr(reg->names, decl->name);
    op->decl = decl;
    op->outputs = decl->outputs;
    op->onnx = decl->onnx;
    op->domain = decl->domain;
    op->since = decl->since;
    /* Both report their own errors, so both run. */
    bool operands_ok = decl_operands(decl, op, d);
    bool traits_ok = decl_traits(decl, op, d);
    bool ok = operands_ok && traits_ok;
    OpAttrInfo *attrs = arena_array(reg->arena, (size_t)decl->nattrs + 1, sizeof(OpAttrInfo));
    for (int i = 0; i < decl->nattrs; i++)
        ok &= decl_attr(reg, decl, i, &attrs[op->nattrs++], d);
    op->attrs = attrs;
    if (!ok)
        return false;
    registry_insert(reg, op);
    return true;
}

/* The op whose name is closest to name, at most limit edits off (the
 * name without an op's "nn." prefix counts as one), or NULL. */
static const char *closest_op(const Registry *reg, const char *name, size_t limit)
{
    registry_load_deferred_of_target(reg);
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (size_t i = 0; i < reg->ops.len; i++) {
        if (reg->ops.items[i]->onnx != reg->onnx)
            continue;
        const char *cand = reg->ops.items[i]->name;
        const char *dot = strrchr(cand, '.');
        size_t dist = dot && strcmp(dot + 1, name) == 0 ? 1 : edit_distance(name, cand, limit);
        if (dist < best_d) {
            best_d = dist;
            best = cand;
        }
    }
    return best;
}

/* The op whose name is closest to name: at most a third of the name's
 * letters differ, or name is the op's name without its "nn." prefix. */
const char *registry_suggest(const Registry *reg, const char *name)
{
    size_t limit = strlen(name) / 3 > 0 ? strlen(name) / 3 : 1;
    return closest_op(reg, name, limit);
}

const char *registry_nearest(const Registry *reg, const char *name)
{
    size_t limit = strlen(name);
    registry_load_deferred_of_target(reg);
    for (size_t i = 0; i < reg->ops.len; i++)
        if (reg->ops.items[i]->onnx == reg->onnx && strlen(reg->ops.items[i]->name) > limit)
            limit = strlen(reg->ops.items[i]->name);
    return closest_op(reg, name, limit);
}

/* By edit distance (kernal_size, grups), at most a third of its letters
 * off, or one it is a prefix of (kernel for kernel_size). */
const char *registry_suggest_attr(const OpInfo *op, const char *name)
{
    size_t ln = strlen(name), limit = ln / 3 > 0 ? ln / 3 : 1;
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (int i = 0; i < op->nattrs; i++) {
        const char *a = op->attrs[i].name;
        size_t la = strlen(a), shorter = la < ln ? la : ln;
        size_t d = shorter >= 3 && strncmp(a, name, shorter) == 0 ? 0
                                                                   : edit_distance(name, a, limit);
        if (d < best_d) {
            best_d = d;
            best = a;
        }
    }
    return best;
}
