/* graft.h - libgraft's interface for programs that rewrite models with a
 * compiled rule set.
 *
 * note [public names]: libgraft exports only names that begin with graft_
 * (functions, types) or GRAFT_ (constants), declared in this header and in
 * graft_rules.h, the tables `graft compile` writes; every other function of
 * the library is local to it (Makefile.am, rule for libgraft.a), and
 * tests/public_api.sh checks both with nm and on these headers.  Inside
 * graft the same types go by the same names: there are no aliases, so the
 * headers, the runtime and generated C all say graft_node, graft_pat, ...
 * (tests/public_api.sh refuses a typedef or #define that renames one).
 *
 *   graft_diag *d = graft_diag_new(stderr);
 *   graft_graph *g = graft_model_load("model.relay", NULL, d);
 *   graft_engine *e = graft_engine_new(&my_rules, g, NULL);
 *   if (g && graft_engine_run(e, d))          rewrite to a fixpoint, partition
 *       graft_model_print(g, stdout);
 *   graft_engine_free(e); graft_model_free(g); graft_diag_free(d);
 *
 * doc/compile.md shows a whole program.
 */
#ifndef GRAFT_GRAFT_H
#define GRAFT_GRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct graft_graph graft_graph;   /* one loaded model */
typedef struct graft_node graft_node;     /* a node of a model */
typedef struct graft_type graft_type;     /* a node's type */
typedef struct graft_diag graft_diag;     /* where diagnostics go */
typedef struct graft_limits graft_limits; /* the resource limits */
typedef struct graft_engine graft_engine; /* a rule set running on a model */
typedef struct graft_rule_set graft_rule_set; /* graft_rules.h */

/* ---- attribute values of op calls: nn.conv2d(..., padding=[1, 1]) ---- */

typedef enum graft_attr_kind {
    GRAFT_ATTR_INT,    /* 1, -1 */
    GRAFT_ATTR_FLOAT,  /* 1e-05f, 0.5f */
    GRAFT_ATTR_BOOL,   /* True, False */
    GRAFT_ATTR_STRING, /* "NCHW" */
    GRAFT_ATTR_NULL,   /* None */
    GRAFT_ATTR_LIST,   /* [1, 1, 1, 1], nested lists too */
    GRAFT_ATTR_OPAQUE, /* kept as TVM printed it and compared by spelling: a map
                          {"k"=v, ...} (items: keys and values in turn) or
                          meta[KIND][i], as function attributes hold them */
    GRAFT_ATTR_TENSOR, /* a tensor value (ONNX's TENSOR attribute, Constant's
                          value): type, and data raw as in a constant */
    GRAFT_ATTR_GRAPH,  /* a subgraph (ONNX's If, Loop, Scan bodies): data holds
                          the IR's own encoding, kept verbatim; rules see none
                          of it */
} graft_attr_kind;

typedef struct graft_attr_value graft_attr_value;
struct graft_attr_value {
    graft_attr_kind kind;    /* which fields below are meaningful */
    int64_t i;               /* GRAFT_ATTR_INT, GRAFT_ATTR_BOOL (0/1) */
    double f;                /* GRAFT_ATTR_FLOAT */
    const char *s;           /* GRAFT_ATTR_STRING contents, unquoted */
    const char *spelling;    /* exact text to print back ("1e-05f",
                                "\"NCHW\""); NULL: the canonical form */
    int nitems;              /* GRAFT_ATTR_LIST, a map: number of items */
    const graft_attr_value *const *items; /* GRAFT_ATTR_LIST, a map: the items */
    const graft_type *type;  /* GRAFT_ATTR_TENSOR: its dtype and shape */
    const void *data;        /* GRAFT_ATTR_TENSOR, GRAFT_ATTR_GRAPH: the bytes */
    size_t nbytes;           /* bytes at data */
};

/* One attribute of a call, name=value. */
typedef struct graft_attr {
    const char *name;
    const graft_attr_value *value;
} graft_attr;

/* What a rule's variable holds after a match: a node, or for an attribute
 * binding (strides=s) the attribute's value. */
typedef struct graft_binding {
    graft_node *node;             /* bound node, or NULL */
    const graft_attr_value *attr; /* bound attribute value, or NULL */
} graft_binding;

