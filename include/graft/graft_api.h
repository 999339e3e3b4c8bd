/* graft_api.h - graft for bindings: rule files loaded at run time, models
 * of either IR from files, text or bytes, and every result in memory
 * (libgraft.so, libgraft.a; doc/api.md).
 *
 * Nothing here keeps global state: each handle owns what it holds, so
 * rule sets, models and diagnostics live side by side, and separate
 * handles may be used from separate threads (one handle, one thread at a
 * time).  Every handle is freed by its one _free call.
 *
 *   graft_diag *d = graft_diag_capture();
 *   graft_rules *r = graft_rules_parse("r.graft", text, strlen(text), NULL, d);
 *   graft_graph *g = graft_model_parse("m.relay", model, strlen(model), NULL, d);
 *   if (r && g && graft_rules_run(r, g, NULL, d)) {
 *       char *out = graft_model_print_string(g);   the rewritten model
 *       ...; graft_string_free(out);
 *   }
 *   for (size_t i = 0; i < graft_diag_count(d); i++) graft_diag_message(d, i)->text
 *   graft_rules_free(r); graft_model_free(g); graft_diag_free(d);
 *
 * examples/api.c is a whole program.
 */
#ifndef GRAFT_GRAFT_API_H
#define GRAFT_GRAFT_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graft.h"

/* ---- diagnostics as structures ---- */

typedef enum graft_severity {
    GRAFT_SEVERITY_ERROR,
    GRAFT_SEVERITY_WARNING,
    GRAFT_SEVERITY_NOTE,
} graft_severity;

/* One diagnostic: where (file NULL and line 0 for one that belongs to no
 * place in a file; file set and line 0 for one about a file as a whole,
 * or about a byte of a binary file: an ONNX model), how bad, what, and
 * the notes that explain it. */
typedef struct graft_message graft_message;
struct graft_message {
    graft_severity severity;
    const char *file;         /* the file's name as given, or NULL */
    int line, column;         /* 1-based start; 0 without a place */
    int end_line, end_column; /* last character, inclusive */
    const char *text;         /* the message, without file:line:col */
    const char *flag;         /* a warning's -W name, or NULL */
    const char *source_line;  /* the line quoted, or NULL */
    size_t nnotes;            /* entries in notes */
    const graft_message *notes; /* the notes that followed it */
    int64_t byte;             /* in a binary file: the offset of the byte
                                 the error is at ("byte N:" on the command
                                 line, not repeated in text); else -1 */
};

/* A diagnostics handle that records instead of printing (graft_diag_new
 * prints).  Messages keep their order; the error limit is off. */
graft_diag *graft_diag_capture(void);
/* Errors and warnings recorded (notes are inside them). */
size_t graft_diag_count(const graft_diag *d);
/* Message i, valid until graft_diag_clear or graft_diag_free; NULL past
 * the end or for a printing handle. */
const graft_message *graft_diag_message(const graft_diag *d, size_t i);
/* Forgets every message and resets the counts. */
void graft_diag_clear(graft_diag *d);

/* Strings libgraft returns (graft_model_print_string, graft_rules_explain)
 * are freed with this. */
void graft_string_free(char *s);

/* ---- models: graft_model_load and graft_model_parse (graft.h) ----
 *
 * Both tell the IR from the first bytes: Relay text (#[version, def @,
 * fn (, type), or ONNX (text: "<" or "ir_version"; anything else that is
 * not text: protobuf bytes, an onnx.ModelProto serialized).  Bad ONNX
 * bytes are reported with file set, line 0 and byte the offset; bad ONNX
 * text at its line and column, as any text. */

typedef enum graft_model_kind {
    GRAFT_MODEL_UNKNOWN,    /* empty, or neither kind's start */
    GRAFT_MODEL_RELAY,      /* Relay text */
    GRAFT_MODEL_ONNX_TEXT,  /* ONNX's text form */
    GRAFT_MODEL_ONNX_BYTES, /* an ONNX protobuf */
} graft_model_kind;

