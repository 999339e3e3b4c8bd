/* lsp_io.c - reading and writing LSP messages (lsp_io.h). */
#include "lsp_io.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* A header line longer than this is cut: its rest is read and dropped,
 * and a Content-Length so cut refuses the message (its digits are lost). */
enum { HEADER_LINE_MAX = 1024 };

/* Reads one header line without its CRLF or LF into line (cut at
 * HEADER_LINE_MAX - 1 bytes: *cut says whether it was).  False at the
 * end of the stream. */
static bool read_header_line(FILE *in, char line[HEADER_LINE_MAX], bool *cut)
{
    size_t n = 0, whole = 0;
    int c, last = 0;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (n < HEADER_LINE_MAX - 1)
            line[n++] = (char)c;
        whole++;
        last = c;
    }
    if (c == EOF && whole == 0)
        return false;
    if (last == '\r') {
        whole--;
        n = n > whole ? whole : n;
    }
    line[n] = '\0';
    *cut = whole > n;
    return c != EOF;
}

/* The value of "Content-Length: N", -1 when the line is another header,
 * -2 when it is a Content-Length that is not a plain decimal number. */
static long long content_length(const char *line)
{
    static const char name[] = "Content-Length:";
    if (strncasecmp(line, name, sizeof name - 1) != 0)
        return -1;
    const char *p = line + sizeof name - 1;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p < '0' || *p > '9')
        return -2;
    char *end;
    errno = 0;
    long long n = strtoll(p, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    return errno || *end ? -2 : n;
}

/* Skips n bytes of in; false when the stream ends first. */
static bool skip_bytes(FILE *in, long long n)
{
    char buf[4096];
    while (n > 0) {
        size_t want = n < (long long)sizeof buf ? (size_t)n : sizeof buf;
        size_t got = fread(buf, 1, want, in);
        if (got < want)
            return false;
        n -= (long long)got;
    }
    return true;
}

LspRead lsp_read_message(FILE *in, size_t max, char **body, size_t *len)
{
    char line[HEADER_LINE_MAX];
    long long length = -1;
    bool bad = false, any = false;
    bool cut = false;
    while (read_header_line(in, line, &cut)) {
        if (!*line) {
            if (!any)
                continue; /* blank lines between messages */
            break;
        }
        any = true;
        long long n = content_length(line);
        if (n == -2 || (n >= 0 && cut)) /* a cut length lost its last digits */
            bad = true;
        else if (n >= 0)
            length = n;
    }
    if (feof(in))
        return LSP_READ_EOF;
    if (bad || length < 0)
        return LSP_READ_NO_LENGTH;
    if ((unsigned long long)length > max)
        return skip_bytes(in, length) ? LSP_READ_TOO_LARGE : LSP_READ_EOF;
    char *buf = xmalloc((size_t)length + 1);
    if (fread(buf, 1, (size_t)length, in) < (size_t)length) {
        free(buf);
        return LSP_READ_EOF;
    }
    buf[length] = '\0';
    *body = buf;
    *len = (size_t)length;
    return LSP_READ_OK;
}

void lsp_write_message(FILE *out, const char *body, size_t len)
{
    fprintf(out, "Content-Length: %zu\r\n\r\n", len);
    fwrite(body, 1, len, out);
    fflush(out);
}
