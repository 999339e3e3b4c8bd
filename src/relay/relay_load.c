/* relay_load.c - the loader's driver and its list and type actions.
 * Names and expressions are in relay_load_expr.c. */
#include "relay_load.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "relay_load_control.h"
#include "relay_parse.h"
#include "type_adt.h"
#include "type_infer.h"

SrcRange relay_text_range(const Source *src, RelayText t)
{
    size_t end = t.off + t.len;
    if (t.len && memchr(src->text + t.off, '\n', t.len))
        end = t.off + 1;
    return source_range(src, t.off, end > t.off ? end : t.off);
}

SrcRange load_range(const RelayParser *ps, RelayText t)
{
    return relay_text_range(ps->src, t);
}

void lex_error(RelayLexer *lx, const char *msg)
{
    diag_error(lx->diag, lx->src, relay_text_range(lx->src, lx->tok), "%s", msg);
}

/* Stray bytes: printable ones quoted, others in hex (binary junk). */
void lex_stray(RelayLexer *lx, char c)
{
    unsigned char b = (unsigned char)c;
    SrcRange at = relay_text_range(lx->src, lx->tok);
    if (b > 0x20 && b < 0x7f)
        diag_error(lx->diag, lx->src, at, "unexpected character '%c'", c);
    else
        diag_error(lx->diag, lx->src, at,
                   "unexpected byte 0x%02x (not a Relay text file?)", b);
}

void lex_open(RelayLexer *lx, char c)
{
    vec_push(&lx->open, ((OpenBracket){c, lx->tok.off}));
}

/* A closer pops its opener; a stray closer leaves the stack alone (the
 * parser reports it). */
void lex_close(RelayLexer *lx, char c)
{
    char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
    if (lx->open.len && lx->open.items[lx->open.len - 1].c == opener)
        lx->open.len--;
}

/* After a syntax error: when the parser wanted the closer of the
 * innermost open bracket, or the input ended with brackets open, point at
 * the opener ("to match this '{'"). */
void load_note_opener(RelayParser *ps, const char *msg)
{
    RelayLexer *lx = ps->lexer;
    size_t nopen = lx->open.len;
    /* An unexpected opener is on the stack already: not its own match. */
    if (nopen && lx->open.items[nopen - 1].off == lx->tok.off)
        nopen--;
    if (!nopen)
        return;
    const OpenBracket *b = &lx->open.items[nopen - 1];
    char closer = b->c == '(' ? ')' : b->c == '[' ? ']' : '}';
    char want[8];
    snprintf(want, sizeof want, "'%c'", closer);
    const char *expecting = strstr(msg, "expecting");
    if (lx->at_eof || (expecting && strstr(expecting, want)))
        diag_note(ps->diag, ps->src, load_range(ps, (RelayText){b->off, 1}),
                  "to match this '%c'", b->c);
}

/* ---- the item stack ---- */

static Item *push(RelayParser *ps, ItemKind kind)
{
    vec_reserve(&ps->items, ps->items.len + 1);
    Item *it = &ps->items.items[ps->items.len++];
    it->kind = kind;
    return it;
}

void load_push_node(RelayParser *ps, graft_node *n)
{
    push(ps, ITEM_NODE)->u.node = n;
}

void load_push_attr(RelayParser *ps, RelayText name, graft_attr_value *v)
{
    Item *it = push(ps, ITEM_ATTR);
    it->u.attr.name = load_intern(ps, name);
    it->u.attr.value = v;
}

void load_push_value(RelayParser *ps, graft_attr_value *v)
{
    push(ps, ITEM_VALUE)->u.value = v;
}

void load_push_type(RelayParser *ps, const graft_type *t)
{
    push(ps, ITEM_TYPE)->u.type = t;
}

/* dim -> INT | '?' */
bool load_push_dim(RelayParser *ps, RelayText t)
{
    int64_t d = DIM_ANY;
    if (load_text(ps, t)[0] != '?') {
        errno = 0;
        d = strtoll(load_text(ps, t), NULL, 10);
        if (errno || d < 0) {
            diag_error(ps->diag, ps->src, load_range(ps, t), "invalid dimension");
            return false;
        }
    }
    push(ps, ITEM_DIM)->u.dim = d;
    return true;
}

