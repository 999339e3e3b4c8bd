/* rewrite_build.c - building a rewrite's replacement from its action.
 *
 * Action trees nest no deeper than AST_MAX_DEPTH (ast.h), so building
 * recurses.  Attribute values are copied into the graph, so a graph never
 * points into a rule set.
 */
#include "engine_impl.h"
#include "graft_rules.h"

#include <stdlib.h>
#include <string.h>

#include "type_infer.h"
#include "util.h"

/* note [computed attributes]: name=EXPR where EXPR computes a number from
 * the bindings (units=shape(w)[0], axis=(rank(x) - 1)) is evaluated as a
 * guard is: an int when the value is integral, else a float.  When the
 * bindings cannot give the value (no type known, or a dim it reads
 * unknown, or a variable bound to a node other than a scalar constant),
 * the rewrite does not happen (rewrite_computable), as when a guard is
 * false.  A list attribute may have computed items
 * (newshape=[-1, shape(x)[2]]), each a number, or be shape(x), the dims
 * of x's type. */

/* Whether x computes a number on b (a dim it reads unknown gives none:
 * note [unknown dims] in emit_c_rt.c). */
static bool number_known(const graft_expr *x, const graft_binding *b)
{
    return guard_value(x, b).kind == GRAFT_GV_NUM;
}

/* x's type, for shape(x), when it is a tensor type with every dim known. */
static const graft_type *shape_known(const graft_expr *x, const graft_binding *b)
{
    graft_guard_val v = guard_value(x, b);
    if (v.kind != GRAFT_GV_DIMS)
        return NULL;
    for (int i = 0; i < v.type->rank; i++)
        if (v.type->dims[i] < 0)
            return NULL;
    return v.type;
}

/* A literal item of a list: its value is its own (attr(c, name) carries
 * only its default). */
static bool is_literal(const graft_expr *x)
{
    return x->attr && x->kind != GRAFT_EXPR_ATTR;
}

/* Whether x reads value(c) of a constant c of a float dtype, alone or in
 * arithmetic: its value is a float even when integral
 * (activation_params=[value(lo), value(hi)] with lo and hi 0f and 6f are
 * floats, as the op's FLOATS attribute wants; scale=(1 / value(s)) with s
 * 1f is a float too). */
static bool float_value(const graft_expr *x, const graft_binding *b)
{
    if (x->kind == GRAFT_EXPR_ARITH)
        return float_value(x->kids[0], b) || (x->nkids > 1 && float_value(x->kids[1], b));
    const char *dt = x->kind == GRAFT_EXPR_VALUE && b[x->slot].node
                         ? pattern_node_dtype(b[x->slot].node)
                         : NULL;
    return dt && (strncmp(dt, "float", 5) == 0 || strncmp(dt, "bfloat", 6) == 0);
}

static const graft_attr_value *computed_value(graft_graph *g, const graft_expr *x,
                                              const graft_binding *b)
{
    if (!number_known(x, b))
        return NULL;
    graft_guard_val v = guard_value(x, b);
    bool integral = v.f == (double)(int64_t)v.f && !float_value(x, b);
    graft_attr_value *a = graph_new_attr_value(g, integral ? GRAFT_ATTR_INT : GRAFT_ATTR_FLOAT);
    a->f = v.f;
    a->i = (int64_t)v.f;
    return a;
}

static const graft_attr_value *attr_value(graft_engine *e, const graft_expr *x,
                                          const graft_binding *b);

/* A list whose items are computed ([-1, shape(x)[2]]): literals, and
 * numbers that all have a value, or no value. */
static const graft_attr_value *computed_list(graft_engine *e, const graft_expr *x,
                                             const graft_binding *b)
{
    graft_graph *g = e->g;
    const graft_attr_value **items = arena_array(graph_arena(g), (size_t)x->nkids + 1,
                                          sizeof *items);
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *item = x->kids[i];
        if (!is_literal(item) && !number_known(item, b))
            return NULL;
        if (!(items[i] = attr_value(e, item, b)))
            return NULL;
    }
    graft_attr_value *a = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    a->nitems = x->nkids;
    a->items = items;
    return a;
}

