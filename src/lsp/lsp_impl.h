/* lsp_impl.h - what the files of graft lsp share: the server's state, the
 * open documents, and the replies of the requests. */
#ifndef GRAFT_LSP_IMPL_H
#define GRAFT_LSP_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "frontend.h"
#include "lsp.h"
#include "util.h"

/* JSON-RPC's and LSP's error codes. */
enum {
    LSP_PARSE_ERROR = -32700,
    LSP_INVALID_REQUEST = -32600,
    LSP_METHOD_NOT_FOUND = -32601,
    LSP_INVALID_PARAMS = -32602,
    LSP_SERVER_NOT_INITIALIZED = -32002,
    LSP_REQUEST_FAILED = -32803,
};

/* One open document, as the client last sent it. */
typedef struct LspDoc {
    char *uri;     /* as the client names it */
    char *path;    /* the file path of a file: URI, else the URI itself */
    char *text;    /* the contents, NUL-terminated */
    size_t len;    /* bytes of text */
    bool dirty;    /* changed since its diagnostics were published */
    json_t *declared; /* completion items of its macros and named patterns,
                         made at the first completion after a change */
} LspDoc;

typedef struct LspServer {
    FILE *out;                  /* where messages go */
    LspOptions opts;
    FrontendBuiltin *builtin;   /* the builtin ops, parsed once */
    VEC(LspDoc) docs;           /* open documents, in opening order */
    bool initialized;           /* "initialize" answered */
    bool shut_down;             /* "shutdown" answered */
    bool exited;                /* "exit" received */
    char *root;                 /* the workspace's directory (rootUri), or NULL */
    char *model_path;           /* the model of the settings (lsp_model.c), or NULL */
    graft_graph *model;         /* it, loaded; NULL when unset or it did not load */
    bool config_pull;           /* the client answers workspace/configuration */
    bool lens_refresh;          /* the client takes workspace/codeLens/refresh */
    int requests;               /* requests the server sent (their ids) */
    json_t *builtin_items;      /* completion items of the builtin ops and the
                                   op classes, made at the first completion */
} LspServer;

/* A request's failure: code and message for the error response. */
typedef struct LspError {
    int code;
    char message[256];
} LspError;

/* Sets err and returns NULL (for handlers: return lsp_fail(...)). */
json_t *lsp_fail(LspError *err, int code, const char *fmt, ...) GRAFT_PRINTF(3, 4);

/* Sends a notification (steals params). */
void lsp_notify(LspServer *s, const char *method, json_t *params);
/* Sends a request of the server's own (steals params; NULL: none), its
 * id "graft/" KIND "/" N; the response reaches lsp_model_response. */
void lsp_request(LspServer *s, const char *kind, const char *method, json_t *params);

/* lsp_docs.c: the open documents. */
LspDoc *lsp_doc_find(LspServer *s, const char *uri);
LspDoc *lsp_doc_open(LspServer *s, const char *uri, const char *text, size_t len);
void lsp_doc_set_text(LspDoc *doc, const char *text, size_t len);
void lsp_doc_close(LspServer *s, LspDoc *doc);
void lsp_docs_free(LspServer *s);
/* The path of a file: URI, %XX decoded ("file:///a%20b.graft" is
 * "/a b.graft"); other URIs (untitled:1) stand for themselves.  Diagnostics
 * print it as the file name, and includes resolve beside it. */
char *lsp_path_of_uri(const char *uri);
/* The file: URI of path, made absolute (realpath) and %XX-escaped; NULL
 * when the file does not exist. */
char *lsp_uri_of_path(const char *path);
/* The document of params.textDocument.uri, or NULL after setting err. */
LspDoc *lsp_doc_of_params(LspServer *s, json_t *params, LspError *err);

/* lsp_position.c: LSP positions (0-based line, UTF-16 units) and byte
 * offsets in a document's text. */
/* UTF-16 units of the first nbytes bytes of line (len bytes). */
int lsp_utf16_units(const char *line, size_t len, size_t nbytes);
/* The byte offset of {line, character} in text; false when the line or
 * the character is beyond the text (the end of a line is in range). */
bool lsp_offset_of(const char *text, size_t len, json_int_t line, json_int_t character,
                   size_t *offset);
/* A copy of text with each byte that starts no valid UTF-8 sequence
 * replaced by U+FFFD (JSON strings must be UTF-8; a binary document's
 * bytes reach the messages). */
