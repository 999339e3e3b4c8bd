/* outfile.c - output by kind of target, see note [atomic output]. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Links followed before giving up with ELOOP, as the kernel does. */
enum { MAX_LINKS = 40 };

/* What an output path names once its symbolic links are followed. */
typedef enum TargetKind {
    TARGET_NEW,     /* nothing yet: created by rename */
    TARGET_REGULAR, /* a regular file: replaced by rename */
    TARGET_STREAM,  /* a device, FIFO or socket: written through */
} TargetKind;

struct OutFile {
    FILE *stream; /* the temporary or spool file, or stdout */
    char *shown;  /* the path as given, for messages; NULL for stdout */
    char *target; /* the path with its symbolic links followed */
    char *temp;   /* TARGET_NEW, TARGET_REGULAR: the file beside target */
    int device;   /* TARGET_STREAM: target opened for writing; else -1 */
    mode_t mode;  /* permissions of the renamed file */
};

static bool is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

/* The contents of symbolic link path; NULL with errno set. */
static char *read_link(const char *path)
{
    for (size_t cap = 256;; cap *= 2) {
        char *buf = xmalloc(cap);
        ssize_t n = readlink(path, buf, cap);
        if (n >= 0 && (size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        if (n < 0)
            return NULL;
    }
}

/* Where link points, as a path usable from here: a relative target is
 * relative to the link's directory. */
static char *link_target(const char *link)
{
    char *to = read_link(link);
    const char *slash = strrchr(link, '/');
    if (!to || to[0] == '/' || !slash)
        return to;
    StrBuf sb = {0};
    strbuf_append(&sb, link, (size_t)(slash - link) + 1);
    strbuf_puts(&sb, to);
    free(to);
    return sb.data;
}

/* Follows path's symbolic links and classifies what is at the end; returns
 * that path (malloc'd) with *kind and, for an existing file, *mode set;
 * NULL with errno set when it cannot be written (a directory, a read-only
 * file, a loop of links). */
static char *resolve(const char *path, TargetKind *kind, mode_t *mode)
{
    char *cur = xstrdup(path);
    int hops = 0;
    for (; hops <= MAX_LINKS; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0) {
            if (errno == ENOENT) {
                *kind = TARGET_NEW;
                return cur;
            }
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            char *next = link_target(cur);
            free(cur);
            if (!(cur = next))
                return NULL;
            continue;
        }
        if (S_ISDIR(st.st_mode))
            errno = EISDIR;
        else if (S_ISREG(st.st_mode) && !(st.st_mode & 0222))
            errno = EACCES; /* root passes access(): the mode bits say read-only */
        else if (access(cur, W_OK) == 0) {
            *kind = S_ISREG(st.st_mode) ? TARGET_REGULAR : TARGET_STREAM;
            *mode = st.st_mode & 07777;
            return cur;
        }
        break;
    }
    if (hops > MAX_LINKS)
        errno = ELOOP;
    int saved = errno;
    free(cur);
    errno = saved;
    return NULL;
}

static void release(OutFile *of)
{
    free(of->shown);
    free(of->target);
    free(of->temp);
    free(of);
}

static mode_t current_umask(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return mask;
}

/* A temporary file beside the target, to be renamed over it. */
static bool open_temp(OutFile *of)
{
    size_t n = strlen(of->target) + sizeof(".tmp.XXXXXX");
    of->temp = xmalloc(n);
    snprintf(of->temp, n, "%s.tmp.XXXXXX", of->target);
    int fd = mkstemp(of->temp);
    if (fd < 0)
        return false;
    if (!(of->stream = fdopen(fd, "wb"))) {
        int saved = errno;
        close(fd);
        unlink(of->temp);
        errno = saved;
        return false;
    }
    return true;
}

/* The device or FIFO, opened as it is, and an unlinked spool file that
 * holds the output until commit. */
static bool open_stream(OutFile *of)
{
    of->device = open(of->target, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    if (of->device < 0)
        return false;
    const char *dir = getenv("TMPDIR");
    StrBuf spool = {0};
    strbuf_printf(&spool, "%s/graft-spool-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(spool.data);
    if (fd >= 0)
        unlink(spool.data);
    strbuf_free(&spool);
    if (fd >= 0 && (of->stream = fdopen(fd, "w+b")))
        return true;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    close(of->device);
    errno = saved;
    return false;
}

/* want: the permissions a new file asks for (0666 data, 0777 program). */
static OutFile *open_target(const char *path, mode_t want, graft_diag *d)
{
    OutFile *of = xcalloc(1, sizeof(OutFile));
    of->device = -1;
    if (is_stdout(path)) {
        of->stream = stdout;
        return of;
    }
    of->shown = xstrdup(path);
    TargetKind kind = TARGET_NEW;
    mode_t old = 0, mask = current_umask();
    bool ok = (of->target = resolve(path, &kind, &old)) != NULL;
    if (ok && kind == TARGET_STREAM)
        ok = open_stream(of);
    else if (ok) {
        of->mode = kind == TARGET_NEW ? want & ~mask : old | (want & 0111 & ~mask);
        ok = open_temp(of);
    }
    if (!ok) {
        diag_plain_error(d, "cannot write '%s': %s", path, strerror(errno));
        release(of);
        return NULL;
    }
    return of;
}

OutFile *outfile_open(const char *path, graft_diag *d)
{
    return open_target(path, 0666, d);
}

OutFile *outfile_open_exec(const char *path, graft_diag *d)
{
    return open_target(path, 0777, d);
}

FILE *outfile_stream(OutFile *of)
{
    return of->stream;
}

static bool write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return false;
        buf += w;
        len -= (size_t)w;
    }
    return true;
}

/* Copies the spooled output into the device or FIFO. */
static bool copy_spool(OutFile *of)
{
    char buf[65536];
    rewind(of->stream);
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, of->stream)) > 0)
        if (!write_all(of->device, buf, n))
            return false;
    return !ferror(of->stream);
}

static bool commit_stream(OutFile *of)
{
    bool ok = fflush(of->stream) == 0 && !ferror(of->stream) && copy_spool(of);
    int saved = errno;
    fclose(of->stream);
    if (close(of->device) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    errno = saved;
    return ok;
}

static bool commit_rename(OutFile *of)
{
    bool ok = fflush(of->stream) == 0 && !ferror(of->stream) &&
              fchmod(fileno(of->stream), of->mode) == 0;
    int saved = errno;
    if (fclose(of->stream) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(of->temp, of->target) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        unlink(of->temp);
    errno = saved;
    return ok;
}

bool outfile_commit(OutFile *of, graft_diag *d)
{
    if (!of->shown) {
        bool ok = fflush(stdout) == 0 && !ferror(stdout);
        if (!ok)
            diag_plain_error(d, "cannot write standard output: %s", strerror(errno));
        release(of);
        return ok;
    }
    bool ok = of->device >= 0 ? commit_stream(of) : commit_rename(of);
    if (!ok)
        diag_plain_error(d, "cannot write '%s': %s", of->shown, strerror(errno));
    release(of);
    return ok;
}

bool outfile_flush(OutFile *of, graft_diag *d)
{
    if (fflush(of->stream) == 0 && !ferror(of->stream))
        return true;
    diag_plain_error(d, "cannot write '%s': %s", of->shown ? of->shown : "standard output",
                     strerror(errno));
    return false;
}

void outfile_abort(OutFile *of)
{
    if (!of)
        return;
    if (of->shown) {
        fclose(of->stream);
        if (of->device >= 0)
            close(of->device);
        else
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
