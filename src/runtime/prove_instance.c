/* prove_instance.c - a rule proved on one instance of its pattern, every
 * element of every leaf a variable: "proved for SHAPE" (note [proving a
 * rule] in prove.h).  For rules whose ops leave the element-wise fragment
 * (reductions, layers, shape ops): the instance graft verify builds
 * (verify_build) is encoded node by node, each value an array of terms,
 * then rewritten by the engine and encoded again.  A proof holds for that
 * instance's shapes and constants only, so it does not count as proved;
 * a counterexample is one, once the evaluator confirms it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove_impl.h"

/* An instance has many more terms than the element-wise question, and a
 * non-linear one can keep Z3 busy for minutes: a tenth of the budget. */
enum { MAX_ELEMENTS = 4096, INSTANCE_RLIMIT = 2000000, INSTANCE_TIMEOUT_MS = 2000 };

/* A node's value: its shape and one term per element. */
typedef struct SymVal {
    int rank;
    int64_t dims[EVAL_MAX_RANK];
    size_t size;
    ProveTerm *el;   /* NULL: not encoded yet */
    bool tuple;      /* nn.batch_norm, nn.dropout: el is field 0 */
} SymVal;

typedef struct InstEnc {
    Encoder *e;
    Replay *r;
    SymVal *vals;    /* by node id */
    size_t cap;
} InstEnc;

static SymVal *val_of(InstEnc *ie, const graft_node *n)
{
    size_t id = node_id(n);
    if (id >= ie->cap) {
        size_t old = ie->cap;
        ie->vals = xgrow_items(ie->vals, &ie->cap, id + 1, sizeof *ie->vals);
        memset(ie->vals + old, 0, (ie->cap - old) * sizeof *ie->vals);
    }
    return &ie->vals[id];
}

static bool set_shape(InstEnc *ie, SymVal *v, int rank, const int64_t *dims)
{
    v->rank = rank;
    v->size = 1;
    for (int i = 0; i < rank; i++)
        v->size *= (size_t)(v->dims[i] = dims[i]);
    if (v->size > MAX_ELEMENTS) {
        prove_fail(ie->e, "an instance too large for the prover");
        return false;
    }
    v->el = xcalloc(v->size + 1, sizeof *v->el);
    return true;
}

/* The multi-index of flat index o in dims. */
static void unflatten(size_t o, int rank, const int64_t *dims, int64_t *idx)
{
    for (int i = rank - 1; i >= 0; i--) {
        idx[i] = (int64_t)(o % (size_t)dims[i]);
        o /= (size_t)dims[i];
    }
}

/* The flat index in v of the output index idx (rank out_rank), read by
 * broadcasting: aligned right, size-1 dims at 0. */
static size_t broadcast_index(const SymVal *v, const int64_t *idx, int out_rank)
{
    size_t f = 0;
    for (int i = 0; i < v->rank; i++) {
        int64_t k = idx[out_rank - v->rank + i];
        f = f * (size_t)v->dims[i] + (size_t)(v->dims[i] == 1 ? 0 : k);
    }
    return f;
}

/* ---- leaves and attributes ---- */

static bool encode_leaf(InstEnc *ie, const graft_node *n, SymVal *v)
{
    const VerifyLeaf *l = NULL;
    for (size_t i = 0; i < ie->r->in.leaves.len; i++)
        if (ie->r->in.leaves.items[i].node == n)
            l = &ie->r->in.leaves.items[i];
    if (!l && node_kind(n) == NODE_CONST && node_const_is_scalar(n)) {
        double f = node_const_value(n);
        set_shape(ie, v, 0, NULL);
        v->el[0] = (ProveTerm){.v = prove_num(ie->e, f), .literal = true, .lit = f};
        return true;
    }
    if (!l)
        return prove_fail(ie->e, "a leaf without value in the instance").v != NULL;
    if (!set_shape(ie, v, l->value.rank, l->value.dims))
        return false;
    const char *name = l->slot >= 0 ? ie->e->rule->slot_names[l->slot] : "_";
    for (size_t i = 0; i < v->size; i++) {
        if (l->fixed) {
            v->el[i] = (ProveTerm){.v = prove_num(ie->e, l->value.data[0]), .literal = true,
                                   .lit = l->value.data[0]};
            continue;
        }
        char text[96];
        snprintf(text, sizeof text, "%s[%zu]", name, i);
        v->el[i].v = Z3_mk_const(ie->e->z, Z3_mk_string_symbol(ie->e->z, text), ie->e->sort);
    }
    return true;
}

