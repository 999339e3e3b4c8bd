/* eval.c - evaluating a graph: nodes in operand-first order, each op by
 * its table entry; values freed once their last user has read them
 * (note [reference evaluator] in eval.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

static const EvalOpDef *const op_tables[] = {eval_elem_ops, eval_reduce_ops, eval_nn_ops,
                                             eval_shape_ops, eval_einsum_ops, eval_dyn_ops,
                                             eval_onnx_elem_ops, eval_onnx_act_ops,
                                             eval_onnx_nn_ops, eval_onnx_shape_ops,
                                             eval_onnx_index_ops, eval_onnx_conv_ops,
                                             eval_onnx_select_ops, eval_onnx_layout_ops,
                                             eval_onnx_gather_ops, eval_onnx_quant_ops,
                                             eval_onnx_reduce_ops, eval_onnx_contrib_ops,
                                             eval_onnx_attention_ops, eval_onnx_control_ops,
                                             eval_onnx_scan_ops};

static EvalOpFn find_op(const char *op)
{
    for (size_t t = 0; op && t < ARRAY_LEN(op_tables); t++)
        for (const EvalOpDef *d = op_tables[t]; d->name; d++)
            if (strcmp(d->name, op) == 0)
                return d->fn;
    return NULL;
}

bool eval_has_op(const char *op)
{
    return find_op(op) != NULL;
}

static bool set_error(EvalError *err, EvalStatus status, const graft_node *n, const char *fmt, ...)
    GRAFT_PRINTF(4, 5);

static bool set_error(EvalError *err, EvalStatus status, const graft_node *n, const char *fmt, ...)
{
    err->status = status;
    err->node = n;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(&err->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* Rounds every tensor of v to its dtype (EVAL_DTYPE). */
static void round_value(Value *v)
{
    if (v->nfields >= 0) {
        for (int i = 0; i < v->nfields; i++)
            round_value(&v->fields[i]);
        return;
    }
    eval_round_array(v->t.data, v->t.size, v->t.dtype);
}

/* A parameter's or constant's value, copied. */
static bool eval_leaf(const graft_node *n, const EvalInputs *in, const graft_graph *g, Value *out,
                      EvalError *err)
{
    if (node_kind(n) == NODE_VAR) {
        for (int i = 0; i < graph_nparams(g) && i < in->nparams; i++)
            if (graph_param(g, i) == n) {
                out->nfields = -1;
                out->t = tensor_copy(&in->params[i]);
                return true;
            }
        return set_error(err, EVAL_NO_OP, n, "no value for variable %%%s", node_name(n));
    }
    if (node_const_is_scalar(n)) {
        const char *dtype = eval_dtype(node_const_dtype(n));
        if (!dtype)
            return set_error(err, EVAL_NO_OP, n, "constant %s: dtype '%s' not evaluated",
                             node_const_text(n), node_const_dtype(n));
        out->nfields = -1;
        out->t = tensor_new(dtype, 0, NULL);
        out->t.data[0] = node_const_value(n);
        return true;
    }
    const Tensor *t = in->constant ? in->constant(in->ctx, n) : NULL;
    if (!t)
        return set_error(err, EVAL_NO_OP, n, "no value for constant %s", node_const_text(n));
    out->nfields = -1;
    out->t = tensor_copy(t);
    return true;
}

bool eval_op(const graft_node *n, const Value *args, int nargs, const EvalOptions *opts, Value *out,
             EvalError *err)
{
    const char *op = node_op(n);
    EvalOpFn fn = find_op(op);
    if (!fn)
        return set_error(err, EVAL_NO_OP, n, "%s: no evaluator for %s",
                         op ? op : "call", op ? "this op" : "calls of functions");
    EvalCall c = {.node = n, .op = op, .args = args, .nargs = nargs, .out = out,
                  .err = err, .opts = opts};
    out->nfields = -1;
    if (!fn(&c)) {
        value_free(out);
        return false;
    }
    return true;
}

