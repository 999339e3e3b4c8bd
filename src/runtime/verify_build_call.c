/* verify_build_call.c - an op call of an instance: its operands built
 * (the primary leaf first, shape inputs after the data they shape), its
 * attributes from the pattern or from candidate lists, then the call
 * evaluated (note [instance search] in verify_impl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "einsum.h"
#include "verify_impl.h"

static void add_attr(Instance *in, graft_attr *attrs, int *n, const char *name,
                     const graft_attr_value *v)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(attrs[i].name, name) == 0) {
            attrs[i].value = v;
            return;
        }
    attrs[*n].name = graph_intern(in->g, name);
    attrs[*n].value = v;
    (*n)++;
}

/* An attribute value chosen from the candidates; NULL: leave it out. */
static const graft_attr_value *choose_attr(Instance *in, const char *name, const Tensor *t,
                                    const graft_attr_value *dflt)
{
    int count = 0;
    StrBuf text = {0};
    while (count < 8 && verify_attr_candidate(name, t, count, &text)) {
        count++;
        text.len = 0;
    }
    int k = chooser_pick(in->ch, count + 1); /* the last: the op's default */
    const graft_attr_value *v;
    if (k < count && verify_attr_candidate(name, t, k, &text))
        v = verify_attr_from_text(in->g, text.data);
    else
        v = dflt ? graph_copy_attr_value(in->g, dflt)
                 : verify_attr_from_text(in->g, strcmp(name, "epsilon") == 0 ? "1e-05" : "1");
    strbuf_free(&text);
    return v;
}

enum { MAX_ATTRS = 32, VERIFY_MAX_FIELDS = EINSUM_MAX_OPERANDS };

/* The attributes of an op node: tested ones from the item, bound ones
 * from their slot (or chosen), required ones chosen. */
static int op_attrs(Instance *in, const graft_pat *p, const char *op, graft_node *const *args,
                    graft_attr *attrs, bool fixed_only)
{
    const graft_item *item = &in->rs->items[p->item];
    int n = 0;
    for (int i = 0; i < item->npreds && n < MAX_ATTRS - 4; i++) {
        const graft_pred *pp = &in->rs->preds[item->preds[i]];
        if (pp->kind == GRAFT_PRED_ATTR && pp->op && strcmp(pp->op, op) == 0)
            add_attr(in, attrs, &n, pp->s, verify_attr_from_text(in->g, pp->key));
    }
    if (fixed_only)
        return n;
    const Tensor *first = args[0] ? verify_tensor_of(in, args[0]) : NULL;
    for (int i = 0; i < p->nbinds && n < MAX_ATTRS - 4; i++) {
        const graft_attr_bind *b = &p->binds[i];
        if (!in->slot_attr[b->slot])
            in->slot_attr[b->slot] = choose_attr(in, b->name, first, b->dflt);
        if (in->slot_attr[b->slot])
            add_attr(in, attrs, &n, b->name, in->slot_attr[b->slot]);
    }
    static const char *const required[][2] = {{"reshape", "newshape"},
                                               {"broadcast_to", "shape"},
                                               {"clip", "a_min"}, {"clip", "a_max"},
                                               {"Cast", "to"}};
    for (size_t r = 0; r < ARRAY_LEN(required); r++) {
        bool have = false;
        for (int i = 0; i < n; i++)
            have = have || strcmp(attrs[i].name, required[r][1]) == 0;
        if (!have && strcmp(op, required[r][0]) == 0) {
            const char *name = required[r][1];
            const graft_attr_value *v =
                strcmp(name, "a_min") == 0   ? verify_attr_from_text(in->g, "-1")
                : strcmp(name, "a_max") == 0 ? verify_attr_from_text(in->g, "1")
                                             : choose_attr(in, name, first, NULL);
            if (v)
                add_attr(in, attrs, &n, name, v);
        }
    }
    return n;
}

/* 1 + the largest index the pattern p reads of call's results (s[1] of
 * s@Split(x)), at least 1. */
static int results_read(const graft_pat *p, const graft_pat *call, const graft_rule_set *rs)
{
    int n = 1;
    if (p->kind == GRAFT_PAT_GETITEM && p->nkids == 1 &&
        (p->kids[0] == call || (call->slot >= 0 && p->kids[0]->slot == call->slot))) {
        int index = rs->items[p->item].index;
        n = index + 1 > n ? index + 1 : n;
    }
    for (int i = 0; i < p->nkids; i++) {
        int k = results_read(p->kids[i], call, rs);
        n = k > n ? k : n;
    }
    return n;
}

