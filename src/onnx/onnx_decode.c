/* onnx_decode.c - checked protobuf bytes into protobuf-c's structs, bytes
 * left in place (note [bytes in place] in onnx_decode.h).  A message's
 * keys are read once, into a stack of fields that the messages nested in
 * it use above its own, counting the elements of each repeated field and
 * the unknown fields, so that each array is allocated once at its size;
 * then every value is stored from the stack, and whether the message's
 * bytes are canonical is decided on the way (note [canonical spans] in
 * onnx_span.h). */
#include "onnx_decode.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_decode_fast.h"
#include "onnx_field.h"
#include "onnx_lean.h"
#include "onnx_span.h"
#include "onnx_wire.h"
#include "util.h"

/* One field of a message: its key and where its value lies. */
typedef struct WireField {
    const ProtobufCFieldDescriptor *desc; /* NULL for an unknown field */
    uint32_t number;
    uint8_t wire_type;
    uint8_t *value; /* the bytes after the key */
    uint8_t *body;  /* the value without its length prefix */
    size_t len;     /* bytes of body */
    uint8_t *next;  /* the next key */
    bool shortest;  /* key and length prefix in their shortest form */
    size_t more;    /* the fields of its run after it (note [field runs]) */
} WireField;

typedef struct Decoder {
    Arena *arena;
    OnnxStrings strings;   /* where strings go: note [interned strings] */
    VEC(WireField) fields; /* of the messages being decoded, inner above outer */
    KeyMap *spans;         /* NULL: none noted */
    OnnxSpan *slot;        /* the span of the list element being read: note [spans by index] */
    uint64_t slot_depth;   /* the depth of that element's list's message */
    const void *model_graph; /* the model's graph, in a full read (NULL: not yet met) */
    uint64_t max_depth;    /* messages nest at most this deep, the root one */
    uint64_t depth;        /* of the message being decoded, the root's 1 */
    bool bad;              /* a fault found (note [checked as decoded]) */
    OnnxTypeMemo types;    /* note [shared value types] in onnx_decode_fast.h */
    OnnxOpMemo ops;        /* note [op name memo] there */
    OnnxLeanGraph *lean;   /* NULL: a full read; else note [lean read] in onnx_lean.h */
    Arena *scratch;        /* where a lean read checks each element */
} Decoder;

/* Whether the varint in at[0..n) is in its shortest form, the one the
 * encoder writes: one byte, or a last byte that adds bits (not 0), and of
 * ten bytes only the 64th bit (1); cheaper than sizing the value. */
static bool shortest_varint(const uint8_t *at, size_t n)
{
    uint8_t last = at[n - 1];
    return n == 1 || (last != 0 && (n < 10 || last == 1));
}

