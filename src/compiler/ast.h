/* ast.h - the abstract syntax tree of the rule language.
 *
 * One kind-tagged node type, AstNode, serves patterns, guards and actions;
 * the kinds are listed once in AST_KIND_LIST below (enum, names, printer).
 * Every node carries its Source and SrcRange (diag.h).  All nodes live in
 * the compile arena of the RuleFile that owns them (note [arenas]).
 *
 * note [ast immutability]: the parser builds the tree and never changes it
 * afterwards.  The checker (check.h) only fills the fields marked
 * "resolved" below, and builds NEW trees for what it derives (the expanded
 * pattern of a rule, see AstRule.pattern); it never rewrites what the
 * parser built, so `graft check --dump-ast` prints the rules as written.
 *
 * Walking a checked rule (what the matcher lowering reads):
 *   rule->kind, name, priority, once        what the rule is
 *   rule->pattern                           expanded pattern: no macros and
 *                                           no let names left; AST_CALL /
 *                                           AST_OPTIONAL / AST_REPEAT nodes
 *                                           carry their OpInfo (call.op)
 *   rule->vars[i]                           every variable, with its binding
 *                                           site; AST_VAR nodes carry var.slot
 *   rule->guard                             NULL or a guard expression
 *   rule->action                            rewrite expression, or NULL for a
 *                                           partition (rule->partition_attrs)
 *   rule->text / src / range                for comments in generated C
 */
#ifndef GRAFT_AST_H
#define GRAFT_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "util.h"

typedef struct OpInfo OpInfo; /* registry.h */

/* note [nesting bound]: patterns, guards and actions nest at most
 * rule-depth levels as written and macro-depth levels after macro
 * expansion (limit.h, 256 and 1024 by default); deeper input gets an
 * error instead of a deep recursion, so walks over rule trees recurse. */

/* X(KIND, "name", example syntax).  Order matters only for dumps.
 * P = pattern, G = guard, A = action, L = literal (all three). */
#define AST_KIND_LIST(X)                                                      \
    X(AST_WILDCARD, "wildcard")   /* P  _                                  */ \
    X(AST_VAR, "var")             /* PGA x   (pattern variable / its use)  */ \
    X(AST_NUMBER, "number")       /* L  1  -2  1e-05  0.5                  */ \
    X(AST_STRING, "string")       /* L  "NCHW"                             */ \
    X(AST_BOOL, "bool")           /* L  True  False                        */ \
    X(AST_NONE, "none")           /* L  None                               */ \
    X(AST_DTYPE, "dtype")         /* L  float32  int64  bool               */ \
    X(AST_LIST, "list")           /* L  [1, 1]  []                         */ \
    X(AST_CALL, "call")           /* PA nn.conv2d(x, w, groups=1)  a + b   */ \
                                  /*    -x   concatenate(...)   f(x, **c)  */ \
    X(AST_OPTIONAL, "optional")   /* P  nn.relu?(p)                        */ \
    X(AST_REPEAT, "repeat")       /* P  broadcast_to*(p)                   */ \
    X(AST_CLASS, "class")         /* P  <elementwise>(x, y)                */ \
    X(AST_FNCALL, "fncall")       /* P  fn[Composite="dnnl.conv2d_relu"](x, y) */ \
    X(AST_ANYCALL, "anycall")     /* P  _(x, y)  _(x, ...): any callee     */ \
    X(AST_CALLPAT, "callpat")     /* P  (op add | op multiply)(x, y)       */ \
    X(AST_OPVALUE, "opvalue")     /* PA op add  op nn.relu: the op itself  */ \
    X(AST_FNLIT, "fnlit")         /* P  fn (a, b) { body }  fn (...) { b } */ \
    X(AST_IF, "if")               /* P  if (c) { t } else { e }            */ \
    X(AST_LETIN, "letin")         /* P  let v = value; body                */ \
    X(AST_SPLICE, "splice")       /* A  rest...  t...  t[1:]...  t[:-1]... */ \
    X(AST_TUPLE, "tuple")         /* PA (a, b)  (a, ...)  (a,)             */ \
    X(AST_GETITEM, "getitem")     /* PA p[0]                               */ \
    X(AST_ALT, "alt")             /* P  a | b                              */ \
    X(AST_CONSTRAIN, "constrain") /* P  eps:const  x:var("weight")         */ \
                                  /*    x:float32  x:rank(4)               */ \
                                  /*    x:Tensor[(1, 3, _, _), float32]    */ \
    X(AST_BIND, "bind")           /* P  c@nn.conv2d(x, w)                  */ \
    X(AST_DOMINATES, "dominates") /* P  dominates(parent, path, child)     */ \
    X(AST_ATTR, "attr")           /* PA groups=1  strides=s  epsilon=eps   */ \
    X(AST_UNARY, "unary")         /* G  !g  -e                             */ \
    X(AST_BINARY, "binary")       /* G  a && b  a == b  a < b  a + b       */ \
    X(AST_QUERY, "query")         /* GA users(x)  rank(x)  dtype(x)        */ \
                                  /*    value(eps)  shape(x)  attr(c, groups) */ \
    X(AST_INDEX, "index")         /* G  shape(x)[1]                        */ \
    X(AST_PARTITION, "partition") /* A  partition  partition(K="v", ...)   */

