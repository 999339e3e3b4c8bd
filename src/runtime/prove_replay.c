/* prove_replay.c - a solver's counterexample, replayed by the reference
 * evaluator on an instance of the pattern (note [proving a rule] in
 * prove.h): the instance comes from graft verify's search (verify_build),
 * each leaf filled with the model's value of its element, its scalar
 * constants pinned in the solver to the instance's values; then the
 * engine applies the rule and both sides are evaluated.  A model the
 * evaluator does not confirm is no refutation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "prove_impl.h"

enum { MAX_ATTEMPTS = 400, SHOW_VALUES = 8 };

/* ---- model values ---- */

double prove_model_double(const Encoder *e, Z3_model m, Z3_ast v)
{
    Z3_ast val;
    if (!Z3_model_eval(e->z, m, v, true, &val))
        return NAN;
    if (e->ieee) {
        Z3_ast bits;
        uint64_t u;
        if (!Z3_model_eval(e->z, m, Z3_mk_fpa_to_ieee_bv(e->z, val), true, &bits) ||
            !Z3_get_numeral_uint64(e->z, bits, &u))
            return NAN;
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    if (Z3_is_algebraic_number(e->z, val))
        val = Z3_get_algebraic_number_lower(e->z, val, 20);
    return Z3_get_numeral_double(e->z, val);
}

void prove_model_text(const Encoder *e, Z3_model m, Z3_ast v, StrBuf *out)
{
    Z3_ast val;
    if (e->ieee || !Z3_model_eval(e->z, m, v, true, &val) || !Z3_is_numeral_ast(e->z, val)) {
        strbuf_printf(out, "%.9g", prove_model_double(e, m, v));
        return;
    }
    Z3_string text = Z3_get_numeral_string(e->z, val);
    if (strlen(text) <= 24)
        strbuf_puts(out, text);
    else
        strbuf_printf(out, "%.9g", prove_model_double(e, m, v));
}

/* ---- the instance ---- */

static int anon_id(const Encoder *e, const graft_pat *p)
{
    for (int k = 0; k < e->nanon; k++)
        if (e->anon[k] == p)
            return e->rule->nslots + k;
    return -1;
}

static int alt_pick(const Encoder *e, const graft_pat *p)
{
    for (int i = 0; i < e->nalts; i++)
        if (e->alt_pat[i] == p)
            return e->alt_pick[i];
    return -1;
}

/* Walks pattern p and instance node n together, recording each leaf's
 * node; false when the instance took another alternative. */
static bool zip(const Encoder *e, Replay *r, const graft_pat *p, const graft_node *n)
{
    const graft_item *item = &e->rs->items[p->item];
    switch (p->kind) {
    case GRAFT_PAT_ANY: {
        int id = p->slot >= 0 ? p->slot : anon_id(e, p);
        if (id >= 0 && id < PROVE_MAX_LEAVES) {
            if (r->leaf_node[id] && r->leaf_node[id] != n)
                return false;
            r->leaf_node[id] = n;
        }
        return true;
    }
    case GRAFT_PAT_ALT: {
        int k = alt_pick(e, p);
        return k >= 0 && zip(e, r, p->kids[k], n);
    }
    case GRAFT_PAT_OP:
        if (node_kind(n) != NODE_CALL || !node_op(n) || strcmp(node_op(n), item->op) != 0 ||
            node_nargs(n) != p->nkids)
            return false;
        for (int i = 0; i < p->nkids; i++)
            if (!zip(e, r, p->kids[i], node_arg(n, i)))
                return false;
        return true;
    case GRAFT_PAT_GETITEM:
        return node_kind(n) == NODE_GETITEM && zip(e, r, p->kids[0], pattern_operand(n, 0));
    default:
        return false;
    }
}

bool prove_replay_find(const Encoder *e, uint32_t rule, bool any, Replay *r)
{
    memset(r, 0, sizeof *r);
    graft_rule_set one = verify_single_rule(e->rs, rule);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        /* any instance: the largest base shape first, the one a proof
           for one instance says most about */
        int base = any ? VERIFY_BASES - 1 - attempt % VERIFY_BASES : attempt % VERIFY_BASES;
        r->in = (Instance){.rs = e->rs, .rule = e->rule, .ch = &r->ch, .base = base,
                           .rng = hash_bytes(e->rule->name, strlen(e->rule->name), 1),
                           .eo = {.mode = EVAL_DTYPE}};
        memset(r->leaf_node, 0, sizeof r->leaf_node);
        if (verify_build(&r->in) && verify_matches_at_root(&one, r->in.g) &&
            (any || zip(e, r, e->rule->pattern, graph_output(r->in.g))))
            return true;
        instance_free(&r->in);
        memset(&r->in, 0, sizeof r->in);
        if (attempt % VERIFY_BASES == VERIFY_BASES - 1 && !chooser_next(&r->ch))
            break;
    }
    return false;
}

