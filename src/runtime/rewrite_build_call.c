/* rewrite_build_call.c - an op call an action makes: its action node's
 * entry (note [canonical attributes once]), its attributes in canonical
 * order, the call itself, listed for its typing (note [rebuilt calls keep
 * their types] in rewrite_build_types.c). */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* note [canonical attributes once]: a new call's attributes are put in
 * their declarations' order, defaults left out (pattern_attrs_canonical,
 * note [created attributes] in pattern.h): 323 instructions a batch norm
 * rebuilt on the workload's Relay rewrite, 204 on ONNX's, for the same
 * answer each time.  The answer is a function of the attributes given,
 * names and values, and the action node's declarations, and the values
 * given are mostly the same pointers rewrite after rewrite: a literal's
 * copy is made once (note [names interned once]), a bound constant's
 * number shared (note [constant read once]).  So the engine keeps, per
 * action node, the last attributes given and their canonical order, and
 * attributes given again, each name and value the same pointer as
 * before, take that order; values are never changed once made, so an
 * equal pointer is an equal value.  Attributes of other values are put
 * in order afresh, and kept in place of the last.  The order is an array
 * in the graph's arena, names interned, that the calls made alike share
 * (graph_add_call_sharing): a node's attributes are never changed in
 * place, and graph_set_attrs's copy cost 106 instructions and 32 bytes a
 * batch norm rebuilt.  The same entry holds what the call's build reads
 * of the action node alone, found by its one lookup: the graph's copies
 * of its op, attribute names and literal values (note [names interned
 * once]; a lookup each, 120 instructions a batch norm), and whether its
 * operands are plain (rewrite_plain_kids, 80).  Entries are allocated
 * one by one, so one stays where it is while the operands' builds add
 * others.
 * (ActionCall, struct ActionCalls: engine_impl.h) */

void rewrite_calls_free(struct ActionCalls *ac)
{
    if (!ac)
        return;
    for (size_t i = 0; i < ac->calls.len; i++) {
        free(ac->calls.items[i]->names);
        free(ac->calls.items[i]->literals);
        free(ac->calls.items[i]->in);
        free(ac->calls.items[i]->last);
        free(ac->calls.items[i]);
    }
    vec_free(&ac->calls);
    keymap_free(&ac->by_action);
    vec_free(&ac->made);
    free(ac);
}

/* Whether attribute value x is a literal, its value x->attr as written
 * (rewrite_attr_value's literal cases). */
static bool literal_value(const graft_expr *x)
{
    switch (x->kind) {
    case GRAFT_EXPR_SLOT:
    case GRAFT_EXPR_ATTR:
    case GRAFT_EXPR_ARITH:
    case GRAFT_EXPR_GETITEM:
    case GRAFT_EXPR_RANK:
    case GRAFT_EXPR_USERS:
    case GRAFT_EXPR_VALUE:
    case GRAFT_EXPR_SHAPE:
        return false;
    default: /* a list's items computed have no x->attr */
        return x->attr != NULL;
    }
}

/* Call action node x's entry, made the first time (note [canonical
 * attributes once]). */
static ActionCall *action_call(graft_engine *e, const graft_expr *x)
{
    rewrite_action_calls(e);
    const int64_t *at = keymap_get(&e->calls->by_action, (uint64_t)(uintptr_t)x);
    if (at)
        return e->calls->calls.items[*at - 1];
    ActionCall *c = xcalloc(1, sizeof *c);
    c->op = rewrite_intern_once(e, x->s);
    c->names = xcalloc((size_t)x->nattrs + 1, sizeof *c->names);
    c->literals = xcalloc((size_t)x->nattrs + 1, sizeof *c->literals);
    for (int i = 0; i < x->nattrs; i++) {
        const graft_act_attr *a = &x->attrs[i];
        if (a->src == GRAFT_ASRC_COPY)
            continue;
        c->names[i] = rewrite_intern_once(e, a->name);
        c->literals[i] = literal_value(a->value) ? rewrite_literal_once(e, a->value->attr) : NULL;
    }
    c->plain = rewrite_plain_kids(x);
    vec_push(&e->calls->calls, c);
    *keymap_put(&e->calls->by_action, (uint64_t)(uintptr_t)x, 0) = (int64_t)e->calls->calls.len;
    return c;
}

/* Sets name=value in attrs (replacing an earlier value of that name);
 * every name there is the graph's (note [names interned once]). */
static void put_attr(graft_attr *attrs, int *n, const char *name, const graft_attr_value *v)
{
    for (int i = 0; i < *n; i++)
        if (attrs[i].name == name) {
            attrs[i].value = v;
            return;
        }
    attrs[*n].name = name;
    attrs[*n].value = v;
    (*n)++;
}

/* Whether attrs[0 .. n) are memo's given ones, pointer by pointer. */
static bool canon_same(const ActionCall *memo, const graft_attr *attrs, int n)
{
    if (memo->nin != n || !memo->in)
        return false;
    for (int i = 0; i < n; i++)
        if (memo->in[i].name != attrs[i].name || memo->in[i].value != attrs[i].value)
            return false;
    return true;
}

/* x's attributes attrs[0 .. *n) in canonical order
 * (pattern_attrs_canonical_interned on x's declarations), an array of
 * the graph's that the calls x made alike share, taken from the last
 * time when they are the same (note [canonical attributes once]); *n
 * gets its count.  A miss costs the lookup and a copy of the given (a
 * value copied from a matched node is a new pointer each time, and
 * misses always), and makes the array graph_set_attrs would have made. */
