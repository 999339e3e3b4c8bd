/* onnx_export_impl.h - what the writer's files share (note [onnx export]
 * in onnx_export.c): the state of one export, and the helpers that name
 * values and make protos. */
#ifndef GRAFT_ONNX_EXPORT_IMPL_H
#define GRAFT_ONNX_EXPORT_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "onnx_encode_impl.h"
#include "onnx_graph.h"
#include "onnx_span.h"

/* A function made by the export, packed with its name left out: two
 * partitions with the same bytes are one function (note [one function per
 * body] in onnx_export_fn.c); written as those bytes behind its name
 * (note [functions packed once] there). */
typedef struct PackedFunction {
    OnnxSpan *written; /* at the start of the malloc'd block that holds
                          the bytes: the function as written, once named */
    uint8_t *body;     /* in the block: the bytes without the name */
    size_t len;        /* of body */
} PackedFunction;

typedef struct Exporter {
    OnnxModel *m;
    graft_graph *g;
    graft_diag *d;
    const char **value;    /* per id: the name its value is written under,
                              where state says EXPORT_NAMED (note [names
                              not zeroed]) */
    const char **made_call; /* per id past the model's: the fresh name of
                               a call made, where state says
                               EXPORT_CALL_NAMED (note [made calls'
                               names]) */
    KeyMap model_call;     /* a call of the model's id + 1 -> its fresh name */
    uint8_t *live;         /* per id: reached from the output */
    uint8_t *state;        /* per id: EXPORT_DONE, EXPORT_NAMED,
                              EXPORT_CALL_NAMED, EXPORT_RENAMED */
    KeyMap scalars;        /* hash of a scalar's dtype and value -> the id of
                              the first constant written so */
    char fresh[24];        /* the next fresh number, its decimal digits
                              (note [fresh digits] in onnx_export.c) */
    size_t fresh_len;      /* how many */
    StrBuf scratch;        /* the name being made (output_name) */
    StrBuf fresh_prefix;   /* "graft_<fresh_stem>_" (note [fresh prefix]) */
    const char *fresh_stem;
    VEC(Onnx__NodeProto *) nodes;    /* the node list being made */
    VEC(uint32_t) made;              /* where in it the nodes made here are
                                        (note [made nodes packed]) */
    VEC(EncodeInterned) made_interned; /* per one: which of its strings
                                          are interned (note [interned
                                          lengths]) */
    VEC(Onnx__TensorProto *) inits;  /* the initializer list being made */
    Arena *arena;          /* the protos made (note [export arena]) */
    VEC(Onnx__FunctionProto *) functions; /* the partitions' (made here) */
    VEC(PackedFunction) packed;           /* per function: its bytes */
    KeyMap function_spans; /* a FunctionProto made -> its OnnxSpan */
    KeyMap function_of;    /* a NODE_FUNC -> its FunctionProto */
    KeyMap function_by_bytes; /* hash of a function's bytes -> its index + 1 */
    KeyMap function_names; /* an interned base name -> functions named from it */
    KeyMap initializers;   /* an initializer's interned name -> the first of
                              that name, once initializers_named (note
                              [initializers by name] in onnx_export_fn.c) */
    bool initializers_named;
    KeyMap import_bytes;   /* an opset import the functions hold -> its
                              encoding (export_pack_function) */
    VEC(const char *) temps; /* "t<k>" at k, interned (onnx_export_fn.c) */
    VEC(const char *) inputs; /* "FunctionVar_<k>" at k, interned (the same) */
    struct FunctionKeys *keys; /* the bodies' keys (onnx_export_fnkey.c) */
    Onnx__OperatorSetIdProto composite_import; /* their domain's opset import */
    const char *composite; /* their domain, interned: the calls' (note
                              [interned lengths] in onnx_export_pack.c) */
    VEC(OnnxOpDecl) need;  /* the opsets made nodes need (onnx_export_opset.c) */
    KeyMap introduced;     /* an op made (interned) -> the opset that
                              introduced it, or 0 (onnx_export_opset.c) */
    const char *made_op;   /* the op of the last node export_made_domain
                              saw, and its declaration (onnx_export_opset.c,
                              note [opsets once an op]) */
    const OnnxOpDecl *made_decl;
    bool made_domains;     /* a made call may have a domain (note [value
                              names as imported] in onnx_export.c) */
    KeyMap output_index;   /* a graph output's interned name -> its index + 1,
                              made at the first ask (export_results_moved) */
    bool ok;
} Exporter;

