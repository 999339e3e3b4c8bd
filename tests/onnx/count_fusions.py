"""count_fusions.py - how many times each rule of the ONNX fusion library
(stdpatterns/onnx/: eliminate, activation, normalization, attention and
matmul, run in that order) applies to a model, counted independently of
graft: each fusion's pattern looked for in the ONNX graph with
python3-onnx, the shapes from onnx.shape_inference.

    python3 count_fusions.py MODEL.onnx     # prints "RULE COUNT" a line

tests/onnx_lib.sh compares the counts with graft run --stats=counts.
Where the library's order decides (GELU's Mul by 0.5 before
MatMulScaleFusion could take it, a LayerNorm before an RMS norm inside
it, a Skip fusion after its LayerNorm), the count says so: it counts
what the earlier fusion leaves.
"""
import math
import sys

import numpy
import onnx
from onnx import numpy_helper, shape_inference


class Graph:
    def __init__(self, model):
        self.model, self.prop_ranks = model, None  # rank_of's
        model = shape_inference.infer_shapes(model)
        g = model.graph
        self.nodes = list(g.node)
        self.fused = set()  # ids of nodes an earlier fusion took
        self.producer = {}
        self.users = {}
        for n in self.nodes:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                if i:
                    self.users.setdefault(i, []).append(n)
        for o in g.output:
            self.users.setdefault(o.name, []).append(None)  # a graph output is a reader
        self.consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        for n in self.nodes:
            if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.types = {}
        self.symbolic = {}  # dims with a symbolic dim named ("tokens"), as graft's '?'
        for v in list(g.input) + list(g.value_info) + list(g.output):
            tt = v.type.tensor_type
            if v.type.HasField("tensor_type") and tt.HasField("shape"):
                dims = tuple(d.dim_value if d.HasField("dim_value") else None
                             for d in tt.shape.dim)
                self.types[v.name] = (tt.elem_type, dims)
                self.symbolic[v.name] = tuple(
                    d.dim_value if d.HasField("dim_value") else
                    d.dim_param if d.HasField("dim_param") else None for d in tt.shape.dim)
            elif v.type.HasField("tensor_type"):
                self.types[v.name] = (tt.elem_type, None)  # dtype known, shape not
        for name, a in self.consts.items():
            self.types[name] = (onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], a.shape)

    def op(self, name, op_type):
        """The node making name when it is an op_type node, else None."""
        n = self.producer.get(name)
        return n if n is not None and n.op_type == op_type else None

    def nusers(self, name):
        return len(self.users.get(name, []))

    def number(self, name):
        """The value of a one-element constant, else None."""
        a = self.consts.get(name)
        return float(a.reshape(-1)[0]) if a is not None and a.size == 1 else None

    def near(self, name, value):
        v = self.number(name)
        return v is not None and abs(v - value) < 1e-5

    def shape(self, name):
        t = self.types.get(name)
        return tuple(t[1]) if t and t[1] is not None and None not in t[1] else None

    def rank(self, name):
        t = self.types.get(name)
        return len(t[1]) if t and t[1] is not None else None

    def dtype(self, name):
        t = self.types.get(name)
        return t[0] if t else None

    def same_shape(self, a, b):
        """Equal dims, a symbolic dim equal to the same symbol (graft's
        inference carries one '?' from operand to result alike)."""
        if self.shape(a) is not None:
            return self.shape(a) == self.shape(b)
        sa, sb = self.symbolic.get(a), self.symbolic.get(b)
        return sa is not None and None not in sa and sa == sb


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def operands(n):
    """The two operands of a commutative node, both orders."""
    return [(n.input[0], n.input[1]), (n.input[1], n.input[0])]


def inside(g, name, nodes):
    """Whether every reader of name is one of nodes."""
    return all(u is not None and any(u is m for m in nodes) for u in g.users.get(name, []))


# ---- eliminate.graft ----

