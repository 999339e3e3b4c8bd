/* rewrite.c - rewriting as TVM's PatternRewriter does.
 *
 * note [rewrite rounds]: (TVM v0.14 tvm/src/relay/ir/dataflow_matcher.cc,
 * PatternRewriter::Rewrite): the rewrite rules, best first (priority,
 * then file order), are TVM's callbacks in that order.  A round runs one
 * pass per rule over the whole graph: the pass makes its groups as
 * partitioning does (note [groups] in group.h: roots visited from the
 * outputs towards the inputs, a larger match nearer the output claims its
 * nodes first, overlapping and leaking matches dropped), then applies
 * them operands first, as TVM's mutator calls the callback at each group
 * root in post-order.  Bindings to a node that an earlier group of the
 * pass replaced read its replacement (TVM hands the callback the
 * rewritten nodes).  The next rule's pass sees the graph the previous one
 * left.  Rounds repeat until one changes nothing.  A [once] rule is TVM's
 * rewrite_once callback: it takes part in every round until one of its
 * passes changes the graph, then in none (PatternRewriter::Rewrite keeps
 * a done flag per callback, set when a pass of a rewrite_once callback
 * leaves a graph not structurally equal to the one it was given; graft
 * counts the pass's rewrites).
 *
 * So with hardswish := x * hsig(x) before hardsigmoid := hsig(x), the
 * hard-swish pass rewrites every x * hsig(x) before the hard-sigmoid pass
 * runs; and r [once] := r@cast(cast*(nn.dense(_, _))) => nn.relu(r) on
 * cast(cast(dense)) claims both casts at the outer one and gives
 * nn.relu(cast(cast(dense))).
 *
 * One automaton labelling serves every pass (note [one runtime]): after
 * a labelling, one sweep sorts the nodes into per-rule candidate lists by
 * the rules their state offers, so a pass visits only its rule's
 * candidates, and a pass that finds nothing costs nothing per node.  A
 * pass that changed the graph leaves the labels stale: the next pass
 * first relabels what changed (note [partition relabelling] in engine.c)
 * and sorts again.
 */
#include "group.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- trace ---- */

static void trace(const graft_engine *e, const graft_rule *rule, const graft_node *root,
                  const graft_node *by)
{
    StrBuf sb = {0};
    engine_node_name(e, root, &sb);
    strbuf_puts(&sb, " => ");
    engine_node_name(e, by, &sb);
    fprintf(e->opts.trace, "rewrite %s (%s:%d): %s\n", rule->name, rule->file, rule->line,
            sb.data);
    strbuf_free(&sb);
}

/* ---- candidates ---- */

/* A live node whose state offers rules.  By id: a pass may free the
 * node before the next lists read the offers (note [killed as
 * replaced]).  Its rules are looked up again from the state when the
 * lists are filled: 8 bytes an offer, not 16 with their count and
 * pointer (131,072 bytes less of the rewrite's peak on the workload,
 * 16,384 offers' room). */
typedef struct Offer {
    uint32_t id;    /* the node's */
    uint32_t state; /* its automaton state, which offers rules */
} Offer;

/* Per rule, the live nodes whose state offers it, outputs first. */
typedef struct Cands {
    uint32_t *start;  /* per rule r: its entries are nodes[start[r] ..
                         start[r + 1]) */
    graft_node **nodes;     /* the lists, one after another */
    size_t cap;       /* entries allocated in nodes */
    uint32_t upto;    /* nodes labelled so far (engine_relabel_changed),
                         0 before the first lists */
    bool stale;       /* the graph changed since the lists were made */
    uint32_t fresh;   /* e->order holds the fresh(-1) live nodes in
                         topological order already (made by the sweep
                         after a pass), or 0 */
    uint8_t *reached; /* or the sweep after a pass made no order, and
                         marked the nreached live nodes here (note [sweep
                         without order] in src/ir/graph_walk.c), or NULL */
    uint32_t nreached;
    bool killed;      /* or the sweep was a kill of given nodes and left
                         no marks (note [kill of given nodes] in
                         src/ir/graph_walk.c): nreached still counts */
    uint32_t pass_first; /* graph_node_count when the pass began */
    EngineRegion *region; /* with reached: what the pass's change can reach */
    VEC(Offer) offers; /* scratch: the nodes that offer rules, in order */
    uint32_t live;    /* live nodes when the lists were last made */
} Cands;

