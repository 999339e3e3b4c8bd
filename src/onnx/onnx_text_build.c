/* onnx_text_build.c - what the grammar of ONNX's text syntax builds:
 * names, types, nodes, graphs, functions and the model, as protobuf-c
 * structs in an arena (note [text arena] in onnx_text_build.h). */
#include "onnx_text_build.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_text_impl.h"

void text_list_push(OnnxTextParser *ps, TextList *list, void *item)
{
    size_t n = list->n;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        void **items = arena_array(ps->arena, n ? 2 * n : 4, sizeof *items);
        if (n)
            memcpy(items, list->items, n * sizeof *items);
        list->items = items;
    }
    list->items[list->n++] = item;
}

/* The bytes of a name token: an identifier's, or a string's without its
 * quotes and escapes ('\' takes the next byte as it is). */
static char *token_text(OnnxTextParser *ps, TextTok tok)
{
    const char *s = ps->src->text + tok.off;
    if (s[0] != '"')
        return arena_strndup(ps->arena, s, tok.len);
    char *out = arena_alloc(ps->arena, tok.len);
    size_t k = 0;
    for (size_t i = 1; i + 1 < tok.len; i++)
        out[k++] = s[i] == '\\' ? s[++i] : s[i];
    out[k] = '\0';
    return out;
}

TextName *text_new_name(OnnxTextParser *ps, TextTok tok, SrcRange where)
{
    TextName *name = arena_alloc(ps->arena, sizeof *name);
    *name = (TextName){token_text(ps, tok), where};
    return name;
}

TextLit *text_new_lit(OnnxTextParser *ps, TextLitKind kind, bool negative, TextTok tok,
                      SrcRange where)
{
    TextLit *lit = arena_alloc(ps->arena, sizeof *lit);
    *lit = (TextLit){kind, negative, tok, where};
    return lit;
}

TextEntry *text_entry(OnnxTextParser *ps, TextName *key, TextLit *lit, const TextList *list)
{
    TextEntry *e = arena_alloc(ps->arena, sizeof *e);
    e->key = *key;
    if (lit)
        e->value = *lit;
    e->is_list = list != NULL;
    if (list)
        e->list = *list;
    return e;
}

void text_syntax_error(OnnxTextParser *ps, SrcRange where, const char *unexpected,
                       const char *const *expected, int nexpected)
{
    StrBuf msg = {0};
    strbuf_printf(&msg, "unexpected %s", unexpected ? unexpected : "end of input");
    if (unexpected && (strcmp(unexpected, "identifier") == 0 ||
                       strcmp(unexpected, "integer") == 0 || strcmp(unexpected, "number") == 0))
        strbuf_printf(&msg, " '%.*s'", (int)ps->last.len, ps->src->text + ps->last.off);
    for (int i = 0; i < nexpected; i++)
        strbuf_printf(&msg, "%s%s", i == 0 ? "; expected " : i + 1 == nexpected ? " or " : ", ",
                      expected[i]);
    diag_error(ps->d, ps->src, where, "%s", msg.data);
    strbuf_free(&msg);
    bool closer = !unexpected || strchr(")]}>", unexpected[1]) != NULL;
    if (ps->opens.len && closer)
        diag_note(ps->d, ps->src, ps->opens.items[ps->opens.len - 1], "inside this '%c'",
                  ps->open_chars.items[ps->open_chars.len - 1]);
}

void text_unknown_type(OnnxTextParser *ps, TextTok tok, SrcRange where)
{
    StrBuf names = {0};
    for (int d = DTYPE_UNDEFINED + 1; d < DTYPE_COUNT; d++)
        strbuf_printf(&names, "%s%s", d == DTYPE_UNDEFINED + 1 ? "" :
                      d + 1 == DTYPE_COUNT ? " or " : ", ", dtype_onnx_text_name((DType)d));
    diag_error(ps->d, ps->src, where, "unknown element type '%.*s'; expected %s",
               (int)tok.len, ps->src->text + tok.off, names.data);
    strbuf_free(&names);
}

