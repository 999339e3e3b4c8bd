/* lower_expr.c - guards and rewrite actions to graft_expr trees.
 *
 * Both nest no deeper than AST_MAX_DEPTH (ast.h), so lowering recurses.
 */
#include "lower_impl.h"

#include <stdio.h>
#include <string.h>

static graft_expr *new_expr(Lowerer *L, graft_expr_kind kind)
{
    graft_expr *e = arena_alloc(L->arena, sizeof *e);
    e->kind = kind;
    e->slot = -1;
    return e;
}

static bool set_kids(Lowerer *L, graft_expr *e, const AstNode *const *kids, int n,
                     const graft_expr *(*lower)(Lowerer *, const AstNode *))
{
    const graft_expr **ks = arena_array(L->arena, (size_t)n + 1, sizeof *ks);
    for (int i = 0; i < n; i++)
        if (!(ks[i] = lower(L, kids[i])))
            return false;
    e->nkids = n;
    e->kids = (const graft_expr *const *)ks;
    return true;
}

static void unsupported(Lowerer *L, const AstNode *at, const char *where)
{
    diag_error(L->d, at->src, at->range, "%s cannot appear in %s", ast_kind_name(at->kind),
               where);
    L->errors++;
}

/* A literal (number, string, dtype, bool, list) as an expression; it also
 * carries its value as an attribute value. */
static graft_expr *literal(Lowerer *L, const AstNode *a)
{
    static const graft_expr_kind kinds[] = {
        [AST_NUMBER] = GRAFT_EXPR_NUM,  [AST_STRING] = GRAFT_EXPR_STR, [AST_BOOL] = GRAFT_EXPR_BOOL,
        [AST_DTYPE] = GRAFT_EXPR_DTYPE, [AST_LIST] = GRAFT_EXPR_LIST,  [AST_NONE] = GRAFT_EXPR_STR};
    graft_expr *e = new_expr(L, kinds[a->kind]);
    e->attr = lower_literal_attr(L, a);
    switch (a->kind) {
    case AST_NUMBER: e->f = a->u.num.value; break;
    case AST_STRING: e->s = lower_name(L, a->u.str.text); break;
    case AST_DTYPE: e->s = lower_name(L, a->u.dtype.name); break;
    case AST_BOOL: e->i = a->u.boolean; break;
    case AST_LIST:
        set_kids(L, e, (const AstNode *const *)a->u.list.items.items,
                 a->u.list.items.count, lower_guard);
        break;
    default: e->s = "None"; break;
    }
    return e;
}

/* The registry default of attribute name on the op the variable at slot
 * was bound to (c@nn.conv2d(...)), or NULL. */
static const graft_attr_value *bound_op_default(Lowerer *L, int slot, const char *name)
{
    if (slot < 0 || slot >= L->rule->nvars)
        return NULL;
    const AstNode *site = L->rule->vars[slot].site;
    while (site && site->kind == AST_BIND)
        site = site->u.bind.operand;
    while (site && site->kind == AST_CONSTRAIN)
        site = site->u.constrain.operand;
    if (!site || site->kind != AST_CALL || !site->u.call.op)
        return NULL;
    const OpAttrInfo *ai = opinfo_find_attr(site->u.call.op, name);
    return ai && ai->dflt ? lower_literal_attr(L, ai->dflt) : NULL;
}

