/* rules_build_items.c - builders for constraints, guards and top-level
 * items (rules, op declarations, lets, includes). */
#include "rules_build.h"

#include <stdlib.h>
#include <string.h>

static AstNode *new_constraint(const AstBuilder *b, ConstraintKind kind, SrcRange range)
{
    AstNode *n = ast_new(b, AST_CONSTRAIN, range);
    n->u.constrain.kind = kind;
    n->u.constrain.where = range;
    return n;
}

/* const, var, var("name"), rank(N) */
AstNode *build_constraint(RulesParseCtx *ctx, const char *word, SrcRange range,
                          AstNode *arg)
{
    const AstBuilder *b = &ctx->b;
    if (strcmp(word, "const") == 0 && !arg)
        return new_constraint(b, CONSTRAINT_CONST, range);
    if (strcmp(word, "var") == 0 && (!arg || arg->kind == AST_STRING)) {
        AstNode *n = new_constraint(b, CONSTRAINT_VAR, range);
        n->u.constrain.name = arg ? arg->u.str.text : NULL;
        return n;
    }
    if (strcmp(word, "rank") == 0 && arg && arg->kind == AST_NUMBER &&
        arg->u.num.is_int && arg->u.num.ival >= 0 && arg->u.num.ival <= 64) {
        AstNode *n = new_constraint(b, CONSTRAINT_RANK, range);
        n->u.constrain.rank = (int)arg->u.num.ival;
        return n;
    }
    diag_error(ctx->diag, b->src, range,
               "unknown constraint '%s'; expected const, var, var(\"NAME\"), "
               "rank(N), a dtype or Tensor[(DIMS), DTYPE]", word);
    return new_constraint(b, CONSTRAINT_CONST, range);
}

AstNode *build_trait_constraint(const AstBuilder *b, const char *trait, SrcRange range)
{
    AstNode *n = new_constraint(b, CONSTRAINT_TRAIT, range);
    n->u.constrain.name = trait;
    return n;
}

AstNode *build_dtype_constraint(const AstBuilder *b, const char *dtype, SrcRange range)
{
    AstNode *n = new_constraint(b, CONSTRAINT_DTYPE, range);
    n->u.constrain.dtype = dtype;
    return n;
}

/* Tensor[(1, 3, _, _), float32]: dims are non-negative integers or _. */
AstNode *build_tensor_constraint(RulesParseCtx *ctx, const AstList *dims,
                                 const char *dtype, SrcRange range)
{
    const AstBuilder *b = &ctx->b;
    AstNode *n = new_constraint(b, CONSTRAINT_TENSOR, range);
    int64_t *d = arena_array(b->arena, (size_t)dims->count + 1, sizeof(int64_t));
    for (int i = 0; i < dims->count; i++) {
        const AstNode *dim = dims->items[i];
        d[i] = -1;
        if (dim->kind == AST_NUMBER && dim->u.num.is_int && dim->u.num.ival >= 0)
            d[i] = dim->u.num.ival;
        else if (dim->kind != AST_WILDCARD)
            diag_error(ctx->diag, b->src, dim->range,
                       "a dimension is a non-negative integer or _");
    }
    n->u.constrain.rank = dims->count;
    n->u.constrain.dims = d;
    n->u.constrain.dtype = dtype;
    return n;
}

AstNode *build_constrain(AstNode *operand, AstNode *constraint, SrcRange range)
{
    constraint->u.constrain.operand = operand;
    constraint->range = range;
    ast_update_depth(constraint);
    return constraint;
}

AstNode *build_binary(const AstBuilder *b, AstOper oper, AstNode *l, AstNode *r,
                      SrcRange range)
{
    AstNode *n = ast_new(b, AST_BINARY, range);
    n->u.op.oper = oper;
    n->u.op.left = l;
    n->u.op.right = r;
    return n;
}

AstNode *build_unary(const AstBuilder *b, AstOper oper, AstNode *operand, SrcRange range)
{
    AstNode *n = ast_new(b, AST_UNARY, range);
    n->u.op.oper = oper;
    n->u.op.left = operand;
    return n;
}

