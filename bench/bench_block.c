/* bench_block.c - cutting chainable blocks out of real model text.
 *
 * The corpus models are TVM's printer output: one "def @main(PARAMS) {"
 * line, one binding "%N = RHS;" per line, a final expression and "}".
 * A block is the bindings %first..%last of such a body, read textually:
 * every "%N" and "%name" in a right-hand side becomes a reference to the
 * block's input, an earlier binding of the block, or a parameter, so the
 * generator can print copy after copy with fresh numbers and names.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* A parameter of the model text: "%name" and the rest of its declaration. */
typedef struct TextParam {
    char *name; /* without '%' */
    char *decl; /* ": Tensor[...] / * ... * /", possibly empty */
} TextParam;

/* A body line: "%N = RHS;" (temp N) or the final expression (temp -1). */
typedef struct TextLine {
    char *rhs; /* right-hand side without ';' */
    int temp;  /* the temp it binds, -1 for the final expression */
} TextLine;

/* The parts of a model text the extractor needs. */
typedef struct ModelText {
    TextParam *params; /* parameters of @main, in order */
    size_t nparams;    /* entries in params */
    size_t params_cap; /* capacity of params */
    TextLine *lines;   /* body lines, in order */
    size_t nlines;     /* entries in lines */
    size_t lines_cap;  /* capacity of lines */
} ModelText;

static bool fail(const char *label, const char *why)
{
    fprintf(stderr, "bench: %s: %s\n", label, why);
    return false;
}

/* The length of the name at s (after '%'): letters, digits, '_', '.',
 * and "::" as in %aten::_convolution_0.weight; a single ':' ends it (the
 * type declaration follows). */
static size_t name_len(const char *s)
{
    size_t n = 0;
    for (;;) {
        if (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
            n++;
        else if (s[n] == ':' && s[n + 1] == ':')
            n += 2;
        else
            return n;
    }
}

static char *trimmed(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return xstrndup(s, n);
}

/* Records one "%name DECL" parameter. */
static void add_param(ModelText *mt, const char *s, size_t len)
{
    char *param = trimmed(s, len);
    if (param[0] == '%') {
        size_t n = 1 + name_len(param + 1);
        mt->params = xgrow_items(mt->params, &mt->params_cap, mt->nparams + 1, sizeof *mt->params);
        TextParam *tp = &mt->params[mt->nparams++];
        tp->name = xstrndup(param + 1, n - 1);
        tp->decl = trimmed(param + n, strlen(param + n));
    }
    free(param);
}

/* Splits the parameter list that starts after "(" at its top-level commas,
 * skipping comments and bracketed types; returns the text after ")". */
static const char *split_params(const char *p, ModelText *mt)
{
    int depth = 0;
    const char *start = p;
    for (;; p++) {
        if (*p == '\0')
            return NULL;
        if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            if (!end)
                return NULL;
            p = end + 1;
        } else if (*p == '(' || *p == '[') {
            depth++;
        } else if ((*p == ')' || *p == ']') && depth > 0) {
            depth--;
        } else if ((*p == ',' || *p == ')') && depth == 0) {
            add_param(mt, start, (size_t)(p - start));
            if (*p == ')')
                return p + 1;
            start = p + 1;
        }
    }
}

/* Records one body line: "%N = RHS;" or the final expression. */
static void add_line(ModelText *mt, const char *line, size_t n)
{
    char *s = trimmed(line, n);
    int temp = -1;
    const char *rhs = s;
    const char *eq = strstr(s, " = ");
    if (s[0] == '%' && isdigit((unsigned char)s[1]) && eq) {
        temp = atoi(s + 1);
        rhs = eq + 3;
    }
    size_t len = strlen(rhs);
    if (temp >= 0 && len && rhs[len - 1] == ';')
        len--;
    mt->lines = xgrow_items(mt->lines, &mt->lines_cap, mt->nlines + 1, sizeof *mt->lines);
    mt->lines[mt->nlines].rhs = xstrndup(rhs, len);
    mt->lines[mt->nlines++].temp = temp;
    free(s);
}

/* Reads the parameters and body lines of @main. */
static bool read_model(const char *text, ModelText *mt, const char *label)
{
    const char *p = strstr(text, "def @main(");
    if (!p)
        return fail(label, "no 'def @main('");
    p = split_params(p + strlen("def @main("), mt);
    if (!p || !(p = strchr(p, '{')))
        return fail(label, "unterminated parameter list");
    p = strchr(p, '\n');
    while (p && *p) {
        const char *line = p + 1;
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char *t = trimmed(line, n);
        bool closing = strcmp(t, "}") == 0, blank = t[0] == '\0';
        free(t);
        if (closing)
            return true;
        if (!blank)
            add_line(mt, line, n);
        p = end;
    }
    return fail(label, "body of @main not closed");
}

