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
#include "type_adt.h"
#include "util.h"

enum { NO_TEMP = UINT32_MAX };

/* note [fast output]: the printer appends a few bytes at a time, a few
 * dozen times per node; these inline appends keep the common case to a
 * bounds check and a copy, and keep the text NUL-terminated as StrBuf's
 * own functions do. */
static inline char *room(StrBuf *sb, size_t n)
{
    if (sb->cap - sb->len <= n) /* also when nothing is allocated yet */
        sb->data = xgrow_items(sb->data, &sb->cap, sb->len + n + 1, 1);
    return sb->data + sb->len;
}

static inline void put_mem(StrBuf *sb, const char *s, size_t n)
{
    char *at = room(sb, n);
    memcpy(at, s, n);
    at[n] = '\0';
    sb->len += n;
}

/* A string literal: its length is known at compile time. */
#define put_lit(sb, lit) put_mem((sb), (lit), sizeof(lit) - 1)

static inline void put_str(StrBuf *sb, const char *s)
{
    put_mem(sb, s, strlen(s));
}

static inline void put_chr(StrBuf *sb, char c)
{
    char *at = room(sb, 1);
    at[0] = c;
    at[1] = '\0';
    sb->len++;
}

/* A decimal number without printf (the printer writes a million), two
 * digits at a time. */
static void put_u64(StrBuf *sb, uint64_t n)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char buf[20];
    int i = sizeof buf;
    while (n >= 100) {
        unsigned d = (unsigned)(n % 100) * 2;
        n /= 100;
        buf[--i] = pairs[d + 1];
        buf[--i] = pairs[d];
    }
    if (n >= 10) {
        buf[--i] = pairs[n * 2 + 1];
        buf[--i] = pairs[n * 2];
    } else {
        buf[--i] = (char)('0' + n);
    }
    put_mem(sb, buf + i, sizeof buf - (size_t)i);
}

static void put_i64(StrBuf *sb, int64_t n)
{
    if (n < 0) {
        put_chr(sb, '-');
        put_u64(sb, 0 - (uint64_t)n);
    } else {
        put_u64(sb, (uint64_t)n);
    }
}

/* A node's leaf-visit state: its text is kept in pending until it is
 * used (printed into a binding line or as a scope's result), and texts
 * used at the end of pending are dropped (note [pending texts]). */
enum { VISIT_NOT, VISIT_TEXT, VISIT_USED };

typedef struct Frame {
    Node *node;  /* node whose children are being visited */
    int next;    /* its next child */
    int nkids;   /* its children in leaf-visit order (visit_kids) */
    Node *first; /* the first of them when it is not an operand (a
                    callee), else NULL */
} Frame;

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
    StrBuf **scratch;   /* nested texts' buffers, reused by depth */
    size_t nscratch;    /* buffers in use */
    size_t ascratch;    /* buffers allocated */
    size_t cscratch;    /* capacity of scratch */
    Frame *frames;      /* the stack of visit_all's walks */
    size_t nframes, cframes;
    VarNames names;     /* printed names of variables */
    StrBuf *top;        /* the module's text (note [streaming]) */
    FILE *sink;         /* where top goes as it fills, or NULL */
    bool discard;       /* drop top as it fills (temp numbers only) */
    bool types;         /* RELAY_PRINT_TYPES: "ty=" from node types */
    AdtTable *adts;     /* the module's constructors, read at the first
                           call without operands */
} Printer;

/* An empty buffer for a nested text (a function's text, a scope's last
 * line): texts nest as scopes do, so buffers are kept and reused by
 * depth instead of allocated per function. */
static StrBuf *scratch_get(Printer *p)
{
    if (p->nscratch == p->ascratch) {
        p->scratch = xgrow_items(p->scratch, &p->cscratch, p->ascratch + 1, sizeof *p->scratch);
        p->scratch[p->ascratch++] = xcalloc(1, sizeof(StrBuf));
    }
    StrBuf *sb = p->scratch[p->nscratch++];
    sb->len = 0;
    return sb;
}

