/* check_guard_logic.c - what two rules' guards say together, for the
 * overlap and shadowing warnings (check_overlap.c).
 *
 * note [guard logic]: a guard is read as a conjunction (its top-level
 * &&s); each conjunct that compares one term with a literal is an atom:
 * an attribute variable (g), users(x), rank(x), dtype(x), value(x),
 * attr(c, name) or shape(x)[i], against a number, bool, string or dtype.
 * A GuardEnv says which node or attribute value a variable stands for in
 * the comparison of two patterns (a class: equal classes, one node), and
 * its value when the patterns fix it (groups=1 on the other side).  Two
 * guards are disjoint when some atom is false on fixed values, or the
 * atoms on one term leave it no value (g > 1 and g == 1; dtype(x) ==
 * float32 and dtype(x) == float16; users(c) == 1 and users(c) > 1).  A
 * guard implies another when each conjunct of the other is an atom whose
 * negation contradicts the first's atoms, or is written the same way.
 *
 * A comparison with an unknown value (no type, no default) is false
 * (match_guard.c), so an atom that holds tells that its term is known;
 * a negated atom (!(g == 1)) also holds when it is unknown, so it is a
 * weak atom: it counts for a term only beside a plain atom on that term.
 * Conjuncts of other forms (||, arithmetic) are never used to prove
 * anything, so both answers are sound: "disjoint" and "implies" are said
 * only when they hold, which only makes the warnings fewer.
 */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

/* What an atom compares. */
typedef struct Term {
    int kind;         /* a QueryKind, or TERM_VAR for an attribute variable */
    int cls;          /* the class of its variable (GuardEnv), -1 unknown */
    const char *name; /* QUERY_ATTR: the attribute */
    int index;        /* shape(x)[i]: i; else -1 */
    const AstNode *value; /* a literal the patterns fix it to, or NULL */
} Term;

enum { TERM_VAR = -1 };

/* A literal of a comparison: a number or a text (string or dtype). */
typedef struct Lit {
    bool is_num; /* which of f and s */
    double f;    /* numbers, bools as 0 and 1 */
    const char *s; /* strings and dtypes */
} Lit;

typedef struct Atom {
    Term t;     /* the term */
    AstOper op; /* OPER_EQ ... OPER_GE: term op lit */
    Lit lit;    /* the literal */
    bool weak;  /* under a '!': also true when the term is unknown */
} Atom;

typedef struct Atoms {
    VEC(Atom) atoms; /* atoms of both guards */
    bool refuted;  /* some atom is false on fixed values */
} Atoms;

static bool lit_of(const AstNode *n, Lit *out)
{
    switch (n->kind) {
    case AST_NUMBER: *out = (Lit){true, n->u.num.value, NULL}; return true;
    case AST_BOOL: *out = (Lit){true, n->u.boolean ? 1 : 0, NULL}; return true;
    case AST_STRING: *out = (Lit){false, 0, n->u.str.text}; return true;
    case AST_DTYPE: *out = (Lit){false, 0, n->u.dtype.name}; return true;
    case AST_UNARY:
        if (n->u.op.oper != OPER_NEG || n->u.op.left->kind != AST_NUMBER)
            return false;
        *out = (Lit){true, -n->u.op.left->u.num.value, NULL};
        return true;
    default:
        return false;
    }
}

/* The term n stands for on side, or false when n is no term. */
static bool term_of(const AstNode *n, int side, const GuardEnv *env, Term *t)
{
    *t = (Term){.index = -1};
    if (n->kind == AST_INDEX) {
        if (n->u.item.base->kind != AST_QUERY ||
            n->u.item.base->u.query.query != QUERY_SHAPE)
            return false;
        t->index = n->u.item.index;
        n = n->u.item.base;
    }
    const AstNode *value = NULL;
    if (n->kind == AST_VAR) {
        t->kind = TERM_VAR;
        t->cls = env->class_of(env->arg, side, n->u.var.slot, &value);
    } else if (n->kind == AST_QUERY && n->u.query.args.count >= 1) {
        QueryKind q = n->u.query.query;
        if (q == QUERY_UNKNOWN || (q == QUERY_SHAPE && t->index < 0))
            return false;
        t->kind = (int)q;
        t->cls = env->class_of(env->arg, side, n->u.query.args.items[0]->u.var.slot, &value);
        if (q == QUERY_ATTR)
            t->name = n->u.query.args.items[1]->u.var.name;
    } else
        return false;
    /* A fixed value is the term's own only for an attribute variable and
     * for value(x) of a number pattern. */
    if (t->kind == TERM_VAR || (t->kind == QUERY_VALUE && value && value->kind == AST_NUMBER))
        t->value = value;
    return t->cls >= 0 || t->value;
}

