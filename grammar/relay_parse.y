/* relay_parse.y - the Relay text format as TVM v0.14 prints it.
 *
 * Actions only call the loader (src/relay/relay_load.c), which builds the graph
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
int relay_lex(RELAY_STYPE *lval, void *scanner);
int relay_parse(RelayParser *ps);
}

%code {
#include <string.h>

#define YYMAXDEPTH (ps->max_depth)
/* Start below the least model-depth setting (limit.h), so that every
 * setting is what the stack may grow to. */
#define YYINITDEPTH 64
static void relay_error(RelayParser *ps, const char *msg);
#define SCANNER (ps->lexer->scanner)
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
}

%define api.pure full
%define api.prefix {relay_}
%define api.token.prefix {RT_}
%define parse.error custom
%expect 0
%parse-param {RelayParser *ps}
%lex-param {SCANNER}

%union {
    RelayText text;     /* a token's bytes */
    graft_node *node;         /* an expression */
    const graft_type *type;   /* a type */
    graft_attr_value *value;   /* an attribute value */
    size_t mark;        /* start of a list on the item stack */
    const char *names;  /* type parameters, "A, B" (interned) */
}

%token <text> VERSION "version line" METADATA "metadata section"
%token <text> TYPEDEF "type declaration"
%token <text> DEF "'def'" FN "'fn'" ARROW "'->'"
%token <text> LET "'let'" IF "'if'" ELSE "'else'" MATCH "'match'"
%token <text> FREE_VAR "'free_var'" DARROW "'=>'"
%token <text> BOOL "boolean" NONE "'None'"
%token <text> META "meta constant" GLOBAL "global name"
%token <text> TEMP "temporary (%N)" LOCAL "name (%x)"
%token <text> INT "integer" NUMBER "number" STRING "string"
%token <text> IDENT "identifier" ANNOT "comment"
%token <text> '(' ')' '[' ']' '{' '}' ',' '=' ';' ':' '.' '?'
/* Only the first attempt's scanner makes these (note [long tokens] in relay_lex.l). */
%token <text> BIND "binding head" NAMES "names" BINDING "binding" PARAMS "parameters"

%type <node> expr_a postfix body fn_expr param let_head
%type <node> if_expr block match_expr bound
%type <text> fn_open
%type <names> type_params
%type <type> type ret_opt named_type
%type <value> attr_value
%type <mark> mark clause_open

/* An operator name before '(' is an op call, not an op value called. */
%precedence OPVALUE
%precedence '(' 

%%

/* module -> head (def+ | body) [metadata]: a bare expression, as TVM
 * prints one (free_var lines, bindings, a result), is @main without
 * parameters (note [bare module] in graph_module.c). */
module:
    head defs metadata_opt
                         { CHECK(load_module_end(ps)); }
  | head body metadata_opt
                         { load_bare(ps, $2); CHECK(load_module_end(ps)); }
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

/* def -> "def" @NAME ['[' type-params ']'] '(' params-and-attrs ')'
 *        ["->" type] '{' body '}' */
def:
    DEF GLOBAL '(' mark fn_items_opt ')' ret_opt '{' body '}'
                         { CHECK(load_def(ps, $2, NULL, $4, $7, $9)); }
  | DEF GLOBAL '(' mark param_names ret_opt '{' body '}'
                         { CHECK(load_def(ps, $2, NULL, $4, $6, $8)); }
  | DEF GLOBAL type_params '(' mark fn_items_opt ')' ret_opt '{' body '}'
                         { CHECK(load_def(ps, $2, $3, $5, $8, $10)); }
  | DEF GLOBAL type_params '(' mark param_names ret_opt '{' body '}'
                         { CHECK(load_def(ps, $2, $3, $5, $7, $9)); }
  ;

/* '[' NAME, ... ']': a function's type parameters (the Prelude's
 * def @compose[A, B, C]), as TVM's PrintFunc and FuncType print them. */