static Onnx__TypeProto *new_type(OnnxTextParser *ps, Onnx__TypeProto__ValueCase kind)
{
    Onnx__TypeProto *t = arena_alloc(ps->arena, sizeof *t);
    onnx__type_proto__init(t);
    t->value_case = kind;
    return t;
}

static Onnx__TensorShapeProto *new_shape(OnnxTextParser *ps, TextList dims)
{
    Onnx__TensorShapeProto *shape = arena_alloc(ps->arena, sizeof *shape);
    onnx__tensor_shape_proto__init(shape);
    shape->n_dim = dims.n;
    shape->dim = (Onnx__TensorShapeProto__Dimension **)dims.items;
    return shape;
}

Onnx__TypeProto *text_tensor_type(OnnxTextParser *ps, TextTok dtype, SrcRange where,
                                  bool has_shape, TextList dims, bool sparse)
{
    (void)where; /* the scanner made it a DTYPE: a known name */
    int32_t elem = dtype_from_onnx_text_name(ps->src->text + dtype.off, dtype.len);
    Onnx__TensorShapeProto *shape = has_shape ? new_shape(ps, dims) : NULL;
    if (sparse) {
        Onnx__TypeProto *t = new_type(ps, ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE);
        t->sparse_tensor_type = arena_alloc(ps->arena, sizeof *t->sparse_tensor_type);
        onnx__type_proto__sparse_tensor__init(t->sparse_tensor_type);
        t->sparse_tensor_type->has_elem_type = true;
        t->sparse_tensor_type->elem_type = elem;
        t->sparse_tensor_type->shape = shape;
        return t;
    }
    Onnx__TypeProto *t = new_type(ps, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
    t->tensor_type = arena_alloc(ps->arena, sizeof *t->tensor_type);
    onnx__type_proto__tensor__init(t->tensor_type);
    t->tensor_type->has_elem_type = true;
    t->tensor_type->elem_type = elem;
    t->tensor_type->shape = shape;
    return t;
}

Onnx__TypeProto *text_wrap_type(OnnxTextParser *ps, int kind, Onnx__TypeProto *elem)
{
    Onnx__TypeProto *t = new_type(ps, (Onnx__TypeProto__ValueCase)kind);
    if (kind == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
        t->sequence_type = arena_alloc(ps->arena, sizeof *t->sequence_type);
        onnx__type_proto__sequence__init(t->sequence_type);
        t->sequence_type->elem_type = elem;
    } else {
        t->optional_type = arena_alloc(ps->arena, sizeof *t->optional_type);
        onnx__type_proto__optional__init(t->optional_type);
        t->optional_type->elem_type = elem;
    }
    return t;
}

Onnx__TypeProto *text_map_type(OnnxTextParser *ps, TextTok key, SrcRange where,
                               Onnx__TypeProto *value)
{
    (void)where;
    Onnx__TypeProto *t = new_type(ps, ONNX__TYPE_PROTO__VALUE_MAP_TYPE);
    t->map_type = arena_alloc(ps->arena, sizeof *t->map_type);
    onnx__type_proto__map__init(t->map_type);
    t->map_type->has_key_type = true;
    t->map_type->key_type = dtype_from_onnx_text_name(ps->src->text + key.off, key.len);
    t->map_type->value_type = value;
    return t;
}

Onnx__TensorShapeProto__Dimension *text_dim(OnnxTextParser *ps, const TextLit *lit,
                                            TextTok tok, bool unknown)
{
    Onnx__TensorShapeProto__Dimension *dim = arena_alloc(ps->arena, sizeof *dim);
    onnx__tensor_shape_proto__dimension__init(dim);
    if (lit) {
        errno = 0;
        char *end;
        unsigned long long v = strtoull(ps->src->text + lit->tok.off, &end, 10);
        if (errno || v > (unsigned long long)INT64_MAX) {
            diag_error(ps->d, ps->src, lit->where, "dimension %.*s is out of range",
                       (int)lit->tok.len, ps->src->text + lit->tok.off);
            return NULL;
        }
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        dim->dim_value = lit->negative ? -(int64_t)v : (int64_t)v;
    } else if (!unknown) {
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        dim->dim_param = token_text(ps, tok);
    }
    return dim;
}

TextValue *text_value(OnnxTextParser *ps, Onnx__TypeProto *type, TextName *name)
{
    TextValue *v = arena_alloc(ps->arena, sizeof *v);
    v->info = arena_alloc(ps->arena, sizeof *v->info);
    onnx__value_info_proto__init(v->info);
    v->info->name = name->s;
    v->info->type = type;
    v->where = name->where;
    return v;
}

/* The strings of a list of TextName; an item left empty (NULL) is "". */
static char **name_strings(OnnxTextParser *ps, TextList names, size_t *n)
{
    char **out = arena_array(ps->arena, names.n, sizeof *out);
    for (size_t i = 0; i < names.n; i++)
        out[i] = names.items[i] ? ((TextName *)names.items[i])->s : "";
    *n = names.n;
    return out;
}

/* A node's inputs or outputs as onnx.parser reads them: "()" holds none
 * (one item, left empty), and a last item left empty after a ',' is no
 * item ("(x,)" is "(x)"). */
static TextList node_ids(TextList ids)
{
    if (ids.n && !ids.items[ids.n - 1])
        ids.n--;
    return ids;
}

/* DOMAIN.OP: the segments before the last are the domain, joined by
 * '.'; none, an absent domain (the default one). */
static void node_op(OnnxTextParser *ps, Onnx__NodeProto *n, TextList op)
{
    n->op_type = ((TextName *)op.items[op.n - 1])->s;
    if (op.n == 1)
        return;
    StrBuf domain = {0};
    for (size_t i = 0; i + 1 < op.n; i++)
        strbuf_printf(&domain, i ? ".%s" : "%s", ((TextName *)op.items[i])->s);
    n->domain = arena_strdup(ps->arena, domain.data);
    strbuf_free(&domain);
}

TextNode *text_node(OnnxTextParser *ps, TextName *name, TextList outputs, TextList op,
                    TextList attrs, TextList inputs, TextList attrs_after, SrcRange after_at)
{
    if (attrs.n && attrs_after.n) {
        diag_error(ps->d, ps->src, after_at, "a node's attributes go before its inputs or "
                   "after them, not both");
        return NULL;
    }
    TextList attributes = attrs.n ? attrs : attrs_after;
    TextNode *node = arena_alloc(ps->arena, sizeof *node);
    Onnx__NodeProto *n = &node->proto;
    onnx__node_proto__init(n);
    n->name = name ? name->s : NULL;
    outputs = node_ids(outputs);
    inputs = node_ids(inputs);
    n->output = name_strings(ps, outputs, &n->n_output);
    n->input = name_strings(ps, inputs, &n->n_input);
    node_op(ps, n, op);
    n->n_attribute = attributes.n;
    n->attribute = (Onnx__AttributeProto **)attributes.items;
    node->outputs = outputs;
    node->inputs = inputs;
    ps->places += 1 + inputs.n;
    const SrcRange *op_end = &((TextName *)op.items[op.n - 1])->where;
    node->op = ((TextName *)op.items[0])->where;
    node->op.last_line = op_end->last_line;
    node->op.last_column = op_end->last_column;
    return node;
}

/* The names a graph defines: its inputs, initializers and node outputs,
 * each once (an initializer may share an input's name: its default
 * value).  Names are kept by hash; two names of one hash (never seen)
 * would skip the check, and onnx_model_check would still catch a
 * duplicate. */
typedef struct Defs {
    KeyMap by_hash;  /* hash -> index in names, plus one */
    VEC(const TextName *) names;
} Defs;

static bool define(OnnxTextParser *ps, Defs *defs, const TextName *name, const char *graph)
{
    if (!name->s[0])
        return true; /* an optional output left out */
    uint64_t h = hash_bytes(name->s, strlen(name->s), 0);
    int64_t *slot = keymap_put(&defs->by_hash, h ? h : 1, 0);
    if (*slot && strcmp(defs->names.items[*slot - 1]->s, name->s) == 0) {
        diag_error(ps->d, ps->src, name->where, "'%s' is defined twice in graph '%s'",
                   name->s, graph);
        diag_note(ps->d, ps->src, defs->names.items[*slot - 1]->where, "first defined here");
        return false;
    }
    if (!*slot) {
        vec_push(&defs->names, name);
        *slot = (int64_t)defs->names.len;
    }
    return true;
}

static const TextName *value_name(OnnxTextParser *ps, const TextValue *v)
{
    TextName *name = arena_alloc(ps->arena, sizeof *name);
    *name = (TextName){v->info->name, v->where};
    return name;
}

/* Checks that the graph defines each name once. */
static bool graph_defs_ok(OnnxTextParser *ps, const char *graph, TextList inputs,
                          TextList values, TextList nodes)
{
    Defs defs = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < inputs.n; i++) {
        const TextValue *v = inputs.items[i];
        ok = define(ps, &defs, value_name(ps, v), graph);
    }
    size_t ninputs = defs.names.len;
    for (size_t i = 0; ok && i < values.n; i++) {
        const TextValue *v = values.items[i];
        bool is_input = false;
        for (size_t k = 0; v->init && k < ninputs && !is_input; k++)
            is_input = strcmp(defs.names.items[k]->s, v->info->name) == 0;
        if (v->init && !is_input)
            ok = define(ps, &defs, value_name(ps, v), graph);
    }
    for (size_t i = 0; ok && i < nodes.n; i++) {
        const TextNode *n = nodes.items[i];
        for (size_t k = 0; ok && k < n->outputs.n; k++)
            ok = !n->outputs.items[k] || define(ps, &defs, n->outputs.items[k], graph);
    }
    keymap_free(&defs.by_hash);
    vec_free(&defs.names);
    return ok;
}