/* Items of one kind from mark up, copied out (malloc'd); pops them all. */
static void *take(RelayParser *ps, size_t mark, ItemKind kind, size_t size,
                  int *count)
{
    char *out = xmalloc((ps->items.len - mark + 1) * size);
    int n = 0;
    for (size_t i = mark; i < ps->items.len; i++) {
        Item *it = &ps->items.items[i];
        if (it->kind == kind)
            memcpy(out + (size_t)n++ * size, &it->u, size);
    }
    *count = n;
    return out;
}

/* ---- attribute values ---- */

/* INT, NUMBER, BOOL, NONE or STRING with its spelling kept. */
graft_attr_value *load_value(RelayParser *ps, graft_attr_kind kind, RelayText t)
{
    graft_attr_value *v = graph_new_attr_value(ps->g, kind);
    const char *s = load_text(ps, t);
    v->spelling = arena_strndup(graph_arena(ps->g), s, t.len);
    switch (kind) {
    case GRAFT_ATTR_INT:
        errno = 0;
        v->i = strtoll(s, NULL, 10);
        if (errno == ERANGE) { /* not clamped silently: reject the model */
            diag_error(ps->diag, ps->src, load_range(ps, t), "integer out of range for int64");
            ps->failed = true;
        }
        break;
    case GRAFT_ATTR_FLOAT: v->f = strtod(s, NULL); break;
    case GRAFT_ATTR_BOOL: v->i = s[0] == 'T'; break;
    case GRAFT_ATTR_STRING: v->s = load_unquote(ps, t); break;
    case GRAFT_ATTR_NULL:
    case GRAFT_ATTR_LIST:
    case GRAFT_ATTR_OPAQUE:
    case GRAFT_ATTR_TENSOR:
    case GRAFT_ATTR_GRAPH: break;
    }
    return v;
}

/* '[' values ']': the list's spelling is its items' joined by ", "; the
 * values pushed from mark are popped.  spelling NULL: made from them. */
graft_attr_value *load_list_spelled(RelayParser *ps, size_t mark, const char *spelling,
                                    size_t len)
{
    graft_attr_value *v = graph_new_attr_value(ps->g, GRAFT_ATTR_LIST);
    int n;
    graft_attr_value **items = take(ps, mark, ITEM_VALUE, sizeof(graft_attr_value *), &n);
    ps->items.len = mark;
    StrBuf sb = {0};
    if (!spelling) {
        strbuf_putc(&sb, '[');
        for (int i = 0; i < n; i++) {
            if (i)
                strbuf_append(&sb, ", ", 2);
            strbuf_puts(&sb, items[i]->spelling);
        }
        strbuf_putc(&sb, ']');
        spelling = sb.data;
        len = sb.len;
    }
    v->nitems = n;
    v->items = arena_dup(graph_arena(ps->g), items, (size_t)n * sizeof(graft_attr_value *));
    v->spelling = arena_strndup(graph_arena(ps->g), spelling, len);
    strbuf_free(&sb);
    free(items);
    return v;
}

graft_attr_value *load_list(RelayParser *ps, size_t mark)
{
    return load_list_spelled(ps, mark, NULL, 0);
}

/* '{' KEY '=' VALUE, ... '}': a map, as TVM prints a Map or Attrs value
 * of a function attribute (PrintMapAsAttributeValue); opaque, spelled
 * from its items as TVM joins them. */
graft_attr_value *load_map(RelayParser *ps, size_t mark)
{
    graft_attr_value *v = load_list(ps, mark);
    StrBuf sb = {0};
    strbuf_putc(&sb, '{');
    for (int i = 0; i + 1 < v->nitems; i += 2)
        strbuf_printf(&sb, "%s%s=%s", i ? ", " : "", v->items[i]->spelling,
                      v->items[i + 1]->spelling);
    strbuf_putc(&sb, '}');
    v->kind = GRAFT_ATTR_OPAQUE;
    v->spelling = arena_strndup(graph_arena(ps->g), sb.data, sb.len);
    strbuf_free(&sb);
    return v;
}

