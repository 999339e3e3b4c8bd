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
    const RunOptions *o;
    const Source *model;
    uint32_t only;      /* the rule of --rule, or UINT32_MAX */
    bool found;         /* --at's node was found */
    bool subgraphs;     /* the model has subgraphs */
    StrBuf where;       /* "subgraph NAME" */
    CheckAllCount count; /* --check-all's, over every graph */
} Explaining;

/* The rule named name, or UINT32_MAX. */
static uint32_t find_rule(const graft_rule_set *rs, const char *name)
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

/* What o asks of one graph, g (names its nodes' names, NULL: from g; in
 * a subgraph named where). */
static void explain_graph(Explaining *ex, graft_graph *g, const NodeLabels *names,
                          const char *where)
{
    EngineOptions opts = {.limits = &ex->o->limits, .names = names};
    graft_engine *e = engine_new(ex->rs, g, &opts);
    Explainer *x = explainer_new(e, ex->model, stdout);
    graft_node *n = ex->o->at && !ex->found ? explainer_find(x, ex->o->at) : NULL;
    if (ex->o->check_all) {
        explainer_check_graph(x, &ex->count);
    } else if (n) {
        ex->found = true;
        for (uint32_t r = 0; r < ex->rs->nrules; r++)
            if (ex->only == UINT32_MAX || r == ex->only)
                explainer_at(x, r, n);
    } else if (!ex->o->at) {
        ex->where.len = 0;
        if (where)
            strbuf_printf(&ex->where, "subgraph %s", where);
        if (where || ex->subgraphs)
            explainer_in_graph(x, where ? ex->where.data : "the main graph", where != NULL);
        explainer_near(x, ex->only, ex->o->near ? ex->o->near : 5);
    }
    explainer_free(x);
    engine_free(e);
}

/* The subgraph walk's leave: o's explanation in subgraph v. */
static Onnx__GraphProto *explain_view(void *ctx, SubgraphView *v, bool changed)
{
    (void)changed;
    explain_graph(ctx, v->m->g, &v->labels, v->name);
    return NULL;
}

/* The subgraphs of onnx, then g; for --at, g first and the subgraphs
 * only when it has no such node (a subgraph's names hold a '/').  For
 * --rewritten, each rewritten first.  False after reporting through d. */
static bool explain_graphs(Explaining *ex, graft_graph *g, OnnxModel *onnx, graft_diag *d)
{
    const RunOptions *o = ex->o;
    EngineOptions opts = {.limits = &o->limits};
    if (onnx && o->rewritten && !subgraph_rules_run(ex->rs, onnx, &opts, NULL, d))
        return false;
    graft_engine *e = engine_new(ex->rs, g, &opts);
    bool ok = !o->rewritten || engine_rewrite(e, d);
    engine_free(e); /* the graph stays rewritten */
    if (ok && o->at)
        explain_graph(ex, g, NULL, NULL);
    SubgraphVisitor vis = {.leave = explain_view, .ctx = ex};
    if (ok && onnx && !(o->at && (ex->found || !strchr(o->at, '/'))))
        ok = subgraph_walk(onnx, ex->rs, ex->model ? ex->model->name : NULL, &vis, d);
    if (ok && !o->at)
        explain_graph(ex, g, NULL, NULL);
    return ok;
}

/* --at NODE named a function or node that no graph has: reported. */
static int not_found(const Explaining *ex, const graft_graph *g, graft_diag *d)
{
    const char *file = ex->model ? ex->model->name : "the model";
    const char *at = ex->o->at;
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
    Explaining ex = {.rs = rs, .o = o, .model = model, .only = UINT32_MAX};
    if (!runner_explaining(o)) {
        diag_plain_error(d, "nothing to explain: give --at NODE, --rule NAME or --check-all");
        return EXIT_USAGE;
    }
    if (o->rule && (ex.only = find_rule(rs, o->rule)) == UINT32_MAX) {
        diag_plain_error(d, "no rule '%s' in the rules", o->rule);
        return EXIT_BAD_INPUT;
    }
    if (o->at && o->at[0] == '@' && !has_global(g, o->at))
        return not_found(&ex, g, d);
    OnnxModel *onnx = runner_onnx_model(o);
    ex.subgraphs = onnx && subgraph_any(onnx);
    bool ok = explain_graphs(&ex, g, onnx, d);
    strbuf_free(&ex.where);
    if (!ok)
        return EXIT_BAD_INPUT;
    int rc = EXIT_OK;
    if (o->check_all) {
        explainer_check_summary(stdout, rs->nrules, &ex.count);
        rc = ex.count.bad ? EXIT_BAD_INPUT : EXIT_OK;
    } else if (o->at && !ex.found) {
        rc = not_found(&ex, g, d);
    }
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_plain_error(d, "cannot write standard output: %s", strerror(errno ? errno : EIO));
        rc = EXIT_BAD_INPUT;
    }
    return rc;
}
