/* fuzz_rules.c - fuzz harness for the rule front end (frontend.h,
 * check.h, lower.h).
 *
 * The input, up to its first NUL byte, is a rule file "fuzz.graft".
 * Invariants:
 *   - canonical printing: when the file parses, its printed form parses
 *     again and prints the same bytes (note [canonical text] in
 *     ast_print.c);
 *   - a full load (parse, includes, registry, checks) and the lowering
 *     either succeed or report at least one located error, every
 *     diagnostic line in the "file:line:col: kind: " form with its excerpt;
 *   - no crash, hang, leak or runaway memory (libFuzzer's -timeout and
 *     -rss_limit_mb; the front end's own bounds are in doc/limits.md). */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "fuzz.h"
#include "lower.h"

/* Parses text alone (no builtin ops, no checks); the canonical text of
 * its first file, or NULL when it does not parse. */
static char *print_parsed(const char *text, char **diags)
{
    static const FrontendOptions parse_only = {.no_builtin_ops = true, .parse_only = true};
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    RuleFile *rf = frontend_load_string("fuzz.graft", text, &parse_only, fd.diag);
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, NULL, rf == NULL);
    StrBuf out = {0};
    if (rf && rf->nfiles > 0)
        ast_print_file(&out, rf->files[0]);
    char *printed = rf ? (out.data ? out.data : xstrdup("")) : NULL;
    rulefile_free(rf);
    *diags = xstrndup(fd.text ? fd.text : "", fd.len);
    fuzz_diag_free(&fd);
    return printed;
}

static void check_canonical(const char *text)
{
    char *diags;
    char *first = print_parsed(text, &diags);
    free(diags);
    if (!first)
        return;
    char *second = print_parsed(first, &diags);
    if (!second)
        fuzz_fail("canonical text does not parse:\n%s\n--- because:\n%s", first, diags);
    if (strcmp(first, second) != 0)
        fuzz_fail("canonical text is not stable:\n%s\n--- then:\n%s", first, second);
    free(diags);
    free(first);
    free(second);
}

/* Loads, checks and lowers text as graft check and graft run would. */
static void check_full(const char *text)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    RuleFile *rf = frontend_load_string("fuzz.graft", text, fuzz_frontend_options(), fd.diag);
    Lowered *lw = rf ? lower_rules(rf, fd.diag) : NULL;
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, NULL, rf == NULL || lw == NULL);
    lower_free(lw);
    rulefile_free(rf);
    fuzz_diag_free(&fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xstrndup((const char *)data, size);
    check_canonical(text);
    check_full(text);
    free(text);
    return 0;
}
