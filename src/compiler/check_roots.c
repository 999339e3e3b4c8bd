/* check_roots.c - rules with several roots, p & q & r.
 *
 * note [several roots]: a rule may match a group of nodes that share
 * inputs instead of one tree, as OpenVINO's and PDLL's multi-output
 * patterns do:
 *
 *   qkv := nn.dense(x, wq:const) & nn.dense(x, wk:const) & nn.dense(x, wv:const)
 *       => split(nn.dense(x, concatenate((wq, wk, wv))), indices_or_sections=3, axis=-1)
 *
 * The roots are joined by '&' at the top of the pattern only, so they
 * cannot be read as a tuple pattern (a, b), which matches one tuple node.
 * Variables are shared: x above is one node for all three roots.  The
 * parser keeps the roots as an AST_TUPLE marked roots, so that expansion
 * and the variable walk treat them as one pattern; this file checks what
 * is particular to them:
 *  - every root after the first reaches, through operands, a variable an
 *    earlier root binds: the matcher finds its candidates among that
 *    node's users (note [root candidates] in match_roots.c), never by a
 *    scan of the graph; a root that is a bare variable matches no call;
 *  - the action gives one value per root, in the roots' order: a tuple
 *    (a, b, c), or a call of an op with that many outputs (split with
 *    indices_or_sections=3, an op declared -> tuple(3)); an ONNX op whose
 *    outputs vary (Split without num_outputs) is given one per root;
 *  - a partition of several roots makes one function whose result is
 *    the tuple of the roots (note [partition roots] in group.c); its
 *    action gives no values, and no root may read another by its name
 *    (a@nn.relu(x) & sigmoid(a)): the call would read its own result.
 * Lowering finds the same shared variable again (lower_roots in
 * lower_pattern.c), by the same walk over the lowered tree. */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

bool check_is_roots(const AstNode *pattern)
{
    return pattern->kind == AST_TUPLE && pattern->u.list.roots;
}

/* Marks in bound every slot that n binds or uses. */
static void mark_slots(AstNode *n, void *arg)
{
    bool *bound = arg;
    if (n->kind == AST_VAR && n->u.var.slot >= 0)
        bound[n->u.var.slot] = true;
    else if (n->kind == AST_BIND && n->u.bind.slot >= 0)
        bound[n->u.bind.slot] = true;
    ast_visit_children(n, mark_slots, arg);
}

/* The slot of a node-binding pattern at n (x, s@p), or -1. */
static int slot_at(const AstNode *n)
{
    if (n->kind == AST_VAR)
        return n->u.var.slot;
    return n->kind == AST_BIND ? n->u.bind.slot : -1;
}

/* A variable, _ or literal, named or constrained: no node of its own. */
static bool is_leaf(const AstNode *n)
{
    while (n->kind == AST_CONSTRAIN || n->kind == AST_BIND)
        n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
    return n->kind == AST_VAR || n->kind == AST_WILDCARD || n->kind == AST_NUMBER ||
           n->kind == AST_BOOL;
}

/* The operands a root's candidate is found through, by kind: a call's,
 * a tuple's fields, an element access's tuple; names and constraints
 * stand at their operand's node. */
static const AstList *operands_of(const AstNode *n, AstList *one)
{
    switch (n->kind) {
    case AST_CALL: case AST_CLASS: case AST_FNCALL: case AST_ANYCALL:
        return &n->u.call.args;
    case AST_TUPLE:
        return &n->u.list.items;
    case AST_GETITEM:
        *one = (AstList){.items = (AstNode **)&n->u.item.base, .count = 1};
        return one;
    default:
        return NULL;
    }
}

/* How many operand steps below root the nearest node bound[] names sits
 * (breadth first), or -1; that node's slot in *slot.  Explicit queue:
 * patterns may nest deeply. */
static int shared_depth(const AstNode *root, const bool *bound, int *slot)
{
    typedef struct At {
        const AstNode *n;
        int depth;
    } At;
    VEC(At) q = {0};
    vec_push(&q, ((At){root, 0}));
    int found = -1;
    for (size_t i = 0; i < q.len && found < 0; i++) {
        At at = q.items[i];
        const AstNode *n = at.n;
        while (n->kind == AST_CONSTRAIN || n->kind == AST_BIND) {
            int s = slot_at(n);
            if (at.depth > 0 && s >= 0 && bound[s]) {
                *slot = s;
                found = at.depth;
                break;
            }
            n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
        }
        int s = slot_at(n);
        if (found < 0 && at.depth > 0 && s >= 0 && bound[s]) {
            *slot = s;
            found = at.depth;
        }
        AstList one;
        const AstList *ops = found < 0 ? operands_of(n, &one) : NULL;
        for (int k = 0; ops && k < ops->count; k++)
            vec_push(&q, ((At){ops->items[k], at.depth + 1}));
    }
    vec_free(&q);
    return found;
}

