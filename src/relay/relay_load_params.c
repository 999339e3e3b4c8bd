/* relay_load_params.c - a def's parameters read by hand (note [def
 * parameters]): the scanner's PARAMS token, and the parameters it holds
 * made with their types found by the types' text. */
#include "relay_load.h"
#include "relay_load_bytes.h"

#include <stdlib.h>
#include <string.h>

/* note [def parameters]: after the binding lines (note [binding lines]
 * in relay_load_line.c), what is left of a model's text is mostly its
 * def's line: TVM prints every weight as a parameter,
 *
 *   def @main(%input: Tensor[(1, 3, 224, 224), float32] / * ty=... * /,
 *             %conv.weight: Tensor[(64, 3, 7, 7), float32] / * ... * /, ...)
 *
 * a dozen tokens and parser steps a parameter (densenet121: 193 KB of
 * text for 433 op nodes).  So the first attempt at a model (note [long
 * tokens] in grammar/relay_lex.l) reads a def's whole parameter list,
 * after "def @NAME(" or "def @NAME[A, B](", as one token, PARAMS: each
 * parameter "%name", then optionally ": " and a type of the two forms TVM
 * writes for tensors (a dtype, "Tensor[(dims), dtype]"), then optionally
 * its annotation; a ',' between them and the ')' after.  Each part is
 * checked against the pattern the scanner matches it with; anything else
 * (another type, an attribute, a comment that is layout, a dimension too
 * long to read here) leaves the list to the other tokens.  The grammar's
 * action (load_params) then makes each parameter with the parser's own
 * actions (load_param, and for a type not seen before load_dtype or
 * load_push_dim and load_tensor_type), so it is the node the tokens
 * would make.  A type is found by its text's bytes (note [span caches] in
 * relay_load_spans.c): a model has few distinct ones.  An error in a
 * parameter (a duplicate name) fails the first attempt, and the second,
 * with tokens only, reports it. */

enum { MAX_DIM_DIGITS = 18 }; /* below 2^63: read without overflow */

static RelayText text_of(Bytes text, Bytes s, Bytes end)
{
    return (RelayText){(uint32_t)(s - text), (uint32_t)(end - s)};
}

/* A dtype at s, IDENT ("." IDENT)* as the IDENT token, not a word the
 * scanner makes another token of ("fn", "None", "type" ...): its end,
 * or NULL. */
static Bytes dtype_end(Bytes start)
{
    Bytes s = dotted_name_end(start);
    if (!s)
        return NULL;
    size_t n = (size_t)(s - start);
    bool type_word = n == 4 && memcmp(start, "type", 4) == 0; /* a TYPEDEF may start so */
    return is_keyword(start, n) || type_word ? NULL : s;
}

/* A dimension at s, '?' or up to MAX_DIM_DIGITS digits: its end, or NULL. */
static Bytes dim_end(Bytes s)
{
    if (*s == '?')
        return s + 1;
    Bytes end = skip(s, DIGIT);
    return end > s && end - s <= MAX_DIM_DIGITS ? end : NULL;
}

/* "[(dims), dtype]" at s, after "Tensor": its end, or NULL. */
static Bytes tensor_end(Bytes s)
{
    s = skip(s, LAYOUT);
    if (*s != '[')
        return NULL;
    s = skip(s + 1, LAYOUT);
    if (*s != '(')
        return NULL;
    s = skip(s + 1, LAYOUT);
    while (*s != ')') {
        if (!(s = dim_end(s)))
            return NULL;
        s = skip(s, LAYOUT);
        if (*s == ',' && *skip(s + 1, LAYOUT) != ')') /* "(1, )" is no list of dims */
            s = skip(s + 1, LAYOUT);
        else if (*s != ')')
            return NULL;
    }
    s = skip(s + 1, LAYOUT);
    if (*s != ',' || !(s = dtype_end(skip(s + 1, LAYOUT))))
        return NULL;
    s = skip(s, LAYOUT);
    return *s == ']' ? s + 1 : NULL;
}

/* A parameter's type at s, a dtype or "Tensor[(dims), dtype]": its
 * end, or NULL. */
static Bytes type_end(Bytes s)
{
    Bytes end = dtype_end(s);
    if (!end)
        return NULL;
    if (end - s == 6 && memcmp(s, "Tensor", 6) == 0 && *skip(end, LAYOUT) == '[')
        return tensor_end(end);
    return *skip(end, LAYOUT) == '[' ? NULL : end; /* "List[...]": the tokens read it */
}

/* The LOCAL token at s, "%" [A-Za-z_] (NAMEC | ":"+ NAMEC)*: its end,
 * before a ':' that no NAMEC follows ("%x: T"). */
