/* onnx_decode.c - checked protobuf bytes into protobuf-c's structs, bytes
 * left in place (note [bytes in place] in onnx_decode.h).  A message's
 * keys are read once, into a stack of fields that the messages nested in
 * it use above its own, counting the elements of each repeated field and
 * the unknown fields, so that each array is allocated once at its size;
 * then every value is stored from the stack. */
#include "onnx_decode.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_wire.h"
#include "util.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

/* One field of a message: its key and where its value lies. */
typedef struct WireField {
    const ProtobufCFieldDescriptor *desc; /* NULL for an unknown field */
    uint32_t number;
    uint8_t wire_type;
    uint8_t *value; /* the bytes after the key */
    uint8_t *body;  /* the value without its length prefix */
    size_t len;     /* bytes of body */
    uint8_t *next;  /* the next key */
} WireField;

typedef struct Decoder {
    Arena *arena;
    VEC(WireField) fields; /* of the messages being decoded, inner above outer */
} Decoder;

/* A varint the wire check found whole; bits past 64 are dropped, as
 * protobuf-c drops them. */
static uint64_t read_varint(uint8_t **p)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t byte = *(*p)++;
        if (shift < 64)
            v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
}

static uint64_t read_le(const uint8_t *p, unsigned width)
{
    uint64_t v = 0;
    for (unsigned b = 0; b < width; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
}

/* The field whose key is at p, inside a message of type msg. */
static void read_field(const ProtobufCMessageDescriptor *msg, uint8_t *p, WireField *f)
{
    uint64_t key = read_varint(&p);
    f->number = (uint32_t)(key >> 3);
    f->wire_type = (uint8_t)(key & 7);
    f->desc = onnx_wire_field(msg, f->number);
    f->value = f->body = p;
    switch (f->wire_type) {
    case WIRE_VARINT:
        read_varint(&p);
        f->len = (size_t)(p - f->body);
        break;
    case WIRE_FIXED64:
    case WIRE_FIXED32:
        f->len = f->wire_type == WIRE_FIXED32 ? 4 : 8;
        break;
    default: /* WIRE_LEN: the only other type the wire check lets through */
        f->len = (size_t)read_varint(&p);
        f->body = p;
        break;
    }
    f->next = f->body + f->len;
}

/* note [onnx scalars]: onnx.proto's scalar fields are varints of type
 * int32, enum, int64 and uint64, and floats and doubles; the decoder
 * knows these and no other (tests/check_onnx_decode.c asserts that no
 * other type is reachable from onnx.ModelProto). */
static bool fixed_width(ProtobufCType t)
{
    return t == PROTOBUF_C_TYPE_FLOAT || t == PROTOBUF_C_TYPE_DOUBLE;
}

/* protobuf-c's size of a value of type t in its struct or array. */
static size_t value_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_STRING:
        return sizeof(char *);
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(ProtobufCMessage *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default: /* int32, enum, float */
        return 4;
    }
}

/* Whether a repeated field's value holds its elements packed: a
 * length-delimited value of a scalar type. */
static bool packed(const WireField *f)
{
    ProtobufCType t = f->desc->type;
    return f->wire_type == WIRE_LEN && t != PROTOBUF_C_TYPE_STRING &&
           t != PROTOBUF_C_TYPE_BYTES && t != PROTOBUF_C_TYPE_MESSAGE;
}

/* How many elements a repeated field's value holds. */
static size_t element_count(const WireField *f)
{
    if (!packed(f))
        return 1;
    if (fixed_width(f->desc->type))
        return f->len / value_size(f->desc->type);
    size_t count = 0; /* varints: one ends at each byte below 0x80 */
    for (size_t i = 0; i < f->len; i++)
        count += f->body[i] < 0x80;
    return count;
}

static void *member_at(ProtobufCMessage *msg, unsigned offset)
{
    return (char *)msg + offset;
}

/* One scalar of type t at *p into member, as protobuf-c's unpack
 * converts it (an int32 or enum is the varint's low 32 bits); *p moves
 * past it. */
static void put_scalar(ProtobufCType t, uint8_t **p, void *member)
{
    size_t size = value_size(t);
    uint64_t v = fixed_width(t) ? read_le(*p, (unsigned)size) : read_varint(p);
    if (fixed_width(t))
        *p += size;
    if (size == 4) {
        uint32_t low = (uint32_t)v;
        memcpy(member, &low, 4);
    } else {
        memcpy(member, &v, 8);
    }
}

static void decode_message(Decoder *dc, const ProtobufCMessageDescriptor *desc, uint8_t *data,
                           size_t len, ProtobufCMessage *msg);

