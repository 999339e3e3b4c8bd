/* onnx_control.c - control flow ops' subgraphs as graphs of their own
 * (note [control bodies] in onnx_control.h). */
#include "onnx_control.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dtype.h"
#include "onnx_model.h"
#include "onnx_subgraph.h"

Onnx__GraphProto *onnx_body_proto(const graft_attr_value *v)
{
    if (!v || v->kind != GRAFT_ATTR_GRAPH || !v->data)
        return NULL;
    return onnx__graph_proto__unpack(NULL, v->nbytes, v->data);
}

void onnx_body_proto_free(Onnx__GraphProto *gp)
{
    if (gp)
        onnx__graph_proto__free_unpacked(gp, NULL);
}

OnnxType onnx_body_value_type(const Onnx__ValueInfoProto *vi)
{
    OnnxType t = {.rank = -1};
    const Onnx__TypeProto *tp = vi ? vi->type : NULL;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return t;
    const DTypeInfo *info = dtype_info(tp->tensor_type->elem_type);
    t.dtype = info ? info->name : NULL;
    const Onnx__TensorShapeProto *shape = tp->tensor_type->shape;
    if (!shape || shape->n_dim > ONNX_MAX_RANK)
        return t;
    t.rank = (int)shape->n_dim;
    for (size_t i = 0; i < shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
        bool known = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                     d->dim_value >= 0;
        t.dims[i] = known ? d->dim_value : DIM_ANY;
    }
    return t;
}

/* call's subgraph attributes, unpacked, as the attributes of a NodeProto
 * for onnx_outer_reads; false when one does not unpack. */
typedef struct Bodies {
    Onnx__NodeProto node;
    Onnx__AttributeProto *attrs;   /* one per GRAPH attribute */
    Onnx__AttributeProto **ptrs;
} Bodies;

static bool bodies_unpack(const graft_node *call, Bodies *b)
{
    int n = node_nattrs(call);
    *b = (Bodies){.attrs = xcalloc((size_t)n + 1, sizeof *b->attrs),
                  .ptrs = xcalloc((size_t)n + 1, sizeof *b->ptrs)};
    onnx__node_proto__init(&b->node);
    b->node.attribute = b->ptrs;
    for (int i = 0; i < n; i++) {
        const graft_attr *a = node_attr(call, i);
        if (a->value->kind != GRAFT_ATTR_GRAPH)
            continue;
        Onnx__AttributeProto *ap = &b->attrs[b->node.n_attribute];
        onnx__attribute_proto__init(ap);
        ap->name = (char *)a->name;
        ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
        b->ptrs[b->node.n_attribute++] = ap;
        if (!(ap->g = onnx_body_proto(a->value)))
            return false;
    }
    return true;
}

static void bodies_free(Bodies *b)
{
    for (size_t i = 0; i < b->node.n_attribute; i++)
        onnx_body_proto_free(b->attrs[i].g);
    free(b->attrs);
    free(b->ptrs);
}

/* The outer names call's subgraphs read, interned in scratch, into
 * *names (malloc'd); -1 when a subgraph does not unpack. */
static int call_outer_names(const graft_node *call, graft_graph *scratch, const char ***names)
{
    Bodies b;
    *names = NULL;
    int n = -1;
    if (bodies_unpack(call, &b))
        n = (int)onnx_outer_reads(scratch, &b.node, names);
    bodies_free(&b);
    return n;
}

int onnx_call_nouter(const graft_node *call)
{
    graft_graph *scratch = graph_new();
    const char **names;
    int n = call_outer_names(call, scratch, &names);
    free(names);
    graph_free(scratch);
    return n;
}

