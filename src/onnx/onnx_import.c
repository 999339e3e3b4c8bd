/* onnx_import.c - an ONNX ModelProto as a graft graph (note [onnx import]
 * in onnx_graph.h). */
#include "onnx_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dim_symbol.h"
#include "dtype.h"
#include "onnx_check.h"
#include "onnx_decode_fast.h"
#include "onnx_model.h"
#include "onnx_subgraph.h"
#include "onnx_text_where.h"

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
static bool unsure(Importer *im)
{
    if (im->quiet)
        im->ok = false;
    return im->quiet;
}

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
static graft_node *value_of(const Importer *im, const char *name)
{
    return onnx_value_named(&im->values, name);
}

/* values with 1 << bits slots, its names moved there (all distinct: each
 * goes to the first empty slot from its own). */
static void values_resize(OnnxValues *values, unsigned bits)
{
    OnnxValues grown = {xcalloc((size_t)1 << bits, sizeof *grown.slots), bits, values->len,
                        (size_t)1 << (bits - 1)};
    for (size_t i = 0; values->slots && i < ((size_t)1 << values->bits); i++)
        if (values->slots[i].name)
            *onnx_values_slot(&grown, values->slots[i].name) = values->slots[i];
    free(values->slots);
    *values = grown;
}

/* Room in values for count names in all, at most half its slots. */
static void values_reserve(OnnxValues *values, size_t count)
{
    unsigned bits = values->slots ? values->bits : 6;
    while (count * 2 > (size_t)1 << bits)
        bits++;
    if (!values->slots || bits != values->bits)
        values_resize(values, bits);
}

static void values_free(OnnxValues *values)
{
    free(values->slots);
    *values = (OnnxValues){0};
}

/* name's slot in values (name not NULL), taken when it had none. */
static inline OnnxValueSlot *values_put(OnnxValues *values, const char *name)
{
    if (values->len == values->room) /* (past reserve_tables' estimate) */
        values_reserve(values, values->len + 1);
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

/* note [origins]: m->origin maps a call, and a constant of a Constant
 * node, to the NodeProto it was made of (the export writes an unchanged
 * node's bytes back, errors name it).  It is allocated at the import's
 * start with room for the ids the import makes of a NodeProto of one
 * result each (reserve_tables' estimate, note [tables estimated]), grown
 * past it by origins_grow, and each NodeProto's node writes its entry as
 * it is made: a list of the ids, copied at the end, was 17 instructions
 * an op node of the workload.  norigin is the count of the ids made
 * that the room covers; the ids past it have no origin. */
static __attribute__((noinline)) void origins_grow(Importer *im, uint32_t id)
{
    size_t room = im->origin_room;
    im->m->origin = xgrow_items(im->m->origin, &room, (size_t)id + 1, sizeof *im->m->origin);
    memset(im->m->origin + im->origin_room, 0,
           (room - im->origin_room) * sizeof *im->m->origin);
    im->origin_room = (uint32_t)room;
}

static inline void set_origin(Importer *im, const graft_node *n, Onnx__NodeProto *np)
{
    if (node_id(n) >= im->origin_room) /* (a NodeProto of several results before) */
        origins_grow(im, node_id(n));
    im->m->origin[node_id(n)] = np;
}

/* The dtype of ONNX's element type number, NULL when graft has none. */
static const char *elem_dtype(int32_t elem)
{
    const DTypeInfo *info = dtype_info(elem);
    return info ? info->name : NULL;
}

/* note [import types]: the values a model declares mostly share a few
 * types (the seed's workload: two for 10,000 graph inputs), and making
 * one formats its text, 1,500 instructions per graph input
 * (bench/onnx_e2e.sh).  Each value takes the graph's one type of its
 * dtype and dims (graph_type_tensor: note [canonical tensor types] in
 * src/ir/graph_type.c), made once and found by their hash after, so that
 * values of one type share it as inferred results do (note [shared
 * types] in onnx_types.c).  (The import kept a map of its own from a
 * dtype and dims to their type until session 28: the graph's map does
 * the same.) */

/* A dim of a ValueInfoProto: its number, the graph's symbol of its
 * parameter ("N": note [symbolic dims] in src/ir/dim_symbol.c), or "?"
 * when it gives neither (or a negative number, or an empty name). */
static int64_t value_dim(Importer *im, const Onnx__TensorShapeProto__Dimension *d)
{
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        return d->dim_value >= 0 ? d->dim_value : DIM_ANY;
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
        d->dim_param[0])
        return graph_dim_symbol(im->g, d->dim_param, strlen(d->dim_param));
    return DIM_ANY;
}

