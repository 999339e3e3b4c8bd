/* rewrite_build.c - building a rewrite's replacement from its action.
 *
 * Action trees nest no deeper than AST_MAX_DEPTH (ast.h), so building
 * recurses.  Attribute values are copied into the graph, so a graph never
 * points into a rule set.
 */
#include "engine_impl.h"
#include "graft_rules.h"

#include <stdlib.h>
#include <string.h>

#include "type_infer.h"
#include "util.h"

/* A bound scalar constant as an attribute value: its value, a float for
 * float dtypes and an int otherwise. */
static const AttrValue *const_value(Graph *g, const Node *n)
{
    const char *dt = node_const_dtype(n);
    bool is_float = !dt || strncmp(dt, "float", 5) == 0 || strncmp(dt, "bfloat", 6) == 0;
    AttrValue *v = graph_new_attr_value(g, is_float ? ATTR_FLOAT : ATTR_INT);
    v->f = node_const_value(n);
    v->i = (int64_t)v->f;
    return v;
}

/* note [computed attributes]: name=EXPR where EXPR computes a number from
 * the bindings (units=shape(w)[0], axis=(rank(x) - 1)) is evaluated as a
 * guard is: an int when the value is integral, else a float.  When the
 * bindings cannot give the value (no type known), the rewrite does not
 * happen (rewrite_computable), as when a guard is false. */
static const AttrValue *computed_value(Graph *g, const PatExpr *x, const Binding *b)
{
    GuardVal v = guard_value(x, b);
    if (v.kind != GV_NUM)
        return NULL;
    bool integral = v.f == (double)(int64_t)v.f;
    AttrValue *a = graph_new_attr_value(g, integral ? ATTR_INT : ATTR_FLOAT);
    a->f = v.f;
    a->i = (int64_t)v.f;
    return a;
}

/* The value of name=EXPR in a new op call, or NULL when the expression has
 * none (an attribute absent without default: then left out). */
static const AttrValue *attr_value(Graph *g, const PatExpr *x, const Binding *b)
{
    switch (x->kind) {
    case EXPR_SLOT: {
        const Binding *s = &b[x->slot];
        if (s->attr)
            return graph_copy_attr_value(g, s->attr);
        if (s->node && node_kind(s->node) == NODE_CONST && node_const_is_scalar(s->node))
            return const_value(g, s->node);
        return NULL;
    }
    case EXPR_ATTR: {
        const Node *n = b[x->slot].node;
        const AttrValue *v = n ? node_find_attr(n, x->s) : NULL;
        v = v ? v : x->attr;
        return v ? graph_copy_attr_value(g, v) : NULL;
    }
    case EXPR_ARITH: case EXPR_GETITEM: case EXPR_RANK: case EXPR_USERS: case EXPR_VALUE:
        return computed_value(g, x, b);
    default:
        return x->attr ? graph_copy_attr_value(g, x->attr) : NULL;
    }
}

/* Sets name=value in attrs (replacing an earlier value of that name). */
static void put_attr(Attr *attrs, int *n, const char *name, const AttrValue *v)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(attrs[i].name, name) == 0) {
            attrs[i].value = v;
            return;
        }
    attrs[*n].name = name;
    attrs[*n].value = v;
    (*n)++;
}

/* The attributes of a new op call: copied ones (**c) and those written,
 * then as TVM prints them (note [created attributes] in pattern.h). */
