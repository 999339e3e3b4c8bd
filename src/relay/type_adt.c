/* type_adt.c - the ADTs of a module's type declarations, and type texts
 * parsed into terms (note [ADT types] in type_adt.h); the types of
 * constructor calls and match are type_adt_typing.c's. */
#include "type_adt_impl.h"

#include <stdlib.h>
#include <string.h>



/* The Prelude's types (tvm/python/tvm/relay/std/prelude.rly), as TVM prints
 * them. */
static const char *const prelude[] = {
    "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}",
    "type Option[A] {\n  Some(A),\n  None,\n}",
    "type Tree[A] {\n  Rose(A, List[Tree[A]]),\n}",
};

/* ---- lookup ---- */

static const Adt *find_adt(const AdtTable *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->adts.len; i++)
        if (t->adts.items[i].len == len && memcmp(t->adts.items[i].name, name, len) == 0)
            return &t->adts.items[i];
    return NULL;
}

/* note [constructors by name]: model_check asks of every op call whether
 * its op is a constructor (adt_is_constructor), and TVM's models declare
 * some sixty (the tensor_* types of its Prelude, printed in every
 * corpus model), so a search in order cost about a thousand
 * instructions a call.  Once a table's constructors are all read they are
 * found by a hash of the name's bytes (note [one string hash] in
 * keymap.h) and one compare; the first declared of a name wins, as in
 * the search, and a hash two names share is left to the search. */
enum { SHARED_HASH = -1 };

static uint64_t ctor_key(const char *name, size_t len)
{
    return hash_bytes(name, len, 0) | 1; /* 0 is KeyMap's empty key */
}

static const Ctor *find_in_order(const AdtTable *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->ctors.len; i++)
        if (t->ctors.items[i].name[0] == name[0] &&
            strncmp(t->ctors.items[i].name, name, len) == 0 && t->ctors.items[i].name[len] == '\0')
            return &t->ctors.items[i];
    return NULL;
}

static void index_ctors(AdtTable *t)
{
    for (size_t i = 0; i < t->ctors.len; i++) {
        const char *name = t->ctors.items[i].name;
        int64_t *at = keymap_put(&t->by_name, ctor_key(name, strlen(name)), (int64_t)i);
        if (*at >= 0 && strcmp(t->ctors.items[*at].name, name) != 0)
            *at = SHARED_HASH;
    }
    t->indexed = true;
}

const Ctor *adt_find_ctor(const AdtTable *t, const char *name, size_t len)
{
    if (!len)
        return NULL;
    if (!t->indexed)
        return find_in_order(t, name, len);
    const int64_t *at = keymap_get(&t->by_name, ctor_key(name, len));
    if (!at)
        return NULL;
    if (*at == SHARED_HASH)
        return find_in_order(t, name, len);
    const Ctor *c = &t->ctors.items[*at];
    return strncmp(c->name, name, len) == 0 && c->name[len] == '\0' ? c : NULL;
}

static int param_index(const Adt *adt, const char *name, size_t len)
{
    for (int i = 0; i < adt->nparams; i++)
        if (adt->plens[i] == len && memcmp(adt->params[i], name, len) == 0)
            return i;
    return -1;
}

bool adt_is_constructor(const AdtTable *t, const char *name)
{
    return adt_find_ctor(t, name, strlen(name)) != NULL;
}

int adt_constructor_fields(const AdtTable *t, const char *name)
{
    const Ctor *c = adt_find_ctor(t, name, strlen(name));
    return c ? c->nfields : -1;
}

const Ctor *adt_untyped_nullary(const AdtTable *t, const graft_node *n)
{
    const char *name = node_kind(n) == NODE_OPREF ? node_name(n)
                       : node_kind(n) == NODE_CALL && !node_callee(n) && !node_nargs(n)
                           ? node_op(n)
                           : NULL;
    if (!name || (node_kind(n) == NODE_CALL && node_type(n)))
        return NULL;
    const Ctor *c = adt_find_ctor(t, name, strlen(name));
    return c && !c->nfields ? c : NULL;
}


/* ---- parsing types into terms ---- */


/* Whitespace as the C locale's isspace gives it, and names' bytes as
 * ASCII ranges, not ctype's calls: a declaration is read a character at
 * a time, and every corpus model declares TVM's Prelude (some sixty
 * constructors, read by the loader's check and again by model_check's
 * table).  (The loader's byte classes in relay_load_bytes.h say the same,
 * but the text IR is a later layer than the types.) */
static bool space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* [A-Za-z_]: a name's first byte. */
static bool name_start(unsigned char c)
{
    return (unsigned char)((c | 0x20) - 'a') < 26 || c == '_';
}

