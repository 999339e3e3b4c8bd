/* eval_tensor.c - the evaluator's tensors and dtypes: rounding a value to
 * what a dtype can hold (note [reference evaluator] in eval.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

/* The dtypes graft evaluates: bits of the significand (floats, with the
 * implicit bit) or of the integer, and the exponent range of floats. */
typedef struct DtypeInfo {
    const char *name;
    bool is_float;
    bool is_signed;   /* integers */
    int bits;         /* integers: width; floats: significand bits */
    int min_exp;      /* floats: exponent of the least normal number */
    double max;       /* floats: the largest finite value */
} DtypeInfo;

static const DtypeInfo dtypes[] = {
    {"float64", true, true, 53, -1022, 1.7976931348623157e308},
    {"float32", true, true, 24, -126, 3.4028234663852886e38},
    {"float16", true, true, 11, -14, 65504.0},
    {"bfloat16", true, true, 8, -126, 3.3895313892515355e38},
    {"int64", false, true, 64, 0, 0},
    {"int32", false, true, 32, 0, 0},
    {"int16", false, true, 16, 0, 0},
    {"int8", false, true, 8, 0, 0},
    {"uint64", false, false, 64, 0, 0},
    {"uint32", false, false, 32, 0, 0},
    {"uint16", false, false, 16, 0, 0},
    {"uint8", false, false, 8, 0, 0},
    {"bool", false, false, 1, 0, 0},
};

