/* emit_c_action.c - an action as a C function (the graft_rule hooks
 * build_fn and build_roots_fn).
 *
 * An action becomes straight-line code that creates the new nodes
 * operands first, in the order the interpreter creates them, so node ids
 * and so the printed output are the same.
 */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

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
 * are made from the others (as rewrite_build_operand.c does); args is then
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

/* "(graft_node *const[]){a, b}, 2" for the operands, "opsT, 2" when
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
    bool var_index = x->kind == GRAFT_EXPR_GETITEM && x->nkids == 2; /* t[i] */
    if (var_index) /* kids[1], the index variable, is no node */
        build_node(c, x->kids[0], &args);
    else
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
    } else if (var_index) { /* note [index variables] in check_vars.c */
        build_stmt(c, x, "graft_node *n%d = graft_add_getitem(g, %s, (int)%s->attr->i);", t,
                   args.data, emit_var(c->E, x->kids[1]->slot));
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

/* The rows of emit_slot_checks's tests, in its order: one a slot, at the
 * first attribute given it. */
static int slot_attr_rows(const graft_expr *x, bool *done, StrBuf *rows)
{
    int n = 0;
    for (int i = 0; i < x->nattrs; i++) {
        const graft_expr *v = x->attrs[i].value;
        if (x->attrs[i].src != GRAFT_ASRC_EXPR || v->kind != GRAFT_EXPR_SLOT || done[v->slot])
            continue;
        done[v->slot] = true;
        strbuf_putc(rows, '{');
        emit_c_string(rows, x->attrs[i].name);
        strbuf_puts(rows, ", ");
        if (x->s)
            emit_c_string(rows, x->s);
        else
            strbuf_puts(rows, "NULL");
        strbuf_printf(rows, ", %d},\n", v->slot);
        n++;
    }
    for (int i = 0; i < x->nkids; i++)
        n += slot_attr_rows(x->kids[i], done, rows);
    return n;
}

char *emit_slot_attrs(Emitter *E, uint32_t r, int *n)
{
    const graft_rule *rule = &E->rs->rules[r];
    StrBuf rows = {0}, hint = {0};
    bool *done = xcalloc((size_t)rule->nslots + 1, sizeof *done);
    strbuf_puts(&rows, "{\n");
    *n = slot_attr_rows(rule->action, done, &rows);
    strbuf_putc(&rows, '}');
    free(done);
    char *name = NULL;
    if (*n) {
        emit_line(E, "/* the attributes %s's action gives bound variables, for graft explain */",
                  rule->name);
        strbuf_printf(&hint, "%s_slot_attrs", E->prefix);
        name = xstrdup(emit_def(E, "graft_slot_attr", true, hint.data, rows.data));
        emit_blank(E);
    }
    strbuf_free(&rows);
    strbuf_free(&hint);
    return name;
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
    char *fn = emit_fn_finish(E, &h);
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
    char *fn = emit_fn_finish(E, &h);
    strbuf_free(&name);
    strbuf_free(&comment);
    strbuf_free(&result);
    return fn;
}