/* shape(x) as an attribute value: x's dims as a list of ints. */
static const graft_attr_value *shape_value(graft_graph *g, const graft_expr *x,
                                           const graft_binding *b)
{
    const graft_type *t = shape_known(x, b);
    if (!t)
        return NULL;
    graft_attr_value **items = arena_array(graph_arena(g), (size_t)t->rank + 1, sizeof *items);
    for (int i = 0; i < t->rank; i++) {
        items[i] = graph_new_attr_value(g, GRAFT_ATTR_INT);
        items[i]->i = t->dims[i];
        items[i]->f = (double)t->dims[i];
    }
    graft_attr_value *a = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    a->nitems = t->rank;
    a->items = (const graft_attr_value *const *)items;
    return a;
}

/* note [constant bytes read once]: a tensor constant's number (an ONNX
 * initializer of one element, the workload's eps) is its bytes decoded
 * (node_const_number: the dtype found by name, the size checked, the
 * element converted), 340 instructions, and each of the workload's
 * 10,000 groups decoded the one eps again (what a check read holds for
 * its group only: note [constant read once]).  The number is a function
 * of the constant's type and bytes, and a type is never changed once
 * made, so the engine keeps the last tensor constant's type, bytes (up
 * to CONST_BYTES) and answer, and a constant of that type and those
 * bytes, itself or another (a model may hold many initializers of one
 * value), takes the answer.  Out of line: inlined, its registers' saves
 * cost every read of a scalar (Relay's eps) 28 instructions. */
static __attribute__((noinline)) bool tensor_number(graft_engine *e, const graft_node *n,
                                                    double *v)
{
    size_t nbytes;
    const void *bytes = node_const_data(n, &nbytes);
    if (!bytes || nbytes > CONST_BYTES || !node_type(n))
        return node_const_number(n, v); /* not kept */
    if (node_type(n) != e->bytes_type || nbytes != e->bytes_len ||
        memcmp(bytes, e->bytes, nbytes) != 0) {
        e->bytes_has_number = node_const_number(n, &e->bytes_number);
        e->bytes_type = node_type(n);
        e->bytes_len = nbytes;
        memcpy(e->bytes, bytes, nbytes);
    }
    *v = e->bytes_number;
    return e->bytes_has_number;
}

/* note [constant read once]: a bound variable given as an attribute
 * value (epsilon=eps) is a scalar constant's number, read by the group's
 * check (rewrite_places_known: whether it has one) and again by the
 * build; an ONNX constant's number is its initializer's bytes decoded,
 * 340 instructions each time on the workload's rewrite.  So the check
 * keeps the constant it read and its number in the engine, the build
 * takes them from there, and rewrite_build forgets them: they hold from
 * one group's check to its build only.  The attribute value made of the
 * number is a function of it and the constant's dtype, and the workload
 * gives every rewrite the same eps: the engine keeps the last one made,
 * and a constant of the same dtype and number shares it (attribute values
 * are never changed once made: note [names interned once]), 85
 * instructions and 88 bytes a rewrite fewer. */
static bool const_number(graft_engine *e, const graft_node *n, double *v)
{
    if (n == e->read_const) {
        *v = e->read_number;
        return true;
    }
    bool tensor = node_kind(n) == NODE_CONST && !node_const_is_scalar(n);
    if (!(tensor ? tensor_number(e, n, v) : node_const_number(n, v)))
        return false; /* note [constant bytes read once] */
    e->read_const = n;
    e->read_number = *v;
    return true;
}

/* The graph's copy of rule-set object key (a name, a literal value, a
 * declaration array) made before, or NULL (note [names interned once]). */
static const void *copy_found(graft_engine *e, const void *key)
{
    int64_t *slot = keymap_get(&e->interned, (uint64_t)(uintptr_t)key);
    return slot ? (const void *)(intptr_t)*slot : NULL;
}

/* Remember copy as the graph's copy of key; returns copy. */
static const void *copy_kept(graft_engine *e, const void *key, const void *copy)
{
    *keymap_put(&e->interned, (uint64_t)(uintptr_t)key, 0) = (int64_t)(intptr_t)copy;
    return copy;
}