static bool node_attr_number(Encoder *e, const void *src, const char *name, ProveTerm *out)
{
    const graft_attr_value *a = node_find_attr(src, name);
    if (!a || (a->kind != GRAFT_ATTR_INT && a->kind != GRAFT_ATTR_FLOAT &&
               a->kind != GRAFT_ATTR_BOOL))
        return false;
    double f = a->kind == GRAFT_ATTR_FLOAT ? a->f : (double)a->i;
    *out = (ProveTerm){.v = prove_num(e, f), .literal = true, .lit = f};
    return true;
}

static int64_t attr_int(const graft_node *n, const char *name, int64_t dflt)
{
    const graft_attr_value *a = node_find_attr(n, name);
    return a && (a->kind == GRAFT_ATTR_INT || a->kind == GRAFT_ATTR_BOOL) ? a->i : dflt;
}

/* A list attribute of ints into out (at most EVAL_MAX_RANK); -1 when it
 * is absent or None. */
static int attr_list(const graft_node *n, const char *name, int64_t *out)
{
    const graft_attr_value *a = node_find_attr(n, name);
    if (!a || a->kind != GRAFT_ATTR_LIST)
        return a && a->kind == GRAFT_ATTR_INT ? (out[0] = a->i, 1) : -1;
    int k = 0;
    for (int i = 0; i < a->nitems && k < EVAL_MAX_RANK; i++)
        out[k++] = a->items[i]->i;
    return k;
}

/* ---- ops ---- */

/* Element-wise and broadcasting ops, and the per-channel ones (vector
 * operands read along axis). */
static bool encode_elementwise(InstEnc *ie, const graft_node *n, SymVal **args, int nargs,
                               SymVal *v)
{
    const char *op = node_op(n);
    bool channel = strcmp(op, "nn.batch_norm") == 0 || strcmp(op, "nn.bias_add") == 0;
    int rank = 0;
    int64_t dims[EVAL_MAX_RANK];
    for (int k = 0; k < (channel ? 1 : nargs); k++)
        rank = args[k]->rank > rank ? args[k]->rank : rank;
    for (int i = 0; i < rank; i++) {
        dims[i] = 1;
        for (int k = 0; k < (channel ? 1 : nargs); k++) {
            int j = i - (rank - args[k]->rank);
            if (j >= 0 && args[k]->dims[j] != 1)
                dims[i] = args[k]->dims[j];
        }
    }
    int64_t axis = attr_int(n, "axis", 1);
    axis = axis < 0 ? axis + rank : axis;
    if (!set_shape(ie, v, rank, dims))
        return false;
    ProveAttrs attrs = {node_attr_number, n};
    const char *as = strcmp(op, "nn.bias_add") == 0 ? "add" : op;
    for (size_t o = 0; o < v->size; o++) {
        int64_t idx[EVAL_MAX_RANK];
        ProveTerm a[8];
        unflatten(o, rank, dims, idx);
        for (int k = 0; k < nargs && k < 8; k++)
            a[k] = args[k]->el[channel && k > 0 ? (size_t)idx[axis]
                                                : broadcast_index(args[k], idx, rank)];
        v->el[o] = prove_op(ie->e, as, a, nargs, &attrs);
        if (!v->el[o].v)
            return false;
        v->tuple = v->el[o].tuple;
    }
    return true;
}