/* What Exporter.state says of an id: its NodeProto (or initializer) is
 * in the lists; its value's name is in Exporter.value; it is a graph
 * output's old value, renamed (note [outputs' old values renamed] in
 * onnx_export.c). */
enum { EXPORT_DONE = 1, EXPORT_NAMED = 2, EXPORT_CALL_NAMED = 4, EXPORT_RENAMED = 8 };

/* k in decimal after sb's text. */
void export_put_number(StrBuf *sb, uint64_t k);
/* A name not in use: "graft_<stem>_<k>" with the first free k. */
const char *export_fresh_name(Exporter *ex, const char *stem);
/* The fresh name of a call a rewrite made, "graft_<Op>_<k>", made once;
 * the same, "graft_<stem>_<k>" (note [made calls' names] in onnx_export.c). */
const char *export_call_name(Exporter *ex, const graft_node *call);
const char *export_named_call(Exporter *ex, const graft_node *call, const char *stem);
/* The live element reading result i of call n, or NULL. */
graft_node *export_result_of(const Exporter *ex, const graft_node *n, int i);
/* The name n's value is written under (note [onnx export]): a
 * variable's own (note [value names as imported] in onnx_export.c),
 * else the one found before, inline (most asks: a graph input's name is
 * asked by its reader and again by mark_read; a call each was 200 K
 * instructions of issue 28's export, bench/onnx_e2e.sh), else found now. */
const char *export_find_value_name(Exporter *ex, const graft_node *n);
static inline const char *export_value_name(Exporter *ex, const graft_node *n)
{
    if (node_kind(n) == NODE_VAR)
        return node_name(n);
    uint32_t id = node_id(n);
    return ex->state[id] & EXPORT_NAMED ? ex->value[id] : export_find_value_name(ex, n);
}
/* n's value named name. */
static inline void export_name_value(Exporter *ex, const graft_node *n, const char *name)
{
    ex->value[node_id(n)] = name;
    ex->state[node_id(n)] |= EXPORT_NAMED;
}
/* Whether a result of the model's call of several results, np, is named
 * as a graph output that a rewrite gave another value (note [outputs' old
 * values renamed] in onnx_export.c): np cannot be written as it was. */
bool export_results_moved(Exporter *ex, const graft_node *call, const Onnx__NodeProto *np);
/* size bytes, zeroed, freed with the export (note [export arena]). */
void *export_alloc(Exporter *ex, size_t size);
/* An array of n names, freed with the export. */
char **export_name_array(Exporter *ex, size_t n);
/* A tensor of type t holding nbytes raw bytes at data, named name. */
Onnx__TensorProto *export_new_tensor(Exporter *ex, const char *name, const graft_type *t,
                                     const void *data, size_t nbytes);
/* The attributes of call n, a rewrite's, as AttributeProtos. */
void export_set_attrs(Exporter *ex, const graft_node *n, Onnx__NodeProto *np);
/* How many of call n's operands are inputs of its own, not reads of its
 * subgraphs (note [outer reads] in onnx_subgraph.h), which follow them:
 * all of a call a rewrite made (only a call of the model has a subgraph),
 * else its NodeProto's inputs but the empty ones at their end
 * (export_proto_inputs).  Inline:
 * the key of a partition's function asks it of each call (17
 * instructions a call, a third of them the call's, bench/workload.sh). */
static inline size_t export_proto_inputs(const Onnx__NodeProto *np)
{
    size_t nin = np->n_input;
    while (nin > 0 && !np->input[nin - 1][0])
        nin--;
    return nin;
}
static inline size_t export_own_inputs(const Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    const Onnx__NodeProto *np = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    return np ? export_proto_inputs(np) : (size_t)node_nargs(n);
}
/* old's attributes (call n's NodeProto) with its subgraphs' reads
 * renamed as renames says (note [outer reads] in onnx_subgraph.h); after
 * reporting a read that cannot be renamed, old's own. */
