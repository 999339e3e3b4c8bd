/* verify_guard.c - what a rule's guard and action ask of a leaf of its
 * instance: a rank, a shape, dims, or a constant (note [guard shapes]).
 *
 * note [guard shapes]: a rule's guard often says what shapes it is for:
 * rank(a) == 3 && shape(a)[0] == shape(w)[0] && shape(a)[1] == 1 (a
 * per-channel operand of a Conv, conv.graft), shape(a) == shape(m) (two
 * sides of a residual Add), rank(b) == rank(x) && shape(b)[0] == 1 (a
 * mask broadcast over the batch).  An instance whose leaves ignore it only
 * makes the guard false ("the rule does not match the instance"), and the
 * rule is left unchecked.  So when a leaf is made, the guard's equalities
 * about it are run backwards against what is already built:
 *  - rank(v) == N (or a bound: rank(v) >= 3 takes 3) and rank(v) ==
 *    rank(y) give v that rank, in the usual shape of it;
 *  - shape(v) == shape(y) gives v y's shape;
 *  - shape(v)[i] == N or shape(y)[j], or a product of such (3 *
 *    shape(y)[j]: Attention's packed weights), gives dim i that value;
 * y being a variable already built.  Only conjunctions are requirements:
 * under ||, the first alternative whose known parts (rank(x) == 3 of an x
 * built, or of the leaf itself at the rank its base shape gives it) do
 * not contradict the instance is taken, none when both do, and nothing
 * under !.
 * A leaf so shaped keeps its shape even when it is a constant operand of
 * an element-wise op, which is otherwise a scalar.  A leaf whose value the
 * guard or the action reads (value(lo), activation_params=[value(lo)]) is
 * a constant: only a constant has a value. */
#include "verify_impl.h"

/* A guard's wish for one leaf. */
typedef struct Want {
    int rank;                      /* -1: none */
    const Tensor *like;            /* shape(v) == shape(y): y's value */
    bool has_dim[EVAL_MAX_RANK];   /* shape(v)[i] == ... */
    int64_t dim[EVAL_MAX_RANK];
} Want;

/* The number an expression has in the instance so far: a literal,
 * rank(y) or shape(y)[i] of a variable y already built, or the rank of
 * the leaf being made, self (its dims may still change). */
static bool known(Instance *in, const graft_expr *e, int slot, const LeafCtx *self, double *out)
{
    if (e->kind == GRAFT_EXPR_NUM) {
        *out = e->f;
        return true;
    }
    if (e->kind == GRAFT_EXPR_RANK && e->slot == slot && self) {
        *out = self->rank;
        return true;
    }
    double a, b;
    if (e->kind == GRAFT_EXPR_ARITH && e->cmp == '*' && known(in, e->kids[0], slot, self, &a) &&
        known(in, e->kids[1], slot, self, &b)) { /* shape(w)[1] == 3 * shape(x)[2] */
        *out = a * b;
        return true;
    }
    const graft_expr *v = e->kind == GRAFT_EXPR_GETITEM && e->nkids == 1 ? e->kids[0] : e;
    if ((v->kind != GRAFT_EXPR_RANK && v->kind != GRAFT_EXPR_SHAPE) || v->slot == slot)
        return false;
    const Tensor *t = verify_slot_tensor(in, v->slot);
    if (!t)
        return false;
    if (e->kind == GRAFT_EXPR_RANK) {
        *out = t->rank;
        return true;
    }
    if (e->kind != GRAFT_EXPR_GETITEM || v->kind != GRAFT_EXPR_SHAPE || e->i < 0 ||
        e->i >= t->rank)
        return false;
    *out = (double)t->dims[e->i];
    return true;
}

/* Whether a comparison both of whose sides are known is false. */
static bool known_false(Instance *in, const graft_expr *e, int slot, const LeafCtx *self)
{
    double a, b;
    if (e->kind != GRAFT_EXPR_CMP || e->nkids != 2 || !known(in, e->kids[0], slot, self, &a) ||
        !known(in, e->kids[1], slot, self, &b))
        return false;
    switch (e->cmp) {
    case GRAFT_CMP_EQ: return a != b;
    case GRAFT_CMP_NE: return a == b;
    case GRAFT_CMP_LT: return !(a < b);
    case GRAFT_CMP_LE: return !(a <= b);
    case GRAFT_CMP_GT: return !(a > b);
    default: return !(a >= b);
    }
}

/* Whether e is false by what the instance has fixed. */
static bool contradicted(Instance *in, const graft_expr *e, int slot, const LeafCtx *self)
{
    if (e->kind == GRAFT_EXPR_AND)
        return contradicted(in, e->kids[0], slot, self) ||
               contradicted(in, e->kids[1], slot, self);
    if (e->kind == GRAFT_EXPR_OR)
        return contradicted(in, e->kids[0], slot, self) &&
               contradicted(in, e->kids[1], slot, self);
    return known_false(in, e, slot, self);
}

