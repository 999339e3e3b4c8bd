/* graph.h - the graph core: the dataflow graph of one model, whichever IR
 * it came from (Relay text, src/relay; ONNX beside it).
 *
 * A graft_graph owns every node, string and type of one loaded model in one
 * arena (note [arenas]).  Nodes are variables, constants (scalars, and
 * tensors that carry their elements), op calls (with one result, or several
 * read by element: note [several results]), calls of local functions,
 * tuples, tuple element accesses and local functions.  Every node
 * knows its users (the nodes that take it as an operand), kept current by
 * every edit made through this API.  All traversals are iterative, so a chain
 * of millions of nodes needs no deep stack.
 *
 * Op names, variable names and attribute strings are interned in the graph
 * (graph_intern): within one graph equal names are equal pointers.
 */
#ifndef GRAFT_GRAPH_H
#define GRAFT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "graft.h"
#include "util.h"
#include "walk.h"

typedef enum NodeKind {
    NODE_VAR,     /* %x, %aten::_convolution_0.weight: a parameter */
    NODE_CONST,   /* 1f, 1e-05f, 2i64, -1, True, meta[relay.Constant][0] */
    NODE_CALL,    /* nn.conv2d(%x, %w, padding=[1, 1]) (op call)
                     or %5(%a, %b) (call of a local function: callee set) */
    NODE_TUPLE,   /* (%a, %b) */
    NODE_GETITEM, /* %3.0 */
    NODE_FUNC,    /* fn (%p, Composite="dnnl.conv2d_relu") { ... }; also
                     each global function other than @main */
    NODE_GLOBAL,  /* @f: a global function as a value (callee of @f(%x)) */
    NODE_OPREF,   /* add, Nil: an operator or constructor as a value */
    NODE_LET,     /* let %v = value; body.  Operands: %v, value, body */
    NODE_IF,      /* if (c) { t } else { e }.  Operands: c, t, e */
    NODE_MATCH,   /* match (d) { P => { r }, ... }.  Operands: d, then each
                     clause's result */
} NodeKind;

/* Operands that are scopes of their own (printed in braces): a let's body,
 * an if's branches, a match's results; and a let's variable, which is
 * bound there, not read.  Rules see these nodes as opaque values (like a
 * function): graph_is_opaque. */

/* ---- types (from "x: Tensor[...]" and "/ * ty=... * /" annotations) ---- */

typedef enum TypeKind {
    TYPE_TENSOR, /* Tensor[(1, 3, ?, 224), float32]; a bare dtype is rank 0 */
    TYPE_TUPLE,  /* (Tensor[...], Tensor[...]) */
    TYPE_OTHER,  /* anything else (fn types, List[...]): kept as text only */
} TypeKind;

/* a "?" dimension; below it, a named one (note [symbolic dims] in
 * dim_symbol.c) */
enum { DIM_ANY = -1 };

/* Types are immutable once made and may be shared between nodes. */
struct graft_type {
    TypeKind kind;         /* which fields below are meaningful */
    int rank;              /* TYPE_TENSOR: number of dims */
    const int64_t *dims;   /* TYPE_TENSOR: rank dims, DIM_ANY for "?", below for "N" */
    const char *dtype;     /* TYPE_TENSOR: interned, e.g. "float32" */
    int nfields;           /* TYPE_TUPLE: number of fields */
    const graft_type *const *fields; /* TYPE_TUPLE: the field types */
    const char *text;      /* the type as printed, e.g. "Tensor[(64), float32]" */
};

/* ---- attributes ---- */

/* Attribute values (graft_attr_value in graft.h) are built with
 * graph_new_attr_value and filled in by the caller; spelling may stay NULL
 * for values made by edits (the printer then writes the canonical form: 1,
 * 1e-05f, True, None, "s", [1, 2]).  Strings and names are interned. */

/* Whether two attribute values are equal as TVM compares an attribute
 * with its default: numbers by value with an absolute tolerance of 1e-9,
 * strings, None and lists item by item (note [attribute equality] in
 * graph_attr.c). */
bool attr_value_equal(const graft_attr_value *a, const graft_attr_value *b);

/* n's attribute name when given, and not None (which TVM's printer writes
 * for an attribute left unset); NULL otherwise. */
const graft_attr_value *node_given_attr(const graft_node *n, const char *name);

/* What attr_value_ints finds instead of ints: no value (or None), neither
 * an int nor a list of at most max, or a list with an item that is no int. */
enum { ATTR_INTS_ABSENT = -1, ATTR_INTS_BAD_LIST = -2, ATTR_INTS_BAD_ITEM = -3 };

/* Reads v, an int or a list of ints, into out (room for max): their count,
 * or an ATTR_INTS_* (*bad_item the item's index for ATTR_INTS_BAD_ITEM;
 * note [int lists] in graph_attr.c). */
int attr_value_ints(const graft_attr_value *v, int64_t *out, int max, int *bad_item);

/* ---- nodes ---- */

/* A match clause's pattern as printed: pieces of text ("Cons(", ", ",
 * ")", "_") and the variables it binds (printed as declared), in order. */
typedef struct ClausePiece {
    const char *text; /* literal text, or NULL for a variable */
    graft_node *var;        /* the NODE_VAR bound here when text is NULL */
} ClausePiece;

typedef struct MatchClause {
    const ClausePiece *pieces; /* the pattern */
    int npieces;
} MatchClause;

/* Kind and identity. Ids are dense (0..graph_node_count-1), never reused. */
static inline NodeKind node_kind(const graft_node *n);
static inline uint32_t node_id(const graft_node *n);
static inline bool node_is_dead(const graft_node *n);

/* NODE_CALL of an op: its interned name ("nn.conv2d"); NULL for a call of a
 * function value.  node_callee: the called NODE_FUNC (or NODE_VAR) of such
 * a call, else NULL. */
static inline const char *node_op(const graft_node *n);
static inline graft_node *node_callee(const graft_node *n);

/* Operands: call arguments (callee excluded), tuple fields, the tuple of a
 * GETITEM. */
