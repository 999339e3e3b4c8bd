/* match_roots.c - the roots after the first of a rule of several (note
 * [several roots] in src/compiler/check_roots.c).
 *
 * note [root candidates]: the automaton offers a rule of several roots
 * where its first root's item is, as it offers any rule; the matcher
 * verifies that root, then looks for each later root j in turn among the
 * nodes that read a node the roots before it bound: lowering picked for
 * j a shared slot (graft_root.via) and how many operand steps below j
 * its node sits (depth), so j's candidates are via's node's users, their
 * users for depth 2, and so on: never a scan of the graph.  Candidates
 * come in users-list order (a node that reads via twice comes twice; for
 * depth > 1 breadth first, each node once), which the graph keeps in the
 * order the uses were made, so the choice is deterministic.  A
 * candidate must be in the state of j's item (the automaton's labels, as
 * for every goal), and no node an earlier
 * root matched as a call, tuple or element (pairs that are no leaf): two
 * roots never share a node, and a root is no interior node of another.
 * Each candidate is a way of the goal machine (note [goal machine]): the
 * first that fits is taken and a choice point keeps the rest, so a
 * failure later (a repeated variable, a later root, the guard) tries the
 * next candidate.  The guard runs once every root matched. */
#include "match_impl.h"

#include <stdlib.h>

/* note [root misses]: a later root's search fails when no user of the
 * shared node is in the root's state; every candidate of the first root
 * that binds the same shared node would scan the same users again, so
 * that a node read by n relus, where a rule wants a relu and a sigmoid
 * of one x and none has a sigmoid, took n * n looks (20,000 relus: 2.6 s).
 * The matcher remembers, per root of each rule of several, the last
 * shared node whose users had none in the root's state, and the labels'
 * epoch then: while no state was stored since (and so no edit was made:
 * an edit relabels the nodes whose operands it changed before the next
 * try), the root fails at once.  A search that failed only because the
 * nodes in the state were matched already by earlier roots is not
 * remembered: that depends on the try.  (tests/hostile.sh, roots.) */

void matcher_roots_init(Matcher *m)
{
    uint32_t total = 0;
    m->miss_at = xmalloc(((size_t)m->rs->nrules + 1) * sizeof *m->miss_at);
    for (uint32_t r = 0; r < m->rs->nrules; r++) {
        m->miss_at[r] = total;
        total += (uint32_t)m->rs->rules[r].nroots;
    }
    m->misses = xcalloc((size_t)total + 1, sizeof *m->misses);
}

void matcher_roots_free(Matcher *m)
{
    free(m->miss_at);
    free(m->misses);
}

static RootMiss *miss_of(const Matcher *m, int j)
{
    return &m->misses[m->miss_at[m->rule - m->rs->rules] + (uint32_t)j];
}

/* Whether no candidate of root j (its users, or m->cands for depth > 1)
 * is in its state, whatever the try matched. */
static bool none_in_state(const Matcher *m, int j, const graft_node *via)
{
    uint32_t item = m->rule->roots[j].pattern->item;
    if (m->rule->roots[j].depth == 1) {
        for (int k = node_user_first(via); k < node_user_end(via); k = node_user_next(via, k))
            if (has(m, node_user(via, k), item))
                return false;
        return true;
    }
    for (size_t k = 0; k < m->cands.len; k++)
        if (has(m, m->cands.items[k], item))
            return false;
    return true;
}

uint32_t matcher_root_goals(Matcher *m, uint32_t rest)
{
    for (int j = m->rule->nroots - 1; j >= 1; j--) {
        rest = matcher_goal(m, m->rule->roots[j].pattern, NULL, false, rest);
        m->pool.items[rest].root = j;
    }
    return rest;
}

/* note [root precheck]: a later root one operand step above a variable
 * that the first root binds directly (x of nn.dense(x, wq:const)) is a
 * user of the first root's operand there, and no root shares a node with
 * another; so when no other user of that operand is in the later root's
 * state, the try fails before the first root is matched.  A chain of
 * dense layers, each offered the Q/K/V and K/V merges, then pays a users
 * walk per try instead of a match (bench/RESULTS.md, "Rules of several
 * roots").  Only a first root whose operands are its pattern's kids in
 * order (no variadic or commutative op) is looked at; graft explain's
 * tries (m->rec) skip it, to say which root failed. */
/* Whether a user of via other than root is in root j's state; a via with
 * none in it at all is remembered as a miss (note [root misses]), so that
 * the next first root reading it, one of 100,000 relus of one x, fails
 * without walking x's users again (tests/hostile.sh, hub). */
static bool other_user_in_state(const Matcher *m, int j, const graft_node *root,
                                const graft_node *via)
{
    RootMiss *miss = miss_of(m, j);
    uint64_t epoch = labels_epoch(m->labels);
    if (miss->via == via && miss->epoch == epoch)
        return false;
    uint32_t item = m->rule->roots[j].pattern->item;
    bool root_in = false;
    for (int k = node_user_first(via); k < node_user_end(via); k = node_user_next(via, k)) {
        if (!has(m, node_user(via, k), item))
            continue;
        if (node_user(via, k) != root)
            return true;
        root_in = true;
    }
    if (!root_in)
        *miss = (RootMiss){via, epoch};
    return false;
}

