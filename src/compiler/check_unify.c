/* check_unify.c - can two patterns match the same node: first-order
 * unification of two patterns (note [unification] in check_overlap.c).
 *
 * The two patterns' variable slots live in one table (side 0 first, then
 * side 1), grouped into classes by union-find; a class may be bound to a
 * pattern (the node it must be) and carries what constraints say about
 * the node (Facts).  Work is a list of goals "these two patterns denote the
 * same node" (cons cells, so branches share tails) plus "constraint k holds
 * on this node".  Alternatives, optional and repeated ops and commutative
 * swaps are choice points: the state at the choice (goal list, trail
 * length) is kept, and on failure the trail undoes every class change made
 * since.  Every goal expanded costs one step of the caller's budget; when
 * it runs out the answer is "may unify" (unsure).  Nothing recurses.
 * This is the matcher's machine (note [goal machine] in
 * src/runtime/match.c) over two patterns instead of a pattern and a
 * graph, kept apart because the runtime shares none of the checker's
 * types.
 *
 * Attribute variables have classes too: groups=g against groups=h joins
 * them, against groups=1 binds g's class to the literal.  When every goal
 * holds, the two rules' guards are read on that match (note [guard
 * logic]); guards that cannot hold together there (g > 1 against g == 1)
 * make it a failure, and the search takes its next way.
 *
 * This file holds the machine (classes, trail, goals, choice points, the
 * occurs check, variables and constraints); a goal between two shapes
 * (calls, classes, optional ops, ...) expands in check_unify_shape.c. */
#include "check_unify_impl.h"

#include <stdlib.h>
#include <string.h>

#include "walk.h"

/* A budget for check_may_unify called on its own (as PAIR_STEPS in
 * check_overlap.c). */
enum { UNIFY_STEPS = 100000 };

static bool is_wrapper(Term t)
{
    return !t.as_var && (t.n->kind == AST_BIND || t.n->kind == AST_CONSTRAIN);
}

static bool is_var(Term t)
{
    return t.as_var || t.n->kind == AST_VAR;
}

/* The slot index in u->vars of a variable term (AST_VAR, or the name of
 * an AST_BIND), or -1 (then it binds nothing, like _). */
int unifier_var_index(const Unifier *u, Term t)
{
    int slot = t.n->kind == AST_BIND ? t.n->u.bind.slot : t.n->u.var.slot;
    int count = t.side ? u->nvars - u->base : u->base;
    if (slot < 0 || slot >= count)
        return -1;
    return slot + (t.side ? u->base : 0);
}

/* The root of v's class (no path compression: the trail restores only
 * what unifier_set_var changed). */
int unifier_find(const Unifier *u, int v)
{
    while (u->vars[v].parent != v)
        v = u->vars[v].parent;
    return v;
}

/* Changes slot v to s, logging the old state. */
void unifier_set_var(Unifier *u, int v, VarState s)
{
    vec_push(&u->trail, ((TrailEntry){v, u->vars[v]}));
    u->vars[v] = s;
}

/* Restores every slot changed since the trail had mark entries. */
static void undo(Unifier *u, size_t mark)
{
    while (u->trail.len > mark) {
        TrailEntry e = vec_pop(&u->trail);
        u->vars[e.var] = e.old;
    }
}

/* A new goal cell in front of list rest; returns its index. */
int unifier_push(Unifier *u, Term a, Term b, const AstNode *fact, int rest)
{
    vec_push(&u->goals, ((Goal){a, b, fact, rest}));
    return (int)u->goals.len - 1;
}

/* One three-valued fact (1, 0, -1 unknown): want joins *have. */
static bool join_flag(int *have, int want)
{
    if (want < 0)
        return true;
    if (*have >= 0 && *have != want)
        return false;
    *have = want;
    return true;
}

/* Joins the facts g into f; false on a contradiction. */
static bool join_facts(Facts *f, const Facts *g)
{
    if (!join_flag(&f->is_const, g->is_const) || !join_flag(&f->is_var, g->is_var) ||
        (f->is_const == 1 && f->is_var == 1))
        return false;
    if ((g->var_name && f->var_name && g->var_name != f->var_name) ||
        (g->dtype && f->dtype && g->dtype != f->dtype) ||
        (g->rank >= 0 && f->rank >= 0 && g->rank != f->rank))
        return false;
    f->var_name = g->var_name ? g->var_name : f->var_name;
    f->dtype = g->dtype ? g->dtype : f->dtype;
    f->rank = g->rank >= 0 ? g->rank : f->rank;
    for (int i = 0; g->dims && f->dims && i < f->rank; i++)
        if (g->dims[i] >= 0 && f->dims[i] >= 0 && g->dims[i] != f->dims[i])
            return false;
    f->dims = f->dims ? f->dims : g->dims;
    return true;
}

