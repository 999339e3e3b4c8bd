/* partition.c - grouping matches into functions, as TVM's partition does.
 *
 * note [partition semantics]: (TVM v0.14 PatternPartitioner, DESIGN.md)
 *  - one pass per partition rule; nodes are visited in reverse
 *    topological order (outputs first), so a larger match nearer the
 *    output claims its nodes first;
 *  - a node already in a group, or inside a function that carries
 *    PartitionedFromPattern, is never a candidate root; nor is a
 *    variable, constant or function value (a group computes something);
 *  - every match is a candidate group and takes the next group number,
 *    even when it is then dropped: for overlapping a group (constants
 *    aside) or for an interior node with a user outside the group that
 *    the root does not post-dominate;
 *  - candidates, claiming and parameters as in note [groups] (group.h):
 *    the inputs in the order a post-order walk of the match meets them,
 *    operands left to right (note [input order] in group.c), named
 *    FunctionVar_<group>_<k>; a constant matched by x:const or a literal
 *    is embedded instead;
 *  - the function body is the region between the root and the
 *    parameters, copied; PartitionedFromPattern lists its nodes in post-
 *    order, each op name followed by '_' (Tuple_, TupleGetItem<i>_);
 *    the rule's attributes follow it;
 *  - a rule of several roots (TVM has none) makes one function of the
 *    union of the roots' regions, its body the tuple of the roots, its
 *    name each root's region in post-order in the roots' order (a node
 *    two roots share counted with the first); each root's users read its
 *    field of the one call (note [partition roots] in group.c).
 * Groups are applied in the order found (outer first): a group's call
 * reads the original nodes, which inner groups then replace.
 */
#include "partition_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- candidates ---- */

static bool is_partitioned_fn(const graft_node *n)
{
    return node_kind(n) == NODE_FUNC && node_find_attr(n, "PartitionedFromPattern");
}

/* Marks a partitioned function's body: never entered by this pass; nor
 * the bodies of functions in it (TVM's PostOrderVisit of the body enters
 * them: a call of a function literal partitioned is not partitioned
 * inside again). */
static void mark_pre(Pass *p, graft_node *fn)
{
    WALK(graft_node *) w = {0};
    walk_push(&w, node_body(fn));
    if (!p->pre) /* made at the first: a graph none was partitioned in has none */
        p->pre = xcalloc((size_t)p->size + 1, 1);
    p->pre[node_id(fn)] = 1;
    while (w.depth) {
        graft_node *n = walk_pop(&w);
        if (node_id(n) >= p->size || p->pre[node_id(n)])
            continue;
        p->pre[node_id(n)] = 1;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        walk_reserve(&w, (size_t)na + 1);
        for (int i = 0; i < na; i++)
            walk_push_reserved(&w, node_arg(n, i));
        if (node_callee(n))
            walk_push_reserved(&w, node_callee(n));
        if (node_kind(n) == NODE_FUNC)
            walk_push(&w, node_body(n));
    }
    walk_free(&w);
}

/* A candidate root computes something: a variable, a constant or a
 * function value alone would make an empty function. */
static void try_root(Pass *p, graft_node *x)
{
    const graft_rule *rule = &p->e->rs->rules[p->rule];
    NodeKind k = node_kind(x);
    if (k == NODE_VAR || k == NODE_CONST || k == NODE_FUNC)
        return;
    if (!automaton_state_has(p->e->a, labels_state(p->e->labels, x), rule->pattern->item))
        return;
    Group gr;
    if (!grouper_try(p->gp, x, false, &gr))
        return;
    GroupList *l = &p->groups;
    if (l->len % GROUP_BLOCK == 0)
        vec_push(&l->blocks, xmalloc(GROUP_BLOCK * sizeof(Group)));
    *group_at(l, l->len++) = gr;
}

/* ---- one pass ---- */

static void pass_init(Pass *p, graft_engine *e, Grouper *gp, uint32_t rule)
{
    memset(p, 0, sizeof *p);
    p->e = e;
    p->rule = rule;
    p->gp = gp;
    grouper_begin(gp, rule);
    p->size = graph_node_count(e->g);
}

/* note [order dropped before the last apply]: the partition's peak
 * comes at the end of its last pass's apply, which reads no order, and
 * nothing reads the order after that pass's tries; so the order goes
 * before that apply (960,024 bytes on the workload).  Freeing a block so
 * large raises glibc's mmap threshold to its size, and a block asked for
 * below the threshold then comes from the heap, zeroed by calloc and
 * copied as it grows (1.56 M instructions more on the ONNX partition
 * when the order went first).  So the pass's large blocks are made
 * before: the scope table, which the apply's first function would
 * make (partition_reserve makes it), and the stand-in words, which only
 * the apply reads and only a pass that found groups needs. */
static void stand_init(Pass *p)
{
    p->stand = xcalloc((size_t)p->size + 1, sizeof *p->stand);
}

static void pass_free(Pass *p)
{
    for (size_t i = 0; i < p->groups.blocks.len; i++)
        free(p->groups.blocks.items[i]);
    vec_free(&p->groups.blocks);
    free(p->pre);
    free(p->stand);
    vec_free(&p->untyped);
    vec_free(&p->made);
    vec_free(&p->key);
    vec_free(&p->last_key);
    keymap_free(&p->fn_seen);
    vec_free(&p->region);
    walk_free(&p->walk);
    free(p->args);
    vec_free(&p->params);
    vec_free(&p->fn_key);
    strbuf_free(&p->name);
}

/* The candidate groups of a pass over the n nodes of e->order, outputs
 * first. */
