/* check_fold.c - fold(EXPR) in an action (note [constant folding] in
 * src/runtime/fold.h): one expression whose leaves are constants.
 *
 * The checker refuses what it can tell is no constant: a variable bound
 * to an op call (c@Conv(...)), one constrained :var, a function or op
 * value, a splice.  A plain variable (w) may be bound to an initializer
 * or to a graph input: that is known at run time only, where a leaf that
 * is not a constant keeps the rule from firing there, as a false guard
 * does.
 */
#include "check_impl.h"

#include <string.h>

bool check_is_fold(const CheckCtx *c, const AstNode *n)
{
    return n->kind == AST_CALL && strcmp(n->u.call.name, "fold") == 0 &&
           !registry_find(c->reg, "fold") && check_find_var(c, "fold") < 0;
}

/* Why variable slot is no constant, or NULL when it may be one. */
static const char *not_constant(const CheckCtx *c, int slot)
{
    const AstVarInfo *v = &c->vars[slot];
    if (v->kind == VARKIND_CALLEE)
        return "is bound to the callee of a call";
    if (v->kind == VARKIND_ATTR)
        return NULL; /* a number: a scalar constant */
    if (v->kind == VARKIND_INDEX)
        return "is an element index";
    if (v->site && v->site->kind == AST_BIND && v->site->u.bind.operand->kind != AST_VAR)
        return "is bound to a sub-pattern, which matches a computed value";
    if (c->var_facts && c->var_facts[slot].is_var == 1)
        return "is constrained to a model input (:var)";
    return NULL;
}

/* Reports the first leaf of x that cannot be a constant. */
static bool leaves_constant(CheckCtx *c, const AstNode *x)
{
    switch (x->kind) {
    case AST_NUMBER:
    case AST_CONSTRAIN: /* 2:float32, checked by the caller */
        return true;
    case AST_VAR: {
        int slot = check_find_var(c, x->u.var.name);
        const char *why = slot >= 0 ? not_constant(c, slot) : NULL;
        if (why)
            diag_error(c->d, x->src, x->range, "'%s' %s, not a constant; the leaves of "
                       "fold(...) are constants, attribute values and numbers",
                       x->u.var.name, why);
        return why == NULL;
    }
    case AST_CALL:
        for (int i = 0; i < x->u.call.args.count; i++)
            if (!leaves_constant(c, x->u.call.args.items[i]))
                return false;
        return x->u.call.copy_from == NULL || x->u.call.copy_from->kind == AST_VAR;
    case AST_GETITEM:
        return leaves_constant(c, x->u.item.base);
    default:
        diag_error(c->d, x->src, x->range, "fold(...) computes op calls over constants; "
                   "this is no such expression");
        return false;
    }
}

bool check_fold(CheckCtx *c, AstNode *n, bool (*check_operand)(CheckCtx *, AstNode *))
{
    if (n->u.call.args.count != 1 || n->u.call.attrs.count || n->u.call.copy_from) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "fold takes one expression and no attributes: fold(EXPR)");
        return false;
    }
    AstNode *x = n->u.call.args.items[0];
    return check_operand(c, x) && leaves_constant(c, x);
}
