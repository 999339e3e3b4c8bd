/* emit_c_impl.h - state shared by the C emitter's files (private).
 *
 * Everything is written through emit_line, which indents and wraps, so the
 * output reads like hand-written C and no line passes EMIT_WIDTH columns
 * (emit_c_wrap.c).  Objects of the tables (pattern nodes, expressions)
 * get one name each, kept in a pointer map, so an object reached twice is
 * written once; constant data goes through emit_def, which writes a
 * definition once per distinct content (note [one definition]).  Pattern
 * and expression trees nest no deeper than AST_MAX_DEPTH (ast.h), so the
 * writers recurse.
 */
#ifndef GRAFT_EMIT_C_IMPL_H
#define GRAFT_EMIT_C_IMPL_H

#include <stdarg.h>

#include "emit_c.h"

/* Columns a generated line may use; only a #line directive naming a long
 * path (which cannot be split) or a rule text without a place to break
 * can pass it. */
enum { EMIT_WIDTH = 100 };

/* A set of strings, each with a value: names taken, definitions by
 * content.  Lookups hash the key (KeyMap) and compare it. */
typedef struct StrEntry {
    char *key;    /* malloc'd */
    char *value;  /* malloc'd */
    long next;    /* the next entry of the same hash, or -1 */
} StrEntry;

typedef struct StrTable {
    KeyMap index;        /* hash of a key -> 1 + its last entry */
    VEC(StrEntry) entries; /* in insertion order */
} StrTable;

/* A line of a function being written, kept until its locals are known. */
typedef struct BodyLine {
    int indent;            /* levels of 4 spaces */
    char *text;            /* malloc'd; NULL for a #line directive */
    bool to_rule;          /* a #line into the rule file, else back */
    SrcRange where;        /* to_rule: the line it names */
    const char *file;      /* to_rule: the rule file */
} BodyLine;

typedef struct Emitter {
    FILE *out;                /* the C text */
    const EmitOptions *opts;  /* as given */
    const RuleFile *rf;       /* the checked rules (for #line) */
    const graft_rule_set *rs;        /* the lowered tables */
    int indent;               /* current indent, in levels of 4 spaces */
    long line;                /* lines written so far (for #line back) */
    KeyMap objects;           /* object pointer -> 1 + index in obj_names */
    VEC(char *) obj_names;    /* names of the objects written */
    StrTable taken;           /* every file-scope name, to keep them distinct */
    StrTable suffixes;        /* a name asked of emit_unique -> the k it tries next */
    StrTable defs;            /* "TYPE = INIT" -> the name it was written under */
    VEC(BodyLine) body;       /* lines of the function being written */
    bool in_body;             /* emit_line collects into body */
    size_t defs_before;       /* definitions before the body began */
    /* The rule being written. */
    const char *prefix;       /* its C prefix ("bn", "bn_2") */
    char **vars;              /* per slot: the local naming its binding */
    int nvars;                /* the rule's slots */
    bool *var_used;           /* per slot: read by the function being written */
} Emitter;

/* Writes one line at the current indent (format, then '\n'), wrapped at
 * EMIT_WIDTH; inside a function body (emit_body_begin) it is kept. */
