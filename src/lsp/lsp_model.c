/* lsp_model.c - graft lsp with a model named in the workspace settings:
 * each rule's match count on it as a code lens, and graft explain as the
 * command graft.explain.
 *
 * note [workspace model]: the model is the setting "model" of the
 * section "graft": initializationOptions.model, a
 * workspace/didChangeConfiguration's settings.graft.model, or the answer
 * to the server's workspace/configuration request (sent after
 * "initialized" and after a change without settings, when the client
 * says it answers one).  A relative path is taken from the workspace's
 * root (rootUri).  The model is loaded once per setting; a model that
 * does not load is reported with window/showMessage and gives no lenses.
 * The rules are the document as it is now, loaded through the API
 * (graft_api.h) with its directory as the include path, for each
 * request; after an edit the server asks a client that supports it
 * (workspace.codeLens.refreshSupport) to fetch the lenses again.  The
 * hover on a rule's variable lists what the same matches bound to it
 * (lsp_binding.c). */
#include "config.h"

#include <libgen.h>
#include <string.h>

#include "graft_api.h"
#include "lsp_impl.h"

/* LSP's MessageType. */
enum { MESSAGE_ERROR = 1 };

static void show_error(LspServer *s, const char *fmt, const char *a, const char *b)
{
    char text[600];
    snprintf(text, sizeof text, fmt, a, b);
    char *valid = lsp_valid_utf8(text);
    lsp_notify(s, "window/showMessage", json_pack("{s:i, s:s}", "type", MESSAGE_ERROR,
                                                  "message", valid));
    free(valid);
}

/* The first message d captured, or a stand-in. */
static const char *first_message(const graft_diag *d)
{
    const graft_message *m = graft_diag_message(d, 0);
    return m ? m->text : "it could not be read";
}

/* Loads the model at path (NULL: none), relative paths from the root;
 * asks for new lenses when refresh. */
static void set_model(LspServer *s, const char *path, bool refresh)
{
    if ((!path && !s->model_path) || (path && s->model_path && strcmp(path, s->model_path) == 0))
        return;
    graft_model_free(s->model);
    s->model = NULL;
    free(s->model_path);
    s->model_path = path ? xstrdup(path) : NULL;
    if (path) {
        StrBuf full = {0};
        if (path[0] != '/' && s->root)
            strbuf_printf(&full, "%s/", s->root);
        strbuf_puts(&full, path);
        graft_diag *d = graft_diag_capture();
        s->model = graft_model_load(full.data, &s->opts.limits, d);
        if (!s->model)
            show_error(s, "graft: the model '%.200s' did not load: %.300s", full.data,
                       first_message(d));
        graft_diag_free(d);
        strbuf_free(&full);
    }
    if (refresh)
        lsp_model_refresh(s);
}

/* The "model" of a settings object of section graft: true when it is
 * there (a string, or null for none). */
static bool model_setting(LspServer *s, json_t *settings, bool refresh)
{
    json_t *model = json_object_get(settings, "model");
    if (!json_is_string(model) && !json_is_null(model))
        return false;
    set_model(s, json_is_string(model) ? json_string_value(model) : NULL, refresh);
    return true;
}

void lsp_model_initialize(LspServer *s, json_t *params)
{
    json_t *root = json_object_get(params, "rootUri");
    if (json_is_string(root))
        s->root = lsp_path_of_uri(json_string_value(root));
    json_t *workspace = json_object_get(json_object_get(params, "capabilities"), "workspace");
    s->config_pull = json_is_true(json_object_get(workspace, "configuration"));
    s->lens_refresh = json_is_true(json_object_get(json_object_get(workspace, "codeLens"),
                                                   "refreshSupport"));
    /* no request may precede the answer to initialize: no refresh */
    model_setting(s, json_object_get(params, "initializationOptions"), false);
}

static void ask_configuration(LspServer *s)
{
    if (s->config_pull)
        lsp_request(s, "configuration", "workspace/configuration",
                    json_pack("{s:[{s:s}]}", "items", "section", "graft"));
}

json_t *lsp_model_initialized(LspServer *s, json_t *params, LspError *err)
{
    (void)params;
    (void)err;
    ask_configuration(s);
    return NULL;
}

json_t *lsp_model_configuration(LspServer *s, json_t *params, LspError *err)
{
    (void)err;
    json_t *graft = json_object_get(json_object_get(params, "settings"), "graft");
    if (!model_setting(s, graft, true))
        ask_configuration(s);
    return NULL;
}

void lsp_model_response(LspServer *s, json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "id"));
    json_t *result = json_object_get(msg, "result");
    if (id && strncmp(id, "graft/configuration/", 20) == 0 && json_is_array(result))
        model_setting(s, json_array_get(result, 0), true);
}

void lsp_model_refresh(LspServer *s)
{
    if (s->lens_refresh && s->initialized)
        lsp_request(s, "refresh", "workspace/codeLens/refresh", NULL);
}

void lsp_model_free(LspServer *s)
{
    graft_model_free(s->model);
    free(s->model_path);
    free(s->root);
}

/* The document's rules through the API, its directory on the include
 * path; NULL when they do not load (the diagnostics say why). */
static graft_rules *document_rules(LspServer *s, const LspDoc *doc)
{
    char *dir_copy = xstrdup(doc->path);
    const char *dir = dirname(dir_copy);
    graft_load_options opts = {&dir, 1, &s->opts.limits};
    graft_diag *d = graft_diag_capture();
    graft_rules *r = graft_rules_parse(doc->path, doc->text, doc->len, &opts, d);
    graft_diag_free(d);
    free(dir_copy);
    return r;
}

