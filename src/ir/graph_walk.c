/* graph_walk.c - functions, iterative traversals and dead-node removal. */
#include "graph.h"

#include <string.h>

#include "graph_impl.h"
#include "util.h"
#include "walk.h"

/* The i-th child of n in traversal order: the callee, then the operands;
 * for a function its parameters, then its body.  NULL past the end.
 * Inlined into each caller: a fourth (graph_child) made GCC call it out
 * of line in graph_reached_by_ids, 18 instructions an op node more on
 * Relay's load. */
GRAFT_HOT graft_node *child(const graft_node *n, int i)
{
    if (n->kind == NODE_FUNC) {
        const FuncInfo *fn = n->u.fn;
        if (i < fn->nparams)
            return fn->params[i];
        return i == fn->nparams ? fn->body : NULL;
    }
    graft_node *const *callee = node_callee_slot(n);
    if (callee) {
        if (i == 0)
            return *callee;
        i--;
    }
    return i < n->nargs ? node_arg(n, i) : NULL;
}

/* note [module roots]: a module's nodes are those the output reaches,
 * then those each other global function reaches (its NODE_FUNC, after
 * its parameters and body), in definition order; so a one-function model
 * walks as before, and rules see inside every function. */
graft_node **graph_roots(const graft_graph *g)
{
    graft_node **roots = xmalloc(((size_t)g->nglobals + 2) * sizeof *roots);
    uint32_t n = 0;
    if (g->output)
        roots[n++] = g->output;
    for (int i = 0; i < g->nglobals; i++)
        if (g->globals[i].fn)
            roots[n++] = g->globals[i].fn;
    roots[n] = NULL;
    return roots;
}

/* The live nodes from the roots in post-order (note [node walk]), into
 * order or ids (each when not NULL); the walk's marks are left in *seen
 * (graph_node_count bytes, the caller frees them) when seen is not NULL,
 * and the count of functions reached in *nfuncs. */
static uint32_t topo_walk(const graft_graph *g, graft_node **order, uint32_t *ids,
                          uint8_t **seen, uint32_t *nfuncs)
{
    GraphWalk w;
    graph_walk_start(g, &w);
    uint32_t n = 0;
    for (graft_node *node; (node = graph_walk_next(&w)); n++) {
        if (order)
            order[n] = node;
        if (ids)
            ids[n] = node_id(node);
    }
    if (nfuncs)
        *nfuncs = w.nfuncs;
    if (seen) {
        *seen = w.seen;
        w.seen = NULL;
    }
    graph_walk_end(&w);
    return n;
}

uint32_t graph_topo_order(const graft_graph *g, graft_node **order)
{
    return topo_walk(g, order, NULL, NULL, NULL);
}

uint32_t graph_topo_ids(const graft_graph *g, uint32_t *ids)
{
    return topo_walk(g, NULL, ids, NULL, NULL);
}

/* note [compact walk]: no walk copies the graph into flat arrays of
 * every node's kind, flags and children by id first.  The printer did
 * until session 26 (graph_arrays_build, for its two walks), as the
 * labeller did before note [node walk]; the copy is a pass over every node
 * and a store of every operand, for walks that each read a node's few
 * fields once or twice, which the node, in cache then, gives at a load
 * more each (note [walks on the nodes] in relay_print_number.c:
 * -186 instructions per op node on the workload's Relay partition).
 * Per-id arrays pay when the graph itself is them (doc/architecture.md's
 * target), not as a copy. */