/* The graph's copy of literal attribute value v of the rule set, made
 * once (note [names interned once]). */
static const graft_attr_value *literal_once(graft_engine *e, const graft_attr_value *v)
{
    const graft_attr_value *c = copy_found(e, v);
    return c ? c : copy_kept(e, v, graph_copy_attr_value(e->g, v));
}

/* The attribute value of number constant n, whose number is number:
 * the last one made when of the same dtype and number (note [constant
 * read once]). */
static const graft_attr_value *number_value(graft_engine *e, const graft_node *n, double number)
{
    const char *dtype = node_const_dtype(n);
    if (e->made_number && dtype == e->made_dtype &&
        memcmp(&number, &e->made_number->f, sizeof number) == 0)
        return e->made_number;
    e->made_number = pattern_number_attr(e->g, n, number);
    e->made_dtype = dtype;
    return e->made_number;
}

/* The value of name=EXPR in a new op call, or NULL when the expression has
 * none (an attribute absent without default: then left out). */
static const graft_attr_value *attr_value(graft_engine *e, const graft_expr *x,
                                          const graft_binding *b)
{
    graft_graph *g = e->g;
    double v;
    switch (x->kind) {
    case GRAFT_EXPR_SLOT: {
        const graft_binding *s = &b[x->slot];
        if (s->attr)
            return graph_copy_attr_value(g, s->attr);
        return s->node && const_number(e, s->node, &v) ? number_value(e, s->node, v) : NULL;
    }
    case GRAFT_EXPR_ATTR: {
        const graft_node *n = b[x->slot].node;
        const graft_attr_value *v = n ? node_find_attr(n, x->s) : NULL;
        v = v ? v : x->attr;
        return v ? graph_copy_attr_value(g, v) : NULL;
    }
    case GRAFT_EXPR_ARITH:
    case GRAFT_EXPR_GETITEM:
    case GRAFT_EXPR_RANK:
    case GRAFT_EXPR_USERS:
    case GRAFT_EXPR_VALUE:
        return computed_value(g, x, b);
    case GRAFT_EXPR_LIST:
        return x->attr ? literal_once(e, x->attr) : computed_list(e, x, b);
    case GRAFT_EXPR_SHAPE:
        return shape_value(g, x, b);
    default:
        return x->attr ? literal_once(e, x->attr) : NULL;
    }
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

/* note [names interned once]: an action's op and attribute names live in
 * the rule set, and every node built interned them in the graph again (a
 * hash of the name each time: the graph's table of recent canonical
 * pointers knows only the graph's own copies).  The engine remembers the
 * graph's copy of each rule-set name it has interned, and so of each
 * literal attribute value it has copied (axis=-1: a copy made and 88
 * bytes kept per rewrite); nodes share it, as attribute values are never
 * changed once made (graph_set_attrs copies the pointers). */
static const char *intern_once(graft_engine *e, const char *s)
{
    const char *c = copy_found(e, s);
    return c ? c : copy_kept(e, s, graph_intern(e->g, s));
}

/* x's attribute declarations with the graph's copies of their names,
 * made once per action node (note [names interned once]; the map's keys
 * are rule-set addresses, names and declaration arrays alike). */
static const graft_attr_decl *interned_decls(graft_engine *e, const graft_expr *x)
{
    const graft_attr_decl *found = copy_found(e, x->decls);
    if (found)
        return found;
    graft_attr_decl *d = arena_array(graph_arena(e->g), (size_t)x->ndecls, sizeof *d);
    for (int i = 0; i < x->ndecls; i++) {
        d[i] = x->decls[i];
        d[i].name = intern_once(e, x->decls[i].name);
    }
    return copy_kept(e, x->decls, d);
}

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
 * operands are plain (plain_kids, 80).  Entries are allocated one by one,
 * so one stays where it is while the operands' builds add others. */
typedef struct ActionCall {
    const char *op;          /* the op, the graph's copy */
    const char **names;      /* per attribute written, its name's copy
                                (NULL for a copy of a node's) */
    const graft_attr_value **literals; /* per attribute, its literal
                                value's copy, or NULL */
    bool plain;              /* plain_kids(x) */
    int nin, nout, cap;      /* cap: room in in */
    graft_attr *in;          /* the nin given */
    const graft_attr *out;   /* the nout in canonical order, in the
                                graph's arena */
    struct LastTyped *last;  /* the last two calls typed, the last
                                first, or NULL (note [types by action
                                node]) */
    bool untyped;            /* its last call listed stayed untyped: its
                                calls are no longer listed */
} ActionCall;

/* The last constant made of a bound attribute value given as an operand
 * (note [attribute operands spelled once]). */
typedef struct OperandConst {
    graft_attr_kind kind;    /* the value's kind, f and i */
    double f;
    int64_t i;
    const char *dtype;       /* the other operands' dtype, or NULL */
    const char *text;        /* the constant's spelling (NULL before the
                                first), dtype and value, as made (the
                                node itself may be released since) */
    const char *made_dtype;
    double value;
} OperandConst;

/* A call the build under way made: its action node's entry, and the
 * bound call whose attributes it has when they are all one's of its op
 * (note [rebuilt calls keep their types]), else NULL. */
typedef struct MadeCall {
    const graft_node *made, *from;
    ActionCall *c;
} MadeCall;

struct ActionCalls {
    KeyMap by_action;     /* an action node -> its entry in calls, +1 */
    VEC(ActionCall *) calls;
    OperandConst operand; /* note [attribute operands spelled once] */
    VEC(MadeCall) made;   /* the build under way's, in id order */
    bool relay;           /* the graph is Relay's: calls are listed */
    bool untyped_made;    /* a build made a node that stayed untyped:
                             stays_untyped is asked from then on (a typed
                             model's builds never pay for it) */
};

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

static bool plain_kids(const graft_expr *x);

/* Whether attribute value x is a literal, its value x->attr as written
 * (attr_value's literal cases). */
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

/* The engine's entries of call action nodes, made the first time. */
static struct ActionCalls *action_calls(graft_engine *e)
{
    if (!e->calls) {
        e->calls = xcalloc(1, sizeof *e->calls);
        e->calls->relay = graph_ir(e->g) == IR_RELAY;
    }
    return e->calls;
}

/* Call action node x's entry, made the first time (note [canonical
 * attributes once]). */
static ActionCall *action_call(graft_engine *e, const graft_expr *x)
{
    action_calls(e);
    const int64_t *at = keymap_get(&e->calls->by_action, (uint64_t)(uintptr_t)x);
    if (at)
        return e->calls->calls.items[*at - 1];
    ActionCall *c = xcalloc(1, sizeof *c);
    c->op = intern_once(e, x->s);
    c->names = xcalloc((size_t)x->nattrs + 1, sizeof *c->names);
    c->literals = xcalloc((size_t)x->nattrs + 1, sizeof *c->literals);
    for (int i = 0; i < x->nattrs; i++) {
        const graft_act_attr *a = &x->attrs[i];
        if (a->src == GRAFT_ASRC_COPY)
            continue;
        c->names[i] = intern_once(e, a->name);
        c->literals[i] = literal_value(a->value) ? literal_once(e, a->value->attr) : NULL;
    }
    c->plain = plain_kids(x);
    vec_push(&e->calls->calls, c);
    *keymap_put(&e->calls->by_action, (uint64_t)(uintptr_t)x, 0) = (int64_t)e->calls->calls.len;
    return c;
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
    memo->nout = pattern_attrs_canonical_interned(attrs, *n, interned_decls(e, x), x->ndecls);
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
        const graft_attr_value *v = c->literals[i] ? c->literals[i] : attr_value(e, a->value, b);
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

static graft_node *build(graft_engine *e, const graft_expr *x, const graft_binding *b);

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
 * infer_new gives it c's type when c is typed and each operand is c's,
 * or of c's operand's type (the same address: note [canonical tensor
 * types]) and no scalar constant; anything else is typed as before.
 * ONNX calls are not (their types read constant operands' values, which
 * equal types do not tell). */

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


/* An operand that is a bound attribute value (note [attribute operands]
 * in graft_rules.h). */
static bool attr_operand(const graft_expr *x)
{
    return x->kind == GRAFT_EXPR_SLOT && x->i == 1;
}

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
    OperandConst *last = &action_calls(e)->operand;
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
static bool splice_range(const graft_expr *x, const graft_binding *b, int *from, int *end)
{
    const graft_node *t = b[x->slot].node;
    int fields = rewrite_splice_fields(x, t && node_kind(t) == NODE_TUPLE ? node_nargs(t) : -1);
    *from = (int)x->i;
    *end = *from + fields;
    return fields >= 0;
}

/* Operands an action's node takes without a heap buffer. */
enum { FEW_KIDS = 8 };

/* Whether every operand of x is one node, built where it stands: no
 * splice, no bound attribute value. */
static bool plain_kids(const graft_expr *x)
{
    for (int i = 0; i < x->nkids; i++)
        if (x->kids[i]->kind == GRAFT_EXPR_SPLICE || attr_operand(x->kids[i]))
            return false;
    return true;
}

/* build_kids for plain_kids' operands, each built in order: the same
 * nodes made in the same order, without the places a splice or an
 * attribute operand needs (150 instructions a batch norm built); a bound
 * node, most operands, is read here, as build would. */
static graft_node **build_plain_kids(graft_engine *e, const graft_expr *x, const graft_binding *b,
                                     int *n, graft_node **few)
{
    graft_node **kids = x->nkids < FEW_KIDS ? few : xcalloc((size_t)x->nkids + 1, sizeof *kids);
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *k = x->kids[i];
        kids[i] = k->kind == GRAFT_EXPR_SLOT ? b[k->slot].node : build(e, k, b);
    }
    *n = x->nkids;
    return kids;
}

/* The operands of x: the others first, then constants made of bound
 * attribute values, which take their dtype from the others; a splice
 * gives the fields of its tuple (note [sequence variables] in
 * src/compiler/check_vars.c).  *n gets their count.  They are put in few
 * (FEW_KIDS entries) when they fit, else in a buffer to free. */
static graft_node **build_kids(graft_engine *e, const graft_expr *x, const graft_binding *b, int *n,
                               graft_node **few)
{
    if (plain_kids(x)) /* most: each operand its own node, in order */
        return build_plain_kids(e, x, b, n, few);
    int at_few[FEW_KIDS], from, end;
    int *at = x->nkids < FEW_KIDS ? at_few : xcalloc((size_t)x->nkids + 1, sizeof *at);
    *n = 0;
    for (int i = 0; i < x->nkids; i++) {
        at[i] = *n;
        bool spliced =
            x->kids[i]->kind == GRAFT_EXPR_SPLICE && splice_range(x->kids[i], b, &from, &end);
        *n += spliced ? end - from : x->kids[i]->kind != GRAFT_EXPR_SPLICE;
    }
    graft_node **kids = *n < FEW_KIDS ? few : xcalloc((size_t)*n + 1, sizeof *kids);
    memset(kids, 0, (size_t)*n * sizeof *kids);
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *k = x->kids[i];
        if (k->kind == GRAFT_EXPR_SPLICE && splice_range(k, b, &from, &end))
            for (int f = from; f < end; f++)
                kids[at[i] + f - from] = node_arg(b[k->slot].node, f);
        else if (k->kind != GRAFT_EXPR_SPLICE && !attr_operand(k))
            kids[at[i]] = build(e, k, b);
    }
    for (int i = 0; i < x->nkids; i++)
        if (attr_operand(x->kids[i]))
            kids[at[i]] = operand_const(e, b[x->kids[i]->slot].attr, kids, *n, at[i]);
    if (at != at_few)
        free(at);
    return kids;
}

