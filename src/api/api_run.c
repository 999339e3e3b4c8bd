/* api_run.c - running a loaded rule set on a model into memory
 * (graft_api.h), as graft run does. */
#include "api_impl.h"

#include <stdlib.h>

#include "graft_api_onnx.h"

EngineOptions api_engine_options(const graft_run_options *opts)
{
    EngineOptions o = {.untimed = true};
    if (opts) {
        o.max_rewrites = opts->max_rewrites;
        o.trace = opts->trace;
        o.limits = opts->limits;
        o.model = opts->model;
    }
    return o;
}

static bool run_steps(const graft_rules *r, graft_graph *g, const graft_run_options *opts,
                      unsigned steps, graft_diag *d)
{
    if (!api_rules_fit(r, g, d))
        return false;
    if (api_onnx_is(g)) /* the ops the rules make, in their domains */
        api_onnx_keep_decls(g, &r->lw->rs);
    EngineOptions o = api_engine_options(opts);
    /* an ONNX model's subgraphs first, as graft run does (note [rules in
     * subgraphs] in src/runtime/subgraph_rules.h) */
    if ((steps & GRAFT_STEP_REWRITE) && api_onnx_is(g) &&
        !api_onnx_rewrite_subgraphs(g, &r->lw->rs, &o, d))
        return false;
    graft_engine *e = engine_new(&r->lw->rs, g, &o);
    bool ok = !(steps & GRAFT_STEP_REWRITE) || engine_rewrite(e, d);
    if (ok && (steps & GRAFT_STEP_PARTITION))
        engine_partition(e);
    engine_free(e);
    return ok;
}

bool graft_rules_run(const graft_rules *r, graft_graph *g, const graft_run_options *opts,
                     graft_diag *d)
{
    return run_steps(r, g, opts, GRAFT_STEP_REWRITE | GRAFT_STEP_PARTITION, d);
}

bool graft_rules_rewrite(const graft_rules *r, graft_graph *g,
                         const graft_run_options *opts, graft_diag *d)
{
    return run_steps(r, g, opts, GRAFT_STEP_REWRITE, d);
}

bool graft_rules_partition(const graft_rules *r, graft_graph *g,
                           const graft_run_options *opts, graft_diag *d)
{
    return run_steps(r, g, opts, GRAFT_STEP_PARTITION, d);
}

/* The model of graft_rules_apply, rewritten; NULL after reporting
 * through d. */
static graft_graph *applied(const graft_rules *r, const char *path, const void *data,
                            size_t len, unsigned steps, const graft_run_options *opts,
                            graft_diag *d)
{
    const graft_limits *lim = opts ? opts->limits : NULL;
    graft_graph *g = data ? graft_model_parse(path, data, len, lim, d)
                          : graft_model_load(path, lim, d);
    if (g && !run_steps(r, g, opts, steps, d)) {
        graft_model_free(g);
        return NULL;
    }
    return g;
}

char *graft_rules_apply(const graft_rules *r, const char *path, const void *data, size_t len,
                        unsigned steps, const graft_run_options *opts, graft_diag *d)
{
    graft_graph *g = applied(r, path, data, len, steps, opts, d);
    char *text = NULL;
    size_t n;
    if (g && api_onnx_is(g)) /* in ONNX's text syntax, whatever it came in */
        text = api_onnx_string(g, true, &n, d);
    else if (g)
        text = graft_model_print_string(g);
    graft_model_free(g);
    return text;
}

void *graft_rules_apply_model(const graft_rules *r, const char *path, const void *data,
                              size_t len, unsigned steps, const graft_run_options *opts,
                              size_t *out_len, graft_model_kind *form, graft_diag *d)
{
    graft_graph *g = applied(r, path, data, len, steps, opts, d);
    void *out = g ? graft_model_write(g, out_len, d) : NULL;
    if (form)
        *form = g ? graft_model_form(g) : GRAFT_MODEL_UNKNOWN;
    if (!out && out_len)
        *out_len = 0;
    graft_model_free(g);
    return out;
}
