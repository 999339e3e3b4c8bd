/* emit_c_tests.c - attribute tests as C functions (graft_rule_set.attr_fns).
 *
 * The labeller decides an attribute test by writing the node's value in
 * canonical text (pattern_attr_key: numbers "%.17g", strings quoted,
 * lists "[a, b]") and comparing with the test's text; that formatting is
 * most of the cost of labelling a call with attributes.  Here the wanted
 * text is read back at compile time and the test becomes a typed
 * comparison: "%.17g" is exact, so two numbers have the same text exactly
 * when they are equal (0 and -0 print alike and compare equal); a string
 * without quotes has the same text only as that string; a list of numbers
 * only as a list of equal numbers (any string item would add a quote).
 * Other texts (nested lists, strings with quotes, nan) keep the text
 * comparison.  A node without the attribute takes the op's default,
 * whose text is known now, so that case is a constant.
 */
#include "emit_c_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* True when text is exactly "%.17g" of a finite double; sets *f. */
static bool number_text(const char *text, double *f)
{
    char *end, buf[64];
    if (!*text)
        return false;
    *f = strtod(text, &end);
    if (*end || !isfinite(*f))
        return false;
    snprintf(buf, sizeof buf, "%.17g", *f == 0 ? 0.0 : *f);
    return strcmp(buf, text) == 0;
}

/* "[1, 2]" as numbers: fills items (malloc'd); false when not such a list. */
static bool number_list(const char *key, double **items, int *n)
{
    size_t len = strlen(key);
    *items = NULL;
    *n = 0;
    if (len < 2 || key[0] != '[' || key[len - 1] != ']')
        return false;
    char *inner = xstrndup(key + 1, len - 2);
    bool ok = true;
    size_t cap = 0;
    for (char *p = inner; ok && *p;) {
        char *comma = strstr(p, ", ");
        if (comma)
            *comma = '\0';
        *items = xgrow_items(*items, &cap, (size_t)*n + 1, sizeof **items);
        ok = number_text(p, &(*items)[(*n)++]);
        p = comma ? comma + 2 : p + strlen(p);
    }
    free(inner);
    return ok;
}

/* The C expression testing a present value v against key, into sb. */
static void value_test(const char *key, StrBuf *sb)
{
    double f, *items = NULL;
    int n;
    size_t len = strlen(key);
    if (number_text(key, &f)) {
        strbuf_puts(sb, "graft_attr_is_num(v, ");
        emit_c_double(sb, f);
        strbuf_putc(sb, ')');
    } else if (len >= 2 && key[0] == '"' && key[len - 1] == '"' &&
               !memchr(key + 1, '"', len - 2)) {
        char *s = xstrndup(key + 1, len - 2);
        strbuf_puts(sb, "graft_attr_is_str(v, ");
        emit_c_string(sb, s);
        strbuf_putc(sb, ')');
        free(s);
    } else if (strcmp(key, "None") == 0) {
        strbuf_puts(sb, "graft_attr_is_none(v)");
    } else if (number_list(key, &items, &n)) {
        strbuf_puts(sb, "graft_attr_is_nums(v, ");
        if (n) {
            strbuf_puts(sb, "(const double[]){");
            for (int i = 0; i < n; i++) {
                strbuf_puts(sb, i ? ", " : "");
                emit_c_double(sb, items[i]);
            }
            strbuf_printf(sb, "}, %d)", n);
        } else
            strbuf_puts(sb, "NULL, 0)");
    } else {
        strbuf_puts(sb, "graft_attr_key_is(v, ");
        emit_c_string(sb, key);
        strbuf_putc(sb, ')');
    }
    free(items);
}

/* The function deciding test p: "attr_testN" for the first test with
 * its body, the same function for every later one (tests of different
 * ops or attributes can compare alike).  Returns the name. */
static const char *emit_attr_test(Emitter *E, uint32_t id, const graft_pred *p,
                                  const EmitRefs *refs)
{
    StrBuf test = {0}, key = {0}, comment = {0}, safe = {0}, name = {0};
    value_test(p->key, &test);
    bool dflt = p->dflt && strcmp(p->dflt, p->key) == 0;
    strbuf_printf(&test, " : %s", dflt ? "true" : "false");
    strbuf_printf(&key, "attribute test %s", test.data); /* apart from data */
    const char *have = strtable_get(&E->defs, key.data);
    strbuf_printf(&comment, "test %u: %s's %s is %s", id, p->op ? p->op : "the called function",
                  p->s, p->key);
    if (p->dflt)
        strbuf_printf(&comment, " (default %s)", p->dflt);
    emit_comment_text(&safe, comment.data);
    strbuf_puts(&safe, ", in ");
    emit_ref_text(E->rs, refs->pred_first[id], refs->pred_line[id], refs->pred_count[id],
                  &safe);
    if (!have) {
        strbuf_printf(&name, "attr_test%u", id);
        have = emit_unique(E, name.data);
        strtable_put(&E->defs, key.data, have);
        emit_line(E, "/* %s */", safe.data);
        emit_line(E, "static bool %s(const graft_attr_value *v)", have);
        emit_line(E, "{");
        emit_line(E, "    return v ? %s;", test.data);
        emit_line(E, "}");
        emit_blank(E);
    } else {
        emit_line(E, "/* %s: as %s */", safe.data, have);
        emit_blank(E);
    }
    strbuf_free(&test);
    strbuf_free(&key);
    strbuf_free(&comment);
    strbuf_free(&safe);
    strbuf_free(&name);
    return have;
}

bool emit_attr_tests(Emitter *E, const EmitRefs *refs)
{
    const graft_rule_set *rs = E->rs;
    bool any = false;
    for (uint32_t i = 0; i < rs->npreds; i++)
        any |= rs->preds[i].kind == GRAFT_PRED_ATTR;
    if (!any)
        return false;
    emit_line(E, "/* ---- attribute tests as C, for the labeller (graft_rule_set.attr_fns) "
                 "---- */");
    emit_blank(E);
    const char **fns = xcalloc(rs->npreds, sizeof *fns);
    for (uint32_t i = 0; i < rs->npreds; i++)
        if (rs->preds[i].kind == GRAFT_PRED_ATTR)
            fns[i] = emit_attr_test(E, i, &rs->preds[i], refs);
    emit_table_start(E, "graft_attr_test_fn", "attr_tests");
    for (uint32_t i = 0; i < rs->npreds; i++) {
        StrBuf ref = {0};
        emit_ref_text(rs, refs->pred_first[i], refs->pred_line[i], refs->pred_count[i], &ref);
        if (fns[i]) {
            emit_line(E, "/* %u: %s */", i, ref.data);
            emit_line(E, "%s,", fns[i]);
        } else {
            emit_line(E, "NULL, /* %u: not an attribute test */", i);
        }
        strbuf_free(&ref);
    }
    emit_table_end(E);
    free(fns);
    return true;
}
