/* onnx_export_pack.c - the FunctionProtos the export makes, encoded by
 * hand (note [functions packed by hand]).
 *
 * note [functions packed by hand]: a partition's function is encoded once
 * (note [functions packed once] in onnx_export_fn.c), and on a model of
 * many partitions that encoding was the largest part of the export:
 * protobuf-c's pack walks each message's descriptor field by field and
 * packs each nested message into a buffer of its own, 12,600 instructions
 * for a batch norm's function of seven nodes (bench/onnx_e2e.sh), and
 * graft's encoder (note [onnx encode] in onnx_encode.h), as generic, was
 * no faster there.  A FunctionProto and its NodeProtos are strings, lists
 * of strings and lists of messages, so they are written here in one pass,
 * through the encoder's writer (onnx_encode_impl.h, graft's one protobuf
 * writer, whose buffer grows here), in field-number order as the pack
 * writes them: a function's fields here, a node's by the encoder's own
 * (encode_put_node_fields) into a scratch buffer for its length.  Each
 * message inside them (a node's attribute, an opset import) the encoder
 * sizes, then writes; the model's opset imports, which every function
 * repeats, once an export; a Constant's tensor attribute here, around its
 * tensor.  So a batch norm's function costs 6,700 instructions (7,300
 * when this file had a writer of its own, which copied each attribute
 * from a buffer the encoder allocated for it).
 * tests/check_onnx_encode.c compares the result with protobuf-c's pack on
 * functions holding every node of the models of tests/onnx/ and of the
 * fuzz corpus, and on one with every field.
 */
#include "onnx_export_impl.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_encode.h"
#include "onnx_encode_impl.h"

/* Whether a sets no field of AttributeProto but name, t and type (a
 * Constant node's value, as constant_node in onnx_export_fn.c makes it):
 * every other field of onnx.proto's AttributeProto is asked (one a later
 * onnx.proto adds must be asked too). */
static bool tensor_attribute(const Onnx__AttributeProto *a)
{
    return a->t && !a->ref_attr_name && !a->doc_string && !a->has_f && !a->has_i &&
           !a->has_s && !a->g && !a->sparse_tensor && !a->tp && !a->n_floats && !a->n_ints &&
           !a->n_strings && !a->n_tensors && !a->n_graphs && !a->n_sparse_tensors &&
           !a->n_type_protos && !a->base.n_unknown_fields;
}

/* m's length, its lengths found into e->lengths (which holds no other:
 * put_sized writes m next). */
static size_t sized(Encoder *e, const ProtobufCMessage *m)
{
    e->lengths.len = 0;
    e->next = 1;
    return encode_message_size(e, m);
}

/* The fields of the m sized last. */
static void put_sized(Encoder *e, const ProtobufCMessage *m)
{
    encode_put_fields(e, m);
    e->lengths.len = 0;
}

/* A tensor attribute after key: name 1, t 5 (by the encoder), type 20
 * written here (a third of packing a batch norm's function went to its
 * Constant's attribute through the descriptors). */
static void put_tensor_attribute(Encoder *e, uint64_t key, const Onnx__AttributeProto *a)
{
    size_t tensor = sized(e, &a->t->base), name = a->name ? strlen(a->name) : 0;
    uint64_t type = (uint64_t)(int64_t)(int32_t)a->type; /* an enum: int32's varint */
    size_t len = 1 + onnx_varint_size(tensor) + tensor;
    len += (a->name ? 1 + onnx_varint_size(name) + name : 0) +
           (a->has_type ? 2 + onnx_varint_size(type) : 0);
    encode_put_varint(e, key);
    encode_put_varint(e, len);
    encode_put_string(e, encode_key(1, LEN), a->name);
    encode_put_varint(e, encode_key(5, LEN));
    encode_put_varint(e, tensor);
    put_sized(e, &a->t->base);
    if (a->has_type) {
        encode_put_varint(e, TYPE_KEY);
        encode_put_varint(e, type);
    }
}

/* An attribute after key, as the encoder writes it. */
static void put_attribute(Encoder *e, uint64_t key, const Onnx__AttributeProto *a)
{
    if (a && tensor_attribute(a)) {
        put_tensor_attribute(e, key, a);
    } else if (a) {
        encode_put_varint(e, key);
        encode_put_varint(e, sized(e, &a->base));
        put_sized(e, &a->base);
    } else
        encode_put_delimited(e, key, NULL, 0);
}

