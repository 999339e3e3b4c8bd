/* emit_c_rt.c - what compiled guards and actions call (graft_rules.h).
 *
 * Each mirrors one case of the interpreter: guard values of
 * match_guard.c, attribute values of rewrite_build_attr.c.  The differential
 * tests (tests/emit/) hold the two to byte-identical results.
 */
#include "graft_rules.h"

#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "pattern.h"
#include "ruleset.h"
#include "util.h"

/* A bound constant's number (note [one-element constants] in graph.h). */
static bool const_number(const graft_node *n, double *value)
{
    return n && node_const_number(n, value);
}

graft_guard_val graft_gv_slot(const graft_binding *b)
{
    if (b->attr)
        return pattern_guard_of_attr(b->attr);
    double v;
    return const_number(b->node, &v) ? graft_gv_num(v) : graft_gv_unknown();
}

graft_guard_val graft_gv_users(const graft_binding *b)
{
    return b->node ? graft_gv_num(node_nusers(b->node)) : graft_gv_unknown();
}

graft_guard_val graft_gv_rank(const graft_binding *b)
{
    int r = b->node ? pattern_node_rank(b->node) : -1;
    return r < 0 ? graft_gv_unknown() : graft_gv_num(r);
}

graft_guard_val graft_gv_dtype(const graft_binding *b)
{
    const char *dt = b->node ? pattern_node_dtype(b->node) : NULL;
    return dt ? graft_gv_str(dt) : graft_gv_unknown();
}

graft_guard_val graft_gv_value(const graft_binding *b)
{
    double v;
    return const_number(b->node, &v) ? graft_gv_num(v) : graft_gv_unknown();
}

graft_guard_val graft_gv_value_at(const graft_binding *b, int64_t i)
{
    double v;
    return b->node && node_const_element(b->node, i, &v) ? graft_gv_num(v) : graft_gv_unknown();
}

graft_guard_val graft_gv_shape(const graft_binding *b)
{
    const graft_type *t = b->node ? node_type(b->node) : NULL;
    if (!t || t->kind != TYPE_TENSOR)
        return graft_gv_unknown();
    return (graft_guard_val){.kind = GRAFT_GV_DIMS, .type = t};
}

graft_guard_val graft_gv_attr(const graft_binding *b, const char *name,
                              const graft_attr_value *dflt)
{
    if (!b->node)
        return graft_gv_unknown();
    const graft_attr_value *v = node_find_attr(b->node, name);
    return pattern_guard_of_attr(v ? v : dflt);
}

graft_guard_val graft_gv_index(graft_guard_val base, int64_t i)
{
    if (base.kind == GRAFT_GV_DIMS && i < base.type->rank) /* note [unknown dims] */
        return pattern_guard_of_dim(base.type->dims[i]);
    if (base.kind == GRAFT_GV_ATTR && base.attr->kind == GRAFT_ATTR_LIST && i < base.attr->nitems)
        return pattern_guard_of_attr(base.attr->items[i]);
    return graft_gv_unknown();
}

graft_guard_val graft_gv_neg(graft_guard_val x)
{
    return x.kind == GRAFT_GV_NUM ? graft_gv_num(-x.f) : graft_gv_unknown();
}

graft_guard_val graft_gv_arith(int op, graft_guard_val x, graft_guard_val y)
{
    if (x.kind != GRAFT_GV_NUM || y.kind != GRAFT_GV_NUM)
        return graft_gv_unknown();
    switch (op) {
    case '+': return graft_gv_num(x.f + y.f);
    case '-': return graft_gv_num(x.f - y.f);
    case '*': return graft_gv_num(x.f * y.f);
    default: return y.f == 0 ? graft_gv_unknown() : graft_gv_num(x.f / y.f);
    }
}

/* note [unknown dims]: a dim a type leaves unknown ("?", an ONNX dim
 * given by no number nor name, a Relay Any) is no number: shape(x)[i]
 * of it is unknown, so no comparison of it holds, == and != alike (the
 * rule cannot know which is true; a guard that wants "not 3" of a dim
 * that may be 3 must not fire).  A whole shape with an unknown dim is
 * unequal to a shape or list it differs from in rank or in a known dim,
 * and neither equal nor unequal to one it agrees with on every known
 * dim.  A dim named by a symbol (ONNX's dim_param N: note [symbolic dims]
 * in src/ir/dim_symbol.c) is one size wherever it is: shape(a)[0] is
 * GRAFT_GV_SYM, and shape(a)[0] == shape(b)[0] holds (as <= and >= do)
 * when both are N, and nothing else holds of it (N against M, 3 or "?",
 * != included); shape(a) == shape(b) holds of (N, 16) and (N, 16), and of
 * (N, 16) and (M, 16) neither == nor !=.  graft
 * verify and graft prove build instances of known dims, so they never
 * meet one.  The interpreter compares through graft_gv_cmp too, and
 * reads shape(x)[i] as graft_gv_index does (match_guard.c). */