typedef enum AstKind {
#define AST_ENUM(kind, name) kind,
    AST_KIND_LIST(AST_ENUM)
#undef AST_ENUM
    AST_KIND_COUNT
} AstKind;

/* How an AST_CALL was written; the op is always named in call.name. */
typedef enum CallSyntax {
    CALL_PREFIX, /* add(a, b) */
    CALL_INFIX,  /* a + b, a - b, a * b, a / b (add subtract multiply divide) */
    CALL_NEGATE, /* -a (negative) */
} CallSyntax;

/* Constraints after ':' (AST_CONSTRAIN). */
typedef enum ConstraintKind {
    CONSTRAINT_CONST,  /* x:const - a constant node */
    CONSTRAINT_VAR,    /* x:var, x:var("weight") - a model input, maybe by name */
    CONSTRAINT_DTYPE,  /* x:float32 - element type */
    CONSTRAINT_RANK,   /* x:rank(4) - number of dimensions */
    CONSTRAINT_TENSOR, /* x:Tensor[(1, 3, _, _), float32] - shape and dtype */
    CONSTRAINT_TRAIT,  /* op add:<broadcast> - an op value's trait (name), only
                          as a callee: note [callee patterns] */
} ConstraintKind;

/* Operators of AST_UNARY and AST_BINARY (guards).  The X-macro gives the
 * spelling and the binding power used by the parser and the printer. */
#define AST_OPER_LIST(X)           \
    X(OPER_OR, "||", 1)            \
    X(OPER_AND, "&&", 2)           \
    X(OPER_EQ, "==", 3)            \
    X(OPER_NE, "!=", 3)            \
    X(OPER_LT, "<", 3)             \
    X(OPER_LE, "<=", 3)            \
    X(OPER_GT, ">", 3)             \
    X(OPER_GE, ">=", 3)            \
    X(OPER_ADD, "+", 4)            \
    X(OPER_SUB, "-", 4)            \
    X(OPER_MUL, "*", 5)            \
    X(OPER_DIV, "/", 5)            \
    X(OPER_NOT, "!", 6)            \
    X(OPER_NEG, "-", 6)

typedef enum AstOper {
#define AST_OPER_ENUM(oper, spelling, prec) oper,
    AST_OPER_LIST(AST_OPER_ENUM)
#undef AST_OPER_ENUM
    AST_OPER_COUNT
} AstOper;

/* Guard functions (AST_QUERY), filled in by the checker from query.name. */
typedef enum QueryKind {
    QUERY_UNKNOWN, /* not resolved yet / not a query */
    QUERY_USERS,   /* users(x): how many nodes read x (int) */
    QUERY_RANK,    /* rank(x): number of dimensions of x's type (int) */
    QUERY_DTYPE,   /* dtype(x): element type of x (a dtype) */
    QUERY_VALUE,   /* value(eps): value of a scalar constant (number) */
    QUERY_SHAPE,   /* shape(x): dimensions of x (list of int; -1 = unknown) */
    QUERY_ATTR,    /* attr(c, groups): attribute of the op call bound to c,
                      default value from the registry when absent */
} QueryKind;

/* Per-rule variable kinds (AstVarInfo.kind). */
typedef enum VarKind {
    VARKIND_NODE, /* bound to a graph node: x, c@..., eps:const */
    VARKIND_ATTR, /* bound to an attribute value: strides=s */
    VARKIND_CALLEE, /* bound to the callee of a call: f(x, ...) */
    VARKIND_INDEX, /* bound to an element's index: split(x)[i] (note [index
                      variables] in check_vars.c) */
} VarKind;