/* Makes the call of pattern p and evaluates it; an ONNX op of several
 * results (Split) gets as many as the pattern reads (note [several
 * results] in src/ir/graph.h). */
graft_node *verify_finish_call(Instance *in, const graft_pat *p, const char *op,
                               graft_node **args, int nargs, const graft_attr *attrs, int nattrs)
{
    graft_node *n = graph_add_call(in->g, op, args, nargs, attrs, nattrs);
    const graft_rule *r = in->rule;
    for (int j = 0; p && in->rs->onnx_opset && j < (r->nroots ? r->nroots : 1); j++) {
        int k = results_read(r->nroots ? r->roots[j].pattern : r->pattern, p, in->rs);
        if (k > node_noutputs(n))
            graph_set_noutputs(in->g, n, k);
    }
    Value *argv = xcalloc((size_t)nargs + 1, sizeof *argv);
    for (int i = 0; i < nargs; i++)
        argv[i] = *verify_value_of(in, args[i]);
    EvalError err = {0};
    Value out = {.nfields = -1};
    bool ok = eval_op(n, argv, nargs, &in->eo, &out, &err);
    free(argv);
    in->nops++;
    if (!ok) {
        in->no_evaluator = in->no_evaluator || err.status == EVAL_NO_OP;
        verify_fail(in, "%s", err.msg.data ? err.msg.data : op);
        strbuf_free(&err.msg);
        return NULL;
    }
    *verify_value_of(in, n) = out;
    verify_set_type(in, n, &out);
    return n;
}


/* einsum's operand tuple: each field of the rank its subscripts give,
 * letter number l of size 2 + l, so that no two letters agree by chance
 * (a rule that contracts the wrong axes fails to evaluate or is refuted). */
static graft_node *build_einsum_operands(Instance *in, const graft_pat *tup,
                                         const graft_attr *attrs, int nattrs)
{
    const char *eq = verify_attr_text(attrs, nattrs, "equation"), *why = NULL;
    EinsumSpec s;
    if (!eq || !einsum_parse(eq, &s, &why) || s.noperands != tup->nkids ||
        s.noperands > VERIFY_MAX_FIELDS)
        return verify_build_pat(in, tup, NULL);
    LeafCtx ctxs[VERIFY_MAX_FIELDS];
    memset(ctxs, 0, sizeof ctxs);
    for (int i = 0; i < s.noperands; i++) {
        ctxs[i].rank = s.rank[i] < EVAL_MAX_RANK ? s.rank[i] : EVAL_MAX_RANK;
        for (int d = 0; d < ctxs[i].rank; d++)
            ctxs[i].dims[d] = 2 + s.sub[i][d];
    }
    graft_node *n = verify_build_tuple(in, tup, ctxs);
    if (n && tup->slot >= 0 && !in->slot_node[tup->slot])
        in->slot_node[tup->slot] = n;
    return n;
}

/* Operand i of op, an ONNX shape input: a leaf of fixed int64 values
 * chosen among candidates for the data args[0] (note [onnx shape inputs]
 * in verify_onnx.c); as ctx wants it when there are none.  A leaf whose
 * whole value the guard or the action reads takes the candidates of one
 * element only, as value() reads no other: a scalar (gather_share's
 * value(i) == value(j) of two index constants, attention's Slice bounds),
 * but a 1-D tensor of one element for Unsqueeze's axes, whose rank sets
 * the result's (unsqueeze_unsqueeze's value(b) > value(a)); one read
 * element by element (value(pads)[i]) keeps its candidates' values. */