Onnx__AttributeProto **export_renamed_subgraphs(Exporter *ex, const graft_node *n,
                                                const Onnx__NodeProto *old,
                                                const KeyMap *renames);
/* A NodeProto with room for nin inputs and nout outputs, which the
 * caller names (onnx_export_node.c). */
Onnx__NodeProto *export_new_node(Exporter *ex, size_t nin, size_t nout);
/* The NodeProto of call n (onnx_export_node.c), and when it is made here
 * which of its strings are interned (note [interned lengths] in
 * onnx_export_pack.c). */
Onnx__NodeProto *export_node_proto(Exporter *ex, const graft_node *n, EncodeInterned *interned);
/* The names of n's first count operands into names, and which of them
 * (of the first 64) are variables', interned (note [interned lengths] in
 * onnx_export_pack.c). */
static inline uint64_t export_operand_names(Exporter *ex, const graft_node *n, size_t count,
                                            char **names)
{
    uint64_t variables = 0, bit = 1; /* (bit: i's, 0 past the 64th) */
    for (size_t i = 0; i < count; i++, bit <<= 1) {
        const graft_node *a = node_arg(n, (int)i);
        names[i] = (char *)export_value_name(ex, a);
        variables |= node_kind(a) == NODE_VAR ? bit : 0;
    }
    return variables;
}
/* A scalar constant a rewrite made, as an initializer. */
void export_scalar_initializer(Exporter *ex, const graft_node *n);
/* Scalar constant n as a tensor of rank 0 named name; NULL after
 * reporting a dtype graft cannot write. */
Onnx__TensorProto *export_scalar_tensor(Exporter *ex, const graft_node *n, const char *name);
/* Puts np, a node made here, at the end of the node list; interned: which
 * of its strings are interned (note [interned lengths] in
 * onnx_export_pack.c). */
void export_push_made(Exporter *ex, Onnx__NodeProto *np, EncodeInterned interned);
/* Emits call n of a function (a partition) and the function
 * (onnx_export_fn.c, note [onnx partitions]). */
void export_function_call(Exporter *ex, const graft_node *n);
/* f's encoding, protobuf-c's pack of it (note [functions packed by hand]
 * in onnx_export_pack.c), *len bytes after room bytes left free at the
 * start of the malloc'd block returned; imports keeps the encodings of
 * the opset imports f holds (an OnnxSpan each, malloc'd with its bytes),
 * which the caller frees. */
uint8_t *export_pack_function(KeyMap *imports, const Onnx__FunctionProto *f, size_t room,
                              size_t *len);
/* The encodings of the nmade nodes of nodes at the indices made lists,
 * into bytes at those indices (note [made nodes packed] in
 * onnx_export_pack.c): their block, malloc'd, which the caller frees
 * after writing them.  interned, when not NULL, per node which of its
 * strings are interned (note [interned lengths] there).  Only where
 * export_pack_fields_known. */
uint8_t *export_pack_nodes(Onnx__NodeProto *const *nodes, const uint32_t *made,
                           const EncodeInterned *interned, size_t nmade, OnnxSpan *bytes);
/* Whether this build's onnx.proto has the fields export_pack_function
 * writes by hand, no more; when not, it calls the generic one, protobuf-c's
 * pack (the same block and room). */
bool export_pack_fields_known(void);
uint8_t *export_pack_function_generic(const Onnx__FunctionProto *f, size_t room, size_t *len);
/* Adds what the functions made need to the model written: the functions,
 * the opset import of their domain, IR version 8 (local functions). */
void export_functions_finish(Exporter *ex, Onnx__ModelProto *model);
void export_functions_free(Exporter *ex);
/* The domain of call n, recording the opset it needs when a rewrite made
 * it; then the imports added or raised (note [made ops' opsets] in
 * onnx_export_opset.c): false after reporting a model it cannot raise. */
const char *export_made_domain(Exporter *ex, const graft_node *n);
bool export_opsets_finish(Exporter *ex, Onnx__ModelProto *model);

#endif