/* ---- types ---- */

const graft_type *load_dtype(RelayParser *ps, RelayText t)
{
    char *dtype = xstrndup(load_text(ps, t), t.len);
    const graft_type *type = graph_type_tensor(ps->g, dtype, NULL, 0);
    free(dtype);
    return type;
}

/* IDENT '[' '(' dims ')' ',' IDENT ']' where the first IDENT is Tensor */
const graft_type *load_tensor_type(RelayParser *ps, RelayText tensor, size_t mark,
                             RelayText dtype)
{
    if (tensor.len != 6 || memcmp(load_text(ps, tensor), "Tensor", 6) != 0) {
        diag_error(ps->diag, ps->src, load_range(ps, tensor),
                   "unknown type '%.*s' (expected Tensor)", (int)tensor.len, load_text(ps, tensor));
        return NULL;
    }
    int rank;
    int64_t *dims = take(ps, mark, ITEM_DIM, sizeof(int64_t), &rank);
    ps->items.len = mark;
    char *name = xstrndup(load_text(ps, dtype), dtype.len);
    const graft_type *t = graph_type_tensor(ps->g, name, dims, rank);
    free(name);
    free(dims);
    return t;
}

const graft_type *load_tuple_type(RelayParser *ps, size_t mark)
{
    int n;
    const graft_type **fields = take(ps, mark, ITEM_TYPE, sizeof(graft_type *), &n);
    ps->items.len = mark;
    const graft_type *t = graph_type_tuple(ps->g, fields, n);
    free(fields);
    return t;
}

/* '(' types ')': one type is that type, more are a tuple type. */
const graft_type *load_paren_type(RelayParser *ps, size_t mark)
{
    if (ps->items.len - mark == 1)
        return ps->items.items[--ps->items.len].u.type;
    return load_tuple_type(ps, mark);
}

const graft_type *load_type_call(RelayParser *ps, RelayText name, size_t mark)
{
    int n;
    const graft_type **args = take(ps, mark, ITEM_TYPE, sizeof(graft_type *), &n);
    ps->items.len = mark;
    StrBuf sb = {0};
    strbuf_append(&sb, load_text(ps, name), name.len);
    strbuf_putc(&sb, '[');
    for (int i = 0; i < n; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", args[i]->text);
    strbuf_putc(&sb, ']');
    const graft_type *t = graph_type_other(ps->g, sb.data, sb.len);
    strbuf_free(&sb);
    free(args);
    return t;
}

/* A list of types from mark joined by ", " onto sb. */
static void put_type_list(RelayParser *ps, size_t mark, StrBuf *sb)
{
    for (size_t i = mark; i < ps->items.len; i++)
        strbuf_printf(sb, "%s%s", i > mark ? ", " : "", ps->items.items[i].u.type->text);
    ps->items.len = mark;
}

const graft_type *load_type_name(RelayParser *ps, RelayText t)
{
    return graph_type_other(ps->g, load_text(ps, t), t.len);
}

const char *load_type_params(RelayParser *ps, size_t mark)
{
    StrBuf sb = {0};
    put_type_list(ps, mark, &sb);
    const char *names = graph_intern_n(ps->g, sb.data, sb.len);
    strbuf_free(&sb);
    return names;
}

/* TVM's VisitType_(FuncTypeNode): "fn " ["[" params "]"] "(" args ") -> "
 * ret; the type constraints a FuncType may hold are not printed. */
const graft_type *load_fn_type(RelayParser *ps, const char *type_params, size_t mark,
                               const graft_type *ret)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, "fn ");
    if (type_params)
        strbuf_printf(&sb, "[%s]", type_params);
    strbuf_putc(&sb, '(');
    put_type_list(ps, mark, &sb);
    strbuf_printf(&sb, ") -> %s", ret->text);
    const graft_type *t = graph_type_other(ps->g, sb.data, sb.len);
    strbuf_free(&sb);
    return t;
}