/* Each root after the first reaches a variable of the roots before it. */
static bool roots_share(CheckCtx *c, const AstNode *roots)
{
    bool *bound = xcalloc((size_t)c->nvars + 1, sizeof *bound);
    bool ok = true;
    const AstList *l = &roots->u.list.items;
    for (int i = 0; i < l->count && ok; i++) {
        const AstNode *root = l->items[i];
        int slot = -1;
        if (is_leaf(root)) {
            diag_error(c->d, root->src, root->range, "root %d of '%s' is a leaf; a root "
                       "matches a call, a tuple or an element of one", i + 1, c->rule->name);
            ok = false;
        } else if (i > 0 && shared_depth(root, bound, &slot) < 0) {
            diag_error(c->d, root->src, root->range, "root %d of '%s' shares no variable "
                       "with the roots before it; graft finds a root's node among the users "
                       "of a variable an earlier root binds", i + 1, c->rule->name);
            ok = false;
        }
        mark_slots((AstNode *)root, bound);
    }
    free(bound);
    return ok;
}

/* The slot a root binds at its top (s@p, under constraints), or -1. */
static int root_slot(const AstNode *n)
{
    while (n->kind == AST_CONSTRAIN)
        n = n->u.constrain.operand;
    return n->kind == AST_BIND ? n->u.bind.slot : -1;
}

/* The first use of variable slot under n (a read of that name), or NULL;
 * explicit stack: patterns may nest deeply. */
static const AstNode *slot_use(const AstNode *n, int slot)
{
    VEC(const AstNode *) stack = {0};
    vec_push(&stack, n);
    const AstNode *found = NULL;
    while (stack.len && !found) {
        const AstNode *x = stack.items[--stack.len];
        if (x->kind == AST_VAR && x->u.var.slot == slot)
            found = x;
        AstList one;
        const AstList *ops = operands_of(x, &one);
        if (x->kind == AST_CONSTRAIN || x->kind == AST_BIND)
            vec_push(&stack, x->kind == AST_BIND ? x->u.bind.operand : x->u.constrain.operand);
        for (int k = 0; ops && k < ops->count; k++)
            vec_push(&stack, ops->items[k]);
    }
    vec_free(&stack);
    return found;
}

/* A partition of several roots makes one call whose results are the
 * roots' values, so no root may read another's by its name (note
 * [partition roots] in src/runtime/group.c): such a rule never groups. */
static bool partition_roots_apart(CheckCtx *c, const AstNode *roots)
{
    const AstList *l = &roots->u.list.items;
    for (int i = 0; i < l->count; i++) {
        int slot = root_slot(l->items[i]);
        for (int j = 0; j < l->count && slot >= 0; j++) {
            const AstNode *use = j != i ? slot_use(l->items[j], slot) : NULL;
            if (!use)
                continue;
            diag_error(c->d, use->src, use->range, "root %d of '%s' reads root %d, '%s': a "
                       "partition makes one call of the roots, which cannot read its own "
                       "result; partition them apart, or rewrite them", j + 1, c->rule->name,
                       i + 1, use->u.var.name);
            return false;
        }
    }
    return true;
}

/* How many values an action gives: a tuple's fields, an op's outputs
 * (split's from its indices_or_sections), 1 for anything else, -1 when
 * unknown until the model is seen. */
int check_action_values(const AstNode *a)
{
    if (a->kind == AST_TUPLE)
        return a->u.list.ellipsis ? -1 : a->u.list.items.count;
    if (a->kind != AST_CALL || !a->u.call.op)
        return 1;
    int outputs = a->u.call.op->outputs;
    if (outputs == AST_OUTPUTS_TENSOR)
        return 1;
    if (outputs != AST_OUTPUTS_VARIES)
        return outputs;
    for (int i = 0; i < a->u.call.attrs.count; i++) {
        const AstNode *attr = a->u.call.attrs.items[i];
        const AstNode *v = attr->u.attr.value;
        if (strcmp(attr->u.attr.name, "indices_or_sections") == 0 && v) {
            if (v->kind == AST_NUMBER && v->u.num.is_int)
                return (int)v->u.num.ival;
            if (v->kind == AST_LIST)
                return v->u.list.items.count + 1;
        }
        if (strcmp(attr->u.attr.name, "num_outputs") == 0 && v && v->kind == AST_NUMBER &&
            v->u.num.is_int)
            return (int)v->u.num.ival;
    }
    return -1;
}

bool check_roots(CheckCtx *c, AstRule *rule)
{
    if (!check_is_roots(rule->pattern))
        return true;
    int nroots = rule->pattern->u.list.items.count;
    if (!roots_share(c, rule->pattern))
        return false;
    if (rule->kind == RULE_PARTITION) /* one function, its result the roots' tuple */
        return partition_roots_apart(c, rule->pattern);
    int values = check_action_values(rule->action);
    if (values == nroots || (values < 0 && rule->action->kind == AST_CALL &&
                             rule->action->u.call.op->onnx))
        return true; /* an ONNX node has as many outputs as it is given */
    if (values < 0)
        diag_error(c->d, rule->action->src, rule->action->range, "the action of '%s' must "
                   "give one value per root, %d, but its count is known only from the "
                   "model; write the count (indices_or_sections=%d) or a tuple",
                   rule->name, nroots, nroots);
    else
        diag_error(c->d, rule->action->src, rule->action->range, "the action of '%s' gives "
                   "%d value%s for %d roots; write a tuple of one value per root, or an "
                   "op with %d outputs", rule->name, values, values == 1 ? "" : "s", nroots,
                   nroots);
    return false;
}
