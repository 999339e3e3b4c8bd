/* relay_print_text.c - a node's own text as TVM prints it: references
 * to operands (names, temps, constants, globals), a call's, tuple's or
 * getitem's text, attributes, comments and parameters.  What the text
 * refers to is settled before it is written (note [texts written once] in
 * relay_print_number.c), so these only write. */
#include "relay_print_impl.h"

#include <stdlib.h>
#include <string.h>

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
Comment printer_comment(const Printer *p, const graft_node *n)
{
    const char *annot = node_annotation(p->g, n);
    NodeKind kind = node_kind(n); /* PrintOptionalInfo skips these three */
    bool typed = kind != NODE_IF && kind != NODE_LET && kind != NODE_MATCH;
    Comment c = {0};
    if (p->types && typed && node_type(n)) {
        c.type = node_type(n)->text;
        c.type_len = strlen(c.type);
        if (annot)
            annot_rest(annot, &c.rest, &c.rest_len);
        c.len = sizeof " /* ty=" - 1 + c.type_len + (c.rest_len ? 1 + c.rest_len : 0) +
                sizeof " */" - 1;
    } else if (annot) {
        c.rest = annot;
        c.rest_len = strlen(annot);
        c.len = 1 + c.rest_len;
    }
    return c;
}

char *printer_write_comment(char *at, const Comment *c)
{
    if (c->type) {
        at = write_lit(at, " /* ty=");
        at = write_mem(at, c->type, c->type_len);
        if (c->rest_len) {
            *at++ = ' ';
            at = write_mem(at, c->rest, c->rest_len);
        }
        return write_lit(at, " */");
    }
    if (c->len) {
        *at++ = ' ';
        at = write_mem(at, c->rest, c->rest_len);
    }
    return at;
}

static void put_comment(const Printer *p, StrBuf *sb, const graft_node *n)
{
    Comment c = printer_comment(p, n);
    sb->len = (size_t)(printer_write_comment(out_room(sb, c.len), &c) - sb->data);
}

void printer_put_annot(const Printer *p, StrBuf *sb, const graft_node *n)
{
    if (has_comment(p, n))
        put_comment(p, sb, n);
}

/* An attribute value: its spelling as loaded, or for one made by an edit
 * the canonical form.  Loaded lists have a spelling, so the recursion
 * only follows lists an edit nested. */
static void put_attr_value(Printer *p, StrBuf *sb, const graft_attr_value *v)
{
    if (v->spelling) {
        out_str(sb, v->spelling);
        return;
    }
    switch (v->kind) {
    case GRAFT_ATTR_INT: out_i64(sb, v->i); break;
    case GRAFT_ATTR_FLOAT: strbuf_printf(sb, "%gf", v->f); break;
    case GRAFT_ATTR_BOOL: out_str(sb, v->i ? "True" : "False"); break;
    case GRAFT_ATTR_NULL: out_lit(sb, "None"); break;
    case GRAFT_ATTR_OPAQUE: break; /* only loaded, always spelled */
    case GRAFT_ATTR_TENSOR:
    case GRAFT_ATTR_GRAPH: break; /* only ONNX models hold these */
    case GRAFT_ATTR_STRING: relay_put_string(sb, v->s); break;
    case GRAFT_ATTR_LIST:
        out_chr(sb, '[');
        for (int i = 0; i < v->nitems; i++) {
            if (i)
                out_lit(sb, ", ");
            put_attr_value(p, sb, v->items[i]);
        }
        out_chr(sb, ']');
        break;
    }
}

/* "name=" of an attribute in one reservation: the graph interns its
 * attributes' names (graph_set_attrs), and an interned string keeps its
 * length in front of it (interner_length in arena.h), so no strlen. */
static void put_attr_name(StrBuf *sb, const char *name)
{
    size_t n = interner_length(name);
    *write_mem(out_room(sb, n + 1), name, n) = '=';
    sb->len += n + 1;
}

/* note [attribute texts]: a model's attributes repeat: partitioning
 * gives every function it makes the same PartitionedFromPattern="...",
 * a rewrite's replacements the same axis=-1, a loaded model's calls the
 * same few spellings.  So the whole text of the attribute printed last
 * under a name is kept, in a slot by the name's address (note [one cache
 * slot] in keymap.h; names are interned: one pointer), and copied when
 * the same value comes again, instead of the name measured and the value
 * converted or quoted each time.  A value is the same when spelled by
 * the same text (one pointer), or unspelled of the same kind and the
 * same number, bits or string pointer; an unspelled list is not kept.
 * Returns false for a value not kept, with *kind and *key unset. */
