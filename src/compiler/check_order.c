/* check_order.c - rules that an earlier rule's rewrite leaves dead.
 *
 * note [dead order]: a rewrite round runs one pass per rule, best first,
 * each over the whole graph (note [rewrite rounds] in
 * src/runtime/rewrite.c).  Take a rule B and a part P of its pattern that
 * every match of B holds: one reached from B's root through calls,
 * tuples, elements and bindings (an alternative's, an optional's, a
 * repetition's, a dominator's or a function's parts may be absent).  When
 * the pattern of a rewrite rule A that runs before B matches everything P
 * matches (note [subsumption] in check_overlap.c), A has no guard, and
 * A's action is a call of another op than P's, then A's pass has replaced
 * every node P could match before B's pass looks, in every round: B never
 * fires (hard_sigmoid's hsig(x) inside hard_swish's x * hsig(x), written
 * in that order: 0 of 19 hard-swishes on MobileNetV3).  Unless a rule
 * that runs before B builds calls of P's op: B's pass may see those
 * before A's next pass does, so there is no warning.  [once] on A changes
 * nothing (its first pass rewrites every match); partitions run after
 * every rewrite, and are not compared.  The warning names P and A, and
 * -Wdead-order turns it off.
 */
#include "check_impl.h"

#include <string.h>

/* Pattern comparisons at most, over the whole file. */
enum { ORDER_STEPS = 20000000 };

static const AstNode *strip(const AstNode *n)
{
    while (n->kind == AST_BIND || n->kind == AST_CONSTRAIN)
        n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
    return n;
}

/* Whether rule a runs before rule b in a round (engine_rules_best_first:
 * higher priority, then file order). */
static bool runs_before(const AstRule *a, const AstRule *b)
{
    return a->priority != b->priority ? a->priority > b->priority : a->index < b->index;
}

/* What builds_op looks for, and whether it found it. */
typedef struct OpSearch {
    const char *op; /* the op's name */
    bool found;
} OpSearch;

static void find_op(AstNode *n, void *arg)
{
    OpSearch *s = arg;
    if (s->found)
        return;
    if (n->kind == AST_CALL && strcmp(n->u.call.name, s->op) == 0)
        s->found = true;
    else
        ast_visit_children(n, find_op, arg);
}

/* Whether action n builds a call of op anywhere. */
static bool builds_op(AstNode *n, const char *op)
{
    OpSearch s = {op, false};
    if (n)
        find_op(n, &s);
    return s.found;
}

/* Whether a rule that runs before b builds calls of op (note [dead
 * order]: b's pass may see them first). */
static bool built_before(const CheckCtx *c, const AstRule *b, const char *op)
{
    for (int i = 0; i < c->rf->nrules; i++) {
        AstRule *r = c->rf->rules[i];
        if (r != b && r->kind == RULE_REWRITE && runs_before(r, b) && builds_op(r->action, op))
            return true;
    }
    return false;
}

/* The rule that rewrites every node part (a call of b's pattern) could
 * match before b's pass, or NULL. */
static const AstRule *killer(const CheckCtx *c, const AstRule *b, const AstNode *part,
                             long *steps)
{
    for (int i = 0; i < c->rf->nrules && *steps > 0; i++) {
        const AstRule *a = c->rf->rules[i];
        if (a == b || a->kind != RULE_REWRITE || a->guard || !runs_before(a, b) ||
            check_is_roots(a->pattern))
            continue;
        const AstNode *root = strip(a->pattern), *act = a->action ? strip(a->action) : NULL;
        if (root->kind != AST_CALL || strcmp(root->u.call.name, part->u.call.name) != 0 ||
            !act || act->kind != AST_CALL || strcmp(act->u.call.name, part->u.call.name) == 0)
            continue;
        if (check_subsumes_node(a, part, steps))
            return a;
    }
    return NULL;
}

static void report(CheckCtx *c, const AstRule *b, const AstNode *part, const AstRule *a)
{
    diag_warning(c->d, b->src, b->name_range, "dead-order",
                 "rule '%s' can never fire: every match holds a '%s' that rule '%s' rewrites "
                 "first (%s)", b->name, part->u.call.name, a->name,
                 a->priority > b->priority ? "higher priority" : "it comes first");
    diag_note(c->d, part->src, part->range,
              "rule '%s' matches everything this part matches and rewrites it into %s",
              a->name, strip(a->action)->u.call.name);
    diag_note(c->d, a->src, a->name_range, "rule '%s' is here", a->name);
}

/* The parts every match of b's pattern holds, below its root, in pre-order:
 * each call is tried against the earlier rules; true once one is dead. */
static bool check_parts(CheckCtx *c, const AstRule *b, const AstNode *n, bool root,
                        long *steps)
{
    n = strip(n);
    const AstList *kids;
    switch (n->kind) {
    case AST_CALL:
        if (!root && !built_before(c, b, n->u.call.name)) {
            const AstRule *a = killer(c, b, n, steps);
            if (a) {
                report(c, b, n, a);
                return true;
            }
        }
        kids = &n->u.call.args;
        break;
    case AST_TUPLE:
        kids = &n->u.list.items;
        break;
    case AST_GETITEM:
        return check_parts(c, b, n->u.item.base, false, steps);
    default:
        return false;
    }
    for (int i = 0; i < kids->count && *steps > 0; i++)
        if (check_parts(c, b, kids->items[i], false, steps))
            return true;
    return false;
}

void check_dead_order(CheckCtx *c)
{
    long steps = ORDER_STEPS;
    for (int j = 0; j < c->rf->nrules && steps > 0; j++) {
        const AstRule *b = c->rf->rules[j];
        if (b->kind == RULE_REWRITE && !check_is_roots(b->pattern))
            check_parts(c, b, b->pattern, true, &steps);
    }
}