/* The tensor type of TypeProto tp, the graph's one of its dtype and dims
 * (note [canonical tensor types] in src/ir/graph_type.c); NULL for
 * another type or an unknown element type.  Out of line: value_type asks
 * for it once per TypeProto, and inlined there it kept value_type out of
 * the loop over the graph inputs (a call per input, 1.3 M instructions
 * of issue 34's ONNX jobs). */
static __attribute__((noinline)) const graft_type *proto_type(Importer *im,
                                                              const Onnx__TypeProto *tp)
{
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->shape)
        return NULL;
    const char *dtype = elem_dtype(tp->tensor_type->elem_type);
    const Onnx__TensorShapeProto *shape = tp->tensor_type->shape;
    if (!dtype)
        return NULL;
    int64_t small[8]; /* the dims, on the stack for most ranks */
    int64_t *dims = shape->n_dim <= 8 ? small : xcalloc(shape->n_dim, sizeof *dims);
    for (size_t i = 0; i < shape->n_dim; i++)
        dims[i] = value_dim(im, shape->dim[i]);
    const graft_type *t = graph_type_tensor(im->g, dtype, dims, (int)shape->n_dim);
    if (dims != small)
        free(dims);
    return t;
}

/* A ValueInfoProto's tensor type (proto_type).  The values of one
 * TypeProto (note [shared value types] in onnx_decode_fast.h: most of a
 * model's inputs, a few types taking turns) take one type, read once: the
 * decoder shares the last ONNX_TYPE_MEMO TypeProtos, so as many are
 * remembered here (the seed's workload: two types, one proto_type a
 * copy's five inputs where it was two), the one taken last asked first
 * (issue 34's workload: four values of one type after one of another). */
static inline const graft_type *value_type(Importer *im, const Onnx__TypeProto *tp)
{
    if (tp && im->recent[im->last_recent].proto == tp)
        return im->recent[im->last_recent].type;
    for (unsigned i = 0; tp && i < ONNX_TYPE_MEMO; i++)
        if (im->recent[i].proto == tp) {
            im->last_recent = i;
            return im->recent[i].type;
        }
    const graft_type *t = proto_type(im, tp);
    im->recent[im->next_recent].proto = tp;
    im->recent[im->next_recent].type = t;
    im->next_recent = (im->next_recent + 1) % ONNX_TYPE_MEMO;
    return t;
}

static const graft_type *tensor_type(graft_graph *g, const Onnx__TensorProto *t)
{
    const char *dtype = elem_dtype(t->data_type);
    return dtype ? graph_type_tensor(g, dtype, t->dims, (int)t->n_dims) : NULL;
}

/* Values of a typed field as raw little-endian bytes in the arena. */
static void *typed_bytes(graft_graph *g, const void *values, size_t count, size_t size)
{
    uint8_t *out = arena_alloc(graph_arena(g), count * size + 1);
    const uint8_t *in = values;
    for (size_t k = 0; k < count; k++) {
        uint64_t v = 0;
        memcpy(&v, in + k * size, size); /* the host's order ... */
        for (size_t b = 0; b < size; b++)  /* ... written little-endian */
            out[k * size + b] = (uint8_t)(v >> (8 * b));
    }
    return out;
}

/* A tensor's elements as raw bytes (note [onnx import]): NULL when graft
 * does not read them, or after reporting a size that contradicts the
 * shape (*bad set). */
