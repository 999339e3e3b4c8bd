"""The graft package against the built libgraft.so (tests/python.sh runs
these in a fresh virtual environment with the package installed)."""
import pathlib
import pydoc
import re
import threading

import pytest

import graft

TOP = pathlib.Path(__file__).resolve().parents[2]
BN_RULES = TOP / "examples" / "bn.graft"
BN_MODEL = TOP / "examples" / "bn.relay"
BN_RESULT = ("def @main(%gamma, %x, %mean, %var, %beta) {\n"
             "  %0 = nn.batch_norm(%x, %gamma, %beta, %mean, %var, axis=-1);\n"
             "  %0.0\n"
             "}\n")
RULES = 'add_zero := add(x, 0f) => x\nact := nn.relu(x) => partition(Composite="act")\n'
MODEL = "def @main(%x: Tensor[(4), float32]) {\n  nn.relu(add(%x, 0f))\n}\n"
REWRITTEN = "def @main(%x: Tensor[(4), float32]) {\n  nn.relu(%x)\n}\n"
RUN = ("def @main(%x: Tensor[(4), float32]) {\n"
       '  %0 = fn (%FunctionVar_0_0, PartitionedFromPattern="nn.relu_", Composite="act") {\n'
       "    nn.relu(%FunctionVar_0_0)\n"
       "  };\n"
       "  %0(%x)\n"
       "}\n")
ONNX_TEXT = "<\n  ir_version: 7\n>\nagraph (float[N] X) => (float[N] Y) {\n  Y = Relu(X)\n}\n"


@pytest.fixture
def rules():
    with graft.Rules.from_text(RULES, name="t.graft") as r:
        yield r


class StandIn:
    """Stands in for a tvm.IRModule: all graft asks of one is astext()."""

    def __init__(self, text):
        self.text = text

    def astext(self):
        return self.text


def test_installed_package_is_used():
    assert "site-packages" in graft.__file__ or "dist-packages" in graft.__file__


# ---- loading rules ----

def test_from_file_runs_the_example():
    with graft.Rules.from_file(BN_RULES) as r:
        assert r.rule_names == ["bn"]
        assert r.run(BN_MODEL) == BN_RESULT
        assert r.run(str(BN_MODEL)) == BN_RESULT


def test_from_file_several_files_and_include_dirs(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "zero.graft").write_text("add_zero := add(x, 0f) => x\n")
    top = tmp_path / "top.graft"
    top.write_text('include "zero.graft"\n')
    other = tmp_path / "other.graft"
    other.write_text("mul_one := multiply(x, 1f) => x\n")
    with graft.Rules.from_file(top, other, include_dirs=[inc]) as r:
        assert r.rule_names == ["add_zero", "mul_one"]
    with pytest.raises(graft.Error) as e:
        graft.Rules.from_file(top)
    assert "zero.graft" in str(e.value)


def test_from_text_include_dirs(tmp_path):
    (tmp_path / "zero.graft").write_text("add_zero := add(x, 0f) => x\n")
    with graft.Rules.from_text('include "zero.graft"\n', include_dirs=[tmp_path]) as r:
        assert r.run(MODEL) == "def @main(%x: Tensor[(4), float32]) {\n  nn.relu(%x)\n}\n"


def test_bad_rule_text_raises_with_position():
    with pytest.raises(graft.Error) as e:
        graft.Rules.from_text("ok := add(x, 0f) => x\nr := addd(x, 0) => x\n", name="bad.graft")
    d = e.value.diagnostics[0]
    assert (d.severity, d.file, d.line, d.column, d.end_column) == ("error", "bad.graft", 2, 6, 9)
    assert d.message == "unknown op 'addd'; did you mean 'add'?"
    assert d.source_line == "r := addd(x, 0) => x"
    assert str(d) == "bad.graft:2:6: error: unknown op 'addd'; did you mean 'add'?"
    assert str(e.value) == ("cannot load the rules bad.graft: bad.graft:2:6: error: "
                            "unknown op 'addd'; did you mean 'add'?")