static Bytes local_end(Bytes s)
{
    s = skip(s + 2, NAMEC);
    for (;;) {
        Bytes colons = s;
        while (*colons == ':')
            colons++;
        if (colons == s || !is(*colons, NAMEC))
            return s;
        s = skip(colons, NAMEC);
    }
}

/* One parameter at s into *p: its end and the layout after it, or NULL. */
static Bytes param(Bytes text, Bytes s, ParamText *p)
{
    Bytes name = skip(s, LAYOUT);
    if (*name != '%' || !is(name[1], IDSTART))
        return NULL;
    s = local_end(name);
    *p = (ParamText){text_of(text, name, s), {0, 0}, {0, 0}};
    s = skip(s, LAYOUT);
    if (*s == ':') {
        Bytes type = skip(s + 1, LAYOUT);
        if (!(s = type_end(type)))
            return NULL;
        p->type = text_of(text, type, s);
        s = skip(s, LAYOUT);
    }
    if (*s == '/') {
        Bytes end = scan_comment(s);
        if (!end)
            return NULL;
        p->annot = text_of(text, s, end);
        s = skip(end, LAYOUT);
    }
    return s;
}

uint32_t relay_scan_params(RelayLexer *lx, uint32_t off)
{
    Bytes text = (Bytes)lx->src->text, s = text + off;
    lx->params.len = 0;
    for (;;) {
        vec_reserve(&lx->params, lx->params.len + 1);
        if (!(s = param(text, s, &lx->params.items[lx->params.len++])))
            return 0;
        if (*s == ')')
            return (uint32_t)(s + 1 - (text + off));
        if (*s++ != ',')
            return 0;
    }
}

/* ---- the parameters made ---- */

/* Whether type_end read "Tensor[...]" (a dtype named "Tensor2" is not). */
static bool is_tensor(Bytes s, uint32_t len)
{
    return len > 6 && memcmp(s, "Tensor", 6) == 0 && (is(s[6], LAYOUT) || s[6] == '[');
}

/* The type type_end read at t, made as the grammar's actions make it. */
static const graft_type *make_type(RelayParser *ps, RelayText t)
{
    Bytes text = (Bytes)ps->src->text, s = text + t.off;
    if (!is_tensor(s, t.len))
        return load_dtype(ps, t);
    RelayText tensor = {t.off, 6};
    size_t mark = load_mark(ps);
    s = skip(skip(skip(s + 6, LAYOUT) + 1, LAYOUT) + 1, LAYOUT); /* past "[(" */
    while (*s != ')') {
        Bytes end = dim_end(s);
        load_push_dim(ps, text_of(text, s, end));
        s = skip(end, LAYOUT);
        if (*s == ',')
            s = skip(s + 1, LAYOUT);
    }
    Bytes dtype = skip(skip(s + 1, LAYOUT) + 1, LAYOUT); /* past "), " */
    return load_tensor_type(ps, tensor, mark, text_of(text, dtype, dtype_end(dtype)));
}

/* Parameter type t's type: found by its bytes, or made and kept. */
static const graft_type *param_type(RelayParser *ps, RelayText t)
{
    const char *text = load_text(ps, t);
    uint64_t key;
    const SpanEntry *known = span_cache_get(&ps->types, text, t.len, &key);
    if (known)
        return known->type;
    SpanEntry made = {text, t.len, make_type(ps, t), NULL};
    span_cache_put(&ps->types, key, &made);
    return made.type;
}

/* note [parameters keyed late]: a def's parameters are the first
 * names it defines (ps->syms is empty: the last def's end emptied it,
 * and type parameters are no Symbols), and putting each in ps->keys, to
 * be found by its name and to tell a duplicate, was 68 instructions of
 * a parameter's 370 on the batch-norm workload (50,000 parameters), for
 * lookups that note [parameters in order] makes without the keys.  So
 * load_params leaves their Symbols out of the keys (and makes them late
 * too: note [parameter Symbols made late]); when none has a type or an
 * annotation (which may intern names of their own) and the interner's
 * count rose by one a parameter, every name was new to it, so no two
 * are alike, and the keys take them at their first
 * use (scope_keys, inline in relay_load.h: a lookup by name, a
 * definition), which on the workload is never.  Otherwise they are keyed
 * at once, failing at a duplicate (the tokens' attempt reports it, note
 * [def parameters]).  The Symbols from ps->syms_keyed up are these; every
 * other Symbol is defined by define_symbol, which keys them first. */
