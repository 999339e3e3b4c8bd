/* graft_rules.h - a rule set as the tables and functions that `graft
 * compile` writes, and the helpers those functions call (libgraft).
 *
 * Generated C includes this one header.  A rule set is const data: node
 * tests, shared sub-patterns (items), each rule's pattern tree, guard and
 * action expressions, plus optional C functions per rule for its guard,
 * its action and the attribute tests.  The interpreter (`graft run` on
 * rule files) lowers rules to the same tables, and both drive the same
 * runtime, so their output is byte-identical (note [one runtime] in
 * src/runtime/ruleset.h).
 *
 * Three layers of tables, from small to large:
 *  - graft_pred: a test of one node alone (is it a constant? its dtype? an
 *    attribute value?).  Equal tests are shared: one id per distinct test.
 *  - graft_item: a sub-pattern without variable names, hash-consed across
 *    all rules of a rule set.  The automaton's states are sets of items.
 *    A child item always has a smaller id than its parent, so id order is
 *    a bottom-up order.
 *  - graft_pat: one rule's pattern tree, each node pointing at its item
 *    and carrying what items leave out: variable slots, attribute bindings.
 * Guards and actions are graft_expr trees over the variable slots.
 */
#ifndef GRAFT_GRAFT_RULES_H
#define GRAFT_GRAFT_RULES_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "graft.h"

/* ---- node tests ---- */

typedef enum graft_pred_kind {
    GRAFT_PRED_IS_CONST, /* x:const */
    GRAFT_PRED_IS_VAR,   /* x:var */
    GRAFT_PRED_VAR_NAME, /* x:var("weight"): s = the name */
    GRAFT_PRED_DTYPE,    /* x:float32: s = the dtype (from the node's type) */
    GRAFT_PRED_RANK,     /* x:4 (a rank): i = the rank */
    GRAFT_PRED_SHAPE,    /* x:Tensor[(1, 3, _, _), float32]: rank, dims (-1 = _),
                            s = dtype or NULL */
    GRAFT_PRED_VALUE,    /* 1e-05 in a pattern: a scalar constant equal to f */
    GRAFT_PRED_OP_VALUE, /* op add: the operator named s used as a value
                            (an op reference), as in (%x, add) */
    GRAFT_PRED_ATTR,     /* nn.conv2d(x, w, groups=1): op's attribute s has the
                            value whose canonical text is key;
                            dflt = canonical default when the node omits it.
                            op NULL: an attribute of a called local function,
                            fn[Composite="x"](...) */
} graft_pred_kind;

typedef struct graft_pred {
    graft_pred_kind kind; /* what is tested */
    const char *s;        /* VAR_NAME name, DTYPE/SHAPE dtype, ATTR name */
    int64_t i;            /* RANK: the rank */
    double f;             /* VALUE: the scalar value */
    int rank;             /* SHAPE: number of dims */
    const int64_t *dims;  /* SHAPE: dims, -1 for any */
    const char *op;       /* ATTR: the op whose attribute this is */
    const char *key;      /* ATTR: canonical text of the wanted value */
    const char *dflt;     /* ATTR: canonical text of the op's default, or NULL */
} graft_pred;

/* ---- items: shared sub-patterns ---- */

