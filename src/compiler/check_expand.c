/* check_expand.c - expanding lets and macros in patterns, and linking op
 * calls to the registry.
 *
 * note [macro expansion]: expansion is textual.  A let body is copied at
 * each use (so each rule gets its own nodes and variable slots); names in
 * the body that are not parameters become variables of the rule using it.
 * Macro arguments are expanded in the caller's scope first, then bound to
 * the parameters.  Nodes of the rule's own pattern are reused when nothing
 * below them changed, so AstRule.pattern == pattern_src for rules without
 * macros.
 *
 * An op call's name, arity and attributes are checked against the
 * registry as it is linked (check_ops.c).
 */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

/* Macro parameters in scope: parameter name -> expanded argument. */
typedef struct Env {
    const char *const *names; /* parameter names (interned) */
    AstNode *const *args;     /* expanded arguments */
    int n;                    /* entries */
} Env;

static AstNode *expand(CheckCtx *c, AstNode *n, const Env *env, bool copy);

static AstNode *env_lookup(const Env *env, const char *name)
{
    for (int i = 0; env && i < env->n; i++)
        if (env->names[i] == name)
            return env->args[i];
    return NULL;
}

/* Takes one node from the expansion budget; false (reported once) when
 * it is spent. */
static bool take_budget(CheckCtx *c)
{
    if (--c->expand_budget >= 0)
        return true;
    if (!c->expand_reported)
        diag_error(c->d, c->rule->pattern_src->src, c->rule->pattern_src->range,
                   "pattern grows beyond %llu nodes when its macros are expanded "
                   "[--limit macro-nodes]", (unsigned long long)c->limits->macro_nodes);
    c->expand_reported = true;
    return false;
}

static void charge_child(AstNode *child, void *arg)
{
    CheckCtx *c = arg;
    if (c->expand_budget >= 0 && take_budget(c))
        ast_visit_children(child, charge_child, c);
}

/* Charges a fresh budget with the size of the expanded pattern as a tree.
 * Macro arguments are shared, not copied, but every later stage walks the
 * pattern as a tree, so each use of an argument costs its whole size:
 * d(d(d(...x))) with "let d(p) = add(p, p)" forty deep used to hang the
 * checker (found by tests/hostile.sh).  The walk stops once the budget is
 * spent, and recurses no deeper than the expanded depth bound. */
static bool charge_tree(CheckCtx *c, AstNode *n)
{
    c->expand_budget = (long long)c->limits->macro_nodes;
    charge_child(n, c);
    return c->expand_budget >= 0;
}

/* A copy of n for an expanded pattern, within the node budget.  Inside a
 * macro the visit of n was charged already (see expand). */
static AstNode *clone(CheckCtx *c, const AstNode *n)
{
    if (c->macro_depth == 0 && !take_budget(c))
        return NULL;
    AstNode *out = ast_clone(c->rf->arena, n);
    ast_update_depth(out);
    return out;
}

/* Reports (once) an expanded pattern deeper than c->max_levels. */
static void too_deep(CheckCtx *c)
{
    if (!c->expand_reported)
        diag_error(c->d, c->rule->pattern_src->src, c->rule->pattern_src->range,
                   "pattern nested deeper than %llu levels after macro expansion "
                   "[--limit macro-depth]", (unsigned long long)c->max_levels);
    c->expand_reported = true;
}

/* Goes down to the children of a node (note [expanded depth]): false,
 * reported, when they would lie deeper than the limit. */
static bool descend(CheckCtx *c)
{
    if ((uint64_t)++c->level - 1 <= c->max_levels)
        return true;
    c->level--;
    too_deep(c);
    return false;
}

/* Copies list items through expand; *changed tells whether any differs. */
static AstList expand_list(CheckCtx *c, const AstList *l, const Env *env, bool copy,
                           bool *changed, bool *failed)
{
    AstList out = {0};
    Arena *arena = c->rf->arena;
    for (int i = 0; i < l->count; i++) {
        AstNode *e = expand(c, l->items[i], env, copy);
        if (!e) {
            *failed = true;
            e = l->items[i];
        }
        *changed |= e != l->items[i];
        ast_list_push(arena, &out, e);
    }
    return out;
}

