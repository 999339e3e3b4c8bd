/* emit_c_code.c - guards and actions as C functions (the graft_rule hooks
 * guard_fn and build_fn).
 *
 * A guard becomes one boolean C expression over the bindings, made of
 * the guard-value helpers of graft_rules.h, with operands nested too deep
 * for a C compiler written first as temporaries (note [flat guards]);
 * literal parts (list texts, elements of literal lists) are folded here.
 * An action becomes straight-line code that creates the new nodes
 * operands first, in the order the interpreter creates them, so node ids
 * and so the printed output are the same.
 */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

static const char *const cmp_ops[] = {
    [GRAFT_CMP_EQ] = "GRAFT_CMP_EQ", [GRAFT_CMP_NE] = "GRAFT_CMP_NE",
    [GRAFT_CMP_LT] = "GRAFT_CMP_LT", [GRAFT_CMP_LE] = "GRAFT_CMP_LE",
    [GRAFT_CMP_GT] = "GRAFT_CMP_GT", [GRAFT_CMP_GE] = "GRAFT_CMP_GE",
};

/* Whether every node of guard x is a kind guard_val / guard_bool know;
 * otherwise the guard stays interpreted (guard_fn NULL). */
static bool guard_known(const graft_expr *x)
{
    if (x->kind > GRAFT_EXPR_ATTR || x->kind == GRAFT_EXPR_CALL || x->kind == GRAFT_EXPR_TUPLE)
        return false;
    if (x->kind == GRAFT_EXPR_CMP && (x->cmp < GRAFT_CMP_EQ || x->cmp > GRAFT_CMP_GE))
        return false;
    for (int i = 0; i < x->nkids; i++)
        if (x->kind != GRAFT_EXPR_LIST && !guard_known(x->kids[i]))
            return false;
    return true;
}

/* The same for actions: new constants, calls, tuples, element access and
 * bound variables (build_fn NULL otherwise). */
static bool action_known(const graft_expr *x)
{
    if (x->kind != GRAFT_EXPR_SLOT && x->kind != GRAFT_EXPR_NUM && x->kind != GRAFT_EXPR_CALL &&
        x->kind != GRAFT_EXPR_TUPLE && x->kind != GRAFT_EXPR_GETITEM)
        return false;
    for (int i = 0; i < x->nkids; i++)
        if (!action_known(x->kids[i]))
            return false;
    for (int i = 0; i < x->nattrs; i++) {
        if (x->attrs[i].src != GRAFT_ASRC_COPY && x->attrs[i].src != GRAFT_ASRC_EXPR)
            return false;
        graft_expr_kind k =
            x->attrs[i].src == GRAFT_ASRC_EXPR ? x->attrs[i].value->kind : GRAFT_EXPR_SLOT;
        if (k != GRAFT_EXPR_SLOT && k != GRAFT_EXPR_ATTR && !x->attrs[i].value->attr)
            return false; /* computed (note [computed attributes]): interpreted */
    }
    return true;
}

/* ---- bindings and functions ---- */

const char *emit_var(Emitter *E, int slot)
{
    E->var_used[slot] = true;
    return E->vars[slot];
}

/* The function being finished: what finish_fn writes. */
typedef struct FnHead {
    const char *comment;  /* what it computes, for the comment above it */
    const char *hint;     /* the name wanted */
    const char *ret;      /* return type, "bool" or "graft_node *" */
    const char *params;   /* "(const graft_graph *g, const graft_binding *b)" */
    int nslots;           /* the rule's slots: candidates for locals */
} FnHead;

/* The declarations opening a function: a local per binding its body
 * reads, "const Binding *const v_x = &b[1];", or "(void)b;". */
static void fn_locals(const Emitter *E, int nslots, StrBuf *locals)
{
    for (int i = 0; i < nslots; i++)
        if (E->var_used[i])
            strbuf_printf(locals, "const graft_binding *const %s = &b[%d];\n", E->vars[i], i);
    if (!locals->len)
        strbuf_puts(locals, "(void)b;\n");
}

