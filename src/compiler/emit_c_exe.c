/* emit_c_exe.c - graft compile --exe: the generated C with a main,
 * compiled and linked by the system C compiler into a standalone
 * rewriter.
 *
 * The C file and the program go to a fresh temporary directory; the
 * program is then delivered to -o PROG as any output is (note [atomic
 * output] in outfile.h), only when the compiler succeeded.  The compiler
 * is $GRAFT_CC, else $CC, else the one graft was built with; the include
 * and library flags point at libgraft in the build tree or the install
 * (note [build tree or install] in exe_paths.h) unless $GRAFT_CFLAGS /
 * $GRAFT_LIBS replace them.  Variables are split at blanks (no shell
 * quoting). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emit_c_impl.h"
#include "exe_paths.h"
#include "outfile.h"

#ifndef GRAFT_CC
#define GRAFT_CC "cc"
#endif
/* What libgraft.a needs after it (Makefile.am's LIBGRAFT_DEPS). */
#ifndef GRAFT_LIBGRAFT_DEPS
#define GRAFT_LIBGRAFT_DEPS "-lprotobuf-c -lm"
#endif

/* A NULL-terminated argument vector; words point into text. */
typedef struct Argv {
    VEC(char *) v; /* the arguments, and a NULL after them */
    StrBuf text;   /* the words' storage, NUL-separated */
} Argv;

static void argv_push(Argv *a, char *s)
{
    vec_reserve(&a->v, a->v.len + 2);
    a->v.items[a->v.len++] = s;
    a->v.items[a->v.len] = NULL;
}

/* Appends the blank-separated words of s (copies). */
static void argv_words(Argv *a, const char *s)
{
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        size_t len = strcspn(s, " \t\n");
        if (len)
            argv_push(a, xstrndup(s, len));
        s += len;
    }
}

static void argv_free(Argv *a)
{
    for (size_t i = 0; i < a->v.len; i++)
        free(a->v.items[i]);
    vec_free(&a->v);
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* The compiler: $GRAFT_CC, else $CC, else the one graft was built with. */
static const char *compiler(void)
{
    return env_or("GRAFT_CC", env_or("CC", GRAFT_CC[0] ? GRAFT_CC : "cc"));
}

static char *joined(const char *a, const char *b)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s%s", a, b);
    return sb.data;
}

/* cc -O2 EXTRA FLAGS -o OUT SRC LIBS; FLAGS and LIBS are $GRAFT_CFLAGS and
 * $GRAFT_LIBS, else libgraft's place (whole words: a directory may hold
 * blanks). */
static void compiler_command(Argv *a, const ExePaths *where, const char *extra,
                             const char *src, const char *out)
{
    argv_words(a, compiler());
    argv_words(a, "-O2");
    argv_words(a, extra ? extra : "");
    const char *cflags = env_or("GRAFT_CFLAGS", NULL);
    if (cflags)
        argv_words(a, cflags);
    for (int i = 0; !cflags && i < where->n_include; i++)
        argv_push(a, joined("-I", where->include_dirs[i]));
    argv_push(a, xstrdup("-o"));
    argv_push(a, xstrdup(out));
    argv_push(a, xstrdup(src));
    const char *libs = env_or("GRAFT_LIBS", NULL);
    if (libs) {
        argv_words(a, libs);
        return;
    }
    /* libgraft.a by name, not -lgraft, which would take libgraft.so: a
     * rewriter stands alone, wherever it is moved. */
    argv_push(a, joined(where->lib_dir, "/libgraft.a"));
    argv_words(a, GRAFT_LIBGRAFT_DEPS);
}

static bool readable(const char *dir, const char *file)
{
    char *path = joined(dir, file);
    bool ok = access(path, R_OK) == 0;
    free(path);
    return ok;
}

/* Before running the compiler: libgraft's header and library are where
 * graft will point the compiler, unless GRAFT_CFLAGS / GRAFT_LIBS say
 * otherwise; else one error that says what to do. */
static bool libgraft_present(const ExePaths *where, graft_diag *d)
{
    bool header = env_or("GRAFT_CFLAGS", NULL) != NULL;
    for (int i = 0; !header && i < where->n_include; i++)
        header = readable(where->include_dirs[i], "/graft_rules.h");
    bool lib = env_or("GRAFT_LIBS", NULL) || readable(where->lib_dir, "/libgraft.a");
    if (header && lib)
        return true;
    diag_plain_error(d, "cannot build a program: libgraft's %s is not in '%s' (%s); "
                     "run 'make install', or set GRAFT_CFLAGS and GRAFT_LIBS "
                     "(doc/compile.md)",
                     header ? "library" : "header graft_rules.h",
                     header ? where->lib_dir : where->include_dirs[0],
                     where->build_tree ? "the build tree" : "the installation");
    return false;
}

