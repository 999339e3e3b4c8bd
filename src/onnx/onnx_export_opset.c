/* onnx_export_opset.c - the domains and opset imports of the nodes a
 * rewrite made.
 *
 * note [made ops' opsets]: a node a rewrite made is of the domain its op
 * is declared in (a rule file's 'op Gelu(X) ... domain "com.microsoft"
 * since 1'; OnnxModel.decls holds what the declarations say), and the
 * model written imports each domain such nodes use, at least at the
 * version their ops declare (since N): a domain the model does not import
 * is added.  The default domain's version is raised only when a made op
 * did not exist at the model's (LayerNormalization, new in opset 17, made
 * in an opset 13 model; a made Mul, declared at its opset 14 schema, is
 * also opset 13's Mul, of the same meaning).  Raising is safe from opset
 * 13 on: from 13 to 17 ONNX's ops changed only by gaining types, and
 * attributes whose defaults keep the old meaning, but for RoiAlign-16's
 * coordinate_transformation_mode;
 * so a model that imports an older default opset, or that has a RoiAlign
 * node, is refused with an error instead.
 */
#include "onnx_export_impl.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_model.h"

/* The declaration a made node of op (a node's, interned in the graph, a
 * key as it is) follows, or NULL. */
static const OnnxOpDecl *decl_of(const Exporter *ex, const char *op)
{
    return keymap_get_ptr(&ex->m->decls, op);
}

/* Records that the model needs domain at version v at least. */
static void need(Exporter *ex, const char *domain, int v)
{
    for (size_t i = 0; i < ex->need.len; i++)
        if (strcmp(ex->need.items[i].domain, domain) == 0) {
            if (ex->need.items[i].since < v)
                ex->need.items[i].since = v;
            return;
        }
    vec_push(&ex->need, ((OnnxOpDecl){domain, v}));
}

/* The default domain's ops that opsets 14 to 17 introduced, and the
 * opset of each (the since_version of its first schema in onnx/defs). */
static const struct {
    const char *op;
    int since;
} introduced[] = {
    {"HardSwish", 14},      {"Trilu", 14},          {"Bernoulli", 15},
    {"CastLike", 15},       {"Optional", 15},       {"OptionalHasElement", 15},
    {"OptionalGetElement", 15}, {"GridSample", 16}, {"LayerNormalization", 17},
    {"SequenceMap", 17},    {"BlackmanWindow", 17}, {"HammingWindow", 17},
    {"HannWindow", 17},     {"MelWeightMatrix", 17}, {"DFT", 17},
    {"STFT", 17},
};

/* The opset of 14 to 17 that introduced op (interned), or 0: looked up
 * in introduced once an op, as comparing each made node's op with every
 * entry was a tenth of exporting issue 28's rewritten batch norms
 * (bench/onnx_e2e.sh, 730 instructions a node). */
static int introduced_since(Exporter *ex, const char *op)
{
    int64_t *since = keymap_put(&ex->introduced, keymap_ptr_key(op), -1);
    for (size_t i = 0; *since < 0 && i < ARRAY_LEN(introduced); i++)
        if (strcmp(introduced[i].op, op) == 0)
            *since = introduced[i].since;
    if (*since < 0)
        *since = 0;
    return (int)*since;
}

/* note [private ops]: a staged fusion (onnxscript's attention fusions,
 * stdpatterns/onnx/) is two rules: the first makes an op of its own that
 * only the second reads, as onnxscript's SDPA op (domain
 * ai.onnxruntime._fusion) is read by its MultiHeadAttention rule.  Such an
 * op is declared in the domain "graft.private" (ONNX_PRIVATE_DOMAIN),
 * which no runtime knows: when the second rule did not fire on a node the
 * first made, the model is not written, and the error names the node and
 * its op, never a model no runtime can load written silently. */
static void refuse_private(Exporter *ex, const graft_node *n, const OnnxOpDecl *decl)
{
    if (!decl || !decl->domain || strcmp(decl->domain, ONNX_PRIVATE_DOMAIN) != 0)
        return;
    diag_file_error(ex->d, ex->m->name, "node '%s' is of op %s, an intermediate of a staged "
                    "fusion (domain \"%s\"), which the rule that consumes it did not "
                    "rewrite; no runtime runs it, so the model is not written",
                    export_call_name(ex, n), node_op(n), ONNX_PRIVATE_DOMAIN);
    ex->ok = false;
}

