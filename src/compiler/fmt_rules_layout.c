/* fmt_rules_layout.c - one item of a rule file over as many lines as its
 * width needs.
 *
 * note [rule layout]: an item that fits in FMT_RULES_WIDTH columns is one
 * line, its canonical text.  A wider rule puts its pattern on the first
 * line and its guard and action on lines of their own, indented four:
 *
 *   NAME := PATTERN
 *       where GUARD
 *       => ACTION
 *
 * A pattern, guard or action still too wide is broken before operators
 * of its outermost chain, the operands its lowest-binding operator joins
 * (a | b | c, a + b - c, g && h && k), filling each line as far as the
 * width allows; the continuation lines begin with the operator, under
 * the chain's first column.  An op declaration, an include and an operand
 * with no such chain stay on one line, however wide.  Only layout
 * differs from the canonical text: the same tokens in the same order, so
 * the parse is the same and formatting the result again changes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt_rules.h"

/* Where the layout is: the text so far and the start of its last line. */
typedef struct Layout {
    StrBuf *out;
    size_t line_start; /* offset in out of the current line */
} Layout;

static size_t column(const Layout *lo)
{
    return lo->out->len - lo->line_start;
}

static void new_line(Layout *lo, size_t indent)
{
    strbuf_putc(lo->out, '\n');
    lo->line_start = lo->out->len;
    for (size_t i = 0; i < indent; i++)
        strbuf_putc(lo->out, ' ');
}

/* The two operands and the operator of a link of a chain, or false when
 * n joins none of its kind (comparisons do not chain: a < b < c is no
 * rule text). */
static bool chain_link(const AstNode *n, const AstNode **left, const AstNode **right,
                       const char **oper)
{
    if (n->kind == AST_ALT) {
        *left = n->u.alt.left;
        *right = n->u.alt.right;
        *oper = "|";
        return true;
    }
    if (n->kind == AST_CALL && n->u.call.syntax == CALL_INFIX) {
        *oper = ast_infix_spelling(n->u.call.name);
        *left = n->u.call.args.items[0];
        *right = n->u.call.args.items[1];
        return *oper != NULL;
    }
    if (n->kind == AST_BINARY && ast_oper_prec(n->u.op.oper) != 3) {
        *oper = ast_oper_spelling(n->u.op.oper);
        *left = n->u.op.left;
        *right = n->u.op.right;
        return true;
    }
    return false;
}

/* One operand of a chain with the operator before it (NULL for the first). */
typedef struct ChainPart {
    const AstNode *operand;
    const char *oper;
} ChainPart;
typedef VEC(ChainPart) ChainParts;

/* The chain under n, first operand first: the operators are
 * left-associative, so the chain is n's left spine while the binding
 * power stays n's.  Returns the number of parts (1: no chain). */
static size_t chain_of(const AstNode *n, ChainParts *parts)
{
    int prec = ast_print_prec(n);
    const AstNode *left, *right;
    const char *oper;
    while (ast_print_prec(n) == prec && chain_link(n, &left, &right, &oper)) {
        vec_push(parts, ((ChainPart){right, oper}));
        n = left;
    }
    vec_push(parts, ((ChainPart){n, NULL}));
    for (size_t i = 0, j = parts->len - 1; i < j; i++, j--) {
        ChainPart t = parts->items[i];
        parts->items[i] = parts->items[j];
        parts->items[j] = t;
    }
    return parts->len;
}

static void put_chain(Layout *lo, const ChainParts *parts, int prec);
static void put_wide(Layout *lo, const AstNode *n);

/* n from the current column, in parentheses when its binding power is
 * below need: its canonical text when it fits, else broken where its
 * kind allows (put_wide). */
static void put_operand(Layout *lo, const AstNode *n, int need)
{
    StrBuf one = {0};
    ast_print_node_at(&one, n, need);
    if (column(lo) + one.len <= FMT_RULES_WIDTH) {
        strbuf_append(lo->out, one.data, one.len);
    } else {
        bool paren = ast_print_prec(n) < need;
        if (paren)
            strbuf_putc(lo->out, '(');
        put_wide(lo, n);
        if (paren)
            strbuf_putc(lo->out, ')');
    }
    strbuf_free(&one);
}

/* One entry between a call's parentheses: an operand or attribute, or
 * the text of "**c" or "...". */
typedef struct CallEntry {
    const AstNode *node;
    const char *text;
} CallEntry;
typedef VEC(CallEntry) CallEntries;

/* The entries of a call in ast_print.c's order. */
static void call_entries(const AstNode *n, CallEntries *entries)
{
    for (int i = 0; i < n->u.call.args.count; i++)
        vec_push(entries, ((CallEntry){n->u.call.args.items[i], NULL}));
    for (int i = 0; i < n->u.call.attrs.count; i++)
        vec_push(entries, ((CallEntry){n->u.call.attrs.items[i], NULL}));
    if (n->u.call.copy_from)
        vec_push(entries, ((CallEntry){n->u.call.copy_from, "**"}));
    if (n->u.call.ellipsis)
        vec_push(entries, ((CallEntry){NULL, "..."}));
}

static void put_entry(StrBuf *out, const CallEntry *e)
{
    if (e->text)
        strbuf_puts(out, e->text);
    if (e->node)
        ast_print_node_at(out, e->node, 1); /* PREC_ALT, as print_args */
}

/* NAME(a, b, k=v, ...) with a line broken before an entry that would pass
 * the width, the next line under the first entry. */