/* users(x), rank(x), dtype(x), value(x), shape(x), attr(c, name). */
static graft_expr *query(Lowerer *L, const AstNode *a)
{
    static const graft_expr_kind kinds[] = {
        [QUERY_USERS] = GRAFT_EXPR_USERS,   [QUERY_RANK] = GRAFT_EXPR_RANK,
        [QUERY_DTYPE] = GRAFT_EXPR_DTYPEOF, [QUERY_VALUE] = GRAFT_EXPR_VALUE,
        [QUERY_SHAPE] = GRAFT_EXPR_SHAPE,   [QUERY_ATTR] = GRAFT_EXPR_ATTR};
    const AstList *args = &a->u.query.args;
    if (a->u.query.query == QUERY_UNKNOWN || args->count < 1 ||
        args->items[0]->kind != AST_VAR) {
        unsupported(L, a, "a guard");
        return NULL;
    }
    graft_expr *e = new_expr(L, kinds[a->u.query.query]);
    e->slot = args->items[0]->u.var.slot;
    if (e->kind == GRAFT_EXPR_ATTR && args->count > 1) {
        e->s = lower_name(L, args->items[1]->u.var.name);
        e->attr = bound_op_default(L, e->slot, e->s);
    }
    return e;
}

/* a && b, a || b, comparisons and arithmetic: one graft_expr with two kids. */
static graft_expr *binary(Lowerer *L, const AstNode *a)
{
    static const int cmps[] = {
        [OPER_EQ] = GRAFT_CMP_EQ, [OPER_NE] = GRAFT_CMP_NE, [OPER_LT] = GRAFT_CMP_LT,
        [OPER_LE] = GRAFT_CMP_LE, [OPER_GT] = GRAFT_CMP_GT, [OPER_GE] = GRAFT_CMP_GE,
        [OPER_ADD] = '+',         [OPER_SUB] = '-',         [OPER_MUL] = '*',
        [OPER_DIV] = '/'};
    AstOper op = a->u.op.oper;
    graft_expr_kind k = op == OPER_OR ? GRAFT_EXPR_OR : op == OPER_AND ? GRAFT_EXPR_AND
               : op >= OPER_ADD ? GRAFT_EXPR_ARITH : GRAFT_EXPR_CMP;
    graft_expr *e = new_expr(L, k);
    if (k == GRAFT_EXPR_CMP || k == GRAFT_EXPR_ARITH)
        e->cmp = cmps[op];
    const AstNode *kids[2] = {a->u.op.left, a->u.op.right};
    return set_kids(L, e, kids, 2, lower_guard) ? e : NULL;
}

const graft_expr *lower_guard(Lowerer *L, const AstNode *a)
{
    graft_expr *e;
    switch (a->kind) {
    case AST_NUMBER: case AST_STRING: case AST_BOOL: case AST_DTYPE: case AST_LIST:
    case AST_NONE:
        return literal(L, a);
    case AST_VAR:
        e = new_expr(L, GRAFT_EXPR_SLOT);
        e->slot = a->u.var.slot;
        return e;
    case AST_QUERY:
        return query(L, a);
    case AST_BINARY:
        return binary(L, a);
    case AST_UNARY:
        e = new_expr(L, a->u.op.oper == OPER_NOT ? GRAFT_EXPR_NOT : GRAFT_EXPR_ARITH);
        e->cmp = 'n';
        return set_kids(L, e, (const AstNode *const *)&a->u.op.left, 1, lower_guard) ? e : NULL;
    case AST_INDEX:
        e = new_expr(L, GRAFT_EXPR_GETITEM);
        e->i = a->u.item.index;
        return set_kids(L, e, (const AstNode *const *)&a->u.item.base, 1, lower_guard) ? e : NULL;
    default:
        unsupported(L, a, "a guard");
        return NULL;
    }
}

/* ---- actions ---- */

/* A number in an action makes a new constant: float32 when written
 * alone, else of the dtype written after it (2:int64); spelled as TVM
 * prints one ("1f", "1e-05f", "2i64", pattern_const_text). */
static graft_expr *new_constant(Lowerer *L, const AstNode *a, const char *dtype)
{
    graft_expr *e = literal(L, a);
    StrBuf text = {0};
    const char *why = pattern_const_text(a->u.num.value, dtype, &text);
    if (why) {
        diag_error(L->d, a->src, a->range,
                   "cannot make a constant of dtype %s from this number: %s",
                   dtype, why);
        L->errors++;
        return NULL;
    }
    e->text = lower_name(L, text.data);
    e->dtype = lower_name(L, dtype);
    strbuf_free(&text);
    return e;
}