def test_bad_rule_file_raises(tmp_path):
    bad = tmp_path / "bad.graft"
    bad.write_text("r := add(x, \n")
    with pytest.raises(graft.Error) as e:
        graft.Rules.from_file(bad)
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.column) == (str(bad), 1, 12)
    assert d.message == "unexpected end of file; expected ')'"
    (note,) = d.notes
    assert (note.severity, note.line, note.column, note.message) == ("note", 1, 9,
                                                                     "to match this '('")
    with pytest.raises(graft.Error) as e:
        graft.Rules.from_file(tmp_path / "missing.graft")
    assert "cannot read" in e.value.diagnostics[0].message
    assert e.value.diagnostics[0].file is None


def test_limits():
    with pytest.raises(graft.Error) as e:
        graft.Rules.from_text(RULES, limits="no-such-limit=3")
    assert "no-such-limit" in str(e.value)
    loop = "swap := add(x, y) => add(y, x)\n"
    with graft.Rules.from_text(loop, limits="rewrites=5") as r:
        with pytest.raises(graft.Error) as e:
            r.run("def @main(%a, %b) {\n  add(%a, %b)\n}\n")
        assert "graft run failed" in str(e.value)


# ---- models of every form ----

def test_model_forms(rules, tmp_path):
    path = tmp_path / "m.relay"
    path.write_text(MODEL)
    assert rules.run(MODEL) == RUN
    assert rules.run(path) == RUN
    assert rules.run(str(path)) == RUN
    assert rules.run(MODEL.encode()) == RUN.encode()
    assert rules.run(StandIn(MODEL)) == RUN


def test_model_kind(tmp_path):
    assert graft.model_kind(MODEL) == "relay"
    assert graft.model_kind(ONNX_TEXT) == "onnx-text"
    assert graft.model_kind("ir_version: 7") == "onnx-text"
    assert graft.model_kind(b"\x08\x07\x12\x04onnx") == "onnx-bytes"
    assert graft.model_kind("hello") == "unknown"
    path = tmp_path / "m.relay"
    path.write_text(MODEL)
    assert graft.model_kind(path) == "relay"


# ---- ONNX models (rules for ONNX start with "opset onnx N") ----

ONNX_RULES = "opset onnx 17\ntwice := Relu(Relu(x)) => Relu(x)\n"
# Two Relus in a row; run folds them into one, which takes the graph
# output's name (note [onnx export] in src/onnx/onnx_export.c).
ONNX_TWICE = ('<ir_version: 8, opset_import: ["" : 17]>\n'
              "g (float[4] X) => (float[4] Y) {\n  H = Relu (X)\n  Y = Relu (H)\n}\n")
ONNX_ONCE = ('<\n  ir_version: 8,\n  opset_import: ["" : 17]\n>\n'
             "g (float[4] X) => (float[4] Y) {\n  [graft_Relu_0] Y = Relu (X)\n}\n")


@pytest.fixture
def onnx_rules():
    with graft.Rules.from_text(ONNX_RULES, name="o.graft") as r:
        yield r


def relu_twice():
    """The same model as ONNX_TWICE, built with onnx.helper."""
    onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed")
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["X"], ["H"], name="first"),
             helper.make_node("Relu", ["H"], ["Y"], name="second")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return onnx, model


def nodes_of(model):
    return [(n.name, n.op_type, list(n.input), list(n.output)) for n in model.graph.node]


def test_onnx_modelproto_run(onnx_rules):
    onnx, model = relu_twice()
    assert graft.model_kind(model) == "onnx-bytes"
    out = onnx_rules.run(model)
    assert isinstance(out, onnx.ModelProto)
    assert nodes_of(out) == [("graft_Relu_0", "Relu", ["X"], ["Y"])]
    assert [i.name for i in out.graph.input] == ["X"]
    assert [o.name for o in out.graph.output] == ["Y"]
    onnx.checker.check_model(out)
    # the model given is not changed
    assert nodes_of(model) == [("first", "Relu", ["X"], ["H"]), ("second", "Relu", ["H"], ["Y"])]
    # partition alone: no partition rule, the model comes back as it was
    assert onnx_rules.partition(model) == model
    assert nodes_of(onnx_rules.rewrite(model)) == [("graft_Relu_0", "Relu", ["X"], ["Y"])]


