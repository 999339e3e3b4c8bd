/* onnx_encode.c - protobuf messages written with their lengths computed
 * once, bottom-up (note [onnx encode] in onnx_encode.h), or copied from
 * the bytes they were read from (note [canonical spans] in onnx_span.h). */
#include "onnx_encode.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_encode_impl.h"

/* note [stream buffer]: the buffer a model is written through.  Every
 * page of it a large model touches counts in graft fmt's peak memory
 * (issue 28 bounds it by the file's size and 300 bytes a node: note [lean
 * read] in onnx_lean.h), while a write of 16 KB costs a system call for
 * some 60,000 instructions of encoding; a bytes field larger than the
 * buffer (an initializer's raw_data) goes to the stream directly. */
enum { STREAM_BUFFER = 16 * 1024 };

static size_t varint_size(uint64_t v)
{
    return onnx_varint_size(v);
}

static uint32_t zigzag32(int32_t v)
{
    return ((uint32_t)v << 1) ^ (uint32_t)-(int32_t)((uint32_t)v >> 31);
}

static uint64_t zigzag64(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)-(int64_t)((uint64_t)v >> 63);
}

static bool is_pointer(ProtobufCType type)
{
    return type == PROTOBUF_C_TYPE_STRING || type == PROTOBUF_C_TYPE_MESSAGE;
}

/* The bytes one value of type takes in a message's struct. */
static size_t value_stride(ProtobufCType type)
{
    switch (type) {
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return 4;
    }
}

static unsigned wire_type(ProtobufCType type)
{
    switch (type) {
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return PROTOBUF_C_WIRE_TYPE_64BIT;
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return PROTOBUF_C_WIRE_TYPE_32BIT;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    default:
        return PROTOBUF_C_WIRE_TYPE_VARINT;
    }
}

/* How many values of field f message m writes: a repeated field's count,
 * else 1 where it is present (note [onnx encode]) and 0 where not. */
static size_t value_count(const ProtobufCFieldDescriptor *f, const ProtobufCMessage *m)
{
    const char *base = (const char *)m;
    if (f->label == PROTOBUF_C_LABEL_REPEATED)
        return *(const size_t *)(base + f->quantifier_offset);
    if (f->label == PROTOBUF_C_LABEL_REQUIRED)
        return 1;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        if (*(const uint32_t *)(base + f->quantifier_offset) != f->id)
            return 0;
    } else if (!is_pointer(f->type))
        return *(const protobuf_c_boolean *)(base + f->quantifier_offset) ? 1 : 0;
    if (!is_pointer(f->type))
        return 1;
    const void *p = *(const void *const *)(base + f->offset);
    return p && p != f->default_value;
}

/* Where field f's first value is in m. */
static const char *first_value(const ProtobufCFieldDescriptor *f, const ProtobufCMessage *m)
{
    const char *member = (const char *)m + f->offset;
    return f->label == PROTOBUF_C_LABEL_REPEATED ? *(const char *const *)member : member;
}

/* A varint-encoded value: its number as put_varint takes it. */
static uint64_t varint_value(ProtobufCType type, const void *v)
{
    switch (type) {
    case PROTOBUF_C_TYPE_SINT32:
        return zigzag32(*(const int32_t *)v);
    case PROTOBUF_C_TYPE_ENUM:
    case PROTOBUF_C_TYPE_INT32: /* a negative one sign-extended to 64 bits */
        return (uint64_t)(int64_t) * (const int32_t *)v;
    case PROTOBUF_C_TYPE_UINT32:
        return *(const uint32_t *)v;
    case PROTOBUF_C_TYPE_SINT64:
        return zigzag64(*(const int64_t *)v);
    case PROTOBUF_C_TYPE_BOOL:
        return *(const protobuf_c_boolean *)v ? 1 : 0;
    default: /* int64, uint64 */
        return *(const uint64_t *)v;
    }
}

