/* onnx_wire.c - the wire format check of an ONNX file (note [wire check]
 * in onnx_wire.h). */
#include "onnx_wire.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util.h"

/* protobuf's wire types; 3 and 4 are groups, which proto3 dropped and
 * onnx.proto never uses (protobuf-c refuses them too). */
enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

/* A message being walked: its type, where it ends, and the field that
 * holds it (NULL for the root). */
typedef struct WireFrame {
    const ProtobufCMessageDescriptor *desc;
    size_t end;
    const ProtobufCFieldDescriptor *field;
} WireFrame;

typedef struct WireWalk {
    const uint8_t *data;
    size_t len;       /* bytes of the file */
    size_t pos;       /* next byte */
    const char *name; /* the file, for messages */
    graft_diag *d;
    VEC(WireFrame) stack;
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

/* "the end of the file (byte N)" or "the end of field 'f' (N) of M (byte N)". */
static void describe_end(const WireWalk *w, StrBuf *sb)
{
    const WireFrame *f = top(w);
    if (!f->field)
        strbuf_printf(sb, "the end of the file (byte %zu)", f->end);
    else
        strbuf_printf(sb, "the end of field '%s' (%u) of %s (byte %zu)", f->field->name,
                      f->field->id, w->stack.items[w->stack.len - 2].desc->name, f->end);
}

/* Reports "byte AT: WHAT runs past END". */
static bool past_end(WireWalk *w, size_t at, const char *what)
{
    StrBuf end = {0};
    describe_end(w, &end);
    diag_byte_error(w->d, w->name, at, "%s runs past %s", what, end.data);
    strbuf_free(&end);
    return false;
}

/* Reads a varint of at most max_bytes ending before end into *value. */
static bool read_varint(WireWalk *w, size_t end, unsigned max_bytes, const char *what,
                        uint64_t *value)
{
    size_t at = w->pos;
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (w->pos >= end)
            return past_end(w, at, what);
        uint8_t byte = w->data[w->pos++];
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *value = v;
            return true;
        }
    }
    diag_byte_error(w->d, w->name, at, "%s is a varint longer than %u bytes", what, max_bytes);
    return false;
}

/* The field's name for messages: "field 'f' (N) of M" or "unknown field N of M". */
static void describe_field(const WireWalk *w, const ProtobufCFieldDescriptor *field,
                           uint64_t number, StrBuf *sb)
{
    if (field)
        strbuf_printf(sb, "field '%s' (%u) of %s", field->name, field->id, top(w)->desc->name);
    else
        strbuf_printf(sb, "unknown field %" PRIu64 " of %s", number, top(w)->desc->name);
}

/* Checks packed repeated scalars: whole fixed-size values, or varints
 * each ending inside the field. */
static bool check_packed(WireWalk *w, const ProtobufCFieldDescriptor *field, size_t end,
                         const char *what)
{
    int wt = wire_type_of(field->type);
    size_t size = end - w->pos;
    if (wt != WIRE_VARINT) {
        unsigned width = wt == WIRE_FIXED32 ? 4 : 8;
        if (size % width == 0) {
            w->pos = end;
            return true;
        }
        diag_byte_error(w->d, w->name, w->pos, "packed %s holds %zu bytes, not a whole "
                        "number of %u-byte values", what, size, width);
        return false;
    }
    WireFrame packed = {top(w)->desc, end, field};
    vec_push(&w->stack, packed); /* so that a fault names the field */
    StrBuf msg = {0};
    strbuf_printf(&msg, "a value of packed %s", what);
    uint64_t ignored = 0;
    bool ok = true;
    while (ok && w->pos < end)
        ok = read_varint(w, end, 10, msg.data, &ignored);
    w->stack.len--;
    strbuf_free(&msg);
    return ok;
}

/* A length-delimited field at w->pos (its length read): a message to
 * enter, packed scalars to check, or bytes to skip. */
