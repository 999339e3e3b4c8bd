/* match_ways.c - the ways of a pattern node that need more than a look at
 * the states: how long a repeated op's chain runs, and the walk of a
 * dominator pattern. */
#include "match_impl.h"

#include <string.h>

/* note [nested stars]: op*(op*(P)) matches what op*(P) matches, but with
 * both stars free to extend, a chain of L ops is split between them in
 * every way: L + 1 splits, (L + 1)(L + 2) / 2 for three stars, each
 * tried again when the guard or a later goal refuses (a fuzzed rule with
 * three nested nn.relu* took minutes).  The outer star leaves the chain
 * to the inner one when the inner binds nothing and tests the same: the
 * outer star's own slot still binds the chain's top, and the inner one
 * still tries every length. */
static bool star_leaves_chain(const Matcher *m, const graft_pat *p)
{
    const graft_pat *q = p->kids[0];
    if (q->kind != GRAFT_PAT_STAR || q->slot >= 0 || q->callee > 0 || q->nbinds > 0)
        return false;
    const graft_item *outer = &m->rs->items[p->item], *inner = &m->rs->items[q->item];
    return strcmp(outer->op, inner->op) == 0 && outer->npreds == inner->npreds &&
           (outer->npreds == 0 || memcmp(outer->preds, inner->preds,
                                         (size_t)outer->npreds * sizeof *outer->preds) == 0);
}

bool matcher_star_extends(const Matcher *m, const graft_pat *p, graft_node *n)
{
    const graft_item *it = &m->rs->items[p->item];
    return node_kind(n) == NODE_CALL && node_op(n) && strcmp(node_op(n), it->op) == 0 &&
           node_nargs(n) == 1 && has(m, node_arg(n, 0), p->item) && !star_leaves_chain(m, p);
}

/* A fresh stamp for a walk, with mark sized for every node. */
static uint32_t new_stamp(Matcher *m)
{
    size_t count = graph_node_count(m->g);
    if (count > m->mark_cap) {
        size_t old = m->mark_cap;
        m->mark = xgrow_items(m->mark, &m->mark_cap, count, sizeof *m->mark);
        memset(m->mark + old, 0, (m->mark_cap - old) * sizeof *m->mark);
    }
    if (++m->stamp == 0) {
        memset(m->mark, 0, m->mark_cap * sizeof *m->mark);
        m->stamp = 1;
    }
    return m->stamp;
}

/* note [dominator walk]: dominates(parent, path, child) at n walks from
 * n's operands towards the inputs: a node matching parent ends the walk
 * there, a constant is passed over, a node matching path is walked
 * through; anything else fails.  The walk must reach parent, and always
 * the same node: that node dominates n.  When keep_path is set, the path
 * nodes join the match's pairs. */
bool matcher_dom_walk(Matcher *m, const graft_pat *p, graft_node *n, bool keep_path,
                      graft_node **parent)
{
    uint32_t pi = p->kids[0]->item, qi = p->kids[1]->item, stamp = new_stamp(m);
    *parent = NULL;
    walk_clear(&m->walk); /* a failed walk returns with frames left */
    for (graft_node *x = n;; x = walk_pop(&m->walk)) {
        if (x != n && keep_path)
            matcher_add_pair(m, p, x);
        int na = node_is_opaque(x) ? 0 : node_nargs(x);
        walk_reserve(&m->walk, (size_t)na);
        for (int i = 0; i < na; i++) {
            graft_node *o = node_arg(x, i);
            if (m->mark[node_id(o)] == stamp)
                continue;
            m->mark[node_id(o)] = stamp;
            if (has(m, o, pi)) {
                if (*parent && *parent != o)
                    return false;
                *parent = o;
            } else if (node_kind(o) == NODE_CONST)
                continue;
            else if (has(m, o, qi))
                walk_push_reserved(&m->walk, o);
            else
                return false;
        }
        if (m->walk.depth == 0)
            return *parent != NULL;
    }
}