static uint64_t read_le(const uint8_t *p, unsigned width)
{
    uint64_t v = 0;
    for (unsigned b = 0; b < width; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
}

/* The wire type of a value of type t (a packed run's aside). */
static uint8_t wire_type_of(ProtobufCType t)
{
    if (t == PROTOBUF_C_TYPE_FLOAT)
        return WIRE_FIXED32;
    if (t == PROTOBUF_C_TYPE_DOUBLE)
        return WIRE_FIXED64;
    bool len = t == PROTOBUF_C_TYPE_STRING || t == PROTOBUF_C_TYPE_BYTES ||
               t == PROTOBUF_C_TYPE_MESSAGE;
    return len ? WIRE_LEN : WIRE_VARINT;
}

/* Whether a known field's key has a wire type its values allow: theirs,
 * or a packed run of a repeated scalar field. */
static bool wire_type_fits(const WireField *f)
{
    uint8_t want = wire_type_of(f->desc->type);
    return f->wire_type == want || (f->desc->label == PROTOBUF_C_LABEL_REPEATED &&
                                    want != WIRE_LEN && f->wire_type == WIRE_LEN);
}

/* The field whose key is at p, inside a message of type msg that ends at
 * end, read checked (note [field reader] in onnx_field.h); false on a
 * fault the wire check reports (note [checked as decoded]): a key or
 * varint too long or past the end, a field number outside 1 to
 * 536870911, a wire type ONNX never uses or the field does not allow, a
 * value or length past the end. */
static bool read_field(const ProtobufCMessageDescriptor *msg, uint8_t *p, const uint8_t *end,
                       WireField *f)
{
    uint8_t *at = p;
    f->more = 0;
    if (!onnx_key_take(&p, end, true, &f->number, &f->wire_type))
        return false;
    f->value = p;
    if (!onnx_value_take(&p, end, f->wire_type, true, &f->body, &f->len))
        return false;
    f->next = p;
    f->shortest = shortest_varint(at, (size_t)(f->value - at)) &&
                  (f->body == f->value || shortest_varint(f->value, (size_t)(f->body - f->value)));
    f->desc = onnx_wire_field(msg, f->number);
    return !f->desc || wire_type_fits(f);
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

/* How many elements a repeated field's value holds; (size_t)-1 when a
 * packed run is not whole: fixed-size values that do not divide it, a
 * varint longer than 10 bytes or not ending inside it. */
static size_t element_count(const WireField *f)
{
    if (!packed(f))
        return 1;
    if (fixed_width(f->desc->type)) {
        size_t width = value_size(f->desc->type);
        return f->len % width == 0 ? f->len / width : (size_t)-1;
    }
    size_t count = 0, run = 0; /* varints: one ends at each byte below 0x80 */
    for (size_t i = 0; i < f->len && run < 10; i++) {
        bool ends = f->body[i] < 0x80;
        count += ends;
        run = ends ? 0 : run + 1;
    }
    return run == 0 ? count : (size_t)-1;
}

static void *member_at(ProtobufCMessage *msg, unsigned offset)
{
    return (char *)msg + offset;
}

/* One scalar of type t at *p into member, as protobuf-c's unpack
 * converts it (an int32 or enum is the varint's low 32 bits); *p moves
 * past it.  Whether its bytes are those the encoder writes of it: a
 * varint's shortest form, of the value an int32 is sign-extended to. */
static bool put_scalar(ProtobufCType t, uint8_t **p, void *member)
{
    size_t size = value_size(t);
    uint8_t *at = *p;
    uint64_t v;
    if (fixed_width(t)) {
        v = read_le(*p, (unsigned)size);
        *p += size;
    } else {
        onnx_varint_take(p, NULL, 10, false, &v); /* (whole: read_field or element_count) */
    }
    uint64_t written = v;
    if (size == 4) {
        uint32_t low = (uint32_t)v;
        memcpy(member, &low, 4);
        written = (uint64_t)(int64_t)(int32_t)low;
    } else {
        memcpy(member, &v, 8);
    }
    return fixed_width(t) || (written == v && shortest_varint(at, (size_t)(*p - at)));
}

static bool decode_message(Decoder *dc, const ProtobufCMessageDescriptor *desc, uint8_t *data,
                           size_t len, ProtobufCMessage *msg);

static inline void put_span(Decoder *dc, const ProtobufCMessage *msg, const uint8_t *data,
                            size_t len);
static void put_lean_lists(Decoder *dc, Onnx__GraphProto *graph, uint8_t *data, size_t len);
static OnnxSpan *indexed_spans(const Decoder *dc, const ProtobufCMessage *msg, uint32_t id,
                               ProtobufCMessage **array);

/* A ValueInfoProto or NodeProto of type sub in body[0..len) read by a
 * fast path (note [common value info], note [common node] in
 * onnx_decode_fast.h), its span noted; NULL when of another type, the
 * four messages nested in a ValueInfoProto would pass the depth limit, or
 * its bytes are of another form. */
static inline ProtobufCMessage *common_message(Decoder *dc,
                                               const ProtobufCMessageDescriptor *sub,
                                               const uint8_t *body, size_t len)
{
    ProtobufCMessage *m = NULL;
    if (sub == &onnx__node_proto__descriptor) {
        Onnx__NodeProto *node = onnx_decode_common_node(body, len, &dc->strings);
        m = node ? &node->base : NULL;
    } else if (sub == &onnx__value_info_proto__descriptor && dc->depth + 4 < dc->max_depth) {
        Onnx__ValueInfoProto *vi = onnx_decode_common_value_memo(body, len, &dc->strings,
                                                                 &dc->types);
        m = vi ? &vi->base : NULL;
    }
    if (m) /* (a node and a value get spans: onnx_span_kept) */
        put_span(dc, m, body, len);
    return m;
}

/* A message of type sub in body[0..len) read by the general path into
 * *member; whether its bytes are canonical. */
static bool decode_nested(Decoder *dc, const ProtobufCMessageDescriptor *sub, uint8_t *body,
                          size_t len, ProtobufCMessage **member)
{
    ProtobufCMessage *m = arena_alloc_raw(dc->arena, sub->sizeof_message); /* (inited whole) */
    *member = m;
    return decode_message(dc, sub, body, len, m);
}

/* A message of type sub in body[0..len), nested as deep as the depth
 * limit allows, into *member; whether its bytes are canonical.  Inline,
 * the general path apart: a graph's nodes and values take a fast path,
 * and the call was 20 instructions of each. */
static inline bool put_body(Decoder *dc, const ProtobufCMessageDescriptor *sub, uint8_t *body,
                            size_t len, ProtobufCMessage **member)
{
    ProtobufCMessage *m = common_message(dc, sub, body, len);
    if (!m)
        return decode_nested(dc, sub, body, len, member);
    *member = m;
    return true;
}

/* A message field's value f into *member; whether its bytes are
 * canonical. */
static inline bool put_message(Decoder *dc, const WireField *f, ProtobufCMessage **member)
{
    if (dc->depth >= dc->max_depth) { /* nested deeper than --limit onnx-depth */
        dc->bad = true;
        return false;
    }
    return put_body(dc, f->desc->descriptor, f->body, f->len, member);
}

/* One value of a field that is not packed into member; whether its bytes
 * are canonical (note [canonical spans]). */
static bool put_value(Decoder *dc, const WireField *f, void *member)
{
    uint8_t *p = f->value;
    switch (f->desc->type) {
    case PROTOBUF_C_TYPE_STRING: {
        bool nul = f->len && memchr(f->body, 0, f->len);
        size_t n = nul && dc->strings.names ? strnlen((const char *)f->body, f->len) : f->len;
        *(char **)member = onnx_decode_string(&dc->strings, f->body, n);
        return !nul;
    }
    case PROTOBUF_C_TYPE_BYTES: /* in place; empty bytes are NULL, as protobuf-c has them */
        *(ProtobufCBinaryData *)member = (ProtobufCBinaryData){f->len, f->len ? f->body : NULL};
        return true;
    case PROTOBUF_C_TYPE_MESSAGE:
        return put_message(dc, f, member);
    default:
        return put_scalar(f->desc->type, &p, member);
    }
}

/* A field read once per message: the last value wins; a member of a
 * oneof clears the member set before it (they share their place), as
 * protobuf-c's unpack does, and the message is then not canonical. */
static bool put_single(Decoder *dc, ProtobufCMessage *msg, const WireField *f)
{
    void *member = member_at(msg, f->desc->offset);
    unsigned quantifier = f->desc->quantifier_offset;
    if (f->desc->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        uint32_t *which = member_at(msg, quantifier);
        const ProtobufCFieldDescriptor *old = *which ? onnx_wire_field(msg->descriptor,
                                                                       *which) : NULL;
        if (old)
            memset(member, 0, value_size(old->type));
        bool canonical = put_value(dc, f, member) && !*which;
        *which = f->number;
        return canonical;
    }
    bool canonical = put_value(dc, f, member);
    if (quantifier)
        *(protobuf_c_boolean *)member_at(msg, quantifier) = 1;
    return canonical;
}

/* A repeated field's values, appended to its array (allocated at its
 * size by allocate_arrays). */
static bool put_repeated(Decoder *dc, ProtobufCMessage *msg, const WireField *f)
{
    size_t *count = member_at(msg, f->desc->quantifier_offset);
    char *array = *(char **)member_at(msg, f->desc->offset);
    size_t size = value_size(f->desc->type);
    if (!packed(f))
        return put_value(dc, f, array + size * (*count)++);
    bool canonical = true;
    uint8_t *p = f->body;
    while (p < f->next)
        canonical = put_scalar(f->desc->type, &p, array + size * (*count)++) && canonical;
    return canonical;
}

/* note [field runs]: most of a model's bytes are a few runs of one
 * repeated message field, its key the same byte each time (a graph's
 * nodes, inputs and outputs: the seed's workload, two fields per op
 * node), and read_field reads each key in full, finds its descriptor and
 * checks its wire type again: 125 instructions a field of
 * bench/onnx_e2e.sh's rewrite.  A field whose one-byte key is that of the
 * field before it, when that one was of a repeated message field (run,
 * its descriptor), is that field once more: only its length prefix is
 * read, checked as read_field checks it.  When it is not whole, read_field
 * reads it again and finds the fault.  Nor is such a field kept on the
 * stack: the run's first field counts those after it (WireField.more),
 * which the second pass reads again from the bytes, as it stores each.
 * So a graph's stack is a few fields, not one a node and a value (the
 * seed's workload: 6.7 MB at 10,000 copies, grown by doubling; freeing it
 * raised malloc's threshold for fresh zeroed pages, and the import's
 * tables were zeroed by memset after it, 169 instructions an op node).
 *
 * The body of the field of a run whose key is at p, before end: its
 * length prefix read as read_field reads it; false when not whole. */
static inline bool take_run_body(uint8_t *p, const uint8_t *end, uint8_t **body, size_t *len)
{
    uint8_t *at = p + 1; /* (the key byte, the run's) */
    uint64_t n;
    if (!onnx_varint_take(&at, end, 5, true, &n) || n > (uint64_t)(end - at))
        return false;
    *body = at;
    *len = (size_t)n;
    return true;
}

/* The descriptor of a run of f (note [field runs]), whose key was the
 * byte at key: f's when that key is one byte of a repeated message
 * field; else NULL. */
static const ProtobufCFieldDescriptor *run_of(const WireField *f, const uint8_t *key)
{
    bool one_byte = f->value == key + 1;
    return one_byte && f->desc && f->desc->label == PROTOBUF_C_LABEL_REPEATED &&
                   f->desc->type == PROTOBUF_C_TYPE_MESSAGE
               ? f->desc
               : NULL;
}

/* A value of a repeated message field, f after a field numbered last,
 * appended to its array: what field_canonical, put_repeated and put_value
 * do for it without their tests of other types (a graph's nodes, inputs
 * and outputs, most of a model: note [field runs]).  Whether canonical. */
static inline bool put_element(Decoder *dc, ProtobufCMessage *msg, const WireField *f,
                               uint32_t last)
{
    size_t *count = member_at(msg, f->desc->quantifier_offset);
    ProtobufCMessage **array = *(ProtobufCMessage ***)member_at(msg, f->desc->offset);
    bool canonical = f->shortest && f->number >= last && f->wire_type == WIRE_LEN;
    return put_message(dc, f, &array[(*count)++]) && canonical;
}

/* Makes slot, a list element's span by index, the one put_span fills
 * next, none until it does (note [spans by index] in onnx_span.h); returns
 * slot. */
static inline OnnxSpan *take_slot(Decoder *dc, OnnxSpan *slot)
{
    *slot = (OnnxSpan){NULL, 0};
    dc->slot = slot;
    dc->slot_depth = dc->depth;
    return slot;
}

/* A repeated message field's value f, after a field numbered last, and
 * the f->more of its run after it, read again from the bytes (note [field
 * runs]); whether canonical.  Those after it are put as they are found,
 * no WireField made of each (40 instructions an element of the
 * workload's graph): each is of f's type and nested as deep (f passed the
 * depth limit), its one-byte key and length whole (scan_fields read them,
 * so the length is read again unchecked: 20 instructions fewer), after a
 * key of its number, so canonical when its length prefix is shortest and
 * its bytes are. */
static bool put_run(Decoder *dc, ProtobufCMessage *msg, WireField *f, uint32_t last)
{
    OnnxSpan *outer = dc->slot; /* the element this run is in: a node holding a graph */
    uint64_t outer_depth = dc->slot_depth;
    size_t *count = member_at(msg, f->desc->quantifier_offset);
    ProtobufCMessage **array = *(ProtobufCMessage ***)member_at(msg, f->desc->offset);
    OnnxSpan *by_index = indexed_spans(dc, msg, f->number, array); /* or NULL */
    if (by_index)
        by_index = take_slot(dc, by_index + *count); /* (f's) */
    bool canonical = put_element(dc, msg, f, last);
    const ProtobufCMessageDescriptor *sub = f->desc->descriptor;
    array += *count; /* (the run's elements after f; on a fault, nothing reads them) */
    *count += f->more;
    uint8_t *key = f->next;
    for (size_t k = 0, more = f->more; k < more && !dc->bad; k++) {
        uint8_t *body = key + 1;
        uint64_t len;
        onnx_varint_take(&body, NULL, 5, false, &len); /* (whole: scan_fields read it) */
        bool shortest = shortest_varint(key + 1, (size_t)(body - key - 1));
        if (by_index) /* (a list of nodes tests only this) */
            take_slot(dc, by_index + 1 + k);
        canonical = put_body(dc, sub, body, (size_t)len, &array[k]) && shortest && canonical;
        key = body + len;
    }
    dc->slot = outer;
    dc->slot_depth = outer_depth;
    return canonical;
}

/* Whether known field f, after a field numbered last, has its key where
 * and as the encoder writes it (note [canonical spans]): in number order,
 * the same number again only for the next value of a repeated field that
 * is not packed, a packed field as one non-empty run, any other with the
 * wire type of its values, key and length prefix shortest. */
static bool field_canonical(const WireField *f, uint32_t last)
{
    bool packs = f->desc->flags & PROTOBUF_C_FIELD_FLAG_PACKED;
    bool repeats = f->desc->label == PROTOBUF_C_LABEL_REPEATED && !packs;
    if (!f->shortest || f->number < last || (f->number == last && !repeats))
        return false;
    if (packs)
        return f->wire_type == WIRE_LEN && f->len > 0;
    return f->wire_type == wire_type_of(f->desc->type);
}

/* Known field f, after a field numbered last, into msg; whether
 * canonical. */
static bool put_field(Decoder *dc, ProtobufCMessage *msg, const WireField *f, uint32_t last)
{
    bool canonical = field_canonical(f, last);
    if (f->desc->label == PROTOBUF_C_LABEL_REPEATED)
        return put_repeated(dc, msg, f) && canonical;
    return put_single(dc, msg, f) && canonical;
}

/* Whether f is a singular message field seen before in its message
 * (note [one occurrence] in onnx_wire.c); seen has bit i for desc's field
 * i (onnx.proto's messages have fewer than 64 fields). */
static bool again(const ProtobufCMessageDescriptor *desc, const WireField *f, uint64_t *seen)
{
    if (!f->desc || f->desc->type != PROTOBUF_C_TYPE_MESSAGE ||
        f->desc->label == PROTOBUF_C_LABEL_REPEATED)
        return false;
    size_t index = (size_t)(f->desc - desc->fields);
    uint64_t bit = index < 64 ? UINT64_C(1) << index : 0;
    bool twice = (*seen & bit) != 0;
    *seen |= bit;
    return twice;
}

/* How many whole fields of key byte key follow one another from *p,
 * before end; *p moved past them (counted in a loop of its own, not a
 * step each of scan_fields': 10 instructions an element). */
static size_t run_length(uint8_t **p, const uint8_t *end, uint8_t key)
{
    size_t more = 0;
    uint8_t *body;
    size_t n;
    while (*p < end && **p == key && take_run_body(*p, end, &body, &n)) {
        *p = body + n;
        more++;
    }
    return more;
}

/* Whether f is an element of a lean list of msg (note [lean read] in onnx_lean.h). */
static bool in_lean_list(const Decoder *dc, const ProtobufCMessage *msg, const WireField *f)
{
    return onnx_lean_graph_is(dc->lean, msg) && f->desc &&
           onnx_lean_list(dc->lean, f->desc->id);
}

/* Reads the keys of the message in data[0..len) onto dc's stack (but
 * the elements of a lean list, which put_lean_lists reads again), each
 * repeated field's count into its n_ member (*repeats: whether any); how
 * many are unknown.  A fault sets dc->bad. */
static size_t scan_fields(Decoder *dc, const ProtobufCMessageDescriptor *desc, uint8_t *data,
                          size_t len, ProtobufCMessage *msg, bool *repeats)
{
    size_t unknown = 0;
    uint64_t seen = 0;
    const ProtobufCFieldDescriptor *run = NULL; /* note [field runs] */
    uint8_t run_key = 0;
    size_t head = 0; /* the run's first field on the stack, + 1; 0: not kept */
    for (uint8_t *p = data; p < data + len;) {
        if (run && *p == run_key) {
            size_t more = run_length(&p, data + len, run_key);
            *(size_t *)member_at(msg, run->quantifier_offset) += more;
            if (head)
                dc->fields.items[head - 1].more += more;
            if (more)
                continue; /* (else a field not whole, which read_field finds) */
        }
        vec_reserve(&dc->fields, dc->fields.len + 1);
        WireField *f = &dc->fields.items[dc->fields.len++];
        if (!read_field(desc, p, data + len, f) || again(desc, f, &seen)) {
            dc->bad = true;
            return 0;
        }
        run = run_of(f, p);
        run_key = *p;
        p = f->next;
        size_t count = f->desc && f->desc->label == PROTOBUF_C_LABEL_REPEATED ?
                           element_count(f) : 0;
        if (count == (size_t)-1) {
            dc->bad = true;
            return 0;
        }
        unknown += !f->desc;
        if (count)
            *(size_t *)member_at(msg, f->desc->quantifier_offset) += count;
        *repeats = *repeats || count;
        bool lean = in_lean_list(dc, msg, f);
        if (lean) /* counted, not kept: the lists are most of a model */
            dc->fields.len--;
        head = run && !lean ? dc->fields.len : 0;
    }
    return unknown;
}

/* Each counted repeated field's array, its count reset to count again
 * as the values are stored: every element is written before the message
 * is read (or the decode fails), so the arrays are not zeroed (a graph's
 * arrays of nodes and inputs were 16 instructions an op node of the
 * workload); a count is below the message's bytes, so count * size does
 * not overflow. */
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
            arena_alloc_raw(arena, *count * value_size(field->type));
        *count = 0;
    }
}