static bool enter_len(WireWalk *w, const ProtobufCFieldDescriptor *field, size_t end,
                      uint64_t max_depth, const char *what, size_t key_at)
{
    if (!field || field->type == PROTOBUF_C_TYPE_STRING || field->type == PROTOBUF_C_TYPE_BYTES) {
        w->pos = end;
        return true;
    }
    if (field->type != PROTOBUF_C_TYPE_MESSAGE)
        return check_packed(w, field, end, what);
    if (w->stack.len >= max_depth) {
        diag_byte_error(w->d, w->name, key_at, "messages nested deeper than %" PRIu64
                        " levels, in %s [--limit onnx-depth]", max_depth, what);
        return false;
    }
    WireFrame sub = {field->descriptor, end, field};
    vec_push(&w->stack, sub);
    return true;
}

/* A length prefix at w->pos: the field's bytes must end inside its message. */
static bool check_len(WireWalk *w, const ProtobufCFieldDescriptor *field, uint64_t max_depth,
                      const char *what, size_t key_at, StrBuf *msg)
{
    size_t at = w->pos, end = top(w)->end;
    uint64_t len = 0;
    strbuf_printf(msg, "the length prefix of %s", what);
    if (!read_varint(w, end, 5, msg->data, &len))
        return false;
    if (len > end - w->pos) {
        msg->len = 0;
        strbuf_printf(msg, "length %" PRIu64 " of %s", len, what);
        return past_end(w, at, msg->data);
    }
    return enter_len(w, field, w->pos + (size_t)len, max_depth, what, key_at);
}

/* Checks the value of a field whose key was read at key_at. */
static bool check_value(WireWalk *w, const ProtobufCFieldDescriptor *field, int wt,
                        size_t key_at, uint64_t max_depth, const char *what)
{
    size_t end = top(w)->end;
    StrBuf msg = {0};
    uint64_t value = 0;
    bool ok = true;
    switch (wt) {
    case WIRE_VARINT:
        strbuf_printf(&msg, "the value of %s", what);
        ok = read_varint(w, end, 10, msg.data, &value);
        break;
    case WIRE_FIXED64:
    case WIRE_FIXED32:
        strbuf_printf(&msg, "the %s value of %s", wt == WIRE_FIXED32 ? "32-bit" : "64-bit", what);
        if (end - w->pos < (wt == WIRE_FIXED32 ? 4u : 8u))
            ok = past_end(w, w->pos, msg.data);
        else
            w->pos += wt == WIRE_FIXED32 ? 4 : 8;
        break;
    case WIRE_LEN:
        ok = check_len(w, field, max_depth, what, key_at, &msg);
        break;
    default:
        diag_byte_error(w->d, w->name, key_at, "%s has wire type %s, which ONNX files "
                        "never use", what, wire_names[wt]);
        ok = false;
    }
    strbuf_free(&msg);
    return ok;
}

/* Checks one key and its value inside the top message. */
static bool check_field(WireWalk *w, uint64_t max_depth)
{
    size_t key_at = w->pos;
    uint64_t key = 0;
    StrBuf what = {0};
    strbuf_printf(&what, "a field key of %s", top(w)->desc->name);
    bool ok = read_varint(w, top(w)->end, 5, what.data, &key);
    strbuf_free(&what);
    if (!ok)
        return false;
    uint64_t number = key >> 3;
    int wt = (int)(key & 7);
    if (number == 0 || number > 536870911) {
        diag_byte_error(w->d, w->name, key_at, "field number %" PRIu64 " in %s is not "
                        "from 1 to 536870911", number, top(w)->desc->name);
        return false;
    }
    const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field(top(w)->desc, (unsigned)number);
    describe_field(w, field, number, &what);
    int want = field ? wire_type_of(field->type) : wt;
    bool packed = field && field->label == PROTOBUF_C_LABEL_REPEATED && want != WIRE_LEN &&
                  wt == WIRE_LEN;
    if (wt != want && !packed) {
        diag_byte_error(w->d, w->name, key_at, "%s has wire type %s, not %s", what.data,
                        wire_names[wt], wire_names[want]);
        ok = false;
    }
    ok = ok && check_value(w, field, wt, key_at, max_depth, what.data);
    strbuf_free(&what);
    return ok;
}

bool onnx_wire_check(const uint8_t *data, size_t len, const ProtobufCMessageDescriptor *root,
                     uint64_t max_depth, const char *name, graft_diag *d)
{
    WireWalk w = {data, len, 0, name, d, {0}};
    WireFrame first = {root, len, NULL};
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
