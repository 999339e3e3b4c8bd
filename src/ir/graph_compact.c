/* graph_compact.c - the memory of dead nodes and of positions returned
 * (graph_release_dead, graph_drop_positions), and the kill of a replaced
 * node's cone as a pass goes (graph_kill_cone). */
#include "graph.h"

#include "graph_impl.h"

/* note [dead blocks]: a dead node keeps its memory in the block it was
 * cut from (note [node pool] in graph.c) until the graph is freed, and a
 * rewrite's peak comes after its passes, while its output is printed:
 * the workload's Relay rewrite replaces each of its 10,000 arithmetic
 * batch norms by a new call, and the loader's nodes it leaves dead, about
 * 690 bytes a copy, were half the node memory at the peak.  When the
 * passes are done, graph_release_dead frees every block all of whose
 * nodes are dead.  It moves no node: a live node's address is in its
 * users' slots, in the users lists, in the tables of the IRs' writers and
 * in whatever else holds it, and none of those changes.  A freed node's
 * entry in the node table points to the graph's one released node
 * instead, a dead tuple of no operands: a walk by id that skips dead
 * nodes (every one does: a dead node is never reached again, note
 * [sweep] in graph_walk.c) reads only its dead flag, and one that reads
 * more reads a node with nothing to follow.  No live node points to a
 * dead one: a sweep unlinks a dead node's uses from its operands' lists,
 * and its own users are dead; the roots (the output, @main's parameters,
 * the global functions) live.  The global functions' blocks are kept all
 * the same, as the writers read their table without a walk, and the
 * table holds a global's NODE_GLOBAL too, live or not.
 * Blocks with a live node stay whole: the loader's blocks of the rewrite
 * are its parameters or its dead batch norms, so nearly all that is dead
 * goes (bench/RESULTS.md, "Session 26: the dead nodes' blocks and the
 * positions freed before printing").  Nodes are cut in id order, so a
 * block's nodes are the ids from its first (kept with it) to the next
 * block's first: a block is known to live at its first live node, and
 * only a dead block's entries are all read, then set; a node too large
 * for a block (the arena's) among them counts as the block's. */

/* Whether n was cut from block. */
static bool in_block(const NodeBlock *block, const graft_node *n)
{
    uintptr_t at = (uintptr_t)n, start = (uintptr_t)block->mem;
    return at >= start && at - start < NODE_BLOCK;
}

/* The id past block b's last node: the next block's first. */
static uint32_t block_end(const graft_graph *g, size_t b)
{
    return b + 1 < g->node_blocks.len ? g->node_blocks.items[b + 1].first_id : g->nnodes;
}

/* note [blocks freed as a pass goes]: a rewrite pass frees dead blocks
 * between its groups (note [kill as the pass goes]), dozens of times, and
 * a block whose first nodes died but not its last would be read from its
 * first id each time, a quadratic walk where each pass's kills leave
 * blocks half dead.  So each block keeps the id below which its nodes are
 * known dead (dead_upto), and a scan starts there: a dead node stays dead
 * (graph_kill_given's parameters, killed and revived in one call, are
 * never seen dead here), so every id of a block is read dead at most once
 * in the graph's life. */

/* Whether a node of an id of block b lives: one cut from b, or one the
 * arena holds (too large for a block) made between two of b's, which
 * keeps b all the same.  Moves b's dead_upto past the dead ones read. */
static bool block_lives(graft_graph *g, size_t b)
{
    graft_node **at = g->nodes + g->node_blocks.items[b].dead_upto;
    graft_node **end = g->nodes + block_end(g, b);
    while (at < end && (*at)->dead)
        at++;
    g->node_blocks.items[b].dead_upto = (uint32_t)(at - g->nodes);
    return at < end;
}

/* Whether block b holds one of the nodes the writers read from the table
 * of global functions, not by a walk: a function, or its NODE_GLOBAL. */
