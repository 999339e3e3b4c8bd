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
    const graft_pat *pat; /* GRAFT_PAT_ANY, GRAFT_PAT_OP, GRAFT_PAT_FNCALL, GRAFT_PAT_TUPLE,
                           GRAFT_PAT_GETITEM, or GRAFT_PAT_STAR for one step of the
                           repeated op */
    graft_node *node;         /* the graph node */
    bool tail;          /* the unmatched operands of a variadic pattern */
} MatchPair;

Matcher *matcher_new(Labels *labels, const graft_graph *g);
/* What matcher_new decides of a rule before any node, which graft
 * compile writes into the rule set's index (note [compiled index] in
 * graft_rules.h): the most steps its try takes where its state proves it
 * (0: a try verifies it), and whether matcher_check tells it without a
 * try. */
void matcher_rule_facts(const graft_rule *rule, uint32_t *proof_steps, bool *checked);
void matcher_free(Matcher *m);
/* Steps one try may take before it gives up with MATCH_BUDGET; the
 * default is limit_defaults.match_steps. */
void matcher_set_max_steps(Matcher *m, uint64_t max_steps);

/* Tries rule r (an index into the rule set) at root. */
MatchResult matcher_try(Matcher *m, uint32_t r, graft_node *root);
/* Whether rule r matches wherever its root's state offers it, so that a
 * try would return MATCH_OK (note [proven rules] in match_check.c). */
bool matcher_state_proves(const Matcher *m, uint32_t r);
/* What matcher_check tells of rule r at a node its state offers it at. */
typedef enum MatchCheck {
    CHECK_MATCHES, /* a try would return MATCH_OK (bindings not made) */
    CHECK_FAILS,   /* a try would return MATCH_FAIL */
    CHECK_TRY,     /* only a try can tell */
} MatchCheck;
/* Rule r at root, whose state offers it, without a try where the states
 * decide it: a proven rule, or one that repeats a variable or an op
 * where the states leave no choice (note [checked rules] in match_check.c). */
MatchCheck matcher_check(Matcher *m, uint32_t r, graft_node *root);
/* After MATCH_OK: one graft_binding per variable slot of the rule. */
const graft_binding *matcher_bindings(const Matcher *m);
/* After MATCH_OK of a rule of several roots: the node of each root, in
 * the roots' order, *n of them (*n is 0 for a rule of one root). */
graft_node *const *matcher_roots(const Matcher *m, int *n);
/* After MATCH_OK: the matched pairs in pattern order (depth first,
 * operands left to right, as written).  A node may appear twice when a
 * variable is used twice. */
const MatchPair *matcher_pairs(const Matcher *m, uint32_t *n);
/* After MATCH_OK: whether the rule's direct line made the pairs (note
 * [direct line] in match_direct.c): then the i-th pair's pattern node is
 * the line's i-th, the same at every match of the rule so made. */
bool matcher_pairs_lined(const Matcher *m);

/* Evaluates a guard expression against bindings (match_guard.c). */
bool guard_eval(const graft_expr *guard, const graft_binding *b);
/* The value of any guard sub-expression, and its canonical text (a list
 * item by item; "?" for a query without an answer; a dim named by a
 * symbol by its name in g), for graft explain. */
graft_guard_val guard_value(const graft_expr *e, const graft_binding *b);
void guard_value_text(const graft_guard_val *v, const graft_binding *b, const graft_graph *g,
                      StrBuf *out);

/* ---- explain mode (graft explain) ----
 * note [explain mode]: with a MatchFailure attached, matcher_try records
 * the deepest place where one of its ways failed: the goal that failed
 * and the pairs matched before it (a guard refusal counts as deeper than
 * any pattern failure with the same pairs).  The try itself is unchanged,
 * so an explanation and graft match cannot disagree: both are the same
 * walk. */