/* Writes function name: comment, signature, locals, the collected body. */
static void write_fn(Emitter *E, const FnHead *h, const char *name, const char *locals)
{
    bool ptr = h->ret[strlen(h->ret) - 1] == '*';
    emit_line(E, "/* %s */", h->comment);
    emit_line(E, "static %s%s%s%s", h->ret, ptr ? "" : " ", name, h->params);
    emit_line(E, "{");
    E->indent = 1;
    for (const char *line = locals, *nl; (nl = strchr(line, '\n')); line = nl + 1)
        emit_line(E, "%.*s", (int)(nl - line), line);
    emit_body_end(E);
    E->indent = 0;
    emit_line(E, "}");
    emit_blank(E);
}

/* Ends a function whose statements emit_body_begin collected (at indent
 * 1) and returns its name (malloc'd).  A function identical to one
 * written before, #line aside, is not written again (note [one
 * definition]): the comment names the one written. */
static char *finish_fn(Emitter *E, const FnHead *h)
{
    StrBuf key = {0}, locals = {0};
    E->in_body = false;
    E->indent = 0;
    fn_locals(E, h->nslots, &locals);
    strbuf_printf(&key, "function %s%s\n%s", h->ret, h->params, locals.data);
    for (size_t i = 0; i < E->nbody; i++)
        if (E->body[i].text)
            strbuf_printf(&key, "%d %s\n", E->body[i].indent, E->body[i].text);
    if (E->defs.count != E->defs_before) /* constants went out ahead */
        emit_blank(E);
    const char *have = strtable_get(&E->defs, key.data);
    if (have) {
        for (size_t i = 0; i < E->nbody; i++)
            free(E->body[i].text);
        E->nbody = 0;
        emit_line(E, "/* %s: %s, written above */", h->comment, have);
        emit_blank(E);
    } else {
        have = emit_unique(E, h->hint);
        strtable_put(&E->defs, key.data, have);
        write_fn(E, h, have, locals.data);
    }
    char *name = xstrdup(have);
    strbuf_free(&key);
    strbuf_free(&locals);
    return name;
}

/* ---- guards ---- */

/* note [flat guards]:
 * A guard is one C expression only while it is shallow.  C11 (5.2.4.1)
 * promises just 63 levels of parenthesized expression, clang stops at 256
 * brackets, and a where-clause may nest as deep as the rule-depth limit
 * (up to 4096).  So an operand whose text nests deeper than
 * GUARD_MAX_NEST - GUARD_NODE_NEST levels goes to an earlier statement of
 * the guard function, "const graft_guard_val tN = ...;" or "const bool tN = ...;",
 * and its parent uses tN.  Temporaries are numbered in the order they are
 * evaluated (operands first, left to right).  They are computed before the
 * return, so an operand of && or || that was spilled is evaluated even when
 * the other side already decides: the gv_* helpers are pure and NULL-safe
 * (emit_c_rt.c), so the result is the same, only that work is not skipped.
 * A guard needing no temporary is written as before, short-circuit intact.
 */
enum {
    /* Levels of '(', '[' and '!' in one statement of a guard function:
     * half of what C11 guarantees (63), an eighth of clang's 256. */
    GUARD_MAX_NEST = 32,
    /* The most one guard node adds around its operands:
     * "gv_num(gv_cmp(", "gv_num((a && b)", "gv_truth(gv_neg(". */
    GUARD_NODE_NEST = 2,
};

/* State of one guard being written. */
typedef struct GuardCtx {
    Emitter *E;    /* where attribute defaults are written */
    StrBuf temps;  /* statements defining the temporaries, one a line */
    int ntemps;    /* temporaries so far: the next is t<ntemps> */
} GuardCtx;

