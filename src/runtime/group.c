/* group.c - candidate groups of one pass of one rule (note [groups] in
 * group.h), as TVM's PatternGrouper makes them for both rewrite and
 * partition. */
#include "group.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "walk.h"

/* ---- the rule's named slots ---- */

/* Marks in in_fn every pattern node below a function pattern: what it
 * matches is in the function's scope, never a group's input (TVM's
 * CreateGroup makes the body of a FunctionPattern's match fuzzy). */
static void mark_in_fn(KeyMap *in_fn, const graft_pat *fn)
{
    WALK(const graft_pat *) w = {0};
    walk_push(&w, fn);
    while (w.depth) {
        const graft_pat *n = walk_pop(&w);
        int64_t *seen = keymap_put(in_fn, keymap_ptr_key(n), 0);
        if (*seen)
            continue;
        *seen = 1;
        walk_reserve(&w, (size_t)n->nkids);
        for (int i = 0; i < n->nkids; i++)
            walk_push_reserved(&w, n->kids[i]);
    }
    walk_free(&w);
}

/* Marks the slots that a non-leaf pattern node binds (s@exp(x), and
 * s@x, which lowering wraps in a one-choice alternative), and tells
 * whether the pattern has a dominator pattern; walks the pattern DAG with
 * a stack, each node once.  Function patterns' parts go in in_fn. */
static bool *named_slots(const graft_rule *rule, bool *has_dom, KeyMap *in_fn)
{
    *has_dom = false;
    bool *named = xcalloc((size_t)rule->nslots + 1, sizeof *named);
    KeyMap seen = {0};
    WALK(const graft_pat *) w = {0};
    walk_push(&w, rule->pattern);
    for (int j = 1; j < rule->nroots; j++)
        walk_push(&w, rule->roots[j].pattern);
    while (w.depth) {
        const graft_pat *n = walk_pop(&w);
        int64_t *visited = keymap_put(&seen, keymap_ptr_key(n), 0);
        if (*visited)
            continue;
        *visited = 1;
        if (n->slot >= 0 && n->kind != GRAFT_PAT_ANY)
            named[n->slot] = true;
        if (n->kind == GRAFT_PAT_DOM)
            *has_dom = true;
        if (n->kind == GRAFT_PAT_FN)
            mark_in_fn(in_fn, n);
        walk_reserve(&w, (size_t)n->nkids);
        for (int i = 0; i < n->nkids; i++)
            walk_push_reserved(&w, n->kids[i]);
    }
    walk_free(&w);
    keymap_free(&seen);
    return named;
}

/* ---- set-up ---- */

void grouper_init(Grouper *gp, graft_engine *e)
{
    memset(gp, 0, sizeof *gp);
    gp->e = e;
}

/* Frees the pass's full input blocks (note [input blocks]). */
static void free_full_blocks(Grouper *gp)
{
    for (size_t i = 0; i < gp->full.len; i++)
        free(gp->full.items[i]);
    gp->full.len = 0;
    gp->freed_blocks = 0;
}

void grouper_free(Grouper *gp)
{
    free(gp->named);
    keymap_free(&gp->in_fn);
    free(gp->claim);
    vec_free(&gp->owners);
    free(gp->mark);
    free_full_blocks(gp);
    vec_free(&gp->full);
    vec_free(&gp->inputs);
    vec_free(&gp->roots);
    vec_free(&gp->region);
    vec_free(&gp->roles);
    walk_free(&gp->walk);
    free(gp->counter);
}

/* Sizes the per-node arrays for every node of the graph; new entries
 * are 0, a stamp no pass or region uses.  The marks are made again when
 * a rewrite's tries freed them (note [marks freed before the actions]). */
static void grouper_grow(Grouper *gp)
{
    size_t count = graph_node_count(gp->e->g);
    if (count <= gp->size && gp->mark)
        return;
    size_t old = gp->size;
    if (!old) { /* calloc's fresh pages need no clearing */
        gp->claim = xcalloc(count, sizeof *gp->claim);
        gp->size = count;
    } else if (count > old) {
        size_t size = old;
        gp->claim = xgrow_items(gp->claim, &size, count, sizeof *gp->claim);
        memset(gp->claim + old, 0, (size - old) * sizeof *gp->claim);
        gp->size = size;
    }
    if (!gp->mark) {
        gp->mark = xcalloc(gp->size, sizeof *gp->mark);
        return;
    }
    gp->mark = xrealloc(gp->mark, gp->size * sizeof *gp->mark); /* as claim grew */
    memset(gp->mark + old, 0, (gp->size - old) * sizeof *gp->mark);
}