static inline int node_nargs(const graft_node *n);
static inline graft_node *node_arg(const graft_node *n, int i);

/* Users: each (user, operand slot) pair that reads n.  A callee slot has
 * index USE_CALLEE (-1).  Order: the order the uses were created in.  A
 * function is not a user of its body (the body is like @main's output:
 * see node_body), nor of its parameters; dead nodes are no users.  They
 * are read as
 *     for (int k = node_user_first(n); k < node_user_end(n);
 *          k = node_user_next(n, k))
 * with node_user(n, k), the user, and node_user_operand(n, k), its slot's
 * index, each O(1); the k are positions, not a count (a large list may
 * hold removed entries between them: note [user lists] in graph_users.c), and
 * hold only until the next edit.  node_sole_user: the user when there is
 * exactly one, else NULL. */
enum { USE_CALLEE = -1 };
static inline int node_nusers(const graft_node *n);
static inline int node_user_first(const graft_node *n);
static inline int node_user_end(const graft_node *n);
static inline int node_user_next(const graft_node *n, int k);
static inline graft_node *node_user(const graft_node *n, int k);
static inline int node_user_operand(const graft_node *n, int k);
static inline graft_node *node_sole_user(const graft_node *n);

/* How a graph's user lists went (note [user lists] in graph_users.c): for the
 * tests that hold their edits linear, and bench's memory. */
typedef struct GraphUserCounts {
    uint64_t probes; /* index slots and list entries read to find or place
                        an entry */
    uint64_t moves;  /* entries copied by a list's growth, compaction or
                        removal */
    uint64_t lists;  /* lists made (each growth makes one) */
    size_t pool_bytes; /* bytes the lists' pool took from malloc */
} GraphUserCounts;
GraphUserCounts graph_user_counts(const graft_graph *g);

/* Attributes of an op call or a function, in source order. */
static inline int node_nattrs(const graft_node *n);
static inline const graft_attr *node_attr(const graft_node *n, int i);
/* By name (interned or not); NULL when absent. */
const graft_attr_value *node_find_attr(const graft_node *n, const char *name);

/* True for nodes rules treat as opaque values whose operands are no
 * dataflow inputs: functions, lets, ifs, matches, globals and op values. */
static inline bool node_is_opaque(const graft_node *n);

/* NODE_VAR: the name without '%'; NODE_GLOBAL, NODE_OPREF: the name
 * ("f" for @f, "add", "Nil"). */
static inline const char *node_name(const graft_node *n);
/* NODE_CONST: spelling as printed ("1e-05f", "meta[relay.Constant][0]");
 * scalar: value and dtype ("float32", "int64", "bool"); a meta constant is
 * not scalar and its dtype comes from its type. */
static inline const char *node_const_text(const graft_node *n);
static inline bool node_const_is_scalar(const graft_node *n);
static inline double node_const_value(const graft_node *n);
const char *node_const_dtype(const graft_node *n);
/* NODE_CONST of a tensor (graph_add_tensor_const): its elements as raw
 * bytes and their count in *nbytes; NULL (and 0) for a scalar, and for a
 * tensor whose values the model does not give (a Relay meta constant
 * without a metadata section). */
const void *node_const_data(const graft_node *n, size_t *nbytes);
/* note [one-element constants]: the number a constant holds, in *v: a
 * scalar's value, or the one element of a tensor constant whose bytes are
 * known (an ONNX initializer or Constant node of shape [] or [1], which
 * exporters write where Relay has a scalar), a float32 element as its
 * shortest spelling reads (1.4142135).  So a rule's number literal,
 * value(x) and an attribute taken from a bound constant read both alike.
 * False for other nodes. */
bool node_const_number(const graft_node *n, double *v);
/* Element i (row-major) of a constant whose bytes are known, in *v, as
 * node_const_number reads one (a scalar's only element is 0): what a
 * rule's value(x)[i] reads (ONNX's Pad reads its pads so).  False for
 * other nodes and for i out of range. */
bool node_const_element(const graft_node *n, int64_t i, double *v);
/* NODE_GETITEM: the field index. */
static inline int node_index(const graft_node *n);
/* note [several results]: a call of an op with several results (ONNX's
 * BatchNormalization, Split) has a tuple as its value, and each result is
 * read through a NODE_GETITEM, as Relay's nn.batch_norm(...)[0] is; rules
 * match both the same way.  node_noutputs tells how many results the IR
 * gave the call as separate values (ONNX's output names): 1 for every
 * Relay call, whatever its type. */
static inline int node_noutputs(const graft_node *n);
/* NODE_FUNC: parameters (NODE_VARs) and body. */
int node_nparams(const graft_node *n);
graft_node *node_param(const graft_node *n, int i);
graft_node *node_body(const graft_node *n);
/* NODE_FUNC: its node_nparams parameters as an array (for a reader of
 * them all, as the printer is, one call instead of one each). */
graft_node *const *node_params(const graft_node *n);
/* NODE_VAR: declared by "free_var %x;" (bound nowhere). */
static inline bool node_is_free(const graft_node *n);
/* NODE_MATCH: its clauses (clause i's result is operand i + 1) and
 * whether it is complete ("match", not "match?"). */
int node_nclauses(const graft_node *n);
const MatchClause *node_clause(const graft_node *n, int i);
bool node_match_complete(const graft_node *n);
/* NODE_FUNC: the declared result type ("fn (...) -> T {"), or NULL. */
const graft_type *node_ret_type(const graft_node *n);
/* NODE_FUNC: its type parameters as printed between brackets ("A, B" of
 * "fn [A, B](...)" or "def @f[A, B](...)"), or NULL. */
const char *node_type_params(const graft_node *n);
/* NODE_FUNC: its parts in one call where each accessor above is one, for
 * a reader of many functions' parts: the printer of issue 34's partition
 * (10,000 functions) and the ONNX export's fit of each partition's body
 * (note [body shapes] in src/onnx/onnx_export_fnkey.c). */
