/* onnx_import_node.c - a graph's NodeProtos as calls: their operands
 * (the values they read, those their subgraphs read), their results, their
 * ops noted; most by the plain path (note [plain nodes]), the rest by the
 * general one. */
#include "onnx_import_impl.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_subgraph.h"

/* The operands of node np: the values its inputs name, the empty tuple
 * for one left out in the middle, none for those left out at the end
 * (note [absent operands] in src/runtime/eval_impl.h). */
static int node_operands(Importer *im, const Onnx__NodeProto *np, graft_node **args)
{
    size_t n = np->n_input;
    while (n > 0 && !np->input[n - 1][0])
        n--;
    for (size_t i = 0; i < n; i++) {
        if (!np->input[i][0]) {
            if (!im->m->absent)
                im->m->absent = graph_add_tuple(im->g, NULL, 0);
            args[i] = im->m->absent;
        } else if (!(args[i] = value_of(im, np->input[i])) && unsure(im))
            return (int)i; /* not made before np: onnx_model_check says how */
    }
    return (int)n;
}

/* Names the node's results: the call itself, or its elements. */
static void node_results(Importer *im, const Onnx__NodeProto *np, graft_node *call)
{
    if (np->n_output <= 1) {
        if (np->n_output == 1)
            set_value(im, np->output[0], call);
        return;
    }
    graph_set_noutputs(im->g, call, (int)np->n_output);
    for (size_t i = 0; i < np->n_output; i++)
        if (np->output[i][0])
            set_value(im, np->output[i], graph_result(im->g, call, (int)i));
}

/* The values np's subgraphs read from this graph, as np's operands after
 * its own inputs (note [outer reads] in onnx_subgraph.h); args has room. */
static int outer_operands(Importer *im, const Onnx__NodeProto *np, const char *const *outer,
                          size_t nouter, graft_node **args)
{
    for (size_t k = 0; k < nouter; k++) {
        args[k] = value_of(im, outer[k]); /* onnx_check saw it made before np */
        if (!args[k] && unsure(im))
            return (int)k;
        if (!args[k]) { /* (a model the check did not see: never, but no crash) */
            diag_file_error(im->d, im->m->name, "node '%s' (%s): a subgraph reads '%s', "
                            "which no value before it makes", np->name ? np->name : "",
                            np->op_type, outer[k]);
            im->ok = false;
            return (int)k;
        }
    }
    return (int)nouter;
}

/* Whether onnx_model_check passes np without looking further than its
 * reads: an op of the default domain, no subgraph. */
static bool plain_node(const Onnx__NodeProto *np)
{
    if (np->domain && np->domain[0])
        return false;
    for (size_t i = 0; i < np->n_attribute; i++)
        if (np->attribute[i]->g || np->attribute[i]->n_graphs)
            return false;
    return true;
}

/* The domain the import gives np's call (NULL: the default, "" or
 * "ai.onnx"), which graph_node_domain reads back. */
static const char *call_domain(const Onnx__NodeProto *np)
{
    return np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0 ? np->domain
                                                                           : NULL;
}

/* op, of the default domain, in m->ops unless it is the one noted in
 * its slot (note [ops as imported] in onnx_graph.h). */
static inline void note_default_op(Importer *im, const char *op)
{
    const char **noted = &im->op_noted[cache_slot((uint64_t)(uintptr_t)op, ONNX_OPS_NOTED_BITS)];
    if (*noted != op) {
        *noted = op;
        vec_push(&im->m->ops, ((OnnxOpCall){op, NULL}));
    }
}

/* np's op and domain in m->ops (note [ops as imported]). */
static void note_op(Importer *im, const Onnx__NodeProto *np)
{
    const char *op = np->op_type;
    if (!op)
        return; /* (no call's op: check_ops passes it) */
    if (np->domain && np->domain[0]) {
        im->domains = true;
        vec_push(&im->m->ops, ((OnnxOpCall){op, call_domain(np)}));
        return;
    }
    note_default_op(im, op);
}

/* note [plain nodes]: most NodeProtos (issue 34's workload: all) are an
 * op of the default domain without attributes, reading a few values made
 * before them, none left out, and naming one result: a call of its
 * operands, that value.  import_node's general path asks each of them
 * whether it is a Constant, has a subgraph, outer reads, attributes,
 * operands left out or several results; such a node is made here with
 * none of those questions (26 instructions an op node fewer).  One that
 * reads a value not made yet goes on to the general path, which reports
 * it (or, quiet, leaves it to the check); nothing is made before that. */
