/* ast_print.c - the canonical printer of rule text.
 *
 * note [canonical text]: one item per line, single spaces around binary
 * operators and ":=", "=>", "where", one before a rule's "[flags]" (as
 * graft-rules(5) writes them); ", " between arguments; positional
 * operands before named ones; numbers as written; comments dropped.  A
 * subtree is parenthesised exactly when its binding power is below what
 * its position needs, so parse(print(t)) has the same shape as t and
 * printing it again gives the same bytes (tests/check_rules_parse.c).
 *
 * Binding powers of patterns and actions (higher binds tighter):
 *   1 a | b    2 a + b, a - b    3 a * b, a / b    4 -a, c@a
 *   5 a[0], a:const    8 names, literals, calls, tuples
 * Guards use ast_oper_prec (1..6), 7 for shape(x)[1], 8 for primaries.
 */
#include "ast.h"

#include <string.h>

enum { PREC_ALT = 1, PREC_SUM = 2, PREC_TERM = 3, PREC_UNARY = 4,
       PREC_POSTFIX = 5, PREC_PRIMARY = 8 };
enum { GPREC_POSTFIX = 7 };

static void print_at(StrBuf *out, const AstNode *n, int need);

static void print_string(StrBuf *out, const char *s)
{
    strbuf_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            strbuf_putc(out, '\\');
        if (*s == '\n')
            strbuf_puts(out, "\\n");
        else if (*s == '\t')
            strbuf_puts(out, "\\t");
        else
            strbuf_putc(out, *s);
    }
    strbuf_putc(out, '"');
}

/* Binding power of a pattern/action/guard node (see the table above). */
static int prec_of(const AstNode *n)
{
    switch (n->kind) {
    case AST_ALT:
        return PREC_ALT;
    case AST_LETIN: /* its body reaches as far right as it can */
        return PREC_ALT - 1;
    case AST_CALL:
        if (n->u.call.syntax == CALL_INFIX) {
            const char *s = ast_infix_spelling(n->u.call.name);
            return s && (*s == '+' || *s == '-') ? PREC_SUM : PREC_TERM;
        }
        return n->u.call.syntax == CALL_NEGATE ? PREC_UNARY : PREC_PRIMARY;
    case AST_BIND:
        return PREC_UNARY;
    case AST_NUMBER:
        return n->u.num.text[0] == '-' ? PREC_UNARY : PREC_PRIMARY;
    case AST_GETITEM: case AST_CONSTRAIN:
        return PREC_POSTFIX;
    case AST_UNARY: case AST_BINARY:
        return ast_oper_prec(n->u.op.oper);
    case AST_INDEX:
        return GPREC_POSTFIX;
    default:
        return PREC_PRIMARY;
    }
}

static void print_list_items(StrBuf *out, const AstList *l, int need)
{
    for (int i = 0; i < l->count; i++) {
        if (i > 0)
            strbuf_puts(out, ", ");
        print_at(out, l->items[i], need);
    }
}

/* "(a, b, ...)" for operands and attributes of a call-like node. */
static void print_args(StrBuf *out, const AstNode *n)
{
    bool any = n->u.call.args.count > 0;
    strbuf_putc(out, '(');
    print_list_items(out, &n->u.call.args, PREC_ALT);
    if (n->kind != AST_FNCALL && n->u.call.attrs.count > 0) {
        if (any)
            strbuf_puts(out, ", ");
        print_list_items(out, &n->u.call.attrs, PREC_ALT);
        any = true;
    }
    if (n->u.call.copy_from) {
        strbuf_puts(out, any ? ", **" : "**");
        strbuf_puts(out, n->u.call.copy_from->u.var.name);
        any = true;
    }
    if (n->u.call.ellipsis)
        strbuf_puts(out, any ? ", ..." : "...");
    strbuf_putc(out, ')');
}

/* " word ": an infix operator between its operands, without printf,
 * which cost most of printing a rule's action (check_overlap.c prints
 * every rule's). */
static void put_infix(StrBuf *out, const char *word)
{
    strbuf_putc(out, ' ');
    strbuf_puts(out, word);
    strbuf_putc(out, ' ');
}

