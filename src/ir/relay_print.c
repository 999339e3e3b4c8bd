/* relay_print.c - TVM's canonical text for a graph.
 *
 * note [temp numbering]: TVM v0.14's printer (relay_text_printer.cc)
 * numbers temps in an order that is not plain post-order, and graft must
 * print byte for byte what TVM prints.  It works in two steps per scope:
 *  1. "leaf visits" in iterative post-order from the scope's result:
 *     a call's callee, then its arguments left to right; tuple fields;
 *     a getitem's tuple.  A function visited this way prints its body
 *     right away, in a new scope, taking temp numbers then.
 *  2. a leaf visit builds the node's text by printing its operands (a
 *     call's arguments, then its callee): variables and constants print
 *     inline; an operand with a temp prints as it; any other operand gets
 *     the next temp number now, and its binding line "%N = TEXT;" goes to
 *     the current scope.
 * The scope's result prints inline as its last line.  So a function used
 * as a callee gets its number after the call's arguments.  Annotation
 * comments print where the node's text first appears.
 */
#include "relay.h"

#include <stdlib.h>
#include <string.h>

#include "relay_names.h"
#include "util.h"

enum { NO_TEMP = UINT32_MAX };

/* A node's leaf-visit state: its text is kept in pending until it is
 * used (printed into a binding line or as a scope's result), and texts
 * used at the end of pending are dropped (note [pending texts]). */
enum { VISIT_NOT, VISIT_TEXT, VISIT_USED };

typedef struct Printer {
    const Graph *g;     /* graph being printed */
    StrBuf pending;     /* texts built by leaf visits, by offset */
    size_t *off;        /* per node id: its text's offset in pending */
    size_t *len;        /* per node id: its text's length */
    uint32_t *temp;     /* per node id: temp number or NO_TEMP */
    uint8_t *visited;   /* per node id: VISIT_NOT, VISIT_TEXT or VISIT_USED */
    uint32_t *stack;    /* ids whose texts are in pending, in order */
    size_t nstack;      /* entries in stack */
    StrBuf text;        /* scratch: the text a leaf visit builds */
    uint32_t next_temp; /* next temp number */
    StrBuf *lines;      /* binding lines of the current scope */
    int level;          /* nesting of the current scope (@main's body: 1) */
    const Node *root;   /* the expression being printed inline (a scope's
                           result, a let's value: note [control]) */
    int root_level;     /* the level root's text is placed at */
    StrBuf args;        /* scratch for a call's operand list */
    VarNames names;     /* printed names of variables */
    StrBuf *top;        /* the module's text (note [streaming]) */
    FILE *sink;         /* where top goes as it fills, or NULL */
    bool discard;       /* drop top as it fills (temp numbers only) */
    bool types;         /* RELAY_PRINT_TYPES: "ty=" from node types */
} Printer;

/* note [streaming]: @main's binding lines are final once written, so
 * relay_print writes the module's text out every 64 KiB instead of
 * holding a second copy of a large model in memory. */
static void drain(Printer *p)
{
    if (p->lines != p->top || p->top->len < 65536 || (!p->sink && !p->discard))
        return;
    if (p->sink)
        fwrite(p->top->data, 1, p->top->len, p->sink);
    p->top->len = 0;
}

