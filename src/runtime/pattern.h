/* pattern.h - the lowered form of rules that the matcher runtime interprets.
 *
 * The rule compiler (lower.c) turns checked rules into these plain tables;
 * the C emitter writes the same tables as static initialisers.  Everything
 * here is const data without pointers into an AST, so a compiled rule set
 * and an interpreted one drive the same runtime (note [one runtime]).
 *
 * Three layers, from small to large:
 *  - PatPred: a test of one node alone (is it a constant? its dtype? an
 *    attribute value?).  Equal tests are shared: one id per distinct test.
 *  - PatItem: a sub-pattern without variable names, hash-consed across all
 *    rules of a rule set.  The automaton's states are sets of items
 *    (note [item sets] in automaton.c).  A child item always has a smaller
 *    id than its parent, so id order is a bottom-up order.
 *  - PatNode: one rule's pattern tree, each node pointing at its item and
 *    carrying what items leave out: variable slots, attribute bindings.
 * Guards and actions are PatExpr trees over the variable slots.
 */
#ifndef GRAFT_PATTERN_H
#define GRAFT_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

/* ---- node tests ---- */

typedef enum PredKind {
    PRED_IS_CONST, /* x:const */
    PRED_IS_VAR,   /* x:var */
    PRED_VAR_NAME, /* x:var("weight"): s = the name */
    PRED_DTYPE,    /* x:float32: s = the dtype (from the node's type) */
    PRED_RANK,     /* x:4 (a rank): i = the rank */
    PRED_SHAPE,    /* x:Tensor[(1, 3, _, _), float32]: rank, dims (-1 = _),
                      s = dtype or NULL */
    PRED_VALUE,    /* 1e-05 in a pattern: a scalar constant equal to f */
    PRED_OP_VALUE, /* op add: the operator named s used as a value
                      (NODE_OPREF), as in (%x, add) */
    PRED_ATTR,     /* nn.conv2d(x, w, groups=1): op's attribute s has the
                      value whose canonical text is key (pattern_attr_key);
                      dflt = canonical default when the node omits it.
                      op NULL: an attribute of a called local function,
                      fn[Composite="x"](...) */
} PredKind;

typedef struct PatPred {
    PredKind kind;       /* what is tested */
    const char *s;       /* VAR_NAME name, DTYPE/SHAPE dtype, ATTR name */
    int64_t i;           /* RANK: the rank */
    double f;            /* VALUE: the scalar value */
    int rank;            /* SHAPE: number of dims */
    const int64_t *dims; /* SHAPE: dims, -1 for any */
    const char *op;      /* ATTR: the op whose attribute this is */
    const char *key;     /* ATTR: canonical text of the wanted value */
    const char *dflt;    /* ATTR: canonical text of the op's default, or NULL */
} PatPred;

/* ---- items: shared sub-patterns ---- */

typedef enum PatItemKind {
    PITEM_ANY,     /* x, _, x:const, 1e-05: any node passing preds */
    PITEM_OP,      /* nn.conv2d(a, b): op call of op with args */
    PITEM_FNCALL,  /* fn[Composite="x"](a, b): call of a local function
                     whose attributes pass preds */
    PITEM_TUPLE,   /* (a, b) */
    PITEM_GETITEM, /* a[i] */
    PITEM_ALT,     /* a | b, and op?(a) = op(a) | a: args are the choices */
    PITEM_STAR,    /* op*(a): a, or op applied to op*(a); args[0] = a */
    PITEM_DOMPATH, /* inside dominates(parent, path, child): the node
                      matches parent, or is a constant, or matches path
                      and all its operands are DOMPATH; args = parent,
                      path */
    PITEM_DOMREACH,/* a DOMPATH node from which some walk reaches parent;
                      args = parent, path, the DOMPATH item */
    PITEM_DOM,     /* dominates(parent, path, child): matches child, all
                      operands DOMPATH and one DOMREACH; args = child,
                      DOMPATH, DOMREACH */
    PITEM_CALL,    /* _(a, b): a call of any callee, an op or a function
                      (TVM's CallPattern of a wildcard) */
    PITEM_FN,      /* fn (a, b) { body }: a function whose body and
                      parameters are args (body first, so that "..."
                      leaves further parameters), preds its attributes */
    PITEM_IF,      /* if (c) { t } else { e }: args = c, t, e */
    PITEM_LET,     /* let v = value; body: args = v, value, body */
} PatItemKind;

typedef struct PatItem {
    PatItemKind kind;          /* which shape */
    const char *op;         /* OP, STAR: the op name */
    bool commutative;       /* OP with two args: either operand order */
    bool variadic;          /* OP, FNCALL, TUPLE: more operands may follow
                               args ("..."); they match anything */
    int index;              /* GETITEM: the field index */
    int npreds;             /* tests the node itself must pass */
    const uint32_t *preds;  /* ids into RuleSet.preds, ascending */
    int nargs;              /* child items */
    const uint32_t *args;   /* ids into RuleSet.items, each < this id */
} PatItem;

/* ---- one rule's pattern tree ---- */

