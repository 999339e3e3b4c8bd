/* engine.c - the driver's shared parts: set-up, graph walks for the
 * interior-use rule, listing matches. */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "util.h"
#include "walk.h"

graft_engine *engine_new(const graft_rule_set *rs, graft_graph *g, const EngineOptions *opts)
{
    graft_engine *e = xcalloc(1, sizeof *e);
    e->rs = rs;
    e->g = g;
    if (opts)
        e->opts = *opts;
    e->limits = limit_or_default(e->opts.limits);
    e->a = automaton_new(rs);
    e->labels = labels_new(e->a, g);
    e->m = matcher_new(e->labels, g);
    matcher_set_max_steps(e->m, e->limits->match_steps);
    stats_init(&e->stats, rs->nrules);
    e->check_computable = xcalloc(rs->nrules + 1, sizeof *e->check_computable);
    e->check_fold_ready = xcalloc(rs->nrules + 1, sizeof *e->check_fold_ready);
    e->check_share = xcalloc(rs->nrules + 1, sizeof *e->check_share);
    for (uint32_t r = 0; r < rs->nrules; r++) {
        e->check_computable[r] = rs->rules[r].action &&
                                 !rewrite_always_computable(rs->rules[r].action);
        e->check_fold_ready[r] = rs->rules[r].action && rewrite_has_fold(rs->rules[r].action);
        e->check_share[r] = !rs->rules[r].action || rewrite_may_share(rs->rules[r].action);
    }
    if (!e->opts.names && (e->opts.trace || e->opts.refusals)) {
        e->own_names = xmalloc(sizeof *e->own_names);
        node_labels_init(e->own_names, g, e->opts.model);
    }
    e->names = e->opts.names ? e->opts.names : e->own_names;
    return e;
}

void engine_node_name(const graft_engine *e, const graft_node *n, StrBuf *out)
{
    if (e->names)
        node_label_at(e->names, n, out);
    else
        strbuf_printf(out, "#%u", node_id(n));
    if (e->names && node_line(e->g, n))
        return;
    switch (node_kind(n)) { /* built: say what it is */
    case NODE_CALL: strbuf_printf(out, " %s", node_op(n) ? node_op(n) : "call"); break;
    case NODE_TUPLE: strbuf_puts(out, " tuple"); break;
    case NODE_GETITEM: strbuf_printf(out, " .%d", node_index(n)); break;
    case NODE_FUNC: strbuf_puts(out, " fn"); break;
    default: break;
    }
}

/* note [refusal lines]: --stats lists the first refusals with their
 * nodes, after the table; the rest are counted. */
enum { MAX_REFUSAL_LINES = 50 };

void engine_refusal(graft_engine *e, uint32_t r, const char *why, const graft_node *root,
                    const graft_node *a, const char *rel, const graft_node *b)
{
    if (!e->opts.refusals)
        return;
    if (e->stats.nrefusals++ >= MAX_REFUSAL_LINES)
        return;
    StrBuf *sb = &e->stats.refusals;
    strbuf_printf(sb, "refused: %s: %s at ", why, e->rs->rules[r].name);
    engine_node_name(e, root, sb);
    if (a) {
        strbuf_puts(sb, ": ");
        engine_node_name(e, a, sb);
        strbuf_printf(sb, " %s ", rel);
        engine_node_name(e, b, sb);
    }
    strbuf_putc(sb, '\n');
}

void engine_free(graft_engine *e)
{
    if (!e)
        return;
    matcher_free(e->m);
    if (e->own_names)
        node_labels_free(e->own_names);
    free(e->own_names);
    labels_free(e->labels);
    automaton_free(e->a);
    stats_free(&e->stats);
    free(e->forward);
    free(e->dirty);
    free(e->mark);
    free(e->order);
    vec_free(&e->replaced);
    free(e->check_computable);
    free(e->check_fold_ready);
    free(e->check_share);
    rewrite_calls_free(e->calls);
    action_types_free(e->types);
    keymap_free(&e->interned);
    vec_free(&e->folds);
    eval_meta_free(e->meta);
    free(e);
}