static void print_call(StrBuf *out, const AstNode *n)
{
    const char *infix = ast_infix_spelling(n->u.call.name);
    if (n->u.call.syntax == CALL_INFIX && infix) {
        int p = prec_of(n);
        print_at(out, n->u.call.args.items[0], p);
        put_infix(out, infix);
        print_at(out, n->u.call.args.items[1], p + 1);
    } else if (n->u.call.syntax == CALL_NEGATE) {
        strbuf_putc(out, '-');
        print_at(out, n->u.call.args.items[0], PREC_UNARY);
    } else {
        strbuf_puts(out, n->u.call.name);
        print_args(out, n);
    }
}

static void print_tuple(StrBuf *out, const AstNode *n)
{
    const AstList *l = &n->u.list.items;
    if (n->u.list.roots) { /* a rule's roots: p & q, no tuple */
        for (int i = 0; i < l->count; i++) {
            strbuf_puts(out, i ? " & " : "");
            print_at(out, l->items[i], PREC_ALT);
        }
        return;
    }
    strbuf_putc(out, '(');
    print_list_items(out, l, PREC_ALT);
    if (n->u.list.ellipsis)
        strbuf_printf(out, "%s%s...", l->count > 0 ? ", " : "",
                      n->u.list.rest ? n->u.list.rest->u.var.name : "");
    else if (l->count == 1)
        strbuf_putc(out, ',');
    strbuf_putc(out, ')');
}

static void print_tensor(StrBuf *out, const AstNode *n)
{
    strbuf_puts(out, "Tensor[(");
    for (int i = 0; i < n->u.constrain.rank; i++) {
        if (i > 0)
            strbuf_puts(out, ", ");
        if (n->u.constrain.dims[i] < 0)
            strbuf_putc(out, '_');
        else
            strbuf_printf(out, "%lld", (long long)n->u.constrain.dims[i]);
    }
    strbuf_printf(out, "), %s]", n->u.constrain.dtype ? n->u.constrain.dtype : "_");
}

static void print_constrain(StrBuf *out, const AstNode *n)
{
    if (n->u.constrain.suffix) {
        strbuf_puts(out, n->u.constrain.operand->u.num.text);
        return;
    }
    if (n->u.constrain.operand) {
        print_at(out, n->u.constrain.operand, PREC_POSTFIX);
        strbuf_putc(out, ':');
    }
    switch (n->u.constrain.kind) {
    case CONSTRAINT_CONST:
        strbuf_puts(out, "const");
        break;
    case CONSTRAINT_VAR:
        strbuf_puts(out, "var");
        if (n->u.constrain.name) {
            strbuf_putc(out, '(');
            print_string(out, n->u.constrain.name);
            strbuf_putc(out, ')');
        }
        break;
    case CONSTRAINT_DTYPE:
        strbuf_puts(out, n->u.constrain.dtype);
        break;
    case CONSTRAINT_RANK:
        strbuf_printf(out, "rank(%d)", n->u.constrain.rank);
        break;
    case CONSTRAINT_TENSOR:
        print_tensor(out, n);
        break;
    case CONSTRAINT_TRAIT:
        strbuf_printf(out, "<%s>", n->u.constrain.name);
        break;
    }
}

/* Guard operators: left-associative except comparisons, which take sums
 * on both sides. */
static void print_oper(StrBuf *out, const AstNode *n)
{
    int p = ast_oper_prec(n->u.op.oper);
    if (n->kind == AST_UNARY) {
        strbuf_puts(out, ast_oper_spelling(n->u.op.oper));
        print_at(out, n->u.op.left, p);
        return;
    }
    bool cmp = p == 3;
    print_at(out, n->u.op.left, cmp ? p + 1 : p);
    put_infix(out, ast_oper_spelling(n->u.op.oper));
    print_at(out, n->u.op.right, p + 1);
}

static void print_literal(StrBuf *out, const AstNode *n)
{
    switch (n->kind) {
    case AST_NUMBER:
        strbuf_puts(out, n->u.num.text);
        break;
    case AST_STRING:
        print_string(out, n->u.str.text);
        break;
    case AST_BOOL:
        strbuf_puts(out, n->u.boolean ? "True" : "False");
        break;
    case AST_NONE:
        strbuf_puts(out, "None");
        break;
    case AST_DTYPE:
        strbuf_puts(out, n->u.dtype.name);
        break;
    default: /* AST_LIST */
        strbuf_putc(out, '[');
        print_list_items(out, &n->u.list.items, PREC_ALT);
        strbuf_putc(out, ']');
        break;
    }
}