/* Puts node's offer in c->offers when its state offers rules, counting
 * them per rule; returns how many. */
static uint32_t offer(const graft_engine *e, Cands *c, graft_node *node)
{
    uint32_t nr, state = labels_state(e->labels, node);
    const uint32_t *cand = automaton_state_rules(e->a, state, &nr);
    if (!nr)
        return 0;
    for (uint32_t k = 0; k < nr; k++)
        c->start[cand[k] + 2]++;
    vec_push(&c->offers, ((Offer){node_id(node), state}));
    return nr;
}

/* Whether node id lives and a walk from the roots lists it, as the
 * sweep after the pass left the marks (or none: c->killed). */
static bool reached(const graft_engine *e, const Cands *c, uint32_t id)
{
    return c->killed ? graph_clean_reached(e->g, id) : c->reached[id] & 1;
}

/* note [offering after a region]: whether a live node offers a rule
 * after a pass relabelled through the users was a scan of every node's
 * state (1.75 M instructions on the workload's rewrite, to find none).
 * A live node's state changed since the last lists only if the region
 * relabelled it (engine_region_relabel tells), or it was made since
 * (ids from first on, labelled as made); any other's offers what it did,
 * and then it was in those lists (c->offers).  So those suffice. */
static bool offers_after_region(graft_engine *e, const Cands *c, uint32_t first)
{
    for (size_t i = 0; i < c->offers.len; i++) {
        uint32_t id = c->offers.items[i].id;
        if (reached(e, c, id) && labels_id_offers(e->labels, id))
            return true;
    }
    for (uint32_t id = first; id < graph_node_count(e->g); id++)
        if (labels_id_offers(e->labels, id) && reached(e, c, id))
            return true;
    return false;
}

/* Relabels what changed since the last lists; returns the count of
 * nodes in e->order for the lists to read, 0 when no live node's state
 * offers a rule (note [relabelling through users] in engine_relabel.c:
 * then no order is made). */
static uint32_t relabel(graft_engine *e, Cands *c)
{
    if (!c->reached && !c->killed) {
        uint32_t n = c->fresh ? c->fresh - 1 : engine_order(e);
        engine_relabel_changed(e, n, &c->upto);
        return n;
    }
    uint32_t first = c->upto; /* the nodes made since the last lists */
    bool offering = engine_region_relabel(e, c->region, c->reached, &c->upto);
    c->region = NULL;
    if (!offering && !offers_after_region(e, c, first))
        return 0;
    return engine_order(e);
}

/* Relabels what changed (everything the first time: note [first
 * labelling] in engine.c) and sorts the live nodes into the lists;
 * returns the count of live nodes. */
static uint32_t cands_build(graft_engine *e, Cands *c)
{
    uint32_t nrules = e->rs->nrules;
    memset(c->start, 0, ((size_t)nrules + 2) * sizeof *c->start);
    size_t total = 0;
    uint32_t n;
    if (c->upto == 0) { /* nothing labelled yet */
        c->offers.len = 0;
        uint32_t *ids, nids;
        n = engine_label_order(e, false, &ids, &nids, &c->upto);
        for (uint32_t i = 0; i < nids; i++) /* each state's rules looked up once */
            total += offer(e, c, graph_node(e->g, ids[i]));
        free(ids);
    } else {
        uint32_t ordered = relabel(e, c); /* 0 when nothing offers: no order */
        c->offers.len = 0; /* read by relabel: the last lists' */
        for (uint32_t i = labels_next_offering(e->labels, e->order, 0, ordered); i < ordered;
             i = labels_next_offering(e->labels, e->order, i + 1, ordered))
            total += offer(e, c, e->order[i]);
        n = c->reached || c->killed ? c->nreached : ordered;
    }
    free(c->reached);
    c->reached = NULL;
    c->killed = false;
    c->fresh = 0;
    for (uint32_t r = 0; r < nrules; r++) /* start[r + 2]: first of rule r + 1 */
        c->start[r + 2] += c->start[r + 1];
    c->nodes = xgrow_items(c->nodes, &c->cap, total + 1, sizeof *c->nodes);
    uint32_t state = UINT32_MAX, nr = 0; /* no offering state: it offers none */
    const uint32_t *rules = NULL;
    for (size_t j = c->offers.len; j-- > 0;) { /* outputs first */
        const Offer *o = &c->offers.items[j];
        graft_node *node = graph_node(e->g, o->id);
        if (o->state != state) /* the last offer's state, most often (the seeds') */
            rules = automaton_state_rules(e->a, state = o->state, &nr);
        for (uint32_t k = 0; k < nr; k++)
            c->nodes[c->start[rules[k] + 1]++] = node;
    }
    c->stale = false;
    c->live = n;
    return n;
}

