/* verify_build.c - a rule's pattern as a small graph: leaves with shapes
 * their readers accept, attributes from the pattern or from candidate
 * lists, each node evaluated as it is made (note [verifying a rule] in
 * verify.h, note [instance search] in verify_impl.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "einsum.h"
#include "fold.h"
#include "verify_impl.h"

/* ---- leaf numbering ---- */

/* Leaf ids: one per variable, one per _ (recursion is bounded by the
 * rule-depth limit, as every walk of a pattern). */
static bool is_constant_leaf(const Instance *in, const graft_pat *p)
{
    const graft_item *item = &in->rs->items[p->item];
    for (int i = 0; i < item->npreds; i++) {
        graft_pred_kind k = in->rs->preds[item->preds[i]].kind;
        if (k == GRAFT_PRED_IS_CONST || k == GRAFT_PRED_VALUE)
            return true;
    }
    return false;
}

/* Finds the sub-pattern binding each variable that is bound to more than
 * a leaf (the first, in operand order). */
static void find_binders(Instance *in, const graft_pat *p)
{
    if (p->kind != GRAFT_PAT_ANY && p->slot >= 0 && !in->slot_binder[p->slot])
        in->slot_binder[p->slot] = p;
    for (int i = 0; i < p->nkids; i++)
        find_binders(in, p->kids[i]);
}

/* Numbers the leaves that can be the primary one (constants, and uses of
 * variables bound to a sub-pattern, cannot). */
static void number_leaves(Instance *in, const graft_pat *p)
{
    if (p->kind == GRAFT_PAT_ANY) {
        if ((p->slot >= 0 && (in->slot_leaf[p->slot] >= 0 || in->slot_binder[p->slot])) ||
            is_constant_leaf(in, p))
            return;
        int id = in->nleafids++;
        in->anon = xrealloc(in->anon, (size_t)in->nleafids * sizeof *in->anon);
        in->anon[id] = p->slot < 0 ? p : NULL;
        if (p->slot >= 0)
            in->slot_leaf[p->slot] = id;
        return;
    }
    for (int i = 0; i < p->nkids; i++)
        number_leaves(in, p->kids[i]);
}

static int leaf_id(const Instance *in, const graft_pat *p)
{
    if (p->slot >= 0)
        return in->slot_leaf[p->slot];
    for (int i = 0; i < in->nleafids; i++)
        if (in->anon[i] == p)
            return i;
    return -1;
}

/* ---- failing and values ---- */

static graft_node *fail(Instance *in, const char *fmt, ...) GRAFT_PRINTF(2, 3);

static graft_node *fail(Instance *in, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!in->why.len)
        strbuf_puts(&in->why, buf);
    return NULL;
}

static Value *value_of(Instance *in, const graft_node *n)
{
    size_t id = node_id(n);
    if (id >= in->vals_cap) {
        size_t old = in->vals_cap;
        in->vals = xgrow_items(in->vals, &in->vals_cap, id + 1, sizeof *in->vals);
        memset(in->vals + old, 0, (in->vals_cap - old) * sizeof *in->vals);
    }
    return &in->vals[id];
}

static const Tensor *tensor_of(Instance *in, const graft_node *n)
{
    const Value *v = n ? value_of(in, n) : NULL;
    return v && v->nfields < 0 && v->t.data ? &v->t : NULL;
}

const Tensor *verify_slot_tensor(Instance *in, int slot)
{
    return slot >= 0 && slot < in->rule->nslots ? tensor_of(in, in->slot_node[slot]) : NULL;
}

