/* onnx_text_names.c - the words of ONNX's text syntax, shared by its
 * printer and its reader (note [onnx text] in onnx_text.h). */
#include "onnx_text.h"
#include "onnx_text_impl.h"

#include <string.h>
#include <strings.h>

#include "dtype.h"

bool text_is_identifier(const char *s, size_t len)
{
    if (len == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
                      s[0] == '_'))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

static bool is_word(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

/* note [lowercase words]: but inf, nan and infinity, read in any case,
 * every word of the syntax (seq, raw, the element types) is lowercase and
 * starts with one of ten letters, so a name that starts otherwise (every
 * op type: Conv; most value names: x, t0) skips their tables, which cost
 * the printer about 1,000 instructions a node (the op type and each value
 * name are asked).  The slow path is the whole check; test_reserved_words
 * in tests/check_onnx_text.c shows the two agree on every word. */
bool text_is_reserved(const char *s, size_t len)
{
    static const char *const words[] = {"seq", "map", "optional", "sparse_tensor", "raw"};
    if ((len == 3 && (strncasecmp(s, "inf", 3) == 0 || strncasecmp(s, "nan", 3) == 0)) ||
        (len == 8 && strncasecmp(s, "infinity", 8) == 0))
        return true;
    if (len == 0 || !memchr("bcdfimorsu", s[0], 10))
        return false;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (is_word(s, len, words[i]))
            return true;
    return dtype_from_onnx_text_name(s, len) != DTYPE_UNDEFINED;
}

/* AttributeTypeNameMap of onnx/defs/parser.h, by onnx.proto's numbers. */
static const char *const attr_kinds[] = {
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT] = "float",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT] = "int",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING] = "string",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR] = "tensor",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH] = "graph",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR] = "sparse_tensor",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO] = "type_proto",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS] = "floats",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS] = "ints",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS] = "strings",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS] = "tensors",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS] = "graphs",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS] = "sparse_tensors",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS] = "type_protos",
};

const char *text_attr_kind_name(Onnx__AttributeProto__AttributeType kind)
{
    if ((int)kind <= 0 || (size_t)kind >= sizeof attr_kinds / sizeof *attr_kinds)
        return NULL;
    return attr_kinds[kind];
}

Onnx__AttributeProto__AttributeType text_attr_kind_from_name(const char *s, size_t len)
{
    for (size_t k = 1; k < sizeof attr_kinds / sizeof *attr_kinds; k++)
        if (attr_kinds[k] && is_word(s, len, attr_kinds[k]))
            return (Onnx__AttributeProto__AttributeType)k;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

TextTensorField text_tensor_field(int32_t data_type)
{
    switch (data_type) {
    case DTYPE_INT8: case DTYPE_INT16: case DTYPE_INT32: case DTYPE_UINT8:
    case DTYPE_UINT16: case DTYPE_BOOL: case DTYPE_FLOAT16: case DTYPE_BFLOAT16:
        return TEXT_FIELD_INT32;
    case DTYPE_INT64:
        return TEXT_FIELD_INT64;
    case DTYPE_UINT32: case DTYPE_UINT64:
        return TEXT_FIELD_UINT64;
    case DTYPE_FLOAT32: case DTYPE_COMPLEX64:
        return TEXT_FIELD_FLOAT;
    case DTYPE_FLOAT64: case DTYPE_COMPLEX128:
        return TEXT_FIELD_DOUBLE;
    case DTYPE_STRING:
        return TEXT_FIELD_STRING;
    default:
        return TEXT_FIELD_NONE;
    }
}

/* Past layout and '#' comments. */
static const char *skip_layout(const char *p, const char *end)
{
    while (p < end) {
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        else if (*p == '#')
            while (p < end && *p != '\n')
                p++;
        else
            break;
    }
    return p;
}

/* Past an identifier at p; p itself when there is none. */
static const char *skip_identifier(const char *p, const char *end)
{
    const char *q = p;
    while (q < end && text_is_identifier(p, (size_t)(q - p + 1)))
        q++;
    return q;
}

bool onnx_text_looks_like(const char *text, size_t len)
{
    static const char *const keys[] = {"ir_version", "opset_import", "producer_name",
                                       "producer_version", "domain", "model_version",
                                       "doc_string", "metadata_props"};
    const char *end = text + len, *p = skip_layout(text, end);
    if (p < end && *p == '<') {
        p = skip_layout(p + 1, end);
        const char *key = p;
        p = skip_identifier(p, end);
        bool known = false;
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
            known |= is_word(key, (size_t)(p - key), keys[i]);
        p = skip_layout(p, end);
        return known && p < end && *p == ':';
    }
    const char *name = p;
    if (p < end && *p == '"') {
        for (p++; p < end && *p != '"'; p++)
            p += *p == '\\';
        p++;
    } else {
        p = skip_identifier(p, end);
    }
    p = p > name ? skip_layout(p, end) : p;
    return p > name && p < end && *p == '(';
}