static graft_node *build_shape_input(Instance *in, const char *op, int i, graft_node *const *args,
                                     const graft_pat *kid, LeafCtx *ctx)
{
    const Tensor *x = args[0] ? verify_tensor_of(in, args[0]) : NULL;
    bool one = verify_reads_scalar(in->rule, kid->slot);
    int64_t vals[2 * EVAL_MAX_RANK];
    int fits[8], count = 0, n;
    for (int k = 0; k < 8 && (n = verify_onnx_shape_input(op, i, x, k, vals)) >= 0; k++)
        if (!one || n == 1)
            fits[count++] = k;
    if (count == 0)
        return verify_build_leaf(in, kid, ctx);
    n = verify_onnx_shape_input(op, i, x, fits[chooser_pick(in->ch, count)], vals);
    if (one && strcmp(op, "Unsqueeze") != 0)
        return verify_scalar_leaf(in, kid, vals[0]);
    int64_t len = n;
    memset(ctx, 0, sizeof *ctx);
    verify_ctx_set(ctx, 1, &len);
    ctx->dtype = "int64";
    ctx->fixed = vals;
    size_t before = in->leaves.len;
    graft_node *node = verify_build_leaf(in, kid, ctx);
    ctx->fixed = NULL;
    if (!node || in->leaves.len == before || in->leaves.items[before].value.size != (size_t)n)
        return node; /* bound before, or a literal: as it is */
    VerifyLeaf *l = &in->leaves.items[before];
    Value *v = verify_value_of(in, node);
    for (int k = 0; k < n; k++)
        l->value.data[k] = v->t.data[k] = (double)vals[k];
    l->fixed = true;
    return node;
}

/* A call with "..." for all its operands (Concat(...)), not yet bound. */
static bool is_bare_variadic(const Instance *in, const graft_pat *p)
{
    return p->kind == GRAFT_PAT_OP && p->nkids == 0 && in->rs->items[p->item].variadic &&
           !(p->slot >= 0 && in->slot_node[p->slot]);
}

/* Such a call at shape input i of op (r@Reshape(x, Concat(...))): as a
 * call of none is no valid op, a call of one int64 operand, a candidate
 * shape as build_shape_input chooses it (Concat of one 1-D tensor is
 * that tensor), so that the instance shapes as the rule's guard wants. */
static graft_node *build_variadic_shape(Instance *in, const char *op, int i,
                                        graft_node *const *args, const graft_pat *kid,
                                        LeafCtx *ctx)
{
    graft_pat leaf = *kid; /* the operand: a fresh leaf of the call's item */
    leaf.kind = GRAFT_PAT_ANY;
    leaf.slot = -1;
    graft_node *s = build_shape_input(in, op, i, args, &leaf, ctx);
    if (!s)
        return NULL;
    const char *kop = in->rs->items[kid->item].op;
    graft_attr attrs[MAX_ATTRS];
    int nattrs = op_attrs(in, kid, kop, &s, attrs, false);
    graft_node *n = verify_finish_call(in, kid, kop, &s, 1, attrs, nattrs);
    if (n && kid->slot >= 0 && !in->slot_node[kid->slot])
        in->slot_node[kid->slot] = n;
    return n;
}

graft_node *verify_build_op(Instance *in, const graft_pat *p)
{
    const graft_item *item = &in->rs->items[p->item];
    const char *op = item->op;
    int nk = p->nkids;
    graft_node **args = xcalloc((size_t)nk + 1, sizeof *args);
    graft_attr attrs[MAX_ATTRS];
    graft_node *n = NULL;
    int nattrs = op_attrs(in, p, op, args, attrs, true);
    for (int i = 0; i < nk; i++) {
        const graft_pat *kid = p->kids[i];
        if (verify_fresh_leaf(in, kid) ||
            (is_bare_variadic(in, kid) && verify_onnx_is_shape_input(op, i)))
            continue;
        args[i] = strcmp(op, "einsum") == 0 && kid->kind == GRAFT_PAT_TUPLE
                      ? build_einsum_operands(in, kid, attrs, nattrs)
                      : verify_build_pat(in, kid, NULL);
        if (!args[i])
            goto done;
    }
    /* the primary leaf first, so that its siblings can follow its shape;
       a shape input after the data it shapes */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nk; i++) {
            const graft_pat *kid = p->kids[i];
            bool shape_input = verify_onnx_is_shape_input(op, i);
            if (args[i] || (pass == 0) != (verify_leaf_id(in, kid) == in->primary && !shape_input))
                continue;
            LeafCtx ctx;
            verify_leaf_context(in, op, i, attrs, nattrs, args, nk, kid, &ctx);
            if (!shape_input)
                args[i] = verify_build_leaf(in, kid, &ctx);
            else if (kid->kind == GRAFT_PAT_OP) /* is_bare_variadic */
                args[i] = build_variadic_shape(in, op, i, args, kid, &ctx);
            else
                args[i] = build_shape_input(in, op, i, args, kid, &ctx);
            if (!args[i])
                goto done;
        }
    nattrs = op_attrs(in, p, op, args, attrs, false);
    n = verify_finish_call(in, p, op, args, nk, attrs, nattrs);
done:
    free(args);
    return n;
}
