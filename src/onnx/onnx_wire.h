/* onnx_wire.h - checking an ONNX file's protobuf wire format, and
 * saying where it is broken.
 *
 * note [wire check]: protobuf-c's unpack answers a malformed message with
 * NULL and nothing else, and it recurses once per nested message.  So
 * graft walks the bytes itself, iteratively, against the same descriptors
 * protobuf-c generated from onnx.proto, and reports the first fault with
 * its byte offset and the field it is in:
 *
 *   model.onnx: error: byte 1234: length 5000 of field 'raw_data' (9) of
 *   onnx.TensorProto runs past the end of the file (byte 2048)
 *
 * It checks every key (field number, wire type 0, 1, 2 or 5, the wire
 * type a known field's type allows), every varint (at most 10 bytes,
 * ending inside its message), every fixed-size value and length prefix
 * (inside the message that holds it), packed repeated scalars (whole
 * values), the nesting of messages (the onnx-depth limit, which also
 * bounds the decoder's recursion), and that no singular message field
 * occurs twice in one message (note [one occurrence]).  Unknown fields are checked for their
 * framing only; the decoder keeps them (onnx_model.h).  A file that passes
 * is one protobuf-c unpacks and the decoder reads as protobuf-c does.  The
 * decoder makes the same checks as it reads (note [checked as decoded] in
 * onnx_decode.h); this walk runs only to report a fault it found.
 */
#ifndef GRAFT_ONNX_WIRE_H
#define GRAFT_ONNX_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "diag.h"

/* Checks data[0..len) as a message of type root, nested at most max_depth
 * messages deep (root counting as one).  On a fault reports it through d,
 * naming the file name, and returns false. */
bool onnx_wire_check(const uint8_t *data, size_t len, const ProtobufCMessageDescriptor *root,
                     uint64_t max_depth, const char *name, graft_diag *d);

/* The field numbered number of desc, NULL for an unknown one: the wire
 * check's and the decoder's one lookup, inline as both look up every key.
 * protoc-c sorts a descriptor's fields by number, and most of
 * onnx.proto's are numbered 1, 2, 3, ... from the first: those are found
 * by index (bench/onnx_e2e.sh: 500 instructions per node before).  Field
 * i's number is at least i + 1, so one numbered past a gap lies at or
 * below index number - 1: a few steps down from there find the rest of
 * the numbers a graph repeats (GraphProto's input, 11, and output, 12, at
 * indices 4 and 5: 58 instructions each through protobuf-c's binary
 * search), and that search the others. */
static inline const ProtobufCFieldDescriptor *
onnx_wire_field(const ProtobufCMessageDescriptor *desc, uint64_t number)
{
    if (number - 1 < desc->n_fields && desc->fields[number - 1].id == number)
        return &desc->fields[number - 1];
    size_t top = number - 1 < desc->n_fields ? (size_t)number - 1 : desc->n_fields;
    for (size_t i = top; i > 0 && top - i < 8; i--)
        if (desc->fields[i - 1].id == number)
            return &desc->fields[i - 1];
    return protobuf_c_message_descriptor_get_field(desc, (unsigned)number);
}

#endif
