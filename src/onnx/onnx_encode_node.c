/* onnx_encode_node.c - NodeProtos and plain AttributeProtos encoded by
 * hand (note [nodes encoded by hand]).
 *
 * note [nodes encoded by hand]: a node a rewrite made has no span (note
 * [canonical spans] in onnx_span.h), and graft's encoder walked its
 * descriptor and its attributes' field by field, twice (note [onnx
 * encode] in onnx_encode.h): on issue 28's model, 2,000 made
 * BatchNormalization nodes of one float attribute each, that was 3.9 M
 * instructions, a third of writing the model (bench/onnx_e2e.sh), an
 * AttributeProto's 18 fields asked one by one for three that are set.
 * NodeProto's fields are strings, lists of strings and a list of
 * attributes, and an attribute without a message inside (no tensor, graph
 * or type) has strings, numbers and lists of them, so both are written
 * here, in field-number order as protobuf-c's pack writes them: an
 * optional string where its pointer is set, a number where its has_ flag
 * is, each element of a list (a NULL string empty, a NULL attribute an
 * empty one, as the generic walk writes them), unknown fields after the
 * known ones.  Any other attribute goes through the generic walk, and so
 * does every node when this build's onnx.proto has fields this file does
 * not know (encode_node_fields_known).  tests/check_onnx_encode.c compares
 * the result with protobuf-c's pack on every model of tests/onnx/ and of
 * the fuzz corpus (whose nodes all come here when encoded without spans),
 * and on nodes holding every kind of attribute, plain or not.
 */
#include "onnx_encode_impl.h"

#include <string.h>

/* This file writes the fields of the onnx.proto graft is built with
 * (Debian 12's libonnx-dev, onnx 1.12): NodeProto's 7, AttributeProto's
 * 18.  A later onnx.proto adds fields (NodeProto's overload, ...) that it
 * would leave out: built with one, graft encodes every node through the
 * descriptors (tests/check_onnx_encode.c asserts these counts, so such a
 * build also fails its tests until this file writes the new fields). */
bool encode_node_fields_known(void)
{
    return onnx__node_proto__descriptor.n_fields == 7 &&
           onnx__attribute_proto__descriptor.n_fields == 18;
}

bool encode_attribute_plain(const Onnx__AttributeProto *a)
{
    return !a->t && !a->g && !a->sparse_tensor && !a->tp && !a->n_tensors && !a->n_graphs &&
           !a->n_sparse_tensors && !a->n_type_protos;
}

/* The bytes of a length-delimited field of n bytes after a key of keylen. */
static size_t delimited_size(size_t keylen, size_t n)
{
    return keylen + onnx_varint_size(n) + n;
}

static size_t string_size(const char *s)
{
    return s ? delimited_size(1, strlen(s)) : 0;
}

/* A repeated string: a NULL one empty. */
static size_t strings_size(char *const *s, size_t n)
{
    size_t size = 0;
    for (size_t i = 0; i < n; i++)
        size += delimited_size(1, s[i] ? strlen(s[i]) : 0);
    return size;
}

void encode_put_string(Encoder *e, uint64_t key, const char *s)
{
    if (s)
        encode_put_delimited(e, key, s, strlen(s));
}

void encode_put_strings(Encoder *e, uint64_t key, char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        encode_put_delimited(e, key, s[i] ? s[i] : "", s[i] ? strlen(s[i]) : 0);
}

/* A slot for the length of the message being sized. */
static size_t slot(Encoder *e)
{
    vec_push(&e->lengths, ((EncodedLength){0, NULL, NULL, 0}));
    return e->lengths.len - 1;
}

/* The bytes of np's fields 1 to 4 and 6 and 7: all but its attributes. */
static size_t strings_fields_size(const Onnx__NodeProto *np)
{
    return strings_size(np->input, np->n_input) + strings_size(np->output, np->n_output) +
           string_size(np->name) + string_size(np->op_type) + string_size(np->doc_string) +
           string_size(np->domain);
}

size_t encode_node_size(Encoder *e, const Onnx__NodeProto *np)
{
    size_t at = slot(e);
    size_t size = strings_fields_size(np);
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        size += delimited_size(1, a ? encode_message_size(e, &a->base) : 0);
    }
    size += encode_unknown_size(&np->base);
    e->lengths.items[at].len = size;
    return size;
}

bool encode_node_bare(const Onnx__NodeProto *np)
{
    return !np->n_attribute && !np->base.n_unknown_fields;
}

/* A string field at at, the buffer's room checked. */
static uint8_t *string_at(uint8_t *at, uint8_t k, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    *at++ = k;
    at = onnx_varint_write(at, len);
    if (len)
        memcpy(at, s, len);
    return at + len;
}