typedef enum graft_item_kind {
    GRAFT_PITEM_ANY,      /* x, _, x:const, 1e-05: any node passing preds */
    GRAFT_PITEM_OP,       /* nn.conv2d(a, b): op call of op with args */
    GRAFT_PITEM_FNCALL,   /* fn[Composite="x"](a, b): call of a local function
                             whose attributes pass preds */
    GRAFT_PITEM_TUPLE,    /* (a, b) */
    GRAFT_PITEM_GETITEM,  /* a[i] */
    GRAFT_PITEM_ALT,      /* a | b, and op?(a) = op(a) | a: args are the choices */
    GRAFT_PITEM_STAR,     /* op*(a): a, or op applied to op*(a); args[0] = a */
    GRAFT_PITEM_DOMPATH,  /* inside dominates(parent, path, child): the node
                             matches parent, or is a constant, or matches path
                             and all its operands are DOMPATH; args = parent,
                             path */
    GRAFT_PITEM_DOMREACH, /* a DOMPATH node from which some walk reaches parent;
                             args = parent, path, the DOMPATH item */
    GRAFT_PITEM_DOM,      /* dominates(parent, path, child): matches child, all
                             operands DOMPATH and one DOMREACH; args = child,
                             DOMPATH, DOMREACH */
    GRAFT_PITEM_CALL,     /* _(a, b): a call of any callee, an op or a function
                             (TVM's CallPattern of a wildcard) */
    GRAFT_PITEM_FN,       /* fn (a, b) { body }: a function whose body and
                             parameters are args (body first, so that "..."
                             leaves further parameters), preds its attributes */
    GRAFT_PITEM_IF,       /* if (c) { t } else { e }: args = c, t, e */
    GRAFT_PITEM_LET,      /* let v = value; body: args = v, value, body */
} graft_item_kind;

typedef struct graft_item {
    graft_item_kind kind;  /* which shape */
    const char *op;        /* OP, STAR: the op name */
    bool commutative;      /* OP with two args: either operand order */
    bool variadic;         /* OP, FNCALL, TUPLE: more operands may follow
                              args ("..."); they match anything */
    int index;             /* GETITEM: the field index, -1 for any (p[_]) */
    int npreds;            /* tests the node itself must pass */
    const uint32_t *preds; /* ids into graft_rule_set.preds, ascending */
    int nargs;             /* child items */
    const uint32_t *args;  /* ids into graft_rule_set.items, each < this id */
} graft_item;

/* ---- one rule's pattern tree ---- */

typedef enum graft_pat_kind {
    GRAFT_PAT_ANY,     /* a leaf: variable, _, literal, constrained leaf */
    GRAFT_PAT_OP,      /* op call, kids = operand patterns */
    GRAFT_PAT_FNCALL,  /* call of a local function, kids = operand patterns */
    GRAFT_PAT_TUPLE,   /* tuple, kids = field patterns */
    GRAFT_PAT_GETITEM, /* element access, kids[0] = the tuple pattern */
    GRAFT_PAT_ALT,     /* alternatives, kids tried in order */
    GRAFT_PAT_STAR,    /* repeated unary op, kids[0] = the pattern beneath */
    GRAFT_PAT_DOM,     /* dominates(parent, path, child): kids = parent, path,
                          child; path's variables are not bound */
    GRAFT_PAT_CALL,    /* call of any callee, kids = operand patterns */
    GRAFT_PAT_FN,      /* function, kids = body, then the parameters */
    GRAFT_PAT_IF,      /* if, kids = condition, then, else */
    GRAFT_PAT_LET,     /* let, kids = variable, value, body */
    GRAFT_PAT_FNCALLEE, /* (fn (p) { body })(x): a call whose callee is a function;
                           kids = the callee's GRAFT_PAT_FN, then the operand
                           patterns; the item is the GRAFT_PITEM_CALL of the
                           operands, the callee checked by the matcher */
} graft_pat_kind;

/* An attribute bound by the pattern, nn.conv2d(x, w, strides=s); on a
 * GRAFT_PAT_GETITEM, split(x)[i], the element's index as an int value. */
typedef struct graft_attr_bind {
    const char *name;             /* attribute name; NULL: the element's index */
    int slot;                     /* variable slot receiving the value */
    const graft_attr_value *dflt; /* the op's default when the node omits it */
} graft_attr_bind;