typedef struct FuncParts {
    graft_node *const *params; /* node_params */
    int nparams;               /* node_nparams */
    int nattrs;                /* node_nattrs */
    graft_node *body;          /* node_body */
    const graft_type *ret;     /* node_ret_type */
    const char *type_params;   /* node_type_params */
} FuncParts;
FuncParts node_func_parts(const graft_node *n);
/* The function whose body n belongs to; NULL for @main's body and params. */
static inline graft_node *node_scope(const graft_graph *g, const graft_node *n);
/* The type from the source text (parameter annotation or "ty=" comment),
 * or one set by graph_set_type; NULL when unknown. */
static inline const graft_type *node_type(const graft_node *n);
/* NODE_VAR: true when the type was written in the declaration
 * ("%x: Tensor[...]"), so the printer writes it back. */
static inline bool node_type_declared(const graft_node *n);
/* The text of the node's annotation comment, verbatim as loaded
 * ("/ * ty=float32 * /", with the comment markers), or NULL; nodes created
 * by edits have none.  A span of the model's text that the graph keeps,
 * or an interned copy (note [annotation spans] in graph_text.c), held
 * by the graph, not the node (note [annotation table] in graph_node.h). */
static inline const char *node_annotation(const graft_graph *g, const graft_node *n);
/* The same by the node's id, for a caller that holds ids (the printer). */
static inline const char *graph_annotation_by_id(const graft_graph *g, uint32_t id);
/* Whether some node may have an annotation (false: none has one), for a
 * printer that would otherwise ask each node it prints. */
static inline bool graph_has_annotations(const graft_graph *g);
/* Where the model file wrote the node (1-based line and column of its op
 * name, variable, constant, '(' of a tuple, or index of an element
 * access); 0 for a node a rewrite built.  A node keeps its position
 * through rewriting, and a copy (a partition's body) takes its
 * original's. */
int node_line(const graft_graph *g, const graft_node *n);
int node_col(const graft_graph *g, const graft_node *n);

/* ---- the graph ---- */

graft_graph *graph_new(void);
/* A graph that interns its names in names, the loader's (it neither
 * copies nor frees it; names and its arena must outlive the graph): the
 * strings names holds are the graph's canonical copies, so that a loader
 * that interned its names as it read them (note [interned strings] in
 * src/onnx/onnx_decode.h) builds with them as they are (the builders
 * below that take "interned" names), and the strings the graph interns
 * later go to names's arena. */
graft_graph *graph_new_named(Interner *names);
void graph_free(graft_graph *g);
/* Room for nodes nodes (their positions, names for half as many) before
 * the tables grow: a
 * loader sizes them once from the text (an estimate; they still grow
 * past it).  The positions' table is made when first asked for or set
 * (note [positions on demand] in graph.c). */
void graph_reserve(graft_graph *g, size_t nodes);
/* graph_reserve's room for nodes without the names': for a loader that
 * learns how many names it interns (note [names reserved by count] in
 * src/relay/relay_load_params.c). */
void graph_reserve_nodes(graft_graph *g, size_t nodes);
/* Loading done: the positions' table cut to the nodes made (note [node
 * table] in graph.c); a node made after has no position. */
void graph_fit_positions(graft_graph *g);
/* The passes done: frees each block of nodes that holds only dead nodes,
 * whose entries in the node table then point to one dead node of the
 * graph's (note [dead blocks] in graph_compact.c); returns the bytes
 * freed.  No node moves; nodes can be made after. */
size_t graph_release_dead(graft_graph *g);
/* The positions freed: node_line and node_col are 0 for every node after
 * (for a step that reports none, as writing the output). */
void graph_drop_positions(graft_graph *g);
/* The scope table freed, for a graph only printed as Relay, then freed
 * (note [scopes dropped before printing] in graph_walk.c): no node's
 * scope may be read or set after (note [scopes after the drop] in
 * graph_node.h). */
void graph_drop_scopes(graft_graph *g);
/* The interner's table freed, its strings kept (note [interner table
 * dropped] in arena.c): an interning after makes it again. */
void graph_drop_name_table(graft_graph *g);
/* Room for exactly more nodes than there are in the node table: a pass
 * that knows what it adds (note [node table] in graph.c). */
void graph_fit_nodes(graft_graph *g, size_t more);
/* The scope table made to cover every id the node table has room for,
 * now, not at the first function made (note [order dropped before the
 * last apply] in src/runtime/partition.c). */
void graph_reserve_scopes(graft_graph *g);
/* Room for strings interned names and values value names (graph_set_value_name)
 * in all: a loader that knows its counts (an ONNX model's lists) grows neither. */
void graph_reserve_names(graft_graph *g, size_t strings, size_t values);
Arena *graph_arena(graft_graph *g);
const char *graph_intern(graft_graph *g, const char *s);
/* s interned, for a string whose bytes never change while g lives (a
 * string literal of a compiled rule set, or one of g's own names): the
 * answer is remembered by s's address, so a name asked for again costs a
 * probe instead of a hash (note [fixed names] in graph.c). */
const char *graph_intern_fixed(graft_graph *g, const char *s);
/* The n bytes at s, interned. */
const char *graph_intern_n(graft_graph *g, const char *s, size_t n);
/* Parameters named with names made new (note [names made new] in
 * graph_new_names.c): graph_begin_new_names before a batch of about count names,
 * distinct, each starting with prefix (a string that outlives the
 * batch); graph_add_fn_params_new count function parameters into params,
 * untyped, named stem followed by 0, 1, ... count - 1 in decimal, their
 * names interned only when something may ask for one (those of a stem
 * not of the prefix are interned at once); graph_add_fn_params_like
 * the same, each typed as like[k] is (like NULL: untyped);
 * graph_intern_new_names interns the batch's names now. */
void graph_begin_new_names(graft_graph *g, const char *prefix, size_t count);
void graph_add_fn_params_new(graft_graph *g, const char *stem, size_t stem_len, uint32_t count,
                             graft_node **params);
void graph_add_fn_params_like(graft_graph *g, const char *stem, size_t stem_len, uint32_t count,
                              graft_node *const *like, graft_node **params);
