#!/usr/bin/python3
"""Writes the ONNX corpus of tests/onnx/ (tests/onnx/README.md).

Run with Debian 12's python3-torch (1.13), python3-torchvision (0.14)
and python3-onnx (1.12), from the source tree:

    /usr/bin/python3 tests/onnx/export_corpus.py tests/onnx

Only making the corpus needs torch; the tests read the committed files.
Every model is exported at opset 13 and 17, in eval mode with
training=TrainingMode.PRESERVE, so that BatchNormalization stays a node
of its own instead of being folded into the Conv before it (what an
eval-mode export with the default TrainingMode.EVAL does).  Weights are
drawn from a fixed seed, and the BatchNormalization statistics made as a
trained model has them (randomize_batch_norms): torchvision's fresh
statistics (mean 0, var 1, scale 1, shift 0) would hide a wrong fold.
The export is deterministic: a second run writes the same bytes (the
README records each file's SHA-256).
"""
import hashlib
import sys
from collections import Counter

import onnx
import torch
import torch.onnx.operators
import torchvision

SEED = 28  # the number
OPSETS = (13, 17)


def conv_bn_pairs(model):
    """Each BatchNormalization with the Conv that feeds it (torchvision's
    blocks register the Conv just before its BatchNorm)."""
    last_conv = None
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            last_conv = module
        elif isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            if last_conv is None or last_conv.out_channels != module.num_features:
                raise ValueError(f"no Conv of {module.num_features} channels before a BN")
            yield last_conv, module
            last_conv = None


def calibrate(model, pairs, batch):
    """Each BN's running statistics measured on one batch, as training
    leaves them (momentum None: a cumulative average, here of one batch)."""
    momenta = [bn.momentum for _, bn in pairs]
    for _, bn in pairs:
        bn.reset_running_stats()
        bn.momentum = None
    model.train()
    model(batch)
    model.eval()
    for (_, bn), momentum in zip(pairs, momenta):
        bn.momentum = momentum


def randomize_batch_norms(model, gen):
    """Statistics and affine parameters as a trained model has them.

    A trained model's running variances spread over decades: channels that
    learned little have a variance below epsilon's 1e-5, and there a fold
    that drops epsilon is wrong by orders of magnitude.  So each BN channel
    gets a variance t log-uniform over [1e-7, 10]: the statistics are
    measured on a batch of inputs such as graft run --verify draws (uniform
    in [-2, 2]), the Conv's output channel scaled by sqrt(t / measured),
    and the statistics measured again, so that every BN normalises its
    channels as trained and activations stay near unit RMS through any
    depth.  A channel that is constant (a dead input) keeps the variance
    drawn.  Scale U(0.5, 1.5), shift N(0, 0.2^2)."""
    pairs = list(conv_bn_pairs(model))
    batch = torch.rand(16, 3, 64, 64, generator=gen) * 4.0 - 2.0
    with torch.no_grad():
        for _, bn in pairs:
            n = bn.num_features
            bn.weight.copy_(torch.rand(n, generator=gen) + 0.5)
            bn.bias.copy_(torch.randn(n, generator=gen) * 0.2)
        calibrate(model, pairs, batch)
        wanted = []
        for conv, bn in pairs:
            n = bn.num_features
            var = torch.pow(10.0, torch.rand(n, generator=gen) * 8.0 - 7.0)
            measured = bn.running_var
            scale = torch.where(measured > 0, torch.sqrt(var / measured), torch.ones(n))
            conv.weight.mul_(scale.view(n, 1, 1, 1))
            if conv.bias is not None:
                conv.bias.mul_(scale)
            wanted.append(var)
        calibrate(model, pairs, batch)
        for (_, bn), var in zip(pairs, wanted):
            bn.running_var.copy_(torch.where(bn.running_var > 0, bn.running_var, var))


def cnn(name, build):
    def make():
        torch.manual_seed(SEED)
        model = build()
        randomize_batch_norms(model, torch.Generator().manual_seed(SEED))
        return model, torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(SEED))
    return name, make


def encoder():
    """One transformer encoder layer (post-norm, GELU), batch first."""
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                             dropout=0.0, activation="gelu",
                                             batch_first=True)
    return layer, torch.randn(1, 16, 64, generator=torch.Generator().manual_seed(SEED))


