/* check_onnx_span.c - the decoder notes the bytes of a NodeProto,
 * ValueInfoProto or TensorProto exactly when they are what the encoder
 * writes of it, and the encoder copies them (note [canonical spans] in
 * src/onnx/onnx_span.h): on every model of tests/onnx/ and of the fuzz
 * corpus each span is protobuf-c's pack of its message and the model
 * written with its spans is protobuf-c's pack of the model; the
 * exporter-written models have a span for every element of their graph's
 * lists; hand-written bytes in each form that is not canonical get none,
 * and their canonical twins get one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check_files.h"
#include "diag.h"
#include "keymap.h"
#include "onnx.pb-c.h"
#include "onnx_decode.h"
#include "onnx_encode.h"
#include "onnx_span.h"
#include "onnx_wire.h"
#include "check_main.h"

/* msg's encoding by protobuf-c (malloc'd, *len bytes). */
static uint8_t *packed(const ProtobufCMessage *msg, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(msg);
    uint8_t *bytes = malloc(*len + 1);
    ck_assert_uint_eq(protobuf_c_message_pack(msg, bytes), *len);
    return bytes;
}

/* Whether m has a span, after asserting that a span is m's packed bytes. */
static bool spanned(const KeyMap *spans, const ProtobufCMessage *m)
{
    const OnnxSpan *span = onnx_span_of(spans, m);
    if (!span)
        return false;
    size_t len;
    uint8_t *want = packed(m, &len);
    ck_assert_uint_eq(span->len, len);
    ck_assert(memcmp(span->data, want, len) == 0);
    free(want);
    return true;
}

typedef struct Counts {
    size_t elements, spans;
} Counts;

/* The main graph's list elements and how many have spans, each span
 * checked. */
static void count_spans(const Onnx__GraphProto *g, const KeyMap *spans, Counts *c)
{
    const ProtobufCMessage *const *lists[] = {
        (const ProtobufCMessage *const *)g->node, (const ProtobufCMessage *const *)g->input,
        (const ProtobufCMessage *const *)g->output,
        (const ProtobufCMessage *const *)g->value_info,
        (const ProtobufCMessage *const *)g->initializer};
    size_t counts[] = {g->n_node, g->n_input, g->n_output, g->n_value_info, g->n_initializer};
    for (size_t l = 0; l < 5; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            c->elements++;
            c->spans += spanned(spans, lists[l][i]);
        }
}

/* A model that passes the wire check decoded with spans: each span is
 * its message's packed bytes, and the model written with them is
 * protobuf-c's pack of it, to bytes and to a stream. */
static bool check_model(const char *name, uint8_t *bytes, size_t len, void *ctx)
{
    (void)name;
    if (!wire_ok(&onnx__model_proto__descriptor, bytes, len))
        return false;
    Arena *arena = arena_new();
    KeyMap spans = {0};
    Onnx__ModelProto *m = arena_alloc(arena, sizeof *m);
    ck_assert(onnx_decode(&onnx__model_proto__descriptor, bytes, len, 100, arena, &spans,
                          &m->base));
    if (m->graph)
        count_spans(m->graph, &spans, ctx);
    size_t want_len, got_len = 0, streamed_len = 0;
    uint8_t *want = packed(&m->base, &want_len);
    uint8_t *got = onnx_encode_bytes(&m->base, &spans, &got_len);
    ck_assert_uint_eq(got_len, want_len);
    ck_assert(memcmp(got, want, want_len) == 0);
    char *streamed = NULL;
    FILE *mem = open_memstream(&streamed, &streamed_len);
    ck_assert(onnx_encode_file(&m->base, &spans, mem));
    fclose(mem);
    ck_assert_uint_eq(streamed_len, want_len);
    ck_assert(memcmp(streamed, want, want_len) == 0);
    free(streamed);
    free(got);
    free(want);
    keymap_free(&spans);
    arena_free(arena);
    return true;
}