/* note [node walk]: the labeller reads every live node once anyway (its
 * kind, its op, its operands' states), so the flat arrays of note
 * [compact walk] would only cost it: it takes the nodes in graph_topo_order's
 * order from graph_walk_next, which walks the nodes themselves, and
 * labels each as it comes.  The arrays' builder (which asked each node's
 * class), the walk over them and a loop over the order were three passes
 * with a per-id array each (children, classes, order); this is one, 395
 * -> 278 instructions per op node of the first labelling of the
 * workload's Relay rewrite (bench/RESULTS.md, "Session 24: labelling in
 * the walk").  The children are graph_child's, as the arrays list them, so
 * the order is the same.  A node without children is handed out as it is
 * entered, never pushed: most nodes are parameters and constants.  The
 * walk is inline (graph.h), so that its stack stays in the labeller's
 * registers.  graph_topo_order, graph_topo_ids and the sweeps are this
 * walk too, so there is one implementation of the order: with the flat
 * arrays of note [compact walk] they cost a copy of every node's
 * children first, and the workload's partition 0.3 M instructions more
 * (bench/RESULTS.md, "Session 25: one walk order"); cachegrind counts
 * the same cache misses either way at 100,000 copies. */
graft_node *graph_child(const graft_node *n, int i)
{
    return child(n, i);
}

static void reach_root(const graft_node *root, uint8_t *reached)
{
    if (root && !root->dead)
        reached[root->id] = 1;
}

typedef VEC(uint32_t) IdStack;

/* Marks n's children, as child() lists them, for graph_reached_by_ids;
 * false when one comes at or after n's id. */
static bool reach_by_ids_children(const graft_node *n, uint8_t *reached)
{
    const graft_node *c;
    for (int i = 0; (c = child(n, i)); i++) {
        if (c->id >= n->id)
            return false;
        if (!c->dead)
            reached[c->id] = 1;
    }
    return true;
}

/* note [reached plain calls]: most reached nodes with children are
 * calls of an op (no callee slot, not a function), whose children are
 * their operand slots in order: the sweeps read those straight from the
 * slots, and leave functions and calls of a function value to child()'s
 * order, which asks the node's kind again for each child.  A variable
 * or a constant is told by its count of operands and its kind, before
 * plain_call asks for a callee slot.  On the workload, 85 -> 64
 * instructions per op node of graph_reached_by_ids on Relay's load, and
 * 205 -> 162 of graph_reached on the ONNX partition's export
 * (bench/RESULTS.md, "Session 25, round 2: the reached sweeps and the
 * node builder"). */
static inline bool plain_call(const graft_node *n)
{
    return n->kind != NODE_FUNC && !node_callee_slot(n);
}

/* Whether n is told to have no children by its kind and count alone:
 * a variable, a constant (most reached nodes), an empty tuple. */
static inline bool childless_kind(const graft_node *n)
{
    return n->nargs == 0 && n->kind != NODE_FUNC && n->kind != NODE_CALL;
}

/* note [reached by users]: a graph no edit has relinked (the loader's)
 * has every node after its operands, and a function after its parameters
 * and body (a new node reads only nodes made before it).  With no live
 * function (whose parameters and body it holds by no use record) and no
 * root but the output, a node other than the output is then reached
 * exactly when a live node uses it: its users come after it, so going
 * down the ids, each is reached or is unused.  So when no live node but
 * a variable lacks a user (nothing is garbage: no unused binding), the
 * reached nodes are the live ones with a user, and the output: one read
 * of each node in id order, none of its operands (graph_reached_by_ids
 * 64 -> 26 instructions per op node on Relay's load, bench/RESULTS.md,
 * "Session 25, round 2: the reached sweeps and the node builder").  A
 * variable without a user is an unused parameter: not reached.  The marks
 * are the sweep's either way, so graph_reached_by_ids_how tells which
 * ran, for the tests that hold each graph to its way. */
static bool reached_by_users(const graft_graph *g, uint8_t *reached)
{
    if (g->relinked)
        return false;
    for (int i = 0; i < g->nglobals; i++)
        if (g->globals[i].fn) /* a root besides the output */
            return false;
    for (uint32_t id = 0; id < g->nnodes; id++) {
        const graft_node *n = g->nodes[id];
        if (n->dead)
            continue;
        if (n->users || n == g->output) { /* (0: no user, note [users word] in graph_users.c) */
            reached[id] = 1;
            if (n->kind != NODE_FUNC)
                continue;
        } else if (n->kind == NODE_VAR) {
            continue;
        }
        memset(reached, 0, id + 1); /* garbage or a function: the sweep's */
        return false;
    }
    return true;
}