static Attr *call_attrs(Graph *g, const PatExpr *x, const Binding *b, int *n)
{
    int cap = 0;
    for (int i = 0; i < x->nattrs; i++)
        cap += x->attrs[i].src == ASRC_COPY && b[x->attrs[i].slot].node
                   ? node_nattrs(b[x->attrs[i].slot].node) : 1;
    Attr *attrs = arena_array(graph_arena(g), (size_t)cap + 1, sizeof *attrs);
    *n = 0;
    for (int i = 0; i < x->nattrs; i++) {
        const PatActAttr *a = &x->attrs[i];
        if (a->src == ASRC_COPY) {
            const Node *from = b[a->slot].node;
            for (int k = 0; from && k < node_nattrs(from); k++)
                put_attr(attrs, n, node_attr(from, k)->name, node_attr(from, k)->value);
            continue;
        }
        const AttrValue *v = attr_value(g, a->value, b);
        if (v)
            put_attr(attrs, n, graph_intern(g, a->name), v);
    }
    *n = pattern_attrs_canonical(attrs, *n, x->decls, x->ndecls);
    return attrs;
}

static Node *build(Graph *g, const PatExpr *x, const Binding *b);

/* An operand that is a bound attribute value (note [attribute operands]
 * in graft_rules.h). */
static bool attr_operand(const PatExpr *x)
{
    return x->kind == EXPR_SLOT && x->i == 1;
}

/* The operands of x: the others first, then constants made of bound
 * attribute values, which take their dtype from the others. */
static Node **build_kids(Graph *g, const PatExpr *x, const Binding *b)
{
    Node **kids = xcalloc((size_t)x->nkids + 1, sizeof *kids);
    for (int i = 0; i < x->nkids; i++)
        if (!attr_operand(x->kids[i]))
            kids[i] = build(g, x->kids[i], b);
    for (int i = 0; i < x->nkids; i++)
        if (attr_operand(x->kids[i]))
            kids[i] = graft_attr_operand(g, b[x->kids[i]->slot].attr, kids, x->nkids, i);
    return kids;
}

/* The node an action expression stands for: a bound node, or a new one. */
static Node *build(Graph *g, const PatExpr *x, const Binding *b)
{
    Node *n, **kids;
    int nattrs;
    switch (x->kind) {
    case EXPR_SLOT:
        return b[x->slot].node;
    case EXPR_NUM:
        return graph_add_const(g, x->text, x->f, x->dtype);
    case EXPR_CALL: {
        kids = build_kids(g, x, b);
        Attr *attrs = call_attrs(g, x, b, &nattrs);
        n = graph_add_call(g, x->s, kids, x->nkids, attrs, nattrs);
        break;
    }
    case EXPR_TUPLE:
        kids = build_kids(g, x, b);
        n = graph_add_tuple(g, kids, x->nkids);
        break;
    default: /* EXPR_GETITEM */
        kids = build_kids(g, x, b);
        n = graph_add_getitem(g, kids[0], (int)x->i);
        break;
    }
    free(kids);
    return n;
}

static bool is_computed(const PatExpr *v)
{
    return v->kind == EXPR_ARITH || v->kind == EXPR_GETITEM || v->kind == EXPR_RANK ||
           v->kind == EXPR_USERS || v->kind == EXPR_VALUE;
}

bool rewrite_computable(const PatExpr *x, const Binding *b)
{
    for (int i = 0; i < x->nattrs; i++)
        if (x->attrs[i].src == ASRC_EXPR && is_computed(x->attrs[i].value) &&
            guard_value(x->attrs[i].value, b).kind != GV_NUM)
            return false;
    for (int i = 0; i < x->nkids; i++)
        if (!rewrite_computable(x->kids[i], b))
            return false;
    return true;
}

/* Labels the nodes an action made (ids from first on: made operands
 * first, so id order is bottom-up). */
static void adopt_new(Engine *e, uint32_t first)
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
Node *rewrite_build(Engine *e, const RuleDesc *r, const Binding *b, Node *root)
{
    uint32_t first = graph_node_count(e->g);
    Node *by = r->build_fn ? r->build_fn(e->g, b, root) : build(e->g, r->action, b);
    type_infer_edit(e->g, first);
    if (node_id(by) >= first && !node_type(by) && node_type(root))
        graph_set_type(e->g, by, node_type(root));
    adopt_new(e, first);
    return by;
}
