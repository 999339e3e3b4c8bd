/* partition_region.c - a group's region, the nodes between its roots
 * and its inputs, and the function body made of it: the region moved
 * where the outside does not read it, else copied (note [moved body]). */
#include "partition_impl.h"

/* note [moved body]: TVM's partition rewrites the region into a new
 * function's body, and its mutator copies nothing it need not: a region
 * node read only inside the region is the body node itself.  So the
 * region moves into the function: its nodes become the body, their
 * operands that are inputs re-pointed to the parameters, the interior
 * keeping its types; only the parameters, the function and the call are
 * new (7 nodes for the seed's batch norm, where a copy made 14 and left
 * 6 to a dead-node sweep).  What must still be copied is what the outside
 * reads too, as the earlier partition copied everything: a constant the
 * outside shares (constants are no group's own, note [groups]) is copied
 * alone; a group with an interior node read outside, which the root
 * post-dominates, is copied whole and its originals stay for that reader.
 * The result is the graph the copying partition made, node for node:
 * a moved node and a copy hold the same op, attributes, type,
 * annotation, operands and scope, and have the same users; the moved
 * ones are marked for relabelling as copies, being new, would be, so the
 * next pass labels (and counts) the same; a moved node without a type
 * is inferred again as a copy would be (type_infer_list).  Variables,
 * functions, op values and lets, ifs and matches in the region stay
 * themselves either way. */

/* The kinds a group's body holds its own node of (a move or a copy). */
static bool body_kind(const graft_node *n)
{
    NodeKind k = node_kind(n);
    return k == NODE_CALL || k == NODE_TUPLE || k == NODE_GETITEM || k == NODE_CONST;
}

/* A copy of constant n: a scalar by its spelling and value, a tensor whose
 * bytes are known (an ONNX initializer) by its name, type and bytes,
 * which the copy shares (they live as long as the graph).  A tensor made
 * as a scalar held no bytes, so the ONNX function of a partition that
 * copied a shared initializer read 0 for it
 * (tests/onnx/shared_const/run.golden). */
static graft_node *copy_const(graft_graph *g, const graft_node *n)
{
    size_t nbytes = 0;
    const void *bytes = node_const_data(n, &nbytes);
    if (!bytes) /* a scalar, or a tensor whose values the model does not give */
        return graph_add_const(g, node_const_text(n), node_const_value(n), node_const_dtype(n));
    return graph_add_tensor_const(g, node_const_text(n), node_type(n), bytes, nbytes);
}

/* A copy of n reading args, with n's attributes, type and annotation. */
static graft_node *copy_node(graft_graph *g, graft_node *n, graft_node *const *args)
{
    graft_node *c;
    switch (node_kind(n)) {
    case NODE_CONST:
        c = copy_const(g, n);
        break;
    case NODE_TUPLE:
        c = graph_add_tuple(g, args, node_nargs(n));
        break;
    case NODE_GETITEM:
        c = graph_add_getitem(g, args[0], node_index(n));
        break;
    default: /* NODE_CALL */
        if (!node_op(n)) {
            c = graph_add_fn_call(g, node_callee(n), args, node_nargs(n));
            break;
        }
        graft_attr *attrs = arena_array(graph_arena(g), (size_t)node_nattrs(n) + 1, sizeof *attrs);
        for (int i = 0; i < node_nattrs(n); i++)
            attrs[i] = *node_attr(n, i);
        c = graph_add_call(g, node_op(n), args, node_nargs(n), attrs, node_nattrs(n));
        break;
    }
    if (node_type(n))
        graph_set_type(g, c, node_type(n));
    if (node_annotation(g, n))
        graph_set_annotation(g, c, node_annotation(g, n));
    return c;
}

/* The name's key of the function literal n calls, unless keyed already
 * (note [function names] in partition_name.c). */
static inline void key_callee(Pass *p, const graft_node *n)
{
    graft_node *callee = node_callee(n);
    if (callee && node_kind(callee) == NODE_FUNC &&
        !keymap_get(&p->fn_seen, keymap_ptr_key(callee)))
        partition_key_function(p, callee);
}

/* The region below root, not yet in p->region, onto p->region in post-
 * order (operands left to right), each node its own body node for now,
 * and its name's key.  A frame's cursor passes the operands the walk
 * stops at (inputs, nodes met) in one loop, not a turn of the walk each
 * (note [one walk]'s post-order shape). */
