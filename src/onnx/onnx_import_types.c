/* onnx_import_types.c - the types of what the import made: inferred for
 * what the model does not type, checked against what it declares (note
 * [declared types checked] in onnx_import.c). */
#include "onnx_import_impl.h"

#include "dim_symbol.h"
#include "onnx_text_where.h"

/* Whether what declared and made say of a tensor agrees: at once when
 * they are one type, as a declared type inference finds again mostly is
 * (one type per dtype and dims: note [canonical tensor types] in
 * src/ir/graph_type.c; issue 34's workload: every graph output). */
static bool types_agree(const graft_type *declared, const graft_type *made)
{
    if (declared == made)
        return true;
    if (declared->kind != TYPE_TENSOR || made->kind != TYPE_TENSOR)
        return true; /* nothing declared of a tuple or an opaque type */
    if (declared->dtype && made->dtype && declared->dtype != made->dtype)
        return false; /* (interned) */
    if (declared->rank < 0 || made->rank < 0)
        return true;
    if (declared->rank != made->rank)
        return false;
    for (int k = 0; k < declared->rank; k++) /* dim_param "N" may be any size, as in ONNX */
        if (!dims_may_be_equal(declared->dims[k], made->dims[k], DIM_SYMBOL_ANY_SIZE))
            return false;
    return true;
}

/* note [calls typed as made]: onnx_type_of asks a call's domain
 * (graph_node_domain, a call into src/ir and a KeyMap's) and counts its
 * results by walking its uses, and the import knows both of every call
 * it made from its NodeProto: no domain but the default's (import_node
 * names another), one result (a NodeProto of one output or none; several
 * are elements, and no element of a call of one exists yet).  So such a
 * call is typed by onnx_type_of_plain, told so (29 instructions a call
 * fewer on issue 34's workload), which answers most from the graph's
 * cache of the memo's answers (note [made calls' types]).
 * Any other call goes through onnx_type_of as a rewrite's do.  Every call
 * the import makes is a NodeProto's (import_node), and one of several
 * results is told so (graph_set_noutputs, node_results): so when no
 * NodeProto names a domain (note_op tells), node_noutputs answers without
 * the NodeProto. */

/* note [made calls' types]: the import's calls are most of a model's
 * plain calls (note [plain calls] in onnx_types.c: every one of issue
 * 34's workload's 60,000), so the import asks for the graph's cache of
 * their types once (import_infer_types) and looks a call up there inline
 * (onnx_type_of_plain), with no call into the memo.  Until session 28
 * the import kept a cache of its own, and the memo a second one, found
 * through the graph and keyed in memory, behind it; the inline cache
 * saved 134 instructions a call over the memo's, and the memo's 126 over
 * its whole key (8.0 M and 7.6 M on the workload's ONNX partition, at
 * 10,000 copies: bench/RESULTS.md, session 28, branch infer): one cache,
 * the inline one, is now both. */
static const graft_type *call_type(Importer *im, const graft_node *n, OnnxPlainTypes *plain,
                                   StrBuf *why)
{
    bool made = !im->domains && node_noutputs(n) <= 1;
    if (!made) {
        uint32_t id = node_id(n);
        const Onnx__NodeProto *np = id < im->m->norigin ? im->m->origin[id] : NULL;
        made = np && np->n_output <= 1 && !(np->domain && np->domain[0]);
    }
    return made ? onnx_type_of_plain(im->g, n, plain, why) : onnx_type_of(im->g, n, why);
}

/* The type inference gives n: its relation's for a call (plain: the
 * graph's cache), the tuple's field for an element; NULL when it knows
 * none.  why: a contradiction. */
static const graft_type *inferred_type(Importer *im, const graft_node *n, OnnxPlainTypes *plain,
                                       StrBuf *why)
{
    if (node_kind(n) == NODE_CALL)
        return call_type(im, n, plain, why);
    if (node_kind(n) != NODE_GETITEM)
        return NULL;
    const graft_type *tuple = node_type(node_arg(n, 0));
    return tuple && tuple->kind == TYPE_TUPLE && node_index(n) < tuple->nfields
               ? tuple->fields[node_index(n)]
               : NULL;
}

/* "node 'LABEL' (OP): WHY", at the node's op in a text model (note [text
 * positions]); an element's error is its call's. */
static void report_at_node(Importer *im, const graft_node *call, const char *why)
{
    const char *label = onnx_node_label(im->m, call);
    uint32_t id = node_id(call);
    const Onnx__NodeProto *np = id < im->m->norigin ? im->m->origin[id] : NULL;
    onnx_error_at(im->d, im->m->proto, im->m->name, np, "node '%s' (%s): %s",
                  label ? label : "?", node_op(call) ? node_op(call) : "?", why);
}

/* note [leaves skipped]: the walk over the ids that finds the unread
 * values (note [kept values] in onnx_graph.h), and infers types in the
 * same steps (import_infer_types), starts past the leaves that cannot
 * matter to it, a graph input's parameter (no value kept) and, for
 * inference, an initializer (no call): the seed's workload has 50,000
 * inputs to 60,000 op nodes, and a step of a loop that skips one, a call
 * of graph_node and of graph_node_count, cost 20 instructions an op node
 * a loop (bench/onnx_e2e.sh); a walk of their own for the unread values
 * cost 4 (issue 34's workload). */

/* The types of what value_info does not type, operands first (ids are in
 * ONNX's topological order), and those it declares checked (note
 * [declared types checked] in onnx_import.c); past the leaves (note
 * [leaves skipped]), and no node is made meanwhile.  A contradiction is
 * an error naming the node.  In the same walk, the unread values into
 * out. */
void import_infer_types(Importer *im, OutputValues *out)
{
    StrBuf why = {0};
    uint32_t count = graph_node_count(im->g);
    OnnxPlainTypes *plain = onnx_plain_types(im->g); /* note [made calls' types] */
    for (uint32_t id = im->after_inputs; id < count && im->ok; id++) {
        graft_node *n = graph_node(im->g, id);
        keep_unread(out, n, id);
        if (id < im->after_leaves)
            continue; /* (an initializer: no call) */
        const graft_type *declared = node_type(n);
        const graft_type *t = inferred_type(im, n, plain, &why);
        if (!why.len && t && declared && !types_agree(declared, t)) {
            const char *value = graph_value_name(im->g, n);
            strbuf_printf(&why, "'%s' is declared %s, but the node makes %s",
                          value ? value : "?", declared->text, t->text);
        }
        if (why.len && unsure(im))
            break;
        if (why.len) {
            report_at_node(im, node_kind(n) == NODE_GETITEM ? node_arg(n, 0) : n, why.data);
            im->ok = false;
        } else if (t && !declared)
            graph_set_type(im->g, n, t);
    }
    strbuf_free(&why);
}
