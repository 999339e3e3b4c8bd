/* match_impl.h - the matcher's state, shared by its files:
 *
 *   match.c        trying a rule at a node: the goal machine (note [goal
 *                  machine]), with backtracking, and its explain mode's
 *                  record of the deepest failure (note [explain mode] in
 *                  match.h)
 *   match_check.c  deciding without a try: rules the states prove (note
 *                  [proven rules]) and rules a walk of the states checks
 *                  (note [checked rules])
 *   match_ways.c   the ways that need more than a look at the states: a
 *                  repeated op's chain, a dominator walk
 *   match_direct.c trying a rule that only its guard can refuse straight
 *                  down its pattern, before the goal machine (note [direct
 *                  try])
 *
 * A pattern node's ways, judged by the states, are read by the try and
 * the check alike (below, inline: the try asks at every goal).
 */
#ifndef GRAFT_MATCH_IMPL_H
#define GRAFT_MATCH_IMPL_H

#include "match.h"

#include <string.h>

#include "util.h"
#include "walk.h"

enum { NIL = UINT32_MAX };
#define DIRECT_UNKNOWN UINT32_MAX /* Matcher.direct before a rule's first try */

typedef struct Goal {
    const graft_pat *pat; /* what to match */
    graft_node *node;         /* where */
    bool nobind;        /* a further step of a repeated op: the pattern's
                           slot is already bound at the chain's top */
    bool tail;          /* no match: records the tail pair of a variadic
                           pattern (MatchPair) */
    uint32_t next;      /* the goal after this one, or NIL */
    int root;           /* > 0: no node yet; choose one for root `root`
                           of the rule (note [root candidates]) */
} Goal;

typedef struct Choice {
    const graft_pat *pat; /* the pattern node with more ways */
    graft_node *node;         /* its node */
    bool nobind;        /* as in Goal */
    int way;            /* the next way to try */
    uint32_t rest;      /* goals after this one */
    uint32_t trail;     /* trail height to restore */
    uint32_t pairs;     /* pair count to restore */
    uint32_t pool;      /* goal pool height to restore */
    int root;           /* > 0: the next candidate of that root (way) */
} Choice;

/* matcher_check's goal: a pattern node and its graph node. */
typedef struct CheckGoal {
    const graft_pat *pat; /* what to match */
    graft_node *node;         /* where */
    bool nobind;        /* as in Goal */
} CheckGoal;

/* The direct try's pattern node to match (note [direct try]). */
typedef struct DirectGoal {
    const graft_pat *pat; /* what to match */
    graft_node *node;     /* where */
    bool known;           /* its item is known to be in the node's state
                             (the way above it asked) */
    bool tail;            /* no match: records the tail pair of a variadic
                             pattern (MatchPair) */
} DirectGoal;

/* One pattern node of a rule's direct line (note [direct line] in
 * match_direct.c). */
typedef struct LineStep {
    const graft_pat *pat; /* what to match */
    uint32_t parent;      /* the step whose node's operand it matches */
    uint8_t k;            /* which operand, in the pattern's order */
    bool ask;             /* its item is asked here (all but a commutative
                             op's operands, whose items the op's order
                             asked: note [asks where they fail] in
                             match_direct.c) */
    uint8_t binds;        /* LINE_SLOT: it binds its slot alone;
                             LINE_BINDS: a callee or attributes too */
    uint8_t ways;         /* 2 for a commutative op (its operand orders),
                             else 0 */
    uint32_t word;        /* its item's word in a state's item set */
    uint64_t bit;         /* and its bit there (note [line asks] in
                             match_direct.c) */
    uint32_t kid_word[2]; /* a commutative op's: its two operands' items' */
    uint64_t kid_bit[2];  /* words and bits */
} LineStep;

enum { LINE_SLOT = 1, LINE_BINDS = 2 };
#define LINE_MAX 64 /* a longer pattern is tried down the goal stack */

/* A rule's direct line: its pattern in pre-order, n steps, or none (n 0). */
typedef struct DirectLine {
    LineStep *steps;
    uint32_t n;
} DirectLine;

/* A root for which no user of the shared node via was in the root's
 * state, as long as the labels' epoch is epoch (note [root misses]). */
typedef struct RootMiss {
    const graft_node *via; /* the shared node, NULL for none */
    uint64_t epoch;        /* labels_epoch then */
} RootMiss;