bool eval_call_as(EvalCall *c, const char *op, const Value *args, int nargs)
{
    EvalOpFn fn = find_op(op);
    EvalCall sub = *c;
    sub.op = op;
    sub.args = args;
    sub.nargs = nargs;
    return fn ? fn(&sub) : eval_fail(c, "no evaluator for %s", op);
}

static bool eval_node(const graft_graph *g, const graft_node *n, Value *vals, const EvalInputs *in,
                      const EvalOptions *opts, Value *out, EvalError *err)
{
    int nargs = node_nargs(n);
    switch (node_kind(n)) {
    case NODE_VAR:
    case NODE_CONST:
        return eval_leaf(n, in, g, out, err);
    case NODE_FUNC:
        out->nfields = 0; /* a function value: only calls of it matter */
        out->fields = NULL;
        return true;
    case NODE_TUPLE:
        out->nfields = nargs;
        out->fields = xcalloc((size_t)nargs + 1, sizeof *out->fields);
        for (int i = 0; i < nargs; i++)
            out->fields[i] = value_copy(&vals[node_id(node_arg(n, i))]);
        return true;
    case NODE_GETITEM: {
        const Value *t = &vals[node_id(node_arg(n, 0))];
        if (t->nfields <= node_index(n))
            return set_error(err, EVAL_BAD_INPUT, n, "field %d of a %s", node_index(n),
                             t->nfields < 0 ? "tensor" : "shorter tuple");
        *out = value_copy(&t->fields[node_index(n)]);
        return true;
    }
    case NODE_GLOBAL: /* module control flow: not evaluated (named, not guessed) */
    case NODE_OPREF:
    case NODE_LET:
    case NODE_IF:
    case NODE_MATCH:
        return set_error(err, EVAL_NO_OP, n, "no evaluator for %s",
                         node_kind(n) == NODE_GLOBAL  ? "a global function reference"
                         : node_kind(n) == NODE_OPREF ? "an operator as a value"
                         : node_kind(n) == NODE_LET   ? "let"
                         : node_kind(n) == NODE_IF    ? "if"
                                                      : "match");
    case NODE_CALL: {
        Value *args = xcalloc((size_t)nargs + 1, sizeof *args);
        for (int i = 0; i < nargs; i++)
            args[i] = vals[node_id(node_arg(n, i))];
        bool ok = eval_op(n, args, nargs, opts, out, err);
        free(args);
        return ok;
    }
    }
    return false;
}

/* uses[id]: how many operand slots of evaluated nodes read node id. */
static uint32_t *count_uses(graft_node *const *order, uint32_t count, uint32_t nnodes)
{
    uint32_t *uses = xcalloc(nnodes + 1, sizeof *uses);
    for (uint32_t k = 0; k < count; k++)
        for (int i = 0; i < node_nargs(order[k]); i++)
            uses[node_id(node_arg(order[k], i))]++;
    return uses;
}

/* Frees the values of n's operands that no later node reads. */
static void release_args(const graft_node *n, Value *vals, uint32_t *uses, const graft_node *output)
{
    for (int i = 0; i < node_nargs(n); i++) {
        const graft_node *a = node_arg(n, i);
        if (--uses[node_id(a)] == 0 && a != output)
            value_free(&vals[node_id(a)]);
    }
}

static bool read_only_by_one(const graft_node *n)
{
    return node_nusers(n) == 1;
}

/* Evaluates again operand a of a node whose parameters EvalInputs.prepare
 * changed: a parameter is read again, and so is one under a chain of
 * one-operand calls each read by the next alone (a weight reshaped or
 * transposed before its layer), the chain then evaluated again from it;
 * the values below a are freed again, as their only readers are done. */