def eliminate(g, c):
    for n in g.nodes:
        t = n.op_type
        if t == "Identity":
            c["eliminate_identity"] += 1
        elif t == "Dropout" and len(n.input) <= 2 and len(n.output) == 1:
            c["eliminate_dropout"] += 1
        elif t == "Slice" and len(n.input) in (3, 4) and g.same_shape(n.output[0], n.input[0]):
            c["eliminate_slice"] += 1
        elif t == "Expand" and g.same_shape(n.output[0], n.input[0]):
            c["eliminate_expand"] += 1
        elif t == "Cast" and attr(n, "to") == g.dtype(n.input[0]):
            c["eliminate_cast"] += 1
        elif t == "Cast" and g.op(n.input[0], "Cast") is not None and \
                g.nusers(n.input[0]) == 1 and \
                (g.dtype(g.producer[n.input[0]].input[0]), attr(g.producer[n.input[0]], "to")) \
                in ((10, 1), (10, 11), (16, 1), (16, 11), (1, 11)):
            c["cast_cast"] += 1  # float16, bfloat16 to float, double; float to double
        elif t in ("Add", "Sub", "Mul", "Div") and noop(g, n):
            c["eliminate_noop"] += 1
        elif t == "Reshape" and g.same_shape(n.output[0], n.input[0]):
            c["eliminate_reshape"] += 1
        elif t == "Reshape" and g.op(n.input[1], "Concat") is not None and \
                g.shape(n.output[0]) is not None:
            c["reshape_fusion"] += 1
        elif t == "Unsqueeze" and all(i in g.consts for i in n.input):
            c["eliminate_unsqueeze"] += 1
        elif t == "Transpose" and attr(n, "perm") is not None and \
                list(attr(n, "perm")) == list(range(len(attr(n, "perm")))) and \
                2 <= len(attr(n, "perm")) <= 5:
            c["eliminate_transpose_identity"] += 1
        elif t == "Reshape" and g.op(n.input[0], "Reshape") is not None and \
                g.nusers(n.input[0]) == 1 and g.shape(n.output[0]) is not None and \
                not g.same_shape(n.output[0], g.producer[n.input[0]].input[0]):
            c["reshape_reshape"] += 1
        elif t == "Unsqueeze" and g.op(n.input[0], "Unsqueeze") is not None and \
                g.nusers(n.input[0]) == 1 and len(n.input) == 2 and \
                len(g.producer[n.input[0]].input) == 2:
            a, b = g.number(g.producer[n.input[0]].input[1]), g.number(n.input[1])
            if a is not None and b is not None and 0 <= a < b:
                c["unsqueeze_unsqueeze"] += 1
            elif a is not None and b is not None and 0 <= b <= a:
                c["unsqueeze_unsqueeze_before"] += 1
        elif t == "Reshape" and g.op(n.input[0], "Squeeze") is not None and \
                len(g.producer[n.input[0]].input) == 1 and g.nusers(n.input[0]) == 1 and \
                g.rank(g.producer[n.input[0]].input[0]) == 1 and g.number(n.input[1]) == -1:
            c["squeeze_reshape_1d"] += 1
        elif t == "Transpose" and g.op(n.input[0], "Transpose") is not None:
            p1 = attr(g.producer[n.input[0]], "perm")
            p2 = attr(n, "perm")
            if p1 and p2 and len(p1) == len(p2) and all(p1[p2[i]] == i for i in range(len(p2))):
                c["eliminate_transpose_pair"] += 1


def halves(g, first, second):
    """Whether Slices first and second take [0, h) and [h, 2h) of their
    input's last axis, 2h its last dim (slice_split)."""
    if first.input[0] != second.input[0] or len(first.input) != 4 or len(second.input) != 4:
        return False
    v = [g.number(i) for i in first.input[1:] + second.input[1:]]
    rank, shape = g.rank(first.input[0]), g.shape(first.input[0])
    if None in v or rank is None or shape is None:
        return False
    b0, e0, ax, b1, e1, ax1 = v
    return ax == ax1 and ax in (-1, rank - 1) and b0 == 0 and e0 == b1 and \
        e1 == 2 * b1 == shape[-1]


def slice_splits(g, c):
    slices = [n for n in g.nodes if n.op_type == "Slice"]
    taken = set()
    for s0 in slices:
        for s1 in slices:
            if id(s0) not in taken and id(s1) not in taken and s0 is not s1 and \
                    halves(g, s0, s1):
                taken.update((id(s0), id(s1)))
                c["slice_split"] += 1


def keeps_shape(g, out, a, b):
    """Whether out = a + b has a's shape: the shapes say so, or b is one
    vector as long as a's last dim (numpy's broadcast then leaves a as it
    is, whatever a's other dims, unknown where shape inference lost them;
    a MatMul by an initializer has that initializer's last dim)."""
    if g.same_shape(out, a):
        return True
    t = g.types.get(a)
    last = t[1][-1] if t is not None and t[1] else None
    mm = g.op(a, "MatMul")
    if last is None and mm is not None and mm.input[1] in g.consts:  # (..., K) @ (K, N)
        last = g.consts[mm.input[1]].shape[-1]
    return g.rank(b) == 1 and last is not None and last == g.types[b][1][0]


def noop(g, n):
    unit = 0 if n.op_type in ("Add", "Sub") else 1
    pairs = operands(n) if n.op_type in ("Add", "Mul") else [(n.input[0], n.input[1])]
    return any(g.number(k) == unit and g.same_shape(n.output[0], x)
               and g.dtype(n.output[0]) == g.dtype(x) for x, k in pairs)


# ---- activation.graft ----

