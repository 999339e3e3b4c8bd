/* emit_c_out.c - the C emitter's output helpers: indented lines, function
 * bodies kept until their locals are known, names, definitions by
 * content, C literals. */
#include "emit_c_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *emit_vformat(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *text = xmalloc((size_t)len + 1);
    vsnprintf(text, (size_t)len + 1, fmt, again);
    va_end(again);
    return text;
}

static BodyLine *body_push(Emitter *E)
{
    vec_push(&E->body, ((BodyLine){.indent = E->indent}));
    return &E->body.items[E->body.len - 1];
}

void emit_line(Emitter *E, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = emit_vformat(fmt, ap);
    va_end(ap);
    if (E->in_body) {
        body_push(E)->text = text;
        return;
    }
    emit_wrapped(E, text[0] ? E->indent * 4 : 0, text);
    free(text);
}

void emit_blank(Emitter *E)
{
    emit_line(E, "%s", "");
}

void emit_table_start(Emitter *E, const char *type, const char *name)
{
    emit_line(E, "static const %s %s[] = {", type, name);
    E->indent++;
}

void emit_table_end(Emitter *E)
{
    E->indent--;
    emit_line(E, "};");
    emit_blank(E);
}

/* ---- #line ---- */

static void write_line_to(Emitter *E, const SrcRange *where, const char *file)
{
    StrBuf sb = {0};
    emit_c_string(&sb, file);
    fprintf(E->out, "#line %d %s\n", where->first_line, sb.data);
    E->line++;
    strbuf_free(&sb);
}

static void write_line_back(Emitter *E)
{
    StrBuf sb = {0};
    emit_c_string(&sb, E->opts->out_name ? E->opts->out_name : "<stdout>");
    E->line++;
    fprintf(E->out, "#line %ld %s\n", E->line + 1, sb.data);
    strbuf_free(&sb);
}

void emit_line_to_rule(Emitter *E, const SrcRange *where, const char *file)
{
    if (!E->opts->line_directives || !where || !file)
        return;
    if (E->in_body) {
        BodyLine *l = body_push(E);
        l->to_rule = true;
        l->where = *where;
        l->file = file;
        return;
    }
    write_line_to(E, where, file);
}

void emit_line_back(Emitter *E)
{
    if (!E->opts->line_directives)
        return;
    if (E->in_body)
        body_push(E);
    else
        write_line_back(E);
}

void emit_body_begin(Emitter *E)
{
    E->in_body = true;
    E->body.len = 0;
    E->defs_before = E->defs.entries.len;
    for (int i = 0; i < E->nvars; i++) /* the locals this body will read */
        E->var_used[i] = false;
}

void emit_body_end(Emitter *E)
{
    E->in_body = false;
    for (size_t i = 0; i < E->body.len; i++) {
        BodyLine *l = &E->body.items[i];
        if (l->text)
            emit_wrapped(E, l->text[0] ? l->indent * 4 : 0, l->text);
        else if (l->to_rule)
            write_line_to(E, &l->where, l->file);
        else
            write_line_back(E);
        free(l->text);
    }
    E->body.len = 0;
}

/* ---- string tables ---- */

static uint64_t key_hash(const char *key)
{
    return hash_bytes(key, strlen(key), 0x243f6a8885a308d3ull) | 1; /* nonzero */
}

const char *strtable_get(const StrTable *t, const char *key)
{
    int64_t *last = keymap_get(&t->index, key_hash(key));
    for (long i = last ? (long)*last - 1 : -1; i >= 0; i = t->entries.items[i].next)
        if (strcmp(t->entries.items[i].key, key) == 0)
            return t->entries.items[i].value;
    return NULL;
}

void strtable_put(StrTable *t, const char *key, const char *value)
{
    int64_t *last = keymap_put(&t->index, key_hash(key), 0);
    vec_push(&t->entries, ((StrEntry){xstrdup(key), xstrdup(value), (long)*last - 1}));
    *last = (int64_t)t->entries.len;
}

void strtable_free(StrTable *t)
{
    for (size_t i = 0; i < t->entries.len; i++) {
        free(t->entries.items[i].key);
        free(t->entries.items[i].value);
    }
    vec_free(&t->entries);
    keymap_free(&t->index);
}

/* ---- names ---- */

/* want itself (k 1), else the first of want_2, want_3, ... not taken.
 * The search for want starts where its last one ended (E->suffixes): no
 * name is ever given back, so every k below that is still taken, and
 * the n-th name of one base no longer tries the n - 1 before it (a deep
 * guard's thousands of temporaries made graft compile quadratic: 8 s for
 * 4,000 levels, tests/emit/deep_guard.sh). */