type_params:
    '[' mark type_names ']'
                         { $$ = load_type_params(ps, $2); }
  ;

type_names:
    IDENT                { load_push_type(ps, load_type_name(ps, $1)); }
  | type_names ',' IDENT { load_push_type(ps, load_type_name(ps, $3)); }
  ;

/* (note [long tokens] in relay_lex.l) "%x, %y)" as a function's parameters, or a
 * def's with their types and annotations (PARAMS: note [def parameters] in
 * src/relay/relay_load_params.c).  A long
 * token follows a mark, never an opener directly: the state after an
 * opener reduces the mark without reading the next token, as it did
 * before there were long tokens, and where the parser stands when the
 * model-depth limit stops it (which token the error points at) depends
 * on that. */
param_names:
    NAMES                { CHECK(load_param_names(ps, $1)); }
  | PARAMS               { CHECK(load_params(ps)); }
  ;

/* note [flat rules]: every reduction costs the parser about as much as
 * a token, so the rules most nodes go through are spelled out rather
 * than chained through one-alternative nonterminals: a parameter's
 * optional type, an expression's kinds (postfix holds the primaries),
 * a list item's kinds.  A call keeps its mark before the arguments: it
 * is what makes a nested call take three stack entries, which the
 * model-depth limit counts (note [relay nesting limit] in relay.h). */
param:
    LOCAL                { CHECK($$ = load_param(ps, $1, NULL, NULL)); }
  | LOCAL ':' type       { CHECK($$ = load_param(ps, $1, $3, NULL)); }
  | LOCAL ANNOT          { CHECK($$ = load_param(ps, $1, NULL, &$2)); }
  | LOCAL ':' type ANNOT { CHECK($$ = load_param(ps, $1, $3, &$4)); }
  ;

ret_opt:
    %empty               { $$ = NULL; }
  | ARROW type           { $$ = $2; }
  ;

/* body -> {TEMP '=' expr ';' | "let" param '=' expr ';'
 *          | "free_var" param ';'} expr
 * A let's body is the rest of the body (load_body). */
body:
    mark bindings expr_a { $$ = load_body(ps, $1, $3); }
  ;

bindings:
    %empty
  | bindings TEMP '=' expr_a ';'
                         { CHECK(load_define(ps, $2, $4)); }
  | bindings let_head expr_a ';'
                         { load_push_let(ps, $2, $3); }
  | bindings FREE_VAR param ';'
                         { load_free_var(ps, $3); }
  | bindings BINDING     { graft_node *call = load_binding(ps, $2);
                           CHECK(call && load_define(ps, load_bind_temp(ps, $2), call)); }
  | bindings BIND bound ';'
                         { CHECK(load_define(ps, load_bind_temp(ps, $2), $3)); }
  | bindings BIND bound ANNOT ';'
                         { load_annotate(ps, $3, $4);
                           CHECK(load_define(ps, load_bind_temp(ps, $2), $3)); }
  ;

/* (note [long tokens] in relay_lex.l) What follows "%N = op(" (BIND, the token before
 * bound: $<text>0) up to the binding's ANNOT or ';', as postfix would
 * read the call and what follows it. */
bound:
    mark args_opt ')'    { CHECK($$ = load_bind_call(ps, $<text>0, $1)); }
  | NAMES                { CHECK($$ = load_bind_names(ps, $<text>0, $1)); }
  | bound '.' INT        { CHECK($$ = load_getitem(ps, $1, $3)); }
  | bound '(' mark args_opt ')'
                         { CHECK($$ = load_fn_call(ps, $1, $3, $2)); }
  | bound '(' mark NAMES { CHECK($$ = load_fn_call_names(ps, $1, $4, $2)); }
  ;

/* "(let %v = ...; ... body)": a let used as an operand, as TVM prints one
 * (wrapped in parentheses). */
let_first:
    let_head expr_a ';'  { load_push_let(ps, $1, $2); }
  ;

