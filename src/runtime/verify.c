/* verify.c - checking one rule on instances of its pattern: find an
 * instance the rule matches, draw values, evaluate, rewrite with the
 * engine, evaluate again, compare (note [verifying a rule] in verify.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "verify_impl.h"

enum { DEFAULT_INSTANCES = 400, SHOW_VALUES = 8 };

/* ---- comparing values ---- */

static double max_abs(const Tensor *t)
{
    double m = 0;
    for (size_t i = 0; i < t->size; i++)
        if (isfinite(t->data[i]) && fabs(t->data[i]) > m)
            m = fabs(t->data[i]);
    return m;
}

/* The error of got against want relative to 1 + the larger of want's
 * largest magnitude and floor. */
static double tensor_error(const Tensor *want, const Tensor *got, double floor, long *at)
{
    if (want->rank != got->rank || memcmp(want->dims, got->dims, (size_t)want->rank * 8) != 0) {
        *at = -1;
        return INFINITY;
    }
    double scale = 1 + fmax(max_abs(want), floor), worst = 0;
    for (size_t i = 0; i < want->size; i++) {
        double a = want->data[i], b = got->data[i], e;
        if (isnan(a) || isnan(b))
            e = isnan(a) && isnan(b) ? 0 : INFINITY;
        else if (isinf(a) || isinf(b))
            e = a == b ? 0 : INFINITY;
        else
            e = fabs(a - b) / scale;
        if (e > worst || (i == 0 && e >= worst)) {
            worst = e;
            *at = (long)i;
        }
    }
    return worst;
}

static double value_error(const Value *want, const Value *got, double floor, long *at)
{
    *at = 0;
    if (want->nfields < 0 && got->nfields < 0)
        return tensor_error(&want->t, &got->t, floor, at);
    if (want->nfields != got->nfields) {
        *at = -1;
        return INFINITY;
    }
    double worst = 0;
    for (int i = 0; i < want->nfields; i++) {
        long fat;
        double e = value_error(&want->fields[i], &got->fields[i], floor, &fat);
        if (e > worst)
            worst = e, *at = fat;
    }
    return worst;
}

double verify_error(const Value *want, const Value *got, long *at)
{
    return value_error(want, got, 0, at);
}

void verify_value_text(const Value *v, int max, StrBuf *out)
{
    if (v->nfields >= 0) {
        strbuf_putc(out, '(');
        for (int i = 0; i < v->nfields; i++) {
            if (i)
                strbuf_puts(out, "; ");
            verify_value_text(&v->fields[i], max, out);
        }
        strbuf_putc(out, ')');
        return;
    }
    tensor_shape_text(&v->t, out);
    strbuf_printf(out, " %s = ", v->t.dtype);
    if (v->t.rank > 0)
        strbuf_putc(out, '[');
    for (size_t i = 0; i < v->t.size && i < (size_t)max; i++)
        strbuf_printf(out, i ? ", %.9g" : "%.9g", v->t.data[i]);
    if (v->t.size > (size_t)max)
        strbuf_printf(out, ", ... (%zu values)", v->t.size);
    if (v->t.rank > 0)
        strbuf_putc(out, ']');
}

/* ---- one instance ---- */

graft_rule_set verify_single_rule(const graft_rule_set *rs, uint32_t rule)
{
    graft_rule_set one = *rs;
    one.rules = &rs->rules[rule];
    one.nrules = 1;
    one.automaton = NULL; /* a compiled index orders all the rules */
    return one;
}

typedef struct RootMatch {
    const graft_node *root;
    bool found;
} RootMatch;

static void note_match(void *ctx, uint32_t rule, graft_node *root, const graft_binding *b)
{
    RootMatch *m = ctx;
    (void)rule;
    (void)b;
    m->found = m->found || root == m->root;
}

bool verify_matches_at_root(const graft_rule_set *one, graft_graph *g)
{
    graft_engine *e = engine_new(one, g, &(EngineOptions){0});
    RootMatch m = {graph_output(g), false};
    if (one->rules[0].nroots) /* the first root (note [root instances] in verify_build.c) */
        m.root = node_arg(graph_output(g), 0);
    engine_matches(e, note_match, &m);
    engine_free(e);
    return m.found;
}