/* The node with its children expanded; a new node when copy is set or a
 * child changed, else n itself. */
static AstNode *expand_children(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    AstNode tmp = *n;
    bool changed = copy, failed = false;
    bool has_children = n->depth > 1;
    if (has_children && !descend(c))
        return NULL;
    AstNode **one[3] = {NULL, NULL, NULL};
    switch (n->kind) {
    case AST_LIST: case AST_TUPLE:
        tmp.u.list.items = expand_list(c, &n->u.list.items, env, copy, &changed, &failed);
        break;
    case AST_CALL: case AST_OPTIONAL: case AST_REPEAT: case AST_CLASS: case AST_FNCALL:
    case AST_ANYCALL: case AST_FNLIT: case AST_IF: case AST_LETIN: case AST_CALLPAT:
        tmp.u.call.args = expand_list(c, &n->u.call.args, env, copy, &changed, &failed);
        tmp.u.call.attrs = expand_list(c, &n->u.call.attrs, env, copy, &changed, &failed);
        one[0] = n->kind == AST_FNLIT || n->kind == AST_CALLPAT ? &tmp.u.call.body : NULL;
        break;
    case AST_GETITEM: one[0] = &tmp.u.item.base; break;
    case AST_ALT: one[0] = &tmp.u.alt.left; one[1] = &tmp.u.alt.right; break;
    case AST_CONSTRAIN: one[0] = &tmp.u.constrain.operand; break;
    case AST_BIND: one[0] = &tmp.u.bind.operand; break;
    case AST_ATTR: one[0] = tmp.u.attr.value ? &tmp.u.attr.value : NULL; break;
    case AST_DOMINATES:
        one[0] = &tmp.u.dom.parent; one[1] = &tmp.u.dom.path; one[2] = &tmp.u.dom.child;
        break;
    default:
        break;
    }
    for (int i = 0; i < 3 && one[i]; i++) {
        AstNode *e = expand(c, *one[i], env, copy);
        failed |= !e;
        if (e && e != *one[i]) {
            *one[i] = e;
            changed = true;
        }
    }
    if (has_children)
        c->level--;
    if (failed)
        return NULL;
    if (!changed)
        return n;
    AstNode *out = clone(c, &tmp);
    /* Macro arguments land deeper than the level they were expanded at. */
    if (out && (uint64_t)out->depth - 1 > c->max_levels) {
        too_deep(c);
        return NULL;
    }
    return out;
}

/* A let used by name (no parameters) or as a macro call. */
static AstNode *expand_let(CheckCtx *c, const AstLet *let, const AstNode *use,
                           AstNode *const *args, int nargs)
{
    if ((uint64_t)c->macro_depth >= c->limits->macro_nesting) {
        diag_error(c->d, use->src, use->range,
                   "'%s' expands into itself (or macros nest deeper than %llu) "
                   "[--limit macro-nesting]", let->name,
                   (unsigned long long)c->limits->macro_nesting);
        /* Stop the whole pattern: "let loop = z(loop, loop)" would
         * otherwise meet this bound 2^32 times. */
        c->expand_reported = true;
        return NULL;
    }
    Env inner = {let->params, args, nargs};
    c->macro_depth++;
    AstNode *body = expand(c, let->body, &inner, true);
    c->macro_depth--;
    return body;
}

/* NAME(args): a macro call.  Arguments are expanded in the caller's scope. */
static AstNode *expand_macro_call(CheckCtx *c, const AstLet *let, AstNode *n,
                                  const Env *env, bool copy)
{
    if (!let->has_parens) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "'%s' is a named pattern, not a macro; use it without arguments",
                   let->name);
        return NULL;
    }
    if (n->u.call.attrs.count > 0 || n->u.call.ellipsis ||
        n->u.call.args.count != let->nparams) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "macro '%s' takes %d argument%s", let->name, let->nparams,
                   let->nparams == 1 ? "" : "s");
        return NULL;
    }
    bool changed = false, failed = false;
    AstList args = expand_list(c, &n->u.call.args, env, copy, &changed, &failed);
    return failed ? NULL : expand_let(c, let, n, args.items, args.count);
}

