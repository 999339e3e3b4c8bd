/* runner_explain.c - graft explain's steps, which graft run and compiled
 * rewriters take too (runner.h): the main graph, and in an ONNX model
 * its subgraphs as graft run rewrites them (note [subgraph walk] in
 * subgraph_walk.h), their nodes named "GRAPH/NAME" (note [subgraph node
 * names] in node_label.h). */
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "options.h"
#include "subgraph_rules.h"
#include "subgraph_walk.h"

/* What explaining one graph needs, for the main graph and each subgraph. */
typedef struct Explaining {
    const graft_rule_set *rs;
    const ExplainAsk *ask;
    bool found;           /* ask->at's node was found */
    bool subgraphs;       /* the model has subgraphs */
    StrBuf where;         /* "subgraph NAME" */
    CheckAllCount *count; /* --check-all's, over every graph */
} Explaining;

uint32_t runner_find_rule(const graft_rule_set *rs, const char *name)
{
    for (uint32_t r = 0; r < rs->nrules; r++)
        if (strcmp(rs->rules[r].name, name) == 0)
            return r;
    return UINT32_MAX;
}

/* Whether g has the global function that @f:... names. */
static bool has_global(const graft_graph *g, const char *at)
{
    size_t len = strcspn(at + 1, ":");
    for (int i = 0; i < graph_nglobals(g); i++)
        if (strlen(graph_global_name(g, i)) == len &&
            strncmp(graph_global_name(g, i), at + 1, len) == 0)
            return true;
    return false;
}

/* What ex asks of one graph, g (names its nodes' names, NULL: from g; in
 * a subgraph named where). */
static void explain_graph(Explaining *ex, graft_graph *g, const NodeLabels *names,
                          const char *where)
{
    const ExplainAsk *ask = ex->ask;
    EngineOptions opts = {.limits = ask->limits, .names = names, .untimed = ask->untimed};
    graft_engine *e = engine_new(ex->rs, g, &opts);
    Explainer *x = explainer_new(e, ask->model, ask->out);
    graft_node *n = ask->at && !ex->found ? explainer_find(x, ask->at) : NULL;
    if (ask->check_all) {
        explainer_check_graph(x, ex->count);
    } else if (n) {
        ex->found = true;
        for (uint32_t r = 0; r < ex->rs->nrules; r++)
            if (ask->only == UINT32_MAX || r == ask->only)
                explainer_at(x, r, n);
    } else if (!ask->at) {
        ex->where.len = 0;
        if (where)
            strbuf_printf(&ex->where, "subgraph %s", where);
        if (where || ex->subgraphs)
            explainer_in_graph(x, where ? ex->where.data : "the main graph", where != NULL);
        explainer_near(x, ask->only, ask->near);
    }
    explainer_free(x);
    engine_free(e);
}

/* The subgraph walk's leave: the explanation in subgraph v. */
static Onnx__GraphProto *explain_view(void *ctx, SubgraphView *v, bool changed)
{
    (void)changed;
    explain_graph(ctx, v->m->g, &v->labels, v->name);
    return NULL;
}

bool runner_explain_graphs(const graft_rule_set *rs, graft_graph *g, OnnxModel *onnx,
                           const ExplainAsk *ask, bool *found, CheckAllCount *count,
                           graft_diag *d)
{
    Explaining ex = {.rs = rs, .ask = ask, .subgraphs = onnx && subgraph_any(onnx),
                     .count = count};
    bool ok = true;
    if (ask->at)
        explain_graph(&ex, g, NULL, NULL);
    SubgraphVisitor vis = {.leave = explain_view, .ctx = &ex};
    if (ex.subgraphs && !(ask->at && (ex.found || !strchr(ask->at, '/'))))
        ok = subgraph_walk(onnx, rs, ask->model ? ask->model->name : NULL, &vis, d);
    if (ok && !ask->at)
        explain_graph(&ex, g, NULL, NULL);
    strbuf_free(&ex.where);
    *found = ex.found;
    return ok;
}

/* For --rewritten, g and onnx's subgraphs rewritten first; then the
 * explanation.  False after reporting through d. */
static bool explain_graphs(const graft_rule_set *rs, graft_graph *g, OnnxModel *onnx,
                           const RunOptions *o, const ExplainAsk *ask, bool *found,
                           CheckAllCount *count, graft_diag *d)
{
    EngineOptions opts = {.limits = &o->limits};
    if (onnx && o->rewritten && !subgraph_rules_run(rs, onnx, &opts, NULL, d))
        return false;
    graft_engine *e = engine_new(rs, g, &opts);
    bool ok = !o->rewritten || engine_rewrite(e, d);
    engine_free(e); /* the graph stays rewritten */
    return ok && runner_explain_graphs(rs, g, onnx, ask, found, count, d);
}

/* --at NODE named a function or node that no graph has: reported. */
static int not_found(const Source *model, const graft_graph *g, const char *at, graft_diag *d)
{
    const char *file = model ? model->name : "the model";
    if (at[0] == '@' && !has_global(g, at)) /* @f:%3, a node of @f */
        diag_plain_error(d, "no function %.*s in '%s'", (int)strcspn(at, ":"), at, file);
    else
        diag_plain_error(d, "no node '%s' in '%s' (name it as 'graft fmt' prints it, or by "
                         "its position, :LINE[:COL])", at, file);
    return EXIT_BAD_INPUT;
}

int runner_explain(const graft_rule_set *rs, graft_graph *g, const Source *model,
                   const RunOptions *o, graft_diag *d)
{
    ExplainAsk ask = {.limits = &o->limits, .model = model, .out = stdout, .at = o->at,
                      .only = UINT32_MAX, .near = o->near ? o->near : 5,
                      .check_all = o->check_all};
    if (!runner_explaining(o)) {
        diag_plain_error(d, "nothing to explain: give --at NODE, --rule NAME or --check-all");
        return EXIT_USAGE;
    }
    if (o->rule && (ask.only = runner_find_rule(rs, o->rule)) == UINT32_MAX) {
        diag_plain_error(d, "no rule '%s' in the rules", o->rule);
        return EXIT_BAD_INPUT;
    }
    if (o->at && o->at[0] == '@' && !has_global(g, o->at))
        return not_found(model, g, o->at, d);
    bool found = false;
    CheckAllCount count = {0};
    if (!explain_graphs(rs, g, runner_onnx_model(o), o, &ask, &found, &count, d))
        return EXIT_BAD_INPUT;
    int rc = EXIT_OK;
    if (o->check_all) {
        explainer_check_summary(stdout, rs->nrules, &count);
        rc = count.bad ? EXIT_BAD_INPUT : EXIT_OK;
    } else if (o->at && !found) {
        rc = not_found(model, g, o->at, d);
    }
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_plain_error(d, "cannot write standard output: %s", strerror(errno ? errno : EIO));
        rc = EXIT_BAD_INPUT;
    }
    return rc;
}
