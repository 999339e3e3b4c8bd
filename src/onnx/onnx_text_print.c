/* onnx_text_print.c - a ModelProto in ONNX's text syntax (note [onnx
 * text] in onnx_text.h), laid out canonically: the model's header, one
 * key a line; the graph's signature; its initializers and value infos,
 * one a line, between '<' and '>'; its nodes, one a line, between '{'
 * and '}'; then each function.  Nested graphs (If's branches) are laid
 * out the same way, one level deeper.  Every attribute is written with
 * its kind ("group: int = 1"), so that reading needs no guess. */
#include "onnx_text.h"

#include <inttypes.h>
#include <string.h>

#include "dtype.h"
#include "onnx_text_impl.h"

static void print_graph(TextPrinter *p, const Onnx__GraphProto *g);

static void print_str(TextPrinter *p, const char *s)
{
    text_print_string(p, s ? s : "", s ? strlen(s) : 0);
}

static void print_shape(TextPrinter *p, const Onnx__TensorShapeProto *shape)
{
    if (!shape) {
        fputs("[]", p->out); /* unknown rank; no brackets at all is rank 0 */
        return;
    }
    if (!shape->n_dim)
        return;
    fputc('[', p->out);
    for (size_t i = 0; i < shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dim = shape->dim[i];
        if (i)
            fputs(", ", p->out);
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            fprintf(p->out, "%" PRId64, dim->dim_value);
        else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            text_print_id(p, dim->dim_param);
        else
            fputc('?', p->out);
    }
    fputc(']', p->out);
}

static void print_elem_type(TextPrinter *p, bool has, int32_t elem_type)
{
    const char *name = has ? dtype_onnx_text_name((DType)elem_type) : NULL;
    fputs(name ? name : "undefined", p->out);
}

/* TYPE: float[N, 3], seq(T), map(K, T), optional(T), sparse_tensor(T). */
static void print_type(TextPrinter *p, const Onnx__TypeProto *t)
{
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        print_elem_type(p, t->tensor_type->has_elem_type, t->tensor_type->elem_type);
        print_shape(p, t->tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: {
        bool seq = t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
        const Onnx__TypeProto *elem = seq ? t->sequence_type->elem_type :
                                            t->optional_type->elem_type;
        fputs(seq ? "seq(" : "optional(", p->out);
        if (elem)
            print_type(p, elem);
        fputc(')', p->out);
        break;
    }
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        fputs("map(", p->out);
        print_elem_type(p, t->map_type->has_key_type, t->map_type->key_type);
        fputs(", ", p->out);
        if (t->map_type->value_type)
            print_type(p, t->map_type->value_type);
        fputc(')', p->out);
        break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        fputs("sparse_tensor(", p->out);
        print_elem_type(p, t->sparse_tensor_type->has_elem_type,
                        t->sparse_tensor_type->elem_type);
        print_shape(p, t->sparse_tensor_type->shape);
        fputc(')', p->out);
        break;
    default:
        fputs("undefined", p->out); /* no type the syntax can say */
        break;
    }
}

/* [TYPE] NAME: a value info without a type is its name alone. */
static void print_value_info(TextPrinter *p, const Onnx__ValueInfoProto *vi)
{
    if (vi->type) {
        print_type(p, vi->type);
        fputc(' ', p->out);
    }
    text_print_id(p, vi->name);
}

static void print_value_infos(TextPrinter *p, size_t n, Onnx__ValueInfoProto **vis)
{
    fputc('(', p->out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", p->out);
        print_value_info(p, vis[i]);
    }
    fputc(')', p->out);
}

static void print_ids(TextPrinter *p, size_t n, char **ids)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", p->out);
        text_print_id(p, ids[i]);
    }
}

static void print_sep(TextPrinter *p, size_t i)
{
    if (i)
        fputs(", ", p->out);
}

/* [ELEMENTS] of a list attribute of kind kind. */
static void print_attr_list(TextPrinter *p, const Onnx__AttributeProto *a, int kind)
{
    fputc('[', p->out);
    for (size_t i = 0; kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS && i < a->n_ints; i++)
        fprintf(p->out, i ? ", %" PRId64 : "%" PRId64, a->ints[i]);
    for (size_t i = 0; kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS &&
                       i < a->n_floats; i++) {
        print_sep(p, i);
        text_print_float(p, a->floats[i]);
    }
    for (size_t i = 0; kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS &&
                       i < a->n_strings; i++) {
        print_sep(p, i);
        text_print_string(p, (const char *)a->strings[i].data, a->strings[i].len);
    }
    for (size_t i = 0; kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS &&
                       i < a->n_tensors; i++) {
        print_sep(p, i);
        text_print_tensor(p, a->tensors[i], false);
    }
    for (size_t i = 0; kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS &&
                       i < a->n_graphs; i++) {
        print_sep(p, i);
        print_graph(p, a->graphs[i]);
    }
    for (size_t i = 0; kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS &&
                       i < a->n_type_protos; i++) {
        print_sep(p, i);
        print_type(p, a->type_protos[i]);
    }
    fputc(']', p->out);
}