GRAFT_HOT bool attr_key(const graft_attr_value *v, int *kind, uint64_t *key)
{
    *kind = v->spelling ? -1 : (int)v->kind;
    switch (*kind) {
    case -1: *key = (uint64_t)(uintptr_t)v->spelling; return true;
    case GRAFT_ATTR_INT:
    case GRAFT_ATTR_BOOL: *key = (uint64_t)v->i; return true;
    case GRAFT_ATTR_FLOAT: memcpy(key, &v->f, sizeof *key); return true;
    case GRAFT_ATTR_STRING: *key = (uint64_t)(uintptr_t)v->s; return true;
    case GRAFT_ATTR_NULL: *key = 0; return true;
    default: return false;
    }
}

GRAFT_HOT void put_attr(Printer *p, StrBuf *sb, const graft_attr *a)
{
    int kind;
    uint64_t key;
    if (!attr_key(a->value, &kind, &key)) {
        put_attr_name(sb, a->name);
        put_attr_value(p, sb, a->value);
        return;
    }
    AttrText *t = &p->attrs[cache_slot((uint64_t)(uintptr_t)a->name, ATTR_TEXT_BITS)];
    if (t->name != a->name || t->kind != kind || t->key != key) {
        t->text.len = 0;
        put_attr_name(&t->text, a->name);
        put_attr_value(p, &t->text, a->value);
        *t = (AttrText){a->name, kind, key, t->text};
    }
    out_mem(sb, t->text.data, t->text.len);
}

void printer_put_attr(Printer *p, StrBuf *sb, const graft_attr *a)
{
    put_attr(p, sb, a);
}

/* "name=value" for each attribute, after ", " unless first (nothing was
 * printed before them). */
void printer_put_attrs(Printer *p, StrBuf *sb, const graft_node *n, int nattrs, bool first)
{
    for (int i = 0; i < nattrs; i++) {
        if (!first)
            out_lit(sb, ", ");
        first = false;
        put_attr(p, sb, node_attr(n, i));
    }
}

/* A variable's printed name (given at its first printing). */
GRAFT_HOT char *write_name(Printer *p, char *at, const graft_node *v)
{
    bool percent;
    size_t len;
    const char *name = var_names_get(&p->names, v, &percent, &len);
    *at = '%';
    copy_bytes(at + percent, name, len);
    return at + percent + len;
}

/* "%x: T / * ann * /" for a parameter in a signature. */
void printer_put_param(Printer *p, StrBuf *out, const graft_node *v)
{
    out->len = (size_t)(write_name(p, out_room(out, name_len(p, v)), v) - out->data);
    if (node_type_declared(v) && node_type(v)) {
        out_lit(out, ": ");
        out_str(out, node_type(v)->text);
    }
    printer_put_annot(p, out, v);
}

/* Whether parameter v prints more than its name: a type written, or a
 * comment (printer_put_param's two cases). */
GRAFT_HOT bool param_is_plain(const Printer *p, const graft_node *v)
{
    return !(node_type(v) && (node_type_declared(v) || p->types)) && !node_annotation(p->g, v);
}

/* Writes the module's text out (note [streaming]) once enough of it is
 * final, when out, the buffer being written, is the module's text. */
GRAFT_HOT void drain(Printer *p, const StrBuf *out)
{
    if (out != p->top || p->top->len < DRAIN_AT || (!p->sink && !p->discard))
        return;
    if (p->sink)
        fwrite(p->top->data, 1, p->top->len, p->sink);
    p->top->len = 0;
}

/* ", %x" for parameter v without a type or a comment, ", " unless
 * first: its name read once, for its room and its bytes. */
GRAFT_HOT void put_plain_param(Printer *p, StrBuf *out, const graft_node *v, bool first)
{
    bool percent;
    size_t len;
    const char *name = var_names_get(&p->names, v, &percent, &len);
    char *at = out_room(out, 3 + len);
    if (!first)
        at = write_lit(at, ", ");
    *at = '%';
    copy_bytes(at + percent, name, len);
    out->len = (size_t)(at + percent + len - out->data);
}

/* note [parameter runs]: a signature's parameters are mostly plain
 * (param_is_plain) and named as loaded (note [names as loaded] in
 * relay_names.c), as every one of issue 34's 100,000 in its partition:
 * such a run is written in a loop of its own, which tests how names are
 * given once for the run and keeps the buffer's end in a register (a
 * char store may alias the StrBuf, so out_room would load its fields
 * again for every parameter).  One at a time, through put_plain_param,
 * a parameter took 49 instructions; in a run, 37. */

/* ", %x" for each plain parameter named as loaded from params[i] on
 * (before last), ", " unless first: where the run ends. */
