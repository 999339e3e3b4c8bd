/* onnx_text_build_data.c - literals and tensors of ONNX's text syntax
 * made into protobuf-c structs (note [text arena] in onnx_text_build.h);
 * attributes are onnx_text_build_attr.c's. */
#include "onnx_text_build.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_text_impl.h"

/* The literal's bytes, without its quotes and escapes for a string. */
char *text_lit_text(OnnxTextParser *ps, const TextLit *lit, size_t *len)
{
    const char *s = ps->src->text + lit->tok.off;
    size_t n = lit->tok.len;
    if (lit->kind != LIT_STRING) {
        *len = n;
        return arena_strndup(ps->arena, s, n);
    }
    char *out = arena_alloc(ps->arena, n);
    size_t k = 0;
    for (size_t i = 1; i + 1 < n; i++)
        out[k++] = s[i] == '\\' ? s[++i] : s[i];
    out[k] = '\0';
    *len = k;
    return out;
}

static const char *lit_kind_name(TextLitKind kind)
{
    return kind == LIT_INT ? "an integer" : kind == LIT_STRING ? "a string" : "a number";
}

/* The integer lit, in [min, max] (a '-' applied); false after an error. */
bool text_lit_int(OnnxTextParser *ps, const TextLit *lit, int64_t min, uint64_t max,
                  const char *what, int64_t *out)
{
    size_t len;
    char *text = text_lit_text(ps, lit, &len);
    if (lit->kind != LIT_INT) {
        diag_error(ps->d, ps->src, lit->where, "%s needs an integer, not %s", what,
                   lit_kind_name(lit->kind));
        return false;
    }
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    bool fits = errno == 0 && (lit->negative ? v <= (unsigned long long)-(min + 1) + 1 : v <= max);
    if (!fits) {
        diag_error(ps->d, ps->src, lit->where, "%s%s is out of range for %s",
                   lit->negative ? "-" : "", text, what);
        return false;
    }
    *out = lit->negative ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* The number lit as a double and as a float (its text read as each, so
 * that -0 and the nearest float are kept); false after an error. */
static bool lit_real(OnnxTextParser *ps, const TextLit *lit, const char *what, bool single,
                     double *out)
{
    size_t len;
    char *text = text_lit_text(ps, lit, &len);
    if (lit->kind == LIT_STRING) {
        diag_error(ps->d, ps->src, lit->where, "%s needs a number, not a string", what);
        return false;
    }
    double v;
    if (lit->kind == LIT_WORD)
        v = (text[0] == 'n' || text[0] == 'N') ? NAN : INFINITY;
    else
        v = single ? (double)strtof(text, NULL) : strtod(text, NULL);
    if (lit->kind != LIT_WORD && isinf(v)) {
        diag_error(ps->d, ps->src, lit->where, "%s%s is out of range for %s",
                   lit->negative ? "-" : "", text, what);
        return false;
    }
    *out = lit->negative ? -v : v;
    return true;
}

bool text_lit_float(OnnxTextParser *ps, const TextLit *lit, const char *what, float *out)
{
    double v;
    if (!lit_real(ps, lit, what, true, &v))
        return false;
    *out = (float)v;
    return true;
}

/* The range of an integer element of dtype d, as written in the text
 * (float16 and bfloat16 as their 16 bits, as onnx.printer writes them);
 * false for a dtype whose elements are no integers. */
static bool int_range(DType d, int64_t *min, uint64_t *max)
{
    const DTypeInfo *info = dtype_info(d);
    if (!info || info->size == 0 || d == DTYPE_FLOAT32 || d == DTYPE_FLOAT64 ||
        d == DTYPE_COMPLEX64 || d == DTYPE_COMPLEX128)
        return false;
    unsigned bits = 8u * info->size;
    bool is_signed = info->is_signed && !info->is_float;
    *min = is_signed ? -(int64_t)(((uint64_t)1 << (bits - 1)) - 1) - 1 : 0;
    *max = is_signed ? ((uint64_t)1 << (bits - 1)) - 1 :
           bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    return true;
}

/* What a message calls the tensor: "tensor 'w'" or "the tensor". */
static const char *tensor_what(OnnxTextParser *ps, const char *name)
{
    if (!name || !name[0])
        return "the tensor";
    size_t n = strlen(name) + 16;
    char *s = arena_alloc(ps->arena, n);
    snprintf(s, n, "tensor '%s'", name);
    return s;
}

static void store_le(uint8_t *b, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++, v >>= 8)
        b[i] = (uint8_t)v;
}