graft_model_kind graft_model_kind_of(const void *data, size_t len);
/* The form a loaded model came in, and graft_model_write writes:
 * GRAFT_MODEL_RELAY, GRAFT_MODEL_ONNX_TEXT or GRAFT_MODEL_ONNX_BYTES. */
graft_model_kind graft_model_form(const graft_graph *g);
/* The model as it now is, written in its form: Relay or ONNX text (with
 * a NUL after it), or ONNX protobuf bytes; *len (when len is not NULL)
 * the bytes, without the NUL.  An ONNX model is written back as it was
 * read but for what rules rewrote (doc/onnx.md).  malloc'd
 * (graft_string_free); NULL after reporting through d. */
void *graft_model_write(const graft_graph *g, size_t *len, graft_diag *d);

/* ---- rule sets loaded at run time ---- */

typedef struct graft_rules graft_rules;

typedef struct graft_load_options {
    const char *const *include_dirs; /* where include "f" looks after the
                                        including file's directory */
    int ninclude_dirs;               /* entries in include_dirs */
    const graft_limits *limits;      /* NULL: the defaults */
} graft_load_options;

/* The rule files paths[0..npaths) as one rule set, or rule text
 * text[0..len) named name (its includes resolve against the current
 * directory, then include_dirs).  opts may be NULL.  NULL after reporting
 * every problem through d; warnings do not fail a load. */
graft_rules *graft_rules_load(const char *const *paths, int npaths,
                              const graft_load_options *opts, graft_diag *d);
graft_rules *graft_rules_parse(const char *name, const char *text, size_t len,
                               const graft_load_options *opts, graft_diag *d);
void graft_rules_free(graft_rules *r);
/* The lowered tables, for graft_rule_count, graft_rule_name and
 * graft_engine_new; owned by r. */
const graft_rule_set *graft_rules_table(const graft_rules *r);

/* ---- running (opts NULL: the defaults; g is edited in place) ---- */

/* Rewrites to a fixpoint, then the partition passes (graft run); only the
 * rewrites; only the partition passes.  In an ONNX model the rewrites
 * apply inside its subgraphs (If's branches, Loop's and Scan's bodies)
 * first, as graft run does; partitions, the main graph only.  False after
 * reporting through d. */
bool graft_rules_run(const graft_rules *r, graft_graph *g, const graft_run_options *opts,
                     graft_diag *d);
bool graft_rules_rewrite(const graft_rules *r, graft_graph *g,
                         const graft_run_options *opts, graft_diag *d);
bool graft_rules_partition(const graft_rules *r, graft_graph *g,
                           const graft_run_options *opts, graft_diag *d);

/* The steps of graft_rules_apply. */
typedef enum graft_step {
    GRAFT_STEP_REWRITE = 1,   /* rewrite to a fixpoint */
    GRAFT_STEP_PARTITION = 2, /* then the partition passes */
} graft_step;

/* One call for a binding: loads the model (the file path when data is
 * NULL, else data[0..len) named path), makes the steps (a set of
 * graft_step bits) and returns it printed, malloc'd (graft_string_free);
 * NULL after reporting through d.  lim bounds the model's loading. */
char *graft_rules_apply(const graft_rules *r, const char *path, const void *data, size_t len,
                        unsigned steps, const graft_run_options *opts, graft_diag *d);
/* The same, the result written in the model's form (graft_model_write):
 * ONNX bytes for ONNX bytes; *out_len its bytes, *form (when not NULL)
 * the form. */
void *graft_rules_apply_model(const graft_rules *r, const char *path, const void *data,
                              size_t len, unsigned steps, const graft_run_options *opts,
                              size_t *out_len, graft_model_kind *form, graft_diag *d);

/* graft explain: why rule (NULL: every rule) does or does not match at
 * the node at ("%7", "%x", ":LINE[:COL]", as graft explain --at takes it;
 * in an ONNX model a subgraph's node too, "then_body/a", named as
 * graft_rules_match names it; NULL: the near misses of rule, which then
 * must be given, in an ONNX model with subgraphs for each graph, each
 * list headed "in subgraph then_body: " or "in the main graph: ").  The
 * text is malloc'd (graft_string_free); NULL after reporting through d. */
