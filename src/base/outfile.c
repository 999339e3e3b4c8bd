/* outfile.c - temporary file + rename, see note [atomic output]. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

struct OutFile {
    FILE *stream; /* the temporary file, or stdout */
    char *target; /* final path; NULL for stdout */
    char *temp;   /* temporary path beside target */
};

static bool is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

OutFile *outfile_open(const char *path, Diag *d)
{
    OutFile *of = xcalloc(1, sizeof(OutFile));
    if (is_stdout(path)) {
        of->stream = stdout;
        return of;
    }
    of->target = xstrdup(path);
    size_t n = strlen(path) + sizeof(".tmp.XXXXXX");
    of->temp = xmalloc(n);
    snprintf(of->temp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(of->temp);
    if (fd < 0 || !(of->stream = fdopen(fd, "wb"))) {
        diag_plain_error(d, "cannot write '%s': %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(of->temp);
        }
        free(of->target);
        free(of->temp);
        free(of);
        return NULL;
    }
    return of;
}

FILE *outfile_stream(OutFile *of)
{
    return of->stream;
}

static void release(OutFile *of)
{
    free(of->target);
    free(of->temp);
    free(of);
}

/* A new file gets the usual permissions (mkstemp makes it 0600). */
static void set_mode(const char *path)
{
    mode_t mask = umask(0);
    umask(mask);
    chmod(path, 0666 & ~mask);
}

bool outfile_commit(OutFile *of, Diag *d)
{
    if (!of->target) {
        bool ok = fflush(stdout) == 0 && !ferror(stdout);
        if (!ok)
            diag_plain_error(d, "cannot write standard output: %s", strerror(errno));
        release(of);
        return ok;
    }
    bool ok = fflush(of->stream) == 0 && !ferror(of->stream);
    int saved = errno;
    if (fclose(of->stream) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok) {
        set_mode(of->temp);
        if (rename(of->temp, of->target) != 0) {
            ok = false;
            saved = errno;
        }
    }
    if (!ok) {
        diag_plain_error(d, "cannot write '%s': %s", of->target, strerror(saved));
        unlink(of->temp);
    }
    release(of);
    return ok;
}

bool outfile_flush(OutFile *of, Diag *d)
{
    if (fflush(of->stream) == 0 && !ferror(of->stream))
        return true;
    diag_plain_error(d, "cannot write '%s': %s", of->target ? of->target : "standard output",
                     strerror(errno));
    return false;
}

void outfile_abort(OutFile *of)
{
    if (!of)
        return;
    if (of->target) {
        fclose(of->stream);
        unlink(of->temp);
    }
    release(of);
}

bool outfile_same_file(const char *path, const char *other)
{
    struct stat a, b;
    if (is_stdout(path) || is_stdout(other))
        return false;
    if (stat(path, &a) != 0 || stat(other, &b) != 0)
        return false;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
