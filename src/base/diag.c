/* diag.c - reading sources and printing diagnostics with a caret line. */
#include "diag.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "limit.h"

struct graft_diag {
    FILE *out;          /* where reports go */
    unsigned errors;    /* errors reported (including promoted warnings) */
    unsigned warnings;  /* warnings reported */
    bool werror;        /* promote warnings to errors */
    const char **off;   /* flags of warnings turned off (-Wno-NAME) */
    size_t noff;        /* entries in off */
    bool muted;         /* the last report was a warning turned off: its
                           notes are dropped too */
    uint64_t max_errors; /* give up after this many errors; 0 never */
    bool gave_up;       /* max_errors reached */
    /* The last error, to drop its repeats (below). */
    const Source *last_src;
    SrcRange last_where;
    char *last_msg;     /* its text, formatted; NULL before the first */
    DiagCapture *capture; /* the records its sink keeps (diag_new_capture), or NULL */
    DiagSink sink;      /* structured reports instead of text; NULL: text */
    void *sink_ctx;     /* the sink's argument */
};

/* Records where each line starts.  memchr finds the newlines (it scans a
 * word or a vector at a time), so this costs well under an instruction
 * per byte.  A newline that ends the text starts no line: "a\n" is one. */
static void index_lines(Source *src)
{
    VEC(size_t) starts = {0};
    vec_push(&starts, 0);
    const char *text = src->text;
    const char *last = src->len ? text + src->len - 1 : text;
    for (const char *p = text; !src->one_line && p < last &&
                               (p = memchr(p, '\n', (size_t)(last - p))) != NULL;)
        vec_push(&starts, (size_t)(++p - text));
    src->line_starts = starts.items; /* the Source owns them now */
    src->nlines = starts.len;
}

/* A Source that owns text (len bytes and a NUL); lines false leaves the
 * whole text one line (a binary file, whose errors name byte offsets).
 * Its lines are indexed when first asked for (note [lines indexed on
 * first use]). */
static Source *source_adopt(const char *name, char *text, size_t len, bool lines)
{
    Source *src = xcalloc(1, sizeof(Source));
    src->name = xstrdup(name);
    src->text = text;
    src->len = len;
    src->one_line = !lines;
    return src;
}

Source *source_from_string(const char *name, const char *text, size_t len)
{
    return source_adopt(name, xstrndup(text, len), len, true);
}

Source *source_borrow(const char *name, const char *text, size_t len)
{
    /* The cast: the Source never writes its text, and frees it only
     * when it is not borrowed (source_free). */
    Source *src = source_adopt(name, (char *)text, len, true);
    src->borrowed = true;
    return src;
}

const size_t *source_index_lines(const Source *src)
{
    /* Every Source is made by source_adopt, on the heap: none is a const
     * object, so building the index through a pointer to const is
     * defined; the index is a cache of the text, which does not change. */
    if (!src->line_starts)
        index_lines((Source *)src);
    return src->line_starts;
}

/* Reads f to its end into sb, straight into one buffer of the file's size
 * when the size is known (no regrowing, no copy through a bounce buffer).
 * That buffer is allocated at the size, not grown to it: growing rounds
 * the capacity up, and a 3.9 MB model held a 4 MB block at the peak of
 * graft fmt (bench/onnx_fmt.sh's heap column). */
static bool read_stream(FILE *f, StrBuf *sb)
{
    struct stat st;
    size_t want = 65536;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        want = (size_t)st.st_size + 1; /* + 1: room to see the end */
        if (!sb->data) {
            sb->cap = want + 1;
            sb->data = xmalloc(sb->cap);
            populate_pages(sb->data, sb->cap); /* note [buffer populated] in pages.c */
        }
    }
    for (;;) {
        sb->data = xgrow_items(sb->data, &sb->cap, sb->len + want + 1, 1);
        size_t room = sb->cap - sb->len - 1;
        size_t n = fread(sb->data + sb->len, 1, room, f);
        sb->len += n;
        sb->data[sb->len] = '\0';
        if (n < room)
            return !ferror(f);
        want = 65536;
    }
}

