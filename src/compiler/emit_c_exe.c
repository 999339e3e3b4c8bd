/* emit_c_exe.c - graft compile --exe: the generated C with a main,
 * compiled and linked by the system C compiler into a standalone
 * rewriter.
 *
 * The C file goes to a fresh temporary directory; the compiler writes the
 * program beside its target under a temporary name that is renamed into
 * place only when it succeeded (note [atomic output] in outfile.h).  The
 * compiler is $CC, else GRAFT_CC (the one graft was built with), else
 * "cc"; the include and library flags are the installed ones unless
 * $GRAFT_CFLAGS / $GRAFT_LIBS replace them.  Each is split at blanks (no
 * shell quoting).
 */
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

#ifndef GRAFT_CC
#define GRAFT_CC "cc"
#endif
#ifndef GRAFT_INCLUDEDIR
#define GRAFT_INCLUDEDIR "/usr/local/include"
#endif
#ifndef GRAFT_LIBDIR
#define GRAFT_LIBDIR "/usr/local/lib"
#endif

/* A NULL-terminated argument vector; words point into text. */
typedef struct Argv {
    char **v;      /* the arguments */
    size_t n;      /* used, without the NULL */
    size_t cap;    /* allocated */
    StrBuf text;   /* the words' storage, NUL-separated */
} Argv;

static void argv_push(Argv *a, char *s)
{
    xgrow((void **)&a->v, &a->cap, a->n + 2, sizeof *a->v);
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
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
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* cc -O2 EXTRA FLAGS -o OUT SRC LIBS */
static void compiler_command(Argv *a, const char *extra, const char *src, const char *out)
{
    argv_words(a, env_or("CC", GRAFT_CC[0] ? GRAFT_CC : "cc"));
    argv_words(a, "-O2");
    argv_words(a, extra ? extra : "");
    argv_words(a, env_or("GRAFT_CFLAGS", "-I" GRAFT_INCLUDEDIR "/graft"));
    argv_push(a, xstrdup("-o"));
    argv_push(a, xstrdup(out));
    argv_push(a, xstrdup(src));
    argv_words(a, env_or("GRAFT_LIBS", "-L" GRAFT_LIBDIR " -lgraft -lm"));
}

/* Runs the command; false after reporting.  A compiler that cannot be
 * started is told apart from one that failed through a close-on-exec
 * pipe carrying execvp's errno. */
static bool run_command(char **argv, Diag *d)
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
        diag_plain_error(d, "no C compiler found: cannot run '%s': %s (set CC to a C compiler)",
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
                         const char *path, Diag *d)
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

/* A temporary name beside prog, reserved by creating it. */
static char *temp_beside(const char *prog, Diag *d)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s.XXXXXX", prog);
    int fd = mkstemp(sb.data);
    if (fd < 0) {
        diag_plain_error(d, "cannot write '%s': %s", prog, strerror(errno));
        strbuf_free(&sb);
        return NULL;
    }
    close(fd);
    return sb.data;
}

/* Compiles src into prog by way of a temporary file; false after
 * reporting (prog is then untouched). */
static bool build(const char *extra, const char *src, const char *prog, Diag *d)
{
    char *tmp = temp_beside(prog, d);
    if (!tmp)
        return false;
    Argv cmd = {0};
    compiler_command(&cmd, extra, src, tmp);
    bool ok = run_command(cmd.v, d);
    if (ok && (chmod(tmp, 0755) != 0 || rename(tmp, prog) != 0)) {
        diag_plain_error(d, "cannot write '%s': %s", prog, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(tmp);
    argv_free(&cmd);
    free(tmp);
    return ok;
}

/* The C file's name in the temporary directory: PROG's base name + ".c". */
static char *source_path(const char *dir, const char *prog)
{
    const char *base = strrchr(prog, '/');
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s/%s.c", dir, base ? base + 1 : prog);
    return sb.data;
}

bool emit_c_build_exe(const RuleFile *rf, const Lowered *lw, const EmitOptions *opts,
                      const char *prog, Diag *d)
{
    StrBuf dir = {0};
    strbuf_printf(&dir, "%s/graft-compile-XXXXXX", env_or("TMPDIR", "/tmp"));
    if (!mkdtemp(dir.data)) {
        diag_plain_error(d, "cannot make a temporary directory '%s': %s", dir.data,
                         strerror(errno));
        strbuf_free(&dir);
        return false;
    }
    char *src = source_path(dir.data, prog);
    bool ok = write_source(rf, lw, opts, src, d) && build(opts->exe_cflags, src, prog, d);
    unlink(src);
    rmdir(dir.data);
    free(src);
    strbuf_free(&dir);
    return ok;
}