/* note [marks freed before the actions]: a rewrite pass reads the marks
 * only while it tries its candidates; its actions then make the new
 * nodes while the pass's groups, bindings and forwarding map live, the
 * run's peak on the workload.  So the marks (two bytes a node id,
 * 240,004 bytes there) are freed between the two, and the next pass that
 * tries a root makes them again, zeroed, its stamps from the start. */
void grouper_end_tries(Grouper *gp)
{
    free(gp->mark);
    gp->mark = NULL;
    gp->stamp = gp->istamp = 0;
}

/* note [claims freed before the groups are applied]: a partition pass
 * reads its claims, marks and kept roots only while it tries its
 * candidates; then it applies the groups, moving their regions into new
 * functions, while every node of the graph and the pass's own tables
 * live: the pass's peak.  So once it has tried every root and kept some
 * group, the three are freed (the claims four bytes and the marks two a
 * node id, 720,012 bytes on the workload, the roots a pointer a group,
 * 131,072), and the next pass that tries a root makes them again,
 * zeroed: no claim of an earlier pass is left to read, and the stamps
 * start afresh.  What the groups hold (their inputs and roots) stays; a
 * rewrite pass reads its claims while it acts, and frees the marks alone
 * (note [marks freed before the actions]). */
void grouper_end_claims(Grouper *gp)
{
    grouper_end_tries(gp);
    free(gp->claim);
    gp->claim = NULL;
    gp->size = 0;
    gp->pass = 0;
    vec_free(&gp->owners);
}

/* Frees the full input blocks before block, whose groups a partition has
 * applied (note [input blocks]); their slots stay, empty. */
void grouper_free_inputs_before(Grouper *gp, uint32_t block)
{
    for (uint32_t b = gp->freed_blocks; b < block && b < gp->full.len; b++) {
        free(gp->full.items[b]);
        gp->full.items[b] = NULL;
    }
    if (block > gp->freed_blocks)
        gp->freed_blocks = block;
}

/* The next pass's first claim stamp (note [claim stamps]). */
static void next_pass(Grouper *gp)
{
    uint64_t next = (uint64_t)gp->pass + gp->owners.len + 1;
    if (next > UINT32_MAX / 2) {
        if (gp->size)
            memset(gp->claim, 0, gp->size * sizeof *gp->claim);
        next = 1;
    }
    gp->pass = (uint32_t)next;
    gp->owners.len = 0;
    gp->nclaimed = 0;
}

/* note [short marks]: a candidate's marks are two stamps, so 16 bits
 * serve 32,766 candidates between two clearings of the array (two bytes
 * a node id, once for 32,766 tries of about 2,000 instructions each);
 * the array, zeroed when made, is half the size of 32-bit marks (240 KB
 * less of both workload peaks, 120,001 ids; grouper_try 18.94 M ->
 * 18.36 M instructions on the workload's partition, 240,000 of them
 * calloc's clearing where the heap gives no fresh pages). */

/* The input and region stamps of the next candidate; the marks cleared
 * when they would wrap, so an old stamp never reads as current. */
static void next_stamps(Grouper *gp)
{
    if (gp->stamp >= UINT16_MAX - 2) {
        memset(gp->mark, 0, gp->size * sizeof *gp->mark);
        gp->stamp = 0;
    }
    gp->istamp = (uint16_t)(gp->stamp + 1);
    gp->stamp = (uint16_t)(gp->istamp + 1);
}

void grouper_begin(Grouper *gp, uint32_t rule)
{
    /* grouper_try grows the arrays: a pass that tries no root (every pass
     * after the last rewrite, mostly) does not pay for the nodes made */
    next_pass(gp);
    free(gp->named);
    keymap_free(&gp->in_fn);
    gp->in_fn = (KeyMap){0};
    gp->named = named_slots(&gp->e->rs->rules[rule], &gp->has_dom, &gp->in_fn);
    gp->rule = rule;
    gp->roles_lined = false;
    free_full_blocks(gp);
    gp->inputs.len = 0;
    gp->roots.len = 0;
    vec_reserve(&gp->roots, 1); /* collect_roots */
    /* globals do not change during a run, but are counted anew per pass */
    free(gp->counter);
    gp->ncounters = graph_nglobals(gp->e->g) + 1;
    gp->counter = xcalloc((size_t)gp->ncounters, sizeof *gp->counter);
    gp->main_at = -1;
}

/* ---- inputs ---- */

/* note [input blocks]: a partition pass keeps every group's inputs
 * (note [pass buffers]), 60,000 pointers on the workload, and an array
 * doubled as it filled copied them all again (half a megabyte copied,
 * 507,000 instructions of grouper_try).  So the pass's inputs fill
 * blocks of at least INPUT_BLOCK (group.h): a candidate that the last
 * block has no room for starts a new one, the full ones kept as they are
 * until the next pass, and a group's inputs are an index into its
 * block. */