/* graph_reached_by_ids's sweep down the ids, from the roots. */
static bool reached_by_sweep(const graft_graph *g, uint8_t *reached)
{
    reach_root(g->output, reached);
    for (int i = 0; i < g->nglobals; i++)
        reach_root(g->globals[i].fn, reached);
    for (uint32_t id = g->nnodes; id-- > 0;) {
        if (!reached[id])
            continue;
        const graft_node *n = g->nodes[id];
        if (childless_kind(n))
            continue;
        if (!plain_call(n)) {
            if (!reach_by_ids_children(n, reached))
                return false;
            continue;
        }
        graft_node *const *slots = node_slots(n); /* note [reached plain calls] */
        int nargs = n->nargs; /* (read once: a store to reached may alias it) */
        for (int i = 0; i < nargs && slots[i]; i++) {
            const graft_node *c = slots[i];
            if (c->id >= id)
                return false;
            if (!c->dead)
                reached[c->id] = 1;
        }
    }
    return true;
}

ReachedBy graph_reached_by_ids_how(const graft_graph *g, uint8_t *reached)
{
    if (reached_by_users(g, reached))
        return REACHED_BY_USERS;
    return reached_by_sweep(g, reached) ? REACHED_BY_SWEEP : REACHED_NOT;
}

bool graph_reached_by_ids(const graft_graph *g, uint8_t *reached)
{
    return graph_reached_by_ids_how(g, reached) != REACHED_NOT;
}

/* Marks c, when not marked yet, and puts it on later when the sweep has
 * passed its id (at); false for NULL, the end of a node's children. */
static inline bool reach(const graft_node *c, uint32_t at, uint8_t *reached, IdStack *later)
{
    if (!c)
        return false;
    if (c->dead || reached[c->id])
        return true;
    reached[c->id] = 1;
    if (c->id >= at)
        vec_push(later, c->id);
    return true;
}

/* n's children as child() lists them, read straight from the node
 * (child() asks its kind again for each; and a third caller of it made
 * GCC call it where it was inlined, 19 instructions an op node more on
 * Relay's load, bench/onnx_e2e.sh). */
static void reach_children(const graft_node *n, uint32_t at, uint8_t *reached, IdStack *later)
{
    if (n->kind == NODE_FUNC) {
        const FuncInfo *fn = n->u.fn;
        for (int i = 0; i < fn->nparams; i++)
            if (!reach(fn->params[i], at, reached, later))
                return;
        reach(fn->body, at, reached, later);
        return;
    }
    graft_node *const *callee = node_callee_slot(n);
    if (callee && !reach(*callee, at, reached, later))
        return;
    for (int i = 0; i < n->nargs && reach(node_arg(n, i), at, reached, later); i++)
        ;
}

/* reach_children for graph_reached's sweep and stack, with the common
 * nodes inline: variables and constants, which have no children, and
 * plain calls (note [reached plain calls]). */
GRAFT_HOT void reach_from(const graft_node *n, uint32_t at, uint8_t *reached, IdStack *later)
{
    if (childless_kind(n))
        return;
    if (!plain_call(n)) {
        reach_children(n, at, reached, later);
        return;
    }
    graft_node *const *slots = node_slots(n);
    int nargs = n->nargs; /* (read once: a store to reached may alias it) */
    for (int i = 0; i < nargs && reach(slots[i], at, reached, later); i++)
        ;
}