static bool reread_operand(const graft_graph *g, const graft_node *a, Value *vals,
                           const EvalInputs *in, const EvalOptions *opts, EvalError *err)
{
    enum { MAX_CHAIN = 16 };
    const graft_node *chain[MAX_CHAIN], *p = a;
    int len = 0;
    while (node_kind(p) == NODE_CALL && node_nargs(p) == 1 && len < MAX_CHAIN &&
           read_only_by_one(node_arg(p, 0)))
        chain[len++] = p, p = node_arg(p, 0);
    if (node_kind(p) != NODE_VAR)
        return true;
    value_free(&vals[node_id(p)]);
    if (!eval_leaf(p, in, g, &vals[node_id(p)], err))
        return false;
    if (opts->mode == EVAL_DTYPE)
        round_value(&vals[node_id(p)]);
    for (int k = len - 1; k >= 0; k--) {
        Value *out = &vals[node_id(chain[k])];
        value_free(out);
        if (!eval_node(g, chain[k], vals, in, opts, out, err))
            return false;
        if (opts->mode == EVAL_DTYPE)
            round_value(out);
        value_free(&vals[node_id(node_arg(chain[k], 0))]);
    }
    return true;
}

/* Reads again the parameters n reads (EvalInputs.prepare changed them). */
static bool reread_params(const graft_graph *g, const graft_node *n, Value *vals,
                          const EvalInputs *in, const EvalOptions *opts, EvalError *err)
{
    for (int i = 0; i < node_nargs(n); i++)
        if (!reread_operand(g, node_arg(n, i), vals, in, opts, err))
            return false;
    return true;
}

/* Evaluates n, with in->prepare's calls around an op call. */
static bool eval_prepared(const graft_graph *g, const graft_node *n, Value *vals,
                          const EvalInputs *in, const EvalOptions *opts, EvalError *err)
{
    bool hooked = in->prepare && node_kind(n) == NODE_CALL;
    Value *out = &vals[node_id(n)];
    if (hooked && in->prepare(in->ctx, n, vals, NULL) && !reread_params(g, n, vals, in, opts, err))
        return false;
    for (int pass = 0; pass < 2; pass++) {
        if (!eval_node(g, n, vals, in, opts, out, err))
            return false;
        if (opts->mode == EVAL_DTYPE)
            round_value(out);
        if (!hooked || !in->prepare(in->ctx, n, vals, out) || pass == 1)
            return true;
        value_free(out);
        if (!reread_params(g, n, vals, in, opts, err))
            return false;
    }
    return true;
}

bool eval_graph(const graft_graph *g, const EvalInputs *in, const EvalOptions *opts, Value *out,
                EvalError *err)
{
    uint32_t nnodes = graph_node_count(g);
    graft_node **order = xcalloc(nnodes + 1, sizeof *order);
    uint32_t count = 0, all = graph_topo_order(g, order);
    for (uint32_t k = 0; k < all; k++)
        if (!node_scope(g, order[k])) /* function bodies run only when called */
            order[count++] = order[k];
    uint32_t *uses = count_uses(order, count, nnodes);
    Value *vals = xcalloc(nnodes + 1, sizeof *vals);
    const graft_node *output = graph_output(g);
    bool ok = true;
    for (uint32_t k = 0; k < count && ok; k++) {
        graft_node *n = order[k];
        ok = eval_prepared(g, n, vals, in, opts, err);
        release_args(n, vals, uses, output);
    }
    for (uint32_t k = 0; k < count; k++) /* what an error left behind */
        if (order[k] != output && uses[node_id(order[k])] > 0)
            value_free(&vals[node_id(order[k])]);
    if (ok)
        *out = vals[node_id(output)];
    else if (output && vals[node_id(output)].nfields != 0)
        value_free(&vals[node_id(output)]);
    free(vals);
    free(uses);
    free(order);
    return ok;
}

/* ---- what the op files share (eval_impl.h) ---- */

bool eval_fail(EvalCall *c, const char *fmt, ...)
{
    set_error(c->err, EVAL_BAD_INPUT, c->node, "%s: ", c->op);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(&c->err->msg, fmt, ap);
    va_end(ap);
    return false;
}

