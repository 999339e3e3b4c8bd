"""onnx_mlp.py OUT.onnx - the transformer MLP block bench/verify.sh times
graft run --verify on (ONNX's Gemm and MatMul through the evaluator's
matrix kernel, src/runtime/eval_onnx_nn.c): 256 tokens of width 768, a
Gemm to 3072 with a bias, Relu, a MatMul back to 768 (BERT-base's sizes,
1.2 G multiply-adds a product).  Weights from a fixed seed, so the file
is the same on every run."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
w1 = (rng.standard_normal((768, 3072)) / np.sqrt(768)).astype(np.float32)
w2 = (rng.standard_normal((3072, 768)) / np.sqrt(3072)).astype(np.float32)
inits = [numpy_helper.from_array(w1, "w1"),
         numpy_helper.from_array(np.zeros(3072, np.float32), "b1"),
         numpy_helper.from_array(w2, "w2")]
nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")]
graph = helper.make_graph(
    nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 768])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 768])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
