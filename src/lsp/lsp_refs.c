/* lsp_refs.c - find references and rename, in the document parsed on its
 * own (LspOutline), of
 *   - a binding: a variable of a rule, or a parameter or variable of a
 *     macro; its occurrences in that item only (the scope of a variable);
 *   - a macro or named pattern: its let and its uses in every pattern and
 *     macro body of the file (a parameter of the same name shadows it);
 *   - a rule name: the rule alone, as nothing refers to a rule.
 * Files that include this one, or that it includes, are not searched.
 * Rename refuses (RequestFailed) a new name that is no identifier, or that
 * would change what a name means: a variable the item has already, a
 * macro, rule or op of that name. */
#include "config.h"

#include <string.h>

#include "lsp_impl.h"
#include "registry.h"
#include "rules_lex.h"

typedef enum TargetKind { TARGET_NONE, TARGET_BINDING, TARGET_LET, TARGET_RULE } TargetKind;

/* What the name at the cursor stands for. */
typedef struct Target {
    TargetKind kind;
    char *name;          /* the name (heap), NULL when there is none */
    const AstItem *item; /* TARGET_BINDING: the rule or let it belongs to */
} Target;

typedef VEC(SrcRange) Ranges;

/* A search for the occurrences of one name in trees. */
typedef struct Search {
    const char *name;
    bool as_let; /* a let's name: macro calls and named patterns; else a variable */
    Ranges *found;
} Search;

