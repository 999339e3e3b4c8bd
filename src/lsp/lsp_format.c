/* lsp_format.c - textDocument/formatting: the document as graft fmt
 * prints it (src/compiler/fmt_rules.h), sent as one edit that replaces
 * the whole text; no edit when it is formatted already.  A document with
 * a syntax error is not formatted: the request fails (RequestFailed),
 * and the error is among the document's diagnostics. */
#include "config.h"

#include <string.h>

#include "fmt_rules.h"
#include "lsp_impl.h"

/* The LSP position just past the last byte of text. */
static json_t *end_position(const char *text, size_t len)
{
    size_t line = 0, line_start = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    return json_pack("{s:I, s:i}", "line", (json_int_t)line, "character",
                     lsp_utf16_units(text + line_start, len - line_start, len - line_start));
}

static json_t *whole_text_edit(const LspDoc *doc, const StrBuf *text)
{
    json_t *edit = json_pack("{s:{s:{s:i, s:i}, s:o}, s:s%}", "range", "start", "line", 0,
                             "character", 0, "end", end_position(doc->text, doc->len),
                             "newText", text->data ? text->data : "", text->len);
    return edit ? json_pack("[o]", edit) : NULL;
}

json_t *lsp_formatting(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    if (!doc)
        return NULL;
    if (!json_is_object(json_object_get(params, "options")))
        return lsp_fail(err, LSP_INVALID_PARAMS, "formatting needs options");
    Source *src = source_from_string(doc->path, doc->text, doc->len);
    graft_diag *d = diag_new(NULL);
    StrBuf text = {0};
    json_t *result = NULL;
    if (!fmt_rules_source(src, (int)s->opts.limits.rule_depth, &text, d))
        lsp_fail(err, LSP_REQUEST_FAILED, "the document has syntax errors; it is formatted "
                 "once it parses");
    else if (text.len == doc->len && memcmp(text.data ? text.data : "", doc->text, doc->len) == 0)
        result = json_array();
    else if (!(result = whole_text_edit(doc, &text)))
        lsp_fail(err, LSP_REQUEST_FAILED, "the formatted text is not valid UTF-8");
    strbuf_free(&text);
    diag_free(d);
    source_free(src);
    return result;
}