/* An attribute's kind: its type, or for one without (older files) the
 * field that holds its value. */
static int attr_kind(const Onnx__AttributeProto *a)
{
    if (a->has_type)
        return a->type;
    return a->has_f ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT :
           a->has_i ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT :
           a->has_s ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING :
           a->t ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR :
           a->g ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH :
           a->tp ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO :
           a->n_floats ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS :
           a->n_ints ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS :
           a->n_strings ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS :
           a->n_tensors ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS :
           a->n_graphs ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS :
           a->n_type_protos ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS :
           ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

/* Whether the syntax can say the attribute: sparse tensors it cannot. */
static bool attr_printable(const Onnx__AttributeProto *a)
{
    int kind = attr_kind(a);
    return kind != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR &&
           kind != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS &&
           (kind != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED || a->ref_attr_name);
}

/* NAME: KIND = VALUE, or NAME: KIND = @REF (a function's attribute). */
static void print_attr(TextPrinter *p, const Onnx__AttributeProto *a)
{
    int kind = attr_kind(a);
    text_print_id(p, a->name);
    const char *kind_name = text_attr_kind_name(kind);
    if (kind_name)
        fprintf(p->out, ": %s", kind_name);
    fputs(" = ", p->out);
    if (a->ref_attr_name) {
        fputc('@', p->out);
        text_print_id(p, a->ref_attr_name);
    } else if (kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
        fprintf(p->out, "%" PRId64, a->i);
    } else if (kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
        text_print_float(p, a->f);
    } else if (kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) {
        text_print_string(p, (const char *)a->s.data, a->s.len);
    } else if (kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t) {
        text_print_tensor(p, a->t, false);
    } else if (kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH && a->g) {
        print_graph(p, a->g);
    } else if (kind == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO && a->tp) {
        print_type(p, a->tp);
    } else {
        print_attr_list(p, a, kind);
    }
}

/* " <ATTR, ...>" of the attributes the syntax can say; nothing if none. */
static void print_attrs(TextPrinter *p, const Onnx__NodeProto *n)
{
    size_t printed = 0;
    for (size_t i = 0; i < n->n_attribute; i++) {
        if (!attr_printable(n->attribute[i]))
            continue;
        fputs(printed++ ? ", " : " <", p->out);
        print_attr(p, n->attribute[i]);
    }
    if (printed)
        fputc('>', p->out);
}

static bool has_graph_attr(const Onnx__NodeProto *n)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->g || n->attribute[i]->n_graphs)
            return true;
    return false;
}

/* DOMAIN.OP, each part of the domain between its dots and the op type
 * quoted when it is no identifier (note [quoted op types] in
 * grammar/onnx_text_parse.y): the reader joins the domain's parts with
 * dots again, and takes the last part as the op type. */
static void print_op(TextPrinter *p, const char *domain, const char *op_type)
{
    for (const char *part = domain, *dot; part && *domain; part = dot + 1) {
        dot = strchr(part, '.');
        text_print_id_len(p, part, dot ? (size_t)(dot - part) : strlen(part));
        fputc('.', p->out);
        if (!dot)
            break;
    }
    text_print_id(p, op_type);
}

/* [NAME] OUT, ... = DOMAIN.OP <ATTRS> (IN, ...); the attributes after
 * the inputs when one is a graph, as onnx.printer writes them. */
static void print_node(TextPrinter *p, const Onnx__NodeProto *n)
{
    if (n->name) {
        fputc('[', p->out);
        text_print_id(p, n->name);
        fputs("] ", p->out);
    }
    print_ids(p, n->n_output, n->output);
    fputs(n->n_output ? " = " : "= ", p->out);
    print_op(p, n->domain, n->op_type);
    bool graphs = has_graph_attr(n);
    if (!graphs)
        print_attrs(p, n);
    fputs(" (", p->out);
    print_ids(p, n->n_input, n->input);
    fputc(')', p->out);
    if (graphs)
        print_attrs(p, n);
}