/* The node's type from its value, so that guards can ask rank(c). */
static void set_type_from(Instance *in, graft_node *n, const Value *v)
{
    if (v->nfields < 0) {
        graph_set_type(in->g, n, graph_type_tensor(in->g, v->t.dtype, v->t.dims, v->t.rank));
        return;
    }
    const graft_type **fields = xcalloc((size_t)v->nfields + 1, sizeof *fields);
    for (int i = 0; i < v->nfields; i++)
        if (v->fields[i].nfields < 0)
            fields[i] = graph_type_tensor(in->g, v->fields[i].t.dtype, v->fields[i].t.dims,
                                          v->fields[i].t.rank);
    bool all = true;
    for (int i = 0; i < v->nfields; i++)
        all = all && fields[i];
    if (all)
        graph_set_type(in->g, n, graph_type_tuple(in->g, fields, v->nfields));
    free(fields);
}

/* ---- leaves ---- */

/* The base rank a leaf takes without context (note [instance search]):
 * ranks 1, 2, 4, 3 and 5 in turn, the rank-4 one (NCHW) before the
 * rarer ones. */
static int base_rank(const Instance *in)
{
    static const int ranks[VERIFY_BASES] = {1, 2, 4, 3, 5};
    return ranks[in->base];
}

static void base_shape(const Instance *in, LeafCtx *c)
{
    verify_rank_shape(base_rank(in), c);
}

static graft_node *build(Instance *in, const graft_pat *p, const LeafCtx *ctx);

static const graft_pred *pred(const Instance *in, uint32_t id)
{
    return &in->rs->preds[id];
}

/* A guard operand's number, when the instance fixes it: a literal, or
 * shape(v)[i] of a variable already built (value(n) == shape(x)[0] asks
 * for a count of rows). */
static bool known_number(Instance *in, const graft_expr *e, double *out)
{
    if (e->kind == GRAFT_EXPR_NUM) {
        *out = e->f;
        return true;
    }
    if (e->kind != GRAFT_EXPR_GETITEM || e->kids[0]->kind != GRAFT_EXPR_SHAPE)
        return false;
    int slot = e->kids[0]->slot;
    const Tensor *t = slot >= 0 ? tensor_of(in, in->slot_node[slot]) : NULL;
    if (!t || e->i < 0 || e->i >= t->rank)
        return false;
    *out = (double)t->dims[e->i];
    return true;
}

/* Candidate values of constant slot from the guard: the numbers value(k)
 * is compared with, and the midpoints between them. */
