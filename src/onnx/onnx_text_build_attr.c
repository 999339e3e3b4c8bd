/* onnx_text_build_attr.c - attributes of ONNX's text syntax made into
 * protobuf-c AttributeProtos: the kind declared or read from the value,
 * single values and lists (note [text arena] in onnx_text_build.h). */
#include "onnx_text_build.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_text_impl.h"

typedef Onnx__AttributeProto__AttributeType AttrKind;

static AttrKind list_of(AttrKind k)
{
    return k >= 1 && k <= 5 ? (AttrKind)(k + 5) : k == 11 ? (AttrKind)12 : k == 13 ? (AttrKind)14 :
           (AttrKind)0;
}

static AttrKind element_of(AttrKind k)
{
    return k >= 6 && k <= 10 ? (AttrKind)(k - 5) : k == 12 ? (AttrKind)11 : k == 14 ? (AttrKind)13 :
           (AttrKind)0;
}

/* The kind a value written alone has: an integer is an int (a float
 * where a float is declared), a decimal, inf or nan a float. */
static AttrKind single_kind(const TextSingle *s, AttrKind declared)
{
    switch (s->kind) {
    case SINGLE_LIT: {
        TextLitKind lit = ((TextLit *)s->value)->kind;
        if (lit == LIT_STRING)
            return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        if (lit == LIT_INT && declared != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)
            return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    }
    case SINGLE_TYPE:
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO;
    case SINGLE_GRAPH:
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    default:
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    }
}

/* "attribute 'a' is declared 'ints' but given a string" (an element
 * of the list, with element true). */
static bool kind_mismatch(OnnxTextParser *ps, const Onnx__AttributeProto *a, SrcRange where,
                          AttrKind declared, const char *given, bool element)
{
    diag_error(ps->d, ps->src, where, "attribute '%s' is declared '%s' but given %s%s",
               a->name, text_attr_kind_name(declared), given, element ? " in its list" : "");
    return false;
}

/* "an int", "a float", ...: what a message says a value is. */
static const char *kind_phrase(AttrKind k)
{
    switch (k) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return "an int";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return "a float";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return "a string";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO: return "a type";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: return "a graph";
    default: return "a tensor";
    }
}

/* The value of s, of kind k, into a's single field. */
static bool set_single(OnnxTextParser *ps, Onnx__AttributeProto *a, const TextSingle *s,
                       AttrKind k)
{
    size_t len;
    switch (k) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        a->has_i = true;
        return text_lit_int(ps, s->value, INT64_MIN, INT64_MAX, "int", &a->i);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        a->has_f = true;
        return text_lit_float(ps, s->value, "float", &a->f);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        a->has_s = true;
        a->s.data = (uint8_t *)text_lit_text(ps, s->value, &len);
        a->s.len = len;
        return true;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
        a->tp = s->value;
        return true;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        a->g = s->value;
        return true;
    default:
        a->t = s->value;
        return true;
    }
}

/* Element i, of kind k, of a's list field (allocated for n). */
static bool set_element(OnnxTextParser *ps, Onnx__AttributeProto *a, const TextSingle *s,
                        AttrKind k, size_t i, size_t n)
{
    size_t len;
#define ELEMENT(field, value)                                                 \
    do {                                                                       \
        if (!a->field)                                                         \
            a->field = arena_array(ps->arena, n, sizeof *a->field);           \
        a->n_##field = n;                                                      \
        a->field[i] = (value);                                                 \
    } while (0)
    switch (k) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        ELEMENT(ints, 0);
        return text_lit_int(ps, s->value, INT64_MIN, INT64_MAX, "int", &a->ints[i]);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        ELEMENT(floats, 0);
        return text_lit_float(ps, s->value, "float", &a->floats[i]);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
        char *text = text_lit_text(ps, s->value, &len);
        ELEMENT(strings, ((ProtobufCBinaryData){len, (uint8_t *)text}));
        return true;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
        ELEMENT(type_protos, s->value);
        return true;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        ELEMENT(graphs, s->value);
        return true;
    default:
        ELEMENT(tensors, s->value);
        return true;
    }
#undef ELEMENT
}

/* The element kind of a list without a declared kind: its first
 * element's, a float if any element is (ints mix into floats). */
static AttrKind list_element_kind(const TextList *list)
{
    AttrKind k = single_kind(list->items[0], 0);
    for (size_t i = 1; k == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT && i < list->n; i++)
        if (single_kind(list->items[i], 0) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)
            k = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    return k;
}

static bool set_list(OnnxTextParser *ps, Onnx__AttributeProto *a, const TextAvalue *v,
                     AttrKind declared)
{
    if (declared && !element_of(declared))
        return kind_mismatch(ps, a, v->where, declared, "a list", false);
    if (!declared && v->list.n == 0) {
        diag_error(ps->d, ps->src, v->where, "the empty list of attribute '%s' needs its "
                   "kind ('%s: ints = []')", a->name, a->name);
        return false;
    }
    AttrKind elem = declared ? element_of(declared) : list_element_kind(&v->list);
    a->type = list_of(elem);
    for (size_t i = 0; i < v->list.n; i++) {
        const TextSingle *s = v->list.items[i];
        AttrKind k = single_kind(s, elem);
        if (k != elem)
            return kind_mismatch(ps, a, s->where, a->type, kind_phrase(k), true);
        if (!set_element(ps, a, s, elem, i, v->list.n))
            return false;
    }
    return true;
}

Onnx__AttributeProto *text_attr(OnnxTextParser *ps, TextName *name, const TextTok *kind,
                                SrcRange kind_at, const TextAvalue *v)
{
    Onnx__AttributeProto *a = arena_alloc(ps->arena, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = name->s;
    AttrKind declared = 0;
    if (kind) {
        declared = text_attr_kind_from_name(ps->src->text + kind->off, kind->len);
        if (!declared) {
            diag_error(ps->d, ps->src, kind_at, "unknown attribute kind '%.*s'",
                       (int)kind->len, ps->src->text + kind->off);
            return NULL;
        }
    }
    a->has_type = true;
    a->type = declared;
    if (v->ref) {
        a->ref_attr_name = v->ref->s;
        if (declared)
            return a;
        diag_error(ps->d, ps->src, v->where, "a reference to a function's attribute needs "
                   "its kind ('%s: int = @%s')", a->name, v->ref->s);
        return NULL;
    }
    if (v->is_list)
        return set_list(ps, a, v, declared) ? a : NULL;
    AttrKind k = single_kind(v->single, declared);
    if (declared && k != declared) {
        kind_mismatch(ps, a, v->where, declared, kind_phrase(k), false);
        return NULL;
    }
    a->type = k;
    return set_single(ps, a, v->single, k) ? a : NULL;
}