/* Room in spans for the elements of graph's lists, which get spans when
 * canonical, and in the interner for their names (a node's output's, its
 * op's: two a node): one rehash, not one per doubling. */
static void reserve_lists(Decoder *dc, const Onnx__GraphProto *graph)
{
    size_t values = graph->n_initializer + graph->n_input + graph->n_output +
                    graph->n_value_info;
    bool lean = dc->lean && graph == dc->lean->graph; /* (its lists get no spans) */
    size_t indexed = graph->n_input + graph->n_output +
                     (graph == dc->model_graph ? graph->n_node : 0);
    if (dc->spans) /* (a list's spans by index a put: note [spans by index]) */
        keymap_reserve(dc->spans, lean ? 2 : graph->n_node + values - indexed + 3);
    if (dc->strings.names)
        interner_reserve(dc->strings.names, interner_count(dc->strings.names) +
                                                2 * graph->n_node + values);
}

/* The spans by index (note [spans by index] in onnx_span.h) of msg's list
 * of field number id, whose array is array, or NULL: none kept. */
static OnnxSpan *indexed_spans(const Decoder *dc, const ProtobufCMessage *msg, uint32_t id,
                               ProtobufCMessage **array)
{
    bool by_index = onnx_spans_by_index(msg->descriptor, id) ||
                    (id == 1 && msg == dc->model_graph); /* its nodes */
    return dc->spans && by_index ? onnx_list_spans_get(dc->spans, array) : NULL;
}

