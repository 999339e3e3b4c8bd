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

/* The breaks found in one scan of a line, the best of each kind. */
typedef struct Breaks {
    size_t avail;      /* columns the line may use */
    Break fit;         /* outside literals, fitting: better() decides */
    Break over;        /* outside literals, the first that does not fit */
    Break str;         /* a split of a string literal */
    Break weak;        /* between tokens: after "(", "{" or "!", before ")" */
    bool have_fit, have_over, have_str, have_weak;
} Breaks;

/* A split of the string literal at s[i], after a space when one is in
 * the second half of the line, else as late as fits. */
static void string_break(Breaks *bs, const char *s, size_t i)
{
    size_t avail = bs->avail;
    if (i + 1 > avail || !s[i + 1] || s[i - 1] == '"')
        return;
    bool after_space = s[i - 1] == ' ' && i >= avail / 2;
    if (!bs->have_str || after_space ||
        !(bs->str.cut >= avail / 2 && s[bs->str.cut - 1] == ' '))
        bs->str = (Break){i, i, true, 0};
    bs->have_str = true;
}

static void comma_break(Breaks *bs, Break b)
{
    if (b.cut <= bs->avail && (!bs->have_fit || better(&b, &bs->fit, bs->avail))) {
        bs->fit = b;
        bs->have_fit = true;
    } else if (b.cut > bs->avail && !bs->have_over) {
        bs->over = b;
        bs->have_over = true;
    }
}

/* The weak break after s[i], if any: for want of a comma. */
static void weak_break(Breaks *bs, const char *s, size_t i)
{
    bool after = s[i] == '(' || s[i] == '{' || (s[i] == '!' && s[i + 1] != '=') ||
                 s[i + 1] == ')';
    if (after && s[i + 1] && i + 1 <= bs->avail) {
        bs->weak = (Break){i + 1, i + 1, false, 0};
        bs->have_weak = true;
    }
}

/* Scans s outside and inside literals for the breaks of each kind. */
static void scan_breaks(Breaks *bs, const char *s)
{
    char quote = 0;
    int depth = 0;
    for (size_t i = 0; s[i]; i++) {
        if (quote) {
            if (s[i] == quote) {
                quote = 0;
                continue;
            }
            if (quote == '"')
                string_break(bs, s, i);
            i += unit_len(s + i) - 1;
        } else if (s[i] == '"' || s[i] == '\'') {
            quote = s[i];
        } else if (strchr("([{", s[i])) {
            depth++;
            weak_break(bs, s, i);
        } else if (strchr(")]}", s[i])) {
            depth--;
            weak_break(bs, s, i);
        } else if (s[i] == ',' && s[i + 1] == ' ') {
            comma_break(bs, (Break){i + 1, i + 2, false, depth});
        } else if (strncmp(s + i, " && ", 4) == 0 || strncmp(s + i, " || ", 4) == 0) {
            comma_break(bs, (Break){i, i + 1, false, depth - 1}); /* before a comma in it */
        } else {
            weak_break(bs, s, i);
        }
    }
}

/* The best break of code text s for a line of avail columns: a break
 * outside literals that fits (better() decides); when none fills a third
 * of the line, a split of a string literal, else a weak break between
 * tokens; the first break that does not fit when nothing fits (false: no
 * break at all). */
static bool find_break(const char *s, size_t avail, Break *best)
{
    Breaks bs = {.avail = avail};
    scan_breaks(&bs, s);
    bool short_fit = !bs.have_fit || bs.fit.cut < avail / 3;
    if (bs.have_str && short_fit)
        *best = bs.str;
    else if (bs.have_weak && bs.weak.cut > 0 && short_fit)
        *best = bs.weak;
    else if (bs.have_fit || bs.have_over)
        *best = bs.have_fit ? bs.fit : bs.over;
    else
        return false;
    return true;
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

/* Where line (at column col, its words from lead on) is broken to fit:
 * the last space, else after the last '(' or ',' of a long word; 0 for
 * nowhere.  *skip is 1 when the break drops a space. */
static size_t verbatim_cut(const char *line, int col, size_t lead, size_t *skip)
{
    size_t avail = EMIT_WIDTH - (size_t)col, space = 0, punct = 0;
    for (size_t i = lead + 1; line[i] && i <= avail; i++) {
        if (line[i] == ' ')
            space = i;
        else if (line[i - 1] == '(' || line[i - 1] == ',')
            punct = i;
    }
    *skip = space != 0;
    return space ? space : punct;
}

/* One line of comment text, continued 4 columns deeper than it starts. */
static void verbatim_line(Emitter *E, const char *line)
{
    size_t lead = strspn(line, " "), cut, skip;
    int col = 0;
    while (strlen(line) + (size_t)col > EMIT_WIDTH &&
           (cut = verbatim_cut(line, col, lead, &skip))) {
        put_line(E, col, line, cut, "");
        line += cut + skip;
        col = (int)lead + 4;
        lead = 0;
    }
    put_line(E, col, line, strlen(line), "");
}

void emit_verbatim(Emitter *E, const char *text)
{
    StrBuf line = {0}, safe = {0};
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        line.len = safe.len = 0;
        strbuf_puts(&line, ""); /* data set even for an empty line */
        expand_tabs(&line, p, len);
        strbuf_puts(&safe, "");
        emit_comment_text(&safe, line.data);
        verbatim_line(E, safe.data);
        p += len + (p[len] == '\n');
    }
    strbuf_free(&line);
    strbuf_free(&safe);
}