static void put_call(Layout *lo, const AstNode *n)
{
    if (n->kind == AST_CLASS)
        strbuf_printf(lo->out, "<%s>(", n->u.call.name);
    else
        strbuf_printf(lo->out, "%s%s(", n->u.call.name, n->kind == AST_OPTIONAL ? "?"
                                                       : n->kind == AST_REPEAT ? "*" : "");
    size_t indent = column(lo);
    CallEntries entries = {0};
    call_entries(n, &entries);
    for (size_t i = 0; i < entries.len; i++) {
        const CallEntry *e = &entries.items[i];
        StrBuf one = {0};
        put_entry(&one, e);
        if (i > 0) {
            strbuf_putc(lo->out, ',');
            if (column(lo) + 2 + one.len > FMT_RULES_WIDTH)
                new_line(lo, indent);
            else
                strbuf_putc(lo->out, ' ');
        }
        if (e->node && !e->text)
            put_operand(lo, e->node, 1);
        else
            strbuf_append(lo->out, one.data, one.len);
        strbuf_free(&one);
    }
    vec_free(&entries);
    strbuf_putc(lo->out, ')');
}

static bool is_call(const AstNode *n)
{
    return (n->kind == AST_CALL && n->u.call.syntax == CALL_PREFIX) ||
           n->kind == AST_OPTIONAL || n->kind == AST_REPEAT || n->kind == AST_CLASS ||
           n->kind == AST_ANYCALL;
}

/* A rule's roots, p & q & r (note [several roots] in check_roots.c): a
 * line broken before each '&' whose root would pass the width, the
 * roots under the first one's column, each as ast_print.c prints it. */
static void put_roots(Layout *lo, const AstNode *n)
{
    size_t indent = column(lo);
    const AstList *roots = &n->u.list.items;
    for (int i = 0; i < roots->count; i++) {
        if (i > 0) {
            StrBuf one = {0};
            ast_print_node_at(&one, roots->items[i], 1); /* PREC_ALT */
            if (column(lo) + 3 + one.len > FMT_RULES_WIDTH)
                new_line(lo, indent);
            else
                strbuf_putc(lo->out, ' ');
            strbuf_free(&one);
            strbuf_puts(lo->out, "& ");
        }
        put_operand(lo, roots->items[i], 1);
    }
}

/* n, which does not fit its line, without parentheses around it: broken
 * in its outermost chain, between a call's entries, between roots, or
 * inside the operand of c@... or of ...[i]; else as one line. */
static void put_wide(Layout *lo, const AstNode *n)
{
    ChainParts parts = {0};
    if (n->kind == AST_TUPLE && n->u.list.roots) {
        put_roots(lo, n);
    } else if (chain_of(n, &parts) > 1) {
        put_chain(lo, &parts, ast_print_prec(n));
    } else if (is_call(n)) {
        put_call(lo, n);
    } else if (n->kind == AST_BIND) {
        strbuf_printf(lo->out, "%s@", n->u.bind.name);
        put_operand(lo, n->u.bind.operand, ast_print_prec(n));
    } else if (n->kind == AST_GETITEM) {
        put_operand(lo, n->u.item.base, ast_print_prec(n));
        ast_print_index(lo->out, n);
    } else {
        ast_print_node_at(lo->out, n, 0);
    }
    vec_free(&parts);
}

/* The parts of a chain of binding power prec, a line broken before an
 * operator whose operand would pass the width.  The first operand prints
 * at prec and the others one above, as ast_print.c does, so the text is
 * the canonical one but for the breaks. */
static void put_chain(Layout *lo, const ChainParts *parts, int prec)
{
    size_t indent = column(lo);
    put_operand(lo, parts->items[0].operand, prec);
    for (size_t i = 1; i < parts->len; i++) {
        const ChainPart *part = &parts->items[i];
        StrBuf one = {0};
        ast_print_node_at(&one, part->operand, prec + 1);
        if (column(lo) + 2 + strlen(part->oper) + one.len > FMT_RULES_WIDTH)
            new_line(lo, indent);
        else
            strbuf_putc(lo->out, ' ');
        strbuf_free(&one);
        strbuf_printf(lo->out, "%s ", part->oper);
        put_operand(lo, part->operand, prec + 1);
    }
}

static void put_expr(Layout *lo, const AstNode *n)
{
    put_operand(lo, n, 0);
}

enum { CLAUSE_INDENT = 4 };

static void put_rule(Layout *lo, const AstRule *rule)
{
    ast_print_rule_head(lo->out, rule);
    put_expr(lo, rule->pattern_src);
    if (rule->guard) {
        new_line(lo, CLAUSE_INDENT);
        strbuf_puts(lo->out, "where ");
        put_expr(lo, rule->guard);
    }
    new_line(lo, CLAUSE_INDENT);
    strbuf_puts(lo->out, "=> ");
    put_expr(lo, rule->action);
}

void fmt_rules_item(StrBuf *out, const AstItem *item)
{
    Layout lo = {out, out->len};
    StrBuf one = {0};
    ast_print_item(&one, item);
    one.len--; /* its newline */
    if (one.len <= FMT_RULES_WIDTH || item->kind == ITEM_OP || item->kind == ITEM_INCLUDE) {
        strbuf_append(out, one.data, one.len);
    } else if (item->kind == ITEM_RULE) {
        put_rule(&lo, item->u.rule);
    } else {
        ast_print_let_head(out, item->u.let);
        put_expr(&lo, item->u.let->body);
    }
    strbuf_free(&one);
}
