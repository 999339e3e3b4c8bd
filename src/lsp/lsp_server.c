/* lsp_server.c - graft lsp's main loop: read a message, answer it, publish
 * the diagnostics of changed documents (lsp.h). */
#include "config.h"

#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lsp_impl.h"
#include "lsp_io.h"

json_t *lsp_fail(LspError *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return NULL;
}

/* Sends msg (stolen) as one message. */
static void send_json(LspServer *s, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        out_of_memory();
    lsp_write_message(s->out, text, strlen(text));
    free(text);
    json_decref(msg);
}

void lsp_notify(LspServer *s, const char *method, json_t *params)
{
    send_json(s, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method,
                           "params", params));
}

void lsp_request(LspServer *s, const char *kind, const char *method, json_t *params)
{
    char id[64];
    snprintf(id, sizeof id, "graft/%s/%d", kind, ++s->requests);
    json_t *msg = json_pack("{s:s, s:s, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (params)
        json_object_set_new(msg, "params", params);
    send_json(s, msg);
}

/* The response to the request of id (borrowed; JSON null when unknown). */
static void respond(LspServer *s, json_t *id, json_t *result)
{
    send_json(s, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
                           "result", result ? result : json_null()));
}

static void respond_error(LspServer *s, json_t *id, int code, const char *message)
{
    send_json(s, json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
                           id ? id : json_null(), "error", "code", code, "message", message));
}

static json_t *on_initialize(LspServer *s, json_t *params, LspError *err)
{
    if (s->initialized)
        return lsp_fail(err, LSP_INVALID_REQUEST, "initialize was already received");
    s->initialized = true;
    lsp_model_initialize(s, params);
    return json_pack("{s:{s:{s:b, s:i}, s:b, s:{s:[s, s]}, s:b, s:b, s:b, s:b, s:b, "
                     "s:{s:[s, s]}, s:{s:b}, s:{s:[s]}}, s:{s:s, s:s}}",
                     "capabilities", "textDocumentSync", "openClose", 1, "change", 1,
                     "hoverProvider", 1, "completionProvider", "triggerCharacters", ".", "(",
                     "definitionProvider", 1, "documentSymbolProvider", 1,
                     "documentFormattingProvider", 1, "referencesProvider", 1,
                     "renameProvider", 1, "signatureHelpProvider", "triggerCharacters",
                     "(", ",", "codeLensProvider", "resolveProvider", 0,
                     "executeCommandProvider", "commands", "graft.explain",
                     "serverInfo", "name", "graft", "version", PACKAGE_VERSION);
}

static json_t *on_shutdown(LspServer *s, json_t *params, LspError *err)
{
    (void)params;
    (void)err;
    s->shut_down = true;
    return json_null();
}

static json_t *on_exit(LspServer *s, json_t *params, LspError *err)
{
    (void)params;
    (void)err;
    s->exited = true;
    return NULL;
}

static json_t *on_ignored(LspServer *s, json_t *params, LspError *err)
{
    (void)s;
    (void)params;
    (void)err;
    return NULL;
}

static json_t *on_did_open(LspServer *s, json_t *params, LspError *err)
{
    const char *uri, *text;
    size_t len;
    if (json_unpack(params, "{s:{s:s, s:s%}}", "textDocument", "uri", &uri, "text", &text,
                    &len) != 0)
        return lsp_fail(err, LSP_INVALID_PARAMS, "didOpen needs textDocument.uri and .text");
    LspDoc *doc = lsp_doc_find(s, uri);
    if (doc)
        lsp_doc_set_text(doc, text, len);
    else
        lsp_doc_open(s, uri, text, len);
    return NULL;
}

/* Full-document sync: the last change's text is the document. */
static json_t *on_did_change(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    if (!doc)
        return NULL;
    json_t *changes = json_object_get(params, "contentChanges");
    size_t n = json_is_array(changes) ? json_array_size(changes) : 0;
    json_t *last = n ? json_object_get(json_array_get(changes, n - 1), "text") : NULL;
    if (!json_is_string(last))
        return lsp_fail(err, LSP_INVALID_PARAMS, "didChange needs contentChanges[].text");
    lsp_doc_set_text(doc, json_string_value(last), json_string_length(last));
    return NULL;
}

static json_t *on_did_close(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    if (!doc)
        return NULL;
    /* Its diagnostics go with it (an empty list clears the client's). */
    lsp_notify(s, "textDocument/publishDiagnostics",
               json_pack("{s:s, s:[]}", "uri", doc->uri, "diagnostics"));
    lsp_doc_close(s, doc);
    return NULL;
}

typedef json_t *(*Handler)(LspServer *s, json_t *params, LspError *err);

static const struct {
    const char *method;
    Handler run;
} methods[] = {
    {"initialize", on_initialize},
    {"initialized", lsp_model_initialized},
    {"shutdown", on_shutdown},
    {"exit", on_exit},
    {"textDocument/didOpen", on_did_open},
    {"textDocument/didChange", on_did_change},
    {"textDocument/didClose", on_did_close},
    {"textDocument/didSave", on_ignored},
    {"textDocument/hover", lsp_hover},
    {"textDocument/completion", lsp_completion},
    {"textDocument/definition", lsp_definition},
    {"textDocument/documentSymbol", lsp_document_symbols},
    {"textDocument/formatting", lsp_formatting},
    {"textDocument/references", lsp_references},
    {"textDocument/rename", lsp_rename},
    {"textDocument/signatureHelp", lsp_signature_help},
    {"workspace/didChangeConfiguration", lsp_model_configuration},
    {"textDocument/codeLens", lsp_code_lens},
    {"workspace/executeCommand", lsp_execute_command},
    {"$/cancelRequest", on_ignored},
    {"$/setTrace", on_ignored},
};

