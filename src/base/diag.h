/* diag.h - source files in memory and diagnostics with a caret.
 *
 * Every error graft reports about an input file has the form
 *
 *   rules.graft:12:13: error: unknown op 'addd'; did you mean 'add'?
 *      12 | add_zero := addd(x, 0) => x
 *         |             ^~~~
 *
 * A Source keeps the whole text and its line starts so that any stage can
 * reprint a line long after lexing.  A Diag counts what was reported and
 * tells callers when to give up (after the errors limit, limit.h).
 */
#ifndef GRAFT_DIAG_H
#define GRAFT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "graft.h"
#include "graft_api.h"
#include "util.h"

/* A range of source text, 1-based, last_column inclusive.  The field names
 * are bison's YYLTYPE names, so parsers use it as their location type
 * (%define api.location.type {SrcRange}). */
typedef struct SrcRange {
    int first_line;
    int first_column;
    int last_line;
    int last_column;
} SrcRange;

/* note [lines indexed on first use]: a Source's line starts are found the
 * first time something asks for a line (source_line_starts, source_line,
 * source_range, a diagnostic), not when it is made: the builtin registry
 * tables' Sources (registry_table_source) are made at every run for the
 * diagnostics that may quote them, and most runs quote nothing.  Read
 * line_starts and nlines only through source_line_starts and
 * source_line_count, which build them.  A Source made by source_borrow
 * does not copy its text either (the tables' text is static). */
typedef struct Source {
    char *name;          /* as named by the user; "<stdin>" for "-" */
    char *text;          /* the contents, with a NUL appended */
    size_t len;          /* bytes of text, without the appended NUL */
    size_t *line_starts; /* offset of each line's first byte; NULL until asked
                            for (note [lines indexed on first use]) */
    size_t nlines;       /* lines in line_starts (at least 1 once built) */
    bool one_line;       /* a binary file: the whole text is line 1 */
    bool borrowed;       /* text is not the Source's (source_borrow) */
    bool padded;         /* text[len + 1] is a NUL too (source_read): a
                            scanner may read text in place (note [relay
                            lexer] in grammar/relay_lex.l) */
} Source;

/* Read a whole file ("-" for standard input).  On failure reports
 * "graft: error: cannot read 'NAME': REASON" through d and returns NULL. */
Source *source_read(const char *path, graft_diag *d);
/* The same for a binary file (an ONNX model, whose errors name byte
 * offsets: diag_byte_error): its lines are not indexed, which would cost
 * a scan of every byte; the whole file counts as line 1. */
Source *source_read_binary(const char *path, graft_diag *d);
Source *source_from_string(const char *name, const char *text, size_t len);
/* A Source of a text that outlives it (static), not copied: text[len]
 * must be its NUL. */
Source *source_borrow(const char *name, const char *text, size_t len);
void source_free(Source *src);
/* Indexes src's lines now (note [lines indexed on first use]); returns
 * line_starts.  Call source_line_starts instead. */
const size_t *source_index_lines(const Source *src);
/* Where each line starts, indexed on the first call; source_line_count()
 * entries.  Inline: a loader asks at every node it places. */
static inline const size_t *source_line_starts(const Source *src)
{
    return src->line_starts ? src->line_starts : source_index_lines(src);
}
static inline size_t source_line_count(const Source *src)
{
    source_line_starts(src);
    return src->nlines;
}
/* Line number (1-based) and its bytes, without the newline. */
const char *source_line(const Source *src, int line, size_t *len);
/* The range covering byte offsets [begin, end) of src. */
SrcRange source_range(const Source *src, size_t begin, size_t end);

/* A scanner's place in a source: the line of the last range it asked
 * for.  Zero-initialised it is at line 1. */
typedef struct SrcCursor {
    size_t line; /* index in line_starts */
} SrcCursor;

/* source_range() for a scanner asking in text order: the line is carried
 * forward from the previous range instead of searched for, so a token
 * costs a comparison or two.  A begin before the cursor's line still gets
 * the right range (by a search). */
SrcRange source_range_at(const Source *src, SrcCursor *cur, size_t begin, size_t end);

/* Diagnostics go to out (normally stderr).  color is never used: output
 * is compared byte for byte by tests.  With out NULL they are counted but
 * not printed (a first attempt whose errors another one reports). */