/* A block of room for need inputs after the last block's, which has not
 * (note [input blocks]); the last one kept when it holds none. */
static void new_input_block(Grouper *gp, size_t need)
{
    if (gp->inputs.len) {
        vec_push(&gp->full, gp->inputs.items);
        gp->inputs.items = NULL;
        gp->inputs.len = gp->inputs.cap = 0;
    }
    vec_reserve(&gp->inputs, need > INPUT_BLOCK ? need : INPUT_BLOCK);
}

/* Room for need more inputs of one candidate in the last block, and gr's
 * inputs from its end (note [input blocks]). */
static inline void inputs_room(Grouper *gp, Group *gr, size_t need)
{
    if (gp->inputs.len + need > gp->inputs.cap)
        new_input_block(gp, need);
    gr->block = (uint32_t)gp->full.len;
    gr->inputs = (uint32_t)gp->inputs.len; /* below the block's room */
}

/* Whether n is an input of the last candidate (collect_inputs). */
static bool is_input(const Grouper *gp, const graft_node *n)
{
    return gp->mark[node_id(n)] == gp->istamp;
}

/* Adds n to gr's inputs, the last in gp->inputs, unless there. */
static inline void add_input(Grouper *gp, Group *gr, graft_node *n)
{
    if (is_input(gp, n))
        return;
    gp->mark[node_id(n)] = gp->istamp;
    vec_push(&gp->inputs, n);
    gr->ninputs++;
}

/* A node a dominator pattern walked through: inside the group, never a
 * parameter (TVM's "fuzzy" matches). */
static bool on_dom_path(const MatchPair *pairs, uint32_t npairs, const graft_node *n)
{
    for (uint32_t i = 0; i < npairs; i++)
        if (pairs[i].pat->kind == GRAFT_PAT_DOM && pairs[i].node == n)
            return true;
    return false;
}

/* A leaf that is an input: not an embedded constant, not on a dominator
 * path, and not the reuse of a named sub-pattern (s in s@exp(x) *
 * sqrt(s) is the exp node, inside the group; what s@p binds as a leaf,
 * as in s@x, is an input through that leaf). */
static inline bool leaf_is_input(const Grouper *gp, const MatchPair *pairs, uint32_t npairs,
                                 const MatchPair *leaf)
{
    const graft_pat *pat = leaf->pat;
    if (pat->embed && node_kind(leaf->node) == NODE_CONST)
        return false;
    if (gp->in_fn.len && keymap_get(&gp->in_fn, keymap_ptr_key(pat)))
        return false; /* in a function pattern's match: its scope's */
    if (pat->slot >= 0 && gp->named[pat->slot])
        return false;
    return !gp->has_dom || !on_dom_path(pairs, npairs, leaf->node);
}

/* TVM's CreateGroup makes no input of an operator (add as a value in
 * (%x, add)) or a function: they stay in the group's body. */
static bool may_be_input(const graft_node *n)
{
    return node_kind(n) != NODE_OPREF && node_kind(n) != NODE_FUNC;
}

/* note [input order]: TVM's CreateGroup makes the parameters walking the
 * pattern graph in post-order (operands as the pattern writes them): each
 * leaf's match, and for a call pattern with any operands, all the call's
 * operands, at the call's place in that walk.  Leaves come out in the same
 * order in pre- and post-order, so the matcher's pairs (pattern
 * pre-order) give them; the operands a variadic pattern (f(x, ...))
 * leaves unmatched come in its tail pair, which the matcher puts after
 * its operands' pairs (match.h).  So nn.relu(nn.batch_norm(nn.conv2d(x,
 * ...), ...)[0]) takes x, the weight, then gamma, beta, mean, var. */
static void collect_inputs(Grouper *gp, Group *gr)
{
    next_stamps(gp);
    uint32_t npairs;
    const MatchPair *pairs = matcher_pairs(gp->e->m, &npairs);
    /* never NULL, even for a group of no inputs: group_inputs adds
     * gr->inputs to it, and NULL + 0 is undefined (found by fuzz_pipeline) */
    inputs_room(gp, gr, 1);
    gr->ninputs = 0;
    for (uint32_t i = 0; i < npairs; i++) {
        const MatchPair *p = &pairs[i];
        if (p->tail) { /* a function callee's pattern is kids[0], no operand */
            int k = p->pat->nkids - (p->pat->kind == GRAFT_PAT_FNCALLEE);
            for (; k < node_nargs(p->node); k++)
                if (may_be_input(node_arg(p->node, k)))
                    add_input(gp, gr, node_arg(p->node, k));
        } else if (p->pat->kind == GRAFT_PAT_ANY && may_be_input(p->node) &&
                   leaf_is_input(gp, pairs, npairs, p))
            add_input(gp, gr, p->node);
    }
}