static void walk_region(Pass *p, graft_node *root)
{
    NodeWalk w = p->walk; /* frames kept from one group to the next */
    NodeList region = p->region; /* (in registers while the walk runs) */
    walk_push(&w, root);
    key_callee(p, root); /* each node's callee's name at its first visit */
    while (w.depth) {
        graft_node *n = walk_top(&w);
        uint32_t na = node_is_opaque(n) ? 0 : (uint32_t)node_nargs(n);
        graft_node *a = NULL;
        for (uint32_t i; !a && (i = walk_next(&w)) < na;) {
            a = node_arg(n, (int)i);
            if (node_id(a) >= p->size || p->stand[node_id(a)])
                a = NULL;
        }
        if (a) {
            walk_push(&w, a);
            key_callee(p, a);
            continue;
        }
        (void)walk_pop(&w);
        pass_set_body(p, node_id(n), n);
        vec_push(&region, n);
        if (node_kind(n) != NODE_FUNC)
            partition_key_part(p, n);
        else if (!keymap_get(&p->fn_seen, keymap_ptr_key(n)))
            partition_key_function(p, n);
    }
    p->walk = w;
    p->region = region;
}

/* Whether every user of x is in the region. */
static bool used_inside(const Pass *p, const graft_node *x)
{
    for (int k = node_user_first(x); k < node_user_end(x); k = node_user_next(x, k)) {
        uint32_t id = node_id(node_user(x, k));
        if (id >= p->size || !pass_body(p, id))
            return false;
    }
    return true;
}

/* Whether x is one of gr's roots. */
static bool is_root(const Pass *p, const Group *gr, const graft_node *x)
{
    graft_node *const *roots = group_roots(p->gp, gr);
    for (int j = 0; j < gr->nroots; j++)
        if (roots[j] == x)
            return true;
    return x == gr->root;
}

/* Whether the region can move (note [moved body]): no interior node but
 * constants is read outside.  The grouper may know it already (note
 * [interior read inside] in group.c).  A node the walk met by one of its
 * uses, and used once, is read inside only: the users list is walked for
 * the others. */
bool partition_movable(const Pass *p, const Group *gr)
{
    if (gr->read_inside)
        return true;
    for (size_t i = 0; i < p->region.len; i++) {
        const graft_node *x = p->region.items[i];
        if (node_nusers(x) > 1 && body_kind(x) && node_kind(x) != NODE_CONST &&
            !is_root(p, gr, x) && !used_inside(p, x))
            return false;
    }
    return true;
}

/* What operand a of a body node reads in the body. */
static graft_node *body_operand(const Pass *p, graft_node *const *params, graft_node *a)
{
    uint32_t id = node_id(a);
    if (id >= p->size)
        return a;
    uint32_t input = pass_input(p, id);
    if (input) /* inputs are distinct */
        return params[input - 1];
    graft_node *in_body = pass_body(p, id);
    return in_body ? in_body : a;
}

/* Copies the region's body kinds in post-order, inputs replaced by
 * params; returns the body's root. */
graft_node *partition_copy_region(Pass *p, const Group *gr, graft_node *const *params)
{
    for (size_t r = 0; r < p->region.len; r++) {
        graft_node *n = p->region.items[r];
        if (!body_kind(n))
            continue; /* stays itself */
        int na = node_nargs(n);
        p->args = xgrow_items(p->args, &p->args_cap, (size_t)na + 1, sizeof *p->args);
        for (int i = 0; i < na; i++)
            p->args[i] = body_operand(p, params, node_arg(n, i));
        graft_node *c = copy_node(p->e->g, n, p->args);
        pass_set_body(p, node_id(n), c);
        if (!node_type(c))
            partition_list_untyped(p, c);
    }
    return pass_body(p, node_id(gr->root));
}

