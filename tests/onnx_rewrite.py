"""onnx_rewrite.py DATA OUT - the checks of tests/onnx_rewrite.sh on the
models it had graft write into OUT (DATA: tests/onnx/)."""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

data, out = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def without(model, *graph_fields):
    """A copy of model without the given fields of its graph."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for f in graph_fields:
        m.graph.ClearField(f)
    return m


def one_node():
    """gap_to_reducemean.graft: node 220 of 223 becomes a ReduceMean
    reading and making the same values; nothing else changes."""
    before = onnx.load(os.path.join(data, "mobilenet_v2_op13.onnx"))
    after = onnx.load(os.path.join(out, "one_node.onnx"))
    check(without(before, "node") == without(after, "node"),
          "one_node: a field besides graph.node changed")
    check(len(before.graph.node) == len(after.graph.node), "one_node: node count changed")
    changed = [i for i, (a, b) in enumerate(zip(before.graph.node, after.graph.node)) if a != b]
    check(changed == [220], f"one_node: nodes {changed} changed, not [220]")
    old, new = before.graph.node[220], after.graph.node[220]
    check(old.op_type == "GlobalAveragePool" and new.op_type == "ReduceMean",
          f"one_node: {old.op_type} became {new.op_type}")
    check(list(old.input) == list(new.input) and list(old.output) == list(new.output),
          "one_node: the new node reads or makes other values")
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in new.attribute}
    # keepdims=1 is the schema's default: a new node leaves it out (note
    # [created attributes] in src/runtime/pattern.h)
    check(attrs == {"axes": [2, 3]}, f"one_node: attributes {attrs}")
    check(new.name not in {n.name for n in before.graph.node}, "one_node: the name is not fresh")


def folded(name):
    """onnx_fold_bn.graft on NAME: no BatchNormalization left, one Conv per
    Conv before, every model field but the graph's node, initializer and
    value_info lists as it was, every initializer kept byte for byte."""
    before = onnx.load(os.path.join(data, name + ".onnx"))
    after = onnx.load(os.path.join(out, "folded_" + name + ".onnx"))
    lists = ("node", "initializer", "value_info")
    check(without(before, *lists) == without(after, *lists),
          f"{name}: a field besides the graph's node lists changed")
    ops = [n.op_type for n in after.graph.node]
    check("BatchNormalization" not in ops, f"{name}: a BatchNormalization is left")
    check(ops.count("Conv") == [n.op_type for n in before.graph.node].count("Conv"),
          f"{name}: the Conv count changed")
    old = {t.name: t for t in before.graph.initializer}
    for t in after.graph.initializer:
        check(t.name not in old or t == old[t.name], f"{name}: initializer {t.name} changed")
    check(all(v in before.graph.value_info for v in after.graph.value_info),
          f"{name}: a value_info entry changed")


def conv(x, w, b, pads, strides):
    """Conv of NCHW x with OIHW w (group 1), as onnx/defs defines it."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, _, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh, ow = (h - kh) // strides[0] + 1, (wd - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), dtype=np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


def run_nodes(model, nodes, env):
    """Evaluates nodes in env (the ops of conv_bn.onnx, of its fold and of
    its partition, whose functions are called by name), in float64."""
    functions = {(f.domain, f.name): f for f in model.functions}
    for node in nodes:
        a = {t.name: onnx.helper.get_attribute_value(t) for t in node.attribute}
        ins = [env[i] if i else None for i in node.input]
        op = node.op_type
        if (node.domain, op) in functions:
            f = functions[(node.domain, op)]
            inner = dict(zip(f.input, ins))
            run_nodes(model, f.node, inner)
            y = [inner[o] for o in f.output]  # one value per output
        elif op == "Constant":
            y = numpy_helper.to_array(a["value"]).astype(np.float64)
        elif op == "Conv":
            y = conv(ins[0], ins[1], ins[2] if len(ins) > 2 else None,
                     a.get("pads", [0, 0, 0, 0]), a.get("strides", [1, 1]))
        elif op == "BatchNormalization":
            shape = (1, -1, 1, 1)
            sc, bi, mean, var = (v.reshape(shape) for v in ins[1:])
            y = sc * (ins[0] - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) + bi
        elif op == "Transpose":
            y = np.transpose(ins[0], a["perm"])
        elif op == "Sqrt":
            y = np.sqrt(ins[0])
        elif op == "Relu":
            y = np.maximum(ins[0], 0)
        elif op == "MatMul":
            y = ins[0] @ ins[1]
        elif op == "Concat":
            y = np.concatenate(ins, axis=a["axis"])
        elif op == "Split":  # opset 13 to 17 without split: even pieces, one per output
            y = np.split(ins[0], len(node.output), axis=a.get("axis", 0))
        elif op == "Shape":
            y = np.array(ins[0].shape[a.get("start", 0):a.get("end", None)], dtype=np.float64)
        elif op == "Gather":
            y = np.take(ins[0], ins[1].astype(np.int64), axis=a.get("axis", 0))
        else:
            y = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
                 "Div": np.divide}[op](ins[0], ins[1])
        for name, value in zip(node.output, y if isinstance(y, list) else [y]):
            env[name] = value