char *lsp_valid_utf8(const char *text);
/* The position {line, character} of params.position as a byte offset in
 * doc, or false after setting err. */
bool lsp_position_of_params(const LspDoc *doc, json_t *params, size_t *offset,
                            LspError *err);

/* The bounds [*begin, *end) of the dotted name around offset (empty when
 * offset touches none). */
void lsp_name_at(const LspDoc *doc, size_t offset, size_t *begin, size_t *end);

/* lsp_diagnose.c: check doc and publish its diagnostics. */
void lsp_publish_diagnostics(LspServer *s, LspDoc *doc);

/* lsp_symbols.c: document symbols and go to definition. */
/* A document parsed on its own (rules_parse_source: every item that
 * parses, broken ones skipped), so that requests work while it has
 * errors. */
typedef struct LspOutline {
    Arena *arena;
    Interner *names;
    Source *src;
    AstFile *file; /* NULL when the parser gave up */
} LspOutline;
void lsp_outline_parse(LspOutline *o, LspServer *s, const LspDoc *doc);
void lsp_outline_free(LspOutline *o);
/* An LSP Range of where in src (as lsp_diagnose.c converts them). */
json_t *lsp_range_of(const Source *src, SrcRange where);
json_t *lsp_document_symbols(LspServer *s, json_t *params, LspError *err);
json_t *lsp_definition(LspServer *s, json_t *params, LspError *err);
/* A hover showing the macro, rule or op of that name declared in doc, in
 * canonical form (ast_print_item), or NULL. */
json_t *lsp_hover_declared(LspServer *s, const LspDoc *doc, const char *name);
/* Appends a completion item for each macro and named pattern of doc
 * (doc->declared, made when missing). */
void lsp_add_declared_items(LspServer *s, LspDoc *doc, json_t *items);

/* lsp_ops.c: hover and completion from the op registry. */
/* The op whose parentheses hold offset: the name before the innermost
 * '(' not closed before offset (a '?' or '*' after it skipped), looking
 * back no further than the start of the line's item (a line that starts
 * in column 1); *open is that '(' offset.  NULL when there is none or
 * the name is no op of the registry. */
const OpInfo *lsp_enclosing_op(LspServer *s, const LspDoc *doc, size_t offset, size_t *open);
json_t *lsp_hover(LspServer *s, json_t *params, LspError *err);
json_t *lsp_completion(LspServer *s, json_t *params, LspError *err);

/* lsp_signature.c: the op's signature inside its parentheses. */
json_t *lsp_signature_help(LspServer *s, json_t *params, LspError *err);

/* lsp_refs.c: find references and rename (of a binding, macro or rule). */
json_t *lsp_references(LspServer *s, json_t *params, LspError *err);
json_t *lsp_rename(LspServer *s, json_t *params, LspError *err);
/* The rule or macro whose variable is at offset in doc (its name in *name,
 * heap), or NULL when offset touches no variable. */
const AstItem *lsp_variable_at(const LspOutline *o, const LspDoc *doc, size_t offset,
                               char **name);

/* lsp_binding.c: hover on a variable: where it is bound, what it matched. */
json_t *lsp_hover_variable(LspServer *s, const LspDoc *doc, size_t offset);

/* lsp_model.c: the model of the workspace settings: each rule's match
 * count on it as code lenses, graft explain as a command. */
void lsp_model_initialize(LspServer *s, json_t *params);
json_t *lsp_model_initialized(LspServer *s, json_t *params, LspError *err);
json_t *lsp_model_configuration(LspServer *s, json_t *params, LspError *err);
void lsp_model_response(LspServer *s, json_t *msg);
/* After a document changed: asks the client for new code lenses. */
void lsp_model_refresh(LspServer *s);
json_t *lsp_code_lens(LspServer *s, json_t *params, LspError *err);
json_t *lsp_execute_command(LspServer *s, json_t *params, LspError *err);
/* Every match of the document's rules on the model (graft_rules_match):
 * NULL without a model or when the rules do not load. */
struct graft_matches *lsp_model_matches(LspServer *s, const LspDoc *doc);
void lsp_model_free(LspServer *s);

/* lsp_format.c: the document formatted as graft fmt prints it. */
json_t *lsp_formatting(LspServer *s, json_t *params, LspError *err);

#endif
