/* onnx_graph.h - an ONNX model as a graft graph (onnx_import.c), and the
 * graph written back as the model (onnx_export.c).
 *
 * note [onnx import]: a ModelProto's main graph becomes a graft_graph of
 * IR_ONNX: the graph inputs are its parameters (in order; an input that
 * an initializer also names is a parameter with a default, as ONNX has
 * it), the other initializers tensor constants named as they are, whose
 * elements stay where protobuf-c put them (raw_data, by reference; the
 * typed fields float_data, int32_data and int64_data of float32, int32
 * and int64 tensors are copied to raw bytes; other encodings and
 * external data stay unknown to graft, and are written back from the
 * original), each node a call of its op_type (its domain beside it,
 * graph_node_domain) with its attributes converted (note [onnx
 * attributes] in onnx_import.c), the graph outputs the output (a tuple
 * when there are several).  A node that names several outputs is a call
 * whose value is a tuple, read by element (note [several results] in
 * graph.h); one naming one output a call whose value is that tensor.
 * Node names and value names go in the graph's side tables (note [IR
 * names]).  Types come from the graph inputs, the initializers
 * and value_info, and for the rest from ONNX's shape inference
 * (onnx_type_of), which also types what rewrites make.
 *
 * note [kept values]: what nothing reads when the model is read (a node
 * whose result no node uses and no graph output is, an initializer no node
 * reads) stays in the model: the output is a tuple of the graph outputs
 * followed by those values, so that every walk from the output, and the
 * sweep after a rewrite, keeps them.  What a rewrite leaves unread is
 * dropped, as rewriting Relay drops it.
 *
 * The model keeps its ModelProto, and for each call the NodeProto it came
 * from, so that writing it back reuses every field nothing rewrote (note
 * [onnx export] in onnx_export.c).
 */
#ifndef GRAFT_ONNX_GRAPH_H
#define GRAFT_ONNX_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "graph.h"
#include "keymap.h"
#include "onnx.pb-c.h"

/* What a rule file declares of an op a rewrite may make: its domain
 * (NULL: the default) and opset version (note [made ops' opsets] in
 * onnx_export_opset.c). */
/* The domain of the ops a staged fusion makes for a later rule to read,
 * never written to a model (note [private ops] in onnx_export_opset.c). */
#define ONNX_PRIVATE_DOMAIN "graft.private"

typedef struct OnnxOpDecl {
    const char *domain;
    int since;
} OnnxOpDecl;

/* note [values by address]: the import looks up a value's node by its
 * name twice a value (made, then read: 220,000 times on issue 34's
 * workload), and a KeyMap keyed by the name's address mixed it through
 * keymap_ptr_key first, then probed: 37 instructions a lookup.  A name is
 * interned (note [names as decoded] in onnx_import.c), and interned
 * strings lie one after another in the interner's chunks, so the
 * address's top bits after cache_slot's multiply (note [one cache slot]
 * in keymap.h) already spread them: the values' table is keyed by the
 * address itself, its slot that multiply, probed linearly, at most half
 * full.  The export asks it which names are in use. */
typedef struct OnnxValueSlot {
    const char *name; /* interned in the graph; NULL: an empty slot */
    graft_node *node; /* the node made of the value; NULL in an empty slot */
} OnnxValueSlot;

typedef struct OnnxValues {
    OnnxValueSlot *slots; /* 1 << bits of them; NULL before the first */
    unsigned bits;
    size_t len;           /* the slots used, */
    size_t room;          /* and how many may be: half of them (0: none) */
} OnnxValues;

/* The slot of name in values (which has slots): its own, or the empty
 * one where it goes. */
static inline OnnxValueSlot *onnx_values_slot(const OnnxValues *values, const char *name)
{
    size_t mask = ((size_t)1 << values->bits) - 1;
    size_t i = cache_slot((uint64_t)(uintptr_t)name, values->bits);
    while (values->slots[i].name && values->slots[i].name != name)
        i = (i + 1) & mask;
    return &values->slots[i];
}

/* The node made of the value name (interned), NULL when none. */
static inline graft_node *onnx_value_named(const OnnxValues *values, const char *name)
{
    return values->slots && name ? onnx_values_slot(values, name)->node : NULL;
}