static uint8_t *strings_at(uint8_t *at, uint8_t k, char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        at = string_at(at, k, s[i]);
    return at;
}

/* np's fields 1 to 4 at at, the room checked. */
static uint8_t *names_at(uint8_t *at, const Onnx__NodeProto *np)
{
    at = strings_at(at, encode_key(1, LEN), np->input, np->n_input);
    at = strings_at(at, encode_key(2, LEN), np->output, np->n_output);
    if (np->name)
        at = string_at(at, encode_key(3, LEN), np->name);
    if (np->op_type)
        at = string_at(at, encode_key(4, LEN), np->op_type);
    return at;
}

/* np's fields 6 and 7 at at, the room checked. */
static uint8_t *doc_and_domain_at(uint8_t *at, const Onnx__NodeProto *np)
{
    if (np->doc_string)
        at = string_at(at, encode_key(6, LEN), np->doc_string);
    if (np->domain)
        at = string_at(at, encode_key(7, LEN), np->domain);
    return at;
}

/* The len bytes at s copied to at: from 4 to 32 (most names) as two
 * pieces that overlap where len is not twice their size, each read within
 * the bytes at s, as bytes_equal in keymap.h compares them (a call of
 * memcpy a name was a third of packing it, bench/workload.sh; a made
 * node's op and fresh name, "BatchNormalization" and
 * "graft_BatchNormalization_1234", take 17 to 32). */
static inline void copy_name(uint8_t *at, const char *s, uint32_t len)
{
    if (len > 16 && len <= 32) {
        uint8_t first[16], last[16];
        memcpy(first, s, 16);
        memcpy(last, s + len - 16, 16);
        memcpy(at, first, 16);
        memcpy(at + len - 16, last, 16);
    } else if (len >= 8 && len <= 16) {
        uint64_t first, last;
        memcpy(&first, s, 8);
        memcpy(&last, s + len - 8, 8);
        memcpy(at, &first, 8);
        memcpy(at + len - 8, &last, 8);
    } else if (len >= 4 && len < 8) {
        uint32_t first, last;
        memcpy(&first, s, 4);
        memcpy(&last, s + len - 4, 4);
        memcpy(at, &first, 4);
        memcpy(at + len - 4, &last, 4);
    } else if (len)
        memcpy(at, s, len);
}

/* String field s (NULL: empty) after key k at the end of bytes, room
 * made for it once its length is known: interned, the length the
 * interner keeps before it (note [interned lengths] in
 * onnx_export_pack.c), else its strlen. */
static inline void append_string(EncodeBytes *bytes, uint8_t k, const char *s, bool interned)
{
    size_t len = interned ? interner_length(s) : s ? strlen(s) : 0;
    vec_reserve(bytes, bytes->len + 1 + 10 + len);
    uint8_t *at = bytes->items + bytes->len;
    *at++ = k;
    at = onnx_varint_write(at, len);
    copy_name(at, s, (uint32_t)len);
    bytes->len = (size_t)(at - bytes->items) + len;
}

size_t encode_bare_node_append(EncodeBytes *bytes, const Onnx__NodeProto *np,
                               EncodeInterned interned)
{
    size_t start = bytes->len;
    for (size_t i = 0; i < np->n_input; i++)
        append_string(bytes, encode_key(1, LEN), np->input[i],
                      i < 64 && interned.inputs >> i & 1);
    for (size_t i = 0; i < np->n_output; i++)
        append_string(bytes, encode_key(2, LEN), np->output[i], interned.outputs);
    if (np->name)
        append_string(bytes, encode_key(3, LEN), np->name, interned.name);
    if (np->op_type)
        append_string(bytes, encode_key(4, LEN), np->op_type, interned.op_type);
    if (np->doc_string)
        append_string(bytes, encode_key(6, LEN), np->doc_string, false);
    if (np->domain)
        append_string(bytes, encode_key(7, LEN), np->domain, interned.domain);
    return bytes->len - start;
}

/* note [nodes written in place]: a node's bytes, whose length the sizes
 * walk found (the entry the writing walk took last, e->lengths.items[e->next
 * - 1], before its fields), are written straight into the buffer where it
 * has room for them all, with no check per field (a check and a call per
 * string was half of writing a made node, bench/onnx_e2e.sh); a node
 * larger than the room left goes field by field through the checked
 * helpers, and so does an attribute not plain (generic, it writes through
 * e itself). */
static bool put_node_in_place(Encoder *e, const Onnx__NodeProto *np)
{
    if (e->cap - e->used < e->lengths.items[e->next - 1].len)
        return false;
    uint8_t *at = names_at(e->buf + e->used, np);
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        *at++ = encode_key(5, LEN);
        at = onnx_varint_write(at, a ? e->lengths.items[e->next++].len : 0);
        e->used = (size_t)(at - e->buf);
        if (a)
            encode_put_fields(e, &a->base);
        at = e->buf + e->used;
    }
    at = doc_and_domain_at(at, np);
    e->used = (size_t)(at - e->buf);
    encode_put_unknown(e, &np->base);
    return true;
}

