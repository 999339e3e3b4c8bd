/* eval_onnx_attention.c - ONNX Runtime's com.microsoft Attention and
 * MultiHeadAttention, the ops AttentionFusion makes, written from ONNX
 * Runtime's operator documentation (docs/ContribOperators.md) and checked
 * on the values of its tests (tests/check_onnx_contrib.c: AttentionTest's
 * AttentionBatch1 of onnxruntime/test/contrib_ops/attention_op_test.cc).
 *
 * Both compute scaled dot-product attention per head: Q, K and V of
 * (batch, sequence, num_heads * head_size) split into num_heads heads,
 * softmax(Q K^T * scale) V with scale 1 / sqrt(head_size) unless given,
 * the heads' results side by side again.  Attention projects its input
 * first (input @ weights + bias, Q, K and V the three thirds of the
 * columns); MultiHeadAttention takes Q, K and V (bias, when given, added
 * as Attention's).  The inputs for masks, past state, rotary embedding
 * and packed layouts, and unidirectional, are refused by name, not
 * ignored.  SDPA, the private op of onnxscript's staged fusions, is the
 * same attention of one head per (batch, head) slice. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"

/* The shapes of one attention: batch, query and key lengths, heads and
 * the head sizes of Q/K and of V. */
typedef struct Heads {
    int64_t batch, seq, kv_seq, heads, qk_size, v_size;
    double scale;
} Heads;

/* One query row's softmax(q k^T * scale) v for one head, into out
 * (v_size values); k and v rows are read with their row strides. */
static void attend_row(const Heads *h, const double *q, const double *k, int64_t k_stride,
                       const double *v, int64_t v_stride, double *scores, double *out)
{
    int64_t last = h->kv_seq - 1;
    double max = -INFINITY, sum = 0;
    for (int64_t j = 0; j <= last; j++) {
        double dot = 0;
        for (int64_t d = 0; d < h->qk_size; d++)
            dot += q[d] * k[j * k_stride + d];
        scores[j] = dot * h->scale;
        max = fmax(max, scores[j]);
    }
    for (int64_t j = 0; j <= last; j++)
        sum += scores[j] = exp(scores[j] - max);
    for (int64_t d = 0; d < h->v_size; d++)
        out[d] = 0;
    for (int64_t j = 0; j <= last; j++)
        for (int64_t d = 0; d < h->v_size; d++)
            out[d] += scores[j] / sum * v[j * v_stride + d];
}

/* Attention of rows q (batch, seq, q_stride), k and v (batch, kv_seq,
 * k_stride / v_stride), head n at columns n * size of each, into y
 * (batch, seq, heads * v_size). */
static void attend(const Heads *h, const double *q, int64_t q_stride, const double *k,
                   int64_t k_stride, const double *v, int64_t v_stride, Tensor *y)
{
    double *scores = xmalloc((size_t)h->kv_seq * sizeof *scores + 1);
    int64_t y_stride = h->heads * h->v_size;
    for (int64_t b = 0; b < h->batch; b++)
        for (int64_t n = 0; n < h->heads; n++)
            for (int64_t i = 0; i < h->seq; i++)
                attend_row(h, q + (b * h->seq + i) * q_stride + n * h->qk_size,
                           k + b * h->kv_seq * k_stride + n * h->qk_size, k_stride,
                           v + b * h->kv_seq * v_stride + n * h->v_size, v_stride, scores,
                           y->data + (b * h->seq + i) * y_stride + n * h->v_size);
    free(scores);
}

/* num_heads and scale into h, with head sizes of q_width and v_width
 * columns; false after failing (unidirectional, a causal mask, is not
 * evaluated). */
static bool read_heads(EvalCall *c, int64_t q_width, int64_t v_width, Heads *h)
{
    h->heads = eval_attr_int(c, "num_heads", 0);
    if (h->heads <= 0 || q_width % h->heads != 0 || v_width % h->heads != 0)
        return eval_fail(c, "num_heads %lld does not divide the hidden sizes %lld and %lld",
                         (long long)h->heads, (long long)q_width, (long long)v_width);
    h->qk_size = q_width / h->heads;
    h->v_size = v_width / h->heads;
    h->scale = eval_attr_float(c, "scale", 0.0);
    if (h->scale == 0.0)
        h->scale = 1 / sqrt((double)h->qk_size);
    if (eval_attr_int(c, "unidirectional", 0))
        return eval_fail(c, "unidirectional is not evaluated");
    return true;
}

