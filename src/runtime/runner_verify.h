/* runner_verify.h - --verify (RunOptions.verify) of graft run and of a
 * rewriter built by graft compile --exe: evaluate a model before and after
 * its rewrites on the same random inputs and report the difference. */
#ifndef GRAFT_RUNNER_VERIFY_H
#define GRAFT_RUNNER_VERIFY_H

#include <stdbool.h>

#include "diag.h"
#include "runner.h"

/* Rewrites a copy of the model loaded from src with rs, evaluates the
 * original and the copy and reports on standard error the largest
 * difference per output; past the tolerance, also the first rewrite
 * that made it so (bisecting over the number of rewrites).  False after
 * reporting when the model cannot be evaluated or the difference passes
 * the tolerance. */
bool runner_verify(const graft_rule_set *rs, const Source *src, const RunOptions *o, graft_diag *d);

#endif
