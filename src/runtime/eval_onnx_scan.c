/* eval_onnx_scan.c - ONNX's Scan (onnx/defs/controlflow/defs.cc, opset
 * 9 on; opset 8's batched form from old.cc): the body run once per slice
 * of the scan inputs along their scan axes, the states carried from one
 * iteration to the next, the scan outputs stacked along their axes (note
 * [scan stacking] in eval_onnx_body.c).
 *
 * Opset 8's Scan takes sequence_lens first and a batch axis before the
 * scan axis on every input and output; a node is of that form when it
 * has one own input more than its body (note [control bodies] in
 * src/onnx/onnx_control.h: the operands after its own are the values its
 * body reads), since opset 9's inputs are exactly the body's. */
#include <stdlib.h>
#include <string.h>

#include "eval_onnx_body.h"

/* What Scan's attributes say of its inputs and outputs. */
typedef struct ScanSpec {
    int nstate, nscan, nout;  /* states, scan inputs, scan outputs */
    int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
} ScanSpec;

static void spec_free(ScanSpec *s)
{
    free(s->in_axes);
    free(s->in_dirs);
    free(s->out_axes);
    free(s->out_dirs);
}

/* An ints attribute of n entries into a new array (zeros when absent or
 * name is NULL); NULL after failing on another count. */
static int64_t *attr_ints_of(EvalCall *c, const char *name, int n)
{
    int64_t *v = xcalloc((size_t)n + 1, sizeof *v);
    int got = name ? eval_attr_ints(c, name, v, n + 1) : -1;
    if (got == -1 || got == n)
        return v;
    free(v);
    if (got != -2)
        eval_fail(c, "%s has %d entries, wants %d", name, got, n);
    return NULL;
}

/* The spec of opset 9's form, or opset 8's (batched: directions for the
 * scan inputs, every axis 0 once the batch is sliced off). */
static bool read_spec(EvalCall *c, const BodyRun *r, bool batched, ScanSpec *s)
{
    *s = (ScanSpec){.nscan = (int)eval_attr_int(c, "num_scan_inputs", -1)};
    s->nstate = r->b.ninputs - s->nscan;
    s->nout = r->b.noutputs - s->nstate;
    if (s->nscan < 1 || s->nstate < 0 || s->nout < 0)
        return eval_fail(c, "num_scan_inputs %d for a body of %d inputs and %d outputs",
                         s->nscan, r->b.ninputs, r->b.noutputs);
    s->in_axes = attr_ints_of(c, batched ? NULL : "scan_input_axes", s->nscan);
    s->in_dirs = attr_ints_of(c, batched ? "directions" : "scan_input_directions", s->nscan);
    s->out_axes = attr_ints_of(c, batched ? NULL : "scan_output_axes", s->nout);
    s->out_dirs = attr_ints_of(c, batched ? NULL : "scan_output_directions", s->nout);
    return s->in_axes && s->in_dirs && s->out_axes && s->out_dirs;
}

/* The scan inputs' axes normalised and their common length; -1 after
 * failing. */
static int64_t scan_length(EvalCall *c, const ScanSpec *s, const Tensor *const *xs, int *axes)
{
    int64_t len = -1;
    for (int i = 0; i < s->nscan; i++) {
        if ((axes[i] = eval_axis(c, s->in_axes[i], xs[i]->rank)) < 0)
            return -1;
        if (len >= 0 && xs[i]->dims[axes[i]] != len)
            return eval_fail(c, "scan input %d has %lld iterations, the first %lld", i + 1,
                             (long long)xs[i]->dims[axes[i]], (long long)len), -1;
        len = xs[i]->dims[axes[i]];
    }
    return len;
}

/* The iterations: per t the body on (states, slices t), states taken in,
 * scan outputs kept in parts[k][t]. */
static bool scan_iterate(EvalCall *c, BodyRun *r, const ScanSpec *s, const Tensor *const *xs,
                         const int *axes, int64_t len, Tensor *states, Tensor **parts)
{
    Tensor *outs = xcalloc((size_t)r->b.noutputs + 1, sizeof *outs);
    bool ok = true;
    for (int64_t t = 0; ok && t < len; t++) {
        for (int j = 0; j < s->nstate; j++)
            r->params[j] = states[j];
        for (int i = 0; i < s->nscan; i++) {
            int64_t at = s->in_dirs[i] ? len - 1 - t : t;
            r->params[s->nstate + i] = eval_slice_at(xs[i], axes[i], at);
        }
        ok = eval_body_run(c, r, outs);
        for (int i = 0; i < s->nscan; i++)
            tensor_free(&r->params[s->nstate + i]);
        for (int j = 0; ok && j < s->nstate; j++) {
            tensor_free(&states[j]);
            states[j] = outs[j];
        }
        for (int k = 0; ok && k < s->nout; k++)
            parts[k][t] = outs[s->nstate + k];
    }
    free(outs);
    return ok;
}

/* The scan outputs stacked into outs[0..nout-1]. */
static bool scan_stack(EvalCall *c, const BodyRun *r, const ScanSpec *s, int64_t len,
                       Tensor **parts, Tensor *outs)
{
    bool ok = true;
    for (int k = 0; ok && k < s->nout; k++) {
        if (len == 0) { /* no iteration shows the shape: the body's type says it */
            TensorList none = {0};
            ok = s->out_axes[k] == 0 || eval_fail(c, "a scan of no iterations with "
                                                     "scan_output_axes other than 0");
            ok = ok && eval_stack_lists(c, r, s->nstate + k, &none, 1, &outs[k]);
            continue;
        }
        int rank = parts[k][0].rank + 1;
        int axis = eval_axis(c, s->out_axes[k], rank);
        ok = axis >= 0 && eval_stack(c, parts[k], (size_t)len, axis, s->out_dirs[k] != 0,
                                     &outs[k]);
    }
    return ok;
}

