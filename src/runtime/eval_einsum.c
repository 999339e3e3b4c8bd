/* eval_einsum.c - einsum (einsum.h): every assignment of the equation's
 * letters visited once, the product of the operands' elements there
 * added into the output element the output's letters pick. */
#include "eval_impl.h"

#include <string.h>

#include "einsum.h"

/* Each letter's size from the operands; false after failing when an
 * operand's rank or a size disagrees with another. */
static bool letter_sizes(EvalCall *c, const Value *tup, const EinsumSpec *s, int64_t *size)
{
    for (int l = 0; l < s->nletters; l++)
        size[l] = -1;
    for (int i = 0; i < s->noperands; i++) {
        const Tensor *t = &tup->fields[i].t;
        if (tup->fields[i].nfields >= 0 || t->rank != s->rank[i])
            return eval_fail(c, "operand %d is no tensor of rank %d", i + 1, s->rank[i]);
        for (int d = 0; d < t->rank; d++) {
            int64_t *have = &size[s->sub[i][d]];
            if (*have >= 0 && *have != t->dims[d])
                return eval_fail(c, "operand %d's dim %d is %lld, elsewhere %lld", i + 1, d,
                                 (long long)t->dims[d], (long long)*have);
            *have = t->dims[d];
        }
    }
    return true;
}

/* How far a step of each letter moves in t (operand i's subscripts; a
 * letter twice in one operand moves along both axes: the diagonal). */
static void letter_steps(const Tensor *t, const signed char *sub, int nletters, int64_t *step)
{
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(t->rank, t->dims, strides);
    memset(step, 0, (size_t)nletters * sizeof *step);
    for (int d = 0; d < t->rank; d++)
        step[sub[d]] += strides[d];
}

/* Visits every letter assignment (an odometer over the letters, the last
 * fastest), keeping each operand's and the output's flat offset. */
static void contract(const Value *tup, const EinsumSpec *s, const int64_t *size,
                     int64_t steps[][EINSUM_MAX_LETTERS], Tensor *r)
{
    int n = s->noperands, nl = s->nletters;
    int64_t at[EINSUM_MAX_LETTERS] = {0}, off[EINSUM_MAX_OPERANDS + 1] = {0};
    for (int l = 0; l < nl; l++)
        if (size[l] == 0)
            return;
    for (;;) {
        double prod = 1;
        for (int i = 0; i < n; i++)
            prod *= tup->fields[i].t.data[off[i]];
        r->data[off[n]] += prod;
        int l = nl - 1;
        for (; l >= 0; l--) {
            for (int i = 0; i <= n; i++)
                off[i] += steps[i][l];
            if (++at[l] < size[l])
                break;
            for (int i = 0; i <= n; i++)
                off[i] -= steps[i][l] * size[l];
            at[l] = 0;
        }
        if (l < 0)
            return;
    }
}

static bool op_einsum(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1) || c->args[0].nfields < 1)
        return eval_fail(c, "wants a tuple of tensors");
    const Value *tup = &c->args[0];
    const char *eq = eval_attr_str(c, "equation", "");
    EinsumSpec s;
    const char *why = NULL;
    if (!einsum_parse(eq, &s, &why))
        return eval_fail(c, "equation \"%s\": %s", eq, why);
    if (s.noperands != tup->nfields)
        return eval_fail(c, "the equation has %d operands, the tuple %d", s.noperands,
                         tup->nfields);
    int64_t size[EINSUM_MAX_LETTERS], dims[EVAL_MAX_RANK];
    if (!letter_sizes(c, tup, &s, size))
        return false;
    if (s.out_rank > EVAL_MAX_RANK)
        return eval_fail(c, "output rank %d", s.out_rank);
    double visits = 1;
    for (int l = 0; l < s.nletters; l++)
        visits *= (double)size[l];
    if (c->opts->max_elements && visits > (double)c->opts->max_elements)
        return eval_fail(c, "%.0f products pass the element limit", visits);
    for (int d = 0; d < s.out_rank; d++)
        dims[d] = size[s.out[d]];
    Tensor *r = eval_result(c, tup->fields[0].t.dtype, s.out_rank, dims);
    if (!r)
        return false;
    int64_t steps[EINSUM_MAX_OPERANDS + 1][EINSUM_MAX_LETTERS];
    for (int i = 0; i < s.noperands; i++)
        letter_steps(&tup->fields[i].t, s.sub[i], s.nletters, steps[i]);
    letter_steps(r, s.out, s.nletters, steps[s.noperands]);
    contract(tup, &s, size, steps, r);
    return true;
}

const EvalOpDef eval_einsum_ops[] = {
    {"einsum", op_einsum},
    {NULL, NULL},
};