/* Arrays of spans by index for graph's inputs, outputs and, in the
 * model's graph, nodes, counts[0..3) of them, when spans are noted: each
 * span set as its element is read (take_slot), not zeroed (a memset of a
 * byte an instruction). */
static void index_spans(Decoder *dc, const Onnx__GraphProto *graph, const size_t counts[3])
{
    if (!dc->spans)
        return;
    const void *lists[3] = {graph->input, graph->output, graph->node};
    for (size_t i = 0; i < 3; i++)
        if (counts[i])
            onnx_list_spans_put(dc->spans, lists[i], /* (counts bounded by the bytes) */
                                arena_alloc_raw(dc->arena, counts[i] * sizeof(OnnxSpan)));
}

/* Notes data[0..len) as msg's span, msg of a type that gets one, when
 * spans are noted. */
static inline void put_span(Decoder *dc, const ProtobufCMessage *msg, const uint8_t *data,
                            size_t len)
{
    if (!dc->spans)
        return;
    if (dc->slot && dc->depth == dc->slot_depth) { /* that element, not one inside it */
        *dc->slot = (OnnxSpan){data, len};
        dc->slot = NULL;
        return;
    }
    OnnxSpan *span = arena_alloc_raw(dc->arena, sizeof *span);
    *span = (OnnxSpan){data, len};
    onnx_span_put(dc->spans, msg, span);
}