/* NAME (INPUTS) => (OUTPUTS) <INITIALIZERS, VALUE INFOS> {NODES} */
static void print_graph(TextPrinter *p, const Onnx__GraphProto *g)
{
    text_print_id(p, g->name);
    fputc(' ', p->out);
    print_value_infos(p, g->n_input, g->input);
    fputs(" => ", p->out);
    print_value_infos(p, g->n_output, g->output);
    p->depth++;
    if (g->n_initializer || g->n_value_info) {
        fputs(" <", p->out);
        for (size_t i = 0; i < g->n_initializer + g->n_value_info; i++) {
            fputs(i ? "," : "", p->out);
            text_print_newline(p);
            if (i < g->n_initializer)
                text_print_tensor(p, g->initializer[i], true);
            else
                print_value_info(p, g->value_info[i - g->n_initializer]);
        }
        p->depth--;
        text_print_newline(p);
        fputc('>', p->out);
        p->depth++;
    }
    fputs(" {", p->out);
    for (size_t i = 0; i < g->n_node; i++) {
        text_print_newline(p);
        print_node(p, g->node[i]);
    }
    p->depth--;
    text_print_newline(p);
    fputc('}', p->out);
}

static void print_opsets(TextPrinter *p, size_t n, Onnx__OperatorSetIdProto **opsets)
{
    fputc('[', p->out);
    for (size_t i = 0; i < n; i++) {
        print_sep(p, i);
        print_str(p, opsets[i]->domain);
        fprintf(p->out, " : %" PRId64, opsets[i]->version);
    }
    fputc(']', p->out);
}

/* One "KEY: " line of a header, after the previous one's ','. */
static void print_key(TextPrinter *p, size_t *keys, const char *key)
{
    fputs(*keys ? ",\n  " : "<\n  ", p->out);
    fprintf(p->out, "%s: ", key);
    ++*keys;
}

static void print_model_header(TextPrinter *p, const Onnx__ModelProto *m)
{
    size_t keys = 0;
    if (m->has_ir_version) {
        print_key(p, &keys, "ir_version");
        fprintf(p->out, "%" PRId64, m->ir_version);
    }
    if (m->n_opset_import) {
        print_key(p, &keys, "opset_import");
        print_opsets(p, m->n_opset_import, m->opset_import);
    }
    const char *const strings[] = {m->producer_name, m->producer_version, m->domain};
    const char *const names[] = {"producer_name", "producer_version", "domain"};
    for (size_t i = 0; i < 3; i++) {
        if (strings[i]) {
            print_key(p, &keys, names[i]);
            print_str(p, strings[i]);
        }
    }
    if (m->has_model_version) {
        print_key(p, &keys, "model_version");
        fprintf(p->out, "%" PRId64, m->model_version);
    }
    if (m->doc_string) {
        print_key(p, &keys, "doc_string");
        print_str(p, m->doc_string);
    }
    if (m->n_metadata_props) {
        print_key(p, &keys, "metadata_props");
        fputc('[', p->out);
        for (size_t i = 0; i < m->n_metadata_props; i++) {
            print_sep(p, i);
            print_str(p, m->metadata_props[i]->key);
            fputs(": ", p->out);
            print_str(p, m->metadata_props[i]->value);
        }
        fputc(']', p->out);
    }
    if (keys)
        fputs("\n>\n", p->out);
}

/* <domain: D, opset_import: [...], doc_string: S> NAME <ATTRS> (IN) => (OUT) {NODES} */
static void print_function(TextPrinter *p, const Onnx__FunctionProto *f)
{
    size_t keys = 0;
    if (f->domain) {
        print_key(p, &keys, "domain");
        print_str(p, f->domain);
    }
    if (f->n_opset_import) {
        print_key(p, &keys, "opset_import");
        print_opsets(p, f->n_opset_import, f->opset_import);
    }
    if (f->doc_string) {
        print_key(p, &keys, "doc_string");
        print_str(p, f->doc_string);
    }
    if (keys)
        fputs("\n>\n", p->out);
    text_print_id(p, f->name);
    if (f->n_attribute) {
        fputs(" <", p->out);
        print_ids(p, f->n_attribute, f->attribute);
        fputc('>', p->out);
    }
    fputs(" (", p->out);
    print_ids(p, f->n_input, f->input);
    fputs(") => (", p->out);
    print_ids(p, f->n_output, f->output);
    fputs(") {", p->out);
    p->depth++;
    for (size_t i = 0; i < f->n_node; i++) {
        text_print_newline(p);
        print_node(p, f->node[i]);
    }
    p->depth--;
    fputs("\n}\n", p->out);
}

bool onnx_text_print(const Onnx__ModelProto *model, FILE *out)
{
    TextPrinter p = {out, 0};
    print_model_header(&p, model);
    if (model->graph)
        print_graph(&p, model->graph);
    fputc('\n', out);
    for (size_t i = 0; i < model->n_functions; i++) {
        fputc('\n', out);
        print_function(&p, model->functions[i]);
    }
    return !ferror(out);
}
