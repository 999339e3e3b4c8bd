/* onnx_encode_impl.h - what the encoder's files share (note [onnx encode]
 * in onnx_encode.h): the state of one encoding and its writing helpers,
 * graft's one protobuf writer (the export's functions are written through
 * them too, note [functions packed by hand] in onnx_export_pack.c). */
#ifndef GRAFT_ONNX_ENCODE_IMPL_H
#define GRAFT_ONNX_ENCODE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "keymap.h"
#include "onnx_encode.h"
#include "onnx_lean.h"
#include "onnx_span.h"
#include "util.h"

/* The wire types the hand-written fields take, for their keys. */
enum {
    LEN = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
    VARINT = PROTOBUF_C_WIRE_TYPE_VARINT,
    FIXED32 = PROTOBUF_C_WIRE_TYPE_32BIT,
    /* AttributeProto's type (20) and ref_attr_name (21): keys of two bytes */
    TYPE_KEY = 20u << 3 | PROTOBUF_C_WIRE_TYPE_VARINT,
    REF_KEY = 21u << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
};

/* The key of field id, of wire type wire_type: one byte, for field
 * numbers 1 to 15. */
static inline uint8_t encode_key(uint32_t id, unsigned wire_type)
{
    return (uint8_t)(id << 3 | wire_type);
}

/* What the sizes walk found of one message or packed field, for the
 * writing walk: its length, and for a message written as its span's
 * bytes that span (note [spans found once] in onnx_encode.c); or, after
 * a message of a list, the next tail messages of the list as the len
 * bytes at run, their keys and lengths included (note [runs of spans] in
 * onnx_encode.c). */
typedef struct EncodedLength {
    size_t len;
    const OnnxSpan *span;
    const uint8_t *run;
    size_t tail;
} EncodedLength;

typedef struct Encoder {
    VEC(EncodedLength) lengths; /* of each message and packed field, in walk order */
    size_t next;                /* the next of lengths the write walk takes */
    uint8_t *buf;
    size_t used, cap;
    FILE *out; /* NULL: buf holds the whole encoding: of its size, or
                  grown as it is written (encode_grow) */
    bool ok;
    bool by_hand; /* note [nodes encoded by hand] in onnx_encode_node.c */
    const KeyMap *spans; /* NULL: every message encoded */
    const OnnxMadeBytes *made; /* messages given as their bytes, or NULL */
    const OnnxLeanGraph *lean; /* a lean read's lists, or NULL: note [lean read] in onnx_lean.h */
} Encoder;

/* m's length, recorded in e->lengths before those of what it holds. */
size_t encode_message_size(Encoder *e, const ProtobufCMessage *m);
/* m's fields, its own length already taken from e->lengths. */
void encode_put_fields(Encoder *e, const ProtobufCMessage *m);
/* Room for n more bytes in the buffer of an e without a stream. */
void encode_grow(Encoder *e, size_t n);
/* n bytes at data. */
void encode_put(Encoder *e, const void *data, size_t n);
void encode_put_varint(Encoder *e, uint64_t v);
/* Key key (a varint), n's length prefix and n bytes at data. */
void encode_put_delimited(Encoder *e, uint64_t key, const void *data, size_t n);
/* An optional string field, written where s is set. */
void encode_put_string(Encoder *e, uint64_t key, const char *s);
/* A repeated string field: a NULL element empty. */
void encode_put_strings(Encoder *e, uint64_t key, char *const *s, size_t n);
/* The bytes m's unknown fields take, and them written. */
size_t encode_unknown_size(const ProtobufCMessage *m);
void encode_put_unknown(Encoder *e, const ProtobufCMessage *m);

/* Whether this build's onnx.proto has the NodeProto and AttributeProto
 * fields onnx_encode_node.c writes, no more. */
bool encode_node_fields_known(void);
/* A NodeProto, or an AttributeProto encode_attribute_plain takes, by hand:
 * its size (its slot in e->lengths first, as encode_message_size), then
 * its fields. */
bool encode_attribute_plain(const Onnx__AttributeProto *a);
size_t encode_node_size(Encoder *e, const Onnx__NodeProto *np);
/* A bare node (no attribute, no unknown field), as the writing walk
 * writes it (note [made nodes packed] in onnx_export_pack.c): its fields
 * at the end of bytes, each string's room made as its length is found;
 * returns their size.  interned says which of its strings have their
 * lengths before them, as interned strings (note [interned lengths]
 * there): bit i of inputs input i (of the first 64), outputs every
 * output, name, op_type and domain those; their lengths are read, not
 * found by strlen. */
typedef VEC(uint8_t) EncodeBytes;
typedef struct EncodeInterned {
    uint64_t inputs;
    bool outputs, name, op_type, domain;
} EncodeInterned;
bool encode_node_bare(const Onnx__NodeProto *np);
size_t encode_bare_node_append(EncodeBytes *bytes, const Onnx__NodeProto *np,
                               EncodeInterned interned);
void encode_put_node(Encoder *e, const Onnx__NodeProto *np);
/* A NodeProto's fields in one pass, each attribute (NULL: an empty one)
 * written by put_attribute after its key (key included): as the writing
 * walk does (encode_put_node), or sizing it then (the export's functions,
 * note [functions packed by hand] in onnx_export_pack.c). */
typedef void EncodeAttributeFn(Encoder *e, uint64_t key, const Onnx__AttributeProto *a);
void encode_put_node_fields(Encoder *e, const Onnx__NodeProto *np,
                            EncodeAttributeFn *put_attribute);
size_t encode_attribute_size(Encoder *e, const Onnx__AttributeProto *a);
void encode_put_attribute(Encoder *e, const Onnx__AttributeProto *a);

#endif