/* op(args, attrs) in a pattern. */
static AstNode *expand_anycall(CheckCtx *c, AstNode *n, const Env *env, bool copy);

/* Counts the calls named name in a rule's pattern or action. */
typedef struct CalleeCount {
    const char *name; /* interned */
    int count;
} CalleeCount;

static void count_callee(AstNode *n, void *arg)
{
    CalleeCount *cc = arg;
    if (n->kind == AST_CALL && n->u.call.syntax == CALL_PREFIX && n->u.call.name == cc->name)
        cc->count++;
    if (n->kind == AST_CALLPAT && n->u.call.body->kind == AST_VAR &&
        n->u.call.body->u.var.name == cc->name)
        cc->count++; /* (f)(x) */
    ast_visit_children(n, count_callee, arg);
}

/* (note [callee variables] in pattern.h) f(x, ...) in a pattern, f no op, no macro,
 * no dotted name and no near miss of an op name (sigmoud stays an
 * unknown op), is a call whose callee f binds: TVM's CallPattern with a
 * pattern as its op, when the rule names f as a callee twice or more (in
 * its pattern or action; once it would be _, and other(x) stays an unknown
 * op, as does a macro of an include that could not be read).  For an op
 * call f binds the op (the call's callee), for a call of a function value
 * the function; f again in the pattern wants the same callee, f(y, ...)
 * in the action calls it. */
static bool is_callee_var(const CheckCtx *c, const AstNode *n)
{
    const char *name = n->u.call.name;
    if (n->u.call.syntax != CALL_PREFIX || strchr(name, '.') || registry_find(c->reg, name) ||
        registry_suggest(c->reg, name) || check_declared_broken(c, name))
        return false;
    CalleeCount cc = {name, 0};
    count_callee(c->rule->pattern_src, &cc);
    if (c->rule->action)
        count_callee(c->rule->action, &cc);
    return cc.count >= 2;
}

static AstNode *expand_call(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    const AstLet *let = check_find_let(c, n->u.call.name);
    if (let && n->u.call.syntax == CALL_PREFIX)
        return expand_macro_call(c, let, n, env, copy);
    if (is_callee_var(c, n)) {
        AstBuilder b = {c->rf->arena, c->rf->names, n->src, false};
        AstNode *call = ast_new(&b, AST_ANYCALL, n->range);
        call->u.call = n->u.call;
        ast_update_depth(call);
        return expand_anycall(c, call, env, copy);
    }
    const OpInfo *op = registry_find(c->reg, n->u.call.name);
    bool ok = true;
    if (!op) {
        check_unknown_op(c, n, n->u.call.name, n->u.call.name_range);
        ok = false;
    } else {
        ok = check_arity(c, n, op);
    }
    ok &= check_attr_list(c, op, &n->u.call.attrs);
    AstNode *out = expand_children(c, n, env, copy);
    if (!ok || !out)
        return NULL;
    out->u.call.op = op;
    return out;
}

/* note [optional operands]: op?(p, q, attrs) is the op with all its
 * operands when present and its first operand p when absent: it expands
 * to op(p, q, attrs) | p (the op tried first, as op?(p)), so q's variables
 * are bound only in one alternative.  TVM writes it p.optional(lambda x:
 * is_op("op")(x, q)), that is p | op(p, q). */
static AstNode *expand_optional_call(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    if (n->u.call.args.count == 0) {
        diag_error(c->d, n->src, n->u.call.name_range, "'%s?(...)' needs a first operand: "
                   "what matches when the op is absent", n->u.call.name);
        return NULL;
    }
    AstBuilder b = {c->rf->arena, c->rf->names, n->src, false};
    AstNode *call = ast_new(&b, AST_CALL, n->range);
    call->u.call = n->u.call;
    call->u.call.syntax = CALL_PREFIX;
    ast_update_depth(call);
    AstNode *present = expand_call(c, call, env, copy);
    if (!present || !take_budget(c))
        return NULL;
    AstNode *alt = ast_new(&b, AST_ALT, n->range);
    alt->u.alt.left = present;
    alt->u.alt.right = present->u.call.args.items[0];
    ast_update_depth(alt);
    if ((uint64_t)alt->depth - 1 > c->max_levels) {
        too_deep(c);
        return NULL;
    }
    return alt;
}