bool verify_rewrite_once(const graft_rule_set *one, graft_graph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&buf, &len);
    graft_diag *d = diag_new(sink);
    graft_engine *e = engine_new(one, g, &(EngineOptions){.stop_after = 1, .folds_built = true});
    engine_rewrite(e, d);
    bool rewrote = engine_stats(e)->rewrites > 0;
    engine_free(e);
    diag_free(d);
    fclose(sink);
    free(buf);
    return rewrote;
}

static const Tensor *leaf_constant(void *ctx, const graft_node *n)
{
    Instance *in = ctx;
    for (size_t i = 0; i < in->leaves.len; i++)
        if (in->leaves.items[i].node == n)
            return &in->leaves.items[i].value;
    return NULL;
}

/* Evaluates the instance on the leaves' current values. */
static bool eval_instance(Instance *in, Value *out, EvalError *err)
{
    int np = graph_nparams(in->g);
    Tensor *params = xcalloc((size_t)np + 1, sizeof *params);
    for (int i = 0; i < np; i++) {
        const Tensor *t = leaf_constant(in, graph_param(in->g, i));
        params[i] = t ? *t : (Tensor){0};
    }
    EvalInputs inputs = {params, np, leaf_constant, in, NULL};
    bool ok = eval_graph(in->g, &inputs, &in->eo, out, err);
    free(params);
    return ok;
}

