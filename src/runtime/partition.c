/* partition.c - grouping matches into functions, as TVM's partition does.
 *
 * note [partition semantics]: (TVM v0.14 PatternPartitioner, DESIGN.md)
 *  - one pass per partition rule; nodes are visited in reverse
 *    topological order (outputs first), so a larger match nearer the
 *    output claims its nodes first;
 *  - a node already in a group, or inside a function that carries
 *    PartitionedFromPattern, is never a candidate root; nor is a
 *    variable, constant or function value (a group computes something);
 *  - every match is a candidate group and takes the next group number,
 *    even when it is then dropped: for overlapping a group (constants
 *    aside) or for an interior node with a user outside the group that
 *    the root does not post-dominate;
 *  - candidates, claiming and parameters as in note [groups] (group.h):
 *    the inputs in the order a post-order walk of the match meets them,
 *    operands left to right (note [input order] in group.c), named
 *    FunctionVar_<group>_<k>; a constant matched by x:const or a literal
 *    is embedded instead;
 *  - the function body is the region between the root and the
 *    parameters, copied; PartitionedFromPattern lists its nodes in post-
 *    order, each op name followed by '_' (Tuple_, TupleGetItem<i>_);
 *    the rule's attributes follow it;
 *  - a rule of several roots (TVM has none) makes one function of the
 *    union of the roots' regions, its body the tuple of the roots, its
 *    name each root's region in post-order in the roots' order (a node
 *    two roots share counted with the first); each root's users read its
 *    field of the one call (note [partition roots] in group.c).
 * Groups are applied in the order found (outer first): a group's call
 * reads the original nodes, which inner groups then replace.
 */
#include "group.h"

#include <stdlib.h>
#include <string.h>

#include "type_infer.h"
#include "util.h"
#include "walk.h"

/* What a group's name is made of (note [names once]). */
typedef VEC(uintptr_t) NameKey;

/* walk_region's stack (note [one walk]), kept in the pass between groups. */
typedef WALK(graft_node *) NodeWalk;

typedef struct Pass {
    graft_engine *e;          /* the driver */
    uint32_t rule;      /* the partition rule */
    Grouper *gp;        /* candidates and claims */
    uint8_t *pre;       /* per node id: inside a partitioned function */
    graft_node **body;        /* per node id: what stands for it in the body of
                           the group being applied (itself when moved, its
                           copy), or NULL outside the region */
    uint32_t *input;    /* per node id: 1 + its index in the inputs of the
                           group being applied, or 0 */
    uint32_t size;      /* entries in the per-node arrays */
    Group *groups;      /* groups kept */
    size_t ngroups, groups_cap;
    graft_node **region;      /* scratch: a group's region in post-order */
    size_t nregion, region_cap;
    NodeWalk walk;      /* scratch: walk_region's frames */
    graft_node **args;        /* scratch: a copy's operands */
    size_t args_cap;
    graft_node **params;      /* scratch: a group's parameters */
    size_t params_cap;
    VEC(graft_node *) untyped; /* moved nodes without a type, to infer */
    bool copied;        /* a group was copied: its originals are garbage */
    VEC(graft_node *) made;   /* functions and calls made, to type */
    StrBuf name;        /* scratch: a group's PartitionedFromPattern */
    NameKey key, last_key; /* what a group's name is made of, and
                           the last name's (note [names once]) */
    KeyMap fn_seen;     /* scratch: the function nodes' parts a group's key
                           holds (note [function names]) */
    const char *pfp;    /* "PartitionedFromPattern", interned */
    const char *last_name;   /* the last group's name, interned */
    const graft_attr *last_attrs;  /* the last group's function attributes */
} Pass;

/* ---- candidates ---- */

static bool is_partitioned_fn(const graft_node *n)
{
    return node_kind(n) == NODE_FUNC && node_find_attr(n, "PartitionedFromPattern");
}