static void model_text_free(ModelText *mt)
{
    for (size_t i = 0; i < mt->nparams; i++) {
        free(mt->params[i].name);
        free(mt->params[i].decl);
    }
    for (size_t i = 0; i < mt->nlines; i++)
        free(mt->lines[i].rhs);
    free(mt->params);
    free(mt->lines);
}

/* State while cutting one block: the spec, the text of the verbatim
 * pieces, and the growable arrays of the block. */
typedef struct Cutter {
    const BlockSpec *spec; /* what to cut */
    const ModelText *mt;   /* the model */
    Block *b;              /* the block being filled */
    StrBuf text;           /* verbatim bytes of all pieces */
    size_t lines_cap, params_cap; /* capacities of b->lines and b->params */
    int input_temp;        /* the input's temp number, or -1 for a name */
    const char *why;       /* the first problem found, or NULL */
} Cutter;

static uint32_t param_index(Cutter *c, const char *name, size_t n)
{
    Block *b = c->b;
    for (uint32_t i = 0; i < b->nparams; i++)
        if (strlen(b->params[i].name) == n && memcmp(b->params[i].name, name, n) == 0)
            return i;
    b->params = xgrow_items(b->params, &c->params_cap, b->nparams + 1, sizeof *b->params);
    BlockParam *bp = &b->params[b->nparams];
    bp->name = xstrndup(name, n);
    bp->decl = xstrdup("");
    for (size_t i = 0; i < c->mt->nparams; i++)
        if (strcmp(c->mt->params[i].name, bp->name) == 0) {
            free(bp->decl);
            bp->decl = xstrdup(c->mt->params[i].decl);
        }
    return b->nparams++;
}

static void add_piece(BlockLine *l, size_t *cap, Piece p)
{
    l->pieces = xgrow_items(l->pieces, cap, l->npieces + 1, sizeof *l->pieces);
    l->pieces[l->npieces++] = p;
}

/* The piece for the reference "%..." of length n at s, inside line number
 * `self` of the block (relative). */
static Piece reference(Cutter *c, const char *s, size_t n, uint32_t self)
{
    Piece p = {.kind = PIECE_INPUT};
    if (isdigit((unsigned char)s[1])) {
        int t = atoi(s + 1);
        if (t == c->input_temp)
            return p;
        if (t < c->spec->first || t - c->spec->first >= (int)self) {
            c->why = "a binding reads a temp outside the block";
            return p;
        }
        p.kind = PIECE_TEMP;
        p.index = (uint32_t)(t - c->spec->first);
        return p;
    }
    if (strlen(c->spec->input) == n && memcmp(c->spec->input, s, n) == 0)
        return p;
    p.kind = PIECE_PARAM;
    p.index = param_index(c, s + 1, n - 1);
    return p;
}

/* Splits one right-hand side into text and reference pieces. */
static void cut_line(Cutter *c, const char *rhs, uint32_t self)
{
    BlockLine *l = &c->b->lines[self];
    size_t cap = 0, start = 0, i = 0;
    memset(l, 0, sizeof *l);
    l->is_op = isalpha((unsigned char)rhs[0]) && strncmp(rhs, "fn ", 3) != 0;
    while (rhs[i]) {
        if (rhs[i] != '%') {
            i++;
            continue;
        }
        size_t n = 1;
        if (isdigit((unsigned char)rhs[i + 1]))
            while (isdigit((unsigned char)rhs[i + n]))
                n++;
        else
            n += name_len(rhs + i + 1);
        if (i > start)
            add_piece(l, &cap, (Piece){PIECE_TEXT, c->text.len, i - start, 0});
        strbuf_append(&c->text, rhs + start, i - start);
        add_piece(l, &cap, reference(c, rhs + i, n, self));
        i += n;
        start = i;
    }
    if (i > start)
        add_piece(l, &cap, (Piece){PIECE_TEXT, c->text.len, i - start, 0});
    strbuf_append(&c->text, rhs + start, i - start);
}

/* The type of the input as a declaration: a parameter's own, or ": T"
 * from the "ty=T" annotation of the binding that makes it. */
