/* graph_attr.c - comparing attribute values as TVM does, and reading
 * given ones and ints. */
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

const graft_attr_value *node_given_attr(const graft_node *n, const char *name)
{
    const graft_attr_value *v = node_find_attr(n, name);
    return v && v->kind != GRAFT_ATTR_NULL ? v : NULL;
}

/* note [int lists]: Relay's type relations (rel_ints), ONNX's inference
 * (infer_attr_ints) and the evaluator (eval_attr_ints) each read an
 * attribute that is one int or a list of ints into an array of at most
 * max; attr_value_ints reads it for the three.  It says what is wrong and
 * reports nothing, since each keeps its own diagnostic and its own answer
 * for an absent attribute (Relay's 0, as TVM reads an empty Array; the
 * others' -1).  One int needs room for one, as ONNX's reader had it;
 * Relay's and the evaluator's took one whatever max was, which changes no
 * answer of theirs: every max they pass is at least 1 (a spatial count, a
 * rank or a count of values plus one). */
int attr_value_ints(const graft_attr_value *v, int64_t *out, int max, int *bad_item)
{
    if (!v || v->kind == GRAFT_ATTR_NULL)
        return ATTR_INTS_ABSENT;
    if (v->kind == GRAFT_ATTR_INT && max >= 1) {
        out[0] = v->i;
        return 1;
    }
    if (v->kind != GRAFT_ATTR_LIST || v->nitems > max)
        return ATTR_INTS_BAD_LIST;
    for (int i = 0; i < v->nitems; i++) {
        if (v->items[i]->kind != GRAFT_ATTR_INT) {
            *bad_item = i;
            return ATTR_INTS_BAD_ITEM;
        }
        out[i] = v->items[i]->i;
    }
    return v->nitems;
}
