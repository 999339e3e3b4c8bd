/* onnx_span.h - the bytes a decoded message was read from, kept where
 * writing the message would give those bytes back.
 *
 * note [canonical spans]: most of what graft writes it read and left
 * alone: the graph's inputs and outputs, value_info, initializers, every
 * node no rule touched.  Encoding such a message again walks its fields
 * twice (note [onnx encode] in onnx_encode.h) to produce the bytes it came
 * from, when they were canonical: the bytes protobuf-c's pack writes of
 * the decoded struct.  So the decoder (onnx_decode.c) notes, for each
 * NodeProto, ValueInfoProto and TensorProto it reads whose bytes are
 * canonical, where they lie in the file, and the encoder copies them in
 * place of encoding that struct (the model keeps the file's bytes, note
 * [model arena] in onnx_model.c).  Canonical is decided while decoding,
 * field by field, for the message and every message inside it:
 *   - no unknown field;
 *   - fields in field-number order, a number repeated only by the next
 *     value of a repeated field that is not [packed = true];
 *   - every key, varint and length prefix in its shortest form, and each
 *     varint the one its stored value is written as (an int32 or enum
 *     sign-extended to ten bytes; bits past 64 none);
 *   - a [packed = true] field as one non-empty packed run, any other
 *     repeated scalar one key per value;
 *   - at most one member of a oneof;
 *   - no NUL inside a string (the encoder writes a string up to its NUL).
 * Any other message is encoded from its struct as before, and so is every
 * message made or changed after reading, whose address is no decoded
 * one's: the spans are looked up by the address of the decoded struct
 * (or by its index in its list: note [spans by index]), which no code
 * changes after decoding (the export shares such structs
 * or makes new ones, note [onnx export] in onnx_export.c).  Only the three
 * kinds are noted: they are the elements of a graph's lists, whole units
 * the export keeps or drops, and a lookup per smaller message (a
 * dimension, an attribute) would cost about what encoding it does.
 * tests/check_onnx_encode.c compares the writing with spans against
 * protobuf-c's pack on every model of tests/onnx/ and of the fuzz
 * corpus, and shows each non-canonical form encoded afresh; fuzz/fuzz_onnx.c
 * asserts that a model written with its spans is the one written without.
 */
#ifndef GRAFT_ONNX_SPAN_H
#define GRAFT_ONNX_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "keymap.h"
#include "onnx.pb-c.h"

/* A decoded message's bytes: its fields, without its key and length. */
typedef struct OnnxSpan {
    const uint8_t *data;
    size_t len;
} OnnxSpan;

/* Whether messages of type desc get spans (note [canonical spans]). */
static inline bool onnx_span_kept(const ProtobufCMessageDescriptor *desc)
{
    return desc == &onnx__node_proto__descriptor ||
           desc == &onnx__value_info_proto__descriptor ||
           desc == &onnx__tensor_proto__descriptor;
}

/* note [span keys]: a model's spans are put once a node and a value as
 * it is read (120,000 in issue 34's workload) and the kept graph inputs'
 * and outputs' asked once as it is written; keymap_ptr_key's mix of the
 * struct's address was a fifth of each (40 instructions a put).  So the
 * spans map is keyed by keymap_addr_key, one multiply and a rotate, and
 * only through onnx_span_put and onnx_span_get. */

/* Notes span as m's in spans. */
static inline void onnx_span_put(KeyMap *spans, const void *m, const OnnxSpan *span)
{
    *keymap_put(spans, keymap_addr_key(m), 0) = (int64_t)(intptr_t)span;
}

/* The span noted as m's in spans, or NULL. */
static inline const OnnxSpan *onnx_span_get(const KeyMap *spans, const void *m)
{
    const int64_t *v = keymap_get(spans, keymap_addr_key(m));
    return v ? (const OnnxSpan *)(intptr_t)*v : NULL;
}

/* note [spans by index]: a graph's inputs and outputs (50,000 of the
 * 60,000 values of issue 34's workload) are lists the export writes as
 * they were read, the same arrays (onnx_export in onnx_export.c copies
 * the graph and replaces only its nodes, initializers and value_info).
 * So their spans are not put one a value (a put as read and a lookup as
 * written, about 60 instructions a value): the decoder keeps an array of
 * OnnxSpan beside each such list, by the element's index (data NULL: none,
 * encoded), and puts it once, keyed by the address of the list's array of
 * pointers, which is never a message's; the encoder looks it up once a
 * list.  The model's graph's nodes get such an array too, and their spans
 * are put by address only when a write needs them (note [nodes' spans put
 * late] in onnx_model.c).  A message of those lists put in another list,
 * or by itself, has no span there and is encoded from its fields: the
 * same bytes. */

/* Whether field number id of messages of type desc keeps its elements'
 * spans by index in every message (note [spans by index]); a graph's
 * nodes keep them in the model's graph alone. */
static inline bool onnx_spans_by_index(const ProtobufCMessageDescriptor *desc, uint32_t id)
{
    return desc == &onnx__graph_proto__descriptor && (id == 11 || id == 12);
}

/* Whether field number id of messages of type desc may keep its
 * elements' spans by index: the lists above, and a graph's nodes. */
static inline bool onnx_spans_may_index(const ProtobufCMessageDescriptor *desc, uint32_t id)
{
    return desc == &onnx__graph_proto__descriptor && (id == 1 || id == 11 || id == 12);
}

/* Notes spans (one per element) as those of the list whose array is
 * list. */
static inline void onnx_list_spans_put(KeyMap *spans, const void *list, OnnxSpan *by_index)
{
    *keymap_put(spans, keymap_addr_key(list), 0) = (int64_t)(intptr_t)by_index;
}

/* The spans by index of the list whose array is list, or NULL. */
static inline OnnxSpan *onnx_list_spans_get(const KeyMap *spans, const void *list)
{
    const int64_t *v = keymap_get(spans, keymap_addr_key(list));
    return v ? (OnnxSpan *)(intptr_t)*v : NULL;
}

/* m's span in spans (a map from decoded structs to their OnnxSpan), or
 * NULL: none noted, or spans NULL. */
static inline const OnnxSpan *onnx_span_of(const KeyMap *spans, const ProtobufCMessage *m)
{
    return spans && onnx_span_kept(m->descriptor) ? onnx_span_get(spans, m) : NULL;
}

/* The bytes of v as a varint. */
static inline size_t onnx_varint_size(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        n++;
    return n;
}

/* Writes v as a varint at at (room for onnx_varint_size(v) bytes, at
 * most ten); returns the byte after it. */
static inline uint8_t *onnx_varint_write(uint8_t *at, uint64_t v)
{
    for (; v >= 0x80; v >>= 7)
        *at++ = (uint8_t)(v | 0x80);
    *at++ = (uint8_t)v;
    return at;
}

#endif