bool matcher_roots_possible(const Matcher *m, const graft_node *root)
{
    const graft_pat *p = m->rule->pattern;
    const graft_item *it = &m->rs->items[p->item];
    if (p->kind != GRAFT_PAT_OP || it->variadic || it->commutative)
        return true;
    int n = pattern_noperands(root) < p->nkids ? pattern_noperands(root) : p->nkids;
    for (int j = 1; j < m->rule->nroots; j++) {
        const graft_root *r = &m->rule->roots[j];
        for (int i = 0; r->depth == 1 && i < n; i++) {
            if (p->kids[i]->kind != GRAFT_PAT_ANY || p->kids[i]->slot != r->via)
                continue;
            if (!other_user_in_state(m, j, root, pattern_operand(root, i)))
                return false;
        }
    }
    return true;
}

/* A fresh stamp for m->seen, sized for every node of the graph. */
static uint32_t seen_stamp(Matcher *m)
{
    size_t count = graph_node_count(m->g), old = m->seen_cap;
    if (count > old) {
        m->seen = xgrow_items(m->seen, &m->seen_cap, count, sizeof *m->seen);
        memset(m->seen + old, 0, (m->seen_cap - old) * sizeof *m->seen);
    }
    if (++m->seen_stamp == 0) {
        memset(m->seen, 0, m->seen_cap * sizeof *m->seen);
        m->seen_stamp = 1;
    }
    return m->seen_stamp;
}

/* The users of the nodes in m->cands, each once, in order, into m->cands. */
static void users_level(Matcher *m, uint32_t stamp)
{
    m->level.len = 0;
    for (size_t i = 0; i < m->cands.len; i++) {
        const graft_node *c = m->cands.items[i];
        for (int k = node_user_first(c); k < node_user_end(c); k = node_user_next(c, k)) {
            graft_node *user = node_user(c, k);
            if (m->seen[node_id(user)] != stamp) {
                m->seen[node_id(user)] = stamp;
                vec_push(&m->level, user);
            }
        }
    }
    m->cands.len = 0;
    for (size_t i = 0; i < m->level.len; i++)
        vec_push(&m->cands, m->level.items[i]);
}

/* Root j's candidates into m->cands, for a depth above 1: depth levels
 * of users above via's node (none when via is unbound). */
static void candidates(Matcher *m, const graft_root *r)
{
    m->cands.len = 0;
    graft_node *via = m->b[r->via].node;
    if (!via)
        return;
    vec_push(&m->cands, via);
    for (int d = 0; d < r->depth; d++)
        users_level(m, seen_stamp(m));
}

/* Whether n may be root j's node: in its item's state, and no node that
 * an earlier root matched as more than a leaf. */
static bool root_fits(const Matcher *m, int j, graft_node *n)
{
    if (!has(m, n, m->rule->roots[j].pattern->item))
        return false;
    for (size_t i = 0; i < m->pairs.len; i++)
        if (m->pairs.items[i].node == n && m->pairs.items[i].pat->kind != GRAFT_PAT_ANY)
            return false;
    return true;
}

/* The candidates of root j from index k on: the first that fits, its
 * index in *k, or NULL.  A root one step above its shared node (the
 * common case: nn.dense(x, w)) reads the users list itself, which is in
 * the graph already; a deeper one the list candidates made. */
static graft_node *next_fit(Matcher *m, int j, const graft_node *via, int *u, size_t *k)
{
    if (m->rule->roots[j].depth == 1) {
        for (; via && *u < node_user_end(via); *u = node_user_next(via, *u), ++*k)
            if (root_fits(m, j, node_user(via, *u)))
                return node_user(via, *u);
        return NULL;
    }
    for (; *k < m->cands.len; ++*k)
        if (root_fits(m, j, m->cands.items[*k]))
            return m->cands.items[*k];
    return NULL;
}

bool matcher_root_way(Matcher *m, int j, int w, uint32_t rest, uint32_t *out)
{
    const graft_root *r = &m->rule->roots[j];
    graft_node *via = m->b[r->via].node;
    int u = via ? node_user_first(via) : 0; /* (no users list without via) */
    RootMiss *miss = miss_of(m, j);
    uint64_t epoch = labels_epoch(m->labels);
    if (via && miss->via == via && miss->epoch == epoch) {
        if (matcher_record(m, MFAIL_ROOT, r->pattern, via))
            m->rec->bind = r->via;
        return false;
    }
    size_t first = 0;
    if (r->depth == 1) {
        for (; via && u < node_user_end(via) && first < (size_t)w; u = node_user_next(via, u))
            first++; /* way w: the w-th use */
    } else {
        candidates(m, r);
        first = (size_t)w;
    }
    graft_node *n = next_fit(m, j, via, &u, &first);
    if (!n) {
        if (w == 0 && via && none_in_state(m, j, via))
            *miss = (RootMiss){via, epoch};
        if (w == 0 && matcher_record(m, MFAIL_ROOT, r->pattern, via))
            m->rec->bind = r->via;
        return false;
    }
    size_t later = first + 1;
    if (via && u < node_user_end(via))
        u = node_user_next(via, u);
    if (next_fit(m, j, via, &u, &later))
        vec_push(&m->choices, ((Choice){r->pattern, NULL, false, (int)later, rest,
                                        (uint32_t)m->trail.len, (uint32_t)m->pairs.len,
                                        (uint32_t)m->pool.len, j}));
    m->root_at[j] = n;
    *out = matcher_goal(m, r->pattern, n, false, rest);
    return true;
}

graft_node *const *matcher_roots(const Matcher *m, int *n)
{
    *n = m->rule->nroots;
    return m->root_at;
}