void encode_put_node_fields(Encoder *e, const Onnx__NodeProto *np,
                            EncodeAttributeFn *put_attribute)
{
    encode_put_strings(e, encode_key(1, LEN), np->input, np->n_input);
    encode_put_strings(e, encode_key(2, LEN), np->output, np->n_output);
    encode_put_string(e, encode_key(3, LEN), np->name);
    encode_put_string(e, encode_key(4, LEN), np->op_type);
    for (size_t i = 0; i < np->n_attribute; i++)
        put_attribute(e, encode_key(5, LEN), np->attribute[i]);
    encode_put_string(e, encode_key(6, LEN), np->doc_string);
    encode_put_string(e, encode_key(7, LEN), np->domain);
    encode_put_unknown(e, &np->base);
}

/* An attribute after key in the writing walk: the length the sizes walk
 * found, then its fields. */
static void put_walked_attribute(Encoder *e, uint64_t key, const Onnx__AttributeProto *a)
{
    encode_put_varint(e, key);
    encode_put_varint(e, a ? e->lengths.items[e->next++].len : 0);
    if (a)
        encode_put_fields(e, &a->base);
}

void encode_put_node(Encoder *e, const Onnx__NodeProto *np)
{
    if (!put_node_in_place(e, np))
        encode_put_node_fields(e, np, put_walked_attribute);
}

/* The bytes of an attribute's numbers: f (2), i (3), floats (7), ints (8)
 * and type (20, an enum: int32's varint, sign-extended). */
static size_t attribute_numbers_size(const Onnx__AttributeProto *a)
{
    size_t size = (a->has_f ? 5 : 0) + (a->has_i ? 1 + onnx_varint_size((uint64_t)a->i) : 0);
    size += a->n_floats * 5;
    for (size_t k = 0; k < a->n_ints; k++)
        size += 1 + onnx_varint_size((uint64_t)a->ints[k]);
    if (a->has_type)
        size += 2 + onnx_varint_size((uint64_t)(int64_t)(int32_t)a->type);
    return size;
}

size_t encode_attribute_size(Encoder *e, const Onnx__AttributeProto *a)
{
    size_t at = slot(e);
    size_t size = string_size(a->name) + attribute_numbers_size(a);
    if (a->has_s)
        size += delimited_size(1, a->s.len);
    for (size_t k = 0; k < a->n_strings; k++)
        size += delimited_size(1, a->strings[k].len);
    size += string_size(a->doc_string) + encode_unknown_size(&a->base);
    if (a->ref_attr_name)
        size += delimited_size(2, strlen(a->ref_attr_name));
    e->lengths.items[at].len = size;
    return size;
}

/* A float, little-endian whatever the host's order, after its key. */
static void put_float(Encoder *e, uint8_t k, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint8_t bytes[5] = {k, (uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                        (uint8_t)(bits >> 24)};
    encode_put(e, bytes, sizeof bytes);
}

static void put_int(Encoder *e, uint8_t k, uint64_t v)
{
    encode_put_varint(e, k);
    encode_put_varint(e, v);
}

/* Fields 1 to 9 (no message among them) of an attribute. */
static void put_attribute_values(Encoder *e, const Onnx__AttributeProto *a)
{
    encode_put_string(e, encode_key(1, LEN), a->name);
    if (a->has_f)
        put_float(e, encode_key(2, FIXED32), a->f);
    if (a->has_i)
        put_int(e, encode_key(3, VARINT), (uint64_t)a->i);
    if (a->has_s)
        encode_put_delimited(e, encode_key(4, LEN), a->s.data, a->s.len);
    for (size_t k = 0; k < a->n_floats; k++)
        put_float(e, encode_key(7, FIXED32), a->floats[k]);
    for (size_t k = 0; k < a->n_ints; k++)
        put_int(e, encode_key(8, VARINT), (uint64_t)a->ints[k]);
    for (size_t k = 0; k < a->n_strings; k++)
        encode_put_delimited(e, encode_key(9, LEN), a->strings[k].data, a->strings[k].len);
}

void encode_put_attribute(Encoder *e, const Onnx__AttributeProto *a)
{
    put_attribute_values(e, a);
    encode_put_string(e, encode_key(13, LEN), a->doc_string);
    if (a->has_type)
        put_int(e, TYPE_KEY, (uint64_t)(int64_t)(int32_t)a->type);
    if (a->ref_attr_name)
        encode_put_delimited(e, REF_KEY, a->ref_attr_name, strlen(a->ref_attr_name));
    encode_put_unknown(e, &a->base);
}