const Tensor *eval_opt_arg(EvalCall *c, int i)
{
    if (i >= c->nargs || c->args[i].nfields == 0)
        return NULL;
    return eval_arg(c, i);
}

int eval_arg_ints(EvalCall *c, int i, int64_t *out, int max)
{
    const Tensor *t = eval_opt_arg(c, i);
    if (!t)
        return i < c->nargs && c->args[i].nfields > 0 ? -2 : -1;
    if (eval_is_float(t->dtype) || t->rank > 1 || t->size > (size_t)max) {
        eval_fail(c, "operand %d: wants at most %d integers in a 1-D tensor", i + 1, max);
        return -2;
    }
    for (size_t k = 0; k < t->size; k++)
        out[k] = (int64_t)t->data[k];
    return (int)t->size;
}

bool eval_attr_tensor(EvalCall *c, const char *name, Tensor *out)
{
    const graft_attr_value *v = node_find_attr(c->node, name);
    if (!v)
        return false;
    const graft_type *type = v->kind == GRAFT_ATTR_TENSOR ? v->type : NULL;
    const char *dtype = type && type->kind == TYPE_TENSOR ? eval_dtype(type->dtype) : NULL;
    size_t nbytes;
    if (!dtype || type->rank > EVAL_MAX_RANK || !graph_tensor_nbytes(type, &nbytes) ||
        nbytes != v->nbytes)
        return eval_fail(c, "attribute %s: wants a tensor of an evaluated dtype", name);
    *out = tensor_new(dtype, type->rank, type->dims);
    int bytes = (int)(out->size ? nbytes / out->size : 0);
    eval_raw_elements(out->data, out->size, v->data, dtype, bytes);
    return true;
}

int eval_noutputs(const EvalCall *c)
{
    return node_noutputs(c->node);
}

bool eval_nargs(EvalCall *c, int lo, int hi)
{
    if (c->nargs < lo || c->nargs > hi)
        return eval_fail(c, "%d operands, wants %d", c->nargs, c->nargs < lo ? lo : hi);
    return true;
}

const Tensor *eval_arg(EvalCall *c, int i)
{
    if (i >= c->nargs) {
        eval_fail(c, "operand %d missing", i + 1);
        return NULL;
    }
    if (c->args[i].nfields >= 0) {
        eval_fail(c, "operand %d is a tuple, wants a tensor", i + 1);
        return NULL;
    }
    return &c->args[i].t;
}

const Tensor *eval_nargs_first(EvalCall *c, int lo, int hi)
{
    return eval_nargs(c, lo, hi) ? eval_arg(c, 0) : NULL;
}

static bool check_size(EvalCall *c, int rank, const int64_t *dims)
{
    if (rank > EVAL_MAX_RANK)
        return eval_fail(c, "result of rank %d (at most %d evaluated)", rank, EVAL_MAX_RANK);
    uint64_t size = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return eval_fail(c, "result dim %d is %lld", i, (long long)dims[i]);
        size *= (uint64_t)dims[i];
    }
    if (c->opts->max_elements && size > c->opts->max_elements)
        return set_error(c->err, EVAL_TOO_LARGE, c->node,
                         "%s: result of %llu elements passes the eval-elements limit (%llu)",
                         c->op, (unsigned long long)size,
                         (unsigned long long)c->opts->max_elements);
    return true;
}

Tensor *eval_result(EvalCall *c, const char *dtype, int rank, const int64_t *dims)
{
    if (!check_size(c, rank, dims))
        return NULL;
    c->out->nfields = -1;
    c->out->t = tensor_new(dtype, rank, dims);
    return &c->out->t;
}

bool eval_tuple_result(EvalCall *c, int n)
{
    c->out->nfields = n;
    c->out->fields = xcalloc((size_t)n + 1, sizeof *c->out->fields);
    for (int i = 0; i < n; i++)
        c->out->fields[i] = (Value){.nfields = -1};
    return true;
}

