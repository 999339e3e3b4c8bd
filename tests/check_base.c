/* check_base.c - tests of the shared infrastructure: arenas, interning,
 * string buffers, source line indexing, diagnostics and atomic output. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "limit.h"
#include "outfile.h"
#include "util.h"
#include "walk.h"
#include "check_main.h"

START_TEST(arena_zeroes_and_aligns)
{
    Arena *a = arena_new();
    for (int i = 1; i < 2000; i += 37) {
        unsigned char *p = arena_alloc(a, (size_t)i);
        ck_assert_uint_eq((uintptr_t)p % 16, 0);
        for (int j = 0; j < i; j++)
            ck_assert_uint_eq(p[j], 0);
        memset(p, 0xab, (size_t)i);
    }
    /* A block larger than a chunk comes from a chunk of its own. */
    char *big = arena_alloc(a, 1 << 20);
    ck_assert_uint_eq((unsigned char)big[(1 << 20) - 1], 0);
    ck_assert_uint_ge(arena_bytes(a), 1 << 20);
    arena_free(a);
}
END_TEST

/* An allocation of 0 bytes is a valid pointer, on a new arena too, and
 * after a large block was its first (the bump's fast path once gave a new
 * arena's NULL, which UBSan refused in memset). */
START_TEST(arena_empty_allocations)
{
    Arena *a = arena_new();
    ck_assert_ptr_nonnull(arena_alloc(a, 0));
    ck_assert_ptr_nonnull(arena_array(a, 0, 8));
    ck_assert_ptr_nonnull(arena_dup(a, "", 0));
    arena_free(a);
    a = arena_new();
    ck_assert_ptr_nonnull(arena_alloc(a, 1 << 20));
    ck_assert_ptr_nonnull(arena_alloc(a, 0));
    char *s = arena_strndup(a, "x", 0);
    ck_assert_str_eq(s, "");
    arena_free(a);
}
END_TEST

/* arena_reset keeps the current chunk for what comes next, so that a
 * scratch arena used per element (note [lean read] in
 * src/onnx/onnx_lean.h) allocates again from the same bytes; it frees the
 * rest: an older chunk, a large request of its own, even one that was the
 * arena's first allocation. */
START_TEST(arena_reset_keeps_its_chunk)
{
    Arena *a = arena_new();
    arena_reset(a); /* (no chunk yet) */
    ck_assert_uint_eq(arena_bytes(a), 0);
    arena_alloc(a, 100);
    size_t chunk = arena_bytes(a);
    for (int i = 0; i < 2000; i++) /* past one chunk, and a large request */
        arena_alloc(a, 100);
    arena_alloc(a, 1 << 20);
    ck_assert_uint_gt(arena_bytes(a), chunk + (1 << 20));
    arena_reset(a);
    ck_assert_uint_eq(arena_bytes(a), chunk);
    char *again = arena_alloc(a, 100);
    ck_assert_ptr_nonnull(again);
    memset(again, 1, 100);
    arena_reset(a);
    ck_assert_ptr_eq(arena_alloc(a, 100), again);
    arena_free(a);
    a = arena_new();
    arena_alloc(a, 1 << 20); /* a request of its own as the only chunk */
    arena_reset(a);
    ck_assert_uint_eq(arena_bytes(a), 0);
    ck_assert_ptr_nonnull(arena_alloc(a, 16));
    arena_free(a);
}
END_TEST

START_TEST(interner_gives_one_copy)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    char name[32];
    const char *first[1000];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "op%d", i);
        first[i] = interner_cstr(in, name);
    }
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "op%d", i);
        ck_assert_ptr_eq(interner_cstr(in, name), first[i]);
        ck_assert_str_eq(first[i], name);
    }
    ck_assert_uint_eq(interner_count(in), 1000);
    ck_assert_ptr_null(interner_lookup(in, "absent", 6));
    ck_assert_ptr_eq(interner_lookup(in, "op7", 3), first[7]);
    /* Embedded NUL bytes make distinct strings. */
    ck_assert_ptr_ne(interner_intern(in, "a\0b", 3), interner_intern(in, "a\0c", 3));
    interner_free(in);
    arena_free(a);
}
END_TEST

/* note [interner memory]: strings packed in chunks of the interner's own
 * (1 KB doubling to 64 KB), a long one in a chunk of its own, each
 * string found again whole after many chunks; a clone shares the
 * strings it was cloned from and keeps its new ones to itself; a
 * string longer than an early chunk (but not long) gets a chunk it
 * fits in. */
START_TEST(interner_packed_chunks)
{
    Arena *a = arena_new(), *b = arena_new();
    Interner *in = interner_new(a);
    enum { NAMES = 20000, LONG = 40000, MIDDLE = 5000 };
    static const char *first[NAMES];
    char name[32];
    char *middle = malloc(MIDDLE + 1);
    memset(middle, 'm', MIDDLE);
    middle[MIDDLE] = '\0';
    const char *small = interner_cstr(in, "small");
    const char *middle_name = interner_intern(in, middle, MIDDLE); /* > the 1 KB chunk */
    const char *small2 = interner_cstr(in, "small2");
    ck_assert_str_eq(middle_name, middle);
    ck_assert_str_eq(small, "small");
    ck_assert_str_eq(small2, "small2");
    for (int i = 0; i < NAMES; i++) {
        snprintf(name, sizeof name, "name%d", i);
        first[i] = interner_cstr(in, name);
    }
    char *long_text = malloc(LONG + 1);
    memset(long_text, 'x', LONG);
    long_text[LONG] = '\0';
    const char *long_name = interner_intern(in, long_text, LONG);
    const char *after = interner_cstr(in, "after");
    for (int i = 0; i < NAMES; i++) {
        snprintf(name, sizeof name, "name%d", i);
        ck_assert_str_eq(first[i], name);
        ck_assert_ptr_eq(interner_lookup(in, name, strlen(name)), first[i]);
    }
    ck_assert_str_eq(long_name, long_text);
    ck_assert_ptr_eq(interner_intern(in, long_text, LONG), long_name);
    ck_assert_str_eq(after, "after");
    ck_assert_str_eq(middle_name, middle);
    ck_assert_ptr_eq(interner_intern(in, middle, MIDDLE), middle_name);
    ck_assert_str_eq(small, "small");
    ck_assert_uint_eq(interner_count(in), NAMES + 5);
    Interner *copy = interner_clone(in, b);
    const char *mine = interner_cstr(copy, "only in the clone");
    const char *theirs = interner_cstr(in, "only in the first");
    ck_assert_ptr_eq(interner_cstr(copy, "name7"), first[7]);
    ck_assert_ptr_eq(interner_lookup(copy, long_text, LONG), long_name);
    ck_assert_ptr_null(interner_lookup(in, "only in the clone", 17));
    ck_assert_ptr_null(interner_lookup(copy, "only in the first", 17));
    ck_assert_ptr_ne(interner_cstr(in, "only in the clone"), mine);
    ck_assert_str_eq(mine, "only in the clone");
    ck_assert_str_eq(theirs, "only in the first");
    ck_assert_uint_eq(interner_count(copy), NAMES + 6);
    ck_assert_uint_eq(interner_count(in), NAMES + 7);
    interner_free(copy);
    interner_free(in);
    free(long_text);
    free(middle);
    arena_free(b);
    arena_free(a);
}
END_TEST