static void guard_numbers(Instance *in, const graft_expr *e, int slot, double *nums, int *n)
{
    if (!e)
        return;
    if (e->kind == GRAFT_EXPR_CMP && e->nkids == 2)
        for (int side = 0; side < 2; side++) {
            const graft_expr *a = e->kids[side], *b = e->kids[1 - side];
            if (a->kind == GRAFT_EXPR_VALUE && a->slot == slot && *n < 16 &&
                known_number(in, b, &nums[*n]))
                (*n)++;
        }
    for (int i = 0; i < e->nkids; i++)
        guard_numbers(in, e->kids[i], slot, nums, n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double const_value(Instance *in, int slot, bool upper)
{
    double nums[16], cand[40];
    int n = 0, m = 0;
    if (slot >= 0)
        guard_numbers(in, in->rule->guard, slot, nums, &n);
    qsort(nums, (size_t)n, sizeof *nums, cmp_double);
    for (int i = 0; i + 1 < n; i++)
        cand[m++] = (nums[i] + nums[i + 1]) / 2;
    for (int i = 0; i < n; i++)
        cand[m++] = nums[i];
    cand[m++] = upper ? 2 : 0.5; /* an upper bound above a lower one */
    cand[m++] = upper ? 0.5 : 2;
    return cand[chooser_pick(in->ch, m)];
}

static VerifyLeaf *new_leaf(Instance *in)
{
    in->leaves = xgrow_items(in->leaves, &in->leaves_cap, (size_t)in->nleaves + 1,
                             sizeof *in->leaves);
    VerifyLeaf *l = &in->leaves[in->nleaves++];
    memset(l, 0, sizeof *l);
    return l;
}

/* The leaf's node: a parameter, a scalar constant or a meta constant. */
static graft_node *make_leaf_node(Instance *in, const graft_pat *p, VerifyLeaf *l, bool is_const,
                            bool literal, double lit, const char *name, bool upper)
{
    const char *dtype = l->value.dtype;
    if (is_const && l->value.rank == 0) {
        /* a literal keeps its value unrounded, as the loader keeps 1.41421356f
           and as the pattern's test compares it; evaluation rounds it */
        double v = literal ? lit : eval_round(const_value(in, p->slot, upper), dtype);
        StrBuf text = {0};
        const char *why = pattern_const_text(v, dtype, &text);
        if (why) {
            strbuf_free(&text);
            return fail(in, "no %s constant %g: %s", dtype, v, why);
        }
        l->fixed = true;
        l->value.data[0] = v;
        graft_node *n = graph_add_const(in->g, text.data, v, dtype);
        strbuf_free(&text);
        return n;
    }
    if (is_const && l->fixed && verify_reads_value(in->rule, p->slot))
        return fold_tensor_const(in->g, &l->value, name); /* value(p)[i] reads its bytes */
    const graft_type *type = graph_type_tensor(in->g, dtype, l->value.dims, l->value.rank);
    if (is_const) {
        char text[64];
        snprintf(text, sizeof text, "meta[relay.Constant][%d]", in->nconsts++);
        graft_node *n = graph_add_const(in->g, text, 0, dtype);
        graph_set_type(in->g, n, type);
        return n;
    }
    return graph_add_param(in->g, name, type);
}

/* What a leaf's node tests say of it. */
typedef struct LeafFacts {
    bool is_const, literal; /* a constant; one of a given value */
    double lit;             /* literal: the value */
    const char *dtype;      /* its dtype */
    const char *name;       /* a variable's required name, or NULL */
    bool shaped;            /* a rank or shape test shaped it */
} LeafFacts;

/* Gives ctx rank r: a lower rank keeps the trailing dims (a :rank(1)
 * operand of an element-wise op takes its sibling's last dim, which
 * broadcasts), a higher one adds dims of 2. */
static void set_rank(LeafCtx *ctx, int r)
{
    if (r < ctx->rank)
        memmove(ctx->dims, ctx->dims + (ctx->rank - r), (size_t)r * sizeof *ctx->dims);
    for (int k = ctx->rank; k < r; k++)
        ctx->dims[k] = 2;
    ctx->rank = r;
}

/* Reads the node tests of a leaf's item into f, shaping ctx by its rank
 * and shape tests; false for a pattern this does not instantiate. */
static bool leaf_facts(Instance *in, const graft_item *item, LeafCtx *ctx, LeafFacts *f)
{
    for (int i = 0; i < item->npreds; i++) {
        const graft_pred *pp = pred(in, item->preds[i]);
        if (pp->kind == GRAFT_PRED_OP_VALUE)
            return false;
        if (pp->kind == GRAFT_PRED_IS_CONST)
            f->is_const = true;
        else if (pp->kind == GRAFT_PRED_VALUE)
            f->is_const = f->literal = true, f->lit = pp->f;
        else if (pp->kind == GRAFT_PRED_DTYPE && eval_dtype(pp->s))
            f->dtype = eval_dtype(pp->s);
        else if (pp->kind == GRAFT_PRED_VAR_NAME)
            f->name = pp->s;
        else if (pp->kind == GRAFT_PRED_RANK && pp->i <= EVAL_MAX_RANK)
            set_rank(ctx, (int)pp->i), f->shaped = true;
        else if (pp->kind == GRAFT_PRED_SHAPE && pp->rank <= EVAL_MAX_RANK) {
            f->shaped = true;
            for (int k = 0; k < pp->rank; k++)
                ctx->dims[k] = pp->dims[k] >= 0 ? pp->dims[k] : k < ctx->rank ? ctx->dims[k] : 2;
            ctx->rank = pp->rank;
            if (pp->s && eval_dtype(pp->s))
                f->dtype = eval_dtype(pp->s);
        }
    }
    return true;
}

static graft_node *build_leaf(Instance *in, const graft_pat *p, const LeafCtx *given)
{
    if (p->slot >= 0 && in->slot_node[p->slot])
        return in->slot_node[p->slot];
    if (p->slot >= 0 && in->slot_binder[p->slot]) /* used before it is bound */
        return build(in, in->slot_binder[p->slot], given);
    LeafCtx ctx = {0};
    if (given)
        ctx = *given;
    else
        base_shape(in, &ctx);
    LeafFacts f = {.dtype = ctx.dtype ? ctx.dtype : "float32"};
    if (!leaf_facts(in, &in->rs->items[p->item], &ctx, &f))
        return fail(in, "patterns with ops as values are not instantiated");
    f.is_const = f.is_const || verify_reads_value(in->rule, p->slot);
    /* note [guard shapes] in verify_guard.c */
    f.shaped = verify_guard_shape(in, p->slot, &ctx) || f.shaped;
    if (f.literal || (f.is_const && ctx.scalar_const && !f.shaped))
        ctx.rank = 0;
    VerifyLeaf *l = new_leaf(in);
    l->slot = p->slot;
    l->positive = ctx.positive;
    l->value = tensor_new(f.dtype, ctx.rank, ctx.dims);
    verify_fill_random(&l->value, &in->rng, l->positive);
    if (ctx.fixed && ctx.rank == 1 && l->value.size == (size_t)ctx.dims[0]) {
        for (size_t k = 0; k < l->value.size; k++)
            l->value.data[k] = (double)ctx.fixed[k];
        l->fixed = true;
    }
    char anon[32];
    snprintf(anon, sizeof anon, "_%d", in->nleaves);
    if (!f.name)
        f.name = p->slot >= 0 ? in->rule->slot_names[p->slot] : anon;
    graft_node *n = make_leaf_node(in, p, l, f.is_const, f.literal, f.lit, f.name, ctx.upper);
    if (!n)
        return NULL;
    l->node = n;
    Value *v = value_of(in, n);
    v->nfields = -1;
    v->t = tensor_copy(&l->value);
    if (p->slot >= 0)
        in->slot_node[p->slot] = n;
    return n;
}

/* ---- what each op wants of a fresh operand ---- */

static bool is_elementwise_binary(const char *op)
{
    static const char *const ops[] = {"add", "subtract", "multiply", "divide", "power",
                                      "maximum", "minimum", "floor_divide", "equal",
                                      "not_equal", "less", "less_equal", "greater",
                                      "greater_equal", "where"};
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

/* What a fresh operand i of op should be, given the operands known: an
 * operand the op's type relation shapes by verify_operand_shape
 * (verify_operand.c); the primary leaf the base shape;
 * another leaf the shape of a known sibling of an element-wise op (else
 * the base shape), as is, its last dim or a scalar by the scheme's mode. */
static void leaf_context(Instance *in, const char *op, int i, const graft_attr *attrs, int nattrs,
                         graft_node *const *args, int nargs, const graft_pat *kid, LeafCtx *c)
{
    const Tensor *first = args[0] ? tensor_of(in, args[0]) : NULL;
    memset(c, 0, sizeof *c);
    if (strcmp(op, "nn.matmul") == 0 && i == 0) { /* MatmulRel: a of any rank */
        base_shape(in, c);
        return;
    }
    if (nargs > 2 && verify_onnx_gemm_c(op, i, attrs, nattrs, tensor_of(in, args[1]), c))
        return;
    if (verify_operand_shape(op, i, attrs, nattrs, first, base_rank(in), c))
        return;
    base_shape(in, c);
    bool binary = (is_elementwise_binary(op) || verify_onnx_broadcasts(op)) && nargs >= 2;
    c->scalar_const = binary;
    if (leaf_id(in, kid) == in->primary)
        return;
    Tensor other = {.dtype = NULL, .rank = c->rank};
    memcpy(other.dims, c->dims, sizeof other.dims);
    for (int j = 0; binary && j < nargs; j++)
        if (j != i && args[j] && tensor_of(in, args[j]))
            other = *tensor_of(in, args[j]);
    c->dtype = other.dtype && strcmp(other.dtype, "bool") != 0 ? other.dtype : NULL;
    if (in->mode == 0)
        verify_ctx_set(c, other.rank, other.dims);
    else if (in->mode == 1 && other.rank > 0)
        verify_ctx_set(c, 1, &other.dims[other.rank - 1]);
    else
        c->rank = 0;
}

/* ---- op calls ---- */

static bool is_fresh_leaf(const Instance *in, const graft_pat *p)
{
    return p->kind == GRAFT_PAT_ANY && !(p->slot >= 0 && in->slot_node[p->slot]);
}

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
        const graft_pred *pp = pred(in, item->preds[i]);
        if (pp->kind == GRAFT_PRED_ATTR && pp->op && strcmp(pp->op, op) == 0)
            add_attr(in, attrs, &n, pp->s, verify_attr_from_text(in->g, pp->key));
    }
    if (fixed_only)
        return n;
    const Tensor *first = args[0] ? tensor_of(in, args[0]) : NULL;
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
static graft_node *finish_call(Instance *in, const graft_pat *p, const char *op, graft_node **args,
                               int nargs, const graft_attr *attrs, int nattrs)
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
        argv[i] = *value_of(in, args[i]);
    EvalError err = {0};
    Value out = {.nfields = -1};
    bool ok = eval_op(n, argv, nargs, &in->eo, &out, &err);
    free(argv);
    in->nops++;
    if (!ok) {
        in->no_evaluator = in->no_evaluator || err.status == EVAL_NO_OP;
        fail(in, "%s", err.msg.data ? err.msg.data : op);
        strbuf_free(&err.msg);
        return NULL;
    }
    *value_of(in, n) = out;
    set_type_from(in, n, &out);
    return n;
}

static graft_node *build_kids_node(Instance *in, const graft_pat *p, const LeafCtx *ctxs);

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
        return build(in, tup, NULL);
    LeafCtx ctxs[VERIFY_MAX_FIELDS];
    memset(ctxs, 0, sizeof ctxs);
    for (int i = 0; i < s.noperands; i++) {
        ctxs[i].rank = s.rank[i] < EVAL_MAX_RANK ? s.rank[i] : EVAL_MAX_RANK;
        for (int d = 0; d < ctxs[i].rank; d++)
            ctxs[i].dims[d] = 2 + s.sub[i][d];
    }
    graft_node *n = build_kids_node(in, tup, ctxs);
    if (n && tup->slot >= 0 && !in->slot_node[tup->slot])
        in->slot_node[tup->slot] = n;
    return n;
}

