/* ast.c - AST construction helpers, inspection, and the canonical printer. */
#include "ast.h"

#include <string.h>

static const char *const kind_names[] = {
#define AST_NAME(kind, name) name,
    AST_KIND_LIST(AST_NAME)
#undef AST_NAME
};

static const struct {
    const char *spelling; /* as written */
    int prec;             /* binding power */
} opers[] = {
#define AST_OPER_INFO(oper, spelling, prec) {spelling, prec},
    AST_OPER_LIST(AST_OPER_INFO)
#undef AST_OPER_INFO
};

AstNode *ast_new(const AstBuilder *b, AstKind kind, SrcRange range)
{
    AstNode *n = arena_alloc(b->arena, sizeof(AstNode));
    n->kind = kind;
    n->src = b->src;
    n->range = range;
    n->depth = 1;
    if (kind == AST_VAR)
        n->u.var.slot = -1;
    else if (kind == AST_BIND)
        n->u.bind.slot = -1;
    return n;
}

void ast_list_push(Arena *arena, AstList *list, AstNode *item)
{
    /* Arena lists grow by copying into a doubled array; capacity is the
     * smallest power of two >= count, so no capacity field is needed. */
    int n = list->count;
    if ((n & (n - 1)) == 0) {
        int cap = n == 0 ? 1 : n * 2;
        AstNode **items = arena_array(arena, (size_t)cap, sizeof(AstNode *));
        if (n > 0)
            memcpy(items, list->items, (size_t)n * sizeof(AstNode *));
        list->items = items;
    }
    list->items[list->count++] = item;
}

AstNode *ast_clone(Arena *arena, const AstNode *n)
{
    AstNode *out = arena_dup(arena, n, sizeof(AstNode));
    /* p[i]'s variable is no child but its own: a copy of the pattern
     * resolves its slot apart (note [index variables]) */
    if ((n->kind == AST_GETITEM || n->kind == AST_INDEX) && n->u.item.var)
        out->u.item.var = arena_dup(arena, n->u.item.var, sizeof(AstNode));
    return out;
}

static void visit_list(const AstList *l, AstVisitFn fn, void *arg)
{
    for (int i = 0; i < l->count; i++)
        fn(l->items[i], arg);
}

static void visit_opt(AstNode *n, AstVisitFn fn, void *arg)
{
    if (n)
        fn(n, arg);
}

void ast_visit_children(const AstNode *n, AstVisitFn fn, void *arg)
{
    switch (n->kind) {
    case AST_LIST: case AST_TUPLE:
        visit_list(&n->u.list.items, fn, arg);
        visit_opt(n->kind == AST_TUPLE ? n->u.list.rest : NULL, fn, arg);
        break;
    case AST_SPLICE:
        fn(n->u.splice.operand, arg);
        break;
    case AST_CALL: case AST_OPTIONAL: case AST_REPEAT: case AST_CLASS:
    case AST_FNCALL: case AST_ANYCALL: case AST_FNLIT: case AST_IF: case AST_LETIN:
    case AST_CALLPAT:
        visit_list(&n->u.call.args, fn, arg);
        visit_list(&n->u.call.attrs, fn, arg);
        visit_opt(n->u.call.copy_from, fn, arg);
        visit_opt(n->u.call.body, fn, arg);
        break;
    case AST_GETITEM: case AST_INDEX:
        fn(n->u.item.base, arg);
        break;
    case AST_ALT:
        fn(n->u.alt.left, arg);
        fn(n->u.alt.right, arg);
        break;
    case AST_CONSTRAIN:
        visit_opt(n->u.constrain.operand, fn, arg);
        break;
    case AST_BIND:
        fn(n->u.bind.operand, arg);
        break;
    case AST_DOMINATES:
        fn(n->u.dom.parent, arg);
        fn(n->u.dom.path, arg);
        fn(n->u.dom.child, arg);
        break;
    case AST_ATTR:
        visit_opt(n->u.attr.value, fn, arg);
        break;
    case AST_UNARY: case AST_BINARY:
        fn(n->u.op.left, arg);
        visit_opt(n->u.op.right, fn, arg);
        break;
    case AST_QUERY:
        visit_list(&n->u.query.args, fn, arg);
        break;
    case AST_PARTITION:
        visit_list(&n->u.part.attrs, fn, arg);
        break;
    default:
        break;
    }
}