/* The variable is bound before its value: a let-bound function may call
 * itself (loops from TVM's importers). */
let_head:
    LET param '='        { $$ = $2; }
  ;

expr_a:
    postfix
  | postfix ANNOT        { load_annotate(ps, $1, $2); $$ = $1; }
  | fn_expr
  | fn_expr ANNOT        { load_annotate(ps, $1, $2); $$ = $1; }
  | if_expr
  | if_expr ANNOT        { load_annotate(ps, $1, $2); $$ = $1; }
  | match_expr
  | match_expr ANNOT     { load_annotate(ps, $1, $2); $$ = $1; }
  ;

postfix:
    IDENT %prec OPVALUE  { $$ = load_opref(ps, $1); }
  | postfix '.' INT      { CHECK($$ = load_getitem(ps, $1, $3)); }
  | postfix '(' mark args_opt ')'
                         { CHECK($$ = load_fn_call(ps, $1, $3, $2)); }
  | postfix '(' mark NAMES
                         { CHECK($$ = load_fn_call_names(ps, $1, $4, $2)); }
  | TEMP                 { CHECK($$ = load_use(ps, $1)); }
  | LOCAL                { CHECK($$ = load_use(ps, $1)); }
  | INT                  { CHECK($$ = load_const(ps, $1)); }
  | NUMBER               { CHECK($$ = load_const(ps, $1)); }
  | BOOL                 { CHECK($$ = load_const(ps, $1)); }
  | META                 { CHECK($$ = load_const(ps, $1)); }
  | GLOBAL               { $$ = load_global(ps, $1); }
  | NONE                 { $$ = load_opref(ps, $1); } /* the Prelude's None */
  | IDENT '(' mark args_opt ')'
                         { CHECK($$ = load_at(ps, load_call(ps, $1, $3), $1)); }
  | IDENT '(' mark NAMES { CHECK($$ = load_call_names(ps, $1, $4)); }
  | '(' mark let_first bindings expr_a ')'
                         { $$ = load_at(ps, load_body(ps, $2, $5), $1); }
  | '(' mark ')'         { $$ = load_at(ps, load_tuple(ps, $2), $1); }
  | '(' mark fields ')'  { $$ = load_at(ps, load_paren(ps, $2), $1); }
  | '(' mark NAMES       { CHECK($$ = load_paren_names(ps, $3));
                           $$ = load_at(ps, $$, $1); }
  | '(' mark fields ',' ')'
                         { $$ = load_at(ps, load_tuple(ps, $2), $1); }
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
    expr_a               { load_push_node(ps, $1); }
  | attr
  | args ',' expr_a      { load_push_node(ps, $3); }
  | args ',' attr
  ;

/* A comment after an attribute value is layout (TVM writes none). */
attr:
    IDENT '=' attr_value { load_push_attr(ps, $1, $3); }
  | IDENT '=' attr_value ANNOT
                         { load_push_attr(ps, $1, $3); }
  ;

/* if -> "if" '(' expr ')' block "else" block */
if_expr:
    IF '(' expr_a ')' block ELSE block
                         { $$ = load_if(ps, $3, $5, $7); }
  ;

/* A branch: a scope of its own (its temps end at its '}'). */
block:
    '{' block_open body '}'
                         { load_scope_close(ps); $$ = $3; }
  ;

block_open:
    %empty               { load_block_open(ps); }
  ;

/* match -> "match" ['?'] '(' expr ')' '{' {pattern "=>" block ','} '}' */
match_expr:
    MATCH '(' expr_a ')' '{' mark clauses '}'
                         { $$ = load_match(ps, $1, $3, $6); }
  ;

clauses:
    clause
  | clauses clause
  ;

/* The pattern's variables are bound in the clause's scope. */
clause:
    clause_open pattern DARROW '{' body '}' ','
                         { load_clause(ps, $1, $5); }
  ;

clause_open:
    %empty               { load_block_open(ps); $$ = load_mark(ps); }
  ;