static int guard_val(GuardCtx *c, const graft_expr *x, StrBuf *sb);
static int guard_bool(GuardCtx *c, const graft_expr *x, StrBuf *sb);

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* Canonical text of a literal list, as the interpreter compares it. */
static void literal_key(const graft_expr *x, StrBuf *sb)
{
    switch (x->kind) {
    case GRAFT_EXPR_NUM:
        strbuf_printf(sb, "%.17g", x->f == 0 ? 0.0 : x->f);
        return;
    case GRAFT_EXPR_BOOL:
        strbuf_printf(sb, "%.17g", (double)x->i);
        return;
    case GRAFT_EXPR_STR:
    case GRAFT_EXPR_DTYPE:
        strbuf_printf(sb, "\"%s\"", x->s);
        return;
    case GRAFT_EXPR_LIST:
        strbuf_putc(sb, '[');
        for (int i = 0; i < x->nkids; i++) {
            if (i)
                strbuf_puts(sb, ", ");
            literal_key(x->kids[i], sb);
        }
        strbuf_putc(sb, ']');
        return;
    default:
        strbuf_puts(sb, "?");
        return;
    }
}

static const char *const query_fns[] = {
    [GRAFT_EXPR_USERS] = "graft_gv_users", [GRAFT_EXPR_RANK] = "graft_gv_rank",
    [GRAFT_EXPR_DTYPEOF] = "graft_gv_dtype", [GRAFT_EXPR_SHAPE] = "graft_gv_shape",
    [GRAFT_EXPR_VALUE] = "graft_gv_value",
};

/* Writes operand x of a guard node to sb as a graft_guard_val, or as a bool when
 * as_bool; one nesting too deep becomes a temporary (note [flat guards]).
 * Returns the nesting of what sb got. */
static int guard_operand(GuardCtx *c, const graft_expr *x, bool as_bool, StrBuf *sb)
{
    size_t start = sb->len;
    int nest = as_bool ? guard_bool(c, x, sb) : guard_val(c, x, sb);
    if (nest <= GUARD_MAX_NEST - GUARD_NODE_NEST)
        return nest;
    strbuf_printf(&c->temps, "const %s t%d = %s;\n", as_bool ? "bool" : "graft_guard_val",
                  c->ntemps, sb->data + start);
    sb->len = start;
    sb->data[start] = '\0';
    strbuf_printf(sb, "t%d", c->ntemps++);
    return 0;
}

/* A literal x as a graft_guard_val expression; returns its nesting (1). */
static int guard_literal(const graft_expr *x, StrBuf *sb)
{
    if (x->kind == GRAFT_EXPR_NUM) {
        strbuf_puts(sb, "graft_gv_num(");
        emit_c_double(sb, x->f);
        strbuf_putc(sb, ')');
    } else if (x->kind == GRAFT_EXPR_BOOL) {
        strbuf_printf(sb, "graft_gv_num(%s)", x->i ? "1.0" : "0.0");
    } else if (x->kind == GRAFT_EXPR_LIST) {
        StrBuf k = {0};
        literal_key(x, &k);
        strbuf_puts(sb, "graft_gv_list(");
        emit_c_string(sb, k.data);
        strbuf_putc(sb, ')');
        strbuf_free(&k);
    } else { /* GRAFT_EXPR_STR, GRAFT_EXPR_DTYPE */
        strbuf_puts(sb, "graft_gv_str(");
        emit_c_string(sb, x->s);
        strbuf_putc(sb, ')');
    }
    return 1;
}

/* x[i] as a graft_guard_val expression; returns its nesting. */
static int guard_index(GuardCtx *c, const graft_expr *x, StrBuf *sb)
{
    if (x->kids[0]->kind == GRAFT_EXPR_LIST) { /* [a, b][i]: folded */
        if (x->i >= 0 && x->i < x->kids[0]->nkids)
            return guard_val(c, x->kids[0]->kids[x->i], sb);
        strbuf_puts(sb, "graft_gv_unknown()");
        return 1;
    }
    if (x->kids[0]->kind == GRAFT_EXPR_VALUE) { /* value(p)[i]: an element of a constant */
        strbuf_printf(sb, "graft_gv_value_at(%s, %lld)", emit_var(c->E, x->kids[0]->slot),
                      (long long)x->i);
        return 1;
    }
    strbuf_puts(sb, "graft_gv_index(");
    int nest = guard_operand(c, x->kids[0], false, sb);
    strbuf_printf(sb, ", %lld)", (long long)x->i);
    return nest + 1;
}

