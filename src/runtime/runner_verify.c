/* runner_verify.c - --verify of graft run and of compiled rewriters
 * (runner_verify.h): the original model and its rewritten copy evaluated
 * on the same random inputs by the reference evaluator (eval.h), each op
 * rounded to its dtype. */
#include "runner_verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dim_symbol.h"
#include "engine.h"
#include "eval.h"
#include "node_label.h"
#include "relay.h"
#include "verify.h"
#include "verify_model.h"

enum { INPUT_SEED = 1, CONSTANT_SEED = 2 };

/* The values of the model's meta[relay.Constant][i], by i, the same for
 * the original and every rewritten copy: from the metadata section where
 * it has them (note [metadata values] in eval_meta.c), else random values
 * of the constant's type, drawn once. */
typedef struct MetaValues {
    EvalMeta *meta;
    Tensor *values;         /* by index; data NULL until known */
    size_t cap;
    int from_section;       /* how many came from the section */
    int random;             /* how many were drawn */
    const char *why_random; /* why the first drawn one was not in it */
    uint64_t rng;
    Tensor given;           /* the last tensor constant read from its bytes */
    int ngiven;             /* the model's tensor constants with their bytes */
} MetaValues;

/* A tensor constant that carries its elements (an ONNX initializer) as
 * a tensor in mv->given, or NULL. */
static const Tensor *given_value(MetaValues *mv, const graft_node *n)
{
    return eval_const_tensor(&mv->given, n);
}

static const Tensor *meta_value(void *ctx, const graft_node *n)
{
    MetaValues *mv = ctx;
    const Tensor *given = given_value(mv, n);
    if (given)
        return given;
    long long index;
    if (sscanf(node_const_text(n), "meta[relay.Constant][%lld]", &index) != 1 || index < 0)
        return NULL;
    if ((size_t)index >= mv->cap) {
        size_t old = mv->cap;
        mv->values = xgrow_items(mv->values, &mv->cap, (size_t)index + 1, sizeof *mv->values);
        memset(mv->values + old, 0, (mv->cap - old) * sizeof *mv->values);
    }
    Tensor *t = &mv->values[index];
    if (t->data)
        return t;
    const char *why = eval_meta_constant(mv->meta, index, t);
    const graft_type *type = node_type(n);
    if (!why) {
        mv->from_section++;
        return t;
    }
    if (!type || type->kind != TYPE_TENSOR || !eval_dtype(type->dtype) ||
        type->rank > EVAL_MAX_RANK)
        return NULL;
    for (int k = 0; k < type->rank; k++)
        if (type->dims[k] < 0)
            return NULL;
    *t = tensor_new(eval_dtype(type->dtype), type->rank, type->dims);
    verify_fill_random(t, &mv->rng, false);
    if (mv->random++ == 0)
        mv->why_random = why;
    return t;
}

static void meta_values_free(MetaValues *mv)
{
    for (size_t i = 0; i < mv->cap; i++)
        tensor_free(&mv->values[i]);
    free(mv->values);
    tensor_free(&mv->given);
    eval_meta_free(mv->meta);
}

/* ", 2 meta constants from the metadata section" for the report line. */
static void meta_report(const MetaValues *mv, StrBuf *out)
{
    if (mv->ngiven)
        strbuf_printf(out, ", %d initializer%s as given", mv->ngiven, mv->ngiven == 1 ? "" : "s");
    if (mv->from_section)
        strbuf_printf(out, ", %d meta constant%s from the metadata section", mv->from_section,
                      mv->from_section == 1 ? "" : "s");
    if (mv->random)
        strbuf_printf(out, ", %d meta constant%s random (seed %d: %s)", mv->random,
                      mv->random == 1 ? "" : "s", CONSTANT_SEED, mv->why_random);
}

/* note [named dims in verify]: an ONNX model exported with dynamic axes
 * names its inputs' dims ("float[batch, tokens, 64] input"), and --verify
 * needs numbers to draw inputs.  Each name gets one: the N of "--dim
 * NAME=N", else the next of 2, 3, 4, ... in the order the inputs name
 * them (each name its own number, so that a rewrite that confused two
 * dims shows; 1 would hide a broadcast).  The original and the rewritten
 * model read the same input tensors, so they see the same numbers; the
 * evaluator computes shapes from the tensors, not from the declared
 * types.  The numbers are said in the report ("dims batch=2 tokens=3"); a
 * --dim naming no dim of the inputs is an error, and so is a dim with no
 * name ("?"), which has no --dim to set it. */
