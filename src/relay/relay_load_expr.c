/* relay_load_expr.c - the loader's scoped names and expression actions. */
#include "relay_load.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* note [name cache]: op and attribute names repeat (a model has a few
 * dozen distinct ones and a call on every line), and so do literals'
 * spellings (every batch norm's 1e-05f), so load_intern keeps the
 * name it interned last in the cache slot of a name's first bytes and
 * length (note [one cache slot] in keymap.h): a hit compares the bytes
 * and skips the interner's hash and probe. */
static inline const char *intern_cached(RelayParser *ps, RelayText t)
{
    const char *s = load_text(ps, t);
    uint64_t head = 0;
    memcpy(&head, s, t.len < 8 ? t.len : 8);
    size_t i = cache_slot(head ^ t.len, NAME_CACHE_BITS);
    CachedName *c = &ps->names[i];
    if (c->str && c->head == head && c->len == t.len) {
        uint32_t k = 8;
        while (k < t.len && c->str[k] == s[k])
            k++;
        if (k >= t.len)
            return c->str;
    }
    c->str = graph_intern_n(ps->g, s, t.len);
    c->head = head;
    c->len = t.len;
    return c->str;
}

/* The cache for the other files; make_call inlines it (the call was a
 * third of a hit's cost). */
const char *load_intern(RelayParser *ps, RelayText t)
{
    return intern_cached(ps, t);
}

/* "\"a\\\"b\"" -> a"b; escapes \" \\ \n \t, others kept as the char. */
const char *load_unquote(RelayParser *ps, RelayText t)
{
    const char *s = load_text(ps, t) + 1;
    const char *end = load_text(ps, t) + t.len - 1;
    StrBuf sb = {0};
    strbuf_append(&sb, "", 0);
    for (; s < end; s++) {
        char c = *s;
        if (c == '\\' && s + 1 < end) {
            c = *++s;
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
        }
        strbuf_putc(&sb, c);
    }
    const char *out = graph_intern_n(ps->g, sb.data, sb.len);
    strbuf_free(&sb);
    return out;
}

/* ---- expressions ---- */

/* note [annotation cache]: every node of a TVM model has a comment, "/ *
 * ty=T * /" or "/ * ty=T span=S * /", and most of their types repeat
 * (vit_b_16: 1,128 comments, 36 types; TVM's span= part names the node,
 * so those comments seldom repeat whole).  So the type is found by the
 * bytes of the comment's "ty=" part in ps->annot_types (note [span
 * caches] in relay_load_spans.c), with a hash and a compare, where the
 * graph would search the comment three times and intern its type's text
 * to find the type.  A comment that is nothing but "ty=T" is kept with
 * its type, interned once (a model's plain comments repeat: cheaper than
 * a span, and a model whose comments are all plain keeps no text); any
 * other is a span of the text, neither copied nor looked up (note
 * [annotation spans] in src/ir/graph_text.c).  A node typed already (a
 * parameter "%x: T / * ... * /") has its comment kept, not looked at. */

/* The "ty=" part of the n-byte comment s as graph_annotation_type finds
 * it: from after the first "ty=" to the first " span=" or " * /" after
 * it, or to the end; false when there is none. */
static bool ty_part(const char *s, size_t n, RelayText *part)
{
    size_t at = 3; /* "/ * ty=": where TVM puts it */
    if (n < 6 || memcmp(s, "/* ty=", 6) != 0)
        for (at = 0; at + 3 <= n && memcmp(s + at, "ty=", 3) != 0; at++)
            ;
    if (at + 3 > n)
        return false;
    const char *p = s + at + 3, *end = s + n;
    while ((p = memchr(p, ' ', (size_t)(end - p))) &&
           !((end - p >= 6 && memcmp(p, " span=", 6) == 0) ||
             (end - p >= 3 && memcmp(p, " */", 3) == 0)))
        p++;
    *part = (RelayText){(uint32_t)(at + 3), (uint32_t)((p ? p : end) - (s + at + 3))};
    return true;
}

/* The comment annot as a span of the Source, which the graph copies
 * when loading succeeds (note [annotation spans] in src/ir/graph_text.c). */
static void set_comment(RelayParser *ps, graft_node *n, RelayText annot)
{
    graph_set_annotation_span(ps->g, n, load_text(ps, annot), annot.len);
}

/* The comment annot, nothing but "/ * ty=T * /" (at most one per type),
 * interned once and shared through its type's entry known (or NULL). */
static const char *plain_comment(RelayParser *ps, SpanEntry *known, RelayText annot)
{
    if (known && known->comment)
        return known->comment;
    const char *comment = graph_intern_n(ps->g, load_text(ps, annot), annot.len);
    if (known)
        known->comment = comment;
    return comment;
}

/* Gives node n (untyped) the comment annot and the type of its "ty="
 * part, found by its bytes or made once. */
static void annotate_typed(RelayParser *ps, graft_node *n, RelayText annot, RelayText part)
{
    const char *ty = load_text(ps, annot) + part.off;
    bool plain = part.off == 6 && part.len + 9 == annot.len; /* "/ * ty=T * /" */
    uint64_t key;
    SpanEntry *known = span_cache_get(&ps->annot_types, ty, part.len, &key);
    const char *comment = plain ? plain_comment(ps, known, annot) : NULL;
    const graft_type *type;
    if (known) {
        type = known->type;
    } else {
        /* the entry's bytes are the Source's, which outlives the cache */
        type = load_ty_type(ps, ty, part.len);
        if (!type)
            type = graph_type_of_text(ps->g, ty, part.len);
        SpanEntry made = {ty, part.len, type, comment};
        span_cache_put(&ps->annot_types, key, &made);
    }
    if (comment)
        graph_set_annotation(ps->g, n, comment);
    else
        set_comment(ps, n, annot);
    graph_set_type(ps->g, n, type);
}

static void annotate(RelayParser *ps, graft_node *n, RelayText annot)
{
    const char *text = load_text(ps, annot);
    RelayText part;
    if (!node_type(n) && ty_part(text, annot.len, &part))
        annotate_typed(ps, n, annot, part);
    else
        set_comment(ps, n, annot);
}

/* The index of the line holding byte off: the line found last or the
 * next one (nodes come mostly in text order), else a binary search.
 * *start gets the line's first byte (the index read once a node). */
static size_t line_index(RelayParser *ps, size_t off, size_t *start)
{
    const size_t *starts = source_line_starts(ps->src);
    size_t nlines = ps->src->nlines, l = ps->line;
    if (starts[l] <= off && !(l + 1 < nlines && off >= starts[l + 1])) {
        *start = starts[l];
        return l;
    }
    if (starts[l] <= off && (l + 2 == nlines || off < starts[l + 2])) {
        *start = starts[l + 1];
        return ps->line = l + 1;
    }
    size_t lo = 0, hi = nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *start = starts[lo];
    return ps->line = lo;
}

/* note [line cursor]: nodes are made nearly in text order, so a node's
 * line is found from a cursor on the line the reading has got to, not
 * from the Source's table of line starts (whose making read the whole
 * text once more: 51 instructions a line).  The cursor holds a line's
 * number and a stretch of it, [start, end), known to hold no newline.  A
 * node written in that stretch is placed by two comparisons; one written
 * after it moves the cursor there with memchr, a line at a time (the
 * def's parameters, all on its line, find its end once); one written
 * before the line's start (the reading went on past a newline before
 * making it) is found in the table.  The binding lines' reader counts
 * the newlines it passes over (load_newline) and moves the cursor's end
 * to each line's ';', so that its nodes are placed with no memchr. */
void load_cursor_seek(RelayParser *ps, uint32_t off)
{
    LineCursor *c = &ps->cursor;
    const char *text = ps->src->text;
    if (off < c->start)
        *c = (LineCursor){0, 0, 0};
    while (off >= c->end) {
        const char *newline = memchr(text + c->end, '\n', ps->src->len - c->end);
        uint32_t at = newline ? (uint32_t)(newline - text) : (uint32_t)ps->src->len;
        if (off <= at) {
            c->end = at;
            return;
        }
        c->line++;
        c->start = c->end = at + 1;
    }
}

/* load_place's n written off the cursor's stretch: after it, the cursor
 * moved there; before its line, found in the table. */
void load_place_off_cursor(RelayParser *ps, graft_node *n, RelayText t)
{
    size_t line, start;
    if (t.off >= ps->cursor.start) {
        load_cursor_seek(ps, t.off);
        line = ps->cursor.line;
        start = ps->cursor.start;
    } else {
        line = line_index(ps, t.off, &start);
    }
    load_set_pos(ps, n, (uint32_t)line + 1, (uint32_t)(t.off - start) + 1);
}

graft_node *load_at(RelayParser *ps, graft_node *n, RelayText t)
{
    if (n && !node_line(ps->g, n))
        load_place(ps, n, t);
    return n;
}

void load_annotate_new(RelayParser *ps, graft_node *n, RelayText annot)
{
    annotate(ps, n, annot);
}

/* "%1 = %x;" would make %1 an alias; TVM never prints that. */
static bool computes(RelayParser *ps, RelayText temp, const graft_node *value)
{
    if (node_kind(value) != NODE_VAR && node_kind(value) != NODE_CONST)
        return true;
    diag_error(ps->diag, ps->src, load_range(ps, temp),
               "a binding must compute something (got a %s)",
               node_kind(value) == NODE_VAR ? "variable" : "constant");
    return false;
}

bool load_define(RelayParser *ps, RelayText temp, graft_node *value)
{
    ps->counts.lines_by_tokens++; /* note [loading counted] in relay_load.c */
    return computes(ps, temp, value) && scope_define(ps, temp, value);
}

/* "%x.0" where %x is a name: TVM's printer writes a getitem of a
 * variable that way, so a dotted name that is undefined may be one. */
static graft_node *dotted_getitem(RelayParser *ps, RelayText name)
{
    const char *s = load_text(ps, name);
    size_t dot = name.len;
    while (dot > 2 && s[dot - 1] >= '0' && s[dot - 1] <= '9')
        dot--;
    if (dot == name.len || s[dot - 1] != '.' || name.len - dot > 9)
        return NULL;
    RelayText base = {name.off, dot - 1};
    graft_node *tuple;
    if (!scope_lookup(ps, base, &tuple) || !tuple)
        return NULL;
    return load_at(ps, graph_add_getitem(ps->g, tuple, atoi(s + dot)), name);
}

/* After "'%3' is not defined": when a line further down starts with
 * "%3 = ", the name is used before its definition; point there. */
static void note_later_definition(RelayParser *ps, RelayText name)
{
    const char *text = ps->src->text, *end = text + ps->src->len;
    const char *p = text + name.off + name.len;
    while ((p = memchr(p, '\n', (size_t)(end - p)))) {
        p++;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if ((size_t)(end - p) > name.len + 2 && memcmp(p, text + name.off, name.len) == 0 &&
            memcmp(p + name.len, " =", 2) == 0) {
            size_t at = (size_t)(p - text);
            diag_note(ps->diag, ps->src, source_range(ps->src, at, at + name.len),
                      "'%.*s' is defined later, here", (int)name.len, text + name.off);
            return;
        }
    }
}

/* A use of %3 or %x: its innermost definition, else an error. */
graft_node *load_use(RelayParser *ps, RelayText name)
{
    graft_node *n;
    if (!scope_lookup(ps, name, &n))
        return NULL;
    if (n)
        return n;
    n = dotted_getitem(ps, name);
    if (!n) {
        diag_error(ps->diag, ps->src, load_range(ps, name), "'%.*s' is not defined",
                   (int)name.len, load_text(ps, name));
        note_later_definition(ps, name);
    }
    return n;
}

/* The dtype a scalar literal's suffix names ("1f" float32, "2i64"). */
static const char *literal_dtype(const char *s, size_t len, bool *ok)
{
    static const char *const suffixes[][2] = {
        {"f16", "float16"}, {"f32", "float32"}, {"f64", "float64"},
        {"i8", "int8"},     {"i16", "int16"},   {"i32", "int32"},
        {"i64", "int64"},   {"u8", "uint8"},    {"u16", "uint16"},
        {"u32", "uint32"},  {"u64", "uint64"},  {"f", "float32"},
    };
    *ok = true;
    for (size_t i = 0; i < ARRAY_LEN(suffixes); i++) {
        size_t n = strlen(suffixes[i][0]);
        if (len > n && memcmp(s + len - n, suffixes[i][0], n) == 0)
            return suffixes[i][1];
    }
    *ok = false;
    return memchr(s, '.', len) || memchr(s, 'e', len) ? "float32" : "int32";
}

/* Whether a numeric literal's value is representable: integers must fit
 * int64 (uint64 for "u64"), floats must not overflow to infinity.  A huge
 * literal would otherwise load as a silently clamped value. */
static bool literal_in_range(const char *spelling, const char *dtype)
{
    errno = 0;
    if (strncmp(dtype, "float", 5) == 0)
        return !isinf(strtod(spelling, NULL));
    if (strcmp(dtype, "uint64") == 0)
        (void)strtoull(spelling, NULL, 10);
    else
        (void)strtoll(spelling, NULL, 10);
    return errno != ERANGE;
}

/* note [literal cache]: models repeat their literals (every batch norm's
 * 1e-05f), and converting and range-checking one costs more than the
 * rest of the constant; each distinct spelling (interned) is converted
 * once.  False after reporting a literal out of range. */
static bool literal(RelayParser *ps, RelayText t, const char *spelling, double *value,
                    const char **dtype)
{
    int64_t *known = keymap_get(&ps->literals, keymap_ptr_key(spelling));
    if (known) {
        *value = ps->literal_values[*known].value;
        *dtype = ps->literal_values[*known].dtype;
        return true;
    }
    bool suffixed;
    const char *type = literal_dtype(spelling, t.len, &suffixed);
    if (!literal_in_range(spelling, type)) {
        diag_error(ps->diag, ps->src, load_range(ps, t), "number out of range for %s", type);
        return false;
    }
    size_t i = ps->nliterals;
    if (i == ps->literal_values_cap)
        ps->literal_values = xgrow_items(ps->literal_values, &ps->literal_values_cap, i + 1,
              sizeof *ps->literal_values);
    ps->literal_values[i].value = *value = strtod(spelling, NULL);
    ps->literal_values[i].dtype = *dtype = graph_intern(ps->g, type);
    *keymap_put(&ps->literals, keymap_ptr_key(spelling), 0) = (int64_t)i;
    ps->nliterals++;
    return true;
}

/* A constant: a scalar literal, True/False, or meta[...][i]. */
graft_node *load_const(RelayParser *ps, RelayText t)
{
    const char *s = load_text(ps, t);
    const char *spelling = intern_cached(ps, t); /* (literals repeat, as names do) */
    if (t.len >= 5 && memcmp(s, "meta[", 5) == 0) {
        load_meta_ref(ps, t);
        return load_at(ps, graph_add_const(ps->g, spelling, 0, NULL), t);
    }
    double value;
    const char *dtype;
    if (s[0] == 'T' || s[0] == 'F') {
        dtype = graph_intern(ps->g, "bool");
        value = s[0] == 'T';
    } else if (!literal(ps, t, spelling, &value, &dtype)) {
        return NULL;
    }
    graft_node *n = graph_add_literal_interned(ps->g, spelling, value, dtype);
    load_place(ps, n, t); /* (n is new: load_at's test is not needed) */
    return n;
}

/* Operands and attributes listed from mark (popped), in the parser's
 * scratch arrays: each list is used up before the next one is taken. */
static void take_args(RelayParser *ps, size_t mark, graft_node ***args, int *nargs,
                      graft_attr **attrs, int *nattrs)
{
    size_t n = ps->items.len - mark;
    if (n + 1 > ps->scratch_nodes_cap)
        ps->scratch_nodes = xgrow_items(ps->scratch_nodes, &ps->scratch_nodes_cap, n + 1,
              sizeof(graft_node *));
    *args = ps->scratch_nodes;
    *attrs = load_scratch_attrs(ps, n);
    *nargs = *nattrs = 0;
    for (size_t i = mark; i < ps->items.len; i++) {
        if (ps->items.items[i].kind == ITEM_NODE)
            (*args)[(*nargs)++] = ps->items.items[i].u.node;
        else
            (*attrs)[(*nattrs)++] = ps->items.items[i].u.attr;
    }
    ps->items.len = mark;
}

static graft_node *make_call(RelayParser *ps, RelayText op, graft_node *const *args, int nargs,
                             const graft_attr *attrs, int nattrs)
{
    graft_node *n = graph_add_call(ps->g, intern_cached(ps, op), args, nargs, attrs, nattrs);
    return n;
}

/* call -> IDENT '(' args ')' */
graft_node *load_call(RelayParser *ps, RelayText op, size_t mark)
{
    graft_node **args;
    graft_attr *attrs;
    int nargs, nattrs;
    take_args(ps, mark, &args, &nargs, &attrs, &nattrs);
    return make_call(ps, op, args, nargs, attrs, nattrs);
}


/* call -> postfix '(' args ')' where postfix is a function or variable */
graft_node *load_fn_call(RelayParser *ps, graft_node *callee, size_t mark, RelayText paren)
{
    graft_node **args;
    graft_attr *attrs;
    int nargs, nattrs;
    take_args(ps, mark, &args, &nargs, &attrs, &nattrs);
    NodeKind k = node_kind(callee);
    if (k == NODE_OPREF) /* (add)(%x, %y) is add(%x, %y) */
        return load_at(ps, graph_add_call(ps->g, node_name(callee), args, nargs, attrs, nattrs),
                       paren);
    if (k == NODE_CONST || k == NODE_TUPLE) {
        diag_error(ps->diag, ps->src, load_range(ps, paren),
                   "only functions can be called (this is a %s)",
                   k == NODE_CONST ? "constant" : "tuple");
        return NULL;
    }
    /* a function, @f, a variable or a closure some expression computes;
     * TVM prints a call's attributes with their attrs_type_key */
    graft_node *n = load_at(ps, graph_add_fn_call(ps->g, callee, args, nargs), paren);
    graph_set_call_attrs(ps->g, n, attrs, nattrs);
    return n;
}

graft_node *load_tuple(RelayParser *ps, size_t mark)
{
    graft_node **fields;
    graft_attr *attrs;
    int n, nattrs;
    take_args(ps, mark, &fields, &n, &attrs, &nattrs);
    (void)attrs;
    return graph_add_tuple(ps->g, fields, n);
}

graft_node *load_paren(RelayParser *ps, size_t mark)
{
    if (ps->items.len - mark == 1)
        return ps->items.items[--ps->items.len].u.node;
    return load_tuple(ps, mark);
}

graft_node *load_getitem(RelayParser *ps, graft_node *tuple, RelayText index)
{
    errno = 0;
    long i = strtol(load_text(ps, index), NULL, 10);
    if (errno || i < 0 || i > INT32_MAX) {
        diag_error(ps->diag, ps->src, load_range(ps, index), "invalid tuple index");
        return NULL;
    }
    /* "555 .51" would print as the number 555.51 (found by fuzz_relay). */
    if (node_const_is_scalar(tuple)) {
        diag_error(ps->diag, ps->src, load_range(ps, index),
                   "element access of a constant, which is not a tuple");
        return NULL;
    }
    graft_node *n = load_at(ps, graph_add_getitem(ps->g, tuple, (int)i), index);
    return n;
}

/* fn -> "fn" '(' params attrs ')' [-> type] '{' body '}'; closes the scope
 * load_scope_open opened at "fn (". */
graft_node *load_func(RelayParser *ps, size_t mark, const graft_type *ret, graft_node *body)
{
    graft_node **params;
    graft_attr *attrs;
    int nparams, nattrs;
    take_args(ps, mark, &params, &nparams, &attrs, &nattrs);
    graft_node *fn = graph_add_func(ps->g, params, nparams, body, attrs, nattrs);
    graph_set_ret_type(ps->g, fn, ret);
    graph_set_type_params(ps->g, fn, ps->fn_type_params.items[ps->depth - 1]);
    load_scope_close(ps);
    return fn;
}

/* expr ANNOT: the comment belongs to the node computed here; a reference
 * to a variable or earlier temp keeps its own. */
void load_annotate(RelayParser *ps, graft_node *n, RelayText annot)
{
    if (node_kind(n) == NODE_VAR || node_kind(n) == NODE_GLOBAL || node_annotation(ps->g, n))
        return;
    annotate(ps, n, annot);
}
