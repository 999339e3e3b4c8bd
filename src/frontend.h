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
 * place of its include; every rule is checked (check.h) and resolved
 * (AstRule.pattern expanded, op calls linked to their OpInfo, variables in
 * AstRule.vars).  Warnings do not make the load fail; errors do.
 */
#ifndef GRAFT_FRONTEND_H
#define GRAFT_FRONTEND_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "limit.h"
#include "registry.h"

typedef struct FrontendOptions {
    bool no_builtin_ops; /* do not load stdpatterns/ops.graft (tests) */
    bool parse_only;     /* stop after parsing: includes are not followed,
                            op declarations not registered, rules not
                            checked or resolved (tests of the parser) */
    const Limits *limits; /* rule-depth, macro and include bounds; NULL:
                             limit_defaults */
} FrontendOptions;

typedef struct RuleFile {
    Arena *arena;        /* compile arena: AST, names, registry tables */
    Interner *names;     /* interned names (op, variable, attribute) */
    Registry *registry;  /* builtin ops + ops declared by the files */
    Source **sources;    /* every file read (top files and includes) */
    int nsources;        /* entries in sources */
    int nbuiltin;        /* leading sources that are built in (0, or 1 for
                            stdpatterns/ops.graft) */
    AstFile **files;     /* the parsed files, in the order they were read */
    int nfiles;          /* entries in files */
    AstRule **rules;     /* every rule, file order, includes spliced in */
    int nrules;          /* entries in rules */
} RuleFile;

/* Loads paths ("-" = standard input) as one rule set.  Returns NULL when
 * any error was reported (diagnostics already printed through d). */
RuleFile *frontend_load(const char *const *paths, int npaths,
                        const FrontendOptions *opts, Diag *d);
/* The same for rule text in memory (tests; includes resolve against the
 * current directory). */
RuleFile *frontend_load_string(const char *name, const char *text,
                               const FrontendOptions *opts, Diag *d);
void rulefile_free(RuleFile *rf);

/* The rule of that name, or NULL. */
const AstRule *rulefile_find_rule(const RuleFile *rf, const char *name);

#endif