typedef struct AstNode AstNode;

/* The index of p[_]: an element of any index (TVM's is_tuple_get_item(p)
 * without an index); graft_item.index holds it too. */
#define AST_ANY_INDEX (-1)

/* A list of nodes (arguments, tuple fields, list items). */
typedef struct AstList {
    AstNode **items; /* count pointers, arena-allocated */
    int count;       /* number of items */
} AstList;

struct AstNode {
    AstKind kind;      /* which member of the union below is live */
    const Source *src; /* the file the node was parsed from */
    SrcRange range;    /* the whole construct in src */
    int depth;         /* height of the subtree, 1 for a leaf; bounded
                          (note [nesting bound]), so recursive walks
                          over a tree are bounded */
    union {
        /* AST_VAR */
        struct {
            const char *name; /* interned */
            int slot;         /* resolved: index into AstRule.vars, -1 if
                                 unbound or not yet checked */
        } var;
        /* AST_NUMBER: value as written (sign included for literals such as
         * -1 in attribute and list positions). */
        struct {
            const char *text; /* spelling as written, e.g. "1e-05" */
            double value;     /* numeric value */
            int64_t ival;     /* value when is_int */
            bool is_int;      /* written without '.', 'e' or 'E' */
        } num;
        /* AST_STRING: contents without quotes, escapes decoded. */
        struct {
            const char *text; /* interned contents */
        } str;
        /* AST_BOOL */
        bool boolean; /* True or False */
        /* AST_DTYPE */
        struct {
            const char *name; /* interned, e.g. "float32" */
        } dtype;
        /* AST_LIST (literal lists), AST_TUPLE */
        struct {
            AstList items;  /* elements / fields */
            bool ellipsis;  /* AST_TUPLE: "..." after the fields: any number
                               of further fields */
            AstNode *rest;  /* AST_TUPLE pattern: "rest..." after the fields,
                               the AST_VAR naming them (ellipsis is set), or
                               NULL (note [sequence variables]) */
            bool roots;     /* AST_TUPLE: a rule's roots, p & q & r, not a
                               tuple pattern (note [several roots] in
                               check_roots.c); never nested */
        } list;
        /* AST_CALL, AST_OPTIONAL, AST_REPEAT, AST_CLASS, AST_FNCALL,
         * AST_ANYCALL, AST_OPVALUE (name and op only); AST_FNLIT (args
         * the parameters, attrs, ellipsis, body), AST_IF (args: cond,
         * then, else), AST_LETIN (args: var, value, body) */
        struct {
            const char *name;    /* op name ("nn.conv2d"), class trait name
                                    ("elementwise") for AST_CLASS, "fn" for
                                    AST_FNCALL, "_" for AST_ANYCALL (or
                                    the callee variable, f(x, ...));
                                    interned */
            SrcRange name_range; /* just the name token(s) */
            CallSyntax syntax;   /* AST_CALL only: how it was written */
            AstList args;        /* positional operands (patterns/actions) */
            AstList attrs;       /* AST_ATTR nodes, in written order; for
                                    AST_FNCALL the function attributes */
            bool ellipsis;       /* "..." after the operands: any number of
                                    further operands (patterns only) */
            AstNode *copy_from;  /* actions: AST_VAR of "**c" (copy all
                                    attributes of the node bound to c, then
                                    apply attrs), else NULL */
            AstNode *body;       /* AST_FNLIT: the body pattern;
                                    AST_CALLPAT: the callee pattern */
            const OpInfo *op;    /* resolved: registry entry (CALL,
                                    OPTIONAL, REPEAT, OPVALUE); NULL for
                                    CLASS, FNCALL and ANYCALL, and for
                                    macro calls */
            unsigned traits;     /* resolved: AST_CLASS, the OpTrait mask */
            int slot;            /* AST_ANYCALL named f (f(x, ...)), and an
                                    action's f(y, ...): the callee
                                    variable's slot */
        } call;
        /* AST_GETITEM, AST_INDEX */
        struct {
            AstNode *base; /* tuple pattern / list-valued guard expression */
            int index;     /* element index (>= 0); AST_ANY_INDEX for p[_]
                              and p[i] */
            AstNode *var;  /* p[i]: the AST_VAR of the index variable i,
                              else NULL (note [index variables]) */
        } item;
        /* AST_ALT */
        struct {
            AstNode *left;  /* tried first */
            AstNode *right; /* tried when left does not match */
        } alt;
        /* AST_CONSTRAIN */
        struct {
            AstNode *operand;    /* the constrained pattern */
            ConstraintKind kind; /* which constraint */
            SrcRange where;      /* the constraint text after ':' */
            const char *name;    /* CONSTRAINT_VAR: required variable name,
                                    or NULL for any */
            const char *dtype;   /* CONSTRAINT_DTYPE, CONSTRAINT_TENSOR: interned
                                    dtype, NULL for "_" (any) */
            int rank;            /* CONSTRAINT_RANK; CONSTRAINT_TENSOR: ndims */
            const int64_t *dims; /* CONSTRAINT_TENSOR: rank dims, -1 for "_" */
            bool suffix;         /* the dtype of a literal written with a
                                    suffix (0.5f, 2i64, True): printed as
                                    the literal alone */
        } constrain;
        /* AST_SPLICE: the fields [lo, hi) of a tuple spliced into the
         * operands of a new tuple or call (note [sequence variables]) */
        struct {
            AstNode *operand; /* an AST_VAR: a sequence variable or a tuple */
            int lo;           /* first field */
            int hi;           /* end; from the end when <= 0 and has_hi */
            bool has_hi;      /* an end was written (t[:-1]) */
            bool dots;        /* followed by "..." (required) */
        } splice;
        /* AST_BIND */
        struct {
            const char *name;    /* interned */
            SrcRange name_range; /* the name before '@' */
            AstNode *operand;    /* the named pattern */
            int slot;            /* resolved: index into AstRule.vars */
        } bind;
        /* AST_DOMINATES */
        struct {
            AstNode *parent; /* the dominating node's pattern */
            AstNode *path;   /* pattern every node between them matches;
                                written with _ as the operand being walked */
            AstNode *child;  /* the dominated node (root of the match) */
        } dom;
        /* AST_ATTR: name=value.  In patterns value is a literal
         * (constrain), an AST_VAR (bind the attribute, or compare with an
         * attribute bound earlier) or _; in actions a literal, an AST_VAR
         * (bound attribute, or bound scalar constant: its value), or an
         * AST_QUERY attr(c, name); in partition(...) a literal. */
        struct {
            const char *name;    /* interned attribute name */
            SrcRange name_range; /* the name token */
            AstNode *value;      /* see above */
        } attr;
        /* AST_UNARY, AST_BINARY */
        struct {
            AstOper oper;   /* operator */
            AstNode *left;  /* operand (only one for AST_UNARY) */
            AstNode *right; /* AST_BINARY second operand */
        } op;
        /* AST_QUERY */
        struct {
            const char *name;    /* "users", "rank", ...; interned */
            SrcRange name_range; /* the name token */
            AstList args;        /* AST_VAR first; attr(c, NAME): second is
                                    an AST_VAR naming the attribute */
            QueryKind query;     /* resolved */
        } query;
        /* AST_PARTITION */
        struct {
            AstList attrs; /* AST_ATTR nodes with literal values */
        } part;
    } u;
};

