/* partition_name.c - the names of a group's function: its
 * PartitionedFromPattern, as TVM's MatchExtractor spells it, made once
 * per run of groups with the same parts (note [names once]), and its
 * parameters FunctionVar_<group>_<k>. */
#include "partition_impl.h"

#include <string.h>

#include "outbuf.h"

/* What every parameter's name starts with (note [parameter names]). */
#define PARAM_PREFIX "FunctionVar_"

/* note [names once]: groups of one pattern mostly get one name
 * ("subtract_multiply_add_sqrt_divide_add_" for every copy of the seed),
 * and building and interning its text per group cost more than the rest
 * of making the function.  So the walk keeps what the name is made of,
 * the interned op names and the kinds and indices of the other parts,
 * and a group whose parts are the last group's takes the last name and
 * attributes as they are; the text is made and interned only when the
 * parts change. */

/* The name a key spells, as TVM's MatchExtractor appends it: an op's
 * name and '_', "Call_", "Tuple_", "TupleGetItem<i>_", "Function". */
static void key_name(StrBuf *name, const NameKey *key)
{
    for (size_t i = 0; i < key->len; i++) {
        uintptr_t k = key->items[i];
        if (k == KEY_CALL)
            strbuf_puts(name, "Call_");
        else if (k == KEY_TUPLE)
            strbuf_puts(name, "Tuple_");
        else if (k == KEY_GETITEM)
            strbuf_printf(name, "TupleGetItem%d_", (int)(uint32_t)key->items[++i]);
        else if (k == KEY_FUNCTION)
            strbuf_puts(name, "Function");
        else
            strbuf_printf(name, "%s_", (const char *)k);
    }
}

/* The i-th node TVM's ExprMutator visits below n: a function's
 * parameters and body, else the callee and the operands; NULL past the
 * end. */
static graft_node *visited_kid(const graft_node *n, uint32_t i)
{
    if (node_kind(n) == NODE_FUNC) {
        uint32_t np = (uint32_t)node_nparams(n);
        return i < np ? node_param(n, (int)i) : i == np ? node_body(n) : NULL;
    }
    if (node_callee(n)) {
        if (i == 0)
            return node_callee(n);
        i--;
    }
    return i < (uint32_t)node_nargs(n) ? node_arg(n, (int)i) : NULL;
}

/* note [function names]: TVM's MatchExtractor mutates a function value
 * in the group, a call's callee before its operands, its body included:
 * so the body's parts, then "Function", name it before what reads it
 * (TVM's test_partition_function: "nn.conv2d_FunctionCall_add_").  The
 * key of function fn in post-order, each node once per group. */
void partition_key_function(Pass *p, graft_node *fn)
{
    NodeWalk w = {0};
    walk_push(&w, fn);
    *keymap_put(&p->fn_seen, keymap_ptr_key(fn), 0) = 1;
    while (w.depth) {
        graft_node *n = walk_top(&w);
        graft_node *kid = visited_kid(n, walk_next(&w));
        if (!kid) {
            partition_key_part(p, walk_pop(&w));
            continue;
        }
        int64_t *seen = keymap_put(&p->fn_seen, keymap_ptr_key(kid), 0);
        if (!*seen) {
            *seen = 1;
            walk_push(&w, kid);
        }
    }
    walk_free(&w);
}

/* The new function's attributes: PartitionedFromPattern, then the rule's
 * own (Composite=...), in the graph; the last group's when the name is
 * (note [names once]; attributes are never changed once made). */
const graft_attr *partition_fn_attrs(Pass *p, const graft_rule *rule, int *n)
{
    *n = 1 + rule->npart_attrs;
    if (p->last_attrs && p->key.len == p->last_key.len &&
        memcmp(p->key.items, p->last_key.items, p->key.len * sizeof *p->key.items) == 0)
        return p->last_attrs;
    graft_graph *g = p->e->g;
    StrBuf *name = &p->name;
    name->len = 0;
    strbuf_append(name, "", 0); /* never NULL below */
    key_name(name, &p->key);
    graft_attr *attrs = arena_array(graph_arena(g), (size_t)rule->npart_attrs + 2, sizeof *attrs);
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    v->s = graph_intern_n(g, name->data, name->len);
    if (!p->pfp)
        p->pfp = graph_intern(g, "PartitionedFromPattern");
    attrs[0] = (graft_attr){p->pfp, v};
    for (int i = 0; i < rule->npart_attrs; i++) {
        graft_attr_value *c = graph_new_attr_value(g, rule->part_attrs[i].value->kind);
        *c = *rule->part_attrs[i].value;
        c->s = c->s ? graph_intern(g, c->s) : NULL;
        c->spelling = NULL;
        c->items = NULL; /* literal lists as function attributes: not kept */
        c->nitems = 0;
        attrs[1 + i] = (graft_attr){graph_intern(g, rule->part_attrs[i].name), c};
    }
    NameKey swap = p->last_key; /* the key becomes the last */
    p->last_key = p->key;
    p->key = swap;
    p->key.len = 0;
    p->last_name = v->s;
    p->last_attrs = attrs;
    return attrs;
}

