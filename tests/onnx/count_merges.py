"""count_merges.py - how many times each rule of stdpatterns/onnx/merge.graft
applies to a model, counted independently of graft with python3-onnx: the
sibling MatMuls, Convs, Shapes and Gathers looked for in the ONNX graph.

    python3 count_merges.py MODEL.onnx      # prints "RULE COUNT" a line

tests/std_corpus_roots.sh compares the counts with graft run --stats=counts.
The rules run in the file's order, each to a fixpoint: three MatMuls of one
input by constant 2-D weights of one shape merge (qkv_merge), then two
(kv_merge); two Convs of one input with weights of one shape, no bias and
the same attributes (conv_merge); n Shapes of one input with the same start
and end are made once (n - 1 rewrites, shape_share), and so are n Gathers
of one shape (after that sharing) and one axis whose indices are
constants of one element (an initializer or a Constant node) equal in
rank and value (gather_share); a Concat of a two-way Split's pieces in
order, on the Split's axis, is removed (split_concat).
"""
import sys
from collections import defaultdict

import onnx
import onnx.numpy_helper


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def matmul_merges(g, weights):
    """(qkv, kv): per input and weight shape, n MatMuls give n // 3 merges
    of three, then what is left two by two."""
    groups = defaultdict(int)
    for n in g.node:
        if n.op_type == "MatMul" and n.input[1] in weights and len(weights[n.input[1]]) == 2:
            groups[(n.input[0], tuple(weights[n.input[1]]))] += 1
    qkv = sum(k // 3 for k in groups.values())
    return qkv, sum((k % 3) // 2 for k in groups.values())


def conv_merges(g, weights):
    groups = defaultdict(int)
    for n in g.node:
        a = attrs(n)
        if (n.op_type == "Conv" and len(n.input) == 2 and n.input[1] in weights and
                len(weights[n.input[1]]) == 4 and a.get("group", 1) == 1 and
                a.get("auto_pad", b"NOTSET") == b"NOTSET"):
            key = tuple(sorted((k, str(v)) for k, v in a.items()))
            groups[(n.input[0], tuple(weights[n.input[1]]), key)] += 1
    return sum(k // 2 for k in groups.values())


def constants(g):
    """Every constant value by name: the initializers and the Constant
    nodes' value attributes."""
    values = {t.name: onnx.numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant" and n.attribute[0].name == "value":
            values[n.output[0]] = onnx.numpy_helper.to_array(n.attribute[0].t)
    return values


def sharing(g):
    """(shape_share, gather_share): repeats made once; a Gather's data is
    named by the first Shape of its kind, its indices by their rank and
    value when they are a constant of one element (else by name)."""
    first, shapes, gathers, values = {}, 0, defaultdict(int), constants(g)
    for n in g.node:
        if n.op_type == "Shape":
            a = attrs(n)
            key = (n.input[0], a.get("start", 0), a.get("end"))
            shapes += key in first
            first.setdefault(key, n.output[0])
            first[n.output[0]] = first[key]
    for n in g.node:
        if n.op_type == "Gather":
            i = values.get(n.input[1])
            index = (i.ndim, i.item()) if i is not None and i.size == 1 else n.input[1]
            gathers[(first.get(n.input[0], n.input[0]), index, attrs(n).get("axis", 0))] += 1
    return shapes, sum(k - 1 for k in gathers.values())


def split_concats(g):
    split_of = {}
    for n in g.node:
        if n.op_type == "Split" and len(n.output) == 2 and len(n.input) == 1:
            for i, o in enumerate(n.output):
                split_of[o] = (n.output[0], i, attrs(n).get("axis", 0))
    count = 0
    for n in g.node:
        if n.op_type == "Concat" and len(n.input) == 2:
            a, b = split_of.get(n.input[0]), split_of.get(n.input[1])
            axis = attrs(n)["axis"]
            count += bool(a and b and a[0] == b[0] and (a[1], b[1]) == (0, 1) and a[2] == axis)
    return count


def main():
    g = onnx.load(sys.argv[1]).graph
    weights = {t.name: list(t.dims) for t in g.initializer}
    qkv, kv = matmul_merges(g, weights)
    shapes, gathers = sharing(g)
    for rule, count in (("qkv_merge", qkv), ("kv_merge", kv), ("conv_merge", conv_merges(g, weights)),
                        ("shape_share", shapes), ("gather_share", gathers),
                        ("split_concat", split_concats(g))):
        print(rule, count)


main()
