/* exe_paths.h - where graft compile --exe finds libgraft's headers and
 * library.
 *
 * note [build tree or install]: a graft program knows where it runs from
 * through /proc/self/exe (its own file, symbolic links followed):
 *
 *   - it is the graft of the build tree it was built in (the same file as
 *     $(abs_top_builddir)/graft, recorded at build time): the headers are
 *     $(abs_top_srcdir)/src and the library $(abs_top_builddir)/libgraft.a,
 *     so `./graft compile --exe` works before `make install`;
 *   - it runs from DIR/BIN where BIN is the configured bindir's part
 *     under the prefix ("bin"): DIR is the prefix it was installed to
 *     (`make install DESTDIR=...`, `make install prefix=DIR`, or an
 *     installed tree moved as a whole), and the headers and library are
 *     found at the same places under DIR as under the configured prefix;
 *   - otherwise (no /proc, a program copied elsewhere): the configured
 *     includedir and libdir.
 *
 * GRAFT_CFLAGS and GRAFT_LIBS in the environment replace the result.
 */
#ifndef GRAFT_EXE_PATHS_H
#define GRAFT_EXE_PATHS_H

#include <stdbool.h>

enum { EXE_PATHS_MAX_INCLUDES = 8 };

typedef struct ExePaths {
    char *include_dirs[EXE_PATHS_MAX_INCLUDES]; /* hold graft_rules.h and the
                                                   headers it includes */
    int n_include;   /* entries in include_dirs */
    char *lib_dir;   /* holds libgraft.a */
    bool build_tree; /* found through the build tree, not an install */
} ExePaths;

/* Fills p (strings malloc'd; exe_paths_free releases them). */
void exe_paths_find(ExePaths *p);
void exe_paths_free(ExePaths *p);

#endif
