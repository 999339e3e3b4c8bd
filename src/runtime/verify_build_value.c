/* verify_build_value.c - the values of an instance being built, by node
 * (each node is evaluated as it is made), the types they give the graph,
 * and why building failed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_impl.h"

graft_node *verify_fail(Instance *in, const char *fmt, ...)
{
    if (in->why.len)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(&in->why, fmt, ap);
    va_end(ap);
    return NULL;
}

Value *verify_value_of(Instance *in, const graft_node *n)
{
    size_t id = node_id(n);
    if (id >= in->vals_cap) {
        size_t old = in->vals_cap;
        in->vals = xgrow_items(in->vals, &in->vals_cap, id + 1, sizeof *in->vals);
        memset(in->vals + old, 0, (in->vals_cap - old) * sizeof *in->vals);
    }
    return &in->vals[id];
}

const Tensor *verify_tensor_of(Instance *in, const graft_node *n)
{
    const Value *v = n ? verify_value_of(in, n) : NULL;
    return v && v->nfields < 0 && v->t.data ? &v->t : NULL;
}

const Tensor *verify_slot_tensor(Instance *in, int slot)
{
    if (slot < 0 || slot >= in->rule->nslots)
        return NULL;
    return verify_tensor_of(in, in->slot_node[slot]);
}

/* The node's type from its value, so that guards can ask rank(c). */
void verify_set_type(Instance *in, graft_node *n, const Value *v)
{
    if (v->nfields < 0) {
        graph_set_type(in->g, n, graph_type_tensor(in->g, v->t.dtype, v->t.dims, v->t.rank));
        return;
    }
    const graft_type **fields = xcalloc((size_t)v->nfields + 1, sizeof *fields);
    for (int i = 0; i < v->nfields; i++)
        if (v->fields[i].nfields < 0)
            fields[i] = graph_type_tensor(in->g, v->fields[i].t.dtype, v->fields[i].t.dims,
                                          v->fields[i].t.rank);
    bool all = true;
    for (int i = 0; i < v->nfields; i++)
        all = all && fields[i];
    if (all)
        graph_set_type(in->g, n, graph_type_tuple(in->g, fields, v->nfields));
    free(fields);
}