/* note [opsets once an op]: a rewrite makes its nodes of one op one
 * after another (issue 28's 2,000 BatchNormalization nodes), and what
 * such a node needs of the opsets is its op's, recorded by need, which
 * only raises: so its declaration is looked up and its opsets recorded
 * once for each run of nodes of one op (100 instructions a node,
 * bench/onnx_e2e.sh); a node's own domain and the refusal of a private
 * op are still each node's. */
const char *export_made_domain(Exporter *ex, const graft_node *n)
{
    const char *op = node_op(n);
    if (op != ex->made_op) {
        const OnnxOpDecl *decl = decl_of(ex, op);
        if (decl && decl->domain)
            need(ex, decl->domain, decl->since);
        int since = decl && !decl->domain ? introduced_since(ex, op) : 0;
        if (since)
            need(ex, "", since);
        ex->made_op = op;
        ex->made_decl = decl;
    }
    const char *domain = node_id(n) < ex->m->norigin || ex->made_domains
                             ? graph_node_domain(ex->g, n)
                             : NULL;
    refuse_private(ex, n, ex->made_decl); /* (domain: note [value names as imported]) */
    return domain || !ex->made_decl ? domain : ex->made_decl->domain;
}

/* The slot of the model's import of domain ("" the default), or NULL. */
static Onnx__OperatorSetIdProto **import_of(Onnx__ModelProto *model, const char *domain)
{
    for (size_t i = 0; i < model->n_opset_import; i++) {
        const char *d = model->opset_import[i]->domain ? model->opset_import[i]->domain : "";
        if (strcmp(d, "ai.onnx") == 0)
            d = "";
        if (strcmp(d, domain) == 0)
            return &model->opset_import[i];
    }
    return NULL;
}

static bool has_roi_align(const Exporter *ex)
{
    for (size_t i = 0; i < ex->nodes.len; i++)
        if (strcmp(ex->nodes.items[i]->op_type, "RoiAlign") == 0)
            return true;
    return false;
}

/* A copy of import (NULL: a new one of domain) at version v, freed with
 * the export. */
static Onnx__OperatorSetIdProto *import_at(Exporter *ex, const Onnx__OperatorSetIdProto *import,
                                           const char *domain, int64_t v)
{
    Onnx__OperatorSetIdProto *copy = export_alloc(ex, sizeof *copy);
    onnx__operator_set_id_proto__init(copy);
    if (import)
        *copy = *import;
    else
        copy->domain = (char *)domain;
    copy->has_version = true;
    copy->version = v;
    return copy;
}

/* The default domain's import raised to version v, or an error (note
 * [made ops' opsets]); false after reporting. */
static bool raise_default(Exporter *ex, Onnx__OperatorSetIdProto **slot, int64_t v)
{
    int64_t have = (*slot)->version;
    if (have < 13 || has_roi_align(ex)) {
        diag_file_error(ex->d, ex->m->name, "the rewritten model needs opset %lld of the "
                        "default domain, but imports opset %lld%s; graft raises the opset "
                        "from 13 on only, where the ops keep their meaning", (long long)v,
                        (long long)have, have < 13 ? "" : " and has a RoiAlign node");
        return false;
    }
    *slot = import_at(ex, *slot, NULL, v);
    return true;
}

bool export_opsets_finish(Exporter *ex, Onnx__ModelProto *model)
{
    if (!ex->need.len)
        return true;
    size_t n = model->n_opset_import;
    Onnx__OperatorSetIdProto **imports = xcalloc(n + ex->need.len + 1, sizeof *imports);
    if (n) /* (a model without imports has a NULL array) */
        memcpy(imports, model->opset_import, n * sizeof *imports);
    if (model->opset_import != ex->m->proto->opset_import)
        free(model->opset_import); /* the partitions' (export_functions_finish) */
    model->opset_import = imports; /* (freed by onnx_export) */
    bool ok = true;
    for (size_t i = 0; i < ex->need.len; i++) {
        const char *domain = ex->need.items[i].domain;
        int64_t v = ex->need.items[i].since > 0 ? ex->need.items[i].since : 1;
        Onnx__OperatorSetIdProto **slot = import_of(model, domain);
        if (!slot)
            imports[model->n_opset_import++] = import_at(ex, NULL, domain, v);
        else if ((*slot)->version < v && domain[0])
            *slot = import_at(ex, *slot, NULL, v);
        else if ((*slot)->version < v)
            ok &= raise_default(ex, slot, v);
    }
    return ok;
}