static Onnx__ValueInfoProto **value_infos(OnnxTextParser *ps, TextList values, size_t *n)
{
    Onnx__ValueInfoProto **out = arena_array(ps->arena, values.n, sizeof *out);
    for (size_t i = 0; i < values.n; i++)
        out[i] = ((TextValue *)values.items[i])->info;
    *n = values.n;
    return out;
}

/* The initializers of the inputs and values that have one, in the order
 * written; the values without one are value infos. */
static void graph_values(OnnxTextParser *ps, Onnx__GraphProto *g, TextList inputs,
                         TextList values)
{
    g->initializer = arena_array(ps->arena, inputs.n + values.n, sizeof *g->initializer);
    g->value_info = arena_array(ps->arena, values.n, sizeof *g->value_info);
    for (size_t i = 0; i < inputs.n; i++) {
        const TextValue *v = inputs.items[i];
        if (v->init)
            g->initializer[g->n_initializer++] = v->init;
    }
    for (size_t i = 0; i < values.n; i++) {
        const TextValue *v = values.items[i];
        if (v->init)
            g->initializer[g->n_initializer++] = v->init;
        else
            g->value_info[g->n_value_info++] = v->info;
    }
}

static Onnx__NodeProto **node_protos(OnnxTextParser *ps, TextList nodes, size_t *n)
{
    Onnx__NodeProto **out = arena_array(ps->arena, nodes.n, sizeof *out);
    for (size_t i = 0; i < nodes.n; i++)
        out[i] = &((TextNode *)nodes.items[i])->proto;
    *n = nodes.n;
    return out;
}