def gelu_root(g, add, x):
    """The root Mul of x * add * 0.5 in its three spellings, or None."""
    for m1 in g.users.get(add, []):
        if m1 is None or m1.op_type != "Mul":
            continue
        (o,) = [i for i in m1.input if i != add] or [add]
        if o == x:
            for m2 in g.users.get(m1.output[0], []):
                if m2 is not None and m2.op_type == "Mul" and any(
                        a == m1.output[0] and g.number(k) == 0.5 for a, k in operands(m2)):
                    return m2, [m1]
        half = g.op(o, "Mul")
        if half is not None and any(a == x and g.number(k) == 0.5 for a, k in operands(half)):
            return m1, [half]
        if g.number(o) == 0.5:
            for m2 in g.users.get(m1.output[0], []):
                if m2 is not None and m2.op_type == "Mul" and x in m2.input:
                    return m2, [m1]
    return None, None


def plus_one(g, name):
    """The Add node making name + 1 (either order), or None."""
    for u in g.users.get(name, []):
        if u is not None and u.op_type == "Add" and any(
                a == name and g.number(k) == 1 for a, k in operands(u)):
            return u
    return None


def gelus(g, c):
    """Each GELU (erf and tanh forms): its root and x, counted by form."""
    found = []
    for n in g.nodes:
        if n.op_type == "Erf":
            arg = g.producer.get(n.input[0])
            form = None
            if arg is not None and arg.op_type == "Div" and g.near(arg.input[1], math.sqrt(2)):
                form, x = "gelu_erf_div", arg.input[0]
            elif arg is not None and arg.op_type == "Mul":
                for a, k in operands(arg):
                    if g.near(k, 1 / math.sqrt(2)):
                        form, x = "gelu_erf_mul", a
            add = plus_one(g, n.output[0]) if form else None
            root, inner = gelu_root(g, add.output[0], x) if add is not None else (None, None)
            if root is not None and inside(g, n.output[0], [add]) and \
                    inside(g, arg.output[0], [n]) and inside(g, add.output[0], [root] + inner):
                found.append((form, root, x, [arg, n, add] + inner))
        elif n.op_type == "Tanh":
            r = fast_gelu(g, n)
            if r is not None:
                found.append(r)
    for form, root, x, inner in found:
        c[form] += 1
        bias = g.op(x, "Add")
        if bias is not None and inside(g, x, inner + [root]) and any(
                g.rank(b) == 1 and b in g.consts and keeps_shape(g, x, a, b)
                for a, b in operands(bias)):
            c["bias_gelu" if form.startswith("gelu") else "fast_gelu_bias"] += 1
            g.fused.add(id(bias))
    return [r for _, r, _, _ in found]


def fast_gelu(g, tanh):
    """(form, root, x, inner nodes) of 0.5 x (1 + tanh(k (x + p x^3))), or None."""
    ki = g.op(tanh.input[0], "Mul")
    for k, inner_name in operands(ki) if ki is not None else []:
        inner = g.op(inner_name, "Add")
        if not g.near(k, 0.7978846) or inner is None:
            continue
        for x, pc_name in operands(inner):
            pc = g.op(pc_name, "Mul")
            for p, cube in operands(pc) if pc is not None else []:
                cubed = cube_nodes(g, cube, x)
                if g.near(p, 0.044715) and cubed:
                    add = plus_one(g, tanh.output[0])
                    root, extra = gelu_root(g, add.output[0], x) if add is not None else (None, [])
                    if root is not None:
                        return "fast_gelu", root, x, [ki, inner, pc, tanh, add] + extra + cubed
    return None


def cube_nodes(g, name, x):
    """The nodes making name = x^3 (Pow 3, or x * (x * x) either way), or []."""
    pw = g.op(name, "Pow")
    if pw is not None:
        return [pw] if pw.input[0] == x and g.number(pw.input[1]) == 3 else []
    m = g.op(name, "Mul")
    for s in [g.op(o, "Mul") for o in m.input] if m is not None else []:
        if s is not None and list(s.input) == [x, x] and x in m.input:
            return [m, s]
    return []


def bounds_meet(g, lo1, hi1, lo2, hi2):
    """Whether four one-element constants bound two ranges that meet."""
    v = [g.number(b) for b in (lo1, hi1, lo2, hi2)]
    return None not in v and v[0] <= v[1] and v[2] <= v[3] and v[0] <= v[3] and v[2] <= v[1]


def rank0(g, name):
    return name in g.consts and g.consts[name].ndim == 0


def min_max(g, n, src, c):
    """onnxscript's Min/Max pairs by constants (_min_max_to_clip.py)."""
    if len(n.input) != 2 or len(src.input) != 2:
        return
    a, b = src.input[1], n.input[1]
    if (n.op_type, src.op_type) in (("Min", "Min"), ("Max", "Max")) and \
            a in g.consts and b in g.consts:
        c["fuse_min_min" if n.op_type == "Min" else "fuse_max_max"] += 1
    elif n.op_type == "Min" and src.op_type == "Max" and rank0(g, a) and rank0(g, b):
        c["min_max_clip"] += 1
    elif n.op_type == "Max" and src.op_type == "Min" and rank0(g, a) and rank0(g, b) and \
            g.number(b) <= g.number(a):
        c["max_min_clip"] += 1