Tensor *eval_field(EvalCall *c, int i, const char *dtype, int rank, const int64_t *dims)
{
    if (!check_size(c, rank, dims))
        return NULL;
    c->out->fields[i].t = tensor_new(dtype, rank, dims);
    return &c->out->fields[i].t;
}

int64_t eval_attr_int(const EvalCall *c, const char *name, int64_t dflt)
{
    const graft_attr_value *v = node_given_attr(c->node, name);
    if (v && v->kind == GRAFT_ATTR_LIST && v->nitems == 1)
        v = v->items[0];
    if (!v)
        return dflt;
    return v->kind == GRAFT_ATTR_FLOAT ? (int64_t)v->f : v->i;
}

double eval_attr_float(const EvalCall *c, const char *name, double dflt)
{
    const graft_attr_value *v = node_given_attr(c->node, name);
    if (!v)
        return dflt;
    return v->kind == GRAFT_ATTR_FLOAT ? v->f : (double)v->i;
}

bool eval_attr_bool(const EvalCall *c, const char *name, bool dflt)
{
    const graft_attr_value *v = node_given_attr(c->node, name);
    return v ? v->i != 0 : dflt;
}

const char *eval_attr_str(const EvalCall *c, const char *name, const char *dflt)
{
    const graft_attr_value *v = node_given_attr(c->node, name);
    return v && v->kind == GRAFT_ATTR_STRING ? v->s : dflt;
}

int eval_attr_ints(EvalCall *c, const char *name, int64_t *out, int max)
{
    int bad_item;
    int n = attr_value_ints(node_given_attr(c->node, name), out, max, &bad_item);
    switch (n) {
    case ATTR_INTS_ABSENT: return -1;
    case ATTR_INTS_BAD_LIST:
        eval_fail(c, "attribute %s: wants a list of at most %d ints", name, max);
        return -2;
    case ATTR_INTS_BAD_ITEM:
        eval_fail(c, "attribute %s: item %d is no int", name, bad_item);
        return -2;
    default: return n;
    }
}

int eval_axis(EvalCall *c, int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank || (rank == 0 && axis != 0)) {
        eval_fail(c, "axis %lld out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

int eval_attr_axis(EvalCall *c, int64_t dflt, int rank)
{
    return eval_axis(c, eval_attr_int(c, "axis", dflt), rank);
}

bool eval_broadcast(EvalCall *c, const Tensor *a, const Tensor *b, int *rank, int64_t *dims)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            StrBuf sa = {0}, sb = {0};
            tensor_shape_text(a, &sa);
            tensor_shape_text(b, &sb);
            eval_fail(c, "shapes %s and %s do not broadcast", sa.data, sb.data);
            strbuf_free(&sa);
            strbuf_free(&sb);
            return false;
        }
        dims[i] = da == 1 ? db : da;
    }
    *rank = r;
    return true;
}

Tensor *eval_broadcast_result(EvalCall *c, const Tensor *a, const Tensor *b, const char *dtype)
{
    int rank;
    int64_t dims[EVAL_MAX_RANK * 2];
    if (!eval_broadcast(c, a, b, &rank, dims))
        return NULL;
    return eval_result(c, dtype, rank, dims);
}

/* Whether t's dims, leading 1s aside, are the last of dims: t is then a
 * block repeated, element flat reading t at flat % size. */
static bool is_trailing_block(const Tensor *t, int rank, const int64_t *dims)
{
    int ti = t->rank - 1;
    for (; ti >= 0 && rank - t->rank + ti >= 0; ti--)
        if (t->dims[ti] != dims[rank - t->rank + ti])
            break;
    while (ti >= 0 && t->dims[ti] == 1)
        ti--;
    return ti < 0;
}