/* Names of every length up to three words, so the hash's tail of 1 to 7
 * bytes is taken in each of its pieces; names one byte apart stay apart. */
START_TEST(interner_every_tail_length)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    const char *text = "abcdefghijklmnopqrstuvwx";
    const char *first[25], *changed[25];
    for (size_t n = 0; n <= 24; n++) {
        char buf[25];
        memcpy(buf, text, n);
        first[n] = interner_intern(in, buf, n);
        if (n > 0)
            buf[n - 1] = 'Z';
        changed[n] = interner_intern(in, buf, n);
    }
    for (size_t n = 0; n <= 24; n++) {
        ck_assert_ptr_eq(interner_intern(in, text, n), first[n]);
        ck_assert_uint_eq(strlen(first[n]), n);
        if (n > 0)
            ck_assert_ptr_ne(changed[n], first[n]);
    }
    ck_assert_uint_eq(interner_count(in), 49);
    interner_free(in);
    arena_free(a);
}
END_TEST

/* note [interner hit inline]: a string interned with the hash its
 * caller took, in hash_bytes's three steps (hash_begin, hash_word a
 * word, hash_end), is the one interner_intern gives, at every length of
 * the hash's tail; the first string of each chunk (offset 0 there) is
 * found again after the table has grown. */
START_TEST(interner_hashed_is_interned)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    const char *text = "ABCDEFGHIJKLMNOPQRSTUVWX";
    const char *hashed[25];
    for (size_t n = 0; n <= 24; n++) {
        uint64_t h = hash_begin(n, 0), w;
        size_t k = 0;
        for (; k + 8 <= n; k += 8) {
            memcpy(&w, text + k, 8);
            h = hash_word(h, HASH_LE64(w));
        }
        if (k < n)
            h = hash_word(h, HASH_LE64(bytes_tail((const unsigned char *)text + k, n - k, 0)));
        ck_assert_uint_eq(hash_end(h), hash_bytes(text, n, 0));
        ck_assert_uint_eq(interner_hash(text, n), (uint32_t)hash_end(h));
        hashed[n] = interner_intern_hashed(in, text, n, (uint32_t)hash_end(h));
        ck_assert_uint_eq(strlen(hashed[n]), n);
    }
    char name[16];
    for (int i = 0; i < 5000; i++) { /* chunks and rehashes */
        snprintf(name, sizeof name, "v%d", i);
        interner_cstr(in, name);
    }
    for (size_t n = 0; n <= 24; n++) {
        ck_assert_ptr_eq(interner_intern(in, text, n), hashed[n]);
        ck_assert_ptr_eq(interner_lookup(in, text, n), hashed[n]);
    }
    ck_assert_ptr_eq(interner_lookup(in, "v0", 2), interner_cstr(in, "v0"));
    ck_assert_uint_eq(interner_count(in), 25 + 5000);
    interner_free(in);
    arena_free(a);
}
END_TEST

START_TEST(strbuf_formats)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, "x=");
    strbuf_printf(&sb, "%d", 42);
    strbuf_putc(&sb, ';');
    ck_assert_str_eq(sb.data, "x=42;");
    ck_assert_uint_eq(sb.len, 5);
    strbuf_free(&sb);
    ck_assert_ptr_null(sb.data);
}
END_TEST

static void GRAFT_PRINTF(2, 3) append_formatted(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(sb, fmt, ap);
    va_end(ap);
}

/* A failure's message (eval_fail, infer_fail, verify_fail, prove_fail)
 * goes through strbuf_vprintf: appended whole, however long. */
START_TEST(strbuf_vprintf_appends_whole)
{
    char name[1001];
    memset(name, 'n', 1000);
    name[1000] = '\0';
    StrBuf sb = {0};
    strbuf_puts(&sb, "op: ");
    append_formatted(&sb, "'%s' of %d", name, 7);
    ck_assert_uint_eq(sb.len, 4 + 1002 + 5);
    ck_assert_int_eq(strncmp(sb.data, "op: 'nnn", 8), 0);
    ck_assert_str_eq(sb.data + 4 + 1001, "' of 7");
    strbuf_free(&sb);
}
END_TEST

/* Whether this process runs under valgrind's memcheck, which preloads its
 * own library. */
static bool under_memcheck(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload_memcheck");
}

/* note [out of memory]: one message and exit status 3, in a child of its
 * own (CK_FORK=no runs every test in one process).  Not under memcheck
 * (tests/valgrind.sh): there the child, cut short in the middle of the
 * suite, exits with memcheck's status for the suite's memory it still
 * holds, and its report joins the message; the plain and sanitizer passes
 * run it. */
START_TEST(out_of_memory_exits_3)
{
    if (under_memcheck())
        return;
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        dup2(fds[1], STDERR_FILENO);
        out_of_memory();
        _exit(0); /* not reached */
    }
    close(fds[1]);
    char said[128] = {0};
    ssize_t n = read(fds[0], said, sizeof said - 1);
    close(fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 3);
    ck_assert_int_gt(n, 0);
    ck_assert_str_eq(said, "graft: fatal error: out of memory\n");
}
END_TEST

START_TEST(source_indexes_lines)
{
    Source *src = source_from_string("t.graft", "ab\ncd\r\n\nlast", 12);
    ck_assert_uint_eq(source_line_count(src), 4);
    size_t len;
    const char *line = source_line(src, 2, &len);
    ck_assert_uint_eq(len, 2);
    ck_assert_int_eq(strncmp(line, "cd", 2), 0);
    source_line(src, 3, &len);
    ck_assert_uint_eq(len, 0);
    SrcRange r = source_range(src, 8, 12);
    ck_assert_int_eq(r.first_line, 4);
    ck_assert_int_eq(r.first_column, 1);
    ck_assert_int_eq(r.last_column, 4);
    source_free(src);
}
END_TEST

START_TEST(source_final_newline_starts_no_line)
{
    static const struct {
        const char *text;
        size_t nlines;
    } cases[] = {{"", 1}, {"\n", 1}, {"a\n", 1}, {"a\n\n", 2}, {"\n\nb", 3}};
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        Source *src = source_from_string("t", cases[i].text, strlen(cases[i].text));
        ck_assert_uint_eq(source_line_count(src), cases[i].nlines);
        source_free(src);
    }
}
END_TEST

/* note [lines indexed on first use]: no index until a line is asked
 * for; a borrowed text is not copied, nor freed with its Source. */