const Stats *engine_stats(const graft_engine *e)
{
    Stats *s = (Stats *)&e->stats;
    s->states = automaton_nstates(e->a);
    s->transitions = automaton_ntransitions(e->a);
    return s;
}

const Automaton *engine_automaton(const graft_engine *e)
{
    return e->a;
}

double engine_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* note [order size]: e->order is sized to the node count exactly, not
 * doubled as a growing array is: it grows once per pass at most (by the
 * nodes the pass made), so its copies cost nothing beside the walk that
 * fills it, and a doubled order was a megabyte of the rewrite's peak on
 * the workload (140,001 nodes in 262,144 slots), which comes during the
 * sweep after the pass (bench/RESULTS.md, "Session 21: the engine's
 * order"). */
static void order_reserve(graft_engine *e)
{
    size_t need = (size_t)graph_node_count(e->g) + 1;
    if (need <= e->order_cap)
        return;
    e->order = xrealloc(e->order, need * sizeof *e->order);
    e->order_cap = need;
}

uint32_t engine_order(graft_engine *e)
{
    e->stats.orders++;
    order_reserve(e);
    return graph_topo_order(e->g, e->order);
}

uint32_t engine_remove_dead_order(graft_engine *e)
{
    e->stats.orders++;
    order_reserve(e);
    return graph_sweep_order(e->g, e->order, &e->clean);
}

void engine_drop_order(graft_engine *e)
{
    free(e->order);
    e->order = NULL;
    e->order_cap = 0;
}

void engine_grow_dirty(graft_engine *e, uint32_t id)
{
    size_t old = e->dirty_cap;
    e->dirty = xgrow_items(e->dirty, &e->dirty_cap, (size_t)id + 1, sizeof *e->dirty);
    memset(e->dirty + old, 0, e->dirty_cap - old);
}

uint32_t engine_new_stamp(graft_engine *e)
{
    uint32_t count = graph_node_count(e->g);
    if (count > e->mark_cap) {
        size_t old = e->mark_cap;
        e->mark = xgrow_items(e->mark, &e->mark_cap, count, sizeof *e->mark);
        memset(e->mark + old, 0, (e->mark_cap - old) * sizeof *e->mark);
    }
    if (++e->stamp == 0) { /* wrapped: clear old stamps */
        memset(e->mark, 0, e->mark_cap * sizeof *e->mark);
        e->stamp = 1;
    }
    return e->stamp;
}

/* note [partition relabelling]: the first pass labels every node; a
 * later pass relabels only what the passes before it changed: nodes
 * created since (ids from *upto on: copies, parameters, functions and
 * calls) and nodes with an operand whose state changed or that is new (a
 * user of a replaced root now reads the call).  Every other node has the
 * same symbol and operand states as when it was labelled, so the same
 * state; the check rides on the topological sweep.  e->order must hold
 * the n live nodes in topological order.  Rewrite passes relabel the
 * same way, and also the nodes they marked dirty: a user of a replaced
 * root may now read an old node (add(x, 0) => x).
 *
 * note [new nodes labelled once]: a rewrite labels the nodes its action
 * made as it makes them (adopt_new in rewrite_build.c: a later match of
 * the same pass may read them), operands first, so a new node that has
 * a state is treated as an old one: relabelled only when marked dirty
 * (it read a root replaced since) or when an operand's state changed
 * since (an old operand that was dirty then).  Only new nodes never
 * labelled (a partition's) are labelled for being new.  Relabelling
 * every new node again cost 118 instructions per op node on the
 * workload's rewrite (bench/RESULTS.md, "Session 18: the fixed set-up"). */
void engine_relabel_changed(graft_engine *e, uint32_t n, uint32_t *upto)
{
    uint32_t count = graph_node_count(e->g);
    uint8_t *changed = xcalloc((size_t)count + 1, 1);
    bool scopes = automaton_has_scopes(labels_automaton(e->labels));
    for (uint32_t i = 0; i < n; i++) {
        graft_node *x = e->order[i];
        uint32_t id = node_id(x);
        bool need = (id >= *upto && labels_state(e->labels, x) == STATE_NONE) ||
                    (id < e->dirty_cap && e->dirty[id]);
        /* with fn, if or let patterns a function's state reads its body
         * and parameters (note [pattern operands] in pattern.h) */
        int na = need || (!scopes && node_is_opaque(x)) ? 0 : pattern_noperands(x);
        bool args = node_kind(x) <= NODE_GETITEM; /* pattern_operand is node_arg */
        for (int k = 0; k < na && !need; k++)
            need = changed[node_id(args ? node_arg(x, k) : pattern_operand(x, k))];
        if (!need)
            continue;
        uint32_t old = labels_state(e->labels, x);
        uint32_t now = labels_node(e->labels, x);
        changed[id] = now != old; /* old is STATE_NONE for a node never labelled */
        e->stats.labelled++;
    }
    if (e->dirty_cap) /* every mark read; a dead node's is read never again */
        memset(e->dirty, 0, e->dirty_cap);
    free(changed);
    *upto = count;
}

/* note [first labelling]: a driver's first labelling of the whole graph
 * (a partition's first pass, a rewrite's first candidate lists) labels
 * in the walk that orders the live nodes (labels_graph_order, note
 * [label order] in automaton_label.c), each node as the walk hands it
 * out, instead of engine_order and then each node and its operands
 * again (labels_node); labels_order then
 * picks the nodes offering rules out of that order.  It labels and counts
 * every live node, as engine_relabel_changed with nothing labelled yet
 * does, clears their relabelling marks as it does, and sets *upto to the
 * node count.  A rewrite's first lists want only the nodes offering
 * rules, and before any edit no mark is set: then the walk's loop keeps
 * them itself (labels_offering), without a second pass over the order
 * (30 instructions per op node on the workload's rewrite). */
static uint32_t label_offering(graft_engine *e, uint32_t **offering, uint32_t *noffering,
                               uint32_t *upto)
{
    uint32_t n, *ids = xmalloc(((size_t)graph_node_count(e->g) + 1) * sizeof *ids);
    labels_reserve_edits(e->labels); /* the rewrite's nodes follow */
    *noffering = labels_offering(e->labels, ids, &n);
    *offering = ids;
    e->stats.labelled += n;
    *upto = graph_node_count(e->g);
    return n;
}

/* Whether the graph the walk that listed n nodes ordered is clean
 * (graft_engine.clean): the count graph_clean_reached_count gives counts
 * every live node but the unused parameters, and a parameter some node
 * uses; it exceeds n by the live nodes the walk did not reach, and by
 * the used parameters among them, so the two agree exactly when the
 * walk reached every node but the unused parameters. */
static bool walked_clean(const graft_engine *e, uint32_t n)
{
    return labels_walk_funcs(e->labels) == 0 && n == graph_clean_reached_count(e->g);
}

/* engine_label_order's walk for an order of the nodes alone (a
 * partition's first pass): no order of ids is written, which nothing
 * would read (10 instructions a node on the workload's partition). */
static uint32_t label_nodes(graft_engine *e, uint32_t *upto)
{
    order_reserve(e);
    uint32_t n = labels_graph_nodes(e->labels, e->order);
    if (e->dirty_cap) /* every live node labelled */
        memset(e->dirty, 0, e->dirty_cap);
    e->stats.labelled += n;
    e->clean = false;
    *upto = graph_node_count(e->g);
    return n;
}

uint32_t engine_label_order(graft_engine *e, bool nodes, uint32_t **offering, uint32_t *noffering,
                            uint32_t *upto)
{
    e->stats.orders++;
    if (!nodes && offering && !e->dirty_cap) { /* no order wanted, no mark to clear */
        uint32_t n = label_offering(e, offering, noffering, upto);
        e->clean = walked_clean(e, n);
        return n;
    }
    if (nodes && !offering) /* a partition's: the nodes alone */
        return label_nodes(e, upto);
    GraphOrder o;
    if (nodes) /* as many as the walk can order */
        order_reserve(e);
    labels_graph_order(e->labels, &o, nodes ? e->order : NULL);
    if (e->dirty_cap) /* every live node labelled */
        memset(e->dirty, 0, e->dirty_cap);
    uint32_t n = o.n;
    e->stats.labelled += n;
    e->clean = offering && walked_clean(e, n); /* a rewrite's: it sweeps */
    /* the ids a node offering rules is written to were read already */
    uint32_t kept = labels_order(e->labels, &o, offering ? o.ids : NULL);
    if (offering) {
        *offering = o.ids;
        *noffering = kept;
        o.ids = NULL;
    }
    graph_order_free(&o);
    *upto = graph_node_count(e->g);
    return n;
}

uint32_t engine_rules_best_first(const graft_engine *e, graft_action_kind kind, uint32_t *order)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < e->rs->nrules; r++)
        if (e->rs->rules[r].kind == kind)
            order[n++] = r;
    sort_u32(order, n, automaton_rule_before, e->rs->rules);
    return n;
}

