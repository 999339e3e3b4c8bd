/* prove_impl.h - what the prover's files share: the encoder of a rule
 * into Z3 terms (prove_encode.c, prove_ops.c) and the replay of a model
 * on an instance (prove_replay.c); note [proving a rule] in prove.h. */
#ifndef GRAFT_PROVE_IMPL_H
#define GRAFT_PROVE_IMPL_H

#include "prove.h"
#include "prove_z3.h"
#include "verify_impl.h"

enum {
    PROVE_MAX_LEAVES = 64, /* leaf ids: one bit each in a shape set */
    PROVE_MAX_VARS = 96,   /* leaf variables (a leaf read along several axes) */
    PROVE_ELEM = -1000,    /* a leaf read by broadcasting (not along an axis) */
    PROVE_PERM_TEXT = 40,  /* a permutation's text, "(3,0,1,2)" */
};

/* One side's value at the result's position. */
typedef struct ProveTerm {
    Z3_ast v;        /* the element (real or float32), or a bool; NULL: failed */
    bool is_bool;    /* a comparison's result */
    bool tuple;      /* nn.batch_norm, nn.dropout: v is field 0 */
    bool literal;    /* a literal number, lit */
    double lit;
    uint64_t shape;  /* shape atoms (Encoder.atom) broadcasting into this value's */
} ProveTerm;

/* A leaf's element as the solver sees it: leaf id (a slot, or nslots +
 * k for the k-th anonymous leaf), read by broadcasting or along an axis. */
typedef struct ProveVar {
    int id;
    int axis;          /* PROVE_ELEM, or the channel axis it is read along */
    char perm[PROVE_PERM_TEXT]; /* "" or, under transposes, where it is read:
                                   "(2,0,1)" is at (p[2], p[0], p[1]) of the
                                   result's position p */
    Z3_ast var;
    bool is_const;     /* x:const or _:const (pinned to an instance's value) */
} ProveVar;

typedef struct Encoder {
    Z3_context z;
    bool ieee;
    Z3_sort sort;                  /* Real or FP32 */
    Z3_ast rm;                     /* float32: round to nearest even */
    const graft_rule_set *rs;
    const graft_rule *rule;
    Chooser *ch;                   /* the combination of alternatives */
    int nalts;                     /* alternatives met, and the kid taken */
    const graft_pat *alt_pat[VERIFY_MAX_CHOICES];
    int alt_pick[VERIFY_MAX_CHOICES];
    const graft_pat *anon[PROVE_MAX_LEAVES]; /* anonymous leaves, by k */
    int nanon;
    ProveVar vars[PROVE_MAX_VARS];
    int nvars;
    ProveTerm *slot_term;          /* slot -> its binding's term (v NULL: none) */
    bool *vector;                  /* slot read as a channel vector somewhere */
    bool *scalar;                  /* slot used as a scalar (attribute, value(k)) */
    int axis;                      /* leaves read along this axis, or PROVE_ELEM */
    int perm[EVAL_MAX_RANK];       /* under transposes: the current position is
                                      (p[perm[0]], ...) of the result's p */
    int perm_rank;                 /* its length; 0: the result's position */
    int atom_id[PROVE_MAX_LEAVES]; /* shape atoms: a leaf read at a permutation */
    char atom_perm[PROVE_MAX_LEAVES][PROVE_PERM_TEXT];
    int natoms;
    /* every condition is kept, however many: a dropped obligation would
       let a rewrite that is undefined where its pattern is not be proved */
    VEC(Z3_ast) assume;            /* facts the solver may use */
    VEC(Z3_ast) oblige;            /* the action's domain, to be proved */
    bool action_side;              /* conditions go to oblige */
    Z3_func_decl fsqrt, fexp, flog, ferf, ftanh; /* uninterpreted functions */
    VEC(Z3_ast) exps;              /* exp applications, for the axioms */
    unsigned rlimit;               /* Z3's resource limit per query */
    StrBuf outside;                /* why encoding stopped ("transpose leaves ...") */
} Encoder;

/* Fails the encoding with a reason (the first one stands); returns a
 * term with v NULL. */
