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
 *
 * Attribute variables have classes too: groups=g against groups=h joins
 * them, against groups=1 binds g's class to the literal.  When every goal
 * holds, the two rules' guards are read on that match (note [guard
 * logic]); guards that cannot hold together there (g > 1 against g == 1)
 * make it a failure, and the search takes its next way. */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

#include "walk.h"

/* A budget for check_may_unify called on its own (as PAIR_STEPS in
 * check_overlap.c). */
enum { UNIFY_STEPS = 100000 };

/* A pattern of one of the two sides. */
typedef struct Term {
    const AstNode *n; /* the pattern node; NULL for none */
    int side;         /* 0: the first pattern, 1: the second */
    bool as_var;      /* n is an AST_BIND standing for its variable only */
} Term;

/* One variable slot (union-find over both sides' slots). */
typedef struct VarState {
    int parent;  /* representative; itself for a root */
    Term term;   /* root: the pattern the node must match (n NULL: none) */
    Facts facts; /* root: what constraints say about the node */
} VarState;

/* A pending goal; a cons cell of a goal list. */
typedef struct Goal {
    Term a;              /* one pattern */
    Term b;              /* the other, denoting the same node */
    const AstNode *fact; /* non-NULL: constraint fact must hold on a (b unused) */
    int next;            /* index of the next goal, -1 at the end */
} Goal;

/* The old state of one changed slot, to undo. */
typedef struct TrailEntry {
    int var;      /* the slot */
    VarState old; /* its state before the change */
} TrailEntry;

/* A goal with alternatives not tried yet. */
typedef struct Choice {
    Goal goal;     /* the goal that branched (its next: the rest) */
    int alt;       /* the next alternative to try */
    size_t trail;  /* trail length when it branched */
    size_t ngoals; /* goal cells in use when it branched */
} Choice;

/* The whole state of one unification. */
typedef struct Unifier {
    VarState *vars;     /* both sides' slots */
    int base;           /* side 1's slot 0 in vars (side 0's slot count) */
    int nvars;          /* entries in vars */
    VEC(Goal) goals;        /* goal cells */
    VEC(TrailEntry) trail;  /* undo log */
    VEC(Choice) choices;    /* open choice points, innermost last */
    long *steps;        /* the caller's budget, decremented */
    const AstNode *guards[2]; /* the two rules' guards, or NULL */
} Unifier;

/* What an occurs check found. */
typedef enum Occurs {
    OCCURS_NONE,   /* the variable is not in the pattern */
    OCCURS_LOOSE,  /* maybe at the pattern's own node (op?(x), x | ...) */
    OCCURS_STRICT, /* always strictly below it: binding is impossible */
} Occurs;

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
static int var_index(const Unifier *u, Term t)
{
    int slot = t.n->kind == AST_BIND ? t.n->u.bind.slot : t.n->u.var.slot;
    int count = t.side ? u->nvars - u->base : u->base;
    if (slot < 0 || slot >= count)
        return -1;
    return slot + (t.side ? u->base : 0);
}

/* The root of v's class (no path compression: the trail restores only
 * what set_var changed). */
static int find(const Unifier *u, int v)
{
    while (u->vars[v].parent != v)
        v = u->vars[v].parent;
    return v;
}

/* Changes slot v to s, logging the old state. */
static void set_var(Unifier *u, int v, VarState s)
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
static int push(Unifier *u, Term a, Term b, const AstNode *fact, int rest)
{
    vec_push(&u->goals, ((Goal){a, b, fact, rest}));
    return (int)u->goals.len - 1;
}

static Term sub_term(Term t, const AstNode *n)
{
    return (Term){n, t.side, false};
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
            int v = var_index(u, it.t);
            int root = v < 0 ? -1 : find(u, v);
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
        set_var(u, r, s);
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
        *head = push(u, s1.term, s2.term, NULL, *head);
    if (o == OCCURS_LOOSE)
        return true;
    Term t = s2.term.n ? s2.term : s1.term;
    Facts f = s2.facts;
    if (!join_facts(&f, &s1.facts) || (t.n && !facts_fit(&f, t)))
        return false;
    s1.parent = r2;
    set_var(u, r1, s1);
    s2.facts = f;
    s2.term = t;
    set_var(u, r2, s2);
    return true;
}

