/* type_rel_elemwise.c - relations of element-wise ops: the identity, numpy
 * broadcasting (BroadcastRel and BroadcastCompRel in
 * tvm/src/relay/op/type_relations.cc), where, cast, and the ops that make a
 * tensor from attributes (tvm/src/relay/op/tensor/transform.cc: FullRel,
 * InitOpRel). */
#include "type_rel.h"

#include <string.h>

#include "type_infer.h"

/* IdentityRel: the output has the first operand's type. */
static const graft_type *identity(RelCtx *c)
{
    return rel_tensor(c, 0);
}

/* Element-wise tests (isnan, isinf, isfinite): the shape, dtype bool. */
static const graft_type *same_shape_bool(RelCtx *c)
{
    const graft_type *t = rel_tensor(c, 0);
    return t ? graph_type_tensor(c->g, "bool", t->dims, t->rank) : NULL;
}

/* ConcreteBroadcast: shapes aligned at the right; equal dims stay, a 1
 * takes the other dim, a "?" the other; anything else does not
 * broadcast. */
static bool broadcast_shapes(RelCtx *c, const graft_type *a, const graft_type *b, Shape *out)
{
    int rank = a->rank > b->rank ? a->rank : b->rank;
    if (rank > REL_MAX_RANK) {
        rel_fail(c, "rank %d above %d", rank, REL_MAX_RANK);
        return false;
    }
    out->rank = rank;
    for (int i = 1; i <= rank; i++) {
        int64_t x = i <= a->rank ? a->dims[a->rank - i] : 1;
        int64_t y = i <= b->rank ? b->dims[b->rank - i] : 1;
        int64_t d;
        if (x == y || y == 1)
            d = x;
        else if (x == 1 || x == DIM_ANY)
            d = y;
        else if (y == DIM_ANY)
            d = x;
        else {
            rel_fail(c, "shapes %s and %s do not broadcast (dimension %lld vs %lld)",
                     a->text, b->text, (long long)x, (long long)y);
            return false;
        }
        out->dims[rank - i] = d;
    }
    return true;
}

/* The broadcast of operands first..first+1 with dtype check; dtype NULL
 * keeps the operands'. */
static const graft_type *broadcast_from(RelCtx *c, int first, const char *dtype)
{
    const graft_type *a = rel_tensor(c, first), *b = a ? rel_tensor(c, first + 1) : NULL;
    if (!b)
        return NULL;
    if (a->dtype != b->dtype && strcmp(a->dtype, b->dtype) != 0)
        return rel_fail(c, "data types %s and %s do not match", a->dtype, b->dtype);
    Shape s;
    if (!broadcast_shapes(c, a, b, &s))
        return NULL;
    return rel_make(c, dtype ? dtype : a->dtype, &s);
}

const graft_type *rel_broadcast(RelCtx *c)
{
    return broadcast_from(c, 0, NULL);
}

/* BroadcastCompRel: comparisons give bool. */
static const graft_type *broadcast_bool(RelCtx *c)
{
    return broadcast_from(c, 0, "bool");
}

/* WhereRel: condition, x and y broadcast together; x's dtype. */
static const graft_type *where(RelCtx *c)
{
    const graft_type *cond = rel_tensor(c, 0);
    const graft_type *xy = cond ? broadcast_from(c, 1, NULL) : NULL;
    if (!xy)
        return NULL;
    Shape s;
    if (!broadcast_shapes(c, cond, xy, &s))
        return NULL;
    return rel_make(c, xy->dtype, &s);
}

/* CastRel: the shape, the dtype attribute. */
static const graft_type *cast(RelCtx *c)
{
    const graft_type *t = rel_tensor(c, 0);
    if (!t)
        return NULL;
    const char *dtype = rel_dtype(c, "dtype", NULL);
    if (!dtype)
        return rel_fail(c, "no dtype to cast to");
    return graph_type_tensor(c->g, dtype, t->dims, t->rank);
}

/* CastLikeRel: the shape of the first, the dtype of the second. */
static const graft_type *cast_like(RelCtx *c)
{
    const graft_type *t = rel_tensor(c, 0), *like = t ? rel_tensor(c, 1) : NULL;
    return like ? graph_type_tensor(c->g, like->dtype, t->dims, t->rank) : NULL;
}

