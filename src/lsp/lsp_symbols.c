/* lsp_symbols.c - what a document declares: its outline (document
 * symbols) and go to definition.  The document is parsed on its own for
 * each request (rules_parse_source: every item that parses, broken ones
 * skipped), so both work while the file has errors. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "lsp_impl.h"
#include "rules_lex.h"

/* LSP's SymbolKind. */
enum { SYMBOL_FILE = 1, SYMBOL_FUNCTION = 12, SYMBOL_CONSTANT = 14, SYMBOL_OPERATOR = 25 };

void lsp_outline_parse(LspOutline *o, LspServer *s, const LspDoc *doc)
{
    o->arena = arena_new();
    o->names = interner_new(o->arena);
    o->src = source_from_string(doc->path, doc->text, doc->len);
    graft_diag *d = diag_new(NULL);
    AstBuilder b = {o->arena, o->names, o->src, false};
    o->file = rules_parse_source(o->src, &b, (int)s->opts.limits.rule_depth, d);
    diag_free(d);
}

void lsp_outline_free(LspOutline *o)
{
    source_free(o->src);
    interner_free(o->names);
    arena_free(o->arena);
}

json_t *lsp_range_of(const Source *src, SrcRange where)
{
    size_t first_len, last_len;
    const char *first = source_line(src, where.first_line, &first_len);
    const char *last = source_line(src, where.last_line, &last_len);
    return json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "start", "line", where.first_line - 1,
                     "character", lsp_utf16_units(first, first_len,
                                                  (size_t)(where.first_column - 1)),
                     "end", "line", where.last_line - 1, "character",
                     lsp_utf16_units(last, last_len, (size_t)where.last_column));
}

/* An item's name, its range, the range of the whole item and its kind. */
static bool item_symbol(const AstItem *item, const char **name, SrcRange *at, SrcRange *whole,
                        int *kind)
{
    switch (item->kind) {
    case ITEM_RULE:
        *name = item->u.rule->name;
        *at = item->u.rule->name_range;
        *whole = item->u.rule->range;
        *kind = SYMBOL_FUNCTION;
        return true;
    case ITEM_LET:
        *name = item->u.let->name;
        *at = *whole = item->u.let->name_range;
        *kind = SYMBOL_CONSTANT;
        return true;
    case ITEM_OP:
        *name = item->u.op->name;
        *at = *whole = item->u.op->name_range;
        *kind = SYMBOL_OPERATOR;
        return true;
    case ITEM_INCLUDE:
        *name = item->u.include->path;
        *at = *whole = item->u.include->range;
        *kind = SYMBOL_FILE;
        return true;
    case ITEM_OPSET: /* a directive, no symbol */
        return false;
    }
    return false;
}

json_t *lsp_document_symbols(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    if (!doc)
        return NULL;
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    json_t *symbols = json_array();
    for (int i = 0; o.file && i < o.file->nitems; i++) {
        const char *name;
        SrcRange at, whole;
        int kind;
        if (!item_symbol(&o.file->items[i], &name, &at, &whole, &kind))
            continue;
        char *valid = lsp_valid_utf8(name);
        json_array_append_new(symbols, json_pack("{s:s, s:i, s:o, s:o}", "name", valid, "kind",
                                                 kind, "range", lsp_range_of(o.src, whole),
                                                 "selectionRange", lsp_range_of(o.src, at)));
        free(valid);
    }
    lsp_outline_free(&o);
    return symbols;
}

/* A Location at where in the file of uri. */
static json_t *location(const char *uri, const Source *src, SrcRange where)
{
    return json_pack("{s:s, s:o}", "uri", uri, "range", lsp_range_of(src, where));
}

/* The file an include at offset names, as a Location at its start, or
 * NULL when offset is in no include's string or the file does not exist. */
static json_t *include_at(LspServer *s, const LspOutline *o, size_t offset)
{
    SrcRange pos = source_range(o->src, offset, offset + 1);
    for (int i = 0; o->file && i < o->file->nitems; i++) {
        const AstItem *item = &o->file->items[i];
        if (item->kind != ITEM_INCLUDE)
            continue;
        SrcRange r = item->u.include->range;
        if (pos.first_line != r.first_line || pos.first_column < r.first_column ||
            pos.first_column > r.last_column)
            continue;
        FrontendOptions fo = {.limits = &s->opts.limits, .builtin = s->builtin};
        char *path = frontend_include_path(&fo, o->src, item->u.include->path);
        char *uri = lsp_uri_of_path(path);
        free(path);
        json_t *loc = uri ? json_pack("{s:s, s:{s:{s:i, s:i}, s:{s:i, s:i}}}", "uri", uri,
                                      "range", "start", "line", 0, "character", 0, "end",
                                      "line", 0, "character", 0)
                          : NULL;
        free(uri);
        return loc;
    }
    return NULL;
}