void graph_intern_new_names(graft_graph *g);
/* The distinct strings g has interned: a name whose interning raised it
 * was new, a key of no map of g's names. */
size_t graph_interned_count(const graft_graph *g);
uint32_t graph_node_count(const graft_graph *g); /* ids handed out, dead included */
/* Nodes not marked dead: those the roots reach, @main's parameters, and
 * nodes nothing reachable uses any more that no sweep has killed yet. */
uint32_t graph_live_count(const graft_graph *g);
static inline graft_node *graph_node(const graft_graph *g, uint32_t id);
/* The node table: graph_node_count entries by id, dead nodes included
 * (for a pass over every node, without graph_node's bound check each). */
static inline graft_node *const *graph_node_table(const graft_graph *g);
/* NODE_VARs made, dead included. */
uint32_t graph_var_count(const graft_graph *g);

/* @main: parameters and result. */
int graph_nparams(const graft_graph *g);
graft_node *graph_param(const graft_graph *g, int i);
/* The graph_nparams parameters, in order (a loop over them asks no
 * graph_param a parameter). */
graft_node *const *graph_params(const graft_graph *g);
graft_node *graph_output(const graft_graph *g);
void graph_set_output(graft_graph *g, graft_node *out);
/* note [fixed outputs] in graph_module.c: an IR whose result has a shape
 * no rewrite may change (ONNX's graph outputs) says so once it has set
 * the output: fields >= 0, a tuple whose first fields values are the
 * outputs; OUTPUT_ONE_VALUE, one value, no tuple. */
enum { OUTPUT_ONE_VALUE = -1 };
void graph_fix_outputs(graft_graph *g, int fields);
/* The fields graph_fix_outputs was given; 0 when it was not called. */
int graph_fixed_output_fields(const graft_graph *g);
/* Whether a rewrite may replace root by by: always, but in a graph of
 * fixed outputs, where by must keep the result's shape, be no tuple
 * anywhere else, and leave an output that is a graph input as it is
 * (graph_replacement_misfit).  Inline for the test that answers nearly
 * every rewrite (a call for another: a result of fixed fields is a
 * tuple, a graph input a variable) and out of line for the rest. */
bool graph_checked_replacement_fits(const graft_graph *g, const graft_node *root,
                                    const graft_node *by);
static inline bool graph_replacement_fits(const graft_graph *g, const graft_node *root,
                                          const graft_node *by)
{
    return (node_kind(root) != NODE_TUPLE && node_kind(root) != NODE_VAR &&
            node_kind(by) != NODE_TUPLE) ||
           graph_checked_replacement_fits(g, root, by);
}
/* A value a rewrite would give a root, as graph_replacement_misfit reads
 * it: the node graft run built, or the action graft explain reads before
 * it is built.  field(v, k, &tuple): field k's node (k -1: the value's
 * own, when it is no tuple), NULL for a node the action would make, and
 * in *tuple whether it is a tuple. */
typedef struct ReplacementValue ReplacementValue;
struct ReplacementValue {
    int fields; /* a tuple's, -1 when it is no tuple */
    const graft_node *(*field)(const ReplacementValue *v, int k, bool *tuple);
};
/* Why a rewrite may not replace root by by, or REPLACEMENT_FITS: the one
 * test graft run asks of the value built and graft explain of the action
 * (note [fixed outputs] in graph_module.c); *field: the output field it
 * is about, or -1. */
typedef enum ReplacementMisfit {
    REPLACEMENT_FITS,
    REPLACEMENT_FEWER_FIELDS,     /* a tuple of fewer fields than the model's outputs */
    REPLACEMENT_NO_TUPLE,         /* no tuple where the model's outputs are */
    REPLACEMENT_TUPLE_FOR_TENSOR, /* a tuple where the model has a tensor */
    REPLACEMENT_TUPLE_OUTPUT,     /* an output that would be a tuple */
    REPLACEMENT_INPUT,            /* an output that is a graph input given another value */
} ReplacementMisfit;
ReplacementMisfit graph_replacement_misfit(const graft_graph *g, const graft_node *root,
                                           const ReplacementValue *by, int *field);
/* A tensor a rewrite makes (a partition's call, or an element of it):
 * no tuple, and no node yet. */
extern const ReplacementValue GRAPH_MADE_TENSOR;

/* Builders.  Strings need not be interned; names are given without '%'. */
graft_node *graph_add_param(graft_graph *g, const char *name, const graft_type *type);
/* The same, name already one of g's interned strings (graph_intern, or a
 * string of the interner g was made from: graph_new_named), not hashed
 * again. */
graft_node *graph_add_param_interned(graft_graph *g, const char *name, const graft_type *type);
graft_node *graph_add_const(graft_graph *g, const char *text, double value, const char *dtype);
/* A scalar literal's constant (not "meta[...]"), its spelling text and
 * dtype already g's interned strings (as graph_add_param_interned). */
graft_node *graph_add_literal_interned(graft_graph *g, const char *text, double value,
                                       const char *dtype);
graft_node *graph_add_call(graft_graph *g, const char *op, graft_node *const *args, int nargs,
                     const graft_attr *attrs, int nattrs);
/* The same, op already one of g's interned strings (as
 * graph_add_param_interned): no lookup of it, in the interner or in the
 * table of canonical pointers whose slots two ops may share. */
graft_node *graph_add_call_interned(graft_graph *g, const char *op, graft_node *const *args,
                                    int nargs, const graft_attr *attrs, int nattrs);
/* graph_add_call_interned with attrs as they are, not copied: an array
 * of g's own (in its arena, names interned) that nothing changes, which
 * calls made alike share (a rewrite's new calls: note [canonical
 * attributes once] in src/runtime/rewrite_build_call.c), as
 * graph_add_func_sharing's functions do. */
graft_node *graph_add_call_sharing(graft_graph *g, const char *op, graft_node *const *args,
                                   int nargs, const graft_attr *attrs, int nattrs);
