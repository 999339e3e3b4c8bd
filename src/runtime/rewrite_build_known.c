/* rewrite_build_known.c - whether an action can be built on bindings:
 * each computed attribute value known (note [computed attributes] in
 * rewrite_build.c), each splice in range, each spliced call of an operand
 * count its op takes; asked at the places found once (note [places that
 * may lack a value]). */
#include "engine_impl.h"

static bool is_computed(const graft_expr *v)
{
    return v->kind == GRAFT_EXPR_ARITH || v->kind == GRAFT_EXPR_GETITEM ||
           v->kind == GRAFT_EXPR_RANK || v->kind == GRAFT_EXPR_USERS || v->kind == GRAFT_EXPR_VALUE;
}

/* Whether a bound variable given as an attribute value has one: an
 * attribute, or a scalar constant (note [computed attributes]); a node
 * that is neither (a tensor constant bound to c:const in alpha=c) has
 * none, so the rewrite does not happen rather than drop the attribute. */
static bool slot_has_value(graft_engine *e, const graft_binding *s)
{
    double v;
    if (s->attr || !s->node)
        return true;
    /* with an engine, the number read is kept for the build (note
     * [constant read once]) */
    return e ? rewrite_const_number(e, s->node, &v) : node_const_number(s->node, &v);
}

/* Whether a computed value (a number, a list of them, a shape) or a bound
 * variable has a value on b; other attribute values always do. */
static bool has_value(const graft_expr *v, const graft_binding *b)
{
    if (v->kind == GRAFT_EXPR_SLOT)
        return slot_has_value(NULL, &b[v->slot]);
    if (v->kind == GRAFT_EXPR_LIST && !v->attr) {
        for (int i = 0; i < v->nkids; i++)
            if (!rewrite_is_literal(v->kids[i]) && !rewrite_number_known(v->kids[i], b))
                return false;
        return true;
    }
    if (v->kind == GRAFT_EXPR_SHAPE)
        return rewrite_shape_known(v, b) != NULL;
    return !is_computed(v) || rewrite_number_known(v, b);
}

/* Whether v is an attribute value has_value can find without one. */
static bool may_lack_value(const graft_expr *v)
{
    return (v->kind == GRAFT_EXPR_LIST && !v->attr) || v->kind == GRAFT_EXPR_SHAPE ||
           v->kind == GRAFT_EXPR_SLOT || is_computed(v);
}

/* Whether attribute value v has a value on b; with b NULL, on any
 * bindings. */
static bool value_known(const graft_expr *v, const graft_binding *b)
{
    return b ? has_value(v, b) : !may_lack_value(v);
}

/* Whether splice s has a range on b; with b NULL, never sure. */
static bool splice_known(const graft_expr *s, const graft_binding *b)
{
    int from, end;
    return b && rewrite_splice_range(s, b, &from, &end);
}

/* Whether call x has a splice among its operands, and so its op's
 * operand counts in [x->i, x->cmp) to keep (note [spliced operand
 * counts] in src/compiler/check_action.c). */
static bool spliced_call(const graft_expr *x)
{
    if (x->kind != GRAFT_EXPR_CALL)
        return false;
    for (int i = 0; i < x->nkids; i++)
        if (x->kids[i]->kind == GRAFT_EXPR_SPLICE)
            return true;
    return false;
}

int rewrite_operand_count(const graft_expr *x, const graft_binding *b)
{
    int n = 0, from, end;
    for (int i = 0; i < x->nkids; i++)
        n += x->kids[i]->kind != GRAFT_EXPR_SPLICE ? 1
             : rewrite_splice_range(x->kids[i], b, &from, &end) ? end - from
                                                         : 0;
    return n;
}

bool rewrite_count_taken(const graft_expr *x, int n)
{
    return n >= x->i && (x->cmp == 0 || n < x->cmp);
}

/* Whether spliced call x, its splices known on b, has an operand count
 * its op takes. */
static bool count_fits(const graft_expr *x, const graft_binding *b)
{
    return rewrite_count_taken(x, rewrite_operand_count(x, b));
}

/* One walk for every question (the rewrite, the checker, graft explain),
 * so they cannot drift apart. */
const graft_expr *rewrite_first_unknown(const graft_expr *x, const graft_binding *b, int *attr)
{
    for (int i = 0; i < x->nattrs; i++)
        if (x->attrs[i].src == GRAFT_ASRC_EXPR && !value_known(x->attrs[i].value, b)) {
            *attr = i;
            return x;
        }
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *k = x->kids[i];
        if (k->kind == GRAFT_EXPR_SPLICE && !splice_known(k, b)) {
            *attr = PLACE_SPLICE;
            return k;
        }
        const graft_expr *unknown =
            k->kind == GRAFT_EXPR_SPLICE ? NULL : rewrite_first_unknown(k, b, attr);
        if (unknown)
            return unknown;
    }
    if (spliced_call(x) && !count_fits(x, b)) { /* its splices known: b not NULL */
        *attr = PLACE_COUNT;
        return x;
    }
    return NULL;
}

