#!/bin/sh
# onnx_subgraph_rules.sh - graft run applies the rules inside an ONNX
# model's subgraphs, nested ones too (note [rules in subgraphs] in
# src/runtime/subgraph_rules.h), on tests/onnx/subgraph/branch_rules.onnxtxt:
# an If whose branches each hold a pattern of branch_rules.graft, one of
# them in a nested If, and the main graph one more.  Every graph's nodes
# are exactly those below, the names a rewrite made inside each subgraph
# are "GRAPH/NAME" and unique in the whole model, onnx.checker (full
# check) passes on every output; the compiled rewriter of the same rules
# writes the same bytes, and its --stats, --trace, --at, --rule and
# --check-all print what graft run's and graft explain's do, subgraphs
# included; untouched.graft, which matches in the main graph
# only, leaves every subgraph's bytes as they were, and a rule file that
# matches nothing gives the input back byte for byte.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx/subgraph"
test_tmpdir onnx_subgraph_rules
python_onnx 'import onnx'

"$GRAFT" fmt "$data/branch_rules.onnxtxt" -o "$tmp/in.onnx" || exit 1
for rules in branch_rules untouched; do
    "$GRAFT" run "$data/$rules.graft" "$tmp/in.onnx" -o "$tmp/$rules.onnx" 2>"$tmp/err" ||
        fail "graft run $rules.graft: $(head -c 300 "$tmp/err")"
    [ -s "$tmp/err" ] && fail "graft run $rules.graft wrote to stderr: $(head -c 300 "$tmp/err")"
done
printf 'opset onnx 17\n\nsig := Sigmoid(Sigmoid(x)) => Sigmoid(x)\n' >"$tmp/none.graft"
"$GRAFT" run "$tmp/none.graft" "$tmp/in.onnx" -o "$tmp/none.onnx" ||
    fail "graft run none.graft"
cmp -s "$tmp/in.onnx" "$tmp/none.onnx" || fail "no rule matched, yet the model differs"

# The compiled rewriter: the same bytes.
if "$GRAFT" compile --exe "$data/branch_rules.graft" -o "$tmp/rewriter" 2>"$tmp/err"; then
    "$tmp/rewriter" "$tmp/in.onnx" -o "$tmp/compiled.onnx" 2>"$tmp/err" ||
        fail "the compiled rewriter: $(head -c 300 "$tmp/err")"
    cmp -s "$tmp/branch_rules.onnx" "$tmp/compiled.onnx" ||
        fail "the compiled rewriter writes other bytes than graft run"
    # Its --stats, --trace and explain options look inside the subgraphs
    # as graft run's do (the goldens of tests/onnx/subgraph/ hold graft
    # run's and graft explain's).
    for opts in "--stats=counts --trace" "--at then_body/a" "--at inner_else/d" \
        "--rule exp_add" "--check-all"; do
        # shellcheck disable=SC2086 # opts is a list of options
        "$tmp/rewriter" "$tmp/in.onnx" $opts -o "$tmp/c.onnx" >"$tmp/c.out" 2>&1
        echo "exit $?" >>"$tmp/c.out"
        # shellcheck disable=SC2086
        "$GRAFT" run $opts "$data/branch_rules.graft" "$tmp/in.onnx" -o "$tmp/i.onnx" \
            >"$tmp/i.out" 2>&1
        echo "exit $?" >>"$tmp/i.out"
        sed "s|$data/||g" "$tmp/i.out" >"$tmp/i.txt"
        sed "s|$data/||g" "$tmp/c.out" >"$tmp/c.txt"
        grep -q "then_body\|inner_\|check-all: 24 nodes" "$tmp/i.txt" ||
            fail "graft run $opts does not look inside the subgraphs: $(head -c 300 "$tmp/i.txt")"
        cmp -s "$tmp/i.txt" "$tmp/c.txt" ||
            fail "the compiled rewriter's $opts differs: $(diff "$tmp/i.txt" "$tmp/c.txt")"
    done