graft_node *graph_add_fn_call(graft_graph *g, graft_node *callee, graft_node *const *args,
                              int nargs);
/* The same with attributes ("@f(%x, attrs_type_key=...)"), copied: they
 * are a word after the callee's slot, made with the node (note [tail
 * word] in graph.c), so a call's attributes are never set afterwards. */
graft_node *graph_add_fn_call_attrs(graft_graph *g, graft_node *callee, graft_node *const *args,
                                    int nargs, const graft_attr *attrs, int nattrs);
graft_node *graph_add_tuple(graft_graph *g, graft_node *const *fields, int nfields);
graft_node *graph_add_getitem(graft_graph *g, graft_node *tuple, int index);
/* A function: params are new NODE_VARs made with graph_add_fn_param. */
graft_node *graph_add_fn_param(graft_graph *g, const char *name, const graft_type *type);
/* The same, name already one of g's interned strings (as
 * graph_add_param_interned). */
graft_node *graph_add_fn_param_interned(graft_graph *g, const char *name,
                                        const graft_type *type);
graft_node *graph_add_func(graft_graph *g, graft_node *const *params, int nparams, graft_node *body,
                     const graft_attr *attrs, int nattrs);
/* graph_add_func with attrs as they are, not copied: an array of g's own
 * (in its arena, names interned) that nothing changes, which functions
 * made alike share (a partition's functions of one name: note [names
 * once] in partition_name.c). */
graft_node *graph_add_func_sharing(graft_graph *g, graft_node *const *params, int nparams,
                                   graft_node *body, const graft_attr *attrs, int nattrs);
/* The NODE_GLOBAL naming global function name, one per name (made on
 * first use; the function may be defined later: graph_find_global). */
graft_node *graph_global_ref(graft_graph *g, const char *name);
graft_node *graph_add_opref(graft_graph *g, const char *name);
/* let var = value; body.  var is a NODE_VAR (graph_add_fn_param). */
graft_node *graph_add_let(graft_graph *g, graft_node *var, graft_node *value, graft_node *body);
graft_node *graph_add_if(graft_graph *g, graft_node *cond, graft_node *then_branch,
                         graft_node *else_branch);
/* clauses[i]'s result is results[i]; the pieces are copied. */
graft_node *graph_add_match(graft_graph *g, graft_node *data, const MatchClause *clauses,
                      graft_node *const *results, int nclauses, bool complete);
/* A tensor constant named name (an ONNX initializer's name; Relay's
 * "meta[relay.Constant][0]"), of tensor type type, holding nbytes bytes of
 * elements at bytes: row-major, little-endian, each as dtype_size of the
 * type's dtype (ONNX's raw_data layout).  The bytes are not copied: they
 * live in the graph's arena or in a buffer given to graph_own.  bytes
 * NULL: the values are unknown.  graph_tensor_nbytes gives the size the
 * caller must check first. */
graft_node *graph_add_tensor_const(graft_graph *g, const char *name, const graft_type *type,
                                   const void *bytes, size_t nbytes);
/* The bytes of a tensor of type type in raw data (the element count times
 * the dtype's size); false for a type with an unknown dim or dtype, or on
 * overflow. */
bool graph_tensor_nbytes(const graft_type *type, size_t *nbytes);
/* buffer (malloc'd) is freed with the graph: a loader's file bytes that
 * tensor constants point into. */
void graph_own(graft_graph *g, void *buffer);
/* Gives call n results (note [several results]; n >= 1). */
void graph_set_noutputs(graft_graph *g, graft_node *call, int n);
/* The NODE_GETITEM reading result i of n: a live one already among n's
 * users, else a new one. */
graft_node *graph_result(graft_graph *g, graft_node *n, int i);
/* Marks a NODE_VAR as declared by free_var. */
void graph_set_free(graft_graph *g, graft_node *var);
graft_attr_value *graph_new_attr_value(graft_graph *g, graft_attr_kind kind);
/* A deep copy of v (from any graph, or from a rule set's tables) owned by g;
 * strings are interned in g, the spelling kept. */
const graft_attr_value *graph_copy_attr_value(graft_graph *g, const graft_attr_value *v);
/* Sets a node's type (a NODE_VAR's type stays "not declared"). */
void graph_set_type(graft_graph *g, graft_node *n, const graft_type *type);
/* Sets a NODE_VAR's declared type (printed as "%x: T"). */
void graph_declare_type(graft_graph *g, graft_node *var, const graft_type *type);
/* n's annotation comment: interned, or shared when text is a span of
 * the text g keeps (a copy of a loaded node's). */
void graph_set_annotation(graft_graph *g, graft_node *n, const char *text);
/* note [annotation spans] (graph_text.c): a loader that scans text (len
 * bytes, then at least one byte more, a NUL) gives it to g before making
 * nodes; the text stays the loader's, never written, and must outlive
 * graph_text_keep. */
void graph_text_begin(graft_graph *g, const char *text, size_t len);
/* n's annotation is the comment "/ * ... * /" of len bytes at text (no
 * "* /" before its end), a span of the text begun; anything else is
 * interned. */
void graph_set_annotation_span(graft_graph *g, graft_node *n, const char *text, size_t len);
/* Loading done: when spans were set, copies each, NUL-ended, into a
 * buffer of the graph's and points its nodes there (true); the text
 * itself is forgotten either way (the loader may free it). */
bool graph_text_keep(graft_graph *g);
/* The spans g keeps for its annotations, NUL-ended one after another
 * (*len their bytes), or NULL. */
const char *graph_kept_text(const graft_graph *g, size_t *len);
void graph_set_pos(graft_graph *g, graft_node *n, int line, int col);
/* For a loader that places each node it makes by a store, not a call
 * (the Relay loader's note [positions stored]): the positions' table,
 * node id's line at [2 * id] and its column at [2 * id + 1], with room
 * for the ids below *cap.  graph_set_pos places an id past that, and may
 * move the table. */
