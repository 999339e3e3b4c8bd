/* onnx_text_parse.y - ONNX's text syntax (note [onnx text] in
 * src/onnx/onnx_text.h), as onnx/defs/parser.cc of the onnx/onnx
 * repository reads it:
 *
 *   <ir_version: 8, opset_import: ["" : 17]>
 *   agraph (float[N, 3] X) => (float[N] Y) <float[3] w = {1, 2, 3}> {
 *     [relu] Y = Relu <alpha: float = 0.5> (X)
 *   }
 *   <domain: "local", opset_import: ["" : 17]>
 *   fn <a> (x) => (y) { y = Relu (x) }
 *
 * A pure parser with prefix onnx_text_ and SrcRange locations.  Actions
 * only call the builder (src/onnx/onnx_text_build.c), which makes the
 * ModelProto's structs in an arena (note [text arena]).  Lists are
 * left-recursive, so only nesting grows the stack, and the scanner bounds
 * nesting (brackets, --limit onnx-depth).
 */
%code top {
#pragma GCC diagnostic ignored "-Wunused-parameter"
}

%code requires {
#include "onnx_text_build.h"
}

%code provides {
int onnx_text_lex(ONNX_TEXT_STYPE *val, SrcRange *loc, OnnxTextParser *ps);
int onnx_text_parse(OnnxTextParser *ps);
}

%code {
#include <string.h>

#include "onnx_text_impl.h"

/* The scanner bounds bracket nesting by --limit onnx-depth (at most
 * 1024, limit.h), and every bracket level takes a few stack entries; a
 * constant, as LAC's stack (parse.lac) has no parser at hand. */
#define YYMAXDEPTH (256 + 16 * 1024)
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
#define NONE ((TextList){0})
static void onnx_text_error(const SrcRange *loc, OnnxTextParser *ps, const char *msg);
static TextList one(OnnxTextParser *ps, void *item);
static TextList more(OnnxTextParser *ps, TextList list, void *item);
}

%define api.pure full
%define api.prefix {onnx_text_}
%define api.token.prefix {OT_}
%define api.location.type {SrcRange}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {OnnxTextParser *ps}

%union {
    TextTok tok;
    TextList list;
    TextName *name;
    TextLit *lit;
    TextData *data;
    TextValue *value;
    TextEntry *entry;
    Onnx__TypeProto *type;
    Onnx__TensorShapeProto__Dimension *dim;
    TextSingle *single;
    TextAvalue *avalue;
    Onnx__AttributeProto *attr;
    TextNode *node;
    Onnx__GraphProto *graph;
    Onnx__FunctionProto *function;
}

%token <tok> IDENT "identifier" STRING "string" INT "integer" FLOAT "number"
%token <tok> WORD "'inf' or 'nan'" DTYPE "element type"
%token <tok> SEQ "'seq'" MAP "'map'" OPTIONAL "'optional'" SPARSE "'sparse_tensor'"
%token <tok> RAW "'raw'" ARROW "'=>'"
%token <tok> '<' '>' '(' ')' '[' ']' '{' '}' ',' ':' '=' '@' '.' '?' '-'

%type <list> header entries functions fattrs names names_opt values values_opt
%type <list> vinfos vinfos_opt inits lits lits_opt nodes ids op attrs attrs_opt singles
%type <name> name node_name id
%type <lit> lit
%type <entry> entry
%type <data> data tdata
%type <value> value vinfo
%type <type> type
%type <list> dims
%type <dim> dim
%type <attr> attr
%type <avalue> avalue
%type <single> single tensor
%type <node> node
%type <graph> graph
%type <function> function
%type <tok> kind

%%

/* model -> [header] graph {function} */
model:
    header graph functions    { CHECK(text_model(ps, $1, $2, $3)); }
  ;

/* header -> '<' KEY ':' VALUE {',' KEY ':' VALUE} '>' (a model's or a
 * function's; a value is a literal or a list of entries) */
header:
    %empty                    { $$ = (TextList){0}; }
  | '<' entries '>'           { $$ = $2; }
  ;

entries:
    entry                     { $$ = one(ps, $1); }
  | entries ',' entry         { $$ = more(ps, $1, $3); }
  ;