typedef struct NamedDims {
    const RunOptions *o;
    KeyMap value; /* -symbol -> its number */
    int64_t next; /* the next number for a name not given */
    bool *used;   /* per --dim: whether an input names it */
    StrBuf said;  /* ", dims NAME=N ..." for the report */
} NamedDims;

/* The number of named dim sym of g (note [named dims in verify]). */
static int64_t named_dim(NamedDims *nd, const graft_graph *g, int64_t sym)
{
    int64_t *known = keymap_get(&nd->value, (uint64_t)-sym);
    if (known)
        return *known;
    const char *name = graph_dim_name(g, sym);
    size_t len = name ? strlen(name) : 0;
    int64_t v = 0;
    for (int i = 0; i < nd->o->ndims && !v; i++)
        if (name && strncmp(nd->o->dims[i], name, len) == 0 && nd->o->dims[i][len] == '=') {
            v = strtoll(nd->o->dims[i] + len + 1, NULL, 10);
            nd->used[i] = true;
        }
    if (!v)
        v = nd->next++;
    *keymap_put(&nd->value, (uint64_t)-sym, 0) = v;
    strbuf_printf(&nd->said, "%s %s=%lld", nd->said.len ? "" : ", dims", name ? name : "?",
                  (long long)v);
    return v;
}

/* The --dim options that name no dim of the inputs: an error for each;
 * false if any. */
static bool dims_all_named(const NamedDims *nd, graft_diag *d)
{
    bool ok = true;
    for (int i = 0; i < nd->o->ndims; i++)
        if (!nd->used[i]) {
            int len = (int)(strchr(nd->o->dims[i], '=') - nd->o->dims[i]);
            diag_plain_error(d, "--dim %s: no graph input has a dim named '%.*s'",
                             nd->o->dims[i], len, nd->o->dims[i]);
            ok = false;
        }
    return ok;
}

static void named_dims_free(NamedDims *nd)
{
    keymap_free(&nd->value);
    free(nd->used);
    strbuf_free(&nd->said);
}

/* Values for every parameter of g, from its declared type, its named dims
 * numbered by nd, by their role (note [model values]); false after
 * reporting a parameter without a full type or too large. */
static bool make_inputs(const graft_graph *g, uint64_t max_elements, NamedDims *nd,
                        Tensor *params, graft_diag *d)
{
    uint64_t rng = INPUT_SEED;
    for (int i = 0; i < graph_nparams(g); i++) {
        const graft_node *p = graph_param(g, i);
        const graft_type *t = node_type(p);
        bool full = t && t->kind == TYPE_TENSOR && eval_dtype(t->dtype) &&
                    t->rank <= EVAL_MAX_RANK;
        uint64_t size = 1;
        int64_t dims[EVAL_MAX_RANK + 1];
        for (int k = 0; full && k < t->rank; k++) {
            dims[k] = dim_is_symbol(t->dims[k]) ? named_dim(nd, g, t->dims[k]) : t->dims[k];
            full = dims[k] >= 0;
            size *= full ? (uint64_t)dims[k] : 1;
        }
        if (!full && graph_ir(g) == IR_ONNX) {
            diag_plain_error(d, "--verify: graph input '%s' needs a tensor type with every dim "
                             "a number or a name (\"float[1, 3] %s\", \"float[N, 3] %s\")",
                             node_name(p), node_name(p), node_name(p));
            return false;
        }
        if (!full) {
            diag_plain_error(d, "--verify: parameter %%%s needs a tensor type with every dim "
                             "known (\"%%%s: Tensor[(1, 3), float32]\")", node_name(p),
                             node_name(p));
            return false;
        }
        if (max_elements && size > max_elements) {
            diag_plain_error(d, "--verify: the model is too large to evaluate: parameter "
                             "%%%s has %llu elements, past the eval-elements limit (%llu) "
                             "[--limit eval-elements]", node_name(p), (unsigned long long)size,
                             (unsigned long long)max_elements);
            return false;
        }
        params[i] = tensor_new(eval_dtype(t->dtype), t->rank, dims);
    }
    model_fill_params(g, params, &rng);
    return dims_all_named(nd, d);
}