static void max_depth(AstNode *child, void *arg)
{
    int *d = arg;
    if (child->depth > *d)
        *d = child->depth;
}

void ast_update_depth(AstNode *n)
{
    int d = 0;
    ast_visit_children(n, max_depth, &d);
    n->depth = d + 1;
}

const char *ast_kind_name(AstKind kind)
{
    return (unsigned)kind < AST_KIND_COUNT ? kind_names[kind] : "?";
}

const char *ast_oper_spelling(AstOper oper)
{
    return opers[oper].spelling;
}

int ast_oper_prec(AstOper oper)
{
    return opers[oper].prec;
}

bool ast_is_literal(const AstNode *n)
{
    switch (n->kind) {
    case AST_NUMBER: case AST_STRING: case AST_BOOL: case AST_NONE:
    case AST_DTYPE:
        return true;
    case AST_LIST:
        for (int i = 0; i < n->u.list.items.count; i++)
            if (!ast_is_literal(n->u.list.items.items[i]))
                return false;
        return true;
    default:
        return false;
    }
}

/* A dtype literal and a string of the same text are the same value
 * (out_dtype=float32 equals out_dtype="float32"). */
static const char *text_value(const AstNode *n)
{
    if (n->kind == AST_STRING)
        return n->u.str.text;
    if (n->kind == AST_DTYPE)
        return n->u.dtype.name;
    return NULL;
}

bool ast_literal_equal(const AstNode *a, const AstNode *b)
{
    const char *ta = text_value(a), *tb = text_value(b);
    if (ta || tb)
        return ta && tb && strcmp(ta, tb) == 0;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case AST_NUMBER:
        return a->u.num.value == b->u.num.value;
    case AST_BOOL:
        return a->u.boolean == b->u.boolean;
    case AST_NONE:
        return true;
    case AST_LIST:
        if (a->u.list.items.count != b->u.list.items.count)
            return false;
        for (int i = 0; i < a->u.list.items.count; i++)
            if (!ast_literal_equal(a->u.list.items.items[i], b->u.list.items.items[i]))
                return false;
        return true;
    default:
        return false;
    }
}

static const struct {
    const char *op;       /* registry name */
    const char *spelling; /* infix spelling */
} infix_ops[] = {
    {"add", "+"}, {"subtract", "-"}, {"multiply", "*"}, {"divide", "/"},
    {"negative", "-"},
    {"Add", "+"}, {"Sub", "-"}, {"Mul", "*"}, {"Div", "/"}, {"Neg", "-"}, /* ONNX's */
};

/* The ONNX op of an infix or prefix operator (AstBuilder.onnx). */
static const char *onnx_operator(const char *op)
{
    static const char *const relay[] = {"add", "subtract", "multiply", "divide", "negative"};
    static const char *const onnx[] = {"Add", "Sub", "Mul", "Div", "Neg"};
    for (size_t i = 0; i < ARRAY_LEN(relay); i++)
        if (strcmp(op, relay[i]) == 0)
            return onnx[i];
    return op;
}

const char *ast_operator_op(const AstBuilder *b, const char *op)
{
    return b->onnx ? onnx_operator(op) : op;
}

const char *ast_infix_spelling(const char *op)
{
    for (size_t i = 0; i < ARRAY_LEN(infix_ops); i++)
        if (strcmp(op, infix_ops[i].op) == 0)
            return infix_ops[i].spelling;
    return NULL;
}