/* ---- one pass ---- */

typedef VEC(graft_binding) BindingVec;

/* Inside a function that partitioning made: TVM's grouper never looks
 * there. */
static bool in_partitioned(const graft_graph *g, const graft_node *n)
{
    for (const graft_node *f = node_scope(g, n); f; f = node_scope(g, f))
        if (node_find_attr(f, "PartitionedFromPattern"))
            return true;
    return false;
}

/* What a node bound at match time stands for now: its replacement when
 * a group applied earlier in the pass replaced it (note [forwarding map]). */
static graft_node *current(const graft_engine *e, graft_node *n)
{
    while (n && node_id(n) < e->forward_cap && e->forward[node_id(n)])
        n = graph_node(e->g, e->forward[node_id(n)] - 1);
    return n;
}

/* note [forwarding map]: a pass replaces only roots of its groups, nodes
 * that were there when it began; so the map that says what each was
 * replaced by covers the ids below c->pass_first exactly, made once when
 * the pass has groups (fresh calloc'd pages, nothing cleared), and holds
 * 1 + the replacement's id (0: not replaced), 4 bytes an id.  A map of
 * pointers, doubled as it grew, was a megabyte of the rewrite's peak on
 * the workload (131,072 slots for 120,001 ids); this one is 480,008
 * bytes, freed when the pass ends. */
static void set_forward(graft_engine *e, const graft_node *from, const graft_node *to)
{
    e->forward[node_id(from)] = node_id(to) + 1; /* from: a root, below forward_cap */
}

/* Marks the users of root for relabelling before they read its
 * replacement, which may be an old node whose state did not change
 * (add(x, 0) => x), or a new one, labelled already (note [new nodes
 * labelled once] in engine.c).  Only these: the replacement's own users
 * can be many (every x of a chain of such rewrites).  A function whose
 * body root is reads it too, through no use record. */
static void mark_users(graft_engine *e, const graft_node *root)
{
    const graft_node *sole = node_sole_user(root); /* (most roots: the loop's tests once) */
    if (sole)
        engine_mark_dirty(e, node_id(sole));
    else
        for (int k = node_user_first(root); k < node_user_end(root);
             k = node_user_next(root, k))
            engine_mark_dirty(e, node_id(node_user(root, k)));
    const graft_node *fn = node_scope(e->g, root);
    if (fn && node_kind(fn) == NODE_FUNC && node_body(fn) == root)
        engine_mark_dirty(e, node_id(fn));
}

/* A slot of a node the action made that reads the matched root. */
typedef struct RootUse {
    graft_node *user; /* a node made by the action */
    int index;  /* its operand slot that reads the root */
} RootUse;

/* Moves the uses of root over to by, except the uses by the nodes the
 * action just made (ids from first_new on): in "y => exp(subtract(y, y))"
 * the new subtract must keep reading the old y, or the rewrite makes a
 * cycle (found by fuzz/fuzz_pipeline; tests/check_hostile.c). */
