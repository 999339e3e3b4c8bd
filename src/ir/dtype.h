/* dtype.h - the element types of tensors, as every IR names them.
 *
 * Relay spells a dtype as text ("float32"), ONNX as a number of
 * TensorProto.DataType (1 for FLOAT).  The graph keeps the Relay spelling,
 * interned, in types and constants (a dtype is compared by pointer within
 * one graph); this table is the one place that knows each dtype's other
 * spelling, its size and its number format, so that a loader, a printer
 * and the evaluator of any IR agree (note [one dtype table]).
 */
#ifndef GRAFT_DTYPE_H
#define GRAFT_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A dtype's number is ONNX's TensorProto.DataType, so that an ONNX file's
 * data_type converts with a range check only; 0 is ONNX's UNDEFINED. */
typedef enum DType {
    DTYPE_UNDEFINED = 0,
    DTYPE_FLOAT32 = 1,
    DTYPE_UINT8 = 2,
    DTYPE_INT8 = 3,
    DTYPE_UINT16 = 4,
    DTYPE_INT16 = 5,
    DTYPE_INT32 = 6,
    DTYPE_INT64 = 7,
    DTYPE_STRING = 8,
    DTYPE_BOOL = 9,
    DTYPE_FLOAT16 = 10,
    DTYPE_FLOAT64 = 11,
    DTYPE_UINT32 = 12,
    DTYPE_UINT64 = 13,
    DTYPE_COMPLEX64 = 14,
    DTYPE_COMPLEX128 = 15,
    DTYPE_BFLOAT16 = 16,
    DTYPE_COUNT /* one past the last */
} DType;

/* What the table knows of one dtype. */
typedef struct DTypeInfo {
    const char *name;  /* Relay's spelling: "float32", "int64", "bool" */
    const char *onnx;  /* ONNX's enum name: "FLOAT", "INT64", "BOOL" */
    uint8_t size;      /* bytes per element in raw data; 0 for string */
    bool is_float;     /* a binary floating-point format */
    bool is_signed;    /* integers (floats are signed too) */
    uint8_t bits;      /* integers: width; floats: significand bits
                          with the implicit one */
    int16_t min_exp;   /* floats: exponent of the least normal number */
    double max;        /* floats: the largest finite value */
} DTypeInfo;

/* The entry of d, or NULL for DTYPE_UNDEFINED and numbers past the table
 * (a number read from a file is checked with this before any use). */
const DTypeInfo *dtype_info(int32_t d);
/* The dtype named name in Relay's spelling, DTYPE_UNDEFINED if none. */
DType dtype_from_name(const char *name);
/* Relay's spelling of d, or NULL. */
const char *dtype_name(DType d);
/* Bytes per element of d in raw data (0 for string and unknown ones). */
size_t dtype_size(DType d);
bool dtype_is_float(DType d);
/* The element of dtype d at p (raw data: little-endian, dtype_size(d)
 * bytes) as a double: exact for every float format and for integers up to
 * 2^53.  false for string, complex and unknown dtypes. */
bool dtype_read_number(DType d, const unsigned char *p, double *value);
/* ONNX's text syntax (note [onnx text] in src/onnx/onnx_text.h) spells a
 * dtype as Relay does but for float32 and float64: "float" and "double"
 * (PrimitiveTypeNameMap in onnx/defs/parser.h).  NULL for unknown ones. */
const char *dtype_onnx_text_name(DType d);
/* The dtype of that spelling (the len bytes at name), DTYPE_UNDEFINED if
 * none. */
DType dtype_from_onnx_text_name(const char *name, size_t len);

#endif
