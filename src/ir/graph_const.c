/* graph_const.c - tensor constants that carry their elements, and the
 * results of calls with several (note [several results] in graph.h). */
#include <stdint.h>

#include "dtype.h"
#include "graph_impl.h"

graft_node *graph_add_tensor_const(graft_graph *g, const char *name, const graft_type *type,
                                   const void *bytes, size_t nbytes)
{
    graft_node *n = graph_new_node(g, NODE_CONST, 0);
    n->str = graph_intern(g, name);
    n->type = type;
    ConstData *data = arena_alloc(g->arena, sizeof *data);
    data->bytes = bytes;
    data->nbytes = bytes ? nbytes : 0;
    n->u.data = data;
    return n;
}

const void *node_const_data(const graft_node *n, size_t *nbytes)
{
    const ConstData *data = n->kind == NODE_CONST && !n->flag ? n->u.data : NULL;
    *nbytes = data ? data->nbytes : 0;
    return data ? data->bytes : NULL;
}

bool graph_tensor_nbytes(const graft_type *type, size_t *nbytes)
{
    if (!type || type->kind != TYPE_TENSOR)
        return false;
    size_t total = dtype_size(dtype_from_name(type->dtype));
    if (total == 0)
        return false;
    for (int i = 0; i < type->rank; i++) {
        int64_t d = type->dims[i];
        if (d < 0 || (d > 0 && total > SIZE_MAX / (uint64_t)d))
            return false;
        total *= (size_t)d;
    }
    *nbytes = total;
    return true;
}

void graph_own(graft_graph *g, void *buffer)
{
    vec_push(&g->owned, buffer);
}

void graph_set_noutputs(graft_graph *g, graft_node *call, int n)
{
    (void)g;
    if (call->kind == NODE_CALL) /* the word is another kind's otherwise */
        call->u.call.index = n;
}

graft_node *graph_result(graft_graph *g, graft_node *n, int i)
{
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        graft_node *user = node_user(n, k);
        if (node_kind(user) == NODE_GETITEM && node_index(user) == i && !node_is_dead(user))
            return user;
    }
    return graph_add_getitem(g, n, i);
}
