/* onnx_text_print_data.c - names, strings, numbers and tensors in ONNX's
 * text syntax (note [onnx text] in onnx_text.h). */
#include "onnx_text_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

void text_print_newline(TextPrinter *p)
{
    fputc('\n', p->out);
    for (int i = 0; i < p->depth; i++)
        fputs("  ", p->out);
}

void text_print_string(TextPrinter *p, const char *s, size_t len)
{
    fputc('"', p->out);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"' || s[i] == '\\')
            fputc('\\', p->out);
        fputc(s[i], p->out);
    }
    fputc('"', p->out);
}

void text_print_id(TextPrinter *p, const char *name)
{
    text_print_id_len(p, name ? name : "", name ? strlen(name) : 0);
}

void text_print_id_len(TextPrinter *p, const char *name, size_t len)
{
    if (text_is_identifier(name, len) && !text_is_reserved(name, len))
        fwrite(name, 1, len, p->out);
    else
        text_print_string(p, name, len);
}

/* note [shortest numbers]: a float is printed with the fewest significant
 * digits (1 to 9, 17 for a double) that read back to the same value, as
 * onnx.printer's std::to_chars does.  Digits that suffice stay sufficient
 * when more are added, so the fewest are found by bisection, in four
 * printf calls or so instead of nine. */
static bool digits_fit(char *buf, size_t size, int digits, double v, bool single)
{
    snprintf(buf, size, "%.*g", digits, v);
    return single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v;
}

/* inf, -inf, nan or -nan for v; false when v is finite. */
static bool print_special(TextPrinter *p, double v)
{
    if (isnan(v))
        fputs(signbit(v) ? "-nan" : "nan", p->out);
    else if (isinf(v))
        fputs(v < 0 ? "-inf" : "inf", p->out);
    else
        return false;
    return true;
}

/* The shorter of buf (the fewest digits, maybe as an exponent: "1e+01")
 * and the same value in fixed notation, which %g writes when it is given
 * the digits up to the decimal point ("10"); fixed on a tie. */
static void print_shorter(TextPrinter *p, char *buf, size_t size, double v)
{
    const char *e = strchr(buf, 'e');
    int exp = e ? atoi(e + 1) : -1;
    if (exp >= 0 && exp < 17) {
        char fixed[40];
        snprintf(fixed, sizeof fixed, "%.*g", exp + 1, v);
        if (strlen(fixed) <= strlen(buf))
            snprintf(buf, size, "%s", fixed);
    }
    fputs(buf, p->out);
}

/* v with the fewest digits that read back to it (note [shortest
 * numbers]), as a float's (single: v is one) or a double's. */
static void print_shortest(TextPrinter *p, double v, bool single)
{
    if (print_special(p, v))
        return;
    char buf[40];
    int lo = 1, hi = single ? 9 : 17; /* hi digits always suffice */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (digits_fit(buf, sizeof buf, mid, v, single))
            hi = mid;
        else
            lo = mid + 1;
    }
    digits_fit(buf, sizeof buf, lo, v, single);
    print_shorter(p, buf, sizeof buf, v);
}

void text_print_float(TextPrinter *p, float v)
{
    print_shortest(p, v, true);
}

void text_print_double(TextPrinter *p, double v)
{
    print_shortest(p, v, false);
}

/* The n bytes at b as a little-endian unsigned number (protobuf's and
 * raw_data's byte order, whatever the host's). */
static uint64_t load_le(const uint8_t *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | b[i];
    return v;
}

/* One element of raw data of dtype d at b. */
static void print_raw_element(TextPrinter *p, DType d, const uint8_t *b)
{
    size_t size = dtype_size(d);
    uint64_t bits = load_le(b, d == DTYPE_COMPLEX64 ? 4 : d == DTYPE_COMPLEX128 ? 8 : size);
    if (d == DTYPE_FLOAT32 || d == DTYPE_COMPLEX64) {
        float f;
        uint32_t u = (uint32_t)bits;
        memcpy(&f, &u, sizeof f);
        text_print_float(p, f);
    } else if (d == DTYPE_FLOAT64 || d == DTYPE_COMPLEX128) {
        double f;
        memcpy(&f, &bits, sizeof f);
        text_print_double(p, f);
    } else if (dtype_info(d)->is_signed && !dtype_info(d)->is_float) {
        int shift = 64 - 8 * (int)size; /* sign-extend */
        fprintf(p->out, "%" PRId64, (int64_t)(bits << shift) >> shift);
    } else {
        fprintf(p->out, "%" PRIu64, bits); /* unsigned, bool, float16 and bfloat16 bits */
    }
}

/* Whether a float's bits read back from its text: not a NaN other than
 * the two that "nan" and "-nan" read as. */
