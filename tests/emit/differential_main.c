/* differential_main.c - the in-process comparison of tests/emit/differential.sh:
 *
 *   differential_main RULES WORK MODEL... [-- ARG...]
 *   differential_main --compiled MODEL [ARG...]
 *
 * loads RULES through the public API (graft_rules_load, interpreted) and,
 * for each MODEL, runs graft_standalone_main, the main of every compiled
 * rewriter, once with the interpreted table and once with compiled_rules, the
 * table of the generated C this program is linked with, each with the
 * arguments MODEL ARG..., standard output and error captured in
 * WORK/interp.* and WORK/comp.*.  Prints one "FAIL: RULES on MODEL:
 * compiled and interpreted differ (rc|out|err):" with the first line that
 * differs, per model that differs.  One process per rule file instead of
 * two per model: the test's time was process starts.  Exit 0 when every
 * model agrees, 3 when one differs, 2 on bad usage or unloadable RULES
 * (1 is the sanitizers' own exit on an error they report into the
 * captured standard error, which the test then shows); a
 * comparison that hangs ends the program (SIGALRM) after LIMIT_SECONDS.
 * With --compiled it is the compiled rewriter alone, the program
 * standalone_main.c makes (the test's comparisons through graft run). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graft_api.h"

/* The generated C's table, named so by graft compile --name (graft_rules,
 * the default, is graft_api.h's handle type). */
extern const graft_rule_set compiled_rules;

enum { LIMIT_SECONDS = 120, MAX_ARGS = 16 };

/* One side's captured run. */
typedef struct Side {
    const char *tag; /* "interp" or "comp": the files' names */
    int rc;          /* graft_standalone_main's status */
} Side;

/* Points fd at PATH (created); returns a copy of the old fd, or -1. */
static int redirect(int fd, const char *path)
{
    int saved = dup(fd);
    int to = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || to < 0 || dup2(to, fd) < 0) {
        perror(path);
        exit(2);
    }
    close(to);
    return saved;
}

static void restore(int fd, int saved)
{
    if (dup2(saved, fd) < 0) {
        perror("dup2");
        exit(2);
    }
    close(saved);
}

/* Runs the rewriter of rs with args into WORK/TAG.out and WORK/TAG.err. */
static void run_side(const graft_rule_set *rs, const char *work, Side *s, int argc,
                     char **args)
{
    char out[4096], err[4096];
    snprintf(out, sizeof out, "%s/%s.out", work, s->tag);
    snprintf(err, sizeof err, "%s/%s.err", work, s->tag);
    fflush(stdout);
    fflush(stderr);
    int saved_out = redirect(1, out), saved_err = redirect(2, err);
    s->rc = graft_standalone_main(rs, argc, args);
    fflush(stdout);
    fflush(stderr);
    restore(1, saved_out);
    restore(2, saved_err);
}

/* The whole of PATH, NUL-terminated (a model's output has no NUL); exits on
 * an unreadable file. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0)
        if ((n += got) + 1 == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    if (!buf) {
        fputs("differential_main: out of memory\n", stderr);
        exit(2);
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Prints line NO of TEXT (which starts at that line), or "(none)". */
static void print_line(const char *who, long no, const char *text, const char *end)
{
    const char *nl = memchr(text, '\n', (size_t)(end - text));
    int width = (int)((nl ? nl : end) - text);
    if (text == end)
        printf("  %s: line %ld: (end of output)\n", who, no);
    else
        printf("  %s: line %ld: %.*s\n", who, no, width > 300 ? 300 : width, text);
}

/* True when WORK/interp.PART and WORK/comp.PART are the same; else prints
 * the first line that differs. */
static int same_files(const char *work, const char *part, const char *what)
{
    char pi[4096], pc[4096];
    snprintf(pi, sizeof pi, "%s/interp.%s", work, part);
    snprintf(pc, sizeof pc, "%s/comp.%s", work, part);
    size_t ni, nc;
    char *ti = slurp(pi, &ni), *tc = slurp(pc, &nc);
    int same = ni == nc && memcmp(ti, tc, ni) == 0;
    if (!same) {
        size_t i = 0, line_start = 0;
        long no = 1;
        for (; i < ni && i < nc && ti[i] == tc[i]; i++)
            if (ti[i] == '\n')
                line_start = i + 1, no++;
        printf("FAIL: %s: compiled and interpreted differ (%s):\n", what, part);
        print_line("interpreted", no, ti + line_start, ti + ni);
        print_line("compiled", no, tc + line_start, tc + nc);
    }
    free(ti);
    free(tc);
    return same;
}

/* Compares the two rewriters on one model; true when they agree. */
static int compare(const graft_rule_set *interp, const char *rules, const char *work,
                   int nargs, char **args)
{
    char what[4096];
    snprintf(what, sizeof what, "%s on %s", rules, args[1]);
    Side si = {"interp", 0}, sc = {"comp", 0};
    char *copy[MAX_ARGS + 3];
    alarm(LIMIT_SECONDS);
    memcpy(copy, args, sizeof *args * (size_t)(nargs + 1));
    run_side(interp, work, &si, nargs, copy);
    memcpy(copy, args, sizeof *args * (size_t)(nargs + 1));
    run_side(&compiled_rules, work, &sc, nargs, copy);
    alarm(0);
    if (si.rc != sc.rc) {
        printf("FAIL: %s: compiled and interpreted differ (rc):\n"
               "  interpreted: exit %d\n  compiled: exit %d\n", what, si.rc, sc.rc);
        return 0;
    }
    return same_files(work, "out", what) && same_files(work, "err", what);
}

/* Loads RULES interpreted (its warnings are graft check's business); exits
 * 2 after printing its errors. */
static graft_rules *load(const char *rules)
{
    graft_diag *d = graft_diag_capture();
    graft_rules *r = graft_rules_load(&rules, 1, NULL, d);
    for (size_t i = 0; !r && i < graft_diag_count(d); i++)
        fprintf(stderr, "%s: %s\n", rules, graft_diag_message(d, i)->text);
    graft_diag_free(d);
    if (!r) {
        fprintf(stderr, "differential_main: %s does not load\n", rules);
        exit(2);
    }
    return r;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--compiled") == 0) {
        argv[1] = argv[0];
        return graft_standalone_main(&compiled_rules, argc - 1, argv + 1);
    }
    int dash = 3;
    while (dash < argc && strcmp(argv[dash], "--") != 0)
        dash++;
    int nextra = dash < argc ? argc - dash - 1 : 0;
    if (argc < 4 || dash == 3 || nextra > MAX_ARGS) {
        fputs("usage: differential_main RULES WORK MODEL... [-- ARG...]\n", stderr);
        return 2;
    }
    graft_rules *r = load(argv[1]);
    char *args[MAX_ARGS + 3] = {"rewriter"};
    for (int i = 0; i < nextra; i++)
        args[2 + i] = argv[dash + 1 + i];
    int ok = 1;
    for (int m = 3; m < dash; m++) {
        args[1] = argv[m];
        ok &= compare(graft_rules_table(r), argv[1], argv[2], nextra + 1, args);
    }
    graft_rules_free(r);
    return ok ? 0 : 3;
}
