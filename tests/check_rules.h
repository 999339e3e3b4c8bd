/* check_rules.h - helpers shared by the front end's Check tests. */
#ifndef GRAFT_CHECK_RULES_H
#define GRAFT_CHECK_RULES_H

#include <check.h>
#include <stdbool.h>

#include "ast.h"
#include "frontend.h"

/* Loads text as rule file "t.graft" (builtin ops unless parse_only);
 * *diag receives everything reported (caller frees).  Returns the
 * RuleFile or NULL on errors. */
RuleFile *load_text(const char *text, bool parse_only, char **diag);
/* load_text with builtin ops and no limit on the errors reported. */
RuleFile *load_text_all_errors(const char *text, char **diag);
/* The same for rule file path, with builtin ops. */
RuleFile *load_path(const char *path, char **diag);
/* The first rule of a parse-only load of text (must parse). */
const AstRule *parse_rule(const char *text, RuleFile **rf);
/* The canonical text of a parse-only load (caller frees); NULL on errors. */
char *canonical(const char *text);
/* Diagnostics of a full load (caller frees). */
char *diagnostics(const char *text);

Suite *suite_rules_parse(void);
Suite *suite_rules_check(void);
Suite *suite_rules_hostile(void);
Suite *suite_rules_fmt(void);

#endif