/* Marks a partitioned function's body: never entered by this pass; nor
 * the bodies of functions in it (TVM's PostOrderVisit of the body enters
 * them: a call of a function literal partitioned is not partitioned
 * inside again). */
static void mark_pre(Pass *p, graft_node *fn)
{
    WALK(graft_node *) w = {0};
    walk_push(&w, node_body(fn));
    p->pre[node_id(fn)] = 1;
    while (w.depth) {
        graft_node *n = walk_pop(&w);
        if (node_id(n) >= p->size || p->pre[node_id(n)])
            continue;
        p->pre[node_id(n)] = 1;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        walk_reserve(&w, (size_t)na + 1);
        for (int i = 0; i < na; i++)
            walk_push_reserved(&w, node_arg(n, i));
        if (node_callee(n))
            walk_push_reserved(&w, node_callee(n));
        if (node_kind(n) == NODE_FUNC)
            walk_push(&w, node_body(n));
    }
    walk_free(&w);
}

/* A candidate root computes something: a variable, a constant or a
 * function value alone would make an empty function. */
static void try_root(Pass *p, graft_node *x)
{
    const graft_rule *rule = &p->e->rs->rules[p->rule];
    NodeKind k = node_kind(x);
    if (k == NODE_VAR || k == NODE_CONST || k == NODE_FUNC)
        return;
    if (!automaton_state_has(p->e->a, labels_state(p->e->labels, x), rule->pattern->item))
        return;
    Group gr;
    if (!grouper_try(p->gp, x, false, &gr))
        return;
    p->groups = xgrow_items(p->groups, &p->groups_cap, p->ngroups + 1, sizeof *p->groups);
    p->groups[p->ngroups++] = gr;
}

/* ---- applying groups ---- */

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