/* A node after key: its fields written into node (emptied first), for
 * their length, then copied. */
static void put_node(Encoder *e, Encoder *node, uint64_t key, const Onnx__NodeProto *np)
{
    node->used = 0;
    if (np)
        encode_put_node_fields(node, np, put_attribute);
    encode_put_delimited(e, key, node->buf, node->used);
}

/* note [made nodes packed]: the bare nodes the export made (no attribute,
 * no unknown field: a partition's calls, a rewrite's nodes of no
 * attribute) are written here once the node list is complete, one after
 * another into one block, each after the key of a graph's node field and
 * its length, the bytes the encoder writes before it; the encoder takes
 * them as it takes a span of the model (OnnxMadeBytes in onnx_encode.h),
 * and a node's bytes that follow the one before it so join its run (note
 * [runs of spans] in onnx_encode.c, whose check reads the bytes between),
 * written with one copy.  One pass, each string's strlen asked once: a
 * node's fields are written after room for its key and a length of two
 * bytes (a node of 128 to 16,383 bytes, as most are: five to ten names),
 * then moved where its length takes fewer or more (put_node_prefix), the
 * block grown by doubling and the spans set once it is whole.  In the
 * encoder's two walks such a node cost 970 instructions (the length walk
 * asked each string's strlen, the writing walk asked it again) and a
 * lookup of a span it never has (10,000 nodes in each ONNX job of
 * bench/workload.sh); packed here in two passes (a sizes pass keeping
 * each string's length for the writing pass, the block allocated at its
 * size) 630, in one 588.  A node with attributes is left to the
 * encoder. */

/* A node's key and length prefix, room for guess bytes of them left at
 * start in block (note [made nodes packed]): written there, the node's
 * size bytes after them moved where its prefix takes more or fewer;
 * returns the prefix's size. */
static size_t put_node_prefix(EncodeBytes *block, size_t start, size_t guess, size_t size)
{
    size_t prefix = 1 + onnx_varint_size(size);
    if (prefix != guess) {
        vec_reserve(block, start + prefix + size);
        memmove(block->items + start + prefix, block->items + start + guess, size);
        block->len = start + prefix + size;
    }
    block->items[start] = encode_key(1, LEN); /* GraphProto's node */
    onnx_varint_write(block->items + start + 1, size);
    return prefix;
}

/* note [interned lengths]: a made node's strings are mostly names whose
 * lengths are kept in front of them, as the interner keeps an interned
 * string's (interner_length in src/base/arena.h): a variable's name
 * (node_name: a graph input's, interned as the model was read, note
 * [names as decoded] in onnx_import.c), a call's op (node_op), a call's
 * value name (the export gives a call none but an interned one: the
 * model's, an output's, an inherited one, or output_name's,
 * "graft_<Op>_<k>_output_<i>"), a fresh name (export_fresh_name's:
 * interned, or a copy made by arena_strndup_counted), and a partition's
 * call's op and domain (its function's name, and "graft.composite"
 * interned once an export).  Its maker says which (EncodeInterned:
 * export_operand_names as it names the inputs, the call's own value and
 * op, its fresh name, the partition's call's op and domain), and their
 * lengths are read, not found by strlen (22 instructions a string, eight
 * of a made batch norm's eight, 10,000 in each ONNX job of
 * bench/workload.sh). */

/* Room for need bytes in block, exactly: vec_reserve's capacities are
 * powers of two, and the workload's ONNX rewrite, whose nodes take a
 * megabyte and a little, had a block of two (bench/workload.sh). */
static void reserve_exactly(EncodeBytes *block, size_t need)
{
    if (need > block->cap) {
        block->items = xrealloc(block->items, need);
        block->cap = need;
    }
}

