/* onnx_text_build.h - what the grammar of ONNX's text syntax
 * (grammar/onnx_text_parse.y) builds with, and its scanner
 * (grammar/onnx_text_lex.l): note [onnx text] in onnx_text.h.
 *
 * note [text arena]: the parser builds the ModelProto's structs in an
 * arena, which a syntax error drops whole (no %destructor bookkeeping);
 * the model read is that tree packed by protobuf-c and decoded again
 * through onnx_model_adopt, so that it is owned as a model read from a
 * .onnx file is (onnx_model_free), and passes the same checks.
 */
#ifndef GRAFT_ONNX_TEXT_BUILD_H
#define GRAFT_ONNX_TEXT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "onnx.pb-c.h"
#include "util.h"

/* A token: its bytes in the Source. */
typedef struct TextTok {
    uint32_t off;
    uint32_t len;
} TextTok;

/* A list being built: arena arrays that double when full (the length a
 * power of two), so that a list of n items costs at most 2n slots. */
typedef struct TextList {
    void **items;
    size_t n;
} TextList;

/* A name with where it was written, for messages. */
typedef struct TextName {
    char *s;
    SrcRange where;
} TextName;

/* One literal of a tensor's elements or an attribute: an integer, a
 * decimal or exponent number, a word (inf, nan), a string. */
typedef enum TextLitKind { LIT_INT, LIT_FLOAT, LIT_WORD, LIT_STRING } TextLitKind;

typedef struct TextLit {
    TextLitKind kind;
    bool negative; /* a '-' before a number */
    TextTok tok;   /* the number or word (without the '-'), or the string */
    SrcRange where;
} TextLit;

/* A tensor's elements as written: {...}, raw {...} or = [KEY: VALUE, ...]. */
typedef enum TextDataKind { DATA_TYPED, DATA_RAW, DATA_EXTERNAL } TextDataKind;

typedef struct TextData {
    TextDataKind kind;
    TextList items; /* TextLit * (typed, raw); TextEntry * (external) */
    SrcRange where;
} TextData;

/* KEY: VALUE of a header or external data; value is a TextLit. */
typedef struct TextEntry {
    TextName key;    /* a header's key (an identifier) or a string */
    TextLit value;   /* for a list value (opset_import, metadata_props) kind is
                        LIT_WORD and list holds the entries */
    TextList list;   /* TextEntry * */
    bool is_list;
} TextEntry;

/* One element of a graph's input list or of its '<' '>' list: a value
 * info, and the initializer written with it (NULL if none). */
typedef struct TextValue {
    Onnx__ValueInfoProto *info;
    Onnx__TensorProto *init;
    SrcRange where;  /* the name */
} TextValue;

typedef struct OnnxTextParser {
    const Source *src;
    graft_diag *d;
    Arena *arena;
    void *scanner;     /* flex's */
    size_t offset;     /* of the scanner in src */
    SrcCursor cursor;  /* source_range_at's */
    VEC(SrcRange) opens; /* the brackets open, innermost last */
    VEC(char) open_chars;
    int max_depth;     /* of brackets (--limit onnx-depth) */
    TextTok last;      /* the last token scanned (the parser's lookahead) */
    bool lex_error;    /* the scanner reported the error; no syntax error after it */
    Onnx__ModelProto *model; /* the result, in the arena */
    size_t places;     /* nodes' ops and inputs, graphs' outputs: note [text positions] */
} OnnxTextParser;

void text_list_push(OnnxTextParser *ps, TextList *list, void *item);
TextName *text_new_name(OnnxTextParser *ps, TextTok tok, SrcRange where);
TextLit *text_new_lit(OnnxTextParser *ps, TextLitKind kind, bool negative, TextTok tok,
                      SrcRange where);
/* KEY: LIT, or KEY: [ENTRIES] when list is not NULL. */
TextEntry *text_entry(OnnxTextParser *ps, TextName *key, TextLit *lit, const TextList *list);
/* "unexpected X; expected A, B or C" (unexpected NULL: the end of the
 * input), and where the bracket it is inside was opened. */
void text_syntax_error(OnnxTextParser *ps, SrcRange where, const char *unexpected,
                       const char *const *expected, int nexpected);

/* "unknown element type 'flot'", at an identifier written as one. */
void text_unknown_type(OnnxTextParser *ps, TextTok tok, SrcRange where);

/* Types and value infos. */
Onnx__TypeProto *text_tensor_type(OnnxTextParser *ps, TextTok dtype, SrcRange where,
                                  bool has_shape, TextList dims, bool sparse);
Onnx__TypeProto *text_wrap_type(OnnxTextParser *ps, int kind, Onnx__TypeProto *elem);
Onnx__TypeProto *text_map_type(OnnxTextParser *ps, TextTok key, SrcRange where,
                               Onnx__TypeProto *value);
