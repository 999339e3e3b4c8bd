/* api_explain.c - graft explain into memory (graft_api.h): why rules
 * match or not at a node, or a rule's near misses, in the main graph and,
 * in an ONNX model, inside its subgraphs, as graft explain takes its
 * steps (src/runtime/runner_explain.c): a node "GRAPH/NAME" is looked for
 * in the subgraphs once the main graph has no such node, and near misses
 * are listed per graph, the subgraphs' first, each line saying in which
 * ("in subgraph then_body: ", "in the main graph: "): the same steps,
 * runner_explain_graphs, into a memory stream. */
#include "api_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "graft_api_onnx.h"
#include "onnx_graph.h"
#include "runner.h"

enum { NEAR_MISSES = 5 }; /* graft explain's --near default */

/* ask's explanation, graft explain's steps (runner_explain_graphs), with
 * no node of at's name an error.  False after reporting through d. */
static bool explain(const graft_rules *r, graft_graph *g, const ExplainAsk *ask,
                    graft_diag *d)
{
    OnnxModel *onnx = api_onnx_is(g) ? api_onnx_model(g) : NULL;
    bool found = false;
    CheckAllCount count = {0};
    if (!runner_explain_graphs(&r->lw->rs, g, onnx, ask, &found, &count, d))
        return false;
    if (ask->at && !found) {
        diag_plain_error(d, "no node '%s' in the model (name it as 'graft fmt' prints it, "
                         "or by its position, :LINE[:COL])", ask->at);
        return false;
    }
    return true;
}

char *graft_rules_explain(const graft_rules *r, graft_graph *g, const char *at,
                          const char *rule, const graft_limits *lim, graft_diag *d)
{
    ExplainAsk ask = {.limits = lim, .at = at, .only = UINT32_MAX, .near = NEAR_MISSES,
                      .untimed = true};
    if (!at && !rule) {
        diag_plain_error(d, "nothing to explain: give a node (at) or a rule");
        return NULL;
    }
    if (rule && (ask.only = runner_find_rule(&r->lw->rs, rule)) == UINT32_MAX) {
        diag_plain_error(d, "no rule '%s' in the rules", rule);
        return NULL;
    }
    if (!api_rules_fit(r, g, d))
        return NULL;
    char *text = NULL;
    size_t len = 0;
    if (!(ask.out = open_memstream(&text, &len))) {
        diag_plain_error(d, "cannot open a memory stream for the explanation");
        return NULL;
    }
    bool ok = explain(r, g, &ask, d);
    fclose(ask.out);
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}