/* Gives back the buffer scratch_get gave last. */
static void scratch_done(Printer *p)
{
    p->nscratch--;
}

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

/* "%N". */
static void put_temp(StrBuf *sb, uint32_t n)
{
    put_chr(sb, '%');
    put_u64(sb, n);
}

static void indent(StrBuf *sb, int level)
{
    size_t n = 2 * (size_t)(level > 0 ? level : 0);
    char *at = room(sb, n);
    memset(at, ' ', n);
    at[n] = '\0';
    sb->len += n;
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
    NodeKind kind = node_kind(n); /* PrintOptionalInfo skips these three */
    bool typed = kind != NODE_IF && kind != NODE_LET && kind != NODE_MATCH;
    if (p->types && typed && node_type(n)) {
        const char *rest = "";
        size_t len = 0;
        if (annot)
            annot_rest(annot, &rest, &len);
        put_lit(sb, " /* ty=");
        put_str(sb, node_type(n)->text);
        if (len) {
            put_chr(sb, ' ');
            put_mem(sb, rest, len);
        }
        put_lit(sb, " */");
    } else if (annot) {
        put_chr(sb, ' ');
        put_str(sb, annot);
    }
}

/* An attribute value: its spelling as loaded, or for one made by an edit
 * the canonical form.  Loaded lists have a spelling, so the recursion
 * only follows lists an edit nested. */
static void put_attr_value(StrBuf *sb, const AttrValue *v)
{
    if (v->spelling) {
        put_str(sb, v->spelling);
        return;
    }
    switch (v->kind) {
    case ATTR_INT: put_i64(sb, v->i); break;
    case ATTR_FLOAT: strbuf_printf(sb, "%gf", v->f); break;
    case ATTR_BOOL: put_str(sb, v->i ? "True" : "False"); break;
    case ATTR_NULL: put_lit(sb, "None"); break;
    case ATTR_OPAQUE: break; /* only loaded, always spelled */
    case ATTR_STRING: relay_put_string(sb, v->s); break;
    case ATTR_LIST:
        put_chr(sb, '[');
        for (int i = 0; i < v->nitems; i++) {
            if (i)
                put_lit(sb, ", ");
            put_attr_value(sb, v->items[i]);
        }
        put_chr(sb, ']');
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
            put_lit(sb, ", ");
        first = false;
        put_str(sb, a->name);
        put_chr(sb, '=');
        put_attr_value(sb, a->value);
    }
}

/* A variable's printed name (given at its first printing). */
static void put_name(Printer *p, StrBuf *out, const Node *v)
{
    bool percent;
    size_t len;
    const char *name = var_names_get(&p->names, v, &percent, &len);
    if (percent)
        put_chr(out, '%');
    put_mem(out, name, len);
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
    put_lit(p->lines, "free_var ");
    put_param(p, p->lines, v);
    put_lit(p->lines, ";\n");
}

static void put_operand(Printer *p, StrBuf *out, const Node *m)
{
    switch (node_kind(m)) {
    case NODE_VAR:
        if (node_is_free(m))
            declare_free(p, m);
        put_name(p, out, m);
        return;
    case NODE_GLOBAL: /* always inline, no comment */
        put_chr(out, '@');
        put_str(out, node_name(m));
        return;
    case NODE_OPREF:
        put_str(out, node_name(m));
        return;
    case NODE_CONST:
        put_str(out, node_const_text(m));
        put_annot(p, out, m);
        return;
    default:
        break;
    }
    uint32_t id = node_id(m);
    if (p->temp[id] == NO_TEMP) {
        p->temp[id] = p->next_temp++;
        indent(p->lines, p->level);
        put_temp(p->lines, p->temp[id]);
        put_lit(p->lines, " = ");
        put_mem(p->lines, p->pending.data + p->off[id], p->len[id]);
        put_annot(p, p->lines, m);
        put_lit(p->lines, ";\n");
        p->visited[id] = VISIT_USED;
        drain(p);
    }
    put_temp(out, p->temp[id]);
}