/* Operand i of op, an ONNX shape input: a leaf of fixed int64 values
 * chosen among candidates for the data args[0] (note [onnx shape inputs]
 * in verify_onnx.c); as ctx wants it when there are none. */
static graft_node *build_shape_input(Instance *in, const char *op, int i, graft_node *const *args,
                                     const graft_pat *kid, LeafCtx *ctx)
{
    const Tensor *x = args[0] ? tensor_of(in, args[0]) : NULL;
    int64_t vals[2 * EVAL_MAX_RANK];
    int count = 0;
    while (count < 8 && verify_onnx_shape_input(op, i, x, count, vals) >= 0)
        count++;
    if (count == 0)
        return build_leaf(in, kid, ctx);
    int n = verify_onnx_shape_input(op, i, x, chooser_pick(in->ch, count), vals);
    int64_t len = n;
    memset(ctx, 0, sizeof *ctx);
    verify_ctx_set(ctx, 1, &len);
    ctx->dtype = "int64";
    ctx->fixed = vals;
    int before = in->nleaves;
    graft_node *node = build_leaf(in, kid, ctx);
    ctx->fixed = NULL;
    if (!node || in->nleaves == before || in->leaves[before].value.size != (size_t)n)
        return node; /* bound before, or a literal: as it is */
    VerifyLeaf *l = &in->leaves[before];
    Value *v = value_of(in, node);
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
    graft_node *n = finish_call(in, kid, kop, &s, 1, attrs, nattrs);
    if (n && kid->slot >= 0 && !in->slot_node[kid->slot])
        in->slot_node[kid->slot] = n;
    return n;
}