typedef struct graft_pat graft_pat;
struct graft_pat {
    graft_pat_kind kind;          /* shape, mirrors the item's kind */
    uint32_t item;                /* the item this node must be in */
    int slot;                     /* variable slot bound to the node, or -1 */
    int callee;                   /* CALL written f(x, ...): 1 + the slot of
                                     f, which holds the call where f was
                                     first bound; a later f wants a call of
                                     the same callee.  0 for _(x, ...) */
    bool embed;                   /* a leaf whose constant a partition embeds
                                     (x:const or a literal) */
    int nkids;                    /* sub-patterns */
    const graft_pat *const *kids; /* in operand order */
    int nbinds;                   /* attributes bound here */
    const graft_attr_bind *binds;
    int line;                     /* rule file line, for traces and dumps */
    int col;                      /* where the part is written: first column, */
    int last_line, last_col;      /* last line and column (inclusive), for
                                     graft explain's notes; a constrained
                                     leaf spans its constraint, w:var */
};

/* ---- guard and action expressions ---- */

typedef enum graft_expr_kind {
    GRAFT_EXPR_NUM,     /* 3, 1e-05: literal number (f); in an action a new
                           constant spelled text */
    GRAFT_EXPR_STR,     /* "NCHW" (s) */
    GRAFT_EXPR_BOOL,    /* true, false (i) */
    GRAFT_EXPR_SLOT,    /* a bound variable: a node, or an attribute value */
    GRAFT_EXPR_LIST,    /* [1, 1]: attribute list literal, kids */
    GRAFT_EXPR_DTYPE,   /* float32 as a value in a guard: s */
    GRAFT_EXPR_CALL,    /* action: a new op call: s = op, kids = args, attrs;
                           with a SPLICE among its kids, the operand counts
                           its op takes are [i, cmp), cmp 0 for no most
                           (note [spliced operand counts] in
                           src/compiler/check_action.c) */
    GRAFT_EXPR_TUPLE,   /* action: (a, b) */
    GRAFT_EXPR_GETITEM, /* action or guard: kids[0][i]; on shape(x)[i] a dim;
                           in an action with two kids, kids[0][kids[1]], kids[1]
                           the SLOT of an index variable (t[i]) */
    GRAFT_EXPR_NOT,     /* !a */
    GRAFT_EXPR_AND,     /* a && b */
    GRAFT_EXPR_OR,      /* a || b */
    GRAFT_EXPR_CMP,     /* a OP b, op in cmp */
    GRAFT_EXPR_ARITH,   /* a + b, a - b, a * b, a / b, -a: cmp holds the char */
    GRAFT_EXPR_USERS,   /* users(x): how many users x has */
    GRAFT_EXPR_RANK,    /* rank(x) */
    GRAFT_EXPR_DTYPEOF, /* dtype(x) */
    GRAFT_EXPR_SHAPE,   /* shape(x): a list of dims */
    GRAFT_EXPR_VALUE,   /* value(x): x's scalar constant value */
    GRAFT_EXPR_ATTR,    /* attr(x, name): an attribute of bound node x */
    GRAFT_EXPR_OPREF,   /* action: op add, the operator s as a value */
    GRAFT_EXPR_CALLEE,  /* action: f(y, ...), a call (kids = args) of the
                           callee of the call bound to slot, with that
                           call's attributes (note [callee variables]) */
    GRAFT_EXPR_SPLICE,  /* action, among a new tuple's or call's operands: the
                           fields [i, end) of the tuple bound to slot, where end
                           (in cmp) is a field index when > 0, counted from the
                           tuple's end when <= 0 (0: to the end) */
    GRAFT_EXPR_FOLD,    /* action: fold(kids[0]), the value of an expression
                           over constants as one new constant (note
                           [constant folding] in src/runtime/fold.h) */
} graft_expr_kind;

typedef enum graft_cmp_op {
    GRAFT_CMP_EQ, GRAFT_CMP_NE, GRAFT_CMP_LT, GRAFT_CMP_LE, GRAFT_CMP_GT, GRAFT_CMP_GE
} graft_cmp_op;

typedef enum graft_attr_src {
    GRAFT_ASRC_EXPR, /* name=EXPR: the value of an expression */
    GRAFT_ASRC_COPY, /* **c: every attribute of the node bound to slot */
} graft_attr_src;

typedef struct graft_expr graft_expr;

/* One attribute the op of a new call declares, in the op's declared
 * (TVM's) order, with its default (note [created attributes]). */
