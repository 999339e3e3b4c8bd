/* onnx_decode_fast.h - the decoder's fast paths for the messages most of
 * a model is: a ValueInfoProto of a tensor type, a NodeProto without
 * attributes.
 *
 * note [common value info]: most of what a model's bytes hold, message by
 * message, is its graph inputs and outputs: a ValueInfoProto naming a
 * tensor type, six nested messages (the value, its TypeProto, the
 * tensor type, its shape and each dimension; the seed's workload, 12,000
 * of its 76,000 messages at 2,000 copies hold 64,000).  The general
 * decoder (onnx_decode.c) reads each message's keys onto a stack, then
 * stores its values through protobuf-c's descriptors, some 500
 * instructions a message.  This path reads that one shape straight into
 * the same structs, in its canonical form only:
 *
 *   0a len name  12 len ( 0a len ( 08 elem_type  [12 len ( 0a len dim )*] ) )
 *
 * with each dim `08 dim_value` or `12 len dim_param`, every key in its
 * one byte, every varint and length prefix shortest, inside its message,
 * no NUL in a string, elem_type from 0 to 2^31-1.  Anything else (a
 * doc_string, a denotation, another type, a longer form, a fault) is left
 * to the general path, which reads it as before: so this path refuses
 * nothing, and what it accepts is whole, canonical and stored as the
 * general path stores it (tests/check_onnx_decode.c compares the two).
 */
#ifndef GRAFT_ONNX_DECODE_FAST_H
#define GRAFT_ONNX_DECODE_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "onnx.pb-c.h"

/* note [op name memo]: a model calls a few ops many times, and each
 * NodeProto spells its op_type anew, which interning hashed and probed
 * (115 instructions a node of bench/onnx_e2e.sh's rewrite).  So the
 * common node's op_type is looked up first among the ones interned
 * lately, in a slot of its own table (no probe), chosen by its first
 * eight bytes and its length (note [one cache slot] in keymap.h), not by
 * the interner's hash: a hit is the interned pointer whose length, first
 * word and later bytes it compares, and has no NUL, as no name there
 * has; only a miss (or a collision) hashes it, tests it for a NUL and
 * interns it, and takes the slot (the hash and its test before each
 * lookup were 17 instructions a node of issue 34's workload). */
enum { ONNX_OP_MEMO_BITS = 5, ONNX_OP_MEMO = 1 << ONNX_OP_MEMO_BITS };
typedef struct OnnxOpMemo {
    const char *name[ONNX_OP_MEMO]; /* interned, NULL: empty */
    size_t len[ONNX_OP_MEMO];
    uint64_t head[ONNX_OP_MEMO];    /* its first eight bytes (string_head) */
} OnnxOpMemo;

/* Where decoded strings go: interned in names (note [interned strings] in
 * onnx_decode.h), or, when names is NULL, each copied into arena; the
 * decoded messages themselves are allocated in arena.  ops: the op names
 * interned lately (note [op name memo]), NULL for none; with names only. */
typedef struct OnnxStrings {
    Arena *arena;
    Interner *names;
    OnnxOpMemo *ops;
} OnnxStrings;

/* The n bytes at s (no NUL among them), of interner_hash hash (arena.h),
 * as a decoded string. */
static inline char *onnx_decode_string_hashed(const OnnxStrings *to, const uint8_t *s, size_t n,
                                              uint32_t hash)
{
    if (to->names) /* (never changed: a decoded message is read only) */
        return (char *)interner_intern_hashed(to->names, (const char *)s, n, hash);
    return arena_strndup(to->arena, (const char *)s, n);
}

/* The n bytes at s (no NUL among them) as a decoded string. */
static inline char *onnx_decode_string(const OnnxStrings *to, const uint8_t *s, size_t n)
{
    if (to->names)
        return (char *)interner_intern(to->names, (const char *)s, n);
    return arena_strndup(to->arena, (const char *)s, n);
}

/* data[0..len), a ValueInfoProto's fields, read into a struct allocated
 * in arena (its name copied, NUL-terminated, not interned), when they are of note
 * [common value info]'s shape; NULL when not (then what it allocated is
 * left in arena).  It nests four messages below the ValueInfoProto: the
 * caller checks that the depth limit allows them. */
Onnx__ValueInfoProto *onnx_decode_common_value(const uint8_t *data, size_t len, Arena *arena);

/* note [shared value types]: a model's ValueInfoProtos mostly share a few
 * types (the seed's workload: two among 60,000), and reading one's
 * TypeProto, four messages, was most of its 960 instructions.  So a
 * TypeProto whose bytes are those of one of the last few read is that
 * one: the ValueInfoProtos share its struct, as they share its value.
 * Decoded messages are never changed (an export makes new ones), and the
 * arena frees them all at once, so a shared one is freed once too; a
 * TypeProto has no span (onnx_span_kept), which would be its bytes. */
enum { ONNX_TYPE_MEMO = 4 };
typedef struct OnnxTypeMemo {
    struct {
        const uint8_t *bytes; /* a TypeProto's, read before */
        size_t len;
        Onnx__TypeProto *type; /* read from them */
    } recent[ONNX_TYPE_MEMO];
    unsigned next; /* the entry the next new one replaces */
} OnnxTypeMemo;

/* onnx_decode_common_value, its strings where to says, its TypeProto
 * taken from memo when the bytes are those of one there, else read and
 * kept there. */
Onnx__ValueInfoProto *onnx_decode_common_value_memo(const uint8_t *data, size_t len,
                                                    const OnnxStrings *to, OnnxTypeMemo *memo);

/* note [common node]: after the graph's inputs, a model's next most
 * numerous messages are its NodeProtos (the seed's workload: 12,000 of
 * the 76,000), on the general path some 1,500 instructions each.  One of
 * strings only (its inputs, outputs, name, op_type, doc_string, domain),
 * keys in field-number order, one byte each, lengths shortest and inside
 * it, no NUL in a string, is read straight into its struct, each array
 * allocated at its size, as the general path allocates it (note [node in
 * one pass] in onnx_decode_fast.c).  A node with an attribute, or of any
 * other form, is left to the general path, as in note [common value
 * info]. */

/* data[0..len), a NodeProto's fields, read into a struct allocated in
 * to->arena, its strings where to says, when they are of note [common
 * node]'s form; NULL when not. */
Onnx__NodeProto *onnx_decode_common_node(const uint8_t *data, size_t len,
                                         const OnnxStrings *to);

#endif