static graft_node *build_op(Instance *in, const graft_pat *p)
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
        if (is_fresh_leaf(in, kid) ||
            (is_bare_variadic(in, kid) && verify_onnx_is_shape_input(op, i)))
            continue;
        args[i] = strcmp(op, "einsum") == 0 && kid->kind == GRAFT_PAT_TUPLE
                      ? build_einsum_operands(in, kid, attrs, nattrs)
                      : build(in, kid, NULL);
        if (!args[i])
            goto done;
    }
    /* the primary leaf first, so that its siblings can follow its shape;
       a shape input after the data it shapes */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nk; i++) {
            const graft_pat *kid = p->kids[i];
            bool shape_input = verify_onnx_is_shape_input(op, i);
            if (args[i] || (pass == 0) != (leaf_id(in, kid) == in->primary && !shape_input))
                continue;
            LeafCtx ctx;
            leaf_context(in, op, i, attrs, nattrs, args, nk, kid, &ctx);
            if (!shape_input)
                args[i] = build_leaf(in, kid, &ctx);
            else if (kid->kind == GRAFT_PAT_OP) /* is_bare_variadic */
                args[i] = build_variadic_shape(in, op, i, args, kid, &ctx);
            else
                args[i] = build_shape_input(in, op, i, args, kid, &ctx);
            if (!args[i])
                goto done;
        }
    nattrs = op_attrs(in, p, op, args, attrs, false);
    n = finish_call(in, p, op, args, nk, attrs, nattrs);
