/* check_unify_shape.c - one goal of the unifier (check_unify.c) whose two
 * patterns are shapes, not variables: calls of one op (a commutative
 * op's swap an alternative), op classes, _(...), optional and repeated
 * ops, alternatives, dominator paths, tuples, elements, literals,
 * functions; attributes join or fix attribute variables' classes.  Each
 * prepends the goals that must hold to the goal list. */
#include "check_unify_impl.h"

/* Operands a and b pairwise in front of *head; "..." lets a side have
 * more operands than it lists. */
static bool push_args(Unifier *u, Term at, const AstList *a, bool a_more, Term bt,
                      const AstList *b, bool b_more, int *head)
{
    if ((!a_more && b->count > a->count) || (!b_more && a->count > b->count))
        return false;
    int n = a->count < b->count ? a->count : b->count;
    for (int i = n - 1; i >= 0; i--)
        *head = unifier_push(u, sub_term(at, a->items[i]), sub_term(bt, b->items[i]), NULL, *head);
    return true;
}

/* Attribute slot classes: an attribute variable's class holds, as its
 * term, the literal the other side fixes it to. */
static bool attr_fix(Unifier *u, int v, const AstNode *lit)
{
    int r = unifier_find(u, v);
    if (u->vars[r].term.n)
        return ast_literal_equal(u->vars[r].term.n, lit);
    VarState s = u->vars[r];
    s.term = (Term){lit, 0, false};
    unifier_set_var(u, r, s);
    return true;
}

static bool attr_join(Unifier *u, int v, int w)
{
    int r1 = unifier_find(u, v), r2 = unifier_find(u, w);
    if (r1 == r2)
        return true;
    VarState s1 = u->vars[r1], s2 = u->vars[r2];
    if (s1.term.n && s2.term.n && !ast_literal_equal(s1.term.n, s2.term.n))
        return false;
    s1.parent = r2;
    unifier_set_var(u, r1, s1);
    if (!s2.term.n) {
        s2.term = s1.term;
        unifier_set_var(u, r2, s2);
    }
    return true;
}

/* The slot in u->vars of attribute value n on side, or -1 (_, a literal). */
static int attr_slot(const Unifier *u, const AstNode *n, int side)
{
    if (!n || n->kind != AST_VAR)
        return -1;
    return unifier_var_index(u, (Term){n, side, false});
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
    *head = unifier_push(u, sub_term(a, xa->items[1]), sub_term(b, ya->items[0]), NULL, *head);
    *head = unifier_push(u, sub_term(a, xa->items[0]), sub_term(b, ya->items[1]), NULL, *head);
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
        *head = unifier_push(u, p, b, NULL, *head);
        return true;
    }
    if (is_optional(b)) {
        *head = unifier_push(u, a, sub_term(b, b.n->u.call.args.items[0]), NULL, *head);
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
    *head = unifier_push(u, inner, sub_term(b, y->u.call.args.items[0]), NULL, *head);
    return true;
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
        *head = unifier_push(u, sub_term(a, x->u.item.base), sub_term(b, y->u.item.base), NULL,
                             *head);
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
        *head = unifier_push(u, sub_term(a, x->u.call.body), sub_term(b, y->u.call.body), NULL,
                             *head);
        return true;
    case AST_FNLIT:
        if (!unify_attrs(u, a, &x->u.call.attrs, b, &y->u.call.attrs) ||
            !push_args(u, a, &x->u.call.args, x->u.call.ellipsis, b, &y->u.call.args,
                       y->u.call.ellipsis, head))
            return false;
        *head = unifier_push(u, sub_term(a, x->u.call.body), sub_term(b, y->u.call.body), NULL,
                             *head);
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

bool unifier_shape(Unifier *u, Term a, Term b, int alt, int *head, bool *more)
{
    if (shape_rank(b) < shape_rank(a))
        swap_terms(&a, &b);
    if (a.n->kind == AST_DOMINATES) {
        *head = unifier_push(u, sub_term(a, a.n->u.dom.child), b, NULL, *head);
        return true;
    }
    if (a.n->kind == AST_ALT) {
        *more = alt == 0;
        Term side = sub_term(a, alt == 0 ? a.n->u.alt.left : a.n->u.alt.right);
        *head = unifier_push(u, side, b, NULL, *head);
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