else
    fail "graft compile --exe branch_rules.graft: $(head -c 300 "$tmp/err")"
fi

"$python" - "$tmp" <<'PY' || failures=$((failures + 1))
import os, sys
import onnx

def lines(graph, depth=0):
    """Each node as '[name] op(inputs) -> outputs', subgraphs indented under it."""
    inits = ", ".join(i.name for i in graph.initializer)
    out = ["  " * depth + "graph %s [%s]" % (graph.name, inits)]
    for n in graph.node:
        out.append("  " * depth + "[%s] %s(%s) -> %s" % (n.name, n.op_type, ", ".join(n.input),
                                                         ", ".join(n.output)))
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                out += lines(a.g, depth + 1)
    return out

def names(graph, out):
    """Every node and value name a graph and its subgraphs make."""
    for n in graph.node:
        out += [n.name] if n.name else []
        out += [o for o in n.output if o]
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                names(a.g, out)
    out += [i.name for i in graph.initializer]
    return out

def subgraphs(graph):
    return [a.g.SerializeToString() for n in graph.node for a in n.attribute
            if a.type == onnx.AttributeProto.GRAPH]

want = """\
graph branches []
[] Relu(z) -> r
[] Relu(r) -> k
[graft_Exp_0] Exp(x) -> graft_Exp_0_output_0
[graft_Exp_1] Exp(z) -> graft_Exp_1_output_0
[graft_Mul_2] Mul(graft_Exp_0_output_0, graft_Exp_1_output_0) -> m
[] If(c) -> y
  graph then_body []
  [then_body/graft_Exp_0] Exp(x) -> then_body/graft_Exp_0_output_0
  [then_body/graft_Exp_1] Exp(m) -> then_body/graft_Exp_1_output_0
  [then_body/graft_Mul_2] Mul(then_body/graft_Exp_0_output_0, then_body/graft_Exp_1_output_0) -> a
  graph else_body []
  [] If(c) -> b
    graph inner_then []
    [inner_then/graft_Exp_0] Exp(z) -> inner_then/graft_Exp_0_output_0
    [inner_then/graft_Exp_1] Exp(x) -> inner_then/graft_Exp_1_output_0
    [inner_then/graft_Mul_2] Mul(inner_then/graft_Exp_0_output_0, inner_then/graft_Exp_1_output_0) -> d
    graph inner_else []
    [inner_else/graft_Identity_0] Identity(x) -> d"""
tmp = sys.argv[1]
bad = 0
model = onnx.load(os.path.join(tmp, "branch_rules.onnx"))
got = "\n".join(lines(model.graph))
if got != want:
    print("FAIL: branch_rules.onnx: the nodes are\n%s\nnot\n%s" % (got, want))
    bad += 1
made = [n for n in names(model.graph, []) if "graft_" in n]  # what rewrites made
if len(made) != len(set(made)):
    print("FAIL: branch_rules.onnx: a name made twice: %s" % made)
    bad += 1
for name in ("branch_rules.onnx", "untouched.onnx"):
    try:
        onnx.checker.check_model(onnx.load(os.path.join(tmp, name)), full_check=True)
    except Exception as e:
        print("FAIL: %s: onnx.checker: %s" % (name, e))
        bad += 1
before = subgraphs(onnx.load(os.path.join(tmp, "in.onnx")).graph)
after = onnx.load(os.path.join(tmp, "untouched.onnx"))
if subgraphs(after.graph) != before:
    print("FAIL: untouched.onnx: a subgraph's bytes changed")
    bad += 1
if len(onnx.load(os.path.join(tmp, "in.onnx")).graph.node) != len(after.graph.node) + 1:
    print("FAIL: untouched.onnx: the main graph was not rewritten")
    bad += 1
sys.exit(1 if bad else 0)
PY

[ "$failures" -eq 0 ]
