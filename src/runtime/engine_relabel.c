/* engine_relabel.c - relabelling what a rewrite pass changed, found
 * through the users lists instead of a sweep over a topological order. */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* note [relabelling through users]: engine_relabel_changed relabels, in
 * topological order, the nodes marked dirty, the nodes made and never
 * labelled, and every node a pattern operand of which changed state; it
 * needs that order, a walk of the whole graph, after every pass that
 * rewrote.  The same nodes can be reached from the first two kinds
 * through the users lists, when those give every pattern operand: when
 * no rule looks inside functions, lets or ifs (no scopes), a node's
 * pattern operands are its arguments, each a use in the operand's list.
 * So the region the change can reach is closed over the users (R below),
 * and R is labelled in a topological order of its own (Kahn's: a node
 * once its operands inside R are done), so that each node is labelled
 * once, after its operands, as the sweep does: the same nodes labelled,
 * the same states, the same count.  The region is made before the sweep
 * (the users lists then still hold the nodes about to die, which are
 * passed over), and only up to REGION_MAX nodes, in arrays of its own
 * with a small table from id to member: a change that reaches more costs
 * its first REGION_MAX nodes and the caller sweeps with an order, as
 * before; one that reaches fewer costs no per-id array at all.
 * On the workload's rewrite the region is the output tuple alone
 * (bench/RESULTS.md, "Session 22: the last round without an order"). */

/* The largest region relabelled through the users, and the slots of its
 * table from id to member (twice as many: at most half full). */
enum { REGION_MAX = 64, REGION_SLOTS = 128 };

enum { SEED = 1, CHANGED = 2 };

/* The region a pass's change can reach, made before the sweep. */
struct EngineRegion {
    uint32_t n;                  /* members */
    uint32_t id[REGION_MAX];     /* members' ids, seeds first */
    uint32_t indeg[REGION_MAX];  /* members' operands in the region not labelled */
    uint8_t flag[REGION_MAX];    /* SEED, CHANGED */
    uint16_t slot[REGION_SLOTS]; /* member index + 1 by hash of id, 0 empty */
    uint32_t count;              /* graph_node_count when made */
};

/* The slot of id in r's table: its member's, or the empty one it would
 * take. */
static uint16_t *region_slot(EngineRegion *r, uint32_t id)
{
    uint32_t h = (id * 2654435761u) >> 25; /* 7 bits: REGION_SLOTS */
    while (r->slot[h] && r->id[r->slot[h] - 1] != id)
        h = (h + 1) & (REGION_SLOTS - 1);
    return &r->slot[h];
}

/* The member index of id, or -1. */
static int region_find(EngineRegion *r, uint32_t id)
{
    return (int)*region_slot(r, id) - 1;
}

/* Adds id (once) with flag; its member index, or -1 when r is full. */
static int region_add(EngineRegion *r, uint32_t id, uint8_t flag)
{
    uint16_t *slot = region_slot(r, id);
    if (!*slot) {
        if (r->n == REGION_MAX)
            return -1;
        r->id[r->n] = id;
        r->indeg[r->n] = 0;
        r->flag[r->n] = 0;
        *slot = (uint16_t)++r->n;
    }
    r->flag[*slot - 1] |= flag;
    return *slot - 1;
}

/* Whether n's use k is a pattern operand of its user (no scopes: an
 * argument of a node that is not opaque, never a callee). */
static bool pattern_use(const graft_node *n, int k)
{
    return node_user_operand(n, k) != USE_CALLEE && !node_is_opaque(node_user(n, k));
}

/* The first id of [from, n) marked in dirty, or n: eight marks a load
 * where none is set (a pass marks few of the graph's nodes). */
static uint32_t next_dirty(const uint8_t *dirty, uint32_t from, uint32_t n)
{
    while (from < n && (from & 7))
        if (dirty[from++])
            return from - 1;
    for (; from + 8 <= n; from += 8) {
        uint64_t word;
        memcpy(&word, dirty + from, sizeof word);
        if (word)
            break;
    }
    for (; from < n; from++)
        if (dirty[from])
            return from;
    return n;
}

