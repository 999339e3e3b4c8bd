/* dim_symbol.h - dims named by a symbol (ONNX's dim_param, "N" of
 * float[N, 3]), kept in the dim's int64 (note [symbolic dims] in
 * dim_symbol.c). */
#ifndef GRAFT_DIM_SYMBOL_H
#define GRAFT_DIM_SYMBOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Whether dim d is a number (>= 0), not "?" nor a symbol. */
static inline bool dim_known(int64_t d)
{
    return d >= 0;
}

/* Whether dim d is a symbol. */
static inline bool dim_is_symbol(int64_t d)
{
    return d < DIM_ANY;
}

/* How a comparison reads a symbol (note [dims may be equal]). */
typedef enum DimSymbolReading {
    DIM_SYMBOL_ITSELF,   /* one size, its own: N is N, not M nor 3 */
    DIM_SYMBOL_ANY_SIZE, /* any size: N may be M or 3 */
} DimSymbolReading;

/* Whether dims a and b may be equal: false only when they are known to
 * differ, symbols read as reading says.
 *
 * note [dims may be equal]: the one rule of whether two dims of a graph
 * may be equal, where one side may not know its size: "?" may be
 * anything, two numbers are equal or not, and a symbol is read one of
 * two ways, which each caller names.
 * - DIM_SYMBOL_ITSELF: a symbol is one size, its own, so it equals
 *   itself and differs from another symbol and from a number: dims
 *   compared by value, which only "?" escapes.  Relay's relations
 *   (dims_agree in src/relay/type_rel_vision.c, as TVM's
 *   reporter->AssertEQ); a Relay graph holds no symbol
 *   (note [symbolic dims]), so there it meets numbers and "?" only.
 * - DIM_SYMBOL_ANY_SIZE: a symbol may be any size, so only two numbers
 *   can contradict, as ONNX's checker compares a declared type with an
 *   inferred one (types_agree in src/onnx/onnx_import_types.c): dim_param "N"
 *   and "M" may name one size, and "N" may be 3. */
static inline bool dims_may_be_equal(int64_t a, int64_t b, DimSymbolReading reading)
{
    if (a == b || a == DIM_ANY || b == DIM_ANY)
        return true;
    return reading == DIM_SYMBOL_ANY_SIZE && (dim_is_symbol(a) || dim_is_symbol(b));
}

/* The dim of g named by the len bytes at name: one per name and graph. */
int64_t graph_dim_symbol(graft_graph *g, const char *name, size_t len);
/* The name of symbol dim d of g (interned), or NULL when d is no symbol
 * of g. */
const char *graph_dim_name(const graft_graph *g, int64_t d);

#endif