done:
    free(args);
    return n;
}

/* A tuple; field i a fresh leaf shaped by ctxs[i] when ctxs is given. */
static graft_node *build_kids_node(Instance *in, const graft_pat *p, const LeafCtx *ctxs)
{
    graft_node **fields = xcalloc((size_t)p->nkids + 1, sizeof *fields);
    graft_node *n = NULL;
    for (int i = 0; i < p->nkids; i++)
        if (!(fields[i] = ctxs && is_fresh_leaf(in, p->kids[i])
                              ? build_leaf(in, p->kids[i], &ctxs[i])
                              : build(in, p->kids[i], NULL)))
            goto done;
    n = graph_add_tuple(in->g, fields, p->nkids);
    Value *v = value_of(in, n);
    v->nfields = p->nkids;
    v->fields = xcalloc((size_t)p->nkids + 1, sizeof *v->fields);
    for (int i = 0; i < p->nkids; i++)
        v->fields[i] = value_copy(value_of(in, fields[i]));
    set_type_from(in, n, v);
done:
    free(fields);
    return n;
}

static graft_node *build_getitem(Instance *in, const graft_pat *p)
{
    graft_node *t = build(in, p->kids[0], NULL);
    if (!t)
        return NULL;
    int index = in->rs->items[p->item].index;
    if (index < 0) /* t[_]: the instance takes the first element */
        index = 0;
    const Value *tv = value_of(in, t);
    if (tv->nfields <= index)
        return fail(in, "field %d of a value with %d fields", index, tv->nfields);
    graft_node *n = graph_add_getitem(in->g, t, index);
    *value_of(in, n) = value_copy(&tv->fields[index]);
    set_type_from(in, n, value_of(in, n));
    return n;
}

