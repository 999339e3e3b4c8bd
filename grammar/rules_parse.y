/* rules_parse.y - the grammar of the rule language (graft-rules(5)).
 *
 * A pure parser with prefix rules_ and SrcRange locations.  Actions only
 * build AST nodes (ast.h); names are resolved and rules checked later
 * (check.h).  Items are separated by SEP tokens, which the scanner inserts
 * before a line that starts at column 1 (note [item separation]); a
 * broken item is skipped up to the next SEP by the `error` production, so
 * each broken item gives one error and the next item is parsed normally.
 */
%code top {
#include "config.h"
}

%code requires {
#include "rules_build.h"
}

%code provides {
int rules_lex(RULES_STYPE *val, SrcRange *loc, RulesParseCtx *ctx);
}

%code {
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdlib.h>
#include <string.h>

/* Every node built by a recursive production goes through CHECK_DEPTH:
 * trees deeper than the rule-depth limit are refused (note [nesting
 * bound]). */
#define CHECK_DEPTH(node)                         \
    do {                                          \
        if (!build_depth_ok(ctx, (node)))         \
            YYERROR;                              \
    } while (0)
#define B (&ctx->b)
/* The scanner bounds bracket nesting and prefix-operator runs by
 * rule-depth, and every other production is left-recursive or
 * precedence-bounded, so the stack stays within a few entries a level. */
#define YYMAXDEPTH (10000 + 16 * (long)ctx->max_depth)
static void yyerror(const SrcRange *loc, RulesParseCtx *ctx, const char *msg);
}

%define api.pure full
%define api.prefix {rules_}
%define api.location.type {SrcRange}
%define parse.error custom
%locations
%expect 0
%param {RulesParseCtx *ctx}

%union {
    const char *name; /* token text (interned) */
    AstNode *node;    /* a pattern, guard, action or literal */
    AstList list;     /* literal list items, tuple fields, flags */
    ArgsAcc args;     /* call arguments */
    ParamAcc param;   /* op declaration entry */
    OutputsAcc outputs; /* op declaration "-> tuple(N)" */
    AstOpDecl *opdecl; /* op declaration being built */
}

%token <name> IDENT "identifier"
%token <name> DTYPE "dtype"
%token <name> NUMBER "number"
%token <name> TNUMBER "number with a dtype suffix"
%token <name> STRING "string"
%token <name> REPEAT_NAME "repeated op"
%token <name> OPTIONAL_NAME "optional op"
%token WILDCARD "'_'"
%token OP "'op'" LET "'let'" INCLUDE "'include'" OPSET "'opset'" WHERE "'where'"
%token PARTITION "'partition'" FN "'fn'" DOMINATES "'dominates'"
%token TRUE "'True'" FALSE "'False'" NONE "'None'" TENSOR "'Tensor'"
%token IF "'if'" ELSE "'else'"
%token ASSIGN "':='" ARROW "'=>'" EQ "'=='" NE "'!='" LE "'<='" GE "'>='"
%token RESULT "'->'"
%token ANDAND "'&&'" OROR "'||'" ELLIPSIS "'...'" DSTAR "'**'"
%token SEP "start of a new item"
%token LEXERROR "invalid token"

%type <node> pattern palt psum pterm punary ppostfix pprimary pattr_value
%type <node> constraint guard_opt gexpr gor gand gcmp gsum gterm gunary
%type <node> gpostfix gprimary gquery_arg action aexpr asum aterm aunary
%type <node> apostfix aprimary aattr_value aattr_scalar aattr_item literal scalar_literal
%type <node> signed_number
%type <name> opname
%type <node> partition pletvar asplice roots
%type <list> literal_items aattr_items dims tuple_items atuple_items flags flag_list
%type <list> pattr_list part_attrs gquery_args optraits let_params root_list
%type <args> tuple_tail atuple_tail
%type <node> flag pattr dim
%type <args> pargs parglist aargs aarglist
%type <param> oparam oattr
%type <outputs> opresult
%type <opdecl> oparams oparams_opt

%%

file
    : %empty
    | items
    ;

/* After a broken item the parser skips tokens up to the next SEP (the
 * `error` production below); error reporting resumes at that SEP. */
items
    : item
    | items SEP { yyerrok; } item
    ;