/* The longest chain of op calls from a parameter to the output: the
 * tolerance grows with it, as rounding errors add up along a chain. */
static int chain_length(const graft_graph *g)
{
    uint32_t n = graph_node_count(g);
    graft_node **order = xcalloc((size_t)n + 1, sizeof *order);
    int *depth = xcalloc((size_t)n + 1, sizeof *depth);
    uint32_t count = graph_topo_order(g, order);
    int longest = 0;
    for (uint32_t k = 0; k < count; k++) {
        int dep = 0;
        for (int i = 0; i < node_nargs(order[k]); i++)
            if (depth[node_id(node_arg(order[k], i))] > dep)
                dep = depth[node_id(node_arg(order[k], i))];
        depth[node_id(order[k])] = dep + (node_kind(order[k]) == NODE_CALL);
        if (depth[node_id(order[k])] > longest)
            longest = depth[node_id(order[k])];
    }
    free(depth);
    free(order);
    return longest;
}

/* What evaluating a model reads and watches. */
typedef struct ModelCtx {
    MetaValues *mv;
    ModelWatch *watch;
} ModelCtx;

static const Tensor *model_constant(void *ctx, const graft_node *n)
{
    return meta_value(((ModelCtx *)ctx)->mv, n);
}

static bool model_prepare(void *ctx, const graft_node *n, const Value *vals, const Value *out)
{
    return model_watch_prepare(((ModelCtx *)ctx)->watch, n, vals, out);
}

/* Evaluates g on params; watch (NULL: a watch of its own, dropped) sees
 * every op call, and calibrates params when it was made to. */
static bool evaluate(const graft_graph *g, Tensor *params, MetaValues *mv, ModelWatch *watch,
                     uint64_t max_elements, Value *out, const char *which, graft_diag *d)
{
    ModelWatch own;
    if (!watch)
        model_watch_init(watch = &own, g, params, false);
    ModelCtx ctx = {mv, watch};
    EvalInputs in = {params, graph_nparams(g), model_constant, &ctx, model_prepare};
    EvalOptions opts = {EVAL_DTYPE, max_elements};
    EvalError err = {0};
    bool ok = eval_graph(g, &in, &opts, out, &err);
    if (watch == &own)
        model_watch_free(&own);
    if (ok)
        return true;
    diag_plain_error(d, "--verify: cannot evaluate the %s model: %s%s", which,
                     err.msg.data ? err.msg.data : "?",
                     err.status == EVAL_TOO_LARGE ? " [--limit eval-elements]" : "");
    strbuf_free(&err.msg);
    return false;
}

/* The difference of got from want, whose values are all finite: an inf
 * or NaN in got is infinitely far. */
static double model_error(const Value *want, const Value *got)
{
    long at;
    return eval_value_finite(got) ? verify_error(want, got, &at) : INFINITY;
}

/* A fresh copy of the model: by o->loader (an ONNX model), else Relay's
 * loader on the source. */
typedef struct Model {
    graft_graph *g;
    void *owner;    /* what o->loader's unload frees, g with it */
    int noutputs;   /* the fields of g's output compared, 0: all of it */
} Model;

static bool load_model(const Source *src, const RunOptions *o, Model *m, graft_diag *d)
{
    memset(m, 0, sizeof *m);
    if (o->loader)
        m->g = o->loader->load(o->loader->ctx, &m->owner, &m->noutputs, d);
    else
        m->g = relay_load_limited(src, &o->limits, d);
    return m->g != NULL;
}

static void unload_model(const RunOptions *o, Model *m)
{
    if (o->loader && m->owner)
        o->loader->unload(m->owner);
    else if (m->g)
        graph_free(m->g);
    m->g = NULL;
    m->owner = NULL;
}

/* The model's outputs of v, the value of its graph's output: its first
 * noutputs fields (one output: that field), the rest dropped. */
