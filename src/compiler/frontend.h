/* frontend.h - load rule files: read, parse, follow includes, check.
 *
 * One call turns rule file names into a checked RuleFile:
 *
 *   Diag *d = diag_new(stderr);
 *   RuleFile *rf = frontend_load(paths, npaths, NULL, d);
 *   if (!rf) ... diagnostics were printed, exit 1
 *   for (int i = 0; i < rf->nrules; i++) use rf->rules[i]
 *   rulefile_free(rf);
 *
 * The RuleFile owns everything: sources, AST (one compile arena), the
 * registry.  Rules are in file order, the rules of an included file at the
 * place of its include; every rule is checked (checker.h) and resolved
 * (AstRule.pattern expanded, op calls linked to their OpInfo, variables in
 * AstRule.vars).  Warnings do not make the load fail; errors do.
 */
#ifndef GRAFT_FRONTEND_H
#define GRAFT_FRONTEND_H

#include <stdbool.h>

#include "diag.h"
#include "limit.h"
#include "rulefile.h"

/* stdpatterns/ops.graft's ops declared once, to be shared read-only by
 * many loads (FrontendOptions.builtin): a process that loads rule text
 * again and again (the fuzz harnesses, the language server) then builds
 * the builtin ops from their table (note [compiled registry] in
 * registry_tables.h) once, not once a load.  Each load starts from a copy
 * of the declared registry (registry_clone: the op table, not the ops),
 * to which its own `op` declarations add.  It must outlive every RuleFile
 * loaded with it. */
typedef struct FrontendBuiltin FrontendBuiltin;

/* Never NULL (the table was checked when make wrote it); d is where the
 * declarations would report, as a load's. */
FrontendBuiltin *frontend_builtin_new(graft_diag *d);
void frontend_builtin_free(FrontendBuiltin *b);

typedef struct FrontendOptions {
    bool no_builtin_ops; /* do not load stdpatterns/ops.graft (tests) */
    bool parse_only;     /* stop after parsing: includes are not followed,
                            op declarations not registered, rules not
                            checked or resolved (tests of the parser) */
    const graft_limits *limits; /* rule-depth, macro and include bounds; NULL:
                             limit_defaults */
    const char *const *include_dirs; /* where include "f" looks after the
                                        including file's directory (-I DIR,
                                        then GRAFT_PATH), in order */
    int ninclude_dirs;    /* entries in include_dirs */
    const FrontendBuiltin *builtin; /* the builtin ops declared already, or
                                       NULL: declare them for this load */
} FrontendOptions;

/* Loads paths ("-" = standard input) as one rule set.  Returns NULL when
 * any error was reported (diagnostics already printed through d). */
RuleFile *frontend_load(const char *const *paths, int npaths,
                        const FrontendOptions *opts, graft_diag *d);
/* The same for rule text in memory (tests; includes resolve against the
 * current directory). */
RuleFile *frontend_load_string(const char *name, const char *text,
                               const FrontendOptions *opts, graft_diag *d);
/* The same for len bytes of text, which may hold NUL bytes (an editor's
 * buffer: the scanner reports them as it does in a file). */
RuleFile *frontend_load_text(const char *name, const char *text, size_t len,
                             const FrontendOptions *opts, graft_diag *d);
/* Where include "path" written in from is found (note [includes] in
 * frontend.c): beside from, in opts's include directories, in the
 * installed and the source tree's stdpatterns; the path beside from when
 * none exists.  The caller frees it. */
char *frontend_include_path(const FrontendOptions *opts, const Source *from, const char *path);
/* The builtin ops' registry (hover and completion in graft lsp). */
const Registry *frontend_builtin_registry(const FrontendBuiltin *b);

#endif