/* ---- module text ---- */

void load_version(RelayParser *ps, RelayText t)
{
    char *s = xstrndup(load_text(ps, t), t.len);
    graph_set_version(ps->g, s);
    free(s);
}

void load_typedef(RelayParser *ps, RelayText t)
{
    size_t off;
    const char *why = adt_decl_error(load_text(ps, t), t.len, &off);
    if (why) {
        diag_error(ps->diag, ps->src, source_range(ps->src, t.off + off, t.off + off + 1), "%s",
                   why);
        ps->failed = true;
        return;
    }
    graph_add_typedef(ps->g, load_text(ps, t), t.len);
}

void load_metadata(RelayParser *ps, RelayText t)
{
    graph_set_metadata(ps->g, load_text(ps, t), t.len);
}

/* ---- the driver ---- */

static bool only_layout(const Source *src)
{
    for (size_t i = 0; i < src->len; i++)
        if (!strchr(" \t\r\n", src->text[i]))
            return false;
    return true;
}

/* note [control bytes]: control bytes (other than tab, newline and
 * carriage return) never occur in Relay text, not even in strings or
 * comments, so the first one is reported before scanning.  This also keeps
 * NUL bytes away from the scanner (which treats them specially) and out of
 * the texts kept as C strings (a NUL in a type declaration, found by
 * fuzzing, used to truncate it when printed). */
