/* prove.c - proving one rule: for each combination of its pattern's
 * alternatives, encode, ask Z3 for a counterexample, replay one found
 * (note [proving a rule] in prove.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove_impl.h"

enum { DEFAULT_RLIMIT = 20000000, MAX_COMBINATIONS = 64 };

/* Z3 reports misuse through this handler; the prover's own terms are
 * well sorted, so an error is a bug: say which and stop. */
static void z3_error(Z3_context z, Z3_error_code code)
{
    fprintf(stderr, "graft: internal error: Z3: %s\n", Z3_get_error_msg(z, code));
    abort();
}

Z3_context prove_new_context(const ProveOptions *o)
{
    Z3_config cfg = Z3_mk_config();
    Z3_set_param_value(cfg, "model", "true");
    (void)o;
    Z3_context z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(z, z3_error);
    return z;
}

/* exp(t) * exp(-t) = 1 and log(exp(t)) = t for each exp(t) of the formula. */
void prove_exp_axioms(Encoder *e, Z3_solver s)
{
    size_t n = e->exps.len;
    Z3_ast zero = prove_num(e, 0);
    if (n > 0)
        Z3_solver_assert(e->z, s, Z3_mk_eq(e->z, Z3_mk_app(e->z, e->fexp, 1, &zero),
                                           prove_num(e, 1)));
    for (size_t i = 0; i < n; i++) {
        Z3_ast t = e->exps.items[i], nt = prove_neg(e, t);
        Z3_ast et = Z3_mk_app(e->z, e->fexp, 1, &t), ent = Z3_mk_app(e->z, e->fexp, 1, &nt);
        Z3_solver_assert(e->z, s, Z3_mk_eq(e->z, prove_mul(e, et, ent), prove_num(e, 1)));
        Z3_solver_assert(e->z, s, Z3_mk_gt(e->z, ent, prove_num(e, 0)));
        Z3_solver_assert(e->z, s, Z3_mk_eq(e->z, Z3_mk_app(e->z, e->flog, 1, &et), t));
    }
}

/* The leaves whose shapes a side's result has, as names ("x", "x@(1,0)"
 * for x transposed). */
static void shape_names(const Encoder *e, uint64_t set, StrBuf *out)
{
    for (int i = 0; i < e->natoms; i++)
        if (set >> i & 1) {
            int id = e->atom_id[i];
            strbuf_printf(out, "%s%s%s", out->len ? ", " : "",
                          id < e->rule->nslots ? e->rule->slot_names[id] : "_",
                          e->atom_perm[i][0] ? "@" : "");
            strbuf_puts(out, e->atom_perm[i]);
        }
}

Z3_solver prove_new_solver(Encoder *e)
{
    Z3_solver s = Z3_mk_solver(e->z);
    Z3_solver_inc_ref(e->z, s);
    Z3_params ps = Z3_mk_params(e->z);
    Z3_params_inc_ref(e->z, ps);
    Z3_params_set_uint(e->z, ps, Z3_mk_string_symbol(e->z, "rlimit"), e->rlimit);
    Z3_solver_set_params(e->z, s, ps);
    Z3_params_dec_ref(e->z, ps);
    for (size_t i = 0; i < e->assume.len; i++)
        Z3_solver_assert(e->z, s, e->assume.items[i]);
    prove_exp_axioms(e, s);
    return s;
}

/* One combination's question: a solver holding assumptions and the
 * negated claim; false (with why) when the rule leaves the fragment. */
static Z3_solver pose(Encoder *e, ProveReport *r)
{
    ProveTerm pat = prove_encode_pattern(e);
    prove_encode_guard(e);
    ProveTerm act = pat.v ? prove_encode_action(e) : pat;
    if (!pat.v || !act.v) {
        strbuf_printf(&r->why, "not proved: %s", e->outside.data);
        return NULL;
    }
    if (pat.shape != act.shape) {
        StrBuf a = {0}, b = {0};
        shape_names(e, pat.shape, &a);
        shape_names(e, act.shape, &b);
        strbuf_printf(&r->why, "not proved: the result's shape comes from {%s} in the "
                      "pattern but from {%s} in the rewrite", a.data ? a.data : "",
                      b.data ? b.data : "");
        strbuf_free(&a);
        strbuf_free(&b);
        return NULL;
    }
    Z3_solver s = prove_new_solver(e);
    Z3_ast pv = pat.is_bool ? Z3_mk_ite(e->z, pat.v, prove_num(e, 1), prove_num(e, 0)) : pat.v;
    Z3_ast av = act.is_bool ? Z3_mk_ite(e->z, act.v, prove_num(e, 1), prove_num(e, 0)) : act.v;
    /* the claim: the action is defined wherever the pattern matched, and
     * equal to it */
    Z3_ast claim[2] = {Z3_mk_and(e->z, (unsigned)e->oblige.len, e->oblige.items),
                       prove_same(e, pv, av)};
    Z3_solver_assert(e->z, s, Z3_mk_not(e->z, Z3_mk_and(e->z, 2, claim)));
    return s;
}

/* The model's leaf values, "x = -1/2, y = 3". */
static void model_values(const Encoder *e, Z3_model m, StrBuf *out)
{
    for (int i = 0; i < e->nvars; i++) {
        strbuf_printf(out, "%s%s = ", i ? ", " : "",
                      Z3_ast_to_string(e->z, e->vars[i].var));
        prove_model_text(e, m, e->vars[i].var, out);
    }
}