/* note [swept graph]: a dead-node sweep (kill_unmarked, after a walk or
 * graph_reached from the roots) leaves every live node reached but
 * @main's parameters, which it keeps: a used one is reached through its
 * users, all live.  Until the graph changes, then, graph_reached need not
 * sweep: the live nodes are the reached ones, but for @main's unused
 * parameters (the output aside).  Every change that could make a live
 * node unreached or a dead one reached goes through graph.c and
 * graph_module.c (a new node, graph_set_arg, graph_replace_all_uses, the
 * output, a global function, @main made), and each clears graft_graph's
 * swept.  A caller that knows a sweep would kill nothing says so with
 * graph_set_swept (the partition's pass that moved its regions into
 * functions, note [no sweep] in src/runtime/partition.c), and
 * graph_kill_given leaves the graph as clean as it found it.  So the ONNX
 * export reads it after the workload's partition and rewrite
 * (graph_reached 9.7 M -> 1.9 M on the ONNX partition, 2.9 M -> 1.3 M on
 * the ONNX rewrite, bench/RESULTS.md, "Session 25, round 2: the reached
 * sweeps and the node builder"). */
void graph_set_swept(graft_graph *g)
{
    g->swept = true;
}

static void reached_when_swept(const graft_graph *g, uint8_t *reached)
{
    for (uint32_t id = 0; id < g->nnodes; id++)
        reached[id] = !g->nodes[id]->dead;
    for (int i = 0; i < g->nparams; i++) {
        const graft_node *p = g->params[i];
        if (!p->nusers && p != g->output)
            reached[p->id] = 0;
    }
}

/* note [reached by a sweep]: the sweep of graph_reached_by_ids, which
 * visits each reached node once with no walk's arrays, and a stack only
 * for a child marked after the sweep passed its id (a node of the model
 * reading one a rewrite made: issue 28's output tuple, its 2,000 batch
 * norms); what those reach below the sweep's place it leaves to the
 * sweep.  Each reached node's children are marked once: at its id by the
 * sweep, or when popped. */
void graph_reached(const graft_graph *g, uint8_t *reached)
{
    if (g->swept) {
        reached_when_swept(g, reached);
        return;
    }
    IdStack later = {0}; /* marked, at or after the sweep's place, children not yet */
    reach_root(g->output, reached);
    for (int i = 0; i < g->nglobals; i++)
        reach_root(g->globals[i].fn, reached);
    for (uint32_t id = g->nnodes; id-- > 0;) {
        if (!reached[id])
            continue;
        reach_from(g->nodes[id], id, reached, &later);
        while (later.len)
            reach_from(g->nodes[later.items[--later.len]], id, reached, &later);
    }
    vec_free(&later);
}

void graph_order_free(GraphOrder *o)
{
    free(o->ids);
    memset(o, 0, sizeof *o);
}

/* Drops a dead node's uses from its operands' users lists. */
static void unlink_operands(graft_graph *g, graft_node *n)
{
    for (int i = 0; i < n->nargs; i++)
        graph_unlink_slot(g, n, i);
    if (node_callee_slot(n))
        graph_unlink_slot(g, n, USE_CALLEE);
}

/* Kills every node not marked live[] and not dead yet: it leaves its
 * operands' users lists.  @main's parameters always live: they get bit 1,
 * so bit 0 still tells the nodes the walk reached. */
static uint32_t kill_unmarked(graft_graph *g, uint8_t *live)
{
    for (int i = 0; i < g->nparams; i++)
        live[g->params[i]->id] |= 2;
    uint32_t killed = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        graft_node *n = g->nodes[i];
        if (live[i] || n->dead)
            continue;
        n->dead = 1;
        killed++;
        unlink_operands(g, n);
    }
    g->ndead += killed;
    g->swept = true; /* note [swept graph] */
    g->orphan_vars.len = 0; /* the unused among them died (note [kill as the pass goes]) */
    return killed;
}

/* Marks what the roots reach (and @main's parameters) live; every
 * other node not dead yet dies now and leaves its operands' users lists. */
uint32_t graph_remove_dead(graft_graph *g)
{
    uint8_t *live;
    topo_walk(g, NULL, NULL, &live, NULL);
    uint32_t killed = kill_unmarked(g, live);
    free(live);
    return killed;
}