def evaluate(model, x):
    """The model's outputs for input x (a dict: for every input by name)."""
    env = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    env.update(x if isinstance(x, dict) else {model.graph.input[0].name: x})
    run_nodes(model, model.graph.node, env)
    return [env[o.name] for o in model.graph.output]


def partitioned(name, groups):
    """onnx_partition.graft on NAME: GROUPS calls of graft.conv_bn
    functions in the domain graft.composite (imported, IR version 8), no
    BatchNormalization left outside them, the rest of the model kept."""
    before = onnx.load(os.path.join(data, name + ".onnx"))
    after = onnx.load(os.path.join(out, "partitioned_" + name + ".onnx"))
    calls = [n for n in after.graph.node if n.domain == "graft.composite"]
    check(len(calls) == groups, f"{name}: {len(calls)} partitions, not {groups}")
    check(all(c.op_type.startswith("graft.conv_bn") for c in calls), f"{name}: a call's name")
    names = {(f.domain, f.name) for f in after.functions}
    check(all((c.domain, c.op_type) in names for c in calls), f"{name}: a call of no function")
    check(all([n.op_type for n in f.node] == ["Conv", "BatchNormalization"] and
              f.doc_string == "Conv_BatchNormalization_" for f in after.functions),
          f"{name}: a function is not Conv then BatchNormalization")
    check("BatchNormalization" not in [n.op_type for n in after.graph.node],
          f"{name}: a BatchNormalization is left outside")
    imports = [(o.domain, o.version) for o in after.opset_import]
    check(imports == [(o.domain, o.version) for o in before.opset_import] +
          [("graft.composite", 1)], f"{name}: opset imports {imports}")
    check(after.ir_version == max(before.ir_version, 8), f"{name}: IR version")
    lists = ("node", "initializer", "value_info")
    b, a = without(before, *lists), without(after, *lists)
    b.ClearField("opset_import")
    a.ClearField("opset_import")
    a.ClearField("functions")
    a.ir_version = b.ir_version
    check(a == b, f"{name}: a field besides the graph's lists and the functions changed")


def same_values(before_path, after_name):
    """The fold computes what the model computed, every output."""
    before = onnx.load(before_path)
    after = onnx.load(os.path.join(out, after_name))
    x = np.random.default_rng(28).standard_normal((1, 3, 8, 8))
    for k, (want, got) in enumerate(zip(evaluate(before, x), evaluate(after, x))):
        err = np.max(np.abs(want - got)) / np.max(np.abs(want))
        check(err < 1e-6, f"{after_name}: output {k} differs by {err:g} (relative)")


def merged():
    """stdpatterns/onnx/merge.graft on tests/std/onnx_merge/input.onnx
    (every rule fires there): 2 nodes fewer, every output the same."""
    before = onnx.load(os.path.join(data, "..", "std", "onnx_merge", "input.onnx"))
    after = onnx.load(os.path.join(out, "merged_std.onnx"))
    rng = np.random.default_rng(35)
    x = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim])
         for i in before.graph.input}
    check(len(before.graph.node) - len(after.graph.node) == 2,
          f"merged_std: {len(before.graph.node)} nodes became {len(after.graph.node)}")
    for k, (want, got) in enumerate(zip(evaluate(before, x), evaluate(after, x))):
        err = np.max(np.abs(want - got)) / max(np.max(np.abs(want)), 1)
        check(err < 1e-12, f"merged_std: output {k} differs by {err:g} (relative)")


