/* registry.h - the op registry: which ops exist and what they take.
 *
 * The registry is built from op declarations (AstOpDecl), first those of
 * stdpatterns/ops.graft (compiled into graft as tables:
 * note [compiled registry] in registry_tables.h), then those of the rule
 * files.  For each op it records the operand count, the attributes with
 * their kinds and TVM v0.14 default values, and traits: commutative
 * (match either operand order), elementwise, broadcast.
 *
 * note [attribute defaults]: TVM's printer leaves out attributes that have
 * their default value, so a pattern's attribute constraint must compare
 * against the default when the attribute is absent from a node.  The
 * registry keeps each default as a literal AST node (AstAttrInfo.dflt),
 * and its canonical text (dflt_text).
 *
 * A Registry is owned by the RuleFile (rulefile.h) it was built for; its
 * OpInfo pointers stay valid until rulefile_free.
 */
#ifndef GRAFT_REGISTRY_H
#define GRAFT_REGISTRY_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Op traits (OpInfo.traits), usable as op classes: <elementwise>(x). */
#define OP_TRAIT_LIST(X)                                                     \
    X(TRAIT_COMMUTATIVE, "commutative", 1u) /* f(a, b) == f(b, a) */         \
    X(TRAIT_ELEMENTWISE, "elementwise", 2u) /* same shape in and out */      \
    X(TRAIT_BROADCAST, "broadcast", 4u)     /* numpy broadcasting (kBroadcast) */ \
    X(TRAIT_REDUCE, "reduce", 8u)           /* reduces along axes */         \
    X(TRAIT_INJECTIVE, "injective", 16u)    /* each output element one of  \
                                               the input's (reshape) */     \
    X(TRAIT_OUT_FUSABLE, "out_elemwise_fusable", 32u) /* element-wise ops \
                                               fuse into its output */      \
    X(TRAIT_OPAQUE, "opaque", 64u)          /* fuses with nothing */

typedef enum OpTrait {
#define OP_TRAIT_ENUM(trait, word, bit) trait = bit,
    OP_TRAIT_LIST(OP_TRAIT_ENUM)
#undef OP_TRAIT_ENUM
} OpTrait;

enum { OP_VARIADIC = -1 }; /* OpInfo.max_args of an op with "args..." */

/* Declared kind of an attribute. */
typedef enum AttrType {
    ATYPE_INT,    /* int: 1, -1 */
    ATYPE_FLOAT,  /* float: 1e-05 */
    ATYPE_BOOL,   /* bool: True, False */
    ATYPE_STR,    /* str: "NCHW" */
    ATYPE_DTYPE,  /* dtype: "float32" or "" (printed as a string) */
    ATYPE_INTS,   /* ints: [1, 1] (TVM prints these as lists) */
    ATYPE_FLOATS, /* floats: [0.5, 1.5] */
    ATYPE_INT_OR_NONE,  /* int_or_none: 8 or None (conv2d's channels) */
    ATYPE_INTS_OR_NONE, /* ints_or_none: [3, 3] or None (kernel_size) */
    ATYPE_ANY,    /* any: no check (None, an int or a list: units, axis) */
    ATYPE_TENSOR, /* tensor: ONNX's TENSOR attribute (no literal default) */
    ATYPE_GRAPH,  /* graph: ONNX's GRAPH attribute (If's branches) */
    ATYPE_STRS,   /* strs: ["a", "b"] (ONNX's STRINGS) */
} AttrType;

typedef struct OpAttrInfo {
    const char *name;      /* interned attribute name */
    AttrType type;         /* declared kind */
    const AstNode *dflt;   /* default value (a literal), NULL if none */
    const char *dflt_text; /* canonical text of dflt ("[1, 1]", "\"NCHW\"",
                              "None"), NULL if none */
    int since;             /* ONNX: the opset version that added it, or 0 */
} OpAttrInfo;