/* Variable v and pattern t (no wrapper, not _) denote one node. */
static bool unify_var(Unifier *u, Term v, Term t, int *head)
{
    int i = var_index(u, v);
    if (i < 0)
        return true;
    int r = find(u, i);
    if (is_var(t)) {
        int j = var_index(u, t);
        return j < 0 || merge(u, r, find(u, j), head);
    }
    if (u->vars[r].term.n) {
        *head = push(u, u->vars[r].term, t, NULL, *head);
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
        int i = var_index(u, core);
        if (i < 0)
            return true;
        VarState s = u->vars[find(u, i)];
        if (check_merge_facts(&s.facts, k, buf, sizeof buf))
            return false;
        set_var(u, find(u, i), s);
        if (s.term.n)
            *head = push(u, s.term, (Term){0}, k, *head);
        return true;
    }
    Facts f = check_facts_of_kind(core.n);
    for (Term w = t; is_wrapper(w);) {
        if (w.n->kind == AST_BIND) {
            *head = push(u, (Term){w.n, w.side, true}, (Term){0}, k, *head);
            w = sub_term(w, w.n->u.bind.operand);
        } else {
            if (check_merge_facts(&f, w.n, buf, sizeof buf))
                return false;
            w = sub_term(w, w.n->u.constrain.operand);
        }
    }
    return !check_merge_facts(&f, k, buf, sizeof buf);
}

/* Operands a and b pairwise in front of *head; "..." lets a side have
 * more operands than it lists. */
static bool push_args(Unifier *u, Term at, const AstList *a, bool a_more, Term bt,
                      const AstList *b, bool b_more, int *head)
{
    if ((!a_more && b->count > a->count) || (!b_more && a->count > b->count))
        return false;
    int n = a->count < b->count ? a->count : b->count;
    for (int i = n - 1; i >= 0; i--)
        *head = push(u, sub_term(at, a->items[i]), sub_term(bt, b->items[i]), NULL, *head);
    return true;
}

/* Attribute slot classes: an attribute variable's class holds, as its
 * term, the literal the other side fixes it to. */
static bool attr_fix(Unifier *u, int v, const AstNode *lit)
{
    int r = find(u, v);
    if (u->vars[r].term.n)
        return ast_literal_equal(u->vars[r].term.n, lit);
    VarState s = u->vars[r];
    s.term = (Term){lit, 0, false};
    set_var(u, r, s);
    return true;
}

static bool attr_join(Unifier *u, int v, int w)
{
    int r1 = find(u, v), r2 = find(u, w);
    if (r1 == r2)
        return true;
    VarState s1 = u->vars[r1], s2 = u->vars[r2];
    if (s1.term.n && s2.term.n && !ast_literal_equal(s1.term.n, s2.term.n))
        return false;
    s1.parent = r2;
    set_var(u, r1, s1);
    if (!s2.term.n) {
        s2.term = s1.term;
        set_var(u, r2, s2);
    }
    return true;
}

/* The slot in u->vars of attribute value n on side, or -1 (_, a literal). */
static int attr_slot(const Unifier *u, const AstNode *n, int side)
{
    if (!n || n->kind != AST_VAR)
        return -1;
    return var_index(u, (Term){n, side, false});
}

/* One attribute both sides name: literals must agree; a bound attribute
 * joins the other side's variable or takes its literal, so that guards
 * can be compared (note [guard logic]). */
static bool unify_attr(Unifier *u, const AstNode *av, int as, const AstNode *bv, int bs)
{
    int va = attr_slot(u, av, as), vb = attr_slot(u, bv, bs);
    if (va >= 0 && vb >= 0)
        return attr_join(u, va, vb);
    if (va >= 0 && bv && ast_is_literal(bv))
        return attr_fix(u, va, bv);
    if (vb >= 0 && av && ast_is_literal(av))
        return attr_fix(u, vb, av);
    return !(av && bv && ast_is_literal(av) && ast_is_literal(bv)) || ast_literal_equal(av, bv);
}

static bool unify_attrs(Unifier *u, Term at, const AstList *a, Term bt, const AstList *b)
{
    for (int i = 0; i < a->count; i++)
        for (int j = 0; j < b->count; j++)
            if (a->items[i]->u.attr.name == b->items[j]->u.attr.name &&
                !unify_attr(u, a->items[i]->u.attr.value, at.side, b->items[j]->u.attr.value,
                            bt.side))
                return false;
    return true;
}

