/* eval_onnx_body.c - running a control flow op's subgraph, and scan
 * outputs stacked (eval_onnx_body.h). */
#include <stdlib.h>
#include <string.h>

#include "eval_onnx_body.h"

/* A body ready to run: its graph, and the tensors its parameters take
 * (its inputs, set per run; the outer values, borrowed from the call). */
/* A tensor constant's value from the bytes it carries (an initializer or
 * Constant of the body), or NULL. */
static const Tensor *body_constant(void *ctx, const graft_node *n)
{
    BodyRun *r = ctx;
    return eval_const_tensor(&r->given, n);
}

void eval_body_close(BodyRun *r)
{
    onnx_body_free(&r->b);
    free(r->params);
    tensor_free(&r->given);
}

/* Imports subgraph attr of the call and binds the outer values it reads;
 * *own gets the call's own operand count.  False after failing. */
bool eval_body_open(EvalCall *c, const char *attr, BodyRun *r, int *own)
{
    *r = (BodyRun){.attr = attr};
    StrBuf why = {0};
    if (!onnx_body_import(c->node, attr, &r->b, &why)) {
        eval_fail(c, "%s: %s", attr, why.data ? why.data : "");
        strbuf_free(&why);
        return false;
    }
    *own = c->nargs - r->b.call_nouter;
    r->params = xcalloc((size_t)(r->b.ninputs + r->b.nouter) + 1, sizeof *r->params);
    bool ok = *own >= 0;
    if (!ok)
        eval_fail(c, "%d operands, fewer than the %d values its subgraphs read", c->nargs,
                  r->b.call_nouter);
    for (int k = 0; ok && k < r->b.nouter; k++) {
        const Tensor *t = eval_arg(c, *own + r->b.outer_at[k]);
        ok = t != NULL;
        if (t)
            r->params[r->b.ninputs + k] = *t;
    }
    if (!ok)
        eval_body_close(r);
    return ok;
}

/* Runs the body on r->params: its outputs into outs[0..b.noutputs-1]
 * (tensors, owned by the caller).  False after failing, the body's
 * error passed on with the node it names. */
bool eval_body_run(EvalCall *c, BodyRun *r, Tensor *outs)
{
    EvalInputs in = {r->params, r->b.ninputs + r->b.nouter, body_constant, r, NULL};
    EvalError err = {0};
    Value v = {.nfields = -1};
    bool ok = eval_graph(r->b.m->g, &in, c->opts, &v, &err);
    if (!ok) {
        const char *label = err.node ? onnx_node_label(r->b.m, err.node) : NULL;
        eval_fail(c, "%s, node '%s': %s", r->attr, label ? label : "?",
                  err.msg.data ? err.msg.data : "failed");
        c->err->status = err.status;
        strbuf_free(&err.msg);
        return false;
    }
    int n = r->b.noutputs;
    for (int i = 0; i < n; i++) {
        Value *f = r->b.m->tupled ? &v.fields[i] : &v;
        ok &= f->nfields == -1;
        outs[i] = f->nfields == -1 ? f->t : (Tensor){0};
        if (f->nfields == -1)
            f->t = (Tensor){0};
    }
    value_free(&v);
    if (!ok) {
        for (int i = 0; i < n; i++)
            tensor_free(&outs[i]);
        return eval_fail(c, "%s: an output is a tuple, not a tensor", r->attr);
    }
    return true;
}

/* The call's result from its first noutputs tensors of outs[0..n-1],
 * moved; every tensor of outs is freed or moved. */
bool eval_body_results(EvalCall *c, Tensor *outs, int n)
{
    int nout = eval_noutputs(c);
    bool ok = nout <= n;
    if (!ok)
        eval_fail(c, "%d outputs, the subgraph makes %d", nout, n);
    else if (nout == 1) {
        c->out->nfields = -1;
        c->out->t = outs[0];
        outs[0] = (Tensor){0};
    } else {
        eval_tuple_result(c, nout);
        for (int i = 0; i < nout; i++) {
            c->out->fields[i].t = outs[i];
            outs[i] = (Tensor){0};
        }
    }
    for (int i = 0; i < n; i++)
        tensor_free(&outs[i]);
    return ok;
}