/* The seeds: nodes marked dirty, and nodes made since upto and never
 * labelled (engine_relabel_changed's first two reasons); some may die in
 * the sweep, and are then passed over.  False when they overflow r. */
static bool region_seed(graft_engine *e, EngineRegion *r, uint32_t upto)
{
    uint32_t ndirty = e->dirty_cap < r->count ? (uint32_t)e->dirty_cap : r->count;
    for (uint32_t id = next_dirty(e->dirty, 0, ndirty); id < ndirty;
         id = next_dirty(e->dirty, id + 1, ndirty))
        if (region_add(r, id, SEED) < 0)
            return false;
    for (uint32_t id = upto; id < r->count; id++)
        if (labels_state_id(e->labels, id) == STATE_NONE && region_add(r, id, SEED) < 0)
            return false;
    return true;
}

/* Closes the region over the users, counting each member's operands in
 * it; false when it overflows. */
static bool region_close(EngineRegion *r, const graft_graph *g)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const graft_node *n = graph_node(g, r->id[i]);
        for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
            if (!pattern_use(n, k))
                continue;
            int user = region_add(r, node_id(node_user(n, k)), 0);
            if (user < 0)
                return false;
            r->indeg[user]++;
        }
    }
    return true;
}

void engine_region_free(EngineRegion *r)
{
    free(r);
}

EngineRegion *engine_region(graft_engine *e, uint32_t upto)
{
    if (automaton_has_scopes(labels_automaton(e->labels)))
        return NULL;
    EngineRegion *r = xmalloc(sizeof *r);
    r->n = 0;
    r->count = graph_node_count(e->g);
    memset(r->slot, 0, sizeof r->slot);
    if (!region_seed(e, r, upto) || !region_close(r, e->g)) {
        free(r);
        return NULL;
    }
    return r;
}

/* Relabels member m when engine_relabel_changed would: a seed, or an
 * operand whose state changed. */
static void relabel(graft_engine *e, EngineRegion *r, int m)
{
    const graft_node *n = graph_node(e->g, r->id[m]);
    bool need = r->flag[m] & SEED;
    int na = node_is_opaque(n) ? 0 : node_nargs(n);
    for (int k = 0; k < na && !need; k++) {
        int op = region_find(r, node_id(node_arg(n, k)));
        need = op >= 0 && (r->flag[op] & CHANGED);
    }
    if (!need)
        return;
    uint32_t old = labels_state(e->labels, n);
    if (labels_node(e->labels, n) != old)
        r->flag[m] |= CHANGED;
    e->stats.labelled++;
}

/* After the sweep: labels the region's live members operands first, a
 * node once its operands in the region are done (a dead node is no
 * operand of a live one, and the sweep took it out of the users lists).
 * reached NULL: the sweep was graph_kill_given's, which marks nothing.
 * Returns whether a live member's state offers a rule now. */
bool engine_region_relabel(graft_engine *e, EngineRegion *r, const uint8_t *reached,
                           uint32_t *upto)
{
    int ready[REGION_MAX], nready = 0; /* each member goes in once */
    bool offering = false;
    for (uint32_t m = 0; m < r->n; m++)
        if (r->indeg[m] == 0 && (reached ? reached[r->id[m]] & 1
                                         : graph_clean_reached(e->g, r->id[m])))
            ready[nready++] = (int)m;
    while (nready) {
        int m = ready[--nready];
        relabel(e, r, m);
        offering = offering || labels_id_offers(e->labels, r->id[m]);
        const graft_node *n = graph_node(e->g, r->id[m]);
        for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
            int user = pattern_use(n, k) ? region_find(r, node_id(node_user(n, k))) : -1;
            if (user >= 0 && --r->indeg[user] == 0)
                ready[nready++] = user;
        }
    }
    if (e->dirty_cap)
        memset(e->dirty, 0, e->dirty_cap);
    *upto = r->count;
    free(r);
    return offering;
}
