/* cmd_check_dump.h - what graft check can print besides diagnostics.
 *
 * Each dump takes a checked RuleFile and writes to out; it returns the exit
 * status (EXIT_OK, or EXIT_BAD_INPUT after reporting through d).  To add a
 * dump: declare it here, define it in its own file, add a row to dumps[]
 * in cmd_check.c. */
#ifndef GRAFT_CHECK_DUMP_H
#define GRAFT_CHECK_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "frontend.h"

typedef struct CheckDumpOptions {
    bool dot; /* --dot: Graphviz instead of text */
} CheckDumpOptions;

/* --dump-ast: every loaded file's items in canonical text (ast_print_file);
 * with more than one file, each preceded by "# file: NAME". */
int check_dump_ast(const RuleFile *rf, const CheckDumpOptions *opts, FILE *out, graft_diag *d);
/* --dump-automaton [--dot]: the rules lowered and built into the matcher
 * automaton (lower.h, automaton.h), dumped by automaton_dump. */
int check_dump_automaton(const RuleFile *rf, const CheckDumpOptions *opts, FILE *out,
                         graft_diag *d);

#endif