static AstOper flip(AstOper op)
{
    switch (op) {
    case OPER_LT: return OPER_GT;
    case OPER_LE: return OPER_GE;
    case OPER_GT: return OPER_LT;
    case OPER_GE: return OPER_LE;
    default: return op;
    }
}

static AstOper negate(AstOper op)
{
    switch (op) {
    case OPER_EQ: return OPER_NE;
    case OPER_NE: return OPER_EQ;
    case OPER_LT: return OPER_GE;
    case OPER_LE: return OPER_GT;
    case OPER_GT: return OPER_LE;
    default: return OPER_LT; /* OPER_GE */
    }
}

static bool is_cmp(AstOper op)
{
    return op >= OPER_EQ && op <= OPER_GE;
}

/* Conjunct n as an atom (term op literal, either way round, maybe under
 * '!'); false when it has another form. */
static bool atom_of(const AstNode *n, int side, const GuardEnv *env, Atom *a)
{
    bool weak = false;
    if (n->kind == AST_UNARY && n->u.op.oper == OPER_NOT) {
        weak = true;
        n = n->u.op.left;
    }
    if (n->kind != AST_BINARY || !is_cmp(n->u.op.oper))
        return false;
    AstOper op = n->u.op.oper;
    const AstNode *l = n->u.op.left, *r = n->u.op.right;
    if (!lit_of(r, &a->lit)) {
        const AstNode *swap = l;
        l = r;
        r = swap;
        op = flip(op);
        if (!lit_of(r, &a->lit))
            return false;
    }
    if (!term_of(l, side, env, &a->t))
        return false;
    a->op = weak ? negate(op) : op;
    a->weak = weak;
    return true;
}

/* Whether lit `have` op lit `want` holds; -1 when they cannot be
 * compared (a number with a text, or texts by order). */
static int lit_holds(const Lit *have, AstOper op, const Lit *want)
{
    if (have->is_num != want->is_num)
        return -1;
    int c;
    if (have->is_num)
        c = (have->f > want->f) - (have->f < want->f);
    else if (op == OPER_EQ || op == OPER_NE)
        c = strcmp(have->s, want->s) != 0;
    else
        return -1;
    switch (op) {
    case OPER_EQ: return c == 0;
    case OPER_NE: return c != 0;
    case OPER_LT: return c < 0;
    case OPER_LE: return c <= 0;
    case OPER_GT: return c > 0;
    default: return c >= 0;
    }
}

/* An atom on a fixed value: 1 true, 0 false, -1 undecided. */
static int atom_fixed(const Atom *a)
{
    Lit v;
    if (!a->t.value || !lit_of(a->t.value, &v))
        return -1;
    return lit_holds(&v, a->op, &a->lit);
}

static void atoms_push(Atoms *as, const Atom *a)
{
    int fixed = atom_fixed(a);
    if (fixed == 0)
        as->refuted = true;
    if (fixed >= 0 || a->t.cls < 0)
        return;
    vec_push(&as->atoms, *a);
}

/* Adds the atoms among the conjuncts of guard g (side's variables). */
static void collect(Atoms *as, const AstNode *g, int side, const GuardEnv *env)
{
    if (!g)
        return;
    if (g->kind == AST_BINARY && g->u.op.oper == OPER_AND) {
        collect(as, g->u.op.left, side, env);
        collect(as, g->u.op.right, side, env);
        return;
    }
    Atom a;
    if (atom_of(g, side, env, &a))
        atoms_push(as, &a);
}

