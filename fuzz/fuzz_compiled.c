/* fuzz_compiled.c - fuzz harness for compiled rule sets: the standard
 * rule files below, compiled to C by `graft compile` when the harness is
 * built (fuzz/fuzz.am), run on models generated from the input
 * (fuzz_gen_model), against the same files loaded and lowered here.
 *
 * Invariants on every input:
 *   - the compiled and the interpreted rule set give the same result:
 *     both runs succeed or both fail, with the same printed model and the
 *     same diagnostics byte for byte;
 *   - after the compiled run every users list is consistent, and its
 *     printed result loads again and prints the same bytes.
 * fuzz/differential.sh compares the two on generated rule files as well;
 * it needs a C compiler per case, so it runs tens of cases where this
 * harness runs millions of models against one rule set.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "frontend.h"
#include "fuzz.h"
#include "fuzz_gen.h"
#include "lower.h"
#include "relay.h"

/* The rule set graft compile made of FUZZ_COMPILED_RULES (fuzz/fuzz.am). */
extern const graft_rule_set fuzz_std_rules;

/* The same files, in the same order, as fuzz.am's FUZZ_COMPILED_RULES. */
static const char *const rule_files[] = {
    GRAFT_SRCDIR "/stdpatterns/simplify.graft",
    GRAFT_SRCDIR "/stdpatterns/composite.graft",
};

enum { FUZZ_MAX_REWRITES = 100 };

/* The interpreted rule set, loaded on the first input and kept: loading
 * per input would cost more than the run it checks. */
static const graft_rule_set *interpreted(void)
{
    static Lowered *lw;
    if (lw)
        return &lw->rs;
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load(rule_files, (int)ARRAY_LEN(rule_files), NULL, d);
    lw = rf ? lower_rules(rf, d) : NULL;
    rulefile_free(rf);
    diag_free(d);
    if (!lw)
        fuzz_fail("the standard rule files do not load");
    if (lw->rs.nrules != fuzz_std_rules.nrules)
        fuzz_fail("%u rules interpreted, %u compiled: fuzz.am and %s disagree",
                  lw->rs.nrules, fuzz_std_rules.nrules, __FILE__);
    return &lw->rs;
}

/* One run of rs on a fresh load of model (checked on the first run only:
 * the second loads the same text): the printed result (NULL when the run
 * failed) and every diagnostic, in *diags. */
static char *run(const graft_rule_set *rs, const char *model, bool first, char **diags)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    graft_graph *g = first ? fuzz_load_model("fuzz.relay", model, strlen(model))
                     : fuzz_reload_model("fuzz.relay", model, strlen(model));
    if (!g)
        fuzz_fail("generated model does not load:\n%s", model);
    EngineOptions opts = {.max_rewrites = FUZZ_MAX_REWRITES, .trace = NULL};
    graft_engine *e = engine_new(rs, g, &opts);
    bool ok = engine_run(e, fd.diag);
    engine_free(e);
    fuzz_check_users(g);
    char *printed = ok ? relay_print_string(g) : NULL;
    graph_free(g);
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, NULL, !ok);
    *diags = xstrndup(fd.text ? fd.text : "", fd.len);
    fuzz_diag_free(&fd);
    return printed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzBytes in = {data, size, 0};
    StrBuf model = {0};
    fuzz_gen_model(&in, &model);
    char *compiled_diags, *interpreted_diags;
    char *compiled = run(&fuzz_std_rules, model.data, true, &compiled_diags);
    char *interp = run(interpreted(), model.data, false, &interpreted_diags);
    if ((compiled == NULL) != (interp == NULL) || (compiled && strcmp(compiled, interp) != 0) ||
        strcmp(compiled_diags, interpreted_diags) != 0)
        fuzz_fail("compiled and interpreted rules differ on\n%s\ncompiled:\n%s%s\n"
                  "interpreted:\n%s%s",
                  model.data, compiled ? compiled : "(failed)\n", compiled_diags,
                  interp ? interp : "(failed)\n", interpreted_diags);
    if (compiled)
        graph_free(fuzz_load_model("fuzz.out.relay", compiled, strlen(compiled)));
    free(compiled);
    free(interp);
    free(compiled_diags);
    free(interpreted_diags);
    strbuf_free(&model);
    return 0;
}
