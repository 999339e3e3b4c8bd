/* checker.h - the checker: resolves and checks the rules of a RuleFile.
 *
 * After parsing, check_rules
 *   - expands lets and macros into each rule's AstRule.pattern and links op
 *     calls to the registry (unknown op, operand count, unknown attribute,
 *     attribute value kinds);
 *   - assigns variable slots (AstRule.vars, AstNode var.slot / bind.slot)
 *     and reports contradictory constraints and unused bindings;
 *   - checks guards (query names and arguments, operand kinds) and actions
 *     (variables used but never bound, attribute values);
 *   - compares rules: duplicate names, rules that can never fire because
 *     an earlier (or higher-priority) rule always wins (-Wshadowed-rule),
 *     and rules of equal priority that can match the same node with
 *     different actions (-Wambiguous-overlap).
 * Diagnostics go through d; warnings carry their flag (-Wunused-binding,
 * -Wshadowed-rule, -Wambiguous-overlap).
 */
#ifndef GRAFT_CHECKER_H
#define GRAFT_CHECKER_H

#include <stdbool.h>

#include "ast.h"
#include "diag.h"
#include "limit.h"
#include "rulefile.h"

/* Checks every rule of rf (rf->rules, with the lets and ops of rf->files
 * already parsed and the ops declared in rf->registry), expanding macros
 * within limits (NULL: limit_defaults).  Returns the number of errors it
 * reported. */
unsigned check_rules(RuleFile *rf, const graft_limits *limits, graft_diag *d);

/* Whether every node that pattern b matches is also matched by pattern a
 * (a sound approximation: false when unsure).  Patterns must be checked. */
bool check_subsumes(const AstRule *a, const AstRule *b);
/* Whether some node could match both patterns (true when unsure). */
bool check_may_unify(const AstNode *a, const AstNode *b);

/* The warnings the checker gives, by the flag each ends in
 * ("unused-binding"); -Wno-NAME takes these names. */
enum { CHECK_NWARNINGS = 5 };
extern const char *const check_warning_names[CHECK_NWARNINGS];
bool check_warning_known(const char *name);
/* Whether a rule's pattern is several roots, p & q (note [several roots]
 * in check_roots.c). */
bool check_is_roots(const AstNode *pattern);

#endif
