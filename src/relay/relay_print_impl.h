/* relay_print_impl.h - the Relay printer's state, shared by its files:
 *
 *   relay_print.c         the module: heads, defs in TVM's order, @main, the
 *                         entry points (relay.h)
 *   relay_print_number.c  TVM's temp numbering: the leaf visits, scopes
 *                         and inline results (note [temp numbering])
 *   relay_print_scope.c   texts that hold scopes: functions, let, if, match
 *                         (note [control])
 *   relay_print_text.c    a node's own text: references, calls, tuples,
 *                         attributes, comments, parameters; binding lines
 *
 * The byte tricks of the output are outbuf.h's (note [fast output]).
 */
#ifndef GRAFT_RELAY_PRINT_IMPL_H
#define GRAFT_RELAY_PRINT_IMPL_H

#include "outbuf.h"
#include "relay.h"
#include "relay_names.h"
#include "type_adt.h"
#include "util.h"

enum { NO_TEMP = UINT32_MAX, NO_ROOT = UINT32_MAX };

/* note [printer memory]: what the printer keeps per node id beside its
 * visit state is 8 bytes: a kept text's place and length, 4 bytes each
 * (a constant's reference in consts, a scope-holding text's entry in
 * pending) or, for a call, tuple or getitem, the most its text takes
 * (note [one reservation]); once the node is bound (VISIT_BOUND), its
 * temp in the same bytes (note [temp texts] in relay_names.h), since its
 * own text is printed then and never read again (a pending text's entry
 * keeps its id, for dropping it); for a variable, which is never bound
 * nor kept, its printed name's address, unless names are read from the
 * nodes (note [names as loaded] in relay_names.c; the union is NodeText,
 * in relay_names.h).  (16 bytes, with the lengths and the name's length
 * as size_t and the temp's "%" and length, were 3.04 MB of the
 * partition's peak at 10,000 copies of bench/graft-bench sidebyside.)
 * Before any of that, the names' check borrows the bytes as its table
 * (note [distinct names] in relay_names.c).  So the names keep nothing
 * per id of their own, and a node's string is read from the node where
 * it is printed (the node is read there anyway, for its comment), not
 * kept per id; and the walks read each node's kind and operands from
 * the node itself (note [walks on the nodes] in relay_print_number.c),
 * so that the visit state is the rest: one byte per id. */

/* A text waiting to be used (note [pending texts]), in a buffer of its
 * own. */
typedef struct PendingText {
    uint32_t id;
    StrBuf *text;
} PendingText;

/* A node's leaf-visit state (note [temp numbering]): not visited;
 * visited, its text not printed yet (note [texts written once]);
 * printed; printed in its binding line, and only then is its temp set.
 * A free variable is VISIT_USED once declared; another keeps
 * VISIT_NOT (nothing reads it: it is always inline). */
enum { VISIT_NOT, VISIT_TEXT, VISIT_USED, VISIT_BOUND };

/* One frame of printer_visit_all's walk.  Not a WALK (note [one walk]): a frame
 * keeps where its node's operands to visit end, which for functions,
 * lets, ifs and matches is not where its slots end, so the printer's
 * hottest loop need not look at the node's kind at each step. */
typedef struct Frame {
    const graft_node *n; /* node whose operands are being visited */
    graft_node *const *next; /* its next operand slot to visit */
    graft_node *const *end;  /* past its last slot to visit */
} Frame;

/* The text of the attribute printed last under a name (note [attribute
 * texts] in relay_print_text.c). */
typedef struct AttrText {
    const char *name; /* its name, NULL for none yet */
    int kind;         /* its value's kind, -1 when spelled */
    uint64_t key;     /* its value: its spelling's or string's address,
                         its number or its bits */
    StrBuf text;      /* name=value */
} AttrText;

enum { ATTR_TEXT_BITS = 4 }; /* 16 names' texts kept */

