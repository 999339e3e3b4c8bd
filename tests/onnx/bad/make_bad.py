#!/usr/bin/env python3
"""Writes the malformed ONNX files of tests/onnx/bad/ (and tiny.onnx, the
well-formed model they are cut from), encoding protobuf by hand so that
each fault is exactly where its name says.  Python's standard library
only; run from this directory:  python3 make_bad.py

Each NAME.onnx has a golden file NAME.golden with graft's diagnostic.
"""


def varint(n):
    n &= (1 << 64) - 1  # negative int64: ten bytes, as protobuf writes it
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def key(number, wire_type):
    return varint(number << 3 | wire_type)


def v(number, value):  # varint field
    return key(number, 0) + varint(value)


def ld(number, payload):  # length-delimited field
    if isinstance(payload, str):
        payload = payload.encode()
    return key(number, 2) + varint(len(payload)) + payload


def tensor_type(elem_type, dims):
    shape = b"".join(ld(1, v(1, d)) for d in dims)  # Dimension.dim_value
    return ld(1, v(1, elem_type) + ld(2, shape))  # TypeProto.tensor_type


def value_info(name, dims):
    return ld(1, name) + ld(2, tensor_type(1, dims))


def node(inputs, outputs, op, name, attrs=b""):
    return (b"".join(ld(1, i) for i in inputs) + b"".join(ld(2, o) for o in outputs) +
            ld(3, name) + ld(4, op) + attrs)


def graph(nodes, name="tiny", inputs=(("x", (2, 3)),), outputs=(("y", (2, 3)),)):
    return (b"".join(ld(1, n) for n in nodes) + ld(2, name) +
            b"".join(ld(11, value_info(n, d)) for n, d in inputs) +
            b"".join(ld(12, value_info(n, d)) for n, d in outputs))


def model(graph_bytes):
    # ir_version 8, producer "graft-tests", graph, opset_import {"" : 17}
    return v(1, 8) + ld(2, "graft-tests") + ld(7, graph_bytes) + ld(8, v(2, 17))


TINY = model(graph([node(["x"], ["y"], "Relu", "relu0")]))


def nesting_bomb(levels):
    """A graph attribute holding a graph holding ..., levels deep."""
    inner = graph([node(["x"], ["y"], "Relu", "leaf")])
    for _ in range(levels):
        attr = ld(1, "then_branch") + ld(6, inner) + v(20, 5)  # name, g, type GRAPH
        inner = graph([node(["x"], ["y"], "If", "if", ld(5, attr))])
    return model(inner)


CASES = {
    "tiny": TINY,
    # the file ends inside the graph: its length prefix runs past the end
    "truncated": TINY[:40],
    # the file ends inside a varint (ir_version's value)
    "truncated_varint": v(1, 8)[:1] + b"\x88",
    # a length prefix inside the graph runs past the graph's end, not the file's
    "length_past_message": model(ld(2, "g")[:1] + b"\x05g") + v(5, 1),
    # ir_version (a varint) written as a length-delimited field
    "wrong_wire_type": ld(1, b"\x08") + ld(7, graph([])),
    # the graph (a message) written as a varint
    "graph_as_varint": v(1, 8) + v(7, 3),
    # wire type 3, a group start
    "group": v(1, 8) + key(9, 3) + key(9, 4),
    # field number 0
    "field_zero": v(1, 8) + b"\x00\x01",
    # a varint of eleven bytes
    "long_varint": key(1, 0) + b"\xff" * 10 + b"\x01",
    # packed float_data of an initializer holding 5 bytes
    # (an initializer: dims 3, data_type FLOAT, float_data, name "w")
    "packed_partial": model(graph([node(["x"], ["y"], "Relu", "r")]) +
                            ld(5, v(1, 3) + v(2, 1) + ld(4, b"\0" * 5) + ld(8, "w"))),
    # messages nested 40 graphs deep (about 160 messages): over onnx-depth 100
    "nesting_bomb": nesting_bomb(40),
    # a model without a graph
    "no_graph": v(1, 8) + ld(2, "graft-tests") + ld(8, v(2, 17)),
    # graph-level faults (note [graph check] in src/onnx/onnx_check.h):
    # a node reads a value nothing makes
    "undefined_value": model(graph([node(["x"], ["t"], "Relu", "r1"),
                                    node(["u"], ["y"], "Relu", "r2")])),
    # two nodes make the same value
    "duplicate_value": model(graph([node(["x"], ["y"], "Relu", "r1"),
                                    node(["x"], ["y"], "Sigmoid", "s1")])),
    # a node reads what a later node makes (listed out of topological order)
    "out_of_order": model(graph([node(["t"], ["y"], "Relu", "second"),
                                 node(["x"], ["t"], "Relu", "first")])),
    # a node without a name (named by its output), in a domain never imported
    "unknown_domain": model(graph([node(["x"], ["y"], "Gelu", "") + ld(7, "com.example")])),
    # a graph output nothing makes
    "undefined_output": model(graph([node(["x"], ["t"], "Relu", "r")])),
    # a node of an If's branch reads a value no graph around it makes (its
    # other input, x, is the outer graph's)
    "subgraph_undefined": model(graph([node(["x"], ["y"], "If", "if", ld(5, (
        ld(1, "then_branch") +
        ld(6, graph([node(["x", "zz"], ["y"], "Add", "add")], name="then")) + v(20, 5))))])),
    # the faults the import finds itself when it makes the checks (note
    # [check in the import] in src/onnx/onnx_import.c): two graph inputs
    # of one name
    "duplicate_input": model(graph([node(["x"], ["y"], "Relu", "r")],
                                   inputs=(("x", (2, 3)), ("x", (2, 3))))),
    # two initializers of one name
    "duplicate_initializer": model(graph([node(["x"], ["y"], "Relu", "r")]) +
                                   ld(5, v(1, 3) + v(2, 1) + ld(8, "w") + ld(9, b"\0" * 12)) +
                                   ld(5, v(1, 3) + v(2, 1) + ld(8, "w") + ld(9, b"\0" * 12))),
    # a node makes the graph input's value
    "shadowed_input": model(graph([node(["x"], ["x"], "Relu", "r"),
                                   node(["x"], ["y"], "Relu", "r2")])),
    # a node reads its own output
    "own_output": model(graph([node(["x", "y"], ["y"], "Add", "add")])),
    # a graph output without a name
    "unnamed_output": model(graph([node(["x"], [""], "Relu", "r")], outputs=(("", (2, 3)),))),
    # a graph fault and an initializer whose raw_data its shape contradicts
    # (which only the import sees): the graph's is reported, and only it
    "graph_and_tensor_faults": model(graph([node(["x"], ["y"], "Relu", "r1"),
                                            node(["x"], ["y"], "Sigmoid", "s1")]) +
                                     ld(5, v(1, 3) + v(2, 1) + ld(8, "w") + ld(9, b"\0" * 5))),
    # a Relay model named .onnx
    "relay_text": b"#[version = \"0.0.5\"]\ndef @main(%x) {\n  nn.relu(%x)\n}\n",
}

if __name__ == "__main__":
    for name, data in CASES.items():
        with open(("../" if name == "tiny" else "") + name + ".onnx", "wb") as f:
            f.write(data)