/* name?(p) and name*(p).  "gamma*(x - mean)" is a multiplication when
 * gamma is not an op (graft-rules(5), "Repetition"). */
static AstNode *expand_unary_op(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    if (n->kind == AST_OPTIONAL && (n->u.call.args.count != 1 || n->u.call.attrs.count ||
                                    n->u.call.ellipsis))
        return expand_optional_call(c, n, env, copy);
    const OpInfo *op = registry_find(c->reg, n->u.call.name);
    if (!op && n->kind == AST_REPEAT && !check_find_let(c, n->u.call.name)) {
        AstBuilder b = {c->rf->arena, c->rf->names, n->src, false};
        AstNode *var = ast_new(&b, AST_VAR, n->u.call.name_range);
        var->u.var.name = n->u.call.name;
        AstNode *mul = ast_new(&b, AST_CALL, n->range);
        mul->u.call.name = interner_cstr(c->rf->names,
                                         registry_onnx_opset(c->reg) ? "Mul" : "multiply");
        mul->u.call.name_range = n->range;
        mul->u.call.syntax = CALL_INFIX;
        ast_list_push(b.arena, &mul->u.call.args, var);
        ast_list_push(b.arena, &mul->u.call.args, n->u.call.args.items[0]);
        return expand_call(c, mul, env, copy);
    }
    if (!op) {
        check_unknown_op(c, n, n->u.call.name, n->u.call.name_range);
        return NULL;
    }
    if (!opinfo_accepts_nargs(op, 1) && n->kind == AST_OPTIONAL) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "'%s' takes %d operands; write them all: %s?(p, ...) matches p when the "
                   "op is absent", op->name, op->min_args, op->name);
        return NULL;
    }
    if (!opinfo_accepts_nargs(op, 1)) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "'%s*(...)' needs an op that takes one operand; '%s' takes %d",
                   op->name, op->name, op->min_args);
        return NULL;
    }
    AstNode *out = expand_children(c, n, env, copy);
    if (out)
        out->u.call.op = op;
    return out;
}

/* An op class matches the ops with its trait that take its operands and
 * declare its attributes; with none it could never match. */
static bool class_has_op(CheckCtx *c, const AstNode *n, unsigned bit)
{
    const OpInfo **ops = xmalloc(((size_t)registry_count(c->reg) + 1) * sizeof *ops);
    int nops = registry_class_ops(c->reg, bit, ops), k = 0;
    while (k < nops && !opinfo_accepts_pattern(ops[k], n->u.call.args.count,
                                               n->u.call.ellipsis, &n->u.call.attrs))
        k++;
    free(ops);
    if (k < nops)
        return true;
    diag_error(c->d, n->src, n->u.call.name_range, "no op of class <%s> takes %s%d operand%s%s",
               n->u.call.name, n->u.call.ellipsis ? "at least " : "", n->u.call.args.count,
               n->u.call.args.count == 1 ? "" : "s",
               n->u.call.attrs.count ? " with these attributes" : "");
    return false;
}

static AstNode *expand_class(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    unsigned bit = registry_trait_by_name(n->u.call.name);
    if (!bit) {
        diag_error(c->d, n->src, n->u.call.name_range,
                   "unknown op class '<%s>'; expected <commutative>, <elementwise>, <broadcast>, "
                   "<reduce>, <injective>, <out_elemwise_fusable> or <opaque>", n->u.call.name);
        return NULL;
    }
    if (!class_has_op(c, n, bit))
        return NULL;
    AstNode *out = expand_children(c, n, env, copy);
    if (out)
        out->u.call.traits = bit;
    return out;
}