/* One value of a field that is not packed into member. */
static void put_value(Decoder *dc, const WireField *f, void *member)
{
    uint8_t *p = f->value;
    switch (f->desc->type) {
    case PROTOBUF_C_TYPE_STRING:
        *(char **)member = arena_strndup(dc->arena, (const char *)f->body, f->len);
        break;
    case PROTOBUF_C_TYPE_BYTES: /* in place; empty bytes are NULL, as protobuf-c has them */
        *(ProtobufCBinaryData *)member = (ProtobufCBinaryData){f->len, f->len ? f->body : NULL};
        break;
    case PROTOBUF_C_TYPE_MESSAGE: {
        const ProtobufCMessageDescriptor *sub = f->desc->descriptor;
        ProtobufCMessage *m = arena_alloc(dc->arena, sub->sizeof_message);
        decode_message(dc, sub, f->body, f->len, m);
        *(ProtobufCMessage **)member = m;
        break;
    }
    default:
        put_scalar(f->desc->type, &p, member);
        break;
    }
}

/* A field read once per message: the last value wins; a member of a
 * oneof clears the member set before it (they share their place), as
 * protobuf-c's unpack does. */
static void put_single(Decoder *dc, ProtobufCMessage *msg, const WireField *f)
{
    void *member = member_at(msg, f->desc->offset);
    unsigned quantifier = f->desc->quantifier_offset;
    if (f->desc->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        uint32_t *which = member_at(msg, quantifier);
        const ProtobufCFieldDescriptor *old = *which ? onnx_wire_field(msg->descriptor,
                                                                       *which) : NULL;
        if (old)
            memset(member, 0, value_size(old->type));
        put_value(dc, f, member);
        *which = f->number;
        return;
    }
    put_value(dc, f, member);
    if (quantifier)
        *(protobuf_c_boolean *)member_at(msg, quantifier) = 1;
}

/* A repeated field's values, appended to its array (allocated at its
 * size by allocate_arrays). */
static void put_repeated(Decoder *dc, ProtobufCMessage *msg, const WireField *f)
{
    size_t *count = member_at(msg, f->desc->quantifier_offset);
    char *array = *(char **)member_at(msg, f->desc->offset);
    size_t size = value_size(f->desc->type);
    if (!packed(f)) {
        put_value(dc, f, array + size * (*count)++);
        return;
    }
    uint8_t *p = f->body;
    while (p < f->next)
        put_scalar(f->desc->type, &p, array + size * (*count)++);
}

/* Reads the keys of the message in data[0..len) onto dc's stack, each
 * repeated field's count into its n_ member; how many are unknown. */
static size_t scan_fields(Decoder *dc, const ProtobufCMessageDescriptor *desc, uint8_t *data,
                          size_t len, ProtobufCMessage *msg)
{
    size_t unknown = 0;
    for (uint8_t *p = data; p < data + len;) {
        vec_reserve(&dc->fields, dc->fields.len + 1);
        WireField *f = &dc->fields.items[dc->fields.len++];
        read_field(desc, p, f);
        p = f->next;
        if (!f->desc)
            unknown++;
        else if (f->desc->label == PROTOBUF_C_LABEL_REPEATED)
            *(size_t *)member_at(msg, f->desc->quantifier_offset) += element_count(f);
    }
    return unknown;
}

/* Each counted repeated field's array, its count reset to count again
 * as the values are stored. */
static void allocate_arrays(const ProtobufCMessageDescriptor *desc, Arena *arena,
                            ProtobufCMessage *msg)
{
    for (unsigned i = 0; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *field = &desc->fields[i];
        size_t *count = field->label == PROTOBUF_C_LABEL_REPEATED ?
                            member_at(msg, field->quantifier_offset) : NULL;
        if (!count || *count == 0)
            continue;
        *(void **)member_at(msg, field->offset) =
            arena_array(arena, *count, value_size(field->type));
        *count = 0;
    }
}

/* The message in data[0..len) into msg; the messages nested in it
 * read their keys onto dc's stack above its own, and leave it as they
 * found it. */
static void decode_message(Decoder *dc, const ProtobufCMessageDescriptor *desc, uint8_t *data,
                           size_t len, ProtobufCMessage *msg)
{
    protobuf_c_message_init(desc, msg);
    size_t first = dc->fields.len;
    size_t unknown = scan_fields(dc, desc, data, len, msg);
    size_t end = dc->fields.len;
    allocate_arrays(desc, dc->arena, msg);
    if (unknown)
        msg->unknown_fields = arena_array(dc->arena, unknown, sizeof *msg->unknown_fields);
    for (size_t i = first; i < end; i++) {
        WireField f = dc->fields.items[i]; /* a copy: a nested message may move the stack */
        if (!f.desc) { /* kept with its bytes, in place: key, wire type, value */
            msg->unknown_fields[msg->n_unknown_fields++] = (ProtobufCMessageUnknownField){
                f.number, (ProtobufCWireType)f.wire_type, (size_t)(f.next - f.value), f.value};
        } else if (f.desc->label == PROTOBUF_C_LABEL_REPEATED) {
            put_repeated(dc, msg, &f);
        } else {
            put_single(dc, msg, &f);
        }
    }
    dc->fields.len = first;
}

void onnx_decode(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
                 Arena *arena, ProtobufCMessage *msg)
{
    Decoder dc = {arena, {0}};
    decode_message(&dc, desc, data, len, msg);
    vec_free(&dc.fields);
}
