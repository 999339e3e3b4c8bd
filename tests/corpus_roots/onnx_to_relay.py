"""onnx_to_relay.py - writes NAME.relay beside this file for each
tests/onnx/NAME.onnx of the transformers with separate projections
(README.md): the Relay module the same blocks give, since TVM, which would
import them, is not available here.  Needs python3-onnx and numpy only:

    /usr/bin/python3 tests/corpus_roots/onnx_to_relay.py

The input is given its example's shape (the export leaves batch and tokens
free) and every shape the graph computes (Shape, Gather, Unsqueeze, Concat,
Add and Mul of shapes) is computed here, as TVM's importer with the input shape known
and FoldConstant leaves it; the weights are bound, as relay.build binds
params, each a meta[relay.Constant] of the #[metadata] section (an NDArray
as TVM saves one).  One Relay op per ONNX op, in TVM's forms: MatMul by a
constant 2-D weight B is nn.dense by B transposed (TVM's dense reads
(units, in)); MatMul of two computed values is nn.batch_matmul of both
reshaped to 3-D, reshaped back; Conv is nn.conv2d, LayerNormalization
nn.layer_norm, Softmax nn.softmax, Transpose transpose, Reshape reshape,
Add, Mul, Div, Erf add, multiply, divide, erf; a scalar constant is a
literal.  A value is computed once however often it is read, as TVM's
EliminateCommonSubexpr leaves a module.
"""
import base64
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"attention_qkv": (1, 16, 64), "attention_gqa": (1, 16, 64),
          "attention_conv": (1, 32, 8, 8)}


def ndarray(a):
    """TVM's saved NDArray: magic, reserved, CPU device, rank, dtype, dims, bytes."""
    head = struct.pack("<QQii", 0xDD5E40F096B4A13F, 0, 1, 0)
    head += struct.pack("<iBBH", a.ndim, 2, 32, 1)
    dims = b"".join(struct.pack("<q", d) for d in a.shape)
    data = a.astype("<f4").tobytes()
    return base64.b64encode(head + dims + struct.pack("<q", len(data)) + data).decode()


def ty(shape):
    return "Tensor[(%s), float32]" % ", ".join(str(d) for d in shape)


def literal(v):
    return "%sf" % np.format_float_positional(np.float32(v), trim="-") \
        if np.float32(v) == np.float32(float(repr(float(np.float32(v))))) else repr(v)


