/* rules_build.h - node builders called by the rule grammar's actions.
 *
 * Each builder makes one AST node (ast.h) from what a production saw, with
 * the production's range; none resolves names or checks meaning (that is
 * check.h's job).  The few that can fail on syntax alone (an index that is
 * not an integer, an unknown constraint word, a flag other than priority
 * or once) report through the parse context and still return a node, so
 * parsing goes on.
 */
#ifndef GRAFT_RULES_BUILD_H
#define GRAFT_RULES_BUILD_H

#include "ast.h"
#include "rules_lex.h"

/* Arguments of a call while they are parsed. */
typedef struct ArgsAcc {
    AstList args;       /* positional operands */
    AstList attrs;      /* AST_ATTR nodes */
    bool ellipsis;      /* "..." seen */
    AstNode *copy_from; /* "**c" seen */
    AstNode *rest;      /* tuple patterns: "name..." seen (an AST_VAR) */
} ArgsAcc;

/* One entry between the parentheses of an op declaration. */
typedef struct ParamAcc {
    bool is_attr;      /* "name: type [= default]" rather than an operand */
    const char *name;  /* operand or attribute name */
    SrcRange range;    /* the whole entry */
    const char *type;  /* attribute type word */
    AstNode *dflt;     /* attribute default, or NULL */
    bool optional;     /* operand "name?" */
    bool variadic;     /* operand "name..." */
    int since;         /* attribute "... since N" (ONNX), 0 when absent */
} ParamAcc;

/* The "-> tuple(N)" of an op declaration while it is parsed. */
typedef struct OutputsAcc {
    const char *word;  /* "tuple" as written, NULL when absent */
    const char *count; /* N as written, NULL for "..." */
    bool varies;       /* "tuple(...)" */
    SrcRange range;    /* the whole "-> tuple(N)" */
} OutputsAcc;

/* Refuses trees deeper than ctx->max_depth (note [nesting bound]). */
bool build_depth_ok(RulesParseCtx *ctx, AstNode *n);
/* After error recovery: forget per-item state. */
void build_recovered(RulesParseCtx *ctx);
void build_syntax_error(RulesParseCtx *ctx, SrcRange loc, const char *unexpected,
                        bool at_sep, const char *const *expected, int nexpected);

/* Leaves. */
AstNode *build_var(const AstBuilder *b, const char *name, SrcRange range);
AstNode *build_number(const AstBuilder *b, const char *text, bool negative,
                      SrcRange range);
AstNode *build_string(const AstBuilder *b, const char *text, SrcRange range);
AstNode *build_bool(const AstBuilder *b, bool value, SrcRange range);
AstNode *build_dtype(const AstBuilder *b, const char *name, SrcRange range);
/* A scalar as TVM prints it (0.643f, 2i64, 1f16), or True/False in a
 * pattern: a constant of that value and dtype. */
AstNode *build_typed_number(const AstBuilder *b, const char *text, bool negative,
                            SrcRange range);
AstNode *build_typed_bool(const AstBuilder *b, bool value, SrcRange range);
AstNode *build_list(const AstBuilder *b, AstList items, SrcRange range);

/* Patterns and actions. */
AstNode *build_alt(const AstBuilder *b, AstNode *l, AstNode *r, SrcRange range);
AstNode *build_infix(const AstBuilder *b, const char *op, AstNode *l, AstNode *r,
                     SrcRange range);
AstNode *build_negate(const AstBuilder *b, AstNode *operand, SrcRange range);
AstNode *build_bind(const AstBuilder *b, const char *name, SrcRange name_range,
                    AstNode *operand, SrcRange range);
/* (callee)(args): a call whose callee is a pattern (check_expand.c). */
AstNode *build_callpat(const AstBuilder *b, AstNode *callee, const ArgsAcc *args,
                       SrcRange range);
/* op add:<broadcast>: an op value's trait (a callee's). */
AstNode *build_trait_constraint(const AstBuilder *b, const char *trait, SrcRange range);
/* p[_]: an element of any index. */
AstNode *build_getitem_any(const AstBuilder *b, AstNode *base, SrcRange range);
/* p[i]: an element of any index, bound to the index variable i. */
AstNode *build_getitem_var(const AstBuilder *b, AstNode *base, const char *name,
                           SrcRange name_range, SrcRange range);
AstNode *build_getitem(RulesParseCtx *ctx, AstNode *base, const char *num,
                       SrcRange num_range, SrcRange range);
AstNode *build_tuple(const AstBuilder *b, AstList items, bool ellipsis, SrcRange range);
/* p & q & r: a rule's roots (AstNode.u.list.roots). */
AstNode *build_roots(const AstBuilder *b, AstList roots, SrcRange range);
AstNode *build_tuple_from(const AstBuilder *b, AstNode *first, const ArgsAcc *rest,
                          SrcRange range);
