/* api_rules.c - rule sets loaded at run time (graft_api.h): the front end
 * (src/compiler) reads, checks and lowers them, as for graft run. */
#include "api_impl.h"

#include <stdlib.h>

#include "diag.h"
#include "graph.h"
#include "registry.h"
#include "util.h"

/* The front end's options from the public ones (opts may be NULL). */
static FrontendOptions frontend_options(const graft_load_options *opts)
{
    FrontendOptions fo = {0};
    if (opts) {
        fo.include_dirs = opts->include_dirs;
        fo.ninclude_dirs = opts->ninclude_dirs > 0 ? opts->ninclude_dirs : 0;
        fo.limits = opts->limits;
    }
    return fo;
}

/* The handle for rf, lowered; NULL (rf freed) after reporting through d. */
static graft_rules *lowered(RuleFile *rf, graft_diag *d)
{
    if (!rf)
        return NULL;
    Lowered *lw = lower_rules(rf, d);
    if (!lw) {
        rulefile_free(rf);
        return NULL;
    }
    graft_rules *r = xmalloc(sizeof *r);
    r->rf = rf;
    r->lw = lw;
    return r;
}

graft_rules *graft_rules_load(const char *const *paths, int npaths,
                              const graft_load_options *opts, graft_diag *d)
{
    if (!paths || npaths < 1) {
        diag_plain_error(d, "no rule file given");
        return NULL;
    }
    FrontendOptions fo = frontend_options(opts);
    return lowered(frontend_load(paths, npaths, &fo, d), d);
}

graft_rules *graft_rules_parse(const char *name, const char *text, size_t len,
                               const graft_load_options *opts, graft_diag *d)
{
    FrontendOptions fo = frontend_options(opts);
    char *copy = xstrndup(text ? text : "", text ? len : 0);
    graft_rules *r = lowered(frontend_load_string(name ? name : "<rules>", copy, &fo, d), d);
    free(copy);
    return r;
}

void graft_rules_free(graft_rules *r)
{
    if (!r)
        return;
    lower_free(r->lw);
    rulefile_free(r->rf);
    free(r);
}

const graft_rule_set *graft_rules_table(const graft_rules *r)
{
    return &r->lw->rs;
}

bool api_rules_fit(const graft_rules *r, const graft_graph *g, graft_diag *d)
{
    int opset = registry_onnx_opset(r->rf->registry);
    bool onnx = graph_ir(g) == IR_ONNX;
    if (opset && !onnx)
        diag_plain_error(d, "the model is a Relay model, but the rules are for ONNX "
                         "('opset onnx %d')", opset);
    else if (!opset && onnx)
        diag_plain_error(d, "the model is an ONNX model, but the rules are for Relay; a rule "
                         "file for ONNX starts with 'opset onnx N'");
    return (opset != 0) == onnx;
}