entry:
    name ':' lit              { $$ = text_entry(ps, $1, $3, NULL); }
  | name ':' '[' ']'          { $$ = text_entry(ps, $1, NULL, &(TextList){0}); }
  | name ':' '[' entries ']'  { $$ = text_entry(ps, $1, NULL, &$4); }
  ;

lit:
    INT                       { $$ = text_new_lit(ps, LIT_INT, false, $1, @1); }
  | FLOAT                     { $$ = text_new_lit(ps, LIT_FLOAT, false, $1, @1); }
  | WORD                      { $$ = text_new_lit(ps, LIT_WORD, false, $1, @1); }
  | STRING                    { $$ = text_new_lit(ps, LIT_STRING, false, $1, @1); }
  | '-' INT                   { $$ = text_new_lit(ps, LIT_INT, true, $2, @$); }
  | '-' FLOAT                 { $$ = text_new_lit(ps, LIT_FLOAT, true, $2, @$); }
  | '-' WORD                  { $$ = text_new_lit(ps, LIT_WORD, true, $2, @$); }
  ;

name:
    IDENT                     { $$ = text_new_name(ps, $1, @1); }
  | STRING                    { $$ = text_new_name(ps, $1, @1); }
  ;

names:
    name                      { $$ = one(ps, $1); }
  | names ',' name            { $$ = more(ps, $1, $3); }
  ;

names_opt:
    %empty                    { $$ = (TextList){0}; }
  | names
  ;

functions:
    %empty                    { $$ = (TextList){0}; }
  | functions function        { $$ = more(ps, $1, $2); }
  ;

/* function -> [header] NAME ['<' ATTR, ... '>'] '(' IN, ... ')' '=>'
 *             '(' OUT, ... ')' '{' NODES '}' */
function:
    header name fattrs '(' names_opt ')' ARROW '(' names_opt ')' '{' nodes '}'
                              { CHECK($$ = text_function(ps, $1, $2, $3, $5, $9, $12)); }
  ;

fattrs:
    %empty                    { $$ = (TextList){0}; }
  | '<' names '>'             { $$ = $2; }
  ;

/* graph -> NAME '(' INPUTS ')' '=>' '(' OUTPUTS ')' ['<' VALUES '>']
 *          '{' NODES '}'; an input or a value may have an initializer,
 *          TYPE NAME '=' DATA */
graph:
    name '(' values_opt ')' ARROW '(' vinfos_opt ')' inits '{' nodes '}'
                              { CHECK($$ = text_graph(ps, $1, $3, $7, $9, $11)); }
  ;

values_opt:
    %empty                    { $$ = (TextList){0}; }
  | values
  ;

values:
    value                     { $$ = one(ps, $1); }
  | values ',' value          { $$ = more(ps, $1, $3); }
  ;

value:
    vinfo
  | vinfo '=' data            { CHECK(text_value_init(ps, $1, $3)); $$ = $1; }
  ;

vinfo:
    name                      { $$ = text_value(ps, NULL, $1); }
  | type name                 { $$ = text_value(ps, $1, $2); }
  | unknown_type              { YYABORT; }
  ;

/* An identifier where an element type goes (before a shape or a name):
 * a misspelt element type. */
unknown_type:
    IDENT '['                 { text_unknown_type(ps, $1, @1); }
  | IDENT name                { text_unknown_type(ps, $1, @1); }
  ;

vinfos_opt:
    %empty                    { $$ = (TextList){0}; }
  | vinfos
  ;

vinfos:
    vinfo                     { $$ = one(ps, $1); }
  | vinfos ',' vinfo          { $$ = more(ps, $1, $3); }
  ;

inits:
    %empty                    { $$ = (TextList){0}; }
  | '<' '>'                   { $$ = (TextList){0}; }
  | '<' values '>'            { $$ = $2; }
  ;

/* type -> DTYPE ['[' [DIM, ...] ']'] | seq(TYPE) | optional(TYPE)
 *         | map(DTYPE, TYPE) | sparse_tensor(DTYPE ['[' [DIM, ...] ']']) */