static void print_paren_list(StrBuf *out, const AstList *l)
{
    strbuf_putc(out, '(');
    print_list_items(out, l, PREC_ALT);
    strbuf_putc(out, ')');
}

/* op?(p), op*(p), <trait>(...), fn[attrs](...), _(...) */
static void print_call_form(StrBuf *out, const AstNode *n)
{
    if (n->kind == AST_OPTIONAL || n->kind == AST_REPEAT) {
        strbuf_printf(out, "%s%c", n->u.call.name, n->kind == AST_OPTIONAL ? '?' : '*');
        print_args(out, n);
        return;
    }
    if (n->kind == AST_CLASS) {
        strbuf_printf(out, "<%s>", n->u.call.name);
    } else if (n->kind == AST_ANYCALL) {
        strbuf_puts(out, n->u.call.name); /* _ or a callee variable */
    } else {
        strbuf_puts(out, "fn[");
        print_list_items(out, &n->u.call.attrs, PREC_ALT);
        strbuf_putc(out, ']');
    }
    print_args(out, n);
}

/* (op add | op multiply)(x, y) */
static void print_callpat(StrBuf *out, const AstNode *n)
{
    strbuf_putc(out, '(');
    print_at(out, n->u.call.body, 0);
    strbuf_putc(out, ')');
    print_args(out, n);
}

/* fn (a, b) { body }, if (c) { t } else { e }, let v = value; body */
static void print_scope(StrBuf *out, const AstNode *n)
{
    AstNode *const *part = n->u.call.args.items;
    if (n->kind == AST_FNLIT) {
        strbuf_puts(out, "fn ");
        print_args(out, n);
        strbuf_puts(out, " { ");
        print_at(out, n->u.call.body, 0);
        strbuf_puts(out, " }");
    } else if (n->kind == AST_IF) {
        strbuf_puts(out, "if (");
        print_at(out, part[0], 0);
        strbuf_puts(out, ") { ");
        print_at(out, part[1], 0);
        strbuf_puts(out, " } else { ");
        print_at(out, part[2], 0);
        strbuf_puts(out, " }");
    } else {
        strbuf_puts(out, "let ");
        print_at(out, part[0], 0);
        strbuf_puts(out, " = ");
        print_at(out, part[1], 0);
        strbuf_puts(out, "; ");
        print_at(out, part[2], 0);
    }
}

static void print_dominates(StrBuf *out, const AstNode *n)
{
    strbuf_puts(out, "dominates(");
    print_at(out, n->u.dom.parent, PREC_ALT);
    strbuf_puts(out, ", ");
    print_at(out, n->u.dom.path, PREC_ALT);
    strbuf_puts(out, ", ");
    print_at(out, n->u.dom.child, PREC_ALT);
    strbuf_putc(out, ')');
}

/* An attribute value: a computed number in parentheses, as the grammar
 * wants it there (axis=(rank(x) - 1), newshape=[-1, (shape(x)[0] * 2)]). */
static void print_attr_value(StrBuf *out, const AstNode *v)
{
    if (v->kind == AST_BINARY || v->kind == AST_UNARY) {
        strbuf_putc(out, '(');
        print_at(out, v, PREC_ALT);
        strbuf_putc(out, ')');
    } else if (v->kind == AST_LIST && !ast_is_literal(v)) {
        strbuf_putc(out, '[');
        for (int i = 0; i < v->u.list.items.count; i++) {
            if (i > 0)
                strbuf_puts(out, ", ");
            print_attr_value(out, v->u.list.items.items[i]);
        }
        strbuf_putc(out, ']');
    } else {
        print_at(out, v, PREC_ALT);
    }
}

/* xs[lo:hi]... */
static void print_splice(StrBuf *out, const AstNode *n)
{
    print_at(out, n->u.splice.operand, PREC_POSTFIX);
    if (n->u.splice.lo || n->u.splice.has_hi) {
        strbuf_putc(out, '[');
        if (n->u.splice.lo)
            strbuf_printf(out, "%d", n->u.splice.lo);
        strbuf_putc(out, ':');
        if (n->u.splice.has_hi)
            strbuf_printf(out, "%d", n->u.splice.hi);
        strbuf_putc(out, ']');
    }
    if (n->u.splice.dots)
        strbuf_puts(out, "...");
}

