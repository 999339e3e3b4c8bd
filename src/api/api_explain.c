/* api_explain.c - graft explain into memory (graft_api.h): why rules
 * match or not at a node, or a rule's near misses, in the main graph and,
 * in an ONNX model, inside its subgraphs, as graft explain takes its
 * steps (src/runtime/runner_explain.c): a node "GRAPH/NAME" is looked for
 * in the subgraphs once the main graph has no such node, and near misses
 * are listed per graph, the subgraphs' first, each line saying in which
 * ("in subgraph then_body: ", "in the main graph: "). */
#include "api_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "graft_api_onnx.h"
#include "subgraph_walk.h"

enum { NEAR_MISSES = 5 }; /* graft explain's --near default */

/* What explaining one graph needs, for the main graph and each subgraph. */
typedef struct Explaining {
    const graft_rule_set *rs;
    const graft_limits *lim;
    const char *at;     /* the node asked about, or NULL: near misses */
    uint32_t only;      /* the rule asked about, or UINT32_MAX: every rule */
    bool found;         /* at's node was found */
    bool subgraphs;     /* the model has subgraphs: say which graph a list is of */
    FILE *out;
    StrBuf where;       /* "subgraph NAME" */
} Explaining;

/* The index of the rule named name, or UINT32_MAX. */
static uint32_t find_rule(const graft_rule_set *rs, const char *name)
{
    for (uint32_t i = 0; i < rs->nrules; i++)
        if (strcmp(rs->rules[i].name, name) == 0)
            return i;
    return UINT32_MAX;
}

/* What ex asks of one graph, g (names its nodes' names, NULL: from g; a
 * subgraph's named where). */
static void explain_graph(Explaining *ex, graft_graph *g, const NodeLabels *names,
                          const char *where)
{
    EngineOptions o = {.limits = ex->lim, .untimed = true, .names = names};
    graft_engine *e = engine_new(ex->rs, g, &o);
    Explainer *x = explainer_new(e, NULL, ex->out);
    graft_node *n = ex->at && !ex->found ? explainer_find(x, ex->at) : NULL;
    if (n) {
        ex->found = true;
        for (uint32_t i = 0; i < ex->rs->nrules; i++)
            if (ex->only == UINT32_MAX || i == ex->only)
                explainer_at(x, i, n);
    } else if (!ex->at) {
        ex->where.len = 0;
        if (where)
            strbuf_printf(&ex->where, "subgraph %s", where);
        if (where || ex->subgraphs)
            explainer_in_graph(x, where ? ex->where.data : "the main graph", where != NULL);
        explainer_near(x, ex->only, NEAR_MISSES);
    }
    explainer_free(x);
    engine_free(e);
}

/* The subgraph walk's leave: ex's explanation in subgraph v. */
static Onnx__GraphProto *explain_view(void *ctx, SubgraphView *v, bool changed)
{
    (void)changed;
    explain_graph(ctx, v->m->g, &v->labels, v->name);
    return NULL;
}

/* The subgraphs of g's ONNX model (onnx, when it has any), then g; for
 * a node, g first and the subgraphs only when it has no such node (a
 * subgraph's names hold a '/').  False after reporting through d. */
static bool explain_graphs(Explaining *ex, graft_graph *g, OnnxModel *onnx, graft_diag *d)
{
    bool ok = true;
    if (ex->at)
        explain_graph(ex, g, NULL, NULL);
    SubgraphVisitor vis = {.leave = explain_view, .ctx = ex};
    if (ex->subgraphs && !(ex->at && (ex->found || !strchr(ex->at, '/'))))
        ok = subgraph_walk(onnx, ex->rs, NULL, &vis, d);
    if (ok && !ex->at)
        explain_graph(ex, g, NULL, NULL);
    if (ok && ex->at && !ex->found) {
        diag_plain_error(d, "no node '%s' in the model (name it as 'graft fmt' prints it, "
                         "or by its position, :LINE[:COL])", ex->at);
        ok = false;
    }
    return ok;
}

char *graft_rules_explain(const graft_rules *r, graft_graph *g, const char *at,
                          const char *rule, const graft_limits *lim, graft_diag *d)
{
    Explaining ex = {.rs = &r->lw->rs, .lim = lim, .at = at, .only = UINT32_MAX};
    if (!at && !rule) {
        diag_plain_error(d, "nothing to explain: give a node (at) or a rule");
        return NULL;
    }
    if (rule && (ex.only = find_rule(ex.rs, rule)) == UINT32_MAX) {
        diag_plain_error(d, "no rule '%s' in the rules", rule);
        return NULL;
    }
    if (!api_rules_fit(r, g, d))
        return NULL;
    char *text = NULL;
    size_t len = 0;
    if (!(ex.out = open_memstream(&text, &len))) {
        diag_plain_error(d, "cannot open a memory stream for the explanation");
        return NULL;
    }
    OnnxModel *onnx = api_onnx_is(g) ? api_onnx_model(g) : NULL;
    ex.subgraphs = onnx && subgraph_any(onnx);
    bool ok = explain_graphs(&ex, g, onnx, d);
    strbuf_free(&ex.where);
    fclose(ex.out);
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}