/* sum mean max min over axis (a list, or None: every axis), keepdims. */
static bool encode_reduce(InstEnc *ie, const graft_node *n, const SymVal *x, SymVal *v)
{
    const char *op = node_op(n);
    int64_t axes[EVAL_MAX_RANK];
    int naxes = attr_list(n, "axis", axes);
    bool keep = attr_int(n, "keepdims", 0), reduced[EVAL_MAX_RANK] = {false};
    if (attr_int(n, "exclude", 0))
        return prove_fail(ie->e, "%s with exclude leaves the fragment", op).v != NULL;
    for (int i = 0; i < x->rank; i++)
        reduced[i] = naxes < 0;
    for (int i = 0; i < naxes; i++)
        reduced[axes[i] < 0 ? axes[i] + x->rank : axes[i]] = true;
    int64_t dims[EVAL_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < x->rank; i++)
        if (!reduced[i] || keep)
            dims[rank++] = reduced[i] ? 1 : x->dims[i];
    if (!set_shape(ie, v, rank, dims))
        return false;
    const char *fold = strcmp(op, "max") == 0 ? "maximum" : strcmp(op, "min") == 0 ? "minimum"
                                                                                    : "add";
    ProveAttrs none = {node_attr_number, n};
    size_t count = x->size / (v->size ? v->size : 1);
    for (size_t i = 0; i < x->size; i++) {
        int64_t idx[EVAL_MAX_RANK], out[EVAL_MAX_RANK];
        unflatten(i, x->rank, x->dims, idx);
        int k = 0;
        for (int d = 0; d < x->rank; d++)
            if (!reduced[d] || keep)
                out[k++] = reduced[d] ? 0 : idx[d];
        size_t o = 0;
        for (int d = 0; d < rank; d++)
            o = o * (size_t)dims[d] + (size_t)out[d];
        ProveTerm pair[2] = {v->el[o], x->el[i]};
        v->el[o] = v->el[o].v ? prove_op(ie->e, fold, pair, 2, &none) : x->el[i];
    }
    for (size_t o = 0; strcmp(op, "mean") == 0 && o < v->size; o++)
        v->el[o].v = prove_div(ie->e, v->el[o].v, prove_num(ie->e, (double)count));
    return true;
}

/* transpose(x, axes): output index idx reads x at src[axes[i]] = idx[i]. */
static bool encode_transpose(InstEnc *ie, const graft_node *n, const SymVal *x, SymVal *v)
{
    int64_t dims[EVAL_MAX_RANK], list[EVAL_MAX_RANK];
    int nl = attr_list(n, "axes", list);
    if (nl >= 0 && nl != x->rank)
        return prove_fail(ie->e, "transpose's axes do not fit the instance").v != NULL;
    for (int i = 0; i < x->rank; i++) {
        int64_t a = nl < 0 ? x->rank - 1 - i : list[i] < 0 ? list[i] + x->rank : list[i];
        list[i] = a;
        dims[i] = x->dims[a];
    }
    if (!set_shape(ie, v, x->rank, dims))
        return false;
    for (size_t o = 0; o < v->size; o++) {
        int64_t idx[EVAL_MAX_RANK], src[EVAL_MAX_RANK];
        unflatten(o, v->rank, v->dims, idx);
        for (int i = 0; i < v->rank; i++)
            src[list[i]] = idx[i];
        size_t f = 0;
        for (int i = 0; i < x->rank; i++)
            f = f * (size_t)x->dims[i] + (size_t)src[i];
        v->el[o] = x->el[f];
    }
    return true;
}

/* Ops that only move elements: a new shape over the same row-major
 * order (reshape with positive dims and one -1, expand_dims, squeeze,
 * nn.batch_flatten, copy), or a transpose. */
