/* check_rules.c - Check tests of the rule front end: parser and printer,
 * registry, checker, hostile input, graft fmt.  CK_RUN_SUITE / CK_RUN_CASE select. */
#include "check_rules.h"

#include "limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loads rule file path, or text as "t.graft" when path is NULL, with
 * the diagnostics captured in *diag (or dropped when diag is NULL),
 * giving up after max_errors (0: never). */
static RuleFile *load(const char *path, const char *text, bool parse_only, uint64_t max_errors,
                      char **diag)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(out);
    graft_diag *d = diag_new(out);
    diag_set_error_limit(d, max_errors);
    FrontendOptions opts = {.parse_only = parse_only};
    RuleFile *rf = path ? frontend_load(&path, 1, &opts, d)
                        : frontend_load_string("t.graft", text, &opts, d);
    diag_free(d);
    fclose(out);
    if (diag)
        *diag = buf;
    else
        free(buf);
    return rf;
}

RuleFile *load_text(const char *text, bool parse_only, char **diag)
{
    return load(NULL, text, parse_only, limit_defaults.errors, diag);
}

RuleFile *load_text_all_errors(const char *text, char **diag)
{
    return load(NULL, text, false, 0, diag);
}

RuleFile *load_path(const char *path, char **diag)
{
    return load(path, NULL, false, limit_defaults.errors, diag);
}

const AstRule *parse_rule(const char *text, RuleFile **rf)
{
    char *diag;
    *rf = load_text(text, true, &diag);
    ck_assert_msg(*rf != NULL, "does not parse: %s\n%s", text, diag);
    free(diag);
    ck_assert_int_ge((*rf)->nrules, 1);
    return (*rf)->rules[0];
}

char *canonical(const char *text)
{
    RuleFile *rf = load_text(text, true, NULL);
    if (!rf)
        return NULL;
    StrBuf sb = {0};
    strbuf_puts(&sb, "");
    for (int i = 0; i < rf->nfiles; i++)
        ast_print_file(&sb, rf->files[i]);
    rulefile_free(rf);
    return sb.data;
}

char *diagnostics(const char *text)
{
    char *diag;
    RuleFile *rf = load_text(text, false, &diag);
    rulefile_free(rf);
    return diag;
}

int main(void)
{
    SRunner *sr = srunner_create(suite_rules_parse());
    srunner_add_suite(sr, suite_rules_check());
    srunner_add_suite(sr, suite_rules_hostile());
    srunner_add_suite(sr, suite_rules_fmt());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