uint8_t *export_pack_nodes(Onnx__NodeProto *const *nodes, const uint32_t *made,
                           const EncodeInterned *interned, size_t nmade, OnnxSpan *bytes)
{
    EncodeBytes block = {0};
    vec_reserve(&block, 3); /* (a prefix: then the first node's room, then the rest's) */
    size_t guess = 2; /* the prefix of the node before: nodes made alike */
    for (size_t i = 0; i < nmade; i++) {
        const Onnx__NodeProto *np = nodes[made[i]];
        if (!encode_node_bare(np))
            continue; /* (the encoder's) */
        size_t start = block.len;
        vec_reserve(&block, start + guess);
        block.len = start + guess;
        EncodeInterned none = {0, false, false, false, false};
        size_t size = encode_bare_node_append(&block, np, interned ? interned[i] : none);
        bytes[made[i]].len = size;
        if (!size) {
            block.len = start; /* (an empty node: the encoder's) */
            continue;
        }
        guess = put_node_prefix(&block, start, guess, size);
        if (start == 0) /* room for the rest as large as the first, and a quarter */
            reserve_exactly(&block, block.len * (nmade - i) / 4 * 5);
    }
    const uint8_t *at = block.items;
    for (size_t i = 0; i < nmade; i++) {
        OnnxSpan *span = &bytes[made[i]];
        if (span->len) {
            at += 1 + onnx_varint_size(span->len);
            span->data = at;
            at += span->len;
        }
    }
    return block.items ? block.items : xmalloc(1);
}

/* The encoding of import, one of the model's opset imports, which every
 * function made repeats: encoded once an export, kept in known. */
static const OnnxSpan *import_bytes(KeyMap *known, const Onnx__OperatorSetIdProto *import)
{
    OnnxSpan *span = (OnnxSpan *)keymap_get_ptr(known, import);
    if (span)
        return span;
    size_t len = 0;
    uint8_t *bytes = onnx_encode_bytes(&import->base, NULL, &len);
    span = xmalloc(sizeof *span + len + 1);
    span->data = (uint8_t *)(span + 1);
    span->len = len;
    memcpy(span + 1, bytes, len);
    free(bytes);
    keymap_put_ptr(known, import, span);
    return span;
}

static void put_imports(Encoder *e, KeyMap *known, Onnx__OperatorSetIdProto *const *imports,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const OnnxSpan *span = imports[i] ? import_bytes(known, imports[i]) : NULL;
        encode_put_delimited(e, encode_key(9, LEN), span ? span->data : NULL,
                             span ? span->len : 0);
    }
}

/* This file writes the fields of the onnx.proto graft is built with
 * (Debian 12's libonnx-dev, onnx 1.12): FunctionProto's 8, NodeProto's 7,
 * AttributeProto's 18.  A later onnx.proto adds fields (NodeProto's
 * overload, FunctionProto's value_info, ...) that this file would leave
 * out: built with one, graft packs every function with protobuf-c, which
 * knows them all (tests/check_onnx_encode.c asserts these counts, so such
 * a build also fails its tests until this file writes the new fields). */
bool export_pack_fields_known(void)
{
    return onnx__function_proto__descriptor.n_fields == 8 &&
           onnx__node_proto__descriptor.n_fields == 7 &&
           onnx__attribute_proto__descriptor.n_fields == 18;
}

uint8_t *export_pack_function_generic(const Onnx__FunctionProto *f, size_t room, size_t *len)
{
    *len = onnx__function_proto__get_packed_size(f);
    uint8_t *block = xmalloc(room + *len + 1);
    onnx__function_proto__pack(f, block + room);
    return block;
}

/* FunctionProto's fields: name 1, input 4, output 5, attribute 6, node 7,
 * doc_string 8, opset_import 9, domain 10. */
uint8_t *export_pack_function(KeyMap *imports, const Onnx__FunctionProto *f, size_t room,
                              size_t *len)
{
    if (!export_pack_fields_known())
        return export_pack_function_generic(f, room, len);
    /* by_hand: the fields known here are those onnx_encode_node.c knows */
    Encoder e = {.ok = true, .by_hand = true}, node = e; /* each node's bytes, for its length */
    encode_grow(&e, room + 1024); /* (a batch norm's function takes 400) */
    encode_grow(&node, 256);
    e.used = room;
    encode_put_string(&e, encode_key(1, LEN), f->name);
    encode_put_strings(&e, encode_key(4, LEN), f->input, f->n_input);
    encode_put_strings(&e, encode_key(5, LEN), f->output, f->n_output);
    encode_put_strings(&e, encode_key(6, LEN), f->attribute, f->n_attribute);
    for (size_t i = 0; i < f->n_node; i++)
        put_node(&e, &node, encode_key(7, LEN), f->node[i]);
    encode_put_string(&e, encode_key(8, LEN), f->doc_string);
    put_imports(&e, imports, f->opset_import, f->n_opset_import);
    encode_put_string(&e, encode_key(10, LEN), f->domain);
    encode_put_unknown(&e, &f->base);
    vec_free(&node.lengths);
    free(node.buf);
    *len = e.used - room;
    return e.buf;
}