typedef struct graft_attr_decl {
    const char *name;             /* attribute name */
    const graft_attr_value *dflt; /* its default, or NULL when it has none */
} graft_attr_decl;

/* An attribute of a new op call in an action. */
typedef struct graft_act_attr {
    graft_attr_src src;      /* where the value comes from */
    const char *name;        /* GRAFT_ASRC_EXPR: attribute name */
    const graft_expr *value; /* GRAFT_ASRC_EXPR: its value */
    int slot;                /* GRAFT_ASRC_COPY: the node whose attributes to copy */
} graft_act_attr;

struct graft_expr {
    graft_expr_kind kind;         /* what it is */
    double f;                     /* NUM */
    int64_t i;                    /* BOOL, GETITEM index; SLOT: 1 for a bound
                                     attribute value as an operand of a new
                                     op (note [attribute operands]); CALL:
                                     the fewest operands of a spliced one */
    const char *s;                /* STR, DTYPE, CALL op, ATTR name */
    const char *text;             /* NUM in actions: the constant's spelling
                                     ("1f", "2i64") */
    const char *dtype;            /* NUM in actions: the constant's dtype */
    int slot;                     /* SLOT, USERS..ATTR: the variable */
    int cmp;                      /* CMP: a graft_cmp_op; ARITH: '+', '-', '*', '/',
                                     'n' for negation; CALL: one past the most
                                     operands of a spliced one, 0 for no most */
    int nkids;                    /* operands */
    const graft_expr *const *kids;
    int nattrs;                   /* CALL: attributes, in order */
    const graft_act_attr *attrs;
    int ndecls;                   /* CALL: the op's declared attributes */
    const graft_attr_decl *decls; /* (none for an op the registry lacks) */
    const graft_attr_value *attr; /* ATTR: the op's default value (NULL if
                                     none); a literal (NUM, STR, BOOL, LIST,
                                     DTYPE) as an attribute value */
    int line;                     /* in actions: the line of the rule file
                                     that wrote it, 0 if none (graft
                                     compile's #line: note [line directives]) */
    const char *file;             /* in actions: that rule file */
};

/* ---- guard values ----
 * What a guard expression evaluates to, in the interpreter and in compiled
 * guards alike: one value type, so the two share how values become
 * canonical text and how comparisons decide. */

typedef enum graft_guard_kind {
    GRAFT_GV_UNKNOWN, /* a query without an answer: every comparison is false */
    GRAFT_GV_NUM,     /* a number (ints, bools and floats alike) */
    GRAFT_GV_STR,     /* a string or a dtype name */
    GRAFT_GV_ATTR,    /* an attribute value that is no number or string */
    GRAFT_GV_DIMS,    /* shape(x): the dims of a tensor type */
    GRAFT_GV_LIST,    /* a literal list [1, 1] */
    GRAFT_GV_SYM,     /* shape(x)[i] of a dim named by a symbol (ONNX's "N"): f is the dim;
                         == only to the same symbol, no other comparison decided */
} graft_guard_kind;

typedef struct graft_guard_val {
    graft_guard_kind kind;        /* which field is live */
    double f;                     /* GRAFT_GV_NUM */
    const char *s;                /* GRAFT_GV_STR; GRAFT_GV_LIST in compiled guards: its
                                     canonical text "[1, 1]" */
    const graft_attr_value *attr; /* GRAFT_GV_ATTR */
    const graft_type *type;       /* GRAFT_GV_DIMS */
    const graft_expr *list;       /* GRAFT_GV_LIST in the interpreter: the literal, whose
                                     items it evaluates when it needs them */
} graft_guard_val;

typedef enum graft_action_kind {
    GRAFT_ACTION_REWRITE,   /* PATTERN => EXPR */
    GRAFT_ACTION_PARTITION, /* PATTERN => partition(KEY="value", ...) */
} graft_action_kind;