item
    : rule                { rules_item_range(ctx, @1); }
    | opdecl              { rules_item_range(ctx, @1); }
    | let                 { rules_item_range(ctx, @1); }
    | include             { rules_item_range(ctx, @1); }
    | opset               { rules_item_range(ctx, @1); }
    | error               { build_recovered(ctx); }
    ;

/* rule -> NAME [flags] := PATTERN [where GUARD] => ACTION */
rule
    : IDENT flags ASSIGN roots guard_opt ARROW action
                          { build_rule(ctx, $1, @1, &$2, $4, $5, $7, @$); }
    ;

/* One pattern, or several roots joined by '&' (note [several roots] in
 * check_roots.c): a match is one node per root, sharing the variables. */
roots
    : pattern
    | root_list           { $$ = build_roots(B, $1, @$); }
    ;

root_list
    : pattern '&' pattern { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1);
                            ast_list_push(B->arena, &$$, $3); }
    | root_list '&' pattern { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

flags
    : %empty              { $$ = (AstList){0}; }
    | '[' flag_list ']'   { $$ = $2; }
    ;

flag_list
    : flag                { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | flag_list ',' flag  { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

flag
    : IDENT               { $$ = build_attr(B, $1, @1, NULL, @$); }
    | IDENT '=' signed_number { $$ = build_attr(B, $1, @1, $3, @$); }
    ;

guard_opt
    : %empty              { $$ = NULL; }
    | WHERE gexpr         { $$ = $2; }
    ;

/* ---- patterns ---- */

/* let v = value; body reaches as far right as it can, so it stands
 * where a whole pattern does (in parentheses as an operand). */
pattern
    : palt
    | LET pletvar '=' pattern ';' pattern
                          { $$ = build_scope(B, AST_LETIN, $2, $4, $6, @$); CHECK_DEPTH($$); }
    ;

palt
    : psum
    | palt '|' psum       { $$ = build_alt(B, $1, $3, @$); CHECK_DEPTH($$); }
    ;

psum
    : pterm
    | psum '+' pterm      { $$ = build_infix(B, "add", $1, $3, @$); CHECK_DEPTH($$); }
    | psum '-' pterm      { $$ = build_infix(B, "subtract", $1, $3, @$); CHECK_DEPTH($$); }
    ;

pterm
    : punary
    | pterm '*' punary    { $$ = build_infix(B, "multiply", $1, $3, @$); CHECK_DEPTH($$); }
    | pterm '/' punary    { $$ = build_infix(B, "divide", $1, $3, @$); CHECK_DEPTH($$); }
    ;

punary
    : ppostfix
    | '-' punary          { $$ = build_negate(B, $2, @$); CHECK_DEPTH($$); }
    | IDENT '@' punary    { $$ = build_bind(B, $1, @1, $3, @$); CHECK_DEPTH($$); }
    ;

ppostfix
    : pprimary
    | ppostfix '[' NUMBER ']' { $$ = build_getitem(ctx, $1, $3, @3, @$); CHECK_DEPTH($$); }
    | ppostfix '[' WILDCARD ']' { $$ = build_getitem_any(B, $1, @$); CHECK_DEPTH($$); }
    | ppostfix '[' IDENT ']' { $$ = build_getitem_var(B, $1, $3, @3, @$); CHECK_DEPTH($$); }
    | ppostfix ':' constraint { $$ = build_constrain($1, $3, @$); CHECK_DEPTH($$); }
    ;

pprimary
    : IDENT               { $$ = build_var(B, $1, @$); }
    | WILDCARD            { $$ = ast_new(B, AST_WILDCARD, @$); }
    | NUMBER              { $$ = build_number(B, $1, false, @$); }
    | TNUMBER             { $$ = build_typed_number(B, $1, false, @$); }
    | TRUE                { $$ = build_typed_bool(B, true, @$); }
    | FALSE               { $$ = build_typed_bool(B, false, @$); }
    | '(' pattern ')'     { $$ = $2; }
    | '(' pattern ')' '(' pargs ')'
                          { $$ = build_callpat(B, $2, &$5, @$); CHECK_DEPTH($$); }
    | '(' ')'             { $$ = build_tuple(B, (AstList){0}, false, @$); }
    | '(' ELLIPSIS ')'    { $$ = build_tuple(B, (AstList){0}, true, @$); }
    | '(' IDENT ELLIPSIS ')'
                          { $$ = build_tuple(B, (AstList){0}, true, @$);
                            $$->u.list.rest = build_var(B, $2, @2); }
    | '(' pattern ',' tuple_tail ')'
                          { $$ = build_tuple_from(B, $2, &$4, @$); CHECK_DEPTH($$); }
    | IDENT '(' pargs ')' { $$ = build_call(B, AST_CALL, $1, @1, &$3, @$); CHECK_DEPTH($$); }
    | OPTIONAL_NAME '(' pargs ')'
                          { $$ = build_call(B, AST_OPTIONAL, $1, @1, &$3, @$); CHECK_DEPTH($$); }
    | REPEAT_NAME '(' pattern ')'
                          { $$ = build_unary_op(B, AST_REPEAT, $1, @1, $3, @$); CHECK_DEPTH($$); }
    | '<' IDENT '>' '(' pargs ')'
                          { $$ = build_call(B, AST_CLASS, $2, @2, &$5, @$); CHECK_DEPTH($$); }
    | WILDCARD '(' pargs ')'
                          { $$ = build_call(B, AST_ANYCALL, interner_cstr(B->names, "_"), @1, &$3, @$);
                            CHECK_DEPTH($$); }
    | WHERE '(' pargs ')' { $$ = build_call(B, AST_CALL, interner_cstr(B->names, "where"), @1,
                                            &$3, @$);
                            CHECK_DEPTH($$); }
    | OP opname           { $$ = build_opvalue(B, $2, @2, @$); }
    | FN '(' pargs ')' '{' pattern '}'
                          { $$ = build_fnlit(B, &$3, $6, @$); CHECK_DEPTH($$); }
    | IF '(' pattern ')' '{' pattern '}' ELSE '{' pattern '}'
                          { $$ = build_scope(B, AST_IF, $3, $6, $10, @$); CHECK_DEPTH($$); }
    | FN '[' pattr_list ']' '(' pargs ')'
                          { $$ = build_fncall(B, &$3, @1, &$6, @$); CHECK_DEPTH($$); }
    | DOMINATES '(' pattern ',' pattern ',' pattern ')'
                          { $$ = build_dominates(B, $3, $5, $7, @$); CHECK_DEPTH($$); }
    ;

/* An op's name after 'op': a name, or the op where (TVM's select),
 * whose name is the guard's keyword.  As a callee, where(c, x, y) has
 * productions of its own: a pattern never continues with '(' after a
 * whole operand, so 'where (' opens a guard only after a whole pattern. */
opname
    : IDENT
    | WHERE               { $$ = interner_cstr(B->names, "where"); }
    ;

/* The variable of let v = value; body: a name or _. */
pletvar
    : IDENT               { $$ = build_var(B, $1, @$); }
    | WILDCARD            { $$ = ast_new(B, AST_WILDCARD, @$); }
    ;

/* The fields after the first one of a tuple: "b, c", "b, ...", "" or "...". */
tuple_tail
    : %empty              { $$ = (ArgsAcc){0}; }
    | ELLIPSIS            { $$ = (ArgsAcc){0}; $$.ellipsis = true; }
    | tuple_items         { $$ = (ArgsAcc){0}; $$.args = $1; }
    | tuple_items ',' ELLIPSIS { $$ = (ArgsAcc){0}; $$.args = $1; $$.ellipsis = true; }
    | IDENT ELLIPSIS      { $$ = (ArgsAcc){0}; $$.ellipsis = true; $$.rest = build_var(B, $1, @1); }
    | tuple_items ',' IDENT ELLIPSIS
                          { $$ = (ArgsAcc){0}; $$.args = $1; $$.ellipsis = true;
                            $$.rest = build_var(B, $3, @3); }
    ;

tuple_items
    : pattern             { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | tuple_items ',' pattern { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

pargs
    : %empty              { $$ = (ArgsAcc){0}; }
    | parglist
    | parglist ','        { $$ = $1; }
    ;

parglist
    : pattern             { $$ = (ArgsAcc){0}; build_args_add(ctx, &$$, $1); }
    | pattr               { $$ = (ArgsAcc){0}; build_args_add(ctx, &$$, $1); }
    | ELLIPSIS            { $$ = (ArgsAcc){0}; build_args_ellipsis(ctx, &$$, @1); }
    | parglist ',' pattern  { $$ = $1; build_args_add(ctx, &$$, $3); }
    | parglist ',' pattr    { $$ = $1; build_args_add(ctx, &$$, $3); }
    | parglist ',' ELLIPSIS { $$ = $1; build_args_ellipsis(ctx, &$$, @3); }
    ;

pattr
    : IDENT '=' pattr_value { $$ = build_attr(B, $1, @1, $3, @$); }
    ;

pattr_value
    : literal
    | IDENT               { $$ = build_var(B, $1, @$); }
    | WILDCARD            { $$ = ast_new(B, AST_WILDCARD, @$); }
    ;

pattr_list
    : pattr               { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | pattr_list ',' pattr { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

/* x:const  x:var  x:var("w")  x:rank(4)  x:float32  x:Tensor[(1, _), float32]
 * op add:<broadcast> (a callee's trait) */
constraint
    : IDENT               { $$ = build_constraint(ctx, $1, @$, NULL); }
    | IDENT '(' literal ')' { $$ = build_constraint(ctx, $1, @$, $3); }
    | DTYPE               { $$ = build_dtype_constraint(B, $1, @$); }
    | '<' IDENT '>'       { $$ = build_trait_constraint(B, $2, @$); }
    | TENSOR '[' '(' dims ')' ',' DTYPE ']'
                          { $$ = build_tensor_constraint(ctx, &$4, $7, @$); }
    | TENSOR '[' '(' dims ')' ',' WILDCARD ']'
                          { $$ = build_tensor_constraint(ctx, &$4, NULL, @$); }
    ;

dims
    : %empty              { $$ = (AstList){0}; }
    | dim                 { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | dims ',' dim        { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

dim
    : NUMBER              { $$ = build_number(B, $1, false, @$); }
    | WILDCARD            { $$ = ast_new(B, AST_WILDCARD, @$); }
    ;

/* ---- literals ---- */

literal
    : scalar_literal
    | '[' ']'             { $$ = build_list(B, (AstList){0}, @$); }
    | '[' literal_items ']' { $$ = build_list(B, $2, @$); CHECK_DEPTH($$); }
    ;

scalar_literal
    : signed_number
    | STRING              { $$ = build_string(B, $1, @$); }
    | TRUE                { $$ = build_bool(B, true, @$); }
    | FALSE               { $$ = build_bool(B, false, @$); }
    | NONE                { $$ = ast_new(B, AST_NONE, @$); }
    | DTYPE               { $$ = build_dtype(B, $1, @$); }
    ;

signed_number
    : NUMBER              { $$ = build_number(B, $1, false, @$); }
    | '-' NUMBER          { $$ = build_number(B, $2, true, @$); }
    | TNUMBER             { $$ = build_number(B, $1, false, @$); }
    | '-' TNUMBER         { $$ = build_number(B, $2, true, @$); }
    ;

literal_items
    : literal             { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | literal_items ',' literal { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

/* ---- guards ---- */

gexpr
    : gor
    ;

gor
    : gand
    | gor OROR gand       { $$ = build_binary(B, OPER_OR, $1, $3, @$); CHECK_DEPTH($$); }
    ;

gand
    : gcmp
    | gand ANDAND gcmp    { $$ = build_binary(B, OPER_AND, $1, $3, @$); CHECK_DEPTH($$); }
    ;

gcmp
    : gsum
    | gsum EQ gsum        { $$ = build_binary(B, OPER_EQ, $1, $3, @$); CHECK_DEPTH($$); }
    | gsum NE gsum        { $$ = build_binary(B, OPER_NE, $1, $3, @$); CHECK_DEPTH($$); }
    | gsum '<' gsum       { $$ = build_binary(B, OPER_LT, $1, $3, @$); CHECK_DEPTH($$); }
    | gsum LE gsum        { $$ = build_binary(B, OPER_LE, $1, $3, @$); CHECK_DEPTH($$); }
    | gsum '>' gsum       { $$ = build_binary(B, OPER_GT, $1, $3, @$); CHECK_DEPTH($$); }
    | gsum GE gsum        { $$ = build_binary(B, OPER_GE, $1, $3, @$); CHECK_DEPTH($$); }
    ;

gsum
    : gterm
    | gsum '+' gterm      { $$ = build_binary(B, OPER_ADD, $1, $3, @$); CHECK_DEPTH($$); }
    | gsum '-' gterm      { $$ = build_binary(B, OPER_SUB, $1, $3, @$); CHECK_DEPTH($$); }
    ;

gterm
    : gunary
    | gterm '*' gunary    { $$ = build_binary(B, OPER_MUL, $1, $3, @$); CHECK_DEPTH($$); }
    | gterm '/' gunary    { $$ = build_binary(B, OPER_DIV, $1, $3, @$); CHECK_DEPTH($$); }
    ;

gunary
    : gpostfix
    | '-' gunary          { $$ = build_unary(B, OPER_NEG, $2, @$); CHECK_DEPTH($$); }
    | '!' gunary          { $$ = build_unary(B, OPER_NOT, $2, @$); CHECK_DEPTH($$); }
    ;

gpostfix
    : gprimary
    | gpostfix '[' NUMBER ']' { $$ = build_index(ctx, $1, $3, @3, @$); CHECK_DEPTH($$); }
    ;

gprimary
    : NUMBER              { $$ = build_number(B, $1, false, @$); }
    | TNUMBER             { $$ = build_number(B, $1, false, @$); }
    | STRING              { $$ = build_string(B, $1, @$); }
    | TRUE                { $$ = build_bool(B, true, @$); }
    | FALSE               { $$ = build_bool(B, false, @$); }
    | NONE                { $$ = ast_new(B, AST_NONE, @$); }
    | DTYPE               { $$ = build_dtype(B, $1, @$); }
    | '[' ']'             { $$ = build_list(B, (AstList){0}, @$); }
    | '[' literal_items ']' { $$ = build_list(B, $2, @$); CHECK_DEPTH($$); }
    | IDENT               { $$ = build_var(B, $1, @$); }
    | IDENT '(' gquery_args ')' { $$ = build_query(B, $1, @1, &$3, @$); }
    | REPEAT_NAME '(' gexpr ')'
                          { $$ = build_binary(B, OPER_MUL, build_var(B, $1, @1), $3, @$);
                            CHECK_DEPTH($$); }
    | '(' gexpr ')'       { $$ = $2; }
    ;

gquery_args
    : gquery_arg          { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | gquery_args ',' gquery_arg { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

gquery_arg
    : IDENT               { $$ = build_var(B, $1, @$); }
    ;

/* ---- actions ---- */

action
    : aexpr
    | partition
    ;

partition
    : PARTITION           { $$ = build_partition(B, (AstList){0}, @$); }
    | PARTITION '(' ')'   { $$ = build_partition(B, (AstList){0}, @$); }
    | PARTITION '(' part_attrs ')' { $$ = build_partition(B, $3, @$); }
    ;

part_attrs
    : IDENT '=' literal   { $$ = (AstList){0};
                            ast_list_push(B->arena, &$$, build_attr(B, $1, @1, $3, @$)); }
    | part_attrs ',' IDENT '=' literal
                          { $$ = $1;
                            ast_list_push(B->arena, &$$, build_attr(B, $3, @3, $5, @$)); }
    ;

aexpr
    : asum
    ;

asum
    : aterm
    | asum '+' aterm      { $$ = build_infix(B, "add", $1, $3, @$); CHECK_DEPTH($$); }
    | asum '-' aterm      { $$ = build_infix(B, "subtract", $1, $3, @$); CHECK_DEPTH($$); }
    ;

aterm
    : aunary
    | aterm '*' aunary    { $$ = build_infix(B, "multiply", $1, $3, @$); CHECK_DEPTH($$); }
    | aterm '/' aunary    { $$ = build_infix(B, "divide", $1, $3, @$); CHECK_DEPTH($$); }
    ;

aunary
    : apostfix
    | '-' aunary          { $$ = build_negate(B, $2, @$); CHECK_DEPTH($$); }
    ;

apostfix
    : aprimary
    | apostfix '[' NUMBER ']' { $$ = build_getitem(ctx, $1, $3, @3, @$); CHECK_DEPTH($$); }
    | apostfix '[' IDENT ']' { $$ = build_getitem_var(B, $1, $3, @3, @$); CHECK_DEPTH($$); }
    | apostfix ':' DTYPE  { $$ = build_constrain($1, build_dtype_constraint(B, $3, @3), @$);
                            CHECK_DEPTH($$); }
    | apostfix '[' NUMBER ':' ']'
                          { $$ = build_slice(B, $1, $3, NULL, false, false, @$); CHECK_DEPTH($$); }
    | apostfix '[' NUMBER ':' NUMBER ']'
                          { $$ = build_slice(B, $1, $3, $5, false, true, @$); CHECK_DEPTH($$); }
    | apostfix '[' NUMBER ':' '-' NUMBER ']'
                          { $$ = build_slice(B, $1, $3, $6, true, true, @$); CHECK_DEPTH($$); }
    | apostfix '[' ':' NUMBER ']'
                          { $$ = build_slice(B, $1, NULL, $4, false, true, @$); CHECK_DEPTH($$); }
    | apostfix '[' ':' '-' NUMBER ']'
                          { $$ = build_slice(B, $1, NULL, $5, true, true, @$); CHECK_DEPTH($$); }
    ;

aprimary
    : IDENT               { $$ = build_var(B, $1, @$); }
    | NUMBER              { $$ = build_number(B, $1, false, @$); }
    | TNUMBER             { $$ = build_typed_number(B, $1, false, @$); }
    | '(' aexpr ')'       { $$ = $2; }
    | '(' ')'             { $$ = build_tuple(B, (AstList){0}, false, @$); }
    | '(' aexpr ',' atuple_tail ')'
                          { $$ = build_tuple_from(B, $2, &$4, @$); CHECK_DEPTH($$); }
    | '(' asplice ')'     { $$ = build_tuple_from(B, $2, &(ArgsAcc){0}, @$); CHECK_DEPTH($$); }
    | '(' asplice ',' atuple_tail ')'
                          { $$ = build_tuple_from(B, $2, &$4, @$); CHECK_DEPTH($$); }
    | IDENT '(' aargs ')' { $$ = build_call(B, AST_CALL, $1, @1, &$3, @$); CHECK_DEPTH($$); }
    | WHERE '(' aargs ')' { $$ = build_call(B, AST_CALL, interner_cstr(B->names, "where"), @1,
                                            &$3, @$);
                            CHECK_DEPTH($$); }
    | OP opname           { $$ = build_opvalue(B, $2, @2, @$); }
    | REPEAT_NAME '(' aexpr ')'
                          { $$ = build_infix(B, "multiply", build_var(B, $1, @1), $3, @$);
                            CHECK_DEPTH($$); }
    ;

atuple_tail
    : %empty              { $$ = (ArgsAcc){0}; }
    | atuple_items        { $$ = (ArgsAcc){0}; $$.args = $1; }
    ;

atuple_items
    : aexpr               { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | asplice             { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | atuple_items ',' aexpr { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    | atuple_items ',' asplice { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

/* x... or x[1:]...: a tuple's fields as operands (note [sequence
 * variables] in check_vars.c). */
asplice
    : aexpr ELLIPSIS      { $$ = build_splice(B, $1, @$); CHECK_DEPTH($$); }
    ;

aargs
    : %empty              { $$ = (ArgsAcc){0}; }
    | aarglist
    | aarglist ','        { $$ = $1; }
    ;

aarglist
    : aexpr               { $$ = (ArgsAcc){0}; build_args_add(ctx, &$$, $1); }
    | IDENT '=' aattr_value { $$ = (ArgsAcc){0};
                              build_args_add(ctx, &$$, build_attr(B, $1, @1, $3, @$)); }
    | DSTAR IDENT         { $$ = (ArgsAcc){0}; build_args_copy(ctx, &$$, build_var(B, $2, @2)); }
    | aarglist ',' aexpr  { $$ = $1; build_args_add(ctx, &$$, $3); }
    | asplice             { $$ = (ArgsAcc){0}; build_args_add(ctx, &$$, $1); }
    | aarglist ',' asplice { $$ = $1; build_args_add(ctx, &$$, $3); }
    | aarglist ',' IDENT '=' aattr_value
                          { $$ = $1; build_args_add(ctx, &$$, build_attr(B, $3, @3, $5, @$)); }
    | aarglist ',' DSTAR IDENT
                          { $$ = $1; build_args_copy(ctx, &$$, build_var(B, $4, @4)); }
    ;

/* An attribute value in an action.  A list's items may be computed
 * (newshape=[-1, shape(x)[2]]): note [computed attributes] in
 * src/runtime/rewrite_build.c. */
aattr_value
    : aattr_scalar
    | '[' ']'             { $$ = build_list(B, (AstList){0}, @$); }
    | '[' aattr_items ']' { $$ = build_list(B, $2, @$); CHECK_DEPTH($$); }
    ;

aattr_items
    : aattr_item          { $$ = (AstList){0}; ast_list_push(B->arena, &$$, $1); }
    | aattr_items ',' aattr_item { $$ = $1; ast_list_push(B->arena, &$$, $3); }
    ;

aattr_item
    : aattr_scalar
    | '[' ']'             { $$ = build_list(B, (AstList){0}, @$); }
    | '[' literal_items ']' { $$ = build_list(B, $2, @$); CHECK_DEPTH($$); }
    ;

aattr_scalar
    : scalar_literal
    | IDENT               { $$ = build_var(B, $1, @$); }
    | IDENT '(' gquery_args ')' { $$ = build_query(B, $1, @1, &$3, @$); }
    | IDENT '(' gquery_args ')' '[' NUMBER ']'
                          { $$ = build_index(ctx, build_query(B, $1, @1, &$3, @$), $6, @6, @$);
                            CHECK_DEPTH($$); }
    | '(' gexpr ')'       { $$ = $2; }
    ;

/* ---- declarations ---- */

/* op NAME(operands, attr: type = default, ...) [-> tuple(N)] traits */
opdecl
    : OP opname '(' oparams_opt ')' opresult optraits
                          { build_opdecl_outputs(ctx, $4, &$6);
                            build_opdecl_finish(ctx, $4, $2, @2, &$7); }
    ;

/* The output: one tensor when not written; "-> tuple(N)" a tuple of N,
 * "-> tuple(...)" a tuple its attributes size (split). */
opresult
    : %empty              { $$ = (OutputsAcc){0}; }
    | RESULT IDENT '(' NUMBER ')'
                          { $$ = (OutputsAcc){.word = $2, .count = $4, .range = @$}; }
    | RESULT IDENT '(' ELLIPSIS ')'
                          { $$ = (OutputsAcc){.word = $2, .varies = true, .range = @$}; }
    ;

oparams_opt
    : %empty              { $$ = build_opdecl_new(B); }
    | oparams
    | oparams ','         { $$ = $1; }
    ;

oparams
    : oparam              { $$ = build_opdecl_new(B); build_opdecl_param(ctx, $$, &$1); }
    | oparams ',' oparam  { $$ = $1; build_opdecl_param(ctx, $$, &$3); }
    ;

oparam
    : IDENT               { $$ = (ParamAcc){.name = $1, .range = @$}; }
    | IDENT '?'           { $$ = (ParamAcc){.name = $1, .range = @$, .optional = true}; }
    | IDENT ELLIPSIS      { $$ = (ParamAcc){.name = $1, .range = @$, .variadic = true}; }
    | oattr
    | oattr IDENT NUMBER  { $$ = $1; build_param_since(ctx, &$$, $2, @2, $3); }
    ;

/* An attribute, then (ONNX) "since N" */
oattr
    : IDENT ':' IDENT     { $$ = (ParamAcc){.is_attr = true, .name = $1, .range = @$, .type = $3}; }
    | IDENT ':' DTYPE     { $$ = (ParamAcc){.is_attr = true, .name = $1, .range = @$, .type = $3}; }
    | IDENT ':' IDENT '=' literal
                          { $$ = (ParamAcc){.is_attr = true, .name = $1, .range = @$,
                                            .type = $3, .dflt = $5}; }
    | IDENT ':' DTYPE '=' literal
                          { $$ = (ParamAcc){.is_attr = true, .name = $1, .range = @$,
                                            .type = $3, .dflt = $5}; }
    ;

/* The op's traits, as AST_VAR nodes naming them; an ONNX op's clauses
 * (domain "com.microsoft", since 13, relay "nn.conv2d") as the word's
 * AST_VAR followed by its value (note [onnx op clauses] in
 * rules_build_items.c). */
optraits
    : %empty              { $$ = (AstList){0}; }
    | optraits IDENT      { $$ = $1; ast_list_push(B->arena, &$$, build_var(B, $2, @2)); }
    | optraits IDENT STRING
                          { $$ = $1; ast_list_push(B->arena, &$$, build_var(B, $2, @2));
                            ast_list_push(B->arena, &$$, build_string(B, $3, @3)); }
    | optraits IDENT NUMBER
                          { $$ = $1; ast_list_push(B->arena, &$$, build_var(B, $2, @2));
                            ast_list_push(B->arena, &$$, build_clause_number(ctx, $3, @3)); }
    ;

/* let NAME = PATTERN, let NAME(a, b) = PATTERN */
let
    : LET IDENT '=' pattern { build_let(ctx, $2, @2, NULL, false, $4); }
    | LET IDENT '(' ')' '=' pattern { build_let(ctx, $2, @2, NULL, true, $6); }
    | LET IDENT '(' let_params ')' '=' pattern { build_let(ctx, $2, @2, &$4, true, $7); }
    ;

let_params
    : IDENT               { $$ = (AstList){0}; ast_list_push(B->arena, &$$, build_var(B, $1, @1)); }
    | let_params ',' IDENT { $$ = $1; ast_list_push(B->arena, &$$, build_var(B, $3, @3)); }
    ;

include
    : INCLUDE STRING      { build_include(ctx, $2, @2); }
    ;

/* opset onnx 17: the file's rules are for ONNX models of that opset */
opset
    : OPSET IDENT NUMBER  { build_opset(ctx, $2, @2, $3, @3); }
    ;

%%

int rules_lex(RULES_STYPE *val, SrcRange *loc, RulesParseCtx *ctx)
{
    return rules_next_token(val, loc, ctx);
}

/* Syntax errors: "unexpected X, expected A or B", with a note naming an
 * unclosed bracket when a closer is among the expected tokens.  Dropped
 * right after a scanner error (that error already explains the token). */
static int yyreport_syntax_error(const yypcontext_t *yyctx, RulesParseCtx *ctx)
{
    if (ctx->lex_error) {
        ctx->lex_error = false;
        return 0;
    }
    enum { MAX_EXPECTED = 6 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(yyctx, expected, MAX_EXPECTED);
    const char *names[MAX_EXPECTED];
    for (int i = 0; i < n && i < MAX_EXPECTED; i++)
        names[i] = yysymbol_name(expected[i]);
    yysymbol_kind_t tok = yypcontext_token(yyctx);
    build_syntax_error(ctx, *yypcontext_location(yyctx),
                       tok == YYSYMBOL_YYEOF ? NULL : yysymbol_name(tok),
                       tok == YYSYMBOL_SEP, names, n < 0 ? 0 : n);
    return 0;
}

static void yyerror(const SrcRange *loc, RulesParseCtx *ctx, const char *msg)
{
    /* Only bison's own failures get here ("memory exhausted"). */
    diag_error(ctx->diag, ctx->b.src, *loc, "input nested too deeply (%s)", msg);
}

void rules_item_range(RulesParseCtx *ctx, SrcRange range)
{
    for (; (size_t)ctx->nranged < ctx->items.len; ctx->nranged++)
        ctx->items.items[ctx->nranged].range = range;
}

AstFile *rules_parse_source(const Source *src, const AstBuilder *b, int max_depth,
                            graft_diag *d)
{
    RulesParseCtx ctx = {0};
    ctx.b = *b;
    ctx.b.src = src;
    ctx.diag = d;
    ctx.max_depth = max_depth;
    rules_scan_init(&ctx);
    rules_parse(&ctx);
    rules_note_broken_item(&ctx); /* the last item, if parsing stopped in it */
    rules_scan_free(&ctx);
    free(ctx.opens);
    AstFile *file = arena_alloc(b->arena, sizeof(AstFile));
    file->src = src;
    file->nitems = (int)ctx.items.len;
    file->items = arena_dup(b->arena, ctx.items.items ? (void *)ctx.items.items : (void *)"",
                            ctx.items.len * sizeof(AstItem));
    vec_free(&ctx.items);
    file->nbroken = (int)ctx.nbroken;
    file->broken = arena_dup(b->arena, ctx.broken ? (void *)ctx.broken : (void *)"",
                             ctx.nbroken * sizeof(char *));
    free(ctx.broken);
    file->ncomments = (int)ctx.comments.len;
    file->comments = arena_dup(b->arena, ctx.comments.items ? (void *)ctx.comments.items
                                                            : (void *)"",
                               ctx.comments.len * sizeof(AstComment));
    vec_free(&ctx.comments);
    return diag_gave_up(d) ? NULL : file;
}
