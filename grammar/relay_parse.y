/* relay_parse.y - the Relay text format as TVM v0.14 prints it.
 *
 * Actions only call the loader (src/ir/relay_load.c), which builds the graph
 * and resolves names.  Lists (bindings, arguments, attributes, fields,
 * dimensions) are left-recursive and collect their items on the loader's
 * item stack from a mark, so a long list costs no parser stack; only
 * nesting does (note [relay nesting limit] in relay.h).
 */
%code top {
#pragma GCC diagnostic ignored "-Wunused-parameter"
}

%code requires {
#include "relay_load.h"
}

%code provides {
int relay_lex(RELAY_STYPE *lval, SrcRange *lloc, void *scanner);
int relay_parse(RelayParser *ps);
}

%code {
#include <string.h>

#define YYMAXDEPTH (ps->max_depth)
/* Start below the least model-depth setting (limit.h), so that every
 * setting is what the stack may grow to. */
#define YYINITDEPTH 64
static void relay_error(SrcRange *loc, RelayParser *ps, const char *msg);
#define SCANNER (ps->lexer->scanner)
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
}

%define api.pure full
%define api.prefix {relay_}
%define api.token.prefix {RT_}
%define api.location.type {SrcRange}
%define parse.error detailed
%locations
%expect 0
%parse-param {RelayParser *ps}
%lex-param {SCANNER}

%union {
    RelayText text;     /* a token's bytes */
    Node *node;         /* an expression */
    const Type *type;   /* a type */
    AttrValue *value;   /* an attribute value */
    size_t mark;        /* start of a list on the item stack */
}

%token <text> VERSION "version line" METADATA "metadata section"
%token <text> TYPEDEF "type declaration"
%token <text> DEF "'def'" FN "'fn'" ARROW "'->'"
%token <text> BOOL "boolean" NONE "'None'"
%token <text> META "meta constant" GLOBAL "global name"
%token <text> TEMP "temporary (%N)" LOCAL "name (%x)"
%token <text> INT "integer" NUMBER "number" STRING "string"
%token <text> IDENT "identifier" ANNOT "comment"
%token <text> '(' ')' '[' ']' '{' '}' ',' '=' ';' ':' '.' '?'

%type <node> expr expr_a postfix primary body fn_expr param
%type <type> type ret_opt type_opt
%type <value> attr_value
%type <mark> mark

%%

module:
    head defs metadata_opt
  ;

head:
    %empty
  | VERSION              { load_version(ps, $1); }
  | head TYPEDEF         { load_typedef(ps, $2); }
  ;

defs:
    def
  | defs def
  ;

metadata_opt:
    %empty
  | METADATA             { load_metadata(ps, $1); }
  ;

mark:
    %empty               { $$ = load_mark(ps); }
  ;

/* def -> "def" @NAME '(' params ')' ["->" type] '{' body '}' */
def:
    DEF GLOBAL '(' mark params_opt ')' ret_opt '{' body '}'
                         { CHECK(load_main(ps, $2, $4, $7, $9, @1)); }
  ;

params_opt:
    %empty
  | params
  ;

params:
    param                { load_push_node(ps, $1); }
  | params ',' param     { load_push_node(ps, $3); }
  ;

param:
    LOCAL type_opt       { CHECK($$ = load_param(ps, $1, $2, NULL, @1)); }
  | LOCAL type_opt ANNOT { CHECK($$ = load_param(ps, $1, $2, &$3, @1)); }
  ;

type_opt:
    %empty               { $$ = NULL; }
  | ':' type             { $$ = $2; }
  ;

ret_opt:
    %empty               { $$ = NULL; }
  | ARROW type           { $$ = $2; }
  ;

/* body -> {TEMP '=' expr ';'} expr */
body:
    bindings expr_a      { $$ = $2; }
  ;

bindings:
    %empty
  | bindings TEMP '=' expr_a ';'
                         { CHECK(load_define(ps, $2, $4, @2)); }
  ;

expr_a:
    expr
  | expr ANNOT           { load_annotate(ps, $1, $2); $$ = $1; }
  ;

expr:
    postfix
  | fn_expr
  ;

postfix:
    primary
  | postfix '.' INT      { CHECK($$ = load_getitem(ps, $1, $3, @3)); }
  | postfix '(' mark args_opt ')'
                         { CHECK($$ = load_fn_call(ps, $1, $3, @2)); }
  ;