static void model_outputs(Value *v, int noutputs)
{
    if (noutputs <= 0 || v->nfields < noutputs)
        return;
    for (int i = noutputs; i < v->nfields; i++)
        value_free(&v->fields[i]);
    v->nfields = noutputs;
    if (noutputs == 1) {
        Value *fields = v->fields;
        *v = fields[0];
        free(fields);
    }
}

/* Loads the model again and applies its first stop_after rewrites (0:
 * all); the trace of the last goes to last (when not NULL). */
static bool rewritten(const graft_rule_set *rs, const Source *src, const RunOptions *o,
                      uint64_t stop_after, uint64_t *rewrites, StrBuf *last, Model *m,
                      graft_diag *d)
{
    if (!load_model(src, o, m, d))
        return false;
    graft_graph *g = m->g;
    char *trace = NULL;
    size_t len = 0;
    FILE *tf = last ? open_memstream(&trace, &len) : NULL;
    EngineOptions eo = {.limits = &o->limits, .stop_after = stop_after, .trace = tf};
    graft_engine *e = engine_new(rs, g, &eo);
    bool ok = engine_rewrite(e, d);
    *rewrites = engine_stats(e)->rewrites;
    engine_free(e);
    if (tf) {
        fclose(tf);
        const char *line = trace; /* the last line of the trace */
        for (const char *p = trace; p && *p; p++)
            if (*p == '\n' && p[1])
                line = p + 1;
        if (line)
            strbuf_append(last, line, strcspn(line, "\n"));
        free(trace);
    }
    if (!ok)
        unload_model(o, m);
    return ok;
}

typedef struct Check {
    const graft_rule_set *rs;
    const Source *src;
    const RunOptions *o;
    Tensor *params;
    MetaValues *mv;
    const Value *want;
    double tolerance;
    const graft_graph *g;    /* the original */
    const ModelWatch *watch; /* what its evaluation saw */
    const char *dims;        /* the named dims' numbers, said ("" if none) */
} Check;

/* The difference after the first k rewrites (all when k is 0). */
static bool difference_after(const Check *c, uint64_t k, double *err, uint64_t *rewrites,
                             StrBuf *last, graft_diag *d)
{
    Model m;
    Value got;
    bool ok = rewritten(c->rs, c->src, c->o, k, rewrites, last, &m, d) &&
              evaluate(m.g, c->params, c->mv, NULL, c->o->limits.eval_elements, &got,
                       "rewritten", d);
    if (ok) {
        model_outputs(&got, m.noutputs);
        *err = model_error(c->want, &got);
        value_free(&got);
    }
    unload_model(c->o, &m);
    return ok;
}

static size_t count_nonfinite(const Value *v)
{
    size_t n = 0;
    if (v->nfields >= 0) {
        for (int i = 0; i < v->nfields; i++)
            n += count_nonfinite(&v->fields[i]);
        return n;
    }
    for (size_t i = 0; i < v->t.size; i++)
        n += !isfinite(v->t.data[i]);
    return n;
}

static void report_outputs(const Value *want, const Value *got, double tolerance)
{
    int n = want->nfields < 0 ? 1 : want->nfields;
    for (int i = 0; i < n; i++) {
        const Value *w = want->nfields < 0 ? want : &want->fields[i];
        const Value *g = got->nfields < 0 ? got : got->nfields > i ? &got->fields[i] : got;
        double e = model_error(w, g);
        StrBuf shape = {0};
        if (w->nfields < 0) {
            tensor_shape_text(&w->t, &shape);
            strbuf_printf(&shape, " %s", w->t.dtype);
        } else
            strbuf_puts(&shape, "tuple");
        size_t bad = count_nonfinite(g);
        if (bad)
            fprintf(stderr, "verify: output %d %s: %zu value%s inf or NaN in the rewritten "
                    "model: PAST the tolerance\n", i, shape.data, bad, bad == 1 ? "" : "s");
        else
            fprintf(stderr, "verify: output %d %s: max difference %.3g (tolerance %.3g): %s\n",
                    i, shape.data, e, tolerance, e <= tolerance ? "within" : "PAST the tolerance");
        strbuf_free(&shape);
    }
}

/* The first k whose rewrites make the difference pass the tolerance,
 * given that all total do: a binary search. */
