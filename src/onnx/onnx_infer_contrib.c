/* onnx_infer_contrib.c - shape inference of ONNX Runtime's com.microsoft
 * contrib ops that the ONNX fusion library makes
 * (stdpatterns/onnx/contrib_ops.graft), as their schemas in ONNX Runtime
 * infer them (contrib_defs.cc, bert_defs.cc): the element-wise ones and
 * the normalisations give their first input's type, the Fused ones the
 * type of the op they fuse. */
#include <string.h>

#include "onnx_infer_impl.h"

/* Infers c as op of table would, on the inputs in[0..nin-1]. */
static bool infer_as(InferCall *c, const InferDef *table, const char *op, const OnnxType *in,
                     int nin)
{
    InferCall sub = *c;
    sub.op = op;
    sub.in = in;
    sub.nin = nin;
    for (const InferDef *d = table; d->name; d++)
        if (strcmp(d->name, op) == 0)
            return d->fn(&sub);
    return infer_fail(c, "no inference for %s", op);
}

/* Output 0 has input 0's type; the optional statistics outputs of the
 * normalisations stay unknown. */
static bool infer_first(InferCall *c)
{
    const OnnxType *x = infer_need(c, 0);
    if (!x)
        return false;
    infer_copy(c, 0, x);
    return true;
}

/* FusedMatMul: MatMul of the operands with their last two dims swapped
 * where transA or transB says so. */
static bool infer_fused_matmul(InferCall *c)
{
    const OnnxType *a = infer_need(c, 0), *b = a ? infer_need(c, 1) : NULL;
    if (!b)
        return false;
    OnnxType in[2] = {*a, *b};
    const char *trans[2] = {"transA", "transB"};
    for (int i = 0; i < 2; i++) {
        in[i].values = NULL;
        in[i].source = NULL;
        if (infer_attr_int(c, trans[i], 0) && in[i].rank >= 2) {
            int64_t last = in[i].dims[in[i].rank - 1];
            in[i].dims[in[i].rank - 1] = in[i].dims[in[i].rank - 2];
            in[i].dims[in[i].rank - 2] = last;
        }
    }
    return infer_as(c, onnx_infer_nn_ops, "MatMul", in, 2);
}

static bool infer_fused_gemm(InferCall *c)
{
    return infer_as(c, onnx_infer_nn_ops, "Gemm", c->in, c->nin);
}

/* FusedConv: Conv's result (its fourth input, Z, is added to it). */
static bool infer_fused_conv(InferCall *c)
{
    return infer_as(c, onnx_infer_nn_ops, "Conv", c->in, c->nin < 3 ? c->nin : 3);
}

/* Attention: (B, S, H) of input (B, S, D) and weights (D, 3 H), or
 * MultiHeadAttention: (B, S, Hv) of query (B, S, H) and value (B, L, Hv),
 * as bert_defs.cc's inference gives them (an unknown dim stays unknown). */
static bool infer_attention(InferCall *c)
{
    bool mha = strcmp(c->op, "MultiHeadAttention") == 0;
    const OnnxType *x = infer_need(c, 0), *w = x ? infer_need(c, mha ? 2 : 1) : NULL;
    if (!w)
        return false;
    if (x->rank != 3 && x->rank != -1)
        return infer_fail(c, "%s's first input has rank %d, not 3", c->op, x->rank);
    OnnxType *y = infer_set(c, 0, x->dtype, x->rank < 0 ? -1 : 3);
    if (x->rank < 0)
        return true;
    y->dims[0] = x->dims[0];
    y->dims[1] = x->dims[1];
    int64_t width = w->rank >= 2 ? w->dims[w->rank - 1] : DIM_ANY;
    y->dims[2] = width == DIM_ANY || mha ? width : width / 3;
    return true;
}

const InferDef onnx_infer_contrib_ops[] = {
    {"Attention", infer_attention},
    {"MultiHeadAttention", infer_attention},
    {"Gelu", infer_first},
    {"BiasGelu", infer_first},
    {"FastGelu", infer_first},
    {"BiasSoftmax", infer_first},
    {"SkipLayerNormalization", infer_first},
    {"SkipSimplifiedLayerNormalization", infer_first},
    {"SimplifiedLayerNormalization", infer_first},
    {"FusedMatMul", infer_fused_matmul},
    {"FusedGemm", infer_fused_gemm},
    {"FusedConv", infer_fused_conv},
    {NULL, NULL},
};