def activations(g, c):
    for n in g.nodes:
        src = g.producer.get(n.input[0]) if n.input else None
        if n.op_type == "Relu" and src is not None and src.op_type == "Relu":
            c["fuse_relu_relu"] += 1  # whoever else reads the inner one
        if src is None or g.nusers(src.output[0]) != 1:
            continue
        if n.op_type == "Clip" and src.op_type == "Clip" and len(n.input) == 3 and \
                len(src.input) == 3 and bounds_meet(g, *src.input[1:], *n.input[1:]):
            c["fuse_clip_clip"] += 1
        if n.op_type in ("Min", "Max") and src.op_type in ("Min", "Max"):
            min_max(g, n, src, c)
        if n.op_type == "Clip" and src.op_type == "Relu" and len(n.input) == 3 and \
                (g.number(n.input[1]) or 0) >= 0 and g.number(n.input[1]) is not None:
            c["fuse_relu_clip"] += 1
        if n.op_type == "Relu" and src.op_type == "Clip" and len(src.input) == 3 and \
                g.number(src.input[1]) is not None and g.number(src.input[1]) >= 0 and \
                g.number(src.input[2]) is not None and g.number(src.input[2]) >= 0:
            c["fuse_clip_relu"] += 1
        if src.op_type == "Conv" and len(src.input) == 3 and g.dtype(src.output[0]) == 1:
            act = {"Relu": "conv_relu", "Sigmoid": "conv_sigmoid", "Tanh": "conv_tanh",
                   "LeakyRelu": "conv_leaky_relu"}.get(n.op_type)
            if n.op_type == "Clip" and len(n.input) == 3 and g.number(n.input[1]) is not None \
                    and g.number(n.input[2]) is not None:
                act = "conv_clip"
            if act:
                c[act] += 1


# ---- normalization.graft ----

def variance_of(g, name, x):
    """Whether name is ReduceMean(Pow(x, 2) | x * x, axes=[-1]) + eps (Add)."""
    add = g.op(name, "Add")
    for v, eps in operands(add) if add is not None else []:
        rm = g.op(v, "ReduceMean")
        if rm is None or g.number(eps) is None or list(attr(rm, "axes", [])) != [-1]:
            continue
        sq = g.producer.get(rm.input[0])
        if sq is not None and (sq.op_type == "Pow" and sq.input[0] == x and
                               g.number(sq.input[1]) == 2 or
                               sq.op_type == "Mul" and list(sq.input) == [x, x]):
            return True
    return False


def scaled(g, name):
    """The Mul by a rank-1 weight reading name: (node, weight), or (None, None)."""
    for u in g.users.get(name, []):
        if u is not None and u.op_type == "Mul":
            for a, w in operands(u):
                if a == name and g.rank(w) == 1:
                    return u, w
    return None, None


def layer_norms(g):
    """(x, root) of each decomposed LayerNorm, and of each LayerNormalization node."""
    found = []
    for n in g.nodes:
        if n.op_type == "LayerNormalization" and attr(n, "axis", -1) == -1:
            found.append((n.input[0], n, [n]))
        if n.op_type != "Sub" or g.op(n.input[1], "ReduceMean") is None:
            continue
        mean = g.producer[n.input[1]]
        x, d = n.input[0], n.output[0]
        if mean.input[0] != x or list(attr(mean, "axes", [])) != [-1]:
            continue
        for div in g.users.get(d, []):
            sq = g.op(div.input[1], "Sqrt") if div is not None and div.op_type == "Div" else None
            if sq is None or div.input[0] != d or not variance_of(g, sq.input[0], d):
                continue
            mul, _ = scaled(g, div.output[0])
            for add in g.users.get(mul.output[0], []) if mul is not None else []:
                if add is not None and add.op_type == "Add" and any(
                        a == mul.output[0] and g.rank(b) == 1 for a, b in operands(add)) and \
                        g.same_shape(add.output[0], x):
                    found.append((x, add, [mean, n]))
    return found


def rms_norms(g, ln_centered):
    found = []
    for n in g.nodes:
        if n.op_type == "Sqrt":
            for u in g.users.get(n.output[0], []):
                x = None
                if u is not None and u.op_type == "Div" and u.input[1] == n.output[0]:
                    x, norm = u.input[0], u
                elif u is not None and u.op_type == "Reciprocal":
                    for m in g.users.get(u.output[0], []):
                        if m is not None and m.op_type == "Mul":
                            x = [a for a in m.input if a != u.output[0]][0]
                            norm = m
                if x is None or x in ln_centered or not variance_of(g, n.input[0], x):
                    continue
                mul, _ = scaled(g, norm.output[0])
                if mul is not None and g.same_shape(mul.output[0], x):
                    found.append(x)
    return found