/* Two calls of one op; alternative 1 swaps a commutative op's operands. */
static bool unify_call(Unifier *u, Term a, Term b, int alt, int *head, bool *more)
{
    const AstNode *x = a.n, *y = b.n;
    const AstList *xa = &x->u.call.args, *ya = &y->u.call.args;
    if (x->u.call.op != y->u.call.op ||
        !unify_attrs(u, a, &x->u.call.attrs, b, &y->u.call.attrs))
        return false;
    *more = alt == 0 && x->u.call.op && opinfo_has_trait(x->u.call.op, TRAIT_COMMUTATIVE) &&
            xa->count == 2 && ya->count == 2;
    if (alt == 0)
        return push_args(u, a, xa, x->u.call.ellipsis, b, ya, y->u.call.ellipsis, head);
    *head = push(u, sub_term(a, xa->items[1]), sub_term(b, ya->items[0]), NULL, *head);
    *head = push(u, sub_term(a, xa->items[0]), sub_term(b, ya->items[1]), NULL, *head);
    return true;
}

/* An op class against b: a call of an op with the traits, or a class. */
static bool unify_class(Unifier *u, Term a, Term b, int *head)
{
    const AstNode *c = a.n, *y = b.n;
    if (y->kind != AST_CALL && y->kind != AST_CLASS)
        return false;
    if (y->kind == AST_CALL &&
        (!y->u.call.op || (y->u.call.op->traits & c->u.call.traits) != c->u.call.traits))
        return false;
    return push_args(u, a, &c->u.call.args, c->u.call.ellipsis, b, &y->u.call.args,
                     y->u.call.ellipsis, head);
}

/* _(args) against b: any call, or a class of ops. */
static bool unify_anycall(Unifier *u, Term a, Term b, int *head)
{
    const AstNode *y = b.n;
    if (y->kind != AST_CALL && y->kind != AST_CLASS && y->kind != AST_FNCALL &&
        y->kind != AST_ANYCALL)
        return false;
    return push_args(u, a, &a.n->u.call.args, a.n->u.call.ellipsis, b, &y->u.call.args,
                     y->u.call.ellipsis, head);
}

static bool is_optional(Term t)
{
    return t.n->kind == AST_OPTIONAL || t.n->kind == AST_REPEAT;
}

/* a = op?(p) or op*(p).  Alternative 0: the node is p.  Alternative 1: b
 * is op?(q) / op*(q) and the node is q; else the node is op applied to p
 * (to op*(p) again for *), so b must be a one-operand call of op.  (Both
 * present for two optional ops is covered by alternative 0.) */
static bool unify_optional(Unifier *u, Term a, Term b, int alt, int *head, bool *more)
{
    const AstNode *op = a.n;
    Term p = sub_term(a, op->u.call.args.items[0]);
    *more = alt == 0;
    if (alt == 0) {
        *head = push(u, p, b, NULL, *head);
        return true;
    }
    if (is_optional(b)) {
        *head = push(u, a, sub_term(b, b.n->u.call.args.items[0]), NULL, *head);
        return true;
    }
    const AstNode *y = b.n;
    bool fits = (y->kind == AST_CALL && y->u.call.op == op->u.call.op) || y->kind == AST_ANYCALL ||
                (y->kind == AST_CLASS && op->u.call.op &&
                 (op->u.call.op->traits & y->u.call.traits) == y->u.call.traits);
    if (!fits || y->u.call.args.count > 1)
        return false;
    if (y->u.call.args.count == 0)
        return y->u.call.ellipsis;
    Term inner = op->kind == AST_REPEAT ? a : p;
    *head = push(u, inner, sub_term(b, y->u.call.args.items[0]), NULL, *head);
    return true;
}

static void swap_terms(Term *a, Term *b)
{
    Term t = *a;
    *a = *b;
    *b = t;
}