/* _(args): a call of any callee (an op or a function); it has no
 * attributes of its own to match. */
static AstNode *expand_anycall(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    if (n->u.call.attrs.count) {
        const AstNode *a = n->u.call.attrs.items[0];
        diag_error(c->d, a->src, a->range, "'%s(...)' calls any callee and has no attributes "
                   "to match; name the op, or an op class <trait>(...)", n->u.call.name);
        return NULL;
    }
    return expand_children(c, n, env, copy);
}

static AstNode *expand_var(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    AstNode *arg = env_lookup(env, n->u.var.name);
    if (arg)
        return arg;
    if (!check_dotted_var(c, n))
        return NULL;
    const AstLet *let = check_find_let(c, n->u.var.name);
    if (let && !let->has_parens)
        return expand_let(c, let, n, NULL, 0);
    if (let) {
        diag_error(c->d, n->src, n->range, "macro '%s' needs arguments: %s(...)",
                   let->name, let->name);
        return NULL;
    }
    return copy ? clone(c, n) : n;
}

static AstNode *expand_fncall(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    bool ok = check_attr_list(c, NULL, &n->u.call.attrs);
    AstNode *out = expand_children(c, n, env, copy);
    return ok ? out : NULL;
}

/* note [callee patterns]: (callee)(args) is TVM's CallPattern with a
 * pattern as its op, is_op("add") | is_op("multiply") say.  It becomes
 * what graft writes without it: an op value's call (op add)(x, y) is
 * add(x, y), alternatives the alternative of the calls, (op add | op
 * multiply)(x, y) is add(x, y) | multiply(x, y), each side with its own
 * copy of the operands, _ is _(x, y) and a name f is f(x, y) (an op, a
 * macro or a callee variable).  The automaton sees only those.  A function
 * pattern, (fn (p, q) { body })(x, w), stays: TVM's FunctionPattern as the
 * callee, six of its dataflow-pattern tests use it; its item is the call
 * of the operands, and the matcher checks the callee (GRAFT_PAT_FNCALLEE). */
static bool is_trait(const AstNode *n)
{
    return n->kind == AST_CONSTRAIN && n->u.constrain.kind == CONSTRAINT_TRAIT;
}

/* op add:<broadcast>, TVM's is_op("add").has_attr({"TOpPattern": K_BROADCAST}): the op
 * when it has the trait; one without it could never match, an error as an op
 * class no op fits is. */
static bool callee_trait(CheckCtx *c, const AstNode *n, const AstNode *callee)
{
    const AstNode *v = callee->u.constrain.operand;
    unsigned bit = registry_trait_by_name(callee->u.constrain.name);
    if (!bit) {
        diag_error(c->d, callee->src, callee->range, "unknown op trait '<%s>'",
                   callee->u.constrain.name);
        return false;
    }
    if (v->kind != AST_OPVALUE) {
        diag_error(c->d, callee->src, callee->range,
                   "a trait constrains an op value: op NAME:<%s>", callee->u.constrain.name);
        return false;
    }
    const OpInfo *op = registry_find(c->reg, v->u.call.name);
    if (op && !opinfo_has_trait(op, (OpTrait)bit)) {
        diag_error(c->d, n->src, callee->range,
                   "op '%s' is not <%s>: this call could never match", op->name,
                   callee->u.constrain.name);
        return false;
    }
    return true; /* an unknown op is reported with its call */
}