def skip_of(g, x, inner):
    """For a norm of x: "bias" for (a + (m + bias)), "plain" for (a + b), else None."""
    s = g.op(x, "Add")
    if s is None or not inside(g, x, inner):
        return None
    for a, t in operands(s):
        tn = g.op(t, "Add")
        if tn is not None and g.nusers(t) == 1 and g.rank(a) == 3 and any(
                g.rank(b) == 1 and b in g.consts and g.same_shape(a, m) for m, b in operands(tn)):
            g.fused.add(id(tn))
            return "bias"
    a, b = s.input
    return "plain" if g.rank(a) == 3 and g.same_shape(a, b) else None


def normalization(g, c):
    lns = layer_norms(g)
    for x, root, inner in lns:
        if root.op_type != "LayerNormalization":
            c["layer_norm"] += 1
        readers = inner if root.op_type != "LayerNormalization" else [root]
        kind = skip_of(g, x, readers)
        if kind:
            c["skip_layer_norm_bias" if kind == "bias" else "skip_layer_norm"] += 1
    centered = {inner[1].output[0] for _, root, inner in lns if len(inner) == 2}
    for x in rms_norms(g, centered):
        c["rms_norm"] += 1
        if skip_of(g, x, [u for u in g.users.get(x, []) if u is not None]) == "plain":
            c["skip_rms_norm"] += 1


# ---- attention.graft ----

def attention(g, c):
    for n in g.nodes:
        add = g.op(n.input[0], "Add") if n.op_type == "Softmax" else None
        if add is None or attr(n, "axis", -1) != -1:
            continue
        for x, b in operands(add):
            sx, sb = g.shape(x), g.shape(b)
            if sx is None or sb is None or len(sb) != len(sx) or \
                    not g.same_shape(add.output[0], x) or len(sx) not in (3, 4):
                continue
            if sb[0] == 1 and sb[2:] == sx[2:] and (len(sx) == 4 or sb[1] == sx[1]):
                c["bias_softmax"] += 1
                break


def ints(g, name):
    """The int64 value of a shape computation (constants, Shape of a known
    shape, Gather, Add, Sub, Mul, Div), evaluated here, else None."""
    if name in g.consts:
        return g.consts[name].astype("int64").reshape(-1)
    n = g.producer.get(name)
    if n is None:
        return None
    if n.op_type == "Shape":
        shape = g.shape(n.input[0])
        return None if shape is None else numpy.array(shape, dtype="int64")
    vals = [ints(g, i) for i in n.input]
    if any(v is None for v in vals):
        return None
    if n.op_type == "Gather" and attr(n, "axis", 0) == 0:
        return vals[0][vals[1]]
    ops = {"Add": numpy.add, "Sub": numpy.subtract, "Mul": numpy.multiply,
           "Div": numpy.floor_divide}
    return ops[n.op_type](vals[0], vals[1]) if n.op_type in ops else None


def head_of(g, name, perm):
    """The Slice of torch's packed projection under Transpose(Reshape(...)):
    (slice, reshape) when name is such a head, else None."""
    tr = g.op(name, "Transpose")
    rs = g.op(tr.input[0], "Reshape") if tr is not None else None
    sl = g.op(rs.input[0], "Slice") if rs is not None else None
    if sl is None or list(attr(tr, "perm", [])) != perm or len(sl.input) != 4:
        return None
    return sl, rs


