/* check_action.c - guards (where ...) and actions (=> ...) of a rule.
 *
 * Guards get a small type check so that a comparison of a dtype with a
 * number, or "&&" over a number, is reported at compile time.  Actions may
 * only use variables the pattern binds on every way it matches. */
#include "check_impl.h"
#include "pattern.h"

#include <string.h>

/* Types of guard expressions. */
typedef enum GType {
    GT_ERROR, /* already reported */
    GT_BOOL,  /* a condition */
    GT_NUM,   /* a number */
    GT_TEXT,  /* a string or a dtype */
    GT_LIST,  /* a list (shape(x), list attributes) */
    GT_NONE,  /* None */
    GT_ANY,   /* an attribute value: checked when the rule runs */
} GType;

static const char *const gtype_names[] = {
    "?", "a condition", "a number", "a string or dtype", "a list", "None", "a value",
};

static const struct {
    const char *name; /* as written */
    QueryKind kind;   /* resolved */
    int nargs;        /* arguments */
    GType type;       /* result */
} queries[] = {
    {"users", QUERY_USERS, 1, GT_NUM}, {"rank", QUERY_RANK, 1, GT_NUM},
    {"dtype", QUERY_DTYPE, 1, GT_TEXT}, {"value", QUERY_VALUE, 1, GT_NUM},
    {"shape", QUERY_SHAPE, 1, GT_LIST}, {"attr", QUERY_ATTR, 2, GT_ANY},
};

static GType guard_type(CheckCtx *c, AstNode *n);

/* A variable used in a guard or action: bound, and on every match. */
static int use_var(CheckCtx *c, AstNode *v, const char *where)
{
    int slot = check_find_var(c, v->u.var.name);
    if (slot < 0) {
        diag_error(c->d, v->src, v->range,
                   "variable '%s' is used in the %s but never bound", v->u.var.name, where);
        return -1;
    }
    if (!c->vars[slot].always_bound) {
        diag_error(c->d, v->src, v->range, "variable '%s' is used in the %s but is bound "
                   "only in some alternatives of the pattern", v->u.var.name, where);
        return -1;
    }
    if (c->vars[slot].seq_from >= 0 && strcmp(where, "splice") != 0) {
        diag_error(c->d, v->src, v->range, "'%s' stands for several fields; splice them "
                   "into a new tuple or call: %s...", v->u.var.name, v->u.var.name);
        return -1;
    }
    if (c->vars[slot].kind == VARKIND_CALLEE) {
        diag_error(c->d, v->src, v->range, "'%s' is bound to the callee of a call, not to a "
                   "value; it stands only as a callee: %s(y, ...)", v->u.var.name,
                   v->u.var.name);
        return -1;
    }
    c->vars[slot].uses++;
    v->u.var.slot = slot;
    return slot;
}

static bool check_operand(CheckCtx *c, AstNode *n, bool *spliced);

/* f(y, ...) in an action, f a callee variable (note [callee variables]
 * in check_expand.c): a call of the same callee, with the attributes of
 * the call f was bound at; so it takes none of its own. */
static bool check_callee_call(CheckCtx *c, AstNode *n, int slot)
{
    bool ok = true, spliced = false;
    if (!c->vars[slot].always_bound) {
        diag_error(c->d, n->src, n->u.call.name_range, "callee '%s' is used in the action but "
                   "is bound only in some alternatives of the pattern", n->u.call.name);
        ok = false;
    }
    if (n->u.call.attrs.count || n->u.call.copy_from) {
        const AstNode *a = n->u.call.attrs.count ? n->u.call.attrs.items[0]
                                                 : n->u.call.copy_from;
        diag_error(c->d, a->src, a->range, "'%s(...)' calls the callee bound in the pattern "
                   "with that call's attributes; it takes none of its own", n->u.call.name);
        ok = false;
    }
    for (int i = 0; i < n->u.call.args.count; i++)
        ok &= check_operand(c, n->u.call.args.items[i], &spliced);
    c->vars[slot].uses++;
    n->kind = AST_ANYCALL;
    n->u.call.slot = slot;
    return ok;
}

