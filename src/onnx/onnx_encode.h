/* onnx_encode.h - onnx.proto's messages in protobuf's wire format,
 * lengths computed once.
 *
 * note [onnx encode]: graft writes a model as protobuf-c's pack writes it,
 * byte for byte (tests/check_onnx_encode.c compares the two on every
 * model of tests/onnx/ and of the fuzz corpus): known fields in the order
 * of their descriptor (field-number order), an optional field where its
 * has_ flag or its pointer says it is present, a oneof's member where the
 * case names it, repeated scalars packed where onnx.proto says [packed =
 * true] and one key per value elsewhere, a message's unknown fields after
 * its known ones with their bytes.  What differs is the work.  protobuf-c
 * packs a nested message into a buffer of its own to learn its length,
 * then copies it into its parent's, so every byte is copied once for each
 * level it is nested in (a node's attribute: model, graph, node,
 * attribute), through a callback per field.  Here a first walk computes
 * the length of every message and packed field once, bottom-up, into a
 * list in the order the second walk meets them; the second writes each
 * byte once, into a 64 KB buffer flushed to the stream (or into one
 * buffer of the exact size).  Both walks recurse on the nesting of
 * messages, which the wire check bounds (--limit onnx-depth) for a model
 * read; the export nests nothing deeper than the model it came from.
 * A NodeProto, and an AttributeProto holding no message, are written by
 * hand, field by field (note [nodes encoded by hand] in
 * onnx_encode_node.c), the same bytes with no descriptor asked.
 * onnx.proto is proto2: the fields are optional, repeated or in a oneof
 * (required ones are written always); proto3's unlabelled fields are not
 * among them, and the encoder does not take them.
 */
#ifndef GRAFT_ONNX_ENCODE_H
#define GRAFT_ONNX_ENCODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <protobuf-c/protobuf-c.h>

#include "keymap.h"
#include "onnx_lean.h"
#include "onnx_span.h"

/* Writes msg's encoding to out; false when a write failed.  The messages
 * in msg that spans maps (note [canonical spans] in onnx_span.h; spans
 * NULL: none) are written as their spans' bytes. */
bool onnx_encode_file(const ProtobufCMessage *msg, const KeyMap *spans, FILE *out);

/* The encodings a caller made of messages it made (the export: note
 * [functions packed once] in onnx_export_fn.c, note [made nodes packed]
 * in onnx_export_pack.c), written as those bytes. */
typedef struct OnnxMadeBytes {
    const KeyMap *functions;       /* a FunctionProto -> its OnnxSpan, or NULL */
    const ProtobufCMessage *graph; /* a GraphProto, or NULL, */
    const OnnxSpan *nodes;         /* and per element of its node list, the
                                      node's bytes, or data NULL: encoded */
} OnnxMadeBytes;

/* The same, and the messages in msg that made gives (NULL: none) written
 * as those bytes. */
bool onnx_encode_file_made(const ProtobufCMessage *msg, const KeyMap *spans,
                           const OnnxMadeBytes *made, FILE *out);

/* The same, and the lists of lean (a lean read's, note [lean read] in
 * onnx_lean.h; NULL: none) written in place of its graph's own. */
bool onnx_encode_file_lean(const ProtobufCMessage *msg, const KeyMap *spans,
                           const OnnxMadeBytes *made, const OnnxLeanGraph *lean, FILE *out);

/* msg's encoding in a malloc'd buffer of *len bytes (one more allocated,
 * so that an empty encoding is not a NULL buffer), spans as above. */
uint8_t *onnx_encode_bytes(const ProtobufCMessage *msg, const KeyMap *spans, size_t *len);

#endif