/* Same-kind patterns: calls, tuples, elements, numbers, functions. */
static bool unify_same(Unifier *u, Term a, Term b, int alt, int *head, bool *more)
{
    const AstNode *x = a.n, *y = b.n;
    switch (x->kind) {
    case AST_CALL:
        return unify_call(u, a, b, alt, head, more);
    case AST_TUPLE:
        return push_args(u, a, &x->u.list.items, x->u.list.ellipsis, b, &y->u.list.items,
                         y->u.list.ellipsis, head);
    case AST_GETITEM:
        if (x->u.item.index != y->u.item.index && x->u.item.index != AST_ANY_INDEX &&
            y->u.item.index != AST_ANY_INDEX)
            return false;
        *head = push(u, sub_term(a, x->u.item.base), sub_term(b, y->u.item.base), NULL, *head);
        return true;
    case AST_NUMBER:
        return x->u.num.value == y->u.num.value;
    case AST_OPVALUE:
        return x->u.call.name == y->u.call.name;
    case AST_IF: case AST_LETIN:
        return push_args(u, a, &x->u.call.args, false, b, &y->u.call.args, false, head);
    case AST_CALLPAT:
        if (!push_args(u, a, &x->u.call.args, x->u.call.ellipsis, b, &y->u.call.args,
                       y->u.call.ellipsis, head))
            return false;
        *head = push(u, sub_term(a, x->u.call.body), sub_term(b, y->u.call.body), NULL, *head);
        return true;
    case AST_FNLIT:
        if (!unify_attrs(u, a, &x->u.call.attrs, b, &y->u.call.attrs) ||
            !push_args(u, a, &x->u.call.args, x->u.call.ellipsis, b, &y->u.call.args,
                       y->u.call.ellipsis, head))
            return false;
        *head = push(u, sub_term(a, x->u.call.body), sub_term(b, y->u.call.body), NULL, *head);
        return true;
    case AST_FNCALL:
        return unify_attrs(u, a, &x->u.call.attrs, b, &y->u.call.attrs) &&
               push_args(u, a, &x->u.call.args, x->u.call.ellipsis, b, &y->u.call.args,
                         y->u.call.ellipsis, head);
    default:
        return false;
    }
}

/* Which side leads in unify_shape: the more flexible form first. */
static int shape_rank(Term t)
{
    switch (t.n->kind) {
    case AST_DOMINATES: return 0;
    case AST_ALT: return 1;
    case AST_OPTIONAL: case AST_REPEAT: return 2;
    case AST_CLASS: return 3;
    case AST_ANYCALL: return 4;
    default: return 5;
    }
}

/* Two patterns, neither a variable, a wrapper or _. */
static bool unify_shape(Unifier *u, Term a, Term b, int alt, int *head, bool *more)
{
    if (shape_rank(b) < shape_rank(a))
        swap_terms(&a, &b);
    if (a.n->kind == AST_DOMINATES) {
        *head = push(u, sub_term(a, a.n->u.dom.child), b, NULL, *head);
        return true;
    }
    if (a.n->kind == AST_ALT) {
        *more = alt == 0;
        *head = push(u, sub_term(a, alt == 0 ? a.n->u.alt.left : a.n->u.alt.right), b, NULL,
                     *head);
        return true;
    }
    if (is_optional(a))
        return unify_optional(u, a, b, alt, head, more);
    if (a.n->kind == AST_CLASS)
        return unify_class(u, a, b, head);
    if (a.n->kind == AST_ANYCALL)
        return unify_anycall(u, a, b, head);
    return a.n->kind == b.n->kind && unify_same(u, a, b, alt, head, more);
}

/* Wrapper w (c@p or p:k) and t denote one node: so do c and t, p and t,
 * and k holds on both. */
static void peel(Unifier *u, Term w, Term t, int *head)
{
    if (w.n->kind == AST_BIND) {
        *head = push(u, (Term){w.n, w.side, true}, t, NULL, *head);
        *head = push(u, sub_term(w, w.n->u.bind.operand), t, NULL, *head);
        return;
    }
    Term p = sub_term(w, w.n->u.constrain.operand);
    *head = push(u, t, (Term){0}, w.n, *head);
    *head = push(u, p, (Term){0}, w.n, *head);
    *head = push(u, p, t, NULL, *head);
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
    return unify_shape(u, a, b, alt, head, more);
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
    int r = find(u, slot + (side ? u->base : 0));
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
    int head = push(&u, (Term){a, 0, false}, (Term){b, 1, false}, NULL, -1);
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