static const void *tensor_bytes(Importer *im, const Onnx__TensorProto *t,
                                const graft_type *type, size_t *nbytes, bool *bad)
{
    size_t want;
    if (!type || !graph_tensor_nbytes(type, &want) ||
        t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return NULL;
    size_t have = 0;
    const void *bytes = NULL;
    if (t->has_raw_data) {
        bytes = t->raw_data.data;
        have = t->raw_data.len;
    } else if (strcmp(type->dtype, "float32") == 0 && t->n_float_data * 4 == want) {
        bytes = typed_bytes(im->g, t->float_data, t->n_float_data, 4);
        have = want;
    } else if (strcmp(type->dtype, "int64") == 0 && t->n_int64_data * 8 == want) {
        bytes = typed_bytes(im->g, t->int64_data, t->n_int64_data, 8);
        have = want;
    } else if (strcmp(type->dtype, "int32") == 0 && t->n_int32_data * 4 == want) {
        bytes = typed_bytes(im->g, t->int32_data, t->n_int32_data, 4);
        have = want;
    }
    if (bytes && have != want) {
        if (!unsure(im))
            diag_file_error(im->d, im->m->name, "tensor '%s': raw_data has %zu bytes; its type %s "
                        "needs %zu", t->name ? t->name : "", have, type->text, want);
        *bad = true;
        return NULL;
    }
    *nbytes = have;
    return bytes;
}

/* Graph inputs become parameters; initializers that are not inputs
 * tensor constants. */
static void import_leaves(Importer *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *in = gp->input[i];
        graft_node *p = graph_add_param_interned(im->g, in->name, value_type(im, in->type));
        set_value(im, in->name, p);
    }
    im->after_inputs = graph_node_count(im->g);
    for (size_t i = 0; i < gp->n_initializer && im->ok; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        const graft_node *old = value_of(im, t->name);
        if (old && node_kind(old) != NODE_VAR)
            unsure(im); /* made twice */
        if (old)
            continue; /* an input's default value */
        const graft_type *type = tensor_type(im->g, t);
        size_t nbytes = 0;
        bool bad = false;
        const void *bytes = tensor_bytes(im, t, type, &nbytes, &bad);
        im->ok = !bad;
        graft_node *c = graph_add_tensor_const(im->g, t->name, type, bytes, nbytes);
        graph_set_type(im->g, c, type);
        set_value(im, node_const_text(c), c);
    }
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) { /* values unknown to graft */
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        const char *name = sp->values && sp->values->name ? sp->values->name : "";
        const char *dtype = sp->values ? elem_dtype(sp->values->data_type) : NULL;
        const graft_type *type = dtype ? graph_type_tensor(im->g, dtype, sp->dims,
                                                           (int)sp->n_dims)
                                       : NULL;
        graft_node *c = graph_add_tensor_const(im->g, name, type, NULL, 0);
        graph_set_type(im->g, c, type);
        set_value(im, graph_intern(im->g, name), c);
    }
    im->after_leaves = graph_node_count(im->g);
}

/* note [onnx attributes]: an AttributeProto becomes the graft attribute
 * value of its kind: FLOAT a float, INT an int, STRING a string (its
 * bytes), FLOATS, INTS and STRINGS lists of those, TENSOR a tensor (type
 * and raw bytes, as an initializer's), GRAPH a subgraph holding the
 * GraphProto's protobuf encoding (rules see none of it; the writer
 * unpacks it again); the other kinds (sparse tensors, type protos and
 * the plural TENSORS and GRAPHS) are opaque values named by their kind.
 * ONNX has no bool: a flag is an int (transA=1). */
/* The shortest text that reads back as f ("1e-05" for float32's
 * 9.99999974e-06), as ONNX's printer writes a float. */
static const char *float_spelling(graft_graph *g, float f)
{
    char buf[32];
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)f);
        if (strtof(buf, NULL) == f)
            break;
    }
    return graph_intern(g, buf);
}

static graft_attr_value *list_attr(Importer *im, const Onnx__AttributeProto *a)
{
    graft_attr_value *v = graph_new_attr_value(im->g, GRAFT_ATTR_LIST);
    size_t n = a->n_floats + a->n_ints + a->n_strings;
    graft_attr_value **items = arena_array(graph_arena(im->g), n + 1, sizeof *items);
    for (size_t k = 0; k < n; k++) {
        graft_attr_kind kind = a->n_floats ? GRAFT_ATTR_FLOAT
                             : a->n_ints   ? GRAFT_ATTR_INT
                                           : GRAFT_ATTR_STRING;
        graft_attr_value *it = items[k] = graph_new_attr_value(im->g, kind);
        if (kind == GRAFT_ATTR_FLOAT)
            it->f = a->floats[k];
        else if (kind == GRAFT_ATTR_INT)
            it->i = a->ints[k];
        else
            it->s = graph_intern_n(im->g, (const char *)a->strings[k].data, a->strings[k].len);
    }
    v->nitems = (int)n;
    v->items = (const graft_attr_value *const *)items;
    return v;
}

static graft_attr_value *tensor_attr(Importer *im, const Onnx__TensorProto *t)
{
    graft_attr_value *v = graph_new_attr_value(im->g, GRAFT_ATTR_TENSOR);
    v->type = tensor_type(im->g, t);
    bool bad = false;
    v->data = tensor_bytes(im, t, v->type, &v->nbytes, &bad);
    im->ok &= !bad;
    return v;
}

