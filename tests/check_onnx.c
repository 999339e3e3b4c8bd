/* check_onnx.c - the ONNX layer (src/onnx): what reading and writing a
 * model keeps byte for byte and what it writes canonically (note [onnx
 * bytes] in onnx_model.h), and the wire check's faults and limit (note
 * [wire check] in onnx_wire.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "limit.h"
#include "onnx_model.h"
#include "check_main.h"

/* A tiny model, as protobuf's serializers write it: ir_version 8, graph
 * {node {input "x" output "y" op_type "Relu"} name "g" input {name "x"}},
 * opset_import {version 17}. */
#define IR_VERSION "\x08\x08"
#define GRAPH "\x3a\x16\x0a\x0c\x0a\x01x\x12\x01y\x22\x04Relu\x12\x01g\x5a\x03\x0a\x01x"
#define OPSET "\x42\x02\x10\x11"
static const char canonical[] = IR_VERSION GRAPH OPSET;

/* Reads bytes as a model and writes it back; the written bytes (malloc'd,
 * *out_len of them), or NULL when reading failed.  Errors go to errs. */
static char *round_trip(const char *bytes, size_t len, size_t *out_len, FILE *errs,
                        const graft_limits *lim)
{
    graft_diag *d = diag_new(errs);
    Onnx__ModelProto *m = onnx_model_unpack((const uint8_t *)bytes, len, "m.onnx", lim, d);
    diag_free(d);
    if (!m)
        return NULL;
    char *text = NULL;
    FILE *mem = open_memstream(&text, out_len);
    ck_assert(onnx_model_write(m, mem));
    fclose(mem);
    onnx_model_free(m);
    return text;
}

/* The error reading bytes prints, without its newline. */
static char *read_error(const char *bytes, size_t len, const graft_limits *lim)
{
    char *errs = NULL;
    size_t errs_len = 0, out_len = 0;
    FILE *mem = open_memstream(&errs, &errs_len);
    char *out = round_trip(bytes, len, &out_len, mem, lim);
    fclose(mem);
    ck_assert_ptr_null(out);
    ck_assert(errs_len > 0 && errs[errs_len - 1] == '\n');
    errs[errs_len - 1] = '\0';
    return errs;
}

static void assert_writes(const char *in, size_t in_len, const char *want, size_t want_len)
{
    size_t len = 0;
    char *out = round_trip(in, in_len, &len, stderr, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(out, want, len) == 0);
    free(out);
}

START_TEST(test_canonical_same_bytes)
{
    assert_writes(canonical, sizeof canonical - 1, canonical, sizeof canonical - 1);
}
END_TEST

/* Fields out of field-number order come back in order. */
START_TEST(test_field_order_canonical)
{
    static const char shuffled[] = OPSET GRAPH IR_VERSION;
    assert_writes(shuffled, sizeof shuffled - 1, canonical, sizeof canonical - 1);
}
END_TEST

/* An unknown field (number 99, a varint) is kept but written after the
 * known fields of its message. */
START_TEST(test_unknown_field_kept_at_end)
{
    static const char in[] = IR_VERSION "\x98\x06\x2a" GRAPH OPSET;
    static const char want[] = IR_VERSION GRAPH OPSET "\x98\x06\x2a";
    assert_writes(in, sizeof in - 1, want, sizeof want - 1);
    /* at the end already: the same bytes */
    assert_writes(want, sizeof want - 1, want, sizeof want - 1);
}
END_TEST

/* An initializer {dims 2, dims 3, data_type FLOAT, name "w"} inside the
 * graph, its dims unpacked (onnx.proto declares them unpacked) ... */
