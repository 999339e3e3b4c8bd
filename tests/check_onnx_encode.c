/* check_onnx_encode.c - graft's encoder writes what protobuf-c's pack
 * writes, byte for byte (note [onnx encode] in onnx_encode.h): on every
 * model of tests/onnx/ and of the fuzz corpus, and on a message built to
 * hold every kind of field onnx.proto has, with values whose encodings
 * differ in length (negative int32s take ten bytes), fields larger than
 * the stream's buffer and unknown fields.  So does the export's packing
 * of a partition's function (note [functions packed by hand] in
 * src/onnx/onnx_export_pack.c): on each model's graph made a function,
 * on each function a model has, and on one built with every field. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "check_files.h"
#include "onnx_encode.h"
#include "onnx_encode_impl.h"
#include "onnx_export_impl.h"
#include "onnx_model.h"
#include "check_main.h"

/* Asserts that both of graft's encodings of msg (to a stream and to
 * bytes) are protobuf-c's pack of it. */
static void assert_encodes_as_protobuf_c(const ProtobufCMessage *msg)
{
    size_t want_len = protobuf_c_message_get_packed_size(msg);
    uint8_t *want = malloc(want_len + 1);
    ck_assert_uint_eq(protobuf_c_message_pack(msg, want), want_len);
    size_t len = 0;
    uint8_t *got = onnx_encode_bytes(msg, NULL, &len);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(got, want, len) == 0);
    free(got);
    char *streamed = NULL;
    size_t streamed_len = 0;
    FILE *mem = open_memstream(&streamed, &streamed_len);
    ck_assert(onnx_encode_file(msg, NULL, mem));
    fclose(mem);
    ck_assert_uint_eq(streamed_len, want_len);
    ck_assert(memcmp(streamed, want, want_len) == 0);
    free(streamed);
    free(want);
}

enum { ROOM = 40 }; /* asked of export_pack_function before the bytes */

/* Asserts that export_pack_function writes protobuf-c's pack of f after
 * ROOM bytes, again from the opset imports' encodings it kept. */
static void assert_packs_as_protobuf_c(const Onnx__FunctionProto *f)
{
    size_t want_len = onnx__function_proto__get_packed_size(f);
    uint8_t *want = malloc(want_len + 1);
    ck_assert_uint_eq(onnx__function_proto__pack(f, want), want_len);
    KeyMap imports = {0};
    for (int round = 0; round < 2; round++) {
        size_t len = 0;
        uint8_t *got = export_pack_function(&imports, f, ROOM, &len);
        ck_assert_uint_eq(len, want_len);
        ck_assert(memcmp(got + ROOM, want, len) == 0);
        free(got);
    }
    ck_assert_uint_eq(imports.len, f->n_opset_import);
    size_t len = 0;
    uint8_t *generic = export_pack_function_generic(f, ROOM, &len);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(generic + ROOM, want, len) == 0);
    free(generic);
    for (size_t i = 0; i < imports.cap; i++)
        free((void *)(intptr_t)imports.slots[i].value);
    keymap_free(&imports);
    free(want);
}

/* m's graph as a function (its nodes, its inputs' and outputs' names, the
 * model's opset imports), and each function m has, packed. */
static void compare_functions(const Onnx__ModelProto *m)
{
    const Onnx__GraphProto *gp = m->graph;
    Onnx__FunctionProto f = ONNX__FUNCTION_PROTO__INIT;
    f.name = gp->name;
    f.doc_string = gp->doc_string;
    f.n_input = gp->n_input;
    f.input = calloc(gp->n_input + 1, sizeof *f.input);
    for (size_t i = 0; i < gp->n_input; i++)
        f.input[i] = gp->input[i]->name;
    f.n_output = gp->n_output;
    f.output = calloc(gp->n_output + 1, sizeof *f.output);
    for (size_t i = 0; i < gp->n_output; i++)
        f.output[i] = gp->output[i]->name;
    f.n_node = gp->n_node;
    f.node = gp->node;
    f.n_opset_import = m->n_opset_import;
    f.opset_import = m->opset_import;
    assert_packs_as_protobuf_c(&f);
    free(f.input);
    free(f.output);
    for (size_t i = 0; i < m->n_functions; i++)
        assert_packs_as_protobuf_c(m->functions[i]);
}

/* Compares the encodings of a model that reads; whether it did (the
 * corpus's bad inputs are for the reader). */
