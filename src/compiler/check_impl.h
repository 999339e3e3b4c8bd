/* check_impl.h - state shared by the checker's files (check*.c). */
#ifndef GRAFT_CHECK_IMPL_H
#define GRAFT_CHECK_IMPL_H

#include "checker.h"
#include "registry.h"

/* note [expanded depth]: macro expansion can nest patterns beyond what the
 * parser allows in one place; expanded patterns deeper than the
 * macro-depth limit, macros nested deeper than macro-nesting, and (since
 * macros that call others twice double in size per level) patterns
 * growing beyond macro-nodes are errors (limit.h).  Expansion counts the
 * depth on its way down, so its own recursion stays within macro-depth. */

/* What the constraints on one node say (AST_CONSTRAIN), for finding
 * contradictions. */
typedef struct Facts {
    int is_const;          /* 1 constant, 0 not a constant, -1 unknown */
    int is_var;            /* 1 model input, 0 not one, -1 unknown */
    const char *var_name;  /* var("NAME"), or NULL */
    const char *dtype;     /* required dtype, or NULL */
    int rank;              /* required rank, -1 unknown */
    const int64_t *dims;   /* required dims (rank entries, -1 any), or NULL */
    const AstNode *first;  /* the first constraint seen, for notes */
} Facts;

/* The checker's state for one run. */
typedef struct CheckCtx {
    RuleFile *rf;           /* what is checked */
    graft_diag *d;                /* where reports go */
    const Registry *reg;    /* ops */
    KeyMap lets;            /* interned name -> its AstLet, every file's */
    AstRule *rule;          /* the rule being checked */
    const graft_limits *limits;   /* macro-depth, macro-nesting, macro-nodes */
    int macro_depth;        /* macro expansions currently open */
    uint64_t max_levels;    /* how deep the current pattern may nest after
                               expansion (note [expanded depth]) */
    int level;              /* depth in the expanded pattern of the node
                               being expanded (the root is 1, so it is
                               nested level - 1 levels deep) */
    long long expand_budget; /* nodes the current expansion may still make */
    bool expand_reported;   /* a size or depth error was reported for it */
    AstVarInfo *vars;       /* the current rule's variables (heap) */
    int nvars;              /* entries used in vars */
    size_t vars_cap;        /* entries allocated in vars */
    Facts *var_facts;       /* constraints per variable (parallel to vars) */
    int *occurrences;       /* pattern occurrences per variable */
} CheckCtx;

/* The let named name, or NULL. */
const AstLet *check_find_let(const CheckCtx *c, const char *name);
/* check_expand.c: the expanded, resolved pattern of the current rule;
 * NULL after an error that makes the rule unusable. */
AstNode *check_expand_pattern(CheckCtx *c, AstNode *pattern);
/* check_ops.c: checks one attribute argument (name and literal value)
 * against op. */
bool check_attr_arg(CheckCtx *c, const OpInfo *op, const AstNode *attr);
/* op NAME (AST_OPVALUE): resolves the op; false, reported, when unknown. */
bool check_opvalue(CheckCtx *c, AstNode *n);
/* A variable named with dots (nn.relu) is an error: an op as a value is
 * written op nn.relu.  False when reported. */
bool check_dotted_var(CheckCtx *c, const AstNode *n);
/* Reports an unknown op name at where, with a suggestion. */
void check_unknown_op(CheckCtx *c, const AstNode *at, const char *name, SrcRange where);
/* check_ops.c: whether name was declared by a let or op with a syntax
 * error (its uses would only repeat that error). */
bool check_declared_broken(const CheckCtx *c, const char *name);
/* Each attribute of a call at most once, each fitting op (NULL: names
 * only); false when reported. */
bool check_attr_list(CheckCtx *c, const OpInfo *op, const AstList *attrs);
/* Call n's operand count fits op's; false when reported. */
bool check_arity(CheckCtx *c, const AstNode *n, const OpInfo *op);
/* Reports at call n that op does not take the operand count the text got
 * says ("3", "at least 2 with the splice"): one wording for every count
 * op takes, fixed, a range or at least some. */
void check_count_error(CheckCtx *c, const AstNode *n, const OpInfo *op, const char *got);
/* check_vars.c: slots, facts, always-bound; false after errors. */
bool check_pattern_vars(CheckCtx *c);
/* The slot of name among the current rule's variables, or -1. */
int check_find_var(const CheckCtx *c, const char *name);
/* check_fold.c: whether call n is fold(...) (no op or variable of that
 * name), and its check: one operand, checked by check_operand, whose
 * leaves may be constants (note [constant folding] in src/runtime/fold.h). */
bool check_is_fold(const CheckCtx *c, const AstNode *n);
bool check_fold(CheckCtx *c, AstNode *n, bool (*check_operand)(CheckCtx *, AstNode *));
/* Facts a node's kind implies (a number is a scalar constant, a call is
 * neither constant nor input). */
Facts check_facts_of_kind(const AstNode *n);
/* Adds constraint k (AST_CONSTRAIN) to f; returns a description of the
 * contradiction (in buf or static), or NULL when consistent. */
const char *check_merge_facts(Facts *f, const AstNode *k, char *buf, size_t size);
/* check_action.c */
bool check_guard(CheckCtx *c, AstNode *guard);
bool check_action(CheckCtx *c, AstNode *action);
/* check_outputs.c: op output arity against tuple use in a pattern or
 * action; false after errors. */
bool check_outputs(CheckCtx *c, AstNode *tree);
/* check_unify.c: check_may_unify for patterns with na and nb variable
 * slots, spending steps from *steps (decremented); answers true (unsure)
 * when they run out. */
bool check_unify_patterns(const AstNode *a, int na, const AstNode *b, int nb, long *steps);
/* check_guard_logic.c (note [guard logic]): guards compared across two
 * rules.  class_of names what variable slot of side 0 or 1 stands for: a
 * class (equal classes, one node or one attribute value; -1 unknown), and
 * in *value a literal the patterns fix it to (or NULL). */
typedef struct GuardEnv {
    int (*class_of)(void *arg, int side, int slot, const AstNode **value);
    void *arg;
} GuardEnv;
/* True when guard a (side 0) and guard b (side 1; either NULL: always)
 * never hold together. */
bool check_guards_disjoint(const AstNode *a, const AstNode *b, const GuardEnv *env);
/* True when want (side 0; NULL: always) holds wherever have (side 1; NULL:
 * always) does. */
bool check_guard_implies(const AstNode *have, const AstNode *want, const GuardEnv *env);
/* check_unify.c: check_unify_patterns for two rules whose guards must be
 * able to hold together on the common match. */
bool check_unify_rules(const AstRule *a, const AstRule *b, long *steps);
/* check_roots.c (note [several roots]): the roots of the current rule
 * checked, false after errors; how many values an action gives (-1:
 * known only from the model). */
bool check_roots(CheckCtx *c, AstRule *rule);
int check_action_values(const AstNode *action);
/* check_overlap.c: shadowing and ambiguity over all rules. */
void check_overlaps(CheckCtx *c);
/* check_overlap.c: whether rule a's pattern matches everything pattern
 * node b (of another rule) matches, guards aside (note [subsumption]),
 * within *steps. */
bool check_subsumes_node(const AstRule *a, const AstNode *b, long *steps);
/* check_order.c: rules an earlier rule's rewrite leaves dead (note [dead
 * order]). */
void check_dead_order(CheckCtx *c);

#endif
