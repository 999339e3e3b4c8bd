/* onnx_wire.c - the wire format check of an ONNX file (note [wire check]
 * in onnx_wire.h). */
#include "onnx_wire.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "onnx_field.h"
#include "util.h"

/* A message being walked: its type, where it ends, the field that holds
 * it (NULL for the root), and which of its singular message fields have
 * been seen (bit i for desc->fields[i]; onnx.proto's messages have fewer
 * than 64 fields, note [one occurrence]). */
typedef struct WireFrame {
    const ProtobufCMessageDescriptor *desc;
    size_t end;
    const ProtobufCFieldDescriptor *field;
    uint64_t seen;
} WireFrame;

typedef struct WireWalk {
    const uint8_t *data;
    size_t len;       /* bytes of the file */
    size_t pos;       /* next byte */
    const char *name; /* the file, for messages */
    graft_diag *d;
    VEC(WireFrame) stack;
    /* The field being read, for messages (built only on a fault: the
     * walk itself formats nothing): its number (0 while reading a key)
     * and its descriptor (NULL for an unknown field). */
    uint64_t number;
    const ProtobufCFieldDescriptor *field;
} WireWalk;

static const char *const wire_names[8] = {
    "0 (varint)", "1 (64-bit)", "2 (length-delimited)", "3 (group start)",
    "4 (group end)", "5 (32-bit)", "6 (undefined)", "7 (undefined)",
};

static int wire_type_of(ProtobufCType type)
{
    switch (type) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return WIRE_FIXED32;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return WIRE_FIXED64;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return WIRE_LEN;
    default:
        return WIRE_VARINT;
    }
}

static const WireFrame *top(const WireWalk *w)
{
    return &w->stack.items[w->stack.len - 1];
}

/* "PART field 'f' (N) of M", "PART unknown field N of M", or while
 * reading a key "PART a field key of M"; part may be NULL. */
static void describe(const WireWalk *w, const char *part, StrBuf *sb)
{
    const char *msg = top(w)->desc->name;
    if (part)
        strbuf_printf(sb, "%s ", part);
    if (w->number == 0)
        strbuf_printf(sb, "a field key of %s", msg);
    else if (w->field)
        strbuf_printf(sb, "field '%s' (%u) of %s", w->field->name, w->field->id, msg);
    else
        strbuf_printf(sb, "unknown field %" PRIu64 " of %s", w->number, msg);
}

/* Reports "byte AT: FIRST WHAT LAST", WHAT the field being read. */
static bool fault(WireWalk *w, size_t at, const char *first, const char *last)
{
    StrBuf what = {0};
    describe(w, first, &what);
    diag_byte_error(w->d, w->name, at, "%s%s", what.data, last);
    strbuf_free(&what);
    return false;
}

/* Reports "byte AT: PART FIELD runs past the end of the file (byte N)" or
 * "... the end of field 'f' (N) of M (byte N)". */
static bool past_end(WireWalk *w, size_t at, const char *part)
{
    const WireFrame *f = top(w);
    StrBuf end = {0};
    if (!f->field)
        strbuf_printf(&end, " runs past the end of the file (byte %zu)", f->end);
    else
        strbuf_printf(&end, " runs past the end of field '%s' (%u) of %s (byte %zu)",
                      f->field->name, f->field->id, w->stack.items[w->stack.len - 2].desc->name,
                      f->end);
    fault(w, at, part, end.data);
    strbuf_free(&end);
    return false;
}

/* Reads a varint of at most max_bytes ending before end into *value;
 * part says which varint of the field it is, for messages. */
static bool read_varint(WireWalk *w, size_t end, unsigned max_bytes, const char *part,
                        uint64_t *value)
{
    size_t at = w->pos;
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (w->pos >= end)
            return past_end(w, at, part);
        uint8_t byte = w->data[w->pos++];
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *value = v;
            return true;
        }
    }
    char longer[48];
    snprintf(longer, sizeof longer, " is a varint longer than %u bytes", max_bytes);
    return fault(w, at, part, longer);
}

/* Checks packed repeated scalars: whole fixed-size values, or varints
 * each ending inside the field. */
static bool check_packed(WireWalk *w, size_t end)
{
    int wt = wire_type_of(w->field->type);
    size_t size = end - w->pos;
    if (wt != WIRE_VARINT) {
        unsigned width = wt == WIRE_FIXED32 ? 4 : 8;
        if (size % width == 0) {
            w->pos = end;
            return true;
        }
        char holds[96];
        snprintf(holds, sizeof holds, " holds %zu bytes, not a whole number of %u-byte values",
                 size, width);
        return fault(w, w->pos, "packed", holds);
    }
    WireFrame packed = {top(w)->desc, end, w->field, 0};
    vec_push(&w->stack, packed); /* so that a fault names the field's end */
    uint64_t ignored = 0;
    bool ok = true;
    while (ok && w->pos < end)
        ok = read_varint(w, end, 10, "a value of packed", &ignored);
    w->stack.len--;
    return ok;
}

/* A length-delimited field's bytes, [w->pos, end): a message to enter,
 * packed scalars to check, or bytes to skip. */