int32_t *graph_positions(graft_graph *g, size_t *cap);
void graph_set_ret_type(graft_graph *g, graft_node *fn, const graft_type *type);
/* Sets a NODE_FUNC's type parameters (interned text, or NULL). */
void graph_set_type_params(graft_graph *g, graft_node *fn, const char *names);
/* graph_set_scope (inline, graph_node.h) puts n in function fn's scope
 * (NULL: @main's), for nodes an edit creates inside a function body after
 * graph_add_func (note [function scope] in graph_walk.c). */

/* ---- which IR a graph came from ---- */

/* The IR whose loader made the graph, and so whose printer, type
 * relations and names serve it; a new graph is Relay's. */
typedef enum IrKind {
    IR_RELAY, /* TVM's Relay text (src/relay) */
    IR_ONNX,  /* ONNX, protobuf or text */
} IrKind;
IrKind graph_ir(const graft_graph *g);
void graph_set_ir(graft_graph *g, IrKind ir);
/* What holds the graph when it is part of a larger model the IR keeps
 * beside it (an ONNX model loaded through the API, which writes the model
 * back: src/runtime/graft_api_onnx.c), or NULL.  The graph neither owns
 * nor frees it. */
void *graph_host(const graft_graph *g);
void graph_set_host(graft_graph *g, void *host);

/* note [IR type relations]: the type inference of src/relay/type_infer.c
 * walks a graph of either IR, and types an op call through the relation
 * of its op; ONNX's relations (src/onnx/onnx_infer.h) are a layer of the
 * same rank as Relay's, which neither includes, so the ONNX loader hands
 * its entry point to the graph it makes and type_infer calls it for
 * every op call of that graph: n's type, or NULL when unknown (why left
 * empty) or contradictory (why says how). */
typedef const graft_type *(*GraphTypeFn)(graft_graph *g, const graft_node *n, StrBuf *why);
void graph_set_type_fn(graft_graph *g, GraphTypeFn fn);
/* NULL for a graph typed by Relay's relations. */
GraphTypeFn graph_type_fn(const graft_graph *g);
/* What a type fn remembers of g's calls (note [inference memo] in
 * src/onnx/onnx_types_memo.c): the graph holds it, and frees it with
 * free_memo when it is freed or given another type fn or memo, so that
 * no other graph (one made later at the same address) ever sees it.
 * graph_type_memo gives it only to the owner that set it, named by its
 * free_memo; NULL to anyone else, and before it is set. */
void graph_set_type_memo(graft_graph *g, void *memo, void (*free_memo)(void *));
void *graph_type_memo(const graft_graph *g, void (*free_memo)(void *));

/* ---- names an IR gives nodes (graph_names.c) ---- */

/* note [IR names]: Relay names only variables (node_name) and numbers
 * the rest when printing; ONNX names every node (NodeProto.name) and
 * every value (an output, input or initializer name).  Both kinds live in
 * side tables by id, so a Relay graph pays nothing for them; a copy or
 * rewrite of a node does not carry them over. */
void graph_set_node_name(graft_graph *g, const graft_node *n, const char *name);
/* The IR's name of node n itself, or NULL. */
const char *graph_node_name(const graft_graph *g, const graft_node *n);
void graph_set_value_name(graft_graph *g, const graft_node *n, const char *name);
/* The same two, name NULL or one of g's interned strings (as
 * graph_add_param_interned's), not hashed again. */
void graph_set_node_name_interned(graft_graph *g, const graft_node *n, const char *name);
void graph_set_value_name_interned(graft_graph *g, const graft_node *n, const char *name);
/* The IR's name of the value n computes, or NULL. */
const char *graph_value_name(const graft_graph *g, const graft_node *n);
/* The domain of an op call (ONNX's NodeProto.domain), or NULL for the
 * default domain and for every Relay call. */
void graph_set_node_domain(graft_graph *g, const graft_node *n, const char *domain);
const char *graph_node_domain(const graft_graph *g, const graft_node *n);
/* The calls given a domain so far: the ONNX export compares it with the
 * import's count to learn whether made calls may have one. */
size_t graph_node_domain_count(const graft_graph *g);

/* ---- accessors by id: the node accessors for callers that keep ids ---- */

static inline NodeKind graph_kind_at(const graft_graph *g, uint32_t id);
static inline const char *graph_op_at(const graft_graph *g, uint32_t id);
static inline int graph_nargs_at(const graft_graph *g, uint32_t id);
/* The id of operand i of node id. */
static inline uint32_t graph_arg_at(const graft_graph *g, uint32_t id, int i);
static inline const graft_type *graph_type_at(const graft_graph *g, uint32_t id);
static inline int graph_noutputs_at(const graft_graph *g, uint32_t id);

/* ---- types (graph_type.c); all live in the graph's arena ---- */

const graft_type *graph_type_tensor(graft_graph *g, const char *dtype, const int64_t *dims,
                              int rank);
const graft_type *graph_type_tuple(graft_graph *g, const graft_type *const *fields, int nfields);
/* t (from any graph) made in g: a tensor type as one, others by text. */
const graft_type *graph_type_copy(graft_graph *g, const graft_type *t);
const graft_type *graph_type_other(graft_graph *g, const char *text, size_t len);
/* Parses a type at text ("Tensor[(1, ?), float32]", "float32",
 * "(Tensor[(2), int64],)", else TYPE_OTHER up to the end of the balanced
 * text).  Stops before the first unbalanced ')' ']' or ',' or a space
 * that is not inside brackets; *consumed gets the bytes used.  Returns NULL
 * when nothing type-like is there. */
const graft_type *graph_parse_type(graft_graph *g, const char *text, size_t len,
                             size_t *consumed);
/* The type written as the len bytes at text (an annotation's "ty="
 * part), parsed once per distinct text (note [annotation types]); one
 * that does not parse whole is TYPE_OTHER text. */
const graft_type *graph_type_of_text(graft_graph *g, const char *text, size_t len);
/* Parses "ty=TYPE" out of an annotation comment; NULL when absent. */
const graft_type *graph_annotation_type(graft_graph *g, const char *annotation);
bool type_equal(const graft_type *a, const graft_type *b);