ProveTerm prove_fail(Encoder *e, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* Records c: an obligation when domain holds while the action is encoded
 * (where the rewrite is defined, which the pattern's domain must imply),
 * else an assumption (a fact of the functions the solver does not know,
 * or the pattern's domain). */
void prove_add_cond(Encoder *e, Z3_ast c, bool domain);

/* Sets up e for rule over z (reals or float32) and frees it. */
void prove_encoder_init(Encoder *e, Z3_context z, bool ieee, const graft_rule_set *rs,
                        const graft_rule *rule, Chooser *ch);
void prove_encoder_free(Encoder *e);
/* The pattern's term (assumptions added), the guard's assumptions, the
 * action's term (obligations added). */
ProveTerm prove_encode_pattern(Encoder *e);
void prove_encode_guard(Encoder *e);
ProveTerm prove_encode_action(Encoder *e);

/* ---- arithmetic over the encoder's sort (prove_ops.c) ---- */

Z3_ast prove_num(Encoder *e, double f);
Z3_ast prove_add(Encoder *e, Z3_ast a, Z3_ast b);
Z3_ast prove_sub(Encoder *e, Z3_ast a, Z3_ast b);
Z3_ast prove_mul(Encoder *e, Z3_ast a, Z3_ast b);
Z3_ast prove_div(Encoder *e, Z3_ast a, Z3_ast b);
Z3_ast prove_neg(Encoder *e, Z3_ast a);
/* a OP b for a graft_cmp_op. */
Z3_ast prove_cmp(Encoder *e, int op, Z3_ast a, Z3_ast b);
/* Whether the two results are the same value (float32: both NaN, or
 * equal with -0 == 0). */
Z3_ast prove_same(Encoder *e, Z3_ast a, Z3_ast b);

/* The attributes an op node has: the pattern's tests and bindings, or
 * the action's values.  Returns false when name is absent. */
typedef struct ProveAttrs {
    bool (*get)(Encoder *e, const void *src, const char *name, ProveTerm *out);
    const void *src;
} ProveAttrs;

/* The term of op applied to args (already encoded); broadcast shapes
 * joined, domains and axioms recorded.  args of a channel op (from index
 * 1) are encoded by the caller under the axis prove_channel_axis gives. */
ProveTerm prove_op(Encoder *e, const char *op, const ProveTerm *args, int nargs,
                   const ProveAttrs *attrs);
/* For nn.batch_norm: the axis its vector operands are read along
 * (-1 when it is the last, as broadcasting reads a vector), else
 * PROVE_ELEM. */
int prove_channel_axis(Encoder *e, const char *op, const ProveAttrs *attrs);

/* ---- replay (prove_replay.c) ---- */

/* An instance of the pattern that realises the alternatives e took. */
typedef struct Replay {
    Instance in;
    Chooser ch;
    const graft_node *leaf_node[PROVE_MAX_LEAVES]; /* leaf id -> its node */
} Replay;

/* Finds an instance (any, or one realising e's alternatives); false
 * when none of the first few will do. */
bool prove_replay_find(const Encoder *e, uint32_t rule, bool any, Replay *r);
/* Asserts (in solver s) that each constant leaf equals its instance's value. */
void prove_replay_pin(const Encoder *e, const Replay *r, Z3_solver s);
/* Evaluates both sides with the model's leaf values; true when they
 * differ past the tolerance; writes the values to detail. */
bool prove_replay_run(const Encoder *e, Replay *r, Z3_model m, StrBuf *detail);
/* The same, the leaves' values already set. */
bool prove_replay_eval(const Encoder *e, Replay *r, StrBuf *detail);
void prove_replay_free(Replay *r);
/* The rule alone, as a rule set sharing rs's tables; applying it once
 * to g (its messages dropped). */

/* ---- solving (prove.c) and instances (prove_instance.c) ---- */

Z3_context prove_new_context(const ProveOptions *o);
/* A solver with e's resource limit, assumptions and axioms. */
Z3_solver prove_new_solver(Encoder *e);
void prove_exp_axioms(Encoder *e, Z3_solver s);
/* Proves the rule on one instance of its pattern, every element a
 * variable: true when that settled something, *out then PROVE_REFUTED,
 * or PROVE_NOT_PROVED with why "proved for [the instance]". */
bool prove_on_instance(const graft_rule_set *rs, uint32_t rule, const ProveOptions *o,
                       ProveReport *out);

/* A model value of v as a double, and as text (exact when short). */
double prove_model_double(const Encoder *e, Z3_model m, Z3_ast v);
void prove_model_text(const Encoder *e, Z3_model m, Z3_ast v, StrBuf *out);

#endif
