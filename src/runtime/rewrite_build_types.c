/* rewrite_build_types.c - the types of the nodes a build made: from
 * the bound call a call was rebuilt from, from the last calls of its
 * action node, else by the memo of note [action types] (rewrite_types.c,
 * which types them by their relations). */
#include "engine_impl.h"

#include <stdlib.h>

/* note [rebuilt calls keep their types]: fold_bn rebuilds the matched
 * convolution, nn.conv2d(x, w * ..., **c), a call of c's op with every
 * attribute of c on operands of c's operand types (the scaled weights
 * have the weights' type), and typing it by its relation was the
 * dearest of a rewrite's typings (3,700 instructions, src/relay/
 * type_rel_nn.c), missed by the memo of note [action types] on most
 * models, whose convolutions differ in shape or attributes.  A Relay
 * call's type is a function of its op, attributes and operand types and
 * of its scalar constant operands' values (note [action types] in
 * rewrite_types.c), so such a call has c's type: the type the model
 * gave c, as the loader keeps every annotated node's (type_infer_loaded
 * types only what the model left untyped).  So a build notes each call
 * whose attributes are one bound call's of its op, **c alone, and
 * rewrite_infer_new gives it c's type when c is typed and each operand
 * is c's, or of c's operand's type (the same address: note [canonical
 * tensor types]) and no scalar constant; anything else is typed as
 * before.
 * ONNX calls are not (their types read constant operands' values, which
 * equal types do not tell). */

/* Whether operand a of a rebuilt call stands where operand was: the same
 * node, or of the same type and not a scalar constant. */
static bool same_operand(const graft_node *a, const graft_node *operand)
{
    if (a == operand)
        return true;
    bool scalar = (node_kind(a) == NODE_CONST && node_const_is_scalar(a)) ||
                  (node_kind(operand) == NODE_CONST && node_const_is_scalar(operand));
    return !scalar && node_type(a) && node_type(a) == node_type(operand);
}

/* n's type when it was rebuilt from typed call from on the same
 * operands (note [rebuilt calls keep their types]), else NULL. */
static const graft_type *rebuilt_type(const graft_node *n, const graft_node *from)
{
    if (!from || !node_type(from) || node_nargs(n) != node_nargs(from))
        return NULL;
    for (int k = 0; k < node_nargs(n); k++)
        if (!same_operand(node_arg(n, k), node_arg(from, k)))
            return NULL;
    return node_type(from);
}

/* note [types by action node]: an action node makes a call of one op
 * at each rewrite, mostly of the same attributes (one array, note
 * [canonical attributes once]) on operands of the same types as the
 * last time (consecutive batch norms of a model share their channels'
 * count), and the memo of note [action types] found its type by a hash
 * of the whole key and a compare of it, about 350 instructions a call.
 * So each call action node's entry keeps the last two calls typed by
 * that memo (a model's blocks alternate two widths: mobilenet_v2's
 * 144, 144, 24): the attribute array, per operand its type's address or
 * a scalar constant's spelling and dtype (what the memo compares, by
 * address: note [canonical tensor types]), and the type; a call of the
 * same takes that type, which is the memo's answer to an equal key.
 * Relay only, as that memo's keys by value (ONNX's are by address
 * already). */
enum { LAST_ARGS = 4 };

typedef struct LastTyped {
    const graft_attr *attrs; /* the call's attributes (NULL for none) */
    int nargs, nattrs;
    const void *args[LAST_ARGS]; /* per operand: its type, or a scalar
                                    constant's spelling */
    const char *dtypes[LAST_ARGS]; /* a scalar constant's dtype, or NULL */
    const graft_type *type;
} LastTyped;

/* What operand a is to a LastTyped: its type, or a scalar constant's
 * spelling (*dtype gets its dtype, else NULL). */
static const void *operand_seen(const graft_node *a, const char **dtype)
{
    bool scalar = node_kind(a) == NODE_CONST && node_const_is_scalar(a);
    *dtype = scalar ? node_const_dtype(a) : NULL;
    return scalar ? (const void *)node_const_text(a) : (const void *)node_type(a);
}

/* Whether call n has last's attributes and operands (an empty entry,
 * of no type, none's). */
static bool typed_alike(const LastTyped *last, const graft_node *n)
{
    int nattrs = node_nattrs(n);
    if (!last->type || last->nargs != node_nargs(n) || last->nattrs != nattrs ||
        (nattrs && last->attrs != node_attr(n, 0)))
        return false;
    for (int k = 0; k < last->nargs; k++) {
        const char *dtype;
        const void *seen = operand_seen(node_arg(n, k), &dtype);
        if (!seen || seen != last->args[k] || dtype != last->dtypes[k])
            return false;
    }
    return true;
}

