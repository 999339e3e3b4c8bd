/* engine_explain_guard.c - a guard that refused, every condition with
 * its values: "users(c) == 1 is 2 == 1: false". */
#include "engine_explain_impl.h"

#include <ctype.h>
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
        guard_value_text(&v, b, x->e->g, out);
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
    for (int l = rule->line; src && l < rule->line + 20 && (size_t)l <= source_line_count(src);
         l++) {
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

/* The condition that makes e false (e false): an && 's first false
 * operand's, an || 's first operand's (both are false), a ! or a
 * comparison itself. */
static const graft_expr *failing(const graft_expr *e, const graft_binding *b)
{
    while (e->kind == GRAFT_EXPR_AND || e->kind == GRAFT_EXPR_OR)
        e = e->kind == GRAFT_EXPR_OR || !guard_eval(e->kids[0], b) ? e->kids[0] : e->kids[1];
    return e;
}

/* The first node a query in e reads (users(c), rank(c), ...), with the
 * query in *q; NULL when e reads none. */
static const graft_node *read_node(const graft_expr *e, const graft_binding *b,
                                   const graft_expr **q)
{
    if (e->kind >= GRAFT_EXPR_USERS && e->kind <= GRAFT_EXPR_ATTR && e->slot >= 0 &&
        b[e->slot].node) {
        *q = e;
        return b[e->slot].node;
    }
    for (int i = 0; i < e->nkids; i++) {
        const graft_node *n = read_node(e->kids[i], b, q);
        if (n)
            return n;
    }
    return NULL;
}

/* The end of the number at s[i] (digits, '.', an exponent), or i; the
 * digits of a name (w1) are none. */
static size_t number_end(const char *s, size_t i, size_t n)
{
    if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.'))
        return i;
    size_t j = i;
    while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.' || s[j] == 'e' ||
                     s[j] == 'f' || ((s[j] == '-' || s[j] == '+') && j > i && s[j - 1] == 'e')))
        j++;
    return j > i && isdigit((unsigned char)s[i]) ? j : i;
}

/* note [guard carets]: a guard's conditions have no places of their
 * own, so the failing one (failing) is found in the guard's text as it
 * prints, layout aside and a number matching any spelling of a number
 * ("value(x) < 1.4142235999999999" prints what "value(x) < 1.4142236"
 * says): "rank(c)==3" in "where rank(c) == 3 => c".  Not found, the whole
 * guard is shown. */
static bool find_text(const char *line, size_t from, size_t to, const char *want,
                      SrcRange *r, int l)
{
    size_t wlen = strlen(want);
    for (size_t i = from; i < to; i++) {
        size_t j = i, k = 0;
        while (j < to && want[k]) {
            size_t je = number_end(line, j, to), ke = number_end(want, k, wlen);
            if (je > j && ke > k) {
                j = je, k = ke;
                continue;
            }
            if (line[j] == ' ' || line[j] == '\t') {
                j++;
                continue;
            }
            if (want[k] == ' ') {
                k++;
                continue;
            }
            if (line[j] != want[k])
                break;
            j++, k++;
        }
        while (want[k] == ' ')
            k++;
        if (!want[k] && line[i] != ' ') {
            *r = (SrcRange){l, (int)i + 1, l, (int)j};
            return true;
        }
    }
    return false;
}

/* The failing condition's note, and the model node its query read. */
static void explain_failing(Explainer *x, const graft_rule *rule, const graft_binding *b,
                            SrcRange guard)
{
    const graft_expr *e = failing(rule->guard, b), *q = NULL;
    StrBuf as = {0}, msg = {0};
    put_expr(x, rule, e, b, false, &as);
    SrcRange at = guard;
    const Source *src = explain_rule_source(x, rule);
    size_t len;
    const char *line = src ? source_line(src, guard.first_line, &len) : NULL;
    if (!line || !find_text(line, (size_t)guard.first_column - 1, (size_t)guard.last_column,
                            as.data, &at, guard.first_line))
        at = guard;
    strbuf_printf(&msg, "'%s' is false", as.data);
    const graft_node *n = read_node(e, b, &q);
    if (n) {
        as.len = 0;
        put_expr(x, rule, q, b, false, &as);
        strbuf_printf(&msg, ": %s is ", as.data);
        put_expr(x, rule, q, b, true, &msg);
    }
    explain_note(x, src, rule->file, at, msg.data);
    if (n) {
        msg.len = 0;
        strbuf_printf(&msg, "%s is %s: %s is ", rule->slot_names[q->slot],
                      explain_label(x, n, &x->sb), as.data);
        put_expr(x, rule, q, b, true, &msg);
        explain_model_note(x, n, msg.data);
    }
    strbuf_free(&as);
    strbuf_free(&msg);
}

void explain_guard(Explainer *x, const graft_rule *rule, const MatchFailure *f)
{
    if (!rule->guard) {
        fputs("  the compiled guard refused (no table to show its values)\n", x->out);
        return;
    }
    SrcRange guard = explain_guard_range(x, rule);
    explain_note(x, explain_rule_source(x, rule), rule->file, guard,
         "the pattern matches, but the guard is false");
    put_conditions(x, rule, rule->guard, f->b);
    explain_failing(x, rule, f->b, guard);
}
