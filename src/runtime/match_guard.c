/* match_guard.c - evaluating where-guards over the bindings of a match.
 *
 * Guard trees come from rule text, whose nesting the front end bounds
 * (note [nesting bound] in ast.h), so evaluation may recurse.
 */
#include "match.h"

#include <string.h>

#include "util.h"

static graft_guard_val eval(const graft_expr *e, const graft_binding *b);

static graft_guard_val num(double f)
{
    return (graft_guard_val){.kind = GRAFT_GV_NUM, .f = f};
}

static graft_guard_val unknown(void)
{
    return (graft_guard_val){.kind = GRAFT_GV_UNKNOWN};
}

/* A bound variable's number: a number constant (note [one-element constants] in
 * graph.h) or unknown. */
static graft_guard_val slot_number(const graft_binding *s)
{
    double v;
    return s->node && node_const_number(s->node, &v) ? num(v) : unknown();
}

static graft_guard_val query(const graft_expr *e, const graft_binding *b)
{
    const graft_node *n = b[e->slot].node;
    if (!n)
        return unknown();
    const graft_type *t = node_type(n);
    switch (e->kind) {
    case GRAFT_EXPR_USERS:
        return num(node_nusers(n));
    case GRAFT_EXPR_RANK:
        return pattern_node_rank(n) < 0 ? unknown() : num(pattern_node_rank(n));
    case GRAFT_EXPR_DTYPEOF: {
        const char *dt = pattern_node_dtype(n);
        return dt ? (graft_guard_val){.kind = GRAFT_GV_STR, .s = dt} : unknown();
    }
    case GRAFT_EXPR_VALUE: {
        double v;
        return node_const_number(n, &v) ? num(v) : unknown();
    }
    case GRAFT_EXPR_SHAPE:
        return t && t->kind == TYPE_TENSOR ? (graft_guard_val){.kind = GRAFT_GV_DIMS, .type = t}
                                           : unknown();
    default: { /* GRAFT_EXPR_ATTR */
        const graft_attr_value *v = node_find_attr(n, e->s);
        return pattern_guard_of_attr(v ? v : e->attr);
    }
    }
}

/* Element i of a list-valued expression (shape(x)[1]), or of a constant
 * tensor (value(p)[2]: node_const_element). */
static graft_guard_val index_of(const graft_expr *e, const graft_binding *b)
{
    int64_t i = e->i;
    if (e->kids[0]->kind == GRAFT_EXPR_VALUE) {
        const graft_node *n = b[e->kids[0]->slot].node;
        double v;
        return n && node_const_element(n, i, &v) ? num(v) : unknown();
    }
    graft_guard_val base = eval(e->kids[0], b);
    if (base.kind == GRAFT_GV_DIMS && i < base.type->rank) /* note [unknown dims] */
        return pattern_guard_of_dim(base.type->dims[i]);
    if (base.kind == GRAFT_GV_ATTR && base.attr->kind == GRAFT_ATTR_LIST && i < base.attr->nitems)
        return pattern_guard_of_attr(base.attr->items[i]);
    if (base.kind == GRAFT_GV_LIST && i < base.list->nkids)
        return eval(base.list->kids[i], b);
    return unknown();
}

