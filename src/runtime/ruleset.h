/* ruleset.h - the runtime interface between a rule set and the driver.
 *
 * note [one runtime]: the driver (labelling, match order, overlap and
 * interior-use policy, rewriting worklist, partitioning, statistics,
 * trace) lives in libgraft and knows rules only through a RuleSet: const
 * tables (pattern.h) plus optional C functions per rule.  The interpreter
 * gets a RuleSet from lower.c; `graft compile` writes the same tables as
 * static data and may add C functions for guards and actions.  Both run
 * through engine.h and so give byte-identical output and statistics.
 *
 * A hook left NULL means "interpret the table": guard_fn NULL evaluates
 * guard (NULL guard = always true); build_fn NULL builds action.  A hook
 * set makes its table dead data, so generated C leaves guard (action)
 * NULL beside guard_fn (build_fn): the runtime never reads a table whose
 * hook is set.
 */
#ifndef GRAFT_RULESET_H
#define GRAFT_RULESET_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "pattern.h"

/* What a variable slot holds after a match: a node, or for an attribute
 * binding (strides=s) the attribute's value. */
typedef struct Binding {
    Node *node;             /* bound node, or NULL */
    const AttrValue *attr;  /* bound attribute value, or NULL */
} Binding;

typedef enum ActionKind {
    ACTION_REWRITE,   /* PATTERN => EXPR */
    ACTION_PARTITION, /* PATTERN => partition(KEY="value", ...) */
} ActionKind;

/* A compiled guard: true when the bindings satisfy it. */
typedef bool (*RuleGuardFn)(const Graph *g, const Binding *b);
/* A compiled action: builds the replacement of root, returns it. */
typedef Node *(*RuleBuildFn)(Graph *g, const Binding *b, Node *root);

typedef struct RuleDesc {
    const char *name;            /* rule name, "bn" */
    const char *file;            /* rule file as named by the user */
    int line;                    /* line of the rule's name */
    const char *text;            /* the rule's source text, as written */
    ActionKind kind;             /* rewrite or partition */
    int priority;                /* higher wins; default 0 */
    bool once;                   /* never applies at a node it created */
    const PatNode *pattern;      /* the pattern tree */
    int nslots;                  /* variable slots */
    const char *const *slot_names; /* their names, for match listings */
    const PatExpr *guard;        /* where-clause, or NULL */
    RuleGuardFn guard_fn;        /* compiled guard, or NULL */
    const PatExpr *action;       /* ACTION_REWRITE: the replacement */
    RuleBuildFn build_fn;        /* compiled action, or NULL */
    int npart_attrs;             /* ACTION_PARTITION: function attributes */
    const Attr *part_attrs;      /* in the order written */
} RuleDesc;

/* A compiled attribute test (PRED_ATTR): true when the attribute value v
 * (NULL: the node omits the attribute) has the test's canonical text, as
 * the labeller decides it with pattern_attr_key and the default. */
typedef bool (*RuleAttrTestFn)(const AttrValue *v);

typedef struct RuleSet {
    const char *name;        /* for messages: the first rule file */
    uint32_t nrules;         /* rules in file order */
    const RuleDesc *rules;
    uint32_t nitems;         /* shared sub-patterns, bottom-up */
    const PatItem *items;
    uint32_t npreds;         /* distinct node tests */
    const PatPred *preds;
    const RuleAttrTestFn *attr_fns; /* per test, graft compile's compiled
                                       attribute tests: a function for
                                       every PRED_ATTR test (NULL for the
                                       others); NULL = interpret them */
} RuleSet;

#endif