/* note [parameter names]: a group's parameters are named
 * FunctionVar_<group>_<k>, every name new to the graph (unless the model
 * itself spells one): its text is made by appending k's digits to the
 * group's prefix, and the graph keeps it beside its interner until
 * something may ask for it (graph_add_fn_params_new, note [names made
 * new] in src/ir/graph.c), so the interner neither hashes nor stores
 * the pass's 50,000 names at 10,000 side-by-side batch norms, nor grows
 * for them (bench/RESULTS.md, session 26).  A pass whose groups lie in
 * several functions (a module's) may repeat a name: it interns them as
 * it makes them. */

/* Whether the pass's groups all lie in one function: the grouper numbers
 * each function's groups from 0 (group.h), so only then are their
 * parameters' names distinct, as a batch of names made new must be. */
static bool numbered_once(const Grouper *gp)
{
    int functions = 0;
    for (int i = 0; i < gp->ncounters; i++)
        functions += gp->counter[i] != 0;
    return functions <= 1;
}

/* Room in the interner for the names of the pass's functions'
 * attributes (a few), beside it for the parameters' names (in the
 * interner when its groups lie in several functions), and in the
 * node table for the parameters, functions and calls it makes, with a
 * tuple and its fields for a group of several roots (note [node table]
 * in graph.c; a copied region's nodes are not counted: the table grows
 * for them). */
void partition_reserve(Pass *p)
{
    size_t names = 0, nodes = 0;
    for (size_t i = 0; i < p->groups.len; i++) {
        const Group *gr = group_at(&p->groups, i);
        names += gr->ninputs;
        nodes += gr->ninputs + 2 + (gr->nroots ? 1 + (size_t)gr->nroots : 0);
    }
    if (!nodes)
        return;
    graft_graph *g = p->e->g;
    const graft_rule *rule = &p->e->rs->rules[p->rule];
    p->names_new = numbered_once(p->gp);
    if (p->names_new)
        graph_begin_new_names(g, PARAM_PREFIX, names);
    else
        names += graph_interned_count(g); /* interned as made */
    graph_reserve_names(g, names + 2 + 2 * (size_t)rule->npart_attrs, 0);
    graph_fit_nodes(g, nodes);
    graph_reserve_scopes(g); /* (note [order dropped before the last apply]) */
}

/* The group's parameters, FunctionVar_<group>_<k>, typed as its inputs
 * (note [parameter names]).  TVM's PatternGrouper
 * (tvm/src/relay/ir/dataflow_matcher.cc) makes Var("FunctionVar_N_k",
 * NullValue<Type>()): no annotation to print.  The type stays known,
 * undeclared, for later rules. */
graft_node **partition_make_params(Pass *p, const Group *gr, graft_node *const *inputs)
{
    graft_graph *g = p->e->g;
    vec_reserve(&p->params, gr->ninputs + 1); /* items not NULL for a group of no inputs */
    graft_node **params = p->params.items;
    p->params.len = gr->ninputs;
    char stem[40]; /* FunctionVar_<group>_ */
    size_t len = sizeof PARAM_PREFIX - 1;
    memcpy(stem, PARAM_PREFIX, len);
    len += write_u32(stem + len, gr->number);
    stem[len++] = '_';
    if (p->names_new) {
        graph_add_fn_params_like(g, stem, len, gr->ninputs, inputs, params);
        return params;
    }
    for (uint32_t k = 0; k < gr->ninputs; k++) {
        size_t n = len + write_u32(stem + len, k);
        params[k] = graph_add_fn_param_interned(g, graph_intern_n(g, stem, n), NULL);
        graph_set_type(g, params[k], node_type(inputs[k]));
    }
    return params;
}
