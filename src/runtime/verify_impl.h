/* verify_impl.h - what verify.c and verify_build*.c share: the search over
 * instances (a chooser) and one pattern instance being built
 * (note [verifying a rule] in verify.h). */
#ifndef GRAFT_VERIFY_IMPL_H
#define GRAFT_VERIFY_IMPL_H

#include "verify.h"

enum { VERIFY_MAX_CHOICES = 64, VERIFY_BASES = 5 };

/* note [instance search]: building an instance asks the chooser at each
 * decision (which leaf is the data, which base shape, which alternative,
 * which attribute value...) for a number below that decision's count.
 * The first instance takes 0 everywhere; chooser_next then moves to the
 * next sequence depth first, the last decision changing fastest, so the
 * search is deterministic and tries every combination in turn. */
typedef struct Chooser {
    int n;                             /* decisions in the sequence */
    int pos;                           /* next decision to replay */
    int digit[VERIFY_MAX_CHOICES];     /* the choice made */
    int radix[VERIFY_MAX_CHOICES];     /* how many there were */
} Chooser;

/* The choice (0..count-1) for the next decision. */
int chooser_pick(Chooser *c, int count);
/* Moves to the next sequence; false when every one was tried. */
bool chooser_next(Chooser *c);

/* One leaf of the instance: a parameter or a constant. */
typedef struct VerifyLeaf {
    graft_node *node;       /* NODE_VAR or NODE_CONST */
    int slot;         /* the variable, or -1 for _ */
    bool fixed;       /* a scalar constant: its value is in the graph */
    bool positive;    /* draw from [0.25, 2] (variances) */
    const char *name; /* a field a spliced capture adds ("rest..."), else
                         NULL: the slot's name, or _ */
    Tensor value;     /* the current trial's value */
} VerifyLeaf;

typedef struct Instance {
    const graft_rule_set *rs;
    const graft_rule *rule;
    graft_graph *g;                  /* the instance, output = the pattern's root */
    Chooser *ch;
    uint64_t rng;              /* splitmix64 state */
    int primary, base, mode;   /* the shape scheme (verify_build_leaf.c) */
    int nleafids;              /* leaf numbering of the pattern */
    const graft_pat **anon;      /* anonymous leaves, by leaf id (else NULL) */
    int *slot_leaf;            /* slot -> leaf id, -1 */
    graft_node **slot_node;          /* slot -> the node bound */
    const graft_pat **slot_binder; /* slot -> the sub-pattern that binds it
                                    (x@op(...)), NULL for a leaf variable */
    const graft_attr_value **slot_attr; /* slot -> the attribute value chosen */
    const int *more_fields;    /* slot -> the fields its variadic tuple gets
                                  beyond the pattern's, or NULL (note
                                  [spliced captures] in verify_choose.c) */
    VEC(VerifyLeaf) leaves;    /* leaves made, in order */
    Value *vals;               /* by node id: values while building */
    size_t vals_cap;
    int nops;                  /* op calls built */
    int nconsts;               /* meta constants made */
    EvalOptions eo;
    StrBuf why;                /* why building failed */
    bool no_evaluator;         /* it failed at an op without evaluator */
} Instance;

/* By slot, the fields beyond its pattern's that each variadic tuple of
 * rule gets in an instance so that every splice of the action has its
 * fields and every spliced call a count its op takes (note [spliced
 * captures] in verify_choose.c); NULL when the rule has no variadic
 * tuple bound to a variable.  Free with free(). */
int *verify_spliced_fields(const graft_rule_set *rs, const graft_rule *rule);

/* The k-th candidate value of attribute name as canonical text in out
 * ("[2, 3]", "\"float32\""), t being the op's first operand (or NULL);
 * false when there are no more. */
bool verify_attr_candidate(const char *name, const Tensor *t, int k, StrBuf *out);
/* The attribute value that canonical text spells (pattern_attr_key's
 * form: numbers, quoted strings, lists, None), made in g. */
const graft_attr_value *verify_attr_from_text(graft_graph *g, const char *text);