static bool same_term(const Term *x, const Term *y)
{
    return x->kind == y->kind && x->cls == y->cls && x->index == y->index &&
           x->name == y->name;
}

/* The values a numeric term may take: an interval, maybe one value, and
 * values it may not be. */
typedef struct Range {
    double lo, hi;          /* bounds; lo_set / hi_set say whether given */
    bool lo_set, hi_set, lo_strict, hi_strict;
    bool eq_set;            /* == eq was required */
    double eq;
    bool empty;             /* two requirements contradict */
} Range;

static void range_add(Range *r, AstOper op, double c, const double **ne, size_t *nne,
                      size_t *ne_cap)
{
    switch (op) {
    case OPER_EQ:
        if (r->eq_set && r->eq != c)
            r->empty = true;
        r->eq_set = true;
        r->eq = c;
        break;
    case OPER_NE:
        *ne = xgrow_items((void *)*ne, ne_cap, *nne + 1, sizeof **ne);
        ((double *)*ne)[(*nne)++] = c;
        break;
    case OPER_LT: case OPER_LE:
        if (!r->hi_set || c < r->hi || (c == r->hi && op == OPER_LT)) {
            r->hi = c;
            r->hi_strict = op == OPER_LT;
        }
        r->hi_set = true;
        break;
    default: /* OPER_GT, OPER_GE */
        if (!r->lo_set || c > r->lo || (c == r->lo && op == OPER_GT)) {
            r->lo = c;
            r->lo_strict = op == OPER_GT;
        }
        r->lo_set = true;
        break;
    }
}

static bool range_allows(const Range *r, double v, const double *ne, size_t nne)
{
    if ((r->lo_set && (v < r->lo || (v == r->lo && r->lo_strict))) ||
        (r->hi_set && (v > r->hi || (v == r->hi && r->hi_strict))))
        return false;
    for (size_t i = 0; i < nne; i++)
        if (ne[i] == v)
            return false;
    return true;
}

/* Whether the atoms on term t (from index first on) leave it no value.
 * Texts: two different == or == and != of one text; numbers: the range. */
static bool term_empty(const Atoms *as, size_t first)
{
    const Term *t = &as->atoms.items[first].t;
    Range r = {0};
    double *ne = NULL;
    size_t nne = 0, ne_cap = 0;
    const char *text = NULL;
    bool strong = false, empty = false;
    for (size_t i = first; i < as->atoms.len; i++) {
        const Atom *a = &as->atoms.items[i];
        if (!same_term(&a->t, t))
            continue;
        strong |= !a->weak;
        if (a->lit.is_num)
            range_add(&r, a->op, a->lit.f, (const double **)&ne, &nne, &ne_cap);
        else if (a->op == OPER_EQ) {
            empty |= text && strcmp(text, a->lit.s) != 0;
            text = a->lit.s;
        }
    }
    for (size_t i = first; text && i < as->atoms.len; i++) {
        const Atom *a = &as->atoms.items[i];
        empty |= same_term(&a->t, t) && !a->lit.is_num && a->op == OPER_NE &&
                 strcmp(a->lit.s, text) == 0;
    }
    if (!empty && (r.empty || (r.eq_set && !range_allows(&r, r.eq, ne, nne))))
        empty = true;
    if (!empty && r.lo_set && r.hi_set)
        empty = r.lo > r.hi || (r.lo == r.hi && (r.lo_strict || r.hi_strict ||
                                                 !range_allows(&r, r.lo, ne, nne)));
    free(ne);
    return strong && empty;
}

/* Whether the atoms contradict: one is false, or one term has no value. */
static bool atoms_contradict(const Atoms *as)
{
    if (as->refuted)
        return true;
    for (size_t i = 0; i < as->atoms.len; i++)
        if (term_empty(as, i))
            return true;
    return false;
}

bool check_guards_disjoint(const AstNode *a, const AstNode *b, const GuardEnv *env)
{
    if (!a && !b)
        return false;
    Atoms as = {0};
    collect(&as, a, 0, env);
    collect(&as, b, 1, env);
    bool r = atoms_contradict(&as);
    vec_free(&as.atoms);
    return r;
}

