/* ruleset.h - the runtime interface between a rule set and the driver.
 *
 * note [one runtime]: the driver (labelling, match order, overlap and
 * interior-use policy, rewriting worklist, partitioning, statistics,
 * trace) lives in libgraft and knows rules only through a graft_rule_set: const
 * tables (pattern.h) plus optional C functions per rule.  The interpreter
 * gets a graft_rule_set from lower.c; `graft compile` writes the same tables as
 * static data and may add C functions for guards and actions.  Both run
 * through engine.h and so give byte-identical output and statistics.
 *
 * A hook left NULL means "interpret the table": guard_fn NULL evaluates
 * guard (NULL guard = always true); build_fn NULL builds action.  With a
 * hook set, matching and rewriting call the hook and never evaluate the
 * table.  Generated C leaves action NULL beside build_fn, but keeps guard
 * beside guard_fn: graft explain (and a compiled rewriter's --explain)
 * walks the guard's tree to show the value of each sub-condition.
 */
#ifndef GRAFT_RULESET_H
#define GRAFT_RULESET_H

#include <stdbool.h>
#include <stdint.h>

#include "graft_rules.h"
#include "graph.h"
#include "pattern.h"

#endif
