#!/usr/bin/python3
"""Writes the ONNX corpus of tests/onnx/ (tests/onnx/README.md).

Run with Debian 12's python3-torch (1.13), python3-torchvision (0.14)
and python3-onnx (1.12), from the source tree:

    /usr/bin/python3 tests/onnx/export_corpus.py tests/onnx

Only making the corpus needs torch; the tests read the committed files.
Every model is exported at opset 13 and 17, in eval mode with
training=TrainingMode.PRESERVE, so that BatchNormalization stays a node
of its own instead of being folded into the Conv before it (what an
eval-mode export with the default TrainingMode.EVAL does).  Weights and
the BatchNormalization statistics are drawn at random from a fixed seed:
torchvision's fresh statistics (mean 0, var 1, scale 1, shift 0) would
hide a wrong fold.  The export is deterministic: a second run writes the
same bytes (the README records each file's SHA-256).
"""
import hashlib
import sys
from collections import Counter

import onnx
import torch
import torchvision

SEED = 28  # the number
OPSETS = (13, 17)


def randomize_batch_norms(model, gen):
    """Trained-looking statistics and affine parameters for every BN."""
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            n = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(n, generator=gen) * 0.5)
                module.running_var.copy_(torch.rand(n, generator=gen) * 1.5 + 0.25)
                module.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                module.bias.copy_(torch.randn(n, generator=gen) * 0.2)


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