static void replace_root(graft_graph *g, graft_node *root, graft_node *by, uint32_t first_new)
{
    VEC(RootUse) keep = {0};
    uint32_t count = graph_node_count(g);
    for (uint32_t id = first_new; id < count; id++) {
        graft_node *n = graph_node(g, id);
        if (n == by) /* by itself reads what it reads */
            continue;
        for (int i = 0; i < node_nargs(n); i++)
            if (node_arg(n, i) == root)
                vec_push(&keep, ((RootUse){n, i}));
    }
    graph_replace_all_uses(g, root, by);
    for (size_t k = 0; k < keep.len; k++)
        graph_set_arg(g, keep.items[k].user, keep.items[k].index, root);
    vec_free(&keep);
}

/* Replaces root by by, the action's value for it: users marked, uses
 * moved, the replacement remembered for the pass, traced. */
static void replace(graft_engine *e, const graft_rule *rule, graft_node *root, graft_node *by,
                    uint32_t first_new)
{
    mark_users(e, root);
    replace_root(e->g, root, by, first_new);
    set_forward(e, root, by);
    if (e->opts.trace)
        trace(e, rule, root, by);
}

/* A group of a rule of several roots (note [root values] in
 * rewrite_build.c): each root replaced by its value; one rewrite, false
 * when every value is its root. */
static bool apply_roots(graft_engine *e, uint32_t r, const ActionPlaces *places, const Group *gr,
                        const graft_binding *bind, graft_node *const *roots)
{
    const graft_rule *rule = &e->rs->rules[r];
    if (!rewrite_places_known(e, places, bind)) {
        e->stats.rules[r].guard++;
        return false;
    }
    graft_node **by = xmalloc((size_t)gr->nroots * sizeof *by);
    double t0 = engine_clock(e);
    uint32_t first_new = graph_node_count(e->g);
    bool built = rewrite_build_roots(e, rule, bind, roots, by);
    e->stats.rules[r].seconds += engine_clock(e) - t0;
    for (int j = 0; built && j < gr->nroots; j++)
        built = graph_replacement_fits(e->g, roots[j], by[j]); /* note [fixed outputs] */
    if (!built)
        e->stats.rules[r].guard++; /* a compiled action's refusal, as above */
    bool changed = false;
    for (int j = 0; built && j < gr->nroots; j++)
        if (by[j] != roots[j]) {
            replace(e, rule, roots[j], by[j], first_new);
            changed = true;
        }
    free(by);
    if (changed) {
        e->stats.rules[r].applied++;
        e->stats.rewrites++;
    }
    return changed;
}

/* Applies one group of rule r, its bindings at match time in bind:
 * builds the action from the bindings as they read now and replaces the
 * root; false when the action gives the root back.  places: where the
 * action's values may lack (note [places that may lack a value] in
 * rewrite_build_known.c). */
static bool apply_group(graft_engine *e, const Grouper *gp, uint32_t r,
                        const ActionPlaces *places, const Group *gr, graft_binding *bind)
{
    const graft_rule *rule = &e->rs->rules[r];
    for (int s = 0; s < rule->nslots; s++)
        bind[s].node = current(e, bind[s].node);
    if (gr->nroots)
        return apply_roots(e, r, places, gr, bind, group_roots(gp, gr));
    graft_node *root = gr->root;
    if (!rewrite_places_known(e, places, bind)) {
        e->stats.rules[r].guard++; /* a computed attribute without a value */
        return false;
    }
    double t0 = engine_clock(e);
    uint32_t first_new = graph_node_count(e->g);
    graft_node *by = rewrite_build(e, rule, bind, root);
    e->stats.rules[r].seconds += engine_clock(e) - t0;
    if (!by || !graph_replacement_fits(e->g, root, by)) { /* note [fixed outputs] */
        e->stats.rules[r].guard++; /* as rewrite_places_known's refusal above */
        return false;
    }
    if (by == root)
        return false;
    replace(e, rule, root, by, first_new);
    e->stats.rules[r].applied++;
    e->stats.rewrites++;
    return true;
}

/* Appends the matcher's bindings of the match just kept to binds (note
 * [pass buffers] in group.c: one array for the pass, not one per group). */
