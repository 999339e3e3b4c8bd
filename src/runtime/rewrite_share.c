/* rewrite_share.c - one node for each distinct sub-expression an action
 * builds.
 *
 * note [shared sub-expressions]: an action that writes a sub-expression
 * twice (Mul(Add(a, b), Add(a, b)), the scale of a batch norm fold read by
 * both the new weight and the new bias) gives one node for it, as TVM's
 * EliminateCommonSubexpr and ONNX Runtime's CommonSubexpressionElimination
 * would leave it: two nodes the action made are one when they are calls
 * of the same op (or the same callee) with the same operands, after
 * sharing, and equal attributes (the same results too, for an ONNX call
 * of several), tuples of the same fields, elements of the same tuple at
 * the same index, or scalar constants of the same spelling and dtype.
 * The action is built as written, then its new nodes are shared in id
 * order, operands before their users: the interpreter and a compiled
 * build function make the same nodes in the same order, so both share
 * alike and write the same bytes.  A node equal to a node of the graph
 * that the action did not make is not shared with it: that would join
 * values the rule never matched, which is a pass of its own (the
 * graph's users of that node would change, and ONNX names it), and
 * finding it would need an index of the whole graph kept through every
 * edit.  The copies left behind are read by nothing and go with the
 * next sweep, as a fold's nodes do (rewrite_fold.c).  Calls of the ops
 * ONNX Runtime counts as non-deterministic (RandomNormal, ...:
 * kNonDeterministicOps in its onnxruntime/include/onnxruntime/core/
 * optimizer/constants.h) are never shared: two draws are two values.
 */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "util.h"

/* Whether op draws a new value at each call (never shared). */
static bool draws(const char *op)
{
    static const char *const random_ops[] = {"RandomUniform", "RandomNormal",
                                             "RandomUniformLike", "RandomNormalLike",
                                             "Multinomial"};
    if (op[0] != 'R' && op[0] != 'M')
        return false;
    for (size_t i = 0; i < sizeof random_ops / sizeof *random_ops; i++)
        if (strcmp(op, random_ops[i]) == 0)
            return true;
    return false;
}

/* Whether n is of a kind this sharing compares. */
static bool shareable(const graft_node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL: return !node_op(n) || !draws(node_op(n));
    case NODE_TUPLE:
    case NODE_GETITEM: return true;
    case NODE_CONST: return node_const_is_scalar(n);
    default: return false;
    }
}

/* A hash of what equal_nodes compares, but the attributes' values. */
static uint64_t node_hash(const graft_node *n)
{
    uint64_t h = hash_mix(node_kind(n), (uint64_t)(uintptr_t)node_op(n));
    if (node_kind(n) == NODE_CONST)
        return hash_mix(h, (uint64_t)(uintptr_t)node_const_text(n)) | 1;
    if (node_kind(n) == NODE_CALL)
        h = hash_mix(hash_mix(h, (uint64_t)(uintptr_t)node_callee(n)), (uint64_t)node_nattrs(n));
    if (node_kind(n) == NODE_GETITEM)
        h = hash_mix(h, (uint64_t)node_index(n));
    for (int i = 0; i < node_nargs(n); i++)
        h = hash_mix(h, (uint64_t)(uintptr_t)node_arg(n, i));
    return h | 1; /* a KeyMap key is never 0 */
}

/* Whether y holds every attribute of x with an equal value (x and y have
 * as many). */
static bool same_attrs(const graft_node *x, const graft_node *y)
{
    for (int i = 0; i < node_nattrs(x); i++) {
        const graft_attr *a = node_attr(x, i);
        const graft_attr_value *v = node_find_attr(y, a->name);
        if (!v || !attr_value_equal(a->value, v))
            return false;
    }
    return true;
}

/* Whether x and y, of one kind, compute the same value (operands by
 * identity: they are shared first). */
static bool equal_nodes(const graft_node *x, const graft_node *y)
{
    if (node_kind(x) != node_kind(y))
        return false;
    if (node_kind(x) == NODE_CONST) /* texts and dtypes interned in the graph */
        return node_const_text(x) == node_const_text(y) &&
               node_const_dtype(x) == node_const_dtype(y) &&
               node_const_value(x) == node_const_value(y);
    if (node_nargs(x) != node_nargs(y))
        return false;
    for (int i = 0; i < node_nargs(x); i++)
        if (node_arg(x, i) != node_arg(y, i))
            return false;
    if (node_kind(x) == NODE_GETITEM)
        return node_index(x) == node_index(y);
    if (node_kind(x) == NODE_TUPLE)
        return true;
    return node_op(x) == node_op(y) && node_callee(x) == node_callee(y) &&
           node_noutputs(x) == node_noutputs(y) && node_nattrs(x) == node_nattrs(y) &&
           same_attrs(x, y);
}

/* What node n (made since first, or not) stands for after sharing. */
static graft_node *kept(graft_node *const *canon, uint32_t first, graft_node *n)
{
    return n && node_id(n) >= first ? canon[node_id(n) - first] : n;
}

/* Points n's operands made since first at the nodes they stand for. */
static void share_operands(graft_graph *g, graft_node *const *canon, uint32_t first,
                           graft_node *n)
{
    for (int i = 0; i < node_nargs(n); i++) {
        graft_node *a = node_arg(n, i), *k = kept(canon, first, a);
        if (k != a)
            graph_set_arg(g, n, i, k);
    }
}

