/* lsp_binding.c - hover on a variable of a rule or macro: where it is
 * bound (its first occurrence in the pattern, or the macro's parameter)
 * and, with a model in the settings (note [workspace model] in
 * lsp_model.c), the node or value each match of the rule bound to it, as
 * graft match lists them (graft_rules_match, the API's match listing). */
#include <string.h>

#include "graft_api.h"
#include "lsp_impl.h"

/* Matches listed in full; the rest are counted. */
enum { MATCHES_SHOWN = 5 };

/* The search for a variable's binding site: its first occurrence in text
 * order, and the construct around it (a binding c@... is its own). */
typedef struct Site {
    const char *name;
    const AstNode *parent; /* the node whose children are being visited */
    const AstNode *around; /* the construct of the first occurrence, or NULL */
    SrcRange at;           /* the first occurrence */
    bool found;
} Site;

static bool earlier(SrcRange a, SrcRange b)
{
    return a.first_line < b.first_line ||
           (a.first_line == b.first_line && a.first_column < b.first_column);
}

/* Whether n names the variable, and where its name is. */
static bool occurrence(const AstNode *n, const char *name, SrcRange *at)
{
    if (n->kind == AST_VAR && strcmp(n->u.var.name, name) == 0)
        *at = n->range;
    else if (n->kind == AST_BIND && strcmp(n->u.bind.name, name) == 0)
        *at = n->u.bind.name_range;
    else if (n->kind == AST_ANYCALL && strcmp(n->u.call.name, name) == 0)
        *at = n->u.call.name_range;
    else
        return false;
    return true;
}

static void find_site(AstNode *n, void *arg)
{
    Site *site = arg;
    SrcRange at;
    if (occurrence(n, site->name, &at) && (!site->found || earlier(at, site->at))) {
        site->found = true;
        site->at = at;
        site->around = n->kind == AST_VAR && site->parent ? site->parent : n;
    }
    const AstNode *saved = site->parent;
    site->parent = n;
    ast_visit_children(n, find_site, site);
    if ((n->kind == AST_GETITEM || n->kind == AST_INDEX) && n->u.item.var)
        find_site(n->u.item.var, site); /* p[i]: i is bound here, no child */
    site->parent = saved;
}

/* The construct as written when it is on one line, else as printed. */
static void put_construct(StrBuf *out, const Source *src, const AstNode *n)
{
    SrcRange r = n->range;
    size_t len;
    const char *line = source_line(src, r.first_line, &len);
    if (r.first_line == r.last_line && line && (size_t)r.last_column <= len)
        strbuf_append(out, line + r.first_column - 1,
                      (size_t)(r.last_column - r.first_column + 1));
    else
        ast_print_node(out, n);
}

/* "bound at line L, column C: 'x' in nn.conv2d(x, w)", or why it is not. */
static void put_site(StrBuf *out, const Source *src, const AstItem *item, const char *name)
{
    if (item->kind == ITEM_LET) {
        const AstLet *let = item->u.let;
        for (int i = 0; i < let->nparams; i++)
            if (strcmp(let->params[i], name) == 0) {
                strbuf_printf(out, "parameter %d, bound at line %d, column %d; it stands "
                              "for what each call passes\n", i + 1,
                              let->param_ranges[i].first_line,
                              let->param_ranges[i].first_column);
                return;
            }
    }
    Site site = {name, NULL, NULL, {0}, false};
    AstNode *pattern = item->kind == ITEM_RULE ? item->u.rule->pattern_src : item->u.let->body;
    if (pattern)
        find_site(pattern, &site);
    if (!site.found) {
        strbuf_puts(out, "not bound by the pattern\n");
        return;
    }
    strbuf_printf(out, "bound at line %d, column %d: `%s` in `", site.at.first_line,
                  site.at.first_column, name);
    put_construct(out, src, site.around);
    strbuf_puts(out, "`\n");
}

/* One match's value of the variable: "%5 (input.relay:6:8)", or "-". */
static void put_value(StrBuf *out, const LspServer *s, const graft_match *m, const char *name)
{
    for (size_t i = 0; i < m->nbindings; i++) {
        const graft_match_binding *b = &m->bindings[i];
        if (strcmp(b->var, name) != 0)
            continue;
        strbuf_printf(out, "- `%s`", b->value);
        if (b->is_node && b->line > 0)
            strbuf_printf(out, " (%s:%d:%d)", s->model_path, b->line, b->column);
        strbuf_putc(out, '\n');
        return;
    }
    strbuf_puts(out, "- nothing (the variable was not bound)\n");
}

/* What the rule's matches on the model bound to the variable. */
static void put_matches(StrBuf *out, LspServer *s, const LspDoc *doc, const char *rule,
                        const char *name)
{
    graft_matches *m = lsp_model_matches(s, doc);
    if (!m) {
        strbuf_printf(out, "\nno matches on `%s`: %s\n", s->model_path,
                      s->model ? "the document has errors" : "the model did not load");
        return;
    }
    size_t count = 0;
    for (size_t k = 0; k < graft_matches_count(m); k++)
        count += strcmp(graft_matches_get(m, k)->rule, rule) == 0;
    if (count == 0)
        strbuf_printf(out, "\nno match on `%s`\n", s->model_path);
    else
        strbuf_printf(out, "\n%zu match%s on `%s`:\n", count, count == 1 ? "" : "es",
                      s->model_path);
    size_t shown = 0;
    for (size_t k = 0; k < graft_matches_count(m) && shown < MATCHES_SHOWN; k++) {
        const graft_match *match = graft_matches_get(m, k);
        if (strcmp(match->rule, rule) == 0) {
            put_value(out, s, match, name);
            shown++;
        }
    }
    if (count > shown)
        strbuf_printf(out, "- and %zu more\n", count - shown);
    graft_matches_free(m);
}

json_t *lsp_hover_variable(LspServer *s, const LspDoc *doc, size_t offset)
{
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    char *name = NULL;
    const AstItem *item = lsp_variable_at(&o, doc, offset, &name);
    json_t *hover = NULL;
    if (item) {
        StrBuf text = {0};
        bool rule = item->kind == ITEM_RULE;
        const AstLet *let = rule ? NULL : item->u.let;
        strbuf_printf(&text, "variable `%s` of %s `%s`: ", name,
                      rule ? "rule" : let->nparams || let->has_parens ? "macro" : "named pattern",
                      rule ? item->u.rule->name : let->name);
        put_site(&text, o.src, item, name);
        if (rule && s->model_path)
            put_matches(&text, s, doc, item->u.rule->name, name);
        char *valid = lsp_valid_utf8(text.data);
        hover = json_pack("{s:{s:s, s:s}}", "contents", "kind", "markdown", "value", valid);
        free(valid);
        strbuf_free(&text);
    }
    free(name);
    lsp_outline_free(&o);
    return hover;
}
