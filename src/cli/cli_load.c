/* cli_load.c - loading rules and a model for graft run and match. */
#include "cli_load.h"

#include <string.h>

#include "cli.h"
#include "frontend.h"
#include "relay.h"

bool cli_load(const char *const *paths, int n, const graft_limits *limits, Loaded *out,
                 graft_diag *d)
{
    memset(out, 0, sizeof *out);
    FrontendOptions opts = {.limits = limits};
    cli_frontend_options(&opts);
    RuleFile *rf = frontend_load(paths, n - 1, &opts, d);
    if (!rf)
        return false;
    out->rules = lower_rules(rf, d);
    rulefile_free(rf);
    if (!out->rules)
        return false;
    out->src = source_read(paths[n - 1], d);
    out->g = out->src ? relay_load_limited(out->src, limits, d) : NULL;
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