/* The bytes m is written as, or NULL: encoded from its fields. */
static const OnnxSpan *span_of(const Encoder *e, const ProtobufCMessage *m)
{
    const OnnxSpan *span = onnx_span_of(e->spans, m);
    if (!span && e->made && e->made->functions &&
        m->descriptor == &onnx__function_proto__descriptor)
        span = keymap_get_ptr(e->made->functions, m);
    return span;
}

/* note [spans found once]: a message written as its span's bytes is
 * looked up once, by the sizes walk, which records the span for the
 * writing walk with its length (issue 28's model: 12,000 graph inputs and
 * outputs, a lookup each the writing walk no longer makes,
 * bench/onnx_e2e.sh). */

/* A message's length: its span's (recorded with it), or its fields'
 * (recorded). */
static size_t spanned_size(Encoder *e, const ProtobufCMessage *m, const OnnxSpan *span)
{
    if (!span)
        return encode_message_size(e, m);
    vec_push(&e->lengths, ((EncodedLength){span->len, span, NULL, 0}));
    return span->len;
}

static size_t sub_message_size(Encoder *e, const ProtobufCMessage *m)
{
    return m ? spanned_size(e, m, span_of(e, m)) : 0;
}

/* note [runs of spans]: the messages of a list the model read and kept
 * in their order (a graph's inputs and outputs, its nodes no rule
 * touched, issue 28's 10,000 graph inputs) lie one after the other in the
 * bytes read, each after its key and length prefix, the bytes the
 * encoder would write before it.  So a message whose span follows the
 * one before it so (follows) joins that one's run: the sizes walk records
 * the run once, as the bytes from the end of its first message's span to
 * the end of its last one's, and the writing walk copies them at once
 * after writing the first, without a key, a length and a copy per
 * message (bench/onnx_e2e.sh: 146 instructions a graph input).  Only the
 * model's spans run together (note [canonical spans] in onnx_span.h: all
 * in the one buffer of the bytes read), not the export's functions. */

/* Whether span, the next message of a list of field key (one byte) whose
 * message before it was read ending at end, comes right after it: the
 * bytes between are that key and span's length, both as the encoder
 * writes them (most spans of a graph's lists are under 128 bytes: a
 * length of one byte, checked first). */
static bool follows(const uint8_t *end, uint8_t key, const OnnxSpan *span)
{
    /* The addresses first: only when span starts where its key and length
     * would end are the bytes at end read, which then lie between two
     * spans of one buffer.  A span that ends its buffer (the last of the
     * bytes read, or of a block of made nodes, whose room past the last
     * is not written) has nothing at end to read. */
    size_t len = span->len;
    if (span->data != end + 1 + varint_size(len) || end[0] != key)
        return false;
    if (len < 0x80)
        return end[1] == len;
    for (end++; len >= 0x80; len >>= 7)
        if (*end++ != (uint8_t)(len | 0x80))
            return false;
    return *end == (uint8_t)len;
}

/* The bytes of the messages of m's field f, whose array is list, that the
 * caller made (OnnxMadeBytes: a graph's nodes) or the model read (note
 * [spans by index] in onnx_span.h: a graph's inputs and outputs, the
 * model's graph's nodes), or NULL. */
static const OnnxSpan *made_list(const Encoder *e, const ProtobufCFieldDescriptor *f,
                                 const ProtobufCMessage *m, const void *list)
{
    if (e->made && e->made->nodes && m == e->made->graph && f->id == 1)
        return e->made->nodes;
    if (e->spans && onnx_spans_may_index(m->descriptor, f->id)) /* the model's */
        return onnx_list_spans_get(e->spans, list);
    return NULL;
}

/* The span of m, a message of a kind with spans (onnx_span_kept), or NULL:
 * span_of, its kind asked once a list (a message's kind three
 * comparisons, asked twice an element, bench/workload.sh). */
