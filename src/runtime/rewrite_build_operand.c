/* rewrite_build_operand.c - the operands of a node an action makes:
 * each built where it stands, a splice's fields of its bound tuple, a
 * bound attribute value as a constant (note [attribute operands spelled
 * once]). */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* note [attribute operands spelled once]: a bound attribute value
 * given as an operand (var + e, e a batch norm's epsilon) becomes a
 * scalar constant of the other operands' dtype (graft_attr_operand),
 * spelled by pattern_const_text's shortest round trip: 1,100
 * instructions a constant, two a rewrite of fold_bn, for the same
 * epsilon each time.  The spelling and dtype are a function of the
 * value (its kind and number) and the dtype the operands give, so the
 * engine keeps the last constant made and those, and a value and dtype
 * the same as the last take its spelling and dtype (the graph's
 * interned strings, never changed). */
static graft_node *operand_const(graft_engine *e, const graft_attr_value *v,
                                 graft_node *const *ops, int nops, int self)
{
    const char *dtype = NULL; /* as graft_attr_operand finds it */
    for (int k = 0; k < nops && !dtype; k++)
        if (k != self && ops[k])
            dtype = pattern_node_dtype(ops[k]);
    OperandConst *last = &rewrite_action_calls(e)->operand;
    if (last->text && last->kind == v->kind && last->dtype == dtype && last->i == v->i &&
        memcmp(&last->f, &v->f, sizeof v->f) == 0)
        return graph_add_literal_interned(e->g, last->text, last->value, last->made_dtype);
    graft_node *n = graft_attr_operand(e->g, v, ops, nops, self);
    *last = (OperandConst){v->kind, v->f, v->i, dtype, node_const_text(n), node_const_dtype(n),
                           node_const_value(n)};
    return n;
}

int rewrite_splice_fields(const graft_expr *x, int nfields)
{
    int from = (int)x->i, end = x->cmp > 0 ? x->cmp : nfields + x->cmp;
    return nfields >= 0 && from <= end && end <= nfields ? end - from : -1;
}

/* The fields [*from, *end) a splice takes of its bound tuple
 * (GRAFT_EXPR_SPLICE); false when the tuple has too few. */
bool rewrite_splice_range(const graft_expr *x, const graft_binding *b, int *from, int *end)
{
    const graft_node *t = b[x->slot].node;
    int fields = rewrite_splice_fields(x, t && node_kind(t) == NODE_TUPLE ? node_nargs(t) : -1);
    *from = (int)x->i;
    *end = *from + fields;
    return fields >= 0;
}


/* rewrite_build_kids for rewrite_plain_kids' operands, each built in
 * order: the same nodes made in the same order, without the places a
 * splice or an attribute operand needs (150 instructions a batch norm
 * built); a bound node, most operands, is read here, as
 * rewrite_build_node would. */
graft_node **rewrite_build_plain_kids(graft_engine *e, const graft_expr *x,
                                      const graft_binding *b, int *n, graft_node **few)
{
    graft_node **kids = x->nkids < FEW_KIDS ? few : xcalloc((size_t)x->nkids + 1, sizeof *kids);
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *k = x->kids[i];
        kids[i] = k->kind == GRAFT_EXPR_SLOT ? b[k->slot].node : rewrite_build_node(e, k, b);
    }
    *n = x->nkids;
    return kids;
}

/* The operands of x: the others first, then constants made of bound
 * attribute values, which take their dtype from the others; a splice
 * gives the fields of its tuple (note [sequence variables] in
 * src/compiler/check_vars.c).  *n gets their count.  They are put in few
 * (FEW_KIDS entries) when they fit, else in a buffer to free. */
graft_node **rewrite_build_kids(graft_engine *e, const graft_expr *x, const graft_binding *b,
                                int *n, graft_node **few)
{
    if (rewrite_plain_kids(x)) /* most: each operand its own node, in order */
        return rewrite_build_plain_kids(e, x, b, n, few);
    int at_few[FEW_KIDS], from, end;
    int *at = x->nkids < FEW_KIDS ? at_few : xcalloc((size_t)x->nkids + 1, sizeof *at);
    *n = 0;
    for (int i = 0; i < x->nkids; i++) {
        at[i] = *n;
        bool spliced = x->kids[i]->kind == GRAFT_EXPR_SPLICE &&
                       rewrite_splice_range(x->kids[i], b, &from, &end);
        *n += spliced ? end - from : x->kids[i]->kind != GRAFT_EXPR_SPLICE;
    }
    graft_node **kids = *n < FEW_KIDS ? few : xcalloc((size_t)*n + 1, sizeof *kids);
    memset(kids, 0, (size_t)*n * sizeof *kids);
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *k = x->kids[i];
        if (k->kind == GRAFT_EXPR_SPLICE && rewrite_splice_range(k, b, &from, &end))
            for (int f = from; f < end; f++)
                kids[at[i] + f - from] = node_arg(b[k->slot].node, f);
        else if (k->kind != GRAFT_EXPR_SPLICE && !rewrite_attr_operand(k))
            kids[at[i]] = rewrite_build_node(e, k, b);
    }
    for (int i = 0; i < x->nkids; i++)
        if (rewrite_attr_operand(x->kids[i]))
            kids[at[i]] = operand_const(e, b[x->kids[i]->slot].attr, kids, *n, at[i]);
    if (at != at_few)
        free(at);
    return kids;
}
