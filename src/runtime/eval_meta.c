/* eval_meta.c - the values of meta[relay.Constant][i] from a module's
 * "#[metadata]" section (eval.h: eval_meta_constant).
 *
 * note [metadata values]: TVM prints large constants as meta[KIND][i] and
 * appends its object graph as JSON (SaveJSON): "root" is a Map node whose
 * "keys" name the kinds and whose "data" point to one Array node each;
 * the Array's "data" are the constants' node indices, in meta order; a
 * relay.Constant node's attrs.data is an index into "b64ndarrays", each a
 * base64 NDArray as NDArray::Save writes it (little-endian): magic
 * 0xDD5E40F096B4A13F, reserved u64, device (i32, i32), ndim (i32), dtype
 * (u8 code, u8 bits, u16 lanes), ndim i64 dims, i64 byte count, the data.
 * The JSON is read once into a small tree (nesting bounded); anything that
 * does not fit this layout is reported, never guessed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

enum { JSON_MAX_DEPTH = 32 };

typedef enum { J_OBJECT, J_ARRAY, J_STRING, J_NUMBER, J_OTHER } JsonKind;

typedef struct Json {
    JsonKind kind;
    const char *text;     /* STRING: the bytes between the quotes; NUMBER */
    size_t len;
    const char *end;      /* one past the value's last byte (its closing
                             bracket or quote): where meta_write.c adds */
    int n;                /* OBJECT, ARRAY: members */
    struct Json *kids;    /* their values */
    const char **keys;    /* OBJECT: member names (quotes stripped) */
    size_t *keylens;
} Json;

typedef struct JsonReader {
    const char *p, *end;
} JsonReader;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_space(JsonReader *r)
{
    while (r->p < r->end && is_space(*r->p))
        r->p++;
}

/* A string's body (escapes kept as written: the fields read here have
 * none); r->p ends after the closing quote. */
static bool read_string(JsonReader *r, const char **text, size_t *len)
{
    if (r->p >= r->end || *r->p != '"')
        return false;
    const char *start = ++r->p;
    while (r->p < r->end && *r->p != '"')
        r->p += *r->p == '\\' && r->p + 1 < r->end ? 2 : 1;
    if (r->p >= r->end)
        return false;
    *text = start;
    *len = (size_t)(r->p++ - start);
    return true;
}

static void json_free(Json *j)
{
    for (int i = 0; j->kids && i < j->n; i++)
        json_free(&j->kids[i]);
    free(j->kids);
    free(j->keys);
    free(j->keylens);
}

static bool read_value(JsonReader *r, Json *out, int depth);

/* The members of an object or array, after its opening bracket. */
static bool read_members(JsonReader *r, Json *out, char close, int depth)
{
    size_t cap = 0;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        out->end = ++r->p;
        return true;
    }
    for (;;) {
        const char *key = NULL;
        size_t keylen = 0;
        skip_space(r);
        if (close == '}') {
            if (!read_string(r, &key, &keylen))
                return false;
            skip_space(r);
            if (r->p >= r->end || *r->p++ != ':')
                return false;
        }
        size_t old = cap;
        out->kids = xgrow_items(out->kids, &cap, (size_t)out->n + 1, sizeof *out->kids);
        if (close == '}') {
            size_t keys_cap = old;
            out->keys = xgrow_items(out->keys, &keys_cap, cap, sizeof *out->keys);
            keys_cap = old;
            out->keylens = xgrow_items(out->keylens, &keys_cap, cap, sizeof *out->keylens);
            out->keys[out->n] = key;
            out->keylens[out->n] = keylen;
        }
        memset(&out->kids[out->n], 0, sizeof *out->kids);
        if (!read_value(r, &out->kids[out->n++], depth + 1))
            return false;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p >= r->end || *r->p++ != close)
            return false;
        out->end = r->p;
        return true;
    }
}