static const OnnxSpan *kept_span_of(const Encoder *e, const ProtobufCMessage *m)
{
    return e->spans ? onnx_span_get(e->spans, m) : NULL;
}

/* The span of list's message k, or NULL: made's when the caller made
 * its bytes, else the model's. */
static inline const OnnxSpan *element_span(const Encoder *e, const ProtobufCMessage *const *list,
                                           size_t k, const OnnxSpan *made, bool kept)
{
    if (made && made[k].data)
        return &made[k];
    if (!list[k])
        return NULL;
    return kept ? kept_span_of(e, list[k]) : span_of(e, list[k]);
}

/* The bytes list's count messages of field f take after their keys: a
 * length prefix and the message each, the run of each message that
 * follows the one before it recorded once (note [runs of spans]); made,
 * when not NULL, the bytes the caller made of some (made_list), asked
 * before the spans.  The messages that continue a run are taken by a loop
 * of their own, each its span's lookup and the check of the bytes before
 * it (a graph's 50,000 inputs in each ONNX job of bench/workload.sh). */
static size_t message_list_size(Encoder *e, const ProtobufCFieldDescriptor *f,
                                const ProtobufCMessage *const *list, size_t count,
                                const OnnxSpan *made)
{
    size_t size = 0;
    bool kept = onnx_span_kept(f->descriptor); /* the elements' kind */
    bool runs = kept && f->id < 16;            /* (a key of one byte) */
    uint8_t key = encode_key(f->id & 15, LEN);
    for (size_t k = 0; k < count;) {
        const OnnxSpan *span = element_span(e, list, k, made, kept);
        size_t len = list[k] ? spanned_size(e, list[k], span) : 0;
        size += varint_size(len) + len;
        if (!span || !runs) {
            k++;
            continue;
        }
        const uint8_t *start = span->data + len, *end = start; /* the run's bytes */
        size_t tail = 0;
        for (k++; k < count; k++, tail++) {
            span = element_span(e, list, k, made, kept);
            if (!span || !follows(end, key, span))
                break;
            end = span->data + span->len;
        }
        if (!tail)
            continue;
        vec_push(&e->lengths, ((EncodedLength){(size_t)(end - start), NULL, start, tail}));
        size += (size_t)(end - start) - tail; /* (each message's key counted by the caller) */
    }
    return size;
}

/* The bytes a value not a message takes after its key, its length prefix
 * included. */
static size_t value_size(ProtobufCType type, const void *v)
{
    size_t len;
    if (type == PROTOBUF_C_TYPE_STRING)
        len = *(const char *const *)v ? strlen(*(const char *const *)v) : 0;
    else if (type == PROTOBUF_C_TYPE_BYTES)
        len = ((const ProtobufCBinaryData *)v)->len;
    else if (wire_type(type) == PROTOBUF_C_WIRE_TYPE_VARINT)
        return varint_size(varint_value(type, v));
    else
        return value_stride(type); /* fixed32, fixed64 */
    return varint_size(len) + len;
}

static size_t key_size(uint32_t id)
{
    return varint_size((uint64_t)id << 3);
}

/* The list of m's field f that a lean read holds (note [lean read] in
 * onnx_lean.h), or NULL: f is in m's struct. */
static const OnnxLeanList *lean_list(const Encoder *e, const ProtobufCFieldDescriptor *f,
                                     const ProtobufCMessage *m)
{
    return onnx_lean_graph_is(e->lean, m) ? onnx_lean_list(e->lean, f->id) : NULL;
}

/* The bytes list's elements take, keys and lengths included. */
static size_t lean_list_size(Encoder *e, uint32_t id, const OnnxLeanList *list)
{
    size_t size = 0;
    for (size_t k = 0; k < list->n; k++) {
        const OnnxLeanItem *item = &list->items[k];
        size_t len = item->msg ? sub_message_size(e, item->msg) : item->len;
        size += key_size(id) + varint_size(len) + len;
    }
    return size;
}

