/* emit_c_wrap.c - breaking generated lines at EMIT_WIDTH columns.
 *
 * The emitter builds each statement or initialiser as one line of text;
 * here a line too wide is broken where a reader expects it: after a ", "
 * or before a " && " / " || " outside literals, continuing 8 columns
 * deeper.  A string literal that does not fit is split into adjacent
 * literals ("ab" "cd" is "abcd" to the compiler) between escapes.  A
 * comment line is broken between words and continued with " * ".
 */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

/* Where a line may be broken: the line ends at cut (plus a closing quote
 * when in_string), the rest starts at resume (after an opening quote);
 * depth counts the brackets open there. */
typedef struct Break {
    size_t cut;
    size_t resume;
    bool in_string;
    int depth;
} Break;

/* Length of the literal unit at s: an escape "\ooo" or "\c", or a char. */
static size_t unit_len(const char *s)
{
    if (s[0] != '\\')
        return 1;
    if (s[1] >= '0' && s[1] <= '7')
        return s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7' ? 4 : 2;
    return s[1] ? 2 : 1;
}

/* Whether break b is better than best for a line of avail columns: one
 * that fills at least a third of the line wins, among those the shallowest
 * (an operand list before the operands of an operand), then the longest. */
static bool better(const Break *b, const Break *best, size_t avail)
{
    bool full = b->cut >= avail / 3, best_full = best->cut >= avail / 3;
    if (full != best_full)
        return full;
    if (full && b->depth != best->depth)
        return b->depth < best->depth;
    return b->cut > best->cut;
}

/* A split of the string literal at s[i], after a space when one is in
 * the second half of the line, else as late as fits. */
static void string_break(const char *s, size_t i, size_t avail, Break *str, bool *have)
{
    if (i + 1 > avail || !s[i + 1] || s[i - 1] == '"')
        return;
    bool after_space = s[i - 1] == ' ' && i >= avail / 2;
    if (!*have || after_space || !(str->cut >= avail / 2 && s[str->cut - 1] == ' '))
        *str = (Break){i, i, true, 0};
    *have = true;
}

/* The best break of code text s for a line of avail columns: a break
 * outside literals that fits (better() decides); a split of a string
 * literal when no such break fills a third of the line; else (or when
 * that is no third either) the last place between tokens that fits (after
 * "(" or "!", before ")"); the first
 * break that does not fit when nothing fits (false: no break at all). */
static bool find_break(const char *s, size_t avail, Break *best)
{
    Break fit = {0}, str = {0}, over = {0}, weak = {0};
    bool have_fit = false, have_str = false, have_over = false, have_weak = false;
    char quote = 0;
    int depth = 0;
    for (size_t i = 0; s[i];) {
        if (quote) {
            if (s[i] == quote)
                quote = 0;
            else if (quote == '"')
                string_break(s, i, avail, &str, &have_str);
            i += s[i] == quote || !quote ? 1 : unit_len(s + i);
            continue;
        }
        Break b = {0};
        bool is_break = false;
        if (s[i] == '"' || s[i] == '\'') {
            quote = s[i];
        } else if (strchr("([{", s[i])) {
            depth++;
        } else if (strchr(")]}", s[i])) {
            depth--;
        } else if (s[i] == ',' && s[i + 1] == ' ') {
            b = (Break){i + 1, i + 2, false, depth};
            is_break = true;
        } else if (s[i] == ' ' && (strncmp(s + i, " && ", 4) == 0 ||
                                   strncmp(s + i, " || ", 4) == 0)) {
            b = (Break){i, i + 1, false, depth - 1}; /* before a comma inside it */
            is_break = true;
        }
        if (!is_break && (s[i] == '(' || (s[i] == '!' && s[i + 1] != '=')) && s[i + 1] &&
            i + 1 <= avail) { /* a weak break between tokens, for want of a comma */
            weak = (Break){i + 1, i + 1, false, 0};
            have_weak = true;
        } else if (!is_break && s[i + 1] == ')' && i + 1 <= avail) {
            weak = (Break){i + 1, i + 1, false, 0};
            have_weak = true;
        }
        if (is_break && b.cut <= avail && (!have_fit || better(&b, &fit, avail))) {
            fit = b;
            have_fit = true;
        } else if (is_break && b.cut > avail && !have_over) {
            over = b;
            have_over = true;
        }
        i++;
    }
    if (have_str && (!have_fit || fit.cut < avail / 3)) {
        *best = str;
        return true;
    }
    if (have_weak && weak.cut > 0 && (!have_fit || fit.cut < avail / 3)) {
        *best = weak;
        return true;
    }
    *best = have_fit ? fit : over;
    return have_fit || have_over;
}