class Attention(torch.nn.Module):
    """Self-attention with separate q, k and v projections (three Linear
    layers, as Hugging Face's BERT, GPT-NeoX and LLaMA write them, not
    torch's packed in_proj).  With kv_heads < heads it is grouped-query
    attention (LLaMA 2 70B, Mistral): k and v have kv_heads heads, each
    read by heads / kv_heads query heads, computed by grouping the query
    heads instead of repeating k and v."""

    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.q_proj = torch.nn.Linear(d, d)
        self.k_proj = torch.nn.Linear(d, kv_heads * self.hd)
        self.v_proj = torch.nn.Linear(d, kv_heads * self.hd)
        self.o_proj = torch.nn.Linear(d, d)

    def forward(self, x):
        b, t = x.size(0), x.size(1)
        g = self.h // self.kv
        q = self.q_proj(x).view(b, t, self.kv, g, self.hd).permute(0, 2, 3, 1, 4)
        q = q.reshape(b, self.kv, g * t, self.hd)
        k = self.k_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-2, -1) / self.hd ** 0.5, dim=-1)
        y = (a @ v).view(b, self.kv, g, t, self.hd).permute(0, 3, 1, 2, 4)
        return self.o_proj(y.reshape(b, t, self.h * self.hd))


class Block(torch.nn.Module):
    """A pre-norm transformer block around Attention, GELU MLP."""

    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.n1, self.n2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.attn = Attention(d, heads, kv_heads)
        self.fc1, self.fc2 = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)

    def forward(self, x):
        x = x + self.attn(self.n1(x))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.n2(x))))