static size_t field_size(Encoder *e, const ProtobufCFieldDescriptor *f,
                         const ProtobufCMessage *m)
{
    const OnnxLeanList *list = lean_list(e, f, m);
    if (list)
        return lean_list_size(e, f->id, list);
    size_t count = value_count(f, m);
    if (count == 0)
        return 0;
    const char *v = first_value(f, m);
    size_t stride = value_stride(f->type), size = 0;
    if (f->type == PROTOBUF_C_TYPE_MESSAGE) /* (a graph's lists: no switch per element) */
        size = message_list_size(e, f, (const ProtobufCMessage *const *)v, count,
                                 made_list(e, f, m, v));
    else
        for (size_t k = 0; k < count; k++)
            size += value_size(f->type, v + k * stride);
    if (!(f->flags & PROTOBUF_C_FIELD_FLAG_PACKED))
        return count * key_size(f->id) + size;
    vec_push(&e->lengths, ((EncodedLength){size, NULL, NULL, 0}));
    return key_size(f->id) + varint_size(size) + size;
}

size_t encode_unknown_size(const ProtobufCMessage *m)
{
    size_t size = 0;
    for (unsigned i = 0; i < m->n_unknown_fields; i++)
        size += key_size(m->unknown_fields[i].tag) + m->unknown_fields[i].len;
    return size;
}

/* Whether m is a NodeProto or AttributeProto written by hand (note [nodes
 * encoded by hand] in onnx_encode_node.c): 1 a node, 2 an attribute. */
static int by_hand(const Encoder *e, const ProtobufCMessage *m)
{
    if (!e->by_hand)
        return 0;
    if (m->descriptor == &onnx__node_proto__descriptor)
        return 1;
    bool attribute = m->descriptor == &onnx__attribute_proto__descriptor;
    return attribute && encode_attribute_plain((const Onnx__AttributeProto *)m) ? 2 : 0;
}

size_t encode_message_size(Encoder *e, const ProtobufCMessage *m)
{
    int hand = by_hand(e, m);
    if (hand == 1)
        return encode_node_size(e, (const Onnx__NodeProto *)m);
    if (hand == 2)
        return encode_attribute_size(e, (const Onnx__AttributeProto *)m);
    size_t slot = e->lengths.len;
    vec_push(&e->lengths, ((EncodedLength){0, NULL, NULL, 0}));
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    size_t size = 0;
    for (unsigned i = 0; i < desc->n_fields; i++)
        size += field_size(e, &desc->fields[i], m);
    size += encode_unknown_size(m);
    e->lengths.items[slot].len = size;
    return size;
}

static void flush(Encoder *e)
{
    if (e->out && e->used && fwrite(e->buf, 1, e->used, e->out) != e->used)
        e->ok = false;
    e->used = 0;
}

void encode_grow(Encoder *e, size_t n)
{
    size_t cap = e->cap < 256 ? 256 : e->cap;
    while (cap - e->used < n)
        cap *= 2;
    e->buf = xrealloc(e->buf, cap);
    e->cap = cap;
}

void encode_put(Encoder *e, const void *data, size_t n)
{
    if (n == 0)
        return;
    if (e->cap - e->used < n && !e->out) /* (one of the encoding's size never lacks it) */
        encode_grow(e, n);
    else if (e->cap - e->used < n) {
        flush(e);
        if (n > e->cap) { /* a large bytes field: straight to the stream */
            if (fwrite(data, 1, n, e->out) != n)
                e->ok = false;
            return;
        }
    }
    memcpy(e->buf + e->used, data, n);
    e->used += n;
}

/* Written in place where the buffer has room for the longest varint (a
 * call of put and memcpy per key and length cost more than the bytes). */
void encode_put_varint(Encoder *e, uint64_t v)
{
    uint8_t bytes[10];
    uint8_t *at = e->cap - e->used >= sizeof bytes ? e->buf + e->used : bytes;
    size_t n = (size_t)(onnx_varint_write(at, v) - at);
    if (at == bytes)
        encode_put(e, bytes, n);
    else
        e->used += n;
}