static bool is_control(unsigned char b)
{
    return (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f;
}

/* Reports the first control byte (note [control bytes]). */
static bool check_bytes(const Source *src, graft_diag *d)
{
    size_t i = 0;
    while (i < src->len) {
        i += skip_plain_words(src->text + i, src->len - i);
        size_t end = i + 8 < src->len ? i + 8 : src->len;
        for (; i < end; i++) {
            unsigned char b = (unsigned char)src->text[i];
            if (is_control(b)) {
                diag_error(d, src, source_range(src, i, i + 1),
                           "unexpected byte 0x%02x (not a Relay text file?)", b);
                return false;
            }
        }
    }
    return true;
}

/* The bytes of the name or number starting at off. */
static size_t token_len(const Source *src, size_t off)
{
    size_t end = off;
    while (end < src->len && (isalnum((unsigned char)src->text[end]) ||
                              src->text[end] == '_' || src->text[end] == '.'))
        end++;
    return end > off ? end - off : 1;
}

/* The byte offset of the token n was placed at (an op call's name, a
 * getitem's index, a match's keyword: load_at's), read back from its
 * line and column; 0 for a node of another kind or none.  Once, for an
 * error: a table of every call's offset, of the node table's length,
 * was 0.67 MB of the loader's peak on the batch-norm workload. */
static size_t written_at(const RelayParser *ps, const graft_node *n)
{
    NodeKind k = node_kind(n);
    int line = node_line(ps->g, n);
    if (!line || (k != NODE_CALL && k != NODE_GETITEM && k != NODE_MATCH))
        return 0;
    const char *text = ps->src->text, *end = text + ps->src->len, *start = text;
    for (int i = 1; i < line; i++) {
        const char *newline = memchr(start, '\n', (size_t)(end - start));
        start = newline ? newline + 1 : end;
    }
    return (size_t)(start - text) + (size_t)node_col(ps->g, n) - 1;
}

/* note [types on load]: a model's nodes without a "ty=" annotation get
 * their types from their operands' (type_infer.h), as TVM's InferType
 * would give them, so that rules see the same types in a model printed
 * with or without them.  A contradiction is an error at the op's name. */
static bool infer_types(RelayParser *ps)
{
    StrBuf why = {0};
    graft_node *bad = type_infer_loaded(ps->g, &why);
    if (bad) {
        size_t off = written_at(ps, bad);
        SrcRange r = source_range(ps->src, off, off + token_len(ps->src, off));
        diag_error(ps->diag, ps->src, r, "type error: %s", why.data);
    }
    strbuf_free(&why);
    return bad == NULL;
}

/* note [sized from the text]: the tables that grow with the model are
 * sized once from its length (real models spend 20 to 60 bytes of text
 * on a node; 16 is the estimate), so that a large model is not copied
 * from table to table as they double; past the estimate they still
 * grow.  Untouched pages of a large allocation take no memory.  The
 * temps' cells (note [temps by number] in relay_load_scope.c), all live
 * at the loader's peak, are sized from a count instead: TVM numbers a
 * def's temps from 0 in order and its last lines use the last one (the
 * def's result), so the last "%N" in the text's last TEMPS_TAIL bytes
 * tells how many the last def has (the estimate of nodes took 2.7 MB of
 * cells for 60,000 temps, of which 1 MB was used: a weight is a node and
 * no temp).  Without one there, the cells double from empty. */
enum { TEXT_BYTES_PER_NODE = 16, TEMPS_TAIL = 4096 };

/* The cells for the temps "%N" at the end of src implies, at most limit;
 * 0 when none is there. */
static size_t temps_hint(const Source *src, size_t limit)
{
    size_t stop = src->len > TEMPS_TAIL ? src->len - TEMPS_TAIL : 0;
    for (size_t i = src->len; i-- > stop;) {
        const char *s = src->text + i;
        if (s[0] != '%' || !isdigit((unsigned char)s[1]))
            continue;
        size_t n = 0;
        for (s++; isdigit((unsigned char)*s) && n < limit; s++)
            n = n * 10 + (size_t)(*s - '0');
        return n < limit ? n + 1 : limit;
    }
    return 0;
}

static void reserve(RelayParser *ps)
{
    size_t nodes = ps->src->len / TEXT_BYTES_PER_NODE + 16;
    graph_reserve_nodes(ps->g, nodes); /* names: note [names reserved by count] */
    ps->counts.temps_hinted = temps_hint(ps->src, nodes); /* note [loading counted] */
    load_scope_reserve(ps, ps->counts.temps_hinted);
}

/* What only parsing needs (names, lists, the scanner), freed before
 * types are inferred so that the two peaks do not add up. */
static void parse_tables_free(RelayParser *ps)
{
    relay_lexer_free(ps->lexer);
    ps->lexer = NULL;
    vec_free(&ps->items);
    vec_free(&ps->syms);
    keymap_free(&ps->keys);
    free(ps->temps);
    ps->temps = NULL;
    vec_free(&ps->temp_hidden);
    vec_free(&ps->scopes);
    vec_free(&ps->fn_type_params);
    free(ps->scratch_nodes);
    ps->scratch_nodes = NULL;
    adt_table_free(ps->adts);
    ps->adts = NULL;
    free(ps->scratch_attrs);
    ps->scratch_attrs = NULL;
    free(ps->def_params);
    ps->def_params = NULL;
    vec_free(&ps->late);
    vec_free(&ps->operands);
    vec_free(&ps->line_args);
    keymap_free(&ps->literals);
    span_cache_free(&ps->annot_types);
    span_cache_free(&ps->types);
    free(ps->literal_values);
    ps->literal_values = NULL;
}

static void parser_free(RelayParser *ps)
{
    parse_tables_free(ps);
}

static void parser_init(RelayParser *ps, const Source *src, const graft_limits *limits,
                        graft_diag *d, bool fast)
{
    *ps = (RelayParser){0};
    ps->src = src;
    ps->text_past = src->text + src->len + 1;
    ps->diag = d;
    ps->max_depth = (long)limit_or_default(limits)->model_depth;
    if (fast)
        ps->max_depth /= 2;
    ps->max_fn_depth = limit_or_default(limits)->fn_depth;
    ps->g = graph_new();
    reserve(ps);
    ps->pos = graph_positions(ps->g, &ps->pos_cap); /* (as reserve sized them) */
    ps->lexer = relay_lexer_new(src, d, fast);
    graph_text_begin(ps->g, src->text, src->len); /* note [annotation spans] */
    if (fast)
        ps->lexer->lines = ps;
}

/* note [long tokens] (relay_lex.l): the first attempt, with the long
 * tokens and its errors counted but not printed; false, with nothing
 * kept, when it found one.  Its parser stack may hold half the
 * model-depth setting: a long token stands for up to four short ones,
 * and every level of nesting that holds one takes at least nine short
 * tokens' entries (six after contracting: "%N = op((let %v = ...; " is
 * the shallowest), so a model too deep for the second attempt is too
 * deep for this one too, and the second attempt reports it.  With a
 * setting too low for that margin (the stack starts at 64 entries)
 * there is no first attempt. */
enum { FAST_MIN_DEPTH = 2 * 64 };

static bool parse_fast(RelayParser *ps, const Source *src, const graft_limits *limits,
                       graft_diag *d)
{
    if (limit_or_default(limits)->model_depth < FAST_MIN_DEPTH)
        return false;
    graft_diag *quiet = diag_new(NULL);
    diag_set_error_limit(quiet, 1);
    parser_init(ps, src, limits, quiet, true);
    bool ok = relay_parse(ps) == 0 && !ps->failed && diag_errors(quiet) == 0;
    diag_free(quiet);
    ps->diag = d;
    if (!ok) {
        parser_free(ps);
        graph_free(ps->g);
    }
    return ok;
}

/* note [loading counted]: the reader's shortcuts (the binding lines read
 * by hand, note [binding lines] in relay_load_line.c; the def's
 * parameters guessed in order, note [parameters in order] in
 * relay_load_scope.c; the first attempt's long tokens) each fall back to
 * a slower way that makes the same graph, so one that gives up where it
 * should not changes no output, only the instructions (and the temps'
 * hint, note [sized from the text], only the allocations).  So the loader
 * counts what each way read, one increment where it already branches
 * (ps->counts), and relay_load_counted hands the counts over: the Check
 * tests hold the workload's model, each kind of line left to the tokens
 * and every corpus model to exact counts. */

/* Checks the bytes, parses, runs check, infers types; the graph is kept
 * only when no error was reported, and *counts set then (when not NULL). */
static graft_graph *load_counted(const Source *src, const graft_limits *limits,
                                 const RelayCheck *check, RelayLoadCounts *counts, graft_diag *d)
{
    if (!check_bytes(src, d))
        return NULL;
    if (only_layout(src)) {
        SrcRange at = {1, 1, 1, 1};
        diag_error(d, src, at, "empty model: expected 'def @main(...) { ... }'");
        return NULL;
    }
    if (src->len > INT_MAX) {
        diag_plain_error(d, "'%s' is too large", src->name);
        return NULL;
    }
    RelayParser ps;
    int rc = 0;
    bool tokens_only = !parse_fast(&ps, src, limits, d);
    if (tokens_only) {
        parser_init(&ps, src, limits, d, false);
        rc = relay_parse(&ps);
    }
    ps.counts.tokens_only = tokens_only;
    parse_tables_free(&ps);
    if (rc == 0 && !ps.failed) { /* the spans copied, the two peaks apart */
        graph_text_keep(ps.g); /* (note [annotation spans]) */
        graph_fit_positions(ps.g); /* note [node table] in graph.c */
    }
    bool checked = rc == 0 && !ps.failed && (!check || check->fn(ps.g, src, check->ctx, d) == 0);
    bool typed = checked && infer_types(&ps);
    parser_free(&ps);
    if (!typed) {
        graph_free(ps.g);
        return NULL;
    }
    if (counts)
        *counts = ps.counts;
    return ps.g;
}

graft_graph *relay_load_checked(const Source *src, const graft_limits *limits,
                                const RelayCheck *check, graft_diag *d)
{
    return load_counted(src, limits, check, NULL, d);
}

graft_graph *relay_load_counted(const Source *src, const graft_limits *limits,
                                RelayLoadCounts *counts, graft_diag *d)
{
    return load_counted(src, limits, NULL, counts, d);
}

graft_graph *relay_load_limited(const Source *src, const graft_limits *limits, graft_diag *d)
{
    return relay_load_checked(src, limits, NULL, d);
}

graft_graph *relay_load(const Source *src, graft_diag *d)
{
    return relay_load_limited(src, NULL, d);
}