/* Runs the command; false after reporting.  A compiler that cannot be
 * started is told apart from one that failed through a close-on-exec
 * pipe carrying execvp's errno. */
static bool run_command(char **argv, graft_diag *d)
{
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        diag_plain_error(d, "cannot start the C compiler: %s", strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        execvp(argv[0], argv);
        int err = errno;
        if (write(fds[1], &err, sizeof err) != (ssize_t)sizeof err)
            _exit(127);
        _exit(127);
    }
    close(fds[1]);
    int err = 0, status = 0;
    ssize_t got = pid > 0 ? read(fds[0], &err, sizeof err) : -1;
    close(fds[0]);
    if (pid < 0) {
        diag_plain_error(d, "cannot start the C compiler: %s", strerror(errno));
        return false;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    if (got == (ssize_t)sizeof err) {
        diag_plain_error(d, "no C compiler found: cannot run '%s': %s (set GRAFT_CC or CC to "
                         "a C compiler)",
                         argv[0], strerror(err));
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        diag_plain_error(d, "the C compiler '%s' failed (%s %d)", argv[0],
                         WIFEXITED(status) ? "exit status" : "signal",
                         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return false;
    }
    return true;
}

/* Writes the C with a main to path; false after reporting. */
static bool write_source(const RuleFile *rf, const Lowered *lw, const EmitOptions *opts,
                         const char *path, graft_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        diag_plain_error(d, "cannot write '%s': %s", path, strerror(errno));
        return false;
    }
    EmitOptions eo = *opts;
    eo.out_name = path;
    eo.standalone_main = true;
    emit_c_source(rf, lw, &eo, f);
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        diag_plain_error(d, "cannot write '%s': %s", path, strerror(errno));
        return false;
    }
    return true;
}

/* Copies the program the compiler wrote into the output; false with
 * errno set. */
static bool copy_program(const char *built, FILE *to)
{
    FILE *from = fopen(built, "rb");
    if (!from)
        return false;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, from)) > 0 && fwrite(buf, 1, n, to) == n)
        continue;
    bool ok = !ferror(from) && !ferror(to);
    int saved = errno;
    fclose(from);
    errno = saved;
    return ok;
}

/* Compiles src into built, then delivers built to prog as any output
 * file is delivered (note [atomic output] in outfile.h; a symbolic link's target, a
 * device written through, a directory refused before the compiler runs);
 * false after reporting (prog is then untouched). */
static bool build(const char *extra, const char *src, const char *built, const char *prog,
                  graft_diag *d)
{
    OutFile *of = outfile_open_exec(prog, d);
    if (!of)
        return false;
    ExePaths where;
    exe_paths_find(&where);
    bool ok = libgraft_present(&where, d);
    if (ok) {
        Argv cmd = {0};
        compiler_command(&cmd, &where, extra, src, built);
        ok = run_command(cmd.v.items, d);
        argv_free(&cmd);
    }
    exe_paths_free(&where);
    if (ok && !copy_program(built, outfile_stream(of))) {
        diag_plain_error(d, "cannot write '%s': %s", prog, strerror(errno));
        ok = false;
    }
    unlink(built);
    if (!ok) {
        outfile_abort(of);
        return false;
    }
    return outfile_commit(of, d);
}

/* A file's name in the temporary directory: PROG's base name + suffix
 * (".c" for the C file, "" for the program). */
static char *temp_path(const char *dir, const char *prog, const char *suffix)
{
    const char *base = strrchr(prog, '/');
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s/%s%s", dir, base ? base + 1 : prog, suffix);
    return sb.data;
}

bool emit_c_build_exe(const RuleFile *rf, const Lowered *lw, const EmitOptions *opts,
                      const char *prog, graft_diag *d)
{
    StrBuf dir = {0};
    strbuf_printf(&dir, "%s/graft-compile-XXXXXX", env_or("TMPDIR", "/tmp"));
    if (!mkdtemp(dir.data)) {
        diag_plain_error(d, "cannot make a temporary directory '%s': %s", dir.data,
                         strerror(errno));
        strbuf_free(&dir);
        return false;
    }
    char *src = temp_path(dir.data, prog, ".c");
    char *built = temp_path(dir.data, prog, "");
    bool ok = write_source(rf, lw, opts, src, d) &&
              build(opts->exe_cflags, src, built, prog, d);
    unlink(src);
    rmdir(dir.data);
    free(src);
    free(built);
    strbuf_free(&dir);
    return ok;
}