type:
    DTYPE                     { $$ = text_tensor_type(ps, $1, @1, true, NONE, false); }
  | DTYPE '[' ']'             { $$ = text_tensor_type(ps, $1, @1, false, NONE, false); }
  | DTYPE '[' dims ']'        { $$ = text_tensor_type(ps, $1, @1, true, $3, false); }
  | SEQ '(' type ')'          { $$ = text_wrap_type(ps, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE,
                                                    $3); }
  | OPTIONAL '(' type ')'     { $$ = text_wrap_type(ps, ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE,
                                                    $3); }
  | MAP '(' DTYPE ',' type ')' { $$ = text_map_type(ps, $3, @3, $5); }
  | SPARSE '(' DTYPE ')'      { $$ = text_tensor_type(ps, $3, @3, true, NONE, true); }
  | SPARSE '(' DTYPE '[' ']' ')'
                              { $$ = text_tensor_type(ps, $3, @3, false, NONE, true); }
  | SPARSE '(' DTYPE '[' dims ']' ')'
                              { $$ = text_tensor_type(ps, $3, @3, true, $5, true); }
  ;

dims:
    dim                       { $$ = one(ps, $1); }
  | dims ',' dim              { $$ = more(ps, $1, $3); }
  ;

dim:
    INT                       { CHECK($$ = text_dim(ps, text_new_lit(ps, LIT_INT, false, $1, @1),
                                                    $1, false)); }
  | '-' INT                   { CHECK($$ = text_dim(ps, text_new_lit(ps, LIT_INT, true, $2, @$),
                                                    $2, false)); }
  | IDENT                     { $$ = text_dim(ps, NULL, $1, false); }
  | STRING                    { $$ = text_dim(ps, NULL, $1, false); }
  | '?'                       { $$ = text_dim(ps, NULL, $1, true); }
  ;

/* data -> '{' [LIT, ...] '}' | raw '{' [LIT, ...] '}' | '[' KEY ':' VALUE, ... ']' */
data:
    '{' lits_opt '}'          { $$ = text_data(ps, DATA_TYPED, $2, @$); }
  | RAW '{' lits_opt '}'      { $$ = text_data(ps, DATA_RAW, $3, @$); }
  | '[' ']'                   { $$ = text_data(ps, DATA_EXTERNAL, (TextList){0}, @$); }
  | '[' entries ']'           { $$ = text_data(ps, DATA_EXTERNAL, $2, @$); }
  ;

lits_opt:
    %empty                    { $$ = (TextList){0}; }
  | lits
  ;

lits:
    lit                       { $$ = one(ps, $1); }
  | lits ',' lit              { $$ = more(ps, $1, $3); }
  ;

nodes:
    %empty                    { $$ = (TextList){0}; }
  | nodes node                { $$ = more(ps, $1, $2); }
  ;

/* node -> ['[' NAME ']'] [OUT, ...] '=' [DOMAIN '.'] OP ['<' ATTRS '>']
 *         '(' [IN, ...] ')' ['<' ATTRS '>'] (the attributes before or
 *         after the inputs, not both) */
node:
    node_name ids '=' op attrs_opt '(' ids ')' attrs_opt
                              { CHECK($$ = text_node(ps, $1, $2, $4, $5, $7, $9, @9)); }
  ;

node_name:
    %empty                    { $$ = NULL; }
  | '[' name ']'              { $$ = $2; }
  ;

/* A node's inputs or outputs; an item left empty is an optional one left
 * out, as "" is (parser.cc: "Op()" has none, "Op(, x)" two, and a
 * trailing ',' adds none: text_node). */
ids:
    id                        { $$ = one(ps, $1); }
  | ids ',' id                { $$ = more(ps, $1, $3); }
  ;

id:
    %empty                    { $$ = NULL; }
  | name
  ;

/* note [quoted op types]: a node's op type, or a part of its domain, may
 * be quoted as a name is, so that an op type that is no identifier reads
 * back: a partition's Composite names its function, and so the op type of
 * the node calling it, with dots, as TVM's back ends spell them
 * ("dnnl.conv2d_relu"), and the last dot of an unquoted run splits the
 * domain from the op type (onnx/defs/parser.cc).  The printer quotes a
 * part only when it is no identifier (text_print_op), so every other node
 * prints as onnx.printer prints it.  onnx's parser quotes a function's name
 * (1.12's does not) but never an op type: this is graft's extension. */
op:
    name                      { $$ = one(ps, $1); }
  | op '.' name               { $$ = more(ps, $1, $3); }
  ;