int verify_count_ops(const graft_graph *g)
{
    graft_node **order = xcalloc((size_t)graph_node_count(g) + 1, sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    int ops = 0;
    for (uint32_t i = 0; i < n; i++)
        ops += node_kind(order[i]) == NODE_CALL;
    free(order);
    return ops;
}

/* The values of every trial: the leaves' and both results. */
typedef struct Trials {
    int n;
    Tensor *inputs;   /* n * nleaves */
    Value *want, *got;
} Trials;

static void trials_free(Trials *t, size_t nleaves)
{
    for (int i = 0; i < t->n; i++) {
        for (size_t k = 0; k < nleaves; k++)
            tensor_free(&t->inputs[(size_t)i * nleaves + k]);
        value_free(&t->want[i]);
        value_free(&t->got[i]);
    }
    free(t->inputs);
    free(t->want);
    free(t->got);
}

static void failure(Instance *in, const char *side, EvalError *err)
{
    in->no_evaluator = in->no_evaluator || err->status == EVAL_NO_OP;
    if (!in->why.len)
        strbuf_printf(&in->why, "%s: %s", side, err->msg.data ? err->msg.data : "?");
    strbuf_free(&err->msg);
}

/* Evaluates the pattern on the leaves' values into trial t->n, redrawn
 * positive once when it is not finite (e.g. sqrt of a negative variance);
 * a corner trial that stays infinite is dropped (false, nothing kept). */
static bool pattern_trial(Instance *in, Trials *t, bool corner, bool *failed)
{
    EvalError err = {0};
    Value *want = &t->want[t->n];
    if (!eval_instance(in, want, &err)) {
        failure(in, "the pattern", &err);
        return !(*failed = true);
    }
    if (!eval_value_finite(want)) {
        value_free(want);
        if (corner)
            for (size_t k = 0; k < in->leaves.len; k++)
                for (size_t i = 0; i < in->leaves.items[k].value.size; i++)
                    in->leaves.items[k].value.data[i] = fabs(in->leaves.items[k].value.data[i]);
        else
            verify_draw(in, true);
        if (!eval_instance(in, want, &err)) {
            failure(in, "the pattern", &err);
            return !(*failed = true);
        }
        if (corner && !eval_value_finite(want)) {
            value_free(want);
            return false;
        }
    }
    for (size_t k = 0; k < in->leaves.len; k++)
        t->inputs[(size_t)t->n * in->leaves.len + k] = tensor_copy(&in->leaves.items[k].value);
    t->n++;
    return true;
}

/* Draws and evaluates the pattern side of every trial: the corner trials
 * (note [corner values]), then ntrials random ones. */
static bool run_pattern(Instance *in, const Corners *c, int ntrials, Trials *t)
{
    int all = c->n + ntrials;
    t->inputs = xcalloc((size_t)all * in->leaves.len + 1, sizeof *t->inputs);
    t->want = xcalloc((size_t)all + 1, sizeof *t->want);
    t->got = xcalloc((size_t)all + 1, sizeof *t->got);
    bool failed = false;
    for (int i = 0; i < all && !failed; i++) {
        if (i < c->n)
            verify_draw_corners(in, c, i);
        else
            verify_draw(in, false);
        pattern_trial(in, t, i < c->n, &failed);
    }
    return !failed;
}

static bool run_rewrite(Instance *in, Trials *t)
{
    for (int i = 0; i < t->n; i++) {
        for (size_t k = 0; k < in->leaves.len; k++)
            memcpy(in->leaves.items[k].value.data, t->inputs[(size_t)i * in->leaves.len + k].data,
                   in->leaves.items[k].value.size * sizeof(double));
        EvalError err = {0};
        if (!eval_instance(in, &t->got[i], &err)) {
            failure(in, "the rewrite", &err);
            return false;
        }
    }
    return true;
}

/* What the instance's text calls leaf l: its variable, the capture it is
 * a field of (note [spliced captures] in verify_choose.c), or _. */
static const char *leaf_name(const Instance *in, const VerifyLeaf *l)
{
    return l->slot >= 0 ? in->rule->slot_names[l->slot] : l->name ? l->name : "_";
}

static void describe_instance(const Instance *in, StrBuf *out)
{
    for (size_t k = 0; k < in->leaves.len; k++) {
        const VerifyLeaf *l = &in->leaves.items[k];
        const graft_node *n = l->node;
        const char *name = leaf_name(in, l);
        if (k)
            strbuf_puts(out, ", ");
        if (node_kind(n) == NODE_CONST && node_const_is_scalar(n))
            strbuf_printf(out, "%s = %s", name, node_const_text(n));
        else if (l->fixed) { /* an ONNX shape input: its values too */
            Value v = {.nfields = -1, .t = l->value};
            strbuf_printf(out, "%s: ", name);
            verify_value_text(&v, 2 * EVAL_MAX_RANK, out);
        } else {
            strbuf_printf(out, "%s: ", name);
            tensor_shape_text(&l->value, out);
            strbuf_printf(out, " %s", l->value.dtype);
        }
    }
    for (int s = 0; s < in->rule->nslots; s++)
        if (in->slot_attr[s]) {
            StrBuf key = {0};
            pattern_attr_key(in->slot_attr[s], &key);
            strbuf_printf(out, "%s%s = %s", out->len ? ", " : "", in->rule->slot_names[s],
                          key.data ? key.data : "");
            strbuf_free(&key);
        }
}

static void counterexample(const Instance *in, const Trials *t, int trial, long at,
                           StrBuf *out)
{
    strbuf_printf(out, "  counterexample (trial %d of %d):\n", trial + 1, t->n);
    for (size_t k = 0; k < in->leaves.len; k++) {
        const VerifyLeaf *l = &in->leaves.items[k];
        if (l->fixed)
            continue;
        Value v = {.nfields = -1, .t = t->inputs[(size_t)trial * in->leaves.len + k]};
        strbuf_printf(out, "    %s: ", leaf_name(in, l));
        verify_value_text(&v, SHOW_VALUES, out);
        strbuf_putc(out, '\n');
    }
    strbuf_puts(out, "    pattern gives ");
    verify_value_text(&t->want[trial], SHOW_VALUES, out);
    strbuf_puts(out, "\n    rewrite gives ");
    verify_value_text(&t->got[trial], SHOW_VALUES, out);
    if (at >= 0)
        strbuf_printf(out, "\n    first worst element: %ld\n", at);
    else
        strbuf_puts(out, "\n    (the shapes differ)\n");
}

static const char *result_dtype(const Value *v)
{
    while (v->nfields > 0)
        v = &v->fields[0];
    return v->nfields < 0 ? v->t.dtype : "float32";
}

/* Compares the trials and fills the report. */
static void judge(const Instance *in, const Trials *t, int ops, const VerifyOptions *o,
                  VerifyReport *r)
{
    double eps = eval_dtype_eps(result_dtype(&t->want[0]));
    r->tolerance = o->inexact ? 1e-2 : eps * 8 * ops;
    r->trials = t->n;
    int worst_trial = -1;
    long worst_at = 0;
    for (int i = 0; i < t->n; i++) {
        long at;
        double inputs = 0; /* rounding errors scale with the operands too */
        for (size_t k = 0; k < in->leaves.len; k++)
            inputs = fmax(inputs, max_abs(&t->inputs[(size_t)i * in->leaves.len + k]));
        double e = value_error(&t->want[i], &t->got[i], inputs, &at);
        if (e > r->max_error || (worst_trial < 0 && e > r->tolerance)) {
            r->max_error = e;
            if (e > r->tolerance && worst_trial < 0)
                worst_trial = i, worst_at = at;
        }
    }
    describe_instance(in, &r->instance);
    if (worst_trial < 0) {
        r->verdict = VERIFY_VERIFIED;
        return;
    }
    r->verdict = VERIFY_REFUTED;
    strbuf_printf(&r->why, "max error %.3g (tolerance %.3g)", r->max_error, r->tolerance);
    counterexample(in, t, worst_trial, worst_at, &r->detail);
}

/* Tries one instance: false when it does not count (with in->why). */
static bool try_instance(Instance *in, const graft_rule_set *one, const VerifyOptions *o,
                         const Corners *c, VerifyReport *r)
{
    if (!verify_build(in))
        return false;
    if (!verify_matches_at_root(one, in->g)) {
        strbuf_puts(&in->why, "the rule does not match the instance (its guard is false)");
        return false;
    }
    Trials t = {0};
    int ntrials = o->trials > 0 ? o->trials : 1;
    bool ok = run_pattern(in, c, ntrials, &t);
    int ops = ok ? verify_count_ops(in->g) : 0;
    if (ok && !verify_rewrite_once(one, in->g)) {
        strbuf_puts(&in->why, "the rule matched but did not rewrite");
        ok = false;
    }
    ok = ok && run_rewrite(in, &t);
    if (ok)
        judge(in, &t, ops + verify_count_ops(in->g), o, r);
    trials_free(&t, in->leaves.len);
    return ok;
}

static uint64_t rule_seed(uint64_t seed, const char *name)
{
    return hash_bytes(name, strlen(name), seed);
}

/* An op of the action without evaluator, or NULL: such a rule cannot be
 * checked on any instance. */
static const char *action_without_evaluator(const graft_expr *e)
{
    if (!e)
        return NULL;
    if (e->kind == GRAFT_EXPR_CALL && !eval_has_op(e->s))
        return e->s;
    for (int i = 0; i < e->nkids; i++) {
        const char *op = action_without_evaluator(e->kids[i]);
        if (op)
            return op;
    }
    for (int i = 0; i < e->nattrs; i++)
        if (e->attrs[i].src == GRAFT_ASRC_EXPR && action_without_evaluator(e->attrs[i].value))
            return action_without_evaluator(e->attrs[i].value);
    return NULL;
}

/* Searches the instances of one base shape; true when one counted. */
static bool search_base(const graft_rule_set *rs, uint32_t rule, int base, const VerifyOptions *o,
                        const Corners *c, VerifyReport *r, StrBuf *first_why, StrBuf *op_why)
{
    const graft_rule *rd = &rs->rules[rule];
    graft_rule_set one = verify_single_rule(rs, rule);
    Chooser ch = {0};
    int max = (o->max_instances > 0 ? o->max_instances : DEFAULT_INSTANCES) / VERIFY_BASES;
    int *more_fields = verify_spliced_fields(rs, rd);
    bool done = false;
    for (int attempt = 0; attempt < max && !done; attempt++) {
        Instance in = {.rs = rs, .rule = rd, .ch = &ch, .base = base, .more_fields = more_fields,
                       .rng = rule_seed(o->seed + (uint64_t)base, rd->name),
                       .eo = {.mode = EVAL_DTYPE, .max_elements = o->max_elements}};
        done = try_instance(&in, &one, o, c, r);
        if (!done && in.why.len && !first_why->len)
            strbuf_puts(first_why, in.why.data);
        if (!done && in.no_evaluator && !op_why->len)
            strbuf_puts(op_why, in.why.data);
        instance_free(&in);
        if (!done && !chooser_next(&ch))
            break;
    }
    free(more_fields);
    return done;
}

/* Adds the report of one more instance to the rule's: the first
 * refutation stands; otherwise errors and trials accumulate and the
 * instance shown is the latest (the largest base shape). */
/* Whether an instance of this text was checked before; remembers it.
 * seen holds "\nTEXT\n" per instance. */
static bool seen_before(StrBuf *seen, const StrBuf *instance)
{
    StrBuf key = {0};
    strbuf_printf(&key, "\n%s\n", instance->data ? instance->data : "");
    bool found = seen->data && strstr(seen->data, key.data);
    if (!found)
        strbuf_puts(seen, key.data + (seen->len ? 1 : 0));
    strbuf_free(&key);
    return found;
}

static void merge(VerifyReport *into, VerifyReport *r, int *instances, StrBuf *seen)
{
    *instances += !seen_before(seen, &r->instance);
    if (into->verdict == VERIFY_REFUTED) {
        verify_report_free(r);
        return;
    }
    if (r->verdict == VERIFY_REFUTED || into->trials == 0) {
        int trials = into->trials;
        verify_report_free(into);
        *into = *r;
        into->trials += r->verdict == VERIFY_REFUTED ? 0 : trials;
        return;
    }
    into->trials += r->trials;
    into->max_error = r->max_error > into->max_error ? r->max_error : into->max_error;
    into->tolerance = r->tolerance > into->tolerance ? r->tolerance : into->tolerance;
    StrBuf swap = into->instance;
    into->instance = r->instance;
    r->instance = swap;
    verify_report_free(r);
}

void verify_rule(const graft_rule_set *rs, uint32_t rule, const VerifyOptions *o, VerifyReport *out)
{
    const graft_rule *rd = &rs->rules[rule];
    memset(out, 0, sizeof *out);
    if (rd->kind == GRAFT_ACTION_PARTITION) {
        out->verdict = VERIFY_SKIPPED;
        strbuf_puts(&out->why, "a partition rule");
        return;
    }
    const char *op = action_without_evaluator(rd->action);
    if (op) {
        out->verdict = VERIFY_UNCHECKED;
        strbuf_printf(&out->why, "%s: no evaluator for this op", op);
        return;
    }
    StrBuf first_why = {0}, op_why = {0}, seen = {0};
    int instances = 0;
    Corners corners;
    verify_corners(rs, rd, &corners);
    for (int base = 0; base < VERIFY_BASES && out->verdict != VERIFY_REFUTED; base++) {
        VerifyReport r = {0};
        if (search_base(rs, rule, base, o, &corners, &r, &first_why, &op_why))
            merge(out, &r, &instances, &seen);
        else
            verify_report_free(&r);
    }
    out->instances = instances;
    if (instances == 0) {
        out->verdict = VERIFY_UNCHECKED;
        const StrBuf *why = op_why.len ? &op_why : &first_why;
        strbuf_puts(&out->why, why->len ? why->data : "no instance of the pattern was found");
    }
    strbuf_free(&first_why);
    strbuf_free(&op_why);
    strbuf_free(&seen);
}

void verify_report_free(VerifyReport *r)
{
    strbuf_free(&r->instance);
    strbuf_free(&r->why);
    strbuf_free(&r->detail);
}