bool scope_key_params(RelayParser *ps)
{
    scope_make_params(ps);
    keymap_reserve(&ps->keys, ps->syms.len - ps->syms_keyed);
    for (size_t i = ps->syms_keyed; i < ps->syms.len; i++) {
        int64_t *top = keymap_put(&ps->keys, ps->syms.items[i].key, -1);
        if (*top >= 0) /* (all at depth 0: named twice) */
            return false;
        *top = (int64_t)i;
    }
    ps->syms_keyed = ps->syms.len;
    return true;
}

/* note [parameter Symbols made late]: the Symbols of parameters keyed
 * late (note [parameters keyed late]) are read only once they are keyed,
 * and their 50,000 on the batch-norm workload (32 bytes each, in a table
 * doubled to 2 MB) were live through the whole body, at the loader's peak
 * (the rewrite's).  So load_params makes none: the first keying
 * (scope_key_params: at once when two may be alike, else at scope_keys)
 * or a scope's opening (whose mark must count them) makes them from
 * def_params, the name the node's, the place its position read back to
 * a byte offset (each line's start found by counting newlines, once for
 * all of them: they are in order).  Nothing is pushed on ps->syms before
 * they are made, so they take the places load_params gave them before. */

/* Parameter v's byte offset, from its line and column; *line and
 * *line_start: the line the count has reached, and where it starts. */
static uint32_t param_offset(RelayParser *ps, const graft_node *v, uint32_t *line,
                             const char **line_start)
{
    uint32_t want = (uint32_t)node_line(ps->g, v);
    const char *text = ps->src->text, *end = text + ps->src->len;
    while (*line < want) {
        const char *newline = memchr(*line_start, '\n', (size_t)(end - *line_start));
        *line_start = newline ? newline + 1 : end;
        ++*line;
    }
    return (uint32_t)(*line_start - text) + (uint32_t)node_col(ps->g, v) - 1;
}

void scope_make_params(RelayParser *ps)
{
    size_t n = ps->params_unmade;
    if (!n)
        return;
    ps->params_unmade = 0;
    vec_reserve(&ps->syms, ps->syms.len + n);
    uint32_t line = 1;
    const char *line_start = ps->src->text;
    for (size_t i = 0; i < n; i++) {
        graft_node *v = ps->def_params[i];
        const char *s = node_name(v);
        uint32_t off = param_offset(ps, v, &line, &line_start);
        ps->syms.items[ps->syms.len++] = (Symbol){(uint64_t)(uintptr_t)s, v, off,
                                                  (uint32_t)interner_length(s) + 1, ps->depth, -1};
    }
    ps->param_syms = ps->syms.len; /* (nothing was pushed since load_params) */
}

/* note [names reserved by count]: graph_reserve sizes the interner for
 * names for half the nodes the text's length implies (note [sized from
 * the text] in relay_load.c): 83,342 on the batch-norm workload, a
 * table of 131,072 slots (1 MB), where its names are its 50,000
 * parameters' and a few ops': 65,536 slots hold them, and the table
 * lives through the passes, at the rewrite's peak.  So the loader
 * reserves its nodes alone (graph_reserve_nodes) and load_params the
 * names it is about to intern, which a def's parameters are most of;
 * the table still grows past that by doubling. */

/* The parameters are not pushed on the item stack (32 bytes an item,
 * doubled, through the whole body) but kept in an array of their own, of
 * their number, which load_def takes as the function's. */
bool load_params(RelayParser *ps)
{
    const ParamText *p = ps->lexer->params.items;
    size_t n = ps->lexer->params.len;
    free(ps->def_params);
    ps->def_params = xmalloc((n + 1) * sizeof *ps->def_params);
    size_t interned = graph_interned_count(ps->g);
    graph_reserve_names(ps->g, interned + n, 0); /* note [names reserved by count] */
    bool names_only = true; /* only the names interned (note [parameters keyed late]) */
    for (size_t i = 0; i < n; i++) {
        names_only &= !p[i].type.len && !p[i].annot.len;
        const graft_type *type = p[i].type.len ? param_type(ps, p[i].type) : NULL;
        const char *s;
        ps->def_params[i] = load_param_node(ps, p[i].name, type,
                                            p[i].annot.len ? &p[i].annot : NULL, &s);
    }
    ps->ndef_params = n;
    vec_free(&ps->lexer->params); /* read: not kept through the body */
    ps->param_next = 0; /* note [parameters in order] in relay_load_scope.c */
    ps->param_syms = ps->syms.len;
    ps->params_unmade = n; /* note [parameter Symbols made late] */
    bool distinct = names_only && graph_interned_count(ps->g) - interned == n;
    return distinct || scope_key_params(ps);
}