/* A compiled guard: true when the bindings satisfy it. */
typedef bool (*graft_guard_fn)(const graft_graph *g, const graft_binding *b);
/* A compiled action: builds the replacement of root, returns it; NULL,
 * having built nothing, when an attribute it gives a bound variable has
 * no value (graft_attr_slot_known): the rewrite does not happen. */
typedef graft_node *(*graft_build_fn)(graft_graph *g, const graft_binding *b, graft_node *root);
/* A compiled action of a rule of several roots that is a tuple of one
 * value per root: builds them into by[0..nroots) in the roots' order;
 * false, having built nothing, as a graft_build_fn's NULL. */
typedef bool (*graft_build_roots_fn)(graft_graph *g, const graft_binding *b, graft_node **by);

/* An attribute that a compiled action gives a bound variable (alpha=c).
 * The action refuses a match whose variable holds no value for it
 * (graft_attr_slot_known); graft explain reads these rows to name the
 * attribute, as it does from an interpreted action's tree. */
typedef struct graft_slot_attr {
    const char *attr; /* "alpha" */
    const char *op;   /* the op it is given to, "LeakyRelu"; NULL for a call of a function */
    int slot;         /* the variable's slot */
} graft_slot_attr;

/* One root of a rule of several, p & q & r (note [several roots] in
 * src/compiler/check_roots.c).  The first root is found by the automaton
 * as a rule's one root is; each later root among the users of a node an
 * earlier root bound: via's node, depth steps up its users (1: the root
 * reads it directly). */
typedef struct graft_root {
    const graft_pat *pattern; /* the root's pattern tree */
    int via;                  /* the shared slot, -1 for the first root */
    int depth;                /* operand steps from the root down to via's node */
} graft_root;

typedef struct graft_rule {
    const char *name;              /* rule name, "bn" */
    const char *file;              /* rule file as named by the user */
    int line;                      /* line of the rule's name */
    const char *text;              /* the rule's source text, as written */
    graft_action_kind kind;        /* rewrite or partition */
    int priority;                  /* higher wins; default 0 */
    bool once;                     /* [once]: in the rounds until a pass of it
                                      rewrites, TVM's rewrite_once (doc/rewrite.md) */
    const graft_pat *pattern;      /* the pattern tree */
    int nslots;                    /* variable slots */
    const char *const *slot_names; /* their names, for match listings */
    const graft_expr *guard;       /* where-clause, or NULL */
    graft_guard_fn guard_fn;       /* compiled guard, or NULL */
    const graft_expr *action;      /* GRAFT_ACTION_REWRITE: the replacement */
    graft_build_fn build_fn;       /* compiled action, or NULL */
    int npart_attrs;               /* GRAFT_ACTION_PARTITION: function attributes */
    const graft_attr *part_attrs;  /* in the order written */
    int nroots;                    /* a rule of several roots: how many (its action
                                      gives one value per root), else 0 */
    const graft_root *roots;       /* them, roots[0].pattern == pattern */
    graft_build_roots_fn build_roots_fn; /* several roots, the action a tuple of
                                      their values: compiled, or NULL (note
                                      [root values] in src/runtime/rewrite_build.c) */
    int nslot_attrs;               /* a compiled action's attributes given bound
                                      variables, in the order it tests them */
    const graft_slot_attr *slot_attrs;
} graft_rule;

/* A compiled attribute test (GRAFT_PRED_ATTR): true when the attribute
 * value v (NULL: the node omits the attribute) has the test's canonical
 * text, as the labeller decides it by printing the value and the default. */
typedef bool (*graft_attr_test_fn)(const graft_attr_value *v);

/* An op the rule files declare, by name and ONNX domain: what the model
 * check of an ONNX model reads (note [onnx models checked] in
 * src/onnx/onnx_file.c), the one part of the registry a rule set
 * carries. */
typedef struct graft_op_name {
    const char *name;   /* "Conv", "Gelu" */
    const char *domain; /* "com.microsoft"; NULL for ONNX's default domain */
    int since;          /* the opset version of the schema declared ('since N'):
                           what a node a rewrite makes imports */
} graft_op_name;