def test_onnx_bytes_and_paths(onnx_rules, tmp_path):
    onnx, model = relu_twice()
    data = model.SerializeToString()
    out = onnx_rules.run(data)
    assert isinstance(out, bytes)
    assert out == onnx_rules.run(model).SerializeToString()
    assert nodes_of(onnx.ModelProto.FromString(out)) == [("graft_Relu_0", "Relu", ["X"], ["Y"])]
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    assert onnx_rules.run(path) == out          # a path to ONNX bytes: bytes
    assert onnx_rules.run(str(path)) == out
    text = tmp_path / "m.onnxtxt"
    text.write_text(ONNX_TWICE)
    assert onnx_rules.run(text) == ONNX_ONCE    # a path to ONNX text: text


def test_onnx_text_run(onnx_rules):
    assert graft.model_kind(ONNX_TWICE) == "onnx-text"
    assert onnx_rules.run(ONNX_TWICE) == ONNX_ONCE
    assert onnx_rules.rewrite(ONNX_TWICE) == ONNX_ONCE


def test_onnx_match_and_explain(onnx_rules):
    _, model = relu_twice()
    for m in (model, model.SerializeToString(), ONNX_TWICE):
        root = "second" if m is not ONNX_TWICE else "Y"   # the node's name, else its output's
        assert onnx_rules.match(m) == [graft.Match(
            "twice", root, "Relu", 0, 0, {"x": graft.Binding("%X", True, 0, 0)})]
    assert onnx_rules.explain(model, at="second") == (
        "twice (o.graft:2) at second: matches: x=%X\n  applied by graft run's next round\n")
    assert onnx_rules.explain(model, rule="twice") == (
        "twice (o.graft:2): 1 match; all 1 partial match:\n"
        "  first: 1 part matched; the part at line 2 (o.graft:2:15) wants a call of Relu; "
        "%X is a variable\n")   # rule text, not a file: the part is named by its line


def test_onnx_fold_bn_as_readme_says():
    onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed")
    path = TOP / "tests" / "onnx" / "conv_bn.onnx"
    with graft.Rules.from_file(TOP / "stdpatterns" / "onnx_fold_bn.graft") as r:
        out = r.run(onnx.load(str(path)))
        assert out.SerializeToString() == r.run(path)
    onnx.checker.check_model(out)
    # tests/onnx/fold_run_text.golden: the batch norm folded into the conv, whose
    # weight and bias are new initializers computed by fold(...)
    assert [n.op_type for n in out.graph.node] == ["Conv"]
    assert (list(out.graph.node[-1].input), list(out.graph.node[-1].output)) == (
        ["x", "graft_folded_Transpose_0", "graft_folded_Sub_1"], ["y"])
    assert [i.name for i in out.graph.initializer][-2:] == [
        "graft_folded_Transpose_0", "graft_folded_Sub_1"]


SUBGRAPH = TOP / "tests" / "onnx" / "subgraph"