static void find_groups(Pass *p, uint32_t n)
{
    Grouper *gp = p->gp;
    for (uint32_t i = n; i-- > 0;) {
        graft_node *x = p->e->order[i];
        if (grouper_claimed(gp, x)) {
            grouper_verdict(gp, x, PART_CLAIMED, grouper_owner(gp, x), NULL);
            continue;
        }
        if (p->pre && p->pre[node_id(x)]) {
            grouper_verdict(gp, x, PART_PARTITIONED, NULL, NULL);
            continue;
        }
        if (is_partitioned_fn(x)) {
            mark_pre(p, x);
            continue;
        }
        try_root(p, x);
    }
}

void engine_partition_verdict(graft_engine *e, uint32_t rule, const graft_node *root,
                              PartVerdict *v)
{
    Grouper gp;
    grouper_init(&gp, e);
    gp.watch = root;
    gp.verdict = v;
    *v = (PartVerdict){PART_UNTRIED, NULL, NULL};
    Pass p;
    pass_init(&p, e, &gp, rule);
    find_groups(&p, engine_order(e));
    pass_free(&p);
    grouper_free(&gp);
}

/* note [no sweep]: a pass that moved every group's region kills
 * nothing, so it needs no dead-node sweep, unless the graph holds
 * garbage from before (a loaded binding nothing uses), which a sweep
 * would kill now and drop from its operands' users lists, as the copying
 * partition's sweep did: the printer reads users counts (a let value used
 * once prints inline).  Garbage is what is neither dead nor reachable
 * (the order's count) nor an unused parameter of @main, which stays. */
static bool has_garbage(const graft_engine *e, uint32_t reachable)
{
    const graft_graph *g = e->g;
    uint32_t kept = reachable;
    int nparams = graph_nparams(g);
    graft_node *const *params = graph_params(g); /* (one call, not one a parameter) */
    const graft_node *output = graph_output(g);
    for (int i = 0; i < nparams; i++)
        kept += node_nusers(params[i]) == 0 && params[i] != output;
    return graph_live_count(g) != kept;
}

/* One partition pass of one rule (note [partition semantics]); upto as
 * engine_relabel_changed takes it; *fresh is 1 + the count of live nodes
 * e->order holds in topological order already, or 0 (and so on return);
 * labelled: their labels are current (note [passes that change nothing]);
 * *garbage as has_garbage says, kept current.  Returns whether the pass
 * made groups. */
static bool partition_pass(graft_engine *e, Grouper *gp, uint32_t rule, uint32_t *upto,
                           uint32_t *fresh, bool labelled, bool *garbage, bool last)
{
    Pass p;
    pass_init(&p, e, gp, rule);
    uint32_t n = *fresh ? *fresh - 1 : engine_order(e);
    *fresh = 0;
    if (!labelled)
        engine_relabel_changed(e, n, upto);
    find_groups(&p, n);
    if (p.groups.len) /* (note [claims freed before the groups are applied]) */
        grouper_end_claims(gp);
    if (p.groups.len && last) { /* note [labels dropped before the last apply] */
        engine_drop_labels(e);
        p.last = true;
    }
    partition_reserve(&p);
    if (p.groups.len)
        stand_init(&p);
    if (p.last) /* (note [order dropped before the last apply]) */
        engine_drop_order(e);
    partition_apply_groups(&p);
    e->stats.rules[rule].applied += p.groups.len;
    e->stats.groups += p.groups.len;
    if (p.groups.len && (p.copied || *garbage)) { /* note [no sweep] */
        if (last) /* no next pass to order the nodes for */
            graph_remove_dead(e->g);
        else
            *fresh = engine_remove_dead_order(e) + 1;
        *garbage = false;
    } else if (p.groups.len) { /* a sweep would kill nothing (note [no sweep]) */
        graph_set_swept(e->g); /* (note [swept graph] in src/ir/graph_walk.c) */
    }
    if (!p.groups.len) /* the graph is as the order and labels found it */
        *fresh = n + 1;
    bool made = p.groups.len > 0;
    pass_free(&p);
    return made;
}

/* note [passes that change nothing]: a partition pass relabels what the
 * passes before it changed, in the order of the live nodes it makes
 * first (note [partition relabelling] in engine.c); a pass that made no
 * group changed nothing, so the next pass finds the order it left in
 * e->order and the labels current: it neither orders nor relabels (a
 * library's rules mostly find nothing: batchnorm_partition.graft's four
 * passes on resnet50.simplified ordered and swept the graph three times,
 * 0.8 M of its 2.8 M instructions).  The first pass's labels are the
 * first labelling's (note [first labelling] in engine.c). */

void engine_partition(graft_engine *e)
{
    uint32_t *order = xmalloc((e->rs->nrules + 1) * sizeof *order);
    uint32_t n = engine_rules_best_first(e, GRAFT_ACTION_PARTITION, order);
    uint32_t upto = 0;
    uint32_t fresh = 0;
    bool garbage = false;
    if (n) { /* every node is labelled afresh for the first pass */
        uint32_t live = engine_label_order(e, true, NULL, NULL, &upto);
        fresh = live + 1;
        garbage = has_garbage(e, live);
    }
    Grouper gp;
    grouper_init(&gp, e);
    bool labelled = true; /* note [passes that change nothing] */
    for (uint32_t k = 0; k < n; k++)
        labelled = !partition_pass(e, &gp, order[k], &upto, &fresh, labelled, &garbage,
                                   k + 1 == n);
    grouper_free(&gp);
    free(order);
}