/* note [compiled index]: what the automaton indexes before any state
 * (src/runtime/automaton_index.c), as graft compile writes it: ops named
 * by rules with the items they head and their attribute tests, the items
 * no op heads, the node and function tests in test order, the rules best
 * first; and what the matcher decides of each rule (src/runtime/match.c).  A run of an interpreted rule set builds the same from the
 * lowered tables at start-up; a compiled one reads these static arrays
 * and builds nothing.  Ids index the rule set's own items, preds and
 * rules, so the index belongs to the one rule set it was written with. */
typedef struct graft_automaton_op {
    const char *name;      /* the op, "nn.conv2d" */
    uint32_t nitems;
    const uint32_t *items; /* OP and STAR items headed by it, ascending */
    uint32_t npreds;
    const uint32_t *preds; /* its GRAFT_PRED_ATTR tests, in test order */
} graft_automaton_op;

/* note [compiled states]: the automaton's states and transitions, as
 * graft compile computes them ahead (src/runtime/automaton_close.c): the
 * labelling's state construction run to a fixed point over the symbols the
 * rule set can tell apart (each op rules name and every other kind of node,
 * each with the tests it may pass and the operand counts its rules ask
 * about).  A symbol's state depends on an operand's state only through the
 * items the symbol's candidate items ask of their operands, so per head (an
 * op rules name, or any other symbol) every state has a class, and a row
 * (one symbol: kind, op or index, tests passed, operand count) gives the
 * state for each tuple of operand classes.  A step the rows do not cover
 * (more operands, an element index or a set of tests not enumerated, an
 * operand state built at run time) is computed at run time as an
 * interpreted rule set does, and finds its state among these unless the
 * closure did not reach it (src/runtime/automaton_tables.c). */
typedef struct graft_automaton_head {
    uint32_t nclasses;        /* operand classes: states its items tell apart */
    const uint32_t *class_of; /* per state: its class as an operand */
    uint32_t ntests;          /* the tests its candidate items ask, ascending */
    const uint32_t *tests;
} graft_automaton_head;

typedef struct graft_automaton_row {
    uint32_t tag;          /* the symbol's kind (SymTag, src/runtime/automaton.h) */
    uint32_t a;            /* its op index (UINT32_MAX: an op no rule names), or
                              element index; 0 for other kinds */
    uint32_t npreds;       /* the tests it passes among its head's, */
    const uint32_t *preds; /* ascending */
    uint32_t nargs;        /* operands */
    const uint32_t *next;  /* the state, per operand classes c0..cn-1 at
                              (c0 * k + c1) * k + ..., k the head's nclasses */
} graft_automaton_row;

typedef struct graft_automaton_states {
    uint32_t nstates;
    const uint64_t *bits;        /* per state, its item set: (nitems + 63) / 64
                                    words, bit i = items[i] */
    const uint32_t *accept_off;  /* per state, and one more: its run in accepts */
    const uint32_t *accepts;     /* the rules each state accepts, best first */
    uint32_t nheads;             /* the index's nops + 1 */
    const graft_automaton_head *heads; /* per op index, then one for every other
                                    symbol (index nops) */
    uint32_t nrows;
    const graft_automaton_row *rows;
} graft_automaton_states;

typedef struct graft_automaton_index {
    uint32_t nops;                  /* ops rules name, in first-use order */
    const graft_automaton_op *ops;
    const uint32_t *item_op;        /* per item: the op index of its head op,
                                       UINT32_MAX when no op heads it */
    uint32_t ngeneric;              /* items not headed by an op, ascending */
    const uint32_t *generic;
    uint32_t nnode_preds;           /* tests evaluated on every node */
    const uint32_t *node_preds;
    uint32_t nfn_preds;             /* function attribute tests */
    const uint32_t *fn_preds;
    const uint32_t *rule_order;     /* rule indices, best first */
    bool scopes;                    /* some item is a fn, if or let */
    /* What the matcher decides of each rule (in file order) before any
     * node; NULL: decided at start-up. */
    const uint32_t *proof_steps;    /* the most steps its try takes where its
                                       state proves it, 0 when a try verifies
                                       it (note [proven rules] in
                                       src/runtime/match_check.c) */
    const bool *checked;            /* the states tell it without a try (note
                                       [checked rules] there) */
    const graft_automaton_states *states; /* the states and transitions
                                       written ahead (note [compiled states]);
                                       NULL: built as labelling reaches them */
} graft_automaton_index;

