"""count_staged.py - how many times each rule of
stdpatterns/onnx/sdpa_mha.graft (onnxscript's staged SDPA and
MultiHeadAttention fusions) applies to a model, counted independently of
graft with python3-onnx (the graph and shapes read as count_fusions.py
reads them), and how many SDPA ops the second rule leaves.

    python3 count_staged.py MODEL.onnx     # "RULE COUNT" a line, then "left N"

tests/onnx_staged.sh compares the counts with graft run --stats=counts and
expects graft run to refuse the model when "left" is not 0.
"""
import sys

import onnx

from count_fusions import Graph, attr


def sdpa(g, root):
    """(rule, q, kt, v) when root is MatMul(Softmax(MatMul(q, kt) / s or
    * s, axis=-1), v), s a one-element constant (not 0 for a divisor), q,
    kt and v of rank 4 and every dim known, with one batch and heads, kt
    (.., H, L) for q's (.., S, H) and v (.., L, ..); else None."""
    sm = g.op(root.input[0], "Softmax") if root.op_type == "MatMul" else None
    if sm is None or attr(sm, "axis", -1) != -1:
        return None
    scale = g.producer.get(sm.input[0])
    if scale is None or scale.op_type not in ("Div", "Mul"):
        return None
    pairs = [(scale.input[0], scale.input[1])]
    if scale.op_type == "Mul":
        pairs.append((scale.input[1], scale.input[0]))
    for m, s in pairs:
        qk = g.op(m, "MatMul")
        if qk is None or g.number(s) is None or s not in g.consts or \
                (scale.op_type == "Div" and g.number(s) == 0):
            continue
        q, kt, v = qk.input[0], qk.input[1], root.input[1]
        sq, sk, sv = g.shape(q), g.shape(kt), g.shape(v)
        if sq is None or sk is None or sv is None or len(sq) != 4 or len(sk) != 4 or \
                len(sv) != 4 or sk[:2] != sq[:2] or sk[2] != sq[3] or sv[:2] != sq[:2] or \
                sv[2] != sk[3]:
            continue
        rule = "sdpa_post_div" if scale.op_type == "Div" else "sdpa_post_mul"
        return rule, q, kt, v
    return None


def view(g, name, perm):
    """(x, reshape) when name is Transpose(Reshape(x), perm), else None."""
    tr = g.op(name, "Transpose")
    rs = g.op(tr.input[0], "Reshape") if tr is not None else None
    if rs is None or list(attr(tr, "perm", [])) != perm:
        return None
    return rs.input[0], rs.output[0]


def mha(g, block, reader):
    """Whether the SDPA block is read by Transpose (0, 2, 1, 3) and a
    Reshape back to its query's (B, S, D), its q, kt and v views of (B, S,
    D) tensors of known dims into (B, S, N, H) transposed by (0, 2, 1, 3),
    K by (0, 2, 3, 1)."""
    tr = reader if reader is not None and reader.op_type == "Transpose" else None
    users = g.users.get(tr.output[0], []) if tr is not None else []
    root = users[0] if len(users) == 1 and users[0] is not None else None
    if root is None or root.op_type != "Reshape" or list(attr(tr, "perm", [])) != [0, 2, 1, 3]:
        return False
    views = [view(g, block[1], [0, 2, 1, 3]), view(g, block[2], [0, 2, 3, 1]),
             view(g, block[3], [0, 2, 1, 3])]
    if None in views:
        return False
    sq, sr = g.shape(views[0][0]), g.shape(views[0][1])
    if sq is None or len(sq) != 3 or sr is None or len(sr) != 4 or sr[:2] != sq[:2] or \
            sr[2] * sr[3] != sq[2] or g.shape(root.output[0]) != sq:
        return False
    return all(g.shape(x) == sq and g.shape(r) == sr for x, r in views[1:])


def main():
    g = Graph(onnx.load(sys.argv[1]))
    counts = {"sdpa_post_div": 0, "sdpa_post_mul": 0, "mha": 0}
    left = 0
    for n in g.nodes:
        block = sdpa(g, n)
        if block is None:
            continue
        counts[block[0]] += 1
        users = g.users.get(n.output[0], [])
        if len(users) == 1 and mha(g, block, users[0]):
            counts["mha"] += 1
        else:
            left += 1
    for rule, count in counts.items():
        print(rule, count)
    print("left", left)


if __name__ == "__main__":
    main()