static graft_node *build(Instance *in, const graft_pat *p, const LeafCtx *ctx)
{
    if (p->slot >= 0 && in->slot_node[p->slot]) /* bound again: the same node */
        return in->slot_node[p->slot];
    graft_node *n = NULL;
    switch (p->kind) {
    case GRAFT_PAT_ANY:
        return build_leaf(in, p, ctx);
    case GRAFT_PAT_OP:
        n = build_op(in, p);
        break;
    case GRAFT_PAT_ALT:
        n = build(in, p->kids[chooser_pick(in->ch, p->nkids)], ctx);
        break;
    case GRAFT_PAT_STAR: {
        bool apply = chooser_pick(in->ch, 2) == 1;
        n = build(in, p->kids[0], ctx);
        if (n && apply)
            n = finish_call(in, NULL, in->rs->items[p->item].op, &n, 1, NULL, 0);
        break;
    }
    case GRAFT_PAT_TUPLE:
        n = build_kids_node(in, p, NULL);
        break;
    case GRAFT_PAT_GETITEM:
        n = build_getitem(in, p);
        break;
    case GRAFT_PAT_FNCALL:
    case GRAFT_PAT_CALL:
    case GRAFT_PAT_FNCALLEE:
    case GRAFT_PAT_DOM:
        return fail(in, "patterns with %s are not instantiated",
                    p->kind == GRAFT_PAT_DOM ? "dominates()" : "function calls");
    case GRAFT_PAT_FN:
    case GRAFT_PAT_IF:
    case GRAFT_PAT_LET:
        return fail(in, "patterns with fn, if or let are not instantiated");
    }
    if (n && p->slot >= 0 && !in->slot_node[p->slot])
        in->slot_node[p->slot] = n;
    return n;
}

bool verify_build(Instance *in)
{
    int nslots = in->rule->nslots;
    in->slot_leaf = xcalloc((size_t)nslots + 1, sizeof *in->slot_leaf);
    in->slot_node = xcalloc((size_t)nslots + 1, sizeof *in->slot_node);
    in->slot_attr = xcalloc((size_t)nslots + 1, sizeof *in->slot_attr);
    in->slot_binder = xcalloc((size_t)nslots + 1, sizeof *in->slot_binder);
    for (int i = 0; i < nslots; i++)
        in->slot_leaf[i] = -1;
    const graft_rule *r = in->rule;
    int nroots = r->nroots ? r->nroots : 1;
    for (int j = 0; j < nroots; j++)
        find_binders(in, r->nroots ? r->roots[j].pattern : r->pattern);
    for (int j = 0; j < nroots; j++)
        number_leaves(in, r->nroots ? r->roots[j].pattern : r->pattern);
    in->primary = chooser_pick(in->ch, in->nleafids);
    in->mode = chooser_pick(in->ch, 3);
    in->g = graph_new();
    graph_set_name(in->g, "main");
    /* note [root instances]: the roots of a rule of several, built in
     * order with their variables shared, are the fields of the
     * instance's output tuple; the rule matches at the first and each
     * field is compared after the rewrite */
    graft_node **roots = xmalloc((size_t)nroots * sizeof *roots);
    bool ok = true;
    for (int j = 0; j < nroots && ok; j++)
        ok = (roots[j] = build(in, r->nroots ? r->roots[j].pattern : r->pattern, NULL)) != NULL;
    if (ok)
        graph_set_output(in->g, r->nroots ? graph_add_tuple(in->g, roots, nroots) : roots[0]);
    free(roots);
    return ok;
}

void instance_free(Instance *in)
{
    for (int i = 0; i < in->nleaves; i++)
        tensor_free(&in->leaves[i].value);
    for (size_t i = 0; i < in->vals_cap; i++)
        value_free(&in->vals[i]);
    free(in->leaves);
    free(in->vals);
    free(in->anon);
    free(in->slot_leaf);
    free(in->slot_node);
    free(in->slot_attr);
    free(in->slot_binder);
    strbuf_free(&in->why);
    if (in->g)
        graph_free(in->g);
}
