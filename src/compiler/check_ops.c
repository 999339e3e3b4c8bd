/* check_ops.c - an op call against the op registry: the op known (or
 * why not: declared broken, another IR's, a likely misspelling), its
 * operand count, its attributes named once each and of the declared
 * kinds, an op as a value, a variable named like an op. */
#include "check_impl.h"

#include <string.h>

bool check_declared_broken(const CheckCtx *c, const char *name)
{
    for (int f = 0; f < c->rf->nfiles; f++)
        for (int i = 0; i < c->rf->files[f]->nbroken; i++)
            if (c->rf->files[f]->broken[i] == name)
                return true;
    return false;
}

void check_unknown_op(CheckCtx *c, const AstNode *at, const char *name, SrcRange where)
{
    if (check_declared_broken(c, name))
        return;
    const OpInfo *other = registry_find_any(c->reg, name);
    if (other) { /* note [target IR] in registry.h */
        const char *like = registry_counterpart(c->reg, other);
        diag_error(c->d, at->src, where, "'%s' is %s op; this file is for %s%s%s%s", name,
                   other->onnx ? "an ONNX" : "a Relay", other->onnx ? "Relay" : "ONNX",
                   like ? ": did you mean '" : "", like ? like : "", like ? "'?" : "");
        return;
    }
    const char *hint = registry_suggest(c->reg, name);
    if (hint)
        diag_error(c->d, at->src, where, "unknown op '%s'; did you mean '%s'?", name, hint);
    else
        diag_error(c->d, at->src, where, "unknown op '%s'", name);
}

static const char *kind_phrase(const AstNode *lit)
{
    switch (lit->kind) {
    case AST_NUMBER: return lit->u.num.is_int ? "an integer" : "a number";
    case AST_STRING: return "a string";
    case AST_BOOL: return "a bool";
    case AST_NONE: return "None";
    case AST_DTYPE: return "a dtype";
    case AST_LIST: return "a list";
    default: return "a pattern";
    }
}

bool check_attr_arg(CheckCtx *c, const OpInfo *op, const AstNode *attr)
{
    const OpAttrInfo *info = opinfo_find_attr(op, attr->u.attr.name);
    if (!info) {
        const char *hint = registry_suggest_attr(op, attr->u.attr.name);
        diag_error(c->d, attr->src, attr->u.attr.name_range,
                   "op '%s' has no attribute '%s'%s%s%s", op->name, attr->u.attr.name,
                   hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
        return false;
    }
    const AstNode *v = attr->u.attr.value;
    if (v && ast_is_literal(v) && !registry_value_fits(info->type, v)) {
        diag_error(c->d, v->src, v->range, "attribute '%s' of '%s' takes %s, not %s",
                   info->name, op->name, registry_attr_type_name(info->type), kind_phrase(v));
        return false;
    }
    return true;
}

bool check_attr_list(CheckCtx *c, const OpInfo *op, const AstList *attrs)
{
    bool ok = true;
    for (int i = 0; i < attrs->count; i++) {
        const AstNode *a = attrs->items[i];
        for (int j = 0; j < i; j++)
            if (attrs->items[j]->u.attr.name == a->u.attr.name) {
                diag_error(c->d, a->src, a->u.attr.name_range,
                           "attribute '%s' given twice", a->u.attr.name);
                ok = false;
            }
        if (op)
            ok &= check_attr_arg(c, op, a);
    }
    return ok;
}

void check_count_error(CheckCtx *c, const AstNode *n, const OpInfo *op, const char *got)
{
    char takes[64];
    const char *s = op->min_args == 1 ? "" : "s";
    if (op->max_args == OP_VARIADIC)
        snprintf(takes, sizeof takes, "at least %d operand%s", op->min_args, s);
    else if (op->min_args == op->max_args)
        snprintf(takes, sizeof takes, "%d operand%s", op->min_args, s);
    else
        snprintf(takes, sizeof takes, "%d to %d operands", op->min_args, op->max_args);
    diag_error(c->d, n->src, n->u.call.name_range, "op '%s' takes %s, got %s", op->name, takes,
               got);
}

bool check_arity(CheckCtx *c, const AstNode *n, const OpInfo *op)
{
    int got = n->u.call.args.count;
    bool fits = n->u.call.ellipsis
                    ? op->max_args == OP_VARIADIC || got <= op->max_args
                    : opinfo_accepts_nargs(op, got);
    if (fits)
        return true;
    char text[32];
    snprintf(text, sizeof text, "%d", got);
    check_count_error(c, n, op, text);
    return false;
}

bool check_opvalue(CheckCtx *c, AstNode *n)
{
    const OpInfo *op = registry_find(c->reg, n->u.call.name);
    if (!op) {
        check_unknown_op(c, n, n->u.call.name, n->u.call.name_range);
        return false;
    }
    n->u.call.op = op;
    return true;
}

bool check_dotted_var(CheckCtx *c, const AstNode *n)
{
    if (!strchr(n->u.var.name, '.'))
        return true;
    if (registry_find(c->reg, n->u.var.name))
        diag_error(c->d, n->src, n->range, "'%s' is an op, and a variable name has no dots; "
                   "write 'op %s' for the op as a value", n->u.var.name, n->u.var.name);
    else
        diag_error(c->d, n->src, n->range, "a variable name has no dots: '%s'", n->u.var.name);
    return false;
}