/* Fails when an input from first on is given (masks, past state, ...). */
static bool refuse_inputs(EvalCall *c, int first, const char *what)
{
    for (int i = first; i < c->nargs; i++)
        if (eval_opt_arg(c, i))
            return eval_fail(c, "%s (input %d) is not evaluated", what, i);
    return c->err->status == EVAL_OK;
}

/* Attention(input, weights, bias): input (B, S, D), weights (D, 3 H),
 * bias (3 H); output (B, S, H).  qkv_hidden_sizes and do_rotary refused. */
static bool op_attention(EvalCall *c)
{
    const Tensor *x = eval_nargs_first(c, 2, 8);
    const Tensor *w = x ? eval_arg(c, 1) : NULL;
    const Tensor *bias = w ? eval_opt_arg(c, 2) : NULL;
    if (!w || !refuse_inputs(c, 3, "a mask, past state or attention bias"))
        return false;
    int64_t given[3];
    int ngiven = eval_attr_ints(c, "qkv_hidden_sizes", given, 3);
    if (ngiven == -2)
        return false;
    if (ngiven >= 0 || eval_attr_int(c, "do_rotary", 0))
        return eval_fail(c, "qkv_hidden_sizes and do_rotary are not evaluated");
    if (x->rank != 3 || w->rank != 2 || w->dims[0] != x->dims[2] || w->dims[1] % 3 != 0 ||
        (bias && (bias->rank != 1 || bias->dims[0] != w->dims[1])))
        return eval_fail(c, "input (B, S, D), weights (D, 3 H) and bias (3 H) expected");
    int64_t width = w->dims[1], hidden = width / 3, rows = x->dims[0] * x->dims[1];
    Heads h = {.batch = x->dims[0], .seq = x->dims[1], .kv_seq = x->dims[1]};
    if (!read_heads(c, hidden, hidden, &h))
        return false;
    int64_t dims[3] = {h.batch, h.seq, hidden};
    Tensor *y = eval_result(c, x->dtype, 3, dims);
    if (!y)
        return false;
    double *qkv = xmalloc((size_t)(rows * width) * sizeof *qkv + 1);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < width; j++) {
            double s = 0;
            for (int64_t d = 0; d < x->dims[2]; d++)
                s += x->data[r * x->dims[2] + d] * w->data[d * width + j];
            qkv[r * width + j] = bias ? s + bias->data[j] : s;
        }
    attend(&h, qkv, width, qkv + hidden, width, qkv + 2 * hidden, width, y);
    free(qkv);
    return true;
}

/* MultiHeadAttention(query, key, value, bias): query (B, S, H), key
 * (B, L, H), value (B, L, Hv), bias (H + H + Hv) added to each; output
 * (B, S, Hv).  Packed or 4-D forms and the inputs after bias refused. */
