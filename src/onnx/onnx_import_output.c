/* onnx_import_output.c - the graph's output: the values of the graph
 * outputs, then those nothing reads (note [kept values] in onnx_graph.h),
 * a tuple of them when they are not one. */
#include "onnx_import_impl.h"

#include <stdlib.h>

/* The graph outputs' values into out; false when one is not made (a quiet
 * import's stop, note [check in the import] in onnx_import.c). */
bool import_graph_outputs(Importer *im, const Onnx__GraphProto *gp, OutputValues *out)
{
    out->listed = xcalloc(graph_node_count(im->g) + 1, 1);
    uint32_t *ids = im->m->output_ids = xmalloc((gp->n_output + 1) * sizeof *ids);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name;
        graft_node *made = name && name[0] ? value_of(im, name) : NULL;
        if (!made && unsure(im))
            return false;
        vec_push(&out->values, made); /* onnx_check saw it made */
        ids[i] = made ? node_id(made) : UINT32_MAX; /* (by id: a rewrite may free it) */
        if (made)
            out->listed[ids[i]] = 1;
    }
    return true;
}

/* The graph's output made of out's values (freed). */
void import_set_outputs(Importer *im, const Onnx__GraphProto *gp, OutputValues *out)
{
    im->m->noutputs = (int)gp->n_output;
    im->m->tupled = !(out->values.len == 1 && gp->n_output == 1);
    graph_set_output(im->g, im->m->tupled ? graph_add_tuple(im->g, out->values.items,
                                                            (int)out->values.len)
                                          : out->values.items[0]);
    graph_fix_outputs(im->g, im->m->tupled ? (int)gp->n_output : OUTPUT_ONE_VALUE);
}

void import_output_values_free(OutputValues *out)
{
    vec_free(&out->values);
    free(out->listed);
}