START_TEST(source_borrows_and_indexes_late)
{
    static const char text[] = "op a(x)\nop b(x)\n";
    Source *src = source_borrow("ops.graft", text, sizeof text - 1);
    ck_assert_ptr_eq(src->text, text);
    ck_assert_ptr_null(src->line_starts);
    SrcRange r = source_range(src, 11, 12);
    ck_assert_int_eq(r.first_line, 2);
    ck_assert_int_eq(r.first_column, 4);
    ck_assert_ptr_nonnull(src->line_starts);
    ck_assert_uint_eq(source_line_count(src), 2);
    ck_assert_uint_eq(source_line_starts(src)[1], 8);
    size_t len;
    const char *line = source_line(src, 2, &len);
    ck_assert_uint_eq(len, 7);
    ck_assert_int_eq(strncmp(line, "op b(x)", len), 0);
    source_free(src);
}
END_TEST

static bool same_range(SrcRange a, SrcRange b)
{
    return a.first_line == b.first_line && a.first_column == b.first_column &&
           a.last_line == b.last_line && a.last_column == b.last_column;
}

/* A cursor gives source_range()'s answer for every range asked in text
 * order, and for one asked behind it. */
START_TEST(source_range_at_agrees)
{
    const char *text = "ab\n\ncd\r\nlong line\n\n";
    size_t len = strlen(text);
    Source *src = source_from_string("t", text, len);
    for (size_t step = 1; step <= 3; step++) {
        SrcCursor cur = {0};
        for (size_t begin = 0; begin <= len; begin += step)
            for (size_t end = begin; end <= len + 1; end++)
                ck_assert(same_range(source_range_at(src, &cur, begin, end),
                                     source_range(src, begin, end)));
        ck_assert(same_range(source_range_at(src, &cur, 1, 7), source_range(src, 1, 7)));
        ck_assert_uint_eq(cur.line, 0);
    }
    source_free(src);
}
END_TEST

/* A file is read whole: longer than one read's chunk, with a NUL byte. */
START_TEST(source_reads_whole_file)
{
    char path[] = "/tmp/graft_check_base_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t len = 200000;
    char *text = xmalloc(len);
    for (size_t i = 0; i < len; i++)
        text[i] = i % 40 == 39 ? '\n' : (char)('a' + i % 26);
    text[7] = '\0';
    FILE *f = fdopen(fd, "wb");
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    graft_diag *d = diag_new(NULL);
    Source *src = source_read(path, d);
    remove(path);
    ck_assert_ptr_nonnull(src);
    ck_assert_uint_eq(src->len, len);
    ck_assert_int_eq(memcmp(src->text, text, len), 0);
    ck_assert_int_eq(src->text[len], '\0');
    ck_assert_uint_eq(source_line_count(src), len / 40); /* the last newline ends the text */
    ck_assert_uint_eq(source_line_starts(src)[len / 40 - 1], len - 40);
    source_free(src);
    diag_free(d);
    free(text);
}
END_TEST

/* Runs report() into a memory stream and returns what it printed. */
static char *capture(void (*report)(graft_diag *, const Source *))
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    graft_diag *d = diag_new(mem);
    Source *src = source_from_string("rules.graft",
                                     "# simplify\nadd_zero := addd(x, 0) => x\n", 40);
    report(d, src);
    fclose(mem);
    diag_free(d);
    source_free(src);
    return text;
}

static void report_unknown_op(graft_diag *d, const Source *src)
{
    SrcRange r = {2, 13, 2, 16};
    diag_error(d, src, r, "unknown op '%s'; did you mean '%s'?", "addd", "add");
}

START_TEST(diag_prints_caret)
{
    char *text = capture(report_unknown_op);
    ck_assert_str_eq(text,
                     "rules.graft:2:13: error: unknown op 'addd'; did you mean 'add'?\n"
                     "    2 | add_zero := addd(x, 0) => x\n"
                     "      |             ^~~~\n");
    free(text);
}
END_TEST

/* The same error at the same place twice running is reported once, with
 * its note; a different place, message, or an error between, again. */
static void report_repeats(graft_diag *d, const Source *src)
{
    SrcRange r = {2, 13, 2, 16}, other = {2, 1, 2, 8};
    for (int i = 0; i < 3; i++) {
        diag_error(d, src, r, "unknown op '%s'", "addd");
        diag_note(d, src, other, "used here");
    }
    diag_error(d, src, other, "unknown op '%s'", "addd");
    diag_error(d, src, r, "unknown op '%s'", "addd");
    ck_assert_uint_eq(diag_errors(d), 3);
}

START_TEST(diag_drops_repeats)
{
    char *text = capture(report_repeats);
    ck_assert_str_eq(text,
                     "rules.graft:2:13: error: unknown op 'addd'\n"
                     "    2 | add_zero := addd(x, 0) => x\n"
                     "      |             ^~~~\n"
                     "rules.graft:2:1: note: used here\n"
                     "    2 | add_zero := addd(x, 0) => x\n"
                     "      | ^~~~~~~~\n"
                     "rules.graft:2:1: error: unknown op 'addd'\n"
                     "    2 | add_zero := addd(x, 0) => x\n"
                     "      | ^~~~~~~~\n"
                     "rules.graft:2:13: error: unknown op 'addd'\n"
                     "    2 | add_zero := addd(x, 0) => x\n"
                     "      |             ^~~~\n");
    free(text);
}
END_TEST

static void report_warning(graft_diag *d, const Source *src)
{
    SrcRange r = {2, 1, 2, 8};
    diag_warning(d, src, r, "unused-rule", "rule '%s' never fires", "add_zero");
    ck_assert_uint_eq(diag_warnings(d), 1);
    ck_assert_uint_eq(diag_errors(d), 0);
}

START_TEST(diag_warning_names_flag)
{
    char *text = capture(report_warning);
    ck_assert_str_eq(text,
                     "rules.graft:2:1: warning: rule 'add_zero' never fires [-Wunused-rule]\n"
                     "    2 | add_zero := addd(x, 0) => x\n"
                     "      | ^~~~~~~~\n");
    free(text);
}
END_TEST

static void report_many(graft_diag *d, const Source *src)
{
    SrcRange r = {1, 1, 1, 1};
    for (int i = 0; i < 30; i++)
        diag_error(d, src, r, "error %d", i);
    ck_assert_uint_eq(diag_errors(d), limit_defaults.errors);
    ck_assert(diag_gave_up(d));
}

START_TEST(diag_stops_at_limit)
{
    char *text = capture(report_many);
    ck_assert_ptr_nonnull(strstr(text, "error 19\n"));
    ck_assert_ptr_null(strstr(text, "error 20\n"));
    ck_assert_ptr_nonnull(strstr(text, "graft: fatal error: too many errors emitted, stopping now\n"));
    free(text);
}
END_TEST

static void report_unlimited(graft_diag *d, const Source *src)
{
    SrcRange r = {1, 1, 1, 1};
    diag_set_error_limit(d, 0);
    for (int i = 0; i < 30; i++)
        diag_error(d, src, r, "error %d", i);
    ck_assert_uint_eq(diag_errors(d), 30);
    ck_assert(!diag_gave_up(d));
}

START_TEST(diag_error_limit_zero_is_none)
{
    char *text = capture(report_unlimited);
    ck_assert_ptr_nonnull(strstr(text, "error 29\n"));
    ck_assert_ptr_null(strstr(text, "too many errors"));
    free(text);
}
END_TEST