/* note [ops as imported]: the import notes each op its NodeProtos call,
 * with the domain it gives the call (NULL: the default, "" or "ai.onnx"),
 * so that check_ops (onnx_file.c, note [ops checked]) asks the rule set
 * about a model's few distinct ops, not each of its NodeProtos again (27
 * instructions an op node of issue 34's workload).  A NodeProto of the
 * default domain is noted when its op is not the one in its slot of a
 * small table by the op's address (note [one cache slot] in keymap.h;
 * 256 slots, as check_ops' own, keep a few dozen ops apart), one of
 * another domain always: a pair may be listed more than once, never left
 * out. */
enum { ONNX_OPS_NOTED_BITS = 8 };
typedef struct OnnxOpCall {
    const char *op;     /* interned */
    const char *domain; /* NULL: the default */
} OnnxOpCall;

typedef struct OnnxModel {
    Onnx__ModelProto *proto;   /* the model as read (owned) */
    graft_graph *g;            /* its main graph, as graft's */
    Onnx__NodeProto **origin;  /* per node id below norigin: the NodeProto a
                                  call was imported from, else NULL */
    uint32_t norigin;          /* entries in origin: the ids import made */
    graft_node *absent;        /* the empty tuple standing for left-out
                                  inputs (note [absent operands] in
                                  src/runtime/eval_impl.h), or NULL */
    char *name;                /* the file's name, for messages */
    bool tupled;               /* the output is a tuple (note [kept values]) */
    bool subgraphs;            /* a NodeProto of the main graph has a graph
                                  attribute (note [subgraphs noted]) */
    int noutputs;              /* the graph outputs: the first fields of the
                                  output tuple (note [kept values]), or the
                                  output itself when it is the only one */
    uint32_t *output_ids;      /* per graph output: the id of the value the
                                  model made it, or UINT32_MAX (malloc'd;
                                  note [outputs' old values renamed] in
                                  onnx_export.c) */
    KeyMap decls;              /* op name interned in g -> its OnnxOpDecl (in
                                  g's arena), for the ops the rules declare */
    OnnxValues values;         /* name interned in g -> the node import made
                                  of the main graph's value of that name
                                  (note [values by address]) */
    KeyMap node_names;         /* name interned in g -> the node import made
                                  of the main graph's node of that name; both
                                  maps are the names in use, which the
                                  export's fresh names avoid */
    VEC(OnnxOpCall) ops;       /* the ops the main graph's NodeProtos call,
                                  each at least once (note [ops as imported]) */
    size_t import_domains;     /* the calls import gave a domain (note [value
                                  names as imported] in onnx_export.c) */
} OnnxModel;

/* The model proto (taken over: freed with the result, or here on
 * failure) as a graph; NULL after reporting "NAME: error: ..." through d
 * (a node whose type relation finds a contradiction is named: "node
 * 'conv1' (Conv): ...").  Free with onnx_graph_free. */
OnnxModel *onnx_import(Onnx__ModelProto *proto, const char *name, graft_diag *d);
/* The same for a model read without the checks of note [graph check]
 * (onnx_model_read_unchecked), which it makes: note [check in the import]
 * in onnx_import.c. */
OnnxModel *onnx_import_checking(Onnx__ModelProto *proto, const char *name, graft_diag *d);
void onnx_graph_free(OnnxModel *m);

/* n's type by ONNX's shape inference (a GraphTypeFn, note [IR type
 * relations] in graph.h): NULL when unknown (an op graft has no inference
 * for, an op of another domain, inputs of unknown type), or contradictory
 * (why says how); a call like one typed before takes its type (note
 * [inference memo] in onnx_types_memo.c). */
const graft_type *onnx_type_of(graft_graph *g, const graft_node *n, StrBuf *why);
/* The memo's answers for plain calls, found by their op and operands'
 * types (note [plain calls] in onnx_types.c); zeroed: empty. */