typedef enum MatchFailKind {
    MFAIL_NONE,    /* nothing failed (yet) */
    MFAIL_ITEM,    /* pat does not match node (its item is not in the
                      node's state): match_explain_item says why */
    MFAIL_REBIND,  /* pat's variable was bound before to another node */
    MFAIL_ATTR,    /* pat's attribute binding binds[bind] was bound before
                      to another value */
    MFAIL_WAYS,    /* no way of pat fits at node (a dominator walk) */
    MFAIL_GUARD,   /* the pattern matched; the guard refused */
    MFAIL_BUDGET,  /* the try ran out of steps */
    MFAIL_ROOT,    /* no user of the shared binding's node (node, slot in
                      bind) fits root pat of a rule of several roots
                      (note [root candidates] in match_roots.c) */
} MatchFailKind;

typedef struct MatchFailure {
    MatchFailKind kind;     /* what failed */
    const graft_pat *pat;     /* the pattern part that failed */
    graft_node *node;             /* the node it failed at */
    graft_node *other;            /* MFAIL_REBIND: the node bound before */
    int bind;               /* MFAIL_ATTR: index into pat->binds;
                               MFAIL_ROOT: the shared slot */
    const graft_attr_value *had;   /* MFAIL_ATTR: the value bound before */
    const graft_attr_value *got;   /* MFAIL_ATTR: the node's value */
    uint32_t depth;         /* pairs matched before the failure */
    MatchPair *pairs;       /* those pairs (malloc'd, depth entries) */
    size_t pairs_cap;       /* allocated */
    graft_binding *b;             /* the bindings then (malloc'd) */
    size_t b_cap;           /* allocated */
} MatchFailure;

/* Attaches rec (NULL: detaches); each matcher_try clears it first. */
void matcher_explain(Matcher *m, MatchFailure *rec);
void match_failure_free(MatchFailure *rec);

/* Why a pattern part does not match a node (match_explain.c), found by
 * descending from the part the matcher stopped at to the innermost part
 * and node at fault, by the same states the matcher reads. */
typedef enum WhyKind {
    WHY_KIND,   /* the node is not the kind of node the part wants */
    WHY_OP,     /* the node calls another op */
    WHY_ARITY,  /* the node has another number of operands or fields */
    WHY_INDEX,  /* the node takes another tuple element */
    WHY_PRED,   /* the node fails the test pred */
    WHY_ALT,    /* every alternative fails: ask again for each kid of pat */
    WHY_DOM,    /* the dominator walk fails at node (dom says how) */
    WHY_STATE,  /* the node's state rules the part out, no one test does
                   (operand orders failing differently) */
} WhyKind;

enum { MATCH_WHY_PATH = 32 };

typedef struct MatchWhy {
    WhyKind kind;          /* why */
    const graft_pat *pat;    /* the innermost pattern part at fault */
    graft_node *node;            /* the node it was tried at */
    const graft_pred *pred;   /* WHY_PRED: the test that failed */
    int dom;               /* WHY_DOM: 0 node is neither the parent, nor a
                              constant, nor on the path; 1 node is a second
                              node matching the parent; 2 the walk from
                              node reaches no parent */
    uint32_t depth;        /* parts passed on the way down (their own
                              tests held, an operand failed) */
    MatchPair path[MATCH_WHY_PATH]; /* the first of them */
} MatchWhy;

MatchWhy match_why(const Matcher *m, const graft_pat *p, graft_node *n);
/* Where the dominator walk of dominates(...) part p from n stops. */
MatchWhy match_why_dom(const Matcher *m, const graft_pat *p, graft_node *n);
/* The rule set, and whether item is in n's state, as the matcher sees them. */
const graft_rule_set *matcher_ruleset(const Matcher *m);
const graft_graph *matcher_graph(const Matcher *m);
bool matcher_node_has(const Matcher *m, const graft_node *n, uint32_t item);
/* What a part wants and what the node has instead, as prose:
 * "a model input (a variable)" / "is a call of reshape", "has units=4". */
void match_why_wanted(const Matcher *m, const MatchWhy *w, StrBuf *out);
void match_why_found(const Matcher *m, const MatchWhy *w, StrBuf *out);

#endif