primary:
    TEMP                 { CHECK($$ = load_use(ps, $1, @1)); }
  | LOCAL                { CHECK($$ = load_use(ps, $1, @1)); }
  | INT                  { CHECK($$ = load_const(ps, $1, @1)); }
  | NUMBER               { CHECK($$ = load_const(ps, $1, @1)); }
  | BOOL                 { CHECK($$ = load_const(ps, $1, @1)); }
  | META                 { CHECK($$ = load_const(ps, $1, @1)); }
  | IDENT '(' mark args_opt ')'
                         { CHECK($$ = load_at(ps, load_call(ps, $1, $3), @1)); }
  | '(' mark ')'         { $$ = load_at(ps, load_tuple(ps, $2), @1); }
  | '(' mark fields ')'  { $$ = load_at(ps, load_paren(ps, $2), @1); }
  | '(' mark fields ',' ')'
                         { $$ = load_at(ps, load_tuple(ps, $2), @1); }
  ;

fields:
    expr_a               { load_push_node(ps, $1); }
  | fields ',' expr_a    { load_push_node(ps, $3); }
  ;

args_opt:
    %empty
  | args
  ;

args:
    arg
  | args ',' arg
  ;

arg:
    expr_a               { load_push_node(ps, $1); }
  | attr
  ;

/* A comment after an attribute value is layout (TVM writes none). */
attr:
    IDENT '=' attr_value { load_push_attr(ps, $1, $3); }
  | IDENT '=' attr_value ANNOT
                         { load_push_attr(ps, $1, $3); }
  ;

/* fn -> "fn" '(' params-and-attrs ')' ["->" type] '{' body '}' */
fn_expr:
    fn_open mark fn_items_opt ')' ret_opt '{' body '}'
                         { CHECK($$ = load_at(ps, load_func(ps, $2, $5, $7), @1)); }
  ;

fn_open:
    FN '('               { CHECK(load_scope_open(ps, @1)); }
  ;

fn_items_opt:
    %empty
  | fn_items
  ;

fn_items:
    fn_item
  | fn_items ',' fn_item
  ;

fn_item:
    param                { load_push_node(ps, $1); }
  | attr
  ;

attr_value:
    INT                  { $$ = load_value(ps, ATTR_INT, $1); }
  | NUMBER               { $$ = load_value(ps, ATTR_FLOAT, $1); }
  | BOOL                 { $$ = load_value(ps, ATTR_BOOL, $1); }
  | NONE                 { $$ = load_value(ps, ATTR_NULL, $1); }
  | STRING               { $$ = load_value(ps, ATTR_STRING, $1); }
  | '[' mark ']'         { $$ = load_list(ps, $2); }
  | '[' mark values ']'  { $$ = load_list(ps, $2); }
  ;

values:
    attr_value annot_opt { load_push_value(ps, $1); }
  | values ',' attr_value annot_opt
                         { load_push_value(ps, $3); }
  ;

annot_opt:
    %empty
  | ANNOT
  ;

/* type -> DTYPE | Tensor '[' '(' dims ')' ',' DTYPE ']' | '(' types ')' */
type:
    IDENT                { $$ = load_dtype(ps, $1); }
  | IDENT '[' '(' mark dims_opt ')' ',' IDENT ']'
                         { CHECK($$ = load_tensor_type(ps, $1, $4, $8, @1)); }
  | '(' mark ')'         { $$ = load_tuple_type(ps, $2); }
  | '(' mark types ')'   { $$ = load_paren_type(ps, $2); }
  | '(' mark types ',' ')'
                         { $$ = load_tuple_type(ps, $2); }
  ;

types:
    type                 { load_push_type(ps, $1); }
  | types ',' type       { load_push_type(ps, $3); }
  ;

dims_opt:
    %empty
  | dims
  ;

dims:
    dim
  | dims ',' dim
  ;

dim:
    INT                  { CHECK(load_push_dim(ps, $1, @1)); }
  | '?'                  { CHECK(load_push_dim(ps, $1, @1)); }
  ;

%%

/* Bison's messages, except that a full parser stack is deep nesting. */
static void relay_error(SrcRange *loc, RelayParser *ps, const char *msg)
{
    ps->failed = true;
    if (strcmp(msg, "memory exhausted") == 0)
        diag_error(ps->diag, ps->src, *loc,
                   "expression nested too deeply (the limit is %ld parser "
                   "stack entries, about %ld levels) [--limit model-depth]",
                   ps->max_depth, ps->max_depth / 5);
    else {
        diag_error(ps->diag, ps->src, *loc, "%s", msg);
        load_note_opener(ps, msg);
    }
}
