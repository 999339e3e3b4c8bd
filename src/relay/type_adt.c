/* type_adt.c - ADT types from the module's type declarations: constructor
 * calls and match (note [ADT types] in type_adt.h). */
#include "type_adt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

/* note [type term depth]: a declaration reaches graft as one token, its
 * nesting unchecked by the grammar; a term nested deeper than this does
 * not parse (its types stay unknown), so that the recursive parser,
 * unifier and printer below run on a bounded stack.  Types longer than
 * TERM_TEXT_MAX stay unknown too (note [type size] in type_infer.c). */
enum { TERM_DEPTH_MAX = 64, TERM_TEXT_MAX = 65536 };

typedef enum TermKind {
    TERM_LEAF,  /* a tensor type or a dtype, compared as text */
    TERM_VAR,   /* a declaration's parameter (Term.var) */
    TERM_HOLE,  /* unknown: the parameters of a constructor value (Nil),
                   a function type (fn (A) -> B: not unified here) */
    TERM_TUPLE, /* (args) */
    TERM_ADT,   /* NAME[args] */
} TermKind;

typedef struct Term {
    TermKind kind;
    const char *text; /* LEAF: the type; ADT: its name; VAR: the parameter */
    size_t len;
    int var;
    int nargs;
    struct Term **args;
} Term;

typedef struct Adt {
    const char *name;
    size_t len;
    int nparams;
    const char **params;
    size_t *plens;
    const char *body; /* after the '{' of its declaration */
    const char *end;
} Adt;

typedef struct Ctor {
    const char *name; /* NUL-terminated */
    const Adt *adt;
    int nfields;
    Term **fields;
} Ctor;

struct AdtTable {
    Arena *arena;
    Adt *adts;
    size_t nadts, cap_adts;
    Ctor *ctors;
    size_t nctors, cap_ctors;
};

/* The Prelude's types (python/tvm/relay/std/prelude.rly), as TVM prints
 * them. */
static const char *const prelude[] = {
    "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}",
    "type Option[A] {\n  Some(A),\n  None,\n}",
    "type Tree[A] {\n  Rose(A, List[Tree[A]]),\n}",
};

/* ---- lookup ---- */

static const Adt *find_adt(const AdtTable *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->nadts; i++)
        if (t->adts[i].len == len && memcmp(t->adts[i].name, name, len) == 0)
            return &t->adts[i];
    return NULL;
}

static const Ctor *find_ctor(const AdtTable *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->nctors; i++)
        if (strncmp(t->ctors[i].name, name, len) == 0 && t->ctors[i].name[len] == '\0')
            return &t->ctors[i];
    return NULL;
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
    return find_ctor(t, name, strlen(name)) != NULL;
}

int adt_constructor_fields(const AdtTable *t, const char *name)
{
    const Ctor *c = find_ctor(t, name, strlen(name));
    return c ? c->nfields : -1;
}

/* The constructor n calls when n is an untyped call of a constructor of
 * no fields (Nil, None), or a constructor value of no fields; else NULL. */
static const Ctor *untyped_nullary(const AdtTable *t, const graft_node *n)
{
    const char *name = node_kind(n) == NODE_OPREF ? node_name(n)
                       : node_kind(n) == NODE_CALL && !node_callee(n) && !node_nargs(n)
                           ? node_op(n)
                           : NULL;
    if (!name || (node_kind(n) == NODE_CALL && node_type(n)))
        return NULL;
    const Ctor *c = find_ctor(t, name, strlen(name));
    return c && !c->nfields ? c : NULL;
}

/* ---- parsing types into terms ---- */

typedef struct Scan {
    const char *p, *end;
    Arena *arena;          /* where the terms go */
    const AdtTable *table; /* the type names */
    const Adt *scope;      /* whose parameters are variables, or NULL */
    int depth;
} Scan;

static void skip_space(Scan *s)
{
    while (s->p < s->end && isspace((unsigned char)*s->p))
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
    if (s->p < s->end && (isalpha((unsigned char)*s->p) || *s->p == '_'))
        while (s->p + n < s->end && (isalnum((unsigned char)s->p[n]) || s->p[n] == '_'))
            n++;
    return n;
}