AstNode *build_query(const AstBuilder *b, const char *name, SrcRange name_range,
                     const AstList *args, SrcRange range)
{
    AstNode *n = ast_new(b, AST_QUERY, range);
    n->u.query.name = name;
    n->u.query.name_range = name_range;
    n->u.query.args = *args;
    ast_update_depth(n);
    return n;
}

/* ---- items ---- */

static AstItem *push_item(RulesParseCtx *ctx, ItemKind kind)
{
    vec_reserve(&ctx->items, ctx->items.len + 1);
    AstItem *item = &ctx->items.items[ctx->items.len++];
    item->kind = kind;
    return item;
}

/* Byte offset of a position in src. */
static size_t offset_of(const Source *src, int line, int column)
{
    if (line < 1 || (size_t)line > source_line_count(src))
        return src->len;
    size_t off = source_line_starts(src)[line - 1] + (size_t)(column - 1);
    return off > src->len ? src->len : off;
}

/* [priority=N, once, inexact] */
static void apply_flags(RulesParseCtx *ctx, AstRule *rule, const AstList *flags)
{
    for (int i = 0; i < flags->count; i++) {
        const AstNode *f = flags->items[i];
        const AstNode *v = f->u.attr.value;
        if (strcmp(f->u.attr.name, "priority") == 0 && v && v->u.num.is_int &&
            v->u.num.ival >= -1000000 && v->u.num.ival <= 1000000) {
            rule->priority = (int)v->u.num.ival;
            rule->has_priority = true;
        } else if (strcmp(f->u.attr.name, "once") == 0 && !v) {
            rule->once = true;
        } else if (strcmp(f->u.attr.name, "inexact") == 0 && !v) {
            if (rule->kind == RULE_PARTITION)
                diag_error(ctx->diag, ctx->b.src, f->range, "[inexact] on a partition rule, "
                           "which changes no values; it marks rewrites that change them");
            rule->inexact = true;
        } else {
            diag_error(ctx->diag, ctx->b.src, f->range, "unknown rule flag; expected "
                       "priority=N (an integer, higher wins), once or inexact");
        }
    }
}

void build_rule(RulesParseCtx *ctx, const char *name, SrcRange name_range,
                const AstList *flags, AstNode *pattern, AstNode *guard,
                AstNode *action, SrcRange range)
{
    const Source *src = ctx->b.src;
    AstRule *rule = arena_alloc(ctx->b.arena, sizeof(AstRule));
    rule->name = name;
    rule->name_range = name_range;
    rule->src = src;
    rule->range = range;
    size_t begin = offset_of(src, range.first_line, range.first_column);
    size_t end = offset_of(src, range.last_line, range.last_column) + 1;
    rule->text = arena_strndup(ctx->b.arena, src->text + begin,
                               end > src->len ? src->len - begin : end - begin);
    rule->kind = action->kind == AST_PARTITION ? RULE_PARTITION : RULE_REWRITE;
    apply_flags(ctx, rule, flags);
    rule->pattern_src = pattern;
    rule->pattern = pattern;
    rule->guard = guard;
    rule->action = action;
    push_item(ctx, ITEM_RULE)->u.rule = rule;
}

AstOpDecl *build_opdecl_new(const AstBuilder *b)
{
    AstOpDecl *decl = arena_alloc(b->arena, sizeof(AstOpDecl));
    decl->src = b->src;
    return decl;
}

/* Arena arrays grow like AstList: capacity is the next power of two. */
static void *grow_array(Arena *arena, void *items, int count, size_t size)
{
    if ((count & (count - 1)) != 0)
        return items;
    int cap = count == 0 ? 1 : count * 2;
    void *bigger = arena_array(arena, (size_t)cap, size);
    if (count > 0)
        memcpy(bigger, items, (size_t)count * size);
    return bigger;
}

/* note [output arity]: an op gives one tensor unless declared "-> tuple(N)"
 * (nn.batch_norm: tuple(3)) or "-> tuple(...)" (split: as many as its
 * attributes say); the checker uses it (check_outputs.c). */
