/* fmt_rules.c - graft fmt of a rule file: the items in their layout
 * (fmt_rules_layout.c) and the comments between and beside them.
 *
 * note [comment placement]: the scanner keeps every comment's place
 * (AstFile.comments); each is printed again, in the order written,
 * where it was as far as the layout allows:
 *   - a comment after the last token of an item, on that token's line,
 *     stays at the end of the item's last line, after one space;
 *   - a comment between items stays there, on a line of its own at
 *     column 1;
 *   - a comment inside an item (between its tokens) moves to a line of
 *     its own just before the item: the layout's lines are not the ones
 *     written, so no line of the item is its place any more.
 * Line comments lose their trailing blanks; block comments are printed
 * byte for byte.  One empty line stays where the text had one or more
 * between two items or comments; none at the start and the end.  Each of
 * these places is one the comment keeps when formatted again.
 */
#include <limits.h>
#include <string.h>

#include "fmt_rules.h"
#include "rules_lex.h"

/* The printing of one file. */
typedef struct Fmt {
    const Source *src;
    const AstFile *file;
    StrBuf *out;
    int next;      /* the first comment not yet printed */
    int last_line; /* the last source line of what was printed; 0 at first */
} Fmt;

static size_t offset_of(const Source *src, int line, int column)
{
    return source_line_starts(src)[line - 1] + (size_t)(column - 1);
}

static SrcRange comment_range(const Fmt *f, int i)
{
    return source_range(f->src, f->file->comments[i].begin, f->file->comments[i].end);
}

static void put_comment_text(Fmt *f, int i)
{
    const AstComment *c = &f->file->comments[i];
    size_t end = c->end;
    if (f->src->text[c->begin] == '#')
        while (end > c->begin && strchr(" \t\r\f\v", f->src->text[end - 1]))
            end--;
    strbuf_append(f->out, f->src->text + c->begin, end - c->begin);
}

/* Starts a line for something written from source line first: after an
 * empty line when the text had one before it. */
static void start_line(Fmt *f, int first)
{
    if (f->last_line > 0 && first > f->last_line + 1)
        strbuf_putc(f->out, '\n');
}

/* Every comment that begins before offset end, each on its own line; one
 * inside the item from source line first on prints as if on line first
 * (no empty line between it and the item). */
static void put_comments_before(Fmt *f, size_t end, int first)
{
    for (; f->next < f->file->ncomments && f->file->comments[f->next].begin < end; f->next++) {
        SrcRange r = comment_range(f, f->next);
        bool inside = r.first_line >= first;
        start_line(f, inside ? first : r.first_line);
        put_comment_text(f, f->next);
        strbuf_putc(f->out, '\n');
        f->last_line = inside ? first - 1 : r.last_line;
    }
}

static void put_item(Fmt *f, const AstItem *item)
{
    SrcRange r = item->range;
    size_t end = offset_of(f->src, r.last_line, r.last_column + 1);
    put_comments_before(f, end, r.first_line);
    start_line(f, r.first_line);
    fmt_rules_item(f->out, item);
    f->last_line = r.last_line;
    for (; f->next < f->file->ncomments; f->next++) {
        SrcRange c = comment_range(f, f->next);
        if (c.first_line != r.last_line)
            break;
        strbuf_putc(f->out, ' ');
        put_comment_text(f, f->next);
        f->last_line = c.last_line;
    }
    strbuf_putc(f->out, '\n');
}

bool fmt_rules_source(const Source *src, int max_depth, StrBuf *out, graft_diag *d)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    AstBuilder b = {arena, names, src, false};
    unsigned errors = diag_errors(d);
    AstFile *file = rules_parse_source(src, &b, max_depth, d);
    bool ok = file && diag_errors(d) == errors;
    if (ok) {
        Fmt f = {src, file, out, 0, 0};
        for (int i = 0; i < file->nitems; i++)
            put_item(&f, &file->items[i]);
        put_comments_before(&f, src->len + 1, INT_MAX);
    }
    interner_free(names);
    arena_free(arena);
    return ok;
}
