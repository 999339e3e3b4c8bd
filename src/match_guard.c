/* match_guard.c - evaluating where-guards over the bindings of a match.
 *
 * Guard trees come from rule text, whose nesting the front end bounds
 * (note [nesting bound] in ast.h), so evaluation may recurse.
 */
#include "match.h"

#include <string.h>

#include "util.h"

typedef enum ValKind {
    VAL_UNKNOWN, /* a query without an answer (no type, not a constant) */
    VAL_NUM,     /* a number (ints, bools and floats alike) */
    VAL_STR,     /* a string or a dtype name */
    VAL_ATTR,    /* an attribute value that is no number or string */
    VAL_DIMS,    /* shape(x): the dims of a tensor type */
    VAL_LIST,    /* a literal list [1, 1] */
} ValKind;

typedef struct Value {
    ValKind kind;          /* which field is live */
    double f;              /* VAL_NUM */
    const char *s;         /* VAL_STR */
    const AttrValue *attr; /* VAL_ATTR */
    const Type *type;      /* VAL_DIMS */
    const PatExpr *list;   /* VAL_LIST */
} Value;

static Value eval(const PatExpr *e, const Binding *b);

static Value num(double f)
{
    return (Value){.kind = VAL_NUM, .f = f};
}

/* An attribute value as a guard value: numbers and strings unwrapped. */
static Value from_attr(const AttrValue *v)
{
    if (!v)
        return (Value){.kind = VAL_UNKNOWN};
    switch (v->kind) {
    case ATTR_INT:
    case ATTR_BOOL:
        return num((double)v->i);
    case ATTR_FLOAT:
        return num(v->f);
    case ATTR_STRING:
        return (Value){.kind = VAL_STR, .s = v->s};
    default:
        return (Value){.kind = VAL_ATTR, .attr = v};
    }
}

static Value query(const PatExpr *e, const Binding *b)
{
    const Node *n = b[e->slot].node;
    if (!n)
        return (Value){.kind = VAL_UNKNOWN};
    const Type *t = node_type(n);
    switch (e->kind) {
    case EXPR_USERS:
        return num(node_nusers(n));
    case EXPR_RANK:
        return pattern_node_rank(n) < 0 ? (Value){.kind = VAL_UNKNOWN}
                                        : num(pattern_node_rank(n));
    case EXPR_DTYPEOF:
        return pattern_node_dtype(n) ? (Value){.kind = VAL_STR, .s = pattern_node_dtype(n)}
                                     : (Value){.kind = VAL_UNKNOWN};
    case EXPR_VALUE:
        return node_kind(n) == NODE_CONST && node_const_is_scalar(n)
                   ? num(node_const_value(n)) : (Value){.kind = VAL_UNKNOWN};
    case EXPR_SHAPE:
        return t && t->kind == TYPE_TENSOR ? (Value){.kind = VAL_DIMS, .type = t}
                                           : (Value){.kind = VAL_UNKNOWN};
    default: { /* EXPR_ATTR */
        const AttrValue *v = node_find_attr(n, e->s);
        return from_attr(v ? v : e->attr);
    }
    }
}

/* Element i of a list-valued expression (shape(x)[1]). */
static Value index_of(const PatExpr *e, const Binding *b)
{
    Value base = eval(e->kids[0], b);
    int64_t i = e->i;
    if (base.kind == VAL_DIMS && i < base.type->rank)
        return num((double)base.type->dims[i]);
    if (base.kind == VAL_ATTR && base.attr->kind == ATTR_LIST && i < base.attr->nitems)
        return from_attr(base.attr->items[i]);
    if (base.kind == VAL_LIST && i < base.list->nkids)
        return eval(base.list->kids[i], b);
    return (Value){.kind = VAL_UNKNOWN};
}

static Value arith(const PatExpr *e, const Binding *b)
{
    Value x = eval(e->kids[0], b);
    if (x.kind != VAL_NUM)
        return (Value){.kind = VAL_UNKNOWN};
    if (e->cmp == 'n')
        return num(-x.f);
    Value y = eval(e->kids[1], b);
    if (y.kind != VAL_NUM)
        return (Value){.kind = VAL_UNKNOWN};
    switch (e->cmp) {
    case '+': return num(x.f + y.f);
    case '-': return num(x.f - y.f);
    case '*': return num(x.f * y.f);
    default:
        return y.f == 0 ? (Value){.kind = VAL_UNKNOWN} : num(x.f / y.f);
    }
}

/* Canonical text of a non-numeric value, for equality tests. */
static void key(const Value *v, const Binding *b, StrBuf *out)
{
    switch (v->kind) {
    case VAL_NUM:
        pattern_number_key(v->f, out);
        return;
    case VAL_STR:
        strbuf_printf(out, "\"%s\"", v->s);
        return;
    case VAL_ATTR:
        pattern_attr_key(v->attr, out);
        return;
    case VAL_DIMS:
        pattern_dims_key(v->type, out);
        return;
    case VAL_LIST:
        strbuf_putc(out, '[');
        for (int i = 0; i < v->list->nkids; i++) {
            Value item = eval(v->list->kids[i], b);
            if (i)
                strbuf_puts(out, ", ");
            key(&item, b, out);
        }
        strbuf_putc(out, ']');
        return;
    case VAL_UNKNOWN:
        strbuf_puts(out, "?");
        return;
    }
}

static bool compare(const PatExpr *e, const Binding *b)
{
    Value x = eval(e->kids[0], b), y = eval(e->kids[1], b);
    if (x.kind == VAL_UNKNOWN || y.kind == VAL_UNKNOWN)
        return false;
    int c;
    if (x.kind == VAL_NUM && y.kind == VAL_NUM)
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
    switch (e->cmp) {
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static bool truth(const PatExpr *e, const Binding *b)
{
    Value v = eval(e, b);
    return v.kind == VAL_NUM && v.f != 0;
}

static Value eval(const PatExpr *e, const Binding *b)
{
    switch (e->kind) {
    case EXPR_NUM: return num(e->f);
    case EXPR_BOOL: return num((double)e->i);
    case EXPR_STR:
    case EXPR_DTYPE: return (Value){.kind = VAL_STR, .s = e->s};
    case EXPR_LIST: return (Value){.kind = VAL_LIST, .list = e};
    case EXPR_SLOT:
        if (b[e->slot].attr)
            return from_attr(b[e->slot].attr);
        if (b[e->slot].node && node_kind(b[e->slot].node) == NODE_CONST &&
            node_const_is_scalar(b[e->slot].node))
            return num(node_const_value(b[e->slot].node));
        return (Value){.kind = VAL_UNKNOWN};
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
    default: return (Value){.kind = VAL_UNKNOWN};
    }
}

bool guard_eval(const PatExpr *guard, const Binding *b)
{
    return truth(guard, b);
}
