/* type_adt.h - the types of ADT values: constructor calls and match.
 *
 * note [ADT types]: a module's type declarations (type List[A] { Cons(A,
 * List[A]), Nil, }) give each constructor its fields' types over the
 * declaration's parameters.  As TVM v0.14's InferType does
 * (tvm/src/relay/transforms/type_infer.cc):
 *  - a constructor call C(a1, ..., an) has type T[B1, ..., Bk], T's
 *    parameters bound by unifying each field's type with its operand's
 *    (VisitExpr_ of ConstructorNode: FuncType(c->inputs, TypeCall(
 *    c->belong_to, type vars)), then the call's unification);
 *  - a match binds its pattern variables from its data's type
 *    (VisitPattern_: a constructor pattern's fields instantiated with the
 *    data's type arguments, a tuple pattern field by field) and has its
 *    clauses' common type (each clause's result unified with it).
 * ADT types are kept as text (TYPE_OTHER, "List[Tensor[(2), float32]]");
 * a type without parameters prints "Pair[]", as TVM prints a TypeCall of
 * no arguments.  The Prelude's List, Option and Tree are known when the
 * module does not declare them.  A parameter nothing binds (a call
 * Cons(Nil, Nil)) leaves the type unknown, where TVM would take it from
 * the context.  A constructor of no fields is a call (Nil, as TVM's parser
 * makes it): untyped, it takes its type from where it is used, the field
 * of a constructor call or a clause of a match whose other clauses have a
 * type, as TVM's unification gives it.
 */
#ifndef GRAFT_TYPE_ADT_H
#define GRAFT_TYPE_ADT_H

#include <stdbool.h>

#include "graph.h"
#include "util.h"

typedef struct AdtTable AdtTable;

/* The declarations of g's module (graph_typedef), and the Prelude's
 * where g declares none of that name.  A declaration that does not parse
 * is left out (its constructors' calls stay untyped). */
AdtTable *adt_table_new(const graft_graph *g);
void adt_table_free(AdtTable *t);

/* Whether the declaration text (a TYPEDEF token: "type NAME[A] { ...
 * }") is well formed: NULL, or the message for the place *off bytes in. */
const char *adt_decl_error(const char *text, size_t len, size_t *off);

/* Whether name is a constructor of t. */
bool adt_is_constructor(const AdtTable *t, const char *name);
/* How many fields constructor name has; -1 when it is none of t's. */
int adt_constructor_fields(const AdtTable *t, const char *name);

/* The type of n, a call of a constructor of t: NULL when unknown, or on
 * a contradiction (why holds the message).  Operands that are untyped
 * calls of constructors without fields get their types from n's. */
const graft_type *adt_call_type(graft_graph *g, const AdtTable *t, const graft_node *n,
                                StrBuf *why);

/* Gives match m's untyped pattern variables their types from the type of
 * m's data.  Returns how many it typed, or -1 on a contradiction (why). */
int adt_bind_patterns(graft_graph *g, const AdtTable *t, graft_node *m, StrBuf *why);

/* The common type of match m's clause results: NULL when one is unknown,
 * or when two differ (why).  An untyped result that is a call of a
 * constructor without fields gets the others' type. */
const graft_type *adt_match_type(graft_graph *g, const AdtTable *t, const graft_node *m,
                                 StrBuf *why);

#endif