static graft_attr_value *graph_attr(Importer *im, const Onnx__GraphProto *sub)
{
    graft_attr_value *v = graph_new_attr_value(im->g, GRAFT_ATTR_GRAPH);
    v->nbytes = onnx__graph_proto__get_packed_size(sub);
    uint8_t *bytes = arena_alloc(graph_arena(im->g), v->nbytes + 1);
    onnx__graph_proto__pack(sub, bytes);
    v->data = bytes;
    return v;
}

static const graft_attr_value *attr_value(Importer *im, const Onnx__AttributeProto *a)
{
    graft_attr_value *v;
    switch (a->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        v = graph_new_attr_value(im->g, GRAFT_ATTR_FLOAT);
        v->f = a->f;
        v->spelling = float_spelling(im->g, a->f);
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        v = graph_new_attr_value(im->g, GRAFT_ATTR_INT);
        v->i = a->i;
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        v = graph_new_attr_value(im->g, GRAFT_ATTR_STRING);
        v->s = graph_intern_n(im->g, (const char *)a->s.data, a->s.len);
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
        return list_attr(im, a);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
        if (a->t)
            return tensor_attr(im, a->t);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        if (a->g)
            return graph_attr(im, a->g);
        break;
    default:
        break;
    }
    v = graph_new_attr_value(im->g, GRAFT_ATTR_OPAQUE);
    v->spelling = graph_intern(im->g, "<an ONNX attribute graft does not read>");
    return v;
}

/* The operands of node np: the values its inputs name, the empty tuple
 * for one left out in the middle, none for those left out at the end
 * (note [absent operands] in src/runtime/eval_impl.h). */
static int node_operands(Importer *im, const Onnx__NodeProto *np, graft_node **args)
{
    size_t n = np->n_input;
    while (n > 0 && !np->input[n - 1][0])
        n--;
    for (size_t i = 0; i < n; i++) {
        if (!np->input[i][0]) {
            if (!im->m->absent)
                im->m->absent = graph_add_tuple(im->g, NULL, 0);
            args[i] = im->m->absent;
        } else if (!(args[i] = value_of(im, np->input[i])) && unsure(im))
            return (int)i; /* not made before np: onnx_model_check says how */
    }
    return (int)n;
}

/* Names the node's results: the call itself, or its elements. */
static void node_results(Importer *im, const Onnx__NodeProto *np, graft_node *call)
{
    if (np->n_output <= 1) {
        if (np->n_output == 1)
            set_value(im, np->output[0], call);
        return;
    }
    graph_set_noutputs(im->g, call, (int)np->n_output);
    for (size_t i = 0; i < np->n_output; i++)
        if (np->output[i][0])
            set_value(im, np->output[i], graph_result(im->g, call, (int)i));
}

/* The bytes and type of a Constant's value_float, value_int,
 * value_floats or value_ints (float32 or int64, rank 0 or 1); NULL for
 * another attribute. */
static const void *listed_value(Importer *im, const Onnx__AttributeProto *a,
                                const graft_type **type, size_t *nbytes)
{
    bool f = strcmp(a->name, "value_float") == 0, fs = strcmp(a->name, "value_floats") == 0;
    bool i = strcmp(a->name, "value_int") == 0, is = strcmp(a->name, "value_ints") == 0;
    if (!(f || fs || i || is))
        return NULL;
    size_t count = f || i ? 1 : fs ? a->n_floats : a->n_ints, size = f || fs ? 4 : 8;
    unsigned char *bytes = arena_alloc(graph_arena(im->g), count * size + 1);
    for (size_t k = 0; k < count; k++) {
        float fv = f ? a->f : fs ? a->floats[k] : 0;
        int64_t iv = i ? a->i : is ? a->ints[k] : 0;
        uint64_t bits = (uint64_t)iv;
        uint32_t b32;
        memcpy(&b32, &fv, 4);
        bits = size == 4 ? b32 : bits;
        for (size_t b = 0; b < size; b++) /* little-endian, as raw_data */
            bytes[k * size + b] = (unsigned char)(bits >> (8 * b));
    }
    int64_t dims[1] = {(int64_t)count};
    *type = graph_type_tensor(im->g, size == 4 ? "float32" : "int64", dims, f || i ? 0 : 1);
    *nbytes = count * size;
    return bytes;
}

/* note [constant nodes]: a Constant node of the default domain whose one
 * attribute is its value (value, value_float, value_int, value_floats,
 * value_ints) is imported as a tensor constant, as an initializer is, so
 * that rules read it alike (x:const, a number literal and value(x) for
 * one element: note [one-element constants] in graph.h); its NodeProto
 * stays its origin, which the export writes back in its place while the
 * constant is read. */