/* ---- module text kept for printing back (see relay.h) ---- */

/* "#[version = \"0.0.5\"]" when the input had it, else NULL. */
const char *graph_version(const graft_graph *g);
void graph_set_version(graft_graph *g, const char *text);
/* Whether the module was a bare expression, printed back without "def
 * @main() {" (note [bare module] in graph_module.c). */
bool graph_is_bare(const graft_graph *g);
void graph_set_bare(graft_graph *g);
/* @main's attributes, as "def @main(%x, Primitive=1)" wrote them. */
int graph_main_nattrs(const graft_graph *g);
const graft_attr *graph_main_attr(const graft_graph *g, int i);
/* The Prelude's "type NAME[...] { ... }" declarations, verbatim. */
int graph_ntypedefs(const graft_graph *g);
const char *graph_typedef(const graft_graph *g, int i);
void graph_add_typedef(graft_graph *g, const char *text, size_t len);
/* The "#[metadata]" section, verbatim to the end of the input, or NULL. */
const char *graph_metadata(const graft_graph *g);
void graph_set_metadata(graft_graph *g, const char *text, size_t len);
/* Global functions other than @main ("def @f(...) { ... }"), in the
 * order defined; @main itself is listed too (fn NULL), so that a printer
 * can put every definition in TVM's order (by name). */
int graph_nglobals(const graft_graph *g);
const char *graph_global_name(const graft_graph *g, int i);
graft_node *graph_global_fn(const graft_graph *g, int i); /* NULL for @main */
bool graph_global_defined(const graft_graph *g, int i);
/* Index of the global function whose body holds n (@main's for a node of
 * @main), or -1 when the graph lists no globals. */
int graph_global_of(const graft_graph *g, const graft_node *n);
/* Index of global name (defined or only referenced), or -1. */
int graph_find_global(const graft_graph *g, const char *name);
/* Defines global name as function fn (NULL: the module's @main); false
 * when name is defined already. */
bool graph_add_global(graft_graph *g, const char *name, graft_node *fn);
/* Makes function fn (a global's NODE_FUNC) the graph's @main: its
 * parameters become the graph's, its body the output; fn itself dies. */
void graph_make_main(graft_graph *g, graft_node *fn);
/* graph_add_func for the function graph_make_main will be given: its
 * body and parameters are left in @main's scope (note [main unscoped]). */
graft_node *graph_add_main(graft_graph *g, graft_node *const *params, int nparams,
                           graft_node *body, const graft_attr *attrs, int nattrs);
/* The global function's name ("main") and declared result type. */
const char *graph_name(const graft_graph *g);
void graph_set_name(graft_graph *g, const char *name);
const graft_type *graph_ret_type(const graft_graph *g);
void graph_set_graph_ret_type(graft_graph *g, const graft_type *type);
/* @main's type parameters, as node_type_params gives a function's. */
const char *graph_type_params(const graft_graph *g);

/* Edits that keep users current. */
void graph_set_arg(graft_graph *g, graft_node *user, int i, graft_node *value);
/* Every use of old (and the output, and a function body, if it is old)
 * now reads new_node; a use by new_node itself is left alone, so that
 * "x => relu(x)" can wrap x. */
void graph_replace_all_uses(graft_graph *g, graft_node *old, graft_node *new_node);
/* Marks dead every node not reachable from the output or another global
 * function (through operands,
 * callees, function bodies and parameters; @main's parameters always
 * live); returns how many became dead.  Dead nodes are dropped from the
 * users lists of their operands and must not be used again. */
uint32_t graph_remove_dead(graft_graph *g);

/* Live nodes reachable from the output, then from each other global
 * function (note [module roots] in graph_walk.c), operands before users
 * (post-order,
 * operands left to right, a callee before its arguments), iterative.
 * A NODE_FUNC comes after its parameters and its body's nodes (use
 * node_scope to tell them apart).
 * Fills order (caller-allocated, graph_node_count entries) and returns the
 * count. */
uint32_t graph_topo_order(const graft_graph *g, graft_node **order);
/* The same order as node ids (ids: graph_node_count entries), for callers
 * that keep per-id arrays and need not touch the nodes themselves. */
uint32_t graph_topo_ids(const graft_graph *g, uint32_t *ids);
/* Marks in reached (graph_node_count bytes, zeroed) the nodes
 * graph_topo_order lists, in one sweep down from the last id, for a
 * graph whose ids already put children first (as loading makes them:
 * note [types in id order] in type_infer.c); false when a reached node
 * has a child at or after its own id, reached then half marked. */
bool graph_reached_by_ids(const graft_graph *g, uint8_t *reached);
/* The same marks, and which way made them: by the nodes' users (note
 * [reached by users] in graph_walk.c), by the sweep, or not (false
 * above).  Either way the marks are the same, so only this tells a
 * shortcut given up where it need not be (the Check tests read it). */
typedef enum { REACHED_NOT, REACHED_BY_USERS, REACHED_BY_SWEEP } ReachedBy;
ReachedBy graph_reached_by_ids_how(const graft_graph *g, uint8_t *reached);
/* The same marks for any graph, in the same sweep, a node reached after
 * the sweep passed its id followed at once (note [reached by a sweep] in
 * graph_walk.c). */
void graph_reached(const graft_graph *g, uint8_t *reached);
/* Tells g that a dead-node sweep now would kill nothing: every live node
 * but @main's unused parameters is reached, as after one, until the next
 * change (note [swept graph] in graph_walk.c). */
void graph_set_swept(graft_graph *g);
/* An order of the live nodes as graph_topo_ids gives it, made by a walk
 * that labels them too (labels_graph_order); free with graph_order_free. */
typedef struct GraphOrder {
    uint32_t *ids; /* the live nodes, operands first (graph_topo_ids) */
    uint32_t n;    /* entries in ids */
} GraphOrder;
void graph_order_free(GraphOrder *o);
/* graph_remove_dead, then graph_topo_order into order, in one walk (note
 * [sweep] in graph_walk.c); returns the count of live nodes ordered. */