START_TEST(test_corpus_spans)
{
    /* the exporters' models: canonical, so every element has its span */
    Counts models = {0};
    ck_assert_int_ge(each_onnx_file("tests/onnx", check_model, &models), 13);
    ck_assert_uint_gt(models.elements, 1000);
    ck_assert_uint_eq(models.spans, models.elements);
    /* the fuzz corpus's: some are not canonical; those that read still write
     * protobuf-c's bytes */
    Counts fuzzed = {0};
    ck_assert_int_ge(each_onnx_file("fuzz/corpus/onnx", check_model, &fuzzed), 5);
}
END_TEST

/* Hand-written bytes of a message of type desc, and whether they are
 * canonical. */
typedef struct Sample {
    const char *what;
    const ProtobufCMessageDescriptor *desc;
    const char *bytes;
    size_t len;
    bool canonical;
} Sample;

#define SAMPLE(what, desc, bytes, canonical) {what, desc, bytes, sizeof bytes - 1, canonical}
#define NODE (&onnx__node_proto__descriptor)
#define TENSOR (&onnx__tensor_proto__descriptor)
#define VALUE_INFO (&onnx__value_info_proto__descriptor)

/* NodeProto: input 1, output 2, name 3, op_type 4, attribute 5;
 * AttributeProto: name 1, i 3, ints 8, type 20 (an enum: int32);
 * TensorProto: dims 1, data_type 2 (int32), float_data 4 [packed = true];
 * ValueInfoProto: name 1, type 2; TypeProto's oneof: tensor_type 1,
 * sequence_type 4; TypeProto.Tensor: elem_type 1. */
static const Sample samples[] = {
    SAMPLE("canonical node", NODE, "\x0a\x01x\x12\x01y\x22\x04Relu", true),
    SAMPLE("fields out of order", NODE, "\x12\x01y\x0a\x01x\x22\x04Relu", false),
    SAMPLE("a singular field twice", NODE, "\x1a\x01" "a\x1a\x01" "b\x22\x04Relu", false),
    SAMPLE("a key of two bytes", NODE, "\x8a\x00\x01x\x22\x04Relu", false),
    SAMPLE("a length of two bytes", NODE, "\x0a\x81\x00x\x22\x04Relu", false),
    SAMPLE("an unknown field", NODE, "\x0a\x01x\x22\x04Relu\xf8\x06\x05", false),
    SAMPLE("a NUL in a string", NODE, "\x0a\x02x\x00\x22\x04Relu", false),
    SAMPLE("canonical int attribute", NODE, "\x2a\x05\x0a\x01" "a\x18\x01", true),
    SAMPLE("an int of two bytes", NODE, "\x2a\x06\x0a\x01" "a\x18\x81\x00", false),
    SAMPLE("bits past 64 dropped", NODE,
           "\x2a\x0e\x0a\x01" "a\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", false),
    SAMPLE("ints one key each", NODE, "\x2a\x07\x0a\x01" "a\x40\x01\x40\x02", true),
    SAMPLE("ints packed", NODE, "\x2a\x07\x0a\x01" "a\x42\x02\x01\x02", false),
    SAMPLE("a negative enum of ten bytes", NODE,
           "\x2a\x0f\x0a\x01" "a\xa0\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", true),
    SAMPLE("a negative enum of five bytes", NODE,
           "\x2a\x0a\x0a\x01" "a\xa0\x01\xff\xff\xff\xff\x0f", false),
    SAMPLE("canonical tensor", TENSOR, "\x08\x02\x10\x01\x22\x08\0\0\x80?\0\0\0@", true),
    SAMPLE("packed floats one key each", TENSOR, "\x08\x02\x10\x01\x25\0\0\x80?\x25\0\0\0@",
           false),
    SAMPLE("packed floats in two runs", TENSOR,
           "\x08\x02\x10\x01\x22\x04\0\0\x80?\x22\x04\0\0\0@", false),
    SAMPLE("an empty packed run", TENSOR, "\x08\x02\x10\x01\x22\x00", false),
    SAMPLE("dims packed", TENSOR, "\x0a\x01\x02\x10\x01", false),
    SAMPLE("canonical value info", VALUE_INFO, "\x0a\x01v\x12\x04\x0a\x02\x08\x01", true),
    SAMPLE("two members of a oneof", VALUE_INFO, "\x0a\x01v\x12\x06\x0a\x02\x08\x01\x22\x00",
           false),
};

