/* diag_json.c - diagnostics as GCC-style JSON or SARIF 2.1.0 (diag_json.h).
 * The reports are recorded as they come (their sources may be freed
 * before the end) and written as one document when the command ends. */
#include "config.h"

#include "diag_json.h"

#include <stdlib.h>
#include <string.h>

/* A place in a file: graft's line and byte column, and the column in
 * code points. */
typedef struct Place {
    int line;
    int column;     /* bytes, 1-based */
    int codepoint;  /* code points, 1-based */
} Place;

typedef struct Record {
    char *kind;     /* "error", "warning", "note", "fatal error" */
    char *flag;     /* a warning's flag, or NULL */
    char *file;     /* NULL: no place */
    Place start;    /* the first byte */
    Place finish;   /* the last byte (inclusive) */
    char *message;
    int parent;     /* a note: the index of the report it belongs to; else -1 */
    bool whole;     /* about file as a whole or a byte of it: no line */
    int64_t byte;   /* whole: the byte's offset, or -1 */
} Record;

struct DiagLog {
    DiagFormat format;
    VEC(Record) records;
};

bool diag_format_by_name(const char *name, DiagFormat *out)
{
    static const char *const names[] = {"text", "json", "sarif"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (DiagFormat)i;
            return true;
        }
    return false;
}

DiagLog *diag_log_new(DiagFormat format)
{
    DiagLog *log = xcalloc(1, sizeof *log);
    log->format = format;
    return log;
}

/* The place of byte column col on line of src. */
static Place place_of(const Source *src, int line, int col)
{
    size_t len;
    const char *text = source_line(src, line, &len);
    int points = 1;
    for (size_t i = 0; i + 1 < (size_t)col && i < len; i++)
        if (((unsigned char)text[i] & 0xc0) != 0x80)
            points++;
    return (Place){line, col, points};
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static void record(void *ctx, const DiagRecord *rec)
{
    DiagLog *log = ctx;
    Record r = {xstrdup(rec->kind), dup_or_null(rec->flag), NULL, {0, 0, 0}, {0, 0, 0},
                xstrdup(rec->message), -1, false, -1};
    if (rec->src) {
        r.file = xstrdup(rec->src->name);
        r.start = place_of(rec->src, rec->where.first_line, rec->where.first_column);
        r.finish = place_of(rec->src, rec->where.last_line, rec->where.last_column);
    } else if (rec->file) { /* a binary file, or a file as a whole */
        r.file = xstrdup(rec->file);
        r.whole = true;
        r.byte = rec->has_byte ? (int64_t)rec->byte : -1;
    }
    if (strcmp(rec->kind, "note") == 0)
        for (size_t i = log->records.len; i > 0; i--)
            if (log->records.items[i - 1].parent < 0) {
                r.parent = (int)(i - 1);
                break;
            }
    vec_push(&log->records, r);
}

void diag_log_attach(DiagLog *log, graft_diag *d)
{
    diag_set_sink(d, record, log);
}

void diag_log_free(DiagLog *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->records.len; i++) {
        Record *r = &log->records.items[i];
        free(r->kind);
        free(r->flag);
        free(r->file);
        free(r->message);
    }
    vec_free(&log->records);
    free(log);
}

/* Writes the UTF-8 sequence at p (its lead byte >= 0x80), or U+FFFD when
 * it is not a valid one; returns the bytes consumed. */
static size_t put_utf8(FILE *out, const unsigned char *p)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (p[0] >= 0xf5)
        n = 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            n = 0; /* a cut sequence (the NUL too ends it here) */
    bool overlong = (n == 3 && p[0] == 0xe0 && p[1] < 0xa0) ||
                    (n == 4 && p[0] == 0xf0 && p[1] < 0x90);
    bool beyond = (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
                  (n == 4 && p[0] == 0xf4 && p[1] >= 0x90);
    if (n == 0 || overlong || beyond) {
        fputs("\ufffd", out);
        return 1;
    }
    fwrite(p, 1, n, out);
    return n;
}

/* s as a JSON string: quotes, backslashes and control bytes escaped; a
 * byte that starts no valid UTF-8 sequence is written as U+FFFD. */
static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else if (*p < 0x80)
            fputc(*p, out);
        else
            p += put_utf8(out, p) - 1;
    }
    fputc('"', out);
}

/* GCC's location: {"caret": {...}, "finish": {...}}. */
static void put_gcc_place(FILE *out, const char *file, Place p)
{
    fputs("{\"file\": ", out);
    put_string(out, file);
    fprintf(out, ", \"line\": %d, \"column\": %d, \"byte-column\": %d}", p.line,
            p.codepoint, p.column);
}

