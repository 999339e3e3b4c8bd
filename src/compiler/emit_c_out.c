/* emit_c_out.c - the C emitter's output helpers: indented lines, names,
 * C literals. */
#include "emit_c_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void emit_line(Emitter *E, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = xmalloc((size_t)len + 1);
    va_start(ap, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
    if (text[0])
        for (int i = 0; i < E->indent; i++)
            fputs("    ", E->out);
    fputs(text, E->out);
    fputc('\n', E->out);
    E->line++;
    for (const char *p = text; *p; p++) /* a text of several lines */
        E->line += *p == '\n';
    free(text);
}

void emit_blank(Emitter *E)
{
    fputc('\n', E->out);
    E->line++;
}

static size_t ptr_hash(const void *p)
{
    return (size_t)hash_mix(0x6a09e667, (uint64_t)(uintptr_t)p);
}

static size_t find_slot(const NameMap *m, const void *obj)
{
    size_t j = ptr_hash(obj) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != obj)
        j = (j + 1) & (m->cap - 1);
    return j;
}

const char *emit_name_get(const Emitter *E, const void *obj)
{
    if (!E->names.cap)
        return NULL;
    size_t j = find_slot(&E->names, obj);
    return E->names.keys[j] ? E->names.names[j] : NULL;
}

static void names_grow(NameMap *m)
{
    NameMap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->keys = xcalloc(m->cap, sizeof *m->keys);
    m->names = xcalloc(m->cap, sizeof *m->names);
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i]) {
            size_t j = find_slot(m, old.keys[i]);
            m->keys[j] = old.keys[i];
            m->names[j] = old.names[i];
        }
    free(old.keys);
    free(old.names);
}

const char *emit_name_new(Emitter *E, const void *obj, const char *kind)
{
    NameMap *m = &E->names;
    if ((m->count + 1) * 2 > m->cap)
        names_grow(m);
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s_%s%d", E->prefix, kind, E->counter++);
    size_t j = find_slot(m, obj);
    m->keys[j] = obj;
    m->names[j] = sb.data;
    m->count++;
    return sb.data;
}

void emit_names_free(NameMap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->names[i]);
    free(m->keys);
    free(m->names);
}

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