GRAFT_HOT size_t put_plain_run(const Printer *p, StrBuf *out, graft_node *const *params,
                               size_t i, size_t last)
{
    char *at = out_room(out, 0), *end = out->data + out->cap;
    for (; i < last && param_is_plain(p, params[i]); i++) {
        const char *name = params[i]->str;
        size_t len = interner_length(name);
        if ((size_t)(end - at) <= 3 + len) { /* out_room's test */
            out->len = (size_t)(at - out->data);
            at = out_room(out, 3 + len);
            end = out->data + out->cap;
        }
        if (i)
            at = write_lit(at, ", ");
        *at++ = '%';
        at = write_mem(at, name, len);
    }
    out->len = (size_t)(at - out->data);
    return i;
}

/* Parameters of params from i on (before last), a run of plain ones
 * named as loaded or else one: where the next starts. */
GRAFT_HOT size_t put_some_params(Printer *p, StrBuf *out, graft_node *const *params, size_t i,
                                 size_t last)
{
    size_t end = p->names.as_loaded ? put_plain_run(p, out, params, i, last) : i;
    if (end > i)
        return end;
    if (param_is_plain(p, params[i])) { /* names given by the printer */
        put_plain_param(p, out, params[i], i == 0);
        return i + 1;
    }
    if (i)
        out_lit(out, ", ");
    printer_put_param(p, out, params[i]);
    return i + 1;
}

/* The parameters params[0..n) of a signature, ", " between them.
 * @main's line drains every PARAMS_AT_ONCE of them (note [streaming]): a
 * model's inputs can be a line of megabytes. */
void printer_put_params(Printer *p, StrBuf *out, graft_node *const *params, size_t n)
{
    enum { PARAMS_AT_ONCE = 1024 };
    for (size_t i = 0; i < n;) {
        size_t last = n - i > PARAMS_AT_ONCE ? i + PARAMS_AT_ONCE : n;
        while (i < last)
            i = put_some_params(p, out, params, i, last);
        drain(p, out);
    }
}



/* Operand m as its user's text prints it, once resolved, into room
 * resolve_operand bounded. */
GRAFT_HOT char *write_ref(Printer *p, char *at, const graft_node *m)
{
    uint32_t id = node_id(m);
    switch (node_kind(m)) {
    case NODE_VAR: return write_name(p, at, m);
    case NODE_GLOBAL: /* always inline, no comment */
        *at = '@';
        return write_mem(at + 1, node_str(m), strlen(node_str(m)));
    case NODE_OPREF: return write_mem(at, node_str(m), strlen(node_str(m)));
    case NODE_CONST: /* note [constant texts] in relay_print_number.c */
        if (!p->comments)
            return write_mem(at, node_str(m), interner_length(node_str(m)));
        return write_mem(at, p->consts.data + p->text[id].kept.off, p->text[id].kept.len);
    default: return write_temp_slot(at, &p->text[id].temp);
    }
}

char *printer_write_ref(Printer *p, char *at, const graft_node *m)
{
    return write_ref(p, at, m);
}

/* Whether call n's op is a constructor of no fields: its call prints
 * as its bare name, as TVM prints it. */
static bool nullary_constructor(Printer *p, const graft_node *n)
{
    if (!p->adts)
        p->adts = adt_table_new(p->g);
    return adt_constructor_fields(p->adts, node_str(n)) == 0;
}

/* The references of the operands in slots a..end separated by ", ". */
GRAFT_HOT char *write_refs(Printer *p, char *at, graft_node *const *a, graft_node *const *end)
{
    for (graft_node *const *first = a; a < end; a++) {
        if (a > first)
            at = write_lit(at, ", ");
        at = write_ref(p, at, *a);
    }
    return at;
}

/* "op(args" or "%5(args" of call n, without its attributes and ")";
 * or "Nil" alone, and *closed, for a constructor of no fields (as TVM
 * prints it). */
GRAFT_HOT char *write_call_open(Printer *p, char *at, const graft_node *n, bool *closed)
{
    graft_node *const *a = node_slots(n), *const *end = a + node_nargs(n);
    graft_node *const *callee = node_callee_slot(n);
    *closed = false;
    if (callee) {
        at = write_ref(p, at, *callee);
    } else {
        const char *op = node_str(n);
        at = write_mem(at, op, op_len(op));
        if (a == end && !node_nattrs(n) && nullary_constructor(p, n)) {
            *closed = true;
            return at;
        }
    }
    *at++ = '(';
    return write_refs(p, at, a, end);
}

/* Whether node n's text has a part printer_text_max does not bound. */
GRAFT_HOT bool has_attrs(const graft_node *n)
{
    return node_kind(n) == NODE_CALL && node_nattrs(n);
}

/* A getitem's index: mostly one digit (a batch norm's result is .0),
 * written as one without write_i64's count of digits and its call. */
GRAFT_HOT char *write_index(char *at, int index)
{
    if ((unsigned)index < 10) {
        *at = (char)('0' + index);
        return at + 1;
    }
    return write_i64(at, index);
}