static bool same(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

static void search_node(AstNode *n, void *arg)
{
    Search *q = arg;
    if (n->kind == AST_VAR && same(n->u.var.name, q->name))
        vec_push(q->found, n->range);
    else if (n->kind == AST_BIND && !q->as_let && same(n->u.bind.name, q->name))
        vec_push(q->found, n->u.bind.name_range);
    else if (n->kind == AST_ANYCALL && !q->as_let && same(n->u.call.name, q->name))
        vec_push(q->found, n->u.call.name_range); /* the callee variable of f(x, ...) */
    else if (n->kind == AST_CALL && q->as_let && same(n->u.call.name, q->name))
        vec_push(q->found, n->u.call.name_range);
    if (n->kind == AST_QUERY && same(n->u.query.name, "attr") && n->u.query.args.count == 2) {
        search_node(n->u.query.args.items[0], q); /* attr(c, NAME): NAME is no variable */
        return;
    }
    ast_visit_children(n, search_node, q);
    if ((n->kind == AST_GETITEM || n->kind == AST_INDEX) && n->u.item.var)
        search_node(n->u.item.var, q); /* p[i]: the index variable, no child */
}

static void search(const AstNode *n, Search *q)
{
    if (n)
        search_node((AstNode *)n, q);
}

static bool has_param(const AstLet *let, const char *name)
{
    for (int i = 0; i < let->nparams; i++)
        if (same(let->params[i], name))
            return true;
    return false;
}

/* The occurrences of variable name in item, the binding site first. */
static void binding_ranges(const AstItem *item, const char *name, Ranges *found)
{
    Search q = {name, false, found};
    if (item->kind == ITEM_RULE) {
        search(item->u.rule->pattern_src, &q);
        search(item->u.rule->guard, &q);
        search(item->u.rule->action, &q);
    } else if (item->kind == ITEM_LET) {
        const AstLet *let = item->u.let;
        for (int i = 0; i < let->nparams; i++)
            if (same(let->params[i], name))
                vec_push(found, let->param_ranges[i]);
        search(let->body, &q);
    }
}

static const AstLet *find_let(const AstFile *file, const char *name)
{
    for (int i = 0; i < file->nitems; i++)
        if (file->items[i].kind == ITEM_LET && same(file->items[i].u.let->name, name))
            return file->items[i].u.let;
    return NULL;
}

/* The let of name, then its uses in the patterns and macro bodies. */
static void let_ranges(const AstFile *file, const char *name, Ranges *found)
{
    Search q = {name, true, found};
    vec_push(found, find_let(file, name)->name_range);
    for (int i = 0; i < file->nitems; i++) {
        const AstItem *item = &file->items[i];
        if (item->kind == ITEM_RULE)
            search(item->u.rule->pattern_src, &q);
        else if (item->kind == ITEM_LET && !has_param(item->u.let, name))
            search(item->u.let->body, &q);
    }
}

/* Every occurrence of t, its declaration first. */
static void target_ranges(const LspOutline *o, const Target *t, Ranges *found)
{
    if (t->kind == TARGET_BINDING)
        binding_ranges(t->item, t->name, found);
    else if (t->kind == TARGET_LET)
        let_ranges(o->file, t->name, found);
    else if (t->kind == TARGET_RULE)
        vec_push(found, t->item->u.rule->name_range);
}

static bool before(SrcRange a, SrcRange b)
{
    return a.first_line < b.first_line ||
           (a.first_line == b.first_line && a.first_column < b.first_column);
}

static bool contains(SrcRange outer, SrcRange inner)
{
    return !before(inner, outer) &&
           (inner.last_line < outer.last_line ||
            (inner.last_line == outer.last_line && inner.last_column <= outer.last_column));
}

static bool any_contains(const Ranges *r, SrcRange at)
{
    for (size_t i = 0; i < r->len; i++)
        if (contains(r->items[i], at))
            return true;
    return false;
}

/* The kind of the name at in item (which holds it): a rule's name, or a
 * variable of the item. */
static TargetKind kind_in_item(const AstItem *item, const char *name, SrcRange at)
{
    if (item->kind == ITEM_RULE && contains(item->u.rule->name_range, at))
        return TARGET_RULE;
    Ranges r = {0};
    binding_ranges(item, name, &r);
    bool found = any_contains(&r, at);
    vec_free(&r);
    return found ? TARGET_BINDING : TARGET_NONE;
}

static Target target_at(const LspOutline *o, const LspDoc *doc, size_t offset)
{
    Target t = {TARGET_NONE, NULL, NULL};
    size_t begin, end;
    lsp_name_at(doc, offset, &begin, &end);
    if (!o->file || end == begin)
        return t;
    t.name = xstrndup(doc->text + begin, end - begin);
    SrcRange at = source_range(o->src, begin, end);
    if (find_let(o->file, t.name)) {
        Ranges r = {0};
        let_ranges(o->file, t.name, &r);
        t.kind = any_contains(&r, at) ? TARGET_LET : TARGET_NONE;
        vec_free(&r);
        return t;
    }
    for (int i = 0; i < o->file->nitems && t.kind == TARGET_NONE; i++) {
        t.item = &o->file->items[i];
        if (contains(t.item->range, at))
            t.kind = kind_in_item(t.item, t.name, at);
    }
    return t;
}

const AstItem *lsp_variable_at(const LspOutline *o, const LspDoc *doc, size_t offset,
                               char **name)
{
    Target t = target_at(o, doc, offset);
    if (t.kind == TARGET_BINDING) {
        *name = t.name;
        return t.item;
    }
    free(t.name);
    return NULL;
}

static bool range_before(const void *ctx, uint32_t x, uint32_t y)
{
    const Ranges *r = ctx;
    return before(r->items[x], r->items[y]);
}

/* The occurrences as JSON, in text order: Locations for references
 * (without the declaration unless with_decl), or TextEdits to new_name. */
static json_t *occurrences_json(const LspOutline *o, const LspDoc *doc, const Ranges *r,
                                bool with_decl, const char *new_name)
{
    uint32_t *order = xmalloc((r->len + 1) * sizeof *order);
    for (size_t i = 0; i < r->len; i++)
        order[i] = (uint32_t)i;
    sort_u32(order, r->len, range_before, r);
    json_t *list = json_array();
    for (size_t i = 0; i < r->len; i++) {
        json_t *range = lsp_range_of(o->src, r->items[order[i]]);
        if (new_name)
            json_array_append_new(list, json_pack("{s:o, s:s}", "range", range, "newText",
                                                  new_name));
        else if (with_decl || order[i] != 0)
            json_array_append_new(list, json_pack("{s:s, s:o}", "uri", doc->uri, "range",
                                                  range));
        else
            json_decref(range);
    }
    free(order);
    return list;
}

json_t *lsp_references(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    size_t offset;
    if (!doc || !lsp_position_of_params(doc, params, &offset, err))
        return NULL;
    json_t *with_decl = json_object_get(json_object_get(params, "context"),
                                        "includeDeclaration");
    if (with_decl && !json_is_boolean(with_decl))
        return lsp_fail(err, LSP_INVALID_PARAMS, "context.includeDeclaration is no boolean");
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    Target t = target_at(&o, doc, offset);
    Ranges r = {0};
    target_ranges(&o, &t, &r);
    json_t *result = occurrences_json(&o, doc, &r, !with_decl || json_is_true(with_decl), NULL);
    vec_free(&r);
    free(t.name);
    lsp_outline_free(&o);
    return result;
}

static bool has_variable(const AstItem *item, const char *name)
{
    Ranges r = {0};
    binding_ranges(item, name, &r);
    bool found = r.len > 0;
    vec_free(&r);
    return found;
}

/* The first rule or macro of the file with a variable of that name. */
static const AstItem *item_with_variable(const AstFile *file, const char *name)
{
    for (int i = 0; i < file->nitems; i++)
        if (has_variable(&file->items[i], name))
            return &file->items[i];
    return NULL;
}

/* Whether the file declares a rule or op of that name. */
static bool declares(const AstFile *file, ItemKind kind, const char *name)
{
    for (int i = 0; i < file->nitems; i++) {
        const AstItem *item = &file->items[i];
        if (item->kind == kind &&
            same(kind == ITEM_RULE ? item->u.rule->name : item->u.op->name, name))
            return true;
    }
    return false;
}

/* Why new_name may not replace t's name (err set), or false when it may. */
static bool collides(LspServer *s, const LspOutline *o, const Target *t, const char *new_name,
                     LspError *err)
{
    const char *why = NULL;
    const AstItem *user;
    if (same(new_name, t->name))
        return false;
    if (find_let(o->file, new_name))
        why = "a macro or named pattern of that name exists";
    else if (t->kind == TARGET_BINDING && has_variable(t->item, new_name))
        why = "the item has a variable of that name already";
    else if (t->kind != TARGET_BINDING && declares(o->file, ITEM_RULE, new_name))
        why = "a rule of that name exists";
    else if (t->kind == TARGET_LET && (declares(o->file, ITEM_OP, new_name) ||
                                       registry_find(frontend_builtin_registry(s->builtin),
                                                     new_name)))
        why = "an op of that name exists";
    else if (t->kind == TARGET_LET && (user = item_with_variable(o->file, new_name)))
        why = user->kind == ITEM_RULE ? "a rule's variable has that name: it would name the "
                                        "macro there"
                                      : "a macro's variable has that name";
    if (why)
        lsp_fail(err, LSP_REQUEST_FAILED, "cannot rename '%.100s' to '%.100s': %s", t->name,
                 new_name, why);
    return why != NULL;
}

json_t *lsp_rename(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    size_t offset;
    if (!doc || !lsp_position_of_params(doc, params, &offset, err))
        return NULL;
    const char *new_name;
    if (json_unpack(params, "{s:s}", "newName", &new_name) != 0)
        return lsp_fail(err, LSP_INVALID_PARAMS, "rename needs newName");
    if (!rules_is_identifier(new_name))
        return lsp_fail(err, LSP_INVALID_PARAMS, "'%.100s' is no name a rule file can use "
                        "(letters, digits and _, not a reserved word)", new_name);
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    Target t = target_at(&o, doc, offset);
    json_t *result = NULL;
    if (t.kind == TARGET_NONE) {
        lsp_fail(err, LSP_REQUEST_FAILED, "no binding, macro or rule name here to rename");
    } else if (!collides(s, &o, &t, new_name, err)) {
        Ranges r = {0};
        target_ranges(&o, &t, &r);
        result = json_pack("{s:{s:o}}", "changes", doc->uri,
                           occurrences_json(&o, doc, &r, true, new_name));
        vec_free(&r);
    }
    free(t.name);
    lsp_outline_free(&o);
    return result;
}