/* note [sweep]: an edit that replaced nodes is followed by a dead-node
 * sweep and, before the next pass, a topological order: one walk makes
 * both.  A dead node is never reachable again (it was unreachable when it
 * died, and edits only link live nodes), so the walk that orders the live nodes
 * reaches exactly what the dead-node sweep's walk reaches; and the nodes
 * dying now are unreachable, so the
 * order is the one graph_topo_order gives after the sweep. */
uint32_t graph_sweep_order(graft_graph *g, graft_node **order, bool *clean)
{
    uint8_t *seen;
    uint32_t nfuncs;
    uint32_t n = topo_walk(g, order, NULL, &seen, &nfuncs);
    *clean = nfuncs == 0; /* the reached are the live, after the kill */
    kill_unmarked(g, seen);
    free(seen);
    return n;
}

uint32_t graph_remove_dead_order(graft_graph *g, graft_node **order)
{
    bool clean;
    return graph_sweep_order(g, order, &clean);
}

/* note [sweep without order]: after a rewrite pass the next candidate
 * lists want an order only when some live node's state offers a rule;
 * the last round of every rewrite finds none, and its order (the flat
 * arrays and the walk of graph_remove_dead_order) was the rewrite's
 * memory peak.  So the sweep can be graph_reached's, which needs no
 * arrays, and leave the order to whoever wants it
 * (note [relabelling through users] in src/runtime/engine_relabel.c). */
uint32_t graph_remove_unreached(graft_graph *g, uint8_t *reached)
{
    graph_reached(g, reached);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        n += reached[i];
    kill_unmarked(g, reached);
    return n;
}

/* note [kill of given nodes]: the sweep after a rewrite pass kills the
 * nodes no root reaches any more; graph_remove_unreached reads every node
 * twice for it (the marks, then the kill), 148 instructions per op node
 * on the workload's rewrite.  When, before the pass, every live node but
 * @main's unused parameters was reached and no node is a function (a
 * function holds its parameters and body through no use record), a live
 * node is reached exactly when a live node uses it or it is the output or
 * one of @main's parameters: the graph is acyclic, so going down from the
 * roots, a node with a reached user is reached, and one whose users all
 * died is not.  A node loses its last user only when the pass moved its
 * uses away (a replaced root: graph_replace_all_uses) or when that user
 * dies, and a node the pass made may have had none from the start.  So
 * the kill starts from those two kinds and follows each dead node's
 * operands that lose their last use: it kills the nodes the sweep would,
 * reading only them and their operands, and leaves the graph as clean as
 * it found it. */

/* Whether node id is one a walk from the roots would list, in a clean
 * graph (note [kill of given nodes]): live, and no unused parameter. */
bool graph_clean_reached(const graft_graph *g, uint32_t id)
{
    const graft_node *n = g->nodes[id];
    return !n->dead && (n->kind != NODE_VAR || n->nusers || n == g->output);
}

uint32_t graph_clean_reached_count(const graft_graph *g)
{
    uint32_t unused = 0;
    for (int i = 0; i < g->nparams; i++)
        unused += !g->params[i]->users && g->params[i] != g->output; /* (as reached_by_users) */
    return g->nnodes - g->ndead - unused;
}

/* Drops dead n's uses from its operands' users lists (unlink_operands)
 * and puts on dying each operand left with no user: an operand read
 * twice is put on when its second use goes. */
static void unlink_orphan(graft_graph *g, graft_node *n, int operand, IdStack *dying)
{
    graft_node *value = graph_unlink_slot(g, n, operand);
    if (!value->nusers)
        vec_push(dying, value->id);
}

static void unlink_orphans(graft_graph *g, graft_node *n, IdStack *dying)
{
    for (int i = 0; i < n->nargs; i++)
        unlink_orphan(g, n, i, dying);
    if (node_callee_slot(n))
        unlink_orphan(g, n, USE_CALLEE, dying);
}