/* A name holding every kind of control byte: a line break, a carriage
 * return, a tab, an escape sequence's ESC, DEL. */
#define CONTROL_NAME "a\nb\rc\td\x1b[31me\x7f"
#define CONTROL_NAME_ESCAPED "a\\x0ab\\x0dc\\x09d\\x1b[31me\\x7f"

static void report_control_bytes(graft_diag *d, const Source *src)
{
    SrcRange r = {2, 13, 2, 16};
    diag_error(d, src, r, "unknown op '%s'", CONTROL_NAME);
    diag_plain_error(d, "cannot read '%s'", CONTROL_NAME);
}

/* note [one-line messages]: a positioned error stays one line, its
 * excerpt the next; a plain error too. */
START_TEST(diag_escapes_control_bytes)
{
    char *text = capture(report_control_bytes);
    ck_assert_str_eq(text, "rules.graft:2:13: error: unknown op '" CONTROL_NAME_ESCAPED "'\n"
                           "    2 | add_zero := addd(x, 0) => x\n"
                           "      |             ^~~~\n"
                           "graft: error: cannot read '" CONTROL_NAME_ESCAPED "'\n");
    free(text);
}
END_TEST

static void report_file_control_bytes(graft_diag *d, const Source *src)
{
    (void)src;
    diag_file_error(d, "m.onnx", "node '%s' has no op_type", CONTROL_NAME);
    diag_byte_error(d, "m.onnx", 12, "opset domain '%s'", CONTROL_NAME);
}

/* The same escape for the errors about a file or a byte of it. */
START_TEST(diag_file_error_escapes_control_bytes)
{
    char *text = capture(report_file_control_bytes);
    ck_assert_str_eq(text, "m.onnx: error: node '" CONTROL_NAME_ESCAPED "' has no op_type\n"
                           "m.onnx: error: byte 12: opset domain '" CONTROL_NAME_ESCAPED "'\n");
    free(text);
}
END_TEST

/* Each message a sink receives, one a line. */
static void sink_messages(void *ctx, const DiagRecord *rec)
{
    fprintf(ctx, "%s\n", rec->message);
}

/* A sink (graft lsp, --diagnostics-format) gets the messages escaped as
 * the terminal does, every kind of report. */
START_TEST(diag_sink_gets_escaped_messages)
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    graft_diag *d = diag_new(NULL);
    diag_set_sink(d, sink_messages, mem);
    Source *src = source_from_string("rules.graft",
                                     "# simplify\nadd_zero := addd(x, 0) => x\n", 40);
    report_control_bytes(d, src);
    report_file_control_bytes(d, src);
    fclose(mem);
    ck_assert_str_eq(text, "unknown op '" CONTROL_NAME_ESCAPED "'\n"
                           "cannot read '" CONTROL_NAME_ESCAPED "'\n"
                           "node '" CONTROL_NAME_ESCAPED "' has no op_type\n"
                           "opset domain '" CONTROL_NAME_ESCAPED "'\n");
    diag_free(d);
    source_free(src);
    free(text);
}
END_TEST

/* Applies spec to a copy of the defaults; returns the message or "". */
static char *parse_limits(const char *spec, graft_limits *lim)
{
    StrBuf why = {0};
    *lim = limit_defaults;
    if (limit_parse(lim, spec, &why))
        return xstrdup("");
    return why.data;
}

START_TEST(limit_parse_sets_each_item)
{
    graft_limits lim;
    char *why = parse_limits("rule-depth=300,errors=0,match-steps=1000", &lim);
    ck_assert_str_eq(why, "");
    ck_assert_uint_eq(lim.rule_depth, 300);
    ck_assert_uint_eq(lim.errors, 0);
    ck_assert_uint_eq(lim.match_steps, 1000);
    ck_assert_uint_eq(lim.model_depth, limit_defaults.model_depth);
    free(why);
    why = parse_limits("rewrites=1000000000000000,rewrites=5", &lim);
    ck_assert_str_eq(why, "");
    ck_assert_uint_eq(lim.rewrites, 5); /* the last one wins */
    free(why);
}
END_TEST

/* A bad item leaves every limit as it was, the good items before it too. */
START_TEST(limit_parse_is_all_or_nothing)
{
    static const char *const cases[][2] = {
        {"errors=3,rule-depth=4097", "limit 'rule-depth' must be from 16 to 4096, not 4097"},
        {"errors=3,fn-dpth=3", "unknown limit 'fn-dpth'; did you mean 'fn-depth'?"},
        {"errors=3,x=1", "unknown limit 'x' ('graft limits' lists them)"},
        {"errors=3,errors", "expected NAME=N, not 'errors'"},
        {"errors=3,,errors=4", "expected NAME=N, not ''"},
        {"errors= 3", "limit 'errors' needs a whole number, not ' 3'"},
        {"errors=+3", "limit 'errors' needs a whole number, not '+3'"},
        {"errors=3x", "limit 'errors' needs a whole number, not '3x'"},
        {"macro-nodes=99", "limit 'macro-nodes' must be from 100 to 100000000, not 99"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        graft_limits lim;
        char *why = parse_limits(cases[i][0], &lim);
        ck_assert_str_eq(why, cases[i][1]);
        ck_assert(memcmp(&lim, &limit_defaults, sizeof lim) == 0);
        free(why);
    }
}
END_TEST

START_TEST(outfile_is_atomic)
{
    char dir[] = "/tmp/graft-outfile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/out.relay", dir);
    graft_diag *d = diag_new(stderr);

    OutFile *of = outfile_open(path, d);
    fputs("partial", outfile_stream(of));
    outfile_abort(of);
    ck_assert_int_ne(access(path, F_OK), 0); /* nothing left behind */

    of = outfile_open(path, d);
    fputs("whole\n", outfile_stream(of));
    ck_assert(outfile_commit(of, d));
    FILE *f = fopen(path, "r");
    char buf[16] = {0};
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    fclose(f);
    ck_assert_str_eq(buf, "whole\n");
    ck_assert(outfile_same_file(path, path));

    unlink(path);
    rmdir(dir);
    diag_free(d);
}
END_TEST

START_TEST(outfile_reports_unwritable)
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    graft_diag *d = diag_new(mem);
    ck_assert_ptr_null(outfile_open("/nonexistent-dir/out.relay", d));
    fclose(mem);
    ck_assert_str_eq(text, "graft: error: cannot write '/nonexistent-dir/out.relay': "
                           "No such file or directory\n");
    ck_assert_uint_eq(diag_errors(d), 1);
    diag_free(d);
    free(text);
}
END_TEST