/* ---- top-level items ---- */

typedef enum RuleKind {
    RULE_REWRITE,   /* NAME := PATTERN => EXPR */
    RULE_PARTITION, /* NAME := PATTERN => partition(...) */
} RuleKind;

/* One variable of a rule (after checking). */
typedef struct AstVarInfo {
    const char *name;     /* interned */
    VarKind kind;         /* node or attribute */
    const AstNode *site;  /* first binding occurrence in rule->pattern:
                             AST_VAR, AST_BIND, or the AST_ATTR of an
                             attribute binding */
    int uses;             /* occurrences in guard and action */
    bool always_bound;    /* bound on every way the pattern can match (not
                             only inside one alternative) */
    int seq_from;         /* a sequence variable (rest... in a tuple
                             pattern): its first field; else -1 */
} AstVarInfo;

typedef struct AstRule {
    const char *name;          /* interned */
    SrcRange name_range;       /* the name token */
    const Source *src;         /* file the rule was written in */
    SrcRange range;            /* the whole rule */
    const char *text;          /* the rule's source text, verbatim */
    RuleKind kind;             /* rewrite or partition */
    int priority;              /* [priority=N]; 0 when not given; higher wins */
    bool has_priority;         /* priority was written */
    bool once;                 /* [once]: never applied to nodes it built */
    bool inexact;              /* [inexact]: changes values by more than
                                  rounding, on purpose (graft verify holds
                                  it to a loose tolerance) */
    int index;                 /* position among all rules (file order,
                                  includes spliced in) */
    AstNode *pattern_src;      /* the pattern as written */
    AstNode *pattern;          /* resolved: expanded pattern (macros and
                                  let names substituted, AST_REPEAT that was
                                  a multiplication turned into AST_CALL);
                                  equals pattern_src when nothing changed */
    AstNode *guard;            /* where-expression, or NULL */
    AstNode *action;           /* rewrite expression; for partition rules
                                  the AST_PARTITION node */
    AstVarInfo *vars;          /* resolved: variables in first-binding order */
    int nvars;                 /* entries in vars */
} AstRule;