/* One scan of opset 9's form: states (copied) and scan inputs xs in,
 * final states then scan outputs into outs[0..nstate+nout-1]. */
static bool scan_once(EvalCall *c, BodyRun *r, const ScanSpec *s, const Tensor *const *states_in,
                      const Tensor *const *xs, Tensor *outs)
{
    int *axes = xcalloc((size_t)s->nscan + 1, sizeof *axes);
    int64_t len = scan_length(c, s, xs, axes);
    Tensor **parts = xcalloc((size_t)s->nout + 1, sizeof *parts);
    for (int k = 0; k < s->nout; k++)
        parts[k] = xcalloc((size_t)(len > 0 ? len : 0) + 1, sizeof **parts);
    for (int j = 0; j < s->nstate; j++)
        outs[j] = tensor_copy(states_in[j]);
    bool ok = len >= 0 && scan_iterate(c, r, s, xs, axes, len, outs, parts) &&
              scan_stack(c, r, s, len, parts, outs + s->nstate);
    for (int k = 0; k < s->nout; k++) {
        for (int64_t t = 0; t < len; t++)
            tensor_free(&parts[k][t]);
        free(parts[k]);
    }
    free(parts);
    free(axes);
    return ok;
}

/* Opset 8's form: each batch entry b of the inputs (in[0..nstate+nscan-1],
 * sequence_lens operand 0) scanned as opset 9's along axis 0, the results
 * stacked along a new batch axis. */
static bool scan_batched(EvalCall *c, BodyRun *r, const ScanSpec *s, const Tensor *const *in,
                         Tensor *outs)
{
    int n = s->nstate + s->nscan, nres = s->nstate + s->nout;
    int64_t batch = in[0]->rank > 0 ? in[0]->dims[0] : 0;
    for (int i = 0; i < n; i++)
        if (in[i]->rank < 1 + (i >= s->nstate) || in[i]->dims[0] != batch || batch == 0)
            return eval_fail(c, "input %d: wants a batch axis of %lld, then the scan axis", i + 2,
                             (long long)batch);
    const Tensor *lens = eval_opt_arg(c, 0);
    for (size_t k = 0; lens && k < lens->size; k++)
        if (lens->data[k] != (double)in[s->nstate]->dims[1])
            return eval_fail(c, "sequence_lens shorter than the scan axis: not evaluated");
    Tensor *slices = xcalloc((size_t)n + 1, sizeof *slices);
    const Tensor **sp = xcalloc((size_t)n + 1, sizeof *sp);
    Tensor **per = xcalloc((size_t)nres + 1, sizeof *per);
    for (int q = 0; q < nres; q++)
        per[q] = xcalloc((size_t)batch + 1, sizeof **per);
    Tensor *o = xcalloc((size_t)nres + 1, sizeof *o);
    bool ok = true;
    for (int64_t b = 0; ok && b < batch; b++) {
        for (int i = 0; i < n; i++) {
            slices[i] = eval_slice_at(in[i], 0, b);
            sp[i] = &slices[i];
        }
        ok = scan_once(c, r, s, sp, sp + s->nstate, o);
        for (int q = 0; q < nres; q++) {
            per[q][b] = o[q];
            o[q] = (Tensor){0};
        }
        for (int i = 0; i < n; i++)
            tensor_free(&slices[i]);
    }
    for (int q = 0; q < nres; q++) {
        ok = ok && eval_stack(c, per[q], (size_t)batch, 0, false, &outs[q]);
        for (int64_t b = 0; b < batch; b++)
            tensor_free(&per[q][b]);
        free(per[q]);
    }
    free(per);
    free(o);
    free(sp);
    free(slices);
    return ok;
}

/* Scan(initial states..., scan inputs...), or opset 8's
 * Scan(sequence_lens?, ...): the final states, then the scan outputs. */
static bool eval_scan(EvalCall *c)
{
    BodyRun r;
    int own;
    if (!eval_body_open(c, "body", &r, &own))
        return false;
    bool batched = own == r.b.ninputs + 1;
    ScanSpec s = {0};
    bool ok = batched || own == r.b.ninputs ||
              eval_fail(c, "%d inputs for a body of %d", own, r.b.ninputs);
    ok = ok && read_spec(c, &r, batched, &s);
    const Tensor **in = xcalloc((size_t)own + 1, sizeof *in);
    for (int i = batched; ok && i < own; i++)
        ok = (in[i - batched] = eval_arg(c, i)) != NULL;
    int nres = ok ? s.nstate + s.nout : 0;
    Tensor *outs = xcalloc((size_t)nres + 1, sizeof *outs);
    if (ok)
        ok = batched ? scan_batched(c, &r, &s, in, outs)
                     : scan_once(c, &r, &s, in, in + s.nstate, outs);
    if (ok)
        ok = eval_body_results(c, outs, nres);
    else
        for (int q = 0; q < nres; q++)
            tensor_free(&outs[q]);
    free(outs);
    free(in);
    spec_free(&s);
    eval_body_close(&r);
    return ok;
}

const EvalOpDef eval_onnx_scan_ops[] = {
    {"Scan", eval_scan},
    {NULL, NULL},
};