def attention_block(g, root):
    """The nodes of torch's self-attention ending at Reshape root
    (stdpatterns/onnx/attention.graft's attention_fusion): softmax(Q K^T / s)
    V, transposed back, of three heads sliced from one Add(MatMul(
    Transpose(x), W), b) along its last axis at [0, D), [D, 2 D), [2 D, 3 D)
    (the bounds evaluated here from the Shape arithmetic), batch 1, W
    (D, 3 D), the heads reshaped alike to (S, B N, D / N).  None when root
    is not such a block."""
    tr4 = g.op(root.input[0], "Transpose")
    pv = g.op(tr4.input[0], "MatMul") if tr4 is not None else None
    if pv is None or list(attr(tr4, "perm", [])) != [1, 0, 2]:
        return None
    sm = g.op(pv.input[0], "Softmax")
    qk = g.op(sm.input[0], "MatMul") if sm is not None and attr(sm, "axis", -1) == -1 else None
    div = g.op(qk.input[0], "Div") if qk is not None else None
    heads = [head_of(g, div.input[0], [1, 0, 2]) if div is not None else None,
             head_of(g, qk.input[1], [1, 2, 0]) if qk is not None else None,
             head_of(g, pv.input[1], [1, 0, 2])]
    if None in heads or g.number(div.input[1]) is None or div.input[1] not in g.consts:
        return None
    a = heads[0][0].input[0]
    add = g.op(a, "Add")
    mm, b = next(((g.op(m, "MatMul"), b) for m, b in operands(add)
                  if g.op(m, "MatMul") is not None and b in g.consts), (None, None)) \
        if add is not None else (None, None)
    tr0 = g.op(mm.input[0], "Transpose") if mm is not None else None
    if tr0 is None or list(attr(tr0, "perm", [])) != [1, 0, 2] or mm.input[1] not in g.consts:
        return None
    x = tr0.input[0]
    sx, shape_q = g.shape(x), g.shape(heads[0][1].output[0])
    if sx is None or len(sx) != 3 or sx[0] != 1 or shape_q is None or len(shape_q) != 3 or \
            g.shape(mm.input[1]) != (sx[2], 3 * sx[2]) or g.rank(b) != 1:
        return None
    d = sx[2]
    for k, (sl, rs) in enumerate(heads):
        bounds = [ints(g, i) for i in sl.input[1:]]
        if sl.input[0] != a or any(v is None or v.size != 1 for v in bounds) or \
                [int(v[0]) for v in bounds] != [k * d, (k + 1) * d, -1] or \
                g.shape(rs.output[0]) != shape_q:
            return None
    if shape_q[0] != sx[1] or shape_q[1] * shape_q[2] != d:
        return None
    return [root, tr4, pv, sm, qk, div, tr0, mm, add] + [n for h in heads for n in h]


def projection(g, name):
    """(x, W, b, nodes) when name is Add(MatMul(x, W), b) (either order of
    the Add), W a 2-D and b a 1-D initializer, else None."""
    add = g.op(name, "Add")
    for m, b in operands(add) if add is not None else []:
        mm = g.op(m, "MatMul")
        if mm is not None and mm.input[1] in g.consts and b in g.consts and \
                g.rank(mm.input[1]) == 2 and g.rank(b) == 1:
            return mm.input[0], mm.input[1], b, [add, mm]
    return None


def scores(g, name):
    """(q, k, v, s, nodes) when name is MatMul(Softmax(Div(MatMul(q, k),
    s), axis=-1), v), s a one-element constant, else None."""
    pv = g.op(name, "MatMul")
    sm = g.op(pv.input[0], "Softmax") if pv is not None else None
    div = g.op(sm.input[0], "Div") if sm is not None and attr(sm, "axis", -1) == -1 else None
    qk = g.op(div.input[0], "MatMul") if div is not None else None
    if qk is None or g.number(div.input[1]) is None:
        return None
    return qk.input[0], qk.input[1], pv.input[1], div.input[1], [pv, sm, div, qk]


def heads_view(g, name, perm):
    """(projection, reshape, nodes) when name is Transpose(Reshape(p),
    perm) of a projection p, else None."""
    tr = g.op(name, "Transpose")
    rs = g.op(tr.input[0], "Reshape") if tr is not None else None
    p = projection(g, rs.input[0]) if rs is not None else None
    if p is None or list(attr(tr, "perm", [])) != perm:
        return None
    return p, rs, [tr, rs] + p[3]


def same_projections(g, views):
    """Whether Q, K and V project one x by weights and biases of one shape."""
    (x, w, b, _), rest = views[0][0], [v[0] for v in views[1:]]
    return all(p[0] == x and g.shape(p[1]) == g.shape(w) and g.shape(p[2]) == g.shape(b)
               for p in rest)


def bert_block(g, root):
    """The nodes of ONNX Runtime's BERT attention ending at Reshape root
    (attention.graft's attention_fusion_bert): softmax(Q K^T / s) V
    transposed back by (0, 2, 1, 3), Q, K and V projections of one x of
    known dims (B, S, ...) viewed as (B, S, N, H) with N H the projections'
    width, transposed by (0, 2, 1, 3), K by (0, 2, 3, 1); root (B, S,
    N H).  None when root is not one."""
    tr = g.op(root.input[0], "Transpose")
    sc = scores(g, tr.input[0]) if tr is not None else None
    if sc is None or list(attr(tr, "perm", [])) != [0, 2, 1, 3]:
        return None
    views = [heads_view(g, sc[0], [0, 2, 1, 3]), heads_view(g, sc[1], [0, 2, 3, 1]),
             heads_view(g, sc[2], [0, 2, 1, 3])]
    if None in views or not same_projections(g, views):
        return None
    x, w = views[0][0][0], views[0][0][1]
    sx, sq, width = g.shape(x), g.shape(views[0][1].output[0]), g.shape(w)[1]
    if sx is None or len(sx) != 3 or sq is None or len(sq) != 4 or \
            sq[:2] != sx[:2] or sq[2] * sq[3] != width or g.shape(views[0][0][2]) != (width,) or \
            any(g.shape(v[1].output[0]) != sq for v in views) or \
            g.shape(root.output[0]) != (sx[0], sx[1], width):
        return None
    return [root, tr] + sc[4] + [n for v in views for n in v[2]]