pattern:
    IDENT                { load_push_piece(ps, $1, NULL); }
  | NONE                 { load_push_piece(ps, $1, NULL); }
  | IDENT '('            { load_push_piece(ps, $1, "("); }
    patterns ')'         { load_push_piece_text(ps, ")"); }
  | '('                  { load_push_piece_text(ps, "("); }
    patterns ')'         { load_push_piece_text(ps, ")"); }
  | param                { load_push_piece_var(ps, $1); }
  ;

patterns:
    pattern
  | patterns ','         { load_push_piece_text(ps, ", "); }
    pattern
  ;

/* fn -> "fn" ['[' type-params ']'] '(' params-and-attrs ')' ["->" type]
 *       '{' body '}' */
fn_expr:
    fn_open mark fn_items_opt ')' ret_opt '{' body '}'
                         { CHECK($$ = load_at(ps, load_func(ps, $2, $5, $7), $1)); }
  | fn_open mark param_names ret_opt '{' body '}'
                         { CHECK($$ = load_at(ps, load_func(ps, $2, $4, $6), $1)); }
  ;

fn_open:
    FN '('               { CHECK(load_scope_open(ps, $1, NULL)); $$ = $1; }
  | FN type_params '('   { CHECK(load_scope_open(ps, $1, $2)); $$ = $1; }
  ;

fn_items_opt:
    %empty
  | fn_items
  ;

fn_items:
    param                { load_push_node(ps, $1); }
  | attr
  | fn_items ',' param   { load_push_node(ps, $3); }
  | fn_items ',' attr
  ;

attr_value:
    INT                  { $$ = load_value(ps, GRAFT_ATTR_INT, $1); }
  | NUMBER               { $$ = load_value(ps, GRAFT_ATTR_FLOAT, $1); }
  | BOOL                 { $$ = load_value(ps, GRAFT_ATTR_BOOL, $1); }
  | NONE                 { $$ = load_value(ps, GRAFT_ATTR_NULL, $1); }
  | STRING               { $$ = load_value(ps, GRAFT_ATTR_STRING, $1); }
  | '[' mark ']'         { $$ = load_list(ps, $2); }
  | '[' mark values ']'  { $$ = load_list(ps, $2); }
  | '{' mark '}'         { $$ = load_map(ps, $2); }
  | '{' mark pairs '}'   { $$ = load_map(ps, $2); }
  | META                 { load_meta_ref(ps, $1);
                           $$ = load_value(ps, GRAFT_ATTR_OPAQUE, $1); }
  | GLOBAL               { $$ = load_global_value(ps, $1); }
  ;

/* A map's entries, key and value pushed in turn. */
pairs:
    attr_value '=' attr_value
                         { load_push_value(ps, $1); load_push_value(ps, $3); }
  | pairs ',' attr_value '=' attr_value
                         { load_push_value(ps, $3); load_push_value(ps, $5); }
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

/* type -> DTYPE | Tensor '[' '(' dims ')' ',' DTYPE ']' | '(' types ')'
 *       | NAME '[' types ']' (an ADT: List[Tensor[(2), float32]]; a tuple
 *         type as its first argument, List[(Tensor[(2), float32], int32)],
 *         shares "NAME [ (" with a tensor type and parts from it at the
 *         first token after the '(': a type, not a dim)
 *       | "fn" ['[' type-params ']'] '(' types ')' "->" type (a function
 *         type, as TVM's FuncType prints: fn (Tensor[(2), float32]) -> B) */
type:
    named_type
  | FN '(' mark ')' ARROW type
                         { $$ = load_fn_type(ps, NULL, $3, $6); }
  | FN '(' mark types ')' ARROW type
                         { $$ = load_fn_type(ps, NULL, $3, $7); }
  | FN type_params '(' mark ')' ARROW type
                         { $$ = load_fn_type(ps, $2, $4, $7); }
  | FN type_params '(' mark types ')' ARROW type
                         { $$ = load_fn_type(ps, $2, $4, $8); }
  | '(' mark ')'         { $$ = load_tuple_type(ps, $2); }
  | '(' mark types ')'   { $$ = load_paren_type(ps, $2); }
  | '(' mark types ',' ')'
                         { $$ = load_tuple_type(ps, $2); }
  ;

