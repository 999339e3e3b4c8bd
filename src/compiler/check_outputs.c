/* check_outputs.c - each op's output arity (note [output arity] in
 * rules_build_items.c) against how a pattern or action uses the op:
 *   nn.relu(nn.batch_norm(...))   a tuple where a tensor is taken
 *   nn.batch_norm(...)[5]         an index beyond the outputs
 *   nn.conv2d(x, w)[0]            an element of a tensor
 * Such patterns never match a model TVM type-checked (TVM itself rejects
 * the first and last as type errors), so they are errors. */
#include "check_impl.h"

#include "type_infer.h"

/* The op call n stands for, looking through names and constraints
 * (c@op(...), op(...):float32), or NULL. */
static const AstNode *producer(const AstNode *n)
{
    while (n->kind == AST_BIND || n->kind == AST_CONSTRAIN)
        n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
    return n->kind == AST_CALL && n->u.call.op ? n : NULL;
}

static int outputs_of(const AstNode *call)
{
    return call->u.call.op->outputs;
}

/* Operand i of call is a tuple-output op where the op takes a tensor (as
 * far as its type relation tells: an op without one is not judged). */
static bool check_operand(CheckCtx *c, const AstNode *call, int i)
{
    const AstNode *arg = producer(call->u.call.args.items[i]);
    const char *op = call->u.call.name;
    if (!arg || outputs_of(arg) == AST_OUTPUTS_TENSOR || !type_has_relation(op) ||
        type_relation_tuple_operand(op, i))
        return true;
    const char *name = arg->u.call.name;
    if (outputs_of(arg) == AST_OUTPUTS_VARIES)
        diag_error(c->d, arg->src, arg->u.call.name_range,
                   "'%s' gives a tuple, but operand %d of '%s' is a tensor; did you "
                   "mean `%s(...)[0]`?", name, i + 1, op, name);
    else
        diag_error(c->d, arg->src, arg->u.call.name_range,
                   "'%s' gives a tuple of %d outputs, but operand %d of '%s' is a "
                   "tensor; did you mean `%s(...)[0]`?", name, outputs_of(arg), i + 1, op,
                   name);
    return false;
}

/* p[i] where p is an op call: p must give a tuple of more than i. */
static bool check_getitem(CheckCtx *c, const AstNode *n)
{
    const AstNode *base = producer(n->u.item.base);
    if (!base)
        return true;
    int outputs = outputs_of(base), index = n->u.item.index;
    if (outputs == AST_OUTPUTS_TENSOR) {
        diag_error(c->d, n->src, n->range, "%s has one output, not a tuple",
                   base->u.call.name);
        return false;
    }
    if (outputs != AST_OUTPUTS_VARIES && index != AST_ANY_INDEX && index >= outputs) {
        diag_error(c->d, n->src, n->range, "index %d out of range (%d outputs)", index,
                   outputs);
        return false;
    }
    return true;
}

typedef struct Walk {
    CheckCtx *c; /* where errors go */
    bool ok;     /* no error so far */
} Walk;

/* Every node of a tree; the tree's depth is bounded (note [nesting
 * bound] in ast.h), so recursion is too. */
static void walk(AstNode *n, void *arg)
{
    Walk *w = arg;
    if (n->kind == AST_CALL && n->u.call.op)
        for (int i = 0; i < n->u.call.args.count; i++)
            w->ok &= check_operand(w->c, n, i);
    if (n->kind == AST_GETITEM)
        w->ok &= check_getitem(w->c, n);
    ast_visit_children(n, walk, w);
}

bool check_outputs(CheckCtx *c, AstNode *tree)
{
    Walk w = {c, true};
    if (tree)
        walk(tree, &w);
    return w.ok;
}