/* The op a node variable is bound to (c@nn.conv2d(...)), or NULL. */
static const OpInfo *site_op(const CheckCtx *c, int slot)
{
    const AstNode *n = c->vars[slot].site;
    if (n->kind != AST_BIND)
        return NULL;
    n = n->u.bind.operand;
    while (n->kind == AST_CONSTRAIN || n->kind == AST_BIND)
        n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
    return n->kind == AST_CALL ? n->u.call.op : NULL;
}

/* attr(c, NAME): NAME must be an attribute of c's op when that is known. */
static bool check_attr_query(CheckCtx *c, const AstNode *q, int slot)
{
    const AstNode *name = q->u.query.args.items[1];
    const OpInfo *op = site_op(c, slot);
    if (!op || opinfo_find_attr(op, name->u.var.name))
        return true;
    diag_error(c->d, name->src, name->range, "op '%s' has no attribute '%s'", op->name,
               name->u.var.name);
    return false;
}

static GType query_type(CheckCtx *c, AstNode *q, const char *where)
{
    for (size_t i = 0; i < ARRAY_LEN(queries); i++) {
        if (strcmp(q->u.query.name, queries[i].name) != 0)
            continue;
        q->u.query.query = queries[i].kind;
        if (q->u.query.args.count != queries[i].nargs) {
            diag_error(c->d, q->src, q->range, queries[i].nargs == 1
                       ? "%s() takes one variable" : "%s() takes a variable and an "
                       "attribute name", queries[i].name);
            return GT_ERROR;
        }
        int slot = use_var(c, q->u.query.args.items[0], where);
        if (slot < 0)
            return GT_ERROR;
        if (c->vars[slot].kind != VARKIND_NODE) {
            const AstNode *v = q->u.query.args.items[0];
            diag_error(c->d, v->src, v->range, "'%s' is bound to %s, not a node",
                       v->u.var.name, c->vars[slot].kind == VARKIND_INDEX
                       ? "an element index" : "an attribute");
            return GT_ERROR;
        }
        if (queries[i].kind == QUERY_ATTR && !check_attr_query(c, q, slot))
            return GT_ERROR;
        return queries[i].type;
    }
    diag_error(c->d, q->src, q->u.query.name_range, "unknown guard function '%s'; "
               "expected users, rank, dtype, value, shape or attr", q->u.query.name);
    return GT_ERROR;
}

static bool is_value_query(const AstNode *n)
{
    return n->kind == AST_QUERY && strcmp(n->u.query.name, "value") == 0;
}

static GType var_type(CheckCtx *c, AstNode *v)
{
    int slot = use_var(c, v, "guard");
    if (slot < 0)
        return GT_ERROR;
    if (c->vars[slot].kind == VARKIND_ATTR)
        return GT_ANY;
    if (c->vars[slot].kind == VARKIND_INDEX)
        return GT_NUM;
    diag_error(c->d, v->src, v->range, "'%s' is a node; compare one of its properties: "
               "users(%s), rank(%s), dtype(%s), value(%s) or shape(%s)", v->u.var.name,
               v->u.var.name, v->u.var.name, v->u.var.name, v->u.var.name, v->u.var.name);
    return GT_ERROR;
}

/* Requires operand type want (or an attribute value). */
static bool expect(CheckCtx *c, const AstNode *n, GType got, GType want, const char *what)
{
    if (got == want || got == GT_ANY || got == GT_ERROR)
        return got != GT_ERROR;
    diag_error(c->d, n->src, n->range, "%s needs %s here, not %s", what,
               gtype_names[want], gtype_names[got]);
    return false;
}