static bool float_bits_print(uint64_t bits, size_t size)
{
    if (size == 4) {
        uint32_t u = (uint32_t)bits;
        return (u & 0x7f800000u) != 0x7f800000u || (u & 0x7fffffu) == 0 ||
               (u & 0x7fffffffu) == 0x7fc00000u;
    }
    uint64_t mag = bits & 0x7fffffffffffffffu;
    return (bits & 0x7ff0000000000000u) != 0x7ff0000000000000u ||
           (bits & 0xfffffffffffffu) == 0 || mag == 0x7ff8000000000000u;
}

/* Whether raw data of dtype d prints as its elements and reads back to
 * the same bytes: a known dtype with a size, whole elements, and no NaN
 * with a payload. */
static bool raw_prints_as_elements(DType d, const ProtobufCBinaryData *raw)
{
    size_t size = dtype_size(d);
    if (size == 0 || raw->len % size != 0)
        return false;
    bool floats = d == DTYPE_FLOAT32 || d == DTYPE_FLOAT64 || d == DTYPE_COMPLEX64 ||
                  d == DTYPE_COMPLEX128;
    size_t part = d == DTYPE_COMPLEX64 ? 4 : d == DTYPE_COMPLEX128 ? 8 : size;
    for (size_t i = 0; floats && i < raw->len; i += part)
        if (!float_bits_print(load_le(raw->data + i, part), part))
            return false;
    return true;
}

/* raw {ELEMENTS} or raw {"HEX"} (note [onnx text]). */
static void print_raw(TextPrinter *p, DType d, const ProtobufCBinaryData *raw)
{
    fputs("raw {", p->out);
    if (raw_prints_as_elements(d, raw)) {
        size_t part = d == DTYPE_COMPLEX64 ? 4 : d == DTYPE_COMPLEX128 ? 8 : dtype_size(d);
        for (size_t i = 0; i < raw->len; i += part) {
            if (i)
                fputs(", ", p->out);
            print_raw_element(p, d == DTYPE_COMPLEX64 ? DTYPE_FLOAT32 :
                                 d == DTYPE_COMPLEX128 ? DTYPE_FLOAT64 : d, raw->data + i);
        }
    } else {
        fputc('"', p->out);
        for (size_t i = 0; i < raw->len; i++)
            fprintf(p->out, "%02x", raw->data[i]);
        fputc('"', p->out);
    }
    fputc('}', p->out);
}

/* {ELEMENTS} from the repeated field the tensor's dtype uses. */
static void print_typed(TextPrinter *p, const Onnx__TensorProto *t)
{
    fputc('{', p->out);
    TextTensorField field = text_tensor_field(t->data_type);
    size_t n = field == TEXT_FIELD_INT32 ? t->n_int32_data :
               field == TEXT_FIELD_INT64 ? t->n_int64_data :
               field == TEXT_FIELD_UINT64 ? t->n_uint64_data :
               field == TEXT_FIELD_FLOAT ? t->n_float_data :
               field == TEXT_FIELD_DOUBLE ? t->n_double_data :
               field == TEXT_FIELD_STRING ? t->n_string_data : 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", p->out);
        if (field == TEXT_FIELD_INT32)
            fprintf(p->out, "%" PRId32, t->int32_data[i]);
        else if (field == TEXT_FIELD_INT64)
            fprintf(p->out, "%" PRId64, t->int64_data[i]);
        else if (field == TEXT_FIELD_UINT64)
            fprintf(p->out, "%" PRIu64, t->uint64_data[i]);
        else if (field == TEXT_FIELD_FLOAT)
            text_print_float(p, t->float_data[i]);
        else if (field == TEXT_FIELD_DOUBLE)
            text_print_double(p, t->double_data[i]);
        else
            text_print_string(p, (const char *)t->string_data[i].data, t->string_data[i].len);
    }
    fputc('}', p->out);
}

/* [KEY: VALUE, ...]: external data's location and the rest. */
static void print_external(TextPrinter *p, const Onnx__TensorProto *t)
{
    fputc('[', p->out);
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (i)
            fputs(", ", p->out);
        text_print_string(p, e->key ? e->key : "", e->key ? strlen(e->key) : 0);
        fputs(": ", p->out);
        text_print_string(p, e->value ? e->value : "", e->value ? strlen(e->value) : 0);
    }
    fputc(']', p->out);
}

void text_print_tensor(TextPrinter *p, const Onnx__TensorProto *t, bool initializer)
{
    const char *dtype = dtype_onnx_text_name((DType)t->data_type);
    fputs(dtype ? dtype : "undefined", p->out);
    if (t->n_dims) {
        fputc('[', p->out);
        for (size_t i = 0; i < t->n_dims; i++)
            fprintf(p->out, i ? ", %" PRId64 : "%" PRId64, t->dims[i]);
        fputc(']', p->out);
    }
    if (t->name || initializer) {
        fputc(' ', p->out);
        text_print_id(p, t->name);
    }
    fputs(initializer || t->name ? " = " : " ", p->out);
    if (t->has_data_location &&
        t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        print_external(p, t);
    else if (t->has_raw_data)
        print_raw(p, (DType)t->data_type, &t->raw_data);
    else
        print_typed(p, t);
}