static void save_bindings(const graft_engine *e, uint32_t r, BindingVec *binds)
{
    size_t n = (size_t)e->rs->rules[r].nslots;
    vec_reserve(binds, binds->len + n + 1); /* never NULL, even for no slots */
    memcpy(binds->items + binds->len, matcher_bindings(e->m), n * sizeof *binds->items);
    binds->len += n;
}

/* Whether another rewrite may be applied: at most limit + 1 (the one
 * that reports the bound), and no more than EngineOptions.stop_after. */
static bool room(const graft_engine *e, uint64_t limit)
{
    return e->stats.rewrites <= limit &&
           (!e->opts.stop_after || e->stats.rewrites < e->opts.stop_after);
}

/* The dead-node sweep after a pass that applied rewrites: with an order
 * for the next lists, unless the pass replaced every node the lists held
 * (the last pass of a rewrite finds none left, most often) and its change
 * can be relabelled through the users; then only the marks of what lives
 * (note [sweep without order] in src/ir/graph_walk.c).  A node of the
 * lists left (another rule's candidate, a refused one) will most likely
 * offer again, and the lists then need the order anyway: sweeping without
 * it costs more there (bench/RESULTS.md, "Session 22: the last round
 * without an order"). */
static void sweep(graft_engine *e, Cands *c, uint64_t applied)
{
    engine_region_free(c->region); /* a last sweep's, not read: its marks stay */
    c->region = c->offers.len <= applied ? engine_region(e, c->upto) : NULL;
    size_t nreplaced = e->replaced.len;
    e->replaced.len = 0; /* (read only by a kill of given nodes) */
    if (!c->region) {
        c->fresh = engine_remove_dead_order(e) + 1;
        return;
    }
    free(c->reached);
    c->reached = NULL;
    if (e->clean && /* note [kill of given nodes] in src/ir/graph_walk.c */
        graph_kill_given(e->g, e->replaced.items, nreplaced, c->pass_first) != UINT32_MAX) {
        c->nreached = graph_clean_reached_count(e->g);
        c->killed = true;
        e->stats.kills++;
        return;
    }
    e->clean = false; /* a function made: marked, as it may hold nodes */
    c->reached = xcalloc((size_t)graph_node_count(e->g) + 1, 1);
    c->nreached = graph_remove_unreached(e->g, c->reached);
}

/* note [killed as replaced]: in a graph the sweep may kill by given
 * nodes (e->clean), each root a group replaced dies with its cone as
 * soon as its group is done (note [kill as the pass goes] in
 * src/ir/graph_compact.c), and after every so many such deaths the
 * blocks left all dead are freed (graph_release_dead), so the replaced
 * copies' memory comes back while the pass makes the new nodes.  A
 * release reads every block, so so many is a 64th of the nodes the pass
 * began with, at least 1,024: some 64 releases a pass, linear in the
 * graph, where one every 1,024 deaths would be quadratic (on the
 * workload's Relay rewrite 68 releases cost 1.28 M instructions, a
 * 64th's 34 1.07 M, a 16th's 8 0.85 M, but with the pass's peak 0.4 MB
 * higher: bench/RESULTS.md, "Session 27: the replaced copies freed as
 * the rewrite goes").  What the pass reads after a group is done then
 * must not be a node freed:
 * - a later group's bindings (its nodes as matched, and current's
 *   forwarding): a bound node is in the group's region or an operand of
 *   a node of it.  Regions are disjoint, so a root is bound by a group
 *   still to apply only as an operand, and then a node that group
 *   claimed uses it, which the root's replacement now does: such a root
 *   is left to the sweep (e->replaced).  Any other node of a cone that a
 *   later group binds keeps a user in that group, alive, so it does not
 *   die.
 * - the forwarding map, the roots kept for the sweep and the candidates'
 *   offers: ids, and a freed node's entry in the node table is the
 *   graph's released node, dead (note [dead blocks] in graph_compact.c).
 * - the constant a group's check read, compared by address (note
 *   [constant read once] in rewrite_build.c): forgotten at each release,
 *   as a new node may be cut where a freed one was.
 * - a function an action makes holds its body through no use: from the
 *   first one made, the pass kills no more, and the sweep is a walk. */
