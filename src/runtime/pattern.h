/* pattern.h - the lowered form of rules that the matcher runtime interprets.
 *
 * The rule compiler (lower.c) turns checked rules into these plain tables;
 * the C emitter writes the same tables as static initialisers.  Their
 * definitions are public (graft_rules.h), since generated C is written
 * against them; this header gives them the runtime's names and adds what
 * only the runtime uses.  Everything
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

#include "graft_rules.h"
#include "graph.h"
#include "util.h"

/* The runtime's names for the tables of graft_rules.h (note [public
 * names] in graft.h), which documents them. */
typedef graft_pred_kind PredKind;
#define PRED_IS_CONST GRAFT_PRED_IS_CONST
#define PRED_IS_VAR GRAFT_PRED_IS_VAR
#define PRED_VAR_NAME GRAFT_PRED_VAR_NAME
#define PRED_DTYPE GRAFT_PRED_DTYPE
#define PRED_RANK GRAFT_PRED_RANK
#define PRED_SHAPE GRAFT_PRED_SHAPE
#define PRED_VALUE GRAFT_PRED_VALUE
#define PRED_OP_VALUE GRAFT_PRED_OP_VALUE
#define PRED_ATTR GRAFT_PRED_ATTR
typedef graft_pred PatPred;

typedef graft_item_kind PatItemKind;
#define PITEM_ANY GRAFT_PITEM_ANY
#define PITEM_OP GRAFT_PITEM_OP
#define PITEM_FNCALL GRAFT_PITEM_FNCALL
#define PITEM_TUPLE GRAFT_PITEM_TUPLE
#define PITEM_GETITEM GRAFT_PITEM_GETITEM
#define PITEM_ALT GRAFT_PITEM_ALT
#define PITEM_STAR GRAFT_PITEM_STAR
#define PITEM_DOMPATH GRAFT_PITEM_DOMPATH
#define PITEM_DOMREACH GRAFT_PITEM_DOMREACH
#define PITEM_DOM GRAFT_PITEM_DOM
#define PITEM_CALL GRAFT_PITEM_CALL
#define PITEM_FN GRAFT_PITEM_FN
#define PITEM_IF GRAFT_PITEM_IF
#define PITEM_LET GRAFT_PITEM_LET
typedef graft_item PatItem;

typedef graft_pat_kind PatKind;
#define PAT_ANY GRAFT_PAT_ANY
#define PAT_OP GRAFT_PAT_OP
#define PAT_FNCALL GRAFT_PAT_FNCALL
#define PAT_TUPLE GRAFT_PAT_TUPLE
#define PAT_GETITEM GRAFT_PAT_GETITEM
#define PAT_ALT GRAFT_PAT_ALT
#define PAT_STAR GRAFT_PAT_STAR
#define PAT_DOM GRAFT_PAT_DOM
#define PAT_CALL GRAFT_PAT_CALL
#define PAT_FN GRAFT_PAT_FN
#define PAT_IF GRAFT_PAT_IF
#define PAT_LET GRAFT_PAT_LET
typedef graft_attr_bind PatAttrBind;
typedef graft_pat PatNode;

typedef graft_expr_kind ExprKind;
#define EXPR_NUM GRAFT_EXPR_NUM
#define EXPR_STR GRAFT_EXPR_STR
#define EXPR_BOOL GRAFT_EXPR_BOOL
#define EXPR_SLOT GRAFT_EXPR_SLOT
#define EXPR_LIST GRAFT_EXPR_LIST
#define EXPR_DTYPE GRAFT_EXPR_DTYPE
#define EXPR_CALL GRAFT_EXPR_CALL
#define EXPR_TUPLE GRAFT_EXPR_TUPLE
#define EXPR_GETITEM GRAFT_EXPR_GETITEM
#define EXPR_NOT GRAFT_EXPR_NOT
#define EXPR_AND GRAFT_EXPR_AND
#define EXPR_OR GRAFT_EXPR_OR
#define EXPR_CMP GRAFT_EXPR_CMP
#define EXPR_ARITH GRAFT_EXPR_ARITH
#define EXPR_USERS GRAFT_EXPR_USERS
#define EXPR_RANK GRAFT_EXPR_RANK
#define EXPR_DTYPEOF GRAFT_EXPR_DTYPEOF
#define EXPR_SHAPE GRAFT_EXPR_SHAPE
#define EXPR_VALUE GRAFT_EXPR_VALUE
#define EXPR_ATTR GRAFT_EXPR_ATTR
#define EXPR_OPREF GRAFT_EXPR_OPREF
#define EXPR_CALLEE GRAFT_EXPR_CALLEE
#define EXPR_SPLICE GRAFT_EXPR_SPLICE
typedef graft_cmp_op CmpOp;
#define CMP_EQ GRAFT_CMP_EQ
#define CMP_NE GRAFT_CMP_NE
#define CMP_LT GRAFT_CMP_LT
#define CMP_LE GRAFT_CMP_LE
#define CMP_GT GRAFT_CMP_GT
#define CMP_GE GRAFT_CMP_GE
typedef graft_attr_src AttrSrc;
#define ASRC_EXPR GRAFT_ASRC_EXPR
#define ASRC_COPY GRAFT_ASRC_COPY
typedef graft_attr_decl PatAttrDecl;
typedef graft_act_attr PatActAttr;
typedef graft_expr PatExpr;

typedef graft_guard_kind GuardKind;
#define GV_UNKNOWN GRAFT_GV_UNKNOWN
#define GV_NUM GRAFT_GV_NUM
#define GV_STR GRAFT_GV_STR
#define GV_ATTR GRAFT_GV_ATTR
#define GV_DIMS GRAFT_GV_DIMS
#define GV_LIST GRAFT_GV_LIST
typedef graft_guard_val GuardVal;

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
 * after the declared ones.  A declared attribute without default that
 * the action leaves out gets None, the value TVM's attribute struct holds
 * for such a field and prints (transpose(%x, axes=None)).  Rearranges
 * attrs[0..n) in place, which has room for n + ndecls, and returns how
 * many there are now. */
int pattern_attrs_canonical(Attr *attrs, int n, const PatAttrDecl *decls, int ndecls);
/* The same when the names of attrs and decls are interned in one table
 * (a graph's): names compared by pointer (note [names interned once] in
 * rewrite_build.c). */
int pattern_attrs_canonical_interned(Attr *attrs, int n, const PatAttrDecl *decls, int ndecls);

/* note [callee variables]: f(x, ...) is a call whose callee f binds
 * (TVM's CallPattern with a pattern as its op).  The slot of f holds the
 * call where f matched first (a PAT_CALL with callee = slot + 1); for an
 * op call f stands for the op, for a call of a function value for that
 * function.  f again in the pattern wants a call of the same callee
 * (pattern_same_callee); f(y, ...) in the action calls it (EXPR_CALLEE). */
bool pattern_same_callee(const Node *x, const Node *y);
/* Whether slot is a callee variable of the pattern rooted at root. */
bool pattern_is_callee_slot(const PatNode *root, int slot);

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