def test_onnx_match_and_explain_inside_subgraphs():
    """Inside If's branches (a nested If's too) and a Loop's body, as graft
    match prints it (tests/onnx/subgraph/match_branches.golden,
    match_loop.golden): the subgraphs' matches first, their nodes named
    GRAPH/NAME, a value read from the graph around by its name there."""
    def m(rule, root, kind, where=(None, None, None), **bindings):
        return graft.Match(rule, root, kind, 0, 0,
                           {k: graft.Binding(v, True, 0, 0) for k, v in bindings.items()},
                           *where)
    rules = SUBGRAPH / "branch_rules.graft"
    with graft.Rules.from_file(rules) as r:
        model = SUBGRAPH / "branch_rules.onnxtxt"
        assert r.match(model) == [
            m("exp_add", "then_body/a", "Exp", ("then_body", "y", "then_branch"),
              a="%x", b="m"),
            m("exp_add", "inner_then/d", "Exp", ("inner_then", "else_body/b", "then_branch"),
              a="%z", b="%x"),
            m("neg_neg", "inner_else/d", "Neg", ("inner_else", "else_body/b", "else_branch"),
              x="%x"),
            m("exp_add", "m", "Exp", a="%x", b="%z"),
        ]
        assert r.explain(model, at="inner_else/d", rule="neg_neg") == (
            f"neg_neg ({rules}:10) at inner_else/d: matches: x=%x\n"
            "  applied by graft run's next round\n")
        assert r.explain(model, rule="neg_neg") == (
            f"in subgraph inner_else: neg_neg ({rules}:10): 1 match; all 1 partial match:\n"
            f"  inner_else/n: 1 part matched; 'Neg(x)' ({rules}:10:16) wants a call of Neg; "
            "%x is a variable\n"
            f"in the main graph: neg_neg ({rules}:10): 0 matches; no partial match: no node "
            f"matches the pattern's root 'Neg(Neg(x))' ({rules}:10:12)\n")
        with pytest.raises(graft.Error) as e:
            r.explain(model, at="inner_then/%x")   # an outer value, no node of the branch
        assert e.value.diagnostics[0].message.startswith("no node 'inner_then/%x' in the model")
    with graft.Rules.from_file(SUBGRAPH / "body_rules.graft") as r:
        assert r.match(SUBGRAPH / "loop_reads.onnxtxt") == [
            m("add_sub", "body/v_out", "Add", ("body", "z", "body"), a="body/%v", b="y")]


def test_onnx_match_without_subgraphs_unchanged():
    """A model with no subgraph: the one match of tests/onnx/fold_match.golden."""
    with graft.Rules.from_file(TOP / "stdpatterns" / "onnx_fold_bn.graft") as r:
        (x,) = r.match(TOP / "tests" / "onnx" / "conv_bn.onnx")
    assert (x.rule, x.root, x.kind, x.line, x.column) == (
        "fold_conv_bn", "bn", "BatchNormalization", 0, 0)
    assert {k: b.value for k, b in x.bindings.items()} == {
        "c": "conv", "x": "%x", "w": "w", "gamma": "scale", "beta": "bias", "mean": "mean",
        "var": "var", "e": "9.9999997473787516e-06"}


def test_onnx_bad_bytes_raise_with_the_byte(onnx_rules):
    with pytest.raises(graft.Error) as e:
        onnx_rules.run(b"\x08\x07\x12\x09onnx")   # producer_name of 9 bytes, 4 there
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.byte) == ("<model>", 0, 3)
    assert d.message == ("length 9 of field 'producer_name' (2) of onnx.ModelProto runs past "
                         "the end of the file (byte 8)")
    assert str(d) == "<model>: error: byte 3: " + d.message   # as graft run prints it
    assert str(e.value) == "graft run failed: " + str(d)


def test_onnx_bad_text_raises_with_position(onnx_rules):
    with pytest.raises(graft.Error) as e:
        onnx_rules.run(ONNX_TWICE.replace("Relu (H)", "Relu (H"))
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.column, d.byte) == ("<model>", 5, 1, None)
    assert (d.source_line, d.message) == ("}", "unexpected '}'; expected ')' or ','")
    assert [(n.line, n.column, n.message) for n in d.notes] == [(4, 12, "inside this '('")]


def test_onnx_model_with_relay_rules(rules):
    _, model = relu_twice()
    with pytest.raises(graft.Error) as e:
        rules.run(model)
    assert [str(d) for d in e.value.diagnostics] == [
        "graft: error: the model is an ONNX model, but the rules are for Relay; "
        "a rule file for ONNX starts with 'opset onnx N'"]


def test_bad_model_raises_with_position(rules):
    with pytest.raises(graft.Error) as e:
        rules.run("def @main(%x) {\n  add(%x, \n}\n")
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.column) == ("<model>", 3, 1)
    assert d.message.startswith("syntax error")
    with pytest.raises(TypeError):
        rules.run(42)


# ---- the calls ----

def test_rewrite_and_partition(rules):
    assert rules.rewrite(MODEL) == REWRITTEN
    part = rules.partition(MODEL)
    assert "add(%x, 0f)" in part and 'Composite="act"' in part