/* ---- diagnostics: "file:line:col: error: ..." with the line and a caret */

graft_diag *graft_diag_new(FILE *out);
void graft_diag_free(graft_diag *d);
unsigned graft_diag_errors(const graft_diag *d);
unsigned graft_diag_warnings(const graft_diag *d);

/* ---- resource limits (doc/limits.md; `graft limits` lists them) ---- */

/* The defaults. */
graft_limits *graft_limits_new(void);
void graft_limits_free(graft_limits *lim);
/* Sets limits from "NAME=N,..." as --limit and GRAFT_LIMITS take them;
 * false after reporting a bad setting through d. */
bool graft_limits_set(graft_limits *lim, const char *spec, graft_diag *d);
/* Every limit, its value and what it bounds, as `graft limits` prints. */
void graft_limits_print(const graft_limits *lim, FILE *out);

/* ---- models: Relay text (TVM v0.14) or ONNX (text or protobuf bytes) ---- */

/* Loads the model in file path ("-": standard input), or text[0..len)
 * named name (ONNX bytes too: len counts them), within lim (NULL: the
 * defaults); the first bytes tell the IR (graft_model_kind_of in
 * graft_api.h).  NULL after reporting every problem through d; never a
 * partial model. */
graft_graph *graft_model_load(const char *path, const graft_limits *lim, graft_diag *d);
graft_graph *graft_model_parse(const char *name, const char *text, size_t len,
                               const graft_limits *lim, graft_diag *d);
void graft_model_free(graft_graph *g);
/* The model as text: Relay as TVM's printer writes it, ONNX in ONNX's
 * text syntax (graft_model_write in graft_api.h writes an ONNX model in
 * the form it came in).  The string is malloc'd; NULL, and nothing
 * printed, for an ONNX model that cannot be written (the reason goes to
 * standard error from graft_model_print). */
void graft_model_print(const graft_graph *g, FILE *out);
char *graft_model_print_string(const graft_graph *g);

/* A node's id (dense, in creation order) and, for an op call, its op
 * ("nn.conv2d"; NULL for other nodes). */
uint32_t graft_node_id(const graft_node *n);
const char *graft_node_op(const graft_node *n);

/* ---- rule sets: `extern const graft_rule_set NAME;` from graft compile */

uint32_t graft_rule_count(const graft_rule_set *rs);
const char *graft_rule_name(const graft_rule_set *rs, uint32_t rule);

/* ---- running a rule set on a model (doc/rewrite.md) ---- */

typedef struct graft_run_options {
    uint64_t max_rewrites;        /* 0: the limits' rewrites, or 10 per
                                     node plus 1000 */
    FILE *trace;                  /* each rewrite as it happens, or NULL */
    const graft_limits *limits;   /* NULL: the defaults */
    const char *model;            /* the model's file name, for node
                                     positions in the trace, or NULL */
} graft_run_options;

/* opts may be NULL.  The engine edits g in place. */
graft_engine *graft_engine_new(const graft_rule_set *rs, graft_graph *g,
                               const graft_run_options *opts);
void graft_engine_free(graft_engine *e);
/* Rewrites to a fixpoint; false, reported through d, when the rewrite
 * bound is reached first. */
bool graft_engine_rewrite(graft_engine *e, graft_diag *d);
/* The partition passes, best rule first. */
void graft_engine_partition(graft_engine *e);
/* Both, as graft run does. */
bool graft_engine_run(graft_engine *e, graft_diag *d);
/* Calls fn for every match: nodes operands first, rules in file order at
 * each node; b holds the rule's variables in its slot order. */
typedef void (*graft_match_fn)(void *ctx, uint32_t rule, graft_node *root,
                               const graft_binding *b);
void graft_engine_matches(graft_engine *e, graft_match_fn fn, void *ctx);
/* The statistics table of graft run --stats (times: with timings). */
void graft_engine_print_stats(const graft_engine *e, FILE *out, bool times);

/* The whole program of `graft compile --exe`: PROG MODEL [-o OUT]
 * [--stats[=counts]] [--trace] [--max-rewrites N], as graft run. */
int graft_standalone_main(const graft_rule_set *rs, int argc, char **argv);

#endif