/* "%N" without printf (the printer writes a million of them). */
static void put_temp(StrBuf *sb, uint32_t n)
{
    char buf[12];
    int i = sizeof buf;
    buf[--i] = '\0';
    do {
        buf[--i] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    buf[--i] = '%';
    strbuf_append(sb, buf + i, sizeof buf - 1 - (size_t)i);
}

static void indent(StrBuf *sb, int level)
{
    for (int i = 0; i < level; i++)
        strbuf_puts(sb, "  ");
}

/* The annotation's text after its "ty=TYPE" part (what TVM prints after
 * the type: " span=..."), without the comment markers. */
static void annot_rest(const char *annot, const char **rest, size_t *len)
{
    const char *p = annot + 2, *end = annot + strlen(annot) - 2;
    while (p < end && *p == ' ')
        p++;
    if (strncmp(p, "ty=", 3) == 0) {
        const char *span = strstr(p, " span=");
        p = span && span < end ? span + 1 : end;
    }
    while (end > p && end[-1] == ' ')
        end--;
    *rest = p;
    *len = (size_t)(end - p);
}

/* note [printed types]: with RELAY_PRINT_TYPES every typed node prints
 * "/ * ty=TYPE * /", followed inside the comment by the rest of its
 * loaded annotation (its span), as TVM prints a type-checked module;
 * otherwise the annotation prints as it was loaded. */
static void put_annot(const Printer *p, StrBuf *sb, const Node *n)
{
    const char *annot = node_annotation(n);
    if (p->types && node_type(n)) {
        const char *rest = "";
        size_t len = 0;
        if (annot)
            annot_rest(annot, &rest, &len);
        strbuf_printf(sb, " /* ty=%s", node_type(n)->text);
        if (len) {
            strbuf_putc(sb, ' ');
            strbuf_append(sb, rest, len);
        }
        strbuf_puts(sb, " */");
    } else if (annot) {
        strbuf_putc(sb, ' ');
        strbuf_puts(sb, annot);
    }
}

/* An attribute value: its spelling as loaded, or for one made by an edit
 * the canonical form.  Loaded lists have a spelling, so the recursion
 * only follows lists an edit nested. */
static void put_attr_value(StrBuf *sb, const AttrValue *v)
{
    if (v->spelling) {
        strbuf_puts(sb, v->spelling);
        return;
    }
    switch (v->kind) {
    case ATTR_INT: strbuf_printf(sb, "%lld", (long long)v->i); break;
    case ATTR_FLOAT: strbuf_printf(sb, "%gf", v->f); break;
    case ATTR_BOOL: strbuf_puts(sb, v->i ? "True" : "False"); break;
    case ATTR_NULL: strbuf_puts(sb, "None"); break;
    case ATTR_STRING: relay_put_string(sb, v->s); break;
    case ATTR_LIST:
        strbuf_putc(sb, '[');
        for (int i = 0; i < v->nitems; i++) {
            if (i)
                strbuf_puts(sb, ", ");
            put_attr_value(sb, v->items[i]);
        }
        strbuf_putc(sb, ']');
        break;
    }
}

/* "name=value" for each attribute, after ", " unless first (nothing was
 * printed before them). */
static void put_attrs(StrBuf *sb, const Node *n, bool first)
{
    for (int i = 0; i < node_nattrs(n); i++) {
        const Attr *a = node_attr(n, i);
        if (!first)
            strbuf_puts(sb, ", ");
        first = false;
        strbuf_printf(sb, "%s=", a->name);
        put_attr_value(sb, a->value);
    }
}

/* A node's reference from its user (step 2 of note [temp numbering]). */
static void put_param(Printer *p, StrBuf *out, const Node *v);

/* "free_var %x: T;" where a free variable is first printed, as TVM's
 * PrintExpr does (into the current scope's lines). */
static void declare_free(Printer *p, const Node *v)
{
    if (p->visited[node_id(v)] != VISIT_NOT)
        return;
    p->visited[node_id(v)] = VISIT_USED;
    indent(p->lines, p->level);
    strbuf_puts(p->lines, "free_var ");
    put_param(p, p->lines, v);
    strbuf_puts(p->lines, ";\n");
}

static void put_operand(Printer *p, StrBuf *out, const Node *m)
{
    uint32_t id = node_id(m);
    if (node_kind(m) == NODE_VAR) {
        if (node_is_free(m))
            declare_free(p, m);
        strbuf_puts(out, var_names_get(&p->names, m));
        return;
    }
    if (node_kind(m) == NODE_GLOBAL) { /* always inline, no comment */
        strbuf_putc(out, '@');
        strbuf_puts(out, node_name(m));
        return;
    }
    if (node_kind(m) == NODE_OPREF) {
        strbuf_puts(out, node_name(m));
        return;
    }
    if (node_kind(m) == NODE_CONST) {
        strbuf_puts(out, node_const_text(m));
        put_annot(p, out, m);
        return;
    }
    if (p->temp[id] == NO_TEMP) {
        p->temp[id] = p->next_temp++;
        indent(p->lines, p->level);
        put_temp(p->lines, p->temp[id]);
        strbuf_puts(p->lines, " = ");
        strbuf_append(p->lines, p->pending.data + p->off[id], p->len[id]);
        put_annot(p, p->lines, m);
        strbuf_puts(p->lines, ";\n");
        p->visited[id] = VISIT_USED;
        drain(p);
    }
    put_temp(out, p->temp[id]);
}

/* "%x: T / * ann * /" for a parameter in a signature. */
static void put_param(Printer *p, StrBuf *out, const Node *v)
{
    strbuf_puts(out, var_names_alloc(&p->names, v));
    if (node_type_declared(v) && node_type(v)) {
        strbuf_puts(out, ": ");
        strbuf_puts(out, node_type(v)->text);
    }
    put_annot(p, out, v);
}

/* "op(args, attrs)" or "%5(args)": the arguments are printed first, so
 * they take temps before a function callee does. */
static void put_call(Printer *p, StrBuf *out, const Node *n)
{
    p->args.len = 0;
    for (int i = 0; i < node_nargs(n); i++) {
        if (i)
            strbuf_puts(&p->args, ", ");
        put_operand(p, &p->args, node_arg(n, i));
    }
    put_attrs(&p->args, n, node_nargs(n) == 0);
    if (node_callee(n))
        put_operand(p, out, node_callee(n));
    else
        strbuf_puts(out, node_op(n));
    strbuf_putc(out, '(');
    strbuf_append(out, p->args.data ? p->args.data : "", p->args.len);
    strbuf_putc(out, ')');
}

static void put_scope(Printer *p, StrBuf *out, Node *root, int level);
static void put_inline(Printer *p, StrBuf *out, Node *root, int level);
static bool always_inline(const Node *n);
static void visit_all(Printer *p, Node *root);

/* "{" NEWLINE scope NEWLINE "}" one level in (TVM's PrintBody). */
static void put_block(Printer *p, StrBuf *out, Node *root, int level)
{
    strbuf_puts(out, "{\n");
    put_scope(p, out, root, level + 1);
    strbuf_putc(out, '\n');
    indent(out, level);
    strbuf_putc(out, '}');
}

/* prefix "(%a, %b, Attr=...) -> T {" body "}" at the current level:
 * "fn " for a function value, "def @f" for a global (TVM's PrintFunc). */
static void put_func(Printer *p, StrBuf *out, const Node *n, const char *prefix,
                     int level)
{
    strbuf_puts(out, prefix);
    strbuf_putc(out, '(');
    for (int i = 0; i < node_nparams(n); i++) {
        if (i)
            strbuf_puts(out, ", ");
        put_param(p, out, node_param(n, i));
    }
    put_attrs(out, n, node_nparams(n) == 0);
    strbuf_puts(out, ") ");
    if (node_ret_type(n))
        strbuf_printf(out, "-> %s ", node_ret_type(n)->text);
    put_block(p, out, node_body(n), level);
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
static void put_let(Printer *p, StrBuf *out, Node *n, int at)
{
    bool wrapped = n != p->root;
    int level = at + wrapped;
    StrBuf *saved_lines = p->lines;
    int saved_level = p->level;
    StrBuf doc = {0};
    Node *let = n;
    StrBuf line = {0};
    for (; node_kind(let) == NODE_LET; let = node_arg(let, 2)) {
        line.len = 0;
        strbuf_puts(&line, "let ");
        put_param(p, &line, node_arg(let, 0));
        strbuf_puts(&line, " = ");
        Node *value = node_arg(let, 1);
        if (node_nusers(value) > 1 && !always_inline(value)) { /* not IsUnique */
            visit_all(p, value);
            put_operand(p, &line, value);
        } else {
            put_inline(p, &line, value, level); /* bindings go first */
        }
        strbuf_puts(&line, ";\n");
        if (let != n)
            indent(&doc, level);
        strbuf_append(&doc, line.data, line.len);
        p->lines = &doc;
        p->level = level;
    }
    strbuf_free(&line);
    put_scope(p, &doc, let, level);
    p->lines = saved_lines;
    p->level = saved_level;
    if (wrapped) {
        strbuf_puts(out, "(\n");
        indent(out, level);
    }
    strbuf_append(out, doc.data, doc.len);
    if (wrapped) {
        strbuf_putc(out, '\n');
        indent(out, at);
        strbuf_putc(out, ')');
    }
    strbuf_free(&doc);
}

static void put_if(Printer *p, StrBuf *out, Node *n, int level)
{
    strbuf_puts(out, "if (");
    put_operand(p, out, node_arg(n, 0));
    strbuf_puts(out, ") ");
    put_block(p, out, node_arg(n, 1), level);
    strbuf_puts(out, " else ");
    put_block(p, out, node_arg(n, 2), level);
}

static void put_match(Printer *p, StrBuf *out, Node *n, int level)
{
    strbuf_puts(out, node_match_complete(n) ? "match (" : "match? (");
    put_operand(p, out, node_arg(n, 0));
    strbuf_puts(out, ") {\n");
    for (int i = 0; i < node_nclauses(n); i++) {
        const MatchClause *c = node_clause(n, i);
        indent(out, level + 1);
        for (int k = 0; k < c->npieces; k++) {
            if (c->pieces[k].text)
                strbuf_puts(out, c->pieces[k].text);
            else
                put_param(p, out, c->pieces[k].var);
        }
        strbuf_puts(out, " => {\n");
        put_scope(p, out, node_arg(n, i + 1), level + 2);
        strbuf_putc(out, '\n');
        indent(out, level + 1);
        strbuf_puts(out, "},\n");
    }
    indent(out, level);
    strbuf_putc(out, '}');
}

/* note [pending texts]: texts wait in one buffer between their leaf visit
 * and their use.  Most are used soon after (a chain uses each by the next
 * node), so before a new text is added, used texts at the end of the
 * buffer are dropped; memory then follows the graph's width, not its
 * size. */
static void keep_text(Printer *p, uint32_t id, const StrBuf *text)
{
    while (p->nstack && p->visited[p->stack[p->nstack - 1]] == VISIT_USED)
        p->pending.len = p->off[p->stack[--p->nstack]];
    p->off[id] = p->pending.len;
    p->len[id] = text->len;
    strbuf_append(&p->pending, text->data ? text->data : "", text->len);
    p->stack[p->nstack++] = id;
    p->visited[id] = VISIT_TEXT;
}

static void put_tuple(Printer *p, StrBuf *out, const Node *n)
{
    strbuf_putc(out, '(');
    for (int i = 0; i < node_nargs(n); i++) {
        if (i)
            strbuf_puts(out, ", ");
        put_operand(p, out, node_arg(n, i));
    }
    strbuf_puts(out, node_nargs(n) == 1 ? ",)" : ")");
}

/* Step 2 of note [temp numbering]: build and keep n's text.  A function
 * builds in its own buffer: its body's leaf visits use the scratch. */
static void leaf_visit(Printer *p, Node *n)
{
    StrBuf fn = {0};
    StrBuf *out = node_is_opaque(n) ? &fn : &p->text;
    /* the text's own blocks are placed where the text goes: a binding
     * line at the scope's level, or inline at root_level */
    int level = n == p->root ? p->root_level : p->level;
    out->len = 0;
    switch (node_kind(n)) {
    case NODE_CALL: put_call(p, out, n); break;
    case NODE_TUPLE: put_tuple(p, out, n); break;
    case NODE_GETITEM:
        put_operand(p, out, node_arg(n, 0));
        strbuf_printf(out, ".%d", node_index(n));
        break;
    case NODE_FUNC: put_func(p, out, n, "fn ", level); break;
    case NODE_LET: put_let(p, out, n, level); break;
    case NODE_IF: put_if(p, out, n, level); break;
    case NODE_MATCH: put_match(p, out, n, level); break;
    case NODE_VAR:
    case NODE_CONST:
    case NODE_GLOBAL:
    case NODE_OPREF: break;
    }
    keep_text(p, node_id(n), out);
    strbuf_free(&fn);
}

/* The i-th child in leaf-visit order: callee, then operands. */
static Node *visit_child(const Node *n, int i)
{
    if (node_kind(n) == NODE_FUNC || node_kind(n) == NODE_LET)
        return NULL;
    if (node_kind(n) == NODE_IF || node_kind(n) == NODE_MATCH)
        return i == 0 ? node_arg(n, 0) : NULL; /* the rest are scopes */
    if (node_callee(n)) {
        if (i == 0)
            return node_callee(n);
        i--;
    }
    return i < node_nargs(n) ? node_arg(n, i) : NULL;
}

typedef struct Frame {
    Node *node; /* node whose children are being visited */
    int next;   /* its next child */
} Frame;

/* Variables, constants, globals and op values print inline. */
static bool always_inline(const Node *n)
{
    NodeKind k = node_kind(n);
    return k == NODE_VAR || k == NODE_CONST || k == NODE_GLOBAL || k == NODE_OPREF;
}

static bool needs_visit(const Printer *p, const Node *n)
{
    return !always_inline(n) && p->visited[node_id(n)] == VISIT_NOT;
}

/* Step 1 of note [temp numbering]: iterative post-order from root. */
static void visit_all(Printer *p, Node *root)
{
    Frame *stack = NULL;
    size_t cap = 0, depth = 0;
    if (!needs_visit(p, root))
        return;
    stack = xgrow_items(stack, &cap, 1, sizeof(Frame));
    stack[depth++] = (Frame){root, 0};
    while (depth) {
        Frame *f = &stack[depth - 1];
        Node *c = visit_child(f->node, f->next++);
        if (!c) {
            Node *n = f->node;
            depth--;
            if (p->visited[node_id(n)] == VISIT_NOT)
                leaf_visit(p, n);
        } else if (needs_visit(p, c)) {
            stack = xgrow_items(stack, &cap, depth + 1, sizeof(Frame));
            stack[depth++] = (Frame){c, 0};
        }
    }
    free(stack);
}

/* A scope: its binding lines, then its result inline (no newline).
 * Nothing else writes to out meanwhile, so the lines go straight there. */
/* An expression printed inline where TVM tries to inline it (a scope's
 * result, a let's value): its text, after the bindings its operands
 * need; a node with a temp already prints as it. */
static void put_inline(Printer *p, StrBuf *out, Node *root, int level)
{
    const Node *saved_root = p->root;
    int saved_level = p->root_level;
    p->root = root;
    p->root_level = level;
    visit_all(p, root);
    uint32_t id = node_id(root);
    if (always_inline(root) || p->temp[id] != NO_TEMP) {
        put_operand(p, out, root);
    } else {
        strbuf_append(out, p->pending.data + p->off[id], p->len[id]);
        put_annot(p, out, root);
        p->visited[id] = VISIT_USED;
    }
    p->root = saved_root;
    p->root_level = saved_level;
}

static void put_scope(Printer *p, StrBuf *out, Node *root, int level)
{
    StrBuf *saved_lines = p->lines;
    int saved_level = p->level;
    p->lines = out;
    p->level = level;
    StrBuf last = {0};
    put_inline(p, &last, root, level);
    indent(out, level);
    strbuf_append(out, last.data, last.len);
    strbuf_free(&last);
    p->lines = saved_lines;
    p->level = saved_level;
}

static void put_module_head(StrBuf *out, const Graph *g)
{
    if (graph_version(g)) {
        strbuf_puts(out, graph_version(g));
        strbuf_putc(out, '\n');
    }
    for (int i = 0; i < graph_ntypedefs(g); i++) {
        strbuf_puts(out, graph_typedef(g, i));
        strbuf_puts(out, "\n\n");
    }
}

/* "def @main(%x: T, ...) -> T {" body "}", as TVM's PrintFunc. */
static void put_main(Printer *p, StrBuf *out)
{
    const Graph *g = p->g;
    strbuf_printf(out, "def @%s(", graph_name(g));
    for (int i = 0; i < graph_nparams(g); i++) {
        if (i)
            strbuf_puts(out, ", ");
        put_param(p, out, graph_param(g, i));
    }
    strbuf_puts(out, ") ");
    if (graph_ret_type(g))
        strbuf_printf(out, "-> %s ", graph_ret_type(g)->text);
    strbuf_puts(out, "{\n");
    if (graph_output(g))
        put_scope(p, out, graph_output(g), 1);
    strbuf_puts(out, "\n}\n");
}

static void printer_init(Printer *p, const Graph *g)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    size_t n = graph_node_count(g) ? graph_node_count(g) : 1;
    p->off = xcalloc(n, sizeof(size_t));
    p->len = xcalloc(n, sizeof(size_t));
    p->temp = xmalloc(n * sizeof(uint32_t));
    memset(p->temp, 0xff, n * sizeof(uint32_t));
    p->visited = xcalloc(n, 1);
    p->stack = xmalloc(n * sizeof(uint32_t));
    var_names_init(&p->names, g);
}

static void printer_free(Printer *p)
{
    strbuf_free(&p->pending);
    strbuf_free(&p->args);
    free(p->off);
    free(p->len);
    free(p->temp);
    free(p->visited);
    free(p->stack);
    strbuf_free(&p->text);
    var_names_free(&p->names);
}

/* "def @f(...) { ... }" for a global function other than @main. */
static void put_def(Printer *p, StrBuf *out, const Node *fn, const char *name)
{
    StrBuf prefix = {0};
    strbuf_printf(&prefix, "def @%s", name);
    put_func(p, out, fn, prefix.data, 0);
    strbuf_putc(out, '\n');
    strbuf_free(&prefix);
}

/* The definitions in TVM's order: sorted by name (TextPrinter::PrintMod
 * in src/relay/printer/text_printer.cc), one blank line between them;
 * the printer's temp numbers and names run on from one to the next. */
static void put_defs(Printer *p, StrBuf *out)
{
    const Graph *g = p->g;
    int n = graph_nglobals(g);
    if (n == 0) {
        put_main(p, out);
        return;
    }
    int *order = xmalloc((size_t)n * sizeof *order);
    for (int i = 0; i < n; i++) { /* insertion sort: modules have few */
        int k = i;
        for (; k > 0 && strcmp(graph_global_name(g, order[k - 1]),
                               graph_global_name(g, i)) > 0; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (int k = 0; k < n; k++) {
        if (k)
            strbuf_putc(out, '\n');
        Node *fn = graph_global_fn(g, order[k]);
        if (fn)
            put_def(p, out, fn, graph_global_name(g, order[k]));
        else
            put_main(p, out);
    }
    free(order);
}

/* Prints the whole module into out; the printer is left for inspection. */
static void print_module(Printer *p, StrBuf *out)
{
    p->top = out;
    put_module_head(out, p->g);
    put_defs(p, out);
    if (graph_metadata(p->g)) {
        strbuf_putc(out, '\n');
        strbuf_puts(out, graph_metadata(p->g));
    }
}

char *relay_print_string(const Graph *g)
{
    return relay_print_string_with(g, 0);
}

char *relay_print_string_with(const Graph *g, unsigned flags)
{
    Printer p;
    StrBuf out = {0};
    printer_init(&p, g);
    p.types = (flags & RELAY_PRINT_TYPES) != 0;
    print_module(&p, &out);
    printer_free(&p);
    return out.data ? out.data : xstrdup("");
}

void relay_print(const Graph *g, FILE *out)
{
    relay_print_with(g, out, 0);
}

void relay_print_with(const Graph *g, FILE *out, unsigned flags)
{
    Printer p;
    StrBuf text = {0};
    printer_init(&p, g);
    p.types = (flags & RELAY_PRINT_TYPES) != 0;
    p.sink = out;
    print_module(&p, &text);
    fwrite(text.data ? text.data : "", 1, text.len, out);
    strbuf_free(&text);
    printer_free(&p);
}

/* Prints without keeping the text, for the temp numbers. */
uint32_t *relay_temp_numbers(const Graph *g)
{
    Printer p;
    StrBuf out = {0};
    printer_init(&p, g);
    p.discard = true;
    print_module(&p, &out);
    strbuf_free(&out);
    uint32_t *temps = p.temp;
    p.temp = NULL;
    printer_free(&p);
    return temps;
}