enum { PLAIN_OPERANDS = 8 };

/* np made as a plain node when it is one (note [plain nodes]); whether
 * it was. */
static inline bool import_plain_node(Importer *im, Onnx__NodeProto *np)
{
    size_t nargs = np->n_input;
    if (np->n_attribute || (np->domain && np->domain[0]) || np->n_output != 1 ||
        nargs > PLAIN_OPERANDS || !np->op_type || !np->output[0][0])
        return false;
    note_default_op(im, np->op_type); /* (what note_op does of it) */
    graft_node *args[PLAIN_OPERANDS];
    for (size_t i = 0; i < nargs; i++) /* (a name, the table made: value_of's tests left out) */
        if (!np->input[i][0] || !(args[i] = onnx_values_slot(&im->values, np->input[i])->node))
            return false;
    graft_node *call = graph_add_call_interned(im->g, np->op_type, args, (int)nargs, NULL, 0);
    name_node(im, call, np);
    set_origin(im, call, np);
    set_value(im, np->output[0], call);
    return true;
}

static void import_general_node(Importer *im, Onnx__NodeProto *np);

/* np as a plain node (note [plain nodes]), else by the general path, out
 * of line: inline in import_nodes' loop, its code and registers cost
 * each plain node 15 instructions (issue 34's workload). */
static inline void import_node(Importer *im, Onnx__NodeProto *np)
{
    if (!import_plain_node(im, np))
        import_general_node(im, np);
}

/* note [subgraphs noted]: before the main graph's rules, the runner walks
 * every NodeProto for the subgraphs in their attributes (subgraph_walk in
 * src/runtime), 47 instructions an op node on bench/workload.sh's ONNX
 * jobs, which have none.  Every NodeProto of the main graph passes the
 * import once, and one with attributes, any subgraph's, by the general
 * path (note [plain nodes]): there the import notes whether one holds a
 * graph (OnnxModel.subgraphs), and the walk, told there is none, stops
 * at once (subgraph_any). */
static void note_subgraphs(Importer *im, const Onnx__NodeProto *np)
{
    for (size_t i = 0; i < np->n_attribute; i++)
        if (np->attribute[i]->g)
            im->m->subgraphs = true;
}

/* np's attributes as its call's, in the graph's arena (note [onnx
 * attributes] in onnx_import.c); NULL for none. */
static graft_attr *node_attrs(Importer *im, const Onnx__NodeProto *np)
{
    graft_attr *attrs = np->n_attribute ? arena_array(graph_arena(im->g), np->n_attribute,
                                                      sizeof *attrs) : NULL;
    for (size_t i = 0; i < np->n_attribute; i++)
        attrs[i] = (graft_attr){graph_intern(im->g, np->attribute[i]->name),
                                import_attr_value(im, np->attribute[i])};
    return attrs;
}

static __attribute__((noinline)) void import_general_node(Importer *im, Onnx__NodeProto *np)
{
    note_op(im, np); /* (again, for a plain node whose operand is not made: no matter) */
    note_subgraphs(im, np);
    if (im->quiet && !plain_node(np)) {
        unsure(im);
        return;
    }
    if (import_constant(im, np))
        return;
    const char **outer = NULL; /* (a subgraph is an attribute: none without) */
    size_t nouter = np->n_attribute ? onnx_outer_reads(im->g, np, &outer) : 0;
    size_t most = np->n_input + nouter;
    graft_node *few[8];
    graft_node **args = most < 8 ? few : xmalloc(most * sizeof *args);
    int nargs = node_operands(im, np, args);
    if (outer) { /* (most nodes read none: no loop, no free) */
        nargs += outer_operands(im, np, outer, nouter, args + nargs);
        free(outer);
    }
    if (!im->ok && im->quiet) {
        if (args != few)
            free(args);
        return;
    }
    graft_attr *attrs = node_attrs(im, np);
    graft_node *call = graph_add_call_interned(im->g, np->op_type, args, nargs, attrs,
                                               (int)np->n_attribute);
    if (args != few)
        free(args);
    if (call_domain(np))
        graph_set_node_domain(im->g, call, np->domain);
    name_node(im, call, np);
    set_origin(im, call, np);
    node_results(im, np, call);
}


void import_nodes(Importer *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node && im->ok; i++)
        import_node(im, gp->node[i]);
}