/* f(y, ...): a call of the callee of call (an op, with call's attributes,
 * or a function value), note [callee variables] in pattern.h. */
static graft_node *callee_call(graft_graph *g, const graft_node *call, graft_node *const *args,
                               int nargs)
{
    if (!node_op(call))
        return graph_add_fn_call(g, node_callee(call), args, nargs);
    int nattrs = node_nattrs(call);
    graft_attr *attrs = arena_array(graph_arena(g), (size_t)nattrs + 1, sizeof *attrs);
    for (int i = 0; i < nattrs; i++)
        attrs[i] = *node_attr(call, i);
    return graph_add_call(g, node_op(call), args, nargs, attrs, nattrs);
}

/* The node an action expression stands for: a bound node, or a new one. */
static graft_node *build(graft_engine *e, const graft_expr *x, const graft_binding *b)
{
    graft_graph *g = e->g;
    graft_node *n, **kids, *few[FEW_KIDS];
    int nkids;
    switch (x->kind) {
    case GRAFT_EXPR_SLOT:
        return b[x->slot].node;
    case GRAFT_EXPR_NUM:
        return graph_add_const(g, x->text, x->f, x->dtype);
    case GRAFT_EXPR_OPREF:
        return graph_add_opref(g, x->s);
    case GRAFT_EXPR_FOLD: /* note [constant folding] in fold.h */
        n = rewrite_fold_find(e, x);
        return n ? n : rewrite_fold(e, x, build(e, x->kids[0], b));
    case GRAFT_EXPR_CALL: {
        ActionCall *c = action_call(e, x); /* note [canonical attributes once] */
        kids = c->plain ? build_plain_kids(e, x, b, &nkids, few)
                        : build_kids(e, x, b, &nkids, few);
        n = new_call(e, x, c, b, kids, nkids);
        if (e->calls->relay && !c->untyped)
            note_made(e, x, b, c, n);
        break;
    }
    case GRAFT_EXPR_CALLEE:
        kids = build_kids(e, x, b, &nkids, few);
        n = callee_call(g, b[x->slot].node, kids, nkids);
        break;
    case GRAFT_EXPR_TUPLE:
        kids = build_kids(e, x, b, &nkids, few);
        n = graph_add_tuple(g, kids, nkids);
        break;
    default: /* GRAFT_EXPR_GETITEM; t[i]: kids[1] the index variable, no node */
        kids = build_kids(e, x, b, &nkids, few);
        n = graph_add_getitem(g, kids[0], x->nkids == 2 ? (int)b[x->kids[1]->slot].attr->i
                                                         : (int)x->i);
        break;
    }
    if (kids != few)
        free(kids);
    return n;
}

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
    return e ? const_number(e, s->node, &v) : node_const_number(s->node, &v);
}

