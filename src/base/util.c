/* util.c - allocation wrappers, the string buffer, the sort, edit distance. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* note [out of memory]: graft is a batch tool; there is nothing useful to
 * salvage when malloc fails, and checking at every call site would hide the
 * real logic.  So one place reports and exits. */
void out_of_memory(void)
{
    fputs("graft: fatal error: out of memory\n", stderr);
    exit(EXIT_OUT_OF_MEMORY);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

size_t grow_capacity(size_t cap, size_t need, size_t elem_size)
{
    size_t n = cap ? cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            out_of_memory();
        n *= 2;
    }
    if (n > SIZE_MAX / elem_size)
        out_of_memory();
    return n;
}

void *xgrow_items(void *items, size_t *cap, size_t need, size_t elem_size)
{
    if (need <= *cap)
        return items;
    *cap = grow_capacity(*cap, need, elem_size);
    return xrealloc(items, *cap * elem_size);
}

void sort_u32(uint32_t *a, size_t n, bool (*before)(const void *ctx, uint32_t x, uint32_t y),
              const void *ctx)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = a[i];
        size_t j = i;
        for (; j > 0 && (before ? before(ctx, x, a[j - 1]) : x < a[j - 1]); j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void strbuf_append(StrBuf *sb, const char *s, size_t n)
{
    sb->data = xgrow_items(sb->data, &sb->cap, sb->len + n + 1, 1);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void strbuf_puts(StrBuf *sb, const char *s)
{
    strbuf_append(sb, s, strlen(s));
}

void strbuf_putc(StrBuf *sb, char c)
{
    strbuf_append(sb, &c, 1);
}

void strbuf_vprintf(StrBuf *sb, const char *fmt, va_list ap)
{
    va_list len_ap;
    va_copy(len_ap, ap);
    int n = vsnprintf(NULL, 0, fmt, len_ap);
    va_end(len_ap);
    if (n < 0)
        return;
    sb->data = xgrow_items(sb->data, &sb->cap, sb->len + (size_t)n + 1, 1);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(sb, fmt, ap);
    va_end(ap);
}

void strbuf_free(StrBuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > lb + limit || lb > la + limit || lb > 255)
        return limit + 1;
    size_t row[256];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = diag + (a[i - 1] != b[j - 1]);
            size_t v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = cost < v ? cost : v;
            diag = up;
            if (row[j] < best)
                best = row[j];
        }
        if (best > limit)
            return limit + 1;
    }
    return row[lb];
}