static bool encode_move(InstEnc *ie, const graft_node *n, const SymVal *x, SymVal *v)
{
    const char *op = node_op(n);
    int64_t dims[EVAL_MAX_RANK], list[EVAL_MAX_RANK];
    int rank = 0, nl;
    if (strcmp(op, "transpose") == 0)
        return encode_transpose(ie, n, x, v);
    if (strcmp(op, "reshape") == 0) {
        nl = attr_list(n, "newshape", list);
        int64_t known = 1;
        int free_dim = -1;
        for (int i = 0; i < nl; i++) {
            if (list[i] == -1 && free_dim < 0)
                free_dim = i;
            else if (list[i] <= 0)
                return prove_fail(ie->e, "reshape's special dims leave the fragment").v != NULL;
            else
                known *= list[i];
            dims[rank++] = list[i];
        }
        if (free_dim >= 0)
            dims[free_dim] = (int64_t)x->size / known;
    } else if (strcmp(op, "expand_dims") == 0) {
        int64_t axis = attr_int(n, "axis", 0), k = attr_int(n, "num_newaxis", 1);
        axis = axis < 0 ? axis + x->rank + 1 : axis;
        for (int i = 0; i <= x->rank; i++) {
            for (int j = 0; i == axis && j < k && rank < EVAL_MAX_RANK; j++)
                dims[rank++] = 1;
            if (i < x->rank)
                dims[rank++] = x->dims[i];
        }
    } else if (strcmp(op, "squeeze") == 0) {
        nl = attr_list(n, "axis", list);
        for (int i = 0; i < x->rank; i++) {
            bool drop = nl < 0 && x->dims[i] == 1;
            for (int j = 0; j < nl; j++)
                drop = drop || list[j] == i || list[j] + x->rank == i;
            if (!drop)
                dims[rank++] = x->dims[i];
        }
    } else if (strcmp(op, "nn.batch_flatten") == 0) {
        dims[rank++] = x->rank ? x->dims[0] : 1;
        dims[rank++] = (int64_t)x->size / (x->rank ? x->dims[0] : 1);
    } else { /* copy */
        rank = x->rank;
        memcpy(dims, x->dims, sizeof dims);
    }
    if (!set_shape(ie, v, rank, dims))
        return false;
    if (v->size != x->size)
        return prove_fail(ie->e, "%s changes the element count", op).v != NULL;
    memcpy(v->el, x->el, v->size * sizeof *v->el);
    return true;
}

/* nn.dense(x, w): x (..., k) by w (units, k). */
static bool encode_dense(InstEnc *ie, const SymVal *x, const SymVal *w, SymVal *v)
{
    if (x->rank < 1 || w->rank != 2 || x->dims[x->rank - 1] != w->dims[1])
        return prove_fail(ie->e, "nn.dense's shapes leave the fragment").v != NULL;
    int64_t dims[EVAL_MAX_RANK], k = w->dims[1];
    memcpy(dims, x->dims, sizeof dims);
    dims[x->rank - 1] = w->dims[0];
    if (!set_shape(ie, v, x->rank, dims))
        return false;
    for (size_t o = 0; o < v->size; o++) {
        size_t row = o / (size_t)w->dims[0], unit = o % (size_t)w->dims[0];
        Z3_ast acc = NULL;
        for (int64_t j = 0; j < k; j++) {
            Z3_ast p = prove_mul(ie->e, x->el[row * (size_t)k + (size_t)j].v,
                                 w->el[unit * (size_t)k + (size_t)j].v);
            acc = acc ? prove_add(ie->e, acc, p) : p;
        }
        v->el[o].v = acc;
    }
    return true;
}

static bool is_op(const char *op, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(op, list[i]) == 0)
            return true;
    return false;
}

static bool encode_call(InstEnc *ie, const graft_node *n, SymVal *v)
{
    static const char *const reduce[] = {"sum", "mean", "max", "min", NULL};
    static const char *const move[] = {"transpose", "reshape", "expand_dims", "squeeze",
                                       "nn.batch_flatten", "copy", NULL};
    const char *op = node_op(n);
    int nargs = node_nargs(n);
    SymVal *args[8];
    if (!op || nargs > 8)
        return prove_fail(ie->e, "a call of a function leaves the fragment").v != NULL;
    for (int i = 0; i < nargs; i++) {
        args[i] = val_of(ie, node_arg(n, i));
        if (args[i]->tuple && !(strcmp(op, "nn.dropout") == 0))
            return prove_fail(ie->e, "a tuple operand of %s leaves the fragment", op).v != NULL;
    }
    if (is_op(op, reduce) && nargs == 1)
        return encode_reduce(ie, n, args[0], v);
    if (is_op(op, move) && nargs == 1)
        return encode_move(ie, n, args[0], v);
    if (strcmp(op, "nn.dense") == 0 && nargs == 2)
        return encode_dense(ie, args[0], args[1], v);
    return encode_elementwise(ie, n, args, nargs, v);
}