/* A satisfiable question: pin the constants to an instance's, replay the
 * model on it, and judge. */
static void counterexample(Encoder *e, Z3_solver s, uint32_t rule, ProveReport *r)
{
    Replay rp;
    bool found = prove_replay_find(e, rule, false, &rp);
    if (found) {
        Z3_solver_push(e->z, s);
        prove_replay_pin(e, &rp, s);
        if (Z3_solver_check(e->z, s) != Z3_L_TRUE) {
            Z3_solver_pop(e->z, s, 1);
            found = false;
            if (Z3_solver_check(e->z, s) != Z3_L_TRUE) {
                r->verdict = PROVE_NOT_PROVED;
                strbuf_printf(&r->why, "not proved: the solver gave up (%s)",
                              Z3_solver_get_reason_unknown(e->z, s));
                prove_replay_free(&rp);
                return;
            }
        }
    }
    Z3_model m = Z3_solver_get_model(e->z, s);
    Z3_model_inc_ref(e->z, m);
    StrBuf values = {0};
    model_values(e, m, &values);
    strbuf_printf(&r->detail, "  solver's counterexample (%s): %s\n",
                  e->ieee ? "float32" : "over the reals", values.data ? values.data : "");
    bool differs = found && prove_replay_run(e, &rp, m, &r->detail);
    if (differs) {
        r->verdict = PROVE_REFUTED;
        strbuf_printf(&r->why, "refuted by the prover%s", e->ieee ? " over float32" : "");
    } else {
        r->verdict = PROVE_NOT_PROVED;
        strbuf_printf(&r->why, "not proved: %s (%s)",
                      found ? "the solver's counterexample does not replay past the tolerance"
                            : "no instance to replay the solver's counterexample on",
                      values.data ? values.data : "");
    }
    strbuf_free(&values);
    Z3_model_dec_ref(e->z, m);
    prove_replay_free(&rp);
}

/* One combination: true when proved. */
static bool prove_combination(const graft_rule_set *rs, uint32_t rule, const ProveOptions *o,
                              bool ieee, Chooser *ch, ProveReport *r)
{
    Z3_context z = prove_new_context(o);
    Encoder e;
    prove_encoder_init(&e, z, ieee, rs, &rs->rules[rule], ch);
    e.rlimit = o->rlimit ? o->rlimit : DEFAULT_RLIMIT;
    Z3_solver s = pose(&e, r);
    bool proved = false;
    if (s) {
        Z3_lbool res = Z3_solver_check(z, s);
        if (res == Z3_L_FALSE)
            proved = true;
        else if (res == Z3_L_TRUE)
            counterexample(&e, s, rule, r);
        else
            strbuf_printf(&r->why, "not proved: the solver gave up (%s)",
                          Z3_solver_get_reason_unknown(z, s));
        Z3_solver_dec_ref(z, s);
    }
    if (!proved && r->verdict != PROVE_REFUTED)
        r->verdict = PROVE_NOT_PROVED;
    prove_encoder_free(&e);
    Z3_del_context(z);
    return proved;
}

/* Every combination of alternatives; the first that is not proved ends
 * the search. */
static void prove_all(const graft_rule_set *rs, uint32_t rule, const ProveOptions *o, bool ieee,
                      ProveReport *r)
{
    Chooser ch = {0};
    r->combinations = 0;
    for (int k = 0; k < MAX_COMBINATIONS; k++) {
        ch.pos = 0;
        if (!prove_combination(rs, rule, o, ieee, &ch, r))
            return;
        r->combinations++;
        if (!chooser_next(&ch)) {
            r->verdict = PROVE_PROVED;
            return;
        }
    }
    r->verdict = PROVE_NOT_PROVED;
    strbuf_printf(&r->why, "not proved: more than %d combinations of alternatives",
                  MAX_COMBINATIONS);
}

void prove_rule(const graft_rule_set *rs, uint32_t rule, const ProveOptions *o, ProveReport *out)
{
    memset(out, 0, sizeof *out);
    if (rs->rules[rule].nroots) { /* the encoding reads one root's tree */
        out->verdict = PROVE_NOT_PROVED;
        strbuf_printf(&out->why, "not proved: a rule of %d roots leaves the fragment",
                      rs->rules[rule].nroots);
        return;
    }
    prove_all(rs, rule, o, o->ieee, out);
    if (!o->ieee && out->verdict == PROVE_NOT_PROVED)
        prove_on_instance(rs, rule, o, out);
    if (!o->ieee || out->verdict != PROVE_REFUTED)
        return;
    ProveReport reals;
    memset(&reals, 0, sizeof reals);
    prove_all(rs, rule, o, false, &reals);
    if (reals.verdict == PROVE_PROVED) {
        out->verdict = PROVE_INEXACT;
        strbuf_free(&out->why);
        strbuf_puts(&out->why, "refuted over float32 [inexact]: proved over the reals");
    }
    prove_report_free(&reals);
}

bool prove_load(StrBuf *why)
{
    return prove_z3_load(why);
}

void prove_shutdown(void)
{
    prove_z3_unload();
}

void prove_report_free(ProveReport *r)
{
    strbuf_free(&r->why);
    strbuf_free(&r->detail);
}