/* @main's parameters killed as unused variables live again (they always
 * live: kill_unmarked); returns how many. */
static uint32_t revive_params(graft_graph *g)
{
    uint32_t revived = 0;
    for (int i = 0; i < g->nparams; i++)
        if (g->params[i]->dead) {
            g->params[i]->dead = 0;
            revived++;
        }
    return revived;
}

uint32_t graph_kill_given(graft_graph *g, const uint32_t *given, size_t ngiven, uint32_t first)
{
    IdStack dying = {0};
    size_t norphans = g->orphan_vars.len; /* (note [kill as the pass goes] in graph_compact.c) */
    vec_reserve(&dying, ngiven + norphans + (g->nnodes - first) + 1);
    for (size_t i = 0; i < ngiven; i++)
        dying.items[dying.len++] = given[i];
    for (uint32_t id = first; id < g->nnodes; id++) {
        if (g->nodes[id]->kind == NODE_FUNC) { /* no longer clean: nothing killed */
            vec_free(&dying);
            return UINT32_MAX;
        }
        dying.items[dying.len++] = id;
    }
    for (size_t i = 0; i < norphans; i++)
        dying.items[dying.len++] = g->orphan_vars.items[i];
    g->orphan_vars.len = 0;
    uint32_t killed = 0;
    bool vars = false;
    while (dying.len) {
        graft_node *n = g->nodes[dying.items[--dying.len]];
        if (n->dead || n->nusers || n == g->output)
            continue;
        n->dead = 1;
        killed++;
        vars |= n->kind == NODE_VAR; /* maybe one of @main's parameters */
        unlink_orphans(g, n, &dying);
    }
    vec_free(&dying);
    if (vars)
        killed -= revive_params(g);
    g->ndead += killed;
    g->swept = true; /* as clean as it was (note [swept graph]) */
    return killed;
}

/* Takes the nodes computed inside a new function into its scope: every
 * node reachable from the body, created after the function's first
 * parameter, and not a variable, constant or function (note [function
 * scope]). */
static void adopt_body(uint32_t *fn_id, graft_node *fn, uint32_t min_id)
{
    WALK(graft_node *) w = {0};
    walk_push(&w, fn->u.fn->body);
    while (w.depth) {
        graft_node *n = walk_pop(&w);
        if (n->id < min_id || n->kind == NODE_VAR || n->kind == NODE_CONST ||
            n->kind == NODE_GLOBAL || fn_id[n->id] == fn->id + 1)
            continue;
        fn_id[n->id] = fn->id + 1;
        if (n->kind == NODE_FUNC)
            continue;
        int nchildren = n->nargs + (node_callee_slot(n) != NULL);
        walk_reserve(&w, (size_t)nchildren);
        for (int i = 0; i < nchildren; i++)
            walk_push_reserved(&w, child(n, i));
    }
    walk_free(&w);
}

/* note [function scope]: graph_add_func puts the body and every node
 * computed from it into the new function's scope, up to variables,
 * constants, other functions and nodes created before the function's
 * first parameter (those belong to an enclosing scope).  Both the loader
 * (parameters are made when "fn (" is read) and partitioning (parameters
 * first, then the body over them) build functions in that order. */
static void scope_body(graft_graph *g, graft_node *n, graft_node *const *params, int nparams,
                       graft_node *body)
{
    uint32_t *fn_id = graph_scopes_over(g, n); /* (note [scope table] in graph_node.h) */
    uint32_t min_id = 0;
    for (int i = 0; i < nparams; i++) {
        fn_id[params[i]->id] = n->id + 1;
        if (i == 0 || params[i]->id < min_id)
            min_id = params[i]->id;
    }
    n->u.fn->body = body;
    if (body && body->id >= min_id) /* else it is not new: nothing to adopt */
        adopt_body(fn_id, n, min_id);
}