/* The declaration of name in the document: a macro, a rule or an op. */
static json_t *declared_here(const LspDoc *doc, const LspOutline *o, const char *name)
{
    for (int i = 0; o->file && i < o->file->nitems; i++) {
        const char *item_name;
        SrcRange at, whole;
        int kind;
        if (item_symbol(&o->file->items[i], &item_name, &at, &whole, &kind) &&
            kind != SYMBOL_FILE && strcmp(item_name, name) == 0)
            return location(doc->uri, o->src, at);
    }
    return NULL;
}

/* A builtin op's declaration in stdpatterns/ops.graft, installed or in
 * the source tree (the text graft embeds, so its lines are the same). */
static json_t *builtin_op(LspServer *s, const char *name)
{
    const OpInfo *op = registry_find(frontend_builtin_registry(s->builtin), name);
    if (!op)
        return NULL;
    const char *files[] = {GRAFT_DATADIR "/ops.graft", GRAFT_SRCDIR "/stdpatterns/ops.graft"};
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        char *uri = access(files[i], R_OK) == 0 ? lsp_uri_of_path(files[i]) : NULL;
        if (uri) {
            json_t *loc = location(uri, op->decl->src, op->decl->name_range);
            free(uri);
            return loc;
        }
    }
    return NULL;
}

json_t *lsp_definition(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    size_t offset, begin, end;
    if (!doc || !lsp_position_of_params(doc, params, &offset, err))
        return NULL;
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    json_t *loc = include_at(s, &o, offset);
    lsp_name_at(doc, offset, &begin, &end);
    if (!loc && end > begin) {
        char *name = xstrndup(doc->text + begin, end - begin);
        loc = declared_here(doc, &o, name);
        if (!loc)
            loc = builtin_op(s, name);
        free(name);
    }
    lsp_outline_free(&o);
    return loc ? loc : json_null();
}

json_t *lsp_hover_declared(LspServer *s, const LspDoc *doc, const char *name)
{
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    json_t *hover = NULL;
    for (int i = 0; o.file && i < o.file->nitems && !hover; i++) {
        const char *item_name;
        SrcRange at, whole;
        int kind;
        const AstItem *item = &o.file->items[i];
        if (!item_symbol(item, &item_name, &at, &whole, &kind) || kind == SYMBOL_FILE ||
            strcmp(item_name, name) != 0)
            continue;
        StrBuf text = {0};
        strbuf_puts(&text, "```graft\n");
        ast_print_item(&text, item);
        strbuf_puts(&text, "```\n");
        char *valid = lsp_valid_utf8(text.data);
        hover = json_pack("{s:{s:s, s:s}}", "contents", "kind", "markdown", "value", valid);
        free(valid);
        strbuf_free(&text);
    }
    lsp_outline_free(&o);
    return hover;
}

/* LSP's CompletionItemKind of a named pattern and of a macro. */
enum { COMPLETION_CONSTANT = 21, COMPLETION_FUNCTION = 3 };

/* The completion items of doc's macros and named patterns. */
static json_t *declared_items(LspServer *s, const LspDoc *doc)
{
    json_t *items = json_array();
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    for (int i = 0; o.file && i < o.file->nitems; i++) {
        const AstItem *item = &o.file->items[i];
        if (item->kind != ITEM_LET)
            continue;
        const AstLet *let = item->u.let;
        StrBuf text = {0};
        ast_print_item(&text, item);
        text.data[text.len - 1] = '\0'; /* its newline */
        char *name = lsp_valid_utf8(let->name), *detail = lsp_valid_utf8(text.data);
        json_array_append_new(items, json_pack("{s:s, s:i, s:s}", "label", name, "kind",
                                               let->nparams || let->has_parens
                                                   ? COMPLETION_FUNCTION
                                                   : COMPLETION_CONSTANT,
                                               "detail", detail));
        free(name);
        free(detail);
        strbuf_free(&text);
    }
    lsp_outline_free(&o);
    return items;
}

/* note [completion items]: a completion lists the same items until the
 * document changes (its macros: parsing a 20 KB file was 45% of a
 * completion's instructions) or forever (the builtin ops: 17%, their
 * json_pack and json_delete); each is made once and the reply shares it
 * (json_array_extend takes references), so a completion costs its
 * attributes and the reply's text. */
void lsp_add_declared_items(LspServer *s, LspDoc *doc, json_t *items)
{
    if (!doc->declared)
        doc->declared = declared_items(s, doc);
    json_array_extend(items, doc->declared);
}