void emit_line(Emitter *E, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* Writes an empty line. */
void emit_blank(Emitter *E);
/* Opens a static table: "static const TYPE NAME[] = {", its elements'
 * lines then written one level in, to emit_table_end: "};" one level
 * out, then an empty line. */
void emit_table_start(Emitter *E, const char *type, const char *name);
void emit_table_end(Emitter *E);
/* Writes text (one line, no '\n') starting at column col, broken into
 * lines of at most EMIT_WIDTH columns (emit_c_wrap.c). */
void emit_wrapped(Emitter *E, int col, const char *text);
/* Writes text (lines) inside a comment as it is, tabs expanded, a line
 * wider than EMIT_WIDTH broken between words (or inside a long word after
 * a '(' or ',') and continued 4 columns deeper than it starts. */
void emit_verbatim(Emitter *E, const char *text);

/* A function's body: emit_body_begin makes emit_line and the #line
 * helpers collect lines (definitions made meanwhile still go out at once,
 * ahead of the function); emit_body_end writes what was collected. */
void emit_body_begin(Emitter *E);
void emit_body_end(Emitter *E);

/* The name of obj, or NULL when not written yet; emit_name_new records a
 * fresh name "PREFIX_KIND_WHAT" for obj, a tree node, and returns it:
 * what it stands for (its variable, its op, else its kind) rather than a
 * number, so that a reader of the C knows the node by its name
 * ("bn_pat_x", "bn_pat_nn_conv2d"), equal ones told apart by emit_unique
 * (_2, _3). */
const char *emit_name_get(const Emitter *E, const void *obj);
const char *emit_name_new(Emitter *E, const void *obj, const char *kind, const char *what);
/* name made a C identifier (start before a name that cannot begin one),
 * appended to sb. */
void emit_ident(StrBuf *sb, const char *start, const char *name);
/* A file-scope name not taken yet: want, or want_2, want_3, ...; kept
 * in E->taken and returned from there. */
const char *emit_unique(Emitter *E, const char *want);

/* note [one definition]: constant data (attribute values, id lists, slot
 * names, ...) is written "static const TYPE NAME[] = INIT;" only for the
 * first content: a second identical TYPE and INIT gets the first NAME.
 * Lines in init after '\n' are indented one level.  array adds "[]";
 * hint names a new definition (made unique).  Returns the name. */
const char *emit_def(Emitter *E, const char *type, bool array, const char *hint,
                     const char *init);
/* The declared attributes of new call x, written once (emit_c_tables.c). */
const char *emit_decls(Emitter *E, const graft_expr *x);

void strtable_free(StrTable *t);
/* key's value, or NULL. */
const char *strtable_get(const StrTable *t, const char *key);
/* Adds key -> value (copies both); key must be new. */
void strtable_put(StrTable *t, const char *key, const char *value);

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

/* Which rules each item and node test belongs to (emit_c_refs.c), for
 * the pointer comments "RULE (FILE:LINE)" on table entries. */
typedef struct EmitRefs {
    int *item_first;    /* per item: the first rule using it, -1 for none */
    int *item_line;     /* per item: the line of its first use */
    int *item_count;    /* per item: how many rules use it */
    int *pred_first;    /* the same per node test */
    int *pred_line;
    int *pred_count;
} EmitRefs;

void emit_refs_init(EmitRefs *refs, const graft_rule_set *rs);
void emit_refs_free(EmitRefs *refs);
/* "RULE (FILE:LINE)", and " and N more rules" when shared, to sb. */
void emit_ref_text(const graft_rule_set *rs, int rule, int line, int count, StrBuf *sb);

/* The tables (emit_c_tables.c). */
void emit_preds(Emitter *E, const EmitRefs *refs);
/* The compiled attribute tests and their table "attr_tests"
 * (emit_c_tests.c); false when the rule set has none. */
bool emit_attr_tests(Emitter *E, const EmitRefs *refs);
void emit_items(Emitter *E, const EmitRefs *refs);
/* A rule set for ONNX: the table of the ops its rule files declare
 * (emit_c_ops.c); its name, or NULL for rules for Relay. */
const char *emit_onnx_ops(Emitter *E);
/* The automaton's index (emit_c_index.c, note [compiled index] in
 * graft_rules.h): its tables, then the graft_automaton_index; its name. */
const char *emit_automaton_index(Emitter *E);
/* The automaton's states and transitions (emit_c_states.c, note
 * [compiled states] in graft_rules.h), ops the index's op names; the
 * name of their graft_automaton_states, "NULL" when none are written. */
const char *emit_automaton_states(Emitter *E, const char *const *ops);
/* One attribute value / pattern tree / expression tree: writes its
 * definitions (parts first) and returns its name. */
const char *emit_attr_value(Emitter *E, const graft_attr_value *v);
const char *emit_pattern(Emitter *E, const graft_pat *p);
const char *emit_expr(Emitter *E, const graft_expr *x, const char *kind);
/* The roots of a rule of several (graft_rule.roots): the later roots'
 * pattern trees, then the table; returns its name (malloc'd). */
char *emit_roots(Emitter *E, const graft_rule *rule, const char *first);

/* Compiled guards (emit_c_guard.c) and actions (emit_c_action.c): write
 * the function of rule r and return its name (malloc'd), or NULL when the
 * rule has none (the runtime then interprets the rule's tree). */
char *emit_guard_fn(Emitter *E, uint32_t r);
char *emit_build_fn(Emitter *E, uint32_t r);
char *emit_build_roots_fn(Emitter *E, uint32_t r);
/* The table of the attributes a compiled action of rule r gives bound
 * variables (graft_slot_attr), its name, or NULL when there are none;
 * *n its rows. */
char *emit_slot_attrs(Emitter *E, uint32_t r, int *n);

/* The frame of those functions (emit_c_fn.c). */
/* The function being finished: what emit_fn_finish writes. */
typedef struct FnHead {
    const char *comment;  /* what it computes, for the comment above it */
    const char *hint;     /* the name wanted */
    const char *ret;      /* return type, "bool" or "graft_node *" */
    const char *params;   /* "(const graft_graph *g, const graft_binding *b)" */
    int nslots;           /* the rule's slots: candidates for locals */
} FnHead;
/* The local naming the binding of slot in the function being written,
 * marked as read (its declaration is written by emit_fn_finish). */
const char *emit_var(Emitter *E, int slot);
/* Ends a function whose statements emit_body_begin collected and returns
 * its name (malloc'd); one identical to a function written before is not
 * written again (note [one definition]). */
char *emit_fn_finish(Emitter *E, const FnHead *h);
/* #line to the rule file around user code, and back to the C file. */
void emit_line_to_rule(Emitter *E, const SrcRange *where, const char *file);
/* printf's text, malloc'd. */
char *emit_vformat(const char *fmt, va_list ap);
void emit_line_back(Emitter *E);

#endif