/* "%x: T / * ann * /" for a parameter in a signature. */
static void put_param(Printer *p, StrBuf *out, const Node *v)
{
    put_name(p, out, v);
    if (node_type_declared(v) && node_type(v)) {
        put_lit(out, ": ");
        put_str(out, node_type(v)->text);
    }
    put_annot(p, out, v);
}

/* The operands and attributes of a call, after "op(" or "%5(". */
static void put_call_args(Printer *p, StrBuf *out, const Node *n)
{
    for (int i = 0; i < node_nargs(n); i++) {
        if (i)
            put_lit(out, ", ");
        put_operand(p, out, node_arg(n, i));
    }
    put_attrs(out, n, node_nargs(n) == 0);
}

/* "op(args, attrs)" or "%5(args)": the arguments are printed first, so
 * they take temps before a function callee does (an op's name is fixed,
 * so its call is written in place). */
static void put_call(Printer *p, StrBuf *out, const Node *n)
{
    if (!node_callee(n)) {
        put_str(out, node_op(n));
        if (!node_nargs(n) && !node_nattrs(n)) { /* "Nil": TVM's 0-arity cons */
            if (!p->adts)
                p->adts = adt_table_new(p->g);
            if (adt_constructor_fields(p->adts, node_op(n)) == 0)
                return;
        }
        put_chr(out, '(');
        put_call_args(p, out, n);
        put_chr(out, ')');
        return;
    }
    p->args.len = 0;
    put_call_args(p, &p->args, n);
    put_operand(p, out, node_callee(n));
    put_chr(out, '(');
    put_mem(out, p->args.data ? p->args.data : "", p->args.len);
    put_chr(out, ')');
}

static void put_scope(Printer *p, StrBuf *out, Node *root, int level);
static void put_inline(Printer *p, StrBuf *out, Node *root, int level);
static bool always_inline(const Node *n);
static void visit_all(Printer *p, Node *root);

/* "{" NEWLINE scope NEWLINE "}" one level in (TVM's PrintBody). */
static void put_block(Printer *p, StrBuf *out, Node *root, int level)
{
    put_lit(out, "{\n");
    put_scope(p, out, root, level + 1);
    put_chr(out, '\n');
    indent(out, level);
    put_chr(out, '}');
}

/* prefix "(%a, %b, Attr=...) -> T {" body "}" at the current level:
 * "fn " for a function value, "def @f" for a global (TVM's PrintFunc). */
static void put_func(Printer *p, StrBuf *out, const Node *n, const char *prefix,
                     int level)
{
    put_str(out, prefix);
    put_chr(out, '(');
    for (int i = 0; i < node_nparams(n); i++) {
        if (i)
            put_lit(out, ", ");
        put_param(p, out, node_param(n, i));
    }
    put_attrs(out, n, node_nparams(n) == 0);
    put_lit(out, ") ");
    if (node_ret_type(n))
    {
        put_lit(out, "-> ");
        put_str(out, node_ret_type(n)->text);
        put_chr(out, ' ');
    }
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
        put_lit(&line, "let ");
        put_param(p, &line, node_arg(let, 0));
        put_lit(&line, " = ");
        Node *value = node_arg(let, 1);
        if (node_nusers(value) > 1 && !always_inline(value)) { /* not IsUnique */
            visit_all(p, value);
            put_operand(p, &line, value);
        } else {
            put_inline(p, &line, value, level); /* bindings go first */
        }
        put_lit(&line, ";\n");
        if (let != n)
            indent(&doc, level);
        put_mem(&doc, line.data, line.len);
        p->lines = &doc;
        p->level = level;
    }
    strbuf_free(&line);
    put_scope(p, &doc, let, level);
    p->lines = saved_lines;
    p->level = saved_level;
    if (wrapped) {
        put_lit(out, "(\n");
        indent(out, level);
    }
    put_mem(out, doc.data, doc.len);
    if (wrapped) {
        put_chr(out, '\n');
        indent(out, at);
        put_chr(out, ')');
    }
    strbuf_free(&doc);
}

