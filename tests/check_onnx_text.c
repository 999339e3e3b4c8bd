/* check_onnx_text.c - ONNX's text syntax (note [onnx text] in
 * src/onnx/onnx_text.h): the printer's numbers (note [shortest numbers]
 * in onnx_text_print_data.c) and raw data that comes back byte for byte,
 * as elements or as hex. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dtype.h"
#include "onnx_model.h"
#include "onnx_text.h"
#include "onnx_text_impl.h"
#include "check_main.h"

/* What text_print_float prints for v. */
static char *float_text(float v)
{
    char *text = NULL;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    TextPrinter p = {out, 0};
    text_print_float(&p, v);
    fclose(out);
    return text;
}

static const struct {
    float value;
    const char *text;
} floats[] = {
    {0.1f, "0.1"}, {10.0f, "10"}, {1e10f, "1e+10"}, {123456.0f, "123456"},
    {1e-5f, "1e-05"}, {-0.0f, "-0"}, {16777216.0f, "16777216"},
    {3.4028235e38f, "3.4028235e+38"}, {1.17549435e-38f, "1.1754944e-38"},
    {1.4e-45f, "1e-45"}, {0.3f, "0.3"}, {-2.5f, "-2.5"}, {100000000.0f, "1e+08"},
};

START_TEST(test_float_shortest)
{
    char *text = float_text(floats[_i].value);
    ck_assert_str_eq(text, floats[_i].text);
    float back = strtof(text, NULL);
    ck_assert_mem_eq(&back, &floats[_i].value, sizeof back); /* bits, -0 too */
    free(text);
}
END_TEST

START_TEST(test_float_special)
{
    const float values[] = {NAN, -NAN, INFINITY, -INFINITY};
    const char *texts[] = {"nan", "-nan", "inf", "-inf"};
    for (int i = 0; i < 4; i++) {
        char *text = float_text(values[i]);
        ck_assert_str_eq(text, texts[i]);
        free(text);
    }
}
END_TEST

/* The model in text, read; NULL (and the diagnostics in *errs) when it
 * does not read. */
static Onnx__ModelProto *read_text(const char *text, char **errs)
{
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    size_t len;
    FILE *out = open_memstream(errs, &len);
    graft_diag *d = diag_new(out);
    Onnx__ModelProto *m = onnx_text_read(src, NULL, d);
    diag_free(d);
    fclose(out);
    source_free(src);
    return m;
}

static char *print_text(const Onnx__ModelProto *m)
{
    char *text = NULL;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ck_assert(onnx_text_print(m, out));
    fclose(out);
    return text;
}

#define MODEL(inits) "<ir_version: 8, opset_import: [\"\" : 17]>\n" \
    "g (float[2] x) => (float[2] y) <" inits "> {\n  y = Identity (x)\n}\n"

/* Raw data whose elements would not give its bytes back (a NaN with a
 * payload) is printed as hex and read back byte for byte; raw data whose
 * elements do is printed as elements. */
START_TEST(test_raw_data_round_trip)
{
    char *errs = NULL;
    Onnx__ModelProto *m = read_text(MODEL("float[2] w = raw {\"0100c07f0000803f\"}, "
                                          "uint8[3] b = raw {\"00ff7f\"}"), &errs);
    ck_assert_msg(m != NULL, "%s", errs);
    const Onnx__TensorProto *w = m->graph->initializer[0];
    ck_assert(w->has_raw_data);
    ck_assert_uint_eq(w->raw_data.len, 8);
    ck_assert_mem_eq(w->raw_data.data, "\x01\x00\xc0\x7f\x00\x00\x80\x3f", 8);
    char *text = print_text(m);
    ck_assert_ptr_nonnull(strstr(text, "float[2] w = raw {\"0100c07f0000803f\"}"));
    ck_assert_ptr_nonnull(strstr(text, "uint8[3] b = raw {0, 255, 127}"));
    free(errs);
    errs = NULL;
    Onnx__ModelProto *again = read_text(text, &errs);
    ck_assert_msg(again != NULL, "%s", errs);
    ck_assert_mem_eq(again->graph->initializer[0]->raw_data.data, w->raw_data.data, 8);
    ck_assert_mem_eq(again->graph->initializer[1]->raw_data.data, "\x00\xff\x7f", 3);
    onnx_model_free(again);
    onnx_model_free(m);
    free(text);
    free(errs);
}
END_TEST

/* Elements without raw go to the field of their dtype, as onnx.parser
 * puts them; int64's extremes and uint64's largest read exactly. */
START_TEST(test_typed_fields)
{
    char *errs = NULL;
    Onnx__ModelProto *m = read_text(MODEL("int64[2] i = {-9223372036854775808, "
                                          "9223372036854775807}, uint64[1] u = "
                                          "{18446744073709551615}, float16[1] h = {15360}"),
                                    &errs);
    ck_assert_msg(m != NULL, "%s", errs);
    const Onnx__GraphProto *g = m->graph;
    ck_assert_uint_eq(g->initializer[0]->n_int64_data, 2);
    ck_assert(g->initializer[0]->int64_data[0] == INT64_MIN);
    ck_assert(g->initializer[0]->int64_data[1] == INT64_MAX);
    ck_assert(g->initializer[1]->uint64_data[0] == UINT64_MAX);
    ck_assert_int_eq(g->initializer[2]->int32_data[0], 15360);
    ck_assert(!g->initializer[0]->has_raw_data);
    onnx_model_free(m);
    free(errs);
}
END_TEST

/* note [lowercase words]: every element type's spelling starts with one of
 * the ten letters, and is reserved, as are the other words; an op type that
 * starts with a capital is not, but for inf, nan and infinity in any case. */
START_TEST(test_reserved_words)
{
    for (int d = DTYPE_UNDEFINED + 1; d < DTYPE_COUNT; d++) {
        const char *word = dtype_onnx_text_name((DType)d);
        ck_assert_msg(memchr("bcdfimorsu", word[0], 10), "%s", word);
        ck_assert_msg(text_is_reserved(word, strlen(word)), "%s", word);
    }
    static const char *const words[] = {"seq", "map", "optional", "sparse_tensor", "raw",
                                        "inf", "INF", "NaN", "Infinity", "iNfInItY"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        ck_assert_msg(text_is_reserved(words[i], strlen(words[i])), "%s", words[i]);
    static const char *const names[] = {"Conv", "Float", "Seq", "Raw", "floats", "x", "Info",
                                        "t0", "input", ""};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        ck_assert_msg(!text_is_reserved(names[i], strlen(names[i])), "%s", names[i]);
}
END_TEST

static Suite *onnx_text_suite(void)
{
    Suite *s = suite_create("onnx_text");
    TCase *tc = tcase_create("text");
    tcase_add_loop_test(tc, test_float_shortest, 0, (int)(sizeof floats / sizeof *floats));
    tcase_add_test(tc, test_float_special);
    tcase_add_test(tc, test_raw_data_round_trip);
    tcase_add_test(tc, test_typed_fields);
    tcase_add_test(tc, test_reserved_words);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(onnx_text_suite());
}