/* name or name=value */
static void print_attr(StrBuf *out, const AstNode *n)
{
    strbuf_puts(out, n->u.attr.name);
    if (n->u.attr.value) {
        strbuf_putc(out, '=');
        print_attr_value(out, n->u.attr.value);
    }
}

/* users(x), partition(K=V, ...): a name and its list */
static void print_named_list(StrBuf *out, const AstNode *n)
{
    if (n->kind == AST_QUERY) {
        strbuf_puts(out, n->u.query.name);
        print_paren_list(out, &n->u.query.args);
        return;
    }
    strbuf_puts(out, "partition");
    if (n->u.part.attrs.count > 0)
        print_paren_list(out, &n->u.part.attrs);
}

void ast_print_index(StrBuf *out, const AstNode *n)
{
    if (n->u.item.var)
        strbuf_printf(out, "[%s]", n->u.item.var->u.var.name);
    else if (n->u.item.index == AST_ANY_INDEX)
        strbuf_puts(out, "[_]");
    else
        strbuf_printf(out, "[%d]", n->u.item.index);
}

/* p[0], p[_], p[i], shape(x)[1] */
static void print_item(StrBuf *out, const AstNode *n)
{
    print_at(out, n->u.item.base, n->kind == AST_INDEX ? GPREC_POSTFIX : PREC_POSTFIX);
    ast_print_index(out, n);
}

/* The node's own text, without deciding about parentheses. */
static void print_bare(StrBuf *out, const AstNode *n)
{
    switch (n->kind) {
    case AST_WILDCARD: case AST_VAR:
        strbuf_puts(out, n->kind == AST_VAR ? n->u.var.name : "_");
        break;
    case AST_NUMBER: case AST_STRING: case AST_BOOL: case AST_NONE:
    case AST_DTYPE: case AST_LIST:
        print_literal(out, n);
        break;
    case AST_CALL:
        print_call(out, n);
        break;
    case AST_OPTIONAL: case AST_REPEAT: case AST_CLASS: case AST_FNCALL: case AST_ANYCALL:
        print_call_form(out, n);
        break;
    case AST_OPVALUE:
        strbuf_printf(out, "op %s", n->u.call.name);
        break;
    case AST_FNLIT: case AST_IF: case AST_LETIN:
        print_scope(out, n);
        break;
    case AST_CALLPAT:
        print_callpat(out, n);
        break;
    case AST_SPLICE:
        print_splice(out, n);
        break;
    case AST_TUPLE:
        print_tuple(out, n);
        break;
    case AST_GETITEM: case AST_INDEX:
        print_item(out, n);
        break;
    case AST_ALT:
        print_at(out, n->u.alt.left, PREC_ALT);
        strbuf_puts(out, " | ");
        print_at(out, n->u.alt.right, PREC_SUM);
        break;
    case AST_CONSTRAIN:
        print_constrain(out, n);
        break;
    case AST_BIND:
        strbuf_puts(out, n->u.bind.name);
        strbuf_putc(out, '@');
        print_at(out, n->u.bind.operand, PREC_UNARY);
        break;
    case AST_DOMINATES:
        print_dominates(out, n);
        break;
    case AST_ATTR:
        print_attr(out, n);
        break;
    case AST_UNARY: case AST_BINARY:
        print_oper(out, n);
        break;
    case AST_QUERY: case AST_PARTITION:
        print_named_list(out, n);
        break;
    case AST_KIND_COUNT:
        break;
    }
}

/* Prints n, in parentheses when it binds less tightly than need. */
static void print_at(StrBuf *out, const AstNode *n, int need)
{
    bool paren = prec_of(n) < need;
    if (paren)
        strbuf_putc(out, '(');
    print_bare(out, n);
    if (paren)
        strbuf_putc(out, ')');
}

void ast_print_node(StrBuf *out, const AstNode *n)
{
    print_at(out, n, 0);
}

void ast_print_node_at(StrBuf *out, const AstNode *n, int need)
{
    print_at(out, n, need);
}

