/* onnx_decode.h - checked protobuf bytes into protobuf-c's message
 * structs, with bytes fields left in place.
 *
 * note [bytes in place]: protobuf-c's unpack copies every bytes field out
 * of the buffer it reads, and an initializer's raw_data is most of a
 * model, so a model read that way held the file twice at its peak
 * (bench/RESULTS.md, "graft fmt MODEL.onnx -o OUT.onnx: peak memory").
 * onnx_decode fills the structs protobuf-c generated from onnx.proto, from
 * the same descriptors, with the values protobuf-c's unpack gives them,
 * except that a bytes field, and an unknown field's bytes, point into the
 * buffer they were read from; the model owns that buffer (note [model
 * arena] in onnx_model.c).  Strings are copied, since graft reads them
 * NUL-terminated.  It decodes only bytes the wire check passed (note [wire
 * check] in onnx_wire.h), so it checks nothing itself: every key, varint
 * and length ends inside its message, each field has a wire type its type
 * allows, no singular message field occurs twice, and messages nest within
 * the onnx-depth limit, which bounds its recursion.  tests/check_onnx_decode.c
 * compares its structs with protobuf-c's unpack on every model of tests/onnx/
 * and of the fuzz corpus.
 */
#ifndef GRAFT_ONNX_DECODE_H
#define GRAFT_ONNX_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "arena.h"
#include "keymap.h"

/* Decodes data[0..len), which onnx_wire_check passed as a message of type
 * desc, into msg (desc->sizeof_message bytes, zeroed); what msg points to
 * is allocated in arena, or is data itself, which must outlive msg.  When
 * spans is not NULL, each message decoded whose bytes the encoder would
 * write again is mapped there to its OnnxSpan (note [canonical spans] in
 * onnx_span.h), allocated in arena. */
void onnx_decode(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
                 Arena *arena, KeyMap *spans, ProtobufCMessage *msg);

#endif
