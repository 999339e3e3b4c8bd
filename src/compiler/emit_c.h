/* emit_c.h - the C emitter: a lowered rule set (lower.h) as C source.
 *
 * `graft compile` writes the graft_rule_set tables (pattern.h, ruleset.h) as
 * static const data and adds straight-line C for what the interpreter
 * would otherwise walk: per rule its guard and its action, and the
 * attribute tests (note [one runtime] in ruleset.h).  The output depends
 * only on the rules, so the same rules give the same bytes, and is meant
 * to be read beside them (doc/compile.md, "Reading the generated C").
 */
#ifndef GRAFT_EMIT_C_H
#define GRAFT_EMIT_C_H

#include <stdbool.h>
#include <stdio.h>

#include "frontend.h"
#include "lower.h"

typedef struct EmitOptions {
    const char *name;        /* C identifier of the exported graft_rule_set */
    const char *header;      /* header file name to #include, or NULL */
    const char *out_name;    /* the C file's name, for #line back */
    bool line_directives;    /* #line around guards and actions */
    bool standalone_main;    /* add main() calling graft_standalone_main */
    const char *exe_cflags;  /* --exe: flags libgraft needs (sanitizers) */
} EmitOptions;

/* Writes the C source of lw (lowered from rf) to out. */
void emit_c_source(const RuleFile *rf, const Lowered *lw,
                   const EmitOptions *opts, FILE *out);
/* Writes the header declaring the exported rule set to out. */
void emit_c_header(const EmitOptions *opts, FILE *out);
/* graft compile --exe: emits the C with a main() into a temporary file
 * and runs the C compiler to build the program prog; false after
 * reporting (no compiler found, compiler failed). */
bool emit_c_build_exe(const RuleFile *rf, const Lowered *lw,
                      const EmitOptions *opts, const char *prog, graft_diag *d);
/* True when s can be the exported name: a C identifier, not a keyword. */
bool emit_c_valid_name(const char *s);

#endif