static GType binary_type(CheckCtx *c, AstNode *n)
{
    AstOper op = n->u.op.oper;
    const char *sp = ast_oper_spelling(op);
    GType l = guard_type(c, n->u.op.left), r = guard_type(c, n->u.op.right);
    if (l == GT_ERROR || r == GT_ERROR)
        return GT_ERROR;
    if (op == OPER_OR || op == OPER_AND) {
        bool ok = expect(c, n->u.op.left, l, GT_BOOL, sp);
        ok &= expect(c, n->u.op.right, r, GT_BOOL, sp);
        return ok ? GT_BOOL : GT_ERROR;
    }
    if (op == OPER_EQ || op == OPER_NE) {
        if (l != r && l != GT_ANY && r != GT_ANY) {
            diag_error(c->d, n->src, n->range, "'%s' compares %s with %s", sp,
                       gtype_names[l], gtype_names[r]);
            return GT_ERROR;
        }
        return GT_BOOL;
    }
    /* Both operands are checked, so both report. */
    bool left_ok = expect(c, n->u.op.left, l, GT_NUM, sp);
    bool right_ok = expect(c, n->u.op.right, r, GT_NUM, sp);
    bool ok = left_ok && right_ok;
    if (!ok)
        return GT_ERROR;
    return op >= OPER_ADD ? GT_NUM : GT_BOOL;
}

static GType guard_type(CheckCtx *c, AstNode *n)
{
    switch (n->kind) {
    case AST_NUMBER: return GT_NUM;
    case AST_STRING: case AST_DTYPE: return GT_TEXT;
    case AST_BOOL: return GT_BOOL;
    case AST_NONE: return GT_NONE;
    case AST_LIST: return GT_LIST;
    case AST_VAR: return var_type(c, n);
    case AST_QUERY: return query_type(c, n, "guard");
    case AST_INDEX: {
        if (is_value_query(n->u.item.base)) /* value(p)[i]: element i of a constant */
            return query_type(c, n->u.item.base, "guard") == GT_ERROR ? GT_ERROR : GT_NUM;
        GType t = guard_type(c, n->u.item.base);
        return expect(c, n->u.item.base, t, GT_LIST, "'[...]'") ? (t == GT_ANY ? GT_ANY : GT_NUM)
                                                                 : GT_ERROR;
    }
    case AST_UNARY: {
        bool neg = n->u.op.oper == OPER_NEG;
        GType t = guard_type(c, n->u.op.left);
        if (!expect(c, n->u.op.left, t, neg ? GT_NUM : GT_BOOL, neg ? "'-'" : "'!'"))
            return GT_ERROR;
        return neg ? GT_NUM : GT_BOOL;
    }
    case AST_BINARY:
        return binary_type(c, n);
    default:
        diag_error(c->d, n->src, n->range, "not allowed in a guard");
        return GT_ERROR;
    }
}

bool check_guard(CheckCtx *c, AstNode *guard)
{
    GType t = guard_type(c, guard);
    return expect(c, guard, t, GT_BOOL, "a guard");
}

/* ---- actions ---- */

static bool check_expr(CheckCtx *c, AstNode *n);

/* A computed attribute value (note [computed attributes] in
 * src/runtime/rewrite_build.c): an expression over the bindings, as in a
 * guard, that gives a number. */
static bool check_computed_attr(CheckCtx *c, AstNode *v)
{
    GType t = guard_type(c, v);
    if (t == GT_ERROR)
        return false;
    if (t == GT_NUM || t == GT_ANY)
        return true;
    diag_error(c->d, v->src, v->range, "a computed attribute value must be a number, not %s",
               gtype_names[t]);
    return false;
}

/* A list with computed items (newshape=[-1, shape(x)[2]]): each item a
 * literal or a computed number. */
static bool check_computed_list(CheckCtx *c, AstNode *v)
{
    bool ok = true;
    for (int i = 0; i < v->u.list.items.count; i++) {
        AstNode *item = v->u.list.items.items[i];
        if (!ast_is_literal(item))
            ok &= check_computed_attr(c, item);
    }
    return ok;
}