/* Whether a node with facts f can match pattern t (by t's kind alone). */
static bool facts_fit(const Facts *f, Term t)
{
    Facts k = check_facts_of_kind(t.n);
    return join_facts(&k, f);
}

/* The occurs check's work list: patterns still to look at, each with how
 * it sits relative to the node being bound. */
typedef enum OccMode {
    OCC_SAME,  /* maybe the node itself */
    OCC_BELOW, /* strictly below it on every match */
    OCC_ALT,   /* inside an alternative: maybe never matched */
} OccMode;

typedef struct OccItem {
    Term t;       /* the pattern */
    OccMode mode; /* where it sits */
} OccItem;

typedef WALK(OccItem) OccStack; /* pre-order (note [one walk]) */

static void occ_push(OccStack *s, Term t, OccMode mode)
{
    walk_push(s, ((OccItem){t, mode}));
}

/* Pushes the parts of it.t: operands sit below it, an alternative's
 * sides in OCC_ALT, wrappers and the skippable operand of op?(p) where
 * it is. */
static void occ_children(OccStack *s, OccItem it)
{
    const AstNode *p = it.t.n;
    OccMode below = it.mode == OCC_ALT ? OCC_ALT : OCC_BELOW;
    const AstList *args = NULL;
    switch (p->kind) {
    case AST_BIND: occ_push(s, sub_term(it.t, p->u.bind.operand), it.mode); break;
    case AST_CONSTRAIN: occ_push(s, sub_term(it.t, p->u.constrain.operand), it.mode); break;
    case AST_ALT:
        occ_push(s, sub_term(it.t, p->u.alt.left), OCC_ALT);
        occ_push(s, sub_term(it.t, p->u.alt.right), OCC_ALT);
        break;
    case AST_DOMINATES:
        occ_push(s, sub_term(it.t, p->u.dom.child), it.mode);
        occ_push(s, sub_term(it.t, p->u.dom.parent), below);
        break;
    case AST_OPTIONAL: case AST_REPEAT:
        occ_push(s, sub_term(it.t, p->u.call.args.items[0]), it.mode);
        break;
    case AST_GETITEM: occ_push(s, sub_term(it.t, p->u.item.base), below); break;
    case AST_CALL: case AST_CLASS: case AST_FNCALL: case AST_ANYCALL: case AST_IF:
    case AST_LETIN:
        args = &p->u.call.args;
        break;
    case AST_FNLIT: case AST_CALLPAT:
        args = &p->u.call.args;
        occ_push(s, sub_term(it.t, p->u.call.body), below);
        break;
    case AST_TUPLE: args = &p->u.list.items; break;
    default: break;
    }
    for (int i = 0; args && i < args->count; i++)
        occ_push(s, sub_term(it.t, args->items[i]), below);
}

/* Where the class with root r occurs in t, following bound classes
 * (iterative; each pattern looked at costs a step, and running out
 * answers OCCURS_LOOSE, which only loses precision). */
static Occurs occurs(Unifier *u, int r, Term t)
{
    OccStack s = {0};
    Occurs found = OCCURS_NONE;
    occ_push(&s, t, OCC_SAME);
    while (s.depth > 0 && found != OCCURS_STRICT && --*u->steps >= 0) {
        OccItem it = walk_pop(&s);
        if (is_var(it.t) || it.t.n->kind == AST_BIND) {
            int v = unifier_var_index(u, it.t);
            int root = v < 0 ? -1 : unifier_find(u, v);
            if (root == r)
                found = it.mode == OCC_BELOW ? OCCURS_STRICT : OCCURS_LOOSE;
            else if (root >= 0 && u->vars[root].term.n)
                occ_push(&s, u->vars[root].term, it.mode);
            if (is_var(it.t))
                continue;
        }
        occ_children(&s, it);
    }
    walk_free(&s);
    return *u->steps < 0 && found != OCCURS_STRICT ? OCCURS_LOOSE : found;
}

/* Binds root r, which has no pattern yet, to pattern t (not a variable). */
static bool bind(Unifier *u, int r, Term t)
{
    Occurs o = occurs(u, r, t);
    if (o == OCCURS_STRICT || !facts_fit(&u->vars[r].facts, t))
        return false;
    if (o == OCCURS_NONE) { /* OCCURS_LOOSE: leave r free, losing precision only */
        VarState s = u->vars[r];
        s.term = t;
        unifier_set_var(u, r, s);
    }
    return true;
}

/* Whether joining classes whose patterns are t1 and t2 is impossible (a
 * class strictly below itself) or would need a loose cycle (then they are
 * only compared, not joined). */