/* Whether shape dims and an attribute value (a list, or None) have the
 * same text: a list of as many numbers, equal one by one (any other item
 * would bring quotes, brackets or "None"): 1 when they do, 0 when they
 * differ where both are known, -1 when they differ only where a dim is
 * unknown. */
static int dims_are_list(const graft_type *t, const graft_attr_value *v)
{
    if (v->kind != GRAFT_ATTR_LIST || v->nitems != t->rank)
        return 0;
    int same = 1;
    for (int i = 0; i < t->rank; i++) {
        const graft_attr_value *item = v->items[i];
        if (item->kind != GRAFT_ATTR_INT && item->kind != GRAFT_ATTR_BOOL &&
            item->kind != GRAFT_ATTR_FLOAT)
            return 0;
        if (t->dims[i] < 0)
            same = -1;
        else if (!graft_attr_is_num(item, (double)t->dims[i]))
            return 0;
    }
    return same;
}

/* Whether two shapes are the same dims: 1, 0 or -1 as dims_are_list. */
static int dims_same(const graft_type *x, const graft_type *y)
{
    if (x->rank != y->rank)
        return 0;
    int same = 1;
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i] == y->dims[i] && x->dims[i] != DIM_ANY)
            continue; /* one number, or one symbol */
        else if (x->dims[i] < 0 || y->dims[i] < 0)
            same = -1;
        else
            return 0;
    return same;
}

/* Whether v is a shape with an unknown or symbolic dim. */
static bool dims_unknown(graft_guard_val v)
{
    for (int i = 0; v.kind == GRAFT_GV_DIMS && i < v.type->rank; i++)
        if (v.type->dims[i] < 0)
            return true;
    return false;
}

/* Whether x and y have the same canonical text, without writing it where
 * the kinds allow: two strings have the same text exactly when they are
 * equal, two shapes (or a shape and a list attribute) when their dims
 * are ("%.17g" is exact; -2 when an unknown dim leaves it open); a number
 * and a string never (only a string's text is quoted).  Else -1. */
static int same_text_fast(graft_guard_val x, graft_guard_val y)
{
    if (x.kind == GRAFT_GV_STR && y.kind == GRAFT_GV_STR)
        return strcmp(x.s, y.s) == 0;
    if ((x.kind == GRAFT_GV_STR && y.kind == GRAFT_GV_NUM) ||
        (x.kind == GRAFT_GV_NUM && y.kind == GRAFT_GV_STR))
        return 0;
    if (x.kind == GRAFT_GV_ATTR && y.kind == GRAFT_GV_DIMS)
        return same_text_fast(y, x);
    if (x.kind != GRAFT_GV_DIMS || (y.kind != GRAFT_GV_DIMS && y.kind != GRAFT_GV_ATTR))
        return -1;
    int same = y.kind == GRAFT_GV_ATTR ? dims_are_list(x.type, y.attr) : dims_same(x.type, y.type);
    return same < 0 ? -2 : same;
}

/* strcmp of x's and y's canonical texts, or -2 when an unknown dim
 * leaves their order open. */
static int compare_text(graft_guard_val x, graft_guard_val y)
{
    int same = same_text_fast(x, y);
    if (same == -2 || (same == -1 && (dims_unknown(x) || dims_unknown(y))))
        return -2; /* note [unknown dims] */
    if (same >= 0)
        return !same;
    StrBuf kx = {0}, ky = {0};
    pattern_guard_key(&x, &kx);
    pattern_guard_key(&y, &ky);
    int c = strcmp(kx.data, ky.data);
    strbuf_free(&kx);
    strbuf_free(&ky);
    return c;
}

bool graft_gv_cmp(graft_cmp_op op, graft_guard_val x, graft_guard_val y)
{
    if (x.kind == GRAFT_GV_UNKNOWN || y.kind == GRAFT_GV_UNKNOWN)
        return false;
    if (x.kind == GRAFT_GV_SYM || y.kind == GRAFT_GV_SYM) /* note [unknown dims] */
        return x.kind == y.kind && x.f == y.f && pattern_cmp_holds(op, 0);
    int c;
    if (x.kind == GRAFT_GV_NUM && y.kind == GRAFT_GV_NUM)
        c = (x.f > y.f) - (x.f < y.f);
    else if (op != GRAFT_CMP_EQ && op != GRAFT_CMP_NE)
        return false;
    else if ((c = compare_text(x, y)) == -2)
        return false;
    return pattern_cmp_holds(op, c);
}

/* ---- compiled attribute tests ---- */

bool graft_attr_is_nums(const graft_attr_value *v, const double *items, int n)
{
    if (v->kind != GRAFT_ATTR_LIST || v->nitems != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!graft_attr_is_num(v->items[i], items[i]))
            return false;
    return true;
}

bool graft_attr_key_is(const graft_attr_value *v, const char *key)
{
    StrBuf sb = {0};
    pattern_attr_key(v, &sb);
    bool same = strcmp(sb.data, key) == 0;
    strbuf_free(&sb);
    return same;
}

/* ---- attributes of new op calls ---- */

