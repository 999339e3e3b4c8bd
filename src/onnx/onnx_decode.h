/* onnx_decode.h - protobuf bytes into protobuf-c's message structs,
 * checked as they are read, with bytes fields left in place.
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
 * NUL-terminated (or interned: note [interned strings]).
 * tests/check_onnx_decode.c compares its structs with
 * protobuf-c's unpack on every model of tests/onnx/ and of the fuzz corpus.
 *
 * note [checked as decoded]: the decoder checks what the wire check (note
 * [wire check] in onnx_wire.h) checks, as it reads each key and value:
 * every key and varint whole and inside its message, field numbers from 1
 * to 536870911, wire types 0, 1, 2 and 5 and the one a known field's type
 * allows (or a packed run of a repeated scalar), packed runs whole, no
 * singular message field twice in a message, messages nested within the
 * onnx-depth limit, which bounds its recursion.  It does not say what it
 * found: on a fault it stops, and the reader (onnx_model.c) drops what it
 * decoded and runs the wire check over the file, which reports the first
 * fault by byte offset and field.  So a good file is walked once, not
 * twice (bench/onnx_e2e.sh: the wire check was 1,645 instructions an op
 * node), and a bad one keeps the wire check's message, byte for byte.
 * fuzz/fuzz_onnx.c asserts that the two agree on every input.
 */
#ifndef GRAFT_ONNX_DECODE_H
#define GRAFT_ONNX_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "arena.h"
#include "keymap.h"
#include "onnx_lean.h"

/* Decodes data[0..len) as a message of type desc nested at most max_depth
 * messages deep (itself one) into msg (desc->sizeof_message bytes); what
 * msg points to is allocated in arena, or is data itself, which must
 * outlive msg.  When spans is not NULL, each message decoded whose bytes
 * the encoder would write again is mapped there to its OnnxSpan (note
 * [canonical spans] in onnx_span.h), allocated in arena.  False when the
 * bytes fail a check of note [checked as decoded] (msg is then half
 * filled: only arena frees it; onnx_wire_check says what the fault is). */
bool onnx_decode(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
                 uint64_t max_depth, Arena *arena, KeyMap *spans, ProtobufCMessage *msg);

/* note [interned strings]: a model's strings are mostly names, each
 * written several times (a value's by the node that makes it and by each
 * that reads it), and the import interned every one again in its graph
 * (strlen, hash and probe: 10.6 M instructions of bench/onnx_e2e.sh's
 * rewrite at 2,000 copies) after the decoder had copied it, its length in
 * hand.  So the reader (onnx_model.c) has the decoder intern each string
 * instead, from the file's bytes and length: equal names are one pointer,
 * and the import's graph interns its names in this interner
 * (graph_new_named), so that they are the graph's canonical names too
 * (note [canonical pointers] in src/ir/graph.c), used as they are (note
 * [names as decoded] in onnx_import.c).  A string is interned up to
 * any NUL in it, the string graft reads (the decoder without names copies
 * all its bytes, as protobuf-c's unpack does; a message with a NUL in a
 * string gets no span either way).  Decoded strings are never changed.
 * tests/check_onnx_decode.c decodes every model both ways and compares. */

/* onnx_decode, its strings interned in names (NULL: copied into arena). */
bool onnx_decode_named(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
                       uint64_t max_depth, Arena *arena, KeyMap *spans, Interner *names,
                       ProtobufCMessage *msg);

/* note [lean read] in onnx_lean.h: the model in data[0..len) decoded as
 * onnx_decode_named decodes it, but for the three long lists of its
 * graph, which lean holds instead (every element checked). */
bool onnx_decode_lean(uint8_t *data, size_t len, uint64_t max_depth, Arena *arena,
                      KeyMap *spans, Interner *names, OnnxLeanGraph *lean,
                      Onnx__ModelProto *model);

#endif