static Source *read_file(const char *path, bool lines, graft_diag *d)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        diag_plain_error(d, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    StrBuf sb = {0};
    bool ok = read_stream(f, &sb);
    int saved = errno;
    if (!is_stdin)
        fclose(f);
    if (!ok) {
        diag_plain_error(d, "cannot read '%s': %s", path, strerror(saved));
        strbuf_free(&sb);
        return NULL;
    }
    /* The buffer becomes the Source's text, trimmed to its length and
     * two NUL bytes, which a scanner that reads it in place needs. */
    char *text = xrealloc(sb.data, sb.len + 2);
    text[sb.len] = text[sb.len + 1] = '\0';
    Source *src = source_adopt(is_stdin ? "<stdin>" : path, text, sb.len, lines);
    src->padded = true;
    return src;
}

Source *source_read(const char *path, graft_diag *d)
{
    return read_file(path, true, d);
}

Source *source_read_binary(const char *path, graft_diag *d)
{
    return read_file(path, false, d);
}

void source_free(Source *src)
{
    if (!src)
        return;
    free(src->name);
    if (!src->borrowed)
        free(src->text);
    free(src->line_starts);
    free(src);
}

const char *source_line(const Source *src, int line, size_t *len)
{
    const size_t *starts = source_line_starts(src);
    if (line < 1 || (size_t)line > src->nlines) {
        *len = 0;
        return "";
    }
    size_t begin = starts[line - 1];
    size_t end = begin;
    while (end < src->len && src->text[end] != '\n')
        end++;
    if (end > begin && src->text[end - 1] == '\r')
        end--;
    *len = end - begin;
    return src->text + begin;
}

/* Line of a byte offset by binary search over line_starts. */
static int line_of(const Source *src, size_t offset)
{
    const size_t *starts = source_line_starts(src);
    size_t lo = 0, hi = src->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return (int)lo + 1;
}

SrcRange source_range(const Source *src, size_t begin, size_t end)
{
    SrcRange r;
    if (end <= begin)
        end = begin + 1;
    const size_t *starts = source_line_starts(src);
    r.first_line = line_of(src, begin);
    r.first_column = (int)(begin - starts[r.first_line - 1]) + 1;
    r.last_line = line_of(src, end - 1);
    r.last_column = (int)(end - 1 - starts[r.last_line - 1]) + 1;
    return r;
}

/* The line (0-based) of offset, at or after line; src's lines indexed. */
static size_t line_after(const Source *src, size_t line, size_t offset)
{
    while (line + 1 < src->nlines && src->line_starts[line + 1] <= offset)
        line++;
    return line;
}

SrcRange source_range_at(const Source *src, SrcCursor *cur, size_t begin, size_t end)
{
    if (end <= begin)
        end = begin + 1;
    const size_t *starts = source_line_starts(src);
    size_t first = cur->line;
    if (first >= src->nlines || starts[first] > begin)
        first = (size_t)line_of(src, begin) - 1;
    first = line_after(src, first, begin);
    size_t last = line_after(src, first, end - 1);
    cur->line = first;
    SrcRange r;
    r.first_line = (int)first + 1;
    r.first_column = (int)(begin - starts[first]) + 1;
    r.last_line = (int)last + 1;
    r.last_column = (int)(end - 1 - starts[last]) + 1;
    return r;
}

graft_diag *diag_new(FILE *out)
{
    graft_diag *d = xcalloc(1, sizeof(graft_diag));
    d->out = out;
    d->max_errors = limit_defaults.errors;
    return d;
}

void diag_free(graft_diag *d)
{
    if (d) {
        free(d->off);
        free(d->last_msg);
        diag_capture_free(d->capture);
    }
    free(d);
}

graft_diag *diag_new_capture(void)
{
    graft_diag *d = diag_new(NULL);
    d->capture = diag_capture_new();
    diag_set_sink(d, diag_capture_record, d->capture);
    d->max_errors = 0;
    return d;
}

