/* onnx_encode_impl.h - what the encoder's files share (note [onnx encode]
 * in onnx_encode.h): the state of one encoding and its writing helpers. */
#ifndef GRAFT_ONNX_ENCODE_IMPL_H
#define GRAFT_ONNX_ENCODE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "keymap.h"
#include "onnx_lean.h"
#include "onnx_span.h"
#include "util.h"

/* What the sizes walk found of one message or packed field, for the
 * writing walk: its length, and for a message written as its span's
 * bytes that span (note [spans found once] in onnx_encode.c). */
typedef struct EncodedLength {
    size_t len;
    const OnnxSpan *span;
} EncodedLength;

typedef struct Encoder {
    VEC(EncodedLength) lengths; /* of each message and packed field, in walk order */
    size_t next;                /* the next of lengths the write walk takes */
    uint8_t *buf;
    size_t used, cap;
    FILE *out; /* NULL: buf is of the encoding's size */
    bool ok;
    bool by_hand; /* note [nodes encoded by hand] in onnx_encode_node.c */
    const KeyMap *spans; /* NULL: every message encoded */
    const KeyMap *made;  /* FunctionProtos given as their bytes, or NULL */
    const OnnxLeanGraph *lean; /* a lean read's lists, or NULL: note [lean read] in onnx_lean.h */
} Encoder;

/* m's length, recorded in e->lengths before those of what it holds. */
size_t encode_message_size(Encoder *e, const ProtobufCMessage *m);
/* m's fields, its own length already taken from e->lengths. */
void encode_put_fields(Encoder *e, const ProtobufCMessage *m);
/* n bytes at data. */
void encode_put(Encoder *e, const void *data, size_t n);
void encode_put_varint(Encoder *e, uint64_t v);
/* Key key (a varint), n's length prefix and n bytes at data. */
void encode_put_delimited(Encoder *e, uint64_t key, const void *data, size_t n);
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
void encode_put_node(Encoder *e, const Onnx__NodeProto *np);
size_t encode_attribute_size(Encoder *e, const Onnx__AttributeProto *a);
void encode_put_attribute(Encoder *e, const Onnx__AttributeProto *a);

#endif