def dim_of(g, name):
    """(x, i, nodes) when name is Unsqueeze(Gather(Shape(x), i)) of a
    scalar index i, else None."""
    un = g.op(name, "Unsqueeze")
    ga = g.op(un.input[0], "Gather") if un is not None else None
    sh = g.op(ga.input[0], "Shape") if ga is not None else None
    if sh is None or attr(ga, "axis", 0) != 0 or g.number(ga.input[1]) is None or \
            g.rank(ga.input[1]) != 0 or attr(sh, "start") is not None or attr(sh, "end") is not None:
        return None
    return sh.input[0], int(g.number(ga.input[1])), [un]


def view_shape(g, name, x):
    """The view of a Reshape's shape input name, Concat of x's dims and
    one-element constants: a list of "b", "t" (x's dims 0 and 1) and
    numbers, else None."""
    cat = g.op(name, "Concat")
    if cat is None or attr(cat, "axis") != 0:
        return None
    out = []
    for i in cat.input:
        d = dim_of(g, i)
        if d is not None and d[0] == x and d[1] in (0, 1):
            out.append("bt"[d[1]])
        elif g.number(i) is not None and g.rank(i) == 1:
            out.append(int(g.number(i)))
        else:
            return None
    return out


def rank_of(g, name):
    """name's rank; where onnx.shape_inference lost it (after a Reshape of
    computed shape, which it evaluates only with data propagation), the
    rank that inference with data_prop=True gives."""
    if g.rank(name) is not None:
        return g.rank(name)
    if g.prop_ranks is None:
        model = shape_inference.infer_shapes(g.model, data_prop=True)
        g.prop_ranks = {v.name: len(v.type.tensor_type.shape.dim)
                        for v in model.graph.value_info
                        if v.type.tensor_type.HasField("shape")}
    return g.prop_ranks.get(name)


def qkv_block(g, root):
    """The nodes of the dynamic export of separate projections with one
    query head per K/V head ending at Reshape root (attention.graft's
    attention_fusion_qkv): Q viewed as [b, t, N, 1, H], transposed by
    (0, 2, 3, 1, 4), viewed as [b, N, t, H]; K and V viewed as [b, t, N, H],
    transposed by (0, 2, 3, 1) and (0, 2, 1, 3); the result viewed as
    [b, N, 1, t, H], transposed by (0, 3, 1, 2, 4) and viewed as [b, t, N H],
    b and t x's dims read by Shape, N H the projections' width.  None when
    root is not one."""
    tr = g.op(root.input[0], "Transpose")
    back = g.op(tr.input[0], "Reshape") if tr is not None else None
    sc = scores(g, back.input[0]) if back is not None else None
    if sc is None or list(attr(tr, "perm", [])) != [0, 3, 1, 2, 4]:
        return None
    q2 = g.op(sc[0], "Reshape")
    q = heads_view(g, q2.input[0], [0, 2, 3, 1, 4]) if q2 is not None else None
    views = [q, heads_view(g, sc[1], [0, 2, 3, 1]), heads_view(g, sc[2], [0, 2, 1, 3])]
    if None in views or not same_projections(g, views):
        return None
    x, w = q[0][0], q[0][1]
    width = g.shape(w)[1]
    if rank_of(g, x) != 3 or g.shape(q[0][2]) != (width,):
        return None
    v_q = view_shape(g, q[1].input[1], x)
    if v_q is None or len(v_q) != 5 or v_q[:2] != ["b", "t"] or v_q[3] != 1:
        return None
    n, h = v_q[2], v_q[4]
    want = [(q2.input[1], ["b", n, "t", h]), (views[1][1].input[1], ["b", "t", n, h]),
            (views[2][1].input[1], ["b", "t", n, h]), (back.input[1], ["b", n, 1, "t", h]),
            (root.input[1], ["b", "t", width])]
    if n * h != width or any(view_shape(g, s, x) != v for s, v in want):
        return None
    return [root, tr, back, q2] + sc[4] + [m for v in views for m in v[2]]


def attention_fusions(g, c):
    for n in g.nodes:
        for rule, find in (("attention_fusion", attention_block),
                           ("attention_fusion_bert", bert_block),
                           ("attention_fusion_qkv", qkv_block)):
            block = find(g, n) if n.op_type == "Reshape" else None
            if block is not None:
                c[rule] += 1
                g.fused.update(id(m) for m in block)
                break


# ---- matmul.graft ----