class Module:
    def __init__(self, model, shape):
        self.g = model.graph
        self.inits = {t.name: numpy_helper.to_array(t) for t in self.g.initializer}
        self.lines, self.consts, self.known = [], [], {}
        self.expr, self.shape, self.made = {}, {}, {}
        name = self.g.input[0].name
        self.expr[name], self.shape[name] = "%" + name, tuple(shape)
        self.params = "%%%s: %s" % (name, ty(shape))

    def const(self, a):
        self.consts.append(np.ascontiguousarray(a, dtype=np.float32))
        i = len(self.consts) - 1
        return "meta[relay.Constant][%d] /* ty=%s */" % (i, ty(a.shape))

    def value(self, name):
        """The Relay text of an ONNX value (a weight as a constant)."""
        if name not in self.expr:
            a = self.known[name] if name in self.known else self.inits[name]
            self.expr[name] = literal(a) if a.ndim == 0 else self.const(a)
            self.shape[name] = a.shape
        return self.expr[name]

    def emit(self, text, shape):
        """%N = text, once per text."""
        if text not in self.made:
            self.made[text] = "%%%d" % len(self.lines)
            self.lines.append("  %s = %s;" % (self.made[text], text))
        return self.made[text], tuple(shape)

    def static(self, n, a):
        """Shapes the graph computes, computed here."""
        ins = [self.known[i] if i in self.known else self.inits.get(i) for i in n.input]
        if n.op_type == "Shape":
            return np.array(self.shape[n.input[0]], dtype=np.int64)
        if n.op_type == "Constant":
            return numpy_helper.to_array(a["value"])
        if n.op_type == "Gather":
            return np.take(ins[0], ins[1], axis=a.get("axis", 0))
        if n.op_type == "Unsqueeze":
            return np.expand_dims(ins[0], tuple(int(x) for x in ins[1]))
        if n.op_type == "Concat":
            return np.concatenate(ins, axis=a["axis"])
        return None

    def matmul(self, n):
        a, b = n.input
        sa = self.shape[a]
        if b in self.inits and self.inits[b].ndim == 2:
            w = self.inits[b].T
            return self.emit("nn.dense(%s, %s, units=%d)" % (self.value(a), self.const(w),
                                                              w.shape[0]), sa[:-1] + w.shape[:1])
        sb = self.shape[b]
        x, _ = self.emit("reshape(%s, newshape=[-1, %d, %d])" % (self.value(a), sa[-2], sa[-1]),
                         (-1, sa[-2], sa[-1]))
        y, _ = self.emit("reshape(%s, newshape=[-1, %d, %d])" % (self.value(b), sb[-2], sb[-1]),
                         (-1, sb[-2], sb[-1]))
        out = sa[:-1] + sb[-1:]
        z, _ = self.emit("nn.batch_matmul(%s, %s)" % (x, y), out)
        return self.emit("reshape(%s, newshape=%s)" % (z, list(out)), out)

    def node(self, n):
        a = {t.name: onnx.helper.get_attribute_value(t) for t in n.attribute}
        op = n.op_type
        if op in ("Shape", "Constant", "Gather", "Unsqueeze", "Concat") and (
                op != "Concat" or all(i in self.known or i in self.inits for i in n.input)):
            self.known[n.output[0]] = self.static(n, a)
            return
        if op in ("Add", "Mul") and all(i in self.known for i in n.input):  # g * t
            x, y = (self.known[i] for i in n.input)
            self.known[n.output[0]] = x + y if op == "Add" else x * y
            return
        v = [None if op in ("Reshape", "MatMul") and (i in self.inits or i in self.known)
             else self.value(i) for i in n.input]  # no constant for what is read here
        s = [self.shape.get(i) for i in n.input]
        if op == "Identity":
            self.expr[n.output[0]], self.shape[n.output[0]] = v[0], s[0]
            return
        if op == "MatMul":
            r = self.matmul(n)
        elif op == "Reshape":
            shape = [int(d) for d in self.known.get(n.input[1], self.inits.get(n.input[1]))]
            size, out = int(np.prod(s[0])), list(shape)
            if -1 in out:
                out[out.index(-1)] = size // -int(np.prod(out))
            r = self.emit("reshape(%s, newshape=%s)" % (v[0], shape), out)
        elif op == "Transpose":
            perm = list(a["perm"])
            r = self.emit("transpose(%s, axes=%s)" % (v[0], perm), [s[0][p] for p in perm])
        elif op in ("Add", "Mul", "Div"):
            f = {"Add": "add", "Mul": "multiply", "Div": "divide"}[op]
            out = np.broadcast_shapes(s[0], s[1])
            r = self.emit("%s(%s, %s)" % (f, v[0], v[1]), out)
        elif op == "Erf":
            r = self.emit("erf(%s)" % v[0], s[0])
        elif op == "Softmax":
            r = self.emit("nn.softmax(%s, axis=%d)" % (v[0], a.get("axis", -1)), s[0])
        elif op == "LayerNormalization":
            r = self.emit("nn.layer_norm(%s, %s, %s, epsilon=%s)"
                          % (v[0], v[1], v[2], literal(a.get("epsilon", 1e-5))), s[0])
        elif op == "Conv":
            w = self.inits[n.input[1]]
            assert len(n.input) == 2 and w.shape[2:] == (1, 1) and a.get("group", 1) == 1
            r = self.emit("nn.conv2d(%s, %s, padding=[0, 0, 0, 0], channels=%d, "
                          "kernel_size=[1, 1])" % (v[0], v[1], w.shape[0]),
                          (s[0][0], w.shape[0]) + tuple(s[0][2:]))
        else:
            sys.exit("onnx_to_relay.py: no Relay form for %s" % op)
        self.expr[n.output[0]], self.shape[n.output[0]] = r

    def text(self):
        for n in self.g.node:
            self.node(n)
        out = self.expr[self.g.output[0].name]
        nodes = [{"type_key": ""}, {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
                 {"type_key": "Array", "data": list(range(3, 3 + len(self.consts)))}]
        for i in range(len(self.consts)):
            nodes.append({"type_key": "relay.Constant",
                          "attrs": {"_checked_type_": "0", "data": str(i), "span": "0",
                                    "virtual_device_": "0"}})
        meta = {"root": 1, "nodes": nodes, "b64ndarrays": [ndarray(c) for c in self.consts],
                "attrs": {"tvm_version": "0.14.0"}}
        body = "\n".join(self.lines)
        return ('#[version = "0.0.5"]\ndef @main(%s) {\n%s\n  %s\n}\n#[metadata]\n%s\n'
                % (self.params, body, out, json.dumps(meta)))


def main():
    for name, shape in MODELS.items():
        model = onnx.load(os.path.join(HERE, "..", "onnx", name + ".onnx"))
        with open(os.path.join(HERE, name + ".relay"), "w") as f:
            f.write(Module(model, shape).text())


main()