/* One element lit of dtype d at b (raw data, little-endian). */
static bool raw_element(OnnxTextParser *ps, DType d, const TextLit *lit, uint8_t *b)
{
    int64_t min, i;
    uint64_t max;
    if (int_range(d, &min, &max)) {
        if (!text_lit_int(ps, lit, min, max, dtype_onnx_text_name(d), &i))
            return false;
        store_le(b, (uint64_t)i, dtype_size(d));
        return true;
    }
    double v;
    bool single = d == DTYPE_FLOAT32 || d == DTYPE_COMPLEX64;
    if (!lit_real(ps, lit, single ? "float" : "double", single, &v))
        return false;
    if (single) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        store_le(b, u, 4);
    } else {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        store_le(b, u, 8);
    }
    return true;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
           c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* raw {"HEX"}: the bytes as hex digits, two a byte. */
static bool fill_hex(OnnxTextParser *ps, Onnx__TensorProto *t, const TextLit *lit)
{
    size_t len;
    char *hex = text_lit_text(ps, lit, &len);
    uint8_t *bytes = arena_alloc(ps->arena, len / 2 + 1);
    for (size_t i = 0; i < len; i += 2) {
        int hi = hex_digit(hex[i]), lo = i + 1 < len ? hex_digit(hex[i + 1]) : -1;
        if (hi < 0 || lo < 0) {
            diag_error(ps->d, ps->src, lit->where, "raw data as a string is hex digits, two "
                       "a byte");
            return false;
        }
        bytes[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    t->has_raw_data = true;
    t->raw_data = (ProtobufCBinaryData){len / 2, bytes};
    return true;
}

/* raw {ELEMENTS}: little-endian bytes in raw_data. */
static bool fill_raw(OnnxTextParser *ps, Onnx__TensorProto *t, const TextList *items)
{
    DType d = (DType)t->data_type;
    if (items->n == 1 && ((TextLit *)items->items[0])->kind == LIT_STRING)
        return fill_hex(ps, t, items->items[0]);
    size_t part = d == DTYPE_COMPLEX64 ? 4 : d == DTYPE_COMPLEX128 ? 8 : dtype_size(d);
    DType elem = d == DTYPE_COMPLEX64 ? DTYPE_FLOAT32 : d == DTYPE_COMPLEX128 ? DTYPE_FLOAT64 : d;
    uint8_t *bytes = arena_array(ps->arena, items->n ? items->n : 1, part ? part : 1);
    for (size_t i = 0; i < items->n; i++)
        if (!raw_element(ps, elem, items->items[i], bytes + i * part))
            return false;
    t->has_raw_data = true;
    t->raw_data = (ProtobufCBinaryData){items->n * part, bytes};
    return true;
}

/* One element lit into the repeated field of t's dtype, at index i. */
static bool typed_element(OnnxTextParser *ps, Onnx__TensorProto *t, const TextLit *lit,
                          size_t i)
{
    DType d = (DType)t->data_type;
    int64_t min, v;
    uint64_t max;
    double real;
    switch (text_tensor_field(d)) {
    case TEXT_FIELD_INT32:
    case TEXT_FIELD_INT64:
    case TEXT_FIELD_UINT64:
        int_range(d, &min, &max);
        if (!text_lit_int(ps, lit, min, max, dtype_onnx_text_name(d), &v))
            return false;
        if (t->int32_data)
            t->int32_data[i] = (int32_t)v;
        else if (t->int64_data)
            t->int64_data[i] = v;
        else
            t->uint64_data[i] = (uint64_t)v;
        return true;
    case TEXT_FIELD_FLOAT:
        return text_lit_float(ps, lit, "float", &t->float_data[i]);
    case TEXT_FIELD_DOUBLE:
        if (!lit_real(ps, lit, "double", false, &real))
            return false;
        t->double_data[i] = real;
        return true;
    default:
        if (lit->kind != LIT_STRING) {
            diag_error(ps->d, ps->src, lit->where, "a string tensor's elements are strings");
            return false;
        }
        size_t len;
        char *s = text_lit_text(ps, lit, &len);
        t->string_data[i] = (ProtobufCBinaryData){len, (uint8_t *)s};
        return true;
    }
}

/* {ELEMENTS}: the repeated field of the tensor's dtype (onnx.proto says
 * which; onnx.parser fills the same). */
static bool fill_typed(OnnxTextParser *ps, Onnx__TensorProto *t, const TextList *items)
{
    size_t n = items->n;
    switch (text_tensor_field(t->data_type)) {
    case TEXT_FIELD_INT32:
        t->int32_data = arena_array(ps->arena, n, sizeof *t->int32_data);
        t->n_int32_data = n;
        break;
    case TEXT_FIELD_INT64:
        t->int64_data = arena_array(ps->arena, n, sizeof *t->int64_data);
        t->n_int64_data = n;
        break;
    case TEXT_FIELD_UINT64:
        t->uint64_data = arena_array(ps->arena, n, sizeof *t->uint64_data);
        t->n_uint64_data = n;
        break;
    case TEXT_FIELD_FLOAT:
        t->float_data = arena_array(ps->arena, n, sizeof *t->float_data);
        t->n_float_data = n;
        break;
    case TEXT_FIELD_DOUBLE:
        t->double_data = arena_array(ps->arena, n, sizeof *t->double_data);
        t->n_double_data = n;
        break;
    default:
        t->string_data = arena_array(ps->arena, n, sizeof *t->string_data);
        t->n_string_data = n;
        break;
    }
    for (size_t i = 0; i < n; i++)
        if (!typed_element(ps, t, items->items[i], i))
            return false;
    return true;
}

/* = [KEY: VALUE, ...]: external data (location, offset, length, ...). */
static bool fill_external(OnnxTextParser *ps, Onnx__TensorProto *t, const TextList *items)
{
    t->n_external_data = items->n;
    t->external_data = arena_array(ps->arena, items->n, sizeof *t->external_data);
    for (size_t i = 0; i < items->n; i++) {
        const TextEntry *e = items->items[i];
        if (e->is_list || e->value.kind != LIT_STRING) {
            diag_error(ps->d, ps->src, e->key.where, "external data's '%s' needs a string",
                       e->key.s);
            return false;
        }
        Onnx__StringStringEntryProto *kv = arena_alloc(ps->arena, sizeof *kv);
        onnx__string_string_entry_proto__init(kv);
        size_t len;
        kv->key = e->key.s;
        kv->value = text_lit_text(ps, &e->value, &len);
        t->external_data[i] = kv;
    }
    t->has_data_location = true;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    return true;
}

/* The tensor's dims from type, which must be a tensor type whose shape
 * has a known rank and numbers for dimensions; its element count in
 * *count (two numbers an element for complex dtypes). */
static bool tensor_dims(OnnxTextParser *ps, Onnx__TensorProto *t, const Onnx__TypeProto *type,
                        SrcRange type_at, size_t *count)
{
    if (type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
        diag_error(ps->d, ps->src, type_at, "a tensor's value needs a tensor type");
        return false;
    }
    const Onnx__TensorShapeProto *shape = type->tensor_type->shape;
    if (!shape) {
        diag_error(ps->d, ps->src, type_at, "a tensor's value needs its shape ('[]' is a "
                   "shape of unknown rank)");
        return false;
    }
    t->has_data_type = true;
    t->data_type = type->tensor_type->elem_type;
    t->n_dims = shape->n_dim;
    t->dims = arena_array(ps->arena, shape->n_dim, sizeof *t->dims);
    uint64_t n = 1;
    for (size_t i = 0; i < shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dim = shape->dim[i];
        if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
            dim->dim_value < 0) {
            diag_error(ps->d, ps->src, type_at, "a tensor's value needs every dimension "
                       "a number of 0 or more (dimension %zu is not)", i + 1);
            return false;
        }
        t->dims[i] = dim->dim_value;
        n = n && (uint64_t)dim->dim_value > UINT64_MAX / n ? UINT64_MAX :
            n * (uint64_t)dim->dim_value;
    }
    bool complex = t->data_type == DTYPE_COMPLEX64 || t->data_type == DTYPE_COMPLEX128;
    *count = n > SIZE_MAX / 2 ? SIZE_MAX : (size_t)(complex ? 2 * n : n);
    return true;
}

/* Whether the number of elements written is the shape's (none at all is
 * a tensor without data, as onnx.printer writes one). */
static bool count_ok(OnnxTextParser *ps, const TextData *data, const char *what, size_t count)
{
    size_t n = data->items.n;
    bool hex = data->kind == DATA_RAW && n == 1 &&
               ((TextLit *)data->items.items[0])->kind == LIT_STRING;
    if (n == 0 || hex || n == count)
        return true;
    diag_error(ps->d, ps->src, data->where, "%s has %zu %s, but its shape holds %zu",
               what, n, n == 1 ? "element" : "elements", count);
    return false;
}

static Onnx__TensorProto *make_tensor(OnnxTextParser *ps, const Onnx__TypeProto *type,
                                      SrcRange type_at, char *name, const TextData *data)
{
    Onnx__TensorProto *t = arena_alloc(ps->arena, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = name;
    size_t count;
    if (!tensor_dims(ps, t, type, type_at, &count))
        return NULL;
    const char *what = tensor_what(ps, name);
    if (data->kind == DATA_EXTERNAL)
        return fill_external(ps, t, &data->items) ? t : NULL;
    if (!count_ok(ps, data, what, count))
        return NULL;
    if (data->kind == DATA_RAW && t->data_type == DTYPE_STRING) {
        diag_error(ps->d, ps->src, data->where, "%s holds strings, which have no raw data",
                   what);
        return NULL;
    }
    bool ok = data->kind == DATA_RAW ? fill_raw(ps, t, &data->items) :
              fill_typed(ps, t, &data->items);
    return ok ? t : NULL;
}

TextData *text_data(OnnxTextParser *ps, TextDataKind kind, TextList items, SrcRange where)
{
    TextData *data = arena_alloc(ps->arena, sizeof *data);
    *data = (TextData){kind, items, where};
    return data;
}

bool text_value_init(OnnxTextParser *ps, TextValue *v, const TextData *data)
{
    if (!v->info->type) {
        diag_error(ps->d, ps->src, v->where, "'%s' has a value, so it needs a type",
                   v->info->name);
        return false;
    }
    v->init = make_tensor(ps, v->info->type, v->where, v->info->name, data);
    return v->init != NULL;
}

TextSingle *text_single(OnnxTextParser *ps, TextSingleKind kind, void *value, SrcRange where)
{
    TextSingle *s = arena_alloc(ps->arena, sizeof *s);
    *s = (TextSingle){kind, value, where};
    return s;
}

TextSingle *text_single_tensor(OnnxTextParser *ps, Onnx__TypeProto *type, SrcRange type_at,
                               TextName *name, const TextData *data)
{
    Onnx__TensorProto *t = make_tensor(ps, type, type_at, name ? name->s : NULL, data);
    return t ? text_single(ps, SINGLE_TENSOR, t, type_at) : NULL;
}

TextAvalue *text_avalue(OnnxTextParser *ps, TextSingle *single, const TextList *list,
                        TextName *ref, SrcRange where)
{
    TextAvalue *v = arena_alloc(ps->arena, sizeof *v);
    *v = (TextAvalue){single, list != NULL, list ? *list : (TextList){0}, ref, where};
    return v;
}

/* The list kind of an element kind (INT -> INTS) and back; 0 for none. */