/* Keeps n, typed t by the memo, as c's last call typed when it fits. */
static void keep_typed(ActionCall *c, const graft_node *n, const graft_type *t)
{
    if (node_nargs(n) > LAST_ARGS)
        return;
    if (!c->last)
        c->last = xcalloc(2, sizeof *c->last);
    LastTyped last = {node_nattrs(n) ? node_attr(n, 0) : NULL, node_nargs(n), node_nattrs(n),
                      {NULL}, {NULL}, t};
    for (int k = 0; k < last.nargs; k++)
        last.args[k] = operand_seen(node_arg(n, k), &last.dtypes[k]);
    cache_pair_put(c->last, last);
}

/* The type of Relay call n the build made as m, found without typing
 * it, or NULL (note [rebuilt calls keep their types], note [types by
 * action node]). */
static const graft_type *made_type(const MadeCall *m, const graft_node *n)
{
    const graft_type *t = rebuilt_type(n, m->from);
    if (t)
        return t;
    const LastTyped *last = m->c->last ? cache_pair_find(m->c->last, n, typed_alike) : NULL;
    return last ? last->type : NULL;
}

/* Whether n, untyped, stays so whatever the memo of note [action
 * types] holds: a tuple, an element or an op call reading an operand
 * that has no type and is no scalar constant.  action_type keeps no key
 * of it (an ONNX key needs every operand typed) and type_infer_cached
 * finds none (its unknown_operand), at some 70 instructions a node, the
 * two of every rewrite of an untyped model (the workload's).  Asked once
 * a node made stayed untyped: on a typed model it answers no, at the
 * cost of a look at each operand. */
static bool stays_untyped(const graft_node *n)
{
    NodeKind k = node_kind(n);
    if (k != NODE_TUPLE && k != NODE_GETITEM && (k != NODE_CALL || node_callee(n)))
        return false;
    for (int i = 0; i < node_nargs(n); i++) {
        const graft_node *a = node_arg(n, i);
        if (!node_type(a) && !(node_kind(a) == NODE_CONST && node_const_is_scalar(a)))
            return true;
    }
    return false;
}

/* rewrite_infer_new on a Relay graph: each call the build listed takes a type
 * found without typing it when it has one (note [rebuilt calls keep
 * their types], note [types by action node]), and a node reading an
 * untyped operand is left untyped without the memo once one was
 * (stays_untyped). */
static void typed_listed(graft_engine *e, uint32_t first, uint32_t count, StrBuf *why)
{
    graft_graph *g = e->g;
    struct ActionCalls *ac = e->calls;
    size_t next = 0; /* the next of ac->made, which are in id order */
    for (uint32_t id = first; id < count; id++) {
        graft_node *n = graph_node(g, id);
        const MadeCall *m = next < ac->made.len && ac->made.items[next].made == n
                                ? &ac->made.items[next++]
                                : NULL;
        if (node_type(n) || node_is_dead(n))
            continue;
        const graft_type *t = m && (m->from || m->c->last) ? made_type(m, n) : NULL;
        if (!t && !(ac->untyped_made && stays_untyped(n))) {
            t = action_type(e->types, g, n, why); /* note [action types] */
            if (t && m)
                keep_typed(m->c, n, t); /* note [types by action node] */
        }
        if (t) {
            graph_set_type(g, n, t);
            continue;
        }
        ac->untyped_made = true;
        if (m)
            m->c->untyped = true;
    }
}

/* type_infer_edit for the few nodes one action made (ids from first
 * on), node by node: the same types (a node that finds a contradiction
 * stays untyped, the rest goes on), with the engine's relation cache,
 * which serves every rewrite of the run (a lookup by name in the
 * relation tables was most of a rewrite's typing), and a call of the
 * same op, attributes and operand types as one typed before takes that
 * one's type (note [action types] in rewrite_types.c).  On a Relay
 * graph the calls the build listed are asked first (typed_listed). */
void rewrite_infer_new(graft_engine *e, uint32_t first)
{
    graft_graph *g = e->g;
    StrBuf why = {0}; /* allocated only for a contradiction's message */
    uint32_t count = graph_node_count(g);
    if (!e->types)
        e->types = action_types_new(g);
    struct ActionCalls *ac = rewrite_action_calls(e);
    if (ac->relay)
        typed_listed(e, first, count, &why);
    else
        for (uint32_t id = first; id < count; id++) {
            graft_node *n = graph_node(g, id);
            const graft_type *t = node_type(n) || node_is_dead(n)
                                      ? NULL
                                      : action_type(e->types, g, n, &why);
            if (t)
                graph_set_type(g, n, t);
        }
    if (why.data) /* (most builds have no message: no call to free) */
        strbuf_free(&why);
}
