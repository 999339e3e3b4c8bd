"""make_input.py - writes input.onnx, the ONNX case of
stdpatterns/onnx/merge.graft (tests/std/onnx_merge/onnx_merge.golden;
near_miss.txt says which nodes each rule must leave alone).  Needs
python3-onnx and numpy only:
    python3 make_input.py"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(35)
inits, nodes = [], []


def tensor(name, shape, dtype=np.float32):
    inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(dtype), name))
    return name


def index(name, value):
    inits.append(numpy_helper.from_array(np.array(value, dtype=np.int64), name))
    return name


def node(op, ins, out, name, **attrs):
    outs = out if isinstance(out, list) else [out]
    nodes.append(helper.make_node(op, ins, outs, name=name, **attrs))
    return out


# yes: qkv_merge (an attention block with three projections)
q = node("MatMul", ["x", tensor("wq", (8, 8))], "q", "q_proj")
k = node("MatMul", ["x", tensor("wk", (8, 8))], "k", "k_proj")
v = node("MatMul", ["x", tensor("wv", (8, 8))], "v", "v_proj")
y = node("Add", [node("Mul", [q, k], "qk", "qk"), v], "y", "attn")
# yes: kv_merge (grouped-query: Q has 8 columns, K and V 4); no: qkv_merge
h = node("Relu", [y], "h", "relu")
q2 = node("MatMul", [h, tensor("wq2", (8, 8))], "q2", "q2_proj")
k2 = node("MatMul", [h, tensor("wk2", (8, 4))], "k2", "k2_proj")
v2 = node("MatMul", [h, tensor("wv2", (8, 4))], "v2", "v2_proj")
kv = node("Add", [k2, v2], "kv", "kv")
# no: kv_merge (w is an input, no initializer)
xw = node("MatMul", ["x", "w"], "xw", "x_by_w")
# yes: conv_merge; no: conv_merge with the 1x1 sibling
c1 = node("Conv", ["img", tensor("cw1", (4, 3, 3, 3))], "c1", "conv1", pads=[1, 1, 1, 1])
c2 = node("Conv", ["img", tensor("cw2", (4, 3, 3, 3))], "c2", "conv2", pads=[1, 1, 1, 1])
c3 = node("Conv", ["img", tensor("cw3", (4, 3, 1, 1))], "c3", "conv3")
conv = node("Add", [node("Add", [c1, c2], "c12", "c12"), c3], "conv", "conv")
# yes: shape_share, then gather_share (the index initializer i1 and a
# Constant node of the same value, as torch writes one per Gather);
# no: gather_share (index i0);
# no: shape_share (start=1)
g1 = node("Gather", [node("Shape", [conv], "s1", "shape1"), index("i1", 1)], "g1", "gather1")
i1c = node("Constant", [], "i1c", "index1",
           value=numpy_helper.from_array(np.array(1, dtype=np.int64)))
g2 = node("Gather", [node("Shape", [conv], "s2", "shape2"), i1c], "g2", "gather2")
g0 = node("Gather", ["s2", index("i0", 0)], "g0", "gather0")
shp = node("Add", [g1, g2], "shp", "shp")
s3 = node("Shape", [conv], "s3", "shape3", start=1)
# yes: split_concat; no: split_concat (the pieces in the other order)
node("Split", [q2], ["a", "b"], "split1", axis=1)
sc = node("Concat", ["a", "b"], "sc", "concat1", axis=1)
node("Split", [sc], ["c", "d"], "split2", axis=1)
rc = node("Concat", ["d", "c"], "rc", "concat2", axis=1)

f32 = TensorProto.FLOAT
i64 = TensorProto.INT64
graph = helper.make_graph(
    nodes, "merge",
    [helper.make_tensor_value_info("x", f32, [4, 8]),
     helper.make_tensor_value_info("w", f32, [8, 8]),
     helper.make_tensor_value_info("img", f32, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("rc", f32, [4, 8]),
     helper.make_tensor_value_info("kv", f32, [4, 4]),
     helper.make_tensor_value_info("xw", f32, [4, 8]),
     helper.make_tensor_value_info("shp", i64, []),
     helper.make_tensor_value_info("g0", i64, []),
     helper.make_tensor_value_info("s3", i64, [3])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="graft-tests")
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, "input.onnx")