static bool import_constant(Importer *im, Onnx__NodeProto *np)
{
    bool plain = !(np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0);
    const Onnx__AttributeProto *a = np->n_attribute == 1 ? np->attribute[0] : NULL;
    if (!plain || !a || np->n_input != 0 || np->n_output != 1 || /* (cheap tests first) */
        strcmp(np->op_type, "Constant") != 0)
        return false;
    const graft_type *type = NULL;
    size_t nbytes = 0;
    bool bad = false;
    const void *bytes = listed_value(im, a, &type, &nbytes);
    if (!bytes && strcmp(a->name, "value") == 0 && a->t &&
        a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR) {
        type = tensor_type(im->g, a->t);
        bytes = tensor_bytes(im, a->t, type, &nbytes, &bad);
    }
    if (bad)
        im->ok = false; /* (reported) */
    if (bad || !bytes || !type)
        return bad;
    graft_node *c = graph_add_tensor_const(im->g, np->output[0], type, bytes, nbytes);
    graph_set_type(im->g, c, type);
    name_node(im, c, np);
    set_origin(im, c, np);
    set_value(im, np->output[0], c);
    return true;
}

/* The values np's subgraphs read from this graph, as np's operands after
 * its own inputs (note [outer reads] in onnx_subgraph.h); args has room. */
static int outer_operands(Importer *im, const Onnx__NodeProto *np, const char *const *outer,
                          size_t nouter, graft_node **args)
{
    for (size_t k = 0; k < nouter; k++) {
        args[k] = value_of(im, outer[k]); /* onnx_check saw it made before np */
        if (!args[k] && unsure(im))
            return (int)k;
        if (!args[k]) { /* (a model the check did not see: never, but no crash) */
            diag_file_error(im->d, im->m->name, "node '%s' (%s): a subgraph reads '%s', "
                            "which no value before it makes", np->name ? np->name : "",
                            np->op_type, outer[k]);
            im->ok = false;
            return (int)k;
        }
    }
    return (int)nouter;
}

/* Whether onnx_model_check passes np without looking further than its
 * reads: an op of the default domain, no subgraph. */
static bool plain_node(const Onnx__NodeProto *np)
{
    if (np->domain && np->domain[0])
        return false;
    for (size_t i = 0; i < np->n_attribute; i++)
        if (np->attribute[i]->g || np->attribute[i]->n_graphs)
            return false;
    return true;
}

/* The domain the import gives np's call (NULL: the default, "" or
 * "ai.onnx"), which graph_node_domain reads back. */
static const char *call_domain(const Onnx__NodeProto *np)
{
    return np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0 ? np->domain
                                                                           : NULL;
}

/* op, of the default domain, in m->ops unless it is the one noted in
 * its slot (note [ops as imported] in onnx_graph.h). */
static inline void note_default_op(Importer *im, const char *op)
{
    const char **noted = &im->op_noted[cache_slot((uint64_t)(uintptr_t)op, ONNX_OPS_NOTED_BITS)];
    if (*noted != op) {
        *noted = op;
        vec_push(&im->m->ops, ((OnnxOpCall){op, NULL}));
    }
}

/* np's op and domain in m->ops (note [ops as imported]). */
static void note_op(Importer *im, const Onnx__NodeProto *np)
{
    const char *op = np->op_type;
    if (!op)
        return; /* (no call's op: check_ops passes it) */
    if (np->domain && np->domain[0]) {
        im->domains = true;
        vec_push(&im->m->ops, ((OnnxOpCall){op, call_domain(np)}));
        return;
    }
    note_default_op(im, op);
}

/* note [plain nodes]: most NodeProtos (issue 34's workload: all) are an
 * op of the default domain without attributes, reading a few values made
 * before them, none left out, and naming one result: a call of its
 * operands, that value.  import_node's general path asks each of them
 * whether it is a Constant, has a subgraph, outer reads, attributes,
 * operands left out or several results; such a node is made here with
 * none of those questions (26 instructions an op node fewer).  One that
 * reads a value not made yet goes on to the general path, which reports
 * it (or, quiet, leaves it to the check); nothing is made before that. */
enum { PLAIN_OPERANDS = 8 };

/* np made as a plain node when it is one (note [plain nodes]); whether
 * it was. */