enum { MAX_OUTPUTS = 1024 };

void build_opdecl_outputs(RulesParseCtx *ctx, AstOpDecl *decl, const OutputsAcc *o)
{
    decl->outputs = AST_OUTPUTS_TENSOR;
    if (!o->word)
        return;
    if (strcmp(o->word, "tuple") != 0) {
        diag_error(ctx->diag, ctx->b.src, o->range,
                   "expected 'tuple(N)' or 'tuple(...)' after '->' (an op without '->' "
                   "gives one tensor)");
        return;
    }
    if (o->varies) {
        decl->outputs = AST_OUTPUTS_VARIES;
        return;
    }
    char *end;
    long n = strtol(o->count, &end, 10);
    if (*end || n < 1 || n > MAX_OUTPUTS) {
        diag_error(ctx->diag, ctx->b.src, o->range,
                   "the output count must be a whole number from 1 to %d", MAX_OUTPUTS);
        return;
    }
    decl->outputs = (int)n;
}

void build_opdecl_param(RulesParseCtx *ctx, AstOpDecl *decl, const ParamAcc *p)
{
    Arena *arena = ctx->b.arena;
    if (!p->is_attr) {
        if (decl->nattrs > 0)
            diag_error(ctx->diag, ctx->b.src, p->range,
                       "operands must come before attributes");
        decl->operands = grow_array(arena, decl->operands, decl->noperands,
                                    sizeof(AstOperand));
        decl->operands[decl->noperands++] =
            (AstOperand){p->name, p->optional, p->variadic};
        return;
    }
    decl->attrs = grow_array(arena, decl->attrs, decl->nattrs, sizeof(AstAttrDecl));
    decl->attrs[decl->nattrs++] = (AstAttrDecl){p->name, p->range, p->type, p->dflt, p->since};
}

/* note [onnx op clauses]: after "opset onnx N" a file declares ONNX ops,
 * in the same syntax with three clauses among the traits:
 *   domain "com.microsoft"  the op's domain (the default domain, "", when
 *                           not written);
 *   since 13                the opset version whose schema is declared
 *                           (ONNX's since_version); an attribute may say
 *                           "since N" too, the version that added it;
 *   relay "nn.conv2d"       the Relay op it corresponds to, named in the
 *                           hint when a rule for ONNX names the Relay op.
 * The parser hands each clause over as its word's AST_VAR followed by
 * the value; a plain trait is an AST_VAR alone. */
static void opdecl_clause(RulesParseCtx *ctx, AstOpDecl *decl, const AstNode *word,
                          const AstNode *value)
{
    const char *w = word->u.var.name;
    bool number = value->kind == AST_NUMBER;
    if (!ctx->onnx_opset)
        diag_error(ctx->diag, ctx->b.src, word->range, "'%s %s' declares an ONNX op: it needs "
                   "'opset onnx N' before it in the file", w, number ? "N" : "\"...\"");
    else if (number && strcmp(w, "since") == 0)
        decl->since = (int)value->u.num.ival;
    else if (!number && strcmp(w, "domain") == 0)
        decl->domain = value->u.str.text[0] ? value->u.str.text : NULL;
    else if (!number && strcmp(w, "relay") == 0)
        decl->relay = value->u.str.text;
    else
        diag_error(ctx->diag, ctx->b.src, word->range, "unknown op clause '%s %s'; expected "
                   "'domain \"NAME\"', 'since N' or 'relay \"OP\"'", w,
                   number ? "N" : "\"...\"");
}

