/* rulefile.h - a set of parsed rule files and everything they own.
 *
 * A RuleFile is what the front end fills (frontend.h: read, parse, follow
 * includes, then check) and what the checker, the lowering and the C
 * emitter read.  It owns everything: sources, AST (one compile arena), the
 * registry.  It sits below the checker so that the checker need not know
 * how files are found and read.
 */
#ifndef GRAFT_RULEFILE_H
#define GRAFT_RULEFILE_H

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "registry.h"

typedef struct RuleFile {
    Arena *arena;        /* compile arena: AST, names, registry tables */
    Interner *names;     /* interned names (op, variable, attribute) */
    Registry *registry;  /* builtin ops + ops declared by the files */
    Source **sources;    /* every file read (top files and includes) */
    int nsources;        /* entries in sources */
    int nbuiltin;        /* leading sources that are built in (0, or 1 for
                            stdpatterns/ops.graft) */
    bool shared_builtin; /* the builtin source belongs to a FrontendBuiltin
                            (frontend.h), not to this RuleFile */
    AstFile **files;     /* the parsed files, in the order they were read */
    int nfiles;          /* entries in files */
    AstRule **rules;     /* every rule, file order, includes spliced in */
    int nrules;          /* entries in rules */
} RuleFile;

/* An empty rule set: an arena, its interner and an empty registry. */
RuleFile *rulefile_new(void);
/* The same starting from a copy of names and of registry (its ops already
 * declared, interner_clone, registry_clone): both must outlive it. */
RuleFile *rulefile_new_from(const Interner *names, const Registry *registry);
void rulefile_free(RuleFile *rf);

/* The rule of that name, or NULL. */
const AstRule *rulefile_find_rule(const RuleFile *rf, const char *name);

#endif
