/* verify_build_leaf.c - a leaf of an instance: a parameter or a
 * constant, shaped as its node tests, the rule's guard and the op reading
 * it want, filled with random values (note [instance search] in
 * verify_impl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "verify_impl.h"

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

static bool known_number(Instance *in, const graft_expr *e, double *out);

/* a OP b of two known numbers; a division by zero is none. */
static bool known_arith(Instance *in, const graft_expr *e, double *out)
{
    double a, b;
    if (!known_number(in, e->kids[0], &a) || !known_number(in, e->kids[1], &b))
        return false;
    switch (e->cmp) {
    case '+': *out = a + b; return true;
    case '-': *out = a - b; return true;
    case '*': *out = a * b; return true;
    case '/': *out = a / b; return b != 0;
    default: return false;
    }
}

/* A guard operand's number, when the instance fixes it: a literal,
 * shape(v)[i] of a variable already built (value(n) == shape(x)[0] asks
 * for a count of rows), value(k) of a one-element constant already built,
 * or + - * / of such numbers (value(e) == shape(w)[1] / value(h): heads
 * of a width, attention.graft's attention_fusion_qkv). */
static bool known_number(Instance *in, const graft_expr *e, double *out)
{
    if (e->kind == GRAFT_EXPR_NUM) {
        *out = e->f;
        return true;
    }
    if (e->kind == GRAFT_EXPR_VALUE) {
        const Tensor *t = verify_slot_tensor(in, e->slot);
        if (!t || t->size != 1)
            return false;
        *out = t->data[0];
        return true;
    }
    if (e->kind == GRAFT_EXPR_ARITH && e->nkids == 2)
        return known_arith(in, e, out);
    if (e->kind != GRAFT_EXPR_GETITEM || e->kids[0]->kind != GRAFT_EXPR_SHAPE)
        return false;
    int slot = e->kids[0]->slot;
    const Tensor *t = slot >= 0 ? verify_tensor_of(in, in->slot_node[slot]) : NULL;
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
    vec_push(&in->leaves, ((VerifyLeaf){0}));
    return &in->leaves.items[in->leaves.len - 1];
}

/* A scalar constant of value v, l's value, fixed in the graph. */
static graft_node *make_scalar_const(Instance *in, VerifyLeaf *l, double v)
{
    const char *dtype = l->value.dtype;
    StrBuf text = {0};
    const char *why = pattern_const_text(v, dtype, &text);
    if (why) {
        strbuf_free(&text);
        return verify_fail(in, "no %s constant %g: %s", dtype, v, why);
    }
    l->fixed = true;
    l->value.data[0] = v;
    graft_node *n = graph_add_const(in->g, text.data, v, dtype);
    strbuf_free(&text);
    return n;
}