/* A dimension: the number lit, the name tok, or unknown ('?'). */
Onnx__TensorShapeProto__Dimension *text_dim(OnnxTextParser *ps, const TextLit *lit,
                                            TextTok tok, bool unknown);
TextValue *text_value(OnnxTextParser *ps, Onnx__TypeProto *type, TextName *name);

/* Tensors: the type written before them gives the dtype and the dims. */
TextData *text_data(OnnxTextParser *ps, TextDataKind kind, TextList items, SrcRange where);
bool text_value_init(OnnxTextParser *ps, TextValue *v, const TextData *data);
/* Literals (onnx_text_build_data.c): the bytes of lit (a string without
 * its quotes and escapes) in the arena, their count in *len; the integer
 * lit in [min, max] ('-' applied); the float lit; false after an error
 * that names what. */
char *text_lit_text(OnnxTextParser *ps, const TextLit *lit, size_t *len);
bool text_lit_int(OnnxTextParser *ps, const TextLit *lit, int64_t min, uint64_t max,
                  const char *what, int64_t *out);
bool text_lit_float(OnnxTextParser *ps, const TextLit *lit, const char *what, float *out);

/* An attribute's value as written, converted once its kind is known. */
typedef enum TextSingleKind { SINGLE_LIT, SINGLE_TYPE, SINGLE_GRAPH, SINGLE_TENSOR } TextSingleKind;

typedef struct TextSingle {
    TextSingleKind kind;
    void *value; /* TextLit, Onnx__TypeProto, Onnx__GraphProto, Onnx__TensorProto */
    SrcRange where;
} TextSingle;

typedef struct TextAvalue {
    TextSingle *single; /* one value, or */
    bool is_list;       /* a list of TextSingle *, or */
    TextList list;
    TextName *ref;      /* @NAME, a function's attribute */
    SrcRange where;
} TextAvalue;

TextSingle *text_single(OnnxTextParser *ps, TextSingleKind kind, void *value, SrcRange where);
TextSingle *text_single_tensor(OnnxTextParser *ps, Onnx__TypeProto *type, SrcRange type_at,
                               TextName *name, const TextData *data);
TextAvalue *text_avalue(OnnxTextParser *ps, TextSingle *single, const TextList *list,
                        TextName *ref, SrcRange where);
/* NAME [: KIND] = VALUE; kind NULL when not written. */
Onnx__AttributeProto *text_attr(OnnxTextParser *ps, TextName *name, const TextTok *kind,
                                SrcRange kind_at, const TextAvalue *value);

/* Nodes, graphs, functions and the model.  A node keeps where its
 * outputs were written, for the graph's check of names defined twice, and
 * its op and inputs, for the model's (note [text positions] in
 * onnx_text_where.h); a graph where its outputs were.  Each holds its
 * message, so that the message finds them (text_node_of, text_graph_of). */
typedef struct TextNode {
    Onnx__NodeProto proto;
    TextList outputs; /* TextName *, NULL for one left out */
    TextList inputs;  /* the same */
    SrcRange op;      /* DOMAIN.OP */
} TextNode;

typedef struct TextGraph {
    Onnx__GraphProto proto;
    TextList outputs; /* TextValue * */
} TextGraph;

/* The TextNode holding n, a NodeProto of the model being built; the
 * TextGraph holding g. */
static inline const TextNode *text_node_of(const Onnx__NodeProto *n)
{
    return (const TextNode *)(const void *)((const char *)n - offsetof(TextNode, proto));
}
static inline const TextGraph *text_graph_of(const Onnx__GraphProto *g)
{
    return (const TextGraph *)(const void *)((const char *)g - offsetof(TextGraph, proto));
}

TextNode *text_node(OnnxTextParser *ps, TextName *name, TextList outputs,
                           TextList op, TextList attrs, TextList inputs, TextList attrs_after,
                           SrcRange after_at);
Onnx__GraphProto *text_graph(OnnxTextParser *ps, TextName *name, TextList inputs,
                             TextList outputs, TextList values, TextList nodes);
Onnx__FunctionProto *text_function(OnnxTextParser *ps, TextList header, TextName *name,
                                   TextList attrs, TextList inputs, TextList outputs,
                                   TextList nodes);
bool text_model(OnnxTextParser *ps, TextList header, Onnx__GraphProto *graph,
                TextList functions);

/* Where the nodes and graph outputs of built, the model ps built, were
 * written (note [text positions] in onnx_text_where.h), for the model
 * decoded from its bytes, message for message the same. */
struct OnnxTextWhere *text_where_of(const OnnxTextParser *ps, const Onnx__ModelProto *built);

/* The scanner (grammar/onnx_text_lex.l). */
void text_lexer_init(OnnxTextParser *ps);
void text_lexer_free(OnnxTextParser *ps);

#endif
