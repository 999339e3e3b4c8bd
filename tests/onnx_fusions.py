"""onnx_fusions.py DATA OUT - the checks of tests/onnx_fusions.sh on the
models stdpatterns/onnx/conv.graft rewrote into OUT (DATA: tests/onnx/).

For each model: the fusions graft applied (its --stats=counts, OUT/NAME.stats)
equal a count made here over the ONNX graph, independently of graft's
matcher, with the conditions ONNX Runtime's transformers check; the fused
model computes what the original computed (both evaluated here in float64
with numpy, from the weights as stored: the folded weights are float32,
so they agree to float32 rounding); onnx.checker accepts it (full_check);
and no arithmetic node is left on a weight."""
import os
import sys

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import helper, numpy_helper

data, out = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# ---- the independent count ----

def per_channel(shape, m):
    """[M, 1, 1] or [1, M, 1, 1] for a Conv of M output channels."""
    return shape in ([m, 1, 1], [1, m, 1, 1])


def count_fusions(model):
    """{fusion: count} as ONNX Runtime's conv_bn_fusion.cc,
    conv_add_fusion.cc, conv_mul_fusion.cc and matmul_bn_fusion.cc find
    them (the Conv or MatMul read by its one consumer alone, weights and
    the other operands initializers, per-channel shapes)."""
    g = model.graph
    inits = {t.name: list(t.dims) for t in g.initializer}
    outputs = {o.name for o in g.output}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1
    made_by = {o: n for n in g.node for o in n.output}
    counts = {"ConvBNFusion": 0, "ConvAddFusion": 0, "ConvMulFusion": 0, "MatmulBNFusion": 0}
    for n in g.node:
        ins = [made_by.get(i) for i in n.input]
        first = ins[0] if ins else None
        if n.op_type == "BatchNormalization" and len(n.output) == 1 and \
                all(i in inits for i in n.input[1:]) and first and \
                readers[n.input[0]] == 1 and n.input[0] not in outputs:
            if first.op_type == "Conv" and all(i in inits for i in first.input[1:]) and \
                    len(inits[first.input[1]]) == 4:
                counts["ConvBNFusion"] += 1
            if first.op_type == "MatMul" and first.input[1] in inits and \
                    len(inits[first.input[1]]) == 2:
                counts["MatmulBNFusion"] += 1
        if n.op_type in ("Add", "Mul"):
            for k in (0, 1):
                conv, other = ins[k], n.input[1 - k]
                if conv and conv.op_type == "Conv" and readers[n.input[k]] == 1 and \
                        n.input[k] not in outputs and other in inits and \
                        all(i in inits for i in conv.input[1:]) and \
                        len(inits[conv.input[1]]) == 4 and \
                        per_channel(inits[other], inits[conv.input[1]][0]):
                    counts["Conv" + n.op_type + "Fusion"] += 1
                    break
    return counts


def applied(stats_path):
    """graft's applied rewrites per fusion, from --stats=counts."""
    rules = {"conv_bn_fusion": "ConvBNFusion", "conv_bias_bn_fusion": "ConvBNFusion",
             "matmul_bn_fusion": "MatmulBNFusion"}
    counts = {"ConvBNFusion": 0, "ConvAddFusion": 0, "ConvMulFusion": 0, "MatmulBNFusion": 0}
    for line in open(stats_path):
        f = line.split()
        if len(f) >= 4 and f[3].isdigit():
            name = rules.get(f[0]) or ("ConvAddFusion" if "_add_" in f[0] else "ConvMulFusion")
            counts[name] += int(f[3])
    return counts


# ---- a float64 evaluator of the ops of these models ----

