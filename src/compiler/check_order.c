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
 *
 * Each root of a rule of several roots (p & q) is such a part too: every
 * match holds a match of each root, so an earlier rule that rewrites all
 * of one root's matches leaves the rule dead.  A single root is no part:
 * A matching everything B's root does is -Wshadowed-rule (check_overlap.c).
 *
 * The other direction, B's every match contained in a match of an
 * earlier A that rewrites it away, is that same shadowing when A's match
 * has B's root; at any other node it never holds for every match: a
 * pattern fixes what lies below its root, never what reads it, so B's
 * match may stand where A's context is missing (hard_swish's x * hsig(x)
 * before hard_sigmoid's hsig(x) leaves the hard-sigmoids outside a
 * hard-swish to it: MobileNetV3's squeeze-excite blocks).  Nothing is
 * reported then (tests/rules/dead_order_contained.graft).
 */
#include "check_impl.h"

#include <stdlib.h>

/* Steps at most over the whole file: rules looked at and pattern
 * comparisons (a huge rule file leaves some rules unchecked). */
enum { ORDER_STEPS = 20000000 };

typedef VEC(int) RuleList;

/* Per op (by its registry entry): the rewrite rules whose root calls it,
 * and the two that run first of those whose actions build a call of it. */
typedef struct OrderIndex {
    const CheckCtx *c;
    KeyMap roots;       /* op -> 1 + its index in lists */
    VEC(RuleList) lists; /* rule indices, in file order */
    KeyMap first;       /* op -> 1 + the first builder's rule index */
    KeyMap second;      /* op -> 1 + the second's */
} OrderIndex;

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

static const AstRule *rule_at(const OrderIndex *ix, const KeyMap *m, const OpInfo *op)
{
    int64_t *v = keymap_get(m, keymap_ptr_key(op));
    return v && *v ? ix->c->rf->rules[*v - 1] : NULL;
}

/* What note_builder records: rule r (index i) builds calls. */
typedef struct Builder {
    OrderIndex *ix;
    int i;
} Builder;

/* Records that rule b->i builds a call of n's op, keeping the two
 * builders that run first. */
static void note_builder(AstNode *n, void *arg)
{
    Builder *b = arg;
    ast_visit_children(n, note_builder, arg);
    if (n->kind != AST_CALL || !n->u.call.op)
        return;
    OrderIndex *ix = b->ix;
    const AstRule *r = ix->c->rf->rules[b->i];
    uint64_t key = keymap_ptr_key(n->u.call.op);
    int64_t *first = keymap_put(&ix->first, key, 0);
    const AstRule *f = *first ? ix->c->rf->rules[*first - 1] : NULL;
    if (f == r)
        return;
    int64_t *second = keymap_put(&ix->second, key, 0);
    first = keymap_get(&ix->first, key); /* the put above may have moved it */
    if (!f || runs_before(r, f)) {
        *second = *first;
        *first = b->i + 1;
    } else if (!*second || runs_before(r, ix->c->rf->rules[*second - 1])) {
        *second = b->i + 1;
    }
}

static void index_rules(OrderIndex *ix)
{
    for (int i = 0; i < ix->c->rf->nrules; i++) {
        AstRule *r = ix->c->rf->rules[i];
        if (r->kind != RULE_REWRITE)
            continue;
        Builder b = {ix, i};
        if (r->action)
            note_builder(r->action, &b);
        const AstNode *root = strip(r->pattern);
        if (r->guard || root->kind != AST_CALL || !root->u.call.op)
            continue; /* a guard, several roots (a tuple), no op at the root */
        int64_t *k = keymap_put(&ix->roots, keymap_ptr_key(root->u.call.op), 0);
        if (!*k) {
            vec_push(&ix->lists, (RuleList){0});
            *k = (int64_t)ix->lists.len;
        }
        vec_push(&ix->lists.items[*k - 1], i);
    }
}

/* Whether a rule that runs before b builds calls of op (note [dead
 * order]: b's pass may see them first). */
static bool built_before(const OrderIndex *ix, const AstRule *b, const OpInfo *op)
{
    const AstRule *f = rule_at(ix, &ix->first, op), *s = rule_at(ix, &ix->second, op);
    if (f && f != b)
        return runs_before(f, b);
    return s && runs_before(s, b);
}

/* The rule that rewrites every node part (a call in b's pattern) could
 * match into a call of another op before b's pass, or NULL. */
static const AstRule *killer(const OrderIndex *ix, const AstRule *b, const AstNode *part,
                             long *steps)
{
    int64_t *k = keymap_get(&ix->roots, keymap_ptr_key(part->u.call.op));
    const RuleList *list = k ? &ix->lists.items[*k - 1] : NULL;
    for (size_t i = 0; list && i < list->len && --*steps > 0; i++) {
        const AstRule *a = ix->c->rf->rules[list->items[i]];
        const AstNode *act = a->action ? strip(a->action) : NULL;
        if (a == b || !runs_before(a, b) || !act || act->kind != AST_CALL ||
            act->u.call.op == part->u.call.op)
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
 * each call is tried against the earlier rules; true once one is dead.
 * Recursion over the pattern is bounded by its depth (note [nesting
 * bound] in ast.h). */
static bool check_parts(CheckCtx *c, const OrderIndex *ix, const AstRule *b, const AstNode *n,
                        bool root, long *steps)
{
    n = strip(n);
    const AstList *kids;
    switch (n->kind) {
    case AST_CALL:
        if (!root && n->u.call.op && !built_before(ix, b, n->u.call.op)) {
            const AstRule *a = killer(ix, b, n, steps);
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
        return check_parts(c, ix, b, n->u.item.base, false, steps);
    default:
        return false;
    }
    for (int i = 0; i < kids->count && *steps > 0; i++)
        if (check_parts(c, ix, b, kids->items[i], false, steps))
            return true;
    return false;
}

void check_dead_order(CheckCtx *c)
{
    OrderIndex ix = {.c = c};
    index_rules(&ix);
    long steps = ORDER_STEPS;
    for (int j = 0; j < c->rf->nrules && --steps > 0; j++) {
        const AstRule *b = c->rf->rules[j];
        if (b->kind != RULE_REWRITE)
            continue;
        if (!check_is_roots(b->pattern)) {
            check_parts(c, &ix, b, b->pattern, true, &steps);
            continue;
        }
        const AstList *roots = &b->pattern->u.list.items; /* each root a part */
        for (int k = 0; k < roots->count && steps > 0; k++)
            if (check_parts(c, &ix, b, roots->items[k], false, &steps))
                break;
    }
    for (size_t i = 0; i < ix.lists.len; i++)
        vec_free(&ix.lists.items[i]);
    vec_free(&ix.lists);
    keymap_free(&ix.roots);
    keymap_free(&ix.first);
    keymap_free(&ix.second);
}
