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
 * of strings and lists of messages, so they are written here field by
 * field, in field-number order as the pack writes them: an optional string
 * where its pointer is set, each element of a list (a NULL one empty, as
 * graft's encoder writes it; the pack takes none), the unknown fields
 * after the known ones.  Each message inside them (a node's attribute, an
 * opset import) is written by graft's encoder, which writes what the pack
 * writes; the model's opset imports, which every function repeats, once
 * an export; a Constant's tensor attribute here, around its tensor.  So a
 * batch norm's function costs 7,300 instructions.
 * tests/check_onnx_encode.c compares the result with protobuf-c's pack on
 * functions holding every node of the models of tests/onnx/ and of the
 * fuzz corpus, and on one with every field.
 */
#include "onnx_export_impl.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_encode.h"

typedef VEC(uint8_t) PackBuf;

/* Room for n more bytes. */
static void reserve(PackBuf *b, size_t n)
{
    vec_reserve(b, b->len + n);
}

static void put_varint(PackBuf *b, uint64_t v)
{
    reserve(b, 10);
    b->len = (size_t)(onnx_varint_write(b->items + b->len, v) - b->items);
}

static void put_bytes(PackBuf *b, const void *data, size_t n)
{
    reserve(b, n);
    if (n)
        memcpy(b->items + b->len, data, n);
    b->len += n;
}

/* Field id's key (length-delimited), n's length prefix, n bytes at data:
 * room made once for all three, as most are a short name. */
static void put_delimited(PackBuf *b, uint32_t id, const void *data, size_t n)
{
    reserve(b, 20 + n); /* two varints of at most ten bytes */
    uint8_t *at = onnx_varint_write(b->items + b->len,
                            (uint64_t)id << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
    at = onnx_varint_write(at, n);
    if (n)
        memcpy(at, data, n);
    b->len = (size_t)(at - b->items) + n;
}

/* An optional string field, written where it is set. */
static void put_string(PackBuf *b, uint32_t id, const char *s)
{
    if (s)
        put_delimited(b, id, s, strlen(s));
}

/* A repeated string field. */
static void put_strings(PackBuf *b, uint32_t id, char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_delimited(b, id, s[i] ? s[i] : "", s[i] ? strlen(s[i]) : 0);
}

/* A repeated message field, each message by graft's encoder. */
static void put_messages(PackBuf *b, uint32_t id, void *const *messages, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        uint8_t *bytes = messages[i] ? onnx_encode_bytes(messages[i], NULL, &len) : NULL;
        put_delimited(b, id, bytes, len);
        free(bytes);
    }
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

static void put_imports(PackBuf *b, KeyMap *known, Onnx__OperatorSetIdProto *const *imports,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const OnnxSpan *span = imports[i] ? import_bytes(known, imports[i]) : NULL;
        put_delimited(b, 9, span ? span->data : NULL, span ? span->len : 0);
    }
}

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

/* A node's attributes: a tensor attribute written here (name 1, t 5 by
 * graft's encoder, type 20: a third of packing a batch norm's function
 * went to encoding its Constant's attribute through the descriptors),
 * any other by graft's encoder. */
static void put_attributes(PackBuf *b, PackBuf *scratch, Onnx__AttributeProto *const *attrs,
                           size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const Onnx__AttributeProto *a = attrs[i];
        if (!a || !tensor_attribute(a)) {
            put_messages(b, 5, (void *const *)&attrs[i], 1);
            continue;
        }
        scratch->len = 0;
        put_string(scratch, 1, a->name);
        put_messages(scratch, 5, (void *const *)&a->t, 1);
        if (a->has_type) {
            put_varint(scratch, 20u << 3 | PROTOBUF_C_WIRE_TYPE_VARINT);
            put_varint(scratch, (uint64_t)(int64_t)(int32_t)a->type); /* an enum: int32's */
        }
        put_delimited(b, 5, scratch->items, scratch->len);
    }
}

static void put_unknown(PackBuf *b, const ProtobufCMessage *m)
{
    for (unsigned i = 0; i < m->n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
        put_varint(b, (uint64_t)u->tag << 3 | u->wire_type);
        put_bytes(b, u->data, u->len); /* its length prefix included */
    }
}

/* A NodeProto's fields: input 1, output 2, name 3, op_type 4, attribute 5,
 * doc_string 6, domain 7. */
static void put_node_fields(PackBuf *b, PackBuf *scratch, const Onnx__NodeProto *np)
{
    put_strings(b, 1, np->input, np->n_input);
    put_strings(b, 2, np->output, np->n_output);
    put_string(b, 3, np->name);
    put_string(b, 4, np->op_type);
    put_attributes(b, scratch, np->attribute, np->n_attribute);
    put_string(b, 6, np->doc_string);
    put_string(b, 7, np->domain);
    put_unknown(b, &np->base);
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
    PackBuf b = {0}, node = {0}, attr = {0}; /* each node's and attribute's bytes,
                                                 for its length */
    reserve(&b, room + 1024);    /* (a batch norm's function takes 400) */
    reserve(&node, 256);
    b.len = room;
    put_string(&b, 1, f->name);
    put_strings(&b, 4, f->input, f->n_input);
    put_strings(&b, 5, f->output, f->n_output);
    put_strings(&b, 6, f->attribute, f->n_attribute);
    for (size_t i = 0; i < f->n_node; i++) {
        node.len = 0;
        if (f->node[i])
            put_node_fields(&node, &attr, f->node[i]);
        put_delimited(&b, 7, node.items, node.len);
    }
    put_string(&b, 8, f->doc_string);
    put_imports(&b, imports, f->opset_import, f->n_opset_import);
    put_string(&b, 10, f->domain);
    put_unknown(&b, &f->base);
    vec_free(&node);
    vec_free(&attr);
    *len = b.len - room;
    return b.items;
}