/* n's length prefix and n bytes at data, in place where the buffer has
 * room for both, as most are a short name or a span of tens of bytes. */
static void put_prefixed(Encoder *e, const void *data, size_t n)
{
    if (e->cap - e->used < 10 + n) {
        encode_put_varint(e, n);
        encode_put(e, data, n);
        return;
    }
    uint8_t *at = onnx_varint_write(e->buf + e->used, n);
    if (n)
        memcpy(at, data, n);
    e->used = (size_t)(at - e->buf) + n;
}

/* In place where the buffer has room for key, length and bytes (a check
 * for all three: most are a short name). */
void encode_put_delimited(Encoder *e, uint64_t key, const void *data, size_t n)
{
    if (e->cap - e->used < 20 + n) {
        encode_put_varint(e, key);
        put_prefixed(e, data, n);
        return;
    }
    uint8_t *at = onnx_varint_write(onnx_varint_write(e->buf + e->used, key), n);
    if (n)
        memcpy(at, data, n);
    e->used = (size_t)(at - e->buf) + n;
}

void encode_put_unknown(Encoder *e, const ProtobufCMessage *m)
{
    for (unsigned i = 0; i < m->n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
        encode_put_varint(e, (uint64_t)u->tag << 3 | u->wire_type);
        encode_put(e, u->data, u->len); /* its length prefix included */
    }
}

/* A fixed-size value, little-endian whatever the host's order. */
static void put_fixed(Encoder *e, const void *v, size_t size)
{
    uint64_t x = 0;
    uint8_t bytes[8];
    if (size == 4) {
        uint32_t x32;
        memcpy(&x32, v, 4);
        x = x32;
    } else
        memcpy(&x, v, 8);
    for (size_t b = 0; b < size; b++)
        bytes[b] = (uint8_t)(x >> (8 * b));
    encode_put(e, bytes, size);
}

/* A message after key: its length, then its span's bytes (as
 * sub_message_size found them, written in place where the buffer has
 * room: most are a graph's inputs of tens of bytes) or its fields. */
static void put_message(Encoder *e, uint64_t key, const ProtobufCMessage *m)
{
    const EncodedLength *found = m ? &e->lengths.items[e->next++] : NULL;
    if (found && found->span && e->cap - e->used >= 20 + found->len) {
        uint8_t *at = onnx_varint_write(e->buf + e->used, key);
        at = onnx_varint_write(at, found->len);
        memcpy(at, found->span->data, found->len);
        e->used = (size_t)(at - e->buf) + found->len;
        return;
    }
    encode_put_varint(e, key);
    if (found && found->span)
        put_prefixed(e, found->span->data, found->len);
    else if (found) {
        encode_put_varint(e, found->len);
        encode_put_fields(e, m);
    } else
        encode_put_varint(e, 0);
}

/* list's count messages, each after key, a run the sizes walk recorded
 * after a message copied whole (note [runs of spans]). */
static void put_message_list(Encoder *e, uint64_t key, const ProtobufCMessage *const *list,
                             size_t count)
{
    for (size_t k = 0; k < count; k++) {
        put_message(e, key, list[k]);
        const EncodedLength *run = e->next < e->lengths.len ? &e->lengths.items[e->next] : NULL;
        if (run && run->tail) {
            encode_put(e, run->run, run->len);
            e->next++;
            k += run->tail;
        }
    }
}

static void put_value(Encoder *e, ProtobufCType type, const void *v)
{
    if (type == PROTOBUF_C_TYPE_STRING) {
        const char *s = *(const char *const *)v;
        put_prefixed(e, s, s ? strlen(s) : 0);
    } else if (type == PROTOBUF_C_TYPE_BYTES) {
        const ProtobufCBinaryData *bd = v;
        put_prefixed(e, bd->data, bd->len);
    } else if (wire_type(type) == PROTOBUF_C_WIRE_TYPE_VARINT)
        encode_put_varint(e, varint_value(type, v));
    else
        put_fixed(e, v, value_stride(type));
}