/* ---- the region ---- */

/* Whether n is one of gr's roots (the root, or any of a rule of several). */
static bool is_root(const Grouper *gp, const Group *gr, const graft_node *n)
{
    for (int j = 0; j < gr->nroots; j++)
        if (group_roots(gp, gr)[j] == n)
            return true;
    return n == gr->root;
}

/* Pushes n for collect_region's walk unless the walk would pass it by
 * when popped: an input, or a node of the region already (a mark the
 * walk sets stays while it runs).  The skipped half of the pushes of a
 * batch norm's region are its inputs. */
static inline void push_unless_seen(Grouper *gp, graft_node *n)
{
    uint16_t mark = gp->mark[node_id(n)];
    if (mark != gp->stamp && mark != gp->istamp)
        walk_push_reserved(&gp->walk, n);
}

/* The region: nodes reachable from the root (from every root of a rule
 * of several) without passing an input; a function literal called there
 * with its body, which TVM's MatchExtractor takes into the group (so no
 * root inside it is tried again in the pass). */
static void collect_region(Grouper *gp, const Group *gr)
{
    gp->region.len = 0;
    for (int j = gr->nroots - 1; j >= 1; j--)
        walk_push(&gp->walk, group_roots(gp, gr)[j]);
    walk_push(&gp->walk, gr->root); /* frames kept from one candidate to the next */
    while (gp->walk.depth) {
        graft_node *n = walk_pop(&gp->walk);
        if (gp->mark[node_id(n)] == gp->stamp || is_input(gp, n))
            continue;
        gp->mark[node_id(n)] = gp->stamp;
        vec_push(&gp->region, n);
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        walk_reserve(&gp->walk, (size_t)na + 1);
        for (int i = 0; i < na; i++)
            push_unless_seen(gp, node_arg(n, i));
        if (node_callee(n) && node_kind(node_callee(n)) == NODE_FUNC)
            push_unless_seen(gp, node_callee(n));
        else if (node_kind(n) == NODE_FUNC && node_body(n))
            push_unless_seen(gp, node_body(n));
    }
}

/* note [region from the pairs]: the region walk (collect_region) visits
 * what the root reaches without passing an input, depth first, the last
 * operand first.  For most matches that is the match itself: each pair's
 * node that is no input, when every matched op, tuple or element access
 * has as operands exactly its pattern's operands' nodes (no tail, no
 * callee, not opaque), none of them is an input too, and a leaf that is
 * no input is a constant or an op value, which the walk enters and
 * leaves.  So such a group's region is listed from the pairs, each node
 * once, in the same pass over them that finds the inputs
 * (inputs_and_region), without the walk's pushes and pops; anything else
 * (a function leaf, a dominator's path, an alternative, a rule of
 * several roots) takes collect_inputs and the walk.  The two lists hold
 * the same nodes in another order, and only a refusal reads the order
 * (the overlap or the interior node it reports: the walk's first), so a
 * refused group's region is walked again before its checks answer.  The
 * same pass mostly answers those checks too: a node listed is claimed by
 * no earlier group, and its users were listed before it (in pre-order an
 * op's reader in the pattern comes first), or the checks look again.  On
 * the workload's rewrite grouper_try came to 268 instructions less a
 * batch norm (2,614 -> 2,346, its match's 1,131 included), and to 93
 * less again with the checks in the pass. */

/* An interior pair's node whose operands are its pattern's operands'
 * and nothing else the walk would enter, its pattern's role PAIR_PLAIN. */
static bool plain_interior(const MatchPair *p)
{
    const graft_node *n = p->node;
    return !node_is_opaque(n) && !node_callee_slot(n) && node_nargs(n) == p->pat->nkids;
}

/* A leaf's node that is no input and that the walk enters and leaves: a
 * constant or an op value. */
static bool plain_leaf(const graft_node *n)
{
    return (node_kind(n) == NODE_CONST || node_kind(n) == NODE_OPREF) && !node_nargs(n);
}

/* note [pair roles]: what inputs_and_region asks of a pair's pattern
 * node (interior or leaf; whether an interior one's pattern may list a
 * plain node; whether a leaf's may be an input: not below a function
 * pattern, not a named sub-pattern's reuse, and whether it embeds a
 * constant) depends on the pattern node alone.  A match the rule's line
 * made (matcher_pairs_lined) has the line's pattern nodes in the line's
 * order at every match, so their roles are learnt at the pass's first
 * such match and read by the pair's index after; any other match's are
 * worked out pair by pair (grouper_try 2,170 -> 2,114 instructions a
 * batch norm's group on the workload's partition, its match included). */
