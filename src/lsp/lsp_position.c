/* lsp_position.c - LSP positions and byte offsets (lsp_impl.h).
 *
 * graft's columns count bytes; LSP's characters count UTF-16 code units
 * (the protocol's default encoding): a character of 4 UTF-8 bytes is 2
 * units, one of 2 or 3 bytes is 1.  A byte that starts no valid sequence
 * counts as 1 unit, as editors show it as one replacement character. */
#include <string.h>

#include "lsp_impl.h"

/* The length of the UTF-8 sequence that starts with byte c, and the units
 * it takes in UTF-16. */
static size_t utf8_length(unsigned char c, int *units)
{
    *units = 1;
    if (c >= 0xf0 && c < 0xf8) {
        *units = 2;
        return 4;
    }
    if (c >= 0xe0 && c < 0xf0)
        return 3;
    if (c >= 0xc0 && c < 0xe0)
        return 2;
    return 1;
}

int lsp_utf16_units(const char *line, size_t len, size_t nbytes)
{
    int units = 0;
    size_t i = 0;
    while (i < nbytes && i < len) {
        int u;
        size_t n = utf8_length((unsigned char)line[i], &u);
        units += u;
        i += n;
    }
    return units;
}

bool lsp_offset_of(const char *text, size_t len, json_int_t line, json_int_t character,
                   size_t *offset)
{
    if (line < 0 || character < 0)
        return false;
    size_t at = 0;
    for (json_int_t l = 0; l < line; l++) {
        const char *nl = memchr(text + at, '\n', len - at);
        if (!nl)
            return false;
        at = (size_t)(nl - text) + 1;
    }
    json_int_t units = 0;
    while (units < character) {
        if (at >= len || text[at] == '\n' || text[at] == '\r')
            return false;
        int u;
        size_t n = utf8_length((unsigned char)text[at], &u);
        units += u;
        at = at + n > len ? len : at + n;
    }
    *offset = at;
    return true;
}

bool lsp_position_of_params(const LspDoc *doc, json_t *params, size_t *offset,
                            LspError *err)
{
    json_int_t line, character;
    if (json_unpack(params, "{s:{s:I, s:I}}", "position", "line", &line, "character",
                    &character) != 0) {
        lsp_fail(err, LSP_INVALID_PARAMS, "position.line and .character are missing");
        return false;
    }
    if (!lsp_offset_of(doc->text, doc->len, line, character, offset)) {
        lsp_fail(err, LSP_INVALID_PARAMS, "position %lld:%lld is outside the document",
                 (long long)line, (long long)character);
        return false;
    }
    return true;
}

/* Whether the n bytes at p are a UTF-8 sequence: continuation bytes after
 * the lead byte, no overlong or surrogate forms (what jansson accepts). */
static bool valid_sequence(const unsigned char *p, size_t n, size_t avail)
{
    if (n > avail)
        return false;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return false;
    if (n == 2)
        return p[0] >= 0xc2;
    if (n == 3)
        return !(p[0] == 0xe0 && p[1] < 0xa0) && !(p[0] == 0xed && p[1] >= 0xa0);
    if (n == 4)
        return !(p[0] == 0xf0 && p[1] < 0x90) && !(p[0] == 0xf4 && p[1] >= 0x90) &&
               p[0] <= 0xf4;
    return p[0] < 0x80;
}

char *lsp_valid_utf8(const char *text)
{
    StrBuf sb = {0};
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        int units;
        size_t n = utf8_length(p[i], &units);
        if (valid_sequence(p + i, n, len - i)) {
            strbuf_append(&sb, text + i, n);
            i += n;
        } else {
            strbuf_puts(&sb, "\xef\xbf\xbd"); /* U+FFFD */
            i++;
        }
    }
    strbuf_puts(&sb, "");
    return sb.data;
}