static char *input_decl(const Cutter *c)
{
    const ModelText *mt = c->mt;
    if (c->input_temp < 0) {
        for (size_t i = 0; i < mt->nparams; i++)
            if (strcmp(mt->params[i].name, c->spec->input + 1) == 0)
                return xstrdup(mt->params[i].decl);
        return xstrdup("");
    }
    for (size_t i = 0; i < mt->nlines; i++) {
        const char *ty = strstr(mt->lines[i].rhs, "ty=");
        if (mt->lines[i].temp != c->input_temp || !ty)
            continue;
        size_t n = strcspn(ty + 3, "*");
        const char *span = strstr(ty, " span=");
        if (span && (size_t)(span - ty - 3) < n)
            n = (size_t)(span - ty - 3);
        char *t = trimmed(ty + 3, n);
        StrBuf sb = {0};
        strbuf_printf(&sb, ": %s", t);
        free(t);
        return sb.data;
    }
    return xstrdup("");
}

/* Whether body line i belongs to the block. */
static bool in_block(const BlockSpec *spec, const TextLine *l)
{
    if (l->temp < 0)
        return spec->last < 0;
    return l->temp >= spec->first && (spec->last < 0 || l->temp <= spec->last);
}

static bool cut(Cutter *c, const char *label)
{
    Block *b = c->b;
    for (size_t i = 0; i < c->mt->nlines && !c->why; i++) {
        const TextLine *l = &c->mt->lines[i];
        if (!in_block(c->spec, l))
            continue;
        if (l->temp >= 0 && l->temp != c->spec->first + (int)b->nlines)
            c->why = "temps of the block are not consecutive";
        b->lines = xgrow_items(b->lines, &c->lines_cap, b->nlines + 1, sizeof *b->lines);
        cut_line(c, l->rhs, b->nlines);
        b->nops += b->lines[b->nlines].is_op;
        b->nlines++;
    }
    if (!c->why && b->nlines == 0)
        c->why = "the block is empty";
    return c->why ? fail(label, c->why) : true;
}

bool block_extract(Block *b, const BlockSpec *spec, const char *text, const char *label)
{
    ModelText mt = {0};
    memset(b, 0, sizeof *b);
    Cutter c = {.spec = spec, .mt = &mt, .b = b, .input_temp = -1};
    if (isdigit((unsigned char)spec->input[1]))
        c.input_temp = atoi(spec->input + 1);
    bool ok = read_model(text, &mt, label) && cut(&c, label);
    if (ok) {
        StrBuf name = {0};
        strbuf_printf(&name, "%s %s..", label, spec->input);
        b->name = name.data;
        b->input_decl = input_decl(&c);
        strbuf_putc(&c.text, '\0');
        b->text = c.text.data;
    } else {
        strbuf_free(&c.text);
        block_free(b);
    }
    model_text_free(&mt);
    return ok;
}

void block_free(Block *b)
{
    for (uint32_t i = 0; i < b->nlines; i++)
        free(b->lines[i].pieces);
    for (uint32_t i = 0; i < b->nparams; i++) {
        free(b->params[i].name);
        free(b->params[i].decl);
    }
    free(b->lines);
    free(b->params);
    free(b->name);
    free(b->input_decl);
    free(b->text);
    memset(b, 0, sizeof *b);
}

/* Prints line i's right-hand side with references spelled as in a
 * stand-alone model. */
static void write_rhs(const Block *b, uint32_t i, FILE *out)
{
    const BlockLine *l = &b->lines[i];
    for (uint32_t k = 0; k < l->npieces; k++) {
        const Piece *p = &l->pieces[k];
        if (p->kind == PIECE_TEXT)
            fwrite(b->text + p->off, 1, p->len, out);
        else if (p->kind == PIECE_INPUT)
            fputs("%input", out);
        else if (p->kind == PIECE_TEMP)
            fprintf(out, "%%%u", p->index);
        else
            fprintf(out, "%%%s", b->params[p->index].name);
    }
}

/* The separator between a parameter's name and its declaration: none
 * before ": T", a space before a bare annotation comment. */
const char *block_decl_sep(const char *decl)
{
    return decl[0] == ':' || decl[0] == '\0' ? "" : " ";
}

void block_write_model(const Block *b, FILE *out)
{
    fprintf(out, "def @main(%%input%s%s", block_decl_sep(b->input_decl), b->input_decl);
    for (uint32_t i = 0; i < b->nparams; i++) {
        const BlockParam *p = &b->params[i];
        fprintf(out, ", %%%s%s%s", p->name, block_decl_sep(p->decl), p->decl);
    }
    fputs(") {\n", out);
    for (uint32_t i = 0; i + 1 < b->nlines; i++) {
        fprintf(out, "  %%%u = ", i);
        write_rhs(b, i, out);
        fputs(";\n", out);
    }
    fputs("  ", out);
    write_rhs(b, b->nlines - 1, out);
    fputs("\n}\n", out);
}
