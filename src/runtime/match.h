/* match.h - verifying a rule at a node and extracting its bindings.
 *
 * The automaton (automaton.h) says which rules may match at a node; the
 * matcher confirms one: it walks the rule's pattern top-down against the
 * graph, binds variables, checks that a variable used twice sees the same
 * node and evaluates the guard.  It backtracks: an alternative retries its
 * other choices, a commutative op tries the other operand order and a
 * repeated op a shorter chain, whenever something later fails (a second
 * use of a variable, the guard).  So graft finds the match if one exists.
 *
 * The walk uses explicit stacks (goals, choice points, a trail of bound
 * variables), no recursion: a repeated op matching a chain of a million
 * nodes is fine.  Every step checks that the pattern's item is in the
 * node's state, so dead ends are cut at once.
 */
#ifndef GRAFT_MATCH_H
#define GRAFT_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "automaton.h"
#include "graph.h"
#include "ruleset.h"

typedef struct Matcher Matcher;

typedef enum MatchResult {
    MATCH_OK,     /* matched; bindings and pairs are valid */
    MATCH_FAIL,   /* no way to match the pattern */
    MATCH_GUARD,  /* the pattern matched, the guard refused every way */
    MATCH_BUDGET, /* gave up after the match-steps limit (limit.h) */
} MatchResult;

/* One pattern node and the graph node it matched.  Pairs come in the
 * pattern's pre-order (operands left to right as the pattern writes
 * them); a variadic op pattern (f(x, ...)) that leaves operands unmatched
 * adds a second pair with tail set after the pairs of its operands, where
 * a post-order walk meets those operands (TVM's parameter order). */
typedef struct MatchPair {
    const PatNode *pat; /* PAT_ANY, PAT_OP, PAT_FNCALL, PAT_TUPLE,
                           PAT_GETITEM, or PAT_STAR for one step of the
                           repeated op */
    Node *node;         /* the graph node */
    bool tail;          /* the unmatched operands of a variadic pattern */
} MatchPair;

Matcher *matcher_new(Labels *labels, const Graph *g);
void matcher_free(Matcher *m);
/* Steps one try may take before it gives up with MATCH_BUDGET; the
 * default is limit_defaults.match_steps. */
void matcher_set_max_steps(Matcher *m, uint64_t max_steps);

/* Tries rule r (an index into the rule set) at root. */
MatchResult matcher_try(Matcher *m, uint32_t r, Node *root);
/* After MATCH_OK: one Binding per variable slot of the rule. */
const Binding *matcher_bindings(const Matcher *m);
/* After MATCH_OK: the matched pairs in pattern order (depth first,
 * operands left to right, as written).  A node may appear twice when a
 * variable is used twice. */
const MatchPair *matcher_pairs(const Matcher *m, uint32_t *n);

/* Evaluates a guard expression against bindings (match_guard.c). */
bool guard_eval(const PatExpr *guard, const Binding *b);
/* The value of a guard expression (a computed attribute in an action:
 * shape(w)[0], rank(x) - 1). */
GuardVal guard_value(const PatExpr *e, const Binding *b);

#endif