typedef enum PatKind {
    PAT_ANY,     /* a leaf: variable, _, literal, constrained leaf */
    PAT_OP,      /* op call, kids = operand patterns */
    PAT_FNCALL,  /* call of a local function, kids = operand patterns */
    PAT_TUPLE,   /* tuple, kids = field patterns */
    PAT_GETITEM, /* element access, kids[0] = the tuple pattern */
    PAT_ALT,     /* alternatives, kids tried in order */
    PAT_STAR,    /* repeated unary op, kids[0] = the pattern beneath */
    PAT_DOM,     /* dominates(parent, path, child): kids = parent, path,
                    child; path's variables are not bound */
    PAT_CALL,    /* call of any callee, kids = operand patterns */
    PAT_FN,      /* function, kids = body, then the parameters */
    PAT_IF,      /* if, kids = condition, then, else */
    PAT_LET,     /* let, kids = variable, value, body */
} PatKind;

/* An attribute bound by the pattern, nn.conv2d(x, w, strides=s). */
typedef struct PatAttrBind {
    const char *name;         /* attribute name */
    int slot;                 /* variable slot receiving the value */
    const AttrValue *dflt;    /* the op's default when the node omits it */
} PatAttrBind;

typedef struct PatNode PatNode;
struct PatNode {
    PatKind kind;                /* shape, mirrors the item's kind */
    uint32_t item;               /* the item this node must be in */
    int slot;                    /* variable slot bound to the node, or -1 */
    bool embed;                  /* a leaf whose constant a partition embeds
                                    (x:const or a literal) */
    int nkids;                   /* sub-patterns */
    const PatNode *const *kids;  /* in operand order */
    int nbinds;                  /* attributes bound here */
    const PatAttrBind *binds;
    int line;                    /* rule file line, for traces and dumps */
    int col;                     /* where the part is written: first column, */
    int last_line, last_col;     /* last line and column (inclusive), for
                                    graft explain's notes; a constrained
                                    leaf spans its constraint, w:var */
};

/* ---- guard and action expressions ---- */

typedef enum ExprKind {
    EXPR_NUM,     /* 3, 1e-05: literal number (f); in an action a new
                     constant spelled text */
    EXPR_STR,     /* "NCHW" (s) */
    EXPR_BOOL,    /* true, false (i) */
    EXPR_SLOT,    /* a bound variable: a node, or an attribute value */
    EXPR_LIST,    /* [1, 1]: attribute list literal, kids */
    EXPR_DTYPE,   /* float32 as a value in a guard: s */
    EXPR_CALL,    /* action: a new op call: s = op, kids = args, attrs */
    EXPR_TUPLE,   /* action: (a, b) */
    EXPR_GETITEM, /* action or guard: kids[0][i]; on shape(x)[i] a dim */
    EXPR_NOT,     /* !a */
    EXPR_AND,     /* a && b */
    EXPR_OR,      /* a || b */
    EXPR_CMP,     /* a OP b, op in cmp */
    EXPR_ARITH,   /* a + b, a - b, a * b, a / b, -a: cmp holds the char */
    EXPR_USERS,   /* users(x): how many users x has */
    EXPR_RANK,    /* rank(x) */
    EXPR_DTYPEOF, /* dtype(x) */
    EXPR_SHAPE,   /* shape(x): a list of dims */
    EXPR_VALUE,   /* value(x): x's scalar constant value */
    EXPR_ATTR,    /* attr(x, name): an attribute of bound node x */
    EXPR_OPREF,   /* action: op add, the operator s as a value */
    EXPR_SPLICE,  /* action, among a new tuple's or call's operands: the
                     fields [i, end) of the tuple bound to slot, where end
                     (in cmp) is a field index when > 0, counted from the
                     tuple's end when <= 0 (0: to the end) */
} ExprKind;

typedef enum CmpOp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } CmpOp;

typedef enum AttrSrc {
    ASRC_EXPR,   /* name=EXPR: the value of an expression */
    ASRC_COPY,   /* **c: every attribute of the node bound to slot */
} AttrSrc;

typedef struct PatExpr PatExpr;

/* One attribute the op of a new call declares, in the op's declared
 * (TVM's) order, with its default (note [created attributes]). */
typedef struct PatAttrDecl {
    const char *name;       /* attribute name */
    const AttrValue *dflt;  /* its default, or NULL when it has none */
} PatAttrDecl;

/* An attribute of a new op call in an action. */
typedef struct PatActAttr {
    AttrSrc src;            /* where the value comes from */
    const char *name;       /* ASRC_EXPR: attribute name */
    const PatExpr *value;   /* ASRC_EXPR: its value */
    int slot;               /* ASRC_COPY: the node whose attributes to copy */
} PatActAttr;

