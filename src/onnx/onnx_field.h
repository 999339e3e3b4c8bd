/* onnx_field.h - one protobuf field read from a message's bytes: its key,
 * and where its value lies.
 *
 * note [field reader]: the decoder reads each field of a file with the
 * checks of note [checked as decoded] (onnx_decode.h), and then a
 * scalar's varint without; a lean read's graph check reads the fields of
 * a node or an initializer again (onnx_lean.c), bytes the decoder found
 * whole and canonical, with none.  All read keys, values and varints
 * here, told whether to check: the functions
 * are inline and every caller passes a constant, so each copy keeps only
 * the tests its caller asked for, and the unchecked one costs what a
 * reader of its own did (bench/RESULTS.md, "Session 21, tidy").  What is
 * not the wire's own (the field's descriptor, whether its bytes are
 * canonical) is the decoder's.
 */
#ifndef GRAFT_ONNX_FIELD_H
#define GRAFT_ONNX_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* protobuf's wire types that onnx.proto uses; 3 and 4 are groups, which
 * proto3 dropped (protobuf-c refuses them too), 6 and 7 undefined. */
enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

/* The varint at *p into *v, *p moved past it; bits past 64 are dropped,
 * as protobuf-c drops them.  checked: false when it is longer than max
 * bytes or does not end before end.  Unchecked (bytes a check found
 * whole), neither max nor end is read, and it is true.  One byte, every
 * key of onnx.proto and the length of most messages of a graph, is taken
 * before the loop (whose shifts and tests cost it 12 instructions, 2.9 M
 * of bench/onnx_e2e.sh's rewrite at 10,000 copies). */
static inline bool onnx_varint_take(uint8_t **p, const uint8_t *end, unsigned max, bool checked,
                                    uint64_t *v)
{
    if ((!checked || *p < end) && **p < 0x80) {
        *v = *(*p)++;
        return true;
    }
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (checked && (shift == 7 * max || *p >= end))
            return false;
        uint8_t byte = *(*p)++;
        if (shift < 64)
            x |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = x;
            return true;
        }
    }
}

/* The key at *p: its field number and wire type, *p moved past it;
 * checked: false when it is not a varint of at most 5 bytes ending
 * before end, or its number is not from 1 to 536870911. */
static inline bool onnx_key_take(uint8_t **p, const uint8_t *end, bool checked,
                                 uint32_t *number, uint8_t *wire_type)
{
    uint64_t key;
    if (!onnx_varint_take(p, end, 5, checked, &key) ||
        (checked && (key >> 3 == 0 || key >> 3 > 536870911)))
        return false;
    *number = (uint32_t)(key >> 3);
    *wire_type = (uint8_t)(key & 7);
    return true;
}

/* The value at *p of a key of wire type wire_type: where it lies in
 * *body and *len (a length-delimited value's without its length prefix,
 * a varint's its bytes), *p moved past it; false for a wire type ONNX
 * never uses, or checked, when the value or its length prefix does not
 * end before end. */
static inline bool onnx_value_take(uint8_t **p, const uint8_t *end, uint8_t wire_type,
                                   bool checked, uint8_t **body, size_t *len)
{
    uint8_t *at = *p;
    uint64_t n;
    switch (wire_type) {
    case WIRE_VARINT:
        if (!onnx_varint_take(p, end, 10, checked, &n))
            return false;
        *len = (size_t)(*p - at);
        break;
    case WIRE_FIXED64:
    case WIRE_FIXED32:
        *len = wire_type == WIRE_FIXED32 ? 4 : 8;
        if (checked && (size_t)(end - at) < *len)
            return false;
        *p += *len;
        break;
    case WIRE_LEN:
        if (!onnx_varint_take(p, end, 5, checked, &n) || (checked && n > (uint64_t)(end - *p)))
            return false;
        *len = (size_t)n;
        at = *p;
        *p += *len;
        break;
    default: /* groups (3, 4) and the undefined 6 and 7 */
        return false;
    }
    *body = at;
    return true;
}

#endif
