/* type_rel_einsum.c - the type relation of einsum (TVM's EinsumRel,
 * tvm/src/relay/op/tensor/math.cc): a tuple of tensors, one per operand of
 * the equation, each of the rank its subscripts say; a letter has one
 * size wherever it occurs; the output has the sizes of the output's
 * letters and the first operand's dtype. */
#include "type_rel.h"

#include "einsum.h"
#include "type_infer.h"

/* Each letter's size from the operands' dims, DIM_ANY where unknown;
 * false after reporting when an operand's rank or a size disagrees. */
static bool letter_sizes(RelCtx *c, const graft_type *tup, const EinsumSpec *s, int64_t *size)
{
    for (int l = 0; l < s->nletters; l++)
        size[l] = DIM_ANY;
    for (int i = 0; i < s->noperands; i++) {
        const graft_type *f = tup->fields[i];
        if (f->kind != TYPE_TENSOR || f->rank != s->rank[i]) {
            rel_fail(c, "operand %d is %s, the equation gives it %d subscript%s", i + 1,
                     f->text, s->rank[i], s->rank[i] == 1 ? "" : "s");
            return false;
        }
        for (int d = 0; d < f->rank; d++) {
            int64_t *have = &size[s->sub[i][d]];
            if (*have != DIM_ANY && f->dims[d] != DIM_ANY && *have != f->dims[d]) {
                rel_fail(c, "a subscript is %lld long in one place and %lld in operand %d",
                         (long long)*have, (long long)f->dims[d], i + 1);
                return false;
            }
            if (f->dims[d] != DIM_ANY)
                *have = f->dims[d];
        }
    }
    return true;
}

static const graft_type *einsum(RelCtx *c)
{
    const graft_type *tup = c->in[0];
    if (tup->kind != TYPE_TUPLE)
        return rel_fail(c, "expects a tuple of tensors (got %s)", tup->text);
    EinsumSpec s;
    const char *why = NULL;
    if (!einsum_parse(rel_str(c, "equation", ""), &s, &why))
        return rel_fail(c, "equation \"%s\": %s", rel_str(c, "equation", ""), why);
    if (s.noperands != tup->nfields)
        return rel_fail(c, "the equation has %d operand%s, the tuple %d fields", s.noperands,
                        s.noperands == 1 ? "" : "s", tup->nfields);
    int64_t size[EINSUM_MAX_LETTERS];
    if (!letter_sizes(c, tup, &s, size))
        return NULL;
    Shape out = {s.out_rank, {0}};
    for (int d = 0; d < s.out_rank; d++)
        out.dims[d] = size[s.out[d]];
    return rel_make(c, tup->fields[0]->dtype, &out);
}

const TypeRel type_rels_einsum[] = {
    {"einsum", einsum, TYPE_OUTPUTS_TENSOR, 1, 1},
    {NULL, NULL, 0, 0, 0},
};
