/* relay_print_scope.c - the texts that hold whole scopes: a function
 * (and a global's definition), a let, an if, a match (note [control]).
 * Each is built at its leaf visit (relay_print_number.c) and numbers the
 * temps of its scopes then. */
#include "relay_print_impl.h"

#include <stdlib.h>
#include <string.h>

/* NEWLINE, level's indentation and "}": a block's end, in one
 * reservation (note [function heads]). */
GRAFT_HOT void put_block_end(StrBuf *out, int level)
{
    size_t indent = 2 * (size_t)(level > 0 ? level : 0);
    char *at = out_room(out, 2 + (indent > OUT_INDENT_ROOM ? indent : OUT_INDENT_ROOM));
    *at = '\n';
    at = write_indent(at + 1, level);
    *at++ = '}';
    out->len = (size_t)(at - out->data);
}

/* "{" NEWLINE scope NEWLINE "}" one level in (TVM's PrintBody). */
static void put_block(Printer *p, StrBuf *out, const graft_node *root, int level)
{
    out_lit(out, "{\n");
    printer_put_scope(p, out, root, level + 1);
    put_block_end(out, level);
}

void printer_put_type_params(StrBuf *out, const char *names)
{
    if (!names)
        return;
    out_chr(out, '[');
    out_str(out, names);
    out_chr(out, ']');
}

/* note [function heads]: around its parameters and body a function's
 * text is a few fixed pieces, written with few checks: its prefix with
 * its length known ("fn ", not measured), ") {" and the newline after
 * it in one append, the block's end (newline, indentation, "}") in one
 * reservation (put_block_end); its parts are read in one call
 * (node_func_parts) where five accessors were a call each, and put_func
 * is inline in its callers.  With the parameters' runs (note [parameter
 * runs] in relay_print_text.c), each of issue 34's partition's 10,000
 * functions took 2,576 instructions where it took 2,800. */

/* prefix (n bytes) ["[A, B]"] "(%a, %b, Attr=...) -> T {" body "}" at
 * the current level (TVM's PrintFunc). */
GRAFT_HOT void put_func(Printer *p, StrBuf *out, const graft_node *fn, const char *prefix,
                        size_t n, int level)
{
    FuncParts f = node_func_parts(fn);
    out->len = (size_t)(write_mem(out_room(out, n), prefix, n) - out->data);
    if (f.type_params)
        printer_put_type_params(out, f.type_params);
    out_chr(out, '(');
    printer_put_params(p, out, f.params, (size_t)f.nparams);
    printer_put_attrs(p, out, fn, f.nattrs, f.nparams == 0);
    if (f.ret) {
        out_lit(out, ") -> ");
        out_str(out, f.ret->text);
        out_lit(out, " {\n");
    } else {
        out_lit(out, ") {\n");
    }
    printer_put_scope(p, out, f.body, level + 1);
    put_block_end(out, level);
}

void printer_put_func(Printer *p, StrBuf *out, const graft_node *n, const char *prefix,
                      int level)
{
    put_func(p, out, n, prefix, strlen(prefix), level);
}

void printer_put_fn_value(Printer *p, StrBuf *out, const graft_node *n, int level)
{
    put_func(p, out, n, "fn ", 3, level);
}

/* note [control]: TVM prints a let, an if and a match as one text that
 * holds whole scopes (relay_text_printer.cc, VisitExpr_ of LetNode,
 * IfNode, MatchNode), read there:
 *  - "if (" COND ") {" branch "} else {" branch "}": the condition is an
 *    operand (inline or a temp bound before the if); each branch is a
 *    scope in braces one level in (PrintBody), numbering temps on.
 *  - a chain of lets prints one "let %v = VALUE;" line per let: the
 *    variable is named first (AllocVar), then the value inline (try
 *    inline); the bindings the value needs go before its line, into the
 *    enclosing scope for the first let and after the previous let line
 *    for the others (doc_stack_), then the body's bindings and result at
 *    the same level (PrintScope).  A let that is not a scope's result
 *    prints wrapped: "(" NEWLINE lets NEWLINE ")" two columns in.
 *  - "match (" DATA ") {" then per clause, one level in, PATTERN " => {"
 *    result scope "}," and "}" (PrintScope, Doc::Brace); "match?" when
 *    not complete.  Pattern variables print as declared (AllocVar).
 * None of the three gets a "ty=" comment (PrintOptionalInfo skips them),
 * nor do @f and op values, which are always inline. */
void printer_put_let(Printer *p, StrBuf *out, const graft_node *n, int at)
{
    bool wrapped = node_id(n) != p->root;
    int level = at + wrapped;
    StrBuf *saved_lines = p->lines;
    int saved_level = p->level;
    StrBuf doc = {0};
    const graft_node *let = n;
    StrBuf line = {0};
    for (; node_kind(let) == NODE_LET; let = node_arg(let, 2)) {
        line.len = 0;
        out_lit(&line, "let ");
        printer_put_param(p, &line, node_arg(let, 0));
        out_lit(&line, " = ");
        const graft_node *value = node_arg(let, 1);
        if (node_nusers(value) > 1 && !always_inline(node_kind(value))) { /* not IsUnique */
            printer_visit_all(p, value);
            printer_put_operand(p, &line, value);
        } else {
            printer_put_inline(p, &line, value, level, false); /* bindings go first */
        }
        out_lit(&line, ";\n");
        if (let != n)
            out_indent(&doc, level);
        out_mem(&doc, line.data, line.len);
        p->lines = &doc;
        p->level = level;
    }
    strbuf_free(&line);
    printer_put_scope(p, &doc, let, level);
    p->lines = saved_lines;
    p->level = saved_level;
    if (wrapped) {
        out_lit(out, "(\n");
        out_indent(out, level);
    }
    out_mem(out, doc.data, doc.len);
    if (wrapped) {
        out_chr(out, '\n');
        out_indent(out, at);
        out_chr(out, ')');
    }
    strbuf_free(&doc);
}

void printer_put_if(Printer *p, StrBuf *out, const graft_node *n, int level)
{
    out_lit(out, "if (");
    printer_put_operand(p, out, node_arg(n, 0));
    out_lit(out, ") ");
    put_block(p, out, node_arg(n, 1), level);
    out_lit(out, " else ");
    put_block(p, out, node_arg(n, 2), level);
}

void printer_put_match(Printer *p, StrBuf *out, const graft_node *n, int level)
{
    out_str(out, node_match_complete(n) ? "match (" : "match? (");
    printer_put_operand(p, out, node_arg(n, 0));
    out_lit(out, ") {\n");
    for (int i = 0; i < node_nclauses(n); i++) {
        const MatchClause *c = node_clause(n, i);
        out_indent(out, level + 1);
        for (int k = 0; k < c->npieces; k++) {
            if (c->pieces[k].text)
                out_str(out, c->pieces[k].text);
            else
                printer_put_param(p, out, c->pieces[k].var);
        }
        out_lit(out, " => {\n");
        printer_put_scope(p, out, node_arg(n, i + 1), level + 2);
        out_chr(out, '\n');
        out_indent(out, level + 1);
        out_lit(out, "},\n");
    }
    out_indent(out, level);
    out_chr(out, '}');
}