#define DIMS_UNPACKED "\x08\x02\x08\x03"
#define DIMS_PACKED "\x0a\x02\x02\x03"
#define INIT_REST "\x10\x01\x42\x01w"
#define GRAPH_WITH(init, n) "\x3a" n "\x12\x01g\x2a" init INIT_REST
START_TEST(test_repeated_scalars_as_declared)
{
    static const char unpacked[] = IR_VERSION GRAPH_WITH("\x09" DIMS_UNPACKED, "\x0e");
    static const char packed[] = IR_VERSION GRAPH_WITH("\x09" DIMS_PACKED, "\x0e");
    assert_writes(unpacked, sizeof unpacked - 1, unpacked, sizeof unpacked - 1);
    /* ... and packed dims are read, then written unpacked */
    assert_writes(packed, sizeof packed - 1, unpacked, sizeof unpacked - 1);
    /* float_data, declared [packed = true], written unpacked comes back packed */
    static const char floats_unpacked[] =
        IR_VERSION "\x3a\x14\x12\x01g\x2a\x0f\x10\x01\x25\0\0\x80\x3f\x25\0\0\0\x40\x42\x01w";
    static const char floats_packed[] =
        IR_VERSION "\x3a\x14\x12\x01g\x2a\x0f\x10\x01\x22\x08\0\0\x80\x3f\0\0\0\x40\x42\x01w";
    assert_writes(floats_unpacked, sizeof floats_unpacked - 1, floats_packed,
                  sizeof floats_packed - 1);
    assert_writes(floats_packed, sizeof floats_packed - 1, floats_packed,
                  sizeof floats_packed - 1);
}
END_TEST

/* A present field holding its default (ir_version 0, an empty doc string)
 * is written back: proto2 keeps presence. */
START_TEST(test_present_defaults_kept)
{
    static const char in[] = "\x08\x00\x32\x00" GRAPH OPSET;
    assert_writes(in, sizeof in - 1, in, sizeof in - 1);
}
END_TEST

START_TEST(test_wire_faults)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *error;
    } cases[] = {
        {"\x08", 1, "m.onnx: error: byte 1: the value of field 'ir_version' (1) of "
                    "onnx.ModelProto runs past the end of the file (byte 1)"},
        {"\x3a\x05\x12\x01", 4, "m.onnx: error: byte 1: length 5 of field 'graph' (7) of "
                                "onnx.ModelProto runs past the end of the file (byte 4)"},
        {"\x3a\x02\x12\x03\x08\x08", 6,
         "m.onnx: error: byte 3: length 3 of field 'name' (2) of onnx.GraphProto runs past "
         "the end of field 'graph' (7) of onnx.ModelProto (byte 4)"},
        {"\x0a\x00", 2, "m.onnx: error: byte 0: field 'ir_version' (1) of onnx.ModelProto has "
                        "wire type 2 (length-delimited), not 0 (varint)"},
        {"\x3f", 1, "m.onnx: error: byte 0: field 'graph' (7) of onnx.ModelProto has wire type "
                    "7 (undefined), not 2 (length-delimited)"},
        {"\x80\x80\x80\x80\x80\x01", 6, "m.onnx: error: byte 0: a field key of onnx.ModelProto "
                                        "is a varint longer than 5 bytes"},
        {"\x08\x08", 2, "m.onnx: error: byte 2: the model has no graph (field 'graph' (7) of "
                        "onnx.ModelProto)"},
        /* note [one occurrence]: a message field twice (protobuf-c's merge of two
         * TypeProto without a oneof case fails, a fuzz finding) */
        {"\x3a\x00\x3a\x00", 4, "m.onnx: error: byte 2: field 'graph' (7) of onnx.ModelProto "
                                "occurs a second time in its message (protobuf would merge "
                                "the two; graft reads a message field once)"},
        {"\x3a\x09\x62\x07\x0a\x01\x79\x12\x00\x12\x00", 11,
         "m.onnx: error: byte 9: field 'type' (2) of onnx.ValueInfoProto occurs a second time "
         "in its message (protobuf would merge the two; graft reads a message field once)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err = read_error(cases[i].bytes, cases[i].len, NULL);
        ck_assert_str_eq(err, cases[i].error);
        free(err);
    }
}
END_TEST