attrs_opt:
    %empty                    { $$ = (TextList){0}; }
  | '<' attrs '>'             { $$ = $2; }
  ;

attrs:
    attr                      { $$ = one(ps, $1); }
  | attrs ',' attr            { $$ = more(ps, $1, $3); }
  ;

/* attr -> NAME [':' KIND] '=' VALUE */
attr:
    name '=' avalue           { CHECK($$ = text_attr(ps, $1, NULL, @1, $3)); }
  | name ':' kind '=' avalue  { CHECK($$ = text_attr(ps, $1, &$3, @3, $5)); }
  ;

kind:
    IDENT | DTYPE | SPARSE
  ;

avalue:
    single                    { $$ = text_avalue(ps, $1, NULL, NULL, @$); }
  | '[' ']'                   { $$ = text_avalue(ps, NULL, &(TextList){0}, NULL, @$); }
  | '[' singles ']'           { $$ = text_avalue(ps, NULL, &$2, NULL, @$); }
  | '@' name                  { $$ = text_avalue(ps, NULL, NULL, $2, @$); }
  ;

singles:
    single                    { $$ = one(ps, $1); }
  | singles ',' single        { $$ = more(ps, $1, $3); }
  ;

single:
    lit                       { $$ = text_single(ps, SINGLE_LIT, $1, @1); }
  | type                      { $$ = text_single(ps, SINGLE_TYPE, $1, @1); }
  | tensor
  | graph                     { $$ = text_single(ps, SINGLE_GRAPH, $1, @1); }
  | IDENT '['                 { text_unknown_type(ps, $1, @1); YYABORT; }
  ;

/* tensor -> TYPE [NAME] ['='] DATA */
tensor:
    type tdata                { CHECK($$ = text_single_tensor(ps, $1, @1, NULL, $2)); }
  | type name tdata           { CHECK($$ = text_single_tensor(ps, $1, @1, $2, $3)); }
  ;

tdata:
    '{' lits_opt '}'          { $$ = text_data(ps, DATA_TYPED, $2, @$); }
  | RAW '{' lits_opt '}'      { $$ = text_data(ps, DATA_RAW, $3, @$); }
  | '=' data                  { $$ = $2; }
  ;

%%

static TextList one(OnnxTextParser *ps, void *item)
{
    TextList list = {0};
    text_list_push(ps, &list, item);
    return list;
}

static TextList more(OnnxTextParser *ps, TextList list, void *item)
{
    text_list_push(ps, &list, item);
    return list;
}

/* "unexpected X; expected A, B or C", at X, with a note at the bracket
 * the parser is inside of (what a missing closer would close).  When
 * more than a few tokens may follow, the closer of that bracket is named
 * if it is one of them. */
static int yyreport_syntax_error(const yypcontext_t *ctx, OnnxTextParser *ps)
{
    if (ps->lex_error)
        return 0; /* the scanner said what is wrong */
    enum { MAX_EXPECTED = 5 };
    yysymbol_kind_t all[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, all, YYNTOKENS);
    const char *names[MAX_EXPECTED];
    int shown = 0;
    for (int i = 0; i < n && n <= MAX_EXPECTED; i++)
        names[shown++] = yysymbol_name(all[i]);
    char open = ps->open_chars.len ? ps->open_chars.items[ps->open_chars.len - 1] : 0;
    char closer = open ? ")]}>"[strchr("([{<", open) - "([{<"] : 0;
    for (int i = 0; i < n && n > MAX_EXPECTED && closer; i++) {
        const char *name = yysymbol_name(all[i]);
        if (name[0] == '\'' && name[1] == closer)
            names[shown++] = name;
    }
    yysymbol_kind_t tok = yypcontext_token(ctx);
    text_syntax_error(ps, *yypcontext_location(ctx),
                      tok == YYSYMBOL_YYEOF ? NULL : yysymbol_name(tok), names, shown);
    return 0;
}

static void onnx_text_error(const SrcRange *loc, OnnxTextParser *ps, const char *msg)
{
    /* Only bison's own failures get here ("memory exhausted"), which the
     * scanner's bracket limit keeps from happening. */
    diag_error(ps->d, ps->src, *loc, "%s", msg);
}