/* The whole contents of path (at most 63 bytes), "" when unreadable. */
static const char *slurp(const char *path)
{
    static char buf[64];
    memset(buf, 0, sizeof buf);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

START_TEST(outfile_writes_what_links_name)
{
    char dir[] = "/tmp/graft-outfile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char sub[128], target[160], link[128], chain[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(target, sizeof target, "%s/sub/target", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(chain, sizeof chain, "%s/chain", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(symlink("sub/target", link), 0); /* relative, dangling */
    ck_assert_int_eq(symlink("link", chain), 0);
    graft_diag *d = diag_new(stderr);

    OutFile *of = outfile_open(chain, d); /* creates the file at the end */
    fputs("first\n", outfile_stream(of));
    ck_assert(outfile_commit(of, d));
    ck_assert_str_eq(slurp(target), "first\n");
    of = outfile_open(link, d); /* an abort keeps it */
    fputs("partial", outfile_stream(of));
    outfile_abort(of);
    ck_assert_str_eq(slurp(target), "first\n");
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(lstat(chain, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));

    unlink(chain);
    unlink(link);
    unlink(target);
    rmdir(sub);
    rmdir(dir);
    diag_free(d);
}
END_TEST

START_TEST(outfile_writes_devices_through)
{
    graft_diag *d = diag_new(stderr);
    OutFile *of = outfile_open("/dev/null", d);
    ck_assert_ptr_nonnull(of);
    fputs("into the device\n", outfile_stream(of));
    ck_assert(outfile_commit(of, d));
    struct stat st;
    ck_assert_int_eq(lstat("/dev/null", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
    diag_free(d);
}
END_TEST

START_TEST(outfile_refuses_directories)
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    graft_diag *d = diag_new(mem);
    ck_assert_ptr_null(outfile_open("/tmp", d));
    ck_assert_ptr_null(outfile_open_exec("/tmp/", d));
    fclose(mem);
    ck_assert_str_eq(text, "graft: error: cannot write '/tmp': Is a directory\n"
                           "graft: error: cannot write '/tmp/': Is a directory\n");
    diag_free(d);
    free(text);
}
END_TEST

/* note [one growable array]: pushes past the first capacity, pops in
 * reverse, and the capacity only grows. */
START_TEST(vec_pushes_and_pops)
{
    VEC(uint32_t) v = {0};
    for (uint32_t i = 0; i < 100; i++)
        vec_push(&v, i * 3);
    ck_assert_uint_eq(v.len, 100);
    ck_assert_uint_ge(v.cap, 100);
    ck_assert_uint_eq(v.items[57], 171);
    ck_assert_uint_eq(vec_pop(&v), 297);
    ck_assert_uint_eq(vec_pop(&v), 294);
    size_t cap = v.cap;
    vec_reserve(&v, 10);
    ck_assert_uint_eq(v.cap, cap);
    vec_reserve(&v, 1000);
    ck_assert_uint_ge(v.cap, 1000);
    ck_assert_uint_eq(v.len, 98);
    vec_free(&v);
    ck_assert_ptr_null(v.items);
    ck_assert_uint_eq(v.len + v.cap, 0);
}
END_TEST

/* note [one hash map]: values by key across growth past the first 64
 * slots, dflt only for new keys, NULL for keys never put. */
START_TEST(keymap_keeps_values)
{
    KeyMap m = {0};
    ck_assert_ptr_null(keymap_get(&m, 1));
    for (uint64_t k = 1; k <= 1000; k++)
        ck_assert_int_eq(*keymap_put(&m, k * 2 + 1, -1), -1);
    for (uint64_t k = 1; k <= 1000; k++)
        *keymap_get(&m, k * 2 + 1) = (int64_t)k * 10;
    ck_assert_int_eq(*keymap_put(&m, 7, -1), 30);
    ck_assert_uint_eq(m.len, 1000);
    ck_assert_uint_eq(m.cap, 2048);
    for (uint64_t k = 1; k <= 1000; k++) {
        ck_assert_int_eq(*keymap_get(&m, k * 2 + 1), (int64_t)k * 10);
        ck_assert_ptr_null(keymap_get(&m, k * 2));
    }
    ck_assert_ptr_null(keymap_get(&m, 2003));
    keymap_free(&m);
    ck_assert_ptr_null(keymap_get(&m, 3));
    ck_assert_uint_eq(m.len + m.cap, 0);
}
END_TEST

/* keymap_reserve makes room once: the slots stay where they are while
 * the keys reserved for go in, the values put before are kept, and a
 * map with room enough is left alone. */
START_TEST(keymap_reserve_makes_room_once)
{
    KeyMap m = {0};
    *keymap_put(&m, 5, 0) = 50;
    keymap_reserve(&m, 1000);
    ck_assert_uint_eq(m.cap, 2048);
    const KeyMapSlot *slots = m.slots;
    for (uint64_t k = 1; k <= 1000; k++)
        *keymap_put(&m, k * 2 + 1000, 0) = (int64_t)k;
    ck_assert_ptr_eq(m.slots, slots);
    ck_assert_uint_eq(m.len, 1001);
    ck_assert_int_eq(*keymap_get(&m, 5), 50);
    ck_assert_int_eq(*keymap_get(&m, 3000), 1000);
    keymap_reserve(&m, 10);
    ck_assert_ptr_eq(m.slots, slots);
    keymap_free(&m);
    keymap_reserve(&m, 1);
    ck_assert_uint_eq(m.cap, 64);
    ck_assert_ptr_null(keymap_get(&m, 5));
    keymap_free(&m);
}
END_TEST

/* Pointer keys (interned names, 16-byte aligned and close together, as
 * the checker's and the registry's are) and pointer values; a copy is
 * independent of its original. */
START_TEST(keymap_maps_pointers)
{
    Arena *arena = arena_new();
    Interner *in = interner_new(arena);
    const char *names[300];
    for (int i = 0; i < 300; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "op%d", i);
        names[i] = interner_cstr(in, buf);
    }
    KeyMap m = {0};
    for (int i = 0; i < 300; i += 2)
        keymap_put_ptr(&m, names[i], names[i + 1]);
    keymap_put_ptr(&m, names[0], names[299]); /* replaces */
    ck_assert_uint_eq(m.len, 150);
    ck_assert_ptr_eq(keymap_get_ptr(&m, names[0]), names[299]);
    ck_assert_ptr_eq(keymap_get_ptr(&m, names[42]), names[43]);
    ck_assert_ptr_null(keymap_get_ptr(&m, names[43]));
    ck_assert_ptr_null(keymap_get_ptr(&m, interner_cstr(in, "other")));
    ck_assert_uint_ne(keymap_ptr_key(names[0]), 0);

    KeyMap copy = {0};
    keymap_copy(&copy, &m);
    keymap_put_ptr(&copy, names[1], names[2]);
    *keymap_get(&copy, keymap_ptr_key(names[42])) = 0;
    ck_assert_ptr_null(keymap_get_ptr(&m, names[1]));
    ck_assert_ptr_eq(keymap_get_ptr(&m, names[42]), names[43]);
    ck_assert_ptr_eq(keymap_get_ptr(&copy, names[1]), names[2]);
    ck_assert_uint_eq(copy.len, 151);
    ck_assert_uint_eq(m.len, 150);
    KeyMap empty = {0}, none = {0};
    keymap_copy(&none, &empty);
    ck_assert_ptr_null(none.slots);
    ck_assert_ptr_null(keymap_get_ptr(&none, names[0]));
    keymap_free(&copy);
    keymap_free(&m);
    interner_free(in);
    arena_free(arena);
}
END_TEST

/* Keys of the values being sorted: ids 0..5 with these keys. */
static bool key_before(const void *keys, uint32_t x, uint32_t y)
{
    return ((const int *)keys)[x] < ((const int *)keys)[y];
}

/* note [one sort]: ascending values without a predicate, and a stable
 * order by key with one (equal keys keep their order). */
START_TEST(sort_is_stable)
{
    uint32_t a[] = {5, 3, 9, 3, 0, 7};
    sort_u32(a, 6, NULL, NULL);
    uint32_t want[] = {0, 3, 3, 5, 7, 9};
    ck_assert_mem_eq(a, want, sizeof a);
    static const int keys[] = {2, 1, 2, 0, 1, 2};
    uint32_t ids[] = {0, 1, 2, 3, 4, 5};
    sort_u32(ids, 6, key_before, keys);
    uint32_t by_key[] = {3, 1, 4, 0, 2, 5};
    ck_assert_mem_eq(ids, by_key, sizeof ids);
    sort_u32(ids, 0, NULL, NULL); /* nothing to sort */
    sort_u32(ids, 1, key_before, keys);
    ck_assert_uint_eq(ids[0], 3);
}
END_TEST

/* A DAG of six nodes for the walks: 0 -> 1, 2; 1 -> 3; 2 -> 3, 4; 4 -> 5;
 * 3 and 5 have no children.  kids[start[i] .. start[i + 1]) are i's. */
static const uint32_t dag_start[] = {0, 2, 3, 5, 5, 6, 6};
static const uint32_t dag_kids[] = {1, 2, 3, 3, 4, 5};

/* A walk passed between functions is named once. */
typedef WALK(uint32_t) IdWalk;

/* note [one walk], pre-order: each node once, as popped; the last child
 * pushed comes first. */
START_TEST(walk_pre_order)
{
    IdWalk w = {0};
    bool seen[6] = {false};
    uint32_t order[6], n = 0;
    walk_push(&w, 0);
    while (w.depth) {
        uint32_t x = walk_pop(&w);
        if (seen[x])
            continue;
        seen[x] = true;
        order[n++] = x;
        walk_reserve(&w, dag_start[x + 1] - dag_start[x]);
        for (uint32_t k = dag_start[x]; k < dag_start[x + 1]; k++)
            walk_push_reserved(&w, dag_kids[k]);
    }
    uint32_t want[] = {0, 2, 4, 5, 3, 1};
    ck_assert_uint_eq(n, 6);
    ck_assert_mem_eq(order, want, sizeof want);
    walk_free(&w);
    ck_assert_ptr_null(w.frames);
    ck_assert_uint_eq(w.depth + w.cap, 0);
}
END_TEST

/* Post-order of the DAG from root, each node after its children, left
 * to right, into order; returns how many.  seen persists across calls.
 * A frame's cursor is its node's next child in dag_kids. */
static uint32_t dag_post_order(IdWalk *w, uint32_t root, bool *seen, uint32_t *order)
{
    size_t base = w->depth; /* a walk inside another shares its stack */
    uint32_t n = 0;
    seen[root] = true;
    walk_reserve(w, 1);
    walk_push_from(w, root, dag_start[root]);
    while (w->depth > base) {
        uint32_t x = walk_top(w);
        uint32_t k = walk_next(w);
        if (k < dag_start[x + 1]) {
            if (!seen[dag_kids[k]]) {
                seen[dag_kids[k]] = true;
                walk_reserve(w, 1);
                walk_push_from(w, dag_kids[k], dag_start[dag_kids[k]]);
            }
            continue;
        }
        (void)walk_pop(w);
        order[n++] = x;
    }
    return n;
}

/* note [one walk], post-order: children first, left to right; a walk
 * started on top of another's frames leaves them as they were. */
START_TEST(walk_post_order)
{
    IdWalk w = {0};
    bool seen[6] = {false};
    uint32_t order[6];
    ck_assert_uint_eq(dag_post_order(&w, 0, seen, order), 6);
    uint32_t want[] = {3, 1, 5, 4, 2, 0};
    ck_assert_mem_eq(order, want, sizeof want);
    ck_assert_uint_eq(w.depth, 0);
    memset(seen, 0, sizeof seen);
    walk_push(&w, 5);
    walk_push(&w, 3);
    (void)walk_next(&w);
    ck_assert_uint_eq(dag_post_order(&w, 2, seen, order), 4);
    uint32_t inner[] = {3, 5, 4, 2};
    ck_assert_mem_eq(order, inner, sizeof inner);
    ck_assert_uint_eq(w.depth, 2);
    ck_assert_uint_eq(walk_top(&w), 3);
    ck_assert_uint_eq(walk_next(&w), 1); /* the outer frame's cursor kept */
    ck_assert_uint_eq(walk_pop(&w), 3);
    walk_clear(&w);
    ck_assert_uint_eq(w.depth, 0);
    walk_free(&w);
}
END_TEST

/* A chain of a million nodes, i -> i + 1, is a million frames deep in
 * post-order: the walk holds them all and finishes the last node first. */
START_TEST(walk_million_chain)
{
    enum { CHAIN = 1000000 };
    IdWalk w = {0};
    uint32_t n = 0, first = CHAIN;
    size_t deepest = 0;
    walk_push(&w, 0);
    while (w.depth) {
        uint32_t x = walk_top(&w);
        deepest = w.depth > deepest ? w.depth : deepest;
        if (walk_next(&w) == 0 && x + 1 < CHAIN) {
            walk_push(&w, x + 1);
            continue;
        }
        (void)walk_pop(&w);
        if (n++ == 0)
            first = x;
    }
    ck_assert_uint_eq(n, CHAIN);
    ck_assert_uint_eq(first, CHAIN - 1);
    ck_assert_uint_eq(deepest, CHAIN);
    walk_free(&w);
}
END_TEST

/* cache_pair_find and cache_pair_put (note [one cache slot] in keymap.h):
 * a slot keeps the last two entries put, newest first, and finds each;
 * a third put forgets the oldest, so two keys met in one slot both stay
 * found however they alternate. */
typedef struct PairEntry {
    int key, value;
} PairEntry;

static bool pair_entry_is(const PairEntry *entry, int key)
{
    return entry->key == key;
}

START_TEST(cache_pair_keeps_last_two)
{
    PairEntry pair[2] = {{0}};
    int key = 7;
    ck_assert_ptr_null(cache_pair_find(pair, key, pair_entry_is));
    cache_pair_put(pair, ((PairEntry){7, 70}));
    cache_pair_put(pair, ((PairEntry){8, 80}));
    for (int round = 0; round < 3; round++) {
        key = 7 + round % 2;
        const PairEntry *found = cache_pair_find(pair, key, pair_entry_is);
        ck_assert_ptr_nonnull(found);
        ck_assert_int_eq(found->value, 10 * key);
    }
    ck_assert_int_eq(pair[0].key, 8); /* the last put first */
    ck_assert_int_eq(pair[1].key, 7);
    cache_pair_put(pair, ((PairEntry){9, 90}));
    key = 7;
    ck_assert_ptr_null(cache_pair_find(pair, key, pair_entry_is));
    key = 8;
    ck_assert_ptr_eq(cache_pair_find(pair, key, pair_entry_is), &pair[1]);
    key = 9;
    ck_assert_ptr_eq(cache_pair_find(pair, key, pair_entry_is), &pair[0]);
}
END_TEST

/* note [interner load]: the table doubles past four fifths full: 204
 * strings in 256 slots, the 205th in 512; a reservation of 409 strings
 * leaves it so, one of 410 sizes it to the count and its slack (480 =
 * 410 + 410 / 64 + 64 strings: 601 slots), and every string is found
 * after each growth. */
START_TEST(interner_load_four_fifths)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    ck_assert_uint_eq(in->nslots, 256);
    char name[16];
    for (int i = 0; i < 204; i++) {
        snprintf(name, sizeof name, "v%d", i);
        interner_cstr(in, name);
    }
    ck_assert_uint_eq(in->nslots, 256);
    interner_cstr(in, "one more");
    ck_assert_uint_eq(in->nslots, 512);
    interner_reserve(in, 409);
    ck_assert_uint_eq(in->nslots, 512);
    interner_reserve(in, 410);
    ck_assert_uint_eq(in->nslots, 601);
    ck_assert_uint_eq(in->grow_at, 480);
    for (int i = 0; i < 204; i++) {
        snprintf(name, sizeof name, "v%d", i);
        ck_assert_ptr_nonnull(interner_lookup(in, name, strlen(name)));
    }
    ck_assert_uint_eq(interner_count(in), 205);
    interner_free(in);
    arena_free(a);
}
END_TEST