size_t eval_bcast_index(const Tensor *t, int rank, const int64_t *dims, size_t flat)
{
    if (t->size <= 1)
        return 0;
    if (is_trailing_block(t, rank, dims))
        return flat % t->size;
    size_t index = 0, stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        size_t coord = flat % (size_t)dims[i];
        flat /= (size_t)dims[i];
        int ti = i - (rank - t->rank);
        if (ti < 0)
            break;
        if (t->dims[ti] != 1)
            index += coord * stride;
        stride *= (size_t)t->dims[ti];
    }
    return index;
}

/* How an operand is read along the result: as a block of this many
 * elements repeated (1: a scalar; the result's size: element by element),
 * or 0 where its index must be computed (eval_bcast_index). */
static size_t bcast_period(const Tensor *t, const Tensor *r)
{
    if (t->size <= 1)
        return 1;
    return is_trailing_block(t, r->rank, r->dims) ? t->size : 0;
}

/* The operands' positions are counted, not divided out per element, where
 * they repeat as blocks (a folded batch norm's per-channel scale over its
 * weights, an elementwise op of equal shapes): the same positions as
 * eval_bcast_index's, at a fraction of its cost. */
void eval_bcast_apply(Tensor *r, const Tensor *a, const Tensor *b,
                      double (*fn)(double x, double y, const EvalCall *c), const EvalCall *c)
{
    size_t pa = bcast_period(a, r), pb = bcast_period(b, r), ja = 0, jb = 0;
    for (size_t i = 0; i < r->size; i++) {
        size_t xa = pa ? ja : eval_bcast_index(a, r->rank, r->dims, i);
        size_t xb = pb ? jb : eval_bcast_index(b, r->rank, r->dims, i);
        r->data[i] = fn(a->data[xa], b->data[xb], c);
        if (++ja == pa)
            ja = 0;
        if (++jb == pb)
            jb = 0;
    }
}

double eval_maximum(double x, double y, const EvalCall *c)
{
    (void)c;
    return x > y || isnan(x) ? x : y;
}

double eval_minimum(double x, double y, const EvalCall *c)
{
    (void)c;
    return x < y || isnan(x) ? x : y;
}

void eval_strides(int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

/* One row of eval_softmax: n values stride apart. */
static void softmax_row(const double *x, double *r, int64_t n, int64_t stride,
                        EvalSoftmaxKind kind)
{
    double max = -INFINITY, sum = 0;
    int64_t arg = 0;
    for (int64_t j = 0; j < n; j++)
        if (x[j * stride] > max || j == 0) {
            max = x[j * stride];
            arg = j;
        }
    for (int64_t j = 0; j < n; j++)
        sum += exp(x[j * stride] - max);
    for (int64_t j = 0; j < n; j++) {
        double d = x[j * stride] - max;
        r[j * stride] = kind == EVAL_SOFTMAX       ? exp(d) / sum :
                        kind == EVAL_LOG_SOFTMAX ? d - log(sum) :
                                                   j == arg;
    }
}

bool eval_softmax(EvalCall *c, EvalSoftmaxKind kind)
{
    const Tensor *x = eval_nargs_first(c, 1, 1);
    int axis = x ? eval_attr_axis(c, -1, x->rank) : -1;
    Tensor *r = axis >= 0 ? eval_result(c, x->dtype, x->rank, x->dims) : NULL;
    if (!r)
        return false;
    int64_t strides[EVAL_MAX_RANK];
    eval_strides(x->rank, x->dims, strides);
    int64_t n = x->dims[axis], inner = strides[axis];
    for (size_t base = 0; n > 0 && base < x->size; base++)
        if ((int64_t)base / inner % n == 0) /* base starts a row along axis */
            softmax_row(x->data + base, r->data + base, n, inner, kind);
    return true;
}

bool eval_value_finite(const Value *v)
{
    if (v->nfields >= 0) {
        for (int i = 0; i < v->nfields; i++)
            if (!eval_value_finite(&v->fields[i]))
                return false;
        return true;
    }
    for (size_t i = 0; i < v->t.size; i++)
        if (!isfinite(v->t.data[i]))
            return false;
    return true;
}