static bool compare_model(const char *name, uint8_t *bytes, size_t len, void *ctx)
{
    (void)ctx;
    FILE *quiet = fopen("/dev/null", "w");
    graft_diag *diag = diag_new(quiet);
    Onnx__ModelProto *m = onnx_model_unpack(bytes, len, name, NULL, diag);
    diag_free(diag);
    fclose(quiet);
    if (!m)
        return false;
    assert_encodes_as_protobuf_c(&m->base);
    compare_functions(m);
    onnx_model_free(m);
    return true;
}

START_TEST(test_corpus_models)
{
    /* 13 models in tests/onnx/, 5 of the fuzz corpus's 9 that read (the
     * others are bad input found by fuzzing); more may come, none may go */
    ck_assert_int_ge(each_onnx_file("tests/onnx", compare_model, NULL), 13);
    ck_assert_int_ge(each_onnx_file("fuzz/corpus/onnx", compare_model, NULL), 5);
}
END_TEST

static int32_t int32s[] = {0, 1, -1, 127, 128, 300, INT32_MIN, INT32_MAX};
static int64_t int64s[] = {0, -1, 1LL << 35, INT64_MIN, INT64_MAX};
static uint64_t uint64s[] = {0, 1, UINT64_MAX, 1ULL << 63};
static float floats[] = {0.0f, -1.5f, 1e-5f, 3.0e38f};
static double doubles[] = {-0.0, 2.5, 1e300};

/* A TensorProto with every scalar field, packed and not. */
static void fill_tensor(Onnx__TensorProto *t, uint8_t *raw, size_t raw_len)
{
    t->n_dims = 5;
    t->dims = int64s; /* repeated int64, one key per value */
    t->has_data_type = 1;
    t->data_type = -7; /* an int32 field: ten bytes on the wire */
    t->n_float_data = 4;
    t->float_data = floats;
    t->n_int32_data = 8;
    t->int32_data = int32s;
    t->n_int64_data = 5;
    t->int64_data = int64s;
    t->n_double_data = 3;
    t->double_data = doubles;
    t->n_uint64_data = 4;
    t->uint64_data = uint64s;
    t->name = "t";
    t->has_raw_data = 1;
    t->raw_data = (ProtobufCBinaryData){raw_len, raw};
}

START_TEST(test_every_field_kind)
{
    size_t raw_len = 200 * 1024; /* more than the stream's 64 KB buffer */
    uint8_t *raw = malloc(raw_len);
    for (size_t i = 0; i < raw_len; i++)
        raw[i] = (uint8_t)(i * 7);
    Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
    fill_tensor(&t, raw, raw_len);
    ProtobufCBinaryData strings[2] = {{1, (uint8_t *)"a"}, {0, NULL}};
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT;
    a.name = "";  /* present though empty */
    a.has_f = 1;
    a.f = -0.0f;
    a.has_i = 1;
    a.i = -2;
    a.t = &t;
    a.n_floats = 4;
    a.floats = floats;
    a.n_ints = 5;
    a.ints = int64s;
    a.n_strings = 2;
    a.strings = strings;
    ProtobufCMessageUnknownField unknown[2] = {
        {.tag = 99, .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT, .len = 1, .data = (uint8_t *)"\x05"},
        {.tag = 1u << 28, .wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, .len = 3,
         .data = (uint8_t *)"\x02hi"},
    };
    a.base.n_unknown_fields = 2;
    a.base.unknown_fields = unknown;
    assert_encodes_as_protobuf_c(&a.base);
    free(raw);
}
END_TEST

/* The hand packing knows every field of this build's onnx.proto: a build
 * with a later one fails here until onnx_export_pack.c writes its new
 * fields (until then its functions go through protobuf-c's pack). */
START_TEST(test_pack_knows_every_field)
{
    ck_assert(export_pack_fields_known());
}
END_TEST

/* A function with every field of FunctionProto and NodeProto, empty
 * strings, a node's attributes (one the packing writes through graft's
 * encoder, two tensor attributes it writes itself) and unknown fields in
 * both. */