static void put_varint(StrBuf *sb, size_t n)
{
    do {
        strbuf_putc(sb, (char)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)));
        n >>= 7;
    } while (n);
}

/* A length-delimited field: key byte, length, payload. */
static void put_field(StrBuf *sb, char key, const char *payload, size_t len)
{
    strbuf_putc(sb, key);
    put_varint(sb, len);
    strbuf_append(sb, payload, len);
}

/* Graph {node {attribute {g: graph {...}}}}, levels deep: three messages
 * a level, the innermost (empty) graph and the model around them. */
static char *nested_graphs(int levels, size_t *len)
{
    StrBuf inner = {0};
    strbuf_puts(&inner, "");
    for (int i = 0; i < levels; i++) { /* graph(node(attribute(g = inner))) */
        StrBuf attr = {0}, node = {0}, graph = {0};
        put_field(&attr, 0x32, inner.data, inner.len);
        put_field(&node, 0x2a, attr.data, attr.len);
        put_field(&graph, 0x0a, node.data, node.len);
        strbuf_free(&attr);
        strbuf_free(&node);
        strbuf_free(&inner);
        inner = graph;
    }
    StrBuf model = {0};
    put_field(&model, 0x3a, inner.data, inner.len);
    strbuf_append(&model, OPSET, sizeof OPSET - 1); /* the nodes' default domain */
    strbuf_free(&inner);
    *len = model.len;
    return model.data;
}

/* bytes read and written back by graft under lim are bytes again. */
static void assert_round_trips(const char *bytes, size_t len, const graft_limits *lim)
{
    size_t out_len;
    char *out = round_trip(bytes, len, &out_len, stderr, lim);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(out_len, len);
    ck_assert(memcmp(out, bytes, len) == 0);
    free(out);
}

START_TEST(test_depth_limit)
{
    size_t len;
    char *bytes = nested_graphs(10, &len); /* 32 messages with the model */
    graft_limits lim = limit_defaults;
    lim.onnx_depth = 32;
    assert_round_trips(bytes, len, &lim);
    lim.onnx_depth = 31;
    char *err = read_error(bytes, len, &lim);
    ck_assert_str_eq(err, "m.onnx: error: byte 60: messages nested deeper than 31 levels, "
                          "in field 'g' (6) of onnx.AttributeProto [--limit onnx-depth]");
    free(err);
    free(bytes);
}
END_TEST

/* At the ceiling of onnx-depth, 1024 messages, protobuf-c's recursive
 * unpack, pack and free stay within the stack (under ASan too): 340
 * levels are 3 * 340 + 2 = 1022 messages, 341 levels 1025. */
START_TEST(test_depth_ceiling)
{
    size_t len;
    char *bytes = nested_graphs(340, &len);
    graft_limits lim = limit_defaults;
    lim.onnx_depth = 1024;
    assert_round_trips(bytes, len, &lim);
    free(bytes);
    bytes = nested_graphs(341, &len);
    char *err = read_error(bytes, len, &lim);
    ck_assert(strstr(err, "messages nested deeper than 1024 levels") != NULL);
    free(err);
    free(bytes);
}
END_TEST

static Suite *onnx_suite(void)
{
    Suite *s = suite_create("onnx");
    TCase *tc = tcase_create("onnx");
    tcase_add_test(tc, test_canonical_same_bytes);
    tcase_add_test(tc, test_field_order_canonical);
    tcase_add_test(tc, test_unknown_field_kept_at_end);
    tcase_add_test(tc, test_repeated_scalars_as_declared);
    tcase_add_test(tc, test_present_defaults_kept);
    tcase_add_test(tc, test_wire_faults);
    tcase_add_test(tc, test_depth_limit);
    tcase_add_test(tc, test_depth_ceiling);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(onnx_suite());
}
