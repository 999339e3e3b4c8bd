/* lower.h - checked rules (ast.h) to the runtime's tables (ruleset.h).
 *
 * Lowering expands what the automaton should not see: optional ops
 * become alternatives, op classes alternatives over the registry's ops,
 * attribute constraints node tests with the registry's defaults baked in
 * (note [attribute defaults] in registry.h), so the runtime needs no
 * registry.  Equal sub-patterns of all rules become one item.
 *
 * The result owns copies of every string it uses: the RuleFile may be
 * freed right after lowering.
 */
#ifndef GRAFT_LOWER_H
#define GRAFT_LOWER_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "frontend.h"
#include "ruleset.h"

typedef struct Lowered {
    graft_rule_set rs;    /* the tables; rs.rules etc. point into arena */
    Arena *arena;  /* owns everything */
} Lowered;

/* Lowers every rule of rf.  Constructs the runtime cannot run are reported
 * through d ("file:line:col: error: ..."); then returns NULL. */
Lowered *lower_rules(const RuleFile *rf, graft_diag *d);
void lower_free(Lowered *lw);

/* graft check --dump-automaton [--dot]: lowers rf, builds its automaton
 * and writes it to out (automaton_dump); false after reporting. */
bool lower_dump_automaton(const RuleFile *rf, FILE *out, bool dot, graft_diag *d);

#endif