static const graft_attr *canonical_once(graft_engine *e, const graft_expr *x, ActionCall *memo,
                                        graft_attr *attrs, int *n)
{
    if (canon_same(memo, attrs, *n)) {
        *n = memo->nout;
        return memo->out;
    }
    if (*n + 1 > memo->cap) {
        free(memo->in);
        memo->cap = *n + 1;
        memo->in = xmalloc((size_t)memo->cap * sizeof *memo->in);
    }
    memcpy(memo->in, attrs, (size_t)*n * sizeof *attrs);
    memo->nin = *n;
    memo->nout = pattern_attrs_canonical_interned(attrs, *n, rewrite_interned_decls(e, x),
                                                  x->ndecls);
    graft_attr *out = arena_array(graph_arena(e->g), (size_t)memo->nout + 1, sizeof *out);
    memcpy(out, attrs, (size_t)memo->nout * sizeof *out);
    memo->out = out;
    *n = memo->nout;
    return out;
}

/* Attributes of a new call that fit its builder's buffer on the stack. */
enum { FEW_ATTRS = 16 };

/* The attributes of a new op call: copied ones (**c) and those written,
 * in that order (new_call puts them as TVM prints them: note [created
 * attributes] in pattern.h); every name is the graph's, so compared by
 * pointer.  They are put in few (FEW_ATTRS entries) when they fit, else
 * in a buffer to free: the call keeps a copy (graph_set_attrs, or
 * canonical_once's), so they were a dead copy in the graph's arena, 112
 * bytes a rewrite on the workload. */
static graft_attr *call_attrs(graft_engine *e, const graft_expr *x, const ActionCall *c,
                              const graft_binding *b, int *n, graft_attr *few)
{
    int cap = 0;
    for (int i = 0; i < x->nattrs; i++)
        cap += x->attrs[i].src == GRAFT_ASRC_COPY && b[x->attrs[i].slot].node
                   ? node_nattrs(b[x->attrs[i].slot].node) : 1;
    size_t need = (size_t)(cap + x->ndecls) + 1;
    graft_attr *attrs = need <= FEW_ATTRS ? few : xmalloc(need * sizeof *attrs);
    *n = 0;
    for (int i = 0; i < x->nattrs; i++) {
        const graft_act_attr *a = &x->attrs[i];
        if (a->src == GRAFT_ASRC_COPY) {
            const graft_node *from = b[a->slot].node;
            for (int k = 0; from && k < node_nattrs(from); k++)
                put_attr(attrs, n, node_attr(from, k)->name, node_attr(from, k)->value);
            continue;
        }
        const graft_attr_value *v =
            c->literals[i] ? c->literals[i] : rewrite_attr_value(e, a->value, b);
        if (v)
            put_attr(attrs, n, c->names[i], v);
    }
    return attrs;
}

/* A new call of x's op on kids[0 .. nkids), with its attributes: in
 * canonical order when the op declares some, an array shared with the
 * calls x made alike (note [canonical attributes once]). */
static graft_node *new_call(graft_engine *e, const graft_expr *x, ActionCall *c,
                            const graft_binding *b, graft_node *const *kids, int nkids)
{
    graft_attr few[FEW_ATTRS];
    int nattrs;
    graft_attr *attrs = call_attrs(e, x, c, b, &nattrs, few);
    graft_node *n;
    if (x->ndecls) {
        const graft_attr *shared = canonical_once(e, x, c, attrs, &nattrs);
        n = graph_add_call_sharing(e->g, c->op, kids, nkids, shared, nattrs);
    } else
        n = graph_add_call_interned(e->g, c->op, kids, nkids, attrs, nattrs);
    if (attrs != few)
        free(attrs);
    return n;
}

/* Lists n, made by call action node x (entry c) on b, with the bound
 * call whose attributes are all n's, if one of its op is (note [rebuilt
 * calls keep their types]).  Asked for Relay's calls only, and not for
 * those of an action node whose last one stayed untyped (a model without
 * types, as the workload's: its calls are typed as before, unlisted). */
static void note_made(graft_engine *e, const graft_expr *x, const graft_binding *b, ActionCall *c,
                      const graft_node *n)
{
    const graft_node *from = x->nattrs == 1 && x->attrs[0].src == GRAFT_ASRC_COPY
                                 ? b[x->attrs[0].slot].node
                                 : NULL;
    if (from && (node_kind(from) != NODE_CALL || node_op(from) != c->op))
        from = NULL;
    vec_push(&e->calls->made, ((MadeCall){n, from, c}));
}

graft_node *rewrite_build_call(graft_engine *e, const graft_expr *x, const graft_binding *b)
{
    graft_node **kids, *few[FEW_KIDS];
    int nkids;
    ActionCall *c = action_call(e, x); /* note [canonical attributes once] */
    kids = c->plain ? rewrite_build_plain_kids(e, x, b, &nkids, few)
                    : rewrite_build_kids(e, x, b, &nkids, few);
    graft_node *n = new_call(e, x, c, b, kids, nkids);
    if (e->calls->relay && !c->untyped)
        note_made(e, x, b, c, n);
    if (kids != few)
        free(kids);
    return n;
}
