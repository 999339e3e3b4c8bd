/* rules_build.c - node builders for the rule grammar's actions. */
#include "rules_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool build_depth_ok(RulesParseCtx *ctx, AstNode *n)
{
    ast_update_depth(n);
    if (n->depth - 1 <= ctx->max_depth) /* levels of nesting: a leaf has none */
        return true;
    if (!ctx->item_error)
        diag_error(ctx->diag, ctx->b.src, n->range,
                   "expression nested deeper than %d levels [--limit rule-depth]",
                   ctx->max_depth);
    ctx->item_error = true;
    return false;
}

void build_recovered(RulesParseCtx *ctx)
{
    ctx->lex_error = false;
}

/* "unexpected X; expected A, B or C", once per item.  A SEP lookahead
 * means the item ended too early: reported at its last token.  An item
 * right after such an error that does not start like an item is taken as
 * the broken item's continuation and not reported again. */
void build_syntax_error(RulesParseCtx *ctx, SrcRange loc, const char *unexpected,
                        bool at_sep, const char *const *expected, int nexpected)
{
    if (ctx->item_error || (ctx->continuation && !ctx->item_looks_ok)) {
        ctx->item_error = true;
        return;
    }
    ctx->item_error = true;
    ctx->sep_error = at_sep;
    StrBuf msg = {0};
    if (at_sep) {
        strbuf_puts(&msg, "unexpected end of the item");
        loc = ctx->prev_loc;
    } else if (unexpected && (strcmp(unexpected, "identifier") == 0 ||
                              strcmp(unexpected, "number") == 0 ||
                              strcmp(unexpected, "dtype") == 0)) {
        strbuf_printf(&msg, "unexpected %s '%s'", unexpected, ctx->last_name);
    } else {
        strbuf_printf(&msg, "unexpected %s", unexpected ? unexpected : "end of file");
    }
    if (nexpected > 0 && nexpected < 6) {
        strbuf_puts(&msg, "; expected ");
        for (int i = 0; i < nexpected; i++)
            strbuf_printf(&msg, "%s%s", i == 0 ? "" : i + 1 == nexpected ? " or " : ", ",
                          expected[i]);
    }
    if (at_sep)
        strbuf_puts(&msg, " (the next line starts in column 1, so it begins a new "
                          "item; indent continuation lines)");
    diag_error(ctx->diag, ctx->b.src, loc, "%s", msg.data);
    strbuf_free(&msg);
    if (ctx->nopens > 0) {
        const OpenBracket *open = &ctx->opens[ctx->nopens - 1];
        diag_note(ctx->diag, ctx->b.src, open->where, "to match this '%c'", open->ch);
    }
}

AstNode *build_var(const AstBuilder *b, const char *name, SrcRange range)
{
    AstNode *n = ast_new(b, AST_VAR, range);
    n->u.var.name = name;
    return n;
}

/* A number literal; negative prefixes the text with '-'.  Integers that
 * do not fit in 64 bits are kept as floating-point values. */
AstNode *build_number(const AstBuilder *b, const char *text, bool negative,
                      SrcRange range)
{
    AstNode *n = ast_new(b, AST_NUMBER, range);
    /* Only a negated number needs new text ("-" and text); formatting it
     * with printf for every literal cost more than the rest together. */
    StrBuf sb = {0};
    if (negative) {
        strbuf_putc(&sb, '-');
        strbuf_puts(&sb, text);
    }
    const char *spelled = negative ? sb.data : text;
    n->u.num.text = interner_cstr(b->names, spelled);
    n->u.num.value = strtod(spelled, NULL);
    n->u.num.is_int = strpbrk(text, ".eEf") == NULL; /* 0f is a float */
    if (n->u.num.is_int) {
        errno = 0;
        n->u.num.ival = strtoll(spelled, NULL, 10);
        if (errno == ERANGE)
            n->u.num.is_int = false;
    }
    strbuf_free(&sb);
    return n;
}

AstNode *build_string(const AstBuilder *b, const char *text, SrcRange range)
{
    AstNode *n = ast_new(b, AST_STRING, range);
    n->u.str.text = text;
    return n;
}