Onnx__GraphProto *text_graph(OnnxTextParser *ps, TextName *name, TextList inputs,
                             TextList outputs, TextList values, TextList nodes)
{
    if (!graph_defs_ok(ps, name->s, inputs, values, nodes))
        return NULL;
    TextGraph *graph = arena_alloc(ps->arena, sizeof *graph);
    graph->outputs = outputs;
    ps->places += outputs.n;
    Onnx__GraphProto *g = &graph->proto;
    onnx__graph_proto__init(g);
    g->name = name->s[0] ? name->s : NULL; /* "": no name */
    g->input = value_infos(ps, inputs, &g->n_input);
    g->output = value_infos(ps, outputs, &g->n_output);
    graph_values(ps, g, inputs, values);
    g->node = node_protos(ps, nodes, &g->n_node);
    return g;
}

/* The value of a header entry as an integer (is_int) or a string. */
static bool entry_scalar(OnnxTextParser *ps, const TextEntry *e, bool is_int, int64_t *i,
                         char **s)
{
    TextLitKind want = is_int ? LIT_INT : LIT_STRING;
    if (e->is_list || e->value.kind != want) {
        diag_error(ps->d, ps->src, e->key.where, "'%s' needs %s", e->key.s,
                   is_int ? "an integer" : "a string");
        return false;
    }
    const char *text = ps->src->text + e->value.tok.off;
    if (!is_int) {
        *s = token_text(ps, e->value.tok);
        return true;
    }
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno || v > (unsigned long long)INT64_MAX) {
        diag_error(ps->d, ps->src, e->value.where, "'%s' is out of range", e->key.s);
        return false;
    }
    *i = e->value.negative ? -(int64_t)v : (int64_t)v;
    return true;
}

