/* onnx_export_node.c - the NodeProtos of the calls written (note [onnx
 * export] in onnx_export.c): a call's own when nothing changed it, else a
 * new one with its attributes converted (note [onnx attributes] in
 * onnx_import.c, backwards), and the initializers of scalar constants. */
#include "onnx_export_impl.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_subgraph.h"
#include "onnx_text_where.h"

/* The NodeProto call n came from, when nothing changed what it reads
 * (nin inputs of its own; the reads of its subgraphs, renames). */
static Onnx__NodeProto *untouched(Exporter *ex, const graft_node *n, size_t nin,
                                  const KeyMap *renames)
{
    uint32_t id = node_id(n);
    Onnx__NodeProto *np = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    if (!np || renames->len)
        return NULL;
    for (size_t i = 0; i < nin; i++)
        if (strcmp(export_value_name(ex, node_arg(n, (int)i)), np->input[i]) != 0)
            return NULL;
    if (node_noutputs(n) <= 1 && np->n_output == 1 &&
        strcmp(export_value_name(ex, n), np->output[0]) != 0)
        return NULL;
    if (np->n_output > 1 && export_results_moved(ex, n, np))
        return NULL;
    return np;
}

/* The outer names np's subgraphs read (operands nin on of n) that are now
 * written under other names, mapped to those names (note [outer reads]). */
static void outer_renames(Exporter *ex, const graft_node *n, const Onnx__NodeProto *np,
                          size_t nin, KeyMap *renames)
{
    const char **outer;
    size_t nouter = onnx_outer_reads(ex->g, np, &outer);
    for (size_t k = 0; k < nouter && nin + k < (size_t)node_nargs(n); k++) {
        const char *now = graph_intern(ex->g, export_value_name(ex, node_arg(n, (int)(nin + k))));
        if (now != outer[k])
            keymap_put_ptr(renames, outer[k], now);
    }
    free(outer);
}

char **export_name_array(Exporter *ex, size_t n)
{
    return export_alloc(ex, (n + 1) * sizeof(char *));
}

/* How many results call n writes: its value, or when it is read by
 * element as many as it has or its elements read. */
static size_t output_count(const Exporter *ex, const graft_node *n, int *count)
{
    *count = node_noutputs(n) > 1 ? node_noutputs(n) : 0;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        const graft_node *user = node_user(n, k);
        if (node_kind(user) == NODE_GETITEM && ex->live[node_id(user)] &&
            node_index(user) >= *count)
            *count = node_index(user) + 1;
    }
    return *count > 0 ? (size_t)*count : 1;
}

/* The results of call n into np->output (room for output_count's): its
 * value, or its elements ("" for one nothing reads). */
static void set_outputs(Exporter *ex, const graft_node *n, int count, Onnx__NodeProto *np)
{
    for (size_t i = 0; i < np->n_output; i++) {
        const graft_node *r = count > 0 ? export_result_of(ex, n, (int)i) : n;
        np->output[i] = (char *)(r ? export_value_name(ex, r) : "");
    }
}

/* a (room for it) as an attribute named name of type type. */
static Onnx__AttributeProto *new_attr(Onnx__AttributeProto *a, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = true;
    a->type = type;
    return a;
}

/* A tensor of type t holding nbytes raw bytes at data, named name. */
Onnx__TensorProto *export_new_tensor(Exporter *ex, const char *name, const graft_type *t,
                                     const void *data, size_t nbytes)
{
    Onnx__TensorProto *tp = export_alloc(ex, sizeof *tp);
    onnx__tensor_proto__init(tp);
    tp->name = (char *)name;
    tp->n_dims = (size_t)t->rank;
    tp->dims = (int64_t *)t->dims;
    tp->has_data_type = true;
    tp->data_type = (int32_t)dtype_from_name(t->dtype);
    tp->has_raw_data = true;
    tp->raw_data.data = (uint8_t *)data;
    tp->raw_data.len = nbytes;
    return tp;
}

/* A list attribute: INTS, FLOATS or STRINGS by its first item (INTS when
 * empty); false for a list of something else. */