/* note [scan stacking]: a scan output of Loop or Scan is its per-
 * iteration tensors (each of one shape) stacked along a new axis; Scan
 * reads its scan inputs as slices along an axis.  Both index the same
 * way: with outer the product of the dims before the axis and inner of
 * those after, element (o, t, i) of the whole is element (o, i) of part
 * t. */
static void stack_sizes(const Tensor *part, int axis, size_t *outer, size_t *inner)
{
    *outer = *inner = 1;
    for (int d = 0; d < part->rank; d++)
        *(d < axis ? outer : inner) *= (size_t)part->dims[d];
}

/* parts[0..n-1] stacked along axis (reversed: part t at n-1-t) into a new
 * result tensor *out; false after failing on shapes that differ. */
bool eval_stack(EvalCall *c, const Tensor *parts, size_t n, int axis, bool reverse,
                        Tensor *out)
{
    const Tensor *p0 = &parts[0];
    int64_t dims[EVAL_MAX_RANK + 1];
    if (p0->rank + 1 > EVAL_MAX_RANK)
        return eval_fail(c, "a scan output of rank %d", p0->rank + 1);
    for (int d = 0, k = 0; d <= p0->rank; d++)
        dims[d] = d == axis ? (int64_t)n : p0->dims[k++];
    for (size_t t = 1; t < n; t++)
        if (parts[t].rank != p0->rank || parts[t].size != p0->size ||
            memcmp(parts[t].dims, p0->dims, (size_t)p0->rank * sizeof *p0->dims) != 0)
            return eval_fail(c, "iteration %zu's scan output differs in shape from the first's", t);
    EvalCall sub = *c;
    Value v = {.nfields = -1};
    sub.out = &v;
    if (!eval_result(&sub, p0->dtype, p0->rank + 1, dims))
        return false;
    size_t outer, inner;
    stack_sizes(p0, axis, &outer, &inner);
    for (size_t t = 0; t < n; t++) {
        const Tensor *p = &parts[reverse ? n - 1 - t : t];
        for (size_t o = 0; o < outer && inner; o++)
            memcpy(v.t.data + (o * n + t) * inner, p->data + o * inner, inner * sizeof *p->data);
    }
    *out = v.t;
    return true;
}

/* Slice t of x along axis (a scan input's iteration t). */
Tensor eval_slice_at(const Tensor *x, int axis, int64_t t)
{
    int64_t dims[EVAL_MAX_RANK];
    for (int d = 0, k = 0; d < x->rank; d++)
        if (d != axis)
            dims[k++] = x->dims[d];
    Tensor s = tensor_new(x->dtype, x->rank - 1, dims);
    size_t outer, inner, n = (size_t)x->dims[axis];
    stack_sizes(&s, axis, &outer, &inner);
    for (size_t o = 0; o < outer && inner; o++)
        memcpy(s.data + o * inner, x->data + (o * n + (size_t)t) * inner,
               inner * sizeof *s.data);
    return s;
}

void eval_tensor_list_free(TensorList *l)
{
    for (size_t i = 0; i < l->len; i++)
        tensor_free(&l->items[i]);
    vec_free(l);
}

/* The stacked scan outputs (k of them, iterations in lists[j]) into
 * outs[0..k-1]; with no iteration, an empty tensor of the body's output
 * type where the graph knows it (else float32 [0]). */
bool eval_stack_lists(EvalCall *c, const BodyRun *r, int first, TensorList *lists, int k,
                        Tensor *outs)
{
    for (int j = 0; j < k; j++) {
        if (lists[j].len) {
            if (!eval_stack(c, lists[j].items, lists[j].len, 0, false, &outs[j]))
                return false;
            continue;
        }
        const graft_node *o = graph_output(r->b.m->g);
        o = r->b.m->tupled ? node_arg(o, first + j) : o;
        const graft_type *t = node_type(o);
        bool known = t && t->kind == TYPE_TENSOR && t->rank < EVAL_MAX_RANK && eval_dtype(t->dtype);
        int64_t dims[EVAL_MAX_RANK] = {0};
        for (int d = 0; known && d < t->rank; d++)
            known = (dims[d + 1] = t->dims[d]) >= 0;
        outs[j] = known ? tensor_new(eval_dtype(t->dtype), t->rank + 1, dims)
                        : tensor_new(eval_dtype("float32"), 1, dims);
    }
    return true;
}

