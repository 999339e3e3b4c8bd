/* lsp_signature.c - textDocument/signatureHelp: inside an op's
 * parentheses, the op's declaration from the registry as one signature,
 * its operands and then its attributes (kind and default) as the
 * parameters, and the one the cursor is at: an attribute by the name
 * before its '=', else the operand by the commas before the cursor (the
 * last operand when it takes any number). */
#include <string.h>

#include "lsp_impl.h"
#include "registry.h"

/* Where the cursor is among a call's arguments. */
typedef struct ArgAt {
    int index;         /* arguments before it (commas at depth 0) */
    size_t begin;      /* offset where its argument starts */
} ArgAt;

/* The argument of the call whose '(' is at open that offset is in:
 * commas inside brackets and strings do not count. */
static ArgAt arg_at(const LspDoc *doc, size_t open, size_t offset)
{
    ArgAt at = {0, open + 1};
    int depth = 0;
    bool in_string = false;
    for (size_t i = open + 1; i < offset; i++) {
        char c = doc->text[i];
        if (in_string) {
            if (c == '\\' && i + 1 < offset)
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            depth--;
        } else if (c == ',' && depth == 0) {
            at.index++;
            at.begin = i + 1;
        }
    }
    return at;
}

static bool is_word_byte(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The attribute of op named before an '=' (not '==') at the start of the
 * argument that begins at begin, or -1.  The name may go on past the
 * cursor (at offset): one being typed or edited counts. */
static int attr_named(const OpInfo *op, const LspDoc *doc, size_t begin, size_t offset)
{
    const char *t = doc->text;
    while (begin < offset && (t[begin] == ' ' || t[begin] == '\t' || t[begin] == '\n'))
        begin++;
    size_t end = begin;
    while (end < doc->len && is_word_byte(t[end]))
        end++;
    size_t eq = end;
    while (eq < doc->len && (t[eq] == ' ' || t[eq] == '\t'))
        eq++;
    if (end == begin || eq >= doc->len || t[eq] != '=' || (eq + 1 < doc->len && t[eq + 1] == '='))
        return -1;
    for (int i = 0; i < op->nattrs; i++)
        if (strlen(op->attrs[i].name) == end - begin &&
            memcmp(op->attrs[i].name, t + begin, end - begin) == 0)
            return i;
    return -1;
}

/* Appends one parameter's text to label and its [start, end) to params. */
static void add_param(StrBuf *label, json_t *params, const char *text)
{
    if (json_array_size(params) > 0)
        strbuf_puts(label, ", ");
    size_t start = label->len;
    strbuf_puts(label, text);
    json_array_append_new(params, json_pack("{s:[I, I]}", "label", (json_int_t)start,
                                            (json_int_t)label->len));
}

/* "op(a, b?, rest..., k: int = 1)" and its parameters' spans. */
static json_t *signature(const OpInfo *op)
{
    StrBuf label = {0}, text = {0};
    json_t *params = json_array();
    strbuf_printf(&label, "%s(", op->name);
    for (int i = 0; i < op->decl->noperands; i++) {
        const AstOperand *o = &op->decl->operands[i];
        text.len = 0;
        strbuf_printf(&text, "%s%s%s", o->name, o->optional ? "?" : "",
                      o->variadic ? "..." : "");
        add_param(&label, params, text.data);
    }
    for (int i = 0; i < op->nattrs; i++) {
        const OpAttrInfo *a = &op->attrs[i];
        text.len = 0;
        strbuf_printf(&text, "%s: %s", a->name, registry_attr_type_name(a->type));
        if (a->dflt_text)
            strbuf_printf(&text, " = %s", a->dflt_text);
        add_param(&label, params, text.data);
    }
    strbuf_putc(&label, ')');
    json_t *sig = json_pack("{s:s, s:o}", "label", label.data, "parameters", params);
    strbuf_free(&label);
    strbuf_free(&text);
    return sig;
}

/* The parameter the cursor is at: an attribute named before '=', else
 * the operand of its position; the parameter count when it is neither
 * (an unknown attribute, more operands than the op takes). */
static int active_parameter(const OpInfo *op, const LspDoc *doc, size_t open, size_t offset)
{
    ArgAt at = arg_at(doc, open, offset);
    int noperands = op->decl->noperands;
    int attr = attr_named(op, doc, at.begin, offset);
    if (attr >= 0)
        return noperands + attr;
    bool variadic = noperands > 0 && op->decl->operands[noperands - 1].variadic;
    if (at.index < noperands)
        return at.index;
    return variadic ? noperands - 1 : noperands + op->nattrs;
}

json_t *lsp_signature_help(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    size_t offset, open;
    if (!doc || !lsp_position_of_params(doc, params, &offset, err))
        return NULL;
    const OpInfo *op = lsp_enclosing_op(s, doc, offset, &open);
    if (!op)
        return json_null();
    return json_pack("{s:[o], s:i, s:i}", "signatures", signature(op), "activeSignature", 0,
                     "activeParameter", active_parameter(op, doc, open, offset));
}