AstNode *build_call(const AstBuilder *b, AstKind kind, const char *name,
                    SrcRange name_range, const ArgsAcc *args, SrcRange range);
AstNode *build_unary_op(const AstBuilder *b, AstKind kind, const char *name,
                        SrcRange name_range, AstNode *operand, SrcRange range);
/* op NAME: the op as a value. */
AstNode *build_opvalue(const AstBuilder *b, const char *name, SrcRange name_range,
                       SrcRange range);
/* fn (params) { body }; if (c) { t } else { e } and let v = value; body
 * (kind AST_IF or AST_LETIN, the three parts in that order). */
AstNode *build_fnlit(const AstBuilder *b, const ArgsAcc *params, AstNode *body,
                     SrcRange range);
AstNode *build_scope(const AstBuilder *b, AstKind kind, AstNode *x, AstNode *y, AstNode *z,
                     SrcRange range);
/* x... and x[lo:hi]... in an action's tuple or call operands. */
AstNode *build_slice(const AstBuilder *b, AstNode *operand, const char *lo, const char *hi,
                     bool hi_negative, bool has_hi, SrcRange range);
AstNode *build_splice(const AstBuilder *b, AstNode *operand, SrcRange range);
AstNode *build_fncall(const AstBuilder *b, const AstList *attrs, SrcRange fn_range,
                      const ArgsAcc *args, SrcRange range);
AstNode *build_dominates(const AstBuilder *b, AstNode *parent, AstNode *path,
                         AstNode *child, SrcRange range);
AstNode *build_attr(const AstBuilder *b, const char *name, SrcRange name_range,
                    AstNode *value, SrcRange range);
void build_args_add(RulesParseCtx *ctx, ArgsAcc *acc, AstNode *arg);
void build_args_ellipsis(RulesParseCtx *ctx, ArgsAcc *acc, SrcRange where);
void build_args_copy(RulesParseCtx *ctx, ArgsAcc *acc, AstNode *var);
AstNode *build_partition(const AstBuilder *b, AstList attrs, SrcRange range);

/* Constraints: returned without operand; build_constrain attaches it. */
AstNode *build_constraint(RulesParseCtx *ctx, const char *word, SrcRange range,
                          AstNode *arg);
AstNode *build_dtype_constraint(const AstBuilder *b, const char *dtype, SrcRange range);
AstNode *build_tensor_constraint(RulesParseCtx *ctx, const AstList *dims,
                                 const char *dtype, SrcRange range);
AstNode *build_constrain(AstNode *operand, AstNode *constraint, SrcRange range);

/* Guards. */
AstNode *build_binary(const AstBuilder *b, AstOper oper, AstNode *l, AstNode *r,
                      SrcRange range);
AstNode *build_unary(const AstBuilder *b, AstOper oper, AstNode *operand, SrcRange range);
AstNode *build_index(RulesParseCtx *ctx, AstNode *base, const char *num,
                     SrcRange num_range, SrcRange range);
AstNode *build_query(const AstBuilder *b, const char *name, SrcRange name_range,
                     const AstList *args, SrcRange range);

/* Items: each adds one AstItem to ctx. */
void build_rule(RulesParseCtx *ctx, const char *name, SrcRange name_range,
                const AstList *flags, AstNode *pattern, AstNode *guard,
                AstNode *action, SrcRange range);
AstOpDecl *build_opdecl_new(const AstBuilder *b);
void build_opdecl_param(RulesParseCtx *ctx, AstOpDecl *decl, const ParamAcc *p);
/* Records the declared outputs of decl (reports a bad "-> ..."). */
void build_opdecl_outputs(RulesParseCtx *ctx, AstOpDecl *decl, const OutputsAcc *o);
void build_opdecl_finish(RulesParseCtx *ctx, AstOpDecl *decl, const char *name,
                         SrcRange name_range, const AstList *traits);
void build_let(RulesParseCtx *ctx, const char *name, SrcRange name_range,
               const AstList *params, bool has_parens, AstNode *body);
void build_include(RulesParseCtx *ctx, const char *path, SrcRange range);
/* "since N" after an attribute of an ONNX op (note [onnx op clauses]). */
void build_param_since(RulesParseCtx *ctx, ParamAcc *p, const char *word, SrcRange range,
                       const char *number);
/* The number of an op's "since N" clause. */
AstNode *build_clause_number(RulesParseCtx *ctx, const char *number, SrcRange range);
/* opset onnx 17 */
void build_opset(RulesParseCtx *ctx, const char *ir, SrcRange ir_range, const char *version,
                 SrcRange version_range);

#endif