/* Record i as GCC writes one diagnostic, its notes as children. */
static void put_gcc_record(const DiagLog *log, size_t i, FILE *out)
{
    const Record *r = &log->records.items[i];
    fputs("{\"kind\": ", out);
    put_string(out, r->kind);
    fputs(", \"message\": ", out);
    put_string(out, r->message);
    if (r->flag)
        fprintf(out, ", \"option\": \"-W%s\"", r->flag);
    fputs(", \"locations\": [", out);
    if (r->whole) { /* the file without a line, the byte as graft prints it */
        fputs("{\"caret\": {\"file\": ", out);
        put_string(out, r->file);
        if (r->byte >= 0)
            fprintf(out, ", \"byte\": %lld", (long long)r->byte);
        fputs("}}", out);
    } else if (r->file) {
        fputs("{\"caret\": ", out);
        put_gcc_place(out, r->file, r->start);
        fputs(", \"finish\": ", out);
        put_gcc_place(out, r->file, r->finish);
        fputc('}', out);
    }
    fputs("], \"children\": [", out);
    const char *sep = "";
    for (size_t j = i + 1; j < log->records.len && log->records.items[j].parent == (int)i; j++) {
        fputs(sep, out);
        put_gcc_record(log, j, out);
        sep = ", ";
    }
    fputs("]}", out);
}

/* Each record of log that is not a note of another, by put, sep before
 * each (first before the first). */
static void put_top_records(const DiagLog *log, FILE *out, const char *first, const char *sep,
                            void (*put)(const DiagLog *, size_t, FILE *))
{
    for (size_t i = 0; i < log->records.len; i++)
        if (log->records.items[i].parent < 0) {
            fputs(first, out);
            put(log, i, out);
            first = sep;
        }
}

static void write_gcc(const DiagLog *log, FILE *out)
{
    fputc('[', out);
    put_top_records(log, out, "", ",\n ", put_gcc_record);
    fputs("]\n", out);
}

/* A SARIF physicalLocation; endColumn is exclusive. */
static void put_sarif_location(FILE *out, const Record *r)
{
    fputs("{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
    put_string(out, r->file);
    if (r->whole) { /* SARIF's region by byte offset; none for the whole file */
        if (r->byte >= 0)
            fprintf(out, "}, \"region\": {\"byteOffset\": %lld}}", (long long)r->byte);
        else
            fputs("}}", out);
        return;
    }
    fprintf(out, "}, \"region\": {\"startLine\": %d, \"startColumn\": %d, "
            "\"endLine\": %d, \"endColumn\": %d}}", r->start.line, r->start.codepoint,
            r->finish.line, r->finish.codepoint + 1);
}

/* SARIF's levels: error, warning, note. */
static const char *sarif_level(const char *kind)
{
    if (strcmp(kind, "warning") == 0)
        return "warning";
    return strcmp(kind, "note") == 0 ? "note" : "error";
}

static void put_sarif_result(const DiagLog *log, size_t i, FILE *out)
{
    const Record *r = &log->records.items[i];
    fputs("{", out);
    if (r->flag)
        fprintf(out, "\"ruleId\": \"-W%s\", ", r->flag);
    fprintf(out, "\"level\": \"%s\", \"message\": {\"text\": ", sarif_level(r->kind));
    put_string(out, r->message);
    fputs("}, \"locations\": [", out);
    if (r->file) {
        put_sarif_location(out, r);
        fputc('}', out);
    }
    fputs("], \"relatedLocations\": [", out);
    const char *sep = "";
    for (size_t j = i + 1; j < log->records.len && log->records.items[j].parent == (int)i; j++) {
        const Record *note = &log->records.items[j];
        if (!note->file)
            continue;
        fputs(sep, out);
        put_sarif_location(out, note);
        fputs(", \"message\": {\"text\": ", out);
        put_string(out, note->message);
        fputs("}}", out);
        sep = ", ";
    }
    fputs("]}", out);
}

static void write_sarif(const DiagLog *log, FILE *out)
{
    fputs("{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", "
          "\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": {\"name\": "
          "\"graft\", \"version\": \"" PACKAGE_VERSION "\"}}, "
          "\"columnKind\": \"unicodeCodePoints\", \"results\": [", out);
    put_top_records(log, out, "\n  ", ",\n  ", put_sarif_result);
    fputs("]}]}\n", out);
}

void diag_log_write(const DiagLog *log, FILE *out)
{
    if (log->format == DIAG_FORMAT_SARIF)
        write_sarif(log, out);
    else if (log->format == DIAG_FORMAT_JSON)
        write_gcc(log, out);
}