/* -x or x OP y as a graft_guard_val expression; returns its nesting. */
static int guard_arith(GuardCtx *c, const graft_expr *x, StrBuf *sb)
{
    if (x->cmp == 'n') {
        strbuf_puts(sb, "graft_gv_neg(");
        int nest = guard_operand(c, x->kids[0], false, sb);
        strbuf_putc(sb, ')');
        return nest + 1;
    }
    strbuf_printf(sb, "graft_gv_arith('%c', ", x->cmp);
    int nest = guard_operand(c, x->kids[0], false, sb);
    strbuf_puts(sb, ", ");
    nest = max_int(nest, guard_operand(c, x->kids[1], false, sb));
    strbuf_putc(sb, ')');
    return nest + 1;
}

/* x as a C expression of type graft_guard_val, appended to sb; returns how deep
 * its '(' '[' '!' nest (note [flat guards]). */
static int guard_val(GuardCtx *c, const graft_expr *x, StrBuf *sb)
{
    switch (x->kind) {
    case GRAFT_EXPR_NUM:
    case GRAFT_EXPR_BOOL:
    case GRAFT_EXPR_STR:
    case GRAFT_EXPR_DTYPE:
    case GRAFT_EXPR_LIST:
        return guard_literal(x, sb);
    case GRAFT_EXPR_SLOT:
        strbuf_printf(sb, "graft_gv_slot(%s)", emit_var(c->E, x->slot));
        return 1;
    case GRAFT_EXPR_GETITEM:
        return guard_index(c, x, sb);
    case GRAFT_EXPR_ARITH:
        return guard_arith(c, x, sb);
    case GRAFT_EXPR_NOT:
    case GRAFT_EXPR_AND:
    case GRAFT_EXPR_OR:
    case GRAFT_EXPR_CMP: {
        strbuf_puts(sb, "graft_gv_num(");
        int nest = guard_bool(c, x, sb);
        strbuf_putc(sb, ')');
        return nest + 1;
    }
    case GRAFT_EXPR_USERS:
    case GRAFT_EXPR_RANK:
    case GRAFT_EXPR_DTYPEOF:
    case GRAFT_EXPR_SHAPE:
    case GRAFT_EXPR_VALUE:
        strbuf_printf(sb, "%s(%s)", query_fns[x->kind], emit_var(c->E, x->slot));
        return 1;
    case GRAFT_EXPR_ATTR:
        strbuf_printf(sb, "graft_gv_attr(%s, ", emit_var(c->E, x->slot));
        emit_c_string(sb, x->s);
        strbuf_printf(sb, ", %s%s)", x->attr ? "&" : "",
                      x->attr ? emit_attr_value(c->E, x->attr) : "NULL");
        return 1;
    default:
        strbuf_puts(sb, "graft_gv_unknown()");
        return 1;
    }
}

/* x as a C expression of type bool, appended to sb; returns its nesting. */
static int guard_bool(GuardCtx *c, const graft_expr *x, StrBuf *sb)
{
    int nest;
    switch (x->kind) {
    case GRAFT_EXPR_NOT:
        strbuf_puts(sb, "!");
        return guard_operand(c, x->kids[0], true, sb) + 1;
    case GRAFT_EXPR_AND:
    case GRAFT_EXPR_OR:
        strbuf_putc(sb, '(');
        nest = guard_operand(c, x->kids[0], true, sb);
        strbuf_puts(sb, x->kind == GRAFT_EXPR_AND ? " && " : " || ");
        nest = max_int(nest, guard_operand(c, x->kids[1], true, sb));
        strbuf_putc(sb, ')');
        return nest + 1;
    case GRAFT_EXPR_CMP:
        strbuf_printf(sb, "graft_gv_cmp(%s, ", cmp_ops[x->cmp]);
        nest = guard_operand(c, x->kids[0], false, sb);
        strbuf_puts(sb, ", ");
        nest = max_int(nest, guard_operand(c, x->kids[1], false, sb));
        strbuf_putc(sb, ')');
        return nest + 1;
    default:
        strbuf_puts(sb, "graft_gv_truth(");
        nest = guard_val(c, x, sb);
        strbuf_putc(sb, ')');
        return nest + 1;
    }
}

