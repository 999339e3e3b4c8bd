/* graph_walk.c - functions, iterative traversals and dead-node removal. */
#include "graph.h"

#include <string.h>

#include "graph_impl.h"
#include "util.h"

/* The i-th child of n in traversal order: the callee, then the operands;
 * for a function its parameters, then its body.  NULL past the end. */
static Node *child(const Node *n, int i)
{
    if (n->kind == NODE_FUNC) {
        const FuncInfo *fn = n->u.fn;
        if (i < fn->nparams)
            return fn->params[i];
        return i == fn->nparams ? fn->body : NULL;
    }
    if (n->callee) {
        if (i == 0)
            return n->callee->value;
        i--;
    }
    return i < n->nargs ? n->slots[i].value : NULL;
}

/* One frame of the explicit DFS stack. */
typedef struct Frame {
    Node *node; /* node being expanded */
    int next;   /* index of its next child to visit */
} Frame;

/* Post-order DFS from root without recursion.  seen (graph_node_count
 * bytes) marks visited nodes; each newly finished node is stored in
 * order (when not NULL) and counted. */
static uint32_t post_order(Node *root, uint8_t *seen, Node **order,
                           uint32_t count)
{
    Frame *stack = NULL;
    size_t cap = 0, depth = 0;
    if (!root || seen[root->id])
        return count;
    xgrow((void **)&stack, &cap, 1, sizeof(Frame));
    stack[depth++] = (Frame){root, 0};
    seen[root->id] = 1;
    while (depth) {
        Frame *f = &stack[depth - 1];
        Node *c = child(f->node, f->next++);
        if (!c) {
            if (order)
                order[count] = f->node;
            count++;
            depth--;
        } else if (!seen[c->id]) {
            seen[c->id] = 1;
            xgrow((void **)&stack, &cap, depth + 1, sizeof(Frame));
            stack[depth++] = (Frame){c, 0};
        }
    }
    free(stack);
    return count;
}

uint32_t graph_topo_order(const Graph *g, Node **order)
{
    uint8_t *seen = xcalloc(g->nnodes ? g->nnodes : 1, 1);
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->dead)
            seen[i] = 1;
    uint32_t n = post_order(g->output, seen, order, 0);
    free(seen);
    return n;
}

/* Drops a dead node's uses from its operands' users lists. */
static void unlink_operands(Node *n)
{
    for (int i = 0; i < n->nargs; i++)
        graph_unlink_use(&n->slots[i]);
    if (n->callee)
        graph_unlink_use(n->callee);
}

/* Marks what the output reaches (and @main's parameters) live; every
 * other node not dead yet dies now and leaves its operands' users lists. */
uint32_t graph_remove_dead(Graph *g)
{
    uint8_t *live = xcalloc(g->nnodes ? g->nnodes : 1, 1);
    post_order(g->output, live, NULL, 0);
    for (int i = 0; i < g->nparams; i++)
        live[g->params[i]->id] = 1;
    uint32_t killed = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (live[i] || n->dead)
            continue;
        n->dead = 1;
        killed++;
        unlink_operands(n);
    }
    free(live);
    return killed;
}

/* Takes the nodes computed inside a new function into its scope: every
 * node reachable from the body, created after the function's first
 * parameter, and not a variable, constant or function (note [function
 * scope]). */
static void adopt_body(Node *fn, uint32_t min_id)
{
    Node **stack = NULL;
    size_t cap = 0, depth = 0;
    Node *body = fn->u.fn->body;
    xgrow((void **)&stack, &cap, 1, sizeof(Node *));
    stack[depth++] = body;
    while (depth) {
        Node *n = stack[--depth];
        if (n->scope == fn || n->id < min_id || n->kind == NODE_VAR ||
            n->kind == NODE_CONST)
            continue;
        n->scope = fn;
        if (n->kind == NODE_FUNC)
            continue;
        int nchildren = n->nargs + (n->callee != NULL);
        xgrow((void **)&stack, &cap, depth + (size_t)nchildren, sizeof(Node *));
        for (int i = 0; i < nchildren; i++)
            stack[depth++] = child(n, i);
    }
    free(stack);
}

/* note [function scope]: graph_add_func puts the body and every node
 * computed from it into the new function's scope, up to variables,
 * constants, other functions and nodes created before the function's
 * first parameter (those belong to an enclosing scope).  Both the loader
 * (parameters are made when "fn (" is read) and partitioning (parameters
 * first, then the body over them) build functions in that order. */
Node *graph_add_func(Graph *g, Node *const *params, int nparams, Node *body,
                     const Attr *attrs, int nattrs)
{
    Node *n = graph_new_node(g, NODE_FUNC, 0);
    graph_set_attrs(g, n, attrs, nattrs);
    FuncInfo *fn = arena_alloc(g->arena, sizeof(FuncInfo));
    fn->params = arena_array(g->arena, (size_t)(nparams ? nparams : 1),
                             sizeof(Node *));
    uint32_t min_id = 0;
    for (int i = 0; i < nparams; i++) {
        fn->params[i] = params[i];
        params[i]->scope = n;
        if (i == 0 || params[i]->id < min_id)
            min_id = params[i]->id;
    }
    fn->nparams = nparams;
    fn->body = body;
    n->u.fn = fn;
    if (body)
        adopt_body(n, min_id);
    return n;
}
