/* dim_symbol.c - dims named by a symbol (dim_symbol.h).
 *
 * note [symbolic dims]: an ONNX dim may be given by a name instead of a
 * number (dim_param: a dynamic batch "N", torch's "batch_size"); values
 * whose dims carry one name have one size there, whatever it is.  A
 * graft_type keeps such a dim in its int64 like any other: numbers are
 * >= 0, DIM_ANY (-1) is "?", and the k-th name a graph interned is
 * -2 - k, so the struct, its hashing and its comparison by bytes stay as
 * they were, and two dims of one graph are the same symbol exactly when
 * they are equal.  A symbol is known only by name: it is no number, so
 * everything that computes with dims (a product, a sum, a window) takes
 * it as unknown, as every test `dim < 0` and `!dim_known(d)` already
 * does; what keeps it is only what passes a dim through unchanged or
 * unifies two (ONNX's inference: note [symbols in inference] in
 * src/onnx/onnx_infer.c), and a guard's shape(a) == shape(b) or
 * shape(a)[0] == shape(b)[0] holds of two dims of one name (note
 * [unknown dims] in src/runtime/emit_c_rt.c).  The names are the graph's
 * (its type texts print them: Tensor[(N, 16), float32]), so a symbol
 * means nothing in another graph; Relay's text has only "?", and no
 * Relay graph holds one. */
#include "dim_symbol.h"

#include "graph_impl.h"

int64_t graph_dim_symbol(graft_graph *g, const char *name, size_t len)
{
    const char *interned = graph_intern_n(g, name, len);
    int64_t *k = keymap_put(&g->dim_symbols, keymap_ptr_key(interned), -1);
    if (*k < 0) {
        *k = (int64_t)g->dim_names.len;
        vec_push(&g->dim_names, interned);
    }
    return DIM_ANY - 1 - *k;
}

const char *graph_dim_name(const graft_graph *g, int64_t d)
{
    if (!dim_is_symbol(d))
        return NULL;
    uint64_t k = (uint64_t)(DIM_ANY - 1 - d);
    return k < g->dim_names.len ? g->dim_names.items[k] : NULL;
}