static graft_guard_val arith(const graft_expr *e, const graft_binding *b)
{
    graft_guard_val x = eval(e->kids[0], b);
    if (x.kind != GRAFT_GV_NUM)
        return unknown();
    if (e->cmp == 'n')
        return num(-x.f);
    graft_guard_val y = eval(e->kids[1], b);
    if (y.kind != GRAFT_GV_NUM)
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
static void key(const graft_guard_val *v, const graft_binding *b, StrBuf *out)
{
    if (v->kind != GRAFT_GV_LIST) {
        pattern_guard_key(v, out);
        return;
    }
    strbuf_putc(out, '[');
    for (int i = 0; i < v->list->nkids; i++) {
        graft_guard_val item = eval(v->list->kids[i], b);
        if (i)
            strbuf_puts(out, ", ");
        key(&item, b, out);
    }
    strbuf_putc(out, ']');
}

/* Whether v is a shape with an unknown or symbolic dim, or a symbol:
 * its text, with a ? in it, tells nothing about a literal list (note
 * [unknown dims]). */
static bool dims_unknown(graft_guard_val v)
{
    for (int i = 0; v.kind == GRAFT_GV_DIMS && i < v.type->rank; i++)
        if (v.type->dims[i] < 0)
            return true;
    return v.kind == GRAFT_GV_SYM;
}

/* Whether literal list v has an item that is a symbol (its text "?"
 * would equal another symbol's). */
static bool list_has_symbol(graft_guard_val v, const graft_binding *b)
{
    for (int i = 0; v.kind == GRAFT_GV_LIST && i < v.list->nkids; i++)
        if (eval(v.list->kids[i], b).kind == GRAFT_GV_SYM)
            return true;
    return false;
}

static bool compare(const graft_expr *e, const graft_binding *b)
{
    graft_guard_val x = eval(e->kids[0], b), y = eval(e->kids[1], b);
    /* the compiled rules' comparison, one for both (shape(a) == shape(b),
       which the merges of several roots test at every try, compares the
       dims without writing their texts); a literal list's items are
       guard expressions over the bindings, which only the interpreter has */
    if (x.kind != GRAFT_GV_LIST && y.kind != GRAFT_GV_LIST)
        return graft_gv_cmp((graft_cmp_op)e->cmp, x, y);
    if (x.kind == GRAFT_GV_UNKNOWN || y.kind == GRAFT_GV_UNKNOWN || dims_unknown(x) ||
        dims_unknown(y) || list_has_symbol(x, b) || list_has_symbol(y, b) ||
        (e->cmp != GRAFT_CMP_EQ && e->cmp != GRAFT_CMP_NE))
        return false;
    StrBuf kx = {0}, ky = {0};
    key(&x, b, &kx);
    key(&y, b, &ky);
    int c = strcmp(kx.data, ky.data);
    strbuf_free(&kx);
    strbuf_free(&ky);
    return pattern_cmp_holds((graft_cmp_op)e->cmp, c);
}

static bool truth(const graft_expr *e, const graft_binding *b)
{
    graft_guard_val v = eval(e, b);
    return v.kind == GRAFT_GV_NUM && v.f != 0;
}

static graft_guard_val eval(const graft_expr *e, const graft_binding *b)
{
    switch (e->kind) {
    case GRAFT_EXPR_NUM: return num(e->f);
    case GRAFT_EXPR_BOOL: return num((double)e->i);
    case GRAFT_EXPR_STR:
    case GRAFT_EXPR_DTYPE: return (graft_guard_val){.kind = GRAFT_GV_STR, .s = e->s};
    case GRAFT_EXPR_LIST: return (graft_guard_val){.kind = GRAFT_GV_LIST, .list = e};
    case GRAFT_EXPR_SLOT:
        if (b[e->slot].attr)
            return pattern_guard_of_attr(b[e->slot].attr);
        return slot_number(&b[e->slot]);
    case GRAFT_EXPR_GETITEM: return index_of(e, b);
    case GRAFT_EXPR_ARITH: return arith(e, b);
    case GRAFT_EXPR_NOT: return num(!truth(e->kids[0], b));
    case GRAFT_EXPR_AND: return num(truth(e->kids[0], b) && truth(e->kids[1], b));
    case GRAFT_EXPR_OR: return num(truth(e->kids[0], b) || truth(e->kids[1], b));
    case GRAFT_EXPR_CMP: return num(compare(e, b));
    case GRAFT_EXPR_USERS:
    case GRAFT_EXPR_RANK:
    case GRAFT_EXPR_DTYPEOF:
    case GRAFT_EXPR_SHAPE:
    case GRAFT_EXPR_VALUE:
    case GRAFT_EXPR_ATTR: return query(e, b);
    default: return unknown();
    }
}

bool guard_eval(const graft_expr *guard, const graft_binding *b)
{
    return truth(guard, b);
}

graft_guard_val guard_value(const graft_expr *e, const graft_binding *b)
{
    return eval(e, b);
}

void guard_value_text(const graft_guard_val *v, const graft_binding *b, const graft_graph *g,
                      StrBuf *out)
{
    if (v->kind == GRAFT_GV_SYM)
        pattern_dim_symbol_text(g, (int64_t)v->f, out);
    else if (v->kind == GRAFT_GV_DIMS)
        pattern_dims_text(g, v->type, out);
    else
        key(v, b, out);
}