static const VerifyLeaf *leaf_of(const Replay *r, const graft_node *n)
{
    for (size_t i = 0; i < r->in.leaves.len; i++)
        if (r->in.leaves.items[i].node == n)
            return &r->in.leaves.items[i];
    return NULL;
}

void prove_replay_pin(const Encoder *e, const Replay *r, Z3_solver s)
{
    for (int i = 0; i < e->nvars; i++) {
        const ProveVar *v = &e->vars[i];
        const VerifyLeaf *l = r->leaf_node[v->id] ? leaf_of(r, r->leaf_node[v->id]) : NULL;
        if (l && l->fixed)
            Z3_solver_assert(e->z, s, Z3_mk_eq(e->z, v->var, prove_num((Encoder *)e,
                                                                        l->value.data[0])));
    }
}

/* ---- evaluating ---- */

/* The model's value of leaf id: its broadcasting read, else any. */
static double leaf_value(const Encoder *e, Z3_model m, int id)
{
    const ProveVar *any = NULL;
    for (int i = 0; i < e->nvars; i++)
        if (e->vars[i].id == id) {
            if (e->vars[i].axis == PROVE_ELEM || e->vars[i].axis == -1)
                return prove_model_double(e, m, e->vars[i].var);
            any = any ? any : &e->vars[i];
        }
    return any ? prove_model_double(e, m, any->var) : 0;
}

static void fill_leaves(const Encoder *e, Replay *r, Z3_model m)
{
    for (int id = 0; id < PROVE_MAX_LEAVES; id++) {
        if (!r->leaf_node[id])
            continue;
        VerifyLeaf *l = (VerifyLeaf *)leaf_of(r, r->leaf_node[id]);
        if (!l || l->fixed)
            continue;
        double v = leaf_value(e, m, id);
        for (size_t k = 0; k < l->value.size; k++)
            l->value.data[k] = v;
    }
}

static const Tensor *leaf_constant(void *ctx, const graft_node *n)
{
    const VerifyLeaf *l = leaf_of(ctx, n);
    return l ? &l->value : NULL;
}

static bool evaluate(Replay *r, Value *out)
{
    graft_graph *g = r->in.g;
    int np = graph_nparams(g);
    Tensor *params = xcalloc((size_t)np + 1, sizeof *params);
    for (int i = 0; i < np; i++) {
        const Tensor *t = leaf_constant(r, graph_param(g, i));
        params[i] = t ? *t : (Tensor){0};
    }
    EvalInputs inputs = {.params = params, .nparams = np, .constant = leaf_constant, .ctx = r};
    EvalError err = {0};
    bool ok = eval_graph(g, &inputs, &r->in.eo, out, &err);
    strbuf_free(&err.msg);
    free(params);
    return ok;
}

/* Over float32 any difference refutes (both NaN is none); over the
 * reals one past graft verify's tolerance, eps * 8 * ops. */
static bool differs(const Encoder *e, const Value *want, const Value *got, int ops,
                    StrBuf *detail)
{
    long at;
    double err = verify_error(want, got, &at);
    if (!e->ieee) {
        double tol = eval_dtype_eps("float32") * 8 * ops;
        strbuf_printf(detail, "    difference %.3g (tolerance %.3g)\n", err, tol);
        return err > tol;
    }
    if (want->nfields >= 0 || got->nfields >= 0 || want->t.size != got->t.size)
        return err > 0;
    for (size_t i = 0; i < want->t.size; i++) {
        double a = want->t.data[i], b = got->t.data[i];
        if (!(a == b || (isnan(a) && isnan(b))))
            return true;
    }
    return false;
}

bool prove_replay_run(const Encoder *e, Replay *r, Z3_model m, StrBuf *detail)
{
    fill_leaves(e, r, m);
    strbuf_puts(detail, "  replayed by the evaluator (each leaf filled with its value):\n");
    return prove_replay_eval(e, r, detail);
}

bool prove_replay_eval(const Encoder *e, Replay *r, StrBuf *detail)
{
    graft_rule_set one = verify_single_rule(e->rs, (uint32_t)(e->rule - e->rs->rules));
    Value want = {.nfields = -1}, got = {.nfields = -1};
    int ops = verify_count_ops(r->in.g);
    bool ok = evaluate(r, &want) && verify_rewrite_once(&one, r->in.g) && evaluate(r, &got);
    bool refuted = false;
    if (ok) {
        ops += verify_count_ops(r->in.g);
        strbuf_puts(detail, "    pattern gives ");
        verify_value_text(&want, SHOW_VALUES, detail);
        strbuf_puts(detail, "\n    rewrite gives ");
        verify_value_text(&got, SHOW_VALUES, detail);
        strbuf_putc(detail, '\n');
        refuted = differs(e, &want, &got, ops, detail);
    }
    value_free(&want);
    value_free(&got);
    return refuted;
}

void prove_replay_free(Replay *r)
{
    if (r->in.g || r->in.leaves.items)
        instance_free(&r->in);
    memset(&r->in, 0, sizeof r->in);
}
