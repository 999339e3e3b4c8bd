/* fmt_rules_cli.h - graft fmt on a rule file (fmt_rules.h). */
#ifndef GRAFT_FMT_RULES_CLI_H
#define GRAFT_FMT_RULES_CLI_H

#include <stdbool.h>

#include "graft.h"

/* Whether graft fmt reads path as a rule file: named *.graft, or starting
 * as one (input_kind.h). */
bool fmt_rules_cli_wants(const char *path);

/* The usage check of graft fmt RULES: -1 when fine, else the exit status
 * after the message (--infer-types is for models; -o must not name the
 * input). */
int fmt_rules_cli_check(const char *in, const char *out, bool infer_types);

/* Prints the rule file at in, formatted, to out (NULL or "-": standard
 * output).  False after reporting through d; nothing is written then. */
bool fmt_rules_cli(const char *in, const char *out, const graft_limits *limits, graft_diag *d);

#endif