/* Whether a computed value (a number, a list of them, a shape) or a bound
 * variable has a value on b; other attribute values always do. */
static bool has_value(const graft_expr *v, const graft_binding *b)
{
    if (v->kind == GRAFT_EXPR_SLOT)
        return slot_has_value(NULL, &b[v->slot]);
    if (v->kind == GRAFT_EXPR_LIST && !v->attr) {
        for (int i = 0; i < v->nkids; i++)
            if (!is_literal(v->kids[i]) && !number_known(v->kids[i], b))
                return false;
        return true;
    }
    if (v->kind == GRAFT_EXPR_SHAPE)
        return shape_known(v, b) != NULL;
    return !is_computed(v) || number_known(v, b);
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
    return b && splice_range(s, b, &from, &end);
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
             : splice_range(x->kids[i], b, &from, &end) ? end - from
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

/* Before a build: the calls the last one made forgotten. */
static void forget_made(graft_engine *e)
{
    if (e->calls)
        e->calls->made.len = 0;
}

/* Labels the nodes an action made (ids from first on: made operands
 * first, so id order is bottom-up). */
static void adopt_new(graft_engine *e, uint32_t first)
{
    uint32_t count = graph_node_count(e->g);
    for (uint32_t id = first; id < count; id++) {
        labels_node(e->labels, graph_node(e->g, id));
        e->stats.labelled++;
    }
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

/* infer_new on a Relay graph: each call the build listed takes a type
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
static void infer_new(graft_engine *e, uint32_t first)
{
    graft_graph *g = e->g;
    StrBuf why = {0}; /* allocated only for a contradiction's message */
    uint32_t count = graph_node_count(g);
    if (!e->types)
        e->types = action_types_new(g);
    struct ActionCalls *ac = action_calls(e);
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

/* The nodes an action made get their types from their operands' (note
 * [type relations] in type_infer.h), as TVM's rewrite infers the types
 * of a callback's result; a new result whose type stays unknown takes
 * the replaced root's (it computes the same value).  A bound node keeps
 * its own.  An action that builds an ill-typed node leaves that node's
 * type unknown: the rule, not the model, is at fault, and the model still
 * prints. */
static graft_node *build_action(graft_engine *e, const graft_rule *r, const graft_binding *b,
                                graft_node *root)
{
    uint32_t first = graph_node_count(e->g);
    if (!r->build_fn && e->check_fold_ready[r - e->rs->rules] &&
        !rewrite_fold_ready(e, r->action, b))
        return NULL; /* a fold whose leaves are not all constants */
    rewrite_fold_begin(e);
    forget_made(e);
    graft_node *by = r->build_fn ? r->build_fn(e->g, b, root) : build(e, r->action, b);
    if (!by || e->fold_failed)
        return NULL; /* a compiled action without its attributes' values, or a fold
                        without a value: what was built is left to the next sweep */
    if (e->check_share[r - e->rs->rules]) /* note [actions of distinct nodes] in rewrite_share.c */
        rewrite_share(e->g, first, &by, 1); /* note [shared sub-expressions] */
    infer_new(e, first);
    if (node_id(by) >= first && !node_type(by) && node_type(root))
        graph_set_type(e->g, by, node_type(root));
    adopt_new(e, first);
    return by;
}

graft_node *rewrite_build(graft_engine *e, const graft_rule *r, const graft_binding *b,
                          graft_node *root)
{
    graft_node *by = build_action(e, r, b, root);
    e->read_const = NULL; /* note [constant read once] */
    return by;
}

/* note [root values]: the action of a rule of several roots gives one
 * value per root, in the roots' order (note [several roots] in
 * src/compiler/check_roots.c): a tuple's fields are built each as a
 * value of its own, so no tuple node is made; any other action (a call
 * of an op of several results, split) is built once and its results are
 * read by element, as the IRs read them (note [several results] in
 * graph.h; an ONNX call gets that many outputs).  A value whose type
 * stays unknown takes its root's, as rewrite_build does.  Compiled (note
 * [compiled roots] in src/compiler/emit_c_tables.c), a tuple's fields
 * are built by build_roots_fn, any other action by build_fn. */
static bool build_roots(graft_engine *e, const graft_rule *r, const graft_binding *b,
                        graft_node *const *roots, graft_node **by)
{
    uint32_t first = graph_node_count(e->g);
    const graft_expr *x = r->action;
    forget_made(e);
    if (r->build_roots_fn) {
        if (!r->build_roots_fn(e->g, b, by))
            return false;
    } else if (x && x->kind == GRAFT_EXPR_TUPLE && x->nkids == r->nroots) {
        for (int j = 0; j < r->nroots; j++)
            by[j] = build(e, x->kids[j], b);
    } else {
        graft_node *n = r->build_fn ? r->build_fn(e->g, b, roots[0]) : build(e, x, b);
        if (!n)
            return false;
        /* ONNX rules on graft verify's instances (graphs of no IR) too */
        if ((graph_ir(e->g) == IR_ONNX || e->rs->onnx_opset) && node_kind(n) == NODE_CALL)
            graph_set_noutputs(e->g, n, r->nroots);
        for (int j = 0; j < r->nroots; j++)
            by[j] = graph_add_getitem(e->g, n, j);
    }
    rewrite_share(e->g, first, by, r->nroots); /* note [shared sub-expressions] */
    infer_new(e, first);
    for (int j = 0; j < r->nroots; j++)
        if (node_id(by[j]) >= first && !node_type(by[j]) && node_type(roots[j]))
            graph_set_type(e->g, by[j], node_type(roots[j]));
    adopt_new(e, first);
    return true;
}

bool rewrite_build_roots(graft_engine *e, const graft_rule *r, const graft_binding *b,
                         graft_node *const *roots, graft_node **by)
{
    bool built = build_roots(e, r, b, roots, by);
    e->read_const = NULL; /* note [constant read once] */
    return built;
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
        if (kid->kind == GRAFT_EXPR_SPLICE && splice_range(kid, b, &from, &end)) {
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