/* Writes the statements of a guard function's body: the temporaries, each
 * under a #line to the where-clause, then "return body;". */
static void guard_body(Emitter *E, const GuardCtx *c, const char *body, const SrcRange *where,
                       const char *file)
{
    if (c->ntemps)
        emit_line(E, "/* operands nested too deep for one expression, computed first "
                     "(graft_gv_ helpers are pure) */");
    for (char *line = c->temps.data, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
        emit_line_to_rule(E, where, file);
        emit_line(E, "%.*s", (int)(nl - line), line);
    }
    emit_line_to_rule(E, where, file);
    emit_line(E, "return %s;", body);
    emit_line_back(E);
}

char *emit_guard_fn(Emitter *E, uint32_t r)
{
    const graft_rule *rule = &E->rs->rules[r];
    if (!rule->guard || !guard_known(rule->guard))
        return NULL;
    GuardCtx c = {.E = E};
    StrBuf body = {0}, name = {0}, comment = {0};
    strbuf_printf(&name, "%s_guard", E->prefix);
    strbuf_printf(&comment, "where-clause of %s", rule->name);
    const AstRule *ar = E->rf->rules[r];
    emit_body_begin(E);
    guard_bool(&c, rule->guard, &body);
    E->indent = 1;
    emit_line(E, "(void)g;");
    guard_body(E, &c, body.data, ar->guard ? &ar->guard->range : NULL, rule->file);
    FnHead h = {comment.data, name.data, "bool", "(const graft_graph *g, const graft_binding *b)",
                rule->nslots};
    char *fn = finish_fn(E, &h);
    strbuf_free(&body);
    strbuf_free(&name);
    strbuf_free(&comment);
    strbuf_free(&c.temps);
    return fn;
}

/* ---- actions ---- */

/* State of one action being written: temporaries are numbered. */
typedef struct BuildCtx {
    Emitter *E;  /* where to write */
    int temps;   /* nodes made so far */
    int lists;   /* attribute lists made so far */
    bool mapped; /* a statement was put under a #line into the rule file */
} BuildCtx;

/* note [line directives]: every statement that builds a node of an action
 * is preceded by a #line to the rule file's line that wrote the node, so
 * that a C compiler's message about it names that line.  One directive per
 * statement, since after a directive the compiler counts lines on from it
 * and two statements of one node would otherwise be placed on two lines;
 * the scaffolding after them (the return) is put back under the C file's
 * own line numbers.  tests/emit/header_lines.sh plants an error in a
 * statement of fold_bn.graft's action and checks where cc reports it. */
static void build_stmt(BuildCtx *c, const graft_expr *x, const char *fmt, ...)
    GRAFT_PRINTF(3, 4);

static void build_stmt(BuildCtx *c, const graft_expr *x, const char *fmt, ...)
{
    if (x->line > 0 && x->file) {
        SrcRange at = {x->line, 1, x->line, 1};
        emit_line_to_rule(c->E, &at, x->file);
        c->mapped = true;
    }
    va_list ap;
    va_start(ap, fmt);
    char *text = emit_vformat(fmt, ap);
    va_end(ap);
    emit_line(c->E, "%s", text);
    free(text);
}

static void build_node(BuildCtx *c, const graft_expr *x, StrBuf *out);

