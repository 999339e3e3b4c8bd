/* model_check.h - a loaded model checked against the op registry, as the
 * checker checks a rule's calls.
 *
 * note [models checked like rules]: every op call of a model names a
 * known op (else "unknown op 'nn.frobnicate'; did you mean ...?", the
 * nearest known name always given), with an operand count the op accepts,
 * attributes the op declares, each once and of its declared kind.  Each
 * error points at the smallest piece at fault: the op name, the first
 * operand too many (or the ')' when operands are missing), the whole
 * "name=value" of an unknown attribute, the value of one of the wrong
 * kind.  The places come from the source: a node keeps only where its op
 * name is, so the call's operands and attributes are found again from
 * there by a small scan that knows brackets, strings and comments
 * (model_check.c); this costs nothing unless a call is wrong.  With
 * allow_unknown, calls of ops the registry does not have are left
 * unchecked (custom ops), as graft did before the check existed; known
 * ops are still checked.
 */
#ifndef GRAFT_MODEL_CHECK_H
#define GRAFT_MODEL_CHECK_H

#include <stdbool.h>

#include "diag.h"
#include "graph.h"
#include "registry.h"

/* Checks g, loaded from src, against reg; reports each wrong call through
 * d and returns how many there were (0: the model is fine). */
int model_check(const graft_graph *g, const Source *src, const Registry *reg,
                bool allow_unknown, graft_diag *d);

#endif
