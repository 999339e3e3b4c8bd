/* partition_apply.c - a group replaced by a call of a new function: its
 * parameters, its region moved or copied into the body, the call in the
 * roots' place (note [partition semantics] in partition.c). */
#include "partition_impl.h"

#include "type_infer.h"

/* Marks a group's inputs in p->stand (note [stand-ins]), or clears them:
 * on false; inputs are nodes of the graph before the pass. */
static inline void mark_inputs(Pass *p, graft_node *const *inputs, uint32_t ninputs, bool on)
{
    for (uint32_t k = 0; k < ninputs; k++) {
        uint32_t id = node_id(inputs[k]);
        if (id < p->size)
            p->stand[id] = on ? (uintptr_t)(k + 1) << 1 | 1 : 0;
    }
}

/* note [typing lists]: the lists of nodes typed after the pass are sized
 * at their first entry, where a list grown push by push was copied whole
 * at each of its dozen growths: the new nodes are a function and a call
 * per group, and the body nodes without a type at most the nodes the
 * groups claimed (partition_copy_region and partition_move_region list a
 * region node once at most; a bound, not a count: a push past it still
 * grows).  Not before the first: on the workload neither list takes a
 * node (every Relay body stays untyped, every ONNX one is typed as made),
 * and their room, 1,048,576 bytes reserved before the pass's first group,
 * was part of the partition's peak.  The lists live for the pass only,
 * freed before the graph is printed. */
void partition_list_untyped(Pass *p, graft_node *n)
{
    if (!p->untyped.cap)
        vec_reserve(&p->untyped, p->gp->nclaimed + 1);
    vec_push(&p->untyped, n);
}

/* Lists a function and its call for the typing after the pass (note
 * [typing lists]). */
static void list_made(Pass *p, graft_node *fn, graft_node *call)
{
    if (!p->made.cap)
        vec_reserve(&p->made, 2 * p->groups.len);
    vec_push(&p->made, fn);
    vec_push(&p->made, call);
}

/* A group of several roots: the body is the tuple of the roots' body
 * nodes, typed with the pass's bodies. */
static graft_node *roots_tuple(Pass *p, const Group *gr)
{
    graft_node *const *roots = group_roots(p->gp, gr);
    VEC(graft_node *) fields = {0};
    for (int j = 0; j < gr->nroots; j++)
        vec_push(&fields, pass_body(p, node_id(roots[j])));
    graft_node *t = graph_add_tuple(p->e->g, fields.items, gr->nroots);
    vec_free(&fields);
    partition_list_untyped(p, t);
    return t;
}

/* Each root's uses, and the output or body it was, go to its field of
 * call, in outer, the roots' scope; the body tuple keeps reading a moved
 * root, whose use the move took too. */
static void roots_to_fields(Pass *p, const Group *gr, graft_node *call, graft_node *tuple,
                            graft_node *outer)
{
    graft_graph *g = p->e->g;
    graft_node *const *roots = group_roots(p->gp, gr);
    graph_set_scope(g, call, outer);
    for (int j = 0; j < gr->nroots; j++) {
        graft_node *field = graph_add_getitem(g, call, j);
        graph_set_scope(g, field, outer);
        if (node_type(roots[j]))
            graph_set_type(g, field, node_type(roots[j]));
        graph_set_scope(g, roots[j], outer);
        graph_replace_all_uses(g, roots[j], field);
        graft_node *in_body = pass_body(p, node_id(roots[j]));
        if (node_arg(tuple, j) != in_body)
            graph_set_arg(g, tuple, j, in_body);
    }
}

/* note [function types as made]: a function's type is its parameters'
 * and its body's ("fn (T1, ...) -> R", func_type in type_infer.c), and a
 * call's of it the body's.  A body with a type as the group is applied
 * (every ONNX one: the import types its calls) keeps it, its parameters
 * keep their inputs', so the function is typed at once, and its call has
 * the body's type already (the root's, or its copy's: apply_group).
 * Groups of one rule mostly have one shape and types: the pass keeps the
 * last function's types, as pointers, and the type made for them, which
 * a function of the same pointers takes as it is; only another key is
 * inferred (type_infer_node, which makes the text func_type_text does).
 * The typing after the pass remembered each key's type as well (note
 * [function types remembered] in type_infer.c), hashing it: 397
 * instructions a group on the ONNX partition of bench/workload.sh.  Each
 * function of a key the last one had gets that type's pointer, as there;
 * a key met again after another is typed afresh, a type of the same
 * text. */

/* Whether the key of a function of params and body, its body's type and
 * then its parameters', is the last one's (note [function types as
 * made]); it is kept in p->fn_key when not. */
static bool fn_key_same(Pass *p, graft_node *const *params, uint32_t np, const graft_node *body)
{
    bool same = p->fn_key.len == (size_t)np + 1 && p->fn_key.items[0] == node_type(body);
    for (uint32_t i = 0; same && i < np; i++)
        same = p->fn_key.items[i + 1] == node_type(params[i]);
    if (same)
        return true;
    p->fn_key.len = 0;
    vec_push(&p->fn_key, node_type(body));
    for (uint32_t i = 0; i < np; i++)
        vec_push(&p->fn_key, node_type(params[i]));
    return false;
}

