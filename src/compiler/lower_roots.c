/* lower_roots.c - a rule of several roots, p & q & r (note [several
 * roots] in check_roots.c), to its graft_root table: each root's pattern
 * tree, and for each later root the variable of an earlier root whose
 * users hold its candidates, found as the checker found it. */
#include "lower_impl.h"

#include <stdlib.h>

#include "walk.h"

/* Marks the slots that pattern p binds to nodes. */
static void mark_bound(const graft_pat *p, bool *bound)
{
    WALK(const graft_pat *) w = {0};
    walk_push(&w, p);
    while (w.depth) {
        const graft_pat *n = walk_pop(&w);
        if (n->slot >= 0)
            bound[n->slot] = true;
        walk_reserve(&w, (size_t)n->nkids);
        for (int i = 0; i < n->nkids; i++)
            walk_push_reserved(&w, n->kids[i]);
    }
    walk_free(&w);
}

/* How far below its node kid k of p matches: an operand of a call or a
 * tuple, the tuple of an element access one step down; the one kid of a
 * naming alternative (s@x) at the node itself; -1 for the kids of other
 * kinds, which a match need not pass. */
static int kid_step(const graft_pat *p)
{
    switch (p->kind) {
    case GRAFT_PAT_OP: case GRAFT_PAT_FNCALL: case GRAFT_PAT_TUPLE: case GRAFT_PAT_GETITEM:
    case GRAFT_PAT_CALL:
        return 1;
    case GRAFT_PAT_ALT:
        return p->nkids == 1 ? 0 : -1;
    default:
        return -1;
    }
}

/* The nearest slot below root (breadth first, at least one step down)
 * that bound marks, into r; false when there is none. */
static bool find_via(const graft_pat *root, const bool *bound, graft_root *r)
{
    typedef struct At {
        const graft_pat *p;
        int depth;
    } At;
    VEC(At) q = {0};
    vec_push(&q, ((At){root, 0}));
    bool found = false;
    for (size_t i = 0; i < q.len && !found; i++) {
        At at = q.items[i];
        if (at.depth > 0 && at.p->slot >= 0 && bound[at.p->slot]) {
            r->via = at.p->slot;
            r->depth = at.depth;
            found = true;
        }
        int step = kid_step(at.p);
        for (int k = 0; !found && step >= 0 && k < at.p->nkids; k++)
            vec_push(&q, ((At){at.p->kids[k], at.depth + step}));
    }
    vec_free(&q);
    return found;
}

bool lower_roots(Lowerer *L, const AstNode *roots, graft_rule *out)
{
    const AstList *l = &roots->u.list.items;
    graft_root *rs = arena_array(L->arena, (size_t)l->count, sizeof *rs);
    bool *bound = xcalloc((size_t)L->rule->nvars + 1, sizeof *bound);
    bool ok = true;
    for (int i = 0; i < l->count && ok; i++) {
        rs[i] = (graft_root){lower_pattern(L, l->items[i]), -1, 0};
        ok = rs[i].pattern && (i == 0 || find_via(rs[i].pattern, bound, &rs[i]));
        if (rs[i].pattern && !ok) /* the checker let it through */
            lower_error(L, l->items[i], "a root without a shared variable");
        if (ok)
            mark_bound(rs[i].pattern, bound);
    }
    free(bound);
    out->pattern = rs[0].pattern;
    out->nroots = l->count;
    out->roots = rs;
    return ok;
}
