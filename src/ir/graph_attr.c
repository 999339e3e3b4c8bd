/* graph_attr.c - comparing attribute values as TVM does. */
#include "graph.h"

#include <math.h>
#include <string.h>

/* note [attribute equality]: TVM's printer leaves out an attribute equal
 * to its declared default (AttrsNode::VisitNonDefaultAttrs, whose
 * AttrTriggerNonDefaultEntry::set_default in tvm/include/tvm/ir/attrs.h tests
 * tvm::StructuralEqual).  For doubles that is BaseValueEqual in
 * tvm/include/tvm/node/structural_equal.h: equal, both NaN, or within an
 * absolute 1e-9.  So epsilon=1e-05f (float32, 9.99999974738e-06) equals
 * the default 1e-05.  Ints, floats and bools compare by value, since the
 * text does not say which one an attribute holds ("axis=0" vs 0.0). */
static bool numeric(const graft_attr_value *v)
{
    return v->kind == GRAFT_ATTR_INT || v->kind == GRAFT_ATTR_FLOAT || v->kind == GRAFT_ATTR_BOOL;
}

static double number(const graft_attr_value *v)
{
    return v->kind == GRAFT_ATTR_FLOAT ? v->f : (double)v->i;
}

static bool doubles_equal(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b || fabs(a - b) < 1e-9;
}

static bool same_bytes(const graft_attr_value *a, const graft_attr_value *b)
{
    return a->nbytes == b->nbytes && (a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0);
}

bool attr_value_equal(const graft_attr_value *a, const graft_attr_value *b)
{
    if (numeric(a) && numeric(b))
        return doubles_equal(number(a), number(b));
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GRAFT_ATTR_STRING: return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
    case GRAFT_ATTR_NULL: return true;
    case GRAFT_ATTR_OPAQUE:
        return strcmp(a->spelling ? a->spelling : "", b->spelling ? b->spelling : "") == 0;
    case GRAFT_ATTR_TENSOR:
        return a->type && b->type && type_equal(a->type, b->type) && same_bytes(a, b);
    case GRAFT_ATTR_GRAPH: return same_bytes(a, b);
    case GRAFT_ATTR_LIST:
        if (a->nitems != b->nitems)
            return false;
        for (int i = 0; i < a->nitems; i++)
            if (!attr_value_equal(a->items[i], b->items[i]))
                return false;
        return true;
    default: return false;
    }
}