typedef enum PairRole {
    PAIR_PLAIN,       /* an op, tuple or element access, no tail */
    PAIR_WALKED,      /* any other interior pair: the walk's region */
    PAIR_LEAF_INPUT,  /* a leaf that is an input unless its node says not */
    PAIR_LEAF_EMBED,  /* the same, but a constant is embedded */
    PAIR_LEAF_INSIDE, /* a leaf that is never an input (leaf_is_input) */
} PairRole;

/* The role of pair p's pattern node (note [pair roles]). */
static uint8_t pair_role(const Grouper *gp, const MatchPair *p)
{
    const graft_pat *pat = p->pat;
    if (pat->kind != GRAFT_PAT_ANY || p->tail)
        return !p->tail && (pat->kind == GRAFT_PAT_OP || pat->kind == GRAFT_PAT_GETITEM ||
                            pat->kind == GRAFT_PAT_TUPLE)
                   ? PAIR_PLAIN
                   : PAIR_WALKED;
    if ((gp->in_fn.len && keymap_get(&gp->in_fn, keymap_ptr_key(pat))) ||
        (pat->slot >= 0 && gp->named[pat->slot]))
        return PAIR_LEAF_INSIDE;
    return pat->embed ? PAIR_LEAF_EMBED : PAIR_LEAF_INPUT;
}

/* The roles of the last match's npairs pairs: the line's learnt once
 * per pass, any other match's worked out (note [pair roles]). */
static const uint8_t *pair_roles(Grouper *gp, const MatchPair *pairs, uint32_t npairs)
{
    bool lined = matcher_pairs_lined(gp->e->m);
    if (lined && gp->roles_lined)
        return gp->roles.items;
    vec_reserve(&gp->roles, npairs);
    for (uint32_t i = 0; i < npairs; i++)
        gp->roles.items[i] = pair_role(gp, &pairs[i]);
    gp->roles_lined = lined;
    return gp->roles.items;
}

/* Per leaf role, the node kinds (bits by NodeKind) that make no input:
 * an op value or a function (may_be_input), a constant the pattern
 * embeds, any node of a leaf that is never one (leaf_is_input). */
_Static_assert(NODE_MATCH < 16, "a node kind is a bit of kinds_inside's");
static const uint16_t kinds_inside[PAIR_LEAF_INSIDE + 1] = {
    [PAIR_LEAF_INPUT] = 1u << NODE_OPREF | 1u << NODE_FUNC,
    [PAIR_LEAF_EMBED] = 1u << NODE_OPREF | 1u << NODE_FUNC | 1u << NODE_CONST,
    [PAIR_LEAF_INSIDE] = UINT16_MAX,
};

/* Whether a leaf pair p of role role is an input (may_be_input and
 * leaf_is_input, the pattern's part read from the role). */
static inline bool leaf_input(const Grouper *gp, const MatchPair *pairs, uint32_t npairs,
                              const MatchPair *p, uint8_t role)
{
    if (kinds_inside[role] >> node_kind(p->node) & 1)
        return false;
    return !gp->has_dom || !on_dom_path(pairs, npairs, p->node);
}

/* Gives back what inputs_and_region made of gr: false. */
static bool give_back(Grouper *gp, const Group *gr)
{
    gp->inputs.len = gr->inputs;
    gp->region.len = 0;
    return false;
}

/* Constants and functions exist outside any one group (TVM ignores them
 * in its overlap and interior checks). */
static bool shared_kind(const graft_node *n)
{
    return node_kind(n) == NODE_CONST || node_kind(n) == NODE_FUNC;
}

/* note [listed reader]: inputs_and_region lists a pair's node only
 * when every interior pair before it was a plain one (an op, tuple or
 * element access whose operands are its pattern's operands), so a node
 * listed other than the root was reached as an operand of its pattern
 * parent's node, listed before it: that node reads it.  A node of one
 * use then has no user outside the region, and its users list need not
 * be read (grouper_try about 70 instructions less a batch norm's group
 * on the workload's partition, six interior nodes of one user each). */

/* Whether n, just listed, leaves region_check nothing to find there:
 * shared, or claimed by no group kept earlier and either the root or a
 * node whose users were all listed before it (in pre-order, its reader
 * in the pattern was; note [listed reader]). */
static bool listed_clean(const Grouper *gp, const Group *gr, const graft_node *n)
{
    if (shared_kind(n))
        return true;
    if (gp->claim[node_id(n)] >= gp->pass) /* grouper_claimed: the try grew claim */
        return false;
    if (n == gr->root || node_nusers(n) == 1)
        return true;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k))
        if (gp->mark[node_id(node_user(n, k))] != gp->stamp)
            return false;
    return true;
}

