/* lsp_ops.c - hover and completion from the op registry: the builtin ops
 * of stdpatterns/ops.graft, as every load starts from them. */
#include <string.h>

#include "lsp_impl.h"

/* LSP's CompletionItemKind and MarkupKind. */
enum { KIND_FIELD = 5, KIND_FUNCTION = 3, KIND_CLASS = 7 };

static bool is_name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
}

void lsp_name_at(const LspDoc *doc, size_t offset, size_t *begin, size_t *end)
{
    size_t b = offset, e = offset;
    while (b > 0 && is_name_byte(doc->text[b - 1]))
        b--;
    while (e < doc->len && is_name_byte(doc->text[e]))
        e++;
    *begin = b;
    *end = e;
}

static const OpInfo *op_named(LspServer *s, const char *text, size_t len)
{
    char name[128];
    if (len == 0 || len >= sizeof name)
        return NULL;
    memcpy(name, text, len);
    name[len] = '\0';
    return registry_find(frontend_builtin_registry(s->builtin), name);
}

/* The first line of the comment that documents the declaration at line:
 * the comment lines just above it, after the last line of a section
 * banner ("# ---- neural network ----", which may span lines). */
static int doc_comment_start(const Source *src, int line)
{
    int first = line;
    size_t len;
    const char *text;
    while (first > 1 && (text = source_line(src, first - 1, &len), len > 0 && text[0] == '#'))
        first--;
    for (int l = line - 1; l >= first; l--) {
        text = source_line(src, l, &len);
        if (len >= 4 && memcmp(text + len - 4, "----", 4) == 0)
            return l + 1;
    }
    return first;
}

/* The declaration's line as written in ops.graft, after the comment lines
 * just above it (its documentation), as Markdown. */
static char *op_markdown(const OpInfo *op)
{
    const AstOpDecl *decl = op->decl;
    int line = decl->name_range.first_line;
    int first = doc_comment_start(decl->src, line);
    size_t len;
    StrBuf sb = {0};
    strbuf_puts(&sb, "```graft\n");
    const char *text = source_line(decl->src, line, &len);
    strbuf_append(&sb, text, len);
    strbuf_puts(&sb, "\n```\n");
    for (int l = first; l < line; l++) {
        text = source_line(decl->src, l, &len);
        size_t skip = len > 1 && text[1] == ' ' ? 2 : 1;
        strbuf_append(&sb, text + skip, len - skip);
        strbuf_putc(&sb, '\n');
    }
    return sb.data;
}

json_t *lsp_hover(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    size_t offset, begin, end;
    if (!doc || !lsp_position_of_params(doc, params, &offset, err))
        return NULL;
    lsp_name_at(doc, offset, &begin, &end);
    if (end == begin)
        return json_null();
    json_t *variable = lsp_hover_variable(s, doc, offset);
    if (variable)
        return variable;
    char *name = xstrndup(doc->text + begin, end - begin);
    json_t *declared = lsp_hover_declared(s, doc, name);
    free(name);
    if (declared)
        return declared;
    const OpInfo *op = op_named(s, doc->text + begin, end - begin);
    if (!op)
        return json_null();
    char *md = op_markdown(op);
    json_t *hover = json_pack("{s:{s:s, s:s}}", "contents", "kind", "markdown", "value", md);
    free(md);
    return hover;
}

const OpInfo *lsp_enclosing_op(LspServer *s, const LspDoc *doc, size_t offset, size_t *open)
{
    int depth = 0;
    for (size_t i = offset; i > 0; i--) {
        char c = doc->text[i - 1];
        if (c == ')')
            depth++;
        else if (c == '(' && depth-- == 0) {
            size_t name_end = i - 1, begin, end;
            if (name_end > 0 && (doc->text[name_end - 1] == '?' || doc->text[name_end - 1] == '*'))
                name_end--; /* nn.relu?(p), broadcast_to*(p) */
            lsp_name_at(doc, name_end, &begin, &end);
            *open = i - 1;
            return end == name_end ? op_named(s, doc->text + begin, end - begin) : NULL;
        } else if (c == '\n' && i < doc->len && doc->text[i] != ' ' && doc->text[i] != '\t' &&
                   i != offset)
            return NULL;
    }
    return NULL;
}

/* The attributes of op: "name" inserting "name=", the detail its kind and
 * default ("ints = [1, 1]"). */
static json_t *attr_items(const OpInfo *op)
{
    json_t *items = json_array();
    for (int i = 0; i < op->nattrs; i++) {
        const OpAttrInfo *a = &op->attrs[i];
        StrBuf detail = {0};
        strbuf_puts(&detail, registry_attr_type_name(a->type));
        if (a->dflt_text)
            strbuf_printf(&detail, " = %s", a->dflt_text);
        json_array_append_new(items, json_pack("{s:s, s:i, s:s+, s:s}", "label", a->name,
                                               "kind", KIND_FIELD, "insertText", a->name, "=",
                                               "detail", detail.data));
        strbuf_free(&detail);
    }
    return items;
}

/* Every op, in declaration order, the detail its declaration line. */
static json_t *op_items(LspServer *s)
{
    const Registry *reg = frontend_builtin_registry(s->builtin);
    json_t *items = json_array();
    for (int i = 0; i < registry_count(reg); i++) {
        const OpInfo *op = registry_op(reg, i);
        size_t len;
        const char *line = source_line(op->decl->src, op->decl->name_range.first_line, &len);
        json_array_append_new(items, json_pack("{s:s, s:i, s:s%}", "label", op->name, "kind",
                                               KIND_FUNCTION, "detail", line, len));
    }
    return items;
}

/* The op classes, "<elementwise>" and the other traits (OP_TRAIT_LIST). */
static void add_class_items(json_t *items)
{
    static const char *const traits[] = {
#define OP_TRAIT_WORD(trait, word, bit) word,
        OP_TRAIT_LIST(OP_TRAIT_WORD)
#undef OP_TRAIT_WORD
    };
    for (size_t i = 0; i < ARRAY_LEN(traits); i++)
        json_array_append_new(items, json_pack("{s:s++, s:i, s:s}", "label", "<", traits[i], ">",
                                               "kind", KIND_CLASS, "detail", "op class"));
}

/* Inside an op's parentheses its attributes come first, then the macros
 * and named patterns of the document, then the ops (an
 * operand may be a call), and the op classes. */
json_t *lsp_completion(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    size_t offset;
    if (!doc || !lsp_position_of_params(doc, params, &offset, err))
        return NULL;
    size_t open;
    const OpInfo *op = lsp_enclosing_op(s, doc, offset, &open);
    json_t *items = op ? attr_items(op) : json_array();
    lsp_add_declared_items(s, doc, items);
    if (!s->builtin_items) { /* note [completion items] */
        s->builtin_items = op_items(s);
        add_class_items(s->builtin_items);
    }
    json_array_extend(items, s->builtin_items);
    return json_pack("{s:b, s:o}", "isIncomplete", 0, "items", items);
}