struct OpInfo {
    const char *name;         /* interned, e.g. "nn.conv2d" */
    int min_args;             /* required operands */
    int max_args;             /* most operands, OP_VARIADIC for no limit */
    unsigned traits;          /* OpTrait bits */
    const OpAttrInfo *attrs;  /* declared attributes, in declaration order */
    int nattrs;               /* entries in attrs */
    const AstOpDecl *decl;    /* the declaration (for "declared here" notes) */
    int index;                /* position in the registry (declaration order) */
    int outputs;              /* AST_OUTPUTS_TENSOR, N (a tuple of N), or
                                 AST_OUTPUTS_VARIES (note [output arity]) */
    bool onnx;                /* an ONNX op (note [onnx op clauses] in
                                 rules_build_items.c), else Relay's */
    const char *domain;       /* ONNX: its domain, NULL for the default */
    int since;                /* ONNX: the opset version declared, or 0 */
};

typedef struct Registry Registry;

/* note [target IR]: a registry holds Relay's ops and, once a rule file
 * says "opset onnx N", ONNX's too (stdpatterns/onnx_ops.graft's table,
 * loaded then), but finds only those of the IR its rules are for: Relay's until
 * registry_set_onnx.  A name is declared once across both (ONNX spells
 * its ops in CamelCase, Relay in lower case). */
void registry_set_onnx(Registry *reg, int opset);
/* Whether the rules are for ONNX, and their opset (0 for Relay). */
int registry_onnx_opset(const Registry *reg);
/* The op of that name of either IR, or NULL. */
const OpInfo *registry_find_any(const Registry *reg, const char *name);
/* For an op of the other IR: the name of its counterpart in the target
 * IR (the 'relay "..."' clause of an ONNX op, read both ways), or NULL. */
const char *registry_counterpart(const Registry *reg, const OpInfo *other);

Registry *registry_new(Arena *arena, Interner *names);
/* A copy of from that declarations add to without changing from: its ops
 * stay from's (from, its arena and its interner must outlive the copy;
 * names is a clone of from's interner, interner_clone). */
Registry *registry_clone(const Registry *from, Arena *arena, Interner *names);
void registry_free(Registry *reg);

/* Adds the op declared by decl.  A second declaration of a name already
 * present is an error (reported through d) unless it is identical; then
 * returns false. */
bool registry_declare(Registry *reg, const AstOpDecl *decl, graft_diag *d);

/* The op of that name of the target IR (note [target IR]), or NULL. */
const OpInfo *registry_find(const Registry *reg, const char *name);
int registry_count(const Registry *reg);
/* Ops in declaration order. */
const OpInfo *registry_op(const Registry *reg, int i);
/* The declared op closest in spelling to name (for "did you mean"), or
 * NULL when none is close. */
const char *registry_suggest(const Registry *reg, const char *name);
/* The declared op closest in spelling to name, however far (an unknown
 * op in a model names it); NULL only for an empty registry. */
const char *registry_nearest(const Registry *reg, const char *name);
/* The attribute of op closest in spelling to name (kernal_size, grups,
 * kernel for kernel_size), or NULL when none is close. */
const char *registry_suggest_attr(const OpInfo *op, const char *name);

/* Attribute of op by name, or NULL. */
const OpAttrInfo *opinfo_find_attr(const OpInfo *op, const char *name);
bool opinfo_has_trait(const OpInfo *op, OpTrait trait);
/* Whether n operands are acceptable. */
bool opinfo_accepts_nargs(const OpInfo *op, int n);
/* Whether a call of op can match an op class's operands and attributes:
 * n operands, or n and more when more ("..."); every attribute named. */
bool opinfo_accepts_pattern(const OpInfo *op, int n, bool more, const AstList *attrs);

/* Trait bit by word ("elementwise"), 0 when unknown. */
unsigned registry_trait_by_name(const char *word);
const char *registry_trait_name(unsigned bit);
/* Fills out (caller-allocated, registry_count entries) with the ops that
 * have every trait in mask, in declaration order; returns how many. */
int registry_class_ops(const Registry *reg, unsigned mask, const OpInfo **out);

/* Attribute kind by word ("ints"); false when unknown. */
bool registry_attr_type(const char *word, AttrType *out);
const char *registry_attr_type_name(AttrType type);
/* Whether literal lit is a valid value of an attribute of type t. */
bool registry_value_fits(AttrType t, const AstNode *lit);
/* The same for a model's attribute value (as TVM prints it: a map or
 * other opaque value fits any kind, an integer fits a float). */
bool registry_model_value_fits(AttrType t, const graft_attr_value *v);

#endif