static bool list_attr(Exporter *ex, const graft_attr_value *v, Onnx__AttributeProto *a)
{
    graft_attr_kind kind = v->nitems ? v->items[0]->kind : GRAFT_ATTR_INT;
    a->type = kind == GRAFT_ATTR_FLOAT    ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS
            : kind == GRAFT_ATTR_STRING ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS
                                        : ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    size_t n = (size_t)v->nitems;
    void *items = export_alloc(ex, (n + 1) * (kind == GRAFT_ATTR_STRING
                                                   ? sizeof(ProtobufCBinaryData) : 8));
    for (size_t i = 0; i < n; i++) {
        const graft_attr_value *it = v->items[i];
        if (it->kind != kind && !(kind == GRAFT_ATTR_FLOAT && it->kind == GRAFT_ATTR_INT))
            return false;
        if (kind == GRAFT_ATTR_FLOAT)
            ((float *)items)[i] = (float)(it->kind == GRAFT_ATTR_INT ? (double)it->i : it->f);
        else if (kind == GRAFT_ATTR_STRING)
            ((ProtobufCBinaryData *)items)[i] = (ProtobufCBinaryData){strlen(it->s),
                                                                      (uint8_t *)it->s};
        else
            ((int64_t *)items)[i] = it->i;
    }
    a->n_floats = kind == GRAFT_ATTR_FLOAT ? n : 0;
    a->floats = kind == GRAFT_ATTR_FLOAT ? items : NULL;
    a->n_strings = kind == GRAFT_ATTR_STRING ? n : 0;
    a->strings = kind == GRAFT_ATTR_STRING ? items : NULL;
    a->n_ints = kind != GRAFT_ATTR_FLOAT && kind != GRAFT_ATTR_STRING ? n : 0;
    a->ints = a->n_ints ? items : NULL;
    return kind == GRAFT_ATTR_INT || kind == GRAFT_ATTR_FLOAT || kind == GRAFT_ATTR_STRING;
}

/* One attribute of a call a rewrite made (note [onnx attributes] in
 * onnx_import.c, backwards), in room; NULL for None (left out), and after
 * reporting a value ONNX has no attribute for. */