/* name=VALUE in a new op: a literal, a bound attribute, a bound constant
 * (its scalar value), attr(c, name), a number computed from the
 * bindings (shape(w)[0], (rank(x) - 1)), a list of such numbers, or
 * shape(x), the dims of x's type as a list. */
static bool check_attr_value(CheckCtx *c, AstNode *attr)
{
    AstNode *v = attr->u.attr.value;
    if (v->kind == AST_LIST && !ast_is_literal(v))
        return check_computed_list(c, v);
    if (v->kind == AST_QUERY && strcmp(v->u.query.name, "shape") == 0)
        return query_type(c, v, "action") != GT_ERROR; /* a list: newshape=shape(m) */
    if (v->kind == AST_INDEX || v->kind == AST_BINARY || v->kind == AST_UNARY ||
        (v->kind == AST_QUERY && v->u.query.query != QUERY_ATTR &&
         v->u.query.query != QUERY_VALUE))
        return check_computed_attr(c, v);
    if (v->kind == AST_QUERY) {
        GType t = query_type(c, v, "action");
        if (t != GT_ERROR && v->u.query.query != QUERY_ATTR && v->u.query.query != QUERY_VALUE) {
            diag_error(c->d, v->src, v->range, "only attr(c, NAME) and value(x) give "
                       "attribute values");
            return false;
        }
        return t != GT_ERROR;
    }
    if (v->kind != AST_VAR)
        return true;
    int slot = use_var(c, v, "action");
    if (slot < 0)
        return false;
    if (c->vars[slot].kind == VARKIND_ATTR || c->vars[slot].kind == VARKIND_INDEX ||
        c->var_facts[slot].is_const == 1)
        return true;
    diag_error(c->d, v->src, v->range, "'%s' gives an attribute value, so it must be a "
               "constant: write %s:const in the pattern", v->u.var.name, v->u.var.name);
    return false;
}

/* **c copies the attributes of c's op; the new op must declare them all. */
static bool check_copy(CheckCtx *c, const OpInfo *to, AstNode *from)
{
    int slot = use_var(c, from, "action");
    if (slot < 0)
        return false;
    const OpInfo *op = c->vars[slot].kind == VARKIND_NODE ? site_op(c, slot) : NULL;
    if (!op) {
        diag_error(c->d, from->src, from->range, "'**%s' needs '%s' bound to an op call, "
                   "as in %s@nn.conv2d(...)", from->u.var.name, from->u.var.name,
                   from->u.var.name);
        return false;
    }
    for (int i = 0; to && i < op->nattrs; i++)
        if (!opinfo_find_attr(to, op->attrs[i].name)) {
            diag_error(c->d, from->src, from->range, "cannot copy the attributes of '%s' "
                       "into '%s': '%s' has no attribute '%s'", op->name, to->name,
                       to->name, op->attrs[i].name);
            return false;
        }
    return true;
}

/* Whether the node variable in slot is bound to a tuple pattern (t@(...)). */
static bool bound_to_tuple(const CheckCtx *c, int slot)
{
    const AstNode *n = c->vars[slot].site;
    if (n->kind != AST_BIND)
        return false;
    n = n->u.bind.operand;
    while (n->kind == AST_CONSTRAIN || n->kind == AST_BIND)
        n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
    return n->kind == AST_TUPLE;
}

