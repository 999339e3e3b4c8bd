/* rewrite_build_attr.c - the attribute values of the calls an action
 * makes: literals and names copied into the graph once (note [names
 * interned once]), bound values, a bound constant's number (note
 * [constant bytes read once]), computed numbers, lists and shapes (note
 * [computed attributes] in rewrite_build.c). */
#include "engine_impl.h"

#include <string.h>

/* Whether x computes a number on b (a dim it reads unknown gives none:
 * note [unknown dims] in emit_c_rt.c). */
bool rewrite_number_known(const graft_expr *x, const graft_binding *b)
{
    return guard_value(x, b).kind == GRAFT_GV_NUM;
}

/* x's type, for shape(x), when it is a tensor type with every dim known. */
const graft_type *rewrite_shape_known(const graft_expr *x, const graft_binding *b)
{
    graft_guard_val v = guard_value(x, b);
    if (v.kind != GRAFT_GV_DIMS)
        return NULL;
    for (int i = 0; i < v.type->rank; i++)
        if (v.type->dims[i] < 0)
            return NULL;
    return v.type;
}

/* A literal item of a list: its value is its own (attr(c, name) carries
 * only its default). */
bool rewrite_is_literal(const graft_expr *x)
{
    return x->attr && x->kind != GRAFT_EXPR_ATTR;
}

/* Whether x reads value(c) of a constant c of a float dtype, alone or in
 * arithmetic: its value is a float even when integral
 * (activation_params=[value(lo), value(hi)] with lo and hi 0f and 6f are
 * floats, as the op's FLOATS attribute wants; scale=(1 / value(s)) with s
 * 1f is a float too). */
static bool float_value(const graft_expr *x, const graft_binding *b)
{
    if (x->kind == GRAFT_EXPR_ARITH)
        return float_value(x->kids[0], b) || (x->nkids > 1 && float_value(x->kids[1], b));
    const char *dt = x->kind == GRAFT_EXPR_VALUE && b[x->slot].node
                         ? pattern_node_dtype(b[x->slot].node)
                         : NULL;
    return dt && (strncmp(dt, "float", 5) == 0 || strncmp(dt, "bfloat", 6) == 0);
}

static const graft_attr_value *computed_value(graft_graph *g, const graft_expr *x,
                                              const graft_binding *b)
{
    if (!rewrite_number_known(x, b))
        return NULL;
    graft_guard_val v = guard_value(x, b);
    bool integral = v.f == (double)(int64_t)v.f && !float_value(x, b);
    graft_attr_value *a = graph_new_attr_value(g, integral ? GRAFT_ATTR_INT : GRAFT_ATTR_FLOAT);
    a->f = v.f;
    a->i = (int64_t)v.f;
    return a;
}

/* A list whose items are computed ([-1, shape(x)[2]]): literals, and
 * numbers that all have a value, or no value. */
static const graft_attr_value *computed_list(graft_engine *e, const graft_expr *x,
                                             const graft_binding *b)
{
    graft_graph *g = e->g;
    const graft_attr_value **items = arena_array(graph_arena(g), (size_t)x->nkids + 1,
                                          sizeof *items);
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *item = x->kids[i];
        if (!rewrite_is_literal(item) && !rewrite_number_known(item, b))
            return NULL;
        if (!(items[i] = rewrite_attr_value(e, item, b)))
            return NULL;
    }
    graft_attr_value *a = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    a->nitems = x->nkids;
    a->items = items;
    return a;
}

/* shape(x) as an attribute value: x's dims as a list of ints. */
static const graft_attr_value *shape_value(graft_graph *g, const graft_expr *x,
                                           const graft_binding *b)
{
    const graft_type *t = rewrite_shape_known(x, b);
    if (!t)
        return NULL;
    graft_attr_value **items = arena_array(graph_arena(g), (size_t)t->rank + 1, sizeof *items);
    for (int i = 0; i < t->rank; i++) {
        items[i] = graph_new_attr_value(g, GRAFT_ATTR_INT);
        items[i]->i = t->dims[i];
        items[i]->f = (double)t->dims[i];
    }
    graft_attr_value *a = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    a->nitems = t->rank;
    a->items = (const graft_attr_value *const *)items;
    return a;
}

/* note [constant bytes read once]: a tensor constant's number (an ONNX
 * initializer of one element, the workload's eps) is its bytes decoded
 * (node_const_number: the dtype found by name, the size checked, the
 * element converted), 340 instructions, and each of the workload's
 * 10,000 groups decoded the one eps again (what a check read holds for
 * its group only: note [constant read once]).  The number is a function
 * of the constant's type and bytes, and a type is never changed once
 * made, so the engine keeps the last tensor constant's type, bytes (up
 * to CONST_BYTES) and answer, and a constant of that type and those
 * bytes, itself or another (a model may hold many initializers of one
 * value), takes the answer.  Out of line: inlined, its registers' saves
 * cost every read of a scalar (Relay's eps) 28 instructions. */
static __attribute__((noinline)) bool tensor_number(graft_engine *e, const graft_node *n,
                                                    double *v)
{
    size_t nbytes;
    const void *bytes = node_const_data(n, &nbytes);
    if (!bytes || nbytes > CONST_BYTES || !node_type(n))
        return node_const_number(n, v); /* not kept */
    if (node_type(n) != e->bytes_type || nbytes != e->bytes_len ||
        memcmp(bytes, e->bytes, nbytes) != 0) {
        e->bytes_has_number = node_const_number(n, &e->bytes_number);
        e->bytes_type = node_type(n);
        e->bytes_len = nbytes;
        memcpy(e->bytes, bytes, nbytes);
    }
    *v = e->bytes_number;
    return e->bytes_has_number;
}