bool rewrite_computable(const graft_expr *x, const graft_binding *b)
{
    int attr;
    return rewrite_first_unknown(x, b, &attr) == NULL;
}

/* note [places that may lack a value]: rewrite_computable walked the
 * whole action at every rewrite (392 instructions each on the workload's
 * rewrite, for the one attribute, epsilon=eps, that may lack a value).
 * Where a value may lack is the same for every binding: the attributes
 * has_value asks of (may_lack_value), the splices and the operand counts
 * of the calls they are in (note [spliced operand counts] in
 * src/compiler/check_action.c).  A pass finds them once, in
 * rewrite_first_unknown's order (rewrite_action_places), and asks each
 * group's bindings of those alone (rewrite_places_known). */
void rewrite_action_places(const graft_expr *x, ActionPlaces *places)
{
    for (int i = 0; i < x->nattrs; i++)
        if (x->attrs[i].src == GRAFT_ASRC_EXPR && may_lack_value(x->attrs[i].value))
            vec_push(places, ((ActionPlace){x, i}));
    for (int i = 0; i < x->nkids; i++) {
        if (x->kids[i]->kind == GRAFT_EXPR_SPLICE)
            vec_push(places, ((ActionPlace){x->kids[i], PLACE_SPLICE}));
        else
            rewrite_action_places(x->kids[i], places);
    }
    if (spliced_call(x))
        vec_push(places, ((ActionPlace){x, PLACE_COUNT}));
}

/* has_value, reading a bound constant's number once (note [constant
 * read once]). */
static bool place_has_value(graft_engine *e, const graft_expr *v, const graft_binding *b)
{
    return v->kind == GRAFT_EXPR_SLOT ? slot_has_value(e, &b[v->slot]) : has_value(v, b);
}

/* Whether splice place p has a range on b, or spliced call place p a
 * count its op takes.  Kept out of line: inlined, it cost
 * rewrite_places_known three instructions a call on actions without a
 * splice (a register more to save). */
static __attribute__((noinline)) bool spliced_place_known(const ActionPlace *p,
                                                          const graft_binding *b)
{
    return p->attr == PLACE_SPLICE ? splice_known(p->x, b) : count_fits(p->x, b);
}

bool rewrite_places_known(graft_engine *e, const ActionPlaces *places, const graft_binding *b)
{
    for (size_t k = 0; k < places->len; k++) {
        const ActionPlace *p = &places->items[k];
        if (p->attr >= 0 ? !place_has_value(e, p->x->attrs[p->attr].value, b)
                         : !spliced_place_known(p, b))
            return false;
    }
    return true;
}

bool rewrite_always_computable(const graft_expr *x)
{
    return rewrite_computable(x, NULL);
}

/* The node action operand x (no splice) is on b: the node bound, or NULL
 * for one the action makes; *tuple: whether it is a tuple (a call, a
 * constant or an element is a tensor). */
static const graft_node *operand_node(const graft_expr *x, const graft_binding *b, bool *tuple)
{
    const graft_node *n = x->kind == GRAFT_EXPR_SLOT ? b[x->slot].node : NULL;
    *tuple = x->kind == GRAFT_EXPR_TUPLE || (n && node_kind(n) == NODE_TUPLE);
    return n;
}

/* Field k of tuple node t, and whether it is a tuple. */
static const graft_node *tuple_field(const graft_node *t, int k, bool *tuple)
{
    const graft_node *f = node_arg(t, k);
    *tuple = node_kind(f) == NODE_TUPLE;
    return f;
}

/* ReplacementValue.field of an ActionValue: a tuple's fields counted as
 * build_kids places them, a splice giving its range's. */
static const graft_node *action_field(const ReplacementValue *v, int k, bool *tuple)
{
    const graft_expr *x = ((const ActionValue *)v)->x;
    const graft_binding *b = ((const ActionValue *)v)->b;
    if (k < 0)
        return operand_node(x, b, tuple);
    if (x->kind != GRAFT_EXPR_TUPLE) /* a variable bound to a tuple */
        return tuple_field(b[x->slot].node, k, tuple);
    int at = 0, from, end;
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *kid = x->kids[i];
        if (kid->kind != GRAFT_EXPR_SPLICE && at++ == k)
            return operand_node(kid, b, tuple);
        if (kid->kind == GRAFT_EXPR_SPLICE && rewrite_splice_range(kid, b, &from, &end)) {
            if (k < at + end - from)
                return tuple_field(b[kid->slot].node, from + k - at, tuple);
            at += end - from;
        }
    }
    *tuple = false; /* (k past the fields: not asked) */
    return NULL;
}

void rewrite_action_value(ActionValue *v, const graft_expr *x, const graft_binding *b)
{
    const graft_node *n = x->kind == GRAFT_EXPR_SLOT ? b[x->slot].node : NULL;
    int fields = x->kind == GRAFT_EXPR_TUPLE        ? rewrite_operand_count(x, b)
                 : n && node_kind(n) == NODE_TUPLE ? node_nargs(n)
                                                   : -1;
    *v = (ActionValue){{fields, action_field}, x, b};
}