graft_diag *diag_new(FILE *out);
void diag_free(graft_diag *d);

void diag_error(graft_diag *d, const Source *src, SrcRange where, const char *fmt, ...)
    GRAFT_PRINTF(4, 5);
/* flag names the warning, printed as "[-Wflag]" at the end of the line. */
void diag_warning(graft_diag *d, const Source *src, SrcRange where, const char *flag,
                  const char *fmt, ...) GRAFT_PRINTF(5, 6);
void diag_note(graft_diag *d, const Source *src, SrcRange where, const char *fmt, ...)
    GRAFT_PRINTF(4, 5);
/* An error that belongs to no place in a file: "graft: error: ...". */
void diag_plain_error(graft_diag *d, const char *fmt, ...) GRAFT_PRINTF(2, 3);

/* One report as a structured sink receives it (graft lsp, and the JSON
 * and SARIF output of --diagnostics-format): the text it would print,
 * without the excerpt.  Everything it points to is valid only during the
 * call. */
typedef struct DiagRecord {
    const char *kind;    /* "error", "warning" or "note" (a promoted warning
                            is an "error"), "fatal error" at the error limit */
    const char *flag;    /* a warning's flag (without "-W"), or NULL */
    const Source *src;   /* NULL: an error of no place ("graft: error: ...") */
    SrcRange where;      /* in src */
    const char *message; /* formatted, without the "[-Wflag]" suffix */
    const char *file;    /* src NULL: the file the error is about
                            (diag_file_error, diag_byte_error), or NULL */
    bool has_byte;       /* with file: the error is at a byte of it */
    uint64_t byte;       /* that byte's offset (diag_byte_error) */
} DiagRecord;

typedef void (*DiagSink)(void *ctx, const DiagRecord *rec);

/* Sends every report to sink instead of printing it (NULL: print again).
 * Counting, the error limit and -Wno- work as before. */
void diag_set_sink(graft_diag *d, DiagSink sink, void *ctx);
/* An error at a byte of a binary file (an ONNX model), which has no lines
 * to show: "NAME: error: byte OFFSET: ...". */
void diag_byte_error(graft_diag *d, const char *name, uint64_t offset, const char *fmt, ...)
    GRAFT_PRINTF(4, 5);

/* An error about a file as a whole, or a part of it that has no line or
 * byte to show (a node of an ONNX model): "NAME: error: ...".  (Control
 * bytes of every report's message are shown as \xNN: note [one-line
 * messages] in diag.c.) */
void diag_file_error(graft_diag *d, const char *name, const char *fmt, ...) GRAFT_PRINTF(3, 4);

/* Treat warnings as errors (graft check -Werror). */
void diag_set_werror(graft_diag *d, bool on);
/* -Wno-NAME: drops the warnings with that flag (borrowed, must outlive
 * d); a dropped warning is neither printed nor counted, nor are the notes
 * that follow it. */
void diag_warning_off(graft_diag *d, const char *flag);
bool diag_warning_on(const graft_diag *d, const char *flag);
/* Give up after max errors (0: never); the default is limit_defaults.errors
 * (limit.h). */
void diag_set_error_limit(graft_diag *d, uint64_t max);
unsigned diag_errors(const graft_diag *d);
unsigned diag_warnings(const graft_diag *d);
/* True once the error limit was reached; further reports are
 * dropped and one "too many errors" line was printed.  Parsers stop. */
bool diag_gave_up(const graft_diag *d);

/* Diagnostics kept as records (graft_message, graft_api.h) instead of
 * printed, for the library's callers: diag_capture.c, through the sink
 * above.  A capturing diag has no error limit. */
typedef struct DiagCapture DiagCapture;
graft_diag *diag_new_capture(void);
/* Its records; NULL for a printing diag. */
DiagCapture *diag_capture_of(const graft_diag *d);
/* Forgets the counts, the last error and the records. */
void diag_reset(graft_diag *d);
DiagCapture *diag_capture_new(void);
void diag_capture_free(DiagCapture *c);
void diag_capture_clear(DiagCapture *c);
/* The sink of a capturing diag (ctx a DiagCapture): records one report;
 * a note joins the report before it. */
void diag_capture_record(void *capture, const DiagRecord *rec);
size_t diag_capture_count(const DiagCapture *c);
const graft_message *diag_capture_get(const DiagCapture *c, size_t i);

#endif