char *graft_rules_explain(const graft_rules *r, graft_graph *g, const char *at,
                          const char *rule, const graft_limits *lim, graft_diag *d);

/* ---- matches as structures (graft match) ---- */

/* A variable of a rule and what it holds: a node by name (as graft fmt
 * prints the model, with its position when it has one), or an attribute
 * value by its text. */
typedef struct graft_match_binding {
    const char *var;   /* the rule's variable */
    const char *value; /* "%3", "%x", "1f", or an attribute's text "[1, 1]" */
    bool is_node;      /* value names a node */
    int line, column;  /* the node's position in the model; 0: none */
} graft_match_binding;

typedef struct graft_match {
    const char *rule;   /* the rule's name */
    const char *root;   /* the root node's name */
    const char *kind;   /* the root's op, or call, tuple, getitem, fn, var,
                           const */
    int line, column;   /* the root's position in the model; 0: none */
    size_t nbindings;   /* entries in bindings, in the rule's variable order */
    const graft_match_binding *bindings;
    /* Where the root is, in an ONNX model: the subgraph that holds it, as
     * root's "GRAPH/" names it ("then_body"), the node that holds that
     * subgraph, named as the graph around it names it ("m", or
     * "then_body/n" for a nested one), and the attribute it is in
     * ("then_branch", "body").  All three NULL in the model's main graph. */
    const char *subgraph, *holder, *attribute;
} graft_match;

typedef struct graft_matches graft_matches;

/* Every match in g, as graft match lists them: nodes operands first,
 * rules in file order at each node (the match-steps limit of lim ends a
 * graph's search quietly, as in graft match).  In an ONNX model the
 * matches inside its subgraphs (If's branches, Loop's and Scan's bodies)
 * come first, nested ones before the graph around them, as graft run
 * rewrites them.  A match inside a subgraph is told by its root's name,
 * "GRAPH/NAME": the subgraph's name (the GraphProto's, "subgraph" when it
 * has none, with "_2", "_3", ... when an earlier subgraph took it: note
 * [subgraph node names] in src/runtime/node_label.h), '/', and the
 * node's name there ("then_body/a", a body's input "body/%v"); a
 * binding to a value the subgraph reads from the graph around it names it
 * as that graph does ("%x", "m").  These nodes are no nodes of g;
 * graft_rules_explain takes their names.  The strings belong to the
 * result.  NULL after reporting through d: rules for the other IR (as for
 * running and explaining), a subgraph that does not import. */
graft_matches *graft_rules_match(const graft_rules *r, graft_graph *g,
                                 const graft_limits *lim, graft_diag *d);
size_t graft_matches_count(const graft_matches *m);
const graft_match *graft_matches_get(const graft_matches *m, size_t i);
void graft_matches_free(graft_matches *m);

/* ---- verification (graft verify): each rule on random instances ---- */

typedef struct graft_verify_options {
    uint64_t seed; /* with the rule's name, the random values; 0: 1 */
    int trials;    /* value draws per rule; 0: 20 (graft verify's defaults) */
} graft_verify_options;

typedef struct graft_verdict {
    const char *rule;     /* the rule's name */
    const char *verdict;  /* "verified", "refuted", "unchecked", "skipped" */
    int trials;           /* trials compared */
    double max_error;     /* largest error seen */
    double tolerance;     /* the bound */
    const char *instance; /* the instance tried, or "" */
    const char *why;      /* refuted, unchecked: the reason; else "" */
} graft_verdict;

typedef struct graft_verdicts graft_verdicts;

/* One verdict per rule, in file order; opts may be NULL. */
graft_verdicts *graft_rules_verify(const graft_rules *r, const graft_verify_options *opts);
size_t graft_verdicts_count(const graft_verdicts *v);
const graft_verdict *graft_verdicts_get(const graft_verdicts *v, size_t i);
void graft_verdicts_free(graft_verdicts *v);

#endif