def matmul(g, c, gelu_roots):
    taken = set()
    for n in g.nodes:
        t = n.op_type if id(n) not in g.fused else None  # an attention block's: gone
        if t == "Add":
            for m, bias in operands(n):
                mm = g.op(m, "MatMul")
                if mm is not None and g.nusers(m) == 1 and g.rank(mm.input[0]) == 2 and \
                        g.rank(mm.input[1]) == 2 and (g.rank(bias) or 9) <= 2 and \
                        g.same_shape(n.output[0], m):
                    c["matmul_add_gemm"] += 1
                    taken.add(id(mm))
                    break
        if t == "Gemm" and len(n.input) == 3:
            for i, name in ((0, "gemm_transpose_a"), (1, "gemm_transpose_b")):
                tr = g.op(n.input[i], "Transpose")
                if tr is not None and list(attr(tr, "perm", [])) == [1, 0]:
                    c[name] += 1
        if t == "Mul":
            for d, y in operands(n):
                dv = g.op(d, "Div")
                if dv is not None and g.nusers(d) == 1 and g.number(dv.input[0]) == 1:
                    c["div_mul"] += 1
                    break
        if t == "Where" and g.op(n.input[0], "Not") is not None and g.nusers(n.input[0]) == 1:
            c["not_where"] += 1
        if t in ("Mul", "Div"):
            pairs = operands(n) if t == "Mul" else [(n.input[0], n.input[1])]
            for m, s in pairs:
                mm = g.op(m, "MatMul")
                if mm is not None and g.nusers(m) == 1 and g.number(s) is not None and \
                        g.dtype(s) == g.dtype(m) and (t == "Mul" or g.number(s) != 0):
                    c["matmul_scale" if t == "Mul" else "matmul_scale_div"] += 1
                    taken.add(id(mm))
                    break
        if t == "MatMul":
            p = g.producer.get(n.input[0])
            if p is not None and p.op_type in ("Mul", "Div") and g.nusers(p.output[0]) == 1 and \
                    not any(p is r for r in gelu_roots):
                pairs = operands(p) if p.op_type == "Mul" else [(p.input[0], p.input[1])]
                for a, s in pairs:
                    if g.number(s) is not None and g.dtype(s) == g.dtype(a) and \
                            g.same_shape(p.output[0], a) and (p.op_type == "Mul" or g.number(s)):
                        c["matmul_scale_input" if p.op_type == "Mul" else "matmul_div_input"] += 1
                        taken.add(id(n))
                        break
    gemm_acts(g, c)
    for n in g.nodes:
        tr = g.op(n.input[1], "Transpose") if n.op_type == "MatMul" and \
            id(n) not in g.fused else None
        perm = list(attr(tr, "perm", [])) if tr is not None else []
        if tr is not None and id(n) not in taken and g.nusers(n.input[1]) == 1 and \
                perm in ([1, 0], [0, 2, 1], [0, 1, 3, 2]):
            c["matmul_transpose_b"] += 1


def gemm_acts(g, c):
    for n in g.nodes:
        src = g.op(n.input[0], "Gemm") if n.input else None
        act = {"Relu": "gemm_relu", "Sigmoid": "gemm_sigmoid", "Tanh": "gemm_tanh",
               "LeakyRelu": "gemm_leaky_relu"}.get(n.op_type)
        if act and src is not None and len(src.input) == 3 and g.nusers(n.input[0]) == 1:
            c[act] += 1


RULES = """eliminate_identity eliminate_dropout eliminate_slice eliminate_expand eliminate_cast
eliminate_noop eliminate_reshape reshape_fusion eliminate_unsqueeze eliminate_transpose_pair
eliminate_transpose_identity reshape_reshape unsqueeze_unsqueeze unsqueeze_unsqueeze_before
slice_split squeeze_reshape_1d cast_cast
fuse_relu_clip fuse_clip_relu fuse_relu_relu fuse_clip_clip fuse_min_min fuse_max_max
min_max_clip max_min_clip
gelu_erf_div gelu_erf_mul fast_gelu bias_gelu fast_gelu_bias conv_relu conv_sigmoid conv_tanh
conv_leaky_relu conv_clip layer_norm rms_norm skip_layer_norm_bias skip_layer_norm
skip_rms_norm bias_softmax attention_fusion attention_fusion_bert attention_fusion_qkv
matmul_add_gemm gemm_transpose_a gemm_transpose_b div_mul not_where
matmul_scale matmul_scale_div matmul_scale_input matmul_div_input matmul_transpose_b gemm_relu
gemm_sigmoid gemm_tanh gemm_leaky_relu""".split()


def main():
    g = Graph(onnx.load(sys.argv[1]))
    c = dict.fromkeys(RULES, 0)
    eliminate(g, c)
    slice_splits(g, c)
    roots = gelus(g, c)
    activations(g, c)
    normalization(g, c)
    attention(g, c)
    attention_fusions(g, c)
    matmul(g, c, roots)
    for rule in RULES:
        print(rule, c[rule])


if __name__ == "__main__":
    main()
