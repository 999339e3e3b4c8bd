/* onnx_export.c - a graph imported from ONNX written back as the model.
 *
 * note [onnx export]: the model written is the ModelProto read, every
 * field of it and of its graph shared (opset imports, metadata, doc
 * strings, functions, training info, sparse initializers, quantization
 * annotations, graph inputs and outputs in their order), with three lists
 * made anew from the graph:
 *   - nodes: the live calls, in the order of the NodeProtos they came
 *     from, each call a rewrite made (or a call whose operands it changed)
 *     placed before its first reader; a call nothing changed is its
 *     NodeProto itself, name, doc string and attributes and all; a call a
 *     rewrite made gets a fresh name, unique in the graph
 *     ("graft_<Op>_<k>"), and its results fresh value names
 *     ("graft_<Op>_<k>_output_<i>"), but a call that makes a graph output
 *     takes that output's name, and a value a rewrite routed to a graph
 *     output that has another name is copied there by an Identity node;
 *   - initializers: those still read, in their order, with their bytes
 *     (raw_data, external-data references, typed fields) as they were;
 *     a scalar constant a rewrite made becomes a fresh one;
 *   - value_info: the entries whose values are still made.
 * A model nothing rewrote is so written back byte for byte (note [onnx
 * bytes] in onnx_model.h), through the graph and not as a copy of its
 * input.  The proto structs made here are freed after writing; those
 * shared belong to the model.
 */
#include "onnx_graph.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_model.h"

typedef struct Exporter {
    OnnxModel *m;
    graft_graph *g;
    graft_diag *d;
    const char **value;    /* per id: the name its value is written under */
    const char **node;     /* per id: the fresh name of a call a rewrite made */
    uint8_t *live;         /* per id: reached from the output */
    uint8_t *done;         /* per id: its NodeProto is in nodes */
    KeyMap taken;          /* interned names of nodes and values in use */
    uint32_t fresh;        /* the next fresh number */
    VEC(Onnx__NodeProto *) nodes;    /* the node list being made */
    VEC(Onnx__TensorProto *) inits;  /* the initializer list being made */
    VEC(void *) made;                /* what to free: NodeProto parts */
    VEC(Onnx__NodeProto *) made_nodes;
    VEC(Onnx__AttributeProto *) made_attrs;
    VEC(Onnx__TensorProto *) made_tensors;
    bool ok;
} Exporter;

static void take(Exporter *ex, const char *name)
{
    keymap_put_ptr(&ex->taken, graph_intern(ex->g, name), name);
}

static bool taken(Exporter *ex, const char *name)
{
    return keymap_get_ptr(&ex->taken, graph_intern(ex->g, name)) != NULL;
}

/* A name not in use: "graft_<stem>_<k>" with the first free k. */
static const char *fresh_name(Exporter *ex, const char *stem)
{
    StrBuf sb = {0};
    do {
        sb.len = 0;
        strbuf_printf(&sb, "graft_%s_%u", stem, ex->fresh++);
    } while (taken(ex, sb.data));
    const char *name = graph_intern(ex->g, sb.data);
    strbuf_free(&sb);
    take(ex, name);
    return name;
}

/* Every name the model gives a node or a value, so fresh ones differ. */
static void take_model_names(Exporter *ex)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        if (np->name)
            take(ex, np->name);
        for (size_t k = 0; k < np->n_output; k++)
            take(ex, np->output[k]);
    }
    for (size_t i = 0; i < gp->n_input; i++)
        take(ex, gp->input[i]->name);
    for (size_t i = 0; i < gp->n_initializer; i++)
        take(ex, gp->initializer[i]->name);
    for (size_t i = 0; i < gp->n_output; i++)
        take(ex, gp->output[i]->name);
}

/* The live element reading result i of call n, or NULL. */
static graft_node *result_of(const Exporter *ex, const graft_node *n, int i)
{
    for (const Use *u = node_first_use(n); u; u = use_next(u)) {
        graft_node *user = use_user(u);
        if (node_kind(user) == NODE_GETITEM && node_index(user) == i && ex->live[node_id(user)])
            return user;
    }
    return NULL;
}

