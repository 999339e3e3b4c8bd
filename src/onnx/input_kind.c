/* input_kind.c - the first tokens of a rule file or a Relay model
 * (input_kind.h). */
#include "input_kind.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx_model.h"
#include "onnx_text.h"

/* A cursor over the text's first bytes. */
typedef struct Cursor {
    const char *p;   /* next byte */
    const char *end; /* one past the last */
} Cursor;

static bool starts(const Cursor *c, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(c->end - c->p) >= n && memcmp(c->p, s, n) == 0;
}

static void skip_line(Cursor *c)
{
    while (c->p < c->end && *c->p != '\n')
        c->p++;
}

/* Skips blanks and comments; stops at "#[", which is Relay's header, not
 * a rule-file comment. */
static void skip_blanks(Cursor *c)
{
    while (c->p < c->end) {
        if (isspace((unsigned char)*c->p)) {
            c->p++;
        } else if (starts(c, "#[")) {
            return;
        } else if (*c->p == '#' || starts(c, "//")) {
            skip_line(c);
        } else if (starts(c, "/*")) {
            const char *close = NULL;
            for (const char *q = c->p + 2; q + 1 < c->end && !close; q++)
                if (q[0] == '*' && q[1] == '/')
                    close = q;
            c->p = close ? close + 2 : c->end;
        } else {
            return;
        }
    }
}

static bool is_ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '.';
}

/* Takes an identifier at the cursor; its length (0 when there is none). */
static size_t take_ident(Cursor *c)
{
    const char *start = c->p;
    if (c->p < c->end && (isalpha((unsigned char)*c->p) || *c->p == '_'))
        while (c->p < c->end && is_ident_char(*c->p))
            c->p++;
    return (size_t)(c->p - start);
}

/* After a rule's name: [flags] then ":=". */
static bool rule_follows(Cursor *c)
{
    skip_blanks(c);
    if (starts(c, "[")) {
        while (c->p < c->end && *c->p != ']' && *c->p != '\n')
            c->p++;
        if (!starts(c, "]"))
            return false;
        c->p++;
        skip_blanks(c);
    }
    return starts(c, ":=");
}

/* The keyword word was taken: is the next token what makes it a start? */
static InputKind keyword_kind(const char *word, size_t len, Cursor *c)
{
    skip_blanks(c);
    Cursor next = *c;
    bool ident = take_ident(&next) > 0;
#define IS(kw) (len == strlen(kw) && memcmp(word, kw, len) == 0)
    if (IS("def") && starts(c, "@"))
        return INPUT_MODEL;
    if (IS("type") && ident)
        return INPUT_MODEL;
    if (IS("fn") && starts(c, "("))
        return INPUT_MODEL;
    if ((IS("op") || IS("let") || IS("opset")) && ident)
        return INPUT_RULES;
    if (IS("include") && starts(c, "\""))
        return INPUT_RULES;
#undef IS
    return rule_follows(c) ? INPUT_RULES : INPUT_UNKNOWN;
}

InputKind input_kind_of_text(const char *text, size_t len)
{
    Cursor c = {text, text + len};
    skip_blanks(&c);
    if (starts(&c, "#[version"))
        return INPUT_MODEL;
    const char *word = c.p;
    size_t n = take_ident(&c);
    return n ? keyword_kind(word, n, &c) : INPUT_UNKNOWN;
}

/* Whether path ends in suffix (".onnx", ".onnxtxt"). */
static bool named(const char *path, const char *suffix)
{
    size_t len = strlen(path), n = strlen(suffix);
    return len > n && strcmp(path + len - n, suffix) == 0;
}

/* The first 4 KiB of the regular file at path into buf; 0 for "-",
 * FIFOs and devices (a FIFO or device is read once, by the loader) and
 * files that cannot be read. */
static size_t read_start(const char *path, char *buf, size_t size)
{
    struct stat st;
    if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, size, f);
    fclose(f);
    return n;
}

InputKind input_kind_of_file(const char *path)
{
    if (path && (named(path, ".onnx") || named(path, ".onnxtxt")))
        return INPUT_ONNX;
    char buf[4096];
    size_t n = read_start(path, buf, sizeof buf);
    InputKind kind = input_kind_of_text(buf, n);
    if (kind == INPUT_UNKNOWN && (onnx_text_looks_like(buf, n) ||
                                  onnx_model_looks_like((const uint8_t *)buf, n)))
        kind = INPUT_ONNX;
    return kind;
}

bool input_onnx_is_text(const char *path)
{
    if (named(path, ".onnxtxt"))
        return true;
    if (named(path, ".onnx"))
        return false;
    char buf[4096];
    size_t n = read_start(path, buf, sizeof buf);
    return onnx_text_looks_like(buf, n);
}