DiagCapture *diag_capture_of(const graft_diag *d)
{
    return d->capture;
}

void diag_reset(graft_diag *d)
{
    d->errors = d->warnings = 0;
    d->gave_up = d->muted = false;
    free(d->last_msg);
    d->last_msg = NULL;
    d->last_src = NULL;
    diag_capture_clear(d->capture);
}

/* note [clipped excerpts]: as GCC prints a source line, a control byte or
 * a byte that is not part of valid UTF-8 shows as <XX> (its hex value), so
 * that neither binary junk nor an escape sequence can garble a terminal,
 * and a line longer than EXCERPT_BYTES shows only the EXCERPT_BYTES bytes
 * from EXCERPT_BEFORE bytes before the range, with "..." where it was cut:
 * a 900 KB line of a generated model reprints as a few hundred bytes,
 * while the longest lines TVM prints (a call with its attributes and type,
 * 200 to 400 bytes) print whole.  The caret line follows the
 * clipped, escaped text column for column (a UTF-8 character is taken to
 * be one column wide). */
enum { EXCERPT_BYTES = 512, EXCERPT_BEFORE = 200 };

/* The bytes of the valid UTF-8 character of 2 to 4 bytes at s (n bytes
 * left), or 0. */
static size_t utf8_char_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* One character of an excerpt: its bytes at line[i] (*bytes) and the
 * columns it takes; written to out when out is not NULL. */
static int excerpt_char(FILE *out, const char *line, size_t len, size_t i, size_t *bytes)
{
    const unsigned char *s = (const unsigned char *)line + i;
    *bytes = 1;
    if (s[0] == '\t' || (s[0] >= 0x20 && s[0] < 0x7f)) {
        if (out)
            fputc(s[0], out);
        return 1;
    }
    size_t n = s[0] >= 0x80 ? utf8_char_len(s, len - i) : 0;
    if (n) {
        *bytes = n;
        if (out)
            fwrite(s, 1, n, out);
        return 1;
    }
    if (out)
        fprintf(out, "<%02x>", s[0]);
    return 4;
}

/* The source line (bytes [from, to) of it when clipped), and a caret line
 * underlining the range (to the end of the first line when the range spans
 * lines). */
static void print_excerpt(FILE *out, const Source *src, SrcRange where)
{
    size_t len, n;
    const char *line = source_line(src, where.first_line, &len);
    size_t first = where.first_column < 1 ? 0 : (size_t)where.first_column - 1;
    size_t last = where.last_line == where.first_line && where.last_column > 0
                      ? (size_t)where.last_column : len;
    first = first > len ? len : first;
    last = last <= first ? first + 1 : last;
    size_t from = 0, to = len;
    if (len > EXCERPT_BYTES) {
        from = first > EXCERPT_BEFORE ? first - EXCERPT_BEFORE : 0;
        while (from > 0 && ((unsigned char)line[from] & 0xc0) == 0x80)
            from--; /* not inside a character */
        to = from + EXCERPT_BYTES < len ? from + EXCERPT_BYTES : len;
    }
    fprintf(out, "%5d | %s", where.first_line, from ? "..." : "");
    for (size_t i = from; i < to; i += n)
        excerpt_char(out, line, len, i, &n);
    fprintf(out, "%s\n      | %s", to < len ? "..." : "", from ? "   " : "");
    for (size_t i = from; i < first && i < len; i += n) {
        int width = excerpt_char(NULL, line, len, i, &n);
        for (int k = 0; k < width; k++)
            fputc(line[i] == '\t' ? '\t' : ' ', out);
    }
    for (size_t i = first; i < last && (i == first || i < to); i += n) {
        n = 1;
        int width = i < len ? excerpt_char(NULL, line, len, i, &n) : 1;
        fputc(i == first ? '^' : '~', out);
        for (int k = 1; k < width; k++)
            fputc('~', out);
    }
    fputc('\n', out);
}

