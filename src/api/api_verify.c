/* api_verify.c - graft verify into structures (graft_api.h): each rule
 * evaluated on random instances of its two sides (note [verifying a rule]
 * in src/runtime/verify.h). */
#include "api_impl.h"

#include <stdlib.h>

#include "arena.h"
#include "limit.h"
#include "verify.h"

struct graft_verdicts {
    Arena *arena;         /* the strings */
    graft_verdict *items; /* one per rule, in file order */
    size_t n;             /* entries in items */
};

static const char *const verdict_names[] = {"verified", "refuted", "unchecked", "skipped"};

/* The arena's copy of sb's text, "" when empty. */
static const char *text_of(Arena *a, const StrBuf *sb)
{
    return arena_strdup(a, sb->data ? sb->data : "");
}

graft_verdicts *graft_rules_verify(const graft_rules *r, const graft_verify_options *opts)
{
    graft_verdicts *v = xcalloc(1, sizeof *v);
    v->arena = arena_new();
    int nrules = r->rf->nrules;
    v->items = xcalloc(nrules > 0 ? (size_t)nrules : 1, sizeof *v->items);
    VerifyOptions o = {.seed = opts && opts->seed ? opts->seed : 1,
                       .trials = opts && opts->trials > 0 ? opts->trials : 20,
                       .max_elements = limit_defaults.eval_elements};
    for (int i = 0; i < nrules; i++) {
        o.inexact = r->rf->rules[i]->inexact;
        VerifyReport rep;
        verify_rule(&r->lw->rs, (uint32_t)i, &o, &rep);
        graft_verdict *out = &v->items[v->n++];
        out->rule = arena_strdup(v->arena, r->lw->rs.rules[i].name);
        out->verdict = verdict_names[rep.verdict];
        out->trials = rep.trials;
        out->max_error = rep.max_error;
        out->tolerance = rep.tolerance;
        out->instance = text_of(v->arena, &rep.instance);
        out->why = text_of(v->arena, &rep.why);
        verify_report_free(&rep);
    }
    return v;
}

size_t graft_verdicts_count(const graft_verdicts *v)
{
    return v ? v->n : 0;
}

const graft_verdict *graft_verdicts_get(const graft_verdicts *v, size_t i)
{
    return v && i < v->n ? &v->items[i] : NULL;
}

void graft_verdicts_free(graft_verdicts *v)
{
    if (!v)
        return;
    arena_free(v->arena);
    free(v->items);
    free(v);
}
