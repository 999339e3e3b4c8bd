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
 * kept.  The graph check reads what it needs of each element from its
 * bytes again, one at a time (a node's strings, each pass those it
 * reads, note [lean strings as needed] in onnx_check.c; an initializer's
 * name: onnx_lean.c); the graph's own arrays of those lists are empty
 * (NULL, count 0), so code that does not know the lean form sees no node
 * rather than a wrong one.  Only graft fmt's binary output reads a model
 * this way; tests/check_onnx_lean.c shows, on every model of tests/onnx/,
 * of its bad inputs and of the fuzz corpus, that it writes the bytes a
 * full read writes and reports what a full read reports, and
 * fuzz/fuzz_onnx.c asserts it of every input.
 */
#ifndef GRAFT_ONNX_LEAN_H
#define GRAFT_ONNX_LEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "arena.h"
#include "onnx.pb-c.h"
#include "util.h"

/* One element of a lean list: its bytes (without key and length), and
 * its struct when it was kept decoded (NULL: written as its bytes).  The
 * bytes are the model's buffer, not const, as the bytes fields that point
 * into it (note [bytes in place] in onnx_decode.h): the field reader takes
 * them so (note [field reader] in onnx_field.h); nothing writes them. */
typedef struct OnnxLeanItem {
    uint8_t *data;
    size_t len;
    ProtobufCMessage *msg;
} OnnxLeanItem;

typedef struct OnnxLeanList {
    OnnxLeanItem *items;
    size_t n;
} OnnxLeanList;

/* The lists a lean read holds, by their index in OnnxLeanGraph's lists. */
enum { ONNX_LEAN_NODE, ONNX_LEAN_INITIALIZER, ONNX_LEAN_VALUE_INFO, ONNX_LEAN_LISTS };

/* The lists of the model's graph. */
typedef struct OnnxLeanGraph {
    const Onnx__GraphProto *graph;
    OnnxLeanList lists[ONNX_LEAN_LISTS]; /* by ONNX_LEAN_NODE, ... */
    Interner *names;     /* the model's (note [interned strings]) */
    uint64_t item_depth; /* how deep messages may nest in an element */
} OnnxLeanGraph;

/* Whether m is lean's graph (lean NULL, or its graph not yet met: no):
 * compared as pointers, since the graph may still be NULL. */
static inline bool onnx_lean_graph_is(const OnnxLeanGraph *lean, const ProtobufCMessage *m)
{
    return lean && lean->graph && (const void *)m == (const void *)lean->graph;
}

/* The index in OnnxLeanGraph's lists of the list of GraphProto field
 * number id, or -1 when the field is not one of the three. */
static inline int onnx_lean_list_index(uint32_t id)
{
    switch (id) {
    case 1:
        return ONNX_LEAN_NODE;
    case 5:
        return ONNX_LEAN_INITIALIZER;
    case 13:
        return ONNX_LEAN_VALUE_INFO;
    default:
        return -1;
    }
}

/* lean's list for graph field number id, or NULL when the field is not
 * one of the three. */
static inline const OnnxLeanList *onnx_lean_list(const OnnxLeanGraph *lean, uint32_t id)
{
    int i = onnx_lean_list_index(id);
    return i < 0 ? NULL : &lean->lists[i];
}

/* Which strings of a node onnx_lean_node reads: a set of these, a bit
 * per NodeProto field number. */
enum {
    ONNX_LEAN_INPUTS = 1u << 1,
    ONNX_LEAN_OUTPUTS = 1u << 2,
    ONNX_LEAN_NAME = 1u << 3,
    ONNX_LEAN_OP_TYPE = 1u << 4,
    ONNX_LEAN_DOMAIN = 1u << 7,
    ONNX_LEAN_STRINGS = ONNX_LEAN_INPUTS | ONNX_LEAN_OUTPUTS | ONNX_LEAN_NAME |
                        ONNX_LEAN_OP_TYPE | ONNX_LEAN_DOMAIN, /* all five */
};

/* A node of a lean list as onnx_lean_node reads it, used again for each:
 * its struct, and its inputs and outputs (malloc'd). */
typedef struct OnnxLeanNode {
    Onnx__NodeProto node;
    VEC(char *) inputs;
    VEC(char *) outputs;
} OnnxLeanNode;

/* Node i of lean's list: the kept struct, or into's, filled from its bytes
 * with the strings of the set strings (interned in lean->names; the others
 * NULL or none) and no attribute: all the graph check reads of a node
 * that holds no graph.  Valid until into is filled again. */
const Onnx__NodeProto *onnx_lean_node(const OnnxLeanGraph *lean, size_t i, unsigned strings,
                                      OnnxLeanNode *into);
void onnx_lean_node_free(OnnxLeanNode *node);

/* The name of initializer i of lean's list (interned), or NULL: none. */
const char *onnx_lean_initializer_name(const OnnxLeanGraph *lean, size_t i);

#endif