enum { RELEASE_MIN = 1024, RELEASE_PARTS = 64 };

/* A pass's kills as it goes (note [killed as replaced]). */
typedef struct Retire {
    bool killing;     /* replaced roots die at once */
    uint32_t unfreed; /* nodes killed since blocks were last freed */
    uint32_t step;    /* how many deaths make a release */
} Retire;

static Retire retire_start(const graft_engine *e)
{
    uint32_t part = graph_node_count(e->g) / RELEASE_PARTS;
    return (Retire){e->clean, 0, part > RELEASE_MIN ? part : RELEASE_MIN};
}

/* Whether a group of this pass claimed a node that uses n. */
static bool read_by_group(const Grouper *gp, const graft_node *n)
{
    const graft_node *sole = node_sole_user(n); /* (as mark_users) */
    if (sole)
        return grouper_claimed(gp, sole);
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k))
        if (grouper_claimed(gp, node_user(n, k)))
            return true;
    return false;
}

/* Whether a node from id first on is a function. */
static bool made_function(const graft_graph *g, uint32_t first)
{
    for (const graft_node *n; (n = graph_node(g, first)) != NULL; first++) /* NULL: past the last */
        if (node_kind(n) == NODE_FUNC)
            return true;
    return false;
}

/* When the pass replaced root: it dies with its cone now, or, when that
 * may not be, its id is kept for the sweep's kill of given nodes (note
 * [kill of given nodes] in src/ir/graph_walk.c). */
static void retire_root(graft_engine *e, const Grouper *gp, Retire *rt, graft_node *root)
{
    uint32_t replaced_by = e->forward[node_id(root)];
    if (!replaced_by)
        return;
    if (rt->killing && !read_by_group(gp, graph_node(e->g, replaced_by - 1)))
        rt->unfreed += graph_kill_cone(e->g, root);
    else
        vec_push(&e->replaced, node_id(root));
}

/* After group gr was applied (its action's nodes from id first on): its
 * replaced roots retired, and the dead blocks freed every so many
 * deaths (note [killed as replaced]). */
static void retire_group(graft_engine *e, const Grouper *gp, Retire *rt, const Group *gr,
                         uint32_t first)
{
    rt->killing = rt->killing && !made_function(e->g, first);
    if (!gr->nroots)
        retire_root(e, gp, rt, gr->root);
    for (int j = 0; j < gr->nroots; j++)
        retire_root(e, gp, rt, group_roots(gp, gr)[j]);
    if (rt->unfreed >= rt->step) {
        graph_release_dead(e->g);
        e->read_const = NULL;
        rt->unfreed = 0;
    }
}

/* Frees the pass's forwarding map (note [forwarding map]). */
static void drop_forward(graft_engine *e)
{
    free(e->forward);
    e->forward = NULL;
    e->forward_cap = 0;
}

/* Room for exactly n items in empty vector v. */
#define reserve_exactly(v, n) ((v)->items = xmalloc((n) * sizeof *(v)->items), (v)->cap = (n))

/* One pass of rule r (note [rewrite rounds]); returns the rewrites done.
 * Stops applying once total rewrites exceed limit. */