static Term *new_term(Scan *s, TermKind kind, const char *text, size_t len)
{
    Term *t = arena_alloc(s->arena, sizeof *t);
    *t = (Term){kind, text, len, 0, 0, NULL};
    return t;
}

static Term *parse_term(Scan *s);

/* Terms separated by ',' up to close (the opener eaten) into t's args;
 * *trailing when a ',' ends the list. */
static bool parse_args(Scan *s, char close, Term *t, bool *trailing)
{
    VEC(Term *) items = {0};
    bool ok = true;
    *trailing = false;
    if (!eat(s, close))
        for (;;) {
            Term *a = parse_term(s);
            if (!a) {
                ok = false;
                break;
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
    return open ? NULL : new_term(s, TERM_LEAF, start, (size_t)(s->p - start));
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
    return new_term(s, TERM_HOLE, NULL, 0);
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
        Term *t = new_term(s, TERM_VAR, name, n);
        t->var = var;
        return t;
    }
    if (eat(s, '[')) {
        Term *t = new_term(s, TERM_ADT, name, n);
        bool trailing;
        return parse_args(s, ']', t, &trailing) && !trailing ? t : NULL;
    }
    if (find_adt(s->table, name, n)) /* "Pair": TVM's TypeCall(Pair, []) */
        return new_term(s, TERM_ADT, name, n);
    if (n == 2 && memcmp(name, "fn", 2) == 0)
        return parse_fn_type(s);
    return new_term(s, TERM_LEAF, name, n);
}

static Term *parse_term(Scan *s)
{
    if (s->depth >= TERM_DEPTH_MAX)
        return NULL;
    s->depth++;
    Term *t;
    if (eat(s, '(')) {
        t = new_term(s, TERM_TUPLE, NULL, 0);
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

/* A whole type text as a term (no variables); NULL when it is not one. */
static Term *parse_type_text(Scan *s, const char *text)
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
    t->adts = xgrow_items(t->adts, &t->cap_adts, t->nadts + 1, sizeof *t->adts);
    t->adts[t->nadts++] = adt;
}

/* "Ctor(T, ...), Ctor, ... }" into t.  Returns NULL, or what is wrong
 * (at *at); a declaration that does not parse adds no constructor. */
static const char *add_ctors(AdtTable *t, const Adt *adt, const char **at)
{
    Scan s = {adt->body, adt->end, t->arena, t, adt, 0};
    size_t first = t->nctors;
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
        t->ctors = xgrow_items(t->ctors, &t->cap_ctors, t->nctors + 1, sizeof *t->ctors);
        t->ctors[t->nctors++] = c;
        if (!eat(&s, ',') && !(skip_space(&s), s.p < s.end && *s.p == '}'))
            why = "malformed type declaration: expected ',' or '}' after a constructor";
    }
    if (why) {
        t->nctors = first;
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
    for (size_t i = 0; i < t->nadts; i++)
        add_ctors(t, &t->adts[i], &at);
    return t;
}

const char *adt_decl_error(const char *text, size_t len, size_t *off)
{
    AdtTable t = {arena_new(), NULL, 0, 0, NULL, 0, 0};
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
    free(t.ctors);
    return why;
}

void adt_table_free(AdtTable *t)
{
    if (!t)
        return;
    arena_free(t->arena);
    free(t->adts);
    free(t->ctors);
    free(t);
}

/* ---- terms: printing, unifying, instantiating ---- */

/* Prints term (variables bound in subst, if given, else their names);
 * false when a hole or an unbound variable is left (a NULL term is an
 * unbound parameter of a result). */
static bool put_term(StrBuf *sb, const Term *term, Term *const *subst)
{
    bool whole = true;
    if (!term) {
        strbuf_putc(sb, '_');
        return false;
    }
    switch (term->kind) {
    case TERM_HOLE:
        strbuf_putc(sb, '_');
        return false;
    case TERM_VAR:
        if (subst && subst[term->var])
            return put_term(sb, subst[term->var], NULL);
        strbuf_append(sb, term->text, term->len);
        return false;
    case TERM_LEAF:
        strbuf_append(sb, term->text, term->len);
        return true;
    case TERM_ADT:
        strbuf_append(sb, term->text, term->len);
        strbuf_putc(sb, '[');
        break;
    case TERM_TUPLE:
        strbuf_putc(sb, '(');
        break;
    }
    for (int i = 0; i < term->nargs && sb->len <= TERM_TEXT_MAX; i++) {
        if (i)
            strbuf_puts(sb, ", ");
        whole &= put_term(sb, term->args[i], subst);
    }
    if (term->kind == TERM_TUPLE && term->nargs == 1)
        strbuf_putc(sb, ',');
    strbuf_putc(sb, term->kind == TERM_ADT ? ']' : ')');
    return whole && sb->len <= TERM_TEXT_MAX;
}

/* Whether two terms without variables agree where both are known. */
static bool fits(const Term *a, const Term *b)
{
    if (a->kind == TERM_HOLE || b->kind == TERM_HOLE)
        return true;
    if (a->kind != b->kind || a->nargs != b->nargs || a->len != b->len ||
        (a->len && memcmp(a->text, b->text, a->len) != 0))
        return false;
    for (int i = 0; i < a->nargs; i++)
        if (!fits(a->args[i], b->args[i]))
            return false;
    return true;
}

static bool has_hole(const Term *t)
{
    if (t->kind == TERM_HOLE)
        return true;
    for (int i = 0; i < t->nargs; i++)
        if (has_hole(t->args[i]))
            return true;
    return false;
}

/* Unifies declared term d (variables bound in subst) with c (none). */
static bool unify(const Term *d, Term *c, Term **subst)
{
    if (c->kind == TERM_HOLE)
        return true;
    if (d->kind == TERM_VAR) {
        Term **bound = &subst[d->var];
        if (*bound && !fits(*bound, c))
            return false;
        if (!*bound || has_hole(*bound))
            *bound = c;
        return true;
    }
    if (d->kind != c->kind || d->nargs != c->nargs || d->len != c->len ||
        (d->len && memcmp(d->text, c->text, d->len) != 0))
        return false;
    for (int i = 0; i < d->nargs; i++)
        if (!unify(d->args[i], c->args[i], subst))
            return false;
    return true;
}

/* d with its variables replaced by args (a declared field's type for a
 * value of type T[args]). */
static Term *instantiate(Arena *arena, Term *d, Term *const *args)
{
    if (d->kind == TERM_VAR)
        return args[d->var];
    if (!d->nargs)
        return d;
    Term *t = arena_dup(arena, d, sizeof *d);
    t->args = arena_array(arena, (size_t)d->nargs, sizeof *t->args);
    for (int i = 0; i < d->nargs; i++)
        t->args[i] = instantiate(arena, d->args[i], args);
    return t;
}

/* The graph's type for a term without variables or holes. */
static const graft_type *term_type(graft_graph *g, const Term *term)
{
    StrBuf sb = {0};
    const graft_type *t = NULL;
    if (put_term(&sb, term, NULL)) {
        size_t used = 0;
        t = term->kind == TERM_ADT ? graph_type_other(g, sb.data, sb.len)
                                   : graph_parse_type(g, sb.data, sb.len, &used);
        if (t && term->kind != TERM_ADT && used != sb.len)
            t = NULL;
    }
    strbuf_free(&sb);
    return t;
}

/* ---- constructor calls ---- */

/* An operand as a term: its type's, or for an untyped constructor of no
 * fields (Nil) its ADT with unknown parameters; NULL when unknown. */
static Term *operand_term(Scan *s, const graft_node *arg)
{
    const Ctor *c = untyped_nullary(s->table, arg);
    if (c) {
        Term *t = new_term(s, TERM_ADT, c->adt->name, c->adt->len);
        t->nargs = c->adt->nparams;
        t->args = arena_array(s->arena, (size_t)t->nargs, sizeof *t->args);
        for (int i = 0; i < t->nargs; i++)
            t->args[i] = new_term(s, TERM_HOLE, NULL, 0);
        return t;
    }
    const graft_type *type = node_type(arg);
    return type ? parse_type_text(s, type->text) : NULL;
}

static void mismatch(StrBuf *why, const Ctor *c, int i, const Term *got, Term *const *subst)
{
    StrBuf want = {0}, have = {0};
    put_term(&want, c->fields[i], subst);
    put_term(&have, got, NULL);
    strbuf_printf(why, "%s: operand %d has type %s, expected %s", c->name, i + 1, have.data,
                  want.data);
    strbuf_free(&want);
    strbuf_free(&have);
}

const graft_type *adt_call_type(graft_graph *g, const AdtTable *t, const graft_node *n, StrBuf *why)
{
    const Ctor *c = find_ctor(t, node_op(n), strlen(node_op(n)));
    if (!c)
        return NULL;
    if (node_nargs(n) != c->nfields) {
        strbuf_printf(why, "constructor %s takes %d operand%s, given %d", c->name, c->nfields,
                      c->nfields == 1 ? "" : "s", node_nargs(n));
        return NULL;
    }
    Scan s = {NULL, NULL, arena_new(), t, NULL, 0};
    Term **subst = arena_array(s.arena, (size_t)c->adt->nparams + 1, sizeof *subst);
    const graft_type *type = NULL;
    int i = 0;
    for (; i < c->nfields; i++) {
        Term *arg = operand_term(&s, node_arg(n, i));
        if (!arg)
            break; /* unknown, so is the call */
        if (!unify(c->fields[i], arg, subst)) {
            mismatch(why, c, i, arg, subst);
            break;
        }
    }
    if (i == c->nfields) {
        Term result = {TERM_ADT, c->adt->name, c->adt->len, 0, c->adt->nparams, subst};
        type = term_type(g, &result);
        for (i = 0; type && i < c->nfields; i++) /* Nil in Cons(%x, Nil) */
            if (node_kind(node_arg(n, i)) == NODE_CALL && untyped_nullary(t, node_arg(n, i))) {
                const graft_type *field = term_type(g, instantiate(s.arena, c->fields[i], subst));
                if (field)
                    graph_set_type(g, node_arg(n, i), field);
            }
    }
    arena_free(s.arena);
    return type;
}

/* ---- match ---- */

/* Walks one clause's pattern pieces (graph.h: "Cons(", ", ", ")", "_",
 * "(", variables) against the data's term. */
typedef struct Binder {
    graft_graph *g;
    const AdtTable *table;
    Arena *arena;
    const MatchClause *clause;
    int next;  /* the next piece */
    int typed; /* variables given a type */
    StrBuf *why;
} Binder;

static bool bind(Binder *b, Term *data);

static const char *next_text(Binder *b)
{
    if (b->next >= b->clause->npieces)
        return NULL;
    return b->clause->pieces[b->next++].text;
}

static bool bind_var(Binder *b, graft_node *var, const Term *data)
{
    const graft_type *want = term_type(b->g, data);
    if (!want)
        return true; /* a type graft does not spell: left unknown */
    const graft_type *have = node_type(var);
    if (!have) {
        graph_set_type(b->g, var, want);
        b->typed++;
    } else if (strcmp(have->text, want->text) != 0) {
        strbuf_printf(b->why, "pattern variable %%%s has type %s, but the data holds %s there",
                      node_name(var), have->text, want->text);
        return false;
    }
    return true;
}

static bool no_match(Binder *b, const char *pattern, const Term *data)
{
    StrBuf have = {0};
    put_term(&have, data, NULL);
    strbuf_printf(b->why, "pattern %s does not match the data's type %s", pattern, have.data);
    strbuf_free(&have);
    return false;
}

/* How many sub-patterns the pieces from b->next hold up to the ")"
 * that closes them. */
static int count_fields(const Binder *b)
{
    int count = 1, depth = 0;
    for (int k = b->next; k < b->clause->npieces; k++) {
        const char *text = b->clause->pieces[k].text;
        if (!text)
            continue;
        size_t len = strlen(text);
        if (text[len - 1] == '(')
            depth++;
        else if (strcmp(text, ")") == 0 && depth-- == 0)
            return count;
        else if (strcmp(text, ", ") == 0 && depth == 0)
            count++;
    }
    return -1;
}

/* Binds the sub-patterns of "(" or "Ctor(" up to its ")" to fields;
 * ctor is NULL for a tuple pattern. */
static bool bind_fields(Binder *b, const Ctor *ctor, Term **fields, int nfields)
{
    int count = count_fields(b);
    if (count < 0)
        return false;
    if (count != nfields) {
        if (ctor)
            strbuf_printf(b->why, "pattern %s has %d field%s, but constructor %s has %d",
                          ctor->name, count, count == 1 ? "" : "s", ctor->name, nfields);
        else
            strbuf_printf(b->why, "tuple pattern has %d field%s, but the data's tuple has %d",
                          count, count == 1 ? "" : "s", nfields);
        return false;
    }
    for (int i = 0; i < nfields; i++)
        if (!bind(b, fields[i]) || !next_text(b)) /* then ", " or ")" */
            return false;
    return true;
}

static bool bind_ctor(Binder *b, const char *text, Term *data)
{
    size_t len = strlen(text);
    bool has_fields = text[len - 1] == '(';
    size_t name = has_fields ? len - 1 : len;
    const Ctor *c = find_ctor(b->table, text, name);
    if (!c)
        return false; /* the loader reported it (check_constructor) */
    if (data->kind != TERM_ADT || data->len != c->adt->len ||
        memcmp(data->text, c->adt->name, data->len) != 0 || data->nargs != c->adt->nparams)
        return no_match(b, c->name, data);
    if (!has_fields) {
        if (c->nfields)
            strbuf_printf(b->why, "pattern %s has 0 fields, but constructor %s has %d",
                          c->name, c->name, c->nfields);
        return !c->nfields;
    }
    Term **fields = arena_array(b->arena, (size_t)c->nfields + 1, sizeof *fields);
    for (int i = 0; i < c->nfields; i++)
        fields[i] = instantiate(b->arena, c->fields[i], data->args);
    return bind_fields(b, c, fields, c->nfields);
}

static bool bind(Binder *b, Term *data)
{
    if (b->next >= b->clause->npieces)
        return false;
    const ClausePiece *p = &b->clause->pieces[b->next++];
    if (!p->text)
        return bind_var(b, p->var, data);
    if (strcmp(p->text, "_") == 0)
        return true;
    if (strcmp(p->text, "(") != 0)
        return bind_ctor(b, p->text, data);
    if (data->kind != TERM_TUPLE)
        return no_match(b, "(...)", data);
    return bind_fields(b, NULL, data->args, data->nargs);
}

int adt_bind_patterns(graft_graph *g, const AdtTable *t, graft_node *m, StrBuf *why)
{
    const graft_type *type = node_type(node_arg(m, 0));
    if (!type)
        return 0;
    Scan s = {NULL, NULL, arena_new(), t, NULL, 0};
    Term *data = parse_type_text(&s, type->text);
    Binder b = {g, t, s.arena, NULL, 0, 0, why};
    for (int i = 0; data && i < node_nclauses(m) && !why->len; i++) {
        b.clause = node_clause(m, i);
        b.next = 0;
        bind(&b, data);
    }
    arena_free(s.arena);
    return why->len ? -1 : b.typed;
}

/* Whether type is an application of c's ADT ("List[...]" for Nil). */
static bool of_adt(const graft_type *type, const Ctor *c)
{
    return type->kind == TYPE_OTHER && strncmp(type->text, c->adt->name, c->adt->len) == 0 &&
           type->text[c->adt->len] == '[';
}

const graft_type *adt_match_type(graft_graph *g, const AdtTable *t, const graft_node *m,
                                 StrBuf *why)
{
    const graft_type *first = NULL;
    int first_at = 0, unknown = 0;
    for (int i = 1; i < node_nargs(m); i++) {
        const graft_type *type = node_type(node_arg(m, i));
        if (!type)
            unknown++;
        else if (!first) {
            first = type;
            first_at = i;
        } else if (strcmp(first->text, type->text) != 0) {
            strbuf_printf(why, "match clauses have different types: %s (clause %d) and %s "
                               "(clause %d)", first->text, first_at, type->text, i);
            return NULL;
        }
    }
    for (int i = 1; first && unknown && i < node_nargs(m); i++) { /* None => { None } */
        graft_node *result = node_arg(m, i);
        const Ctor *c = node_kind(result) == NODE_CALL ? untyped_nullary(t, result) : NULL;
        if (c && of_adt(first, c)) {
            graph_set_type(g, result, first);
            unknown--;
        }
    }
    return unknown ? NULL : first;
}
