/* relay_load_module.c - the loader's actions for whole modules: several
 * global functions, let, if, match, free_var, op values, and the checks
 * made once the whole module is read.
 *
 * note [modules]: every "def" is built as a function (its parameters made
 * by graph_add_fn_param) and listed as a global; at the end the one named
 * main (or the only one) becomes the graph's @main (graph_make_main), so
 * a one-function model loads as it always did.  "@f" may name a function
 * defined further down, so references to globals, like meta[KIND][i]
 * references to the metadata section at the very end, are checked when
 * the module is complete.
 */
#include "relay_load.h"

#include <stdlib.h>
#include <string.h>

#include "type_adt.h"

static Item *push_item(RelayParser *ps, ItemKind kind)
{
    vec_reserve(&ps->items, ps->items.len + 1);
    Item *it = &ps->items.items[ps->items.len++];
    it->kind = kind;
    return it;
}

static void push_late(RelayParser *ps, const char *name, int64_t index, RelayText where)
{
    vec_push(&ps->late, ((LateRef){name, index, where}));
}

/* ---- definitions ---- */

/* A def's parameters and attributes, listed from mark (malloc'd: attrs
 * NULL when it has none).  Made when the body is whole, at the loader's
 * peak: a model's parameters (tens of thousands) are PARAMS's array when
 * it read them (the whole list, to its ')'), its attrs few or none. */
static graft_node **def_items(RelayParser *ps, size_t mark, int *nparams, graft_attr **attrs,
                              int *nattrs)
{
    graft_node **params = ps->def_params;
    *nparams = (int)ps->ndef_params;
    *attrs = NULL;
    *nattrs = 0;
    ps->def_params = NULL;
    ps->ndef_params = 0;
    if (params)
        return params;
    params = xmalloc((ps->items.len - mark + 1) * sizeof *params);
    for (size_t i = mark; i < ps->items.len; i++) {
        if (ps->items.items[i].kind == ITEM_NODE) {
            params[(*nparams)++] = ps->items.items[i].u.node;
            continue;
        }
        if (!*attrs) /* for the items left */
            *attrs = xmalloc((ps->items.len - i) * sizeof **attrs);
        (*attrs)[(*nattrs)++] = ps->items.items[i].u.attr;
    }
    return params;
}

/* def -> "def" GLOBAL ['[' type-params ']'] '(' params-and-attrs ')'
 *        [-> type] '{' body '}' */
bool load_def(RelayParser *ps, RelayText name, const char *type_params, size_t mark,
              const graft_type *ret, graft_node *body)
{
    int nparams, nattrs;
    graft_attr *attrs;
    graft_node **params = def_items(ps, mark, &nparams, &attrs, &nattrs);
    ps->items.len = mark;
    if (!mark) /* the parameters' items are out: the stack may be freed */
        vec_free(&ps->items);
    load_scope_reset(ps); /* before the function is made: not both at once */
    const char *s = graph_intern_n(ps->g, load_text(ps, name) + 1, name.len - 1);
    graft_node *fn = strcmp(s, "main") == 0 /* note [main unscoped] in graph_module.c */
                         ? graph_add_main(ps->g, params, nparams, body, attrs, nattrs)
                         : graph_add_func(ps->g, params, nparams, body, attrs, nattrs);
    graph_set_ret_type(ps->g, fn, ret);
    graph_set_type_params(ps->g, fn, type_params);
    free(params);
    free(attrs);
    if (!ps->have_def)
        ps->first_def = name;
    ps->have_def = true;
    if (!graph_add_global(ps->g, s, fn)) {
        diag_error(ps->diag, ps->src, load_range(ps, name), "duplicate definition of '@%s'",
                   s);
        return false;
    }
    return true;
}

/* A module that is one bare expression: @main without parameters (note
 * [bare module] in graph_module.c). */
void load_bare(RelayParser *ps, graft_node *body)
{
    graft_node *fn = graph_add_main(ps->g, NULL, 0, body, NULL, 0);
    graph_add_global(ps->g, graph_intern(ps->g, "main"), fn);
    graph_set_bare(ps->g);
}

/* How many entries of kind the metadata section holds: TVM writes each
 * as a node "type_key": "KIND" in its JSON (SaveJSON). */