/* Types fn, of params and a body that has a type, as it is made (note
 * [function types as made]). */
static void type_function(Pass *p, graft_node *fn, graft_node *const *params, uint32_t np,
                          const graft_node *body)
{
    if (!fn_key_same(p, params, np, body)) {
        StrBuf why = {0};
        p->fn_type = type_infer_node(p->e->g, fn, &why); /* (never a contradiction) */
        strbuf_free(&why);
    }
    if (p->fn_type)
        graph_set_type(p->e->g, fn, p->fn_type);
}

/* Replaces a group by a call of a new function: parameters first (so the
 * graph adopts a copied body into the function), the body, the call.
 * The new nodes are typed after the pass's last group (partition_apply_groups). */
static void apply_group(Pass *p, const Group *gr)
{
    graft_graph *g = p->e->g;
    const graft_rule *rule = &p->e->rs->rules[p->rule];
    graft_node **inputs = group_inputs(p->gp, gr);
    graft_node **params = partition_make_params(p, gr, inputs);
    mark_inputs(p, inputs, gr->ninputs, true);
    partition_region_of(p, gr);
    bool move = partition_movable(p, gr);
    graft_node *body =
        move ? partition_move_region(p, gr, params) : partition_copy_region(p, gr, params);
    if (gr->nroots)
        body = roots_tuple(p, gr);
    p->copied |= !move;
    int nattrs;
    const graft_attr *attrs = partition_fn_attrs(p, rule, &nattrs);
    graft_node *outer = node_scope(g, gr->root);
    graft_node *fn = graph_add_func_sharing(g, params, (int)gr->ninputs, body, attrs, nattrs);
    graft_node *call = graph_add_fn_call(g, fn, inputs, (int)gr->ninputs);
    if (gr->nroots) {
        roots_to_fields(p, gr, call, body, outer);
    } else {
        if (node_type(gr->root))
            graph_set_type(g, call, node_type(gr->root));
        /* the root's uses, and the output or body it was, go to the call:
         * from the root's scope before the function (without parameters,
         * it adopts all it reaches) took it in */
        graph_set_scope(g, gr->root, outer);
        graph_replace_all_uses(g, gr->root, call);
    }
    /* note [untyped bodies]: a function whose body has no type has none
     * (func_type in type_infer.c), nor has a call of it (called_type):
     * a body known to stay untyped (a moved root, note [left untyped] in
     * partition_region.c) leaves them out of the typing, where each was
     * two inferences for nothing on the Relay partition of
     * bench/workload.sh (untyped variables), 170 instructions a group */
    if (node_type(body)) {
        type_function(p, fn, params, gr->ninputs, body);
    } else if (!pass_stays_untyped(p, body)) {
        list_made(p, fn, call);
    }
    partition_release_region(p, move ? fn : NULL);
    mark_inputs(p, inputs, gr->ninputs, false);
    if (p->e->opts.trace)
        fprintf(p->e->opts.trace, "partition %s (%s:%d): group %u at #%u %s, %u params\n",
                rule->name, rule->file, rule->line, gr->number, node_id(gr->root),
                p->last_name, gr->ninputs);
}

/* note [applied groups freed]: the groups a pass keeps, and their inputs
 * (the grouper's blocks, note [input blocks] in group.c), are read once,
 * by the group's apply, while the apply's new nodes grow the graph to
 * its largest: so each block of groups, and each block of inputs, is
 * freed as soon as its last group is applied (409,600 and 425,984 bytes
 * of the partition's peak on the workload). */

/* Frees what the groups before group i held (note [applied groups
 * freed]): the blocks of groups, and of inputs, that i's are past. */
static void free_applied(Pass *p, size_t i, const Group *gr)
{
    if (i % GROUP_BLOCK == 0 && i) {
        free(p->groups.blocks.items[i / GROUP_BLOCK - 1]);
        p->groups.blocks.items[i / GROUP_BLOCK - 1] = NULL;
    }
    grouper_free_inputs_before(p->gp, gr->block);
}

/* Applies the pass's groups in the order found.  The bodies keep their
 * nodes' types, the parameters their inputs', the calls their roots';
 * the rest (the functions, body nodes without a type) is inferred once
 * for all groups: a group's body and new nodes read only its own and
 * nodes of the graph before the pass, whose types applying groups does
 * not change, so typing them group by group or at the end gives the same
 * types, and one relation cache serves the pass.  Bodies first: they
 * come before the functions that return them (note [untyped bodies]). */
void partition_apply_groups(Pass *p)
{
    for (size_t i = 0; i < p->groups.len; i++) {
        const Group *gr = group_at(&p->groups, i);
        free_applied(p, i, gr);
        apply_group(p, gr);
    }
    type_infer_list(p->e->g, p->untyped.items, p->untyped.len);
    type_infer_list(p->e->g, p->made.items, p->made.len);
}