typedef struct graft_rule_set {
    const char *name;                   /* for messages: the first rule file */
    uint32_t nrules;                    /* rules in file order */
    const graft_rule *rules;
    uint32_t nitems;                    /* shared sub-patterns, bottom-up */
    const graft_item *items;
    uint32_t npreds;                    /* distinct node tests */
    const graft_pred *preds;
    const graft_attr_test_fn *attr_fns; /* per test, graft compile's compiled
                                           attribute tests: a function for
                                           every GRAFT_PRED_ATTR test (NULL for the
                                           others); NULL = interpret them */
    int onnx_opset;                     /* rules for ONNX: their 'opset onnx N';
                                           0: rules for Relay */
    uint32_t nops;                      /* rules for ONNX: the ops declared, */
    const graft_op_name *ops;           /* in declaration order (graft compile
                                           writes them by domain) */
    const graft_automaton_index *automaton; /* graft compile's index (note
                                           [compiled index]); NULL: built
                                           from the tables at start-up */
} graft_rule_set;

/* ---- guard values of compiled guards ---- */

static inline graft_guard_val graft_gv_unknown(void)
{
    return (graft_guard_val){.kind = GRAFT_GV_UNKNOWN};
}

static inline graft_guard_val graft_gv_num(double f)
{
    return (graft_guard_val){.kind = GRAFT_GV_NUM, .f = f};
}

static inline graft_guard_val graft_gv_str(const char *s)
{
    return (graft_guard_val){.kind = GRAFT_GV_STR, .s = s};
}

static inline graft_guard_val graft_gv_list(const char *text)
{
    return (graft_guard_val){.kind = GRAFT_GV_LIST, .s = text};
}

static inline bool graft_gv_truth(graft_guard_val v)
{
    return v.kind == GRAFT_GV_NUM && v.f != 0;
}

/* A bound variable's value: its attribute, or its scalar constant. */
graft_guard_val graft_gv_slot(const graft_binding *b);
/* users(x), rank(x), dtype(x), value(x), shape(x) of a bound node. */
graft_guard_val graft_gv_users(const graft_binding *b);
graft_guard_val graft_gv_rank(const graft_binding *b);
graft_guard_val graft_gv_dtype(const graft_binding *b);
graft_guard_val graft_gv_value(const graft_binding *b);
graft_guard_val graft_gv_shape(const graft_binding *b);
/* value(x)[i]: element i (row-major) of the constant bound to x. */
graft_guard_val graft_gv_value_at(const graft_binding *b, int64_t i);
/* attr(x, name), dflt when the node omits it. */
graft_guard_val graft_gv_attr(const graft_binding *b, const char *name,
                              const graft_attr_value *dflt);
/* base[i]: a dim of shape(x), an element of a list attribute. */
graft_guard_val graft_gv_index(graft_guard_val base, int64_t i);
/* -x; x op y for op '+', '-', '*', '/' (division by 0 is unknown). */
graft_guard_val graft_gv_neg(graft_guard_val x);
graft_guard_val graft_gv_arith(int op, graft_guard_val x, graft_guard_val y);
/* x op y: numbers by value, anything else by canonical text (== and !=
 * only); false when either side is unknown. */
bool graft_gv_cmp(graft_cmp_op op, graft_guard_val x, graft_guard_val y);

/* ---- compiled attribute tests (graft_rule_set.attr_fns) ----
 * Each is true when attribute value v has the canonical text of a number,
 * a string without quotes, None, a list of numbers, or any text key;
 * without formatting v, except in the last. */

