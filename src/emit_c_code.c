/* emit_c_code.c - guards and actions as C functions (the RuleDesc hooks
 * guard_fn and build_fn).
 *
 * A guard becomes one boolean C expression over the bindings, made of
 * the guard-value helpers of emit_c_rt.h; literal parts (list texts,
 * elements of literal lists) are folded here.  An action becomes
 * straight-line code that creates the new nodes operands first, in the
 * order the interpreter creates them, so node ids and so the printed
 * output are the same.
 */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

static const char *const cmp_ops[] = {
    [CMP_EQ] = "CMP_EQ", [CMP_NE] = "CMP_NE", [CMP_LT] = "CMP_LT",
    [CMP_LE] = "CMP_LE", [CMP_GT] = "CMP_GT", [CMP_GE] = "CMP_GE",
};

/* Whether every node of guard x is a kind guard_val / guard_bool know;
 * otherwise the guard stays interpreted (guard_fn NULL). */
static bool guard_known(const PatExpr *x)
{
    if (x->kind > EXPR_ATTR || x->kind == EXPR_CALL || x->kind == EXPR_TUPLE)
        return false;
    if (x->kind == EXPR_CMP && (x->cmp < CMP_EQ || x->cmp > CMP_GE))
        return false;
    for (int i = 0; i < x->nkids; i++)
        if (x->kind != EXPR_LIST && !guard_known(x->kids[i]))
            return false;
    return true;
}

/* The same for actions: new constants, calls, tuples, element access and
 * bound variables (build_fn NULL otherwise). */
static bool action_known(const PatExpr *x)
{
    if (x->kind != EXPR_SLOT && x->kind != EXPR_NUM && x->kind != EXPR_CALL &&
        x->kind != EXPR_TUPLE && x->kind != EXPR_GETITEM)
        return false;
    for (int i = 0; i < x->nkids; i++)
        if (!action_known(x->kids[i]))
            return false;
    for (int i = 0; i < x->nattrs; i++)
        if (x->attrs[i].src != ASRC_COPY && x->attrs[i].src != ASRC_EXPR)
            return false;
    return true;
}

/* ---- #line ---- */

void emit_line_to_rule(Emitter *E, const SrcRange *where, const char *file)
{
    if (!E->opts->line_directives || !where || !file)
        return;
    StrBuf sb = {0};
    emit_c_string(&sb, file);
    fprintf(E->out, "#line %d %s\n", where->first_line, sb.data);
    E->line++;
    strbuf_free(&sb);
}

void emit_line_back(Emitter *E)
{
    if (!E->opts->line_directives)
        return;
    StrBuf sb = {0};
    emit_c_string(&sb, E->opts->out_name ? E->opts->out_name : "<stdout>");
    E->line++;
    fprintf(E->out, "#line %ld %s\n", E->line + 1, sb.data);
    strbuf_free(&sb);
}

/* ---- guards ---- */

static void guard_bool(Emitter *E, const PatExpr *x, StrBuf *sb);