/* One pass over the last match's pairs making gr's inputs, as
 * collect_inputs does, and its region (note [region from the pairs]);
 * false, neither made, when the pairs do not make the region (the marks
 * it set are the stamps' that collect_inputs then leaves behind).  *clean
 * tells that no node listed is claimed and every interior one's users
 * were listed before it (in pre-order, an op's reader in the pattern
 * is): region_check would keep the group, and need not look.  The
 * lists' ends are kept in locals: the stores into the marks would make
 * the compiler read them again. */
static bool inputs_and_region(Grouper *gp, Group *gr, bool *clean)
{
    next_stamps(gp);
    uint32_t npairs;
    uint16_t *mark = gp->mark, stamp = gp->stamp, istamp = gp->istamp;
    const MatchPair *pairs = matcher_pairs(gp->e->m, &npairs);
    const uint8_t *role = pair_roles(gp, pairs, npairs);
    inputs_room(gp, gr, npairs + 1); /* never NULL: collect_inputs */
    vec_reserve(&gp->region, npairs);
    graft_node **input = gp->inputs.items + gp->inputs.len, **first = input;
    graft_node **listed = gp->region.items;
    gp->region.len = 0;
    bool all_clean = true;
    for (uint32_t i = 0; i < npairs; i++) {
        const MatchPair *p = &pairs[i];
        uint16_t *at = &mark[node_id(p->node)];
        if (role[i] <= PAIR_WALKED) { /* an interior node */
            if (*at == istamp || role[i] == PAIR_WALKED || !plain_interior(p))
                return give_back(gp, gr);
            if (*at == stamp)
                continue; /* two pattern nodes matched it */
        } else if (leaf_input(gp, pairs, npairs, p, role[i])) {
            if (*at == stamp) /* listed: the walk would stop at it */
                return give_back(gp, gr);
            if (*at != istamp) {
                *at = istamp;
                *input++ = p->node;
            }
            continue;
        } else if (*at == istamp || *at == stamp)
            continue; /* an input, or listed already */
        else if (!plain_leaf(p->node))
            return give_back(gp, gr);
        *at = stamp;
        *listed++ = p->node;
        all_clean = all_clean && listed_clean(gp, gr, p->node);
    }
    *clean = all_clean;
    gr->ninputs = (uint32_t)(input - first);
    gp->inputs.len += gr->ninputs;
    gp->region.len = (size_t)(listed - gp->region.items);
    return true;
}

/* note [interior read inside]: a group whose region the pairs listed
 * clean (inputs_and_region) has no interior node that anything outside
 * the region reads: each node's users were listed before it.  A
 * partition moves such a region without looking at the users again
 * (partition_movable, note [moved body] in partition_region.c); the
 * groups applied before it add no user to its nodes, since a group reads
 * another's node only as its input, which is a use outside that the
 * listing saw.  The region the partition walks holds the same nodes
 * (no function literal, one root).  On the workload's partition this
 * answered every group. */

/* Whether a root of gr post-dominates user. */
static bool root_postdominates(const Grouper *gp, const Group *gr, const graft_node *user)
{
    for (int j = 1; j < gr->nroots; j++)
        if (engine_postdominates(gp->e, group_roots(gp, gr)[j], user))
            return true;
    return engine_postdominates(gp->e, gr->root, user);
}

/* The first user of x outside the region that no root of gr
 * post-dominates, or NULL. */
static graft_node *used_outside(const Grouper *gp, const Group *gr, const graft_node *x)
{
    for (int k = node_user_first(x); k < node_user_end(x); k = node_user_next(x, k)) {
        graft_node *user = node_user(x, k);
        if (gp->mark[node_id(user)] != gp->stamp && !root_postdominates(gp, gr, user))
            return user;
    }
    return NULL;
}

/* Why the last candidate's region refuses it, in one pass over it:
 * PART_OVERLAP with the first node a group kept earlier claimed in *x;
 * else PART_INTERIOR with the first interior node used outside where no
 * root post-dominates the use in *x and that user in *outside; else
 * PART_KEPT.  Constants and functions are neither; the roots are no
 * interior nodes (their users read the action's values). */
static PartFate region_check(const Grouper *gp, const Group *gr, graft_node **x,
                             graft_node **outside)
{
    graft_node *escape = NULL;
    for (size_t i = 0; i < gp->region.len; i++) {
        graft_node *n = gp->region.items[i];
        if (shared_kind(n))
            continue;
        if (grouper_claimed(gp, n)) {
            *x = n;
            return PART_OVERLAP;
        }
        if (!escape && !is_root(gp, gr, n) && (*outside = used_outside(gp, gr, n)))
            escape = n;
    }
    *x = escape;
    return escape ? PART_INTERIOR : PART_KEPT;
}