/* An exit: the graph's output, or the result of a function. */
static bool is_exit(const graft_graph *g, const graft_node *n)
{
    if (n == graph_output(g))
        return true;
    const graft_node *fn = node_scope(g, n);
    return fn && node_body(fn) == n;
}

/* Walks from u towards the exits through users, never past root: root
 * post-dominates u when no exit is reached.  Nodes without users that are
 * no exit are garbage left by earlier rewrites and lead nowhere. */
bool engine_postdominates(graft_engine *e, const graft_node *root, const graft_node *u)
{
    uint32_t stamp = engine_new_stamp(e);
    WALK(const graft_node *) w = {0};
    bool escapes = false;
    walk_push(&w, u);
    e->mark[node_id(u)] = stamp;
    while (w.depth && !escapes) {
        const graft_node *n = walk_pop(&w);
        escapes = is_exit(e->g, n);
        for (int k = node_user_first(n); k < node_user_end(n) && !escapes;
             k = node_user_next(n, k)) {
            const graft_node *v = node_user(n, k);
            if (v == root || e->mark[node_id(v)] == stamp)
                continue;
            e->mark[node_id(v)] = stamp;
            walk_push(&w, v);
        }
    }
    walk_free(&w);
    return !escapes;
}

void engine_label_all(graft_engine *e)
{
    e->stats.orders++;
    labels_all(e->labels);
}