/* What the op reading a fresh leaf wants of it. */
typedef struct LeafCtx {
    int rank;
    int64_t dims[EVAL_MAX_RANK];
    const char *dtype;   /* NULL: float32 */
    bool positive;       /* a variance */
    bool scalar_const;   /* a constant leaf here is a scalar */
    bool upper;          /* an upper bound (Clip's max): a constant takes the
                            larger of the values it has no guard for */
    const int64_t *fixed; /* the values of a shape input (build_shape_input),
                             as many as the dims give, or NULL */
} LeafCtx;

void verify_ctx_set(LeafCtx *c, int rank, const int64_t *dims);
/* The shape of a leaf of rank r without other context (verify_operand.c). */
void verify_rank_shape(int rank, LeafCtx *c);
/* Operand i of op as the op's type relation, run backwards from the
 * attributes the pattern gives (attrs) and the first operand when built
 * (first, or NULL), wants it, base_rank being the instance's base rank
 * (note [operand shapes] in verify_operand.c); false when the relation
 * leaves it free. */
bool verify_operand_shape(const char *op, int i, const graft_attr *attrs, int nattrs,
                          const Tensor *first, int base_rank, LeafCtx *c);
/* The same for an op of ONNX's default domain (verify_onnx.c, note [onnx
 * operand shapes]). */
bool verify_onnx_operand_shape(const char *op, int i, const graft_attr *attrs, int nattrs,
                               const Tensor *first, int base_rank, LeafCtx *c);
/* Gemm's C for its B (known), as many as B's columns; false for another
 * op or operand (verify_onnx.c). */
bool verify_onnx_gemm_c(const char *op, int i, const graft_attr *attrs, int nattrs,
                        const Tensor *b, LeafCtx *c);
/* Whether ONNX op broadcasts its operands against each other. */
bool verify_onnx_broadcasts(const char *op);
/* Whether operand i of ONNX op is an int64 shape input (Reshape's shape),
 * and its k-th candidate values, for data x, into out (at most
 * 2 * EVAL_MAX_RANK): their count, or -1 past the last (note [onnx shape
 * inputs] in verify_onnx.c). */
bool verify_onnx_is_shape_input(const char *op, int i);
int verify_onnx_shape_input(const char *op, int i, const Tensor *x, int k, int64_t *out);
/* Attribute name of attrs as a string, an int list (up to EVAL_MAX_RANK
 * items) or an int (or bool); NULL or dflt when it is none of these. */
const char *verify_attr_text(const graft_attr *attrs, int n, const char *name);
const graft_attr_value *verify_attr_list(const graft_attr *attrs, int n, const char *name);
int64_t verify_attr_int(const graft_attr *attrs, int n, const char *name, int64_t dflt);

/* The value of the node bound to slot in the instance so far, or NULL. */
const Tensor *verify_slot_tensor(Instance *in, int slot);
/* Shapes ctx, a fresh leaf of slot, as the rule's guard asks (note [guard
 * shapes] in verify_guard.c); whether it asked anything. */
bool verify_guard_shape(Instance *in, int slot, LeafCtx *ctx);
/* Whether the rule's guard or action reads value(slot). */
bool verify_reads_value(const graft_rule *rule, int slot);
/* Whether it reads value(slot) whole (a scalar), not only its elements
 * value(slot)[i]. */
bool verify_reads_scalar(const graft_rule *rule, int slot);

/* Builds the pattern of in->rule into in->g with base shape in->base;
 * false with in->why set. */
bool verify_build(Instance *in);
void instance_free(Instance *in);

/* The steps of verify_build, each file one part of the instance: */
/* verify_build.c: the leaf id of leaf pattern p (-1 for one that cannot
 * be the primary leaf); pattern p built (a leaf shaped by ctx, or NULL),
 * the node bound to its variable when it has one; a tuple whose fresh
 * leaves are shaped by ctxs (or NULL). */