struct Matcher {
    Labels *labels;      /* node states, borrowed */
    const Automaton *a;  /* the automaton, borrowed */
    const graft_rule_set *rs;   /* its rules */
    const graft_graph *g;      /* the graph */
    VEC(Goal) pool;      /* goal cells */
    VEC(Choice) choices; /* choice point stack */
    VEC(uint32_t) trail; /* slots bound, in order */
    VEC(MatchPair) pairs; /* matched pairs, in order */
    graft_binding *b;          /* per slot of the current rule */
    size_t b_cap;        /* slots allocated */
    StrBuf k1, k2;       /* scratch for comparing attribute values */
    uint32_t *mark;      /* per node id: stamp of the last dominator walk */
    size_t mark_cap;     /* entries in mark */
    uint32_t stamp;      /* current walk's stamp */
    WALK(graft_node *) walk;   /* dominator walk stack */
    uint64_t steps;      /* steps of the current try */
    uint64_t max_steps;  /* steps a try may take */
    MatchFailure *rec;   /* explain mode: the deepest failure, or NULL */
    uint32_t nslots;     /* slots of the current rule */
    const uint32_t *proof; /* per rule: the most steps its try can take when
                            its state proves it (note [proven rules]), or
                            0 when a try must verify it */
    const bool *checked; /* per rule: matcher_check can tell without a try
                            (note [checked rules]) */
    uint32_t *proof_built; /* proof and checked when matcher_new made them, */
    bool *checked_built;   /* NULL when the rule set's index brought them */
    graft_node **at;           /* matcher_check: per slot, the node it holds */
    size_t at_cap;       /* entries allocated in at */
    WALK(CheckGoal) todo; /* matcher_check: pattern nodes to look at */
    const graft_rule *rule; /* the rule being tried */
    graft_node **root_at; /* per root of the rule: the node it matched */
    size_t root_at_cap;  /* entries allocated in root_at */
    VEC(graft_node *) cands; /* match_roots.c: a root's candidates */
    VEC(graft_node *) level; /* match_roots.c: scratch, one level of users */
    uint32_t *seen;      /* match_roots.c: per node id, stamp of the last
                            candidate search that reached it */
    size_t seen_cap;     /* entries in seen */
    uint32_t seen_stamp; /* current search's stamp */
    RootMiss *misses;    /* match_roots.c: per root of every rule of
                            several, the last miss (note [root misses]) */
    uint32_t *miss_at;   /* per rule: its roots' first entry in misses */
    uint32_t *direct;    /* per rule: the most steps of its try when only
                            the guard can refuse it, 0 when more can, or
                            DIRECT_UNKNOWN before its first try (note
                            [direct try]) */
    WALK(DirectGoal) line; /* the direct try's pattern nodes to match */
    DirectLine *lines;    /* per rule: its direct line, made with direct */
    bool lined;           /* the last try's pairs are its rule's line's
                             (matcher_pairs_lined) */
    const uint64_t *sets; /* the direct try's view of the states' item sets */
    size_t set_words;     /* (automaton_state_sets), taken as it starts */
    VEC(graft_attr_value *) indexes; /* [k]: the int k, what an index
                            variable binds (note [index variables] in
                            src/compiler/check_vars.c); made when first
                            needed, kept while bindings may point at them */
};

/* ---- match.c ---- */

/* Adds the pair (p, n) to the match. */
void matcher_add_pair(Matcher *m, const graft_pat *p, graft_node *n);

/* The goal "match p at n" before next, in the pool; its index. */
uint32_t matcher_goal(Matcher *m, const graft_pat *p, graft_node *n, bool nobind, uint32_t next);
/* The value an index variable binds at element node n: its index. */
const graft_attr_value *matcher_index_value(Matcher *m, const graft_node *n);
/* Whether the rule's guard, if any, accepts the bindings. */
bool matcher_guard_ok(const Matcher *m, const graft_rule *rule);
/* Explain mode: records a failure of kind at (p, n) when it is the
 * deepest so far; true when recorded. */
bool matcher_record(Matcher *m, MatchFailKind kind, const graft_pat *p, graft_node *n);

/* ---- match_roots.c (note [root candidates]) ---- */

/* Sets up and frees the misses of the rules of several roots. */
void matcher_roots_init(Matcher *m);
void matcher_roots_free(Matcher *m);
/* The goals that look for the rule's roots after the first, before rest. */
uint32_t matcher_root_goals(Matcher *m, uint32_t rest);
/* False when a later root of m->rule can have no node for a first root at
 * root, seen before matching it (note [root precheck]). */