/* rank(slot) CMP n, read as the least rank it allows. */
static int rank_wanted(int cmp, bool flipped, double n)
{
    if (flipped) /* 2 < rank(x) is rank(x) > 2 */
        cmp = cmp == GRAFT_CMP_LT   ? GRAFT_CMP_GT
              : cmp == GRAFT_CMP_GT ? GRAFT_CMP_LT
              : cmp == GRAFT_CMP_LE ? GRAFT_CMP_GE
              : cmp == GRAFT_CMP_GE ? GRAFT_CMP_LE
                                    : cmp;
    int r = (int)n + (cmp == GRAFT_CMP_GT ? 1 : cmp == GRAFT_CMP_LT ? -1 : 0);
    return cmp != GRAFT_CMP_NE && r >= 0 && r <= EVAL_MAX_RANK ? r : -1;
}

/* One comparison's wish for slot. */
static void compare_wish(Instance *in, const graft_expr *e, int slot, Want *w)
{
    for (int side = 0; side < 2; side++) {
        const graft_expr *a = e->kids[side], *b = e->kids[1 - side];
        double n;
        if (a->kind == GRAFT_EXPR_RANK && a->slot == slot && known(in, b, slot, NULL, &n)) {
            int r = rank_wanted(e->cmp, side == 1, n);
            if (r >= 0 && w->rank < 0)
                w->rank = r;
        } else if (e->cmp != GRAFT_CMP_EQ) {
            continue;
        } else if (a->kind == GRAFT_EXPR_SHAPE && a->slot == slot &&
                   b->kind == GRAFT_EXPR_SHAPE && b->slot != slot && !w->like) {
            w->like = verify_slot_tensor(in, b->slot);
        } else if (a->kind == GRAFT_EXPR_GETITEM && a->nkids == 1 &&
                   a->kids[0]->kind == GRAFT_EXPR_SHAPE && a->kids[0]->slot == slot &&
                   a->i >= 0 && a->i < EVAL_MAX_RANK && known(in, b, slot, NULL, &n) && n >= 1 &&
                   !w->has_dim[a->i]) {
            w->has_dim[a->i] = true;
            w->dim[a->i] = (int64_t)n;
        }
    }
}

static void collect(Instance *in, const graft_expr *e, int slot, const LeafCtx *self, Want *w)
{
    switch (e->kind) {
    case GRAFT_EXPR_AND:
        collect(in, e->kids[0], slot, self, w);
        collect(in, e->kids[1], slot, self, w);
        return;
    case GRAFT_EXPR_OR: /* the first alternative the instance allows */
        for (int k = 0; k < 2; k++)
            if (!contradicted(in, e->kids[k], slot, self)) {
                collect(in, e->kids[k], slot, self, w);
                return;
            }
        return;
    case GRAFT_EXPR_CMP:
        if (e->nkids == 2)
            compare_wish(in, e, slot, w);
        return;
    default: /* !, users(), dtypes: no shape */
        return;
    }
}

bool verify_guard_shape(Instance *in, int slot, LeafCtx *ctx)
{
    const graft_expr *guard = in->rule->guard;
    if (!guard || slot < 0)
        return false;
    Want w = {.rank = -1};
    collect(in, guard, slot, ctx, &w);
    bool shaped = false;
    if (w.like) {
        verify_ctx_set(ctx, w.like->rank, w.like->dims);
        shaped = true;
    } else if (w.rank >= 0) {
        if (w.rank != ctx->rank)
            verify_rank_shape(w.rank, ctx);
        shaped = true;
    }
    for (int i = 0; i < ctx->rank; i++)
        if (w.has_dim[i]) {
            ctx->dims[i] = w.dim[i];
            shaped = true;
        }
    return shaped;
}

/* Whether e reads value(slot), in its kids or its attributes' values;
 * whole: only where it reads the whole value, not value(slot)[i]. */
static bool reads_value(const graft_expr *e, int slot, bool whole)
{
    if (!e)
        return false;
    if (e->kind == GRAFT_EXPR_VALUE && e->slot == slot)
        return true;
    if (whole && e->kind == GRAFT_EXPR_GETITEM && e->kids[0]->kind == GRAFT_EXPR_VALUE)
        return false; /* value(p)[i]: an element */
    for (int i = 0; i < e->nkids; i++)
        if (reads_value(e->kids[i], slot, whole))
            return true;
    for (int i = 0; i < e->nattrs; i++)
        if (e->attrs[i].src == GRAFT_ASRC_EXPR && reads_value(e->attrs[i].value, slot, whole))
            return true;
    return false;
}

static bool rule_reads_value(const graft_rule *rule, int slot, bool whole)
{
    return slot >= 0 &&
           (reads_value(rule->guard, slot, whole) ||
            (rule->kind == GRAFT_ACTION_REWRITE && reads_value(rule->action, slot, whole)));
}

bool verify_reads_value(const graft_rule *rule, int slot)
{
    return rule_reads_value(rule, slot, false);
}

bool verify_reads_scalar(const graft_rule *rule, int slot)
{
    return rule_reads_value(rule, slot, true);
}