START_TEST(test_function_every_field)
{
    ProtobufCMessageUnknownField unknown[2] = {
        {.tag = 99, .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT, .len = 1, .data = (uint8_t *)"\x05"},
        {.tag = 1u << 28, .wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, .len = 3,
         .data = (uint8_t *)"\x02hi"},
    };
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT;
    a.name = "alpha";
    a.has_f = 1;
    a.f = 0.5f;
    a.has_type = 1;
    a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    uint8_t raw[] = {0, 0, 128, 63};
    Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
    fill_tensor(&t, raw, sizeof raw);
    Onnx__AttributeProto value = ONNX__ATTRIBUTE_PROTO__INIT; /* a Constant's */
    value.name = "value";
    value.t = &t;
    value.has_type = 1;
    value.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    Onnx__AttributeProto bare = ONNX__ATTRIBUTE_PROTO__INIT; /* no name, no type */
    bare.t = &t;
    Onnx__AttributeProto *attrs[] = {&a, &value, &bare};
    char *in[] = {"x", "", "z"}, *out[] = {"y"}, *fattrs[] = {"alpha", ""};
    Onnx__NodeProto n = ONNX__NODE_PROTO__INIT;
    n.n_input = 3;
    n.input = in;
    n.n_output = 1;
    n.output = out;
    n.name = "";
    n.op_type = "LeakyRelu";
    n.domain = "ai.onnx";
    n.n_attribute = 3;
    n.attribute = attrs;
    n.doc_string = "a node";
    n.base.n_unknown_fields = 1;
    n.base.unknown_fields = unknown;
    Onnx__NodeProto *nodes[] = {&n, &n};
    Onnx__OperatorSetIdProto import = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    import.domain = "";
    import.has_version = 1;
    import.version = 300; /* two bytes */
    Onnx__OperatorSetIdProto *imports[] = {&import};
    Onnx__FunctionProto f = ONNX__FUNCTION_PROTO__INIT;
    f.name = "graft.f_1";
    f.n_input = 3;
    f.input = in;
    f.n_output = 1;
    f.output = out;
    f.n_attribute = 2;
    f.attribute = fattrs;
    f.n_node = 2;
    f.node = nodes;
    f.doc_string = "";
    f.n_opset_import = 1;
    f.opset_import = imports;
    f.domain = "graft.composite";
    f.base.n_unknown_fields = 2;
    f.base.unknown_fields = unknown;
    assert_packs_as_protobuf_c(&f);
    f.name = NULL; /* as the export packs it, for its comparison */
    assert_packs_as_protobuf_c(&f);
}
END_TEST

/* note [nodes encoded by hand] in src/onnx/onnx_encode_node.c: nodes
 * holding every kind of attribute the hand writes (numbers of one and
 * ten bytes, strings, lists, a type of two key bytes, a reference, a doc
 * string, unknown fields) and two it leaves to the descriptors (a tensor,
 * a graph), alone, in a graph, and in a graph of more than the stream's
 * 64 KB buffer (nodes written across its flushes, in place and not), and
 * one node larger than the buffer: each as protobuf-c's pack writes it. */
START_TEST(test_nodes_by_hand)
{
    ck_assert(encode_node_fields_known());
    ProtobufCBinaryData strings[2] = {{1, (uint8_t *)"a"}, {0, NULL}};
    Onnx__AttributeProto plain = ONNX__ATTRIBUTE_PROTO__INIT;
    plain.name = "every";
    plain.has_f = plain.has_i = plain.has_s = plain.has_type = 1;
    plain.f = -1.5f;
    plain.i = -3; /* ten bytes */
    plain.s = (ProtobufCBinaryData){2, (uint8_t *)"hi"};
    plain.n_floats = 4;
    plain.floats = floats;
    plain.n_ints = 5;
    plain.ints = int64s;
    plain.n_strings = 2;
    plain.strings = strings;
    plain.doc_string = "";
    plain.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    plain.ref_attr_name = "outer";
    ProtobufCMessageUnknownField unknown = {.tag = 99, .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                                            .len = 1, .data = (uint8_t *)"\x05"};
    plain.base.n_unknown_fields = 1;
    plain.base.unknown_fields = &unknown;
    Onnx__AttributeProto bare = ONNX__ATTRIBUTE_PROTO__INIT; /* no field at all */
    uint8_t raw[4] = {1, 2, 3, 4};
    Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
    fill_tensor(&t, raw, sizeof raw);
    Onnx__AttributeProto tensor = ONNX__ATTRIBUTE_PROTO__INIT;
    tensor.name = "value";
    tensor.t = &t;
    Onnx__GraphProto body = ONNX__GRAPH_PROTO__INIT;
    body.name = "body";
    Onnx__AttributeProto graph = ONNX__ATTRIBUTE_PROTO__INIT;
    graph.name = "body";
    graph.g = &body;
    Onnx__AttributeProto *attrs[] = {&plain, &bare, &tensor, &graph};
    char *in[] = {"x", "", "a_longer_input_name"}, *out[] = {"y"};
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    node.n_input = 3;
    node.input = in;
    node.n_output = 1;
    node.output = out;
    node.name = "n";
    node.op_type = "Op";
    node.n_attribute = 4;
    node.attribute = attrs;
    node.doc_string = "doc";
    node.domain = "";
    node.base.n_unknown_fields = 1;
    node.base.unknown_fields = &unknown;
    assert_encodes_as_protobuf_c(&node.base);
    Onnx__NodeProto empty = ONNX__NODE_PROTO__INIT;
    assert_encodes_as_protobuf_c(&empty.base);
    enum { NODES = 3000 }; /* 3000 nodes of about 170 bytes: past 64 KB */
    Onnx__NodeProto **nodes = malloc(NODES * sizeof *nodes);
    for (int i = 0; i < NODES; i++)
        nodes[i] = i % 7 == 3 ? &empty : &node;
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.n_node = NODES;
    g.node = nodes;
    assert_encodes_as_protobuf_c(&g.base);
    size_t big_len = 100 * 1024; /* one node larger than the buffer */
    char *big = malloc(big_len + 1);
    memset(big, 'n', big_len);
    big[big_len] = '\0';
    Onnx__NodeProto large = node;
    large.name = big;
    nodes[NODES / 2] = &large;
    assert_encodes_as_protobuf_c(&g.base);
    free(big);
    free(nodes);
}
END_TEST