def partitioned_roots():
    """tests/onnx/roots_partition.graft on tests/std/onnx_merge/input.onnx:
    the three projections of x and the two of h of equal shape become calls
    of graft.qkv (3 outputs) and graft.kv (2), each output the value of its
    root's MatMul (its old users read it), every model output the same."""
    before = onnx.load(os.path.join(data, "..", "std", "onnx_merge", "input.onnx"))
    after = onnx.load(os.path.join(out, "roots_partitioned.onnx"))
    calls = [(n.op_type, len(n.input), len(n.output)) for n in after.graph.node
             if n.domain == "graft.composite"]
    check(calls == [("graft.qkv", 1, 3), ("graft.kv", 1, 2)], f"roots_partition: calls {calls}")
    funcs = [(f.name, f.doc_string, [n.op_type for n in f.node if n.op_type != "Constant"],
              len(f.output)) for f in after.functions]
    check(funcs == [("graft.qkv", "MatMul_MatMul_MatMul_", ["MatMul"] * 3, 3),
                    ("graft.kv", "MatMul_MatMul_", ["MatMul"] * 2, 2)],
          f"roots_partition: functions {funcs}")
    matmuls = [n.name for n in after.graph.node if n.op_type == "MatMul"]
    check(matmuls == ["q2_proj", "x_by_w"], f"roots_partition: MatMuls left {matmuls}")
    rng = np.random.default_rng(35)
    x = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim])
         for i in before.graph.input}
    for k, (want, got) in enumerate(zip(evaluate(before, x), evaluate(after, x))):
        check(np.array_equal(want, got), f"roots_partition: output {k} differs")


def shared_partition():
    """tests/onnx/shared_partition.graft on shared_partition.onnxtxt: the
    batch norms of y0 and y1 (one eps) call one function, y2's (eps2) its
    own, whose inputs are named by position; every output the same (in
    float64, exactly: the same operations in the same order)."""
    before = onnx.load(os.path.join(out, "shared.onnx"))
    after = onnx.load(os.path.join(out, "shared_partitioned.onnx"))
    calls = [(n.op_type, n.output[0]) for n in after.graph.node if n.domain == "graft.composite"]
    check(calls == [("partition", "y0"), ("partition", "y1"), ("partition_1", "y2")],
          f"shared_partition: calls {calls}")
    funcs = [(f.name, list(f.input)) for f in after.functions]
    inputs = [f"FunctionVar_{k}" for k in range(5)]
    check(funcs == [("partition", inputs), ("partition_1", inputs)],
          f"shared_partition: functions {funcs}")
    rng = np.random.default_rng(19)
    x = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim])
         for i in before.graph.input}
    x.update({k: np.abs(v) for k, v in x.items() if k.startswith("var")})
    for k, (want, got) in enumerate(zip(evaluate(before, x), evaluate(after, x))):
        check(np.array_equal(want, got), f"shared_partition: output {k} differs")


one_node()
merged()
shared_partition()
partitioned_roots()
for model in ("conv_bn", "mobilenet_v2_op13", "mobilenet_v2_op17", "mnasnet_op13",
              "shufflenet_v2_op17"):
    folded(model)
same_values(os.path.join(data, "conv_bn.onnx"), "folded_conv_bn.onnx")
same_values(os.path.join(data, "conv_bn.onnx"), "partitioned_conv_bn.onnx")
partitioned("conv_bn", 1)
partitioned("mobilenet_v2_op13", 52)
same_values(os.path.join(data, "..", "std", "onnx_fold_bn", "input.onnx"), "folded_std.onnx")
written = sorted(f for f in os.listdir(out) if f.endswith(".onnx"))
for f in written:
    try:
        onnx.checker.check_model(onnx.load(os.path.join(out, f)), full_check=True)
    except Exception as e:  # every checker failure, whatever its class
        failures.append(f"check_model({f}): {e}")
for f in failures:
    print("FAIL: " + f)
print(f"{len(written)} models checked, {len(failures)} failures")
sys.exit(1 if failures else 0)