static bool bisect(const Check *c, uint64_t total, graft_diag *d)
{
    uint64_t lo = 1, hi = total, n;
    double err;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (!difference_after(c, mid, &err, &n, NULL, d))
            return false;
        if (err > c->tolerance)
            hi = mid;
        else
            lo = mid + 1;
    }
    StrBuf last = {0};
    bool ok = difference_after(c, lo, &err, &n, &last, d);
    if (ok)
        fprintf(stderr, "verify: rewrite %llu of %llu makes the difference %.3g: %s\n",
                (unsigned long long)lo, (unsigned long long)total, err,
                last.data ? last.data : "");
    strbuf_free(&last);
    return ok;
}

/* "%7 (model.relay:14:8), a call of sqrt" into out. */
static void name_node(const graft_graph *g, const graft_node *n, const Source *src, StrBuf *out)
{
    NodeLabels nl;
    node_labels_init(&nl, g, src->name);
    node_label_at(&nl, n, out);
    strbuf_puts(out, ", ");
    node_describe(n, out);
    node_labels_free(&nl);
}

/* One line per layer of the original model: its activation RMS. */
static void report_each_layer(const graft_graph *g, const ModelWatch *w, const Source *src)
{
    NodeLabels nl;
    node_labels_init(&nl, g, src->name);
    for (size_t i = 0; i < w->each.len; i++) {
        const struct ModelLayer *l = &w->each.items[i];
        StrBuf at = {0};
        node_label_at(&nl, l->at, &at);
        strbuf_puts(&at, ", ");
        node_describe(l->at, &at);
        fprintf(stderr, "verify: layer %zu of %zu: RMS %.4g%s at %s\n", i + 1, w->each.len,
                l->rms, l->rms < 0.1 ? " (below 0.1)" : l->rms > 10 ? " (above 10)" : "",
                at.data);
        strbuf_free(&at);
    }
    node_labels_free(&nl);
}

/* The activations line: the range of the layers' RMS, where the values
 * came from, and each layer outside [0.1, 10] (note [model values]);
 * with every layer's first when asked. */
static void report_activations(const graft_graph *g, const ModelWatch *w, const Source *src,
                               bool each)
{
    if (w->layers == 0)
        return;
    if (each)
        report_each_layer(g, w, src);
    StrBuf lo = {0}, hi = {0};
    name_node(g, w->min_at, src, &lo);
    name_node(g, w->max_at, src, &hi);
    fprintf(stderr, "verify: activation RMS of %d layer%s from %.3g (%s) to %.3g (%s)%s; "
            "statistics of %d batch norm%s drawn from their inputs, %d weight%s rescaled\n",
            w->layers, w->layers == 1 ? "" : "s", w->rms_min, lo.data, w->rms_max, hi.data,
            w->outside ? "" : ", within [0.1, 10]", w->norms, w->norms == 1 ? "" : "s",
            w->rescaled, w->rescaled == 1 ? "" : "s");
    if (w->outside) {
        StrBuf at = {0};
        name_node(g, w->first_outside, src, &at);
        fprintf(stderr, "verify: note: %d layer%s outside RMS [0.1, 10], the first %s\n",
                w->outside, w->outside == 1 ? "" : "s", at.data);
        strbuf_free(&at);
    }
    strbuf_free(&lo);
    strbuf_free(&hi);
}

static const char *result_dtype(const Value *want)
{
    while (want->nfields > 0)
        want = &want->fields[0];
    return want->nfields < 0 ? want->t.dtype : "float32";
}

/* The tolerance: eps(dtype) * 8 per op on the longest chain, relative
 * to 1 + the largest magnitude of the original output. */
static double tolerance_of(const graft_graph *g, const Value *want)
{
    return eval_dtype_eps(result_dtype(want)) * 8 * chain_length(g);
}

/* Evaluates the original model, drawing its parameters' values; false
 * after reporting when it cannot, or when its output has inf or NaN. */
