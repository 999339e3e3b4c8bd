/* dtype.c - the table of dtypes (dtype.h). */
#include "dtype.h"

#include <math.h>
#include <string.h>


/* note [one dtype table]: every dtype's spellings, size and number format
 * in one table, indexed by ONNX's number.  Floats carry what rounding to
 * them needs: significand bits and the exponent range (IEEE binary16,
 * binary32 and binary64, and bfloat16, float32's exponent with 8 bits of
 * significand).  complex64 and complex128 are two floats each; graft
 * stores them but computes nothing with them. */
static const DTypeInfo dtypes[DTYPE_COUNT] = {
    [DTYPE_FLOAT32] = {"float32", "FLOAT", 4, true, true, 24, -126, 3.4028234663852886e38},
    [DTYPE_UINT8] = {"uint8", "UINT8", 1, false, false, 8, 0, 0},
    [DTYPE_INT8] = {"int8", "INT8", 1, false, true, 8, 0, 0},
    [DTYPE_UINT16] = {"uint16", "UINT16", 2, false, false, 16, 0, 0},
    [DTYPE_INT16] = {"int16", "INT16", 2, false, true, 16, 0, 0},
    [DTYPE_INT32] = {"int32", "INT32", 4, false, true, 32, 0, 0},
    [DTYPE_INT64] = {"int64", "INT64", 8, false, true, 64, 0, 0},
    [DTYPE_STRING] = {"string", "STRING", 0, false, false, 0, 0, 0},
    [DTYPE_BOOL] = {"bool", "BOOL", 1, false, false, 1, 0, 0},
    [DTYPE_FLOAT16] = {"float16", "FLOAT16", 2, true, true, 11, -14, 65504.0},
    [DTYPE_FLOAT64] = {"float64", "DOUBLE", 8, true, true, 53, -1022, 1.7976931348623157e308},
    [DTYPE_UINT32] = {"uint32", "UINT32", 4, false, false, 32, 0, 0},
    [DTYPE_UINT64] = {"uint64", "UINT64", 8, false, false, 64, 0, 0},
    [DTYPE_COMPLEX64] = {"complex64", "COMPLEX64", 8, false, true, 0, 0, 0},
    [DTYPE_COMPLEX128] = {"complex128", "COMPLEX128", 16, false, true, 0, 0, 0},
    [DTYPE_BFLOAT16] = {"bfloat16", "BFLOAT16", 2, true, true, 8, -126, 3.3895313892515355e38},
};

const DTypeInfo *dtype_info(int32_t d)
{
    if (d <= DTYPE_UNDEFINED || d >= DTYPE_COUNT)
        return NULL;
    return &dtypes[d];
}

DType dtype_from_name(const char *name)
{
    for (int d = DTYPE_UNDEFINED + 1; name && d < DTYPE_COUNT; d++)
        if (strcmp(dtypes[d].name, name) == 0)
            return (DType)d;
    return DTYPE_UNDEFINED;
}

const char *dtype_name(DType d)
{
    const DTypeInfo *info = dtype_info(d);
    return info ? info->name : NULL;
}

size_t dtype_size(DType d)
{
    const DTypeInfo *info = dtype_info(d);
    return info ? info->size : 0;
}

bool dtype_is_float(DType d)
{
    const DTypeInfo *info = dtype_info(d);
    return info && info->is_float;
}

const char *dtype_onnx_text_name(DType d)
{
    if (d == DTYPE_FLOAT32)
        return "float";
    if (d == DTYPE_FLOAT64)
        return "double";
    return dtype_name(d);
}

DType dtype_from_onnx_text_name(const char *name, size_t len)
{
    for (int d = DTYPE_UNDEFINED + 1; d < DTYPE_COUNT; d++) {
        const char *spelling = dtype_onnx_text_name((DType)d);
        if (strlen(spelling) == len && memcmp(spelling, name, len) == 0)
            return (DType)d;
    }
    return DTYPE_UNDEFINED;
}

/* A little-endian unsigned integer of size bytes at p, whatever the host's
 * byte order. */
static uint64_t read_le(const unsigned char *p, size_t size)
{
    uint64_t u = 0;
    for (size_t i = size; i-- > 0;)
        u = u << 8 | p[i];
    return u;
}

/* IEEE binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits. */
static double half_value(uint64_t bits)
{
    int exp = (int)(bits >> 10 & 0x1f);
    double frac = (double)(bits & 0x3ff);
    double mag = exp == 0    ? ldexp(frac, -24)
                 : exp == 31 ? (frac != 0 ? NAN : INFINITY)
                             : ldexp(frac + 1024, exp - 25);
    return bits & 0x8000 ? -mag : mag;
}

/* The integer of dtype info (size bytes, signed or not) in u. */
static double int_value(const DTypeInfo *info, uint64_t u)
{
    if (!info->is_signed || info->size == 8)
        return info->is_signed ? (double)(int64_t)u : (double)u;
    uint64_t sign = (uint64_t)1 << (8 * info->size - 1);
    return (double)(int64_t)((u ^ sign) - sign);
}

bool dtype_read_number(DType d, const unsigned char *p, double *value)
{
    const DTypeInfo *info = dtype_info(d);
    if (!info || info->size == 0 || d == DTYPE_COMPLEX64 || d == DTYPE_COMPLEX128)
        return false;
    uint64_t u = read_le(p, info->size);
    if (d == DTYPE_FLOAT32 || d == DTYPE_BFLOAT16) {
        uint32_t bits32 = (uint32_t)(d == DTYPE_BFLOAT16 ? u << 16 : u);
        float f;
        memcpy(&f, &bits32, sizeof f);
        *value = f;
    } else if (d == DTYPE_FLOAT64) {
        memcpy(value, &u, sizeof *value);
    } else if (d == DTYPE_FLOAT16) {
        *value = half_value(u);
    } else {
        *value = int_value(info, u);
    }
    return true;
}