/* Notes data[0..len) as msg's span when its type gets one. */
static inline void note_span(Decoder *dc, const ProtobufCMessage *msg, const uint8_t *data,
                             size_t len)
{
    if (onnx_span_kept(msg->descriptor))
        put_span(dc, msg, data, len);
}

/* The message in data[0..len) into msg; the messages nested in it
 * read their keys onto dc's stack above its own, and leave it as they
 * found it.  Whether its bytes, and those of every message in it, are
 * canonical (note [canonical spans]); false too on a fault, which sets
 * dc->bad and leaves msg half filled. */
static bool decode_message(Decoder *dc, const ProtobufCMessageDescriptor *desc, uint8_t *data,
                           size_t len, ProtobufCMessage *msg)
{
    protobuf_c_message_init(desc, msg);
    if (desc == &onnx__graph_proto__descriptor && dc->depth == 1) { /* the model's graph */
        if (dc->lean)
            dc->lean->graph = (const Onnx__GraphProto *)msg;
        else
            dc->model_graph = msg;
    }
    size_t first = dc->fields.len;
    bool repeats = false;
    size_t unknown = scan_fields(dc, desc, data, len, msg, &repeats);
    size_t end = dc->fields.len;
    if (dc->bad) {
        dc->fields.len = first;
        return false;
    }
    dc->depth++;
    size_t indexed[3] = {0, 0, 0}; /* a graph's inputs, outputs, the model's graph's nodes */
    if (desc == &onnx__graph_proto__descriptor) { /* its lists counted */
        const Onnx__GraphProto *graph = (const Onnx__GraphProto *)msg;
        indexed[0] = graph->n_input, indexed[1] = graph->n_output;
        indexed[2] = msg == dc->model_graph ? graph->n_node : 0;
        reserve_lists(dc, graph);
        if (onnx_lean_graph_is(dc->lean, msg))
            put_lean_lists(dc, (Onnx__GraphProto *)msg, data, len);
    }
    if (repeats) /* (most messages have no repeated field: a dimension, a type) */
        allocate_arrays(desc, dc->arena, msg);
    if (indexed[0] || indexed[1] || indexed[2])
        index_spans(dc, (const Onnx__GraphProto *)msg, indexed);
    if (unknown)
        msg->unknown_fields = arena_array(dc->arena, unknown, sizeof *msg->unknown_fields);
    bool canonical = unknown == 0;
    uint32_t last = 0;
    for (size_t i = first; i < end; i++) {
        WireField f = dc->fields.items[i]; /* a copy: a nested message may move the stack */
        if (!f.desc) { /* kept with its bytes, in place: key, wire type, value */
            msg->unknown_fields[msg->n_unknown_fields++] = (ProtobufCMessageUnknownField){
                f.number, (ProtobufCWireType)f.wire_type, (size_t)(f.next - f.value), f.value};
            continue;
        }
        if (f.desc->label == PROTOBUF_C_LABEL_REPEATED && f.desc->type == PROTOBUF_C_TYPE_MESSAGE)
            canonical = put_run(dc, msg, &f, last) && canonical;
        else
            canonical = put_field(dc, msg, &f, last) && canonical;
        last = f.number;
        if (dc->bad)
            break;
    }
    dc->fields.len = first;
    dc->depth--;
    if (dc->bad)
        return false;
    if (canonical)
        note_span(dc, msg, data, len);
    return canonical;
}