static inline bool import_plain_node(Importer *im, Onnx__NodeProto *np)
{
    size_t nargs = np->n_input;
    if (np->n_attribute || (np->domain && np->domain[0]) || np->n_output != 1 ||
        nargs > PLAIN_OPERANDS || !np->op_type || !np->output[0][0])
        return false;
    note_default_op(im, np->op_type); /* (what note_op does of it) */
    graft_node *args[PLAIN_OPERANDS];
    for (size_t i = 0; i < nargs; i++) /* (a name, the table made: value_of's tests left out) */
        if (!np->input[i][0] || !(args[i] = onnx_values_slot(&im->values, np->input[i])->node))
            return false;
    graft_node *call = graph_add_call_interned(im->g, np->op_type, args, (int)nargs, NULL, 0);
    name_node(im, call, np);
    set_origin(im, call, np);
    set_value(im, np->output[0], call);
    return true;
}

static void import_general_node(Importer *im, Onnx__NodeProto *np);

/* np as a plain node (note [plain nodes]), else by the general path, out
 * of line: inline in import_model's loop, its code and registers cost
 * each plain node 15 instructions (issue 34's workload). */
static inline void import_node(Importer *im, Onnx__NodeProto *np)
{
    if (!import_plain_node(im, np))
        import_general_node(im, np);
}

/* note [subgraphs noted]: before the main graph's rules, the runner walks
 * every NodeProto for the subgraphs in their attributes (subgraph_walk in
 * src/runtime), 47 instructions an op node on bench/workload.sh's ONNX
 * jobs, which have none.  Every NodeProto of the main graph passes the
 * import once, and one with attributes, any subgraph's, by the general
 * path (note [plain nodes]): there the import notes whether one holds a
 * graph (OnnxModel.subgraphs), and the walk, told there is none, stops
 * at once (subgraph_any). */
static void note_subgraphs(Importer *im, const Onnx__NodeProto *np)
{
    for (size_t i = 0; i < np->n_attribute; i++)
        if (np->attribute[i]->g)
            im->m->subgraphs = true;
}

static __attribute__((noinline)) void import_general_node(Importer *im, Onnx__NodeProto *np)
{
    note_op(im, np); /* (again, for a plain node whose operand is not made: no matter) */
    note_subgraphs(im, np);
    if (im->quiet && !plain_node(np)) {
        unsure(im);
        return;
    }
    if (import_constant(im, np))
        return;
    const char **outer = NULL; /* (a subgraph is an attribute: none without) */
    size_t nouter = np->n_attribute ? onnx_outer_reads(im->g, np, &outer) : 0;
    size_t most = np->n_input + nouter;
    graft_node *few[8];
    graft_node **args = most < 8 ? few : xmalloc(most * sizeof *args);
    int nargs = node_operands(im, np, args);
    if (outer) { /* (most nodes read none: no loop, no free) */
        nargs += outer_operands(im, np, outer, nouter, args + nargs);
        free(outer);
    }
    if (!im->ok && im->quiet) {
        if (args != few)
            free(args);
        return;
    }
    graft_attr *attrs = np->n_attribute ? arena_array(graph_arena(im->g), np->n_attribute,
                                                      sizeof *attrs) : NULL;
    for (size_t i = 0; i < np->n_attribute; i++)
        attrs[i] = (graft_attr){graph_intern(im->g, np->attribute[i]->name),
                                attr_value(im, np->attribute[i])};
    graft_node *call = graph_add_call_interned(im->g, np->op_type, args, nargs, attrs,
                                               (int)np->n_attribute);
    if (args != few)
        free(args);
    if (call_domain(np))
        graph_set_node_domain(im->g, call, np->domain);
    name_node(im, call, np);
    set_origin(im, call, np);
    node_results(im, np, call);
}

/* Types value_info gives the values it names. */
static void import_value_info(Importer *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_value_info + gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = i < gp->n_value_info ? gp->value_info[i]
                                                              : gp->output[i - gp->n_value_info];
        graft_node *n = vi->name ? value_of(im, vi->name) : NULL;
        const graft_type *t = n && !node_type(n) ? value_type(im, vi->type) : NULL;
        if (t)
            graph_set_type(im->g, n, t);
    }
}

/* Whether nothing reads n: no user, and not a result read by element. */
static bool unread(const graft_node *n)
{
    return node_nusers(n) == 0 && !(node_kind(n) == NODE_CALL && node_noutputs(n) > 1);
}