AstNode *build_bool(const AstBuilder *b, bool value, SrcRange range)
{
    AstNode *n = ast_new(b, AST_BOOL, range);
    n->u.boolean = value;
    return n;
}

AstNode *build_dtype(const AstBuilder *b, const char *name, SrcRange range)
{
    AstNode *n = ast_new(b, AST_DTYPE, range);
    n->u.dtype.name = name;
    return n;
}

AstNode *build_list(const AstBuilder *b, AstList items, SrcRange range)
{
    AstNode *n = ast_new(b, AST_LIST, range);
    n->u.list.items = items;
    ast_update_depth(n);
    return n;
}

AstNode *build_alt(const AstBuilder *b, AstNode *l, AstNode *r, SrcRange range)
{
    AstNode *n = ast_new(b, AST_ALT, range);
    n->u.alt.left = l;
    n->u.alt.right = r;
    return n;
}

AstNode *build_infix(const AstBuilder *b, const char *op, AstNode *l, AstNode *r,
                     SrcRange range)
{
    AstNode *n = ast_new(b, AST_CALL, range);
    n->u.call.name = interner_cstr(b->names, ast_operator_op(b, op));
    n->u.call.name_range = range;
    n->u.call.syntax = CALL_INFIX;
    ast_list_push(b->arena, &n->u.call.args, l);
    ast_list_push(b->arena, &n->u.call.args, r);
    return n;
}

/* The dtype a scalar's suffix names, as TVM's printer writes it and
 * src/relay/relay_load_expr.c reads it; NULL without a suffix. */
static const char *suffix_dtype(const char *text)
{
    static const char *const suffixes[][2] = {
        {"f16", "float16"}, {"f32", "float32"}, {"f64", "float64"},
        {"i8", "int8"},     {"i16", "int16"},   {"i32", "int32"},
        {"i64", "int64"},   {"u8", "uint8"},    {"u16", "uint16"},
        {"u32", "uint32"},  {"u64", "uint64"},  {"f", "float32"},
    };
    size_t len = strlen(text);
    for (size_t i = 0; i < ARRAY_LEN(suffixes); i++) {
        size_t n = strlen(suffixes[i][0]);
        if (len > n && memcmp(text + len - n, suffixes[i][0], n) == 0)
            return suffixes[i][1];
    }
    return NULL;
}

/* A pattern or action constant of a dtype: the number constrained to the
 * dtype, printed as written. */
static AstNode *typed_constant(const AstBuilder *b, AstNode *num, const char *dtype,
                               SrcRange range)
{
    AstNode *n = build_constrain(num, build_dtype_constraint(b, interner_cstr(b->names, dtype),
                                                             range), range);
    n->u.constrain.suffix = true;
    return n;
}

AstNode *build_typed_number(const AstBuilder *b, const char *text, bool negative,
                            SrcRange range)
{
    return typed_constant(b, build_number(b, text, negative, range), suffix_dtype(text), range);
}

AstNode *build_typed_bool(const AstBuilder *b, bool value, SrcRange range)
{
    AstNode *num = build_number(b, value ? "1" : "0", false, range);
    num->u.num.text = interner_cstr(b->names, value ? "True" : "False");
    return typed_constant(b, num, "bool", range);
}

/* -x is negative(x); -1 (a positive number literal) is the number -1, and
 * -1f the constant -1f. */
AstNode *build_negate(const AstBuilder *b, AstNode *operand, SrcRange range)
{
    if (operand->kind == AST_NUMBER && operand->u.num.text[0] != '-')
        return build_number(b, operand->u.num.text, true, range);
    if (operand->kind == AST_CONSTRAIN && operand->u.constrain.suffix &&
        suffix_dtype(operand->u.constrain.operand->u.num.text) &&
        operand->u.constrain.operand->u.num.text[0] != '-')
        return build_typed_number(b, operand->u.constrain.operand->u.num.text, true, range);
    AstNode *n = ast_new(b, AST_CALL, range);
    n->u.call.name = interner_cstr(b->names, ast_operator_op(b, "negative"));
    n->u.call.name_range = range;
    n->u.call.syntax = CALL_NEGATE;
    ast_list_push(b->arena, &n->u.call.args, operand);
    return n;
}

