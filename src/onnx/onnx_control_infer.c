/* onnx_control_infer.c - shape and type inference of ONNX's control flow
 * ops, If, Loop and Scan (onnx/defs/controlflow/defs.cc and old.cc of
 * the onnx/onnx repository: IfInferenceFunction, LoopInferenceFunction,
 * ScanInferenceFunction, ScanInferenceFunctionOpset8), from the types
 * their subgraphs declare (note [control bodies] in onnx_control.h).
 *
 * ONNX infers a subgraph's outputs by running inference over it; graft
 * reads the types its outputs declare (every exporter and onnx's own
 * make_graph write them; an output that declares none is unknown), which
 * is what ONNX's inference starts from and checks its result against.
 * Operands after a node's own inputs are the outer values its subgraphs
 * read (note [outer reads] in onnx_subgraph.h) and type nothing. */
#include <string.h>

#include "onnx_control.h"
#include "onnx_infer_impl.h"

/* The subgraph attribute name of c's node, unpacked; NULL after failing. */
static Onnx__GraphProto *body_of(InferCall *c, const char *name)
{
    Onnx__GraphProto *gp = onnx_body_proto(node_find_attr(c->node, name));
    if (!gp)
        infer_fail(c, "attribute %s: no graph", name);
    return gp;
}

/* ONNX's UnionShapeInfo: a dim both know and agree on stays, any other
 * is unknown; ranks that differ leave the rank unknown. */
static void union_shape(OnnxType *r, const OnnxType *other)
{
    if (r->rank != other->rank) {
        r->rank = -1;
        return;
    }
    for (int i = 0; i < r->rank; i++)
        if (r->dims[i] != other->dims[i])
            r->dims[i] = DIM_ANY;
}

/* If(cond): each output the union of the branches' output types, whose
 * element types must agree (IfInferenceFunction, opset 16). */
static bool infer_if(InferCall *c)
{
    Onnx__GraphProto *then_g = body_of(c, "then_branch");
    Onnx__GraphProto *else_g = then_g ? body_of(c, "else_branch") : NULL;
    bool ok = then_g && else_g && infer_need(c, 0);
    if (ok && then_g->n_output != else_g->n_output)
        ok = infer_fail(c, "then_branch has %zu outputs, else_branch %zu", then_g->n_output,
                        else_g->n_output);
    if (ok && (size_t)c->nout > then_g->n_output)
        ok = infer_fail(c, "%d outputs, the branches make %zu", c->nout, then_g->n_output);
    for (int i = 0; ok && i < c->nout; i++) {
        OnnxType t = onnx_body_value_type(then_g->output[i]);
        OnnxType e = onnx_body_value_type(else_g->output[i]);
        if (t.dtype && e.dtype && strcmp(t.dtype, e.dtype) != 0)
            ok = infer_fail(c, "output %d is %s in then_branch, %s in else_branch", i + 1,
                            t.dtype, e.dtype);
        if (!t.dtype)
            t.dtype = e.dtype;
        union_shape(&t, &e);
        infer_copy(c, i, &t);
    }
    onnx_body_proto_free(then_g);
    onnx_body_proto_free(else_g);
    return ok;
}

/* t with dim d inserted at axis (a scan output's iterations). */
static bool insert_dim(InferCall *c, OnnxType *t, int axis, int64_t d)
{
    if (t->rank < 0)
        return true;
    if (t->rank + 1 > ONNX_MAX_RANK)
        return infer_fail(c, "a scan output of rank %d: at most %d", t->rank + 1, ONNX_MAX_RANK);
    for (int i = t->rank; i > axis; i--)
        t->dims[i] = t->dims[i - 1];
    t->dims[axis] = d;
    t->rank++;
    return true;
}

/* A state output: the type the body declares, else the initial value's. */
static OnnxType state_type(const Onnx__ValueInfoProto *declared, const OnnxType *initial)
{
    OnnxType t = onnx_body_value_type(declared);
    if (!t.dtype && t.rank < 0 && initial)
        t = *initial;
    return t;
}

/* Loop(M?, cond?, v_initial...): the N loop-carried values typed as the
 * body's outputs 1..N, the K scan outputs as its outputs N+1.. with a
 * leading dim of the iteration count, which only running the loop tells
 * (LoopInferenceFunction leaves it unknown too). */