START_TEST(test_forms)
{
    const Sample *s = &samples[_i];
    const uint8_t *bytes = (const uint8_t *)s->bytes;
    ck_assert_msg(wire_ok(s->desc, bytes, s->len), "%s: not well-formed", s->what);
    uint8_t *copy = malloc(s->len);
    memcpy(copy, bytes, s->len);
    Arena *arena = arena_new();
    KeyMap spans = {0};
    ProtobufCMessage *m = arena_alloc(arena, s->desc->sizeof_message);
    ck_assert(onnx_decode(s->desc, copy, s->len, 100, arena, &spans, m));
    ck_assert_msg(spanned(&spans, m) == s->canonical, "%s: %s", s->what,
                  s->canonical ? "no span" : "a span");
    size_t want_len, got_len;
    uint8_t *want = packed(m, &want_len);
    uint8_t *got = onnx_encode_bytes(m, &spans, &got_len);
    ck_assert_uint_eq(got_len, want_len);
    ck_assert(memcmp(got, want, want_len) == 0);
    free(got);
    free(want);
    keymap_free(&spans);
    arena_free(arena);
    free(copy);
}
END_TEST

/* The encoder writes a spanned message as its span's bytes, whatever its
 * struct holds, and its parent's length is the span's. */
START_TEST(test_encoder_copies)
{
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    node.op_type = "Relu";
    Onnx__NodeProto *nodes[1] = {&node};
    Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
    graph.n_node = 1;
    graph.node = nodes;
    static const uint8_t tanh[] = "\x22\x04Tanh";
    OnnxSpan span = {tanh, sizeof tanh - 1};
    KeyMap spans = {0};
    onnx_span_put(&spans, &node, &span);
    size_t len;
    uint8_t *got = onnx_encode_bytes(&graph.base, &spans, &len);
    ck_assert_uint_eq(len, 8);
    ck_assert(memcmp(got, "\x0a\x06\x22\x04Tanh", 8) == 0);
    free(got);
    got = onnx_encode_bytes(&graph.base, NULL, &len); /* no spans: the struct */
    ck_assert_uint_eq(len, 8);
    ck_assert(memcmp(got, "\x0a\x06\x22\x04Relu", 8) == 0);
    free(got);
    keymap_free(&spans);
}
END_TEST

/* Graph g with nodes order[0..n) of nodes (-1: made, a Relu with no
 * span) encoded with spans, to bytes and to a stream, is want. */
static void assert_list_encodes(Onnx__NodeProto *nodes, const int *order, size_t n,
                                const KeyMap *spans, const char *want, size_t want_len)
{
    Onnx__NodeProto made = ONNX__NODE_PROTO__INIT, *list[8];
    made.op_type = "Relu";
    for (size_t i = 0; i < n; i++)
        list[i] = order[i] < 0 ? &made : &nodes[order[i]];
    Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
    graph.n_node = n;
    graph.node = list;
    size_t len;
    uint8_t *got = onnx_encode_bytes(&graph.base, spans, &len);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(got, want, len) == 0);
    free(got);
    char *streamed = NULL;
    FILE *mem = open_memstream(&streamed, &len);
    ck_assert(onnx_encode_file(&graph.base, spans, mem));
    fclose(mem);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(streamed, want, len) == 0);
    free(streamed);
}

/* note [runs of spans] in src/onnx/onnx_encode.c: messages of a list
 * whose spans follow one another in the bytes read are copied as one
 * run, the bytes between them included only where they are the key and
 * length the encoder writes (not a length of two bytes, not another
 * field's key); a list in another order, or with a message made between,
 * is written message by message. */