AstNode *build_bind(const AstBuilder *b, const char *name, SrcRange name_range,
                    AstNode *operand, SrcRange range)
{
    AstNode *n = ast_new(b, AST_BIND, range);
    n->u.bind.name = name;
    n->u.bind.name_range = name_range;
    n->u.bind.operand = operand;
    return n;
}

/* An element index: a non-negative integer below 2^31. */
static int parse_index(RulesParseCtx *ctx, const char *num, SrcRange where)
{
    char *end;
    errno = 0;
    long v = strtol(num, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > 0x7fffffffL) {
        diag_error(ctx->diag, ctx->b.src, where,
                   "element index must be a non-negative integer");
        return 0;
    }
    return (int)v;
}

AstNode *build_getitem(RulesParseCtx *ctx, AstNode *base, const char *num,
                       SrcRange num_range, SrcRange range)
{
    AstNode *n = ast_new(&ctx->b, AST_GETITEM, range);
    n->u.item.base = base;
    n->u.item.index = parse_index(ctx, num, num_range);
    return n;
}

AstNode *build_getitem_any(const AstBuilder *b, AstNode *base, SrcRange range)
{
    AstNode *n = ast_new(b, AST_GETITEM, range);
    n->u.item.base = base;
    n->u.item.index = AST_ANY_INDEX;
    return n;
}

AstNode *build_getitem_var(const AstBuilder *b, AstNode *base, const char *name,
                           SrcRange name_range, SrcRange range)
{
    AstNode *n = build_getitem_any(b, base, range);
    n->u.item.var = build_var(b, name, name_range);
    return n;
}

AstNode *build_index(RulesParseCtx *ctx, AstNode *base, const char *num,
                     SrcRange num_range, SrcRange range)
{
    AstNode *n = build_getitem(ctx, base, num, num_range, range);
    n->kind = AST_INDEX;
    return n;
}

AstNode *build_tuple(const AstBuilder *b, AstList items, bool ellipsis, SrcRange range)
{
    AstNode *n = ast_new(b, AST_TUPLE, range);
    n->u.list.items = items;
    n->u.list.ellipsis = ellipsis;
    return n;
}

AstNode *build_roots(const AstBuilder *b, AstList roots, SrcRange range)
{
    AstNode *n = build_tuple(b, roots, false, range);
    n->u.list.roots = true;
    return n;
}

AstNode *build_tuple_from(const AstBuilder *b, AstNode *first, const ArgsAcc *rest,
                          SrcRange range)
{
    AstList items = {0};
    ast_list_push(b->arena, &items, first);
    for (int i = 0; i < rest->args.count; i++)
        ast_list_push(b->arena, &items, rest->args.items[i]);
    AstNode *n = build_tuple(b, items, rest->ellipsis, range);
    n->u.list.rest = rest->rest;
    return n;
}

AstNode *build_slice(const AstBuilder *b, AstNode *operand, const char *lo, const char *hi,
                     bool hi_negative, bool has_hi, SrcRange range)
{
    AstNode *n = ast_new(b, AST_SPLICE, range);
    n->u.splice.operand = operand;
    n->u.splice.lo = lo ? atoi(lo) : 0;
    n->u.splice.hi = hi ? (hi_negative ? -atoi(hi) : atoi(hi)) : 0;
    n->u.splice.has_hi = has_hi;
    ast_update_depth(n);
    return n;
}

AstNode *build_splice(const AstBuilder *b, AstNode *operand, SrcRange range)
{
    AstNode *n = operand;
    if (n->kind != AST_SPLICE || n->u.splice.dots)
        n = build_slice(b, operand, NULL, NULL, false, false, range);
    n->range = range;
    n->u.splice.dots = true;
    return n;
}

AstNode *build_call(const AstBuilder *b, AstKind kind, const char *name,
                    SrcRange name_range, const ArgsAcc *args, SrcRange range)
{
    AstNode *n = ast_new(b, kind, range);
    n->u.call.name = name;
    n->u.call.name_range = name_range;
    n->u.call.syntax = CALL_PREFIX;
    n->u.call.args = args->args;
    n->u.call.attrs = args->attrs;
    n->u.call.ellipsis = args->ellipsis;
    n->u.call.copy_from = args->copy_from;
    return n;
}

