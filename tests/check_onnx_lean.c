/* check_onnx_lean.c - a model read lean (note [lean read] in
 * src/onnx/onnx_lean.h) is written as a model read whole is, byte for
 * byte, and is refused with the same messages: on every model of
 * tests/onnx/, of its bad inputs (wire faults and graph-check faults, the
 * lean lists' nodes described in messages) and of the fuzz corpus; and a
 * lean read keeps as structs only the elements it must. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_files.h"
#include "diag.h"
#include "onnx_model.h"
#include "check_main.h"

/* What one read gave: the written model (NULL: refused) and the messages. */
typedef struct Outcome {
    char *written, *messages;
    size_t written_len, messages_len;
    size_t kept, lean; /* the lean lists' elements kept as structs, and all */
} Outcome;

static void count_items(const OnnxLeanList *list, Outcome *o)
{
    for (size_t i = 0; i < list->n; i++)
        o->kept += list->items[i].msg != NULL;
    o->lean += list->n;
}

static Outcome read_and_write(const char *name, const uint8_t *bytes, size_t len, bool lean)
{
    Outcome o = {0};
    FILE *msgs = open_memstream(&o.messages, &o.messages_len);
    graft_diag *diag = diag_new(msgs);
    Source src = {.name = (char *)name, .text = malloc(len + 1), .len = len};
    memcpy(src.text, bytes, len);
    Onnx__ModelProto *m = lean ? onnx_model_read_lean(&src, NULL, diag) :
                                 onnx_model_read_taking(&src, NULL, diag);
    free(src.text); /* NULL: the model took it */
    if (m) {
        FILE *out = open_memstream(&o.written, &o.written_len);
        ck_assert(onnx_model_write_from(m, m, out));
        fclose(out);
        const OnnxLeanGraph *lg = onnx_model_lean(m);
        ck_assert(lean == (lg != NULL));
        for (size_t i = 0; lg && i < ONNX_LEAN_LISTS; i++)
            count_items(&lg->lists[i], &o);
        onnx_model_free(m);
    }
    diag_free(diag);
    fclose(msgs);
    return o;
}

typedef struct Tally {
    int read, refused;
    size_t kept, lean;
} Tally;

static bool compare_reads(const char *name, uint8_t *bytes, size_t len, void *ctx)
{
    Tally *t = ctx;
    Outcome whole = read_and_write(name, bytes, len, false);
    Outcome lean = read_and_write(name, bytes, len, true);
    ck_assert_msg(strcmp(whole.messages, lean.messages) == 0, "%s: '%s' against '%s'", name,
                  whole.messages, lean.messages);
    ck_assert_msg((whole.written == NULL) == (lean.written == NULL), "%s", name);
    if (whole.written) {
        ck_assert_uint_eq(whole.written_len, lean.written_len);
        ck_assert_msg(memcmp(whole.written, lean.written, whole.written_len) == 0, "%s", name);
        t->read++;
    } else {
        t->refused++;
    }
    t->kept += lean.kept;
    t->lean += lean.lean;
    free(whole.written);
    free(whole.messages);
    free(lean.written);
    free(lean.messages);
    return true;
}

START_TEST(test_corpus_models)
{
    Tally t = {0};
    ck_assert_int_ge(each_onnx_file("tests/onnx", compare_reads, &t), 18);
    /* every corpus model reads, and holds none of its lists' elements as
     * structs but the nodes holding a graph (if_subgraph's If) */
    ck_assert_int_eq(t.refused, 0);
    ck_assert_uint_eq(t.kept, 1);
    ck_assert_uint_ge(t.lean, 3997);
}
END_TEST

START_TEST(test_bad_models)
{
    Tally t = {0};
    ck_assert_int_ge(each_onnx_file("tests/onnx/bad", compare_reads, &t), 24);
    /* the graph-check faults among them described from lean lists */
    ck_assert_int_ge(t.refused, 20);
}
END_TEST

START_TEST(test_fuzz_corpus)
{
    Tally t = {0};
    ck_assert_int_ge(each_onnx_file("fuzz/corpus/onnx", compare_reads, &t), 12);
    ck_assert_int_ge(t.read, 5);
}
END_TEST

/* A node whose fields are out of field-number order (op_type before its
 * input and output) is not canonical: a lean read keeps it decoded, and
 * writes it in order, as a whole read does. */
START_TEST(test_noncanonical_node_kept)
{
    static const uint8_t model[] = {
        0x08, 0x08,                   /* ir_version 8 */
        0x3a, 0x1b,                   /* graph, 27 bytes */
        0x0a, 0x0c,                   /*   node, 12 bytes: */
        0x22, 0x04, 'R', 'e', 'l', 'u', /* op_type first */
        0x0a, 0x01, 'X', 0x12, 0x01, 'Y', /* input, output */
        0x12, 0x01, 'g',              /*   name */
        0x5a, 0x03, 0x0a, 0x01, 'X',  /*   input X */
        0x62, 0x03, 0x0a, 0x01, 'Y',  /*   output Y */
        0x42, 0x02, 0x10, 0x11,       /* opset_import: version 17 */
    };
    static const uint8_t written[] = {
        0x08, 0x08, 0x3a, 0x1b, 0x0a, 0x0c, 0x0a, 0x01, 'X', 0x12, 0x01, 'Y',
        0x22, 0x04, 'R', 'e', 'l', 'u', 0x12, 0x01, 'g', 0x5a, 0x03, 0x0a, 0x01, 'X',
        0x62, 0x03, 0x0a, 0x01, 'Y', 0x42, 0x02, 0x10, 0x11,
    };
    Tally t = {0};
    compare_reads("noncanonical.onnx", (uint8_t *)model, sizeof model, &t);
    ck_assert_int_eq(t.read, 1);
    ck_assert_uint_eq(t.lean, 1);
    ck_assert_uint_eq(t.kept, 1);
    Outcome lean = read_and_write("noncanonical.onnx", model, sizeof model, true);
    ck_assert_uint_eq(lean.written_len, sizeof written);
    ck_assert(memcmp(lean.written, written, sizeof written) == 0);
    free(lean.written);
    free(lean.messages);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("onnx_lean");
    TCase *tc = tcase_create("lean");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_corpus_models);
    tcase_add_test(tc, test_bad_models);
    tcase_add_test(tc, test_fuzz_corpus);
    tcase_add_test(tc, test_noncanonical_node_kept);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(suite());
}
