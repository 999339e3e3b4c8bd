/* einsum.h - an einsum equation ("ij,jk->ik") read once for the type
 * relation (type_rel_einsum.c) and the evaluator (eval_einsum.c): each
 * operand's subscripts and the output's as letter numbers.
 *
 * As numpy.einsum and TVM's einsum read it: an operand's subscripts are
 * letters, one per axis (empty for a scalar); a letter repeated within an
 * operand takes its diagonal; letters of different operands that agree
 * are multiplied together, and those missing from the output are summed
 * over.  Without "->" the output is the letters that occur once, in
 * alphabetical order.  An ellipsis ("...") is not read. */
#ifndef GRAFT_EINSUM_H
#define GRAFT_EINSUM_H

#include <stdbool.h>

enum {
    EINSUM_MAX_OPERANDS = 8,
    EINSUM_MAX_LETTERS = 52, /* a-z, A-Z */
    EINSUM_MAX_RANK = 32,    /* subscripts of one operand or the output */
};

typedef struct EinsumSpec {
    int noperands;
    int rank[EINSUM_MAX_OPERANDS];                   /* subscripts of each operand */
    signed char sub[EINSUM_MAX_OPERANDS][EINSUM_MAX_RANK]; /* their letter numbers */
    int out_rank;
    signed char out[EINSUM_MAX_RANK];
    int nletters;                                    /* letter numbers 0..nletters-1 */
} EinsumSpec;

/* Reads equation into s; false with *why (a static message) when it is
 * not one this reads. */
bool einsum_parse(const char *equation, EinsumSpec *s, const char **why);

#endif