AstNode *build_unary_op(const AstBuilder *b, AstKind kind, const char *name,
                        SrcRange name_range, AstNode *operand, SrcRange range)
{
    ArgsAcc args = {0};
    ast_list_push(b->arena, &args.args, operand);
    return build_call(b, kind, name, name_range, &args, range);
}

AstNode *build_opvalue(const AstBuilder *b, const char *name, SrcRange name_range,
                       SrcRange range)
{
    AstNode *n = ast_new(b, AST_OPVALUE, range);
    n->u.call.name = name;
    n->u.call.name_range = name_range;
    return n;
}

AstNode *build_callpat(const AstBuilder *b, AstNode *callee, const ArgsAcc *args,
                       SrcRange range)
{
    AstNode *n = build_call(b, AST_CALLPAT, interner_cstr(b->names, "()"), callee->range, args,
                            range);
    n->u.call.body = callee;
    ast_update_depth(n);
    return n;
}

AstNode *build_fnlit(const AstBuilder *b, const ArgsAcc *params, AstNode *body,
                     SrcRange range)
{
    AstNode *n = build_call(b, AST_FNLIT, interner_cstr(b->names, "fn"), range, params, range);
    n->u.call.body = body;
    ast_update_depth(n);
    return n;
}

AstNode *build_scope(const AstBuilder *b, AstKind kind, AstNode *x, AstNode *y, AstNode *z,
                     SrcRange range)
{
    AstNode *n = ast_new(b, kind, range);
    n->u.call.name = interner_cstr(b->names, kind == AST_IF ? "if" : "let");
    n->u.call.name_range = range;
    ast_list_push(b->arena, &n->u.call.args, x);
    ast_list_push(b->arena, &n->u.call.args, y);
    ast_list_push(b->arena, &n->u.call.args, z);
    ast_update_depth(n);
    return n;
}

AstNode *build_fncall(const AstBuilder *b, const AstList *attrs, SrcRange fn_range,
                      const ArgsAcc *args, SrcRange range)
{
    ArgsAcc all = *args;
    all.attrs = *attrs;
    AstNode *n = build_call(b, AST_FNCALL, interner_cstr(b->names, "fn"), fn_range,
                            &all, range);
    return n;
}

AstNode *build_dominates(const AstBuilder *b, AstNode *parent, AstNode *path,
                         AstNode *child, SrcRange range)
{
    AstNode *n = ast_new(b, AST_DOMINATES, range);
    n->u.dom.parent = parent;
    n->u.dom.path = path;
    n->u.dom.child = child;
    return n;
}

AstNode *build_attr(const AstBuilder *b, const char *name, SrcRange name_range,
                    AstNode *value, SrcRange range)
{
    AstNode *n = ast_new(b, AST_ATTR, range);
    n->u.attr.name = name;
    n->u.attr.name_range = name_range;
    n->u.attr.value = value;
    if (value)
        n->depth = value->depth + 1;
    return n;
}

/* An operand after "..." could never be reached: "..." must come last. */
void build_args_add(RulesParseCtx *ctx, ArgsAcc *acc, AstNode *arg)
{
    Arena *arena = ctx->b.arena;
    if (arg->kind == AST_ATTR) {
        ast_list_push(arena, &acc->attrs, arg);
        return;
    }
    if (acc->ellipsis)
        diag_error(ctx->diag, ctx->b.src, arg->range,
                   "operand after '...'; '...' must be the last operand");
    ast_list_push(arena, &acc->args, arg);
}

void build_args_ellipsis(RulesParseCtx *ctx, ArgsAcc *acc, SrcRange where)
{
    if (acc->ellipsis)
        diag_error(ctx->diag, ctx->b.src, where, "'...' given twice");
    acc->ellipsis = true;
}

void build_args_copy(RulesParseCtx *ctx, ArgsAcc *acc, AstNode *var)
{
    if (acc->copy_from)
        diag_error(ctx->diag, ctx->b.src, var->range,
                   "attributes can be copied from one node only");
    acc->copy_from = var;
}

AstNode *build_partition(const AstBuilder *b, AstList attrs, SrcRange range)
{
    AstNode *n = ast_new(b, AST_PARTITION, range);
    n->u.part.attrs = attrs;
    return n;
}