/* Verifies the rules rules[0, nr) offered at root, in file order, and
 * visits each that matches; eager: every match is verified, so that its
 * bindings are in the matcher. */
static void match_at(graft_engine *e, graft_node *root, uint32_t *rules, uint32_t nr, bool eager,
                     MatchRootVisitor fn, void *ctx)
{
    sort_u32(rules, nr, NULL, NULL); /* file order */
    for (uint32_t k = 0; k < nr; k++) {
        uint32_t r = rules[k];
        e->stats.rules[r].tried++;
        MatchCheck check = eager ? CHECK_TRY : matcher_check(e->m, r, root);
        if (check == CHECK_FAILS ||
            (check == CHECK_TRY && matcher_try(e->m, r, root) != MATCH_OK))
            continue;
        e->stats.rules[r].matched++;
        e->visit_rule = r;
        e->visit_root = root;
        e->visit_bound = check == CHECK_TRY;
        fn(ctx, r, root);
    }
}

/* Labels the graph in the walk's order (note [label order] in
 * automaton_label.c), then verifies every rule the state accepts at every
 * node, in that order, reporting each match in file order of the rules;
 * only the nodes with a rule to verify are read again. */
static void match_all(graft_engine *e, bool eager, MatchRootVisitor fn, void *ctx)
{
    uint32_t nlabelled, *ids = xmalloc(((size_t)graph_node_count(e->g) + 1) * sizeof *ids);
    uint32_t n = labels_offering(e->labels, ids, &nlabelled);
    e->stats.labelled += nlabelled;
    uint32_t *rules = xmalloc((e->rs->nrules + 1) * sizeof *rules);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nr;
        const uint32_t *cand =
            automaton_state_rules(e->a, labels_state_id(e->labels, ids[i]), &nr);
        if (nr == 0)
            continue; /* cand may be NULL then, which memcpy must not see */
        memcpy(rules, cand, nr * sizeof *rules);
        match_at(e, graph_node(e->g, ids[i]), rules, nr, eager, fn, ctx);
    }
    free(rules);
    free(ids);
}