static uint64_t rewrite_pass(graft_engine *e, Grouper *gp, Cands *c, uint32_t r, uint64_t limit)
{
    if (c->stale)
        cands_build(e, c);
    if (c->start[r] == c->start[r + 1])
        return 0; /* no candidate: most passes of a library, no grouper set up */
    c->pass_first = graph_node_count(e->g);
    grouper_begin(gp, r);
    VEC(Group) groups = {0};
    size_t nslots = (size_t)e->rs->rules[r].nslots;
    BindingVec binds = {0};
    /* room for every candidate at once: grown by doubling, the arrays
     * were copied a dozen times a pass (2 M instructions on the
     * workload's rewrite); and exactly, not to a power of two, which
     * was 0.45 MB more of the pass's peak there (16,384 groups' room
     * and 65,536 bindings' for 10,000 and 60,001) */
    size_t ncands = c->start[r + 1] - c->start[r];
    reserve_exactly(&groups, ncands);
    reserve_exactly(&binds, ncands * nslots + 1);
    for (uint32_t i = c->start[r]; i < c->start[r + 1]; i++) {
        graft_node *x = c->nodes[i];
        Group gr;
        if (grouper_claimed(gp, x) || in_partitioned(e->g, x) || !grouper_try(gp, x, true, &gr))
            continue;
        save_bindings(e, r, &binds);
        vec_push(&groups, gr);
    }
    grouper_end_tries(gp); /* note [marks freed before the actions] in group.c */
    if (groups.len) {
        e->forward = xcalloc((size_t)c->pass_first + 1, sizeof *e->forward);
        e->forward_cap = c->pass_first;
    }
    ActionPlaces places = {0}; /* none when the action always has its values */
    if (groups.len && e->check_computable[r])
        rewrite_action_places(e->rs->rules[r].action, &places);
    uint64_t applied = 0;
    Retire rt = retire_start(e);
    for (size_t k = groups.len; k-- > 0;) { /* operands first */
        uint32_t first = graph_node_count(e->g);
        const Group *gr = &groups.items[k];
        if (room(e, limit) && apply_group(e, gp, r, &places, gr, binds.items + k * nslots)) {
            applied++;
            retire_group(e, gp, &rt, gr, first);
        }
    }
    vec_free(&places);
    drop_forward(e); /* before the sweep */
    vec_free(&groups);
    vec_free(&binds);
    if (applied) {
        sweep(e, c, applied);
        c->stale = true;
    }
    return applied;
}

/* The candidate phase of a pass of rule r over the graph as it is,
 * nothing applied: what becomes of root (graft explain, as
 * engine_partition_verdict for partition rules). */
void engine_rewrite_verdict(graft_engine *e, uint32_t r, const graft_node *root, PartVerdict *v)
{
    Cands c = {.start = xmalloc(((size_t)e->rs->nrules + 2) * sizeof *c.start)};
    cands_build(e, &c);
    Grouper gp;
    grouper_init(&gp, e);
    gp.watch = root;
    gp.verdict = v;
    *v = (PartVerdict){PART_UNTRIED, NULL, NULL};
    grouper_begin(&gp, r);
    for (uint32_t i = c.start[r]; i < c.start[r + 1]; i++) {
        graft_node *x = c.nodes[i];
        Group gr;
        if (grouper_claimed(&gp, x))
            grouper_verdict(&gp, x, PART_CLAIMED, grouper_owner(&gp, x), NULL);
        else if (in_partitioned(e->g, x))
            grouper_verdict(&gp, x, PART_PARTITIONED, NULL, NULL);
        else
            (void)grouper_try(&gp, x, true, &gr);
    }
    grouper_free(&gp);
    free(c.start);
    free(c.nodes);
    vec_free(&c.offers);
}

/* ---- rounds ---- */

/* One round (note [rewrite rounds]): a pass per rule in order, but for
 * the [once] rules done (a pass of theirs rewrote); fired counts per rule. */
static uint64_t rewrite_round(graft_engine *e, Grouper *gp, Cands *c, const uint32_t *order,
                              uint32_t n, uint64_t *fired, uint64_t limit, bool *done)
{
    uint64_t applied = 0;
    for (uint32_t k = 0; k < n && room(e, limit); k++) {
        uint32_t r = order[k];
        if (done[r])
            continue;
        uint64_t a = rewrite_pass(e, gp, c, r, limit);
        done[r] = e->rs->rules[r].once && a > 0;
        fired[r] += a;
        applied += a;
    }
    e->stats.rounds++;
    return applied;
}

/* bound says what ran out, "1040 rewrites" or "12 rounds (...)", and
 * limit the limit that sets it (limit.h). */