int ast_print_prec(const AstNode *n)
{
    return prec_of(n);
}

void ast_print_rule_head(StrBuf *out, const AstRule *rule)
{
    strbuf_puts(out, rule->name);
    if (rule->has_priority || rule->once || rule->inexact) {
        strbuf_puts(out, " [");
        if (rule->has_priority)
            strbuf_printf(out, "priority=%d", rule->priority);
        if (rule->once)
            strbuf_puts(out, rule->has_priority ? ", once" : "once");
        if (rule->inexact)
            strbuf_puts(out, rule->has_priority || rule->once ? ", inexact" : "inexact");
        strbuf_putc(out, ']');
    }
    strbuf_puts(out, " := ");
}

void ast_print_rule(StrBuf *out, const AstRule *rule)
{
    ast_print_rule_head(out, rule);
    ast_print_node(out, rule->pattern_src);
    if (rule->guard) {
        strbuf_puts(out, " where ");
        ast_print_node(out, rule->guard);
    }
    strbuf_puts(out, " => ");
    ast_print_node(out, rule->action);
}

/* note [onnx op clauses] in rules_build_items.c */
static void print_onnx_clauses(StrBuf *out, const AstOpDecl *op)
{
    if (op->domain) {
        strbuf_puts(out, " domain ");
        print_string(out, op->domain);
    }
    if (op->since)
        strbuf_printf(out, " since %d", op->since);
    if (op->relay) {
        strbuf_puts(out, " relay ");
        print_string(out, op->relay);
    }
}

static void print_opdecl(StrBuf *out, const AstOpDecl *op)
{
    strbuf_printf(out, "op %s(", op->name);
    for (int i = 0; i < op->noperands; i++) {
        const AstOperand *o = &op->operands[i];
        strbuf_printf(out, "%s%s%s%s", i > 0 ? ", " : "", o->name,
                      o->optional ? "?" : "", o->variadic ? "..." : "");
    }
    for (int i = 0; i < op->nattrs; i++) {
        const AstAttrDecl *a = &op->attrs[i];
        strbuf_printf(out, "%s%s: %s", i + op->noperands > 0 ? ", " : "", a->name, a->type);
        if (a->dflt) {
            strbuf_puts(out, " = ");
            ast_print_node(out, a->dflt);
        }
        if (a->since)
            strbuf_printf(out, " since %d", a->since);
    }
    strbuf_putc(out, ')');
    if (op->outputs == AST_OUTPUTS_VARIES)
        strbuf_puts(out, " -> tuple(...)");
    else if (op->outputs != AST_OUTPUTS_TENSOR)
        strbuf_printf(out, " -> tuple(%d)", op->outputs);
    for (int i = 0; i < op->ntraits; i++)
        strbuf_printf(out, " %s", op->traits[i]);
    print_onnx_clauses(out, op);
}

void ast_print_let_head(StrBuf *out, const AstLet *let)
{
    strbuf_printf(out, "let %s", let->name);
    if (let->has_parens) {
        strbuf_putc(out, '(');
        for (int i = 0; i < let->nparams; i++)
            strbuf_printf(out, "%s%s", i > 0 ? ", " : "", let->params[i]);
        strbuf_putc(out, ')');
    }
    strbuf_puts(out, " = ");
}

static void print_let(StrBuf *out, const AstLet *let)
{
    ast_print_let_head(out, let);
    ast_print_node(out, let->body);
}

void ast_print_item(StrBuf *out, const AstItem *item)
{
    switch (item->kind) {
    case ITEM_RULE:
        ast_print_rule(out, item->u.rule);
        break;
    case ITEM_OP:
        print_opdecl(out, item->u.op);
        break;
    case ITEM_LET:
        print_let(out, item->u.let);
        break;
    case ITEM_INCLUDE:
        strbuf_puts(out, "include ");
        print_string(out, item->u.include->path);
        break;
    case ITEM_OPSET:
        strbuf_printf(out, "opset %s %d", item->u.opset->ir, item->u.opset->version);
        break;
    }
    strbuf_putc(out, '\n');
}

void ast_print_file(StrBuf *out, const AstFile *file)
{
    for (int i = 0; i < file->nitems; i++)
        ast_print_item(out, &file->items[i]);
}