/* opset_import: ["DOMAIN" : VERSION, ...]; the domain "" is the default
 * one, kept absent (as exporters write it; doc/onnx.md). */
static bool entry_opsets(OnnxTextParser *ps, const TextEntry *e, size_t *n,
                         Onnx__OperatorSetIdProto ***out)
{
    if (!e->is_list) {
        diag_error(ps->d, ps->src, e->key.where, "'%s' needs a list [\"DOMAIN\" : VERSION, "
                   "...]", e->key.s);
        return false;
    }
    *out = arena_array(ps->arena, e->list.n, sizeof **out);
    *n = e->list.n;
    for (size_t i = 0; i < e->list.n; i++) {
        const TextEntry *item = e->list.items[i];
        Onnx__OperatorSetIdProto *opset = arena_alloc(ps->arena, sizeof *opset);
        onnx__operator_set_id_proto__init(opset);
        opset->domain = item->key.s[0] ? item->key.s : NULL;
        opset->has_version = true;
        if (!entry_scalar(ps, item, true, &opset->version, NULL))
            return false;
        (*out)[i] = opset;
    }
    return true;
}

/* metadata_props: ["KEY": "VALUE", ...]. */
static bool entry_props(OnnxTextParser *ps, const TextEntry *e, Onnx__ModelProto *m)
{
    if (!e->is_list) {
        diag_error(ps->d, ps->src, e->key.where, "'%s' needs a list [\"KEY\": \"VALUE\", "
                   "...]", e->key.s);
        return false;
    }
    m->metadata_props = arena_array(ps->arena, e->list.n, sizeof *m->metadata_props);
    m->n_metadata_props = e->list.n;
    for (size_t i = 0; i < e->list.n; i++) {
        const TextEntry *item = e->list.items[i];
        Onnx__StringStringEntryProto *kv = arena_alloc(ps->arena, sizeof *kv);
        onnx__string_string_entry_proto__init(kv);
        kv->key = item->key.s;
        if (!entry_scalar(ps, item, false, NULL, &kv->value))
            return false;
        m->metadata_props[i] = kv;
    }
    return true;
}

/* The index of e's key in keys, after checking that it is one and that
 * no earlier entry had it (seen: a bit a key); -1 after an error. */