static void report_no_fixpoint(const graft_engine *e, const uint64_t *fired, const char *bound,
                               const char *limit, graft_diag *d)
{
    StrBuf sb = {0};
    for (uint32_t r = 0; r < e->rs->nrules; r++)
        if (fired[r])
            strbuf_printf(&sb, "%s%s (%s:%d, %llu times in the last round)",
                          sb.len ? ", " : "", e->rs->rules[r].name, e->rs->rules[r].file,
                          e->rs->rules[r].line, (unsigned long long)fired[r]);
    diag_plain_error(d, "rewriting did not reach a fixpoint within %s; "
                     "rules still firing: %s [--limit %s]", bound,
                     sb.data ? sb.data : "none", limit);
    strbuf_free(&sb);
}

/* a * b, or UINT64_MAX when that overflows. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t default_limit(uint32_t live)
{
    return 10 * (uint64_t)live + 1000;
}

/* note [rewrite work bound]: a pass that changed the graph makes the next
 * one relabel and sort the graph, so a rule set that never stops but
 * fires only a few times a round would take (rewrite bound) rounds of
 * (graph size) work each: quadratic in the model (a 100,000-node chain
 * with one ever-growing constant ran for minutes; found by
 * fuzz/fuzz_pipeline).  Rewriting therefore also stops once its rounds
 * have looked at round-factor * (nodes + rewrite bound) nodes in all
 * (limit.h, 16 by default; each round counts the live nodes of its last
 * lists), proportional to the input.  The bound counts the nodes each
 * round sees, not rounds: a rule that grows a graph of one node by two
 * each round took 1,021 rounds to reach the rewrite bound on ever longer
 * chains (cubic work, two minutes; found by fuzz/fuzz_pipeline), and now
 * stops after 128 (tests/hostile.sh, relus.graft).  On a graph that keeps
 * its size it is round-factor *
 * (1 + rewrite bound / nodes) rounds.  A rule set that terminates needs
 * far fewer rounds (a pass rewrites every match). */
bool engine_rewrite(graft_engine *e, graft_diag *d)
{
    uint32_t *order = xmalloc((e->rs->nrules + 1) * sizeof *order);
    uint32_t nrw = engine_rules_best_first(e, GRAFT_ACTION_REWRITE, order);
    if (nrw == 0) {
        free(order);
        return true;
    }
    Cands c = {.start = xmalloc(((size_t)e->rs->nrules + 2) * sizeof *c.start)};
    uint32_t live = cands_build(e, &c); /* the first pass's lists */
    uint64_t limit = e->opts.max_rewrites  ? e->opts.max_rewrites
                     : e->limits->rewrites ? e->limits->rewrites
                                           : default_limit(live);
    uint64_t max_seen = mul_sat(e->limits->round_factor, (uint64_t)live + limit), seen = 0;
    uint64_t *fired = xcalloc(e->rs->nrules + 1, sizeof *fired);
    bool *done = xcalloc(e->rs->nrules + 1, sizeof *done), ok = true;
    Grouper gp;
    grouper_init(&gp, e);
    for (;;) {
        memset(fired, 0, (e->rs->nrules + 1) * sizeof *fired);
        uint64_t applied = rewrite_round(e, &gp, &c, order, nrw, fired, limit, done);
        seen += c.live;
        if (e->opts.stop_after && e->stats.rewrites >= e->opts.stop_after)
            break; /* graft verify, run --verify: the first stop_after rewrites */
        char bound[160];
        const char *which = "rewrites";
        if (e->stats.rewrites > limit)
            snprintf(bound, sizeof bound, "%llu rewrites", (unsigned long long)limit);
        else if (applied == 0)
            break;
        else if (seen >= max_seen) {
            snprintf(bound, sizeof bound,
                     "%llu rounds that looked at %llu nodes (%llu * (nodes + rewrite bound))",
                     (unsigned long long)e->stats.rounds, (unsigned long long)seen,
                     (unsigned long long)e->limits->round_factor);
            which = "round-factor";
        } else
            continue;
        report_no_fixpoint(e, fired, bound, which, d);
        ok = false;
        break;
    }
    grouper_free(&gp);
    free(c.start);
    free(c.nodes);
    free(c.reached);
    engine_region_free(c.region);
    vec_free(&c.offers);
    free(fired);
    free(done);
    free(order);
    return ok;
}
