/* type_adt_typing.c - the types of constructor calls and of match, from
 * the module's ADTs (note [ADT types] in type_adt.h): terms printed,
 * unified and instantiated. */
#include "type_adt_impl.h"

#include <stdlib.h>
#include <string.h>

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
    const Ctor *c = adt_untyped_nullary(s->table, arg);
    if (c) {
        Term *t = adt_new_term(s, TERM_ADT, c->adt->name, c->adt->len);
        t->nargs = c->adt->nparams;
        t->args = arena_array(s->arena, (size_t)t->nargs, sizeof *t->args);
        for (int i = 0; i < t->nargs; i++)
            t->args[i] = adt_new_term(s, TERM_HOLE, NULL, 0);
        return t;
    }
    const graft_type *type = node_type(arg);
    return type ? adt_parse_type(s, type->text) : NULL;
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
    const Ctor *c = adt_find_ctor(t, node_op(n), strlen(node_op(n)));
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
            if (node_kind(node_arg(n, i)) == NODE_CALL && adt_untyped_nullary(t, node_arg(n, i))) {
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
    const Ctor *c = adt_find_ctor(b->table, text, name);
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
    Term *data = adt_parse_type(&s, type->text);
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
        const Ctor *c = node_kind(result) == NODE_CALL ? adt_untyped_nullary(t, result) : NULL;
        if (c && of_adt(first, c)) {
            graph_set_type(g, result, first);
            unknown--;
        }
    }
    return unknown ? NULL : first;
}