static int64_t meta_count(const char *metadata, const char *kind)
{
    static const char key[] = "\"type_key\"";
    size_t len = strlen(kind);
    int64_t n = 0;
    for (const char *p = metadata; (p = strstr(p, key)); ) {
        p += sizeof key - 1;
        p += strspn(p, " \t\r\n");
        if (*p != ':')
            continue;
        p++;
        p += strspn(p, " \t\r\n");
        if (*p == '"' && strncmp(p + 1, kind, len) == 0 && p[len + 1] == '"')
            n++;
    }
    return n;
}

static bool check_late(RelayParser *ps)
{
    bool ok = true;
    const char *meta = graph_metadata(ps->g);
    for (size_t i = 0; i < ps->late.len; i++) {
        const LateRef *r = &ps->late.items[i];
        SrcRange where = load_range(ps, r->where);
        if (r->index < 0) {
            int k = graph_find_global(ps->g, r->name);
            if (k < 0 || !graph_global_defined(ps->g, k)) {
                diag_error(ps->diag, ps->src, where, "unknown global '@%s'", r->name);
                ok = false;
            }
        } else if (!meta) {
            diag_error(ps->diag, ps->src, where,
                       "meta[%s][%lld] refers to a metadata section, but the module "
                       "has none ('#[metadata]' at its end)",
                       r->name, (long long)r->index);
            ok = false;
        } else if (r->index >= meta_count(meta, r->name)) {
            int64_t n = meta_count(meta, r->name);
            diag_error(ps->diag, ps->src, where,
                       "meta index %lld out of range: the metadata section holds %lld "
                       "%s entr%s",
                       (long long)r->index, (long long)n, r->name, n == 1 ? "y" : "ies");
            ok = false;
        }
    }
    return ok;
}

bool load_module_end(RelayParser *ps)
{
    if (!check_late(ps))
        return false;
    graft_graph *g = ps->g;
    int main_at = graph_find_global(g, "main");
    if (main_at < 0 && graph_nglobals(g) == 1)
        main_at = 0;
    if (main_at < 0) {
        diag_error(ps->diag, ps->src, load_range(ps, ps->first_def),
                   "a module of several functions needs a '@main'");
        return false;
    }
    graph_make_main(g, graph_global_fn(g, main_at));
    return true;
}

/* ---- bodies: let, free_var ---- */

void load_push_let(RelayParser *ps, graft_node *var, graft_node *value)
{
    Item *it = push_item(ps, ITEM_LET);
    it->u.let.var = var;
    it->u.let.value = value;
}

/* The lets of a body, from mark, each around the rest of the body. */
graft_node *load_body(RelayParser *ps, size_t mark, graft_node *result)
{
    for (size_t i = ps->items.len; i-- > mark;)
        if (ps->items.items[i].kind == ITEM_LET)
            result = graph_add_let(ps->g, ps->items.items[i].u.let.var,
                                   ps->items.items[i].u.let.value, result);
    ps->items.len = mark;
    return result;
}

void load_free_var(RelayParser *ps, graft_node *var)
{
    graph_set_free(ps->g, var);
}

/* ---- expressions ---- */

/* A name used as a value: an operator, or a constructor.  A constructor
 * of no fields is its call, as TVM's parser makes it (ParseCallExpr: "a
 * zero-arity case for constructors"), so Nil is a value of type List[A]
 * that prints with a temp and a type as TVM prints it. */
graft_node *load_opref(RelayParser *ps, RelayText name)
{
    const char *s = load_intern(ps, name);
    if (!ps->adts)
        ps->adts = adt_table_new(ps->g); /* the declarations come first */
    if (adt_constructor_fields(ps->adts, s) == 0)
        return load_at(ps, load_call(ps, name, load_mark(ps)), name);
    return graph_add_opref(ps->g, s);
}

graft_node *load_global(RelayParser *ps, RelayText name)
{
    const char *s = graph_intern_n(ps->g, load_text(ps, name) + 1, name.len - 1);
    push_late(ps, s, -1, name);
    return graph_global_ref(ps->g, s);
}

