/* verify.h - numeric evidence that a rewrite rule keeps a model's meaning.
 *
 * note [verifying a rule]: verify_rule instantiates a rule's pattern as a
 * small graph, its leaves parameters (or constants, for x:const and
 * literals) with shapes chosen by a small deterministic search: the
 * evaluator (eval.h) computes each node's shape as the instance is built,
 * leaves take shapes from the op that reads them (NCHW data and OIHW
 * weights for nn.conv2d, channel vectors for nn.batch_norm, the sibling's
 * shape, its last dim or a scalar for element-wise ops), and attribute
 * variables and unconstrained constants take values from short candidate
 * lists.  An instance counts when the rule matches at its root (guards
 * included) and both sides evaluate; the rule's action is applied by the
 * engine itself, so what is checked is what graft run does.  Each trial
 * draws new random values for the leaves and compares the results, each
 * op's result rounded to its dtype (EVAL_DTYPE), against a tolerance of
 * eps(dtype) * 8 * (ops on both sides) relative to the trial's scale: 1 +
 * the largest magnitude of the result or of the leaves' values (rounding
 * errors scale with the operands: mean(mean(x)) of values up to 1e3 errs
 * by about 1e3 * eps, whatever the mean).  The trials begin with corner
 * values (note [corner values] in verify_impl.h).
 */
#ifndef GRAFT_VERIFY_H
#define GRAFT_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "eval.h"
#include "ruleset.h"
#include "util.h"

typedef struct VerifyOptions {
    uint64_t seed;       /* --seed: with the rule's name, the random values */
    int trials;          /* --trials: value draws per rule */
    int max_instances;   /* instances tried before giving up (0: 400) */
    bool inexact;        /* the rule is marked [inexact]: a loose tolerance */
    uint64_t max_elements; /* the eval-elements limit (0: none) */
} VerifyOptions;

typedef enum VerifyVerdict {
    VERIFY_VERIFIED,  /* every trial within tolerance */
    VERIFY_REFUTED,   /* a trial past tolerance: detail has it */
    VERIFY_UNCHECKED, /* no instance could be built or evaluated: why */
    VERIFY_SKIPPED,   /* a partition rule: nothing to compare */
    VERIFY_NVERDICTS  /* how many there are (a new verdict goes before) */
} VerifyVerdict;

typedef struct VerifyReport {
    VerifyVerdict verdict;
    int instances;       /* instances checked (shapes, ranks, attributes) */
    int trials;          /* trials compared, corner values included */
    double max_error;    /* largest error seen, relative to the scale */
    double tolerance;    /* the bound it was held to */
    StrBuf instance;     /* the instance: "x: (2, 3) float32, e = 1e-05"; of a
                            refutation the one refuted, else the last */
    StrBuf why;          /* UNCHECKED: the reason; REFUTED: a summary */
    StrBuf detail;       /* REFUTED: the counterexample, lines "  ...\n" */
} VerifyReport;

/* Verifies rule (an index into rs->rules) and fills *out (free with
 * verify_report_free). */
void verify_rule(const graft_rule_set *rs, uint32_t rule, const VerifyOptions *o,
                 VerifyReport *out);
void verify_report_free(VerifyReport *r);

/* Largest difference between got and want, relative to 1 + want's
 * largest magnitude; a NaN where the other has a number, or a shape
 * mismatch, is infinite.  *at gets the flat index of the worst element
 * (-1 for a shape mismatch). */
double verify_error(const Value *want, const Value *got, long *at);

/* Fills t with random values on a grid of sixteenths, so counterexamples
 * read short: floats in [-2, 2] (positive: [0.25, 2]), integers in
 * [-4, 4], bools 0 or 1; rng is a splitmix64 state. */
void verify_fill_random(Tensor *t, uint64_t *rng, bool positive);

/* Appends "(2, 3) float32 = [1, -0.5, ...]" (at most max values). */
void verify_value_text(const Value *v, int max, StrBuf *out);

#endif