static const DtypeInfo *dtype_info(const char *name)
{
    for (size_t i = 0; name && i < ARRAY_LEN(dtypes); i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return &dtypes[i];
    return NULL;
}

const char *eval_dtype(const char *name)
{
    const DtypeInfo *d = dtype_info(name);
    return d ? d->name : NULL;
}

bool eval_is_float(const char *dtype)
{
    const DtypeInfo *d = dtype_info(dtype);
    return d && d->is_float;
}

double eval_dtype_eps(const char *dtype)
{
    const DtypeInfo *d = dtype_info(dtype);
    return d && d->is_float ? ldexp(1.0, 1 - d->bits) : 0.0;
}

/* x rounded to a significand of bits bits, to nearest even, with the
 * subnormal spacing below 2^min_exp and overflow to infinity. */
static double round_float(double x, const DtypeInfo *d)
{
    if (!isfinite(x) || x == 0)
        return x;
    if (d->bits == 24)
        return (double)(float)x;
    int e;
    frexp(x, &e); /* x = m * 2^e, 0.5 <= |m| < 1 */
    int exp = e - 1 < d->min_exp ? d->min_exp : e - 1;
    double quantum = ldexp(1.0, exp - (d->bits - 1));
    double r = nearbyint(x / quantum) * quantum;
    if (fabs(r) > d->max)
        return r < 0 ? -INFINITY : INFINITY;
    return r;
}

/* x truncated toward zero and wrapped to an integer of d's width. */
static double round_int(double x, const DtypeInfo *d)
{
    if (d->bits == 1)
        return x != 0;
    if (!isfinite(x))
        return 0; /* undefined in C; TVM gives whatever the target does */
    double t = trunc(x);
    if (d->bits == 64)
        return t;
    double span = ldexp(1.0, d->bits);
    t = fmod(t, span);
    if (t < 0)
        t += span;
    if (d->is_signed && t >= span / 2)
        t -= span;
    return t;
}

double eval_round(double x, const char *dtype)
{
    const DtypeInfo *d = dtype_info(dtype);
    if (!d || (d->is_float && d->bits == 53))
        return x;
    return d->is_float ? round_float(x, d) : round_int(x, d);
}

uint64_t eval_le_uint(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* float16 bit patterns as doubles. */
static double half_value(uint64_t h)
{
    int exp = (int)(h >> 10 & 0x1f);
    double frac = (double)(h & 0x3ff);
    double v = exp == 0 ? frac * 0x1p-24 : exp == 31 ? (frac ? NAN : INFINITY)
                                          : (1 + frac / 1024) * ldexp(1, exp - 15);
    return h & 0x8000 ? -v : v;
}

double eval_raw_element(const unsigned char *p, const char *dtype, int bytes)
{
    uint64_t u = eval_le_uint(p, bytes);
    if (strcmp(dtype, "float32") == 0) {
        float f;
        uint32_t w = (uint32_t)u;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    if (strcmp(dtype, "float64") == 0) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    if (strcmp(dtype, "float16") == 0)
        return half_value(u);
    if (strcmp(dtype, "bfloat16") == 0) {
        float f;
        uint32_t w = (uint32_t)u << 16;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    if (strcmp(dtype, "bool") == 0)
        return u != 0;
    bool negative = dtype[0] == 'i' && (u >> (8 * bytes - 1) & 1);
    return negative ? -(double)((~u + 1) & (bytes < 8 ? (1ull << 8 * bytes) - 1 : ~0ull))
                    : (double)u;
}

void eval_raw_elements(double *out, size_t n, const unsigned char *p, const char *dtype,
                       int bytes)
{
    if (bytes == 4 && strcmp(dtype, "float32") == 0) {
        for (size_t i = 0; i < n; i++) {
            const unsigned char *q = p + 4 * i; /* one load, where eval_le_uint loops */
            uint32_t w = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                         (uint32_t)q[3] << 24;
            float f;
            memcpy(&f, &w, sizeof f);
            out[i] = f;
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = eval_raw_element(p + i * (size_t)bytes, dtype, bytes);
}

const Tensor *eval_const_tensor(Tensor *slot, const graft_node *n)
{
    size_t nbytes;
    const unsigned char *bytes = node_const_data(n, &nbytes);
    const graft_type *type = node_type(n);
    if (!bytes || !type || type->kind != TYPE_TENSOR || !eval_dtype(type->dtype) ||
        type->rank > EVAL_MAX_RANK)
        return NULL;
    tensor_free(slot);
    *slot = tensor_new(eval_dtype(type->dtype), type->rank, type->dims);
    if (slot->size == 0 || nbytes % slot->size)
        return slot->size == 0 && nbytes == 0 ? slot : NULL;
    int width = (int)(nbytes / slot->size);
    eval_raw_elements(slot->data, slot->size, bytes, slot->dtype, width);
    return slot;
}

void eval_round_array(double *data, size_t n, const char *dtype)
{
    const DtypeInfo *d = dtype_info(dtype);
    if (!d || (d->is_float && d->bits == 53))
        return;
    if (d->bits == 24 && d->is_float) { /* round_float's own float32 case, inf and NaN kept */
        for (size_t i = 0; i < n; i++)
            data[i] = (double)(float)data[i];
        return;
    }
    for (size_t i = 0; i < n; i++)
        data[i] = d->is_float ? round_float(data[i], d) : round_int(data[i], d);
}

Tensor tensor_new(const char *dtype, int rank, const int64_t *dims)
{
    Tensor t = {.dtype = dtype, .rank = rank, .size = 1};
    for (int i = 0; i < rank; i++) {
        t.dims[i] = dims[i];
        t.size *= (size_t)dims[i];
    }
    t.data = xcalloc(t.size ? t.size : 1, sizeof *t.data);
    return t;
}

void tensor_free(Tensor *t)
{
    free(t->data);
    t->data = NULL;
}

Tensor tensor_copy(const Tensor *t)
{
    Tensor c = tensor_new(t->dtype, t->rank, t->dims);
    if (t->size)
        memcpy(c.data, t->data, t->size * sizeof *t->data);
    return c;
}

void tensor_shape_text(const Tensor *t, StrBuf *out)
{
    strbuf_putc(out, '(');
    for (int i = 0; i < t->rank; i++)
        strbuf_printf(out, i ? ", %lld" : "%lld", (long long)t->dims[i]);
    strbuf_putc(out, ')');
}

void value_free(Value *v)
{
    if (v->nfields < 0) {
        tensor_free(&v->t);
        return;
    }
    for (int i = 0; i < v->nfields; i++)
        value_free(&v->fields[i]);
    free(v->fields);
    v->fields = NULL;
    v->nfields = 0; /* freeing twice is harmless */
}

Value value_copy(const Value *v)
{
    Value c = {.nfields = v->nfields};
    if (v->nfields < 0) {
        c.t = tensor_copy(&v->t);
        return c;
    }
    c.fields = xcalloc((size_t)v->nfields + 1, sizeof *c.fields);
    for (int i = 0; i < v->nfields; i++)
        c.fields[i] = value_copy(&v->fields[i]);
    return c;
}