/* note [partition roots]: a partition of several roots moves their
 * union into one function whose result is the tuple of the roots' values,
 * and each root's users read its field of the call.  A root that another
 * root reads, as a leaf (an input of the group) or inside its tree, would
 * have to be both the call's result and its argument or an interior node
 * of the body whose readers outside read the call: so such a match is
 * dropped from a partition (a rewrite takes it, note [several roots]);
 * so is one whose roots lie in different functions, which no one call can
 * serve.  TVM has no partition of several roots to follow. */

/* A partition's root that the group itself reads, with its reader in
 * *reader (a root in another function than the first: *reader NULL), or
 * NULL. */
static graft_node *root_read_inside(const Grouper *gp, const Group *gr, graft_node **reader)
{
    graft_node *const *roots = group_roots(gp, gr);
    for (int j = 0; j < gr->nroots; j++) {
        *reader = NULL;
        if (node_scope(gp->e->g, roots[j]) != node_scope(gp->e->g, gr->root))
            return roots[j];
        /* an input of the group is read by a node of its region too */
        const graft_node *r = roots[j];
        for (int k = node_user_first(r); k < node_user_end(r); k = node_user_next(r, k))
            if (gp->mark[node_id(node_user(r, k))] == gp->stamp) {
                *reader = node_user(r, k);
                return roots[j];
            }
    }
    return NULL;
}

/* ---- one candidate ---- */

/* note [pass buffers]: a pass keeps many groups (one per seed batch
 * norm), and a malloc and free per group for its inputs cost more than
 * finding them; so the groups of a pass share one array, each its
 * stretch, and a dropped candidate gives its stretch back.  A rewrite
 * pass keeps its groups' bindings so too (rewrite.c). */
static void drop(Grouper *gp, const Group *gr)
{
    gp->inputs.len = gr->inputs;
    gp->roots.len = gr->roots;
}

/* The matcher's root nodes of a rule of several roots, into gp->roots;
 * none for a rule of one, without asking the matcher (gp->roots holds
 * room from grouper_begin, so group_roots adds 0 to no NULL). */
static void collect_roots(Grouper *gp, Group *gr)
{
    gr->roots = (uint32_t)gp->roots.len;
    if (!gp->e->rs->rules[gp->rule].nroots)
        return;
    graft_node *const *roots = matcher_roots(gp->e->m, &gr->nroots);
    vec_reserve(&gp->roots, gp->roots.len + (size_t)gr->nroots + 1);
    gr->roots = (uint32_t)gp->roots.len;
    for (int j = 0; j < gr->nroots; j++)
        gp->roots.items[gp->roots.len++] = roots[j];
}

/* The region of a refused group listed from the pairs, walked again, for
 * the walk's order (note [region from the pairs]). */
static void walk_region_again(Grouper *gp, const Group *gr)
{
    for (size_t k = 0; k < gp->region.len; k++)
        gp->mark[node_id(gp->region.items[k])] = 0;
    collect_region(gp, gr);
}

/* region_check of the last candidate; a region listed from the pairs
 * that is refused is walked first, for the walk's order the report
 * reads. */
static PartFate region_refusal(Grouper *gp, const Group *gr, bool listed, graft_node **x,
                               graft_node **user)
{
    for (;; listed = false) {
        PartFate fate = region_check(gp, gr, x, user);
        if (fate == PART_KEPT || !listed)
            return fate;
        walk_region_again(gp, gr);
    }
}

/* The counter of root's global function: a module of no globals but
 * @main (ncounters 1) has one, without looking for root's function; a
 * node of @main's scope (no function's, and no function itself) has the
 * one graph_global_of gave the pass's first such root, since the globals
 * do not change during a run (a loaded Relay module lists @main: 20
 * instructions a group on the workload). */
static int counter_of(Grouper *gp, const graft_node *root)
{
    if (gp->ncounters == 1)
        return 0;
    if (node_kind(root) == NODE_FUNC || node_scope(gp->e->g, root))
        return graph_global_of(gp->e->g, root) + 1;
    if (gp->main_at < 0)
        gp->main_at = graph_global_of(gp->e->g, root) + 1;
    return gp->main_at;
}

/* The next group number of root's global function. */
static uint32_t next_number(Grouper *gp, const graft_node *root)
{
    return gp->counter[counter_of(gp, root)]++;
}

