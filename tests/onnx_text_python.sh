#!/bin/sh
# onnx_text_python.sh - ONNX's text syntax against python3-onnx (Debian's
# 1.12; skips without it):
#   - the small hand-written models tests/onnx/text/parser_*.onnxtxt, and
#     graft's print of each, parse with onnx.parser to the model graft
#     reads from them (onnx 1.12's parser reads neither quoted names nor
#     node names, so these have none), and onnx.checker accepts it;
#   - the four corpus models the text cannot carry whole come back from
#     it with exactly what doc/onnx.md says the text loses removed;
#   - a dotted op type (a partition's call, graft.conv_bn): onnx.parser
#     splits an unquoted run at its last dot, as graft does, so it must be
#     quoted; graft reads the quoted form (note [quoted op types] in
#     grammar/onnx_text_parse.y), which onnx 1.12's parser refuses, as it
#     refuses a quoted function name (newer ones read that, no op type).
# onnx.parser writes empty strings (a node's domain, an attribute tensor's
# name) where graft writes none (doc/onnx.md): both mean the same, and the
# comparison with onnx.parser clears every empty string field.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
test_tmpdir onnx_text_python
python_onnx 'import onnx.parser'

for text in "$data"/text/parser_*.onnxtxt; do
    name=$(basename "$text" .onnxtxt)
    if ! "$GRAFT" fmt "$text" -o "$tmp/$name.onnx" ||
       ! "$GRAFT" fmt "$tmp/$name.onnx" -o "$tmp/$name.printed.onnxtxt"; then
        fail "graft fmt $name"
    fi
done
for name in attributes conv_bn if_subgraph local_function; do
    if ! "$GRAFT" fmt "$data/$name.onnx" -o "$tmp/$name.onnxtxt" ||
       ! "$GRAFT" fmt "$tmp/$name.onnxtxt" -o "$tmp/lossy_$name.onnx"; then
        fail "graft fmt $name"
    fi
done
if ! "$GRAFT" fmt "$data/text/quoted_op_type.onnxtxt" -o "$tmp/quoted_op_type.onnx"; then
    fail "graft fmt quoted_op_type"
fi

"$python" - "$data" "$tmp" <<'PY' || failures=$((failures + 1))
import glob, os, sys
import onnx, onnx.parser
data, tmp = sys.argv[1], sys.argv[2]
bad = 0

def graphs(m):
    """Every graph of m: the main one, attributes' graphs, functions' nodes' graphs."""
    todo = [m.graph]
    while todo:
        g = todo.pop()
        yield g
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    todo.append(a.g)
                todo.extend(a.graphs)

def nodes(m):
    for g in graphs(m):
        yield from g.node
    for f in m.functions:
        yield from f.node

def clear_empty_domains(m):
    for o in list(m.opset_import) + [o for f in m.functions for o in f.opset_import]:
        if o.domain == "":
            o.ClearField("domain")
    for n in nodes(m):
        if n.domain == "":
            n.ClearField("domain")
    return m

def clear_empty_strings(m):
    """Every string field that is empty, cleared (absent), recursively."""
    todo = [m]
    while todo:
        msg = todo.pop()
        for field, value in msg.ListFields():
            if field.type == field.TYPE_STRING and field.label != field.LABEL_REPEATED \
                    and value == "":
                msg.ClearField(field.name)
            elif field.type == field.TYPE_MESSAGE:
                todo.extend(value if field.label == field.LABEL_REPEATED else [value])
    return m

def strip_lost(m):
    """What doc/onnx.md says the text form cannot carry, removed."""
    clear_empty_domains(m)
    m.ClearField("training_info")
    for g in graphs(m):
        g.ClearField("doc_string")
        g.ClearField("sparse_initializer")
        g.ClearField("quantization_annotation")
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            vi.ClearField("doc_string")
        for t in g.initializer:
            t.ClearField("doc_string")
    for n in nodes(m):
        n.ClearField("doc_string")
        for a in n.attribute:
            a.ClearField("doc_string")
    return m

for text in sorted(glob.glob(os.path.join(data, "text", "parser_*.onnxtxt"))):
    name = os.path.basename(text)[:-len(".onnxtxt")]
    graft_path = os.path.join(tmp, name + ".onnx")
    graft = onnx.load(graft_path)
    for source in (text, os.path.join(tmp, name + ".printed.onnxtxt")):
        try:
            parsed = onnx.parser.parse_model(open(source).read())
        except onnx.parser.ParseError as e:
            print(f"FAIL: onnx.parser on {os.path.basename(source)}: {e}")
            bad += 1
            continue
        if clear_empty_strings(parsed) != clear_empty_strings(onnx.load(graft_path)):
            print(f"FAIL: onnx.parser reads {os.path.basename(source)} differently from graft")
            bad += 1
    try:
        onnx.checker.check_model(graft, full_check=True)
    except Exception as e:  # every checker failure, whatever its class
        print(f"FAIL: check_model({name}): {e}")
        bad += 1

for name in ("attributes", "conv_bn", "if_subgraph", "local_function"):
    original = strip_lost(onnx.load(os.path.join(data, name + ".onnx")))
    back = onnx.load(os.path.join(tmp, "lossy_" + name + ".onnx"))
    if original != back:
        print(f"FAIL: {name} lost more through the text form than doc/onnx.md says")
        bad += 1
def parses(text):
    try:
        return onnx.parser.parse_model(text)
    except onnx.parser.ParseError:
        return None

header = '<ir_version: 8, opset_import: ["" : 13, "graft.composite" : 1]>\n'
call = header + 'g (float[2] x) => (float[2] y) {{ y = {} (x) }}\n'
plain = parses(call.format("graft.composite.graft.conv_bn"))
if plain is None or (plain.graph.node[0].domain, plain.graph.node[0].op_type) != \
        ("graft.composite.graft", "conv_bn"):
    print("FAIL: onnx.parser does not split graft.composite.graft.conv_bn at its last dot")
    bad += 1
function = '<domain: "graft.composite", opset_import: ["" : 13]>\n' \
    '"graft.conv_bn" (t) => (u) { u = Relu (t) }\n'
if onnx.__version__.startswith("1.12."):
    if parses(call.format('graft.composite."graft.conv_bn"')) is not None:
        print("FAIL: onnx 1.12's parser reads a quoted op type")
        bad += 1
    if parses(call.format("graft.composite.f") + function) is not None:
        print("FAIL: onnx 1.12's parser reads a quoted function name")
        bad += 1

quoted = onnx.load(os.path.join(tmp, "quoted_op_type.onnx"))
want = [("", "Relu"), ("graft.composite", "graft.relu"), ("my-ops.v1.", "float"),
        ("my-ops.v1.", "tanh.2")]
got = [(n.domain, n.op_type) for n in quoted.graph.node]
if got != want or [f.name for f in quoted.functions] != ["graft.relu", "float", "tanh.2"]:
    print(f"FAIL: graft reads quoted_op_type.onnxtxt's op types as {got}")
    bad += 1
sys.exit(1 if bad else 0)
PY

if [ "$failures" -ne 0 ]; then
    echo "onnx_text_python: $failures failures"
    exit 1
fi
echo "onnx_text_python: onnx.parser agrees; the text loses only what doc/onnx.md says"