/* The leaf's node: a parameter, a scalar constant or a meta constant. */
static graft_node *make_leaf_node(Instance *in, const graft_pat *p, VerifyLeaf *l, bool is_const,
                            bool literal, double lit, const char *name, bool upper)
{
    const char *dtype = l->value.dtype;
    /* a literal keeps its value unrounded, as the loader keeps 1.41421356f
       and as the pattern's test compares it; evaluation rounds it */
    if (is_const && l->value.rank == 0 && literal)
        return make_scalar_const(in, l, lit);
    if (is_const && l->value.rank == 0)
        return make_scalar_const(in, l, eval_round(const_value(in, p->slot, upper), dtype));
    if (is_const && !l->fixed && l->value.size == 1 && verify_reads_value(in->rule, p->slot)) {
        /* one element of rank 1, as a Concat of shape dims wants it: the
           guard's number too (value(h) of attention_fusion_qkv's heads) */
        l->value.data[0] = eval_round(const_value(in, p->slot, upper), dtype);
        l->fixed = true;
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

/* Leaf l's node n (NULL: not made) takes l's value and stands for slot
 * (when one): what every leaf, scalar or tensor, ends with. */
static graft_node *bind_leaf(Instance *in, VerifyLeaf *l, graft_node *n, int slot)
{
    if (!n)
        return NULL;
    l->node = n;
    Value *value = verify_value_of(in, n);
    value->nfields = -1;
    value->t = tensor_copy(&l->value);
    if (slot >= 0)
        in->slot_node[slot] = n;
    return n;
}

graft_node *verify_extra_field(Instance *in, const Tensor *like, const char *capture)
{
    LeafCtx ctx = {0};
    if (like)
        verify_ctx_set(&ctx, like->rank, like->dims);
    else
        base_shape(in, &ctx);
    VerifyLeaf *l = new_leaf(in);
    l->slot = -1;
    l->name = capture;
    l->value = tensor_new(like ? like->dtype : "float32", ctx.rank, ctx.dims);
    verify_fill_random(&l->value, &in->rng, false);
    char anon[32];
    snprintf(anon, sizeof anon, "_%zu", in->leaves.len);
    const graft_type *type = graph_type_tensor(in->g, l->value.dtype, ctx.dims, ctx.rank);
    return bind_leaf(in, l, graph_add_param(in->g, anon, type), -1);
}

/* A shape input whose value the rule reads: an int64 scalar constant of
 * value v, which the guard's value() sees in the graph (kid's node if it
 * is bound already). */
graft_node *verify_scalar_leaf(Instance *in, const graft_pat *kid, int64_t v)
{
    if (kid->slot >= 0 && in->slot_node[kid->slot])
        return in->slot_node[kid->slot];
    VerifyLeaf *l = new_leaf(in);
    l->slot = kid->slot;
    l->value = tensor_new("int64", 0, NULL);
    return bind_leaf(in, l, make_scalar_const(in, l, (double)v), kid->slot);
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
        const graft_pred *pp = &in->rs->preds[item->preds[i]];
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

graft_node *verify_build_leaf(Instance *in, const graft_pat *p, const LeafCtx *given)
{
    if (p->slot >= 0 && in->slot_node[p->slot])
        return in->slot_node[p->slot];
    if (p->slot >= 0 && in->slot_binder[p->slot]) /* used before it is bound */
        return verify_build_pat(in, in->slot_binder[p->slot], given);
    LeafCtx ctx = {0};
    if (given)
        ctx = *given;
    else
        base_shape(in, &ctx);
    LeafFacts f = {.dtype = ctx.dtype ? ctx.dtype : "float32"};
    if (!leaf_facts(in, &in->rs->items[p->item], &ctx, &f))
        return verify_fail(in, "patterns with ops as values are not instantiated");
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
    snprintf(anon, sizeof anon, "_%zu", in->leaves.len);
    if (!f.name)
        f.name = p->slot >= 0 ? in->rule->slot_names[p->slot] : anon;
    return bind_leaf(in, l, make_leaf_node(in, p, l, f.is_const, f.literal, f.lit, f.name,
                                           ctx.upper), p->slot);
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
/* A fresh operand of an ONNX Concat of shape pieces (a sibling known is a
 * 1-D int64 tensor, Unsqueeze(Gather(Shape(x), 0))): one int64 dim of its
 * own, (1), that the guard values (value(h) of attention_fusion_qkv's
 * head count in Concat(b, t, h, e)). */
static bool shape_piece(Instance *in, const char *op, int i, graft_node *const *args,
                        int nargs, LeafCtx *c)
{
    if (strcmp(op, "Concat") != 0)
        return false;
    for (int j = 0; j < nargs; j++) {
        const Tensor *t = j != i && args[j] ? verify_tensor_of(in, args[j]) : NULL;
        if (t && t->rank == 1 && strcmp(t->dtype, "int64") == 0) {
            int64_t one = 1;
            verify_ctx_set(c, 1, &one);
            c->dtype = t->dtype;
            return true;
        }
    }
    return false;
}

void verify_leaf_context(Instance *in, const char *op, int i, const graft_attr *attrs,
                         int nattrs, graft_node *const *args, int nargs, const graft_pat *kid,
                         LeafCtx *c)
{
    const Tensor *first = args[0] ? verify_tensor_of(in, args[0]) : NULL;
    memset(c, 0, sizeof *c);
    if (strcmp(op, "nn.matmul") == 0 && i == 0) { /* MatmulRel: a of any rank */
        base_shape(in, c);
        return;
    }
    if (nargs > 2 && verify_onnx_gemm_c(op, i, attrs, nattrs, verify_tensor_of(in, args[1]), c))
        return;
    if (verify_operand_shape(op, i, attrs, nattrs, first, base_rank(in), c) ||
        shape_piece(in, op, i, args, nargs, c))
        return;
    base_shape(in, c);
    bool binary = (is_elementwise_binary(op) || verify_onnx_broadcasts(op)) && nargs >= 2;
    c->scalar_const = binary;
    if (verify_leaf_id(in, kid) == in->primary)
        return;
    Tensor other = {.dtype = NULL, .rank = c->rank};
    memcpy(other.dims, c->dims, sizeof other.dims);
    for (int j = 0; binary && j < nargs; j++)
        if (j != i && args[j] && verify_tensor_of(in, args[j]))
            other = *verify_tensor_of(in, args[j]);
    c->dtype = other.dtype && strcmp(other.dtype, "bool") != 0 ? other.dtype : NULL;
    if (in->mode == 0)
        verify_ctx_set(c, other.rank, other.dims);
    else if (in->mode == 1 && other.rank > 0)
        verify_ctx_set(c, 1, &other.dims[other.rank - 1]);
    else
        c->rank = 0;
}

bool verify_fresh_leaf(const Instance *in, const graft_pat *p)
{
    return p->kind == GRAFT_PAT_ANY && !(p->slot >= 0 && in->slot_node[p->slot]);
}