bool matcher_roots_possible(const Matcher *m, const graft_node *root);
/* Takes candidate w or a later one of root j as the root's node: the
 * goal of its pattern there before rest in *out, and a choice point when
 * a later candidate could work too; false when none is left. */
bool matcher_root_way(Matcher *m, int j, int w, uint32_t rest, uint32_t *out);

/* ---- match_ways.c ---- */

/* Whether a repeated op's chain can take one more op at n (note [nested
 * stars]). */
bool matcher_star_extends(const Matcher *m, const graft_pat *p, graft_node *n);
/* The dominator pattern p's walk at n (note [dominator walk]); its
 * parent node in *parent, the path's nodes added as pairs when keep_path. */
bool matcher_dom_walk(Matcher *m, const graft_pat *p, graft_node *n, bool keep_path,
                      graft_node **parent);

/* ---- match_direct.c (note [direct try]) ---- */

/* Decides m->direct[r] at rule r's first try, and makes its line. */
void matcher_direct_learn(Matcher *m, uint32_t r);

/* Whether rule r is tried straight down its pattern first (inline: asked
 * at every try). */
static inline bool matcher_direct_fits(Matcher *m, uint32_t r)
{
    if (m->rec) /* explain mode records the goal machine's failures */
        return false;
    if (m->direct[r] == DIRECT_UNKNOWN)
        matcher_direct_learn(m, r);
    return m->direct[r] && m->direct[r] <= m->max_steps;
}
/* Tries rule at root straight down its pattern, after reset: true with
 * *res MATCH_OK or MATCH_GUARD when that decides the try, false when the
 * goal machine must (after another reset). */
bool matcher_direct(Matcher *m, uint32_t r, graft_node *root, MatchResult *res);
/* Frees the rules' direct lines. */
void matcher_lines_free(Matcher *m);

/* ---- match_check.c ---- */

/* The most steps rule's try takes when its state proves it (note [proven
 * rules]), or 0 when a try must verify it. */
uint32_t matcher_proof_steps(const graft_rule *rule);
/* The same bound for a rule whose try only its guard can refuse where its
 * state offers it (guard or not), 0 for another. */
uint32_t matcher_linear_steps(const graft_rule *rule);
/* Whether matcher_check can tell for rule without a try (note [checked
 * rules]). */
bool matcher_checkable(const graft_rule *rule);

/* ---- the ways of a pattern node ---- */

static inline bool has(const Matcher *m, const graft_node *n, uint32_t item)
{
    return automaton_state_has(m->a, labels_state(m->labels, n), item);
}

static inline bool kids_fit(const Matcher *m, const graft_pat *p, graft_node *n, const int *order)
{
    for (int k = 0; k < p->nkids; k++)
        if (!has(m, pattern_operand(n, order ? order[k] : k), p->kids[k]->item))
            return false;
    return true;
}

/* How many ways pattern node p has to match. */
static inline int nways(const Matcher *m, const graft_pat *p)
{
    if (p->kind == GRAFT_PAT_ALT)
        return p->nkids;
    if (p->kind == GRAFT_PAT_STAR)
        return 2;
    if (p->kind == GRAFT_PAT_OP && p->nkids == 2 && m->rs->items[p->item].commutative)
        return 2;
    return 1;
}

static const int swapped[2] = {1, 0};

/* Whether way w of p at n can work, judged by the states (and for a
 * dominator pattern by its walk). */
static inline bool way_fits(Matcher *m, const graft_pat *p, graft_node *n, int w)
{
    graft_node *parent;
    switch (p->kind) {
    case GRAFT_PAT_DOM:
        return matcher_dom_walk(m, p, n, false, &parent);
    case GRAFT_PAT_ALT:
        return has(m, n, p->kids[w]->item);
    case GRAFT_PAT_STAR:
        return w == 0 ? matcher_star_extends(m, p, n) : has(m, n, p->kids[0]->item);
    case GRAFT_PAT_OP:
        return kids_fit(m, p, n, w == 1 ? swapped : NULL);
    case GRAFT_PAT_FNCALLEE:
        return node_callee(n) && node_kind(node_callee(n)) == NODE_FUNC;
    default:
        return true;
    }
}

#endif