/* A shape from the "shape" attribute; false when absent or not ints. */
static bool shape_attr(RelCtx *c, Shape *s)
{
    if (!rel_has(c, "shape"))
        return false;
    s->rank = rel_ints(c, "shape", s->dims, REL_MAX_RANK);
    return s->rank >= 0;
}

/* InitOpRel (zeros, ones) and FullRel (full: the fill value's dtype when
 * the attribute is void). */
static const graft_type *init_op(RelCtx *c)
{
    Shape s;
    if (!shape_attr(c, &s))
        return NULL;
    const char *dflt = "float32";
    if (c->nin) {
        const graft_type *fill = rel_tensor(c, 0);
        if (!fill)
            return NULL;
        dflt = fill->dtype;
    }
    return rel_make(c, rel_dtype(c, "dtype", dflt), &s);
}

/* FullLikeRel: the first operand's type; the fill value must be a
 * scalar. */
static const graft_type *full_like(RelCtx *c)
{
    const graft_type *fill = rel_tensor(c, 1);
    if (!fill)
        return NULL;
    if (fill->rank != 0)
        return rel_fail(c, "the fill value must be a scalar (got %s)", fill->text);
    return rel_tensor(c, 0);
}

#define UNARY(name) {name, identity, TYPE_OUTPUTS_TENSOR, 1, 0}
#define BINARY(name) {name, rel_broadcast, TYPE_OUTPUTS_TENSOR, 2, 0}
#define COMPARE(name) {name, broadcast_bool, TYPE_OUTPUTS_TENSOR, 2, 0}

const TypeRel type_rels_elemwise[] = {
    BINARY("add"), BINARY("subtract"), BINARY("multiply"), BINARY("divide"),
    BINARY("power"), BINARY("maximum"), BINARY("minimum"), BINARY("floor_divide"),
    BINARY("floor_mod"), BINARY("mod"), BINARY("trunc_divide"), BINARY("trunc_mod"),
    BINARY("logical_and"), BINARY("logical_or"), BINARY("logical_xor"),
    BINARY("bitwise_and"), BINARY("bitwise_or"), BINARY("bitwise_xor"),
    BINARY("left_shift"), BINARY("right_shift"),
    COMPARE("equal"), COMPARE("not_equal"), COMPARE("less"), COMPARE("less_equal"),
    COMPARE("greater"), COMPARE("greater_equal"),
    UNARY("negative"), UNARY("sqrt"), UNARY("rsqrt"), UNARY("exp"), UNARY("log"),
    UNARY("log2"), UNARY("log10"), UNARY("tanh"), UNARY("sigmoid"), UNARY("erf"),
    UNARY("abs"), UNARY("sign"), UNARY("ceil"), UNARY("floor"), UNARY("round"),
    UNARY("trunc"), UNARY("sin"), UNARY("cos"), UNARY("tan"), UNARY("asin"),
    UNARY("acos"), UNARY("atan"), UNARY("sinh"), UNARY("cosh"), UNARY("asinh"),
    UNARY("acosh"), UNARY("atanh"), UNARY("logical_not"), UNARY("bitwise_not"),
    UNARY("copy"), UNARY("zeros_like"), UNARY("ones_like"), UNARY("fast_exp"),
    UNARY("fast_tanh"), UNARY("fast_erf"), UNARY("nn.relu"), UNARY("nn.leaky_relu"),
    UNARY("nn.prelu"), UNARY("clip"), UNARY("stop_gradient"),
    {"isnan", same_shape_bool, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"isinf", same_shape_bool, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"isfinite", same_shape_bool, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"where", where, TYPE_OUTPUTS_TENSOR, 3, 0},
    {"cast", cast, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"cast_like", cast_like, TYPE_OUTPUTS_TENSOR, 2, 0},
    {"zeros", init_op, TYPE_OUTPUTS_TENSOR, 0, 0},
    {"ones", init_op, TYPE_OUTPUTS_TENSOR, 0, 0},
    {"full", init_op, TYPE_OUTPUTS_TENSOR, 1, 0},
    {"full_like", full_like, TYPE_OUTPUTS_TENSOR, 2, 0},
    {NULL, NULL, 0, 0, 0},
};
