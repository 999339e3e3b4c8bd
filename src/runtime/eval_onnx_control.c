/* eval_onnx_control.c - ONNX's control flow ops, If, Loop and Scan
 * (onnx/defs/controlflow/defs.cc of the onnx/onnx repository; Scan's
 * opset 8 form from old.cc): each subgraph imported as a graph of its own
 * and evaluated on its inputs and the outer values it reads (note
 * [control bodies] in src/onnx/onnx_control.h), once for If, once per
 * iteration for Loop and Scan.  Values are tensors only: a subgraph that
 * makes a sequence or an optional is refused by its own ops. */
#include <stdlib.h>
#include <string.h>

#include "eval_onnx_body.h"

/* If(cond): the branch cond chooses, run once. */
static bool eval_if(EvalCall *c)
{
    const Tensor *cond = eval_arg(c, 0);
    if (!cond)
        return false;
    if (cond->size != 1)
        return eval_fail(c, "cond has %zu elements, wants 1", cond->size);
    BodyRun r;
    int own;
    if (!eval_body_open(c, cond->data[0] != 0 ? "then_branch" : "else_branch", &r, &own))
        return false;
    bool ok = own == 1 && r.b.ninputs == 0;
    if (!ok)
        eval_fail(c, "%d inputs and a branch of %d: wants 1 and none", own, r.b.ninputs);
    Tensor *outs = xcalloc((size_t)r.b.noutputs + 1, sizeof *outs);
    ok = ok && eval_body_run(c, &r, outs) && eval_body_results(c, outs, r.b.noutputs);
    free(outs);
    eval_body_close(&r);
    return ok;
}

/* A scalar of dtype holding x. */
static Tensor scalar(const char *dtype, double x)
{
    Tensor t = tensor_new(eval_dtype(dtype), 0, NULL);
    t.data[0] = x;
    return t;
}

/* Loop's state between iterations. */
typedef struct LoopState {
    int n, k;            /* loop-carried values, scan outputs */
    Tensor *carried;     /* n, owned */
    TensorList *scans;   /* k lists of per-iteration outputs */
    bool go;             /* the condition */
} LoopState;

/* One iteration i: the body on (i, cond, carried), its outputs taken in. */
static bool loop_step(EvalCall *c, BodyRun *r, LoopState *s, int64_t i)
{
    Tensor iter = scalar("int64", (double)i), cond = scalar("bool", 1);
    r->params[0] = iter;
    r->params[1] = cond;
    for (int j = 0; j < s->n; j++)
        r->params[2 + j] = s->carried[j];
    Tensor *outs = xcalloc((size_t)r->b.noutputs + 1, sizeof *outs);
    bool ok = eval_body_run(c, r, outs);
    tensor_free(&iter);
    tensor_free(&cond);
    if (ok) {
        s->go = outs[0].size == 1 && outs[0].data[0] != 0;
        tensor_free(&outs[0]);
        for (int j = 0; j < s->n; j++) {
            tensor_free(&s->carried[j]);
            s->carried[j] = outs[1 + j];
        }
        for (int j = 0; j < s->k; j++)
            vec_push(&s->scans[j], outs[1 + s->n + j]);
    }
    free(outs);
    return ok;
}

/* The trip count and condition operands: -1 for a trip count left out;
 * false after failing (neither given: the loop would never end). */
static bool loop_bounds(EvalCall *c, int64_t *trips, bool *cond_given, bool *go)
{
    const Tensor *m = eval_opt_arg(c, 0), *cond = c->nargs > 1 ? eval_opt_arg(c, 1) : NULL;
    if (c->err->msg.len)
        return false;
    if ((m && m->size != 1) || (cond && cond->size != 1))
        return eval_fail(c, "M and cond are scalars");
    if (!m && !cond)
        return eval_fail(c, "neither M nor cond is given: the loop never ends");
    *trips = m ? (int64_t)m->data[0] : -1;
    *cond_given = cond != NULL;
    *go = !cond || cond->data[0] != 0;
    return true;
}

/* Loop(M?, cond?, v_initial...): the body run while i < M and cond
 * holds (cond left out: M times; M left out: while cond holds, at most
 * the element limit's count of iterations); its outputs the final
 * loop-carried values, then each scan output stacked along a new first
 * axis. */
static bool eval_loop(EvalCall *c)
{
    BodyRun r;
    int own;
    if (!eval_body_open(c, "body", &r, &own))
        return false;
    LoopState s = {.n = r.b.ninputs - 2, .k = r.b.noutputs - 1 - (r.b.ninputs - 2)};
    int64_t trips = 0;
    bool cond_given = false, ok = s.n >= 0 && s.k >= 0 && own == 2 + s.n;
    if (!ok)
        eval_fail(c, "%d inputs and a body of %d inputs, %d outputs: wants 2 + N, 2 + N "
                  "and 1 + N + K", own, r.b.ninputs, r.b.noutputs);
    ok = ok && loop_bounds(c, &trips, &cond_given, &s.go);
    s.carried = xcalloc((size_t)(s.n > 0 ? s.n : 0) + 1, sizeof *s.carried);
    s.scans = xcalloc((size_t)(s.k > 0 ? s.k : 0) + 1, sizeof *s.scans);
    for (int j = 0; ok && j < s.n; j++) {
        const Tensor *v = eval_arg(c, 2 + j);
        ok = v != NULL;
        s.carried[j] = v ? tensor_copy(v) : (Tensor){0};
    }
    uint64_t most = c->opts->max_elements;
    for (int64_t i = 0; ok && (trips < 0 || i < trips) && s.go; i++) {
        if (most && (uint64_t)i >= most)
            ok = eval_fail(c, "ran %lld iterations, the element limit", (long long)i);
        ok = ok && loop_step(c, &r, &s, i);
        s.go = s.go || !cond_given; /* cond left out: the body's is ignored */
    }
    Tensor *outs = xcalloc((size_t)(s.n + s.k > 0 ? s.n + s.k : 0) + 1, sizeof *outs);
    for (int j = 0; ok && j < s.n; j++) {
        outs[j] = s.carried[j];
        s.carried[j] = (Tensor){0};
    }
    ok = ok && eval_stack_lists(c, &r, 1 + s.n, s.scans, s.k, outs + s.n) &&
         eval_body_results(c, outs, s.n + s.k);
    for (int j = 0; j < s.n + s.k && !ok; j++)
        tensor_free(&outs[j]);
    for (int j = 0; j < s.n; j++)
        tensor_free(&s.carried[j]);
    for (int j = 0; j < s.k; j++)
        eval_tensor_list_free(&s.scans[j]);
    free(outs);
    free(s.carried);
    free(s.scans);
    eval_body_close(&r);
    return ok;
}

const EvalOpDef eval_onnx_control_ops[] = {
    {"If", eval_if},
    {"Loop", eval_loop},
    {NULL, NULL},
};