/* x... or x[lo:hi]... (note [sequence variables] in check_vars.c). */
static bool check_splice(CheckCtx *c, AstNode *n)
{
    AstNode *v = n->u.splice.operand;
    if (!n->u.splice.dots) {
        StrBuf text = {0};
        ast_print_node(&text, n);
        diag_error(c->d, n->src, n->range, "a slice is spliced into a new tuple or call: "
                   "write the dots after it, %s...", text.data);
        strbuf_free(&text);
        return false;
    }
    if (v->kind != AST_VAR) {
        diag_error(c->d, v->src, v->range, "only a sequence variable (rest... in the "
                   "pattern) or a tuple bound by t@(...) can be spliced");
        return false;
    }
    if (n->u.splice.has_hi && n->u.splice.hi == 0) {
        diag_error(c->d, n->src, n->range, "an empty slice ([lo:0]) splices nothing");
        return false;
    }
    int slot = use_var(c, v, "splice");
    if (slot < 0)
        return false;
    if (c->vars[slot].seq_from < 0 && !bound_to_tuple(c, slot)) {
        diag_error(c->d, v->src, v->range, "'%s' is no tuple pattern; only a sequence "
                   "variable (rest... in the pattern) or a tuple bound by %s@(...) can be "
                   "spliced", v->u.var.name, v->u.var.name);
        return false;
    }
    return true;
}

/* An operand of a new tuple or call: an expression or a splice. */
static bool check_operand(CheckCtx *c, AstNode *n, bool *spliced)
{
    if (n->kind != AST_SPLICE)
        return check_expr(c, n);
    *spliced = true;
    return check_splice(c, n);
}

/* note [spliced operand counts]: a splice among a new call's operands
 * (note [sequence variables] in check_vars.c) gives as many as its
 * tuple has fields, so the call's operand count is known only at a
 * match.  The checker refuses a call no count can make right: more
 * operands than the op takes before any splice adds one, or a count
 * every splice fixes (t[1:3]...) that the op does not take.  A call some
 * counts fit is kept, and the rewrite refuses a match whose count does
 * not fit as a guard would (rewrite_first_unknown in
 * src/runtime/rewrite_build_known.c), so no ill-formed call is ever made: the
 * lowering keeps the op's counts in the call (GRAFT_EXPR_CALL's i and
 * cmp in graft_rules.h). */

/* The fields splice n gives when its slice fixes them (t[1:3]...), or
 * -1 when they depend on the tuple. */
static int splice_fixed_count(const AstNode *n)
{
    bool fixed = n->u.splice.has_hi && n->u.splice.hi > 0 && n->u.splice.lo >= 0;
    return fixed ? n->u.splice.hi - n->u.splice.lo : -1;
}

/* Whether some match can give call n, whose operands include a splice,
 * a count its op takes (note [spliced operand counts]); reports the call
 * when none can. */
static bool check_spliced_count(CheckCtx *c, const AstNode *n, const OpInfo *op)
{
    int least = 0;
    bool open = false; /* a splice whose count depends on the match */
    for (int i = 0; i < n->u.call.args.count; i++) {
        const AstNode *a = n->u.call.args.items[i];
        int fields = a->kind == AST_SPLICE ? splice_fixed_count(a) : 1;
        open |= fields < 0;
        least += fields < 0 ? 0 : fields;
    }
    bool fits = open ? op->max_args == OP_VARIADIC || least <= op->max_args
                     : opinfo_accepts_nargs(op, least);
    if (fits)
        return true;
    char text[48];
    snprintf(text, sizeof text, "%s%d with the splice", open ? "at least " : "", least);
    check_count_error(c, n, op, text);
    return false;
}