void diag_set_sink(graft_diag *d, DiagSink sink, void *ctx)
{
    d->sink = sink;
    d->sink_ctx = ctx;
}

/* note [one-line messages]: a message may quote what a file holds (a
 * name in an ONNX model, binary or text), and so any byte: a control byte
 * in it (below 0x20, and 0x7f) is written \xNN, a line break \x0a, to
 * the terminal and to a sink alike, so that an error stays one line, the
 * line after it its excerpt, and no escape sequence reaches a terminal
 * (the fuzz smoke found an ONNX text whose opset domain holds a newline,
 * fuzz/corpus/onnx_text/opset_domain_newline.onnxtxt).  An excerpt shows
 * a control byte of its line as <XX> instead (note [clipped excerpts]). */
static bool control_byte(char c)
{
    return (unsigned char)c < 0x20 || c == 0x7f;
}

/* raw (malloc'd, taken) with its control bytes escaped, malloc'd. */
static char *escaped(char *raw)
{
    size_t len = 0, controls = 0;
    for (; raw[len]; len++)
        controls += control_byte(raw[len]);
    if (!controls)
        return raw;
    char *msg = xmalloc(len + 3 * controls + 1), *at = msg;
    for (const char *p = raw; *p; p++)
        if (control_byte(*p))
            at += sprintf(at, "\\x%02x", (unsigned char)*p);
        else
            *at++ = *p;
    *at = '\0';
    free(raw);
    return msg;
}

/* fmt with ap, malloc'd, its control bytes escaped (note [one-line
 * messages]). */
static char *formatted(const char *fmt, va_list ap)
{
    StrBuf msg = {0};
    strbuf_vprintf(&msg, fmt, ap);
    return escaped(msg.data ? msg.data : xstrdup(""));
}

/* The report formatted once and handed to the sink. */
static void report_to_sink(graft_diag *d, const Source *src, SrcRange where, const char *kind,
                           const char *flag, const char *fmt, va_list ap)
{
    char *msg = formatted(fmt, ap);
    DiagRecord rec = {kind, flag, src, where, msg, NULL, false, 0};
    d->sink(d->sink_ctx, &rec);
    free(msg);
}

/* An error about file name (at byte offset when has_byte), fmt with
 * ap, to the sink or printed. */
static void report_file(graft_diag *d, const char *name, bool has_byte, uint64_t offset,
                        const char *fmt, va_list ap)
{
    char *msg = formatted(fmt, ap);
    DiagRecord rec = {"error", NULL, NULL, {0, 0, 0, 0}, msg, name, has_byte, offset};
    if (d->sink)
        d->sink(d->sink_ctx, &rec);
    else if (has_byte)
        fprintf(d->out, "%s: error: byte %" PRIu64 ": %s\n", name, offset, msg);
    else
        fprintf(d->out, "%s: error: %s\n", name, msg);
    free(msg);
}

static void report(graft_diag *d, const Source *src, SrcRange where, const char *kind,
                   const char *flag, const char *fmt, va_list ap)
{
    if (d->sink) {
        report_to_sink(d, src, where, kind, flag, fmt, ap);
        return;
    }
    if (!d->out)
        return;
    if (src)
        fprintf(d->out, "%s:%d:%d: %s: ", src->name, where.first_line,
                where.first_column, kind);
    else
        fprintf(d->out, "graft: %s: ", kind);
    char *msg = formatted(fmt, ap);
    fputs(msg, d->out);
    free(msg);
    if (flag)
        fprintf(d->out, " [%s-W%s]", d->werror ? "-Werror," : "", flag);
    fputc('\n', d->out);
    if (src)
        print_excerpt(d->out, src, where);
}