static bool enter_len(WireWalk *w, size_t end, uint64_t max_depth, size_t key_at)
{
    const ProtobufCFieldDescriptor *field = w->field;
    if (!field || field->type == PROTOBUF_C_TYPE_STRING || field->type == PROTOBUF_C_TYPE_BYTES) {
        w->pos = end;
        return true;
    }
    if (field->type != PROTOBUF_C_TYPE_MESSAGE)
        return check_packed(w, end);
    if (w->stack.len >= max_depth) {
        char deeper[64];
        snprintf(deeper, sizeof deeper, "messages nested deeper than %" PRIu64 " levels, in",
                 max_depth);
        return fault(w, key_at, deeper, " [--limit onnx-depth]");
    }
    WireFrame sub = {field->descriptor, end, field, 0};
    vec_push(&w->stack, sub);
    return true;
}

/* note [one occurrence]: protobuf merges a singular message field that
 * occurs twice in one message, and protobuf-c's merge fails on two
 * onnx.TypeProto that both leave the oneof 'value' unset (a fuzzed file,
 * fuzz/corpus/onnx/type_twice.onnx), answering NULL.  No serializer
 * writes a message field twice, so the check refuses the second
 * occurrence of any singular message field, by its offset. */
static bool check_once(WireWalk *w, size_t key_at)
{
    const ProtobufCFieldDescriptor *field = w->field;
    if (!field || field->type != PROTOBUF_C_TYPE_MESSAGE ||
        field->label == PROTOBUF_C_LABEL_REPEATED)
        return true;
    WireFrame *frame = &w->stack.items[w->stack.len - 1];
    size_t index = (size_t)(field - frame->desc->fields);
    if (index >= 64)
        return true;
    uint64_t bit = UINT64_C(1) << index;
    if (frame->seen & bit)
        return fault(w, key_at, NULL, " occurs a second time in its message (protobuf "
                                      "would merge the two; graft reads a message field "
                                      "once)");
    frame->seen |= bit;
    return true;
}

/* A length prefix at w->pos: the field's bytes must end inside its message. */
static bool check_len(WireWalk *w, uint64_t max_depth, size_t key_at)
{
    size_t at = w->pos, end = top(w)->end;
    uint64_t len = 0;
    if (!read_varint(w, end, 5, "the length prefix of", &len))
        return false;
    if (len > end - w->pos) {
        char length[48];
        snprintf(length, sizeof length, "length %" PRIu64 " of", len);
        return past_end(w, at, length);
    }
    return enter_len(w, w->pos + (size_t)len, max_depth, key_at);
}

/* Checks the value of the field whose key was read at key_at. */
static bool check_value(WireWalk *w, int wt, size_t key_at, uint64_t max_depth)
{
    size_t end = top(w)->end;
    uint64_t value = 0;
    switch (wt) {
    case WIRE_VARINT:
        return read_varint(w, end, 10, "the value of", &value);
    case WIRE_FIXED64:
    case WIRE_FIXED32: {
        size_t width = wt == WIRE_FIXED32 ? 4 : 8;
        if (end - w->pos < width)
            return past_end(w, w->pos, wt == WIRE_FIXED32 ? "the 32-bit value of"
                                                            : "the 64-bit value of");
        w->pos += width;
        return true;
    }
    case WIRE_LEN:
        return check_len(w, max_depth, key_at);
    default: {
        char never[64];
        snprintf(never, sizeof never, " has wire type %s, which ONNX files never use",
                 wire_names[wt]);
        return fault(w, key_at, NULL, never);
    }
    }
}

/* Checks one key and its value inside the top message. */
static bool check_field(WireWalk *w, uint64_t max_depth)
{
    size_t key_at = w->pos;
    uint64_t key = 0;
    w->number = 0;
    if (!read_varint(w, top(w)->end, 5, NULL, &key))
        return false;
    uint64_t number = key >> 3;
    int wt = (int)(key & 7);
    if (number == 0 || number > 536870911) {
        diag_byte_error(w->d, w->name, key_at, "field number %" PRIu64 " in %s is not "
                        "from 1 to 536870911", number, top(w)->desc->name);
        return false;
    }
    w->number = number;
    w->field = onnx_wire_field(top(w)->desc, number);
    int want = w->field ? wire_type_of(w->field->type) : wt;
    bool packed = w->field && w->field->label == PROTOBUF_C_LABEL_REPEATED &&
                  want != WIRE_LEN && wt == WIRE_LEN;
    if (wt != want && !packed) {
        char types[96];
        snprintf(types, sizeof types, " has wire type %s, not %s", wire_names[wt],
                 wire_names[want]);
        return fault(w, key_at, NULL, types);
    }
    if (!check_once(w, key_at))
        return false;
    return check_value(w, wt, key_at, max_depth);
}

bool onnx_wire_check(const uint8_t *data, size_t len, const ProtobufCMessageDescriptor *root,
                     uint64_t max_depth, const char *name, graft_diag *d)
{
    WireWalk w = {data, len, 0, name, d, {0}, 0, NULL};
    WireFrame first = {root, len, NULL, 0};
    vec_push(&w.stack, first);
    bool ok = true;
    while (ok && w.stack.len > 0) {
        if (w.pos == top(&w)->end)
            w.stack.len--;
        else
            ok = check_field(&w, max_depth);
    }
    vec_free(&w.stack);
    return ok;
}