static bool op_multi_head_attention(EvalCall *c)
{
    const Tensor *q = eval_nargs_first(c, 3, 10);
    const Tensor *k = q ? eval_arg(c, 1) : NULL;
    const Tensor *v = k ? eval_arg(c, 2) : NULL;
    const Tensor *bias = v ? eval_opt_arg(c, 3) : NULL;
    if (!v || !refuse_inputs(c, 4, "a mask, attention bias or past state"))
        return false;
    if (q->rank != 3 || k->rank != 3 || v->rank != 3 || k->dims[0] != q->dims[0] ||
        v->dims[0] != q->dims[0] || k->dims[1] != v->dims[1] || k->dims[2] != q->dims[2] ||
        (bias && (bias->rank != 1 || bias->dims[0] != 2 * q->dims[2] + v->dims[2])))
        return eval_fail(c, "query (B, S, H), key (B, L, H), value (B, L, Hv) and bias "
                            "(2 H + Hv) expected");
    Heads h = {.batch = q->dims[0], .seq = q->dims[1], .kv_seq = k->dims[1]};
    if (!read_heads(c, q->dims[2], v->dims[2], &h))
        return false;
    int64_t dims[3] = {h.batch, h.seq, v->dims[2]};
    Tensor *y = eval_result(c, q->dtype, 3, dims);
    if (!y)
        return false;
    const Tensor *in[3] = {q, k, v};
    double *biased[3] = {NULL, NULL, NULL};
    for (int t = 0; t < 3; t++) {
        biased[t] = xmalloc(in[t]->size * sizeof *biased[t] + 1);
        int64_t width = in[t]->dims[2], at = t * q->dims[2];
        for (size_t i = 0; i < in[t]->size; i++)
            biased[t][i] = in[t]->data[i] + (bias ? bias->data[at + (int64_t)i % width] : 0);
    }
    attend(&h, biased[0], q->dims[2], biased[1], k->dims[2], biased[2], v->dims[2], y);
    for (int t = 0; t < 3; t++)
        free(biased[t]);
    return true;
}

/* SDPA(query, key_transposed, value, scale) of the domain graft.private,
 * the intermediate op of onnxscript's staged attention fusions
 * (onnxscript/rewriter/ort_fusions/sdpa.py, read by mha.py; in graft
 * stdpatterns/onnx/sdpa_mha.graft): softmax(query @ key_transposed *
 * scale) @ value per batch and head, query (B, N, S, H), key_transposed
 * (B, N, H, L), value (B, N, L, Hv); output (B, N, S, Hv).  The key is
 * read transposed, as the MatMul it replaces reads it. */
static bool op_sdpa(EvalCall *c)
{
    const Tensor *q = eval_nargs_first(c, 3, 3);
    const Tensor *kt = q ? eval_arg(c, 1) : NULL;
    const Tensor *v = kt ? eval_arg(c, 2) : NULL;
    if (!v)
        return false;
    if (q->rank != 4 || kt->rank != 4 || v->rank != 4 || kt->dims[2] != q->dims[3] ||
        v->dims[2] != kt->dims[3] || memcmp(q->dims, kt->dims, 2 * sizeof *q->dims) != 0 ||
        memcmp(q->dims, v->dims, 2 * sizeof *q->dims) != 0)
        return eval_fail(c, "query (B, N, S, H), key_transposed (B, N, H, L) and value "
                            "(B, N, L, Hv) expected");
    Heads h = {.batch = 1, .seq = q->dims[2], .kv_seq = kt->dims[3], .heads = 1,
               .qk_size = q->dims[3], .v_size = v->dims[3]};
    h.scale = eval_attr_float(c, "scale", 0.0);
    int64_t dims[4] = {q->dims[0], q->dims[1], h.seq, h.v_size}, n = q->dims[0] * q->dims[1];
    Tensor *y = eval_result(c, q->dtype, 4, dims);
    if (!y)
        return false;
    double *k = xmalloc((size_t)(h.kv_seq * h.qk_size) * sizeof *k + 1); /* one head's K */
    for (int64_t i = 0; i < n; i++) {
        const double *kt_i = kt->data + i * h.qk_size * h.kv_seq;
        for (int64_t d = 0; d < h.qk_size; d++)
            for (int64_t j = 0; j < h.kv_seq; j++)
                k[j * h.qk_size + d] = kt_i[d * h.kv_seq + j];
        Tensor one = {.data = y->data + i * h.seq * h.v_size};
        attend(&h, q->data + i * h.seq * h.qk_size, h.qk_size, k, h.qk_size,
               v->data + i * h.kv_seq * h.v_size, h.v_size, &one);
    }
    free(k);
    return true;
}

const EvalOpDef eval_onnx_attention_ops[] = {
    {"Attention", op_attention},
    {"MultiHeadAttention", op_multi_head_attention},
    {"SDPA", op_sdpa},
    {NULL, NULL},
};
