/* lsp_diagnose.c - a document's diagnostics: the front end loads its text
 * with a structured diagnostic sink (diag_set_sink), and each report
 * becomes an LSP Diagnostic; a note joins the report before it as related
 * information, as it prints under it on the command line. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "lsp_impl.h"

/* What the sink fills while the front end loads one document. */
typedef struct Collect {
    const LspDoc *doc;
    json_t *list;  /* the Diagnostic objects */
    json_t *last;  /* the last error or warning (borrowed), for its notes */
} Collect;

/* LSP's DiagnosticSeverity. */
enum { SEV_ERROR = 1, SEV_WARNING = 2, SEV_INFORMATION = 3 };

/* An LSP Range of where in src: 0-based lines, UTF-16 characters, the end
 * just past the last byte. */
static json_t *range_json(const Source *src, SrcRange where)
{
    size_t first_len, last_len;
    const char *first = source_line(src, where.first_line, &first_len);
    const char *last = source_line(src, where.last_line, &last_len);
    int from = lsp_utf16_units(first, first_len, (size_t)(where.first_column - 1));
    int to = lsp_utf16_units(last, last_len, (size_t)where.last_column);
    int first_line = where.first_line > 0 ? where.first_line - 1 : 0;
    int last_line = where.last_line > 0 ? where.last_line - 1 : 0;
    return json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "start", "line", first_line,
                     "character", from, "end", "line", last_line, "character", to);
}

static bool in_doc(const Collect *c, const Source *src)
{
    return src && strcmp(src->name, c->doc->path) == 0;
}

/* "FILE:LINE:COL: " for a report outside the document, "" inside it. */
static char *place_prefix(const Collect *c, const DiagRecord *rec)
{
    StrBuf sb = {0};
    if (rec->src && !in_doc(c, rec->src))
        strbuf_printf(&sb, "%s:%d:%d: ", rec->src->name, rec->where.first_line,
                      rec->where.first_column);
    strbuf_puts(&sb, "");
    return sb.data;
}

/* add_note, msg the note's text made valid UTF-8. */
static bool note_to_last(Collect *c, const DiagRecord *rec, const char *name, const char *msg)
{
    if (in_doc(c, rec->src) || name[0] == '/') {
        char *uri = NULL;
        if (!in_doc(c, rec->src)) {
            StrBuf sb = {0};
            strbuf_printf(&sb, "file://%s", name);
            uri = sb.data;
        }
        json_t *related = json_object_get(c->last, "relatedInformation");
        if (!related)
            json_object_set_new(c->last, "relatedInformation", related = json_array());
        json_array_append_new(related,
            json_pack("{s:{s:s, s:o}, s:s}", "location", "uri", uri ? uri : c->doc->uri,
                      "range", range_json(rec->src, rec->where), "message", msg));
        free(uri);
        return true;
    }
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s\n%s:%d:%d: note: %s", json_string_value(json_object_get(c->last,
                  "message")), name, rec->where.first_line, rec->where.first_column,
                  msg);
    json_object_set_new(c->last, "message", json_string(sb.data));
    strbuf_free(&sb);
    return true;
}

/* A note: related information of the report it follows when that is in
 * this document and the note names a file the client can open; else a
 * line of the report's message, or a diagnostic of its own. */
static bool add_note(Collect *c, const DiagRecord *rec)
{
    if (!c->last || !rec->src)
        return false;
    const char *name = rec->src->name;
    char *msg = lsp_valid_utf8(rec->message);
    bool added = note_to_last(c, rec, name, msg);
    free(msg);
    return added;
}

static void sink(void *ctx, const DiagRecord *rec)
{
    Collect *c = ctx;
    bool note = strcmp(rec->kind, "note") == 0;
    if (note && add_note(c, rec))
        return;
    int severity = note ? SEV_INFORMATION
                        : strcmp(rec->kind, "warning") == 0 ? SEV_WARNING : SEV_ERROR;
    json_t *range = in_doc(c, rec->src)
                        ? range_json(rec->src, rec->where)
                        : json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "start", "line", 0,
                                    "character", 0, "end", "line", 0, "character", 0);
    char *prefix = place_prefix(c, rec);
    StrBuf raw = {0};
    strbuf_printf(&raw, "%s%s", prefix, rec->message);
    free(prefix);
    char *msg = lsp_valid_utf8(raw.data);
    strbuf_free(&raw);
    json_t *diag = json_pack("{s:o, s:i, s:s, s:s}", "range", range, "severity", severity,
                             "source", "graft", "message", msg);
    free(msg);
    if (rec->flag)
        json_object_set_new(diag, "code", json_sprintf("-W%s", rec->flag));
    json_array_append_new(c->list, diag);
    c->last = note ? NULL : diag;
}

/* Loads the document as graft check loads a file: the builtin ops, its
 * own directory for includes, the server's limits. */
static void load_document(LspServer *s, const LspDoc *doc, graft_diag *d)
{
    char *dir_copy = xstrdup(doc->path);
    const char *dirs[1] = {dirname(dir_copy)};
    FrontendOptions fo = {.limits = &s->opts.limits, .builtin = s->builtin,
                          .include_dirs = dirs, .ninclude_dirs = 1};
    RuleFile *rf = frontend_load_text(doc->path, doc->text, doc->len, &fo, d);
    rulefile_free(rf);
    free(dir_copy);
}

void lsp_publish_diagnostics(LspServer *s, LspDoc *doc)
{
    Collect c = {doc, json_array(), NULL};
    graft_diag *d = diag_new(NULL);
    diag_set_error_limit(d, s->opts.limits.errors);
    diag_set_sink(d, sink, &c);
    load_document(s, doc, d);
    diag_free(d);
    doc->dirty = false;
    lsp_notify(s, "textDocument/publishDiagnostics",
               json_pack("{s:s, s:o}", "uri", doc->uri, "diagnostics", c.list));
}