static bool check_new_call(CheckCtx *c, AstNode *n)
{
    if (check_is_fold(c, n))
        return check_fold(c, n, check_expr);
    const char *name = n->u.call.name;
    const OpInfo *op = registry_find(c->reg, name);
    int callee = op ? -1 : check_find_var(c, name);
    if (callee >= 0 && c->vars[callee].kind == VARKIND_CALLEE)
        return check_callee_call(c, n, callee);
    bool ok = true;
    if (!op && check_find_let(c, name)) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "'%s' is a pattern macro; an action builds ops", name);
        ok = false;
    } else if (!op) {
        check_unknown_op(c, n, name, n->u.call.name_range);
        ok = false;
    }
    bool spliced = false;
    for (int i = 0; i < n->u.call.args.count; i++)
        ok &= check_operand(c, n->u.call.args.items[i], &spliced);
    if (op && !spliced && !check_arity(c, n, op)) {
        ok = false;
    } else if (op && spliced && ok) {
        ok = check_spliced_count(c, n, op);
    }
    for (int i = 0; i < n->u.call.attrs.count; i++) {
        AstNode *a = n->u.call.attrs.items[i];
        for (int j = 0; j < i; j++)
            if (n->u.call.attrs.items[j]->u.attr.name == a->u.attr.name) {
                diag_error(c->d, a->src, a->u.attr.name_range, "attribute '%s' given twice",
                           a->u.attr.name);
                ok = false;
            }
        bool arg_ok = !op || check_attr_arg(c, op, a);
        bool value_ok = check_attr_value(c, a); /* reports on its own */
        ok = ok && arg_ok && value_ok;
    }
    if (n->u.call.copy_from)
        ok &= check_copy(c, op, n->u.call.copy_from);
    n->u.call.op = op;
    return ok;
}

/* 2:float32 in an action makes a constant of that dtype: only a dtype
 * constraint on a number means something there, and the number must fit
 * the dtype (pattern_const_text, the spelling lowering gives it). */
static bool check_typed_constant(CheckCtx *c, AstNode *n)
{
    const AstNode *num = n->u.constrain.operand;
    if (num->kind != AST_NUMBER) {
        diag_error(c->d, n->src, n->u.constrain.where,
                   "in an action only a number literal can be given a dtype");
        return false;
    }
    if (n->u.constrain.kind != CONSTRAINT_DTYPE || !n->u.constrain.dtype) {
        diag_error(c->d, n->src, n->u.constrain.where, "this constraint cannot appear in "
                   "a rewrite action; only a number's dtype can (2:float32)");
        return false;
    }
    StrBuf text = {0};
    const char *why = pattern_const_text(num->u.num.value, n->u.constrain.dtype, &text);
    strbuf_free(&text);
    if (why)
        diag_error(c->d, n->src, num->range,
                   "cannot make a constant of dtype %s from this number: %s",
                   n->u.constrain.dtype, why);
    return why == NULL;
}

/* Finds the pattern call whose attribute list holds s->site. */
typedef struct SiteSearch {
    const AstNode *site; /* an AST_ATTR */
    const AstNode *call; /* found: its call, or NULL */
} SiteSearch;

static void find_attr_call(AstNode *n, void *arg)
{
    SiteSearch *s = arg;
    if (s->call)
        return;
    if (n->kind == AST_CALL || n->kind == AST_CLASS)
        for (int i = 0; i < n->u.call.attrs.count; i++)
            if (n->u.call.attrs.items[i] == s->site) {
                s->call = n;
                return;
            }
    ast_visit_children(n, find_attr_call, s);
}

/* A bound attribute value as an operand makes a scalar constant (note
 * [attribute operands] in graft_rules.h): the attribute must be a number
 * or a bool in the registry. */
static bool check_attr_operand(CheckCtx *c, AstNode *n, int slot)
{
    SiteSearch s = {c->vars[slot].site, NULL};
    find_attr_call(c->rule->pattern, &s);
    const OpInfo *op = s.call ? s.call->u.call.op : NULL;
    const OpAttrInfo *a = op ? opinfo_find_attr(op, s.site->u.attr.name) : NULL;
    if (a && (a->type == ATYPE_INT || a->type == ATYPE_FLOAT || a->type == ATYPE_BOOL))
        return true;
    diag_error(c->d, n->src, n->range, "'%s' is an attribute value that is not a number, "
               "so it cannot be an operand; pass it as an attribute: op(..., NAME=%s)",
               n->u.var.name, n->u.var.name);
    return false;
}