static bool read_value(JsonReader *r, Json *out, int depth)
{
    skip_space(r);
    if (depth > JSON_MAX_DEPTH || r->p >= r->end)
        return false;
    char c = *r->p;
    if (c == '{' || c == '[') {
        r->p++;
        out->kind = c == '{' ? J_OBJECT : J_ARRAY;
        return read_members(r, out, c == '{' ? '}' : ']', depth);
    }
    if (c == '"') {
        out->kind = J_STRING;
        bool ok = read_string(r, &out->text, &out->len);
        out->end = r->p;
        return ok;
    }
    out->kind = strchr("-0123456789", c) ? J_NUMBER : J_OTHER;
    out->text = r->p;
    while (r->p < r->end && !is_space(*r->p) && *r->p != ',' && *r->p != ']' && *r->p != '}')
        r->p++;
    out->len = (size_t)(r->p - out->text);
    out->end = r->p;
    return out->len > 0;
}

static const Json *member(const Json *j, const char *key)
{
    size_t len = strlen(key);
    for (int i = 0; j && j->kind == J_OBJECT && i < j->n; i++)
        if (j->keylens[i] == len && memcmp(j->keys[i], key, len) == 0)
            return &j->kids[i];
    return NULL;
}

static const Json *item(const Json *j, int64_t i)
{
    return j && j->kind == J_ARRAY && i >= 0 && i < j->n ? &j->kids[i] : NULL;
}

/* A number, or a string holding one (TVM writes attrs as strings). */
static int64_t integer(const Json *j)
{
    if (!j || (j->kind != J_NUMBER && j->kind != J_STRING) || j->len == 0 || j->len > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < j->len; i++) {
        if (j->text[i] < '0' || j->text[i] > '9')
            return -1;
        v = v * 10 + (j->text[i] - '0');
    }
    return v;
}

static bool is_string(const Json *j, const char *s)
{
    return j && j->kind == J_STRING && j->len == strlen(s) && memcmp(j->text, s, j->len) == 0;
}

/* The Array node listing the relay.Constant entries, or NULL. */
static const Json *constant_list(const Json *root)
{
    const Json *nodes = member(root, "nodes");
    const Json *map = item(nodes, integer(member(root, "root")));
    const Json *keys = member(map, "keys"), *data = member(map, "data");
    for (int k = 0; keys && k < keys->n; k++)
        if (is_string(item(keys, k), "relay.Constant"))
            return item(nodes, integer(item(data, k)));
    return NULL;
}

/* The base64 text of the index-th relay.Constant, or NULL. */
static const Json *constant_array(const Json *root, int64_t index)
{
    const Json *nodes = member(root, "nodes");
    const Json *node = item(nodes, integer(item(member(constant_list(root), "data"), index)));
    if (!is_string(member(node, "type_key"), "relay.Constant"))
        return NULL;
    int64_t at = integer(member(member(node, "attrs"), "data"));
    const Json *b64 = item(member(root, "b64ndarrays"), at);
    return b64 && b64->kind == J_STRING ? b64 : NULL;
}

/* ---- base64 and NDArray ---- */

