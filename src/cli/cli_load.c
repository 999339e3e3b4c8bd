/* cli_load.c - loading rules and a model for graft run and match. */
#include "cli_load.h"

#include <string.h>

#include "cli.h"
#include "frontend.h"
#include "model_check.h"
#include "relay.h"

/* What check_model needs besides the graph. */
typedef struct ModelCheckCtx {
    const Registry *registry;
    bool allow_unknown_ops;
} ModelCheckCtx;

static int check_model(const graft_graph *g, const Source *src, void *ctx, graft_diag *d)
{
    const ModelCheckCtx *mc = ctx;
    return model_check(g, src, mc->registry, mc->allow_unknown_ops, d);
}

graft_graph *cli_load_model(const Source *src, const graft_limits *limits, const RuleFile *rf,
                            bool allow_unknown_ops, graft_diag *d)
{
    RuleFile *builtin = NULL;
    if (!rf) {
        FrontendOptions opts = {.limits = limits};
        rf = builtin = frontend_load_string("<builtin>", "", &opts, d);
        if (!rf)
            return NULL;
    }
    ModelCheckCtx mc = {rf->registry, allow_unknown_ops};
    RelayCheck check = {check_model, &mc};
    graft_graph *g = relay_load_checked(src, limits, &check, d);
    rulefile_free(builtin);
    return g;
}

bool cli_load(const char *const *paths, int n, const graft_limits *limits,
              bool allow_unknown_ops, Loaded *out, graft_diag *d)
{
    memset(out, 0, sizeof *out);
    FrontendOptions opts = {.limits = limits};
    cli_frontend_options(&opts);
    RuleFile *rf = frontend_load(paths, n - 1, &opts, d);
    if (!rf)
        return false;
    out->rules = lower_rules(rf, d);
    if (out->rules)
        out->src = source_read(paths[n - 1], d);
    if (out->src)
        out->g = cli_load_model(out->src, limits, rf, allow_unknown_ops, d);
    rulefile_free(rf);
    if (!out->g) {
        cli_load_free(out);
        return false;
    }
    return true;
}

void cli_load_free(Loaded *l)
{
    graph_free(l->g);
    source_free(l->src);
    lower_free(l->rules);
    memset(l, 0, sizeof *l);
}