/* @f as an attribute value (callee=@f), which TVM's parser reads as the
 * global itself: it must name a def of the module, as a call's @f must.
 * It prints as written (TVM's printer writes meta[GlobalVar][i], or 'f'
 * without metadata, which its parser cannot read back). */
graft_attr_value *load_global_value(RelayParser *ps, RelayText name)
{
    push_late(ps, graph_intern_n(ps->g, load_text(ps, name) + 1, name.len - 1), -1, name);
    return load_value(ps, GRAFT_ATTR_OPAQUE, name);
}

void load_meta_ref(RelayParser *ps, RelayText t)
{
    const char *s = load_text(ps, t) + 5; /* after "meta[" */
    const char *close = memchr(s, ']', t.len - 5);
    const char *kind = graph_intern_n(ps->g, s, (size_t)(close - s));
    push_late(ps, kind, strtoll(close + 2, NULL, 10), t);
}

graft_node *load_if(RelayParser *ps, graft_node *cond, graft_node *then_branch,
                    graft_node *else_branch)
{
    return graph_add_if(ps->g, cond, then_branch, else_branch);
}

/* ---- match ---- */

/* A pattern's name is "_" or a constructor of the module's (or the
 * Prelude's) types; TVM's parser rejects any other ("undefined
 * constructor name"). */
static void check_constructor(RelayParser *ps, RelayText ident)
{
    const char *name = load_intern(ps, ident);
    if (strcmp(name, "_") == 0)
        return;
    if (!ps->adts)
        ps->adts = adt_table_new(ps->g);
    if (adt_constructor_fields(ps->adts, name) < 0) {
        diag_error(ps->diag, ps->src, load_range(ps, ident),
                   "'%s' is not a constructor of a declared type (a pattern variable is "
                   "written '%%%s')", name, name);
        ps->failed = true;
    }
}

void load_push_piece(RelayParser *ps, RelayText ident, const char *suffix)
{
    check_constructor(ps, ident);
    StrBuf sb = {0};
    strbuf_append(&sb, load_text(ps, ident), ident.len);
    if (suffix)
        strbuf_puts(&sb, suffix);
    Item *it = push_item(ps, ITEM_PIECE);
    it->u.piece.text = graph_intern_n(ps->g, sb.data, sb.len);
    it->u.piece.var = NULL;
    strbuf_free(&sb);
}

void load_push_piece_text(RelayParser *ps, const char *text)
{
    Item *it = push_item(ps, ITEM_PIECE);
    it->u.piece.text = graph_intern(ps->g, text);
    it->u.piece.var = NULL;
}

void load_push_piece_var(RelayParser *ps, graft_node *var)
{
    Item *it = push_item(ps, ITEM_PIECE);
    it->u.piece.text = NULL;
    it->u.piece.var = var;
}

/* clause -> pattern "=>" '{' body '}' ','; closes the clause's scope. */
void load_clause(RelayParser *ps, size_t mark, graft_node *result)
{
    size_t n = ps->items.len - mark;
    ClausePiece *pieces = arena_array(graph_arena(ps->g), n + 1, sizeof *pieces);
    for (size_t i = 0; i < n; i++)
        pieces[i] = ps->items.items[mark + i].u.piece;
    ps->items.len = mark;
    Item *it = push_item(ps, ITEM_CLAUSE);
    it->u.clause.clause.pieces = pieces;
    it->u.clause.clause.npieces = (int)n;
    it->u.clause.result = result;
    load_scope_close(ps);
}

graft_node *load_match(RelayParser *ps, RelayText keyword, graft_node *data, size_t mark)
{
    size_t n = ps->items.len - mark;
    MatchClause *clauses = xmalloc((n + 1) * sizeof *clauses);
    graft_node **results = xmalloc((n + 1) * sizeof *results);
    for (size_t i = 0; i < n; i++) {
        clauses[i] = ps->items.items[mark + i].u.clause.clause;
        results[i] = ps->items.items[mark + i].u.clause.result;
    }
    ps->items.len = mark;
    bool complete = keyword.len == 5; /* "match", not "match?" */
    graft_node *m = graph_add_match(ps->g, data, clauses, results, (int)n, complete);
    free(clauses);
    free(results);
    return load_at(ps, m, keyword);
}
