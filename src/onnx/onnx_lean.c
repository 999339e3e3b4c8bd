/* onnx_lean.c - what the graph check reads of a lean read's elements,
 * read again from their bytes (note [lean read] in onnx_lean.h).  Such an
 * element was decoded and found canonical (note [canonical spans] in
 * onnx_span.h): its keys are whole, its known fields have their wire
 * types, it has no unknown field and no NUL in a string, so it is read
 * here without checks (note [field reader] in onnx_field.h).
 * Decoding each node whole again cost the check more than the rest of
 * graft fmt (3.2 M of mnasnet_op17's 6.0 M instructions,
 * bench/RESULTS.md). */
#include "onnx_lean.h"

#include <stdlib.h>

#include "onnx_field.h"
#include "util.h"

/* onnx.proto's field numbers read here. */
enum {
    NODE_INPUT = 1,
    NODE_OUTPUT = 2,
    NODE_NAME = 3,
    NODE_OP_TYPE = 4,
    NODE_DOMAIN = 7,
    TENSOR_NAME = 8,
};

/* The field at *p, unchecked: its number; its value (a length-delimited
 * field's body) in *value and *len; *p moved past it. */
static uint32_t next_field(uint8_t **p, uint8_t **value, size_t *len)
{
    uint32_t number;
    uint8_t wire_type;
    onnx_key_take(p, NULL, false, &number, &wire_type);
    onnx_value_take(p, NULL, wire_type, false, value, len);
    return number;
}

static char *intern(const OnnxLeanGraph *lean, const uint8_t *s, size_t n)
{
    return (char *)interner_intern(lean->names, (const char *)s, n);
}

/* Stores the string s[0..n) of field number of a node's bytes in into,
 * when it is one the graph check reads. */
static void put_node_string(const OnnxLeanGraph *lean, OnnxLeanNode *into, uint32_t number,
                            const uint8_t *s, size_t n)
{
    switch (number) {
    case NODE_INPUT:
        vec_push(&into->inputs, intern(lean, s, n));
        break;
    case NODE_OUTPUT:
        vec_push(&into->outputs, intern(lean, s, n));
        break;
    case NODE_NAME:
        into->node.name = intern(lean, s, n);
        break;
    case NODE_OP_TYPE:
        into->node.op_type = intern(lean, s, n);
        break;
    case NODE_DOMAIN:
        into->node.domain = intern(lean, s, n);
        break;
    default: /* attributes, doc string, the rest */
        break;
    }
}

const Onnx__NodeProto *onnx_lean_node(const OnnxLeanGraph *lean, size_t i, unsigned strings,
                                      OnnxLeanNode *into)
{
    const OnnxLeanItem *item = &lean->lists[ONNX_LEAN_NODE].items[i];
    if (item->msg)
        return (const Onnx__NodeProto *)item->msg;
    Onnx__NodeProto *node = &into->node;
    onnx__node_proto__init(node);
    into->inputs.len = into->outputs.len = 0;
    const uint8_t *end = item->data + item->len;
    uint8_t *value;
    size_t len;
    for (uint8_t *p = item->data; p < end;) {
        uint32_t number = next_field(&p, &value, &len);
        if (number <= NODE_DOMAIN && strings >> number & 1)
            put_node_string(lean, into, number, value, len);
    }
    /* (an empty array stays NULL, as protobuf-c leaves it) */
    node->input = into->inputs.items;
    node->n_input = into->inputs.len;
    node->output = into->outputs.items;
    node->n_output = into->outputs.len;
    return node;
}

void onnx_lean_node_free(OnnxLeanNode *node)
{
    vec_free(&node->inputs);
    vec_free(&node->outputs);
}

const char *onnx_lean_initializer_name(const OnnxLeanGraph *lean, size_t i)
{
    const OnnxLeanItem *item = &lean->lists[ONNX_LEAN_INITIALIZER].items[i];
    if (item->msg)
        return ((const Onnx__TensorProto *)item->msg)->name;
    const uint8_t *end = item->data + item->len;
    uint8_t *value;
    size_t len;
    for (uint8_t *p = item->data; p < end;)
        if (next_field(&p, &value, &len) == TENSOR_NAME)
            return intern(lean, value, len); /* (canonical: named once) */
    return NULL;
}