/* Room for need pairs in a: its own few first, then an allocation that
 * graft_attrs_free releases (note [fixed names] in src/ir/graph.c says
 * why an action's build should cost no more than the interpreter's). */
static void attrs_reserve(graft_attr_list *a, size_t need)
{
    if (!a->attrs) {
        a->attrs = a->few;
        a->cap = GRAFT_FEW_ATTRS;
    }
    if (need <= a->cap)
        return;
    if (a->attrs == a->few) {
        a->attrs = NULL;
        a->cap = 0;
        a->attrs = xgrow_items(a->attrs, &a->cap, need, sizeof *a->attrs);
        memcpy(a->attrs, a->few, (size_t)a->n * sizeof *a->attrs);
    } else {
        a->attrs = xgrow_items(a->attrs, &a->cap, need, sizeof *a->attrs);
    }
}

void graft_attrs_put(graft_attr_list *a, const char *name, const graft_attr_value *value)
{
    if (!value)
        return;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->attrs[i].name, name) == 0) {
            a->attrs[i].value = value;
            return;
        }
    attrs_reserve(a, (size_t)a->n + 1);
    a->attrs[a->n].name = name;
    a->attrs[a->n].value = value;
    a->n++;
}

void graft_attrs_copy(graft_attr_list *a, const graft_node *from)
{
    for (int k = 0; from && k < node_nattrs(from); k++)
        graft_attrs_put(a, node_attr(from, k)->name, node_attr(from, k)->value);
}

void graft_attrs_canonical(graft_attr_list *a, const graft_attr_decl *decls, int ndecls)
{
    attrs_reserve(a, (size_t)(a->n + ndecls) + 1);
    a->n = pattern_attrs_canonical(a->attrs, a->n, decls, ndecls);
}

void graft_attrs_free(graft_attr_list *a)
{
    if (a->attrs != a->few)
        free(a->attrs);
    a->attrs = NULL;
    a->n = 0;
    a->cap = 0;
}

const graft_attr_value *graft_attr_copy(graft_graph *g, const graft_attr_value *v)
{
    return graph_copy_attr_value(g, v);
}

bool graft_attr_slot_known(const graft_binding *b)
{
    double v;
    return b->attr || !b->node || const_number(b->node, &v);
}

const graft_attr_value *graft_attr_slot(graft_graph *g, const graft_binding *b)
{
    if (b->attr)
        return graft_attr_copy(g, b->attr);
    return b->node ? pattern_const_attr(g, b->node) : NULL;
}

graft_node *graft_attr_operand(graft_graph *g, const graft_attr_value *v, graft_node *const *ops,
                               int nops, int self)
{
    const char *dtype = NULL;
    for (int k = 0; k < nops && !dtype; k++)
        if (k != self && ops[k])
            dtype = pattern_node_dtype(ops[k]);
    double value = v->kind == GRAFT_ATTR_FLOAT ? v->f : (double)v->i;
    StrBuf text = {0};
    if (!dtype || pattern_const_text(value, dtype, &text)) {
        dtype = "float32"; /* no dtype known, or one that cannot hold it */
        text.len = 0;
        pattern_const_text(value, dtype, &text);
    }
    graft_node *n = graph_add_const(g, text.data, value, graph_intern(g, dtype));
    strbuf_free(&text);
    return n;
}

const graft_attr_value *graft_attr_of(graft_graph *g, const graft_binding *b, const char *name,
                               const graft_attr_value *dflt)
{
    const graft_attr_value *v = b->node ? node_find_attr(b->node, name) : NULL;
    v = v ? v : dflt;
    return v ? graft_attr_copy(g, v) : NULL;
}

/* ---- nodes of a replacement ---- */

graft_node *graft_add_const(graft_graph *g, const char *text, double value, const char *dtype)
{
    return graph_add_const(g, text, value, dtype);
}

/* An action's attributes that fit on graft_add_call's stack. */
enum { FEW_CALL_ATTRS = 16 };

graft_node *graft_add_call(graft_graph *g, const char *op, graft_node *const *args, int nargs,
                           const graft_attr *attrs, int nattrs)
{
    /* Every name here is a literal of the compiled rule set or a name of
     * g's (copied from a bound node): fixed, so interned by address (note
     * [fixed names] in src/ir/graph.c). */
    graft_attr few[FEW_CALL_ATTRS];
    graft_attr *named = nattrs <= FEW_CALL_ATTRS ? few : xmalloc((size_t)nattrs * sizeof *named);
    for (int i = 0; i < nattrs; i++)
        named[i] = (graft_attr){graph_intern_fixed(g, attrs[i].name), attrs[i].value};
    const char *name = graph_intern_fixed(g, op);
    graft_node *n = graph_add_call_interned(g, name, args, nargs, named, nattrs);
    if (named != few)
        free(named);
    return n;
}

graft_node *graft_add_tuple(graft_graph *g, graft_node *const *fields, int nfields)
{
    return graph_add_tuple(g, fields, nfields);
}

graft_node *graft_add_getitem(graft_graph *g, graft_node *tuple, int index)
{
    return graph_add_getitem(g, tuple, index);
}
