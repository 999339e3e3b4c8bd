/* cmd_verify_prove.h - graft verify --prove's part of the command
 * (cmd_verify.c): one rule through the prover. */
#ifndef GRAFT_CMD_VERIFY_PROVE_H
#define GRAFT_CMD_VERIFY_PROVE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "lower.h"
#include "prove.h"
#include "verify.h"

/* Loads the prover's Z3 (note [Z3 loaded lazily]): -1 when loaded, else
 * EXIT_BAD_INPUT after "graft: error: verify --prove: cannot load Z3: ...". */
int verify_prove_load(void);
/* Proves rule i of rf (lowered as lw) and prints its line to out (a
 * refutation's diagnostic and counterexample to err).  True when the
 * prover settled it (*verdict VERIFIED for proved, REFUTED); false for a
 * partition rule, or after a "not proved: ..." line, when the numeric
 * check follows. */
bool verify_prove_one(const RuleFile *rf, const Lowered *lw, int i, const ProveOptions *po,
                      FILE *out, FILE *err, VerifyVerdict *verdict);

#endif
