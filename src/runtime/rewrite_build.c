/* rewrite_build.c - building a rewrite's replacement from its action:
 * the action's nodes built by their kinds, one action's build and what
 * follows it (shared nodes made one, types, labels), and the notes on
 * what an action's computed attributes and several roots' values mean.
 * The parts are rewrite_build_call.c's (op calls), _operand.c's (their
 * operands), _attr.c's (attribute values), _types.c's (the types of what
 * was built) and _known.c's (whether an action can be built on bindings).
 *
 * Action trees nest no deeper than AST_MAX_DEPTH (ast.h), so building
 * recurses.  Attribute values are copied into the graph, so a graph never
 * points into a rule set.
 */
#include "engine_impl.h"
#include "graft_rules.h"

#include <stdlib.h>

/* note [computed attributes]: name=EXPR where EXPR computes a number from
 * the bindings (units=shape(w)[0], axis=(rank(x) - 1)) is evaluated as a
 * guard is: an int when the value is integral, else a float.  When the
 * bindings cannot give the value (no type known, or a dim it reads
 * unknown, or a variable bound to a node other than a scalar constant),
 * the rewrite does not happen (rewrite_computable), as when a guard is
 * false.  A list attribute may have computed items
 * (newshape=[-1, shape(x)[2]]), each a number, or be shape(x), the dims
 * of x's type. */

/* f(y, ...): a call of the callee of call (an op, with call's attributes
 * and domain, or a function value), note [callee variables] in pattern.h;
 * the domain: note [value names as imported] in src/onnx/onnx_export.c. */
static graft_node *callee_call(graft_graph *g, const graft_node *call, graft_node *const *args,
                               int nargs)
{
    if (!node_op(call))
        return graph_add_fn_call(g, node_callee(call), args, nargs);
    int nattrs = node_nattrs(call);
    graft_attr *attrs = arena_array(graph_arena(g), (size_t)nattrs + 1, sizeof *attrs);
    for (int i = 0; i < nattrs; i++)
        attrs[i] = *node_attr(call, i);
    graft_node *n = graph_add_call(g, node_op(call), args, nargs, attrs, nattrs);
    const char *domain = graph_node_domain(g, call);
    if (domain)
        graph_set_node_domain(g, n, domain);
    return n;
}

/* The node an action expression stands for: a bound node, or a new one. */
graft_node *rewrite_build_node(graft_engine *e, const graft_expr *x, const graft_binding *b)
{
    graft_graph *g = e->g;
    graft_node *n, **kids, *few[FEW_KIDS];
    int nkids;
    switch (x->kind) {
    case GRAFT_EXPR_SLOT:
        return b[x->slot].node;
    case GRAFT_EXPR_NUM:
        return graph_add_const(g, x->text, x->f, x->dtype);
    case GRAFT_EXPR_OPREF:
        return graph_add_opref(g, x->s);
    case GRAFT_EXPR_FOLD: /* note [constant folding] in fold.h */
        n = rewrite_fold_find(e, x);
        return n ? n : rewrite_fold(e, x, rewrite_build_node(e, x->kids[0], b));
    case GRAFT_EXPR_CALL:
        return rewrite_build_call(e, x, b);
    case GRAFT_EXPR_CALLEE:
        kids = rewrite_build_kids(e, x, b, &nkids, few);
        n = callee_call(g, b[x->slot].node, kids, nkids);
        break;
    case GRAFT_EXPR_TUPLE:
        kids = rewrite_build_kids(e, x, b, &nkids, few);
        n = graph_add_tuple(g, kids, nkids);
        break;
    default: /* GRAFT_EXPR_GETITEM; t[i]: kids[1] the index variable, no node */
        kids = rewrite_build_kids(e, x, b, &nkids, few);
        n = graph_add_getitem(g, kids[0], x->nkids == 2 ? (int)b[x->kids[1]->slot].attr->i
                                                         : (int)x->i);
        break;
    }
    if (kids != few)
        free(kids);
    return n;
}

/* Before a build: the calls the last one made forgotten. */
static void forget_made(graft_engine *e)
{
    if (e->calls)
        e->calls->made.len = 0;
}

/* Labels the nodes an action made (ids from first on: made operands
 * first, so id order is bottom-up). */
static void adopt_new(graft_engine *e, uint32_t first)
{
    uint32_t count = graph_node_count(e->g);
    for (uint32_t id = first; id < count; id++) {
        labels_node(e->labels, graph_node(e->g, id));
        e->stats.labelled++;
    }
}

/* The nodes an action made get their types from their operands' (note
 * [type relations] in type_infer.h), as TVM's rewrite infers the types
 * of a callback's result; a new result whose type stays unknown takes
 * the replaced root's (it computes the same value).  A bound node keeps
 * its own.  An action that builds an ill-typed node leaves that node's
 * type unknown: the rule, not the model, is at fault, and the model still
 * prints. */
