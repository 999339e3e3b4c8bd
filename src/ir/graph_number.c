/* graph_number.c - the number a constant holds, scalar or one-element
 * tensor (note [one-element constants] in graph.h). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "graph_impl.h"

/* A float32 element as the number its shortest spelling reads as
 * (1.4142135f is 1.4142135, as Relay's constant 1.4142135f holds it), so
 * that a rule's literal compares equal to it. */
static double shortest_value(float f)
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

/* note [float memo]: shortest_value costs a snprintf and a strtof a digit
 * tried and a strtod (some 3,500 instructions for 1e-5f), and a rewrite asks
 * for the same constant again and again: an ONNX model's epsilon is one
 * rank-0 initializer that every batch norm reads, twice a match (the
 * pattern's constant and the rewrite's attribute).  So the last values
 * found are kept, a few slots direct-mapped by the float's bits; a slot
 * holds the bits it answers for, so a hit is the same float and gives the
 * same double.  Thread-local: the library may run graphs on several threads.
 * The slot is the top 4 bits of a multiplicative hash of the bits. */
enum { FLOAT_MEMO_SLOTS = 16, FLOAT_MEMO_SHIFT = 28 };

struct float_memo_slot {
    uint32_t bits;
    bool used;
    double value;
};

static _Thread_local struct float_memo_slot float_memo[FLOAT_MEMO_SLOTS];

static double float_value(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    struct float_memo_slot *slot = &float_memo[(bits * 2654435761u) >> FLOAT_MEMO_SHIFT];
    if (slot->used && slot->bits == bits)
        return slot->value;
    double value = shortest_value(f);
    *slot = (struct float_memo_slot){.bits = bits, .used = true, .value = value};
    return value;
}

/* Element 0 of the little-endian bytes p of dtype d (dtype_read_number),
 * a float32 or bfloat16 one as its shortest spelling reads. */
static bool element_value(DType d, const unsigned char *p, double *v)
{
    if (!dtype_read_number(d, p, v))
        return false;
    if (d == DTYPE_FLOAT32 || d == DTYPE_BFLOAT16)
        *v = float_value((float)*v);
    return true;
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

bool node_const_element(const graft_node *n, int64_t i, double *v)
{
    if (n->kind != NODE_CONST || i < 0)
        return false;
    if (node_const_is_scalar(n)) {
        if (i != 0)
            return false;
        *v = node_const_value(n);
        return true;
    }
    size_t nbytes, want;
    const unsigned char *bytes = node_const_data(n, &nbytes);
    const graft_type *t = n->type;
    DType d = t && t->kind == TYPE_TENSOR ? dtype_from_name(t->dtype) : DTYPE_UNDEFINED;
    size_t size = dtype_size(d);
    if (!bytes || size == 0 || !graph_tensor_nbytes(t, &want) || want != nbytes ||
        (uint64_t)i >= nbytes / size)
        return false;
    return element_value(d, bytes + (size_t)i * size, v);
}
