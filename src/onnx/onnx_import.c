/* onnx_import.c - an ONNX ModelProto as a graft graph (note [onnx import]
 * in onnx_graph.h): the import's driver, and its notes on what a model's
 * parts become.  Its parts are made by onnx_import_values.c (the values a
 * graph declares), onnx_import_node.c (its NodeProtos, whose attributes
 * and Constant nodes are onnx_import_attr.c's), onnx_import_types.c (the
 * types inferred and checked) and onnx_import_output.c (the output). */
#include "onnx_import_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_check.h"
#include "onnx_model.h"

/* note [names as decoded]: every string of a decoded model is interned
 * as it is read (note [interned strings] in onnx_decode.h), and the
 * graph interns its names in that same interner (graph_new_named), so a
 * NodeProto's inputs, outputs, op and name, a value's, an initializer's
 * are the graph's canonical names as they are: the import keys its values
 * by them and hands them to the builders that take interned names, with
 * no strlen, hash or probe (10.6 M instructions of bench/onnx_e2e.sh's
 * rewrite at 2,000 copies, and a cache of op names before them).  A name
 * the import makes or is given from elsewhere (a sparse initializer's
 * default, a subgraph's outer reads, which onnx_outer_reads interned) is
 * interned by graph_intern first, which gives a decoded name back as it
 * is: one pointer per name either way.
 *
 * note [import's op names]: a model calls a few ops many times, and each
 * NodeProto held its own copy of the op's name, which interning hashed
 * and looked up anew (190 instructions a node), later a small cache by a
 * hash of the bytes (a third of that); an op_type is now the one interned
 * name of that op, which graph_add_call_interned takes as it is.  (Through
 * graph_add_call, it was looked up among the canonical pointers seen
 * lately, note [canonical pointers] in src/ir/graph.c, a table of 64 slots
 * by address, where two of the workload's five ops met in some layouts of
 * the interner and not in others: 2.1 M instructions, 35 an op node,
 * that came and went between builds.) */

/* note [onnx attributes]: an AttributeProto becomes the graft attribute
 * value of its kind: FLOAT a float, INT an int, STRING a string (its
 * bytes), FLOATS, INTS and STRINGS lists of those, TENSOR a tensor (type
 * and raw bytes, as an initializer's), GRAPH a subgraph holding the
 * GraphProto's protobuf encoding (rules see none of it; the writer
 * unpacks it again); the other kinds (sparse tensors, type protos and
 * the plural TENSORS and GRAPHS) are opaque values named by their kind.
 * ONNX has no bool: a flag is an int (transA=1).  (onnx_import_attr.c) */

/* note [constant nodes]: a Constant node of the default domain whose one
 * attribute is its value (value, value_float, value_int, value_floats,
 * value_ints) is imported as a tensor constant, as an initializer is, so
 * that rules read it alike (x:const, a number literal and value(x) for
 * one element: note [one-element constants] in graph.h); its NodeProto
 * stays its origin, which the export writes back in its place while the
 * constant is read.  (import_constant, onnx_import_attr.c) */

/* note [import types]: the values a model declares mostly share a few
 * types (the seed's workload: two for 10,000 graph inputs), and making
 * one formats its text, 1,500 instructions per graph input
 * (bench/onnx_e2e.sh).  Each value takes the graph's one type of its
 * dtype and dims (graph_type_tensor: note [canonical tensor types] in
 * src/ir/graph_type.c), made once and found by their hash after, so that
 * values of one type share it as inferred results do (note [shared
 * types] in onnx_types.c).  (The import kept a map of its own from a
 * dtype and dims to their type until session 28: the graph's map does
 * the same.)  (onnx_import_values.c) */

/* note [declared types checked]: value_info and a graph's outputs declare
 * the types of values, which the import takes as they are.  A declared
 * type that the node's own inference contradicts (in its dtype, its rank,
 * or a dim both know) is a model that ONNX's checker refuses
 * (onnx.checker.check_model(m, full_check=True): "Inferred elem type
 * differs from existing elem type: (FLOAT) vs (INT64)", python3-onnx
 * 1.12) and ONNX Runtime does not load; so the import refuses it too, at
 * the node, and infers the type of every op call, declared or not: a node
 * whose inputs contradict each other (Add of a float and an int64) is
 * refused whether or not its result is declared.  Where they agree, the
 * declared type stays, as it may know more (a dim inference leaves "?").
 * On the 17 models of tests/onnx with the value_info of ONNX's
 * own shape inference, graft's inference agreed at every node
 * (tests/onnx_declared_types.sh).  (onnx_import_types.c) */

/* note [origins]: m->origin maps a call, and a constant of a Constant
 * node, to the NodeProto it was made of (the export writes an unchanged
 * node's bytes back, errors name it).  It is allocated at the import's
 * start with room for the ids the import makes of a NodeProto of one
 * result each (reserve_tables' estimate, note [tables estimated]), grown
 * past it by import_origins_grow (out of line, in this file: set_origin
 * stays small), and each NodeProto's node writes its entry as it is
 * made: a list of the ids, copied at the end, was 17 instructions an op
 * node of the workload.  norigin is the count of the ids made
 * that the room covers; the ids past it have no origin. */
void import_origins_grow(Importer *im, uint32_t id)
{
    size_t room = im->origin_room;
    im->m->origin = xgrow_items(im->m->origin, &room, (size_t)id + 1, sizeof *im->m->origin);
    memset(im->m->origin + im->origin_room, 0,
           (room - im->origin_room) * sizeof *im->m->origin);
    im->origin_room = (uint32_t)room;
}

