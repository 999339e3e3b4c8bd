/* exe_paths.c - libgraft for graft compile --exe, from the build tree or
 * an install (note [build tree or install] in exe_paths.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "config.h"

#include "exe_paths.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#ifndef GRAFT_BUILDDIR
#define GRAFT_BUILDDIR ""
#endif
#ifndef GRAFT_SRCDIR
#define GRAFT_SRCDIR ""
#endif
#ifndef GRAFT_PREFIX
#define GRAFT_PREFIX "/usr/local"
#endif
#ifndef GRAFT_BINDIR
#define GRAFT_BINDIR "/usr/local/bin"
#endif
#ifndef GRAFT_INCLUDEDIR
#define GRAFT_INCLUDEDIR "/usr/local/include"
#endif
#ifndef GRAFT_LIBDIR
#define GRAFT_LIBDIR "/usr/local/lib"
#endif

/* The source folder, under $(abs_top_srcdir), that holds the headers make
 * install puts in $(includedir)/graft (note [public names] in graft.h). */
static const char *const build_include_dirs[] = {"include/graft"};

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* What dir adds to prefix ("/bin" for /usr/local/bin under /usr/local,
 * "" for prefix itself); NULL when dir is not under prefix. */
static const char *under_prefix(const char *dir, const char *prefix)
{
    size_t n = strlen(prefix);
    while (n && prefix[n - 1] == '/')
        n--;
    if (strncmp(dir, prefix, n) != 0 || (dir[n] != '/' && dir[n] != '\0'))
        return NULL;
    return dir + n;
}

/* The prefix a graft installed at exe runs under: exe's directory without
 * the configured bindir's part under the configured prefix; NULL when exe
 * is not in such a directory. */
static char *run_prefix(const char *exe)
{
    const char *bin = under_prefix(GRAFT_BINDIR, GRAFT_PREFIX);
    const char *slash = strrchr(exe, '/');
    if (!bin || !slash)
        return NULL;
    size_t dir_len = (size_t)(slash - exe), bin_len = strlen(bin);
    if (bin_len > dir_len || strncmp(slash - bin_len, bin, bin_len) != 0)
        return NULL;
    return xstrndup(exe, dir_len - bin_len);
}

/* A configured directory moved from the configured prefix to prefix
 * (itself when prefix is NULL or dir lies outside the configured prefix),
 * with tail appended. */
static char *moved(const char *dir, const char *prefix, const char *tail)
{
    const char *rest = prefix ? under_prefix(dir, GRAFT_PREFIX) : NULL;
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s%s%s", rest ? prefix : dir, rest ? rest : "", tail);
    return sb.data;
}

static void from_build_tree(ExePaths *p)
{
    for (size_t i = 0; i < sizeof build_include_dirs / sizeof *build_include_dirs; i++) {
        StrBuf sb = {0};
        strbuf_printf(&sb, "%s/%s", GRAFT_SRCDIR, build_include_dirs[i]);
        p->include_dirs[p->n_include++] = sb.data;
    }
    p->lib_dir = xstrdup(GRAFT_BUILDDIR);
    p->build_tree = true;
}

void exe_paths_find(ExePaths *p)
{
    memset(p, 0, sizeof *p);
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe && GRAFT_BUILDDIR[0] && same_file(exe, GRAFT_BUILDDIR "/graft")) {
        from_build_tree(p);
    } else {
        char *prefix = exe ? run_prefix(exe) : NULL;
        p->include_dirs[p->n_include++] = moved(GRAFT_INCLUDEDIR, prefix, "/graft");
        p->lib_dir = moved(GRAFT_LIBDIR, prefix, "");
        free(prefix);
    }
    free(exe);
}

void exe_paths_free(ExePaths *p)
{
    for (int i = 0; i < p->n_include; i++)
        free(p->include_dirs[i]);
    free(p->lib_dir);
    memset(p, 0, sizeof *p);
}
