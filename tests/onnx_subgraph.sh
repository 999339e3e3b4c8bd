#!/bin/sh
# onnx_subgraph.sh - values of the main graph that subgraphs read by name
# (note [outer reads] in src/onnx/onnx_subgraph.h), in the models of
# tests/onnx/subgraph/: a rewrite that replaces such a value renames the
# subgraphs' reads (outer_reads.onnxtxt: an If's branches, a nested If's;
# loop_reads.onnxtxt: a Loop's body), one that leaves nothing else reading
# it keeps it (the If reads it), a new node in its place takes its name, a
# match through it is refused (interior use), a partition makes the If's
# branches read the function's parameter (partition_if.onnxtxt), a rename
# onto a name the subgraph makes itself is refused (shadowed.onnxtxt), and
# a model no rule touches comes back byte for byte.  Each output passes
# python3-onnx's onnx.checker (full_check) and its node lists, per graph,
# are exactly those below.  Without the If's reads, eliminate.graft left
# the branches reading 'y', which nothing made any more (onnx.checker:
# "input 'y' of node ... is not output of any previous nodes").
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx/subgraph"
test_tmpdir onnx_subgraph
python_onnx 'import onnx'

run() { # run RULES IN OUT
    "$GRAFT" run --allow-unknown-ops "$1" "$tmp/$2" -o "$tmp/$3" 2>"$tmp/err" ||
        fail "graft run $(basename "$1") $2: $(head -c 300 "$tmp/err")"
}

eliminate="$src/stdpatterns/onnx/eliminate.graft"
printf 'opset onnx 17\n' >"$tmp/none.graft"
for model in outer_reads loop_reads; do
    "$GRAFT" fmt "$data/$model.onnxtxt" -o "$tmp/$model.onnx" || exit 1
    run "$tmp/none.graft" "$model.onnx" "same_$model.onnx"
    cmp -s "$tmp/$model.onnx" "$tmp/same_$model.onnx" || fail "$model: no rule, yet it differs"
done
run "$eliminate" outer_reads.onnx eliminated.onnx
run "$data/outer_reads.graft" outer_reads.onnx relu.onnx
run "$eliminate" loop_reads.onnx loop.onnx
"$GRAFT" fmt "$data/partition_if.onnxtxt" -o "$tmp/partition_if.onnx" || exit 1
"$GRAFT" run "$data/partition_if.graft" "$tmp/partition_if.onnx" -o "$tmp/partition.onnx" \
    2>"$tmp/err" || fail "graft run partition_if.graft: $(head -c 300 "$tmp/err")"

# A read the rename would hand to the subgraph's own x: refused, nothing
# written (the message: tests/onnx/subgraph/shadowed.golden).
if "$GRAFT" run --allow-unknown-ops "$eliminate" "$data/shadowed.onnxtxt" -o "$tmp/shadowed.onnx" \
    2>/dev/null; then
    fail "shadowed.onnxtxt: the rewrite that a subgraph's own x would capture succeeded"
fi
[ -e "$tmp/shadowed.onnx" ] && fail "shadowed.onnxtxt: an output was written"

# A type contradiction inside a nested If's branch (branch_types.onnxtxt):
# read from text it is placed at its line (tests/onnx/subgraph/
# run_branch_types.golden); read from the binary model it came from, which
# has no lines, the message names the file and the subgraph; either way
# nothing is written.
"$GRAFT" fmt "$data/branch_types.onnxtxt" -o "$tmp/branch_types.onnx" || exit 1
if "$GRAFT" run "$data/untouched.graft" "$tmp/branch_types.onnx" -o "$tmp/types.onnx" \
    2>"$tmp/err"; then
    fail "branch_types.onnx: the Sub of an int64 and a float was not refused"
fi
want="$tmp/branch_types.onnx, subgraph 'inner_else': error: node 's' (Sub): Sub: inputs"
want="$want of dtypes int64 and float32"
[ "$(cat "$tmp/err")" = "$want" ] || fail "branch_types.onnx: stderr is $(cat "$tmp/err")"
[ -e "$tmp/types.onnx" ] && fail "branch_types.onnx: an output was written"

"$python" - "$tmp" <<'PY' || failures=$((failures + 1))
import os, sys
import onnx

def lines(graph, depth=0):
    """Each node as 'op(inputs) -> outputs', subgraphs indented under it."""
    inits = ", ".join(i.name for i in graph.initializer)
    out = ["  " * depth + "graph %s [%s]" % (graph.name, inits)]
    for n in graph.node:
        out.append("  " * depth + "%s(%s) -> %s" % (n.op_type, ", ".join(n.input),
                                                    ", ".join(n.output)))
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                out += lines(a.g, depth + 1)
    return out

def model_lines(model):
    out = lines(model.graph)
    for f in model.functions:
        out.append("function %s(%s) -> %s" % (f.name, ", ".join(f.input), ", ".join(f.output)))
        out += lines(onnx.helper.make_graph(f.node, "body", [], []), 1)
    return out

branches = """\
  graph then_graph []
  If(c) -> t
    graph inner_then []
    Sigmoid(%(y)s) -> u
    graph inner_else []
    Neg(r2) -> v
  graph else_graph []
  Add(p, %(y)s) -> e1
  Mul(e1, r2) -> e2
  %(e)s"""
want = {
    # y -> x renamed in both branches; in the else branch, whose types
    # now say that Reshape keeps e2's shape, eliminate_reshape leaves e
    # an Identity, as a graph output is (note [rules in subgraphs]); sh
    # kept, as the If read it when the model was read; q, a graph output,
    # copied from x.
    "eliminated.onnx": """\
graph outer [sh]
Neg(x) -> p
Neg(p) -> w
Relu(x) -> r1
Relu(r1) -> r2
If(c) -> z
""" + branches % {"y": "x", "e": "Identity(e2) -> e"} + """
Identity(x) -> q""",
    # r2 a new Relu of x under the old name; Neg(Neg(x)) left (p is read
    # by the else branch).
    "relu.onnx": """\
graph outer [sh]
Identity(x) -> y
Expand(x, sh) -> q
Neg(x) -> p
Neg(p) -> w
Relu(x) -> r2
If(c) -> z
""" + branches % {"y": "y", "e": "Reshape(e2, sh) -> e"},
    # the body reads x for y; the Loop's condition stays left out; the
    # body's eliminate_identity on c_out, a graph output, writes the
    # Identity again, after the Add
    "loop.onnx": """\
graph loop []
Loop(m, , x) -> z
  graph body []
  Add(v, x) -> v_out
  Identity(c) -> c_out""",
    # the function's If reads its parameter where the branches read y
    "partition.onnx": """\
graph g []
Identity(x) -> y
graft.neg_if(c, y) -> z
function graft.neg_if(FunctionVar_0, FunctionVar_1) -> t1
  graph body []
  If(FunctionVar_0) -> t0
    graph a []
    Sigmoid(FunctionVar_1) -> t
    graph b []
    Neg(FunctionVar_1) -> e
  Neg(t0) -> t1""",
}
bad = 0
for name, text in want.items():
    model = onnx.load(os.path.join(sys.argv[1], name))
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:
        print("FAIL: onnx.checker on %s: %s" % (name, str(e)[:300]))
        bad += 1
    got = "\n".join(model_lines(model))
    if got != text:
        print("FAIL: %s:\n%s\n--- want:\n%s" % (name, got, text))
        bad += 1
sys.exit(1 if bad else 0)
PY

[ "$failures" -eq 0 ] && echo "onnx_subgraph: 0 failures"
[ "$failures" -eq 0 ]
