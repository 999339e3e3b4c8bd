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

attention_pos.relay is written the other way (Dynamic): its input keeps
the batch and tokens free, Tensor[(?, ?, 16), float32], as the export left
them, so the shapes are computed in the module, with the ops TVM's
importer uses for a shape it does not know: Shape is shape_of(x,
dtype="int64"), Gather of a scalar index take(s, Ni64, axis=0), Unsqueeze
expand_dims, Concat concatenate, Reshape by a computed shape dyn.reshape,
and Slice by a computed end dyn.strided_slice (begin, end and strides over
every axis, as TVM's Slice scatters them).  Each ONNX node is a Relay call
of its own, as an importer writes it, before EliminateCommonSubexpr: the
shape read three times, dim 1 twice, is what multiroot.graft's
shape_share and take_share make once.  MatMul of two computed 4-D values
is nn.batch_matmul of both reshaped with newshape=[-3, -2] (the two
leading dims as one), reshaped back with [-4, -1, H, -2] (H the heads);
TVM's importer computes those shapes with more shape_of calls instead,
which are not written here (a simplification: the module is not TVM's
byte for byte).
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
    """TVM's saved NDArray: magic, reserved, CPU device, rank, dtype (float32,
    or int64 for a shape), dims, bytes."""
    head = struct.pack("<QQii", 0xDD5E40F096B4A13F, 0, 1, 0)
    wide = a.dtype == np.int64
    head += struct.pack("<iBBH", a.ndim, 0 if wide else 2, 64 if wide else 32, 1)
    dims = b"".join(struct.pack("<q", d) for d in a.shape)
    data = a.astype("<i8" if wide else "<f4").tobytes()
    return base64.b64encode(head + dims + struct.pack("<q", len(data)) + data).decode()


def ty(shape, dtype="float32"):
    return "Tensor[(%s), %s]" % (", ".join("?" if d is None else str(d) for d in shape), dtype)


def broadcast(a, b):
    """numpy's broadcast of two shapes, an unknown dim (None) unknown."""
    a, b = (1,) * (len(b) - len(a)) + tuple(a), (1,) * (len(a) - len(b)) + tuple(b)
    return tuple(y if x == 1 else x if y == 1 or x == y else None for x, y in zip(a, b))


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
            out = broadcast(s[0], s[1])
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


class Dynamic(Module):
    """The module of a model whose input keeps unknown dims (None): the
    shapes computed by Relay ops, each ONNX node a call of its own (the
    docstring above)."""

    def const(self, a):
        if a.dtype != np.int64:
            return super().const(a)
        self.consts.append(np.ascontiguousarray(a))
        return "meta[relay.Constant][%d] /* ty=%s */" % (len(self.consts) - 1,
                                                         ty(a.shape, "int64"))

    def value(self, name):
        if name in self.known and self.known[name].dtype == np.int64:
            a = self.known[name]
            if name not in self.expr:
                self.expr[name] = "%di64" % a if a.ndim == 0 else self.const(a)
                self.shape[name] = a.shape
            return self.expr[name]
        return super().value(name)

    def emit(self, text, shape):
        self.lines.append("  %%%d = %s;" % (len(self.lines), text))
        return "%%%d" % (len(self.lines) - 1), tuple(shape)

    def shape_node(self, n, a, v):
        """The shape computations, as Relay calls; None for another op."""
        op, s = n.op_type, [self.shape.get(i) for i in n.input]
        if op == "Shape":
            return self.emit('shape_of(%s, dtype="int64")' % v[0], (len(s[0]),))
        if op == "Gather":
            return self.emit("take(%s, %s, axis=%d)" % (v[0], v[1], a.get("axis", 0)), ())
        if op == "Unsqueeze":
            axes = [int(x) for x in self.known[n.input[1]]]
            return self.emit("expand_dims(%s, axis=%d)" % (v[0], axes[0]), (1,))
        if op == "Concat":
            return self.emit("concatenate((%s), axis=%d)" % (", ".join(v), a["axis"]),
                             (sum(x[0] for x in s),))
        return None

    def node(self, n):
        a = {t.name: onnx.helper.get_attribute_value(t) for t in n.attribute}
        op = n.op_type
        if op == "Constant":
            self.known[n.output[0]] = numpy_helper.to_array(a["value"])
            return
        if op not in ("Shape", "Gather", "Unsqueeze", "Concat", "Reshape", "Slice", "MatMul"):
            return super().node(n)
        if op == "MatMul" and n.input[1] in self.inits:
            return super().node(n)
        v = [self.value(i) for i in n.input if not (op == "Unsqueeze" and i == n.input[1])]
        r = self.shape_node(n, a, v)
        if op == "Reshape":
            r = self.emit("dyn.reshape(%s, %s, newshape=[])" % (v[0], v[1]),
                          self.reshaped(n.input[1]))
        elif op == "Slice":
            r = self.slice(n, v)
        elif op == "MatMul":
            r = self.batch_matmul(v, [self.shape[i] for i in n.input])
        self.expr[n.output[0]], self.shape[n.output[0]] = r

    def reshaped(self, name):
        """A computed shape's dims: those the Concat took from constants."""
        for m in self.g.node:
            if m.output[0] == name:
                return tuple(int(self.known[i][0]) if i in self.known else None
                             for i in m.input)
        raise KeyError(name)

    def slice(self, n, v):
        """Slice(data, starts, ends, axes=[0], steps) of a constant by a
        computed end: dyn.strided_slice over every axis, the other axes
        whole."""
        data = self.inits[n.input[0]]
        assert [int(x) for x in self.known[n.input[3]]] == [0]
        rest = np.array(data.shape[1:], dtype=np.int64)
        begin = self.const(np.zeros(data.ndim, dtype=np.int64))
        end, _ = self.emit("concatenate((%s, %s), axis=0)" % (v[2], self.const(rest)),
                           (data.ndim,))
        strides = self.const(np.ones(data.ndim, dtype=np.int64))
        return self.emit("dyn.strided_slice(%s, %s, %s, %s, begin=None, end=None, "
                         "strides=None, axes=None)" % (v[0], begin, end, strides),
                         (None,) + data.shape[1:])

    def batch_matmul(self, v, shapes):
        (sa, sb), heads = shapes, shapes[0][1]
        x, _ = self.emit("reshape(%s, newshape=[-3, -2])" % v[0], (None,) + sa[2:])
        y, _ = self.emit("reshape(%s, newshape=[-3, -2])" % v[1], (None,) + sb[2:])
        z, _ = self.emit("nn.batch_matmul(%s, %s)" % (x, y), (None, sa[2], sb[3]))
        return self.emit("reshape(%s, newshape=[-4, -1, %d, -2])" % (z, heads),
                         (sa[0], heads, sa[2], sb[3]))


DYNAMIC = {"attention_pos": (None, None, 16)}


def main():
    for name, shape in MODELS.items():
        model = onnx.load(os.path.join(HERE, "..", "onnx", name + ".onnx"))
        with open(os.path.join(HERE, name + ".relay"), "w") as f:
            f.write(Module(model, shape).text())
    for name, shape in DYNAMIC.items():
        model = onnx.load(os.path.join(HERE, "..", "onnx", name + ".onnx"))
        with open(os.path.join(HERE, name + ".relay"), "w") as f:
            f.write(Dynamic(model, shape).text())


main()
