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


MODELS = [
    cnn("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(width_mult=0.25,
                                                                 num_classes=10)),
    cnn("shufflenet_v2", lambda: torchvision.models.shufflenet_v2_x0_5(num_classes=10)),
    cnn("mnasnet", lambda: torchvision.models.mnasnet0_5(num_classes=10)),
    ("encoder", encoder),
]


def export(make, opset, path):
    model, example = make()
    model.eval()
    torch.onnx.export(model, (example,), path, opset_version=opset,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=True, input_names=["input"],
                      output_names=["output"])
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
    for name, make in MODELS:
        for opset in OPSETS:
            path = f"{out}/{name}_op{opset}.onnx"
            export(make, opset, path)
            facts = describe(path)
            print("| {file} | {bytes} | {nodes} | {initializers} | {ops} |".format(**facts))
            print(f"  sha256 {facts['sha256']}")


if __name__ == "__main__":
    main()
