/* fuzz_pipeline.c - fuzz harness for the whole pipeline: rule file and
 * model generated from the input (fuzz_gen.h), rules loaded, checked and
 * lowered, the model loaded, the engine run to a fixpoint (or its bound)
 * and the partition passes made.
 *
 * Invariants on every input:
 *   - diagnostics are well-formed and a failure reports an error;
 *   - the generated model loads (it is valid by construction);
 *   - after the run, every users list is consistent, and the printed
 *     result loads again and prints the same bytes;
 *   - a second run from scratch prints the same result and the same
 *     diagnostics byte for byte (determinism).
 * Interpreted and compiled results are compared by fuzz/differential.sh
 * (a C compiler per case is too slow inside the fuzz loop). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "frontend.h"
#include "fuzz.h"
#include "fuzz_gen.h"
#include "lower.h"
#include "relay.h"

/* The rewrite bound: small, so that rule sets that never stop are cut
 * off quickly (the engine must then report them).  It was 100 until
 * session 8: rule sets that grow the graph each round then took up to a
 * quarter of a second, and 20 made the campaign 3.4 times faster for 12
 * fewer edges over the corpus (fuzz/README.md, "Session 8"). */
enum { FUZZ_MAX_REWRITES = 20 };

/* One run: the printed result (or NULL) and all diagnostics. */
typedef struct RunResult {
    char *printed; /* the model after the run, NULL when the run failed */
    char *diags;   /* everything reported */
} RunResult;

/* Loads and lowers the rules; NULL after reporting. */
static Lowered *load_rules(const char *rules, graft_diag *d)
{
    RuleFile *rf = frontend_load_string("fuzz.graft", rules, fuzz_frontend_options(), d);
    Lowered *lw = rf ? lower_rules(rf, d) : NULL;
    rulefile_free(rf);
    return lw;
}

/* Runs lw on a fresh load of model (checked on the first run only: the
 * second loads the same text); checks the graph afterwards. */
static char *run_engine(const Lowered *lw, const char *model, bool first, graft_diag *d)
{
    graft_graph *g = first ? fuzz_load_model("fuzz.relay", model, strlen(model))
                     : fuzz_reload_model("fuzz.relay", model, strlen(model));
    if (!g)
        fuzz_fail("generated model does not load:\n%s", model);
    EngineOptions opts = {.max_rewrites = FUZZ_MAX_REWRITES, .trace = NULL};
    graft_engine *e = engine_new(&lw->rs, g, &opts);
    bool ok = engine_run(e, d);
    engine_free(e);
    fuzz_check_users(g);
    char *printed = ok ? relay_print_string(g) : NULL;
    graph_free(g);
    return printed;
}

static RunResult run_once(const char *rules, const char *model, bool first)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Lowered *lw = load_rules(rules, fd.diag);
    char *printed = lw ? run_engine(lw, model, first, fd.diag) : NULL;
    lower_free(lw);
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, NULL, printed == NULL);
    RunResult r = {printed, xstrndup(fd.text ? fd.text : "", fd.len)};
    fuzz_diag_free(&fd);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzBytes in = {data, size, 0};
    StrBuf rules = {0}, model = {0};
    fuzz_gen_rules(&in, &rules);
    fuzz_gen_model(&in, &model);
    RunResult a = run_once(rules.data, model.data, true);
    if (a.printed)
        graph_free(fuzz_load_model("fuzz.out.relay", a.printed, strlen(a.printed)));
    RunResult b = run_once(rules.data, model.data, false);
    if ((a.printed == NULL) != (b.printed == NULL) ||
        (a.printed && strcmp(a.printed, b.printed) != 0) || strcmp(a.diags, b.diags) != 0)
        fuzz_fail("two runs differ on\n%s\n%s", rules.data, model.data);
    free(a.printed);
    free(a.diags);
    free(b.printed);
    free(b.diags);
    strbuf_free(&rules);
    strbuf_free(&model);
    return 0;
}