/* n's number (node_const_number): the one the group's check read when
 * n is that constant (note [constant read once] in rewrite_build.c). */
bool rewrite_const_number(graft_engine *e, const graft_node *n, double *v)
{
    if (n == e->read_const) {
        *v = e->read_number;
        return true;
    }
    bool tensor = node_kind(n) == NODE_CONST && !node_const_is_scalar(n);
    if (!(tensor ? tensor_number(e, n, v) : node_const_number(n, v)))
        return false; /* note [constant bytes read once] */
    e->read_const = n;
    e->read_number = *v;
    return true;
}

/* The graph's copy of rule-set object key (a name, a literal value, a
 * declaration array) made before, or NULL (note [names interned once]). */
static const void *copy_found(graft_engine *e, const void *key)
{
    int64_t *slot = keymap_get(&e->interned, (uint64_t)(uintptr_t)key);
    return slot ? (const void *)(intptr_t)*slot : NULL;
}

/* Remember copy as the graph's copy of key; returns copy. */
static const void *copy_kept(graft_engine *e, const void *key, const void *copy)
{
    *keymap_put(&e->interned, (uint64_t)(uintptr_t)key, 0) = (int64_t)(intptr_t)copy;
    return copy;
}

/* The graph's copy of literal attribute value v of the rule set, made
 * once (note [names interned once]). */
const graft_attr_value *rewrite_literal_once(graft_engine *e, const graft_attr_value *v)
{
    const graft_attr_value *c = copy_found(e, v);
    return c ? c : copy_kept(e, v, graph_copy_attr_value(e->g, v));
}

/* The attribute value of number constant n, whose number is number:
 * the last one made when of the same dtype and number (note [constant
 * read once]). */
static const graft_attr_value *number_value(graft_engine *e, const graft_node *n, double number)
{
    const char *dtype = node_const_dtype(n);
    if (e->made_number && dtype == e->made_dtype &&
        memcmp(&number, &e->made_number->f, sizeof number) == 0)
        return e->made_number;
    e->made_number = pattern_number_attr(e->g, n, number);
    e->made_dtype = dtype;
    return e->made_number;
}

/* The value of name=EXPR in a new op call, or NULL when the expression has
 * none (an attribute absent without default: then left out). */
const graft_attr_value *rewrite_attr_value(graft_engine *e, const graft_expr *x,
                                   const graft_binding *b)
{
    graft_graph *g = e->g;
    double v;
    switch (x->kind) {
    case GRAFT_EXPR_SLOT: {
        const graft_binding *s = &b[x->slot];
        if (s->attr)
            return graph_copy_attr_value(g, s->attr);
        return s->node && rewrite_const_number(e, s->node, &v) ? number_value(e, s->node, v) : NULL;
    }
    case GRAFT_EXPR_ATTR: {
        const graft_node *n = b[x->slot].node;
        const graft_attr_value *v = n ? node_find_attr(n, x->s) : NULL;
        v = v ? v : x->attr;
        return v ? graph_copy_attr_value(g, v) : NULL;
    }
    case GRAFT_EXPR_ARITH:
    case GRAFT_EXPR_GETITEM:
    case GRAFT_EXPR_RANK:
    case GRAFT_EXPR_USERS:
    case GRAFT_EXPR_VALUE:
        return computed_value(g, x, b);
    case GRAFT_EXPR_LIST:
        return x->attr ? rewrite_literal_once(e, x->attr) : computed_list(e, x, b);
    case GRAFT_EXPR_SHAPE:
        return shape_value(g, x, b);
    default:
        return x->attr ? rewrite_literal_once(e, x->attr) : NULL;
    }
}

/* note [names interned once]: an action's op and attribute names live in
 * the rule set, and every node built interned them in the graph again (a
 * hash of the name each time: the graph's table of recent canonical
 * pointers knows only the graph's own copies).  The engine remembers the
 * graph's copy of each rule-set name it has interned, and so of each
 * literal attribute value it has copied (axis=-1: a copy made and 88
 * bytes kept per rewrite); nodes share it, as attribute values are never
 * changed once made (graph_set_attrs copies the pointers). */
const char *rewrite_intern_once(graft_engine *e, const char *s)
{
    const char *c = copy_found(e, s);
    return c ? c : copy_kept(e, s, graph_intern(e->g, s));
}

/* x's attribute declarations with the graph's copies of their names,
 * made once per action node (note [names interned once]; the map's keys
 * are rule-set addresses, names and declaration arrays alike). */
const graft_attr_decl *rewrite_interned_decls(graft_engine *e, const graft_expr *x)
{
    const graft_attr_decl *found = copy_found(e, x->decls);
    if (found)
        return found;
    graft_attr_decl *d = arena_array(graph_arena(e->g), (size_t)x->ndecls, sizeof *d);
    for (int i = 0; i < x->ndecls; i++) {
        d[i] = x->decls[i];
        d[i].name = rewrite_intern_once(e, x->decls[i].name);
    }
    return copy_kept(e, x->decls, d);
}