static bool evaluate_original(const Model *m, Tensor *params, MetaValues *mv, NamedDims *nd,
                              const RunOptions *o, const Source *src, ModelWatch *w, Value *want,
                              graft_diag *d)
{
    const graft_graph *g = m->g;
    bool ok = make_inputs(g, o->limits.eval_elements, nd, params, d) &&
              evaluate(g, params, mv, w, o->limits.eval_elements, want, "original", d);
    if (ok)
        model_outputs(want, m->noutputs);
    if (ok && w->nonfinite) {
        StrBuf at = {0};
        name_node(g, w->nonfinite, src, &at);
        diag_plain_error(d, "--verify: the original model computes inf or NaN on these inputs, "
                         "the first at %s: nothing to compare", at.data);
        strbuf_free(&at);
        ok = false;
    }
    return ok;
}

/* Evaluates the rewritten model r and compares; false after reporting
 * when it cannot be evaluated or differs past the tolerance. */
static bool compare_rewritten(const Check *c, const Model *m, uint64_t total, graft_diag *d)
{
    const graft_graph *r = m->g;
    ModelWatch w;
    model_watch_init(&w, r, c->params, false);
    Value got = {.nfields = 0};
    bool ok = evaluate(r, c->params, c->mv, &w, c->o->limits.eval_elements, &got, "rewritten", d);
    if (ok) {
        model_outputs(&got, m->noutputs);
        double err = model_error(c->want, &got);
        StrBuf constants = {0};
        meta_report(c->mv, &constants);
        fprintf(stderr, "verify: %llu rewrite%s, inputs random (seed %d)%s%s\n",
                (unsigned long long)total, total == 1 ? "" : "s", INPUT_SEED, c->dims,
                constants.data ? constants.data : "");
        strbuf_free(&constants);
        report_activations(c->g, c->watch, c->src, c->o->verify_layers);
        fprintf(stderr, "verify: tolerance %.3g = 8 x eps(%s) x %d ops on the longest chain, "
                "of 1 + the largest |value| of the original output\n", c->tolerance,
                result_dtype(c->want), chain_length(c->g));
        report_outputs(c->want, &got, c->tolerance);
        if (w.nonfinite) {
            StrBuf at = {0};
            name_node(r, w.nonfinite, c->src, &at);
            fprintf(stderr, "verify: the first inf or NaN of the rewritten model: %s\n", at.data);
            strbuf_free(&at);
        }
        if (err > c->tolerance) {
            bisect(c, total, d);
            diag_plain_error(d, "--verify: the rewritten model differs from the original by "
                             "%.3g, past the tolerance %.3g", err, c->tolerance);
            ok = false;
        }
    }
    value_free(&got);
    model_watch_free(&w);
    return ok;
}

/* How many tensor constants of g carry their values (an ONNX model's
 * initializers, taken as given). */
static int count_given(const graft_graph *g)
{
    int n = 0;
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        const graft_node *c = graph_node(g, id);
        size_t nbytes;
        n += node_kind(c) == NODE_CONST && node_const_data(c, &nbytes) != NULL;
    }
    return n;
}

bool runner_verify(const graft_rule_set *rs, const Source *src, const RunOptions *o, graft_diag *d)
{
    Model orig;
    if (!load_model(src, o, &orig, d))
        return false;
    graft_graph *g = orig.g;
    int np = graph_nparams(g);
    Tensor *params = xcalloc((size_t)np + 1, sizeof *params);
    Value want = {.nfields = 0};
    uint64_t total = 0;
    MetaValues mv = {.meta = eval_meta_new(graph_metadata(g)), .rng = CONSTANT_SEED,
                     .ngiven = count_given(g)};
    NamedDims nd = {.o = o, .next = 2, .used = xcalloc((size_t)o->ndims + 1, sizeof *nd.used)};
    ModelWatch w;
    model_watch_init(&w, g, params, true);
    bool ok = evaluate_original(&orig, params, &mv, &nd, o, src, &w, &want, d);
    if (ok) {
        Check c = {rs, src, o, params, &mv, &want, tolerance_of(g, &want), g, &w,
                   nd.said.data ? nd.said.data : ""};
        Model r;
        ok = rewritten(rs, src, o, 0, &total, NULL, &r, d) && compare_rewritten(&c, &r, total, d);
        unload_model(o, &r);
    }
    value_free(&want);
    model_watch_free(&w);
    meta_values_free(&mv);
    named_dims_free(&nd);
    for (int i = 0; i < np; i++)
        tensor_free(&params[i]);
    free(params);
    unload_model(o, &orig);
    return ok;
}