/* The value of name=EXPR in a new op call, as a C expression. */
static void build_attr_value(BuildCtx *c, const graft_expr *x, StrBuf *sb)
{
    if (x->kind == GRAFT_EXPR_SLOT)
        strbuf_printf(sb, "graft_attr_slot(g, %s)", emit_var(c->E, x->slot));
    else if (x->kind == GRAFT_EXPR_ATTR) {
        strbuf_printf(sb, "graft_attr_of(g, %s, ", emit_var(c->E, x->slot));
        emit_c_string(sb, x->s);
        strbuf_printf(sb, ", %s%s)", x->attr ? "&" : "",
                      x->attr ? emit_attr_value(c->E, x->attr) : "NULL");
    } else if (x->attr)
        strbuf_printf(sb, "graft_attr_copy(g, &%s)", emit_attr_value(c->E, x->attr));
    else
        strbuf_puts(sb, "NULL");
}

/* Whether the op of new call x declares an attribute without default:
 * one the action leaves out still gets None (note [created attributes]),
 * so the call needs an attribute list even when the action writes none. */
static bool decl_without_default(const graft_expr *x)
{
    for (int i = 0; i < x->ndecls; i++)
        if (!x->decls[i].dflt)
            return true;
    return false;
}

/* Writes the statements collecting the attributes of call x into list
 * "attrsN"; returns N, or -1 when the call has none. */
static int build_attrs(BuildCtx *c, const graft_expr *x, StrBuf *stmts)
{
    if (!x->nattrs && !decl_without_default(x))
        return -1;
    int n = c->lists++;
    StrBuf sb = {0};
    for (int i = 0; i < x->nattrs; i++) {
        const graft_act_attr *a = &x->attrs[i];
        sb.len = 0;
        if (a->src == GRAFT_ASRC_COPY)
            strbuf_printf(&sb, "graft_attrs_copy(&attrs%d, %s->node);", n,
                          emit_var(c->E, a->slot));
        else {
            strbuf_printf(&sb, "graft_attrs_put(&attrs%d, ", n);
            emit_c_string(&sb, a->name);
            strbuf_puts(&sb, ", ");
            build_attr_value(c, a->value, &sb);
            strbuf_puts(&sb, ");");
        }
        strbuf_printf(stmts, "%s\n", sb.data);
    }
    strbuf_free(&sb);
    return n;
}

/* A bound attribute value as an operand (note [attribute operands]). */
static bool attr_operand(const graft_expr *x)
{
    return x->kind == GRAFT_EXPR_SLOT && x->i == 1;
}

/* Writes the statements making the operands of x; their node
 * expressions go to args, comma separated.  When some are bound
 * attribute values, the operands go to an array "opsT" first, and those
 * are made from the others (as rewrite_build.c does); args is then
 * "opsT". */
static void build_operands(BuildCtx *c, const graft_expr *x, StrBuf *args)
{
    bool attrs = false;
    for (int i = 0; i < x->nkids; i++) {
        if (i)
            strbuf_puts(args, ", ");
        if (attr_operand(x->kids[i])) {
            strbuf_puts(args, "NULL");
            attrs = true;
        } else
            build_node(c, x->kids[i], args);
    }
    if (!attrs)
        return;
    int t = c->temps++;
    build_stmt(c, x, "graft_node *ops%d[] = {%s};", t, args->data);
    for (int i = 0; i < x->nkids; i++)
        if (attr_operand(x->kids[i]))
            build_stmt(c, x, "ops%d[%d] = graft_attr_operand(g, b[%d].attr, ops%d, %d, %d);", t,
                       i, x->kids[i]->slot, t, x->nkids, i);
    args->len = 0;
    strbuf_printf(args, "ops%d", t);
}

/* "(Node *const[]){a, b}, 2" for the operands, "opsT, 2" when
 * build_operands made an array, or "NULL, 0". */
static void operand_array(const graft_expr *x, const StrBuf *args, StrBuf *out)
{
    if (x->nkids && strncmp(args->data, "ops", 3) == 0)
        strbuf_printf(out, "%s, %d", args->data, x->nkids);
    else if (x->nkids)
        strbuf_printf(out, "(graft_node *const[]){%s}, %d", args->data, x->nkids);
    else
        strbuf_puts(out, "NULL, 0");
}