/* op NAME(operands) traits: one declaration of stdpatterns/ops.graft or of
 * a rule file; turned into an OpInfo by the registry. */
typedef struct AstOperand {
    const char *name;  /* interned, documentation only */
    bool optional;     /* "name?" */
    bool variadic;     /* "name..." (last only) */
} AstOperand;

typedef struct AstAttrDecl {
    const char *name;    /* interned attribute name */
    SrcRange range;      /* the declaration */
    const char *type;    /* declared kind: int float bool str dtype ints
                            floats any; interned */
    AstNode *dflt;       /* default literal, NULL when the attribute has
                            none (must be given) */
    int since;           /* ONNX: "since N", the opset version that
                            introduced or last changed it; 0 when not written */
} AstAttrDecl;

typedef struct AstOpDecl {
    const char *name;       /* interned */
    SrcRange name_range;    /* the name */
    const Source *src;      /* where declared */
    AstOperand *operands;   /* in order */
    int noperands;          /* entries in operands */
    AstAttrDecl *attrs;     /* in order */
    int nattrs;             /* entries in attrs */
    const char **traits;    /* interned trait words as written */
    SrcRange *trait_ranges; /* the word of each trait */
    int ntraits;            /* entries in traits */
    int outputs;            /* AST_OUTPUTS_TENSOR (not written), N for
                               "-> tuple(N)", AST_OUTPUTS_VARIES for
                               "-> tuple(...)" */
    /* note [onnx op clauses] in rules_build_items.c: */
    bool onnx;              /* declared after "opset onnx N": an ONNX op */
    const char *domain;     /* ONNX: 'domain "com.microsoft"'; NULL for the
                               default domain (interned) */
    int since;              /* ONNX: "since N", the opset version of the
                               schema declared; 0 when not written */
    const char *relay;      /* ONNX: 'relay "nn.conv2d"', the Relay op it
                               corresponds to (hints); NULL when none */
} AstOpDecl;

/* opset onnx 17: the IR and opset the file's rules are for. */
typedef struct AstOpset {
    const char *ir;    /* "onnx" (interned) */
    int version;       /* the default domain's opset version */
    const Source *src; /* where written */
    SrcRange range;    /* the IR's name */
} AstOpset;

enum { AST_OUTPUTS_TENSOR = 0, AST_OUTPUTS_VARIES = -1 };

/* let NAME = PATTERN   or   let NAME(a, b) = PATTERN (a macro). */
typedef struct AstLet {
    const char *name;     /* interned */
    SrcRange name_range;  /* the name */
    const Source *src;    /* where defined */
    const char **params;  /* interned parameter names */
    SrcRange *param_ranges; /* each parameter name */
    int nparams;          /* 0 for a named pattern */
    bool has_parens;      /* written "NAME()" (a macro with no parameters) */
    AstNode *body;        /* the pattern */
} AstLet;

/* include "file.graft" */
typedef struct AstInclude {
    const char *path;  /* as written (relative to the including file) */
    const Source *src; /* the including file */
    SrcRange range;    /* the string */
} AstInclude;

typedef enum ItemKind {
    ITEM_RULE,    /* u.rule */
    ITEM_OP,      /* u.op */
    ITEM_LET,     /* u.let */
    ITEM_INCLUDE, /* u.include */
    ITEM_OPSET,   /* u.opset */
} ItemKind;

