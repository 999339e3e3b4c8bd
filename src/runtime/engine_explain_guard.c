/* engine_explain_guard.c - a guard that refused, every condition with
 * its values: "users(c) == 1 is 2 == 1: false". */
#include "engine_explain_impl.h"

#include <string.h>

#include "util.h"

/* ---- guards: every sub-expression's value ---- */

static const char *const cmp_text[] = {"==", "!=", "<", "<=", ">", ">="};

static const char *query_name(graft_expr_kind k)
{
    switch (k) {
    case GRAFT_EXPR_USERS: return "users";
    case GRAFT_EXPR_RANK: return "rank";
    case GRAFT_EXPR_DTYPEOF: return "dtype";
    case GRAFT_EXPR_SHAPE: return "shape";
    case GRAFT_EXPR_VALUE: return "value";
    default: return "attr";
    }
}

static void put_expr(Explainer *x, const graft_rule *rule, const graft_expr *e,
                     const graft_binding *b, bool values, StrBuf *out);

/* -a, or (a OP b) */
static void put_arith(Explainer *x, const graft_rule *rule, const graft_expr *e,
                      const graft_binding *b, bool values, StrBuf *out)
{
    if (e->cmp == 'n') {
        strbuf_putc(out, '-');
        put_expr(x, rule, e->kids[0], b, values, out);
        return;
    }
    strbuf_putc(out, '(');
    put_expr(x, rule, e->kids[0], b, values, out);
    strbuf_printf(out, " %c ", e->cmp);
    put_expr(x, rule, e->kids[1], b, values, out);
    strbuf_putc(out, ')');
}

/* Writes guard expression e: as written (values false), or with every
 * operand of a comparison or arithmetic replaced by its value. */
static void put_expr(Explainer *x, const graft_rule *rule, const graft_expr *e,
                     const graft_binding *b, bool values, StrBuf *out)
{
    bool leaf = e->kind != GRAFT_EXPR_AND && e->kind != GRAFT_EXPR_OR &&
                e->kind != GRAFT_EXPR_NOT && e->kind != GRAFT_EXPR_CMP &&
                e->kind != GRAFT_EXPR_ARITH;
    if (values && leaf) {
        graft_guard_val v = guard_value(e, b);
        guard_value_text(&v, b, out);
        return;
    }
    switch (e->kind) {
    case GRAFT_EXPR_NUM: pattern_number_key(e->f, out); break;
    case GRAFT_EXPR_BOOL: strbuf_puts(out, e->i ? "true" : "false"); break;
    case GRAFT_EXPR_STR: strbuf_printf(out, "\"%s\"", e->s); break;
    case GRAFT_EXPR_DTYPE: strbuf_puts(out, e->s); break;
    case GRAFT_EXPR_SLOT: strbuf_puts(out, rule->slot_names[e->slot]); break;
    case GRAFT_EXPR_LIST:
        strbuf_putc(out, '[');
        for (int i = 0; i < e->nkids; i++) {
            if (i)
                strbuf_puts(out, ", ");
            put_expr(x, rule, e->kids[i], b, values, out);
        }
        strbuf_putc(out, ']');
        break;
    case GRAFT_EXPR_GETITEM:
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_printf(out, "[%lld]", (long long)e->i);
        break;
    case GRAFT_EXPR_NOT:
        strbuf_putc(out, '!');
        put_expr(x, rule, e->kids[0], b, values, out);
        break;
    case GRAFT_EXPR_AND:
    case GRAFT_EXPR_OR:
        strbuf_putc(out, '(');
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_puts(out, e->kind == GRAFT_EXPR_AND ? " && " : " || ");
        put_expr(x, rule, e->kids[1], b, values, out);
        strbuf_putc(out, ')');
        break;
    case GRAFT_EXPR_CMP:
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_printf(out, " %s ", cmp_text[e->cmp]);
        put_expr(x, rule, e->kids[1], b, values, out);
        break;
    case GRAFT_EXPR_ARITH:
        put_arith(x, rule, e, b, values, out);
        break;
    case GRAFT_EXPR_ATTR:
        strbuf_printf(out, "attr(%s, %s)", rule->slot_names[e->slot], e->s);
        break;
    default:
        strbuf_printf(out, "%s(%s)", query_name(e->kind), rule->slot_names[e->slot]);
        break;
    }
}

/* One line per condition of the guard (the operands of && || and !):
 * "users(c) == 1 is 2 == 1: false".  Guard trees are bounded by the front
 * end's nesting limit, so this may recurse. */
static void put_conditions(Explainer *x, const graft_rule *rule, const graft_expr *e,
                           const graft_binding *b)
{
    if (e->kind == GRAFT_EXPR_AND || e->kind == GRAFT_EXPR_OR) {
        put_conditions(x, rule, e->kids[0], b);
        put_conditions(x, rule, e->kids[1], b);
        return;
    }
    if (e->kind == GRAFT_EXPR_NOT) {
        put_conditions(x, rule, e->kids[0], b);
        return;
    }
    StrBuf as = {0}, vs = {0};
    put_expr(x, rule, e, b, false, &as);
    put_expr(x, rule, e, b, true, &vs);
    fprintf(x->out, "    %s is %s: %s\n", as.data, vs.data,
            guard_eval(e, b) ? "true" : "false");
    strbuf_free(&as);
    strbuf_free(&vs);
}

/* The guard's place: "where" on the rule's lines, else the rule's name. */
SrcRange explain_guard_range(Explainer *x, const graft_rule *rule)
{
    const Source *src = explain_rule_source(x, rule);
    for (int l = rule->line; src && l < rule->line + 20 && (size_t)l <= src->nlines; l++) {
        size_t len;
        const char *line = source_line(src, l, &len);
        for (size_t i = 0; i + 5 <= len; i++)
            if (memcmp(line + i, "where", 5) == 0 && (i == 0 || line[i - 1] == ' ')) {
                size_t end = len;
                while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\r'))
                    end--;
                const char *arrow = memchr(line + i, '=', len - i);
                if (arrow && arrow + 1 < line + len && arrow[1] == '>')
                    end = (size_t)(arrow - line) - 1;
                return (SrcRange){l, (int)i + 1, l, (int)end};
            }
    }
    return (SrcRange){rule->line, 1, rule->line, 1};
}

void explain_guard(Explainer *x, const graft_rule *rule, const MatchFailure *f)
{
    if (!rule->guard) {
        fputs("  the compiled guard refused (no table to show its values)\n", x->out);
        return;
    }
    explain_note(x, explain_rule_source(x, rule), rule->file, explain_guard_range(x, rule),
         "the pattern matches, but the guard is false");
    put_conditions(x, rule, rule->guard, f->b);
}
