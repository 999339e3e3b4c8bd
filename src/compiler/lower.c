/* lower.c - the lowering driver: rules in file order, literals. */
#include "lower_impl.h"

#include "automaton.h"

#include <stdlib.h>
#include <string.h>

const char *lower_name(Lowerer *L, const char *s)
{
    return s ? interner_cstr(L->names, s) : NULL;
}

const graft_attr_value *lower_literal_attr(Lowerer *L, const AstNode *lit)
{
    graft_attr_value *v = arena_alloc(L->arena, sizeof *v);
    switch (lit->kind) {
    case AST_NUMBER:
        v->kind = lit->u.num.is_int ? GRAFT_ATTR_INT : GRAFT_ATTR_FLOAT;
        v->i = lit->u.num.ival;
        v->f = lit->u.num.value;
        break;
    case AST_STRING:
    case AST_DTYPE:
        v->kind = GRAFT_ATTR_STRING;
        v->s = lower_name(L, lit->kind == AST_STRING ? lit->u.str.text : lit->u.dtype.name);
        break;
    case AST_BOOL:
        v->kind = GRAFT_ATTR_BOOL;
        v->i = lit->u.boolean;
        break;
    case AST_LIST: {
        int n = lit->u.list.items.count;
        const graft_attr_value **items = arena_array(L->arena, (size_t)n + 1, sizeof *items);
        for (int i = 0; i < n; i++)
            items[i] = lower_literal_attr(L, lit->u.list.items.items[i]);
        v->kind = GRAFT_ATTR_LIST;
        v->nitems = n;
        v->items = (const graft_attr_value *const *)items;
        break;
    }
    default:
        v->kind = GRAFT_ATTR_NULL;
        break;
    }
    return v;
}

/* The canonical text of a literal: that of the value it lowers to, so
 * that a rule's attribute test and a node's attribute are written by the
 * one writer (pattern_attr_key) and compare as texts. */
void lower_literal_key(Lowerer *L, const AstNode *lit, StrBuf *out)
{
    pattern_attr_key(lower_literal_attr(L, lit), out);
}

static const char *const *slot_names(Lowerer *L, const AstRule *r)
{
    const char **names = arena_array(L->arena, (size_t)r->nvars + 1, sizeof *names);
    for (int i = 0; i < r->nvars; i++)
        names[i] = lower_name(L, r->vars[i].name);
    return (const char *const *)names;
}

/* partition(K="v", ...): the function attributes, values as literals. */
static void partition_attrs(Lowerer *L, const AstNode *part, graft_rule *out)
{
    const AstList *attrs = &part->u.part.attrs;
    graft_attr *as = arena_array(L->arena, (size_t)attrs->count + 1, sizeof *as);
    for (int i = 0; i < attrs->count; i++) {
        as[i].name = lower_name(L, attrs->items[i]->u.attr.name);
        as[i].value = lower_literal_attr(L, attrs->items[i]->u.attr.value);
    }
    out->npart_attrs = attrs->count;
    out->part_attrs = as;
}

static bool lower_rule(Lowerer *L, const AstRule *r, graft_rule *out)
{
    L->rule = r;
    out->name = lower_name(L, r->name);
    out->file = lower_name(L, r->src->name);
    out->line = r->name_range.first_line;
    out->text = lower_name(L, r->text);
    out->kind = r->kind == RULE_PARTITION ? GRAFT_ACTION_PARTITION : GRAFT_ACTION_REWRITE;
    out->priority = r->priority;
    out->once = r->once;
    out->nslots = r->nvars;
    out->slot_names = slot_names(L, r);
    if (r->pattern->kind == AST_TUPLE && r->pattern->u.list.roots) {
        if (!lower_roots(L, r->pattern, out))
            return false;
    } else if (!(out->pattern = lower_pattern(L, r->pattern)))
        return false;
    if (r->guard && !(out->guard = lower_guard(L, r->guard)))
        return false;
    if (r->kind == RULE_PARTITION) {
        partition_attrs(L, r->action, out);
        return true;
    }
    return (out->action = lower_action(L, r->action)) != NULL;
}

/* Rules for ONNX carry their opset and the ops their registry declares,
 * for the model check of note [onnx models checked] in
 * src/onnx/onnx_file.c: a compiled rewriter has no registry. */
static void lower_onnx_ops(Lowerer *L, const Registry *reg, graft_rule_set *rs)
{
    rs->onnx_opset = registry_onnx_opset(reg);
    if (!rs->onnx_opset)
        return;
    int n = registry_count(reg);
    graft_op_name *ops = arena_array(L->arena, (size_t)n + 1, sizeof *ops);
    for (int i = 0; i < n; i++) {
        const OpInfo *op = registry_op(reg, i);
        if (!op->onnx)
            continue;
        ops[rs->nops].name = lower_name(L, op->name);
        ops[rs->nops].domain = op->domain ? lower_name(L, op->domain) : NULL;
        ops[rs->nops].since = op->since;
        rs->nops++;
    }
    rs->ops = ops;
}

static void lowerer_free(Lowerer *L)
{
    vec_free(&L->preds);
    vec_free(&L->items);
    keymap_free(&L->pred_ids);
    keymap_free(&L->item_ids);
    strbuf_free(&L->key);
    interner_free(L->keys);
    arena_free(L->key_arena);
    interner_free(L->names);
}

Lowered *lower_rules(const RuleFile *rf, graft_diag *d)
{
    Lowered *lw = xcalloc(1, sizeof *lw);
    lw->arena = arena_new();
    Lowerer L = {.arena = lw->arena, .rf = rf, .d = d};
    L.names = interner_new(lw->arena);
    L.key_arena = arena_new();
    L.keys = interner_new(L.key_arena);
    graft_rule *rules = arena_array(lw->arena, (size_t)rf->nrules + 1, sizeof *rules);
    for (int i = 0; i < rf->nrules && !diag_gave_up(d); i++)
        if (!lower_rule(&L, rf->rules[i], &rules[i]) && L.errors == 0)
            L.errors++;
    lw->rs.name = rf->nsources > rf->nbuiltin ? lower_name(&L, rf->sources[rf->nbuiltin]->name)
                                               : "";
    lw->rs.nrules = (uint32_t)rf->nrules;
    lw->rs.rules = rules;
    lw->rs.items = lower_take_items(&L, &lw->rs.nitems);
    lw->rs.preds = lower_take_preds(&L, &lw->rs.npreds);
    lower_onnx_ops(&L, rf->registry, &lw->rs);
    int errors = L.errors;
    lowerer_free(&L);
    if (errors) {
        lower_free(lw);
        return NULL;
    }
    return lw;
}

void lower_free(Lowered *lw)
{
    if (!lw)
        return;
    arena_free(lw->arena);
    free(lw);
}

bool lower_dump_automaton(const RuleFile *rf, FILE *out, bool dot, graft_diag *d)
{
    Lowered *lw = lower_rules(rf, d);
    if (!lw)
        return false;
    Automaton *a = automaton_new(&lw->rs);
    automaton_dump(a, out, dot);
    automaton_free(a);
    lower_free(lw);
    return true;
}