typedef struct Printer {
    const graft_graph *g;     /* graph being printed */
    NodeText *text;     /* per node id: its text's place or bound, then
                           its temp (note [printer memory]) */
    uint8_t *visited;   /* per node id: VISIT_NOT, VISIT_TEXT or VISIT_USED */
    TempSlot next;      /* the next temp (note [counted temps]) */
    VEC(PendingText) pending; /* texts of functions, lets, ifs and
                           matches, in order: as many as wait at once,
                           not a slot per node */
    StrBuf *lines;      /* binding lines of the current scope */
    int level;          /* nesting of the current scope (@main's body: 1) */
    uint32_t root;      /* the expression being printed inline (a scope's
                           result, a let's value: note [control]), or
                           NO_ROOT */
    int root_level;     /* the level root's text is placed at */
    VEC(StrBuf *) spare; /* pending texts' buffers, used and kept for
                           the next */
    VEC(Frame) frames;  /* the stack of printer_visit_all's walks */
    VarNames names;     /* printed names of variables */
    StrBuf *top;        /* the module's text (note [streaming]) */
    FILE *sink;         /* where top goes as it fills, or NULL */
    bool discard;       /* drop top as it fills (temp numbers only) */
    bool types;         /* RELAY_PRINT_TYPES: "ty=" from node types */
    bool comments;      /* some node may print a comment: types, or
                           annotations in the graph (has_comment) */
    AdtTable *adts;     /* the module's constructors, read at the first
                           call without operands */
    StrBuf consts;      /* constants' references (note [constant texts]) */
    AttrText attrs[1 << ATTR_TEXT_BITS]; /* attributes' texts, by name
                           (note [attribute texts] in relay_print_text.c) */
} Printer;

/* Variables, constants, globals and op values print inline. */
static inline bool always_inline(uint8_t kind)
{
    enum { INLINE = 1u << NODE_VAR | 1u << NODE_CONST | 1u << NODE_GLOBAL | 1u << NODE_OPREF };
    return kind < 32 && (INLINE >> kind & 1);
}

/* Node n's string: an op's name, a variable's, global's or op value's
 * name, a constant's spelling (read from the node, which the printer
 * reads then anyway, not kept per id: note [printer memory]). */
static inline const char *node_str(const graft_node *n)
{
    return n->str;
}

/* note [streaming]: @main's binding lines are final once written, so
 * relay_print writes the module's text out every DRAIN_AT bytes instead
 * of holding a second copy of a large model in memory; its buffer is
 * made large enough for that at the start, so that it rarely grows (a
 * grown buffer is a copy). */
enum { DRAIN_AT = 65536 };

/* note [one reservation]: a text's pieces are written through a plain
 * pointer, write_* returning where the next piece goes, into room made
 * once for the whole text: an upper bound of its length, known from its
 * operands before it is written (a name's length, ten digits for a
 * temp).  So the dozen pieces of a binding line cost a copy each and not
 * a bounds check each; what cannot be bounded cheaply (attributes)
 * appends as before, checked. */

/* "%N": at most 11 bytes; TEMP_MAX is the room a temp's text takes
 * (write_temp_slot's "%" and eight bytes copied, note [temp texts] in
 * relay_names.h). */
enum { TEMP_MAX = 12 };

/* A kept text's place or length as its slot keeps it, in 4 bytes (note
 * [printer memory]): a text of 4 GB is past what the printer holds. */
static inline uint32_t kept_u32(size_t n)
{
    if (n > UINT32_MAX)
        out_of_memory();
    return (uint32_t)n;
}

/* A node's comment as it prints (note [printed types]): its pieces and
 * its length, found once and written by printer_write_comment. */
typedef struct Comment {
    const char *type; /* "ty=" and this type, or NULL */
    size_t type_len;
    const char *rest; /* the loaded annotation, or its rest after "ty=" */
    size_t rest_len;
    size_t len;       /* the comment's length, 0 when it prints nothing */
} Comment;

/* Whether node n prints a comment where its text first appears: asked
 * of every node bound, which in a graph built by passes (a partition's
 * or rewrite's, an ONNX model's) none does. */