/* Whether x (side sx) and y (side sy) are written the same way, up to
 * the variables' classes. */
static bool same_expr(const AstNode *x, int sx, const AstNode *y, int sy, const GuardEnv *env)
{
    if (x->kind != y->kind)
        return false;
    const AstNode *vx = NULL, *vy = NULL;
    switch (x->kind) {
    case AST_VAR: {
        int cx = env->class_of(env->arg, sx, x->u.var.slot, &vx);
        int cy = env->class_of(env->arg, sy, y->u.var.slot, &vy);
        return cx >= 0 && cx == cy;
    }
    case AST_QUERY:
        if (x->u.query.query != y->u.query.query ||
            x->u.query.args.count != y->u.query.args.count ||
            !same_expr(x->u.query.args.items[0], sx, y->u.query.args.items[0], sy, env))
            return false;
        return x->u.query.args.count < 2 ||
               x->u.query.args.items[1]->u.var.name == y->u.query.args.items[1]->u.var.name;
    case AST_INDEX:
        return x->u.item.index == y->u.item.index &&
               same_expr(x->u.item.base, sx, y->u.item.base, sy, env);
    case AST_UNARY:
        return x->u.op.oper == y->u.op.oper && same_expr(x->u.op.left, sx, y->u.op.left, sy, env);
    case AST_BINARY:
        return x->u.op.oper == y->u.op.oper &&
               same_expr(x->u.op.left, sx, y->u.op.left, sy, env) &&
               same_expr(x->u.op.right, sx, y->u.op.right, sy, env);
    default:
        return ast_is_literal(x) && ast_literal_equal(x, y);
    }
}

/* Whether conjunct want (side 0) is written as some conjunct of have. */
static bool has_conjunct(const AstNode *have, const AstNode *want, const GuardEnv *env)
{
    if (!have)
        return false;
    if (have->kind == AST_BINARY && have->u.op.oper == OPER_AND)
        return has_conjunct(have->u.op.left, want, env) ||
               has_conjunct(have->u.op.right, want, env);
    return same_expr(want, 0, have, 1, env);
}

/* Whether conjunct want holds wherever have's atoms do. */
static bool conjunct_implied(const Atoms *have, const AstNode *haveg, const AstNode *want,
                             const GuardEnv *env)
{
    if (has_conjunct(haveg, want, env))
        return true;
    Atom a;
    if (!atom_of(want, 0, env, &a))
        return false;
    int fixed = atom_fixed(&a);
    if (fixed >= 0)
        return fixed == 1;
    if (a.t.cls < 0)
        return false;
    /* have and not-want must contradict: not-want is weak when want is
     * plain (an unknown term makes want false), plain when want is weak. */
    Atoms as = {.refuted = have->refuted};
    vec_reserve(&as.atoms, have->atoms.len + 1);
    for (size_t i = 0; i < have->atoms.len; i++)
        vec_push(&as.atoms, have->atoms.items[i]);
    a.op = negate(a.op);
    a.weak = !a.weak;
    vec_push(&as.atoms, a);
    bool r = false;
    for (size_t i = 0; i < as.atoms.len && !r; i++)
        r = same_term(&as.atoms.items[i].t, &a.t) && term_empty(&as, i);
    vec_free(&as.atoms);
    return r;
}

static bool implies(const Atoms *have, const AstNode *haveg, const AstNode *want,
                    const GuardEnv *env)
{
    if (want->kind == AST_BINARY && want->u.op.oper == OPER_AND)
        return implies(have, haveg, want->u.op.left, env) &&
               implies(have, haveg, want->u.op.right, env);
    return conjunct_implied(have, haveg, want, env);
}

bool check_guard_implies(const AstNode *have, const AstNode *want, const GuardEnv *env)
{
    if (!want)
        return true;
    Atoms as = {0};
    collect(&as, have, 1, env);
    bool r = as.refuted || implies(&as, have, want, env);
    vec_free(&as.atoms);
    return r;
}
