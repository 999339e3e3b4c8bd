/* graph_number.c - the number a constant holds, scalar or one-element
 * tensor (note [one-element constants] in graph.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "graph_impl.h"

/* IEEE half precision bits as a float (subnormals, infinities, NaN). */
static double half_value(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    double mant = h & 0x3ff;
    double v = exp == 0    ? mant / 1024.0 / 16384.0
             : exp == 31 ? (mant ? NAN : INFINITY)
                         : (1.0 + mant / 1024.0) * ldexp(1.0, exp - 15);
    return (h & 0x8000) ? -v : v;
}

/* A float32 element as the number its shortest spelling reads as
 * (1.4142135f is 1.4142135, as Relay's constant 1.4142135f holds it), so
 * that a rule's literal compares equal to it. */
static double float_value(float f)
{
    if (f != f || f - f != 0) /* NaN and infinities spell no digits */
        return (double)f;
    char buf[32];
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)f);
        if (strtof(buf, NULL) == f)
            break;
    }
    return strtod(buf, NULL);
}

/* Element 0 of the little-endian bytes p of dtype d. */
static bool element_value(DType d, const unsigned char *p, double *v)
{
    uint64_t bits = 0;
    size_t size = dtype_size(d);
    for (size_t b = 0; b < size; b++)
        bits |= (uint64_t)p[b] << (8 * b);
    uint32_t u32 = (uint32_t)bits;
    float f;
    switch (d) {
    case DTYPE_FLOAT32: memcpy(&f, &u32, 4); *v = float_value(f); return true;
    case DTYPE_FLOAT64: memcpy(v, &bits, 8); return true;
    case DTYPE_FLOAT16: *v = half_value((uint16_t)bits); return true;
    case DTYPE_BFLOAT16:
        u32 = (uint32_t)bits << 16;
        memcpy(&f, &u32, 4);
        *v = float_value(f);
        return true;
    case DTYPE_INT8: *v = (int8_t)bits; return true;
    case DTYPE_INT16: *v = (int16_t)bits; return true;
    case DTYPE_INT32: *v = (int32_t)bits; return true;
    case DTYPE_INT64: *v = (double)(int64_t)bits; return true;
    case DTYPE_UINT8: case DTYPE_UINT16: case DTYPE_UINT32: case DTYPE_UINT64: case DTYPE_BOOL:
        *v = (double)bits;
        return true;
    default: return false;
    }
}

bool node_const_number(const graft_node *n, double *v)
{
    if (n->kind != NODE_CONST)
        return false;
    if (node_const_is_scalar(n)) {
        *v = node_const_value(n);
        return true;
    }
    size_t nbytes, want;
    const unsigned char *bytes = node_const_data(n, &nbytes);
    const graft_type *t = n->type;
    DType d = t && t->kind == TYPE_TENSOR ? dtype_from_name(t->dtype) : DTYPE_UNDEFINED;
    if (!bytes || d == DTYPE_UNDEFINED || !graph_tensor_nbytes(t, &want) || want != nbytes ||
        nbytes != dtype_size(d))
        return false; /* no data, or not one element */
    return element_value(d, bytes, v);
}