/* note [tables estimated]: the tables are sized once from the model's
 * counts, not grown from small (bench/RESULTS.md, "Session 18: reading
 * ONNX": growing them cost 300 instructions per op node): a node per
 * graph input, initializer and NodeProto and a name for each value; the
 * interned strings are those names and a few ops'.  A NodeProto is taken
 * to make one value: counting each one's results and elements was a walk
 * of the NodeProtos, 9 instructions an op node of issue 34's workload,
 * and a model whose NodeProtos make more grows the tables past the
 * estimate (the node table by half, the values' and names' by doubling,
 * the origins, note [origins]) once or a few times. */
static void reserve_tables(Importer *im, const Onnx__GraphProto *gp)
{
    size_t outputs = gp->n_node;
    size_t leaves = gp->n_input + gp->n_initializer + gp->n_sparse_initializer;
    size_t nodes = leaves + gp->n_node + 2; /* (the empty tuple, the output's) */
    graph_reserve_names(im->g, leaves + outputs + 64, leaves + outputs); /* first: */
    graph_reserve(im->g, nodes); /* its names fit then */
    import_values_reserve(&im->values, leaves + outputs);
    im->m->origin = xcalloc(nodes + 1, sizeof *im->m->origin); /* note [origins] */
    im->origin_room = (uint32_t)(nodes + 1);
}

/* m->norigin: the ids made so far that m->origin covers (note [origins]),
 * which the typing and its errors read. */
static void note_origins_made(Importer *im)
{
    uint32_t made = graph_node_count(im->g);
    im->m->norigin = made < im->origin_room ? made : im->origin_room;
}

/* proto as a graph; NULL on failure (proto still the caller's). */
static OnnxModel *import_model(Onnx__ModelProto *proto, const char *name, graft_diag *d,
                               bool quiet)
{
    OnnxModel *m = xcalloc(1, sizeof *m);
    m->proto = proto;
    m->name = xstrdup(name);
    m->g = graph_new_named(onnx_model_names(proto)); /* note [names as decoded] */
    graph_set_ir(m->g, IR_ONNX);
    graph_set_type_fn(m->g, onnx_type_of);
    Onnx__GraphProto *gp = proto->graph;
    Importer im = {.m = m, .g = m->g, .d = d, .ok = true, .quiet = quiet};
    reserve_tables(&im, gp);
    if (gp->name)
        graph_set_name(m->g, gp->name);
    import_leaves(&im, gp);
    import_nodes(&im, gp);
    note_origins_made(&im);
    OutputValues out = {0};
    if (im.ok && import_graph_outputs(&im, gp, &out)) {
        import_value_info(&im, gp);
        import_infer_types(&im, &out);
    }
    if (im.ok)
        import_set_outputs(&im, gp, &out);
    import_output_values_free(&out);
    note_origins_made(&im); /* (the output's tuple too) */
    m->import_domains = graph_node_domain_count(m->g);
    m->values = im.values; /* the names in use, for the export's fresh ones */
    if (!im.ok) {
        m->proto = NULL; /* the caller's */
        onnx_graph_free(m);
        return NULL;
    }
    return m;
}

OnnxModel *onnx_import(Onnx__ModelProto *proto, const char *name, graft_diag *d)
{
    OnnxModel *m = import_model(proto, name, d, false);
    if (!m)
        onnx_model_free(proto);
    return m;
}

/* Whether onnx_model_check passes model's opsets and lists without looking
 * at them one by one: no function, no sparse initializer, the default
 * domain imported (then each node's domain is its to check: plain_node). */
static bool plain_model(const Onnx__ModelProto *model)
{
    if (model->n_functions || model->graph->n_sparse_initializer)
        return false;
    for (size_t i = 0; i < model->n_opset_import; i++) {
        const char *domain = model->opset_import[i]->domain;
        if (!domain || !domain[0] || strcmp(domain, "ai.onnx") == 0)
            return true;
    }
    return false;
}

/* note [check in the import]: onnx_model_check hashed every name of the
 * graph once more than the import does, in a table of its own (850
 * instructions an op node of bench/onnx_e2e.sh's 13,000).  So a binary
 * model read to be rewritten is imported first without it, quietly: the
 * import finds made the values a node reads (made before it, or
 * value_of would find none), a value made twice (set_value), a graph
 * output made; a node of another domain, with a subgraph, or a model with
 * functions or sparse initializers, it leaves to the check.  On any of
 * these, and on an error of its own, the quiet import stops, and the
 * model is checked and imported as onnx_import does: what is reported,
 * and when, is the same. */
OnnxModel *onnx_import_checking(Onnx__ModelProto *proto, const char *name, graft_diag *d)
{
    OnnxModel *m = plain_model(proto) ? import_model(proto, name, d, true) : NULL;
    if (m)
        return m;
    if (!onnx_model_check(proto, name, d)) {
        onnx_model_free(proto);
        return NULL;
    }
    return onnx_import(proto, name, d);
}

void onnx_graph_free(OnnxModel *m)
{
    if (!m)
        return;
    graph_free(m->g);
    vec_free(&m->ops);
    keymap_free(&m->decls);
    import_values_free(&m->values);
    keymap_free(&m->node_names);
    onnx_model_free(m->proto);
    free(m->origin);
    free(m->output_ids);
    free(m->name);
    free(m);
}

const char *onnx_node_label(const OnnxModel *m, const graft_node *n)
{
    const char *name = graph_node_name(m->g, n);
    if (name && name[0])
        return name;
    if ((name = graph_value_name(m->g, n)))
        return name;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        const graft_node *user = node_user(n, k); /* a call of several results */
        if (node_kind(user) == NODE_GETITEM && (name = graph_value_name(m->g, user)))
            return name;
    }
    return NULL;
}