static bool put_lean(Decoder *dc, OnnxLeanList *list, const WireField *f);

/* The lists of the model's graph (note [lean read] in onnx_lean.h), in data[0..len)
 * (scanned whole, counted), get items at their counts, read from the
 * graph's bytes again; the graph's own arrays of them stay empty. */
static void put_lean_lists(Decoder *dc, Onnx__GraphProto *graph, uint8_t *data, size_t len)
{
    OnnxLeanList *lists = dc->lean->lists;
    size_t *counts[ONNX_LEAN_LISTS] = {
        [ONNX_LEAN_NODE] = &graph->n_node,
        [ONNX_LEAN_INITIALIZER] = &graph->n_initializer,
        [ONNX_LEAN_VALUE_INFO] = &graph->n_value_info,
    };
    for (size_t i = 0; i < ONNX_LEAN_LISTS; i++) {
        lists[i].items = arena_array(dc->arena, *counts[i], sizeof(OnnxLeanItem));
        *counts[i] = 0;
    }
    WireField f;
    for (uint8_t *p = data; p < data + len && !dc->bad; p = f.next) {
        read_field(&onnx__graph_proto__descriptor, p, data + len, &f); /* (read before) */
        int list = f.desc ? onnx_lean_list_index(f.desc->id) : -1;
        if (list >= 0)
            put_lean(dc, &lists[list], &f);
    }
}