static int b64_digit(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes text into a new buffer; NULL on a byte that is not base64. */
static unsigned char *b64_decode(const char *text, size_t len, size_t *out_len)
{
    unsigned char *out = xmalloc(len / 4 * 3 + 3);
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && text[i] != '='; i++) {
        int d = b64_digit(text[i]);
        if (d < 0) {
            free(out);
            return NULL;
        }
        acc = acc << 6 | (uint32_t)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    *out_len = n;
    return out;
}

/* The eval dtype of a DLDataType (code, bits), or NULL. */
static const char *dl_dtype(unsigned code, unsigned bits)
{
    static const char *const names[][4] = {/* 8, 16, 32, 64 bits */
        {"int8", "int16", "int32", "int64"},
        {"uint8", "uint16", "uint32", "uint64"},
        {NULL, "float16", "float32", "float64"}};
    if (code == 1 && bits == 1)
        return eval_dtype("bool");
    if (code == 4 && bits == 16)
        return eval_dtype("bfloat16");
    int b = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
    return code <= 2 && b >= 0 && names[code][b] ? eval_dtype(names[code][b]) : NULL;
}

static const char *decode_ndarray(const unsigned char *b, size_t n, Tensor *out)
{
    if (n < 28 || eval_le_uint(b, 8) != 0xDD5E40F096B4A13Full)
        return "not an NDArray";
    int64_t ndim = (int32_t)eval_le_uint(b + 24, 4);
    if (ndim < 0 || ndim > EVAL_MAX_RANK || n < 32 + 8 * (size_t)ndim + 8)
        return "bad rank";
    unsigned code = b[28], bits = b[29], lanes = (unsigned)eval_le_uint(b + 30, 2);
    const char *dtype = dl_dtype(code, bits);
    if (!dtype || lanes != 1)
        return "dtype not evaluated";
    int64_t dims[EVAL_MAX_RANK];
    uint64_t count = 1;
    for (int i = 0; i < ndim; i++) {
        dims[i] = (int64_t)eval_le_uint(b + 32 + 8 * i, 8);
        if (dims[i] < 0 || (dims[i] && count > UINT64_MAX / (uint64_t)dims[i]))
            return "bad shape";
        count *= (uint64_t)dims[i];
    }
    const unsigned char *data = b + 32 + 8 * ndim;
    int bytes = (int)(bits + 7) / 8;
    uint64_t size = eval_le_uint(data, 8);
    if (size / (uint64_t)bytes != count || size > n - (size_t)(data + 8 - b))
        return "data size does not match the shape";
    *out = tensor_new(dtype, (int)ndim, dims);
    eval_raw_elements(out->data, out->size, data + 8, dtype, bytes);
    return NULL;
}

struct EvalMeta {
    const char *text; /* the section, as given */
    Json root;       /* the parsed section */
    const char *why; /* why it could not be read, or NULL */
};

EvalMeta *eval_meta_new(const char *metadata)
{
    EvalMeta *m = xcalloc(1, sizeof *m);
    m->text = metadata;
    const char *json = metadata ? strchr(metadata, '{') : NULL;
    JsonReader r = {json, json ? json + strlen(json) : NULL};
    if (!json)
        m->why = "the module has no metadata section";
    else if (!read_value(&r, &m->root, 0))
        m->why = "its metadata section is not JSON as TVM writes it";
    return m;
}

void eval_meta_free(EvalMeta *m)
{
    if (!m)
        return;
    json_free(&m->root);
    free(m);
}

const char *eval_meta_constant(const EvalMeta *m, int64_t index, Tensor *out)
{
    if (m->why)
        return m->why;
    const Json *b64 = constant_array(&m->root, index);
    size_t len;
    unsigned char *bytes = b64 ? b64_decode(b64->text, b64->len, &len) : NULL;
    const char *why = !b64     ? "the metadata section holds no value for it"
                      : !bytes ? "its value is not base64"
                               : decode_ndarray(bytes, len, out);
    free(bytes);
    return why;
}

/* Where a new value of array j goes: after its last, or, when it has
 * none, after its '['. */
static size_t add_at(const EvalMeta *m, const Json *j)
{
    if (j->n)
        return (size_t)(j->kids[j->n - 1].end - m->text);
    const char *open = j->end - 1;
    while (*open != '[')
        open--;
    return (size_t)(open + 1 - m->text);
}

const char *eval_meta_layout(const EvalMeta *m, EvalMetaLayout *out)
{
    if (m->why)
        return m->why;
    const Json *list = member(constant_list(&m->root), "data");
    const Json *nodes = member(&m->root, "nodes");
    const Json *arrays = member(&m->root, "b64ndarrays");
    if (!list || list->kind != J_ARRAY || list->n == 0)
        return "its metadata section has no list of relay.Constant entries";
    if (!nodes || nodes->kind != J_ARRAY || !arrays || arrays->kind != J_ARRAY)
        return "its metadata section is not JSON as TVM writes it";
    out->nconstants = list->n;
    out->nnodes = nodes->n;
    out->narrays = arrays->n;
    out->list_at = (size_t)(list->kids[list->n - 1].end - m->text);
    out->nodes_at = add_at(m, nodes);
    out->arrays_at = add_at(m, arrays);
    return NULL;
}