/* arena_strndup_counted: a NUL-terminated copy of n bytes (a NUL among
 * them kept), its length where interner_length reads an interned
 * string's, as it reads an interned one's. */
START_TEST(strndup_counted_keeps_length)
{
    Arena *arena = arena_new();
    Interner *in = interner_new(arena);
    const char *copy = arena_strndup_counted(arena, "graft_Relu_12 and more", 13);
    ck_assert_str_eq(copy, "graft_Relu_12");
    ck_assert_uint_eq(interner_length(copy), 13);
    const char *empty = arena_strndup_counted(arena, "x", 0);
    ck_assert_str_eq(empty, "");
    ck_assert_uint_eq(interner_length(empty), 0);
    const char *interned = interner_intern(in, "graft_Relu_12", 13);
    ck_assert_uint_eq(interner_length(interned), interner_length(copy));
    ck_assert_ptr_ne(interned, copy); /* a copy, not interned */
    interner_free(in);
    arena_free(arena);
}
END_TEST

/* note [interner add] in arena.c: names of every length up to past a
 * quarter chunk, copied in words or by memcpy, each its own bytes, its
 * length and a NUL after, found again at the same address; the source's
 * bytes past n are not copied. */
START_TEST(interner_copies_each_length)
{
    Arena *arena = arena_new();
    Interner *in = interner_new(arena);
    enum { MAX = 17000 };
    char *text = xmalloc(MAX + 2);
    for (size_t i = 0; i < MAX + 2; i++)
        text[i] = (char)('a' + i % 23);
    static const size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 25, 63,
                                     16378, 16379, 16380, 17000};
    const char *got[sizeof lengths / sizeof lengths[0]];
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        size_t n = lengths[k];
        char after = text[n + 1];
        text[n + 1] = 'X'; /* the byte after the name, not copied */
        got[k] = interner_intern(in, text + 1, n);
        text[n + 1] = after;
        ck_assert_uint_eq(interner_length(got[k]), n);
        ck_assert_int_eq(memcmp(got[k], text + 1, n), 0);
        ck_assert_int_eq(got[k][n], '\0');
    }
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
        ck_assert_ptr_eq(interner_intern(in, text + 1, lengths[k]), got[k]);
    ck_assert_uint_eq(interner_count(in), sizeof lengths / sizeof lengths[0]);
    free(text);
    interner_free(in);
    arena_free(arena);
}
END_TEST