def test_match_structures():
    with graft.Rules.from_file(BN_RULES) as r:
        (m,) = r.match(BN_MODEL)
    assert (m.rule, m.root, m.kind, m.line, m.column) == ("bn", "<output>", "add", 7, 3)
    assert list(m.bindings) == ["gamma", "x", "mean", "var", "eps", "beta"]
    assert m.bindings["x"] == graft.Binding("%x", True, 1, 19)
    assert m.bindings["eps"].value == "1e-05f"


def test_match_in_file_order(rules):
    assert [(m.rule, m.root) for m in rules.match(MODEL)] == [("add_zero", "%0"),
                                                              ("act", "<output>")]


def test_explain(rules):
    text = rules.explain(MODEL, at="%0")
    assert text.startswith("add_zero (t.graft:1) at %0: matches")
    assert "act (t.graft:2) at %0: no match" in text
    only = rules.explain(MODEL, at="%0", rule="act")
    assert only.startswith("act (t.graft:2) at %0: no match") and "add_zero" not in only
    with pytest.raises(graft.Error) as e:
        rules.explain(MODEL, at="%99")
    assert "no node '%99'" in str(e.value)
    with pytest.raises(graft.Error) as e:
        rules.explain(MODEL, rule="nope")
    assert "no rule 'nope'" in str(e.value)
    with pytest.raises(graft.Error):
        rules.explain(MODEL)


def test_verify():
    with graft.Rules.from_file(BN_RULES) as r:
        (v,) = r.verify()
    assert (v.rule, v.verdict, v.trials, v.why) == ("bn", "verified", 160, "")
    assert v.max_error <= v.tolerance
    wrong = "wrong := add(x, y) => x\n"
    with graft.Rules.from_text(wrong) as r:
        (v,) = r.verify(trials=5)
    assert v.verdict == "refuted" and v.why


# ---- handles ----

def test_closed_rules_raise(rules):
    rules.close()
    rules.close()
    for call in (lambda: rules.run(MODEL), lambda: rules.match(MODEL),
                 lambda: rules.explain(MODEL, at="%0"), lambda: rules.verify(),
                 lambda: rules.rewrite(MODEL), lambda: rules.partition(MODEL),
                 lambda: rules.rule_names):
        with pytest.raises(graft.Error, match="closed"):
            call()
    assert repr(rules) == "<graft.Rules (closed)>"


def test_two_rule_sets_side_by_side():
    a = graft.Rules.from_text("add_zero := add(x, 0f) => x\n")
    b = graft.Rules.from_file(BN_RULES)
    assert a.run(MODEL) == REWRITTEN
    assert b.run(BN_MODEL) == BN_RESULT
    a.close()
    assert b.run(BN_MODEL) == BN_RESULT
    assert b.rule_names == ["bn"]
    b.close()


def test_threads():
    results, errors = [], []

    def work(i):
        try:
            with graft.Rules.from_text(RULES if i % 2 else "add_zero := add(x, 0f) => x\n") as r:
                for _ in range(20):
                    results.append((i % 2, r.run(MODEL)))
                    assert [m.rule for m in r.match(MODEL)][0] == "add_zero"
        except Exception as e:  # reported below, with the thread
            errors.append((i, e))

    shared = graft.Rules.from_file(BN_RULES)
    shared_out = []
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    threads += [threading.Thread(target=lambda: shared_out.extend(
        shared.run(BN_MODEL) for _ in range(10))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.close()
    assert errors == []
    assert len(results) == 160
    assert all(out == (RUN if odd else REWRITTEN) for odd, out in results)
    assert shared_out == [BN_RESULT] * 20


def test_help_reads_well():
    text = pydoc.render_doc(graft, renderer=pydoc.plaintext)
    for name in ("class Rules", "class Error", "from_file", "from_text", "run(self, model",
                 "match(self, model", "explain(self, model", "verify(self, seed",
                 "astext()"):
        assert name in text, name
    assert graft.Rules.run.__annotations__["model"] is not None


def test_readme_example(capsys):
    readme = (TOP / "README.md").read_text()
    block = re.search(r"<!-- python example -->\n```python\n(.*?)```\n```\n(.*?)```", readme,
                      re.S)
    assert block, "README.md has no python example"
    code, want = block.group(1), block.group(2)
    assert len(code.strip().splitlines()) == 5
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == want