/* Adds an opset import of domain to m unless it has one. */
static void import_domain(Onnx__ModelProto *m, const char *domain, Arena *arena)
{
    domain = domain && strcmp(domain, "ai.onnx") != 0 ? domain : "";
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *has = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
        if (strcmp(has, domain) == 0 || (!domain[0] && strcmp(has, "ai.onnx") == 0))
            return;
    }
    Onnx__OperatorSetIdProto *op = arena_alloc(arena, sizeof *op);
    onnx__operator_set_id_proto__init(op);
    op->domain = (char *)domain;
    op->has_version = true;
    op->version = domain[0] ? 1 : 17; /* the check asks for the domain only */
    Onnx__OperatorSetIdProto **grown = arena_array(arena, m->n_opset_import + 2, sizeof *grown);
    for (size_t i = 0; i < m->n_opset_import; i++)
        grown[i] = m->opset_import[i];
    grown[m->n_opset_import++] = op;
    m->opset_import = grown;
}

/* The domains of gp's nodes, nested subgraphs' too (the check asks an
 * opset import of each). */
static void import_domains(Onnx__ModelProto *m, const Onnx__GraphProto *gp, Arena *arena)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        import_domain(m, np->domain, arena);
        for (size_t a = 0; a < np->n_attribute; a++) {
            for (size_t k = 0; k < np->attribute[a]->n_graphs; k++)
                import_domains(m, np->attribute[a]->graphs[k], arena);
            if (np->attribute[a]->g)
                import_domains(m, np->attribute[a]->g, arena);
        }
    }
}

/* A tensor type t as ONNX's TypeProto, in arena; NULL for another type
 * or a dtype ONNX has no number for. */