/* A oneof writes the member its case names, and only that one. */
START_TEST(test_oneof_members)
{
    Onnx__TensorShapeProto__Dimension dims[3] = {
        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT,
        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT};
    dims[0].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    dims[0].dim_value = 0; /* present, though zero */
    dims[1].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
    dims[1].dim_param = "N";
    Onnx__TensorShapeProto__Dimension *dimp[3] = {&dims[0], &dims[1], &dims[2]};
    Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    shape.n_dim = 3;
    shape.dim = dimp;
    Onnx__TypeProto__Tensor tensor = ONNX__TYPE_PROTO__TENSOR__INIT;
    tensor.has_elem_type = 1;
    tensor.elem_type = 1;
    tensor.shape = &shape;
    Onnx__TypeProto type = ONNX__TYPE_PROTO__INIT;
    type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type.tensor_type = &tensor;
    assert_encodes_as_protobuf_c(&type.base);
    size_t len = 0;
    uint8_t *got = onnx_encode_bytes(&shape.base, NULL, &len);
    /* dim {dim_value: 0} dim {dim_param: "N"} dim {} */
    static const uint8_t want[] = {0x0a, 0x02, 0x08, 0x00, 0x0a, 0x03, 0x12, 0x01, 'N',
                                   0x0a, 0x00};
    ck_assert_uint_eq(len, sizeof want);
    ck_assert(memcmp(got, want, len) == 0);
    free(got);
}
END_TEST

/* A stream that refuses the bytes is a failed write, not a crash. */
START_TEST(test_write_fails)
{
    FILE *full = fopen("/dev/full", "w"); /* Linux's always-full device */
    ck_assert_ptr_nonnull(full);
    uint8_t raw[100 * 1024] = {0};
    Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
    t.has_raw_data = 1;
    t.raw_data = (ProtobufCBinaryData){sizeof raw, raw};
    ck_assert(!onnx_encode_file(&t.base, NULL, full));
    fclose(full);
}
END_TEST

/* Graph g written with the nodes at the indices made lists packed by
 * export_pack_nodes (note [made nodes packed] in onnx_export_pack.c):
 * protobuf-c's pack of g, byte for byte; the nodes packed those of them
 * that are bare, at their encodings (after a key of field 1 and a length
 * each), the others left to the encoder. */
