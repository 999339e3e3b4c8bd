/* api_threads.c - graft_api.h's promises a binding relies on, in C so that
 * they also run under the sanitizers and valgrind (tests/api_example.sh
 * builds it): four threads, each with its own rule set, diagnostics and
 * models, plus one rule set shared by all, rewrite the same model many
 * times and get the same text; bad input of every kind fails with a
 * diagnostic at the right place and leaks nothing.  Prints "ok" lines;
 * exits 1 after printing what differed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft_api.h"

static const char rules_text[] = "add_zero := add(x, 0f) => x\n";
static const char model_text[] = "def @main(%x: Tensor[(4), float32]) {\n"
                                 "  nn.relu(add(%x, 0f))\n"
                                 "}\n";
static const char want[] = "def @main(%x: Tensor[(4), float32]) {\n"
                           "  nn.relu(%x)\n"
                           "}\n";
enum { THREADS = 4, ROUNDS = 25 };

/* One thread's share: the rule set every thread uses, and its faults. */
typedef struct Job {
    const graft_rules *shared;
    int bad;
} Job;

/* One thread: its own rules and diagnostics, and the shared rules. */
static void *work(void *arg)
{
    Job *job = arg;
    int *bad = &job->bad;
    const graft_rules *shared = job->shared;
    graft_diag *d = graft_diag_capture();
    graft_rules *own = graft_rules_parse("own.graft", rules_text, strlen(rules_text), NULL, d);
    for (int i = 0; i < ROUNDS && own; i++) {
        const graft_rules *r = i % 2 ? own : shared;
        char *out = graft_rules_apply(r, "m.relay", model_text, strlen(model_text),
                                      GRAFT_STEP_REWRITE | GRAFT_STEP_PARTITION, NULL, d);
        *bad += !out || strcmp(out, want) != 0;
        graft_string_free(out);
    }
    *bad += !own || graft_diag_count(d) != 0;
    graft_rules_free(own);
    graft_diag_free(d);
    return NULL;
}

/* The first message of d is at line:col and contains text; clears d. */
static int expect(graft_diag *d, const char *what, int line, int col, const char *text)
{
    const graft_message *m = graft_diag_message(d, 0);
    int ok = m && m->line == line && m->column == col && strstr(m->text, text);
    printf("%s %s\n", ok ? "ok" : "FAIL", what);
    if (!ok && m)
        printf("  got %d:%d: %s\n", m->line, m->column, m->text);
    graft_diag_clear(d);
    return !ok;
}

static int bad_inputs(void)
{
    graft_diag *d = graft_diag_capture();
    int fails = 0;
    graft_rules *r = graft_rules_parse("r.graft", "r := add(x,\n", 12, NULL, d);
    fails += r != NULL || expect(d, "rule syntax error", 1, 12, "unexpected end of file");
    graft_graph *g = graft_model_parse("m.relay", "def @main(%x) {\n  add(%x\n}\n", 26, NULL, d);
    fails += g != NULL || expect(d, "model syntax error", 3, 1, "syntax error");
    g = graft_model_parse("m.onnx", "<\n  ir_version: 7\n>\n", 19, NULL, d);
    fails += g != NULL || expect(d, "ONNX text", 3, 2, "unexpected end of input");
    g = graft_model_parse("m.onnx", "\x08\x07\x12\x04onnx", 8, NULL, d);
    fails += g != NULL || expect(d, "ONNX bytes", 0, 0, "the model has no graph");
    g = graft_model_load("/nonexistent/m.relay", NULL, d);
    fails += g != NULL || expect(d, "missing model", 0, 0, "cannot read");
    const char *paths[] = {"/nonexistent/r.graft"};
    r = graft_rules_load(paths, 1, NULL, d);
    fails += r != NULL || expect(d, "missing rules", 0, 0, "cannot read");
    r = graft_rules_parse("r.graft", rules_text, strlen(rules_text), NULL, d);
    g = graft_model_parse("m.relay", model_text, strlen(model_text), NULL, d);
    char *text = graft_rules_explain(r, g, "%99", NULL, NULL, d);
    fails += text != NULL || expect(d, "explain at no node", 0, 0, "no node '%99'");
    text = graft_rules_explain(r, g, NULL, "nope", NULL, d);
    fails += text != NULL || expect(d, "explain no rule", 0, 0, "no rule 'nope'");
    text = graft_rules_explain(r, g, "%0", NULL, NULL, d);
    static const char explained[] = "add_zero (r.graft:1) at %0: matches";
    int explains = text && strncmp(text, explained, strlen(explained)) == 0;
    printf("%s explain at %%0\n", explains ? "ok" : "FAIL");
    fails += !explains;
    graft_string_free(text);
    graft_verdicts *v = graft_rules_verify(r, NULL);
    const graft_verdict *vd = graft_verdicts_get(v, 0);
    int verified = graft_verdicts_count(v) == 1 && !strcmp(vd->verdict, "verified");
    printf("%s verify\n", verified ? "ok" : "FAIL");
    fails += !verified;
    graft_verdicts_free(v);
    graft_model_free(g);
    graft_rules_free(r);
    graft_diag_free(d);
    return fails;
}

int main(void)
{
    graft_diag *d = graft_diag_capture();
    graft_rules *r = graft_rules_parse("shared.graft", rules_text, strlen(rules_text), NULL, d);
    pthread_t t[THREADS];
    Job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (Job){.shared = r};
        pthread_create(&t[i], NULL, work, &jobs[i]);
    }
    int fails = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        fails += jobs[i].bad;
    }
    printf("%s %d threads x %d rewrites\n", fails ? "FAIL" : "ok", THREADS, ROUNDS);
    graft_rules_free(r);
    graft_diag_free(d);
    fails += bad_inputs();
    return fails ? 1 : 0;
}