/* Counts an error; returns false when the report must be dropped. */
static bool count_error(graft_diag *d)
{
    if (d->gave_up)
        return false;
    if (d->max_errors && d->errors == d->max_errors) {
        if (d->sink)
            d->sink(d->sink_ctx, &(DiagRecord){.kind = "fatal error",
                                               .message = "too many errors emitted, "
                                                          "stopping now"});
        else if (d->out)
            fprintf(d->out, "graft: fatal error: too many errors emitted, stopping now\n");
        d->gave_up = true;
        return false;
    }
    d->errors++;
    return true;
}

/* Whether the error is the one just reported, at the same place, and
 * records it as the last one otherwise.  A bad macro body is checked at
 * each use: "let loop = z(loop)" would say "unknown op 'z'" at 1:12 once
 * per level of nesting. */
static bool repeats_last(graft_diag *d, const Source *src, SrcRange where, const char *fmt,
                         va_list ap)
{
    char *msg = formatted(fmt, ap);
    const SrcRange *w = &d->last_where;
    bool same = d->last_msg && d->last_src == src && w->first_line == where.first_line &&
                w->first_column == where.first_column && w->last_line == where.last_line &&
                w->last_column == where.last_column && strcmp(d->last_msg, msg) == 0;
    free(d->last_msg);
    d->last_msg = msg;
    d->last_src = src;
    d->last_where = where;
    return same;
}

void diag_error(graft_diag *d, const Source *src, SrcRange where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool repeat = repeats_last(d, src, where, fmt, ap);
    va_end(ap);
    d->muted = repeat; /* its notes were given with the first */
    if (repeat || !count_error(d))
        return;
    va_start(ap, fmt);
    report(d, src, where, "error", NULL, fmt, ap);
    va_end(ap);
}

bool diag_warning_on(const graft_diag *d, const char *flag)
{
    for (size_t i = 0; i < d->noff; i++)
        if (strcmp(d->off[i], flag) == 0)
            return false;
    return true;
}

void diag_warning_off(graft_diag *d, const char *flag)
{
    d->off = xrealloc(d->off, (d->noff + 1) * sizeof *d->off);
    d->off[d->noff++] = flag;
}

void diag_warning(graft_diag *d, const Source *src, SrcRange where, const char *flag,
                  const char *fmt, ...)
{
    d->muted = !diag_warning_on(d, flag);
    if (d->muted)
        return;
    if (d->werror ? !count_error(d) : d->gave_up)
        return;
    if (!d->werror)
        d->warnings++;
    va_list ap;
    va_start(ap, fmt);
    report(d, src, where, d->werror ? "error" : "warning", flag, fmt, ap);
    va_end(ap);
}

void diag_note(graft_diag *d, const Source *src, SrcRange where, const char *fmt, ...)
{
    if (d->gave_up || d->muted)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, src, where, "note", NULL, fmt, ap);
    va_end(ap);
}

void diag_plain_error(graft_diag *d, const char *fmt, ...)
{
    if (!count_error(d))
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, NULL, (SrcRange){0, 0, 0, 0}, "error", NULL, fmt, ap);
    va_end(ap);
}

void diag_byte_error(graft_diag *d, const char *name, uint64_t offset, const char *fmt, ...)
{
    if (!count_error(d) || !(d->out || d->sink))
        return;
    va_list ap;
    va_start(ap, fmt);
    report_file(d, name, true, offset, fmt, ap);
    va_end(ap);
}

void diag_file_error(graft_diag *d, const char *name, const char *fmt, ...)
{
    if (!count_error(d) || !(d->out || d->sink))
        return;
    va_list ap;
    va_start(ap, fmt);
    report_file(d, name, false, 0, fmt, ap);
    va_end(ap);
}

void diag_set_werror(graft_diag *d, bool on)
{
    d->werror = on;
}

void diag_set_error_limit(graft_diag *d, uint64_t max)
{
    d->max_errors = max;
}

unsigned diag_errors(const graft_diag *d)
{
    return d->errors;
}

unsigned diag_warnings(const graft_diag *d)
{
    return d->warnings;
}

bool diag_gave_up(const graft_diag *d)
{
    return d->gave_up;
}