const char *emit_unique(Emitter *E, const char *want)
{
    const char *next = strtable_get(&E->suffixes, want);
    StrBuf sb = {0};
    int k = next ? atoi(next) : 1;
    for (;; k++) {
        sb.len = 0;
        if (k == 1)
            strbuf_puts(&sb, want);
        else
            strbuf_printf(&sb, "%s_%d", want, k);
        if (!strtable_get(&E->taken, sb.data))
            break;
    }
    char after[16];
    snprintf(after, sizeof after, "%d", k + 1);
    strtable_put(&E->suffixes, want, after);
    strtable_put(&E->taken, sb.data, sb.data);
    const char *name = strtable_get(&E->taken, sb.data);
    strbuf_free(&sb);
    return name;
}

const char *emit_name_get(const Emitter *E, const void *obj)
{
    int64_t *i = keymap_get(&E->objects, keymap_ptr_key(obj));
    return i ? E->obj_names.items[*i - 1] : NULL;
}

const char *emit_name_new(Emitter *E, const void *obj, const char *kind, const char *what)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s_%s_", E->prefix, kind);
    emit_ident(&sb, "", what);
    vec_push(&E->obj_names, xstrdup(emit_unique(E, sb.data)));
    *keymap_put(&E->objects, keymap_ptr_key(obj), 0) = (int64_t)E->obj_names.len;
    strbuf_free(&sb);
    return E->obj_names.items[E->obj_names.len - 1];
}

/* ---- definitions ---- */

/* Writes "static const TYPE NAME = INIT;", INIT's later lines indented. */
static void write_def(Emitter *E, const char *type, bool array, const char *name,
                      const char *init)
{
    const char *nl = strchr(init, '\n');
    const char *space = type[strlen(type) - 1] == '*' ? "" : " ";
    if (!nl) {
        emit_line(E, "static const %s%s%s%s = %s;", type, space, name, array ? "[]" : "",
                  init);
        return;
    }
    emit_line(E, "static const %s%s%s%s = %.*s", type, space, name, array ? "[]" : "",
              (int)(nl - init), init);
    E->indent++;
    for (const char *line = nl + 1; (nl = strchr(line, '\n')); line = nl + 1)
        emit_line(E, "%.*s", (int)(nl - line), line);
    E->indent--;
    emit_line(E, "%s;", strrchr(init, '\n') + 1);
}

const char *emit_def(Emitter *E, const char *type, bool array, const char *hint,
                     const char *init)
{
    StrBuf key = {0};
    strbuf_printf(&key, "%s%s = %s", type, array ? "[]" : "", init);
    const char *have = strtable_get(&E->defs, key.data);
    if (!have) {
        const char *name = emit_unique(E, hint);
        bool in_body = E->in_body;
        int indent = E->indent;
        E->in_body = false; /* a definition goes ahead of the function */
        E->indent = 0;
        write_def(E, type, array, name, init);
        E->in_body = in_body;
        E->indent = indent;
        strtable_put(&E->defs, key.data, name);
        have = strtable_get(&E->defs, key.data);
    }
    strbuf_free(&key);
    return have;
}

/* ---- C literals ---- */

void emit_c_string(StrBuf *out, const char *s)
{
    if (!s) {
        strbuf_puts(out, "NULL");
        return;
    }
    strbuf_putc(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            strbuf_printf(out, "\\%c", *p);
        else if (*p == '\n')
            strbuf_puts(out, "\\n");
        else if (*p == '\t')
            strbuf_puts(out, "\\t");
        else if (*p < 0x20 || *p >= 0x7f || *p == '?') /* '?': no trigraphs */
            strbuf_printf(out, "\\%03o", *p);
        else
            strbuf_putc(out, (char)*p);
    }
    strbuf_putc(out, '"');
}

void emit_c_double(StrBuf *out, double f)
{
    if (isnan(f))
        strbuf_puts(out, "NAN");
    else if (isinf(f))
        strbuf_puts(out, f > 0 ? "HUGE_VAL" : "-HUGE_VAL");
    else {
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", f);
        strbuf_puts(out, buf);
        if (!strpbrk(buf, ".en")) /* keep it a double: 1 -> 1.0 */
            strbuf_puts(out, ".0");
    }
}

const char *emit_str(StrBuf *buf, const char *s)
{
    buf->len = 0;
    emit_c_string(buf, s);
    return buf->data;
}

const char *emit_dbl(StrBuf *buf, double f)
{
    buf->len = 0;
    emit_c_double(buf, f);
    return buf->data;
}

void emit_comment_text(StrBuf *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        strbuf_putc(out, *p == '\n' ? ' ' : *p);
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*'))
            strbuf_putc(out, ' ');
    }
}