int verify_leaf_id(const Instance *in, const graft_pat *p);
graft_node *verify_build_pat(Instance *in, const graft_pat *p, const LeafCtx *ctx);
graft_node *verify_build_tuple(Instance *in, const graft_pat *p, const LeafCtx *ctxs);
/* verify_build_leaf.c: a leaf's node with its value, shaped by given (or
 * the base shape); what operand i of op wants of a fresh leaf kid, given
 * the operands args built so far (NULL where not yet); whether p is a leaf
 * not yet bound. */
graft_node *verify_build_leaf(Instance *in, const graft_pat *p, const LeafCtx *given);
/* A field a spliced capture adds beyond its pattern's (note [spliced
 * captures] in verify_choose.c): a parameter of like's shape and dtype
 * (the tuple's field before it), or of the base shape, named capture in
 * the instance's text. */
graft_node *verify_extra_field(Instance *in, const Tensor *like, const char *capture);
/* An ONNX shape input the rule reads the value of: an int64 scalar
 * constant of value v. */
graft_node *verify_scalar_leaf(Instance *in, const graft_pat *kid, int64_t v);
void verify_leaf_context(Instance *in, const char *op, int i, const graft_attr *attrs,
                         int nattrs, graft_node *const *args, int nargs, const graft_pat *kid,
                         LeafCtx *c);
bool verify_fresh_leaf(const Instance *in, const graft_pat *p);
/* verify_build_call.c: op call p built, operands and attributes; a call of
 * op made of args and evaluated (p, the call's pattern or NULL, says how
 * many results an ONNX op gets). */
graft_node *verify_build_op(Instance *in, const graft_pat *p);
graft_node *verify_finish_call(Instance *in, const graft_pat *p, const char *op,
                               graft_node **args, int nargs, const graft_attr *attrs, int nattrs);
/* verify_build_value.c: records why building failed (the first reason
 * only) and returns NULL; the value of node n (zeroed until set), its
 * tensor when it is one; n's type from its value v, so that guards can
 * ask rank(c). */
graft_node *verify_fail(Instance *in, const char *fmt, ...) GRAFT_PRINTF(2, 3);
Value *verify_value_of(Instance *in, const graft_node *n);
const Tensor *verify_tensor_of(Instance *in, const graft_node *n);
void verify_set_type(Instance *in, graft_node *n, const Value *v);
/* A new random value for each leaf that is not fixed. */
void verify_draw(Instance *in, bool all_positive);
/* Uniform in [0, 1). */
double verify_random(uint64_t *state);

enum { VERIFY_MAX_CORNERS = 64 };

/* note [corner values]: random values in [-2, 2] miss the points where a
 * rule's meaning turns: clip(x, 0, 6) and relu(x) agree on every x below
 * 6.  So each rule's trials begin with corner values: every number the
 * rule mentions (pattern literals and attributes, guard and action
 * numbers) and values around it (c - 0.1, c + 0.1), then 0, -0, 1, -1,
 * 0.5, -0.5, 1e3, -1e3, 1e-6 and -1e-6.  Corner trial k gives element i
 * of leaf j the corner (i + j + k) mod n, so that over n trials each
 * element of each leaf takes every corner. */
typedef struct Corners {
    int n;
    double v[VERIFY_MAX_CORNERS];
} Corners;

/* The corner values of rule (note [corner values]). */
void verify_corners(const graft_rule_set *rs, const graft_rule *rule, Corners *out);
/* Fills the leaves for corner trial k; variances take magnitudes. */
void verify_draw_corners(Instance *in, const Corners *c, int k);

/* One rule of an instance, shared with the prover's replay (verify.c):
 * the rule alone, as a rule set sharing rs's tables; whether it matches
 * at g's output (its guard true); and one application of it, the
 * engine's messages dropped (a rule that could fire forever is no concern
 * of one application). */
graft_rule_set verify_single_rule(const graft_rule_set *rs, uint32_t rule);
bool verify_matches_at_root(const graft_rule_set *one, graft_graph *g);
bool verify_rewrite_once(const graft_rule_set *one, graft_graph *g);
/* The op calls of g's live nodes (the tolerance grows with them). */
int verify_count_ops(const graft_graph *g);

#endif