/* A match at root: a candidate group, kept unless it overlaps or leaks. */
static bool candidate(Grouper *gp, graft_node *root, bool leaf_ok, Group *gr)
{
    RuleStats *st = &gp->e->stats.rules[gp->rule];
    *gr = (Group){.root = root};
    collect_roots(gp, gr);
    bool clean = true, listed = !gr->nroots && inputs_and_region(gp, gr, &clean);
    if (!listed)
        collect_inputs(gp, gr);
    if (is_input(gp, root)) { /* a bare leaf pattern: nothing to group */
        if (leaf_ok) {
            grouper_verdict(gp, root, PART_KEPT, NULL, NULL);
            gr->number = next_number(gp, root);
            gp->region.len = 0;
            return true;
        }
        drop(gp, gr);
        return false;
    }
    gr->number = next_number(gp, root);
    if (!listed)
        collect_region(gp, gr);
    graft_node *x, *user = NULL;
    PartFate fate = listed && clean ? PART_KEPT : region_refusal(gp, gr, listed, &x, &user);
    if (fate == PART_OVERLAP) {
        st->overlap++;
        grouper_verdict(gp, root, PART_OVERLAP, x, grouper_owner(gp, x));
        engine_refusal(gp->e, gp->rule, "overlap", root, x, "is in the group of",
                       grouper_owner(gp, x));
        drop(gp, gr);
        return false;
    }
    if (fate == PART_INTERIOR) {
        st->interior++;
        grouper_verdict(gp, root, PART_INTERIOR, x, user);
        engine_refusal(gp->e, gp->rule, "interior-use", root, x, "is used outside by", user);
        drop(gp, gr);
        return false;
    }
    if (!leaf_ok && gr->nroots && (x = root_read_inside(gp, gr, &user))) {
        st->interior++;
        grouper_verdict(gp, root, PART_ROOT_READ, x, user);
        engine_refusal(gp->e, gp->rule, "root-read", root, x,
                       user ? "is read inside the group by" : "is in another function than",
                       user ? user : root);
        drop(gp, gr);
        return false;
    }
    grouper_verdict(gp, root, PART_KEPT, NULL, NULL);
    gr->read_inside = listed && clean;
    uint32_t stamp = gp->pass + (uint32_t)gp->owners.len; /* note [claim stamps] */
    vec_push(&gp->owners, root);
    for (size_t i = 0; i < gp->region.len; i++)
        gp->claim[node_id(gp->region.items[i])] = stamp;
    gp->nclaimed += gp->region.len;
    return true;
}

/* Each root takes the call, or its element: a tensor made (note [fixed
 * outputs] in src/ir/graph_module.c). */
ReplacementMisfit engine_partition_misfit(graft_engine *e, const graft_rule *rule,
                                          const graft_node *root, int *nth)
{
    int n = 1, field;
    graft_node *const *roots = rule->nroots ? matcher_roots(e->m, &n) : NULL;
    *nth = 0;
    for (int j = 0; j < n; j++) {
        const graft_node *r = roots ? roots[j] : root;
        ReplacementMisfit why = graph_replacement_misfit(e->g, r, &GRAPH_MADE_TENSOR, &field);
        if (why != REPLACEMENT_FITS) {
            *nth = roots ? j + 1 : 0;
            return why;
        }
    }
    return REPLACEMENT_FITS;
}

/* Whether a partition may replace the match's roots by its call: a call
 * for a call always (a result of fixed fields is a tuple, a graph input
 * a variable), else as engine_partition_misfit says. */
static inline bool partition_fits(Grouper *gp, const graft_node *root)
{
    const graft_rule *rule = &gp->e->rs->rules[gp->rule];
    int nth;
    NodeKind k = node_kind(root);
    return (!rule->nroots && k != NODE_TUPLE && k != NODE_VAR) ||
           engine_partition_misfit(gp->e, rule, root, &nth) == REPLACEMENT_FITS;
}

bool grouper_try(Grouper *gp, graft_node *root, bool leaf_ok, Group *out)
{
    RuleStats *st = &gp->e->stats.rules[gp->rule];
    grouper_grow(gp);
    double t0 = engine_clock(gp->e);
    st->tried++;
    MatchResult res = matcher_try(gp->e->m, gp->rule, root);
    bool kept = false;
    if (res == MATCH_OK && !leaf_ok && !partition_fits(gp, root)) {
        st->matched++;
        st->guard++; /* a partition's call refused as a guard refuses (a rewrite's value is
                        asked once built: note [fixed outputs] in graph_module.c) */
        grouper_verdict(gp, root, PART_UNFIT, NULL, NULL);
    } else if (res == MATCH_OK) {
        st->matched++;
        kept = candidate(gp, root, leaf_ok, out);
        if (kept && leaf_ok) /* note [rewrite keeps no inputs] in group.h */
            gp->inputs.len = out->inputs;
    } else if (res == MATCH_GUARD)
        st->guard++;
    else if (res == MATCH_BUDGET)
        st->budget++;
    st->seconds += engine_clock(gp->e) - t0;
    return kept;
}
