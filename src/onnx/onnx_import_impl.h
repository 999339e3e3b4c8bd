/* onnx_import_impl.h - what the import's files share (note [onnx import]
 * in onnx_graph.h): the state of one import, the helpers that name what it
 * makes, and what each file does for the driver, onnx_import.c. */
#ifndef GRAFT_ONNX_IMPORT_IMPL_H
#define GRAFT_ONNX_IMPORT_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "onnx_decode_fast.h"
#include "onnx_graph.h"

/* One import: the model it makes and what it keeps while it makes it. */
typedef struct Importer {
    OnnxModel *m;
    graft_graph *g;
    OnnxValues values; /* interned value name -> the node that makes it */
    struct {
        const Onnx__TypeProto *proto; /* a TypeProto value_type read lately, */
        const graft_type *type;       /* and its type: note [shared value types] */
    } recent[ONNX_TYPE_MEMO];
    unsigned next_recent; /* the entry of recent the next new one replaces */
    unsigned last_recent; /* the entry value_type took last */
    const char *op_noted[1 << ONNX_OPS_NOTED_BITS]; /* note [ops as imported] */
    bool domains; /* a NodeProto names a domain: note [calls typed as made] */
    uint32_t origin_room; /* entries of m->origin: more than the ids import makes */
    uint32_t after_inputs; /* the ids before it: the graph inputs' parameters */
    uint32_t after_leaves; /* before it: those, initializers and sparse ones */
    graft_diag *d;
    bool ok;
    bool quiet; /* the first try of onnx_import_checking: note [check in the import] */
} Importer;

/* In a quiet import, something onnx_model_check may refuse, or an error
 * this import would report: it stops, and the model is checked and
 * imported again, to report what it finds as it would have; true then. */
static inline bool unsure(Importer *im)
{
    if (im->quiet)
        im->ok = false;
    return im->quiet;
}

/* The node made of the value name names (note [names as decoded] in
 * onnx_import.c: the name as the decoder interned it). */
static inline graft_node *value_of(const Importer *im, const char *name)
{
    return onnx_value_named(&im->values, name);
}

/* Room in values for count names in all, at most half its slots
 * (onnx_import_values.c). */
void import_values_reserve(OnnxValues *values, size_t count);
void import_values_free(OnnxValues *values);

/* name's slot in values (name not NULL), taken when it had none. */
static inline OnnxValueSlot *values_put(OnnxValues *values, const char *name)
{
    if (values->len == values->room) /* (past reserve_tables' estimate) */
        import_values_reserve(values, values->len + 1);
    OnnxValueSlot *slot = onnx_values_slot(values, name);
    if (!slot->name) {
        slot->name = name;
        values->len++;
    }
    return slot;
}

/* n is the value name names, which is interned (note [names interned
 * once]); a NULL name names nothing. */
static inline void set_value(Importer *im, const char *name, graft_node *n)
{
    if (name) {
        OnnxValueSlot *slot = values_put(&im->values, name);
        if (slot->node && name[0]) /* made twice (an empty name makes nothing) */
            unsure(im);
        slot->node = n;
    }
    graph_set_value_name_interned(im->g, n, name);
}

/* n takes np's name, if any, which the names fresh at export then avoid
 * (OnnxModel.node_names). */
static inline void name_node(Importer *im, const graft_node *n, const Onnx__NodeProto *np)
{
    if (!np->name || !np->name[0])
        return;
    graph_set_node_name_interned(im->g, n, np->name);
    keymap_put_ptr(&im->m->node_names, np->name, n);
}

/* m->origin grown to cover id (note [origins] in onnx_import.c). */
void import_origins_grow(Importer *im, uint32_t id);

/* n's origin is np (note [origins] in onnx_import.c). */
static inline void set_origin(Importer *im, const graft_node *n, Onnx__NodeProto *np)
{
    if (node_id(n) >= im->origin_room) /* (a NodeProto of several results before) */
        import_origins_grow(im, node_id(n));
    im->m->origin[node_id(n)] = np;
}

/* ---- onnx_import_values.c: the values a graph declares */
/* A TensorProto's type and its elements as raw bytes; the graph inputs,
 * initializers and sparse initializers as the graph's leaves; the types
 * value_info gives. */
const graft_type *import_tensor_type(graft_graph *g, const Onnx__TensorProto *t);
const void *import_tensor_bytes(Importer *im, const Onnx__TensorProto *t, const graft_type *type,
                                size_t *nbytes, bool *bad);
void import_leaves(Importer *im, const Onnx__GraphProto *gp);
void import_value_info(Importer *im, const Onnx__GraphProto *gp);

/* ---- onnx_import_attr.c: attributes, and Constant nodes */
/* AttributeProto a as a graft attribute value (note [onnx attributes] in
 * onnx_import.c). */
const graft_attr_value *import_attr_value(Importer *im, const Onnx__AttributeProto *a);
/* np as a tensor constant when it is a Constant node whose value graft
 * reads (note [constant nodes] in onnx_import.c). */
bool import_constant(Importer *im, Onnx__NodeProto *np);

/* ---- onnx_import_node.c: the NodeProtos */
/* Each NodeProto of gp as a call, in order, while im->ok. */
void import_nodes(Importer *im, const Onnx__GraphProto *gp);

/* ---- onnx_import_output.c: the graph's output */
/* The values the output holds: the graph outputs, then (note [kept
 * values]) every other value nothing reads, so that the walks from the
 * output reach them.  (A graph output is unread too until the tuple
 * exists: listed, by id, is what keeps it from being listed a second
 * time.)  They are found in the walk that types what the import made
 * (import_infer_types, note [leaves skipped] in onnx_import_types.c). */
typedef struct OutputValues {
    VEC(graft_node *) values;
    uint8_t *listed; /* by id: a graph output's value */
} OutputValues;

/* Whether nothing reads n: no user, and not a result read by element. */
static inline bool unread(const graft_node *n)
{
    return node_nusers(n) == 0 && !(node_kind(n) == NODE_CALL && node_noutputs(n) > 1);
}

/* n, of id, in out when nothing reads it and no graph output is it. */
static inline void keep_unread(OutputValues *out, graft_node *n, uint32_t id)
{
    NodeKind k = node_kind(n);
    if ((k == NODE_CALL || k == NODE_GETITEM || k == NODE_CONST) && unread(n) && !out->listed[id])
        vec_push(&out->values, n);
}

/* The graph outputs' values into out, the graph's output made of out's
 * values, out freed. */
bool import_graph_outputs(Importer *im, const Onnx__GraphProto *gp, OutputValues *out);
void import_set_outputs(Importer *im, const Onnx__GraphProto *gp, OutputValues *out);
void import_output_values_free(OutputValues *out);

/* ---- onnx_import_types.c: the types of what the import made */
/* The types of what value_info does not type, and those it declares
 * checked (note [declared types checked] in onnx_import.c); in the same
 * walk, the unread values into out. */
void import_infer_types(Importer *im, OutputValues *out);

#endif