/* 2:float32 in an action: a new constant of that dtype; no other
 * constraint means anything there (the checker reports them first). */
static graft_expr *typed_constant(Lowerer *L, const AstNode *a)
{
    const AstNode *num = a->u.constrain.operand;
    if (num->kind != AST_NUMBER || a->u.constrain.kind != CONSTRAINT_DTYPE ||
        !a->u.constrain.dtype) {
        diag_error(L->d, a->src, a->u.constrain.where, "this constraint cannot appear in a "
                   "rewrite action; only a number's dtype can (2:float32)");
        L->errors++;
        return NULL;
    }
    return new_constant(L, num, a->u.constrain.dtype);
}

/* [-1, shape(x)[2]] as an attribute value: an GRAFT_EXPR_LIST without a
 * value of its own, whose items the rewrite computes (note [computed
 * attributes] in src/runtime/rewrite_build.c). */
static graft_expr *computed_list(Lowerer *L, const AstNode *a)
{
    graft_expr *e = new_expr(L, GRAFT_EXPR_LIST);
    bool ok = set_kids(L, e, (const AstNode *const *)a->u.list.items.items,
                       a->u.list.items.count, lower_guard);
    return ok ? e : NULL;
}

/* name=value in a new op call: a literal, a bound attribute or scalar
 * constant (its value), or attr(c, name). */
static bool act_attr(Lowerer *L, const AstNode *a, graft_act_attr *out)
{
    const AstNode *v = a->u.attr.value;
    out->src = GRAFT_ASRC_EXPR;
    out->name = lower_name(L, a->u.attr.name);
    if (ast_is_literal(v))
        out->value = literal(L, v);
    else if (v->kind == AST_LIST)
        out->value = computed_list(L, v);
    else if (v->kind == AST_VAR || v->kind == AST_QUERY || v->kind == AST_INDEX ||
             v->kind == AST_BINARY || v->kind == AST_UNARY)
        out->value = lower_guard(L, v); /* computed: note [computed attributes] */
    else {
        unsupported(L, v, "an attribute value");
        return false;
    }
    return out->value != NULL;
}

/* The op's declared attributes with their defaults, in declaration
 * order (TVM's), for the runtime to order and filter the new call's
 * attributes by (note [created attributes] in pattern.h). */
static void op_decls(Lowerer *L, const OpInfo *op, graft_expr *e)
{
    graft_attr_decl *ds = arena_array(L->arena, (size_t)op->nattrs + 1, sizeof *ds);
    for (int i = 0; i < op->nattrs; i++) {
        ds[i].name = lower_name(L, op->attrs[i].name);
        ds[i].dflt = op->attrs[i].dflt ? lower_literal_attr(L, op->attrs[i].dflt) : NULL;
    }
    e->ndecls = op->nattrs;
    e->decls = ds;
}

/* Whether a call of an action has a splice among its operands. */
static bool spliced_call(const AstNode *a)
{
    for (int i = 0; i < a->u.call.args.count; i++)
        if (a->u.call.args.items[i]->kind == AST_SPLICE)
            return true;
    return false;
}

/* The operand counts op takes, [i, cmp) of a spliced call (note
 * [spliced operand counts] in check_action.c). */
static void op_counts(const OpInfo *op, graft_expr *e)
{
    e->i = op->min_args;
    e->cmp = op->max_args == OP_VARIADIC ? 0 : op->max_args + 1;
}

/* op(args, name=value, **c) in an action: kids are the operands, attrs
 * the copied (first) and written attributes. */
