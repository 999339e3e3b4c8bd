/* pattern.c - node tests, canonical attribute text and guard values for
 * lowered patterns. */
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dim_symbol.h"
#include "numtext.h"
#include "util.h"
#include "walk.h"

/* Numbers print as %.17g would, so 1, 1f and 1.0 give the same text.
 * Whole numbers below 1e15 (where %.17g prints plain digits) take a fast
 * path: labelling computes this text for attributes of every node. */
void pattern_number_key(double f, StrBuf *out)
{
    if (f == 0)
        f = 0; /* -0 and 0 are the same attribute value */
    if (f > -1e15 && f < 1e15 && f == (double)(int64_t)f) {
        char buf[24], *p = buf + sizeof buf;
        int64_t v = (int64_t)f;
        uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
        do
            *--p = (char)('0' + u % 10);
        while (u /= 10);
        if (v < 0)
            *--p = '-';
        strbuf_append(out, p, (size_t)(buf + sizeof buf - p));
        return;
    }
    strbuf_printf(out, "%.17g", f);
}

void pattern_dims_key(const graft_type *t, StrBuf *out)
{
    pattern_dims_text(NULL, t, out);
}

void pattern_dims_text(const graft_graph *g, const graft_type *t, StrBuf *out)
{
    strbuf_putc(out, '[');
    for (int i = 0; i < t->rank; i++) {
        if (i)
            strbuf_puts(out, ", ");
        if (t->dims[i] < DIM_ANY) /* a symbol (note [symbolic dims]) */
            pattern_dim_symbol_text(g, t->dims[i], out);
        else
            pattern_number_key((double)t->dims[i], out);
    }
    strbuf_putc(out, ']');
}

void pattern_dim_symbol_text(const graft_graph *g, int64_t dim, StrBuf *out)
{
    const char *name = g ? graph_dim_name(g, dim) : NULL;
    strbuf_puts(out, name ? name : "?");
}

void pattern_attr_key(const graft_attr_value *v, StrBuf *out)
{
    switch (v->kind) {
    case GRAFT_ATTR_INT:
    case GRAFT_ATTR_BOOL:
        pattern_number_key((double)v->i, out);
        return;
    case GRAFT_ATTR_FLOAT:
        pattern_number_key(v->f, out);
        return;
    case GRAFT_ATTR_STRING:
        strbuf_printf(out, "\"%s\"", v->s ? v->s : "");
        return;
    case GRAFT_ATTR_NULL:
        strbuf_puts(out, "None");
        return;
    case GRAFT_ATTR_OPAQUE:
        strbuf_puts(out, v->spelling ? v->spelling : "");
        return;
    case GRAFT_ATTR_TENSOR:
    case GRAFT_ATTR_GRAPH: /* equal keys for equal bytes, as attr_value_equal */
        strbuf_printf(out, "<%s %zu bytes %016llx>",
                      v->kind == GRAFT_ATTR_TENSOR ? "tensor" : "graph", v->nbytes,
                      (unsigned long long)hash_bytes(v->data, v->nbytes, 0));
        return;
    case GRAFT_ATTR_LIST:
        strbuf_putc(out, '[');
        for (int i = 0; i < v->nitems; i++) {
            if (i)
                strbuf_puts(out, ", ");
            pattern_attr_key(v->items[i], out);
        }
        strbuf_putc(out, ']');
        return;
    }
}

graft_guard_val pattern_guard_of_attr(const graft_attr_value *v)
{
    if (!v)
        return (graft_guard_val){.kind = GRAFT_GV_UNKNOWN};
    switch (v->kind) {
    case GRAFT_ATTR_INT:
    case GRAFT_ATTR_BOOL:
        return (graft_guard_val){.kind = GRAFT_GV_NUM, .f = (double)v->i};
    case GRAFT_ATTR_FLOAT:
        return (graft_guard_val){.kind = GRAFT_GV_NUM, .f = v->f};
    case GRAFT_ATTR_STRING:
        return (graft_guard_val){.kind = GRAFT_GV_STR, .s = v->s};
    default:
        return (graft_guard_val){.kind = GRAFT_GV_ATTR, .attr = v};
    }
}

