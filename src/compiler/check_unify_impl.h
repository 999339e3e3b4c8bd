/* check_unify_impl.h - the state of one unification (check_unify.c) and
 * what its two files share: the goal machine, its classes and trail
 * (check_unify.c), and the expansion of a goal whose two patterns are
 * shapes (check_unify_shape.c). */
#ifndef GRAFT_CHECK_UNIFY_IMPL_H
#define GRAFT_CHECK_UNIFY_IMPL_H

#include "check_impl.h"

/* A pattern of one of the two sides. */
typedef struct Term {
    const AstNode *n; /* the pattern node; NULL for none */
    int side;         /* 0: the first pattern, 1: the second */
    bool as_var;      /* n is an AST_BIND standing for its variable only */
} Term;

/* One variable slot (union-find over both sides' slots). */
typedef struct VarState {
    int parent;  /* representative; itself for a root */
    Term term;   /* root: the pattern the node must match (n NULL: none) */
    Facts facts; /* root: what constraints say about the node */
} VarState;

/* A pending goal; a cons cell of a goal list. */
typedef struct Goal {
    Term a;              /* one pattern */
    Term b;              /* the other, denoting the same node */
    const AstNode *fact; /* non-NULL: constraint fact must hold on a (b unused) */
    int next;            /* index of the next goal, -1 at the end */
} Goal;

/* The old state of one changed slot, to undo. */
typedef struct TrailEntry {
    int var;      /* the slot */
    VarState old; /* its state before the change */
} TrailEntry;

/* A goal with alternatives not tried yet. */
typedef struct Choice {
    Goal goal;     /* the goal that branched (its next: the rest) */
    int alt;       /* the next alternative to try */
    size_t trail;  /* trail length when it branched */
    size_t ngoals; /* goal cells in use when it branched */
} Choice;

/* The whole state of one unification. */
typedef struct Unifier {
    VarState *vars;     /* both sides' slots */
    int base;           /* side 1's slot 0 in vars (side 0's slot count) */
    int nvars;          /* entries in vars */
    VEC(Goal) goals;        /* goal cells */
    VEC(TrailEntry) trail;  /* undo log */
    VEC(Choice) choices;    /* open choice points, innermost last */
    long *steps;        /* the caller's budget, decremented */
    const AstNode *guards[2]; /* the two rules' guards, or NULL */
} Unifier;

/* What an occurs check found. */
typedef enum Occurs {
    OCCURS_NONE,   /* the variable is not in the pattern */
    OCCURS_LOOSE,  /* maybe at the pattern's own node (op?(x), x | ...) */
    OCCURS_STRICT, /* always strictly below it: binding is impossible */
} Occurs;

/* The slot index in u->vars of a variable term (AST_VAR, or the name of
 * an AST_BIND), or -1 (then it binds nothing, like _). */
int unifier_var_index(const Unifier *u, Term t);
/* The root of v's class. */
int unifier_find(const Unifier *u, int v);
/* Changes slot v to s, logging the old state on the trail. */
void unifier_set_var(Unifier *u, int v, VarState s);
/* A new goal cell in front of list rest; returns its index. */
int unifier_push(Unifier *u, Term a, Term b, const AstNode *fact, int rest);

/* Two patterns, neither a variable, a wrapper or _, denote one node:
 * what must hold for that, by alternative alt, prepended to *head; *more:
 * a further alternative exists (check_unify_shape.c). */
bool unifier_shape(Unifier *u, Term a, Term b, int alt, int *head, bool *more);

static inline Term sub_term(Term t, const AstNode *n)
{
    return (Term){n, t.side, false};
}

static inline void swap_terms(Term *a, Term *b)
{
    Term t = *a;
    *a = *b;
    *b = t;
}

#endif
