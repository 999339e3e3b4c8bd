/* onnx_import_attr.c - a NodeProto's attributes as graft attribute values
 * (note [onnx attributes] in onnx_import.c), and a Constant node's value
 * as a tensor constant (note [constant nodes] there). */
#include "onnx_import_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    v->type = import_tensor_type(im->g, t);
    bool bad = false;
    v->data = import_tensor_bytes(im, t, v->type, &v->nbytes, &bad);
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

const graft_attr_value *import_attr_value(Importer *im, const Onnx__AttributeProto *a)
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

/* np as a tensor constant when it is a Constant node whose value graft
 * reads (note [constant nodes] in onnx_import.c): whether it was, or its
 * value was reported wrong (im->ok false). */
bool import_constant(Importer *im, Onnx__NodeProto *np)
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
        type = import_tensor_type(im->g, a->t);
        bytes = import_tensor_bytes(im, a->t, type, &nbytes, &bad);
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