/* An index variable is a number, no node: "'i' is an element index ...". */
static bool not_index(CheckCtx *c, const AstNode *v, int slot)
{
    if (slot < 0 || c->vars[slot].kind != VARKIND_INDEX)
        return true;
    diag_error(c->d, v->src, v->range, "'%s' is an element index, not a node; it can be "
               "an element's index (t[%s]) or an attribute value (NAME=%s)", v->u.var.name,
               v->u.var.name, v->u.var.name);
    return false;
}

/* t[i] in an action: i an index variable of the pattern. */
static bool check_index_var(CheckCtx *c, AstNode *v)
{
    int slot = use_var(c, v, "action");
    if (slot < 0 || c->vars[slot].kind == VARKIND_INDEX)
        return slot >= 0;
    diag_error(c->d, v->src, v->range, "'%s' is bound to %s, not an element index; bind one "
               "in the pattern, as in split(x)[%s]", v->u.var.name,
               c->vars[slot].kind == VARKIND_ATTR ? "an attribute" : "a node", v->u.var.name);
    return false;
}

/* A bound attribute value is a constant only as an operand of a new op or
 * tuple: the replacement itself, or what [i] takes apart, is a node. */
static bool check_operand_place(CheckCtx *c, const AstNode *n)
{
    if (n->kind != AST_VAR)
        return true;
    int slot = check_find_var(c, n->u.var.name);
    if (slot >= 0 && c->vars[slot].kind == VARKIND_INDEX)
        return not_index(c, n, slot);
    if (slot < 0 || c->vars[slot].kind != VARKIND_ATTR)
        return true;
    diag_error(c->d, n->src, n->range, "'%s' is an attribute value, not a node; it can be "
               "an operand of a new op (add(x, %s)) or an attribute (NAME=%s)",
               n->u.var.name, n->u.var.name, n->u.var.name);
    return false;
}

/* An action expression: bound variables, new constants and op calls. */
static bool check_expr(CheckCtx *c, AstNode *n)
{
    switch (n->kind) {
    case AST_OPVALUE:
        return check_opvalue(c, n);
    case AST_VAR: {
        if (!check_dotted_var(c, n))
            return false;
        int slot = use_var(c, n, "action");
        if (slot >= 0 && c->vars[slot].kind == VARKIND_ATTR)
            return check_attr_operand(c, n, slot);
        return slot >= 0 && not_index(c, n, slot);
    }
    case AST_NUMBER:
        return true;
    case AST_CALL:
        return check_new_call(c, n);
    case AST_ANYCALL: /* a callee call, checked by check_callee_call */
        return true;
    case AST_TUPLE: {
        bool ok = true, spliced = false;
        for (int i = 0; i < n->u.list.items.count; i++)
            ok &= check_operand(c, n->u.list.items.items[i], &spliced);
        return ok;
    }
    case AST_SPLICE:
        diag_error(c->d, n->src, n->range, "a splice stands among the fields of a new tuple "
                   "or the operands of a new call");
        return false;
    case AST_GETITEM:
        if (n->u.item.var && !check_index_var(c, n->u.item.var))
            return false;
        return check_operand_place(c, n->u.item.base) && check_expr(c, n->u.item.base);
    case AST_CONSTRAIN:
        return check_typed_constant(c, n);
    default:
        diag_error(c->d, n->src, n->range, "not allowed in an action");
        return false;
    }
}

static bool check_partition(CheckCtx *c, AstNode *part)
{
    const AstList *attrs = &part->u.part.attrs;
    bool ok = true;
    for (int i = 0; i < attrs->count; i++)
        for (int j = 0; j < i; j++)
            if (attrs->items[j]->u.attr.name == attrs->items[i]->u.attr.name) {
                diag_error(c->d, attrs->items[i]->src, attrs->items[i]->u.attr.name_range,
                           "function attribute '%s' given twice",
                           attrs->items[i]->u.attr.name);
                ok = false;
            }
    return ok;
}

bool check_action(CheckCtx *c, AstNode *action)
{
    if (action->kind == AST_PARTITION)
        return check_partition(c, action);
    return check_operand_place(c, action) && check_expr(c, action);
}