/* Whether m is a node with a graph among its attributes. */
static bool holds_graph(const ProtobufCMessage *m)
{
    if (!m || m->descriptor != &onnx__node_proto__descriptor)
        return false;
    const Onnx__NodeProto *node = (const Onnx__NodeProto *)m;
    for (size_t i = 0; i < node->n_attribute; i++)
        if (node->attribute[i]->g || node->attribute[i]->n_graphs)
            return true;
    return false;
}

/* Element f of a lean list, decoded into the scratch arena to be checked
 * (its strings interned in the model's interner, the type memo left as
 * it was, since what the scratch arena holds is gone after); kept as its
 * bytes when they are canonical and it holds no graph, else decoded again
 * as a full read keeps it. */
static bool put_lean(Decoder *dc, OnnxLeanList *list, const WireField *f)
{
    OnnxLeanItem *item = &list->items[list->n++];
    *item = (OnnxLeanItem){f->body, f->len, NULL};
    Arena *arena = dc->arena;
    KeyMap *spans = dc->spans;
    OnnxTypeMemo types = dc->types;
    dc->arena = dc->strings.arena = dc->scratch;
    dc->spans = NULL;
    ProtobufCMessage *m = NULL;
    bool canonical = put_value(dc, f, &m);
    bool keep = !dc->bad && (!canonical || holds_graph(m));
    dc->arena = dc->strings.arena = arena;
    dc->spans = spans;
    dc->types = types;
    arena_reset(dc->scratch);
    if (dc->bad || !keep)
        return canonical;
    return put_value(dc, f, &item->msg);
}