static void assert_made_nodes_write_as_protobuf_c(const Onnx__GraphProto *g,
                                                  const uint32_t *made, size_t nmade)
{
    OnnxSpan *bytes = calloc(g->n_node + 1, sizeof *bytes);
    uint8_t *block = export_pack_nodes(g->node, made, NULL, nmade, bytes);
    size_t npacked = 0;
    for (size_t i = 0; i < nmade; i++) {
        const Onnx__NodeProto *np = g->node[made[i]];
        const OnnxSpan *b = &bytes[made[i]];
        size_t want_len = onnx__node_proto__get_packed_size(np);
        ck_assert(b->data == NULL || b->len == want_len);
        ck_assert_int_eq(b->data != NULL, encode_node_bare(np) && want_len > 0);
        uint8_t *want = malloc(want_len + 1);
        onnx__node_proto__pack(np, want);
        ck_assert(b->data == NULL || memcmp(b->data, want, want_len) == 0);
        ck_assert(b->data == NULL || b->data[-1 - (ptrdiff_t)onnx_varint_size(want_len)] == 0x0a);
        npacked += b->data != NULL;
        free(want);
    }
    ck_assert_uint_gt(npacked, 0);
    size_t want_len = protobuf_c_message_get_packed_size(&g->base);
    uint8_t *want = malloc(want_len + 1);
    protobuf_c_message_pack(&g->base, want);
    OnnxMadeBytes given = {.graph = &g->base, .nodes = bytes};
    char *streamed = NULL;
    size_t streamed_len = 0;
    FILE *mem = open_memstream(&streamed, &streamed_len);
    ck_assert(onnx_encode_file_made(&g->base, NULL, &given, mem));
    fclose(mem);
    ck_assert_uint_eq(streamed_len, want_len);
    ck_assert(memcmp(streamed, want, want_len) == 0);
    free(streamed);
    free(want);
    free(block);
    free(bytes);
}

START_TEST(test_made_nodes_packed)
{
    char *in[] = {"x", "", "a_longer_input_name"}, *out[] = {"y", ""};
    Onnx__NodeProto bare = ONNX__NODE_PROTO__INIT; /* every field a bare node has */
    bare.n_input = 3;
    bare.input = in;
    bare.n_output = 2;
    bare.output = out;
    bare.name = "n";
    bare.op_type = "Op";
    bare.doc_string = "doc";
    bare.domain = "";
    Onnx__NodeProto unnamed = ONNX__NODE_PROTO__INIT; /* inputs, outputs and op only */
    unnamed.n_input = 1;
    unnamed.input = in;
    unnamed.n_output = 1;
    unnamed.output = out;
    unnamed.op_type = "Relu";
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT;
    a.name = "alpha";
    a.has_f = 1;
    a.f = 0.5f;
    Onnx__AttributeProto *attrs[] = {&a};
    Onnx__NodeProto attributed = unnamed; /* not bare: the encoder's */
    attributed.n_attribute = 1;
    attributed.attribute = attrs;
    Onnx__NodeProto empty = ONNX__NODE_PROTO__INIT; /* no bytes: the encoder's */
    char name[200]; /* a node of over 127 bytes: a length of two bytes */
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    Onnx__NodeProto large = bare;
    large.name = name;
    char *lengths[] = {"abc", "abcd", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno",
                       "abcdefghijklmnop", "abcdefghijklmnopq"}; /* copy_name's cases */
    Onnx__NodeProto copied = unnamed;
    copied.n_input = sizeof lengths / sizeof *lengths;
    copied.input = lengths;
    Onnx__NodeProto *nodes[] = {&bare,  &unnamed, &attributed, &bare,  &empty,
                                &large, &bare,    &unnamed,    &bare,  &copied};
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.n_node = sizeof nodes / sizeof *nodes;
    g.node = nodes;
    g.name = "made";
    uint32_t all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_made_nodes_write_as_protobuf_c(&g, all, 10);
    uint32_t some[] = {1, 2, 5, 6, 8}; /* the others encoded: runs broken */
    assert_made_nodes_write_as_protobuf_c(&g, some, 5);
}
END_TEST

/* The made nodes packed in one pass (note [made nodes packed] in
 * onnx_export_pack.c): each node's length prefix guessed from the node
 * before, so nodes whose lengths take one, two and three bytes, in every
 * order, and a block grown past its guess from the first node (a short
 * one before long ones), and names of 16 to 33 bytes, write as
 * protobuf-c packs them. */
