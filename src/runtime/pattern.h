/* pattern.h - the lowered form of rules that the matcher runtime interprets.
 *
 * The rule compiler (lower.c) turns checked rules into these plain tables;
 * the C emitter writes the same tables as static initialisers.  Their
 * definitions are public (graft_rules.h), since generated C is written
 * against them, and the runtime uses them by those names; this header adds
 * what only the runtime uses.  Everything here is const data without
 * pointers into an AST, so a compiled rule set
 * and an interpreted one drive the same runtime (note [one runtime]).
 *
 * Three layers, from small to large:
 *  - graft_pred: a test of one node alone (is it a constant? its dtype? an
 *    attribute value?).  Equal tests are shared: one id per distinct test.
 *  - graft_item: a sub-pattern without variable names, hash-consed across all
 *    rules of a rule set.  The automaton's states are sets of items
 *    (note [item sets] in automaton.c).  A child item always has a smaller
 *    id than its parent, so id order is a bottom-up order.
 *  - graft_pat: one rule's pattern tree, each node pointing at its item and
 *    carrying what items leave out: variable slots, attribute bindings.
 * Guards and actions are graft_expr trees over the variable slots.
 */
#ifndef GRAFT_PATTERN_H
#define GRAFT_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "graft_rules.h"
#include "graph.h"
#include "util.h"

/* An attribute value as a guard value: numbers and strings unwrapped,
 * GRAFT_GV_UNKNOWN for NULL (an absent attribute without default). */
graft_guard_val pattern_guard_of_attr(const graft_attr_value *v);
/* A dim as a guard value, shape(x)[i]: a number, GRAFT_GV_UNKNOWN for
 * "?", GRAFT_GV_SYM for a symbol (note [unknown dims] in emit_c_rt.c). */
graft_guard_val pattern_guard_of_dim(int64_t dim);
/* Appends to out the canonical text of v, as pattern_attr_key writes an
 * equal attribute value; "?" for GRAFT_GV_UNKNOWN and GRAFT_GV_SYM.  A GRAFT_GV_LIST must carry its
 * text (s): the interpreter writes its own lists item by item. */
void pattern_guard_key(const graft_guard_val *v, StrBuf *out);
/* Whether the order c of two values (<0, 0, >0) satisfies op. */
bool pattern_cmp_holds(graft_cmp_op op, int c);

/* Appends to out the canonical text of an attribute value, so that equal
 * values compare equal as strings: numbers as "%.17g" whether written 1,
 * 1f or 1.0, strings quoted, lists "[a, b]", None, True/False as 1/0.
 * The one writer of that text: a rule's literal is lowered to a value and
 * written by it (lower_literal_key), a guard's value too when it is an
 * attribute (pattern_guard_key).  (The Relay printer writes a value as
 * Relay spells it, "1f", "True", which is another text, not a key; a
 * guard value that is no value at all prints "?", not None.) */
void pattern_attr_key(const graft_attr_value *v, StrBuf *out);
/* The same canonical text for a number (as "%.17g", -0 as 0) and for the
 * dims of a tensor type ("[1, 3, 224, 224]"): guards compare shapes with
 * list attributes through it, interpreted (match_guard.c) and compiled
 * (emit_c_rt.c) alike. */
void pattern_number_key(double f, StrBuf *out);
void pattern_dims_key(const graft_type *t, StrBuf *out);
/* The same for people (graft explain): a dim named by a symbol by its
 * name in g (note [symbolic dims]), "?" when g is NULL. */
void pattern_dims_text(const graft_graph *g, const graft_type *t, StrBuf *out);
void pattern_dim_symbol_text(const graft_graph *g, int64_t dim, StrBuf *out);

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
 * (graft_expr.decls, from the registry), and the values, known only once a
 * match binds them, are ordered and filtered here.  Attributes the op
 * does not declare (an op the registry lacks) keep their written order,
 * after the declared ones.  A declared attribute without default that
 * the action leaves out gets None, the value TVM's attribute struct holds
 * for such a field and prints (transpose(%x, axes=None)).  Rearranges
 * attrs[0..n) in place, which has room for n + ndecls, and returns how
 * many there are now. */
int pattern_attrs_canonical(graft_attr *attrs, int n, const graft_attr_decl *decls, int ndecls);
/* The same when the names of attrs and decls are interned in one table
 * (a graph's): names compared by pointer (note [names interned once] in
 * rewrite_build_attr.c). */
int pattern_attrs_canonical_interned(graft_attr *attrs, int n, const graft_attr_decl *decls,
                                     int ndecls);

/* note [callee variables]: f(x, ...) is a call whose callee f binds
 * (TVM's CallPattern with a pattern as its op).  The slot of f holds the
 * call where f matched first (a GRAFT_PAT_CALL with callee = slot + 1); for an
 * op call f stands for the op, for a call of a function value for that
 * function.  f again in the pattern wants a call of the same callee
 * (pattern_same_callee); f(y, ...) in the action calls it (GRAFT_EXPR_CALLEE). */
bool pattern_same_callee(const graft_node *x, const graft_node *y);
/* Whether slot is a callee variable of the pattern rooted at root. */
bool pattern_is_callee_slot(const graft_pat *root, int slot);

/* note [pattern operands]: what patterns see as the operands of a node:
 * a call's arguments, a tuple's fields, the tuple of an element access;
 * an if's condition and branches, a let's variable, value and body; a
 * function's body, then its parameters (fn patterns).  Global functions,
 * ops as values and matches have none.  The labeller and the matcher
 * both read them, so states and matches agree. */
int pattern_noperands(const graft_node *n);
graft_node *pattern_operand(const graft_node *n, int i);

/* True when node n passes test p (attribute tests look at n's attributes
 * and fall back on p->dflt). */
bool pattern_pred_holds(const graft_pred *p, const graft_node *n);

/* A node's dtype (its tensor type's, or a scalar constant's), or NULL;
 * its rank (0 for a scalar constant), or -1 when unknown. */
const char *pattern_node_dtype(const graft_node *n);
int pattern_node_rank(const graft_node *n);
/* A number constant (note [one-element constants] in graph.h) as the value of an
 * attribute it is bound to (epsilon=eps): a float for float dtypes, an int
 * otherwise; NULL for any other node. */
const graft_attr_value *pattern_const_attr(graft_graph *g, const graft_node *n);
/* The same for number constant n whose number, value, is read already. */
const graft_attr_value *pattern_number_attr(graft_graph *g, const graft_node *n, double value);

#endif