START_TEST(test_runs_of_spans)
{
    static const char read[] = "\x0a\x06\x22\x04" "Tanh" "\x0a\x06\x22\x04" "Sigm"
                               "\x0a\x86\x00\x22\x04" "Gelu" "\x12\x06\x22\x04" "Cosh"
                               "\x0a\x06\x22\x04" "Sinh";
    static const size_t at[] = {2, 10, 19, 27, 35};
    Onnx__NodeProto nodes[5];
    OnnxSpan span[5];
    KeyMap spans = {0};
    for (int i = 0; i < 5; i++) {
        onnx__node_proto__init(&nodes[i]);
        nodes[i].op_type = "Abs"; /* not what is written: the spans are */
        span[i] = (OnnxSpan){(const uint8_t *)read + at[i], 6};
        onnx_span_put(&spans, &nodes[i], &span[i]);
    }
    static const char all[] = "\x0a\x06\x22\x04" "Tanh" "\x0a\x06\x22\x04" "Sigm"
                              "\x0a\x06\x22\x04" "Gelu" "\x0a\x06\x22\x04" "Cosh"
                              "\x0a\x06\x22\x04" "Sinh";
    assert_list_encodes(nodes, (const int[]){0, 1, 2, 3, 4}, 5, &spans, all, 40);
    static const char reordered[] = "\x0a\x06\x22\x04" "Sigm" "\x0a\x06\x22\x04" "Tanh"
                                    "\x0a\x06\x22\x04" "Sinh" "\x0a\x06\x22\x04" "Cosh";
    assert_list_encodes(nodes, (const int[]){1, 0, 4, 3}, 4, &spans, reordered, 32);
    static const char made[] = "\x0a\x06\x22\x04" "Tanh" "\x0a\x06\x22\x04" "Relu"
                               "\x0a\x06\x22\x04" "Sigm";
    assert_list_encodes(nodes, (const int[]){0, -1, 1}, 3, &spans, made, 24);
    keymap_free(&spans);
}
END_TEST

/* note [span keys] in onnx_span.h: a span's key is its address's product
 * by the golden-ratio multiplier, rotated right by 40 bits (the product's
 * top bits low); a map of many structs gives each its own span back, and
 * none for an address never put. */
START_TEST(test_span_keys)
{
    ck_assert_uint_eq(keymap_addr_key((const void *)(uintptr_t)1), 0xb97f4a7c159e3779ull);
    ck_assert_uint_eq(keymap_addr_key((const void *)(uintptr_t)8), 0xcbfa53e0a8f1bbcdull);
    enum { MANY = 5000 };
    Onnx__NodeProto *nodes = calloc(MANY + 1, sizeof *nodes);
    OnnxSpan *span = calloc(MANY, sizeof *span);
    KeyMap spans = {0};
    for (size_t i = 0; i < MANY; i++) {
        span[i] = (OnnxSpan){NULL, i};
        onnx_span_put(&spans, &nodes[i], &span[i]);
    }
    ck_assert_uint_eq(spans.len, MANY);
    for (size_t i = 0; i < MANY; i++)
        ck_assert_ptr_eq(onnx_span_get(&spans, &nodes[i]), &span[i]);
    ck_assert_ptr_null(onnx_span_get(&spans, &nodes[MANY]));
    keymap_free(&spans);
    free(span);
    free(nodes);
}
END_TEST

static Suite *span_suite(void)
{
    Suite *s = suite_create("onnx_span");
    TCase *tc = tcase_create("onnx_span");
    tcase_add_test(tc, test_corpus_spans);
    tcase_add_loop_test(tc, test_forms, 0, (int)(sizeof samples / sizeof samples[0]));
    tcase_add_test(tc, test_encoder_copies);
    tcase_add_test(tc, test_runs_of_spans);
    tcase_add_test(tc, test_span_keys);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(span_suite());
}
