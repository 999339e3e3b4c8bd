/* cli_onnx.c - an ONNX model for graft run, match, explain and viz: read,
 * imported as a graph (note [onnx import] in onnx_graph.h), checked
 * against the rules' ONNX registry, and written back (note [onnx export]
 * in onnx_export.c). */
#include "cli_onnx.h"

#include <string.h>

#include "fmt_onnx.h"
#include "onnx_model.h"

/* Whether the model declares a function of that domain and name (a
 * model-local function: its calls are known ops). */
static bool local_function(const Onnx__ModelProto *proto, const char *domain, const char *op)
{
    for (size_t i = 0; i < proto->n_functions; i++) {
        const Onnx__FunctionProto *f = proto->functions[i];
        if (f->name && strcmp(f->name, op) == 0 &&
            strcmp(f->domain ? f->domain : "", domain ? domain : "") == 0)
            return true;
    }
    return false;
}

/* note [onnx models checked]: each call of an ONNX model names an op the
 * rules' registry declares (stdpatterns/onnx_ops.graft, and what the rule
 * files declare: another domain's ops among them) or a model-local
 * function; else, unless --allow-unknown-ops, an error naming the node:
 *   model.onnx: error: node 'n1' (Frobnicate): unknown op; ... */
static int check_ops(const OnnxModel *m, const Registry *reg, graft_diag *d)
{
    int bad = 0;
    for (uint32_t id = 0; id < graph_node_count(m->g); id++) {
        const graft_node *n = graph_node(m->g, id);
        if (node_kind(n) != NODE_CALL || !node_op(n))
            continue;
        const char *domain = graph_node_domain(m->g, n);
        const OpInfo *op = registry_find(reg, node_op(n));
        bool same_domain = op && strcmp(op->domain ? op->domain : "", domain ? domain : "") == 0;
        if (same_domain || local_function(m->proto, domain, node_op(n)))
            continue;
        const char *label = onnx_node_label(m, n);
        diag_file_error(d, m->name, "node '%s' (%s%s%s): unknown op; the rules' ONNX registry "
                        "declares no such op%s", label ? label : "?", domain ? domain : "",
                        domain ? "." : "", node_op(n),
                        domain ? " in that domain (declare it in a rule file)" : "");
        bad++;
    }
    return bad;
}

/* The domain and version of every ONNX op the rules declare, for the
 * nodes a rewrite makes (note [made ops' opsets] in onnx_export_opset.c). */
static void keep_decls(OnnxModel *m, const Registry *reg)
{
    for (int i = 0; i < registry_count(reg); i++) {
        const OpInfo *op = registry_op(reg, i);
        if (!op->onnx)
            continue;
        OnnxOpDecl *decl = arena_alloc(graph_arena(m->g), sizeof *decl);
        decl->domain = op->domain ? graph_intern(m->g, op->domain) : NULL;
        decl->since = op->since;
        keymap_put_ptr(&m->decls, graph_intern(m->g, op->name), decl);
    }
}

OnnxModel *cli_onnx_load(const char *path, const graft_limits *limits, const RuleFile *rf,
                         bool allow_unknown_ops, graft_diag *d)
{
    if (rf && !registry_onnx_opset(rf->registry)) {
        diag_plain_error(d, "'%s' is an ONNX model, but the rules are for Relay; a rule file "
                         "for ONNX starts with 'opset onnx N'", path);
        return NULL;
    }
    Onnx__ModelProto *proto = fmt_onnx_read(path, limits, d); /* binary or text */
    OnnxModel *m = proto ? onnx_import(proto, path, d) : NULL;
    if (m && rf && !allow_unknown_ops && check_ops(m, rf->registry, d) > 0) {
        onnx_graph_free(m);
        return NULL;
    }
    if (m && rf)
        keep_decls(m, rf->registry);
    return m;
}

bool cli_onnx_write(void *ctx, const graft_graph *g, FILE *out, graft_diag *d)
{
    const CliOnnxOut *o = ctx;
    (void)g; /* the model's graph */
    return onnx_export(o->model, out, o->text, d);
}
