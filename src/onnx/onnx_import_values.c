/* onnx_import_values.c - the values a graph declares, as the import makes
 * them: the table of values by name, the graph inputs' parameters, the
 * initializers' tensor constants (a TensorProto's type and bytes, which
 * attributes and Constant nodes read too), value_info's types. */
#include "onnx_import_impl.h"

#include <stdlib.h>
#include <string.h>

#include "dim_symbol.h"
#include "dtype.h"

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
void import_values_reserve(OnnxValues *values, size_t count)
{
    unsigned bits = values->slots ? values->bits : 6;
    while (count * 2 > (size_t)1 << bits)
        bits++;
    if (!values->slots || bits != values->bits)
        values_resize(values, bits);
}

void import_values_free(OnnxValues *values)
{
    free(values->slots);
    *values = (OnnxValues){0};
}

/* The dtype of ONNX's element type number, NULL when graft has none. */
static const char *elem_dtype(int32_t elem)
{
    const DTypeInfo *info = dtype_info(elem);
    return info ? info->name : NULL;
}

/* The types of the values a model declares: note [import types] in
 * onnx_import.c. */

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

const graft_type *import_tensor_type(graft_graph *g, const Onnx__TensorProto *t)
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

/* A tensor's elements as raw bytes (note [onnx import] in onnx_graph.h):
 * NULL when graft does not read them, or after reporting a size that
 * contradicts the shape (*bad set). */
const void *import_tensor_bytes(Importer *im, const Onnx__TensorProto *t, const graft_type *type,
                                size_t *nbytes, bool *bad)
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

/* The graph inputs as parameters. */
static void import_inputs(Importer *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *in = gp->input[i];
        graft_node *p = graph_add_param_interned(im->g, in->name, value_type(im, in->type));
        set_value(im, in->name, p);
    }
}

/* The initializers that are not inputs as tensor constants (an input's
 * is its default value). */
static void import_initializers(Importer *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_initializer && im->ok; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        const graft_node *old = value_of(im, t->name);
        if (old && node_kind(old) != NODE_VAR)
            unsure(im); /* made twice */
        if (old)
            continue; /* an input's default value */
        const graft_type *type = import_tensor_type(im->g, t);
        size_t nbytes = 0;
        bool bad = false;
        const void *bytes = import_tensor_bytes(im, t, type, &nbytes, &bad);
        im->ok = !bad;
        graft_node *c = graph_add_tensor_const(im->g, t->name, type, bytes, nbytes);
        graph_set_type(im->g, c, type);
        set_value(im, node_const_text(c), c);
    }
}

/* The sparse initializers as tensor constants whose values graft does not
 * know. */
static void import_sparse_initializers(Importer *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
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
}

/* Graph inputs become parameters; initializers that are not inputs
 * tensor constants. */
void import_leaves(Importer *im, const Onnx__GraphProto *gp)
{
    import_inputs(im, gp);
    im->after_inputs = graph_node_count(im->g);
    import_initializers(im, gp);
    import_sparse_initializers(im, gp);
    im->after_leaves = graph_node_count(im->g);
}

/* Types value_info gives the values it names. */
void import_value_info(Importer *im, const Onnx__GraphProto *gp)
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
