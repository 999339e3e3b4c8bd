/* graph_control.c - the nodes of whole modules beyond dataflow: global
 * function references, op values, let, if and match (graph.h). */
#include "graph.h"

#include <string.h>

#include "graph_impl.h"
#include "util.h"

int node_nclauses(const graft_node *n)
{
    return n->kind == NODE_MATCH ? n->u.match->nclauses : 0;
}

const MatchClause *node_clause(const graft_node *n, int i)
{
    return &n->u.match->clauses[i];
}

bool node_match_complete(const graft_node *n)
{
    return n->kind == NODE_MATCH && n->flag;
}

void graph_set_free(graft_graph *g, graft_node *var)
{
    (void)g;
    var->flag = 1;
}

/* A node with nslots operands read from args. */
static graft_node *with_operands(graft_graph *g, NodeKind kind, graft_node *const *args, int nslots)
{
    graft_node *n = graph_new_node(g, kind, nslots);
    graph_set_operands(g, n, args, nslots);
    return n;
}

graft_node *graph_global_ref(graft_graph *g, const char *name)
{
    int i = graph_find_global(g, name);
    if (i < 0) {
        graph_add_global(g, name, NULL);
        i = g->nglobals - 1;
        g->globals[i].defined = false;
    }
    GlobalDef *def = &g->globals[i];
    if (!def->ref) {
        def->ref = graph_new_short_node(g, NODE_GLOBAL);
        def->ref->str = def->name;
    }
    return def->ref;
}

graft_node *graph_add_opref(graft_graph *g, const char *name)
{
    graft_node *n = graph_new_short_node(g, NODE_OPREF);
    n->str = graph_intern(g, name);
    return n;
}

graft_node *graph_add_let(graft_graph *g, graft_node *var, graft_node *value, graft_node *body)
{
    graft_node *args[3] = {var, value, body};
    return with_operands(g, NODE_LET, args, 3);
}

graft_node *graph_add_if(graft_graph *g, graft_node *cond, graft_node *then_branch,
                         graft_node *else_branch)
{
    graft_node *args[3] = {cond, then_branch, else_branch};
    return with_operands(g, NODE_IF, args, 3);
}

graft_node *graph_add_match(graft_graph *g, graft_node *data, const MatchClause *clauses,
                      graft_node *const *results, int nclauses, bool complete)
{
    graft_node *n = graph_new_node(g, NODE_MATCH, nclauses + 1);
    graft_node **args = xmalloc(((size_t)nclauses + 1) * sizeof *args);
    args[0] = data;
    memcpy(args + 1, results, (size_t)nclauses * sizeof *args);
    graph_set_operands(g, n, args, nclauses + 1);
    free(args);
    MatchInfo *info = arena_alloc(g->arena, sizeof *info);
    MatchClause *copy = arena_array(g->arena, (size_t)nclauses + 1, sizeof *copy);
    for (int i = 0; i < nclauses; i++) {
        copy[i].npieces = clauses[i].npieces;
        copy[i].pieces = arena_dup(g->arena, clauses[i].pieces,
                                   (size_t)clauses[i].npieces * sizeof(ClausePiece));
    }
    info->clauses = copy;
    info->nclauses = nclauses;
    n->u.match = info;
    n->flag = complete;
    return n;
}