/* note [left untyped]: the typing after the pass (partition_apply_groups)
 * skips a tuple, getitem or op call with an operand it has not typed
 * (unknown_operand in type_infer.c), and types only the nodes listed.  A
 * moved node's operands are parameters (variables: typing keeps their
 * types), nodes of its region, or nodes outside; so an operand without a
 * type that is a variable, or a body node of the region already known to
 * stay untyped, has none when the list is typed, and the node stays
 * untyped too: it is not listed, and is marked (STAYS_UNTYPED in its
 * stand-in word) for its users in the region.  Any other operand without
 * a type (a constant's copy, say) may be typed first: the node is listed.
 * On the Relay partition of bench/workload.sh, whose variables are
 * untyped, the six calls of every group were listed and checked for
 * nothing, 186 instructions a group; asking here costs 129. */
static bool stays_untyped(const Pass *p, const graft_node *a)
{
    if (node_type(a))
        return false;
    if (node_kind(a) == NODE_VAR)
        return true;
    return pass_stays_untyped(p, a);
}

/* Re-points n's operands that something else stands for in the body
 * (note [stand-ins]): an input's parameter, a shared constant's copy;
 * operands standing for themselves and nodes outside stay. */
static void point_into_body(Pass *p, graft_node *n, graft_node *const *params)
{
    for (int i = 0; i < node_nargs(n); i++) {
        graft_node *a = node_arg(n, i);
        graft_node *in_body = body_operand(p, params, a);
        if (in_body != a)
            graph_set_arg(p->e->g, n, i, in_body);
    }
}

/* Whether moved node n, untyped, stays untyped (note [left untyped]). */
static bool left_untyped(const Pass *p, const graft_node *n)
{
    NodeKind k = node_kind(n);
    if (!(k == NODE_TUPLE || k == NODE_GETITEM || (k == NODE_CALL && !node_callee(n))))
        return false; /* typed whatever its operands' types */
    for (int i = 0; i < node_nargs(n); i++)
        if (stays_untyped(p, node_arg(n, i)))
            return true;
    return false;
}

/* Moves the region into the body (note [moved body]); returns the
 * body's root, the group's. */
graft_node *partition_move_region(Pass *p, const Group *gr, graft_node *const *params)
{
    graft_graph *g = p->e->g;
    for (size_t r = 0; r < p->region.len; r++) {
        graft_node *n = p->region.items[r];
        if (!body_kind(n))
            continue;
        if (node_kind(n) != NODE_CONST) {
            point_into_body(p, n, params);
        } else if (used_inside(p, n)) {
            graph_set_scope(g, n, NULL); /* as a copy's: in no function */
        } else {
            graft_node *c = copy_node(g, n, NULL); /* shared with the outside */
            pass_set_body(p, node_id(n), c);
            if (!node_type(c))
                partition_list_untyped(p, c);
            continue;
        }
        if (!p->last) /* for the next pass's relabelling */
            engine_mark_dirty(p->e, node_id(n));
        if (node_type(n))
            continue;
        if (left_untyped(p, n))
            p->stand[node_id(n)] = (uintptr_t)n | STAYS_UNTYPED;
        else
            partition_list_untyped(p, n);
    }
    return gr->root;
}

/* The group done with its region: a moved region's nodes that compute
 * put into fn's scope, as graph_add_func puts a new body's (note
 * [function scope] in graph_walk.c), and no region node standing for
 * itself any more (the body nodes belong to this group); fn NULL for a
 * copied region. */
void partition_release_region(Pass *p, graft_node *fn)
{
    graft_graph *g = p->e->g;
    for (size_t r = 0; r < p->region.len; r++) {
        graft_node *n = p->region.items[r];
        uintptr_t stand = p->stand[node_id(n)]; /* (read once, before it is cleared) */
        pass_set_body(p, node_id(n), NULL);
        if (fn && (stand & ~(uintptr_t)STAYS_UNTYPED) == (uintptr_t)n && body_kind(n) &&
            node_kind(n) != NODE_CONST)
            graph_set_scope(g, n, fn);
    }
}

/* The group's region into p->region: each root's in the roots' order
 * (note [partition semantics]). */
void partition_region_of(Pass *p, const Group *gr)
{
    p->region.len = 0;
    p->key.len = 0;
    if (p->fn_seen.len) { /* a group with a function literal (rare) */
        keymap_free(&p->fn_seen);
        p->fn_seen = (KeyMap){0};
    }
    walk_region(p, gr->root);
    graft_node *const *roots = group_roots(p->gp, gr);
    for (int j = 1; j < gr->nroots; j++) /* roots[0] is gr->root */
        walk_region(p, roots[j]);
}
