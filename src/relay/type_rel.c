/* type_rel.c - helpers the type relations share: reading attributes with
 * TVM's defaults, shapes, axes, and reporting contradictions. */
#include "type_rel.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const graft_type *rel_fail(RelCtx *c, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->why->len = 0;
    strbuf_printf(c->why, "%s: %s", c->op, msg);
    return NULL;
}

const graft_type *rel_tensor(RelCtx *c, int i)
{
    const graft_type *t = c->in[i];
    if (t->kind != TYPE_TENSOR)
        return rel_fail(c, "operand %d must be a tensor (got %s)", i + 1, t->text);
    return t;
}

bool shape_push(RelCtx *c, Shape *s, int64_t d)
{
    if (s->rank == REL_MAX_RANK) {
        rel_fail(c, "rank above %d", REL_MAX_RANK);
        return false;
    }
    s->dims[s->rank++] = d;
    return true;
}

bool rel_shape(RelCtx *c, const graft_type *t, Shape *s)
{
    if (t->rank > REL_MAX_RANK) {
        rel_fail(c, "rank %d above %d", t->rank, REL_MAX_RANK);
        return false;
    }
    s->rank = t->rank;
    memcpy(s->dims, t->dims, (size_t)t->rank * sizeof(int64_t));
    return true;
}

const graft_type *rel_make(RelCtx *c, const char *dtype, const Shape *s)
{
    return graph_type_tensor(c->g, dtype, s->dims, s->rank);
}

const graft_attr_value *rel_attr(const RelCtx *c, const char *name)
{
    return node_find_attr(c->call, name);
}

bool rel_has(const RelCtx *c, const char *name)
{
    return node_given_attr(c->call, name) != NULL;
}

int64_t rel_int(const RelCtx *c, const char *name, int64_t dflt)
{
    const graft_attr_value *v = rel_attr(c, name);
    if (v && v->kind == GRAFT_ATTR_LIST && v->nitems == 1)
        v = v->items[0];
    if (!v || (v->kind != GRAFT_ATTR_INT && v->kind != GRAFT_ATTR_BOOL))
        return dflt;
    return v->i;
}

double rel_float(const RelCtx *c, const char *name, double dflt)
{
    const graft_attr_value *v = rel_attr(c, name);
    if (v && v->kind == GRAFT_ATTR_FLOAT)
        return v->f;
    if (v && v->kind == GRAFT_ATTR_INT)
        return (double)v->i;
    return dflt;
}

bool rel_bool(const RelCtx *c, const char *name, bool dflt)
{
    const graft_attr_value *v = rel_attr(c, name);
    if (!v || (v->kind != GRAFT_ATTR_BOOL && v->kind != GRAFT_ATTR_INT))
        return dflt;
    return v->i != 0;
}

const char *rel_str(const RelCtx *c, const char *name, const char *dflt)
{
    const graft_attr_value *v = rel_attr(c, name);
    return v && v->kind == GRAFT_ATTR_STRING ? v->s : dflt;
}

const char *rel_dtype(const RelCtx *c, const char *name, const char *dflt)
{
    const char *s = rel_str(c, name, "");
    return *s ? s : dflt;
}

int rel_ints(RelCtx *c, const char *name, int64_t *out, int max)
{
    int bad_item;
    int n = attr_value_ints(rel_attr(c, name), out, max, &bad_item);
    switch (n) {
    case ATTR_INTS_ABSENT: return 0;
    case ATTR_INTS_BAD_LIST:
        rel_fail(c, "attribute '%s' must be a list of at most %d integers", name, max);
        return -1;
    case ATTR_INTS_BAD_ITEM:
        rel_fail(c, "attribute '%s' must be a list of integers", name);
        return -1;
    default: return n;
    }
}

int rel_axis(RelCtx *c, int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank) {
        rel_fail(c, "axis %lld out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

/* A sum or product of dims past int64 is no size a tensor can have: it
 * is unknown ("?"), where C's arithmetic would overflow (TVM's wraps). */
int64_t dim_add(int64_t a, int64_t b)
{
    int64_t sum;
    if (a == DIM_ANY || b == DIM_ANY || __builtin_add_overflow(a, b, &sum))
        return DIM_ANY;
    return sum;
}

int64_t dim_mul(int64_t a, int64_t b)
{
    int64_t product;
    if (a == DIM_ANY || b == DIM_ANY || __builtin_mul_overflow(a, b, &product))
        return DIM_ANY;
    return product;
}

int64_t dim_div(int64_t a, int64_t b)
{
    return a == DIM_ANY ? DIM_ANY : a / b;
}

int64_t rel_shape_size(const Shape *s)
{
    int64_t n = 1;
    bool past = false; /* the count is past int64 */
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] == DIM_ANY)
            return DIM_ANY;
        past = past || __builtin_mul_overflow(n, s->dims[i], &n);
    }
    return past ? INT64_MAX : n;
}

const graft_type *rel_data_and_ints(RelCtx *c, const char *name, int64_t *v, int *n)
{
    const graft_type *data = rel_tensor(c, 0);
    *n = data ? rel_ints(c, name, v, REL_MAX_RANK) : -1;
    return *n < 0 ? NULL : data;
}
