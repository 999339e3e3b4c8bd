/* graft_api.c - libgraft's public functions (graft.h): each the graft_
 * name of one internal step, so a program that links libgraft sees only
 * graft_ names (note [public names] in graft.h). */
#include "graft.h"

#include <stdlib.h>

#include "diag.h"
#include "engine.h"
#include "engine_impl.h"
#include "graph.h"
#include "limit.h"
#include "ruleset.h"
#include "stats.h"
#include "util.h"

/* ---- diagnostics ---- */

graft_diag *graft_diag_new(FILE *out)
{
    return diag_new(out);
}

void graft_diag_free(graft_diag *d)
{
    diag_free(d);
}

unsigned graft_diag_errors(const graft_diag *d)
{
    return diag_errors(d);
}

unsigned graft_diag_warnings(const graft_diag *d)
{
    return diag_warnings(d);
}

/* ---- limits ---- */

graft_limits *graft_limits_new(void)
{
    graft_limits *lim = xmalloc(sizeof *lim);
    *lim = limit_defaults;
    return lim;
}

void graft_limits_free(graft_limits *lim)
{
    free(lim);
}

bool graft_limits_set(graft_limits *lim, const char *spec, graft_diag *d)
{
    StrBuf why = {0};
    bool ok = limit_parse(lim, spec, &why);
    if (!ok)
        diag_plain_error(d, "%s", why.data);
    strbuf_free(&why);
    return ok;
}

void graft_limits_print(const graft_limits *lim, FILE *out)
{
    limit_print(limit_or_default(lim), out);
}

uint32_t graft_node_id(const graft_node *n)
{
    return node_id(n);
}

const char *graft_node_op(const graft_node *n)
{
    return node_op(n);
}

/* ---- rule sets ---- */

uint32_t graft_rule_count(const graft_rule_set *rs)
{
    return rs->nrules;
}

const char *graft_rule_name(const graft_rule_set *rs, uint32_t rule)
{
    return rule < rs->nrules ? rs->rules[rule].name : NULL;
}

/* ---- running ---- */

graft_engine *graft_engine_new(const graft_rule_set *rs, graft_graph *g,
                               const graft_run_options *opts)
{
    EngineOptions o = {0};
    if (opts) {
        o.max_rewrites = opts->max_rewrites;
        o.trace = opts->trace;
        o.limits = opts->limits;
        o.model = opts->model;
    }
    return engine_new(rs, g, &o);
}

void graft_engine_free(graft_engine *e)
{
    engine_free(e);
}

bool graft_engine_rewrite(graft_engine *e, graft_diag *d)
{
    return engine_rewrite(e, d);
}

void graft_engine_partition(graft_engine *e)
{
    engine_partition(e);
}

bool graft_engine_run(graft_engine *e, graft_diag *d)
{
    return engine_run(e, d);
}

void graft_engine_matches(graft_engine *e, graft_match_fn fn, void *ctx)
{
    engine_matches(e, fn, ctx);
}

void graft_engine_print_stats(const graft_engine *e, FILE *out, bool times)
{
    stats_print(engine_stats(e), e->rs, out, times);
}