/* The name of a call a rewrite made: "graft_<Op>_<k>", made once. */
static const char *new_call_name(Exporter *ex, const graft_node *call)
{
    uint32_t id = node_id(call);
    if (!ex->node[id])
        ex->node[id] = fresh_name(ex, node_op(call));
    return ex->node[id];
}

/* The name n's value is written under (note [onnx export]). */
static const char *value_name(Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    const char *name = ex->value[id] ? ex->value[id] : graph_value_name(ex->g, n);
    if (name)
        return name;
    StrBuf sb = {0}; /* (this name's node is no call of several results) */
    if (node_kind(n) == NODE_VAR)
        name = node_name(n);
    else if (node_kind(n) == NODE_TUPLE && node_nargs(n) == 0)
        name = ""; /* a left-out input */
    else if (node_kind(n) == NODE_CONST && !node_const_is_scalar(n))
        name = node_const_text(n);
    else if (node_kind(n) == NODE_CONST)
        name = fresh_name(ex, "Constant");
    else if (node_kind(n) == NODE_CALL && node_op(n)) {
        strbuf_printf(&sb, "%s_output_0", new_call_name(ex, n));
        name = graph_intern(ex->g, sb.data);
    } else if (node_kind(n) == NODE_GETITEM) {
        const graft_node *call = node_arg(n, 0);
        strbuf_printf(&sb, "%s_output_%d", graph_node_name(ex->g, call)
                                               ? graph_node_name(ex->g, call)
                                               : new_call_name(ex, call), node_index(n));
        name = graph_intern(ex->g, sb.data);
    } else
        name = fresh_name(ex, "value");
    strbuf_free(&sb);
    ex->value[id] = name;
    return name;
}

/* The graph's output k: the output itself, or field k of its tuple (note
 * [kept values] in onnx_graph.h). */
static graft_node *graph_output_at(const OnnxModel *m, int k)
{
    graft_node *out = graph_output(m->g);
    return m->tupled ? node_arg(out, k) : out;
}

/* A call a rewrite made that makes graph output k is named after it. */
static void name_outputs(Exporter *ex)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    for (int k = 0; k < ex->m->noutputs; k++) {
        graft_node *o = graph_output_at(ex->m, k);
        NodeKind kind = node_kind(o);
        uint32_t id = node_id(o);
        bool made = (kind == NODE_CALL || kind == NODE_GETITEM) && !ex->value[id] &&
                    !graph_value_name(ex->g, o) && !(kind == NODE_CALL && node_noutputs(o) > 1);
        if (made)
            ex->value[id] = graph_intern(ex->g, gp->output[k]->name);
    }
}

/* The NodeProto call n came from, when nothing changed what it reads. */
static Onnx__NodeProto *untouched(Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    Onnx__NodeProto *np = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    if (!np)
        return NULL;
    size_t nin = np->n_input;
    while (nin > 0 && !np->input[nin - 1][0])
        nin--;
    if (nin != (size_t)node_nargs(n))
        return NULL;
    for (size_t i = 0; i < nin; i++)
        if (strcmp(value_name(ex, node_arg(n, (int)i)), np->input[i]) != 0)
            return NULL;
    if (node_noutputs(n) <= 1 && np->n_output == 1 &&
        strcmp(value_name(ex, n), np->output[0]) != 0)
        return NULL;
    return np;
}

static char **name_array(Exporter *ex, size_t n)
{
    char **names = xcalloc(n + 1, sizeof *names);
    vec_push(&ex->made, names);
    return names;
}

/* The results of call n: its value, or when it is read by element as
 * many as it has or its elements read ("" for one nothing reads). */