static graft_expr *act_call(Lowerer *L, const AstNode *a)
{
    graft_expr *e = new_expr(L, GRAFT_EXPR_CALL);
    e->s = lower_name(L, a->u.call.name);
    if (!set_kids(L, e, (const AstNode *const *)a->u.call.args.items, a->u.call.args.count,
                  lower_action))
        return NULL;
    const AstList *attrs = &a->u.call.attrs;
    int n = attrs->count + (a->u.call.copy_from != NULL), k = 0;
    graft_act_attr *as = arena_array(L->arena, (size_t)n + 1, sizeof *as);
    if (a->u.call.copy_from)
        as[k++] = (graft_act_attr){.src = GRAFT_ASRC_COPY, .slot = a->u.call.copy_from->u.var.slot};
    for (int i = 0; i < attrs->count; i++)
        if (!act_attr(L, attrs->items[i], &as[k++]))
            return NULL;
    e->nattrs = n;
    e->attrs = as;
    if (a->u.call.op)
        op_decls(L, a->u.call.op, e);
    if (a->u.call.op && spliced_call(a))
        op_counts(a->u.call.op, e);
    return e;
}

static graft_expr *action_expr(Lowerer *L, const AstNode *a)
{
    graft_expr *e;
    switch (a->kind) {
    case AST_VAR:
        e = new_expr(L, GRAFT_EXPR_SLOT);
        e->slot = a->u.var.slot;
        e->i = L->rule->vars[e->slot].kind == VARKIND_ATTR; /* a constant operand */
        return e;
    case AST_NUMBER:
        return new_constant(L, a, "float32");
    case AST_CONSTRAIN:
        return typed_constant(L, a);
    case AST_CALL:
        if (!a->u.call.op && strcmp(a->u.call.name, "fold") == 0) { /* check_fold */
            e = new_expr(L, GRAFT_EXPR_FOLD);
            return set_kids(L, e, (const AstNode *const *)a->u.call.args.items, 1,
                            lower_action) ? e : NULL;
        }
        return act_call(L, a);
    case AST_SPLICE: {
        const AstVarInfo *v = &L->rule->vars[a->u.splice.operand->u.var.slot];
        int from = v->seq_from < 0 ? 0 : v->seq_from, hi = a->u.splice.hi;
        e = new_expr(L, GRAFT_EXPR_SPLICE);
        e->slot = a->u.splice.operand->u.var.slot;
        e->i = from + a->u.splice.lo;
        e->cmp = !a->u.splice.has_hi ? 0 : hi > 0 ? from + hi : hi;
        return e;
    }
    case AST_ANYCALL: /* f(y, ...), f a callee variable */
        e = new_expr(L, GRAFT_EXPR_CALLEE);
        e->slot = a->u.call.slot;
        return set_kids(L, e, (const AstNode *const *)a->u.call.args.items,
                        a->u.call.args.count, lower_action) ? e : NULL;
    case AST_OPVALUE:
        e = new_expr(L, GRAFT_EXPR_OPREF);
        e->s = lower_name(L, a->u.call.name);
        return e;
    case AST_TUPLE:
        e = new_expr(L, GRAFT_EXPR_TUPLE);
        return set_kids(L, e, (const AstNode *const *)a->u.list.items.items,
                        a->u.list.items.count, lower_action) ? e : NULL;
    case AST_GETITEM:
        e = new_expr(L, GRAFT_EXPR_GETITEM);
        e->i = a->u.item.index;
        if (a->u.item.var) { /* t[i]: kids[1] the index variable's slot */
            const AstNode *kids[2] = {a->u.item.base, a->u.item.var};
            return set_kids(L, e, kids, 2, lower_action) ? e : NULL;
        }
        return set_kids(L, e, (const AstNode *const *)&a->u.item.base, 1, lower_action) ? e : NULL;
    default:
        unsupported(L, a, "a rewrite action");
        return NULL;
    }
}

/* Each node of an action keeps where the rule file wrote it (a macro's
 * body: the macro's file and line), for the #line of its statements in
 * generated C (note [line directives] in emit_c_action.c). */
const graft_expr *lower_action(Lowerer *L, const AstNode *a)
{
    graft_expr *e = action_expr(L, a);
    if (e && a->src) {
        e->line = a->range.first_line;
        e->file = a->src->name;
    }
    return e;
}