/* The values the output holds: the graph outputs, then (note [kept
 * values]) every other value nothing reads, so that the walks from the
 * output reach them.  (A graph output is unread too until the tuple
 * exists: listed, by id, is what keeps it from being listed a second
 * time.)  note [leaves skipped]: the walk over the ids that finds the
 * unread values, and infers types in the same steps (infer_types),
 * starts past the leaves that cannot matter to it, a graph input's
 * parameter (no value kept) and, for inference, an initializer (no
 * call): the seed's workload has 50,000 inputs to 60,000 op nodes, and a
 * step of a loop that skips one, a call of graph_node and of
 * graph_node_count, cost 20 instructions an op node a loop
 * (bench/onnx_e2e.sh); a walk of their own for the unread values cost 4
 * (issue 34's workload). */
typedef struct OutputValues {
    VEC(graft_node *) values;
    uint8_t *listed; /* by id: a graph output's value */
} OutputValues;

/* The graph outputs' values into out; false when one is not made (a quiet
 * import's stop, note [check in the import]). */
static bool graph_outputs(Importer *im, const Onnx__GraphProto *gp, OutputValues *out)
{
    out->listed = xcalloc(graph_node_count(im->g) + 1, 1);
    uint32_t *ids = im->m->output_ids = xmalloc((gp->n_output + 1) * sizeof *ids);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name;
        graft_node *made = name && name[0] ? value_of(im, name) : NULL;
        if (!made && unsure(im))
            return false;
        vec_push(&out->values, made); /* onnx_check saw it made */
        ids[i] = made ? node_id(made) : UINT32_MAX; /* (by id: a rewrite may free it) */
        if (made)
            out->listed[ids[i]] = 1;
    }
    return true;
}

/* n, of id, in out when nothing reads it and no graph output is it. */
static inline void keep_unread(OutputValues *out, graft_node *n, uint32_t id)
{
    NodeKind k = node_kind(n);
    if ((k == NODE_CALL || k == NODE_GETITEM || k == NODE_CONST) && unread(n) && !out->listed[id])
        vec_push(&out->values, n);
}

/* The graph's output made of out's values (freed). */
static void set_outputs(Importer *im, const Onnx__GraphProto *gp, OutputValues *out)
{
    im->m->noutputs = (int)gp->n_output;
    im->m->tupled = !(out->values.len == 1 && gp->n_output == 1);
    graph_set_output(im->g, im->m->tupled ? graph_add_tuple(im->g, out->values.items,
                                                            (int)out->values.len)
                                          : out->values.items[0]);
    graph_fix_outputs(im->g, im->m->tupled ? (int)gp->n_output : OUTPUT_ONE_VALUE);
}

static void output_values_free(OutputValues *out)
{
    vec_free(&out->values);
    free(out->listed);
}

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
 * (tests/onnx_declared_types.sh). */

/* Whether what declared and made say of a tensor agrees: at once when
 * they are one type, as a declared type inference finds again mostly is
 * (one type per dtype and dims: note [canonical tensor types] in
 * src/ir/graph_type.c; issue 34's workload: every graph output). */
static bool types_agree(const graft_type *declared, const graft_type *made)
{
    if (declared == made)
        return true;
    if (declared->kind != TYPE_TENSOR || made->kind != TYPE_TENSOR)
        return true; /* nothing declared of a tuple or an opaque type */
    if (declared->dtype && made->dtype && declared->dtype != made->dtype)
        return false; /* (interned) */
    if (declared->rank < 0 || made->rank < 0)
        return true;
    if (declared->rank != made->rank)
        return false;
    for (int k = 0; k < declared->rank; k++) /* dim_param "N" may be any size, as in ONNX */
        if (!dims_may_be_equal(declared->dims[k], made->dims[k], DIM_SYMBOL_ANY_SIZE))
            return false;
    return true;
}

/* note [calls typed as made]: onnx_type_of asks a call's domain
 * (graph_node_domain, a call into src/ir and a KeyMap's) and counts its
 * results by walking its uses, and the import knows both of every call
 * it made from its NodeProto: no domain but the default's (import_node
 * names another), one result (a NodeProto of one output or none; several
 * are elements, and no element of a call of one exists yet).  So such a
 * call is typed by onnx_type_of_plain, told so (29 instructions a call
 * fewer on issue 34's workload), which answers most from the graph's
 * cache of the memo's answers (note [made calls' types]).
 * Any other call goes through onnx_type_of as a rewrite's do.  Every call
 * the import makes is a NodeProto's (import_node), and one of several
 * results is told so (graph_set_noutputs, node_results): so when no
 * NodeProto names a domain (note_op tells), node_noutputs answers without
 * the NodeProto. */

