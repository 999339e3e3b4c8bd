/* onnx_lean.h - a model read only to be written back: its graph's lists
 * kept as the bytes they were read from.
 *
 * note [lean read]: `graft fmt MODEL.onnx -o OUT.onnx` reads a model,
 * checks it and writes it; nothing reads a node's attributes or an
 * initializer's fields in between.  Yet a model decoded whole holds
 * protobuf-c's struct for each of them beside the file's bytes (an
 * AttributeProto is 248 bytes, a TensorProto 216, and a CNN has about
 * three attributes and two initializers a node): about 2,000 bytes a node
 * on mnasnet, where issue 28 allows graft fmt 300 beyond the file
 * (bench/RESULTS.md, "graft fmt MODEL.onnx -o OUT.onnx: peak memory").
 * So a lean read decodes each element of the main graph's three long
 * lists (node, initializer, value_info) into a scratch arena, where it is
 * checked (note [checked as decoded] in onnx_decode.h) and its strings
 * interned in the model's interner, and keeps only where its bytes lie,
 * when those are canonical (note [canonical spans] in onnx_span.h): the
 * encoder writes them back as they are.  An element whose bytes are not
 * canonical, or a node holding a graph (an If's branches, a Loop's body:
 * the graph check walks it), is decoded as a full read decodes it and
 * kept.  The graph check reads the kept bytes again, one element at a
 * time (onnx_lean_item); the graph's own arrays of those lists are empty
 * (NULL, count 0), so code that does not know the lean form sees no node
 * rather than a wrong one.  Only graft fmt's binary output reads a model
 * this way; tests/check_onnx_lean.c shows, on every model of tests/onnx/
 * and of the fuzz corpus, that it writes the bytes a full read writes and
 * reports what a full read reports.
 */
#ifndef GRAFT_ONNX_LEAN_H
#define GRAFT_ONNX_LEAN_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "arena.h"
#include "onnx.pb-c.h"

/* One element of a lean list: its bytes (without key and length), and
 * its struct when it was kept decoded (NULL: written as its bytes). */
typedef struct OnnxLeanItem {
    const uint8_t *data;
    size_t len;
    ProtobufCMessage *msg;
} OnnxLeanItem;

typedef struct OnnxLeanList {
    OnnxLeanItem *items;
    size_t n;
} OnnxLeanList;

/* The lists of the model's graph, by GraphProto field. */
typedef struct OnnxLeanGraph {
    const Onnx__GraphProto *graph;
    OnnxLeanList node, initializer, value_info;
    Interner *names;     /* the model's (note [interned strings]) */
    uint64_t item_depth; /* how deep messages may nest in an element */
} OnnxLeanGraph;

/* lean's list for graph field number id, or NULL when the field is not
 * one of the three. */
static inline const OnnxLeanList *onnx_lean_list(const OnnxLeanGraph *lean, uint32_t id)
{
    switch (id) {
    case 1:
        return &lean->node;
    case 5:
        return &lean->initializer;
    case 13:
        return &lean->value_info;
    default:
        return NULL;
    }
}

/* Element i of list as a struct of type desc: the kept one, or its bytes
 * decoded into scratch (which the caller frees or resets). */
const ProtobufCMessage *onnx_lean_item(const OnnxLeanGraph *lean, const OnnxLeanList *list,
                                       size_t i, const ProtobufCMessageDescriptor *desc,
                                       Arena *scratch);

#endif