static void put_if(Printer *p, StrBuf *out, Node *n, int level)
{
    put_lit(out, "if (");
    put_operand(p, out, node_arg(n, 0));
    put_lit(out, ") ");
    put_block(p, out, node_arg(n, 1), level);
    put_lit(out, " else ");
    put_block(p, out, node_arg(n, 2), level);
}

static void put_match(Printer *p, StrBuf *out, Node *n, int level)
{
    put_str(out, node_match_complete(n) ? "match (" : "match? (");
    put_operand(p, out, node_arg(n, 0));
    put_lit(out, ") {\n");
    for (int i = 0; i < node_nclauses(n); i++) {
        const MatchClause *c = node_clause(n, i);
        indent(out, level + 1);
        for (int k = 0; k < c->npieces; k++) {
            if (c->pieces[k].text)
                put_str(out, c->pieces[k].text);
            else
                put_param(p, out, c->pieces[k].var);
        }
        put_lit(out, " => {\n");
        put_scope(p, out, node_arg(n, i + 1), level + 2);
        put_chr(out, '\n');
        indent(out, level + 1);
        put_lit(out, "},\n");
    }
    indent(out, level);
    put_chr(out, '}');
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
    put_mem(&p->pending, text->data ? text->data : "", text->len);
    p->stack[p->nstack++] = id;
    p->visited[id] = VISIT_TEXT;
}

static void put_tuple(Printer *p, StrBuf *out, const Node *n)
{
    put_chr(out, '(');
    for (int i = 0; i < node_nargs(n); i++) {
        if (i)
            put_lit(out, ", ");
        put_operand(p, out, node_arg(n, i));
    }
    put_str(out, node_nargs(n) == 1 ? ",)" : ")");
}

/* Step 2 of note [temp numbering]: build and keep n's text.  A function
 * builds in its own buffer: its body's leaf visits use the scratch. */