static void set_outputs(Exporter *ex, const graft_node *n, Onnx__NodeProto *np)
{
    int count = node_noutputs(n) > 1 ? node_noutputs(n) : 0;
    for (const Use *u = node_first_use(n); u; u = use_next(u))
        if (node_kind(use_user(u)) == NODE_GETITEM && ex->live[node_id(use_user(u))] &&
            node_index(use_user(u)) >= count)
            count = node_index(use_user(u)) + 1;
    np->n_output = count > 0 ? (size_t)count : 1;
    np->output = name_array(ex, np->n_output);
    for (size_t i = 0; i < np->n_output; i++) {
        const graft_node *r = count > 0 ? result_of(ex, n, (int)i) : n;
        np->output[i] = (char *)(r ? value_name(ex, r) : "");
    }
}

static Onnx__AttributeProto *new_attr(Exporter *ex, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = xmalloc(sizeof *a);
    onnx__attribute_proto__init(a);
    vec_push(&ex->made_attrs, a);
    a->name = (char *)name;
    a->has_type = true;
    a->type = type;
    return a;
}

/* A tensor of type t holding nbytes raw bytes at data, named name. */
static Onnx__TensorProto *new_tensor(Exporter *ex, const char *name, const graft_type *t,
                                     const void *data, size_t nbytes)
{
    Onnx__TensorProto *tp = xmalloc(sizeof *tp);
    onnx__tensor_proto__init(tp);
    vec_push(&ex->made_tensors, tp);
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
    void *items = xcalloc(n + 1, kind == GRAFT_ATTR_STRING ? sizeof(ProtobufCBinaryData) : 8);
    vec_push(&ex->made, items);
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
 * onnx_import.c, backwards); NULL for None (left out), and after
 * reporting a value ONNX has no attribute for. */