static graft_node *build_action(graft_engine *e, const graft_rule *r, const graft_binding *b,
                                graft_node *root)
{
    uint32_t first = graph_node_count(e->g);
    if (!r->build_fn && e->check_fold_ready[r - e->rs->rules] &&
        !rewrite_fold_ready(e, r->action, b))
        return NULL; /* a fold whose leaves are not all constants */
    rewrite_fold_begin(e);
    forget_made(e);
    graft_node *by = r->build_fn ? r->build_fn(e->g, b, root) : rewrite_build_node(e, r->action, b);
    if (!by || e->fold_failed)
        return NULL; /* a compiled action without its attributes' values, or a fold
                        without a value: what was built is left to the next sweep */
    if (e->check_share[r - e->rs->rules]) /* note [actions of distinct nodes] in rewrite_share.c */
        rewrite_share(e->g, first, &by, 1); /* note [shared sub-expressions] */
    rewrite_infer_new(e, first);
    if (node_id(by) >= first && !node_type(by) && node_type(root))
        graph_set_type(e->g, by, node_type(root));
    adopt_new(e, first);
    return by;
}

/* note [constant read once]: a bound variable given as an attribute
 * value (epsilon=eps) is a scalar constant's number, read by the group's
 * check (rewrite_places_known: whether it has one) and again by the
 * build; an ONNX constant's number is its initializer's bytes decoded,
 * 340 instructions each time on the workload's rewrite.  So the check
 * keeps the constant it read and its number in the engine, the build
 * takes them from there, and rewrite_build forgets them: they hold from
 * one group's check to its build only.  The attribute value made of the
 * number is a function of it and the constant's dtype, and the workload
 * gives every rewrite the same eps: the engine keeps the last one made,
 * and a constant of the same dtype and number shares it (attribute values
 * are never changed once made: note [names interned once]), 85
 * instructions and 88 bytes a rewrite fewer. */
graft_node *rewrite_build(graft_engine *e, const graft_rule *r, const graft_binding *b,
                          graft_node *root)
{
    graft_node *by = build_action(e, r, b, root);
    e->read_const = NULL; /* note [constant read once] */
    return by;
}

/* note [root values]: the action of a rule of several roots gives one
 * value per root, in the roots' order (note [several roots] in
 * src/compiler/check_roots.c): a tuple's fields are built each as a
 * value of its own, so no tuple node is made; any other action (a call
 * of an op of several results, split) is built once and its results are
 * read by element, as the IRs read them (note [several results] in
 * graph.h; an ONNX call gets that many outputs).  A value whose type
 * stays unknown takes its root's, as rewrite_build does.  Compiled (note
 * [compiled roots] in src/compiler/emit_c_tables.c), a tuple's fields
 * are built by build_roots_fn, any other action by build_fn. */
static bool build_roots(graft_engine *e, const graft_rule *r, const graft_binding *b,
                        graft_node *const *roots, graft_node **by)
{
    uint32_t first = graph_node_count(e->g);
    const graft_expr *x = r->action;
    forget_made(e);
    if (r->build_roots_fn) {
        if (!r->build_roots_fn(e->g, b, by))
            return false;
    } else if (x && x->kind == GRAFT_EXPR_TUPLE && x->nkids == r->nroots) {
        for (int j = 0; j < r->nroots; j++)
            by[j] = rewrite_build_node(e, x->kids[j], b);
    } else {
        graft_node *n = r->build_fn ? r->build_fn(e->g, b, roots[0]) : rewrite_build_node(e, x, b);
        if (!n)
            return false;
        /* ONNX rules on graft verify's instances (graphs of no IR) too */
        if ((graph_ir(e->g) == IR_ONNX || e->rs->onnx_opset) && node_kind(n) == NODE_CALL)
            graph_set_noutputs(e->g, n, r->nroots);
        for (int j = 0; j < r->nroots; j++)
            by[j] = graph_add_getitem(e->g, n, j);
    }
    rewrite_share(e->g, first, by, r->nroots); /* note [shared sub-expressions] */
    rewrite_infer_new(e, first);
    for (int j = 0; j < r->nroots; j++)
        if (node_id(by[j]) >= first && !node_type(by[j]) && node_type(roots[j]))
            graph_set_type(e->g, by[j], node_type(roots[j]));
    adopt_new(e, first);
    return true;
}

bool rewrite_build_roots(graft_engine *e, const graft_rule *r, const graft_binding *b,
                         graft_node *const *roots, graft_node **by)
{
    bool built = build_roots(e, r, b, roots, by);
    e->read_const = NULL; /* note [constant read once] */
    return built;
}