static inline bool graft_attr_is_num(const graft_attr_value *v, double f)
{
    if (v->kind == GRAFT_ATTR_INT || v->kind == GRAFT_ATTR_BOOL)
        return (double)v->i == f;
    return v->kind == GRAFT_ATTR_FLOAT && v->f == f;
}

static inline bool graft_attr_is_str(const graft_attr_value *v, const char *s)
{
    return v->kind == GRAFT_ATTR_STRING && strcmp(v->s ? v->s : "", s) == 0;
}

static inline bool graft_attr_is_none(const graft_attr_value *v)
{
    return v->kind == GRAFT_ATTR_NULL;
}

bool graft_attr_is_nums(const graft_attr_value *v, const double *items, int n);
bool graft_attr_key_is(const graft_attr_value *v, const char *key);

/* ---- attributes of a new op call ---- */

/* Attributes being collected; graft_attrs_free releases the array (the
 * values live in the graph).  A list starts as {0}: its first GRAFT_FEW_ATTRS
 * pairs go to few, so a rewrite's action allocates nothing for them; the
 * list must not be copied while it points at its own few. */
enum { GRAFT_FEW_ATTRS = 8 };
typedef struct graft_attr_list {
    graft_attr *attrs; /* name/value pairs in order: few, or allocated */
    int n;             /* used */
    size_t cap;        /* room at attrs */
    graft_attr few[GRAFT_FEW_ATTRS];
} graft_attr_list;

/* **c: every attribute of node from (none when from is NULL). */
void graft_attrs_copy(graft_attr_list *a, const graft_node *from);
/* name=value, replacing an earlier value of that name; nothing when value
 * is NULL (an attribute absent without default is left out). */
void graft_attrs_put(graft_attr_list *a, const char *name, const graft_attr_value *value);
/* Orders and filters the collected attributes as TVM prints them (note
 * [created attributes] in doc/architecture.md). */
void graft_attrs_canonical(graft_attr_list *a, const graft_attr_decl *decls, int ndecls);
void graft_attrs_free(graft_attr_list *a);
/* Copies of attribute values into g: v itself; a bound variable's value
 * (its attribute, or its scalar constant as int or float); attribute name
 * of a bound node, else dflt.  NULL when there is none. */
const graft_attr_value *graft_attr_copy(graft_graph *g, const graft_attr_value *v);
const graft_attr_value *graft_attr_slot(graft_graph *g, const graft_binding *b);
/* Whether a bound variable has a value for an attribute: an attribute, a
 * scalar constant, or nothing bound (the attribute is left out); a
 * compiled action returns NULL when one it gives an attribute has none. */
bool graft_attr_slot_known(const graft_binding *b);
/* note [attribute operands]: a bound attribute value as an operand of a
 * new op (var + eps with epsilon=eps bound) is a scalar constant of the
 * value, of the dtype of the op's first other operand whose dtype is
 * known (float32 when none is), spelled as TVM prints it ("1e-05f").
 * ops holds the op's nops operands, ops[self] the one being made. */
graft_node *graft_attr_operand(graft_graph *g, const graft_attr_value *v, graft_node *const *ops,
                               int nops, int self);
const graft_attr_value *graft_attr_of(graft_graph *g, const graft_binding *b, const char *name,
                                      const graft_attr_value *dflt);

/* ---- nodes of a replacement, as the interpreter makes them ---- */

/* A scalar constant spelled text ("1f", "2i64") of dtype; an op call with
 * its attributes in the order given (op and the attributes' names are
 * string literals or names of g's, whose bytes never change while g
 * lives: they are interned by address); a tuple; element index of a
 * tuple. */
graft_node *graft_add_const(graft_graph *g, const char *text, double value, const char *dtype);
graft_node *graft_add_call(graft_graph *g, const char *op, graft_node *const *args, int nargs,
                           const graft_attr *attrs, int nattrs);
graft_node *graft_add_tuple(graft_graph *g, graft_node *const *fields, int nfields);
graft_node *graft_add_getitem(graft_graph *g, graft_node *tuple, int index);

#endif