/* A visited node's text (note [texts written once]), without
 * attributes, into room for printer_text_max. */
GRAFT_HOT char *write_text(Printer *p, char *at, const graft_node *n)
{
    graft_node *const *a = node_slots(n), *const *end = a + node_nargs(n);
    uint32_t id = node_id(n);
    bool closed;
    switch (node_kind(n)) {
    case NODE_CALL:
        at = write_call_open(p, at, n, &closed);
        if (!closed)
            *at++ = ')';
        return at;
    case NODE_TUPLE:
        *at++ = '(';
        at = write_refs(p, at, a, end);
        if (end - a == 1)
            return write_lit(at, ",)");
        *at++ = ')';
        return at;
    case NODE_GETITEM:
        at = write_ref(p, at, *a);
        *at++ = '.';
        return write_index(at, node_index(n));
    default: /* a pending text (note [pending texts]) */
        return write_mem(at, p->pending.items[p->text[id].kept.off].text->data,
                         p->text[id].kept.len);
    }
}

/* A call's text with attributes at at, in out: they append checked
 * between its operands and its ")", and room for more bytes after the
 * text is made then. */
static char *write_attrs_text_in(Printer *p, StrBuf *out, char *at, const graft_node *n,
                                 size_t more)
{
    bool closed;
    out->len = (size_t)(write_call_open(p, at, n, &closed) - out->data);
    printer_put_attrs(p, out, n, node_nattrs(n), node_nargs(n) == 0);
    at = out_room(out, 1 + more);
    *at++ = ')';
    return at;
}

/* A visited node's text at at, in out, where room for printer_text_max
 * was made, and room for more bytes after it.  Inline in printer_bind,
 * which is here for that: as a call of its own, it saved and restored
 * registers for every binding line (0.7 M instructions of the partition
 * of bench/RESULTS.md's "Session 23: printing the partition"). */
GRAFT_HOT char *write_text_in(Printer *p, StrBuf *out, char *at, const graft_node *n,
                              size_t more)
{
    if (!has_attrs(n))
        return write_text(p, at, n);
    return write_attrs_text_in(p, out, at, n, more);
}

/* note [counted temps]: temps are given in increasing order, so the next
 * one's text is kept and counted on in decimal (temp_slot_count_on), a
 * digit or so a temp, instead of converting each number: kept as a
 * bound node's slot keeps it (note [temp texts] in relay_names.h), so
 * that its binding line and its node's slot take it by one eight-byte
 * copy each. */

/* Node id's binding line "%N = TEXT;" with comment c (NULL: none) into
 * the current scope, in one reservation (note [one reservation]) unless a
 * call's attributes come between, and its temp given.  Inline in both
 * cases of printer_bind, so that the usual one, without a comment,
 * keeps no comment's pieces on the stack. */
GRAFT_HOT void bind_line(Printer *p, const graft_node *n, const Comment *c)
{
    uint32_t id = node_id(n);
    StrBuf *lines = p->lines;
    size_t indent = 2 * (size_t)(p->level > 0 ? p->level : 0);
    size_t tail = (c ? c->len : 0) + 2; /* the comment and ";\n" */
    size_t room = OUT_INDENT_ROOM + indent + TEMP_MAX + 3; /* write_indent's, a temp, " = " */
    char *at = out_room(lines, room + printer_text_max(p, id) + tail);
    at = write_indent(at, p->level);
    at = write_temp_slot(at, &p->next);
    at = write_text_in(p, lines, write_lit(at, " = "), n, tail);
    if (c)
        at = printer_write_comment(at, c);
    lines->len = (size_t)(write_lit(at, ";\n") - lines->data);
    /* the text is printed: its temp takes its place (note [printer memory]) */
    p->text[id].temp = p->next;
    temp_slot_count_on(&p->next);
    p->visited[id] = VISIT_BOUND;
    drain(p, lines);
}

/* A commented node's binding line, apart from the usual one. */
static void bind_commented(Printer *p, const graft_node *n)
{
    Comment c = printer_comment(p, n);
    bind_line(p, n, &c);
}

/* Gives node n the next temp and writes its binding line "%N = TEXT;"
 * into the current scope (note [counted temps]). */
void printer_bind(Printer *p, const graft_node *n)
{
    if (has_comment(p, n))
        bind_commented(p, n);
    else
        bind_line(p, n, NULL);
}

/* A visited node's text where it is used (note [texts written once]). */
void printer_put_text(Printer *p, StrBuf *out, const graft_node *n)
{
    char *at = out_room(out, printer_text_max(p, node_id(n)));
    out->len = (size_t)(write_text_in(p, out, at, n, 0) - out->data);
}