static Occurs merge_occurs(Unifier *u, int r1, int r2)
{
    Term t1 = u->vars[r1].term, t2 = u->vars[r2].term;
    Occurs o1 = t1.n ? occurs(u, r2, t1) : OCCURS_NONE;
    Occurs o2 = t2.n ? occurs(u, r1, t2) : OCCURS_NONE;
    return o1 > o2 ? o1 : o2;
}

/* Joins the classes of roots r1 and r2 (two variables, one node). */
static bool merge(Unifier *u, int r1, int r2, int *head)
{
    if (r1 == r2)
        return true;
    Occurs o = merge_occurs(u, r1, r2);
    VarState s1 = u->vars[r1], s2 = u->vars[r2];
    if (o == OCCURS_STRICT)
        return false;
    if (s1.term.n && s2.term.n)
        *head = unifier_push(u, s1.term, s2.term, NULL, *head);
    if (o == OCCURS_LOOSE)
        return true;
    Term t = s2.term.n ? s2.term : s1.term;
    Facts f = s2.facts;
    if (!join_facts(&f, &s1.facts) || (t.n && !facts_fit(&f, t)))
        return false;
    s1.parent = r2;
    unifier_set_var(u, r1, s1);
    s2.facts = f;
    s2.term = t;
    unifier_set_var(u, r2, s2);
    return true;
}

/* Variable v and pattern t (no wrapper, not _) denote one node. */
static bool unify_var(Unifier *u, Term v, Term t, int *head)
{
    int i = unifier_var_index(u, v);
    if (i < 0)
        return true;
    int r = unifier_find(u, i);
    if (is_var(t)) {
        int j = unifier_var_index(u, t);
        return j < 0 || merge(u, r, unifier_find(u, j), head);
    }
    if (u->vars[r].term.n) {
        *head = unifier_push(u, u->vars[r].term, t, NULL, *head);
        return true;
    }
    return bind(u, r, t);
}

/* Constraint k holds on the node t denotes: on a variable's class it is
 * remembered (and checked against the class's pattern); on anything else
 * it must fit the pattern's kind and its own constraints. */
static bool apply_fact(Unifier *u, const AstNode *k, Term t, int *head)
{
    char buf[160];
    Term core = t;
    while (is_wrapper(core))
        core = sub_term(core, core.n->kind == AST_BIND ? core.n->u.bind.operand
                                                       : core.n->u.constrain.operand);
    if (is_var(core)) {
        int i = unifier_var_index(u, core);
        if (i < 0)
            return true;
        VarState s = u->vars[unifier_find(u, i)];
        if (check_merge_facts(&s.facts, k, buf, sizeof buf))
            return false;
        unifier_set_var(u, unifier_find(u, i), s);
        if (s.term.n)
            *head = unifier_push(u, s.term, (Term){0}, k, *head);
        return true;
    }
    Facts f = check_facts_of_kind(core.n);
    for (Term w = t; is_wrapper(w);) {
        if (w.n->kind == AST_BIND) {
            *head = unifier_push(u, (Term){w.n, w.side, true}, (Term){0}, k, *head);
            w = sub_term(w, w.n->u.bind.operand);
        } else {
            if (check_merge_facts(&f, w.n, buf, sizeof buf))
                return false;
            w = sub_term(w, w.n->u.constrain.operand);
        }
    }
    return !check_merge_facts(&f, k, buf, sizeof buf);
}

/* Wrapper w (c@p or p:k) and t denote one node: so do c and t, p and t,
 * and k holds on both. */
static void peel(Unifier *u, Term w, Term t, int *head)
{
    if (w.n->kind == AST_BIND) {
        *head = unifier_push(u, (Term){w.n, w.side, true}, t, NULL, *head);
        *head = unifier_push(u, sub_term(w, w.n->u.bind.operand), t, NULL, *head);
        return;
    }
    Term p = sub_term(w, w.n->u.constrain.operand);
    *head = unifier_push(u, t, (Term){0}, w.n, *head);
    *head = unifier_push(u, p, (Term){0}, w.n, *head);
    *head = unifier_push(u, p, t, NULL, *head);
}

/* Expands goal g by its alternative alt, prepending what must hold to
 * g->next into *head; *more: a further alternative exists. */
static bool expand(Unifier *u, const Goal *g, int alt, int *head, bool *more)
{
    *more = false;
    *head = g->next;
    Term a = g->a, b = g->b;
    if (g->fact)
        return apply_fact(u, g->fact, a, head);
    if (!is_wrapper(a) && is_wrapper(b))
        swap_terms(&a, &b);
    if (is_wrapper(a)) {
        peel(u, a, b, head);
        return true;
    }
    if ((!a.as_var && a.n->kind == AST_WILDCARD) || (!b.as_var && b.n->kind == AST_WILDCARD))
        return true;
    if (!is_var(a) && is_var(b))
        swap_terms(&a, &b);
    if (is_var(a))
        return unify_var(u, a, b, head);
    return unifier_shape(u, a, b, alt, head, more);
}