static bool infer_loop(InferCall *c)
{
    Onnx__GraphProto *body = body_of(c, "body");
    if (!body)
        return false;
    int n = (int)body->n_input - 2, k = (int)body->n_output - 1 - n;
    bool ok = n >= 0 && k >= 0;
    if (!ok)
        infer_fail(c, "the body has %zu inputs and %zu outputs: wants 2 + N and 1 + N + K",
                   body->n_input, body->n_output);
    if (ok && c->nout > n + k)
        ok = infer_fail(c, "%d outputs, the body makes %d", c->nout, n + k);
    for (int i = 0; ok && i < c->nout; i++) {
        OnnxType t = state_type(body->output[1 + i], i < n ? infer_in(c, 2 + i) : NULL);
        ok = i < n || insert_dim(c, &t, 0, DIM_ANY);
        infer_copy(c, i, &t);
    }
    onnx_body_proto_free(body);
    return ok;
}

/* The scan's shape: its length (the first scan input's dim on its scan
 * axis) and, for opset 8's form, the batch (dim 0 of the inputs). */
typedef struct ScanShape {
    int nstate, nscan; /* the body's state inputs and scan inputs */
    bool batched;      /* opset 8: sequence_lens, then batched inputs */
    int64_t len, batch;
} ScanShape;

/* The body's inputs told apart, and the scan's length, from the first
 * scan input; false after failing. */
static bool scan_shape(InferCall *c, const Onnx__GraphProto *body, ScanShape *s)
{
    int nouter = onnx_call_nouter(c->node), own = c->nin - nouter;
    s->nscan = (int)infer_attr_int(c, "num_scan_inputs", -1);
    s->nstate = (int)body->n_input - s->nscan;
    s->batched = own == (int)body->n_input + 1;
    if (nouter < 0 || s->nscan < 1 || s->nstate < 0 || (!s->batched && own != (int)body->n_input))
        return infer_fail(c, "%d inputs and num_scan_inputs %d for a body of %zu inputs", own,
                          s->nscan, body->n_input);
    int first = (s->batched ? 1 : 0) + s->nstate;
    const OnnxType *x = infer_need(c, first);
    int64_t axes[ONNX_MAX_RANK] = {0};
    if (!x || infer_attr_ints(c, "scan_input_axes", axes, ONNX_MAX_RANK) == -2)
        return false;
    int axis = s->batched ? 1 : (int)axes[0];
    s->len = s->batch = DIM_ANY;
    if (x->rank < 0)
        return true;
    if ((axis = infer_axis(c, axis, x->rank)) < 0)
        return false;
    s->len = x->dims[axis];
    s->batch = s->batched ? x->dims[0] : DIM_ANY;
    return true;
}

/* Scan(initial states..., scan inputs...) (ScanInferenceFunction): the
 * final states typed as the body's first outputs, each scan output as
 * the body's output with the scan's length inserted at its
 * scan_output_axes entry (default 0); opset 8's form puts the batch
 * before each (ScanInferenceFunctionOpset8). */
static bool infer_scan(InferCall *c)
{
    Onnx__GraphProto *body = body_of(c, "body");
    ScanShape s = {.len = DIM_ANY, .batch = DIM_ANY};
    bool ok = body && scan_shape(c, body, &s);
    int64_t out_axes[ONNX_MAX_RANK] = {0};
    ok = ok && infer_attr_ints(c, "scan_output_axes", out_axes, ONNX_MAX_RANK) != -2;
    if (ok && c->nout > (int)body->n_output)
        ok = infer_fail(c, "%d outputs, the body makes %zu", c->nout, body->n_output);
    for (int i = 0; ok && i < c->nout; i++) {
        const OnnxType *initial = i < s.nstate ? infer_in(c, (s.batched ? 1 : 0) + i) : NULL;
        OnnxType t = i < s.nstate && !s.batched ? state_type(body->output[i], initial)
                                                 : onnx_body_value_type(body->output[i]);
        if (i >= s.nstate) {
            int64_t axis = s.batched ? 0 : out_axes[i - s.nstate];
            axis = axis < 0 && t.rank >= 0 ? axis + t.rank + 1 : axis;
            if (t.rank >= 0 && (axis < 0 || axis > t.rank))
                ok = infer_fail(c, "scan_output_axes %lld out of range for rank %d",
                                (long long)out_axes[i - s.nstate], t.rank + 1);
            ok = ok && insert_dim(c, &t, (int)axis, s.len);
        }
        ok = ok && (!s.batched || insert_dim(c, &t, 0, s.batch));
        infer_copy(c, i, &t);
    }
    onnx_body_proto_free(body);
    return ok;
}

const InferDef onnx_infer_control_ops[] = {
    {"If", infer_if},
    {"Loop", infer_loop},
    {"Scan", infer_scan},
    {NULL, NULL},
};