/* Writes the statements of a new op call nT with its attributes. */
static void build_call(BuildCtx *c, const graft_expr *x, const StrBuf *args, int t)
{
    Emitter *E = c->E;
    StrBuf stmts = {0}, ops = {0}, op = {0};
    operand_array(x, args, &ops);
    int list = build_attrs(c, x, &stmts);
    if (list < 0) {
        build_stmt(c, x, "graft_node *n%d = graft_add_call(g, %s, %s, NULL, 0);", t,
                   emit_str(&op, x->s), ops.data);
    } else {
        build_stmt(c, x, "graft_attr_list attrs%d = {0};", list);
        for (char *line = stmts.data, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
            *nl = '\0';
            build_stmt(c, x, "%s", line);
        }
        if (x->ndecls) /* note [created attributes] */
            build_stmt(c, x, "graft_attrs_canonical(&attrs%d, %s, %d);", list,
                       emit_decls(E, x), x->ndecls);
        build_stmt(c, x, "graft_node *n%d = graft_add_call(g, %s, %s, attrs%d.attrs, attrs%d.n);",
                   t, emit_str(&op, x->s), ops.data, list, list);
        build_stmt(c, x, "graft_attrs_free(&attrs%d);", list);
    }
    strbuf_free(&stmts);
    strbuf_free(&ops);
    strbuf_free(&op);
}

/* Writes the statement creating the node of x, named nT; appends nT. */
static void build_new(BuildCtx *c, const graft_expr *x, StrBuf *out)
{
    StrBuf args = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    build_operands(c, x, &args);
    int t = c->temps++;
    if (x->kind == GRAFT_EXPR_NUM) {
        build_stmt(c, x, "graft_node *n%d = graft_add_const(g, %s, %s, %s);", t,
                   emit_str(&s1, x->text), emit_dbl(&s2, x->f), emit_str(&s3, x->dtype));
    } else if (x->kind == GRAFT_EXPR_CALL) {
        build_call(c, x, &args, t);
    } else if (x->kind == GRAFT_EXPR_TUPLE) {
        operand_array(x, &args, &s1);
        build_stmt(c, x, "graft_node *n%d = graft_add_tuple(g, %s);", t, s1.data);
    } else {
        build_stmt(c, x, "graft_node *n%d = graft_add_getitem(g, %s, %lld);", t, args.data,
                   (long long)x->i);
    }
    strbuf_printf(out, "n%d", t);
    strbuf_free(&args);
    strbuf_free(&s1);
    strbuf_free(&s2);
    strbuf_free(&s3);
}

/* The node expression of x; statements creating nodes are written first. */
static void build_node(BuildCtx *c, const graft_expr *x, StrBuf *out)
{
    if (x->kind == GRAFT_EXPR_SLOT)
        strbuf_printf(out, "%s->node", emit_var(c->E, x->slot));
    else
        build_new(c, x, out);
}

/* An attribute given a bound variable (alpha=c) has no value when c holds
 * a node other than a scalar constant: the action then builds nothing
 * and returns NULL, as the interpreter's rewrite_computable refuses it
 * (note [computed attributes] in rewrite_build.c).  One test a slot;
 * fail is what the function returns then. */
static void emit_slot_checks(Emitter *E, const graft_expr *x, bool *done, const char *fail)
{
    for (int i = 0; i < x->nattrs; i++) {
        const graft_expr *v = x->attrs[i].value;
        if (x->attrs[i].src != GRAFT_ASRC_EXPR || v->kind != GRAFT_EXPR_SLOT || done[v->slot])
            continue;
        done[v->slot] = true;
        emit_line(E, "if (!graft_attr_slot_known(%s))", emit_var(E, v->slot));
        emit_line(E, "    return %s;", fail);
    }
    for (int i = 0; i < x->nkids; i++)
        emit_slot_checks(E, x->kids[i], done, fail);
}