/* Canonical text of a literal list, as the interpreter compares it. */
static void literal_key(const PatExpr *x, StrBuf *sb)
{
    switch (x->kind) {
    case EXPR_NUM:
        strbuf_printf(sb, "%.17g", x->f == 0 ? 0.0 : x->f);
        return;
    case EXPR_BOOL:
        strbuf_printf(sb, "%.17g", (double)x->i);
        return;
    case EXPR_STR:
    case EXPR_DTYPE:
        strbuf_printf(sb, "\"%s\"", x->s);
        return;
    case EXPR_LIST:
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
    [EXPR_USERS] = "gv_users", [EXPR_RANK] = "gv_rank", [EXPR_DTYPEOF] = "gv_dtype",
    [EXPR_SHAPE] = "gv_shape", [EXPR_VALUE] = "gv_value",
};

/* x as a C expression of type GuardVal, appended to sb. */
static void guard_val(Emitter *E, const PatExpr *x, StrBuf *sb)
{
    switch (x->kind) {
    case EXPR_NUM:
        strbuf_puts(sb, "gv_num(");
        emit_c_double(sb, x->f);
        strbuf_putc(sb, ')');
        return;
    case EXPR_BOOL:
        strbuf_printf(sb, "gv_num(%s)", x->i ? "1.0" : "0.0");
        return;
    case EXPR_STR:
    case EXPR_DTYPE:
        strbuf_puts(sb, "gv_str(");
        emit_c_string(sb, x->s);
        strbuf_putc(sb, ')');
        return;
    case EXPR_LIST: {
        StrBuf k = {0};
        literal_key(x, &k);
        strbuf_puts(sb, "gv_list(");
        emit_c_string(sb, k.data);
        strbuf_putc(sb, ')');
        strbuf_free(&k);
        return;
    }
    case EXPR_SLOT:
        strbuf_printf(sb, "gv_slot(&b[%d])", x->slot);
        return;
    case EXPR_GETITEM:
        if (x->kids[0]->kind == EXPR_LIST) { /* [a, b][i]: folded */
            if (x->i >= 0 && x->i < x->kids[0]->nkids)
                guard_val(E, x->kids[0]->kids[x->i], sb);
            else
                strbuf_puts(sb, "gv_unknown()");
            return;
        }
        strbuf_puts(sb, "gv_index(");
        guard_val(E, x->kids[0], sb);
        strbuf_printf(sb, ", %lld)", (long long)x->i);
        return;
    case EXPR_ARITH:
        if (x->cmp == 'n') {
            strbuf_puts(sb, "gv_neg(");
            guard_val(E, x->kids[0], sb);
            strbuf_putc(sb, ')');
            return;
        }
        strbuf_printf(sb, "gv_arith('%c', ", x->cmp);
        guard_val(E, x->kids[0], sb);
        strbuf_puts(sb, ", ");
        guard_val(E, x->kids[1], sb);
        strbuf_putc(sb, ')');
        return;
    case EXPR_NOT:
    case EXPR_AND:
    case EXPR_OR:
    case EXPR_CMP:
        strbuf_puts(sb, "gv_num(");
        guard_bool(E, x, sb);
        strbuf_putc(sb, ')');
        return;
    case EXPR_USERS:
    case EXPR_RANK:
    case EXPR_DTYPEOF:
    case EXPR_SHAPE:
    case EXPR_VALUE:
        strbuf_printf(sb, "%s(&b[%d])", query_fns[x->kind], x->slot);
        return;
    case EXPR_ATTR:
        strbuf_printf(sb, "gv_attr(&b[%d], ", x->slot);
        emit_c_string(sb, x->s);
        strbuf_printf(sb, ", %s%s)", x->attr ? "&" : "",
                      x->attr ? emit_attr_value(E, x->attr) : "NULL");
        return;
    default:
        strbuf_puts(sb, "gv_unknown()");
        return;
    }
}

/* x as a C expression of type bool, appended to sb. */
static void guard_bool(Emitter *E, const PatExpr *x, StrBuf *sb)
{
    switch (x->kind) {
    case EXPR_NOT:
        strbuf_puts(sb, "!");
        guard_bool(E, x->kids[0], sb);
        return;
    case EXPR_AND:
    case EXPR_OR:
        strbuf_putc(sb, '(');
        guard_bool(E, x->kids[0], sb);
        strbuf_puts(sb, x->kind == EXPR_AND ? " && " : " || ");
        guard_bool(E, x->kids[1], sb);
        strbuf_putc(sb, ')');
        return;
    case EXPR_CMP:
        strbuf_printf(sb, "gv_cmp(%s, ", cmp_ops[x->cmp]);
        guard_val(E, x->kids[0], sb);
        strbuf_puts(sb, ", ");
        guard_val(E, x->kids[1], sb);
        strbuf_putc(sb, ')');
        return;
    default:
        strbuf_puts(sb, "gv_truth(");
        guard_val(E, x, sb);
        strbuf_putc(sb, ')');
        return;
    }
}

char *emit_guard_fn(Emitter *E, uint32_t r)
{
    const RuleDesc *rule = &E->rs->rules[r];
    if (!rule->guard || !guard_known(rule->guard))
        return NULL;
    StrBuf body = {0}, name = {0};
    guard_bool(E, rule->guard, &body); /* writes attribute defaults first */
    strbuf_printf(&name, "%s_guard", E->prefix);
    const AstRule *ar = E->rf->rules[r];
    emit_line(E, "/* where-clause of %s */", rule->name);
    emit_line(E, "static bool %s(const Graph *g, const Binding *b)", name.data);
    emit_line(E, "{");
    E->indent++;
    emit_line(E, "(void)g;");
    emit_line_to_rule(E, ar->guard ? &ar->guard->range : NULL, rule->file);
    emit_line(E, "return %s;", body.data);
    emit_line_back(E);
    E->indent--;
    emit_line(E, "}");
    emit_blank(E);
    strbuf_free(&body);
    return name.data;
}

/* ---- actions ---- */

/* State of one action being written: temporaries are numbered. */
typedef struct BuildCtx {
    Emitter *E;  /* where to write */
    int temps;   /* nodes made so far */
    int lists;   /* attribute lists made so far */
} BuildCtx;

static void build_node(BuildCtx *c, const PatExpr *x, StrBuf *out);

/* The value of name=EXPR in a new op call, as a C expression. */
static void build_attr_value(BuildCtx *c, const PatExpr *x, StrBuf *sb)
{
    if (x->kind == EXPR_SLOT)
        strbuf_printf(sb, "rt_attr_slot(g, &b[%d])", x->slot);
    else if (x->kind == EXPR_ATTR) {
        strbuf_printf(sb, "rt_attr_of(g, &b[%d], ", x->slot);
        emit_c_string(sb, x->s);
        strbuf_printf(sb, ", %s%s)", x->attr ? "&" : "",
                      x->attr ? emit_attr_value(c->E, x->attr) : "NULL");
    } else if (x->attr)
        strbuf_printf(sb, "rt_attr_copy(g, &%s)", emit_attr_value(c->E, x->attr));
    else
        strbuf_puts(sb, "NULL");
}

/* Writes the statements collecting the attributes of call x into list
 * "attrsN"; returns N, or -1 when the call has none. */
static int build_attrs(BuildCtx *c, const PatExpr *x, StrBuf *stmts)
{
    if (!x->nattrs)
        return -1;
    int n = c->lists++;
    StrBuf sb = {0};
    for (int i = 0; i < x->nattrs; i++) {
        const PatActAttr *a = &x->attrs[i];
        sb.len = 0;
        if (a->src == ASRC_COPY)
            strbuf_printf(&sb, "rt_attrs_copy(&attrs%d, b[%d].node);", n, a->slot);
        else {
            strbuf_printf(&sb, "rt_attrs_put(&attrs%d, ", n);
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

/* Writes the statements making the operands of x; their node
 * expressions go to args, comma separated. */
static void build_operands(BuildCtx *c, const PatExpr *x, StrBuf *args)
{
    for (int i = 0; i < x->nkids; i++) {
        if (i)
            strbuf_puts(args, ", ");
        build_node(c, x->kids[i], args);
    }
}

/* "(Node *const[]){a, b}, 2" for the operands, or "NULL, 0". */
static void operand_array(const PatExpr *x, const StrBuf *args, StrBuf *out)
{
    if (x->nkids)
        strbuf_printf(out, "(Node *const[]){%s}, %d", args->data, x->nkids);
    else
        strbuf_puts(out, "NULL, 0");
}

/* Writes the statements of a new op call nT with its attributes. */
static void build_call(BuildCtx *c, const PatExpr *x, const StrBuf *args, int t)
{
    Emitter *E = c->E;
    StrBuf stmts = {0}, ops = {0}, op = {0};
    operand_array(x, args, &ops);
    int list = build_attrs(c, x, &stmts);
    if (list < 0) {
        emit_line(E, "Node *n%d = graph_add_call(g, %s, %s, NULL, 0);", t, emit_str(&op, x->s),
                  ops.data);
    } else {
        emit_line(E, "RtAttrs attrs%d = {0};", list);
        for (char *line = stmts.data, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
            *nl = '\0';
            emit_line(E, "%s", line);
        }
        emit_line(E, "Node *n%d = graph_add_call(g, %s, %s, attrs%d.attrs, attrs%d.n);", t,
                  emit_str(&op, x->s), ops.data, list, list);
        emit_line(E, "rt_attrs_free(&attrs%d);", list);
    }
    strbuf_free(&stmts);
    strbuf_free(&ops);
    strbuf_free(&op);
}

/* Writes the statement creating the node of x, named nT; appends nT. */
static void build_new(BuildCtx *c, const PatExpr *x, StrBuf *out)
{
    Emitter *E = c->E;
    StrBuf args = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    build_operands(c, x, &args);
    int t = c->temps++;
    if (x->kind == EXPR_NUM) {
        emit_line(E, "Node *n%d = graph_add_const(g, %s, %s, %s);", t, emit_str(&s1, x->text),
                  emit_dbl(&s2, x->f), emit_str(&s3, x->dtype));
    } else if (x->kind == EXPR_CALL) {
        build_call(c, x, &args, t);
    } else if (x->kind == EXPR_TUPLE) {
        operand_array(x, &args, &s1);
        emit_line(E, "Node *n%d = graph_add_tuple(g, %s);", t, s1.data);
    } else {
        emit_line(E, "Node *n%d = graph_add_getitem(g, %s, %lld);", t, args.data,
                  (long long)x->i);
    }
    strbuf_printf(out, "n%d", t);
    strbuf_free(&args);
    strbuf_free(&s1);
    strbuf_free(&s2);
    strbuf_free(&s3);
}

/* The node expression of x; statements creating nodes are written first. */
static void build_node(BuildCtx *c, const PatExpr *x, StrBuf *out)
{
    if (x->kind == EXPR_SLOT)
        strbuf_printf(out, "b[%d].node", x->slot);
    else
        build_new(c, x, out);
}

char *emit_build_fn(Emitter *E, uint32_t r)
{
    const RuleDesc *rule = &E->rs->rules[r];
    if (rule->kind != ACTION_REWRITE || !rule->action || !action_known(rule->action))
        return NULL;
    StrBuf name = {0};
    strbuf_printf(&name, "%s_build", E->prefix);
    const AstRule *ar = E->rf->rules[r];
    emit_line(E, "/* action of %s: builds the replacement of root */", rule->name);
    emit_line(E, "static Node *%s(Graph *g, const Binding *b, Node *root)", name.data);
    emit_line(E, "{");
    E->indent++;
    if (rule->action->kind == EXPR_SLOT)
        emit_line(E, "(void)g;");
    emit_line(E, "(void)root;");
    emit_line_to_rule(E, ar->action ? &ar->action->range : NULL, rule->file);
    BuildCtx c = {.E = E};
    StrBuf result = {0};
    build_node(&c, rule->action, &result);
    emit_line(E, "return %s;", result.data);
    emit_line_back(E);
    E->indent--;
    emit_line(E, "}");
    emit_blank(E);
    strbuf_free(&result);
    return name.data;
}