uint32_t graph_remove_dead_order(graft_graph *g, graft_node **order);
/* The same, and *clean set when no live node is a function (note [kill of
 * given nodes] in graph_walk.c: every live node is reached after it). */
uint32_t graph_sweep_order(graft_graph *g, graft_node **order, bool *clean);
/* graph_remove_dead without a walk's arrays (note [sweep without order]
 * in graph_walk.c): marks in reached (graph_node_count bytes, zeroed) bit 0
 * for the nodes graph_topo_order would list, and bit 1 for @main's
 * parameters; kills the rest and returns the count of bit 0's, the live
 * nodes an order would hold. */
uint32_t graph_remove_unreached(graft_graph *g, uint8_t *reached);
/* The sweep of a rewrite pass as a kill of given nodes (note [kill of
 * given nodes] in graph_walk.c), for a graph where every live node but
 * @main's unused parameters is reached and none is a function: kills the
 * nodes of given[0, ngiven) and those made from id first on that no node
 * uses, then their operands left unused, and so on; returns how many died,
 * or UINT32_MAX, nothing killed, when a node from first on is a function.
 * graph_clean_reached tells whether a walk from the roots lists node id,
 * and graph_clean_reached_count how many it lists, in such a graph. */
uint32_t graph_kill_given(graft_graph *g, const uint32_t *given, size_t ngiven, uint32_t first);
/* Kills root when no node uses it and it is not the output, then each of
 * its operands left without a user, and so on, but for variables, which
 * the next graph_kill_given or sweep takes (note [kill as the pass goes]
 * in graph_compact.c); for the same kind of graph.  Returns how many
 * died. */
uint32_t graph_kill_cone(graft_graph *g, graft_node *root);
bool graph_clean_reached(const graft_graph *g, uint32_t id);
uint32_t graph_clean_reached_count(const graft_graph *g);

/* note [node walk] in graph_walk.c: graph_topo_order's order handed out
 * one node at a time, read from the nodes themselves, for a caller that
 * reads each node as it comes (the labeller).  graph_walk_start, then
 * graph_walk_next until it returns NULL, then graph_walk_end; inline
 * below, so that the walk's state stays in the caller's registers. */
typedef WALK(graft_node *) NodeStack;
typedef struct GraphWalk {
    NodeStack stack;    /* the nodes entered and not handed out yet */
    uint8_t *seen;      /* per id: entered */
    graft_node **roots; /* graph_roots' */
    uint32_t root;      /* the next of roots */
    uint32_t nfuncs;    /* NODE_FUNCs entered */
} GraphWalk;
/* The roots of a walk of the module (note [module roots] in graph_walk.c),
 * NULL-terminated; the caller frees them. */
graft_node **graph_roots(const graft_graph *g);
/* The i-th child of n in a walk's order: the callee, then the operands;
 * for a function its parameters, then its body.  NULL past the end. */
graft_node *graph_child(const graft_node *n, int i);

/* Total bytes the graph holds (arena and node table); divide by
 * graph_node_count for bytes per node.  graph_node_size is sizeof(struct
 * Node), without the operand slots that follow it (note [node size] in
 * graph.c). */
size_t graph_bytes(const graft_graph *g);
size_t graph_node_size(void);

/* The node layout and the inline accessors declared above. */
#include "graph_node.h"

/* The walk of note [node walk] in graph_walk.c. */
static inline void graph_walk_start(const graft_graph *g, GraphWalk *w)
{
    uint32_t count = graph_node_count(g);
    *w = (GraphWalk){.seen = xcalloc(count ? count : 1, 1), .roots = graph_roots(g)};
}

/* Whether n has children in a walk's order: operands, a callee, or a
 * function's parameters and body. */
static inline bool graph_walk_has_children(const graft_node *n)
{
    return n->nargs || n->kind == NODE_FUNC || node_callee_slot(n);
}

GRAFT_HOT graft_node *graph_walk_next(GraphWalk *w)
{
    for (;;) {
        if (!w->stack.depth) {
            graft_node *r;
            while ((r = w->roots[w->root]) && w->seen[node_id(r)])
                w->root++;
            if (!r)
                return NULL;
            w->seen[node_id(r)] = 1;
            walk_push(&w->stack, r);
        }
        graft_node *n = walk_top(&w->stack), *c;
        uint32_t k = walk_next(&w->stack);
        if (n->kind == NODE_FUNC || node_callee_slot(n)) {
            w->nfuncs += k == 0 && n->kind == NODE_FUNC; /* once, entering it */
            c = graph_child(n, (int)k);
        } else { /* the common node: its operands */
            c = k < (uint32_t)n->nargs ? node_slots(n)[k] : NULL;
        }
        if (!c) {
            (void)walk_pop(&w->stack);
            return n;
        }
        if (w->seen[node_id(c)])
            continue;
        w->seen[node_id(c)] = 1;
        if (!graph_walk_has_children(c))
            return c; /* a leaf finishes as it is entered */
        walk_push(&w->stack, c);
    }
}

static inline void graph_walk_end(GraphWalk *w)
{
    walk_free(&w->stack);
    free(w->seen);
    free(w->roots);
}

static inline NodeKind graph_kind_at(const graft_graph *g, uint32_t id)
{
    return node_kind(graph_node(g, id));
}
static inline const char *graph_op_at(const graft_graph *g, uint32_t id)
{
    return node_op(graph_node(g, id));
}
static inline int graph_nargs_at(const graft_graph *g, uint32_t id)
{
    return node_nargs(graph_node(g, id));
}
static inline uint32_t graph_arg_at(const graft_graph *g, uint32_t id, int i)
{
    return node_id(node_arg(graph_node(g, id), i));
}
static inline const graft_type *graph_type_at(const graft_graph *g, uint32_t id)
{
    return node_type(graph_node(g, id));
}
static inline int graph_noutputs_at(const graft_graph *g, uint32_t id)
{
    return node_noutputs(graph_node(g, id));
}

#endif