/* Whether x is the action of a rule of several roots that gives each
 * root's value as a field of a tuple (note [root values] in
 * src/runtime/rewrite_build.c). */
static bool roots_tuple(const graft_rule *rule, const graft_expr *x)
{
    return rule->nroots && x->kind == GRAFT_EXPR_TUPLE && x->nkids == rule->nroots;
}

/* note [compiled roots] in emit_c_tables.c: the action of a rule of
 * several roots that is a tuple is a graft_build_roots_fn, each field
 * built in turn into by[j], as the runtime builds the tree's fields; any
 * other such action (split(...)) is an ordinary build function, whose
 * node's results the runtime gives the roots. */
char *emit_build_roots_fn(Emitter *E, uint32_t r)
{
    const graft_rule *rule = &E->rs->rules[r];
    const graft_expr *x = rule->action;
    if (!x || !roots_tuple(rule, x) || !action_known(x))
        return NULL;
    StrBuf name = {0}, comment = {0};
    strbuf_printf(&name, "%s_build", E->prefix);
    strbuf_printf(&comment, "action of %s: builds the value of each root", rule->name);
    emit_body_begin(E);
    E->indent = 1;
    bool makes = false;
    for (int j = 0; j < x->nkids; j++)
        makes = makes || x->kids[j]->kind != GRAFT_EXPR_SLOT;
    if (!makes)
        emit_line(E, "(void)g;");
    bool *checked = xcalloc((size_t)rule->nslots + 1, sizeof *checked);
    emit_slot_checks(E, x, checked, "false");
    free(checked);
    BuildCtx c = {.E = E};
    StrBuf *values = xcalloc((size_t)x->nkids, sizeof *values);
    for (int j = 0; j < x->nkids; j++)
        build_node(&c, x->kids[j], &values[j]);
    if (c.mapped) /* note [line directives] */
        emit_line_back(E);
    for (int j = 0; j < x->nkids; j++) {
        emit_line(E, "by[%d] = %s;", j, values[j].data);
        strbuf_free(&values[j]);
    }
    free(values);
    emit_line(E, "return true;");
    FnHead h = {comment.data, name.data, "bool",
                "(graft_graph *g, const graft_binding *b, graft_node **by)", rule->nslots};
    char *fn = finish_fn(E, &h);
    strbuf_free(&name);
    strbuf_free(&comment);
    return fn;
}

char *emit_build_fn(Emitter *E, uint32_t r)
{
    const graft_rule *rule = &E->rs->rules[r];
    if (rule->kind != GRAFT_ACTION_REWRITE || !rule->action || !action_known(rule->action))
        return NULL;
    if (roots_tuple(rule, rule->action)) /* emit_build_roots_fn's */
        return NULL;
    StrBuf name = {0}, comment = {0}, result = {0};
    strbuf_printf(&name, "%s_build", E->prefix);
    strbuf_printf(&comment, rule->nroots ? "action of %s: builds the node whose results "
                  "replace the roots" : "action of %s: builds the replacement of root",
                  rule->name);
    emit_body_begin(E);
    E->indent = 1;
    if (rule->action->kind == GRAFT_EXPR_SLOT)
        emit_line(E, "(void)g;");
    emit_line(E, "(void)root;");
    bool *checked = xcalloc((size_t)rule->nslots + 1, sizeof *checked);
    emit_slot_checks(E, rule->action, checked, "NULL");
    free(checked);
    BuildCtx c = {.E = E};
    build_node(&c, rule->action, &result);
    if (c.mapped) /* note [line directives] */
        emit_line_back(E);
    emit_line(E, "return %s;", result.data);
    FnHead h = {comment.data, name.data, "graft_node *",
                "(graft_graph *g, const graft_binding *b, graft_node *root)", rule->nslots};
    char *fn = finish_fn(E, &h);
    strbuf_free(&name);
    strbuf_free(&comment);
    strbuf_free(&result);
    return fn;
}