bool onnx_decode(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
                 uint64_t max_depth, Arena *arena, KeyMap *spans, ProtobufCMessage *msg)
{
    return onnx_decode_named(desc, data, len, max_depth, arena, spans, NULL, msg);
}

bool onnx_decode_named(const ProtobufCMessageDescriptor *desc, uint8_t *data, size_t len,
                       uint64_t max_depth, Arena *arena, KeyMap *spans, Interner *names,
                       ProtobufCMessage *msg)
{
    Decoder dc = {.arena = arena, .strings = {arena, names}, .spans = spans,
                  .max_depth = max_depth};
    dc.strings.ops = &dc.ops;
    decode_message(&dc, desc, data, len, msg);
    vec_free(&dc.fields);
    return !dc.bad;
}

bool onnx_decode_lean(uint8_t *data, size_t len, uint64_t max_depth, Arena *arena,
                      KeyMap *spans, Interner *names, OnnxLeanGraph *lean,
                      Onnx__ModelProto *model)
{
    *lean = (OnnxLeanGraph){.names = names, .item_depth = max_depth > 2 ? max_depth - 2 : 0};
    Decoder dc = {.arena = arena, .strings = {arena, names}, .spans = spans,
                  .max_depth = max_depth, .lean = lean, .scratch = arena_new()};
    dc.strings.ops = &dc.ops;
    decode_message(&dc, &onnx__model_proto__descriptor, data, len, &model->base);
    vec_free(&dc.fields);
    arena_free(dc.scratch);
    return !dc.bad;
}