static bool block_holds_global(const graft_graph *g, size_t b)
{
    const NodeBlock *block = &g->node_blocks.items[b];
    for (int i = 0; i < g->nglobals; i++)
        if ((g->globals[i].fn && in_block(block, g->globals[i].fn)) ||
            (g->globals[i].ref && in_block(block, g->globals[i].ref)))
            return true;
    return false;
}

/* Whether block b is freed: all its ids' nodes dead, no global's node in
 * it, and not the block the node pool is cut from. */
static bool block_released(graft_graph *g, size_t b)
{
    return b + 1 < g->node_blocks.len && !block_lives(g, b) && !block_holds_global(g, b);
}

size_t graph_release_dead(graft_graph *g)
{
    if (!g->ndead)
        return 0;
    size_t kept = 0, nblocks = g->node_blocks.len;
    for (size_t b = 0; b < nblocks; b++) {
        NodeBlock block = g->node_blocks.items[b];
        if (!block_released(g, b)) {
            g->node_blocks.items[kept++] = block;
            continue;
        }
        for (graft_node **at = g->nodes + block.first_id, **end = g->nodes + block_end(g, b);
             at < end; at++)
            *at = &g->released; /* (an arena's dead node among them too) */
        free(block.mem);
    }
    g->node_blocks.len = kept;
    return (nblocks - kept) * (size_t)NODE_BLOCK;
}

void graph_drop_positions(graft_graph *g)
{
    free(g->pos);
    g->pos = NULL;
    g->pos_cap = 0;
    g->pos_want = 0;
}

/* note [kill as the pass goes]: the copies a rewrite replaces died at the
 * sweep after its pass (note [kill of given nodes] in graph_walk.c), so
 * the pass's peak held both the model's nodes and the replacements: on
 * the workload's Relay rewrite 7.4 MB of replaced batch norms beside 3 MB
 * of new calls.  In a graph where graph_kill_given may sweep (every live
 * node reached, no function), a replaced root no node uses any more is
 * unreachable, and so is each operand left without a user, so they can
 * die at once, and their blocks be freed while the pass goes on
 * (graph_release_dead, note [blocks freed as a pass goes]).  The pass
 * itself must not read them after (src/runtime/rewrite.c, note [killed
 * as replaced]).  Variables are left alive: graph_kill_given revives
 * @main's parameters after its kill, reading all of them, which once a
 * root would be quadratic; a variable left without a user is kept in
 * orphan_vars, and the pass's sweep, which reads every parameter once,
 * takes it from there as one of its given nodes (or a walk's sweep finds
 * it unreached).  So the pass's sweep leaves the same nodes dead as
 * before. */
/* Drops dying n's use of value by slot operand from value's users, and
 * stacks value when that was its last use: always when its word held it,
 * its one user (note [users word] in graph_users.c), so no count is tested. */
static inline void leave_operand(graft_graph *g, graft_node *n, int operand,
                                 graft_node *value)
{
    if (node_users_listed(value)) {
        value->nusers--; /* (graph_users_remove's, a pair's removal inline) */
        if (graph_users_unpair(g, value, n, operand))
            return;
        graph_users_remove_listed(g, value, n, operand);
        if (value->nusers)
            return;
    } else {
        value->users = 0;
        value->nusers = 0;
    }
    vec_push(&g->cone, value);
}

uint32_t graph_kill_cone(graft_graph *g, graft_node *root)
{
    g->cone.len = 0;
    vec_push(&g->cone, root);
    uint32_t killed = 0;
    while (g->cone.len) {
        graft_node *n = g->cone.items[--g->cone.len];
        if (n->dead || n->nusers || n == g->output)
            continue;
        if (n->kind == NODE_VAR) {
            vec_push(&g->orphan_vars, n->id);
            continue;
        }
        n->dead = 1;
        killed++;
        graft_node **slots = node_slots(n), **callee = node_callee_slot(n);
        for (int i = 0; i < n->nargs; i++)
            leave_operand(g, n, i, slots[i]);
        if (callee)
            leave_operand(g, n, USE_CALLEE, *callee);
    }
    g->ndead += killed;
    return killed;
}
