/* lsp_docs.c - the open documents of graft lsp (lsp_impl.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdlib.h>
#include <string.h>

#include "lsp_impl.h"

/* The value of a hex digit, -1 for another byte. */
static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *lsp_path_of_uri(const char *uri)
{
    static const char scheme[] = "file://";
    if (strncmp(uri, scheme, sizeof scheme - 1) != 0)
        return xstrdup(uri);
    const char *p = uri + sizeof scheme - 1;
    char *path = xmalloc(strlen(p) + 1), *q = path;
    for (; *p; p++) {
        int hi, lo;
        if (*p == '%' && (hi = hex_value(p[1])) >= 0 && (lo = hex_value(p[2])) >= 0) {
            *q++ = (char)(hi * 16 + lo);
            p += 2;
        } else {
            *q++ = *p;
        }
    }
    *q = '\0';
    return path;
}

char *lsp_uri_of_path(const char *path)
{
    char *abs = realpath(path, NULL);
    if (!abs)
        return NULL;
    StrBuf sb = {0};
    strbuf_puts(&sb, "file://");
    for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || strchr("/-._~", *p);
        if (plain)
            strbuf_putc(&sb, (char)*p);
        else
            strbuf_printf(&sb, "%%%02X", *p);
    }
    free(abs);
    return sb.data;
}

LspDoc *lsp_doc_find(LspServer *s, const char *uri)
{
    for (size_t i = 0; i < s->docs.len; i++)
        if (strcmp(s->docs.items[i].uri, uri) == 0)
            return &s->docs.items[i];
    return NULL;
}

void lsp_doc_set_text(LspDoc *doc, const char *text, size_t len)
{
    free(doc->text);
    doc->text = xmalloc(len + 1);
    memcpy(doc->text, text, len);
    doc->text[len] = '\0';
    doc->len = len;
    doc->dirty = true;
    json_decref(doc->declared); /* made again from the new text */
    doc->declared = NULL;
}

LspDoc *lsp_doc_open(LspServer *s, const char *uri, const char *text, size_t len)
{
    LspDoc doc = {.uri = xstrdup(uri), .path = lsp_path_of_uri(uri)};
    lsp_doc_set_text(&doc, text, len);
    vec_push(&s->docs, doc);
    return &s->docs.items[s->docs.len - 1];
}

static void doc_free(LspDoc *doc)
{
    free(doc->uri);
    free(doc->path);
    free(doc->text);
    json_decref(doc->declared);
}

void lsp_doc_close(LspServer *s, LspDoc *doc)
{
    size_t i = (size_t)(doc - s->docs.items);
    doc_free(doc);
    memmove(doc, doc + 1, (s->docs.len - i - 1) * sizeof *doc);
    s->docs.len--;
}

void lsp_docs_free(LspServer *s)
{
    for (size_t i = 0; i < s->docs.len; i++)
        doc_free(&s->docs.items[i]);
    vec_free(&s->docs);
}

LspDoc *lsp_doc_of_params(LspServer *s, json_t *params, LspError *err)
{
    const char *uri;
    if (json_unpack(params, "{s:{s:s}}", "textDocument", "uri", &uri) != 0) {
        lsp_fail(err, LSP_INVALID_PARAMS, "textDocument.uri is missing");
        return NULL;
    }
    LspDoc *doc = lsp_doc_find(s, uri);
    if (!doc)
        lsp_fail(err, LSP_INVALID_PARAMS, "document '%.200s' is not open", uri);
    return doc;
}
