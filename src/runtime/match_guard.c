/* match_guard.c - evaluating where-guards over the bindings of a match.
 *
 * Guard trees come from rule text, whose nesting the front end bounds
 * (note [nesting bound] in ast.h), so evaluation may recurse.
 */
#include "match.h"

#include <string.h>

#include "util.h"

static GuardVal eval(const PatExpr *e, const Binding *b);

static GuardVal num(double f)
{
    return (GuardVal){.kind = GV_NUM, .f = f};
}

static GuardVal unknown(void)
{
    return (GuardVal){.kind = GV_UNKNOWN};
}

static GuardVal query(const PatExpr *e, const Binding *b)
{
    const Node *n = b[e->slot].node;
    if (!n)
        return unknown();
    const Type *t = node_type(n);
    switch (e->kind) {
    case EXPR_USERS:
        return num(node_nusers(n));
    case EXPR_RANK:
        return pattern_node_rank(n) < 0 ? unknown() : num(pattern_node_rank(n));
    case EXPR_DTYPEOF: {
        const char *dt = pattern_node_dtype(n);
        return dt ? (GuardVal){.kind = GV_STR, .s = dt} : unknown();
    }
    case EXPR_VALUE:
        return node_kind(n) == NODE_CONST && node_const_is_scalar(n)
                   ? num(node_const_value(n)) : unknown();
    case EXPR_SHAPE:
        return t && t->kind == TYPE_TENSOR ? (GuardVal){.kind = GV_DIMS, .type = t}
                                           : unknown();
    default: { /* EXPR_ATTR */
        const AttrValue *v = node_find_attr(n, e->s);
        return pattern_guard_of_attr(v ? v : e->attr);
    }
    }
}

/* Element i of a list-valued expression (shape(x)[1]). */
static GuardVal index_of(const PatExpr *e, const Binding *b)
{
    GuardVal base = eval(e->kids[0], b);
    int64_t i = e->i;
    if (base.kind == GV_DIMS && i < base.type->rank)
        return num((double)base.type->dims[i]);
    if (base.kind == GV_ATTR && base.attr->kind == ATTR_LIST && i < base.attr->nitems)
        return pattern_guard_of_attr(base.attr->items[i]);
    if (base.kind == GV_LIST && i < base.list->nkids)
        return eval(base.list->kids[i], b);
    return unknown();
}

static GuardVal arith(const PatExpr *e, const Binding *b)
{
    GuardVal x = eval(e->kids[0], b);
    if (x.kind != GV_NUM)
        return unknown();
    if (e->cmp == 'n')
        return num(-x.f);
    GuardVal y = eval(e->kids[1], b);
    if (y.kind != GV_NUM)
        return unknown();
    switch (e->cmp) {
    case '+': return num(x.f + y.f);
    case '-': return num(x.f - y.f);
    case '*': return num(x.f * y.f);
    default:
        return y.f == 0 ? unknown() : num(x.f / y.f);
    }
}

/* Canonical text of a value, for equality tests: a literal list item by
 * item, anything else as pattern_guard_key writes it. */
static void key(const GuardVal *v, const Binding *b, StrBuf *out)
{
    if (v->kind != GV_LIST) {
        pattern_guard_key(v, out);
        return;
    }
    strbuf_putc(out, '[');
    for (int i = 0; i < v->list->nkids; i++) {
        GuardVal item = eval(v->list->kids[i], b);
        if (i)
            strbuf_puts(out, ", ");
        key(&item, b, out);
    }
    strbuf_putc(out, ']');
}

static bool compare(const PatExpr *e, const Binding *b)
{
    GuardVal x = eval(e->kids[0], b), y = eval(e->kids[1], b);
    if (x.kind == GV_UNKNOWN || y.kind == GV_UNKNOWN)
        return false;
    int c;
    if (x.kind == GV_NUM && y.kind == GV_NUM)
        c = (x.f > y.f) - (x.f < y.f);
    else {
        if (e->cmp != CMP_EQ && e->cmp != CMP_NE)
            return false;
        StrBuf kx = {0}, ky = {0};
        key(&x, b, &kx);
        key(&y, b, &ky);
        c = strcmp(kx.data, ky.data);
        strbuf_free(&kx);
        strbuf_free(&ky);
    }
    return pattern_cmp_holds((CmpOp)e->cmp, c);
}

static bool truth(const PatExpr *e, const Binding *b)
{
    GuardVal v = eval(e, b);
    return v.kind == GV_NUM && v.f != 0;
}

static GuardVal eval(const PatExpr *e, const Binding *b)
{
    switch (e->kind) {
    case EXPR_NUM: return num(e->f);
    case EXPR_BOOL: return num((double)e->i);
    case EXPR_STR:
    case EXPR_DTYPE: return (GuardVal){.kind = GV_STR, .s = e->s};
    case EXPR_LIST: return (GuardVal){.kind = GV_LIST, .list = e};
    case EXPR_SLOT:
        if (b[e->slot].attr)
            return pattern_guard_of_attr(b[e->slot].attr);
        if (b[e->slot].node && node_kind(b[e->slot].node) == NODE_CONST &&
            node_const_is_scalar(b[e->slot].node))
            return num(node_const_value(b[e->slot].node));
        return unknown();
    case EXPR_GETITEM: return index_of(e, b);
    case EXPR_ARITH: return arith(e, b);
    case EXPR_NOT: return num(!truth(e->kids[0], b));
    case EXPR_AND: return num(truth(e->kids[0], b) && truth(e->kids[1], b));
    case EXPR_OR: return num(truth(e->kids[0], b) || truth(e->kids[1], b));
    case EXPR_CMP: return num(compare(e, b));
    case EXPR_USERS:
    case EXPR_RANK:
    case EXPR_DTYPEOF:
    case EXPR_SHAPE:
    case EXPR_VALUE:
    case EXPR_ATTR: return query(e, b);
    default: return unknown();
    }
}

bool guard_eval(const PatExpr *guard, const Binding *b)
{
    return truth(guard, b);
}

GuardVal guard_value(const PatExpr *e, const Binding *b)
{
    return eval(e, b);
}

void guard_value_text(const GuardVal *v, const Binding *b, StrBuf *out)
{
    key(v, b, out);
}