/* list's elements, each after key: its bytes, or its struct's fields. */
static void put_lean_list(Encoder *e, uint64_t key, const OnnxLeanList *list)
{
    for (size_t k = 0; k < list->n; k++) {
        const OnnxLeanItem *item = &list->items[k];
        if (item->msg)
            put_message(e, key, item->msg);
        else
            encode_put_delimited(e, key, item->data, item->len);
    }
}

static void put_field(Encoder *e, const ProtobufCFieldDescriptor *f, const ProtobufCMessage *m)
{
    const OnnxLeanList *list = lean_list(e, f, m);
    if (list) {
        put_lean_list(e, (uint64_t)f->id << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, list);
        return;
    }
    size_t count = value_count(f, m);
    if (count == 0)
        return;
    const char *v = first_value(f, m);
    size_t stride = value_stride(f->type);
    if (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) {
        encode_put_varint(e, (uint64_t)f->id << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
        encode_put_varint(e, e->lengths.items[e->next++].len);
        for (size_t k = 0; k < count; k++)
            put_value(e, f->type, v + k * stride);
        return;
    }
    uint64_t key = (uint64_t)f->id << 3 | wire_type(f->type);
    if (f->type == PROTOBUF_C_TYPE_MESSAGE) { /* (never packed) */
        put_message_list(e, key, (const ProtobufCMessage *const *)v, count);
        return;
    }
    for (size_t k = 0; k < count; k++) {
        encode_put_varint(e, key);
        put_value(e, f->type, v + k * stride);
    }
}

void encode_put_fields(Encoder *e, const ProtobufCMessage *m)
{
    int hand = by_hand(e, m);
    if (hand == 1) {
        encode_put_node(e, (const Onnx__NodeProto *)m);
        return;
    }
    if (hand == 2) {
        encode_put_attribute(e, (const Onnx__AttributeProto *)m);
        return;
    }
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    for (unsigned i = 0; i < desc->n_fields; i++)
        put_field(e, &desc->fields[i], m);
    encode_put_unknown(e, m);
}

/* Both walks over msg into e, whose buffer is set up. */
static void encode(Encoder *e, const ProtobufCMessage *msg)
{
    e->next = 1; /* lengths[0] is msg's own, written by nobody */
    encode_put_fields(e, msg);
    flush(e);
    vec_free(&e->lengths);
}

bool onnx_encode_file(const ProtobufCMessage *msg, const KeyMap *spans, FILE *out)
{
    return onnx_encode_file_made(msg, spans, NULL, out);
}

bool onnx_encode_file_made(const ProtobufCMessage *msg, const KeyMap *spans,
                           const OnnxMadeBytes *made, FILE *out)
{
    return onnx_encode_file_lean(msg, spans, made, NULL, out);
}

bool onnx_encode_file_lean(const ProtobufCMessage *msg, const KeyMap *spans,
                           const OnnxMadeBytes *made, const OnnxLeanGraph *lean, FILE *out)
{
    Encoder e = {.out = out, .ok = true, .cap = STREAM_BUFFER, .spans = spans, .made = made,
                 .by_hand = encode_node_fields_known(), .lean = lean};
    encode_message_size(&e, msg);
    e.buf = xmalloc(e.cap);
    encode(&e, msg);
    free(e.buf);
    return e.ok;
}

uint8_t *onnx_encode_bytes(const ProtobufCMessage *msg, const KeyMap *spans, size_t *len)
{
    Encoder e = {.ok = true, .spans = spans, .by_hand = encode_node_fields_known()};
    *len = encode_message_size(&e, msg);
    e.buf = xmalloc(*len + 1);
    e.cap = *len;
    encode(&e, msg);
    return e.buf;
}