static int header_key(OnnxTextParser *ps, const TextEntry *e, const char *const *keys,
                      int nkeys, unsigned *seen, const char *whose)
{
    for (int k = 0; k < nkeys; k++) {
        if (strcmp(e->key.s, keys[k]) != 0)
            continue;
        if (*seen & (1u << k)) {
            diag_error(ps->d, ps->src, e->key.where, "'%s' is given twice in %s header",
                       e->key.s, whose);
            return -1;
        }
        *seen |= 1u << k;
        return k;
    }
    StrBuf msg = {0};
    for (int k = 0; k < nkeys; k++)
        strbuf_printf(&msg, "%s%s", k == 0 ? "" : k + 1 == nkeys ? " or " : ", ", keys[k]);
    diag_error(ps->d, ps->src, e->key.where, "unknown key '%s' in %s header; expected %s",
               e->key.s, whose, msg.data);
    strbuf_free(&msg);
    return -1;
}

static bool model_entry(OnnxTextParser *ps, Onnx__ModelProto *m, const TextEntry *e,
                        unsigned *seen)
{
    static const char *const keys[] = {"ir_version", "opset_import", "producer_name",
                                       "producer_version", "domain", "model_version",
                                       "doc_string", "metadata_props"};
    switch (header_key(ps, e, keys, 8, seen, "the model's")) {
    case 0:
        m->has_ir_version = true;
        return entry_scalar(ps, e, true, &m->ir_version, NULL);
    case 1:
        return entry_opsets(ps, e, &m->n_opset_import, &m->opset_import);
    case 2:
        return entry_scalar(ps, e, false, NULL, &m->producer_name);
    case 3:
        return entry_scalar(ps, e, false, NULL, &m->producer_version);
    case 4:
        return entry_scalar(ps, e, false, NULL, &m->domain);
    case 5:
        m->has_model_version = true;
        return entry_scalar(ps, e, true, &m->model_version, NULL);
    case 6:
        return entry_scalar(ps, e, false, NULL, &m->doc_string);
    case 7:
        return entry_props(ps, e, m);
    default:
        return false;
    }
}

static bool function_entry(OnnxTextParser *ps, Onnx__FunctionProto *f, const TextEntry *e,
                           unsigned *seen)
{
    static const char *const keys[] = {"domain", "opset_import", "doc_string"};
    switch (header_key(ps, e, keys, 3, seen, "a function's")) {
    case 0:
        return entry_scalar(ps, e, false, NULL, &f->domain);
    case 1:
        return entry_opsets(ps, e, &f->n_opset_import, &f->opset_import);
    case 2:
        return entry_scalar(ps, e, false, NULL, &f->doc_string);
    default:
        return false;
    }
}

Onnx__FunctionProto *text_function(OnnxTextParser *ps, TextList header, TextName *name,
                                   TextList attrs, TextList inputs, TextList outputs,
                                   TextList nodes)
{
    Onnx__FunctionProto *f = arena_alloc(ps->arena, sizeof *f);
    onnx__function_proto__init(f);
    unsigned seen = 0;
    for (size_t i = 0; i < header.n; i++)
        if (!function_entry(ps, f, header.items[i], &seen))
            return NULL;
    f->name = name->s;
    f->attribute = name_strings(ps, attrs, &f->n_attribute);
    f->input = name_strings(ps, inputs, &f->n_input);
    f->output = name_strings(ps, outputs, &f->n_output);
    f->node = node_protos(ps, nodes, &f->n_node);
    return f;
}

bool text_model(OnnxTextParser *ps, TextList header, Onnx__GraphProto *graph,
                TextList functions)
{
    Onnx__ModelProto *m = arena_alloc(ps->arena, sizeof *m);
    onnx__model_proto__init(m);
    unsigned seen = 0;
    for (size_t i = 0; i < header.n; i++)
        if (!model_entry(ps, m, header.items[i], &seen))
            return false;
    m->graph = graph;
    m->n_functions = functions.n;
    m->functions = (Onnx__FunctionProto **)functions.items;
    ps->model = m;
    return true;
}