class ConvAttention(torch.nn.Module):
    """SAGAN's self-attention over a feature map (Zhang et al. 2019, as
    BigGAN uses it): query and key are 1x1 convolutions of x to C/8
    channels without bias, value one to C channels; two such blocks."""

    def __init__(self, c):
        super().__init__()
        self.q = torch.nn.Conv2d(c, c // 8, 1, bias=False)
        self.k = torch.nn.Conv2d(c, c // 8, 1, bias=False)
        self.v = torch.nn.Conv2d(c, c, 1, bias=False)
        self.gamma = torch.nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        b, c, h, w = x.shape
        q = self.q(x).view(b, c // 8, h * w).transpose(1, 2)
        k = self.k(x).view(b, c // 8, h * w)
        a = torch.softmax(q @ k, dim=-1)
        y = (self.v(x).view(b, c, h * w) @ a.transpose(1, 2)).view(b, c, h, w)
        return x + self.gamma * y


class PositionalAttention(torch.nn.Module):
    """Learned positions sliced to the input's length, then attention with
    separate q, k and v.  The length for the slice is read as a tensor,
    torch.onnx.operators.shape_as_tensor(x)[1], as fairseq's positional
    embeddings read it for export; the views read x.size(1).  torch's
    tracer makes one Gather of one size() per dim, but these are two
    different calls: the export reads dim 1 of x twice, each Gather with
    an index Constant of its own (gather_share's by-value case)."""

    def __init__(self, d, heads, length):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.pos = torch.nn.Parameter(torch.randn(length, d))
        self.q, self.k, self.v = (torch.nn.Linear(d, d) for _ in range(3))

    def forward(self, x):
        b, t = x.size(0), x.size(1)
        x = x + self.pos[:torch.onnx.operators.shape_as_tensor(x)[1]]
        q, k, v = (p(x).view(b, t, self.h, self.hd).transpose(1, 2)
                   for p in (self.q, self.k, self.v))
        a = torch.softmax(q @ k.transpose(-2, -1) / self.hd ** 0.5, dim=-1)
        return (a @ v).transpose(1, 2).reshape(b, t, -1)


class BertSelfAttention(torch.nn.Module):
    """BERT's self-attention layer (Hugging Face's BertSelfAttention and
    BertSelfOutput, no mask): q, k and v of x by three Linear layers, each
    viewed as heads and transposed, softmax(q k^T / sqrt(head size)) v,
    the heads side by side again, the output projection, the residual and
    LayerNorm.  Exported with its shapes fixed (no dynamic axes), so the
    views' shapes are constants: the form ONNX Runtime's AttentionFusion
    reads (onnxruntime/core/optimizer/attention_fusion.cc)."""

    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d) for _ in range(4))
        self.norm = torch.nn.LayerNorm(d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (p(x).view(b, t, self.h, self.hd).transpose(1, 2)
                   for p in (self.q, self.k, self.v))
        a = torch.softmax(q @ k.transpose(-2, -1) / self.hd ** 0.5, dim=-1)
        y = (a @ v).transpose(1, 2).reshape(b, t, d)
        return self.norm(x + self.o(y))


def bert_attention():
    """Two BertSelfAttention layers of width 32, 4 heads, on a batch of 2
    sequences of 8 tokens: small, and a batch of more than one."""
    torch.manual_seed(SEED)
    model = torch.nn.Sequential(BertSelfAttention(32, 4), BertSelfAttention(32, 4))
    return model, torch.randn(2, 8, 32, generator=torch.Generator().manual_seed(SEED))


def positional_attention():
    """One PositionalAttention of width 16, 2 heads, 32 positions: tiny."""
    torch.manual_seed(SEED)
    model = PositionalAttention(16, 2, 32)
    return model, torch.randn(1, 4, 16, generator=torch.Generator().manual_seed(SEED))


def blocks(kv_heads):
    """Two Blocks of width 64, 8 heads; tokens of a batch and length the
    export leaves free (dynamic axes), so the shapes are read in the graph."""
    def make():
        torch.manual_seed(SEED)
        model = torch.nn.Sequential(Block(64, 8, kv_heads), Block(64, 8, kv_heads))
        return model, torch.randn(1, 16, 64, generator=torch.Generator().manual_seed(SEED))
    return make


def conv_attention():
    torch.manual_seed(SEED)
    model = torch.nn.Sequential(ConvAttention(32), ConvAttention(32))
    return model, torch.randn(1, 32, 8, 8, generator=torch.Generator().manual_seed(SEED))


# Transformers with separate projections, for the merges of several roots
# (stdpatterns/onnx/merge.graft; tests/std_corpus_roots.sh): opset 17 only,
# named without the _opN of the models above.  TOKENS: dynamic axes.
ROOTS_MODELS = [("attention_qkv", blocks(8), True), ("attention_gqa", blocks(2), True),
                ("attention_conv", conv_attention, False),
                ("attention_pos", positional_attention, True),
                ("attention_bert", bert_attention, False)]

MODELS = [
    cnn("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(width_mult=0.25,
                                                                 num_classes=10)),
    cnn("shufflenet_v2", lambda: torchvision.models.shufflenet_v2_x0_5(num_classes=10)),
    cnn("mnasnet", lambda: torchvision.models.mnasnet0_5(num_classes=10)),
    ("encoder", encoder),
]


def export(make, opset, path, tokens=False):
    model, example = make()
    model.eval()
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(model, (example,), path, opset_version=opset,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=True, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": axes, "output": axes} if tokens else None)
    onnx.checker.check_model(onnx.load(path))


def describe(path):
    model = onnx.load(path)
    ops = Counter(node.op_type for node in model.graph.node)
    data = open(path, "rb").read()
    return {
        "file": path.rsplit("/", 1)[-1],
        "bytes": len(data),
        "nodes": len(model.graph.node),
        "initializers": len(model.graph.initializer),
        "ops": ", ".join(f"{op} {n}" for op, n in sorted(ops.items())),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"onnx {onnx.__version__}")
    runs = [(name, make, opset, f"{out}/{name}_op{opset}.onnx", False)
            for name, make in MODELS for opset in OPSETS]
    runs += [(name, make, 17, f"{out}/{name}.onnx", tokens)
             for name, make, tokens in ROOTS_MODELS]
    for name, make, opset, path, tokens in runs:
        export(make, opset, path, tokens)
        facts = describe(path)
        print("| {file} | {bytes} | {nodes} | {initializers} | {ops} |".format(**facts))
        print(f"  sha256 {facts['sha256']}")


if __name__ == "__main__":
    main()
