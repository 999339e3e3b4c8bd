/* engine_impl.h - the driver's private state, shared by engine.c,
 * rewrite.c, rewrite_build.c and partition.c. */
#ifndef GRAFT_ENGINE_IMPL_H
#define GRAFT_ENGINE_IMPL_H

#include "engine.h"

struct Engine {
    const RuleSet *rs;     /* the rules, borrowed */
    Graph *g;              /* the graph being changed, borrowed */
    EngineOptions opts;    /* as given */
    const Limits *limits;  /* opts.limits or the defaults */
    Automaton *a;          /* the rules' automaton */
    Labels *labels;        /* states of g's nodes */
    Matcher *m;            /* verifier */
    Stats stats;           /* counters */
    Node **forward;        /* per node id: what a rewrite in the current
                              pass replaced it by, or NULL */
    size_t nforward;       /* entries allocated in forward */
    uint8_t *dirty;        /* per node id: to relabel, an operand was
                              replaced (engine_relabel_changed clears) */
    size_t ndirty;         /* entries allocated in dirty */
    uint32_t *mark;        /* per node id: visit stamps for walks */
    size_t nmark;          /* entries allocated in mark */
    uint32_t stamp;        /* current stamp */
    Node **order;          /* scratch: topological order */
    size_t norder;         /* entries allocated in order */
};

/* The live nodes in topological order (into e->order); returns the count. */
uint32_t engine_order(Engine *e);
/* A fresh stamp for a walk over e->mark, sized for every node. */
uint32_t engine_new_stamp(Engine *e);
/* True when every path from u to the graph's output (or to the result of
 * u's function) passes through root. */
bool engine_postdominates(Engine *e, const Node *root, const Node *u);
double engine_now(void);
/* Relabels the nodes created since *upto and those whose operands' states
 * changed (note [partition relabelling]); e->order holds the n live nodes
 * in topological order.  Sets *upto to the node count. */
void engine_relabel_changed(Engine *e, uint32_t n, uint32_t *upto);
/* The rules of one kind, best first: priority, then file order; returns
 * how many were put in order. */
uint32_t engine_rules_best_first(const Engine *e, ActionKind kind, uint32_t *order);

/* rewrite_build.c: builds the action of rule r for bindings b, replacing
 * root; new nodes are labelled. */
Node *rewrite_build(Engine *e, const RuleDesc *r, const Binding *b, Node *root);
/* Whether every computed attribute of action x has a value for b (note
 * [computed attributes] in rewrite_build.c). */
bool rewrite_computable(const PatExpr *x, const Binding *b);

#endif