/* An action of at most this many nodes (most: a batch norm's two, a
 * fold's fifteen) is shared with its arrays on the stack and its chains'
 * heads in a list searched in order: a map and three allocations cost
 * more than the comparisons they save (750 instructions a rewrite). */
enum { FEW_NEW = 32 };

/* The heads of the chains of equal hashes, each its first node +1. */
typedef struct {
    KeyMap map;              /* a hash -> its head, for many nodes */
    uint64_t hash[FEW_NEW];  /* or a list of them, for few */
    int64_t head[FEW_NEW];
    size_t len;
    bool few;
} Heads;

/* The head of hash's chain (0 for none yet), to read and set. */
static int64_t *head_of(Heads *h, uint64_t hash)
{
    if (!h->few)
        return keymap_put(&h->map, hash, 0);
    for (size_t i = 0; i < h->len; i++)
        if (h->hash[i] == hash)
            return &h->head[i];
    h->hash[h->len] = hash;
    h->head[h->len] = 0;
    return &h->head[h->len++];
}

void rewrite_share(graft_graph *g, uint32_t first, graft_node **by, int nby)
{
    uint32_t count = graph_node_count(g);
    if (count - first < 2)
        return;
    size_t n = count - first;
    graft_node *canon_few[FEW_NEW];
    uint32_t next_few[FEW_NEW];
    Heads heads; /* not zeroed: the lists are read up to len */
    heads.map = (KeyMap){0};
    heads.len = 0;
    heads.few = n <= FEW_NEW;
    graft_node **canon = heads.few ? canon_few : xmalloc(n * sizeof *canon);
    uint32_t *next = heads.few ? next_few : xmalloc(n * sizeof *next); /* a chain, +1 */
    for (size_t k = 0; k < n; k++) {
        graft_node *x = graph_node(g, first + (uint32_t)k);
        canon[k] = x;
        next[k] = 0;
        if (node_is_dead(x))
            continue;
        share_operands(g, canon, first, x);
        if (!shareable(x))
            continue;
        int64_t *head = head_of(&heads, node_hash(x));
        uint32_t j = (uint32_t)*head;
        while (j && !equal_nodes(canon[j - 1], x))
            j = next[j - 1];
        if (j)
            canon[k] = canon[j - 1];
        else {
            next[k] = (uint32_t)*head;
            *head = (int64_t)k + 1;
        }
    }
    for (int j = 0; j < nby; j++)
        by[j] = kept(canon, first, by[j]);
    if (!heads.few) {
        keymap_free(&heads.map);
        free(next);
        free(canon);
    }
}

/* note [actions of distinct nodes]: two nodes an action made are shared
 * only when they are of one kind, calls of one op (note [shared
 * sub-expressions]), so an action whose new nodes all differ so has
 * nothing to share, and most actions are such: a batch norm rebuilt as
 * nn.batch_norm(...)[0] makes a call and an element, and rewrite_share
 * found them different at 385 instructions a rewrite (the workload's
 * Relay rewrite, 64 per op node).  Engine_new asks once per rule.  What an action
 * makes is read off its expression: a call of its op, a tuple, an
 * element, a constant for a literal number or for a bound attribute
 * value given as an operand; an op given as a value is never shared.
 * A callee's call (its op is the bound call's), a fold (its nodes are
 * made by folding) and any other kind are not known here, so their
 * actions are shared as before, as are actions of more than FEW_MADE
 * nodes and every action of several roots (rewrite_build_roots adds
 * an element per root). */
enum { FEW_MADE = 16 };

/* What one node an action makes is: a kind, and a call's op. */
typedef struct Made {
    int kind;
    const char *op;
} Made;

typedef struct {
    Made made[FEW_MADE];
    int n;
    bool may_share; /* two of one kind and op, a node of no known kind,
                       or too many */
} MadeList;

/* Adds one node made, kind (and op), to list; a second of the same
 * kind and op may be shared with the first. */
static void made_add(MadeList *list, int kind, const char *op)
{
    for (int i = 0; i < list->n; i++)
        if (list->made[i].kind == kind && (!op || strcmp(list->made[i].op, op) == 0))
            list->may_share = true;
    if (list->n == FEW_MADE)
        list->may_share = true;
    else
        list->made[list->n++] = (Made){kind, op};
}

/* The nodes action expression x makes, into list (recursion: action
 * trees nest no deeper than AST_MAX_DEPTH). */
static void made_by(const graft_expr *x, MadeList *list)
{
    switch (x->kind) {
    case GRAFT_EXPR_SLOT: /* a bound node, or an attribute operand's constant */
        if (x->i == 1)
            made_add(list, GRAFT_EXPR_NUM, NULL);
        return;
    case GRAFT_EXPR_SPLICE: /* its tuple's fields, bound */
    case GRAFT_EXPR_OPREF:  /* never shared */
        return;
    case GRAFT_EXPR_NUM:
    case GRAFT_EXPR_TUPLE:
    case GRAFT_EXPR_GETITEM:
        made_add(list, x->kind, NULL);
        break;
    case GRAFT_EXPR_CALL:
        made_add(list, x->kind, x->s);
        break;
    default: /* a callee's call, a fold, or no node of an action */
        list->may_share = true;
        return;
    }
    for (int i = 0; i < x->nkids && !list->may_share; i++)
        made_by(x->kids[i], list);
}

bool rewrite_may_share(const graft_expr *action)
{
    MadeList list = {.n = 0, .may_share = false};
    made_by(action, &list);
    return list.may_share;
}