void engine_match_roots(graft_engine *e, MatchRootVisitor fn, void *ctx)
{
    match_all(e, false, fn, ctx);
}

graft_node *const *engine_match_root_nodes(graft_engine *e, int *n)
{
    engine_match_bindings(e); /* the try that found the roots */
    return matcher_roots(e->m, n);
}

const graft_binding *engine_match_bindings(graft_engine *e)
{
    if (!e->visit_bound) { /* a checked match: the try cannot fail */
        matcher_try(e->m, e->visit_rule, e->visit_root);
        e->visit_bound = true;
    }
    return matcher_bindings(e->m);
}

/* engine_matches' visitor and its context, behind engine_match_roots'. */
typedef struct EagerVisit {
    graft_engine *e;
    MatchVisitor fn;
    void *ctx;
} EagerVisit;

static void eager_visit(void *ctx, uint32_t rule, graft_node *root)
{
    EagerVisit *v = ctx;
    v->fn(v->ctx, rule, root, matcher_bindings(v->e->m));
}

void engine_matches(graft_engine *e, MatchVisitor fn, void *ctx)
{
    match_all(e, true, eager_visit, &(EagerVisit){e, fn, ctx});
}

/* note [pass scratch]: the order, the forwarding map, the walk stamps
 * and the relabelling marks are per node id and serve the passes only;
 * the engine lives on while the model is written (runner_run), so they
 * are freed when the passes end, not with the engine: the partition's
 * peak comes while its output is printed, and its order (960,024 bytes
 * on the workload) was part of it.  The forwarding map serves one pass,
 * which frees it before its sweep (note [forwarding map] in
 * rewrite.c).  So are the labels' states: a later call labels
 * every node first anyway, as the marks are gone, and the states were
 * 600,020 bytes of the rewrite's peak, which comes while its output is
 * printed.  Each grows again from nothing if a later call (graft
 * explain, the API) asks: a first labelling clears every mark anyway,
 * and stamps count on. */
static void drop_pass_scratch(graft_engine *e)
{
    engine_drop_order(e);
    free(e->forward);
    e->forward = NULL;
    e->forward_cap = 0;
    vec_free(&e->replaced);
    engine_drop_labels(e);
}

/* note [labels dropped before the last apply]: a partition's last pass
 * applies its groups while every node of the graph lives, and nothing
 * reads the labels after its tries: no pass relabels after it, and the
 * run's end drops them anyway (note [pass scratch]).  So they go before
 * the apply, with the relabelling marks and walk stamps (the states
 * 480,008 bytes on the workload), and that pass marks no node dirty.
 * The order goes too, once the pass has made its large blocks (note
 * [order dropped before the last apply] in partition.c). */
void engine_drop_labels(graft_engine *e)
{
    free(e->mark);
    free(e->dirty);
    e->mark = NULL;
    e->dirty = NULL;
    e->mark_cap = e->dirty_cap = 0;
    labels_drop_states(e->labels);
}

bool engine_run(graft_engine *e, graft_diag *d)
{
    bool ok = engine_rewrite(e, d);
    if (ok)
        engine_partition(e);
    drop_pass_scratch(e);
    if (ok)
        rewrite_fold_end(e);
    return ok;
}

bool engine_names_positions(const graft_engine *e)
{
    return e->names != NULL;
}
