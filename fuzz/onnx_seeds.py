#!/usr/bin/python3
"""Writes the seed corpus of fuzz_onnx (fuzz/corpus/onnx/): small models
that use most of onnx.proto (initializers as raw_data and as typed data,
attributes of every kind, a subgraph, value_info, metadata, a local
function, a sparse initializer, training info).  Needs python3-onnx; run
from the source tree:  /usr/bin/python3 fuzz/onnx_seeds.py fuzz/corpus/onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else "."


def save(name, model):
    onnx.checker.check_model(model)
    with open(f"{OUT}/{name}.onnx", "wb") as f:
        f.write(model.SerializeToString())


def conv_bn():
    rng = np.random.default_rng(28)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    stats = [helper.make_tensor(n, TensorProto.FLOAT, [4], rng.random(4).tolist())
             for n in ("scale", "bias", "mean", "var")]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1],
                         strides=[1, 1], group=1, doc_string="a conv"),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"],
                         name="bn", epsilon=1e-5),
    ]
    graph = helper.make_graph(
        nodes, "conv_bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        [w] + stats,
        value_info=[helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 4, 8, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="graft-seeds", doc_string="conv and bn")
    helper.set_model_props(model, {"author": "graft", "license": "MIT"})
    return model


def if_subgraph():
    def branch(name, value):
        const = helper.make_node("Constant", [], [name + "_out"], name=name,
                                 value=helper.make_tensor("v", TensorProto.FLOAT, [1], [value]))
        return helper.make_graph([const], name, [], [
            helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, [1])])
    node = helper.make_node("If", ["cond"], ["y"], name="if",
                            then_branch=branch("then", 1.0), else_branch=branch("else", 0.0))
    graph = helper.make_graph(
        [node], "if",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def attributes():
    node = helper.make_node(
        "Custom", ["x"], ["y"], name="custom", domain="graft.test",
        f=1.5, i=-3, s="text", t=helper.make_tensor("t", TensorProto.INT64, [2], [1, -1]),
        floats=[1.0, 2.5], ints=[1, -2, 3], strings=["a", "b"],
        tensors=[helper.make_tensor("u", TensorProto.DOUBLE, [1], [2.0])])
    graph = helper.make_graph(
        [node], "attrs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
        sparse_initializer=[helper.make_sparse_tensor(
            helper.make_tensor("sv", TensorProto.FLOAT, [2], [1.0, 2.0]),
            helper.make_tensor("si", TensorProto.INT64, [2], [0, 3]), [4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("graft.test", 1)])


def local_function():
    fn = helper.make_function(
        "graft.local", "AddRelu", ["a", "b"], ["y"],
        [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
        [helper.make_opsetid("", 17)])
    node = helper.make_node("AddRelu", ["x", "x"], ["y"], name="call", domain="graft.local")
    graph = helper.make_graph(
        [node], "fn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, functions=[fn], opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("graft.local", 1)])
    model.training_info.add().algorithm.name = "step"
    return model


for name, make in [("conv_bn", conv_bn), ("if_subgraph", if_subgraph),
                   ("attributes", attributes), ("local_function", local_function)]:
    save(name, make())
