/* prove.h - proofs that a rewrite rule keeps meaning, by Z3 (graft verify
 * --prove).
 *
 * note [proving a rule]: the prover reads a rule's pattern (graft_pat) and
 * action (graft_expr) as one element of the result: each leaf is a
 * variable standing for its element at the result's position, whatever
 * the shapes, and each element-wise or broadcasting op a term over its
 * operands' elements.  The rule holds for every binding exactly when
 *     assumptions  =>  (action defined  &&  pattern == action)
 * is valid, the assumptions being the guard's comparisons of constant
 * values, the pattern's domain (divisors not 0, square roots of
 * non-negatives, logs of positives) and the axioms of the functions the
 * solver does not know (sqrt(t) >= 0 and sqrt(t)^2 = t for t >= 0,
 * exp(t) > 0, exp(0) = 1, exp(-t) * exp(t) = 1, log(exp(t)) = t; tanh(t)
 * is 2 * sigmoid(2t) - 1 and sigmoid(t) 1 / (1 + exp(-t)); erf is
 * uninterpreted).  Z3 is asked whether the negation is satisfiable:
 * unsat is a proof; a model is a counterexample, replayed numerically
 * on an instance of the pattern (verify.h) before it is called one.
 * Shapes are handled apart: the leaves whose shapes broadcast into each
 * side's result are compared as sets, so a proof holds for every shape
 * for which both sides are well-typed (a leaf read as a channel vector,
 * nn.batch_norm's gamma, is a vector along that axis; one used as an
 * attribute, epsilon=eps, a scalar).  Over the reals by default; over
 * IEEE float32 (Z3's FloatingPoint theory, rounding to nearest even)
 * with ieee, where a rule exact over the reals but not in float32, as
 * any reassociation, is refuted and marked [inexact].  A pattern with
 * alternatives is proved for each combination in turn.  A rule outside
 * the fragment is tried on one instance, every element a variable
 * (prove_instance.c): "proved for [x: (2, 3) float32] only", which does
 * not count as proved, or refuted.
 */
#ifndef GRAFT_PROVE_H
#define GRAFT_PROVE_H

#include <stdbool.h>
#include <stdint.h>

#include "ruleset.h"
#include "util.h"

typedef struct ProveOptions {
    bool ieee;             /* over float32 rather than the reals */
    unsigned rlimit;       /* Z3's resource limit per query, deterministic
                              unlike a timeout (0: 20,000,000) */
} ProveOptions;

typedef enum ProveVerdict {
    PROVE_PROVED,      /* valid for every binding (and shape) */
    PROVE_REFUTED,     /* a counterexample that the evaluator confirms */
    PROVE_INEXACT,     /* ieee: refuted in float32, proved over the reals */
    PROVE_NOT_PROVED,  /* outside the fragment, unknown, or not replayed */
} ProveVerdict;

typedef struct ProveReport {
    ProveVerdict verdict;
    int combinations;   /* alternatives proved (PROVED) */
    StrBuf why;         /* NOT_PROVED: the reason; REFUTED: a summary */
    StrBuf detail;      /* REFUTED, INEXACT: the model and its replay,
                           lines "  ...\n" */
} ProveReport;

/* Loads Z3 (note [Z3 loaded lazily] in prove_z3.c); call before the
 * first prove_rule.  False, the reason in *why, when it cannot be. */
bool prove_load(StrBuf *why);
/* Proves rule (an index into rs->rules, a rewrite rule) and fills *out
 * (free with prove_report_free). */
void prove_rule(const graft_rule_set *rs, uint32_t rule, const ProveOptions *o,
                ProveReport *out);
void prove_report_free(ProveReport *r);
/* Frees what Z3 keeps between contexts (its memory manager, symbol
 * tables) and closes its library; call once, after the last prove_rule. */
void prove_shutdown(void);

#endif