void build_opdecl_finish(RulesParseCtx *ctx, AstOpDecl *decl, const char *name,
                         SrcRange name_range, const AstList *traits)
{
    Arena *arena = ctx->b.arena;
    decl->name = name;
    decl->name_range = name_range;
    decl->onnx = ctx->onnx_opset > 0;
    decl->traits = arena_array(arena, (size_t)traits->count + 1, sizeof(char *));
    decl->trait_ranges = arena_array(arena, (size_t)traits->count + 1, sizeof(SrcRange));
    for (int i = 0; i < traits->count; i++) {
        const AstNode *word = traits->items[i];
        const AstNode *next = i + 1 < traits->count ? traits->items[i + 1] : NULL;
        if (next && next->kind != AST_VAR) {
            opdecl_clause(ctx, decl, word, next);
            i++;
            continue;
        }
        decl->traits[decl->ntraits] = word->u.var.name;
        decl->trait_ranges[decl->ntraits++] = word->range;
    }
    push_item(ctx, ITEM_OP)->u.op = decl;
}

/* A version number: a whole number from 1 on (ONNX's versions are small). */
static int version_number(RulesParseCtx *ctx, const char *text, SrcRange range)
{
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 1000000) {
        diag_error(ctx->diag, ctx->b.src, range, "an opset version is a whole number from 1 on");
        return 1;
    }
    return (int)n;
}

void build_param_since(RulesParseCtx *ctx, ParamAcc *p, const char *word, SrcRange range,
                       const char *number)
{
    if (strcmp(word, "since") != 0 || !p->is_attr)
        diag_error(ctx->diag, ctx->b.src, range, "expected ',' or ')'%s",
                   p->is_attr ? " or 'since N'" : "");
    else if (!ctx->onnx_opset)
        diag_error(ctx->diag, ctx->b.src, range, "'since N' declares an ONNX attribute: it "
                   "needs 'opset onnx N' before it in the file");
    else
        p->since = version_number(ctx, number, range);
}

AstNode *build_clause_number(RulesParseCtx *ctx, const char *number, SrcRange range)
{
    AstNode *n = build_number(&ctx->b, number, false, range);
    n->u.num.ival = version_number(ctx, number, range);
    return n;
}

void build_opset(RulesParseCtx *ctx, const char *ir, SrcRange ir_range, const char *version,
                 SrcRange version_range)
{
    if (strcmp(ir, "onnx") != 0) {
        diag_error(ctx->diag, ctx->b.src, ir_range, "unknown IR '%s' after 'opset'; expected "
                   "'opset onnx N' (a file without it is for Relay)", ir);
        return;
    }
    if (ctx->items.len > 0 || ctx->onnx_opset) {
        diag_error(ctx->diag, ctx->b.src, ir_range, "'opset onnx N' must be the first item "
                   "of its file");
        return;
    }
    AstOpset *o = arena_alloc(ctx->b.arena, sizeof(AstOpset));
    o->ir = ir;
    o->version = version_number(ctx, version, version_range);
    o->src = ctx->b.src;
    o->range = ir_range;
    ctx->onnx_opset = o->version;
    ctx->b.onnx = true;
    push_item(ctx, ITEM_OPSET)->u.opset = o;
}

void build_let(RulesParseCtx *ctx, const char *name, SrcRange name_range,
               const AstList *params, bool has_parens, AstNode *body)
{
    Arena *arena = ctx->b.arena;
    AstLet *let = arena_alloc(arena, sizeof(AstLet));
    let->name = name;
    let->name_range = name_range;
    let->src = ctx->b.src;
    let->has_parens = has_parens;
    let->body = body;
    int n = params ? params->count : 0;
    let->nparams = n;
    let->params = arena_array(arena, (size_t)n + 1, sizeof(char *));
    let->param_ranges = arena_array(arena, (size_t)n + 1, sizeof(SrcRange));
    for (int i = 0; i < n; i++) {
        let->params[i] = params->items[i]->u.var.name;
        let->param_ranges[i] = params->items[i]->range;
    }
    push_item(ctx, ITEM_LET)->u.let = let;
}

void build_include(RulesParseCtx *ctx, const char *path, SrcRange range)
{
    AstInclude *inc = arena_alloc(ctx->b.arena, sizeof(AstInclude));
    inc->path = path;
    inc->src = ctx->b.src;
    inc->range = range;
    push_item(ctx, ITEM_INCLUDE)->u.include = inc;
}