types:
    type                 { load_push_type(ps, $1); }
  | types ',' type       { load_push_type(ps, $3); }
  ;

named_type:
    IDENT                { $$ = load_dtype(ps, $1); }
  | IDENT '[' '(' mark dims_opt ')' ',' IDENT ']'
                         { CHECK($$ = load_tensor_type(ps, $1, $4, $8)); }
  | IDENT '[' mark type_args ']'
                         { $$ = load_type_call(ps, $1, $3); }
  | IDENT '[' '(' mark types ')'
                         { load_push_type(ps, load_paren_type(ps, $4)); }
    type_args_rest ']'   { $$ = load_type_call(ps, $1, $4); }
  | IDENT '[' '(' mark types ',' ')'
                         { load_push_type(ps, load_tuple_type(ps, $4)); }
    type_args_rest ']'   { $$ = load_type_call(ps, $1, $4); }
  ;

/* The arguments of an ADT type after a first one in parentheses. */
type_args_rest:
    %empty
  | type_args_rest ',' type
                         { load_push_type(ps, $3); }
  ;

type_args:
    named_type           { load_push_type(ps, $1); }
  | type_args ',' type   { load_push_type(ps, $3); }
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
    INT                  { CHECK(load_push_dim(ps, $1)); }
  | '?'                  { CHECK(load_push_dim(ps, $1)); }
  ;

%%

/* Bison's messages, except that a full parser stack is deep nesting. */
/* Both point at the lookahead, the lexer's last match (note [token
 * offsets]). */
static void relay_error(RelayParser *ps, const char *msg)
{
    SrcRange loc = relay_text_range(ps->src, ps->lexer->tok);
    ps->failed = true;
    if (strcmp(msg, "memory exhausted") == 0)
        diag_error(ps->diag, ps->src, loc,
                   "expression nested too deeply (the limit is %ld parser "
                   "stack entries, about %ld levels) [--limit model-depth]",
                   ps->max_depth, ps->max_depth / 5);
    else {
        diag_error(ps->diag, ps->src, loc, "%s", msg);
        load_note_opener(ps, msg);
    }
}

/* A syntax error, worded as bison's "detailed" errors: the unexpected
 * token and up to four expected ones, none when more are possible.  The
 * long tokens are left out (note [long tokens]): this report comes from
 * the second attempt, whose scanner never makes them, and it lists what
 * the grammar without them would. */
static int yyreport_syntax_error(const yypcontext_t *ctx, RelayParser *ps)
{
    yysymbol_kind_t unexpected = yypcontext_token(ctx);
    if (unexpected == YYSYMBOL_YYEMPTY) {
        relay_error(ps, "syntax error");
        return 0;
    }
    yysymbol_kind_t all[YYNTOKENS];
    int nall = yypcontext_expected_tokens(ctx, all, YYNTOKENS);
    const char *expected[4];
    int n = 0;
    for (int i = 0; i < nall; i++) {
        if (all[i] == YYSYMBOL_BIND || all[i] == YYSYMBOL_NAMES ||
            all[i] == YYSYMBOL_BINDING)
            continue;
        if (n == 4) {
            n = 0;
            break;
        }
        expected[n++] = yysymbol_name(all[i]);
    }
    StrBuf msg = {0};
    strbuf_printf(&msg, "syntax error, unexpected %s", yysymbol_name(unexpected));
    for (int i = 0; i < n; i++)
        strbuf_printf(&msg, "%s%s", i ? " or " : ", expecting ", expected[i]);
    relay_error(ps, msg.data);
    strbuf_free(&msg);
    return 0;
}