/* note [prefix walk]: the strings walked chunk by chunk, through chunks
 * left with room (a string that did not fit) and a long string's chunk
 * of its own; a clone sees its source's strings as they were when
 * cloned, and its own. */
START_TEST(interner_prefix_walks_chunks)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    ck_assert(!interner_has_prefix(in, "Fn_", 3));
    char name[40];
    for (int i = 0; i < 300; i++) { /* (past the first chunks, 1 and 2 KB) */
        snprintf(name, sizeof name, "value_%d_of_some_length", i);
        interner_cstr(in, name);
    }
    ck_assert_uint_ge(in->chunks.len, 3);
    ck_assert(interner_has_prefix(in, "value_299_", 10));
    ck_assert(interner_has_prefix(in, "value_0_", 8));
    ck_assert(!interner_has_prefix(in, "value_300", 9));
    ck_assert(!interner_has_prefix(in, "value_0_of_some_length_", 23)); /* (longer) */
    char *big = xmalloc(40000);
    memset(big, 'b', 40000);
    memcpy(big, "Big_", 4);
    interner_intern(in, big, 40000);
    interner_cstr(in, "after_big");
    ck_assert(interner_has_prefix(in, "Big_bbb", 7));
    ck_assert(interner_has_prefix(in, "after_", 6));
    Arena *b = arena_new();
    Interner *clone = interner_clone(in, b);
    interner_cstr(in, "Fn_source_only"); /* (into the chunk the clone shares) */
    interner_cstr(clone, "Fn_clone_only");
    ck_assert(interner_has_prefix(in, "Fn_source", 9));
    ck_assert(!interner_has_prefix(in, "Fn_clone", 8));
    ck_assert(!interner_has_prefix(clone, "Fn_source", 9));
    ck_assert(interner_has_prefix(clone, "Fn_clone", 8));
    ck_assert(interner_has_prefix(clone, "after_big", 9));
    ck_assert(interner_has_prefix(clone, "", 0));
    free(big);
    interner_free(clone);
    arena_free(b);
    interner_free(in);
    arena_free(a);
}
END_TEST

/* note [interner load]: no wrap.  Strings whose first slot is the last
 * of a 256-slot table run into its tail of 33, whose last slot stays
 * empty: 33 of them fill slots 255 to 287 and the table keeps its size,
 * the 34th would take slot 288 and doubles it instead, and every string
 * is found before and after.  A reservation of 50,001 strings (the
 * workload's Relay parameters and an op) sizes the table to 63,558
 * slots, not 65,536, and 50,010 strings fit without a growth. */