static bool encode_node(InstEnc *ie, const graft_node *n)
{
    SymVal *v = val_of(ie, n);
    if (v->el)
        return true;
    switch (node_kind(n)) {
    case NODE_VAR:
    case NODE_CONST:
        return encode_leaf(ie, n, v);
    case NODE_CALL:
        return encode_call(ie, n, v);
    case NODE_GETITEM: {
        SymVal *t = val_of(ie, pattern_operand(n, 0));
        if (!t->tuple || node_index(n) != 0)
            return prove_fail(ie->e, "an element access other than a batch norm's [0] "
                                     "leaves the fragment").v != NULL;
        *v = *t;
        v->el = xcalloc(t->size + 1, sizeof *v->el);
        memcpy(v->el, t->el, t->size * sizeof *v->el);
        v->tuple = false;
        return true;
    }
    default:
        return prove_fail(ie->e, "a tuple or function in the instance leaves the fragment")
                   .v != NULL;
    }
}

/* Encodes every node of the instance's graph reaching its output. */
static SymVal *encode_graph(InstEnc *ie)
{
    graft_graph *g = ie->r->in.g;
    graft_node **order = xcalloc((size_t)graph_node_count(g) + 1, sizeof *order);
    uint32_t count = graph_topo_order(g, order);
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++)
        ok = encode_node(ie, order[i]);
    free(order);
    return ok ? val_of(ie, graph_output(g)) : NULL;
}

/* ---- the question ---- */

/* "x: (2, 3) float32, eps = 0.5f", as graft verify names an instance. */
static void describe(const Encoder *e, const Replay *r, StrBuf *out)
{
    for (size_t k = 0; k < r->in.leaves.len; k++) {
        const VerifyLeaf *l = &r->in.leaves.items[k];
        const char *name = l->slot >= 0 ? e->rule->slot_names[l->slot] : "_";
        if (k)
            strbuf_puts(out, ", ");
        if (l->fixed) {
            strbuf_printf(out, "%s = %s", name, node_const_text(l->node));
            continue;
        }
        strbuf_printf(out, "%s: ", name);
        tensor_shape_text(&l->value, out);
        strbuf_printf(out, " %s", l->value.dtype);
    }
}

/* Fills each leaf element of r's instance with the model's value of the
 * variable the first instance (the same, built again) gave it. */
static void fill_elements(const Encoder *e, const InstEnc *first, Replay *r, Z3_model m)
{
    for (size_t k = 0; k < r->in.leaves.len && k < first->r->in.leaves.len; k++) {
        VerifyLeaf *l = &r->in.leaves.items[k];
        const SymVal *v = &first->vals[node_id(first->r->in.leaves.items[k].node)];
        for (size_t i = 0; !l->fixed && i < l->value.size && i < v->size; i++)
            l->value.data[i] = prove_model_double(e, m, v->el[i].v);
    }
}

/* A model of the instance's question: replayed on the same instance,
 * built again. */
static bool refute(Encoder *e, InstEnc *ie, uint32_t rule, Z3_solver s, ProveReport *out)
{
    Replay again;
    Z3_model m = Z3_solver_get_model(e->z, s);
    Z3_model_inc_ref(e->z, m);
    bool refuted = false;
    StrBuf detail = {0};
    if (prove_replay_find(e, rule, true, &again)) {
        fill_elements(e, ie, &again, m);
        for (size_t k = 0; k < again.in.leaves.len; k++) {
            const VerifyLeaf *l = &again.in.leaves.items[k];
            Value v = {.nfields = -1, .t = l->value};
            if (l->fixed)
                continue;
            strbuf_printf(&detail, "    %s: ", l->slot >= 0 ? e->rule->slot_names[l->slot] : "_");
            verify_value_text(&v, 8, &detail);
            strbuf_putc(&detail, '\n');
        }
        refuted = prove_replay_eval(e, &again, &detail);
    }
    prove_replay_free(&again);
    Z3_model_dec_ref(e->z, m);
    if (refuted) {
        out->verdict = PROVE_REFUTED;
        strbuf_free(&out->why);
        strbuf_free(&out->detail);
        strbuf_puts(&out->why, "refuted by the prover on [");
        describe(e, ie->r, &out->why);
        strbuf_putc(&out->why, ']');
        strbuf_puts(&out->detail, "  solver's counterexample (over the reals), element by "
                                  "element, replayed by the evaluator:\n");
        strbuf_puts(&out->detail, detail.data ? detail.data : "");
    }
    strbuf_free(&detail);
    return refuted;
}