graft_matches *lsp_model_matches(LspServer *s, const LspDoc *doc)
{
    graft_rules *r = s->model ? document_rules(s, doc) : NULL;
    if (!r)
        return NULL;
    graft_diag *d = graft_diag_capture();
    graft_matches *m = graft_rules_match(r, s->model, &s->opts.limits, d);
    graft_diag_free(d);
    graft_rules_free(r);
    return m;
}

/* How many matches each rule of the document's outline has, in item
 * order (-1 for items that are no rule). */
static int *match_counts(const graft_matches *m, const LspOutline *o)
{
    int *counts = xmalloc(((size_t)o->file->nitems + 1) * sizeof *counts);
    for (int i = 0; i < o->file->nitems; i++)
        counts[i] = o->file->items[i].kind == ITEM_RULE ? 0 : -1;
    for (size_t k = 0; k < graft_matches_count(m); k++) {
        const char *rule = graft_matches_get(m, k)->rule;
        for (int i = 0; i < o->file->nitems; i++)
            if (counts[i] >= 0 && strcmp(o->file->items[i].u.rule->name, rule) == 0)
                counts[i]++;
    }
    return counts;
}

/* One lens above a rule: "N matches in MODEL", its command graft.explain
 * of the rule (its near misses). */
static json_t *lens(LspServer *s, const LspDoc *doc, const LspOutline *o, const AstRule *rule,
                    int count)
{
    char *model_copy = xstrdup(s->model_path);
    const char *model = basename(model_copy);
    char title[300];
    if (count == 0)
        snprintf(title, sizeof title, "no match in %.200s", model);
    else
        snprintf(title, sizeof title, "%d match%s in %.200s", count, count == 1 ? "" : "es",
                 model);
    free(model_copy);
    char *valid_title = lsp_valid_utf8(title), *name = lsp_valid_utf8(rule->name);
    json_t *l = json_pack("{s:o, s:{s:s, s:s, s:[{s:s, s:s}]}}", "range",
                          lsp_range_of(o->src, rule->name_range), "command", "title",
                          valid_title, "command", "graft.explain", "arguments", "uri", doc->uri,
                          "rule", name);
    free(valid_title);
    free(name);
    return l;
}

json_t *lsp_code_lens(LspServer *s, json_t *params, LspError *err)
{
    LspDoc *doc = lsp_doc_of_params(s, params, err);
    if (!doc)
        return NULL;
    json_t *lenses = json_array();
    graft_matches *m = lsp_model_matches(s, doc);
    if (!m)
        return lenses; /* no model, or rules with errors: none */
    LspOutline o;
    lsp_outline_parse(&o, s, doc);
    int *counts = o.file ? match_counts(m, &o) : NULL;
    for (int i = 0; counts && i < o.file->nitems; i++)
        if (counts[i] >= 0)
            json_array_append_new(lenses, lens(s, doc, &o, o.file->items[i].u.rule, counts[i]));
    free(counts);
    lsp_outline_free(&o);
    graft_matches_free(m);
    return lenses;
}

/* graft.explain's argument: {"uri": DOC, "rule": NAME, "node": NODE}, the
 * rule or the node or both (the node as graft explain --at takes it). */
static json_t *explain(LspServer *s, json_t *arg, LspError *err)
{
    const char *uri, *rule = NULL, *node = NULL;
    if (json_unpack(arg, "{s:s, s?s, s?s}", "uri", &uri, "rule", &rule, "node", &node) != 0 ||
        (!rule && !node))
        return lsp_fail(err, LSP_INVALID_PARAMS, "graft.explain takes {uri, rule, node}, "
                        "a rule or a node or both");
    LspDoc *doc = lsp_doc_find(s, uri);
    if (!doc)
        return lsp_fail(err, LSP_INVALID_PARAMS, "document '%.200s' is not open", uri);
    if (!s->model)
        return lsp_fail(err, LSP_REQUEST_FAILED, s->model_path ? "the model did not load"
                        : "no model: set the setting graft.model (initializationOptions.model)");
    graft_rules *r = document_rules(s, doc);
    if (!r)
        return lsp_fail(err, LSP_REQUEST_FAILED, "the document has errors");
    graft_diag *d = graft_diag_capture();
    char *text = graft_rules_explain(r, s->model, node, rule, &s->opts.limits, d);
    json_t *result = NULL;
    if (text) {
        char *valid = lsp_valid_utf8(text);
        result = json_string(valid);
        free(valid);
    } else {
        lsp_fail(err, LSP_REQUEST_FAILED, "%.200s", first_message(d));
    }
    graft_string_free(text);
    graft_diag_free(d);
    graft_rules_free(r);
    return result;
}

json_t *lsp_execute_command(LspServer *s, json_t *params, LspError *err)
{
    const char *command;
    json_t *args;
    if (json_unpack(params, "{s:s, s:o}", "command", &command, "arguments", &args) != 0 ||
        !json_is_array(args))
        return lsp_fail(err, LSP_INVALID_PARAMS, "executeCommand needs command and arguments");
    if (strcmp(command, "graft.explain") != 0)
        return lsp_fail(err, LSP_INVALID_PARAMS, "unknown command '%.100s'", command);
    return explain(s, json_array_get(args, 0), err);
}