enum { ONNX_PLAIN_TYPES_BITS = 5 };
typedef struct OnnxPlainType {
    const char *op;               /* interned; NULL: an empty entry */
    int nargs;                    /* 1 or 2 */
    const graft_type *operand[2]; /* tensor types (NULL past the last) */
    const graft_type *type;       /* the memo's answer */
} OnnxPlainType;
typedef struct OnnxPlainTypes {
    OnnxPlainType pair[1 << ONNX_PLAIN_TYPES_BITS][2]; /* note [one cache slot] in keymap.h */
} OnnxPlainTypes;

/* g's cache of plain calls' types, its memo's (made on first use; freed
 * with g). */
OnnxPlainTypes *onnx_plain_types(graft_graph *g);

/* onnx_type_of_plain when plain has no answer for n's key: the memo's,
 * put in pair (n's slot of plain; NULL: n has no key of plain's) when it
 * is the memo's answer for that key. */
const graft_type *onnx_type_of_plain_missed(graft_graph *g, const graft_node *n,
                                            OnnxPlainType *pair, StrBuf *why);

/* The tensor type of operand i of n, NULL when it has none or n fewer
 * operands. */
static inline const graft_type *onnx_plain_operand(const graft_node *n, int i)
{
    const graft_type *t = i < node_nargs(n) ? node_type(node_arg(n, i)) : NULL;
    return t && t->kind == TYPE_TENSOR ? t : NULL;
}

/* Call n's key in OnnxPlainTypes, its operands' types into t: its count
 * of operands, 0 when it has no key there (an attribute, no op, other
 * than one or two operands, one of no tensor type). */
static inline int onnx_plain_key(const graft_node *n, const graft_type *t[2])
{
    int nargs = node_nargs(n);
    t[0] = onnx_plain_operand(n, 0);
    t[1] = onnx_plain_operand(n, 1);
    bool keyed = node_op(n) && node_nattrs(n) == 0 && t[0] &&
                 (nargs == 1 || (nargs == 2 && t[1]));
    return keyed ? nargs : 0;
}

/* The slot of OnnxPlainTypes of op on operands of types t. */
static inline size_t onnx_plain_slot(const char *op, const graft_type *const t[2])
{
    uint64_t h = hash_word(hash_word(hash_word(0, (uint64_t)(uintptr_t)op),
                                     (uint64_t)(uintptr_t)t[0]),
                           (uint64_t)(uintptr_t)t[1]);
    return cache_slot(h, ONNX_PLAIN_TYPES_BITS);
}

/* onnx_type_of of call n, which the caller knows is of the default
 * domain (graph_node_domain NULL) and of one result, not read by element
 * (the import's calls: note [calls typed as made] in onnx_import_types.c),
 * answered from plain when it holds the memo's answer for n's op and
 * operand types (note [plain calls] in onnx_types.c); inline, the memo
 * behind a call. */
static inline const graft_type *onnx_type_of_plain(graft_graph *g, const graft_node *n,
                                                   OnnxPlainTypes *plain, StrBuf *why)
{
    const graft_type *t[2];
    int nargs = onnx_plain_key(n, t);
    const char *op = node_op(n);
    if (!nargs)
        return op ? onnx_type_of_plain_missed(g, n, NULL, why) : NULL;
    OnnxPlainType *pair = plain->pair[onnx_plain_slot(op, t)];
    for (int k = 0; k < 2; k++)
        if (pair[k].op == op && pair[k].nargs == nargs && pair[k].operand[0] == t[0] &&
            pair[k].operand[1] == t[1])
            return pair[k].type;
    return onnx_type_of_plain_missed(g, n, pair, why);
}
/* The same inferred afresh, without the memo of note [inference memo]
 * (onnx_types_memo.c), for the tests that compare the two. */
const graft_type *onnx_type_of_fresh(graft_graph *g, const graft_node *n, StrBuf *why);

/* The ONNX name of node n of m for messages: the node's name, or for a
 * node without one (or a value that is no node's) the name of the value
 * it makes; NULL for a node the model does not name (one a rewrite made
 * before export names it). */
const char *onnx_node_label(const OnnxModel *m, const graft_node *n);

/* Writes m's graph as an ONNX model to out (note [onnx export]), binary
 * or (text) in ONNX's text syntax; false after reporting what cannot be
 * written (the caller's outfile_commit reports a failed write). */
bool onnx_export(OnnxModel *m, FILE *out, bool text, graft_diag *d);

#endif