static void leaf_visit(Printer *p, Node *n)
{
    bool opaque = node_is_opaque(n);
    StrBuf *out = opaque ? scratch_get(p) : &p->text;
    /* the text's own blocks are placed where the text goes: a binding
     * line at the scope's level, or inline at root_level */
    int level = n == p->root ? p->root_level : p->level;
    out->len = 0;
    switch (node_kind(n)) {
    case NODE_CALL: put_call(p, out, n); break;
    case NODE_TUPLE: put_tuple(p, out, n); break;
    case NODE_GETITEM:
        put_operand(p, out, node_arg(n, 0));
        put_chr(out, '.');
        put_i64(out, node_index(n));
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
    if (opaque)
        scratch_done(p);
}

/* A frame for n: its children in leaf-visit order are its callee, then
 * its operands; a function's and a let's are none (their scopes print in
 * their own walks), an if's and a match's the first operand only (the
 * rest are scopes). */
static Frame visit_frame(Node *n)
{
    switch (node_kind(n)) {
    case NODE_FUNC:
    case NODE_LET: return (Frame){n, 0, 0, NULL};
    case NODE_IF:
    case NODE_MATCH: return (Frame){n, 0, 1, NULL};
    default: {
        Node *callee = node_callee(n);
        return (Frame){n, 0, node_nargs(n) + (callee != NULL), callee};
    }
    }
}

/* The frame's next child (there is one). */
static Node *next_child(Frame *f)
{
    int i = f->next++;
    if (f->first) {
        if (i == 0)
            return f->first;
        i--;
    }
    return node_arg(f->node, i);
}

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

/* Step 1 of note [temp numbering]: iterative post-order from root.  A
 * leaf visit of a function visits its body, so walks nest: each works
 * above the frames of the walks it is inside, in one stack. */
static void visit_all(Printer *p, Node *root)
{
    if (!needs_visit(p, root))
        return;
    size_t base = p->nframes;
    p->frames = xgrow_items(p->frames, &p->cframes, base + 1, sizeof *p->frames);
    p->frames[p->nframes++] = visit_frame(root);
    while (p->nframes > base) {
        Frame *f = &p->frames[p->nframes - 1];
        if (f->next == f->nkids) {
            Node *n = f->node;
            p->nframes--;
            if (p->visited[node_id(n)] == VISIT_NOT)
                leaf_visit(p, n);
            continue;
        }
        Node *c = next_child(f);
        if (!c) /* a missing operand ends the children, as in graph walks */
            f->next = f->nkids;
        else if (needs_visit(p, c)) {
            p->frames = xgrow_items(p->frames, &p->cframes, p->nframes + 1, sizeof *p->frames);
            p->frames[p->nframes++] = visit_frame(c);
        }
    }
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
        put_mem(out, p->pending.data + p->off[id], p->len[id]);
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
    StrBuf *last = scratch_get(p);
    put_inline(p, last, root, level);
    indent(out, level);
    put_mem(out, last->data ? last->data : "", last->len);
    scratch_done(p);
    p->lines = saved_lines;
    p->level = saved_level;
}

static void put_module_head(StrBuf *out, const Graph *g)
{
    if (graph_version(g)) {
        put_str(out, graph_version(g));
        put_chr(out, '\n');
    }
    for (int i = 0; i < graph_ntypedefs(g); i++) {
        put_str(out, graph_typedef(g, i));
        put_lit(out, "\n\n");
    }
}

/* "def @main(%x: T, ...) -> T {" body "}", as TVM's PrintFunc. */
static void put_main(Printer *p, StrBuf *out)
{
    const Graph *g = p->g;
    if (graph_is_bare(g)) { /* note [bare module] in graph_module.c */
        if (graph_output(g))
            put_scope(p, out, graph_output(g), 0);
        put_chr(out, '\n');
        return;
    }
    put_lit(out, "def @");
    put_str(out, graph_name(g));
    put_chr(out, '(');
    for (int i = 0; i < graph_nparams(g); i++) {
        if (i)
            put_lit(out, ", ");
        put_param(p, out, graph_param(g, i));
    }
    for (int i = 0; i < graph_main_nattrs(g); i++) {
        const Attr *a = graph_main_attr(g, i);
        if (i || graph_nparams(g))
            put_lit(out, ", ");
        put_str(out, a->name);
        put_chr(out, '=');
        put_attr_value(out, a->value);
    }
    put_lit(out, ") ");
    if (graph_ret_type(g))
    {
        put_lit(out, "-> ");
        put_str(out, graph_ret_type(g)->text);
        put_chr(out, ' ');
    }
    put_lit(out, "{\n");
    if (graph_output(g))
        put_scope(p, out, graph_output(g), 1);
    put_lit(out, "\n}\n");
}

static void printer_init(Printer *p, const Graph *g)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    size_t n = graph_node_count(g) ? graph_node_count(g) : 1;
    p->off = xmalloc(n * sizeof(size_t)); /* set when a text is kept */
    p->len = xmalloc(n * sizeof(size_t));
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
    free(p->frames);
    for (size_t i = 0; i < p->ascratch; i++) {
        strbuf_free(p->scratch[i]);
        free(p->scratch[i]);
    }
    free(p->scratch);
    free(p->off);
    free(p->len);
    free(p->temp);
    free(p->visited);
    free(p->stack);
    strbuf_free(&p->text);
    var_names_free(&p->names);
    adt_table_free(p->adts);
}

/* "def @f(...) { ... }" for a global function other than @main. */
static void put_def(Printer *p, StrBuf *out, const Node *fn, const char *name)
{
    StrBuf prefix = {0};
    strbuf_printf(&prefix, "def @%s", name);
    put_func(p, out, fn, prefix.data, 0);
    put_chr(out, '\n');
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
            put_chr(out, '\n');
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
        put_chr(out, '\n');
        put_str(out, graph_metadata(p->g));
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
