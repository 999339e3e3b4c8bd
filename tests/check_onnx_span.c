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
#include "onnx_model.h"
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

/* Whether m has a span, after asserting that a span is m's packed bytes:
 * by_index's (a list's spans by index) where not NULL, else spans'. */
static bool spanned_in(const KeyMap *spans, const OnnxSpan *by_index,
                       const ProtobufCMessage *m)
{
    const OnnxSpan *span = by_index ? (by_index->data ? by_index : NULL)
                                    : onnx_span_of(spans, m);
    if (!span)
        return false;
    size_t len;
    uint8_t *want = packed(m, &len);
    ck_assert_uint_eq(span->len, len);
    ck_assert(memcmp(span->data, want, len) == 0);
    free(want);
    return true;
}

static bool spanned(const KeyMap *spans, const ProtobufCMessage *m)
{
    return spanned_in(spans, NULL, m);
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
    uint32_t ids[] = {1, 11, 12, 13, 5}; /* their field numbers */
    for (size_t l = 0; l < 5; l++) {
        const OnnxSpan *by_index = onnx_spans_may_index(g->base.descriptor, ids[l]) &&
                                   counts[l] ? onnx_list_spans_get(spans, lists[l]) : NULL;
        if (onnx_spans_by_index(g->base.descriptor, ids[l]) && counts[l])
            ck_assert(by_index); /* (note [spans by index]) */
        for (size_t i = 0; i < counts[l]; i++) {
            c->elements++;
            c->spans += spanned_in(spans, by_index ? &by_index[i] : NULL, lists[l][i]);
        }
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

/* The decoded model of one graph: Relu(x) -> y and If(c) -> z, the If's
 * then_branch the graph Neg(a) -> b; every message canonical. */
typedef struct IfModel {
    Arena *arena;
    KeyMap spans;
    Onnx__ModelProto *m;
    uint8_t *bytes;
} IfModel;

static void if_model_read(IfModel *im)
{
    char *x = "x", *y = "y", *c = "c", *z = "z", *a = "a", *b = "b";
    Onnx__ValueInfoProto vx = ONNX__VALUE_INFO_PROTO__INIT, vc = ONNX__VALUE_INFO_PROTO__INIT,
                         vz = ONNX__VALUE_INFO_PROTO__INIT, va = ONNX__VALUE_INFO_PROTO__INIT,
                         vb = ONNX__VALUE_INFO_PROTO__INIT;
    vx.name = x, vc.name = c, vz.name = z, va.name = a, vb.name = b;
    Onnx__NodeProto neg = ONNX__NODE_PROTO__INIT, relu = ONNX__NODE_PROTO__INIT,
                    iff = ONNX__NODE_PROTO__INIT;
    neg.op_type = "Neg", neg.n_input = neg.n_output = 1, neg.input = &a, neg.output = &b;
    relu.op_type = "Relu", relu.n_input = relu.n_output = 1, relu.input = &x, relu.output = &y;
    iff.op_type = "If", iff.n_input = iff.n_output = 1, iff.input = &c, iff.output = &z;
    Onnx__ValueInfoProto *then_in[] = {&va}, *then_out[] = {&vb}, *ins[] = {&vx, &vc},
                         *outs[] = {&vz};
    Onnx__NodeProto *then_nodes[] = {&neg}, *nodes[] = {&relu, &iff};
    Onnx__GraphProto then = ONNX__GRAPH_PROTO__INIT, main = ONNX__GRAPH_PROTO__INIT;
    then.name = "then", then.n_node = 1, then.node = then_nodes;
    then.n_input = 1, then.input = then_in, then.n_output = 1, then.output = then_out;
    main.name = "main", main.n_node = 2, main.node = nodes;
    main.n_input = 2, main.input = ins, main.n_output = 1, main.output = outs;
    Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT, *attrs[] = {&attr};
    attr.name = "then_branch", attr.g = &then;
    attr.has_type = 1, attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    iff.n_attribute = 1, iff.attribute = attrs;
    Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
    model.has_ir_version = 1, model.ir_version = 8, model.graph = &main;
    size_t len;
    im->bytes = packed(&model.base, &len);
    im->arena = arena_new();
    im->spans = (KeyMap){0};
    im->m = arena_alloc(im->arena, sizeof *im->m);
    ck_assert(onnx_decode(&onnx__model_proto__descriptor, im->bytes, len, 100, im->arena,
                          &im->spans, &im->m->base));
}

static void if_model_free(IfModel *im)
{
    keymap_free(&im->spans);
    arena_free(im->arena);
    free(im->bytes);
}

/* Asserts that list's count elements have their spans by index, none by
 * address. */
static void assert_by_index(const KeyMap *spans, void *const *list, size_t count)
{
    const OnnxSpan *by_index = onnx_list_spans_get(spans, list);
    ck_assert_ptr_nonnull(by_index);
    for (size_t i = 0; i < count; i++) {
        ck_assert(spanned_in(spans, &by_index[i], list[i]));
        ck_assert_ptr_null(onnx_span_get(spans, list[i]));
    }
}

/* note [spans by index]: a graph's inputs and outputs, and the model's
 * graph's nodes, have their spans by index, a put a list; a node of an
 * If's branch has its span by address; the If's span by index is its own,
 * not that of the node inside it; the model is written as packed. */
START_TEST(test_spans_by_index)
{
    IfModel im;
    if_model_read(&im);
    const Onnx__GraphProto *g = im.m->graph, *then = g->node[1]->attribute[0]->g;
    ck_assert_uint_eq(im.spans.len, 6); /* 5 lists and the Neg */
    assert_by_index(&im.spans, (void *const *)g->node, 2);
    assert_by_index(&im.spans, (void *const *)g->input, 2);
    assert_by_index(&im.spans, (void *const *)g->output, 1);
    assert_by_index(&im.spans, (void *const *)then->input, 1);
    assert_by_index(&im.spans, (void *const *)then->output, 1);
    ck_assert_ptr_null(onnx_list_spans_get(&im.spans, then->node));
    ck_assert(spanned(&im.spans, &then->node[0]->base));
    size_t want_len, got_len;
    uint8_t *want = packed(&im.m->base, &want_len);
    uint8_t *got = onnx_encode_bytes(&im.m->base, &im.spans, &got_len);
    ck_assert_uint_eq(got_len, want_len);
    ck_assert(memcmp(got, want, want_len) == 0);
    free(got);
    free(want);
    if_model_free(&im);
}
END_TEST

/* model written from read into a new buffer (*len bytes). */
static char *written_from(const Onnx__ModelProto *model, const Onnx__ModelProto *read,
                          size_t *len)
{
    char *out = NULL;
    FILE *mem = open_memstream(&out, len);
    ck_assert(onnx_model_write_from(model, read, mem));
    fclose(mem);
    return out;
}

/* note [nodes' spans put late]: a model's nodes written in its own list
 * are found by index, in another list by address once a write needs
 * them: both are the bytes read, whatever their structs hold. */
START_TEST(test_nodes_put_late)
{
    static const uint8_t graph[] = {
        0x0a, 0x0c, 0x0a, 0x01, 'x', 0x12, 0x02, 't', '0', 0x22, 0x03, 'N', 'e', 'g',
        0x0a, 0x0d, 0x0a, 0x02, 't', '0', 0x12, 0x01, 'y', 0x22, 0x04, 'R', 'e', 'l', 'u',
        0x5a, 0x03, 0x0a, 0x01, 'x', 0x62, 0x03, 0x0a, 0x01, 'y'}; /* input x, output y */
    uint8_t model[sizeof graph + 8] = {0x08, 0x08, 0x3a, sizeof graph}; /* ir_version 8 */
    memcpy(model + 4, graph, sizeof graph);
    memcpy(model + 4 + sizeof graph, "\x42\x02\x10\x11", 4); /* opset 17 */
    graft_diag *d = diag_new(stderr);
    Onnx__ModelProto *read = onnx_model_unpack(model, sizeof model, "t.onnx", NULL, d);
    ck_assert_ptr_nonnull(read);
    read->graph->node[1]->op_type = "Tanh"; /* (its span still Relu's bytes) */
    size_t len;
    char *own = written_from(read, read, &len);
    ck_assert_uint_eq(len, sizeof model);
    ck_assert(memcmp(own, model, sizeof model) == 0);
    Onnx__NodeProto *nodes[] = {read->graph->node[0], read->graph->node[1]};
    Onnx__GraphProto copy = *read->graph;
    copy.node = nodes;
    Onnx__ModelProto shares = *read;
    shares.graph = &copy;
    char *other = written_from(&shares, read, &len);
    ck_assert_uint_eq(len, sizeof model);
    ck_assert(memcmp(other, model, sizeof model) == 0);
    free(other);
    free(own);
    onnx_model_free(read);
    diag_free(d);
}
END_TEST

/* note [nodes' spans put late]: a write whose node list is the export's
 * own, its nodes made (given as bytes) but the last, which is the
 * model's, puts the model's nodes' spans: that node is the bytes read,
 * whatever its struct holds. */
START_TEST(test_last_node_kept)
{
    static const uint8_t graph[] = { /* test_nodes_put_late's Neg and Relu */
        0x0a, 0x0c, 0x0a, 0x01, 'x', 0x12, 0x02, 't', '0', 0x22, 0x03, 'N', 'e', 'g',
        0x0a, 0x0d, 0x0a, 0x02, 't', '0', 0x12, 0x01, 'y', 0x22, 0x04, 'R', 'e', 'l', 'u',
        0x5a, 0x03, 0x0a, 0x01, 'x', 0x62, 0x03, 0x0a, 0x01, 'y'};
    uint8_t model[sizeof graph + 8] = {0x08, 0x08, 0x3a, sizeof graph};
    memcpy(model + 4, graph, sizeof graph);
    memcpy(model + 4 + sizeof graph, "\x42\x02\x10\x11", 4);
    graft_diag *d = diag_new(stderr);
    Onnx__ModelProto *read = onnx_model_unpack(model, sizeof model, "t.onnx", NULL, d);
    ck_assert_ptr_nonnull(read);
    read->graph->node[1]->op_type = "Tanh"; /* (its span still Relu's bytes) */
    Onnx__NodeProto made_neg = *read->graph->node[0];
    Onnx__NodeProto *nodes[] = {&made_neg, read->graph->node[1]};
    Onnx__GraphProto copy = *read->graph;
    copy.node = nodes;
    Onnx__ModelProto shares = *read;
    shares.graph = &copy;
    const OnnxSpan bytes[] = {{graph + 2, 12}, {NULL, 0}}; /* the Neg's, made */
    const OnnxMadeBytes made = {.functions = NULL, .graph = &copy.base, .nodes = bytes};
    char *out = NULL;
    size_t len;
    FILE *mem = open_memstream(&out, &len);
    ck_assert(onnx_model_write_made(&shares, read, &made, mem));
    fclose(mem);
    ck_assert_uint_eq(len, sizeof model);
    ck_assert(memcmp(out, model, sizeof model) == 0);
    free(out);
    onnx_model_free(read);
    diag_free(d);
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
    tcase_add_test(tc, test_spans_by_index);
    tcase_add_test(tc, test_nodes_put_late);
    tcase_add_test(tc, test_last_node_kept);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(span_suite());
}