static void put_line(Emitter *E, int col, const char *text, size_t len, const char *tail)
{
    fprintf(E->out, "%*s%.*s%s\n", col, "", (int)len, text, tail);
    E->line++;
}

/* A code line: statements, declarations, initialisers. */
static void wrap_code(Emitter *E, int col, const char *text)
{
    int cont = col + 8;
    char *rest = xstrdup(text);
    for (;;) {
        size_t len = strlen(rest);
        Break b;
        size_t avail = col < EMIT_WIDTH - 20 ? EMIT_WIDTH - (size_t)col : 20;
        if ((size_t)col + len <= EMIT_WIDTH || !find_break(rest, avail, &b)) {
            put_line(E, col, rest, len, "");
            break;
        }
        put_line(E, col, rest, b.cut, b.in_string ? "\"" : "");
        StrBuf next = {0};
        strbuf_printf(&next, "%s%s", b.in_string ? "\"" : "", rest + b.resume);
        free(rest);
        rest = next.data;
        col = cont;
    }
    free(rest);
}

/* A comment line: broken between words, continued with " * ". */
static void wrap_comment(Emitter *E, int col, const char *text)
{
    const char *rest = text;
    bool first = true;
    while (*rest) {
        size_t lead = first ? 0 : 3;
        size_t len = strlen(rest), avail = EMIT_WIDTH - (size_t)col - lead;
        size_t cut = len;
        if (len > avail) {
            cut = 0;
            for (size_t i = 1; i < len && i <= avail; i++)
                if (rest[i] == ' ')
                    cut = i;
            if (!cut) /* one word wider than the line */
                cut = strcspn(rest + 1, " ") + 1;
        }
        fprintf(E->out, "%*s%s", col, "", first ? "" : " * ");
        put_line(E, 0, rest, cut, "");
        rest += cut;
        while (*rest == ' ')
            rest++;
        first = false;
    }
}

void emit_wrapped(Emitter *E, int col, const char *text)
{
    if (strncmp(text, "/*", 2) == 0 || strncmp(text, " * ", 3) == 0)
        wrap_comment(E, col, text);
    else
        wrap_code(E, col, text);
}

/* Appends line (len bytes) to sb with tabs expanded (stops of 8) and
 * trailing blanks dropped, so that columns count as a reader sees them. */
static void expand_tabs(StrBuf *sb, const char *line, size_t len)
{
    size_t start = sb->len;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '\t')
            do
                strbuf_putc(sb, ' ');
            while ((sb->len - start) % 8);
        else if (line[i] != '\r')
            strbuf_putc(sb, line[i]);
    }
    while (sb->len > start && sb->data[sb->len - 1] == ' ')
        sb->data[--sb->len] = '\0';
}

void emit_verbatim(Emitter *E, const char *text)
{
    StrBuf line = {0}, safe = {0};
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        line.len = 0;
        strbuf_putc(&line, '\0');
        line.len = 0;
        expand_tabs(&line, p, len);
        safe.len = 0;
        strbuf_putc(&safe, '\0');
        safe.len = 0;
        emit_comment_text(&safe, line.data);
        size_t lead = strspn(safe.data, " ");
        const char *rest = safe.data;
        int col = 0;
        while (strlen(rest) + (size_t)col > EMIT_WIDTH) {
            /* between words, else after a '(' or ',' of a long word */
            size_t avail = EMIT_WIDTH - (size_t)col, space = 0, punct = 0;
            for (size_t i = lead + 1; rest[i] && i <= avail; i++) {
                if (rest[i] == ' ')
                    space = i;
                else if (rest[i - 1] == '(' || rest[i - 1] == ',')
                    punct = i;
            }
            size_t cut = space ? space : punct;
            if (!cut)
                break;
            put_line(E, col, rest, cut, "");
            rest += cut + (space != 0);
            col = (int)lead + 4;
            lead = 0;
        }
        put_line(E, col, rest, strlen(rest), "");
        p += len + (p[len] == '\n');
    }
    strbuf_free(&line);
    strbuf_free(&safe);
}