/* Poses pattern == rewrite, element by element, on the instance. */
static Z3_lbool ask(Encoder *e, InstEnc *ie, const SymVal *pat, Z3_solver *out)
{
    if (!verify_rewrite_once((graft_rule_set[]){verify_single_rule(e->rs, (uint32_t)(e->rule -
                                                                     e->rs->rules))},
                            ie->r->in.g))
        return Z3_L_UNDEF;
    e->action_side = true;
    const SymVal *act = encode_graph(ie);
    if (!act || act->tuple || pat->tuple || act->rank != pat->rank ||
        memcmp(act->dims, pat->dims, (size_t)pat->rank * sizeof *pat->dims) != 0)
        return Z3_L_UNDEF;
    Z3_solver s = *out = prove_new_solver(e);
    /* Z3's non-linear arithmetic does not always honour the resource
       limit: a timeout too, past which the rule is only tested */
    Z3_params ps = Z3_mk_params(e->z);
    Z3_params_inc_ref(e->z, ps);
    Z3_params_set_uint(e->z, ps, Z3_mk_string_symbol(e->z, "timeout"), INSTANCE_TIMEOUT_MS);
    Z3_solver_set_params(e->z, s, ps);
    Z3_params_dec_ref(e->z, ps);
    Z3_ast *goal = xcalloc(pat->size + e->oblige.len + 1, sizeof *goal);
    size_t n = 0;
    for (size_t i = 0; i < e->oblige.len; i++)
        goal[n++] = e->oblige.items[i];
    for (size_t i = 0; i < pat->size; i++)
        goal[n++] = prove_same(e, pat->el[i].v, act->el[i].v);
    Z3_solver_assert(e->z, s, Z3_mk_not(e->z, Z3_mk_and(e->z, (unsigned)n, goal)));
    free(goal);
    return Z3_solver_check(e->z, s);
}

bool prove_on_instance(const graft_rule_set *rs, uint32_t rule, const ProveOptions *o,
                       ProveReport *out)
{
    Z3_context z = prove_new_context(o);
    Chooser ch = {0};
    Encoder e;
    prove_encoder_init(&e, z, false, rs, &rs->rules[rule], &ch);
    e.rlimit = INSTANCE_RLIMIT;
    Replay r;
    InstEnc ie = {.e = &e, .r = &r};
    bool settled = false;
    if (prove_replay_find(&e, rule, true, &r)) {
        const SymVal *pv = encode_graph(&ie);
        SymVal pat = pv ? *pv : (SymVal){0};
        Z3_solver s = NULL;
        Z3_lbool res = pv ? ask(&e, &ie, &pat, &s) : Z3_L_UNDEF;
        if (res == Z3_L_FALSE) {
            strbuf_puts(&out->why, "; proved for [");
            describe(&e, &r, &out->why);
            strbuf_puts(&out->why, "] only");
            settled = true;
        } else if (res == Z3_L_TRUE)
            settled = refute(&e, &ie, rule, s, out);
        if (s)
            Z3_solver_dec_ref(z, s);
    }
    for (size_t i = 0; i < ie.cap; i++)
        free(ie.vals[i].el);
    free(ie.vals);
    prove_replay_free(&r);
    prove_encoder_free(&e);
    Z3_del_context(z);
    return settled;
}