struct PatExpr {
    ExprKind kind;              /* what it is */
    double f;                   /* NUM */
    int64_t i;                  /* BOOL, GETITEM index; SLOT: 1 for a bound
                                   attribute value as an operand of a new
                                   op (note [attribute operands]) */
    const char *s;              /* STR, DTYPE, CALL op, ATTR name */
    const char *text;           /* NUM in actions: the constant's spelling
                                   ("1f", "2i64") */
    const char *dtype;          /* NUM in actions: the constant's dtype */
    int slot;                   /* SLOT, USERS..ATTR: the variable */
    int cmp;                    /* CMP: a CmpOp; ARITH: '+', '-', '*', '/',
                                   'n' for negation */
    int nkids;                  /* operands */
    const PatExpr *const *kids;
    int nattrs;                 /* CALL: attributes, in order */
    const PatActAttr *attrs;
    int ndecls;                 /* CALL: the op's declared attributes */
    const PatAttrDecl *decls;   /* (none for an op the registry lacks) */
    const AttrValue *attr;      /* ATTR: the op's default value (NULL if
                                   none); a literal (NUM, STR, BOOL, LIST,
                                   DTYPE) as an attribute value */
};

/* ---- guard values ----
 * What a guard expression evaluates to, in the interpreter (match_guard.c)
 * and in compiled guards (emit_c_rt.h) alike: one value type, so the two
 * share how values become canonical text and how comparisons decide. */

typedef enum GuardKind {
    GV_UNKNOWN, /* a query without an answer: every comparison is false */
    GV_NUM,     /* a number (ints, bools and floats alike) */
    GV_STR,     /* a string or a dtype name */
    GV_ATTR,    /* an attribute value that is no number or string */
    GV_DIMS,    /* shape(x): the dims of a tensor type */
    GV_LIST,    /* a literal list [1, 1] */
} GuardKind;

typedef struct GuardVal {
    GuardKind kind;        /* which field is live */
    double f;              /* GV_NUM */
    const char *s;         /* GV_STR; GV_LIST in compiled guards: its
                              canonical text "[1, 1]" */
    const AttrValue *attr; /* GV_ATTR */
    const Type *type;      /* GV_DIMS */
    const PatExpr *list;   /* GV_LIST in the interpreter: the literal, whose
                              items it evaluates when it needs them */
} GuardVal;

/* An attribute value as a guard value: numbers and strings unwrapped,
 * GV_UNKNOWN for NULL (an absent attribute without default). */
GuardVal pattern_guard_of_attr(const AttrValue *v);
/* Appends to out the canonical text of v, as pattern_attr_key writes an
 * equal attribute value; "?" for GV_UNKNOWN.  A GV_LIST must carry its
 * text (s): the interpreter writes its own lists item by item. */
void pattern_guard_key(const GuardVal *v, StrBuf *out);
/* Whether the order c of two values (<0, 0, >0) satisfies op. */
bool pattern_cmp_holds(CmpOp op, int c);

/* Appends to out the canonical text of an attribute value, so that equal
 * values compare equal as strings: numbers as "%.17g" whether written 1,
 * 1f or 1.0, strings quoted, lists "[a, b]", None, True/False as 1/0. */
void pattern_attr_key(const AttrValue *v, StrBuf *out);
/* The same canonical text for a number (as "%.17g", -0 as 0) and for the
 * dims of a tensor type ("[1, 3, 224, 224]"): guards compare shapes with
 * list attributes through it, interpreted (match_guard.c) and compiled
 * (emit_c_rt.c) alike. */
void pattern_number_key(double f, StrBuf *out);
void pattern_dims_key(const Type *t, StrBuf *out);

/* Appends to out the text of a new scalar constant of dtype with value,
 * spelled as TVM prints one: float32 "1.5f", float64 "1.5f64", float16
 * "1.5f16", int64 "2i64", int32 "2", bool "True"/"False".  Returns NULL,
 * or (out untouched) why no such constant can be written: a dtype TVM
 * cannot print as a scalar, or a value the dtype cannot hold. */
const char *pattern_const_text(double value, const char *dtype, StrBuf *out);

/* note [created attributes]: TVM's printer writes an op call's
 * attributes in the op's declared order and leaves out those equal to
 * their default (attr_value_equal), so a node an action creates carries
 * exactly those: lowering gives each new call its op's declarations
 * (PatExpr.decls, from the registry), and the values, known only once a
 * match binds them, are ordered and filtered here.  Attributes the op
 * does not declare (an op the registry lacks) keep their written order,
 * after the declared ones.  Rearranges attrs[0..n) in place and returns
 * how many are left. */
int pattern_attrs_canonical(Attr *attrs, int n, const PatAttrDecl *decls, int ndecls);

/* note [pattern operands]: what patterns see as the operands of a node:
 * a call's arguments, a tuple's fields, the tuple of an element access;
 * an if's condition and branches, a let's variable, value and body; a
 * function's body, then its parameters (fn patterns).  Global functions,
 * ops as values and matches have none.  The labeller and the matcher
 * both read them, so states and matches agree. */
int pattern_noperands(const Node *n);
Node *pattern_operand(const Node *n, int i);

/* True when node n passes test p (attribute tests look at n's attributes
 * and fall back on p->dflt). */
bool pattern_pred_holds(const PatPred *p, const Node *n);

/* A node's dtype (its tensor type's, or a scalar constant's), or NULL;
 * its rank (0 for a scalar constant), or -1 when unknown. */
const char *pattern_node_dtype(const Node *n);
int pattern_node_rank(const Node *n);

#endif