static Onnx__TypeProto *type_proto(const graft_type *t, Arena *arena)
{
    DType dt = t && t->kind == TYPE_TENSOR ? dtype_from_name(t->dtype) : DTYPE_UNDEFINED;
    if (dt == DTYPE_UNDEFINED)
        return NULL;
    Onnx__TypeProto *tp = arena_alloc(arena, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = arena_alloc(arena, sizeof *tt);
    Onnx__TensorShapeProto *shape = arena_alloc(arena, sizeof *shape);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(shape);
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    tt->has_elem_type = true;
    tt->elem_type = (int32_t)dt;
    tt->shape = shape;
    shape->n_dim = (size_t)t->rank;
    shape->dim = arena_array(arena, (size_t)t->rank + 1, sizeof *shape->dim);
    for (int i = 0; i < t->rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = arena_alloc(arena, sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (t->dims[i] >= 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = t->dims[i];
        }
        shape->dim[i] = d;
    }
    return tp;
}

/* The model whose graph is gp with the outer names it reads as inputs
 * after its own (of types[k], where types and it are not NULL), packed;
 * *len its bytes (malloc'd).  Its opset imports: top's (NULL: none), and
 * one of every other domain gp's nodes call. */
static uint8_t *wrap_body(const Onnx__GraphProto *gp, const Onnx__ModelProto *top,
                          const char *const *outer, const graft_type *const *types,
                          size_t nouter, size_t *len)
{
    Arena *arena = arena_new();
    Onnx__GraphProto g = *gp;
    g.input = arena_array(arena, gp->n_input + nouter + 1, sizeof *g.input);
    for (size_t i = 0; i < gp->n_input; i++)
        g.input[i] = gp->input[i];
    for (size_t k = 0; k < nouter; k++) {
        Onnx__ValueInfoProto *vi = arena_alloc(arena, sizeof *vi);
        onnx__value_info_proto__init(vi);
        vi->name = (char *)outer[k];
        vi->type = types ? type_proto(types[k], arena) : NULL;
        g.input[gp->n_input + k] = vi;
    }
    g.n_input = gp->n_input + nouter;
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = true;
    m.ir_version = 8;
    m.graph = &g;
    if (top) {
        m.n_opset_import = top->n_opset_import;
        m.opset_import = top->opset_import;
    }
    import_domain(&m, "", arena);
    import_domains(&m, gp, arena);
    *len = onnx__model_proto__get_packed_size(&m);
    uint8_t *bytes = xmalloc(*len + 1);
    onnx__model_proto__pack(&m, bytes);
    arena_free(arena);
    return bytes;
}

/* The first message a capturing diag holds, into why. */
static void capture_why(graft_diag *d, StrBuf *why)
{
    const DiagCapture *c = diag_capture_of(d);
    const graft_message *msg = c && diag_capture_count(c) ? diag_capture_get(c, 0) : NULL;
    strbuf_puts(why, msg && msg->text ? msg->text : "the subgraph cannot be imported");
}

/* Index of name among names[0..n-1], -1 if absent. */
static int index_of(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

size_t onnx_graph_outer_reads(graft_graph *g, const Onnx__GraphProto *gp, const char ***names)
{
    Onnx__NodeProto np;
    Onnx__AttributeProto a, *ap = &a;
    onnx__node_proto__init(&np);
    onnx__attribute_proto__init(&a);
    a.g = (Onnx__GraphProto *)gp;
    np.n_attribute = 1;
    np.attribute = &ap;
    return onnx_outer_reads(g, &np, names);
}

Onnx__ModelProto *onnx_body_model(const Onnx__GraphProto *gp, const Onnx__ModelProto *top,
                                  const char *const *outer, const graft_type *const *types,
                                  size_t nouter, graft_diag *d)
{
    size_t len;
    uint8_t *bytes = wrap_body(gp, top, outer, types, nouter, &len);
    const char *name = gp->name && gp->name[0] ? gp->name : "subgraph";
    /* gp nests less deeply than the model it came from, which passed its
     * depth limit: the largest one --limit takes */
    graft_limits limits = *limit_or_default(NULL);
    limits.onnx_depth = 1024; /* onnx-depth's most (src/base/limit.h) */
    return onnx_model_adopt(bytes, len, name, &limits, d); /* bytes its own */
}

/* The body gp imported with its own outer reads as parameters; the
 * call's outer names (call_outer, n of them) place each. */
static bool import_body(const Onnx__GraphProto *gp, const char *const *call_outer, int ncall,
                        OnnxBody *b, StrBuf *why)
{
    graft_graph *scratch = graph_new();
    const char **own;
    b->nouter = (int)onnx_graph_outer_reads(scratch, gp, &own);
    b->outer_at = xcalloc((size_t)b->nouter + 1, sizeof *b->outer_at);
    for (int k = 0; k < b->nouter; k++)
        b->outer_at[k] = index_of(own[k], call_outer, ncall); /* a subset: found */
    graft_diag *d = diag_new_capture();
    Onnx__ModelProto *model = onnx_body_model(gp, NULL, own, NULL, (size_t)b->nouter, d);
    free(own);
    graph_free(scratch);
    const char *name = gp->name && gp->name[0] ? gp->name : "subgraph";
    b->m = model ? onnx_import(model, name, d) : NULL;
    if (!b->m)
        capture_why(d, why);
    diag_free(d);
    return b->m != NULL;
}

bool onnx_body_import(const graft_node *call, const char *attr, OnnxBody *b, StrBuf *why)
{
    *b = (OnnxBody){0};
    const graft_attr_value *v = node_find_attr(call, attr);
    Onnx__GraphProto *gp = onnx_body_proto(v);
    if (!gp) {
        strbuf_printf(why, v ? "attribute %s does not unpack as a graph" : "no attribute %s",
                      attr);
        return false;
    }
    graft_graph *scratch = graph_new();
    const char **outer;
    b->call_nouter = call_outer_names(call, scratch, &outer);
    bool ok = b->call_nouter >= 0;
    if (!ok)
        strbuf_puts(why, "a graph attribute does not unpack");
    else
        ok = import_body(gp, outer, b->call_nouter, b, why);
    free(outer);
    graph_free(scratch);
    if (ok) {
        b->ninputs = (int)gp->n_input;
        b->noutputs = (int)gp->n_output;
    }
    onnx_body_proto_free(gp);
    if (!ok)
        onnx_body_free(b);
    return ok;
}

void onnx_body_free(OnnxBody *b)
{
    onnx_graph_free(b->m);
    free(b->outer_at);
    *b = (OnnxBody){0};
}