/* A copy of n reading args, with n's attributes, type and annotation. */
static graft_node *copy_node(graft_graph *g, graft_node *n, graft_node *const *args)
{
    graft_node *c;
    switch (node_kind(n)) {
    case NODE_CONST:
        c = graph_add_const(g, node_const_text(n), node_const_value(n), node_const_dtype(n));
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
    if (node_annotation(n))
        graph_set_annotation(g, c, node_annotation(n));
    return c;
}

/* Writes the decimal digits of v at at; returns the end. */
static char *put_digits(char *at, uint32_t v)
{
    char buf[10];
    int i = sizeof buf;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(at, buf + i, sizeof buf - (size_t)i);
    return at + (sizeof buf - (size_t)i);
}

/* note [names once]: groups of one pattern mostly get one name
 * ("subtract_multiply_add_sqrt_divide_add_" for every copy of the seed),
 * and building and interning its text per group cost more than the rest
 * of making the function.  So the walk keeps what the name is made of,
 * the interned op names and the kinds and indices of the other parts,
 * and a group whose parts are the last group's takes the last name and
 * attributes as they are; the text is made and interned only when the
 * parts change. */

/* Key entries that are no op name (an interned name's address is
 * never this small). */
enum { KEY_CALL = 1, KEY_TUPLE, KEY_GETITEM, KEY_FUNCTION };

/* The name parts of n as key entries: an op name (interned, so its
 * address says which), or a small kind marker and a tuple index. */
static void key_part(Pass *p, const graft_node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL:
        vec_push(&p->key, node_op(n) ? (uintptr_t)node_op(n) : (uintptr_t)KEY_CALL);
        break;
    case NODE_TUPLE:
        vec_push(&p->key, (uintptr_t)KEY_TUPLE);
        break;
    case NODE_GETITEM:
        vec_push(&p->key, (uintptr_t)KEY_GETITEM);
        vec_push(&p->key, (uintptr_t)(uint32_t)node_index(n));
        break;
    case NODE_FUNC:
        vec_push(&p->key, (uintptr_t)KEY_FUNCTION);
        break;
    default:
        break;
    }
}

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
static void key_function(Pass *p, graft_node *fn)
{
    NodeWalk w = {0};
    walk_push(&w, fn);
    *keymap_put(&p->fn_seen, keymap_ptr_key(fn), 0) = 1;
    while (w.depth) {
        graft_node *n = walk_top(&w);
        graft_node *kid = visited_kid(n, walk_next(&w));
        if (!kid) {
            key_part(p, walk_pop(&w));
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

/* Marks a group's inputs in p->input (or clears them: on false); inputs
 * are nodes of the graph before the pass. */
static void mark_inputs(Pass *p, graft_node *const *inputs, uint32_t ninputs, bool on)
{
    for (uint32_t k = 0; k < ninputs; k++) {
        uint32_t id = node_id(inputs[k]);
        if (id < p->size)
            p->input[id] = on ? k + 1 : 0;
    }
}

/* The region below root, not yet in p->region, onto p->region in post-
 * order (operands left to right), each node its own body node for now,
 * and its name's key. */
static void walk_region(Pass *p, graft_node *root)
{
    NodeWalk w = p->walk; /* frames kept from one group to the next */
    walk_push(&w, root);
    while (w.depth) {
        graft_node *n = walk_top(&w);
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        uint32_t next = walk_next(&w);
        graft_node *callee = node_callee(n);
        if (next == 0 && callee && node_kind(callee) == NODE_FUNC &&
            !keymap_get(&p->fn_seen, keymap_ptr_key(callee)))
            key_function(p, callee); /* note [function names] */
        if (next < (uint32_t)na) {
            graft_node *a = node_arg(n, (int)next);
            if (node_id(a) < p->size && !p->input[node_id(a)] && !p->body[node_id(a)])
                walk_push(&w, a);
            continue;
        }
        (void)walk_pop(&w);
        p->body[node_id(n)] = n;
        if (p->nregion == p->region_cap)
            p->region = xgrow_items(p->region, &p->region_cap, p->nregion + 1, sizeof *p->region);
        p->region[p->nregion++] = n;
        if (node_kind(n) != NODE_FUNC)
            key_part(p, n);
        else if (!keymap_get(&p->fn_seen, keymap_ptr_key(n)))
            key_function(p, n);
    }
    p->walk = w;
}

/* Whether every user of x is in the region. */
static bool used_inside(const Pass *p, const graft_node *x)
{
    for (const Use *u = node_first_use(x); u; u = use_next(u)) {
        uint32_t id = node_id(use_user(u));
        if (id >= p->size || !p->body[id])
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
 * constants is read outside. */
static bool movable(const Pass *p, const Group *gr)
{
    for (size_t i = 0; i < p->nregion; i++) {
        const graft_node *x = p->region[i];
        if (body_kind(x) && node_kind(x) != NODE_CONST && !is_root(p, gr, x) &&
            !used_inside(p, x))
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
    if (p->input[id]) /* inputs are distinct */
        return params[p->input[id] - 1];
    return p->body[id] ? p->body[id] : a;
}

/* Copies the region's body kinds in post-order, inputs replaced by
 * params; returns the body's root. */
static graft_node *copy_region(Pass *p, const Group *gr, graft_node *const *params)
{
    for (size_t r = 0; r < p->nregion; r++) {
        graft_node *n = p->region[r];
        if (!body_kind(n))
            continue; /* stays itself */
        int na = node_nargs(n);
        p->args = xgrow_items(p->args, &p->args_cap, (size_t)na + 1, sizeof *p->args);
        for (int i = 0; i < na; i++)
            p->args[i] = body_operand(p, params, node_arg(n, i));
        graft_node *c = copy_node(p->e->g, n, p->args);
        p->body[node_id(n)] = c;
        if (!node_type(c))
            vec_push(&p->untyped, c);
    }
    return p->body[node_id(gr->root)];
}

/* Moves the region into the body (note [moved body]); returns the
 * body's root, the group's. */
static graft_node *move_region(Pass *p, const Group *gr, graft_node *const *params)
{
    graft_graph *g = p->e->g;
    for (size_t r = 0; r < p->nregion; r++) {
        graft_node *n = p->region[r];
        if (!body_kind(n))
            continue;
        if (node_kind(n) == NODE_CONST && !used_inside(p, n)) {
            graft_node *c = copy_node(g, n, NULL); /* shared with the outside */
            p->body[node_id(n)] = c;
            if (!node_type(c))
                vec_push(&p->untyped, c);
            continue;
        }
        for (int i = 0; i < node_nargs(n); i++) {
            graft_node *a = node_arg(n, i);
            graft_node *in_body = body_operand(p, params, a);
            if (in_body != a)
                graph_set_arg(g, n, i, in_body);
        }
        if (node_kind(n) == NODE_CONST)
            graph_set_scope(g, n, NULL); /* as a copy's: in no function */
        engine_mark_dirty(p->e, node_id(n));
        if (!node_type(n))
            vec_push(&p->untyped, n);
    }
    return gr->root;
}

/* Puts the moved nodes that compute into fn's scope, as graph_add_func
 * puts a new body's (note [function scope] in graph_walk.c). */
static void adopt_moved(Pass *p, graft_node *fn)
{
    for (size_t r = 0; r < p->nregion; r++) {
        graft_node *n = p->region[r];
        if (body_kind(n) && node_kind(n) != NODE_CONST && p->body[node_id(n)] == n)
            graph_set_scope(p->e->g, n, fn);
    }
}

/* The new function's attributes: PartitionedFromPattern, then the rule's
 * own (Composite=...), in the graph; the last group's when the name is
 * (note [names once]; attributes are never changed once made). */
static const graft_attr *fn_attrs(Pass *p, const graft_rule *rule, int *n)
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

/* "FunctionVar_<group>_<k>" in buf, which holds "FunctionVar_<group>_"
 * up to prefix; graph_add_fn_param interns it (once: the name is new). */
static const char *param_name(char buf[static 40], char *prefix, uint32_t k)
{
    char *end = k < 10 ? (*prefix = (char)('0' + k), prefix + 1) : put_digits(prefix, k);
    *end = '\0';
    return buf;
}

/* The group's parameters, FunctionVar_<group>_<k>, typed as its inputs. */
static graft_node **make_params(Pass *p, const Group *gr, graft_node *const *inputs)
{
    p->params = xgrow_items(p->params, &p->params_cap, gr->ninputs + 1, sizeof *p->params);
    char pname[40];
    memcpy(pname, "FunctionVar_", 12);
    char *prefix = put_digits(pname + 12, gr->number);
    *prefix++ = '_';
    for (uint32_t k = 0; k < gr->ninputs; k++) {
        /* TVM's PatternGrouper (tvm/src/relay/ir/dataflow_matcher.cc) makes
         * Var("FunctionVar_N_k", NullValue<Type>()): no annotation to
         * print.  The type stays known, undeclared, for later rules. */
        p->params[k] = graph_add_fn_param(p->e->g, param_name(pname, prefix, k), NULL);
        graph_set_type(p->e->g, p->params[k], node_type(inputs[k]));
    }
    return p->params;
}

/* The group's region into p->region: each root's in the roots' order
 * (note [partition semantics]). */
static void region_of(Pass *p, const Group *gr)
{
    p->nregion = 0;
    p->key.len = 0;
    keymap_free(&p->fn_seen);
    p->fn_seen = (KeyMap){0};
    walk_region(p, gr->root);
    graft_node *const *roots = group_roots(p->gp, gr);
    for (int j = 1; j < gr->nroots; j++) /* roots[0] is gr->root */
        walk_region(p, roots[j]);
}

/* A group of several roots: the body is the tuple of the roots' body
 * nodes, typed with the pass's bodies. */
static graft_node *roots_tuple(Pass *p, const Group *gr)
{
    graft_node *const *roots = group_roots(p->gp, gr);
    VEC(graft_node *) fields = {0};
    for (int j = 0; j < gr->nroots; j++)
        vec_push(&fields, p->body[node_id(roots[j])]);
    graft_node *t = graph_add_tuple(p->e->g, fields.items, gr->nroots);
    vec_free(&fields);
    vec_push(&p->untyped, t);
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
        graft_node *in_body = p->body[node_id(roots[j])];
        if (node_arg(tuple, j) != in_body)
            graph_set_arg(g, tuple, j, in_body);
    }
}

/* Replaces a group by a call of a new function: parameters first (so the
 * graph adopts a copied body into the function), the body, the call.
 * The new nodes are typed after the pass's last group (apply_groups). */
static void apply_group(Pass *p, const Group *gr)
{
    graft_graph *g = p->e->g;
    const graft_rule *rule = &p->e->rs->rules[p->rule];
    graft_node **inputs = group_inputs(p->gp, gr);
    graft_node **params = make_params(p, gr, inputs);
    mark_inputs(p, inputs, gr->ninputs, true);
    region_of(p, gr);
    bool move = movable(p, gr);
    graft_node *body = move ? move_region(p, gr, params) : copy_region(p, gr, params);
    if (gr->nroots)
        body = roots_tuple(p, gr);
    p->copied |= !move;
    int nattrs;
    const graft_attr *attrs = fn_attrs(p, rule, &nattrs);
    graft_node *outer = node_scope(gr->root);
    graft_node *fn = graph_add_func(g, params, (int)gr->ninputs, body, attrs, nattrs);
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
    if (move)
        adopt_moved(p, fn);
    for (size_t r = 0; r < p->nregion; r++) /* body nodes belong to this group */
        p->body[node_id(p->region[r])] = NULL;
    mark_inputs(p, inputs, gr->ninputs, false);
    vec_push(&p->made, fn);
    vec_push(&p->made, call);
    if (p->e->opts.trace)
        fprintf(p->e->opts.trace, "partition %s (%s:%d): group %u at #%u %s, %u params\n",
                rule->name, rule->file, rule->line, gr->number, node_id(gr->root),
                p->last_name, gr->ninputs);
}

/* Applies the pass's groups in the order found.  The bodies keep their
 * nodes' types, the parameters their inputs', the calls their roots';
 * the rest (the functions, body nodes without a type) is inferred once
 * for all groups: a group's body and new nodes read only its own and
 * nodes of the graph before the pass, whose types applying groups does
 * not change, so typing them group by group or at the end gives the same
 * types, and one relation cache serves the pass.  Bodies first: they
 * come before the functions that return them. */
static void apply_groups(Pass *p)
{
    for (size_t i = 0; i < p->ngroups; i++)
        apply_group(p, &p->groups[i]);
    type_infer_list(p->e->g, p->untyped.items, p->untyped.len);
    type_infer_list(p->e->g, p->made.items, p->made.len);
}

/* ---- one pass ---- */

static void pass_init(Pass *p, graft_engine *e, Grouper *gp, uint32_t rule)
{
    memset(p, 0, sizeof *p);
    p->e = e;
    p->rule = rule;
    p->gp = gp;
    grouper_begin(gp, rule);
    p->size = graph_node_count(e->g);
    p->pre = xcalloc((size_t)p->size + 1, 1);
    p->body = xcalloc((size_t)p->size + 1, sizeof *p->body);
    p->input = xcalloc((size_t)p->size + 1, sizeof *p->input);
}

static void pass_free(Pass *p)
{
    free(p->groups);
    free(p->pre);
    free(p->body);
    free(p->input);
    vec_free(&p->untyped);
    vec_free(&p->made);
    vec_free(&p->key);
    vec_free(&p->last_key);
    keymap_free(&p->fn_seen);
    free(p->region);
    walk_free(&p->walk);
    free(p->args);
    free(p->params);
    strbuf_free(&p->name);
}

/* The candidate groups of a pass over the n nodes of e->order, outputs
 * first. */
static void find_groups(Pass *p, uint32_t n)
{
    Grouper *gp = p->gp;
    for (uint32_t i = n; i-- > 0;) {
        graft_node *x = p->e->order[i];
        if (grouper_claimed(gp, x)) {
            grouper_verdict(gp, x, PART_CLAIMED, grouper_owner(gp, x), NULL);
            continue;
        }
        if (p->pre[node_id(x)]) {
            grouper_verdict(gp, x, PART_PARTITIONED, NULL, NULL);
            continue;
        }
        if (is_partitioned_fn(x)) {
            mark_pre(p, x);
            continue;
        }
        try_root(p, x);
    }
}

void engine_partition_verdict(graft_engine *e, uint32_t rule, const graft_node *root,
                              PartVerdict *v)
{
    Grouper gp;
    grouper_init(&gp, e);
    gp.watch = root;
    gp.verdict = v;
    *v = (PartVerdict){PART_UNTRIED, NULL, NULL};
    Pass p;
    pass_init(&p, e, &gp, rule);
    find_groups(&p, engine_order(e));
    pass_free(&p);
    grouper_free(&gp);
}

/* note [no sweep]: a pass that moved every group's region kills
 * nothing, so it needs no dead-node sweep, unless the graph holds
 * garbage from before (a loaded binding nothing uses), which a sweep
 * would kill now and drop from its operands' users lists, as the copying
 * partition's sweep did: the printer reads users counts (a let value used
 * once prints inline).  Garbage is what is neither dead nor reachable
 * (the order's count) nor an unused parameter of @main, which stays. */
static bool has_garbage(const graft_engine *e, uint32_t reachable)
{
    const graft_graph *g = e->g;
    uint32_t kept = reachable;
    for (int i = 0; i < graph_nparams(g); i++) {
        const graft_node *x = graph_param(g, i);
        kept += node_nusers(x) == 0 && x != graph_output(g);
    }
    return graph_live_count(g) != kept;
}

/* One partition pass of one rule (note [partition semantics]); upto as
 * engine_relabel_changed takes it; *fresh is 1 + the count of live nodes
 * e->order holds in topological order already, or 0 (and so on return);
 * labelled: their labels are current (the first pass: note [first
 * labelling] in engine.c); *garbage as has_garbage says, kept current. */
static void partition_pass(graft_engine *e, Grouper *gp, uint32_t rule, uint32_t *upto,
                           uint32_t *fresh, bool labelled, bool *garbage, bool last)
{
    Pass p;
    pass_init(&p, e, gp, rule);
    uint32_t n = *fresh ? *fresh - 1 : engine_order(e);
    *fresh = 0;
    if (!labelled)
        engine_relabel_changed(e, n, upto);
    find_groups(&p, n);
    apply_groups(&p);
    e->stats.rules[rule].applied += p.ngroups;
    e->stats.groups += p.ngroups;
    if (p.ngroups && (p.copied || *garbage)) { /* note [no sweep] */
        if (last) /* no next pass to order the nodes for */
            graph_remove_dead(e->g);
        else
            *fresh = engine_remove_dead_order(e) + 1;
        *garbage = false;
    }
    pass_free(&p);
}

void engine_partition(graft_engine *e)
{
    uint32_t *order = xmalloc((e->rs->nrules + 1) * sizeof *order);
    uint32_t n = engine_rules_best_first(e, GRAFT_ACTION_PARTITION, order);
    uint32_t upto = 0;
    uint32_t fresh = 0;
    bool garbage = false;
    if (n) { /* every node is labelled afresh for the first pass */
        uint32_t live = engine_label_order(e, true, NULL, NULL, &upto);
        fresh = live + 1;
        garbage = has_garbage(e, live);
    }
    Grouper gp;
    grouper_init(&gp, e);
    for (uint32_t k = 0; k < n; k++)
        partition_pass(e, &gp, order[k], &upto, &fresh, k == 0, &garbage, k + 1 == n);
    grouper_free(&gp);
    free(order);
}