def conv(x, w, b, a):
    group = a.get("group", 1)
    strides = a.get("strides", [1, 1])
    dil = a.get("dilations", [1, 1])
    p = a.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    m, cg, kh, kw = w.shape
    win = sliding_window_view(x, ((kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1), axis=(2, 3))
    win = win[:, :, ::strides[0], ::strides[1], ::dil[0], ::dil[1]]
    mg = m // group
    ys = [np.einsum("nchwij,mcij->nmhw", win[:, k * cg:(k + 1) * cg], w[k * mg:(k + 1) * mg])
          for k in range(group)]
    y = np.concatenate(ys, axis=1)
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def batch_norm(x, sc, bi, mean, var, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    sc, bi, mean, var = (v.reshape(shape) for v in (sc, bi, mean, var))
    return sc * (x - mean) / np.sqrt(var + eps) + bi


def gemm(x, w, c, a):
    x = x.T if a.get("transA", 0) else x
    w = w.T if a.get("transB", 0) else w
    y = a.get("alpha", 1.0) * (x @ w)
    return y if c is None else y + a.get("beta", 1.0) * c


def run_node(node, ins, a):
    op = node.op_type
    opt = ins + [None] * 3
    if op == "Constant":
        return numpy_helper.to_array(a["value"]).astype(np.float64)
    if op == "Conv":
        return conv(ins[0], ins[1], opt[2], a)
    if op == "BatchNormalization":
        return batch_norm(*ins, a.get("epsilon", 1e-5))
    if op == "Gemm":
        return gemm(ins[0], ins[1], opt[2], a)
    if op == "Clip":
        lo = -np.inf if opt[1] is None else opt[1]
        return np.clip(ins[0], lo, np.inf if opt[2] is None else opt[2])
    if op == "GlobalAveragePool":
        return ins[0].mean(axis=(2, 3), keepdims=True)
    if op == "ReduceMean":
        return ins[0].mean(axis=tuple(a["axes"]), keepdims=bool(a.get("keepdims", 1)))
    if op == "Flatten":
        return ins[0].reshape(int(np.prod(ins[0].shape[:a.get("axis", 1)])), -1)
    if op == "Relu":
        return np.maximum(ins[0], 0)
    return {"Add": np.add, "Mul": np.multiply, "MatMul": np.matmul}[op](ins[0], ins[1])


def evaluate(model, feeds):
    env = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        a = {t.name: helper.get_attribute_value(t) for t in node.attribute}
        env[node.output[0]] = run_node(node, [env[i] if i else None for i in node.input], a)
    return [env[o.name] for o in model.graph.output]


def random_feeds(model):
    rng = np.random.default_rng(29)
    inits = {t.name for t in model.graph.initializer}
    return {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim])
            for i in model.graph.input if i.name not in inits}


def same_values(name, before, after):
    feeds = random_feeds(before)
    for k, (want, got) in enumerate(zip(evaluate(before, feeds), evaluate(after, feeds))):
        err = np.max(np.abs(want - got)) / max(np.max(np.abs(want)), 1e-30)
        check(err < 1e-5, f"{name}: output {k} differs by {err:g} (relative)")


def no_weight_arithmetic(name, model):
    """Every Conv and Gemm reads its weight and bias from initializers."""
    inits = {t.name for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type in ("Conv", "Gemm") and not all(i in inits for i in n.input[1:]):
            check(False, f"{name}: {n.op_type} {n.name} reads a weight a node computes")


names = sys.argv[3:]
for name in names:
    before = onnx.load(os.path.join(out, name + ".before.onnx"))
    after = onnx.load(os.path.join(out, name + ".onnx"))
    want, got = count_fusions(before), applied(os.path.join(out, name + ".stats"))
    check(want == got, f"{name}: fusions {got}, an independent count finds {want}")
    print(f"{name}: {sum(got.values())} fusions " +
          " ".join(f"{k}={v}" for k, v in sorted(got.items()) if v))
    same_values(name, before, after)
    no_weight_arithmetic(name, after)
    try:
        onnx.checker.check_model(after, full_check=True)
    except Exception as e:  # every checker failure, whatever its class
        failures.append(f"check_model({name}): {e}")
for f in failures:
    print("FAIL: " + f)
print(f"{len(names)} models fused and checked, {len(failures)} failures")
sys.exit(1 if failures else 0)
