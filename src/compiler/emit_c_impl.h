/* emit_c_impl.h - state shared by the C emitter's files (private).
 *
 * Everything is written through emit_line, which indents, so the output
 * reads like hand-written C.  Objects of the tables (pattern nodes,
 * expressions, attribute values) get one name each, kept in a pointer map,
 * so an object reached twice is written once.  Pattern and expression
 * trees nest no deeper than AST_MAX_DEPTH (ast.h), so the writers recurse.
 */
#ifndef GRAFT_EMIT_C_IMPL_H
#define GRAFT_EMIT_C_IMPL_H

#include "emit_c.h"

/* Object pointer -> the C name it was written under. */
typedef struct NameMap {
    const void **keys;  /* NULL = empty */
    char **names;       /* malloc'd names */
    size_t cap;         /* power of two */
    size_t count;       /* used */
} NameMap;

typedef struct Emitter {
    FILE *out;                /* the C text */
    const EmitOptions *opts;  /* as given */
    const RuleFile *rf;       /* the checked rules (for #line) */
    const RuleSet *rs;        /* the lowered tables */
    int indent;               /* current indent, in levels of 4 spaces */
    long line;                /* lines written so far (for #line back) */
    NameMap names;            /* objects written so far */
    char **prefixes;          /* per rule: its C prefix ("bn", "bn_2") */
    const char *prefix;       /* the rule being written */
    int counter;              /* numbering of the current rule's objects */
} Emitter;

/* Writes one line at the current indent (format, then '\n'). */
void emit_line(Emitter *E, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* Writes an empty line. */
void emit_blank(Emitter *E);
/* The name of obj, or NULL when not written yet; emit_name_set records a
 * fresh name "PREFIX_KIND<N>" and returns it. */
const char *emit_name_get(const Emitter *E, const void *obj);
const char *emit_name_new(Emitter *E, const void *obj, const char *kind);
void emit_names_free(NameMap *m);

/* C literal text, appended to out: a quoted string ("NULL" for NULL);
 * a double that reads back exactly. */
void emit_c_string(StrBuf *out, const char *s);
void emit_c_double(StrBuf *out, double f);
/* A quoted string / double as a temporary (valid until the next call with
 * the same buf). */
const char *emit_str(StrBuf *buf, const char *s);
const char *emit_dbl(StrBuf *buf, double f);
/* Source text safe inside a C comment ("*" "/" broken up), to out. */
void emit_comment_text(StrBuf *out, const char *s);

/* The tables (emit_c_tables.c). */
void emit_preds(Emitter *E);
/* The compiled attribute tests and their table "attr_tests"
 * (emit_c_tests.c); false when the rule set has none. */
bool emit_attr_tests(Emitter *E);
void emit_items(Emitter *E);
/* One attribute value / pattern tree / expression tree: writes its
 * definitions (parts first) and returns its name. */
const char *emit_attr_value(Emitter *E, const AttrValue *v);
const char *emit_pattern(Emitter *E, const PatNode *p);
const char *emit_expr(Emitter *E, const PatExpr *x, const char *kind);

/* Compiled guards and actions (emit_c_code.c): write the function of rule
 * r and return its name (malloc'd), or NULL when the rule has none. */
char *emit_guard_fn(Emitter *E, uint32_t r);
char *emit_build_fn(Emitter *E, uint32_t r);
/* #line to the rule file around user code, and back to the C file. */
void emit_line_to_rule(Emitter *E, const SrcRange *where, const char *file);
void emit_line_back(Emitter *E);

#endif
