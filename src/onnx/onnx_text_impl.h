/* onnx_text_impl.h - what the printer and the reader of ONNX's text
 * syntax share (note [onnx text] in onnx_text.h). */
#ifndef GRAFT_ONNX_TEXT_IMPL_H
#define GRAFT_ONNX_TEXT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "onnx.pb-c.h"

/* The printer's state: where it writes and how deep the line it is on is
 * indented (two spaces a level). */
typedef struct TextPrinter {
    FILE *out;
    int depth;
} TextPrinter;

/* A name as an identifier when it is one and no keyword of the syntax,
 * else quoted; NULL (an absent name) as "". */
void text_print_id(TextPrinter *p, const char *name);
/* The same for the len bytes at name (a part of a dotted domain). */
void text_print_id_len(TextPrinter *p, const char *name, size_t len);
/* s in double quotes, '"' and '\\' escaped with '\\'. */
void text_print_string(TextPrinter *p, const char *s, size_t len);
/* The shortest decimal that reads back as v; inf, -inf, nan, -nan. */
void text_print_float(TextPrinter *p, float v);
void text_print_double(TextPrinter *p, double v);
/* A tensor: TYPE[DIMS] [NAME] [=] DATA, the name and '=' for an
 * initializer (initializer true) or a named tensor attribute. */
void text_print_tensor(TextPrinter *p, const Onnx__TensorProto *t, bool initializer);
/* Newline and the indentation of the current depth. */
void text_print_newline(TextPrinter *p);

/* Whether the len bytes at s are an identifier, [A-Za-z_][A-Za-z0-9_]*. */
bool text_is_identifier(const char *s, size_t len);
/* Whether an identifier is a word the syntax reads as something else
 * where a name may stand: a dtype or type constructor (a value info's
 * type), "raw" (raw data), inf, infinity and nan in any case (numbers). */
bool text_is_reserved(const char *s, size_t len);

/* The syntax's name of an attribute kind ("int", "floats", "graph"), NULL
 * for UNDEFINED and unknown numbers; and back, 0 (UNDEFINED) for none. */
const char *text_attr_kind_name(Onnx__AttributeProto__AttributeType kind);
Onnx__AttributeProto__AttributeType text_attr_kind_from_name(const char *s, size_t len);

/* Which repeated field of TensorProto holds the elements of a tensor of
 * dtype data_type when they are not raw (onnx.proto's comments, as
 * onnx.parser fills them). */
typedef enum TextTensorField {
    TEXT_FIELD_NONE,   /* no field: an unknown dtype */
    TEXT_FIELD_INT32,  /* int32_data: int8, int16, int32, uint8, uint16, bool, float16, bfloat16 */
    TEXT_FIELD_INT64,  /* int64_data: int64 */
    TEXT_FIELD_UINT64, /* uint64_data: uint32, uint64 */
    TEXT_FIELD_FLOAT,  /* float_data: float, complex64 */
    TEXT_FIELD_DOUBLE, /* double_data: double, complex128 */
    TEXT_FIELD_STRING, /* string_data: string */
} TextTensorField;

TextTensorField text_tensor_field(int32_t data_type);

#endif