/* note [scopes dropped before printing]: the scope table is 4 bytes a
 * node id, made by the first function put in the graph (note [scope
 * table] in graph_node.h): a partition's output holds it while it is
 * printed, 760,008 bytes of the workload's Relay partition's peak at
 * 10,000 copies (13 an op node).  The Relay printer reads no node's
 * scope: it prints a function's body from the function's node, through
 * the body's operands, and numbers and names by id.  So a run that
 * prints Relay frees the table before, with what else the passes leave
 * (runner.c's release_pass_memory); the ONNX writer asks each node's
 * scope (a subgraph's nodes are not the main graph's), and its runs keep
 * it.  The interner's table goes too (note
 * [interner table dropped] in arena.c): the printer interns nothing. */
void graph_drop_scopes(graft_graph *g)
{
    free(g->side.scopes.fn_id);
    g->side.scopes.fn_id = NULL;
    g->side.scopes.cap = 0;
    g->side.scopes.dropped = true; /* note [scopes after the drop] in graph_node.h */
}

void graph_drop_name_table(graft_graph *g)
{
    interner_drop_table(g->strings);
}

graft_node *graph_add_func(graft_graph *g, graft_node *const *params, int nparams, graft_node *body,
                     const graft_attr *attrs, int nattrs)
{
    graft_node *n = graph_new_func(g, params, nparams, attrs, nattrs);
    scope_body(g, n, params, nparams, body);
    return n;
}

/* A NODE_FUNC of params, with no attributes, body or scope yet; with
 * its tail word for attributes when it will have some (note [tail word]
 * in graph.c). */
static graft_node *func_node(graft_graph *g, graft_node *const *params, int nparams, bool tail)
{
    graft_node *n =
        tail ? graph_new_tailed_node(g, NODE_FUNC, 0) : graph_new_node(g, NODE_FUNC, 0);
    FuncInfo *fn = arena_alloc_raw(g->arena, func_info_size(nparams)); /* written whole: */
    *fn = (FuncInfo){.nparams = nparams};                                /* not zeroed first */
    for (int i = 0; i < nparams; i++)
        fn->params[i] = params[i];
    n->u.fn = fn;
    return n;
}

graft_node *graph_new_func(graft_graph *g, graft_node *const *params, int nparams,
                           const graft_attr *attrs, int nattrs)
{
    graft_node *n = func_node(g, params, nparams, nattrs > 0);
    graph_set_attrs(g, n, attrs, nattrs);
    return n;
}

/* func_node and scope_body in one, for the partition's 10,000 functions
 * of bench/workload.sh: the FuncInfo written whole, not zeroed first, and
 * each parameter copied and put in the function's scope in one loop (60
 * instructions a function fewer). */
graft_node *graph_add_func_sharing(graft_graph *g, graft_node *const *params, int nparams,
                                   graft_node *body, const graft_attr *attrs, int nattrs)
{
    graft_node *n =
        nattrs ? graph_new_tailed_node(g, NODE_FUNC, 0) : graph_new_node(g, NODE_FUNC, 0);
    FuncInfo *fn = arena_alloc_raw(g->arena, func_info_size(nparams));
    graft_node **own = fn->params;
    uint32_t *fn_id = graph_scopes_over(g, n); /* (note [scope table] in graph_node.h) */
    uint32_t scope = n->id + 1, min_id = 0;
    for (int i = 0; i < nparams; i++) {
        own[i] = params[i];
        fn_id[params[i]->id] = scope;
        if (i == 0 || params[i]->id < min_id)
            min_id = params[i]->id;
    }
    *fn = (FuncInfo){.body = body, .nattrs = nattrs, .nparams = nparams}; /* (not params) */
    n->u.fn = fn;
    if (nattrs)
        graph_new_tail(n, 0)->attrs = attrs; /* (note [tail word] in graph.c) */
    if (body && body->id >= min_id) /* else it is not new: nothing to adopt (scope_body) */
        adopt_body(fn_id, n, min_id);
    return n;
}