/* note [made calls' types]: the import's calls are most of a model's
 * plain calls (note [plain calls] in onnx_types.c: every one of issue
 * 34's workload's 60,000), so the import asks for the graph's cache of
 * their types once (infer_types) and looks a call up there inline
 * (onnx_type_of_plain), with no call into the memo.  Until session 28
 * the import kept a cache of its own, and the memo a second one, found
 * through the graph and keyed in memory, behind it; the inline cache
 * saved 134 instructions a call over the memo's, and the memo's 126 over
 * its whole key (8.0 M and 7.6 M on the workload's ONNX partition, at
 * 10,000 copies: bench/RESULTS.md, session 28, branch infer): one cache,
 * the inline one, is now both. */
static const graft_type *call_type(Importer *im, const graft_node *n, OnnxPlainTypes *plain,
                                   StrBuf *why)
{
    bool made = !im->domains && node_noutputs(n) <= 1;
    if (!made) {
        uint32_t id = node_id(n);
        const Onnx__NodeProto *np = id < im->m->norigin ? im->m->origin[id] : NULL;
        made = np && np->n_output <= 1 && !(np->domain && np->domain[0]);
    }
    return made ? onnx_type_of_plain(im->g, n, plain, why) : onnx_type_of(im->g, n, why);
}

/* The type inference gives n: its relation's for a call (plain: the
 * graph's cache), the tuple's field for an element; NULL when it knows
 * none.  why: a contradiction. */
static const graft_type *inferred_type(Importer *im, const graft_node *n, OnnxPlainTypes *plain,
                                       StrBuf *why)
{
    if (node_kind(n) == NODE_CALL)
        return call_type(im, n, plain, why);
    if (node_kind(n) != NODE_GETITEM)
        return NULL;
    const graft_type *tuple = node_type(node_arg(n, 0));
    return tuple && tuple->kind == TYPE_TUPLE && node_index(n) < tuple->nfields
               ? tuple->fields[node_index(n)]
               : NULL;
}

/* "node 'LABEL' (OP): WHY", at the node's op in a text model (note [text
 * positions]); an element's error is its call's. */
static void report_at_node(Importer *im, const graft_node *call, const char *why)
{
    const char *label = onnx_node_label(im->m, call);
    uint32_t id = node_id(call);
    const Onnx__NodeProto *np = id < im->m->norigin ? im->m->origin[id] : NULL;
    onnx_error_at(im->d, im->m->proto, im->m->name, np, "node '%s' (%s): %s",
                  label ? label : "?", node_op(call) ? node_op(call) : "?", why);
}

/* The types of what value_info does not type, operands first (ids are in
 * ONNX's topological order), and those it declares checked (note
 * [declared types checked]); past the leaves (note [leaves skipped]),
 * and no node is made meanwhile.  A contradiction is an error naming the
 * node.  In the same walk, the unread values into out. */
static void infer_types(Importer *im, OutputValues *out)
{
    StrBuf why = {0};
    uint32_t count = graph_node_count(im->g);
    OnnxPlainTypes *plain = onnx_plain_types(im->g); /* note [made calls' types] */
    for (uint32_t id = im->after_inputs; id < count && im->ok; id++) {
        graft_node *n = graph_node(im->g, id);
        keep_unread(out, n, id);
        if (id < im->after_leaves)
            continue; /* (an initializer: no call) */
        const graft_type *declared = node_type(n);
        const graft_type *t = inferred_type(im, n, plain, &why);
        if (!why.len && t && declared && !types_agree(declared, t)) {
            const char *value = graph_value_name(im->g, n);
            strbuf_printf(&why, "'%s' is declared %s, but the node makes %s",
                          value ? value : "?", declared->text, t->text);
        }
        if (why.len && unsure(im))
            break;
        if (why.len) {
            report_at_node(im, node_kind(n) == NODE_GETITEM ? node_arg(n, 0) : n, why.data);
            im->ok = false;
        } else if (t && !declared)
            graph_set_type(im->g, n, t);
    }
    strbuf_free(&why);
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
    values_reserve(&im->values, leaves + outputs);
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
    for (size_t i = 0; i < gp->n_node && im.ok; i++)
        import_node(&im, gp->node[i]);
    note_origins_made(&im);
    OutputValues out = {0};
    if (im.ok && graph_outputs(&im, gp, &out)) {
        import_value_info(&im, gp);
        infer_types(&im, &out);
    }
    if (im.ok)
        set_outputs(&im, gp, &out);
    output_values_free(&out);
    note_origins_made(&im); /* (the output's tuple too) */
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
    values_free(&m->values);
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