static Onnx__AttributeProto *attr_proto(Exporter *ex, const graft_node *n, const graft_attr *at,
                                        Onnx__AttributeProto *room)
{
    const graft_attr_value *v = at->value;
    Onnx__AttributeProto *a = new_attr(room, at->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    bool ok = true;
    switch (v->kind) {
    case GRAFT_ATTR_INT:
    case GRAFT_ATTR_BOOL:
        a->has_i = true;
        a->i = v->i;
        break;
    case GRAFT_ATTR_FLOAT:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
        a->has_f = true;
        a->f = (float)v->f;
        break;
    case GRAFT_ATTR_STRING:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        a->has_s = true;
        a->s = (ProtobufCBinaryData){strlen(v->s), (uint8_t *)v->s};
        break;
    case GRAFT_ATTR_LIST:
        ok = list_attr(ex, v, a);
        break;
    case GRAFT_ATTR_TENSOR:
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
        a->t = v->type && v->data ? export_new_tensor(ex, "", v->type, v->data, v->nbytes) : NULL;
        ok = a->t != NULL;
        break;
    case GRAFT_ATTR_NULL:
        return NULL;
    default:
        ok = false;
    }
    if (!ok) {
        diag_file_error(ex->d, ex->m->name, "the %s node a rewrite made has attribute '%s', "
                        "whose value ONNX has no attribute type for", node_op(n), at->name);
        ex->ok = false;
    }
    return a;
}

void export_set_attrs(Exporter *ex, const graft_node *n, Onnx__NodeProto *np)
{
    size_t nattrs = (size_t)node_nattrs(n); /* the list and the attributes in one block */
    if (!nattrs)
        return; /* (no list: as protobuf-c decodes a node of none) */
    np->attribute = export_alloc(ex, (nattrs + 1) * sizeof *np->attribute +
                                         nattrs * sizeof(Onnx__AttributeProto));
    Onnx__AttributeProto *room = (Onnx__AttributeProto *)(np->attribute + nattrs + 1);
    for (int i = 0; i < node_nattrs(n); i++) {
        Onnx__AttributeProto *a = attr_proto(ex, n, node_attr(n, i), room + i);
        if (a)
            np->attribute[np->n_attribute++] = a;
    }
}

Onnx__AttributeProto **export_renamed_subgraphs(Exporter *ex, const graft_node *n,
                                                const Onnx__NodeProto *old,
                                                const KeyMap *renames)
{
    const char *captured[2];
    Onnx__AttributeProto **attrs = onnx_rename_outer_reads(ex->g, old, renames, captured);
    if (attrs)
        return attrs;
    const char *label = onnx_node_label(ex->m, n); /* at old's op in a text model: */
    onnx_error_at(ex->d, ex->m->proto, ex->m->name, old, /* note [text positions] */
                  "node '%s' (%s): a subgraph reads '%s', which a rewrite replaced by '%s', a "
                  "name that subgraph makes itself (ONNX forbids a subgraph to repeat an outer "
                  "name)", label ? label : "?", node_op(n), captured[0], captured[1]);
    ex->ok = false;
    return old->attribute;
}

/* The node and its two name arrays in one block (note [export arena] in
 * onnx_export.c), not zeroed: the node is set from its initial value and
 * the arrays' NULLs after their ends here, their names by the caller
 * (zeroing the block in arena_alloc's call, then setting the node, was
 * 45 instructions of each node the export makes, bench/workload.sh). */
Onnx__NodeProto *export_new_node(Exporter *ex, size_t nin, size_t nout)
{
    size_t size = sizeof(Onnx__NodeProto) + (nin + nout + 2) * sizeof(char *);
    Onnx__NodeProto *np = arena_alloc_raw(ex->arena, size);
    *np = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
    np->n_input = nin;
    np->input = (char **)(np + 1);
    np->input[nin] = NULL;
    np->n_output = nout;
    np->output = np->input + nin + 1;
    np->output[nout] = NULL;
    return np;
}

/* The NodeProto of call n: its own when nothing changed it, else a new
 * one (a rewritten call of the model keeps its name, domain, doc string
 * and attributes). */
Onnx__NodeProto *export_node_proto(Exporter *ex, const graft_node *n, EncodeInterned *interned)
{
    uint32_t id = node_id(n);
    Onnx__NodeProto *old = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    size_t nin = export_own_inputs(ex, n);
    KeyMap renames = {0};
    if (old)
        outer_renames(ex, n, old, nin, &renames);
    Onnx__NodeProto *same = untouched(ex, n, nin, &renames);
    if (same) {
        keymap_free(&renames);
        return same;
    }
    int count;
    size_t nout = output_count(ex, n, &count);
    Onnx__NodeProto *np = export_new_node(ex, nin, nout);
    /* its variables' names interned, its value's name a call's (none but
     * an interned one: note [interned lengths] in onnx_export_pack.c),
     * and its op, node_op(n) */
    *interned = (EncodeInterned){export_operand_names(ex, n, nin, np->input), count == 0,
                                 false, true, false};
    set_outputs(ex, n, count, np);
    np->op_type = (char *)node_op(n);
    np->domain = (char *)export_made_domain(ex, n);
    if (old) {
        np->name = old->name;
        np->domain = old->domain;
        np->doc_string = old->doc_string;
        np->n_attribute = old->n_attribute;
        np->attribute = renames.len ? export_renamed_subgraphs(ex, n, old, &renames)
                                    : old->attribute;
    } else {
        np->name = (char *)export_call_name(ex, n);
        interned->name = true; /* (a fresh name's length kept as an interned one's) */
        if (node_nattrs(n)) /* (a call a rewrite made has none, mostly) */
            export_set_attrs(ex, n, np);
    }
    if (old) /* (else renames has no keys, nothing to free) */
        keymap_free(&renames);
    return np;
}

/* The little-endian bytes of a scalar of dtype, in buf; false for a
 * dtype graft does not write scalars of. */
static bool scalar_bytes(const char *dtype, double v, uint8_t *buf, size_t *n)
{
    uint64_t bits;
    if (strcmp(dtype, "float32") == 0) {
        float f = (float)v;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
        *n = 4;
    } else if (strcmp(dtype, "float64") == 0) {
        memcpy(&bits, &v, 8);
        *n = 8;
    } else {
        *n = dtype_size(dtype_from_name(dtype));
        bits = (uint64_t)(int64_t)v;
        if (*n == 0 || dtype_is_float(dtype_from_name(dtype)))
            return false;
    }
    for (size_t b = 0; b < *n; b++)
        buf[b] = (uint8_t)(bits >> (8 * b));
    return true;
}

/* A scalar constant a rewrite made: a new initializer of rank 0, one per
 * dtype and value (a rule that folds a batch norm makes its epsilon in
 * each place it folds one). */
void export_scalar_initializer(Exporter *ex, const graft_node *n)
{
    const char *dtype = node_const_dtype(n);
    double value = node_const_value(n);
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint64_t key = hash_mix(hash_bytes(dtype ? dtype : "", dtype ? strlen(dtype) : 0, 0), bits);
    const int64_t *seen = keymap_get(&ex->scalars, key | 1);
    const graft_node *first = seen ? graph_node(ex->g, (uint32_t)*seen) : NULL;
    if (first && node_const_value(first) == value && /* not a hash collision */
        strcmp(node_const_dtype(first) ? node_const_dtype(first) : "", dtype ? dtype : "") == 0) {
        export_name_value(ex, n, export_value_name(ex, first));
        return;
    }
    *keymap_put(&ex->scalars, key | 1, 0) = node_id(n);
    Onnx__TensorProto *t = export_scalar_tensor(ex, n, export_value_name(ex, n));
    if (t)
        vec_push(&ex->inits, t);
}

Onnx__TensorProto *export_scalar_tensor(Exporter *ex, const graft_node *n, const char *name)
{
    const char *dtype = node_const_dtype(n);
    uint8_t *buf = arena_alloc(graph_arena(ex->g), 8);
    size_t nbytes;
    if (!dtype || !scalar_bytes(dtype, node_const_value(n), buf, &nbytes)) {
        diag_file_error(ex->d, ex->m->name, "a rewrite made the constant %s, of a dtype graft "
                        "cannot write as a tensor", node_const_text(n));
        ex->ok = false;
        return NULL;
    }
    const graft_type *t = graph_type_tensor(ex->g, dtype, NULL, 0);
    return export_new_tensor(ex, name, t, buf, nbytes);
}