static AstNode *callee_call(CheckCtx *c, const AstNode *n, const AstNode *callee,
                            const Env *env, bool copy)
{
    AstBuilder b = {c->rf->arena, c->rf->names, n->src, false};
    if (callee->kind == AST_ALT) {
        AstNode *l = callee_call(c, n, callee->u.alt.left, env, copy);
        AstNode *r = l ? callee_call(c, n, callee->u.alt.right, env, true) : NULL;
        if (!r)
            return NULL;
        AstNode *alt = ast_new(&b, AST_ALT, n->range);
        alt->u.alt.left = l;
        alt->u.alt.right = r;
        ast_update_depth(alt);
        return alt;
    }
    if (is_trait(callee)) {
        const AstNode *op = callee->u.constrain.operand;
        return callee_trait(c, n, callee) ? callee_call(c, n, op, env, copy) : NULL;
    }
    if (callee->kind == AST_FNLIT) { /* stays: matched by lower_pattern's fn_callee */
        if (callee == n->u.call.body)
            return expand_children(c, (AstNode *)n, env, copy);
        AstNode *call = ast_clone(c->rf->arena, n);
        call->u.call.body = (AstNode *)callee;
        return expand_children(c, call, env, true);
    }
    if (callee->kind != AST_OPVALUE && callee->kind != AST_VAR && callee->kind != AST_WILDCARD) {
        diag_error(c->d, callee->src, callee->range,
                   "a callee pattern is an op value (op NAME), alternatives of them, a "
                   "function pattern, a name or _");
        return NULL;
    }
    AstNode *call = ast_new(&b, callee->kind == AST_WILDCARD ? AST_ANYCALL : AST_CALL, n->range);
    call->u.call = n->u.call;
    call->u.call.body = NULL;
    call->u.call.syntax = CALL_PREFIX;
    call->u.call.name = callee->kind == AST_VAR ? callee->u.var.name
                        : callee->kind == AST_WILDCARD ? interner_cstr(c->rf->names, "_")
                                                       : callee->u.call.name;
    call->u.call.name_range = callee->kind == AST_OPVALUE ? callee->u.call.name_range
                                                          : callee->range;
    ast_update_depth(call);
    return expand(c, call, env, copy);
}

static AstNode *expand(CheckCtx *c, AstNode *n, const Env *env, bool copy)
{
    if (c->expand_reported || diag_gave_up(c->d))
        return NULL; /* over a bound, or errors no longer shown: stop at once */
    /* note [expansion work]: inside a macro every node visited is charged,
     * not only those copied: a body that fails (an unknown op, say) makes
     * no copies, yet "let a1 = q(a0, a0)" thirty deep would walk 2^30
     * nodes.  A body that succeeds is copied node for node, so the charge
     * is the same as counting copies. */
    if (c->macro_depth > 0 && !take_budget(c))
        return NULL;
    switch (n->kind) {
    case AST_VAR:
        return expand_var(c, n, env, copy);
    case AST_CALL:
        return expand_call(c, n, env, copy);
    case AST_OPTIONAL: case AST_REPEAT:
        return expand_unary_op(c, n, env, copy);
    case AST_CLASS:
        return expand_class(c, n, env, copy);
    case AST_FNCALL:
        return expand_fncall(c, n, env, copy);
    case AST_ANYCALL:
        return expand_anycall(c, n, env, copy);
    case AST_FNLIT:
        return expand_fncall(c, n, env, copy);
    case AST_OPVALUE:
        return check_opvalue(c, n) ? n : NULL;
    case AST_CALLPAT:
        return callee_call(c, n, n->u.call.body, env, copy);
    case AST_CONSTRAIN:
        if (is_trait(n)) {
            diag_error(c->d, n->src, n->range, "a trait <%s> constrains only a callee: "
                       "(op NAME:<%s>)(...)", n->u.constrain.name, n->u.constrain.name);
            return NULL;
        }
        return expand_children(c, n, env, copy);
    default:
        return expand_children(c, n, env, copy);
    }
}

AstNode *check_expand_pattern(CheckCtx *c, AstNode *pattern)
{
    c->macro_depth = 0;
    c->level = 1;
    /* The limit is for what macros add: a pattern nested deeper as
     * written (within rule-depth) may stay that deep. */
    uint64_t written = (uint64_t)pattern->depth - 1;
    c->max_levels = written > c->limits->macro_depth ? written : c->limits->macro_depth;
    c->expand_budget = (long long)c->limits->macro_nodes;
    c->expand_reported = false;
    AstNode *out = expand(c, pattern, NULL, false);
    if (out == pattern) /* no macro was expanded: nothing is shared */
        return out;
    return out && charge_tree(c, out) ? out : NULL;
}
