"""make_input.py - writes input.onnx, the ONNX case of
stdpatterns/onnx_fold_bn.graft (tests/std.sh; near_miss.txt says which
nodes each rule must leave alone).  Needs python3-onnx and numpy only:
    python3 make_input.py"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(28)
inits, nodes = [], []


def tensor(name, shape, positive=False):
    v = rng.standard_normal(shape).astype(np.float32)
    inits.append(numpy_helper.from_array(np.abs(v) + 0.5 if positive else v, name))
    return name


def conv_bn(k, bias, extra_user):
    """Conv k (with a bias or not) then a BatchNormalization; extra_user: a
    Relu reads the Conv's result too (the fold must not happen)."""
    ins = ["x", tensor(f"w{k}", (4, 3, 3, 3))] + ([tensor(f"b{k}", (4,))] if bias else [])
    nodes.append(helper.make_node("Conv", ins, [f"c{k}"], name=f"conv{k}", pads=[1, 1, 1, 1]))
    bn = [f"c{k}"] + [tensor(f"{p}{k}", (4,), p == "var") for p in ("scale", "shift", "mean", "var")]
    nodes.append(helper.make_node("BatchNormalization", bn, [f"y{k}"], name=f"bn{k}"))
    outs = [f"y{k}"]
    if extra_user:
        nodes.append(helper.make_node("Relu", [f"c{k}"], [f"r{k}"], name=f"relu{k}"))
        outs.append(f"r{k}")
    return outs


outputs = conv_bn(1, False, False) + conv_bn(2, True, False) + conv_bn(3, False, True) + \
    conv_bn(4, True, True)
graph = helper.make_graph(
    nodes, "onnx_fold_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, 4, 8, 8]) for o in outputs], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="tests/std/onnx_fold_bn/make_input.py")
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, "input.onnx")
