/* cli_load.c - loading rules and a model for graft run and match. */
#include "cli_load.h"

#include <string.h>

#include "cli.h"
#include "frontend.h"
#include "input_kind.h"
#include "model_check.h"
#include "onnx_file.h"
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

/* Rules for ONNX do not run on a Relay model. */
static bool relay_rules_ok(const char *model, const RuleFile *rf, graft_diag *d)
{
    if (!registry_onnx_opset(rf->registry))
        return true;
    diag_plain_error(d, "'%s' is a Relay model, but the rules are for ONNX ('opset onnx %d')",
                     model, registry_onnx_opset(rf->registry));
    return false;
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
    const char *model = paths[n - 1];
    if (out->rules && input_kind_of_file(model) == INPUT_ONNX) {
        out->onnx = onnx_file_load(model, limits, &out->rules->rs, allow_unknown_ops, d);
        out->g = out->onnx ? out->onnx->g : NULL;
        out->src = out->g ? source_from_string(model, "", 0) : NULL;
    } else if (out->rules && (out->src = source_read(model, d)))
        out->g = relay_rules_ok(model, rf, d)
                     ? cli_load_model(out->src, limits, rf, allow_unknown_ops, d)
                     : NULL;
    rulefile_free(rf);
    if (!out->g) {
        cli_load_free(out);
        return false;
    }
    return true;
}

void cli_load_free(Loaded *l)
{
    if (l->onnx)
        onnx_graph_free(l->onnx); /* its graph too */
    else
        graph_free(l->g);
    source_free(l->src);
    lower_free(l->rules);
    memset(l, 0, sizeof *l);
}
