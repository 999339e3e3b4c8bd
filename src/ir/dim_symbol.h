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

/* The dim of g named by the len bytes at name: one per name and graph. */
int64_t graph_dim_symbol(graft_graph *g, const char *name, size_t len);
/* The name of symbol dim d of g (interned), or NULL when d is no symbol
 * of g. */
const char *graph_dim_name(const graft_graph *g, int64_t d);

#endif