/* Takes the next alternative of the innermost choice point (undoing what
 * was done since it), dropping exhausted ones; false when none is left. */
static bool resume(Unifier *u, int *head)
{
    while (u->choices.len > 0 && --*u->steps >= 0) {
        Choice *c = &u->choices.items[u->choices.len - 1];
        undo(u, c->trail);
        u->goals.len = c->ngoals;
        Goal g = c->goal;
        int alt = c->alt++;
        bool more;
        bool ok = expand(u, &g, alt, head, &more);
        if (!more)
            u->choices.len--;
        if (ok)
            return true;
    }
    return false;
}

/* GuardEnv.class_of over the unifier: a slot's class root, and the
 * literal its class is bound to. */
static int unifier_class(void *arg, int side, int slot, const AstNode **value)
{
    const Unifier *u = arg;
    int count = side ? u->nvars - u->base : u->base;
    *value = NULL;
    if (slot < 0 || slot >= count)
        return -1;
    int r = unifier_find(u, slot + (side ? u->base : 0));
    const AstNode *t = u->vars[r].term.n;
    if (t && ast_is_literal(t))
        *value = t;
    return r;
}

/* Whether the guards can hold together on the match the goals made. */
static bool guards_fit(Unifier *u)
{
    GuardEnv env = {unifier_class, u};
    return !check_guards_disjoint(u->guards[0], u->guards[1], &env);
}

/* Works through the goal list from head, depth first: 1 when every goal
 * holds on some way (and the guards can hold together there), 0 when no
 * way works, -1 when the budget ran out. */
static int solve(Unifier *u, int head)
{
    for (;;) {
        if (--*u->steps < 0)
            return -1;
        bool ok;
        if (head < 0) {
            if (guards_fit(u))
                return 1;
            ok = false;
        } else {
            Goal g = u->goals.items[head];
            size_t mark = u->trail.len, ngoals = u->goals.len;
            bool more;
            ok = expand(u, &g, 0, &head, &more);
            if (more) {
                vec_push(&u->choices, ((Choice){g, 1, mark, ngoals}));
            }
        }
        if (!ok && !resume(u, &head))
            return *u->steps < 0 ? -1 : 0;
    }
}

static bool unify(const AstNode *a, int na, const AstNode *ga, const AstNode *b, int nb,
                  const AstNode *gb, long *steps)
{
    Unifier u = {.base = na, .nvars = na + nb, .steps = steps, .guards = {ga, gb}};
    u.vars = xmalloc(((size_t)u.nvars + 1) * sizeof(VarState));
    for (int i = 0; i < u.nvars; i++)
        u.vars[i] = (VarState){.parent = i, .facts = {.is_const = -1, .is_var = -1, .rank = -1}};
    int head = unifier_push(&u, (Term){a, 0, false}, (Term){b, 1, false}, NULL, -1);
    int r = solve(&u, head);
    free(u.vars);
    vec_free(&u.goals);
    vec_free(&u.trail);
    vec_free(&u.choices);
    return r != 0;
}

bool check_unify_patterns(const AstNode *a, int na, const AstNode *b, int nb, long *steps)
{
    return unify(a, na, NULL, b, nb, NULL, steps);
}

bool check_unify_rules(const AstRule *a, const AstRule *b, long *steps)
{
    return unify(a->pattern, a->nvars, a->guard, b->pattern, b->nvars, b->guard, steps);
}

/* Pattern nodes still to visit, in pre-order (note [one walk]). */
typedef WALK(const AstNode *) AstWalk;

static void walk_child(AstNode *child, void *arg)
{
    AstWalk *w = arg;
    walk_push(w, child);
}

/* One more than the highest variable slot in pattern n. */
static int count_slots(const AstNode *n)
{
    AstWalk w = {0};
    int count = 0;
    walk_push(&w, n);
    while (w.depth > 0) {
        n = walk_pop(&w);
        int slot = n->kind == AST_VAR ? n->u.var.slot : n->kind == AST_BIND ? n->u.bind.slot : -1;
        count = slot >= count ? slot + 1 : count;
        ast_visit_children(n, walk_child, &w);
    }
    walk_free(&w);
    return count;
}

bool check_may_unify(const AstNode *a, const AstNode *b)
{
    long steps = UNIFY_STEPS;
    return check_unify_patterns(a, count_slots(a), b, count_slots(b), &steps);
}
