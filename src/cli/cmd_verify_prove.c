/* cmd_verify_prove.c - graft verify --prove: one rule through the prover
 * (prove.h, note [proving a rule]) before, when it is not settled there,
 * the numeric check. */
#include "config.h"

#include <stdio.h>

#include "cmd_verify_prove.h"

int verify_prove_load(void)
{
    StrBuf why = {0};
    int rc = -1;
    if (!prove_load(&why)) {
        fprintf(stderr, "graft: error: verify --prove: %s\n", why.data);
        rc = EXIT_BAD_INPUT;
    }
    strbuf_free(&why);
    return rc;
}

bool verify_prove_one(const RuleFile *rf, const Lowered *lw, int i, const ProveOptions *po,
                      FILE *out, FILE *err, VerifyVerdict *verdict)
{
    const AstRule *r = rf->rules[i];
    if (lw->rs.rules[i].kind == GRAFT_ACTION_PARTITION)
        return false;
    ProveReport rep;
    prove_rule(&lw->rs, (uint32_t)i, po, &rep);
    fprintf(out, "%s:%d: %s: ", r->src->name, r->name_range.first_line, r->name);
    bool settled = true;
    switch (rep.verdict) {
    case PROVE_PROVED:
        fprintf(out, "proved %s", po->ieee ? "over float32" : "over the reals");
        if (rep.combinations > 1)
            fprintf(out, " (%d combinations of alternatives)", rep.combinations);
        fputc('\n', out);
        *verdict = VERIFY_VERIFIED;
        break;
    case PROVE_INEXACT:
        fprintf(out, "%s%s\n", rep.why.data,
                r->inexact ? " (the rule is marked [inexact])" : "");
        *verdict = r->inexact ? VERIFY_VERIFIED : VERIFY_REFUTED;
        break;
    case PROVE_REFUTED:
        fprintf(out, "%s\n", rep.why.data);
        *verdict = VERIFY_REFUTED;
        break;
    case PROVE_NOT_PROVED:
        fprintf(out, "%s\n", rep.why.data);
        settled = false;
        break;
    }
    if (*verdict == VERIFY_REFUTED && settled) {
        graft_diag *d = diag_new(err);
        diag_set_error_limit(d, 0);
        diag_error(d, r->src, r->name_range, "rule '%s' is %s", r->name, rep.why.data);
        diag_free(d);
    }
    if (*verdict == VERIFY_REFUTED && settled)
        fputs(rep.detail.data ? rep.detail.data : "", err);
    prove_report_free(&rep);
    return settled;
}