GRAFT_HOT bool has_comment(const Printer *p, const graft_node *n)
{
    return p->comments && (node_annotation(p->g, n) || (p->types && node_type(n)));
}

/* An op's name's length: the graph interns op names (graph_add_call),
 * and an interned string keeps its length in front of it
 * (interner_length in arena.h), one load where a cache of lengths by
 * name pointer hashed the pointer twice per call printed. */
static inline size_t op_len(const char *op)
{
    return interner_length(op);
}

/* The most bytes node id's text takes (note [one reservation]), a
 * call's attributes apart: a kept text's length, or resolve_kids' bound.
 * Inline: bind asks for every temp. */
GRAFT_HOT size_t printer_text_max(const Printer *p, uint32_t id)
{
    return p->text[id].kept.len;
}

/* The length of variable v's printed name with its "%" (given now when
 * names follow the printing order, note [variable names]). */
GRAFT_HOT size_t name_len(Printer *p, const graft_node *v)
{
    return var_names_len(&p->names, v);
}

/* ---- relay_print_number.c ---- */

/* Step 1 of note [temp numbering] from root, and so step 2 for every
 * node it reaches that was not visited yet. */
void printer_visit_all(Printer *p, const graft_node *root);
/* A node's reference from its user, resolved first (step 2). */
void printer_put_operand(Printer *p, StrBuf *out, const graft_node *m);
/* An expression printed inline where TVM tries to inline it: a scope's
 * result (result: indented, after the scope's lines), a let's value. */
void printer_put_inline(Printer *p, StrBuf *out, const graft_node *root, int level,
                        bool result);
/* A scope: its binding lines, then its result inline (no newline). */
void printer_put_scope(Printer *p, StrBuf *out, const graft_node *root, int level);

/* ---- relay_print_scope.c (note [control]) ---- */

/* "[A, B]" of a function with type parameters (names), nothing without
 * (NULL): TVM's PrintFunc writes them between the prefix and '('. */
void printer_put_type_params(StrBuf *out, const char *names);
/* prefix ["[A, B]"] "(%a, %b, Attr=...) -> T {" body "}": "fn " for a
 * function value, "def @f" for a global (TVM's PrintFunc). */
void printer_put_func(Printer *p, StrBuf *out, const graft_node *n, const char *prefix,
                      int level);
/* A function value's text: printer_put_func's with "fn ". */
void printer_put_fn_value(Printer *p, StrBuf *out, const graft_node *n, int level);
void printer_put_let(Printer *p, StrBuf *out, const graft_node *n, int at);
void printer_put_if(Printer *p, StrBuf *out, const graft_node *n, int level);
void printer_put_match(Printer *p, StrBuf *out, const graft_node *n, int level);

/* ---- relay_print_text.c ---- */

/* Node n's comment (note [printed types]), and it written at at. */
Comment printer_comment(const Printer *p, const graft_node *n);
char *printer_write_comment(char *at, const Comment *c);
/* Node n's comment appended, when it has one. */
void printer_put_annot(const Printer *p, StrBuf *sb, const graft_node *n);
/* "%x: T / * ann * /" for a parameter; params[0..n) with ", " between. */
void printer_put_param(Printer *p, StrBuf *out, const graft_node *v);
void printer_put_params(Printer *p, StrBuf *out, graft_node *const *params, size_t n);
/* "name=value" for each of the nattrs attributes of n, after ", "
 * unless first. */
void printer_put_attrs(Printer *p, StrBuf *sb, const graft_node *n, int nattrs, bool first);
/* "name=value": the value's spelling as loaded, or its printed form. */
void printer_put_attr(Printer *p, StrBuf *sb, const graft_attr *a);
/* Operand m's reference, resolved, at at (room for what
 * resolve_operand bounded). */
char *printer_write_ref(Printer *p, char *at, const graft_node *m);
/* Gives node n the next temp and writes its binding line into the
 * current scope (note [counted temps]). */
void printer_bind(Printer *p, const graft_node *n);
/* A visited node's text appended where it is used. */
void printer_put_text(Printer *p, StrBuf *out, const graft_node *n);

#endif
