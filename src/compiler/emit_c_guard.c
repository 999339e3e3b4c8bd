/* emit_c_guard.c - a where-clause as a C function (the graft_rule hook
 * guard_fn).
 *
 * A guard becomes one boolean C expression over the bindings, made of
 * the guard-value helpers of graft_rules.h, with operands nested too deep
 * for a C compiler written first as temporaries (note [flat guards]);
 * literal parts (list texts, elements of literal lists) are folded here.
 */
#include "emit_c_impl.h"

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

/* Canonical text of a literal list, as the interpreter compares it
 * (match_guard.c's key): its items as pattern_guard_key writes them. */
static void literal_key(const graft_expr *x, StrBuf *sb)
{
    switch (x->kind) {
    case GRAFT_EXPR_NUM:
        pattern_number_key(x->f, sb);
        return;
    case GRAFT_EXPR_BOOL:
        pattern_number_key((double)x->i, sb);
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
    char *fn = emit_fn_finish(E, &h);
    strbuf_free(&body);
    strbuf_free(&name);
    strbuf_free(&comment);
    strbuf_free(&c.temps);
    return fn;
}