/* [A-Za-z0-9_]: a name's other bytes. */
static bool name_byte(unsigned char c)
{
    return name_start(c) || (unsigned char)(c - '0') < 10;
}

static void skip_space(Scan *s)
{
    while (s->p < s->end && space(*s->p))
        s->p++;
}

static bool eat(Scan *s, char c)
{
    skip_space(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* The length of the name at s->p (not consumed), 0 when none. */
static size_t name_len(Scan *s)
{
    skip_space(s);
    size_t n = 0;
    if (s->p < s->end && name_start((unsigned char)*s->p))
        while (s->p + n < s->end && name_byte((unsigned char)s->p[n]))
            n++;
    return n;
}

Term *adt_new_term(Scan *s, TermKind kind, const char *text, size_t len)
{
    Term *t = arena_alloc(s->arena, sizeof *t);
    *t = (Term){kind, text, len, 0, 0, NULL};
    return t;
}

static Term *parse_term(Scan *s);

/* Terms of a list that parse_args keeps on the stack (the Prelude's
 * lists hold one to three); a longer list moves to the heap. */
enum { FEW_TERMS = 8 };

/* Terms separated by ',' up to close (the opener eaten) into t's args;
 * *trailing when a ',' ends the list. */
static bool parse_args(Scan *s, char close, Term *t, bool *trailing)
{
    Term *few[FEW_TERMS];
    VEC(Term *) items = {few, 0, FEW_TERMS};
    bool ok = true;
    *trailing = false;
    if (!eat(s, close))
        for (;;) {
            Term *a = parse_term(s);
            if (!a) {
                ok = false;
                break;
            }
            if (items.len == FEW_TERMS && items.items == few) {
                items.items = NULL; /* to the heap, the few copied */
                items.cap = 0;
                vec_reserve(&items, 2 * FEW_TERMS);
                memcpy(items.items, few, sizeof few);
            }
            vec_push(&items, a);
            if (eat(s, close))
                break;
            if (!eat(s, ',')) {
                ok = false;
                break;
            }
            if (eat(s, close)) {
                *trailing = true;
                break;
            }
        }
    if (ok) {
        t->nargs = (int)items.len;
        t->args = arena_dup(s->arena, items.items, items.len * sizeof *items.items);
    }
    if (items.items != few)
        vec_free(&items);
    return ok;
}

/* Tensor[...] as one leaf, its text up to the closing ']'. */
static Term *parse_tensor(Scan *s, const char *start)
{
    if (!eat(s, '['))
        return NULL;
    int open = 1;
    while (s->p < s->end && open) {
        open += *s->p == '[' ? 1 : *s->p == ']' ? -1 : 0;
        s->p++;
    }
    return open ? NULL : adt_new_term(s, TERM_LEAF, start, (size_t)(s->p - start));
}

/* "fn [T, ...](A, ...) -> R" after the "fn", as TVM prints a FuncType:
 * a hole, its parts checked only for form. */
static Term *parse_fn_type(Scan *s)
{
    Term parts = {0};
    bool trailing;
    if (eat(s, '[') && !parse_args(s, ']', &parts, &trailing))
        return NULL;
    if (!eat(s, '(') || !parse_args(s, ')', &parts, &trailing) || !eat(s, '-') ||
        !(s->p < s->end && *s->p++ == '>') || !parse_term(s))
        return NULL;
    return adt_new_term(s, TERM_HOLE, NULL, 0);
}

static Term *parse_named(Scan *s)
{
    size_t n = name_len(s);
    if (!n)
        return NULL;
    const char *name = s->p;
    s->p += n;
    if (n == 6 && memcmp(name, "Tensor", 6) == 0)
        return parse_tensor(s, name);
    int var = s->scope ? param_index(s->scope, name, n) : -1;
    if (var >= 0) {
        Term *t = adt_new_term(s, TERM_VAR, name, n);
        t->var = var;
        return t;
    }
    if (eat(s, '[')) {
        Term *t = adt_new_term(s, TERM_ADT, name, n);
        bool trailing;
        return parse_args(s, ']', t, &trailing) && !trailing ? t : NULL;
    }
    if (find_adt(s->table, name, n)) /* "Pair": TVM's TypeCall(Pair, []) */
        return adt_new_term(s, TERM_ADT, name, n);
    if (n == 2 && memcmp(name, "fn", 2) == 0)
        return parse_fn_type(s);
    return adt_new_term(s, TERM_LEAF, name, n);
}

static Term *parse_term(Scan *s)
{
    if (s->depth >= TERM_DEPTH_MAX)
        return NULL;
    s->depth++;
    Term *t;
    if (eat(s, '(')) {
        t = adt_new_term(s, TERM_TUPLE, NULL, 0);
        bool trailing;
        if (!parse_args(s, ')', t, &trailing))
            t = NULL;
        else if (t->nargs == 1 && !trailing)
            t = t->args[0]; /* (T) is T */
    } else {
        t = parse_named(s);
    }
    s->depth--;
    return t;
}

Term *adt_parse_type(Scan *s, const char *text)
{
    *s = (Scan){text, text + strlen(text), s->arena, s->table, NULL, 0};
    Term *t = parse_term(s);
    skip_space(s);
    return t && s->p == s->end ? t : NULL;
}

/* ---- declarations ---- */

/* "type NAME[P, ...] {": the name, the parameters and where the
 * constructors start. */
static bool parse_header(AdtTable *t, Scan *s, Adt *adt)
{
    size_t n = name_len(s);
    if (n != 4 || memcmp(s->p, "type", 4) != 0)
        return false;
    s->p += n;
    if (!(n = name_len(s)))
        return false;
    *adt = (Adt){s->p, n, 0, NULL, NULL, NULL, s->end};
    s->p += n;
    VEC(const char *) names = {0};
    VEC(size_t) lens = {0};
    bool ok = true;
    if (eat(s, '['))
        do {
            if (!(n = name_len(s))) {
                ok = false;
                break;
            }
            vec_push(&names, s->p);
            vec_push(&lens, n);
            s->p += n;
        } while (eat(s, ','));
    ok = ok && (!names.len || eat(s, ']')) && eat(s, '{');
    adt->nparams = (int)names.len;
    adt->params = arena_dup(t->arena, names.items, names.len * sizeof *names.items);
    adt->plens = arena_dup(t->arena, lens.items, lens.len * sizeof *lens.items);
    adt->body = s->p;
    vec_free(&names);
    vec_free(&lens);
    return ok;
}

static void add_header(AdtTable *t, const char *text)
{
    Scan s = {text, text + strlen(text), t->arena, t, NULL, 0};
    Adt adt;
    if (!parse_header(t, &s, &adt) || find_adt(t, adt.name, adt.len))
        return;
    vec_push(&t->adts, adt);
}

/* "Ctor(T, ...), Ctor, ... }" into t.  Returns NULL, or what is wrong
 * (at *at); a declaration that does not parse adds no constructor. */
static const char *add_ctors(AdtTable *t, const Adt *adt, const char **at)
{
    Scan s = {adt->body, adt->end, t->arena, t, adt, 0};
    size_t first = t->ctors.len;
    const char *why = NULL;
    while (!why && !eat(&s, '}')) {
        size_t n = name_len(&s);
        if (!n) {
            why = "malformed type declaration: expected a constructor name";
            break;
        }
        Ctor c = {arena_strndup(t->arena, s.p, n), adt, 0, NULL};
        s.p += n;
        if (eat(&s, '(')) {
            Term fields = {0};
            bool trailing;
            if (!parse_args(&s, ')', &fields, &trailing) || trailing) {
                why = "malformed type declaration: expected field types (TYPE, ...)";
                break;
            }
            c.nfields = fields.nargs;
            c.fields = fields.args;
        }
        vec_push(&t->ctors, c);
        if (!eat(&s, ',') && !(skip_space(&s), s.p < s.end && *s.p == '}'))
            why = "malformed type declaration: expected ',' or '}' after a constructor";
    }
    if (why) {
        t->ctors.len = first;
        *at = s.p;
    }
    return why;
}

AdtTable *adt_table_new(const graft_graph *g)
{
    AdtTable *t = xcalloc(1, sizeof *t);
    t->arena = arena_new();
    for (int i = 0; i < graph_ntypedefs(g); i++)
        add_header(t, graph_typedef(g, i));
    for (size_t i = 0; i < sizeof prelude / sizeof *prelude; i++)
        add_header(t, prelude[i]);
    const char *at;
    for (size_t i = 0; i < t->adts.len; i++)
        add_ctors(t, &t->adts.items[i], &at);
    index_ctors(t);
    return t;
}

const char *adt_decl_error(const char *text, size_t len, size_t *off)
{
    AdtTable t = {.arena = arena_new()};
    Scan s = {text, text + len, t.arena, &t, NULL, 0};
    Adt adt;
    const char *at = text;
    const char *why = NULL;
    if (!parse_header(&t, &s, &adt)) {
        why = "malformed type declaration: expected 'type NAME[PARAMS, ...] {'";
        at = s.p;
    } else {
        why = add_ctors(&t, &adt, &at);
    }
    *off = (size_t)(at - text);
    arena_free(t.arena);
    vec_free(&t.ctors);
    return why;
}

void adt_table_free(AdtTable *t)
{
    if (!t)
        return;
    arena_free(t->arena);
    vec_free(&t->adts);
    vec_free(&t->ctors);
    keymap_free(&t->by_name);
    free(t);
}