static Onnx__AttributeProto *attr_proto(Exporter *ex, const graft_node *n, const graft_attr *at)
{
    const graft_attr_value *v = at->value;
    Onnx__AttributeProto *a = new_attr(ex, at->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
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
        a->t = v->type && v->data ? new_tensor(ex, "", v->type, v->data, v->nbytes) : NULL;
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

static void set_attrs(Exporter *ex, const graft_node *n, Onnx__NodeProto *np)
{
    np->attribute = xcalloc((size_t)node_nattrs(n) + 1, sizeof *np->attribute);
    vec_push(&ex->made, np->attribute);
    for (int i = 0; i < node_nattrs(n); i++) {
        Onnx__AttributeProto *a = attr_proto(ex, n, node_attr(n, i));
        if (a)
            np->attribute[np->n_attribute++] = a;
    }
}

/* The NodeProto of call n: its own when nothing changed it, else a new
 * one (a rewritten call of the model keeps its name, domain, doc string
 * and attributes). */
static Onnx__NodeProto *node_proto(Exporter *ex, const graft_node *n)
{
    Onnx__NodeProto *old = untouched(ex, n);
    if (old)
        return old;
    uint32_t id = node_id(n);
    old = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    Onnx__NodeProto *np = xmalloc(sizeof *np);
    onnx__node_proto__init(np);
    vec_push(&ex->made_nodes, np);
    np->n_input = (size_t)node_nargs(n);
    np->input = name_array(ex, np->n_input);
    for (size_t i = 0; i < np->n_input; i++)
        np->input[i] = (char *)value_name(ex, node_arg(n, (int)i));
    set_outputs(ex, n, np);
    np->op_type = (char *)node_op(n);
    np->domain = (char *)graph_node_domain(ex->g, n);
    if (old) {
        np->name = old->name;
        np->domain = old->domain;
        np->doc_string = old->doc_string;
        np->n_attribute = old->n_attribute;
        np->attribute = old->attribute;
    } else {
        np->name = (char *)new_call_name(ex, n);
        set_attrs(ex, n, np);
    }
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

/* A scalar constant a rewrite made: a new initializer of rank 0. */
static void scalar_initializer(Exporter *ex, const graft_node *n)
{
    const char *dtype = node_const_dtype(n);
    uint8_t *buf = arena_alloc(graph_arena(ex->g), 8);
    size_t nbytes;
    if (!dtype || !scalar_bytes(dtype, node_const_value(n), buf, &nbytes)) {
        diag_file_error(ex->d, ex->m->name, "a rewrite made the constant %s, of a dtype graft "
                        "cannot write as an initializer", node_const_text(n));
        ex->ok = false;
        return;
    }
    const graft_type *t = graph_type_tensor(ex->g, dtype, NULL, 0);
    vec_push(&ex->inits, new_tensor(ex, value_name(ex, n), t, buf, nbytes));
}

/* Puts n in the lists once its operands are there. */
static void emit(Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    if (ex->done[id])
        return;
    ex->done[id] = 1;
    if (node_kind(n) == NODE_CALL && node_callee(n)) {
        diag_file_error(ex->d, ex->m->name, "a call of a function cannot be written to an "
                        "ONNX model yet");
        ex->ok = false;
    } else if (node_kind(n) == NODE_CALL)
        vec_push(&ex->nodes, node_proto(ex, n));
    else if (node_kind(n) == NODE_CONST && node_const_is_scalar(n))
        scalar_initializer(ex, n);
}

/* Emits root after what it reads, depth first, iteratively. */
static void emit_from(Exporter *ex, graft_node *root)
{
    typedef struct Frame {
        graft_node *n;
        int next;
    } Frame;
    VEC(Frame) stack = {0};
    if (!ex->done[node_id(root)])
        vec_push(&stack, ((Frame){root, 0}));
    while (stack.len) {
        Frame *f = &stack.items[stack.len - 1];
        if (f->next < node_nargs(f->n) && !node_is_opaque(f->n)) {
            graft_node *a = node_arg(f->n, f->next++);
            if (!ex->done[node_id(a)])
                vec_push(&stack, ((Frame){a, 0}));
            continue;
        }
        emit(ex, f->n);
        stack.len--;
    }
    vec_free(&stack);
}

/* An Identity node copying value from to graph output to. */
static void copy_to_output(Exporter *ex, const char *from, const char *to)
{
    Onnx__NodeProto *np = xmalloc(sizeof *np);
    onnx__node_proto__init(np);
    vec_push(&ex->made_nodes, np);
    np->n_input = np->n_output = 1;
    np->input = name_array(ex, 1);
    np->output = name_array(ex, 1);
    np->input[0] = (char *)from;
    np->output[0] = (char *)to;
    np->op_type = "Identity";
    np->name = (char *)fresh_name(ex, "Identity");
    vec_push(&ex->nodes, np);
}

/* Calls in the model's order, each after what it reads; then what the
 * output reads; then the copies to graph outputs named otherwise. */
static void emit_nodes(Exporter *ex)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    for (uint32_t id = 0; id < ex->m->norigin && ex->ok; id++)
        if (ex->m->origin[id] && ex->live[id])
            emit_from(ex, graph_node(ex->g, id));
    emit_from(ex, graph_output(ex->g));
    for (int k = 0; k < ex->m->noutputs && ex->ok; k++) {
        const char *name = value_name(ex, graph_output_at(ex->m, k));
        if (strcmp(name, gp->output[k]->name) != 0)
            copy_to_output(ex, name, gp->output[k]->name);
    }
}

/* The names of the values the written graph makes or takes. */
static void made_names(Exporter *ex, KeyMap *made)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    for (size_t i = 0; i < gp->n_input; i++)
        keymap_put_ptr(made, graph_intern(ex->g, gp->input[i]->name), gp);
    for (size_t i = 0; i < ex->inits.len; i++)
        keymap_put_ptr(made, graph_intern(ex->g, ex->inits.items[i]->name), gp);
    for (size_t i = 0; i < ex->nodes.len; i++)
        for (size_t k = 0; k < ex->nodes.items[i]->n_output; k++)
            keymap_put_ptr(made, graph_intern(ex->g, ex->nodes.items[i]->output[k]), gp);
}

/* The initializers still read (note [kept values] keeps those nothing
 * read to begin with), in their order, before the new ones. */
static void keep_initializers(Exporter *ex)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    KeyMap read = {0};
    for (uint32_t id = 0; id < graph_node_count(ex->g); id++) {
        const graft_node *n = graph_node(ex->g, id);
        if ((ex->live[id] || node_kind(n) == NODE_VAR) && (node_kind(n) == NODE_VAR ||
                             (node_kind(n) == NODE_CONST && !node_const_is_scalar(n))))
            keymap_put_ptr(&read, graph_intern(ex->g, value_name(ex, n)), n);
    }
    Onnx__TensorProto **made = ex->inits.items; /* the scalars made */
    size_t nmade = ex->inits.len;
    ex->inits.items = NULL;
    ex->inits.len = ex->inits.cap = 0;
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (keymap_get_ptr(&read, graph_intern(ex->g, gp->initializer[i]->name)))
            vec_push(&ex->inits, gp->initializer[i]);
    for (size_t i = 0; i < nmade; i++)
        vec_push(&ex->inits, made[i]);
    free(made);
    keymap_free(&read);
}