graft_guard_val pattern_guard_of_dim(int64_t dim)
{
    if (dim >= 0)
        return (graft_guard_val){.kind = GRAFT_GV_NUM, .f = (double)dim};
    if (dim == DIM_ANY)
        return (graft_guard_val){.kind = GRAFT_GV_UNKNOWN};
    return (graft_guard_val){.kind = GRAFT_GV_SYM, .f = (double)dim};
}

void pattern_guard_key(const graft_guard_val *v, StrBuf *out)
{
    switch (v->kind) {
    case GRAFT_GV_NUM:
        pattern_number_key(v->f, out);
        return;
    case GRAFT_GV_STR:
        strbuf_printf(out, "\"%s\"", v->s);
        return;
    case GRAFT_GV_ATTR:
        pattern_attr_key(v->attr, out);
        return;
    case GRAFT_GV_DIMS:
        pattern_dims_key(v->type, out);
        return;
    case GRAFT_GV_LIST:
        strbuf_puts(out, v->s);
        return;
    case GRAFT_GV_UNKNOWN:
    case GRAFT_GV_SYM: /* (its name is its graph's: guard_value_text) */
        strbuf_puts(out, "?");
        return;
    }
}

bool pattern_cmp_holds(graft_cmp_op op, int c)
{
    switch (op) {
    case GRAFT_CMP_EQ: return c == 0;
    case GRAFT_CMP_NE: return c != 0;
    case GRAFT_CMP_LT: return c < 0;
    case GRAFT_CMP_LE: return c <= 0;
    case GRAFT_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* An integer constant: whole, and within [lo, hi]. */
static const char *int_text(double value, double lo, double hi, const char *suffix,
                            StrBuf *out)
{
    if (!(value >= lo && value <= hi) || value != (double)(int64_t)value)
        return "the value is not a whole number within the dtype's range";
    strbuf_printf(out, "%lld%s", (long long)value, suffix);
    return NULL;
}

const char *pattern_const_text(double value, const char *dtype, StrBuf *out)
{
    static const char *const floats[][2] = {
        {"float32", "f"}, {"float64", "f64"}, {"float16", "f16"},
    };
    for (size_t i = 0; i < ARRAY_LEN(floats); i++)
        if (strcmp(dtype, floats[i][0]) == 0) {
            char text[NUMTEXT_G_MAX]; /* "%g" without printf: note [six digits] */
            size_t len = numtext_g(value == 0 ? 0.0 : value, text);
            strbuf_append(out, text, len);
            strbuf_puts(out, floats[i][1]);
            return NULL;
        }
    if (strcmp(dtype, "int32") == 0)
        return int_text(value, -2147483648.0, 2147483647.0, "", out);
    if (strcmp(dtype, "int64") == 0) /* 2^63 itself is out of range */
        return int_text(value, -9223372036854775808.0, 9223372036854774784.0, "i64", out);
    if (strcmp(dtype, "bool") == 0) {
        if (value != 0 && value != 1)
            return "a bool constant is 0 or 1";
        strbuf_puts(out, value != 0 ? "True" : "False");
        return NULL;
    }
    return "a new constant must be float32, float64, float16, int64, int32 or bool";
}

const char *pattern_node_dtype(const graft_node *n)
{
    const graft_type *t = node_type(n);
    if (t && t->kind == TYPE_TENSOR)
        return t->dtype;
    if (node_kind(n) == NODE_CONST && node_const_is_scalar(n))
        return node_const_dtype(n);
    return NULL;
}

int pattern_node_rank(const graft_node *n)
{
    const graft_type *t = node_type(n);
    if (t && t->kind == TYPE_TENSOR)
        return t->rank;
    if (node_kind(n) == NODE_CONST && node_const_is_scalar(n))
        return 0;
    return -1;
}

const graft_attr_value *pattern_const_attr(graft_graph *g, const graft_node *n)
{
    double value;
    return node_const_number(n, &value) ? pattern_number_attr(g, n, value) : NULL;
}

const graft_attr_value *pattern_number_attr(graft_graph *g, const graft_node *n, double value)
{
    const char *dt = node_const_dtype(n);
    bool is_float = !dt || strncmp(dt, "float", 5) == 0 || strncmp(dt, "bfloat", 6) == 0;
    graft_attr_value *v = graph_new_attr_value(g, is_float ? GRAFT_ATTR_FLOAT : GRAFT_ATTR_INT);
    v->f = value;
    v->i = (int64_t)value;
    return v;
}

static bool shape_holds(const graft_pred *p, const graft_node *n)
{
    const graft_type *t = node_type(n);
    if (!t || t->kind != TYPE_TENSOR || t->rank != p->rank)
        return false;
    if (p->s && (!t->dtype || strcmp(t->dtype, p->s) != 0))
        return false;
    for (int i = 0; i < p->rank; i++)
        if (p->dims[i] >= 0 && t->dims[i] != p->dims[i])
            return false;
    return true;
}

/* An attribute test: the node's value (or, when it omits the attribute,
 * the op's default) has the wanted canonical text.  A function attribute
 * test (op NULL) reads the attributes of the called function. */
static bool attr_holds(const graft_pred *p, const graft_node *n)
{
    const graft_node *holder = n;
    if (!p->op) {
        holder = node_callee(n);
        if (!holder || node_kind(holder) != NODE_FUNC)
            return false;
    } else if (node_kind(n) != NODE_CALL || !node_op(n) || strcmp(node_op(n), p->op) != 0)
        return false;
    const graft_attr_value *v = node_find_attr(holder, p->s);
    if (!v)
        return p->dflt && strcmp(p->dflt, p->key) == 0;
    StrBuf sb = {0};
    pattern_attr_key(v, &sb);
    bool ok = strcmp(sb.data, p->key) == 0;
    strbuf_free(&sb);
    return ok;
}

bool pattern_pred_holds(const graft_pred *p, const graft_node *n)
{
    const char *dt;
    switch (p->kind) {
    case GRAFT_PRED_IS_CONST:
        return node_kind(n) == NODE_CONST;
    case GRAFT_PRED_IS_VAR:
        return node_kind(n) == NODE_VAR;
    case GRAFT_PRED_VAR_NAME:
        return node_kind(n) == NODE_VAR && strcmp(node_name(n), p->s) == 0;
    case GRAFT_PRED_OP_VALUE:
        return node_kind(n) == NODE_OPREF && strcmp(node_name(n), p->s) == 0;
    case GRAFT_PRED_DTYPE:
        dt = pattern_node_dtype(n);
        return dt && strcmp(dt, p->s) == 0;
    case GRAFT_PRED_RANK:
        return pattern_node_rank(n) == p->i;
    case GRAFT_PRED_SHAPE:
        return shape_holds(p, n);
    case GRAFT_PRED_VALUE: {
        double v;
        return node_const_number(n, &v) && v == p->f;
    }
    case GRAFT_PRED_ATTR:
        return attr_holds(p, n);
    }
    return false;
}

/* Whether two attribute names are the same: by pointer when both are
 * interned in one table (pattern_attrs_canonical_interned); else by
 * their bytes, the first read inline, since most pairs a canonical order
 * tries differ there (a compiled action's "axis" against "epsilon",
 * "center", "scale"). */
static inline bool same_name(const char *a, const char *b, bool interned)
{
    if (interned || a == b)
        return a == b;
    return a[0] == b[0] && strcmp(a, b) == 0;
}

/* The attribute name in attrs[0..n), or -1. */
static int attr_index(const graft_attr *attrs, int n, const char *name, bool interned)
{
    for (int i = 0; i < n; i++)
        if (same_name(attrs[i].name, name, interned))
            return i;
    return -1;
}

/* The declaration of attribute name in decls, or -1. */
static int decl_index(const graft_attr_decl *decls, int ndecls, const char *name, bool interned)
{
    for (int i = 0; i < ndecls; i++)
        if (same_name(decls[i].name, name, interned))
            return i;
    return -1;
}

/* The value an omitted attribute without default holds: TVM's attribute
 * struct leaves the field default-constructed, NullValue for the
 * ObjectRef fields (Array, ObjectRef) such attributes are, and its printer
 * writes it as None (transpose(%x, axes=None)). */
static const graft_attr_value absent_value = {.kind = GRAFT_ATTR_NULL};

/* Attributes a call mostly has: canonical puts them on the stack. */
enum { FEW_ATTRS = 16 };

static int canonical(graft_attr *attrs, int n, const graft_attr_decl *decls, int ndecls,
                     bool interned)
{
    if (ndecls == 0)
        return n;
    graft_attr few[FEW_ATTRS];
    graft_attr *out = n + ndecls <= FEW_ATTRS ? few : xmalloc((size_t)(n + ndecls) * sizeof *out);
    int m = 0;
    for (int d = 0; d < ndecls; d++) {
        int i = attr_index(attrs, n, decls[d].name, interned);
        if (i < 0 && !decls[d].dflt)
            out[m++] = (graft_attr){.name = decls[d].name, .value = &absent_value};
        else if (i >= 0 && !(decls[d].dflt && attr_value_equal(attrs[i].value, decls[d].dflt)))
            out[m++] = attrs[i];
    }
    for (int i = 0; i < n; i++)
        if (decl_index(decls, ndecls, attrs[i].name, interned) < 0)
            out[m++] = attrs[i];
    memcpy(attrs, out, (size_t)m * sizeof *out);
    if (out != few)
        free(out);
    return m;
}

int pattern_attrs_canonical(graft_attr *attrs, int n, const graft_attr_decl *decls, int ndecls)
{
    return canonical(attrs, n, decls, ndecls, false);
}

int pattern_attrs_canonical_interned(graft_attr *attrs, int n, const graft_attr_decl *decls,
                                     int ndecls)
{
    return canonical(attrs, n, decls, ndecls, true);
}

int pattern_noperands(const graft_node *n)
{
    switch (node_kind(n)) {
    case NODE_FUNC: return node_nparams(n) + 1;
    case NODE_IF: case NODE_LET: return node_nargs(n);
    case NODE_GLOBAL: case NODE_OPREF: case NODE_MATCH: return 0;
    default: return node_nargs(n);
    }
}

graft_node *pattern_operand(const graft_node *n, int i)
{
    if (node_kind(n) == NODE_FUNC)
        return i == 0 ? node_body(n) : node_param(n, i - 1);
    return node_arg(n, i);
}

bool pattern_same_callee(const graft_node *x, const graft_node *y)
{
    if (node_kind(x) != NODE_CALL || node_kind(y) != NODE_CALL)
        return false;
    if (node_op(x) || node_op(y))
        return node_op(x) && node_op(y) && strcmp(node_op(x), node_op(y)) == 0;
    return node_callee(x) == node_callee(y);
}

bool pattern_is_callee_slot(const graft_pat *root, int slot)
{
    /* Alternatives and macros share sub-patterns, so a pattern is a DAG
     * with exponentially many paths: each node is looked at once. */
    WALK(const graft_pat *) w = {0};
    KeyMap seen = {0};
    bool found = false;
    walk_push(&w, root);
    while (w.depth && !found) {
        const graft_pat *p = walk_pop(&w);
        int64_t *visited = keymap_put(&seen, keymap_ptr_key(p), 0);
        if (*visited)
            continue;
        *visited = 1;
        found = p->callee == slot + 1;
        walk_reserve(&w, (size_t)p->nkids);
        for (int k = 0; k < p->nkids; k++)
            walk_push_reserved(&w, p->kids[k]);
    }
    keymap_free(&seen);
    walk_free(&w);
    return found;
}
