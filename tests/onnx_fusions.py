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
    counts = {"ConvBNFusion": 0, "ConvAddFusion": 0, "ConvMulFusion": 0, "MatmulBNFusion": 0,
              "GemmBNFusion": 0, "ConvTransposeBNFusion": 0}
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
            beta = [a.f for a in first.attribute if a.name == "beta"]
            if first.op_type == "Gemm" and all(i in inits for i in first.input[1:]) and \
                    len(inits[first.input[1]]) == 2 and beta in ([], [1.0]):
                counts["GemmBNFusion"] += 1  # onnxscript's, for a beta of 1
            group = [a.i for a in first.attribute if a.name == "group"]
            if first.op_type == "ConvTranspose" and group in ([], [1]) and \
                    all(i in inits for i in first.input[1:]) and len(inits[first.input[1]]) == 4:
                counts["ConvTransposeBNFusion"] += 1  # onnxscript's
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
    counts["PadFusion"] = count_pad_fusions(g, inits, outputs, readers)
    return counts


def count_pad_fusions(g, inits, outputs, readers):
    """PadFusion as ONNX Runtime's pad_fusion.cc finds it (a Pad of mode
    constant, its pads and constant value initializers, the value 0, read
    by one node alone, no graph output; pads of N and C 0, none negative;
    the consumer a Conv or pool with auto_pad NOTSET and a pads attribute),
    with graft's two conditions more: no MaxPool, and an AveragePool only
    with count_include_pad=1 and ceil_mode=0 (stdpatterns/onnx/conv.graft
    says why; tests/verify_onnx/pad_wrong.graft refutes the others)."""
    values = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    count = 0
    for n in g.node:
        a = {t.name: helper.get_attribute_value(t) for t in n.attribute}
        if n.op_type != "Pad" or a.get("mode", b"constant") != b"constant" or \
                len(n.input) > 3 or n.input[1] not in inits or readers[n.output[0]] != 1 or \
                n.output[0] in outputs:
            continue
        if len(n.input) == 3 and n.input[2] and \
                (n.input[2] not in inits or values[n.input[2]].any()):
            continue
        pads = values[n.input[1]].tolist()
        half = len(pads) // 2
        if len(pads) != 8 or pads[0] or pads[1] or pads[half] or pads[half + 1] or \
                min(pads) < 0:
            continue
        (c,) = consumers[n.output[0]]
        ca = {t.name: helper.get_attribute_value(t) for t in c.attribute}
        if c.input[0] != n.output[0] or "pads" not in ca or \
                ca.get("auto_pad", b"NOTSET") != b"NOTSET" or len(c.output) > 1:
            continue
        if c.op_type == "Conv" or c.op_type == "AveragePool" and \
                ca.get("count_include_pad", 0) == 1 and ca.get("ceil_mode", 0) == 0:
            count += 1
    return count


def applied(stats_path):
    """graft's applied rewrites per fusion, from --stats=counts."""
    rules = {"conv_bn_fusion": "ConvBNFusion", "conv_bias_bn_fusion": "ConvBNFusion",
             "matmul_bn_fusion": "MatmulBNFusion"}
    counts = {"ConvBNFusion": 0, "ConvAddFusion": 0, "ConvMulFusion": 0, "MatmulBNFusion": 0,
              "GemmBNFusion": 0, "ConvTransposeBNFusion": 0, "PadFusion": 0}
    for line in open(stats_path):
        f = line.split()
        if len(f) >= 4 and f[3].isdigit():
            name = rules.get(f[0]) or ("PadFusion" if f[0].startswith("pad_") else
                                       "GemmBNFusion" if f[0].startswith("gemm_") else
                                       "ConvTransposeBNFusion" if f[0].startswith("conv_tr") else
                                       "ConvAddFusion" if "_add_" in f[0] else "ConvMulFusion")
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


def conv_transpose(x, w, b, a):
    """ConvTranspose of 1 x 1 kernels, stride 1, no pads, group 1 (the
    test models' only form: anything else fails here, not silently)."""
    assert w.shape[2:] == (1, 1) and a.get("group", 1) == 1 and \
        a.get("strides", [1, 1]) == [1, 1] and not any(a.get("pads", [])), a
    y = np.einsum("nchw,co->nohw", x, w[:, :, 0, 0])
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


def pad(x, pads, value, mode):
    """ONNX's Pad: negative pads crop, mode constant (value), reflect or edge."""
    r = x.ndim
    crop = tuple(slice(max(-pads[i], 0), x.shape[i] - max(-pads[i + r], 0)) for i in range(r))
    widths = [(max(pads[i], 0), max(pads[i + r], 0)) for i in range(r)]
    if mode == b"constant":
        return np.pad(x[crop], widths, constant_values=value)
    return np.pad(x[crop], widths, mode=mode.decode())


def pool(x, a, op):
    """MaxPool and AveragePool, 2-D, without dilations, ceil_mode 0: a
    MaxPool's padding ignored (-inf), an AveragePool's counted in the
    divisor only with count_include_pad=1."""
    kh, kw = a["kernel_shape"]
    sh, sw = a.get("strides", [1, 1])
    p = a.get("pads", [0, 0, 0, 0])
    widths = ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3]))

    def windows(v, fill):
        v = np.pad(v, widths, constant_values=fill)
        return sliding_window_view(v, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]
    if op == "MaxPool":
        return windows(x, -np.inf).max(axis=(4, 5))
    total = windows(x, 0).sum(axis=(4, 5))
    if a.get("count_include_pad", 0):
        return total / (kh * kw)
    return total / windows(np.ones_like(x), 0).sum(axis=(4, 5))


def run_node(node, ins, a):
    op = node.op_type
    opt = ins + [None] * 3
    if op == "Constant":
        return numpy_helper.to_array(a["value"]).astype(np.float64)
    if op == "Conv":
        return conv(ins[0], ins[1], opt[2], a)
    if op == "ConvTranspose":
        return conv_transpose(ins[0], ins[1], opt[2], a)
    if op == "Pad":
        value = 0 if opt[2] is None else opt[2]
        return pad(ins[0], [int(v) for v in ins[1]], value, a.get("mode", b"constant"))
    if op in ("MaxPool", "AveragePool"):
        return pool(ins[0], a, op)
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
        if want.shape != got.shape:
            check(False, f"{name}: output {k} has shape {got.shape}, not {want.shape}")
            continue
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