typedef struct AstItem {
    ItemKind kind; /* which member is live */
    SrcRange range; /* the whole item, first token to last */
    union {
        AstRule *rule;
        AstOpDecl *op;
        AstLet *let;
        AstInclude *include;
        AstOpset *opset;
    } u;
} AstItem;

/* A comment as written, "# ..." or a block comment: the bytes
 * [begin, end) of the file's text.  The scanner keeps them beside the
 * tokens so that graft fmt can print them again (note [comment
 * placement] in fmt_rules.c). */
typedef struct AstComment {
    size_t begin; /* offset of '#' or of the opening slash */
    size_t end;   /* just past the line's last byte or the closing slash */
} AstComment;

/* One parsed file: its items in source order. */
typedef struct AstFile {
    const Source *src;   /* the text */
    AstItem *items;      /* in order */
    int nitems;          /* entries in items */
    const char **broken; /* names of lets and ops whose declaration had a
                            syntax error (interned): the checker does not
                            report their uses as unknown */
    int nbroken;         /* entries in broken */
    const AstComment *comments; /* every comment, in source order */
    int ncomments;       /* entries in comments */
} AstFile;

/* ---- construction (parser and checker) ---- */

/* A context for building nodes: the arena they live in, the interner for
 * names and the source they come from. */
typedef struct AstBuilder {
    Arena *arena;       /* where nodes go */
    Interner *names;    /* interns every name and string */
    const Source *src;  /* stamped into every node */
    bool onnx;          /* after "opset onnx N": + - * / and unary - are
                           ONNX's Add, Sub, Mul, Div and Neg */
} AstBuilder;

AstNode *ast_new(const AstBuilder *b, AstKind kind, SrcRange range);
/* Appends item to list (growing in the arena). */
void ast_list_push(Arena *arena, AstList *list, AstNode *item);
/* A shallow copy of n (same children), for the checker's derived trees. */
AstNode *ast_clone(Arena *arena, const AstNode *n);
/* Sets n->depth from its children's depths. */
void ast_update_depth(AstNode *n);

/* Calls fn on each direct child of n, in source order: list items, call
 * operands then attributes then copy_from, alternatives left then right,
 * dominates parent, path, child, an AST_ATTR's value, guard operands. */
typedef void (*AstVisitFn)(AstNode *child, void *arg);
void ast_visit_children(const AstNode *n, AstVisitFn fn, void *arg);

/* ---- inspection ---- */

const char *ast_kind_name(AstKind kind);
const char *ast_oper_spelling(AstOper oper);
/* Binding power of a guard operator (higher binds tighter). */
int ast_oper_prec(AstOper oper);
/* True for AST_NUMBER, STRING, BOOL, NONE, DTYPE, and lists of those. */
bool ast_is_literal(const AstNode *n);
/* Structural equality of two literals (numbers by value). */
bool ast_literal_equal(const AstNode *a, const AstNode *b);
/* The op name an infix or negate call stands for: "add", "subtract",
 * "multiply", "divide", "negative"; and back (NULL when it has none). */
const char *ast_infix_spelling(const char *op);
/* op, or for a builder of ONNX rules (AstBuilder.onnx) the ONNX op an
 * operator means ("add" -> "Add"). */
const char *ast_operator_op(const AstBuilder *b, const char *op);

/* ---- canonical printing (note [canonical text]) ---- */

/* Canonical rule text: parse(print(x)) prints as print(x).  One item per
 * line (continuations indented), single spaces around binary operators,
 * ", " between arguments, comments dropped. */
void ast_print_node(StrBuf *out, const AstNode *n);
void ast_print_rule(StrBuf *out, const AstRule *rule);
void ast_print_item(StrBuf *out, const AstItem *item);
void ast_print_file(StrBuf *out, const AstFile *file);
/* For a layout of the canonical text over several lines (fmt_rules.c):
 * n in parentheses when its binding power, ast_print_prec(n), is below
 * need; "NAME[flags] := " of a rule; "let NAME(params) = " of a let. */
void ast_print_node_at(StrBuf *out, const AstNode *n, int need);
int ast_print_prec(const AstNode *n);
/* The index of an AST_GETITEM or AST_INDEX as written: "[0]", "[_]", "[i]". */
void ast_print_index(StrBuf *out, const AstNode *n);
void ast_print_rule_head(StrBuf *out, const AstRule *rule);
void ast_print_let_head(StrBuf *out, const AstLet *let);

#endif