/* value_info entries of values still made, in their order. */
static Onnx__ValueInfoProto **kept_value_info(Exporter *ex, size_t *n)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    KeyMap made = {0};
    made_names(ex, &made);
    Onnx__ValueInfoProto **kept = xcalloc(gp->n_value_info + 1, sizeof *kept);
    *n = 0;
    for (size_t i = 0; i < gp->n_value_info; i++)
        if (keymap_get_ptr(&made, graph_intern(ex->g, gp->value_info[i]->name)))
            kept[(*n)++] = gp->value_info[i];
    keymap_free(&made);
    return kept;
}

static void exporter_free(Exporter *ex)
{
    for (size_t i = 0; i < ex->made.len; i++)
        free(ex->made.items[i]);
    for (size_t i = 0; i < ex->made_nodes.len; i++)
        free(ex->made_nodes.items[i]);
    for (size_t i = 0; i < ex->made_attrs.len; i++)
        free(ex->made_attrs.items[i]);
    for (size_t i = 0; i < ex->made_tensors.len; i++)
        free(ex->made_tensors.items[i]);
    vec_free(&ex->made);
    vec_free(&ex->made_nodes);
    vec_free(&ex->made_attrs);
    vec_free(&ex->made_tensors);
    vec_free(&ex->nodes);
    vec_free(&ex->inits);
    keymap_free(&ex->taken);
    free(ex->value);
    free(ex->node);
    free(ex->live);
    free(ex->done);
}

/* Marks what the output reaches. */
static void mark_live(Exporter *ex)
{
    uint32_t count = graph_node_count(ex->g);
    uint32_t *ids = xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(ex->g, ids);
    for (uint32_t i = 0; i < n; i++)
        ex->live[ids[i]] = 1;
    free(ids);
}

bool onnx_export(OnnxModel *m, FILE *out, graft_diag *d)
{
    size_t count = (size_t)graph_node_count(m->g) + 1;
    Exporter ex = {.m = m, .g = m->g, .d = d, .ok = true};
    ex.value = xcalloc(count, sizeof *ex.value);
    ex.node = xcalloc(count, sizeof *ex.node);
    ex.live = xcalloc(count, 1);
    ex.done = xcalloc(count, 1);
    take_model_names(&ex);
    mark_live(&ex);
    name_outputs(&ex);
    emit_nodes(&ex);
    bool ok = ex.ok;
    if (ok) {
        keep_initializers(&ex);
        Onnx__GraphProto graph = *m->proto->graph;
        graph.n_node = ex.nodes.len;
        graph.node = ex.nodes.items;
        graph.n_initializer = ex.inits.len;
        graph.initializer = ex.inits.items;
        graph.value_info = kept_value_info(&ex, &graph.n_value_info);
        Onnx__ModelProto model = *m->proto;
        model.graph = &graph;
        onnx_model_write(&model, out); /* a failed write: the caller's commit reports it */
        free(graph.value_info);
    }
    exporter_free(&ex);
    return ok;
}