START_TEST(interner_sized_to_count_no_wrap)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    char names[34][16];
    int found = 0;
    for (int i = 0; found < 34; i++) {
        snprintf(names[found], sizeof names[found], "k%d", i);
        size_t n = strlen(names[found]);
        if (interner_home(in, interner_hash(names[found], n)) == 255)
            found++;
    }
    const char *first[34];
    for (int i = 0; i < 33; i++)
        first[i] = interner_cstr(in, names[i]);
    ck_assert_uint_eq(in->nslots, 256);
    ck_assert_uint_eq(in->end, 288);
    ck_assert_uint_ne(in->slots[287].ref, 0);
    ck_assert_uint_eq(in->slots[288].ref, 0);
    first[33] = interner_cstr(in, names[33]);
    ck_assert_uint_eq(in->nslots, 512);
    ck_assert_uint_eq(in->end, 576);
    for (int i = 0; i < 34; i++)
        ck_assert_ptr_eq(interner_lookup(in, names[i], strlen(names[i])), first[i]);
    ck_assert_uint_eq(interner_count(in), 34);
    interner_free(in);
    in = interner_new(a);
    interner_reserve(in, 50001);
    ck_assert_uint_eq(in->nslots, 63558);
    ck_assert_uint_eq(in->grow_at, 50846);
    char name[16];
    for (int i = 0; i < 50010; i++) {
        snprintf(name, sizeof name, "p%d", i);
        interner_cstr(in, name);
    }
    ck_assert_uint_eq(in->nslots, 63558);
    ck_assert_uint_eq(interner_count(in), 50010);
    ck_assert_ptr_nonnull(interner_lookup(in, "p50009", 6));
    ck_assert_ptr_null(interner_lookup(in, "p50010", 6));
    interner_free(in);
    arena_free(a);
}
END_TEST

/* note [interner table dropped]: without its table an interner keeps
 * its strings and their lengths, finds each by a walk and misses an
 * absent one; a clone made then shares them; interning a string it has
 * returns the same copy and makes the table again, sized to the count
 * (1,000 names and the slack: 1,351 slots), and a new string is added. */
START_TEST(interner_table_dropped)
{
    Arena *a = arena_new();
    Interner *in = interner_new(a);
    const char *first[1000];
    char name[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "name%d", i);
        first[i] = interner_cstr(in, name);
    }
    const char *long_text = interner_intern(in, (const char[20000]){'x'}, 20000);
    interner_drop_table(in);
    ck_assert_uint_eq(in->nslots, 0);
    ck_assert_uint_eq(interner_count(in), 1001);
    ck_assert_str_eq(first[7], "name7");
    ck_assert_uint_eq(interner_length(first[999]), 7);
    ck_assert(interner_has_prefix(in, "name99", 6));
    Interner *copy = interner_clone(in, a);
    ck_assert_ptr_eq(interner_cstr(copy, "name5"), first[5]);
    ck_assert_uint_eq(interner_count(copy), 1001);
    interner_free(copy);
    ck_assert_uint_eq(in->nslots, 0);
    /* a lookup makes the table again, as interning does */
    ck_assert_ptr_eq(interner_lookup(in, "name999", 7), first[999]);
    ck_assert_uint_eq(in->nslots, 1351);
    ck_assert_ptr_eq(interner_lookup(in, (const char[20000]){'x'}, 20000), long_text);
    interner_drop_table(in);
    ck_assert_ptr_null(interner_lookup(in, "name1000", 8));
    ck_assert_uint_eq(in->nslots, 1351);
    interner_drop_table(in);
    ck_assert_ptr_eq(interner_cstr(in, "name500"), first[500]);
    ck_assert_uint_eq(in->nslots, 1351);
    ck_assert_uint_eq(interner_count(in), 1001);
    const char *added = interner_cstr(in, "name1000");
    ck_assert_uint_eq(interner_count(in), 1002);
    ck_assert_ptr_eq(interner_lookup(in, "name1000", 8), added);
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "name%d", i);
        ck_assert_ptr_eq(interner_lookup(in, name, strlen(name)), first[i]);
    }
    interner_drop_table(in);
    interner_reserve(in, 5000);
    ck_assert_ptr_eq(interner_lookup(in, "name1000", 8), added);
    ck_assert_uint_eq(in->grow_at, 5142);
    interner_free(in);
    arena_free(a);
}
END_TEST

static Suite *base_suite(void)
{
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("arena");
    tcase_add_test(tc, arena_zeroes_and_aligns);
    tcase_add_test(tc, arena_empty_allocations);
    tcase_add_test(tc, arena_reset_keeps_its_chunk);
    tcase_add_test(tc, interner_gives_one_copy);
    tcase_add_test(tc, interner_every_tail_length);
    tcase_add_test(tc, interner_hashed_is_interned);
    tcase_add_test(tc, interner_packed_chunks);
    tcase_add_test(tc, interner_load_four_fifths);
    tcase_add_test(tc, strbuf_formats);
    tcase_add_test(tc, strbuf_vprintf_appends_whole);
    tcase_add_test(tc, out_of_memory_exits_3);
    tcase_add_test(tc, vec_pushes_and_pops);
    tcase_add_test(tc, sort_is_stable);
    tcase_add_test(tc, keymap_keeps_values);
    tcase_add_test(tc, keymap_reserve_makes_room_once);
    tcase_add_test(tc, keymap_maps_pointers);
    tcase_add_test(tc, cache_pair_keeps_last_two);
    suite_add_tcase(s, tc);
    tc = tcase_create("walk");
    tcase_add_test(tc, walk_pre_order);
    tcase_add_test(tc, walk_post_order);
    tcase_add_test(tc, walk_million_chain);
    suite_add_tcase(s, tc);
    tc = tcase_create("diag");
    tcase_add_test(tc, source_indexes_lines);
    tcase_add_test(tc, source_final_newline_starts_no_line);
    tcase_add_test(tc, source_borrows_and_indexes_late);
    tcase_add_test(tc, source_range_at_agrees);
    tcase_add_test(tc, source_reads_whole_file);
    tcase_add_test(tc, diag_prints_caret);
    tcase_add_test(tc, diag_drops_repeats);
    tcase_add_test(tc, diag_warning_names_flag);
    tcase_add_test(tc, diag_stops_at_limit);
    tcase_add_test(tc, diag_error_limit_zero_is_none);
    tcase_add_test(tc, diag_escapes_control_bytes);
    tcase_add_test(tc, diag_file_error_escapes_control_bytes);
    tcase_add_test(tc, diag_sink_gets_escaped_messages);
    suite_add_tcase(s, tc);
    tc = tcase_create("limit");
    tcase_add_test(tc, limit_parse_sets_each_item);
    tcase_add_test(tc, limit_parse_is_all_or_nothing);
    suite_add_tcase(s, tc);
    tc = tcase_create("outfile");
    tcase_add_test(tc, outfile_is_atomic);
    tcase_add_test(tc, outfile_reports_unwritable);
    tcase_add_test(tc, outfile_writes_what_links_name);
    tcase_add_test(tc, outfile_writes_devices_through);
    tcase_add_test(tc, outfile_refuses_directories);
    tcase_add_test(tc, strndup_counted_keeps_length);
    tcase_add_test(tc, interner_copies_each_length);
    tcase_add_test(tc, interner_prefix_walks_chunks);
    tcase_add_test(tc, interner_sized_to_count_no_wrap);
    tcase_add_test(tc, interner_table_dropped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(base_suite());
}