START_TEST(test_made_nodes_packed_prefixes)
{
    char *in[] = {"x"}, *out[] = {"y"};
    Onnx__NodeProto small = ONNX__NODE_PROTO__INIT; /* a length of one byte */
    small.n_input = small.n_output = 1;
    small.input = in;
    small.output = out;
    small.op_type = "Relu";
    char *medium_name = malloc(300), *huge_name = malloc(20000);
    memset(medium_name, 'm', 299);
    medium_name[299] = '\0';
    memset(huge_name, 'h', 19999);
    huge_name[19999] = '\0';
    Onnx__NodeProto medium = small, huge = small; /* two bytes, three bytes */
    medium.name = medium_name;
    huge.name = huge_name;
    char *lengths[] = {"abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz01234",
                       "abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz0123456"};
    Onnx__NodeProto copied = small; /* copy_name's pieces of 16: names of 16 to 33 */
    copied.n_input = sizeof lengths / sizeof *lengths;
    copied.input = lengths;
    Onnx__NodeProto *nodes[] = {&small,  &huge,  &small, &medium, &huge,   &huge,
                                &medium, &small, &small, &huge,   &medium, &copied};
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.n_node = sizeof nodes / sizeof *nodes;
    g.node = nodes;
    uint32_t all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    assert_made_nodes_write_as_protobuf_c(&g, all, 12);
    uint32_t some[] = {1, 3, 4, 7}; /* three bytes first: the guess of two wrong */
    assert_made_nodes_write_as_protobuf_c(&g, some, 4);
    free(medium_name);
    free(huge_name);
}
END_TEST

/* A bare node whose strings are partly interned (note [interned lengths]
 * in onnx_export_pack.c): the lengths the interner keeps are those
 * written, for the inputs its bits name and its op, the others' found by
 * strlen, and the bytes are protobuf-c's pack of the node. */
START_TEST(test_made_nodes_interned_lengths)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    const char *x = interner_intern(names, "x", 1), *op = interner_intern(names, "Relu", 4);
    const char *long_name = interner_intern(names, "a_graph_input_of_a_long_name", 28);
    char *in[] = {(char *)x, "not_interned", (char *)long_name}, *out[] = {"y"};
    Onnx__NodeProto np = ONNX__NODE_PROTO__INIT;
    np.n_input = 3;
    np.input = in;
    np.n_output = 1;
    np.output = out;
    np.name = "graft_Relu_1";
    np.op_type = (char *)op;
    np.domain = "";
    EncodeBytes bytes = {0};
    size_t size = encode_bare_node_append(&bytes, &np, (EncodeInterned){1 | 4, false, false, true, false});
    size_t want_len = onnx__node_proto__get_packed_size(&np);
    uint8_t *want = malloc(want_len);
    onnx__node_proto__pack(&np, want);
    ck_assert_uint_eq(size, want_len);
    ck_assert_uint_eq(bytes.len, want_len);
    ck_assert(memcmp(bytes.items, want, want_len) == 0);
    free(want);
    vec_free(&bytes);
    interner_free(names);
    arena_free(arena);
}
END_TEST

/* A bare node's domain said interned (a partition's call's, note
 * [interned lengths] in onnx_export_pack.c) is written at the length kept
 * before it, not its strlen: a counted string whose count says 5 of
 * "graft.composite" writes "graft". */
START_TEST(test_made_nodes_interned_domain)
{
    char counted[24];
    uint32_t five = 5;
    memcpy(counted, &five, 4);
    memcpy(counted + 4, "graft.composite", 16);
    char *in[] = {"x"}, *out[] = {"y"};
    Onnx__NodeProto np = ONNX__NODE_PROTO__INIT;
    np.n_input = 1;
    np.input = in;
    np.n_output = 1;
    np.output = out;
    np.op_type = "c";
    np.domain = counted + 4;
    EncodeBytes bytes = {0};
    size_t size = encode_bare_node_append(&bytes, &np, (EncodeInterned){0, false, false, false,
                                                                        true});
    const uint8_t want[] = {0x0a, 1, 'x', 0x12, 1, 'y', 0x22, 1, 'c',
                            0x3a, 5, 'g', 'r', 'a', 'f', 't'};
    ck_assert_uint_eq(size, sizeof want);
    ck_assert(memcmp(bytes.items, want, sizeof want) == 0);
    vec_free(&bytes);
}
END_TEST

static Suite *encode_suite(void)
{
    Suite *s = suite_create("onnx_encode");
    TCase *tc = tcase_create("onnx_encode");
    tcase_add_test(tc, test_corpus_models);
    tcase_add_test(tc, test_every_field_kind);
    tcase_add_test(tc, test_oneof_members);
    tcase_add_test(tc, test_nodes_by_hand);
    tcase_add_test(tc, test_pack_knows_every_field);
    tcase_add_test(tc, test_function_every_field);
    tcase_add_test(tc, test_write_fails);
    tcase_add_test(tc, test_made_nodes_packed);
    tcase_add_test(tc, test_made_nodes_packed_prefixes);
    tcase_add_test(tc, test_made_nodes_interned_lengths);
    tcase_add_test(tc, test_made_nodes_interned_domain);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(encode_suite());
}