static Handler find_handler(const char *method)
{
    for (size_t i = 0; i < ARRAY_LEN(methods); i++)
        if (strcmp(methods[i].method, method) == 0)
            return methods[i].run;
    return NULL;
}

/* Why a request may not run now, or NULL: before initialize only
 * initialize and exit; after shutdown only exit. */
static const char *refusal(const LspServer *s, const char *method)
{
    if (strcmp(method, "exit") == 0)
        return NULL;
    if (!s->initialized && strcmp(method, "initialize") != 0)
        return "the server is not initialized";
    if (s->shut_down)
        return "the server was shut down";
    return NULL;
}

/* Answers one JSON-RPC message; notifications get no response. */
static void handle(LspServer *s, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    if (!json_is_object(msg) || !json_is_string(method)) {
        if (json_is_object(msg) && !method && id) {
            lsp_model_response(s, msg); /* a response to a request of ours */
            return;
        }
        respond_error(s, id, LSP_INVALID_REQUEST, "not a JSON-RPC request or notification");
        return;
    }
    const char *name = json_string_value(method);
    json_t *params = json_object_get(msg, "params");
    Handler run = find_handler(name);
    const char *refused = refusal(s, name);
    if (refused) {
        if (id)
            respond_error(s, id, s->initialized ? LSP_INVALID_REQUEST
                                                : LSP_SERVER_NOT_INITIALIZED, refused);
        return;
    }
    if (!run) {
        if (id) /* unknown notifications are ignored, as the protocol says */
            respond_error(s, id, LSP_METHOD_NOT_FOUND, "unknown method");
        return;
    }
    LspError err = {0, ""};
    json_t *result = run(s, params, &err);
    if (!id) {
        json_decref(result);
        return;
    }
    if (err.code)
        respond_error(s, id, err.code, err.message);
    else
        respond(s, id, result);
}

/* note [debounce]: while the user types, a client sends a didChange per
 * keystroke or so.  Checking each one would queue work behind the
 * keystrokes; instead the server answers every message already waiting
 * and checks the changed documents only when the input is quiet (poll
 * with no timeout finds nothing to read).  Requests are never delayed by
 * a check.  A stream without a descriptor, or a file, counts as quiet.
 * poll sees only the descriptor: messages stdio had already read into its
 * buffer would look like quiet input (all but the last few of 21 changes
 * sent at once were checked), so a debouncing server reads its input
 * unbuffered, every byte it has not consumed still on the descriptor
 * (tests/lsp_debounce.sh). */
static bool input_waiting(FILE *in)
{
    int fd = fileno(in);
    struct stat st;
    if (fd < 0 || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)))
        return false; /* a file (a recorded session) is always readable */
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

static void publish_dirty(LspServer *s)
{
    bool any = false;
    for (size_t i = 0; i < s->docs.len; i++)
        if (s->docs.items[i].dirty) {
            lsp_publish_diagnostics(s, &s->docs.items[i]);
            any = true;
        }
    if (any)
        lsp_model_refresh(s);
}

/* Reads and answers one message; false at the end of the input. */
static bool serve_one(LspServer *s, FILE *in)
{
    char *body = NULL;
    size_t len = 0;
    switch (lsp_read_message(in, LSP_MAX_MESSAGE, &body, &len)) {
    case LSP_READ_EOF:
        return false;
    case LSP_READ_NO_LENGTH:
        respond_error(s, NULL, LSP_PARSE_ERROR, "a message header without Content-Length");
        return true;
    case LSP_READ_TOO_LARGE:
        respond_error(s, NULL, LSP_INVALID_REQUEST, "message over 64 MiB; skipped");
        return true;
    case LSP_READ_OK:
        break;
    }
    json_error_t jerr;
    json_t *msg = json_loadb(body, len, JSON_ALLOW_NUL, &jerr);
    free(body);
    if (!msg) {
        char text[300];
        snprintf(text, sizeof text, "malformed JSON at byte %d: %s", jerr.position, jerr.text);
        respond_error(s, NULL, LSP_PARSE_ERROR, text);
        return true;
    }
    handle(s, msg);
    json_decref(msg);
    return true;
}

int lsp_serve(FILE *in, FILE *out, const LspOptions *opts)
{
    LspServer s = {.out = out, .opts = *opts};
    graft_diag *d = diag_new(stderr);
    s.builtin = frontend_builtin_new(d);
    diag_free(d);
    if (!s.builtin)
        return EXIT_FAILURE;
    if (opts->debounce)
        setvbuf(in, NULL, _IONBF, 0); /* note [debounce] */
    /* A reply in one write, not a pipe buffer's 4 KiB at a time: the
     * client wakes once (completion's 27 KB took three writes).  glibc
     * takes a size only with the buffer itself; the stream outlives this
     * call, so the buffer is static. */
    static char out_buffer[LSP_OUT_BUFFER];
    setvbuf(out, out_buffer, _IOFBF, sizeof out_buffer);
    while (!s.exited && serve_one(&s, in))
        if (!opts->debounce || !input_waiting(in))
            publish_dirty(&s);
    lsp_docs_free(&s);
    lsp_model_free(&s);
    json_decref(s.builtin_items);
    frontend_builtin_free(s.builtin);
    return s.exited && s.shut_down ? 0 : 1;
}
