#!/bin/sh
# onnx_check_import.sh - note [check in the import] (src/onnx/onnx_import.c):
# a binary model graft viz and graft run load is checked as it is imported,
# and says what graft fmt (which checks it first) says.  Every malformed
# file of tests/onnx/bad/ gets the same diagnostics, exactly, and exit
# status 1 from graft viz as from graft fmt (a graph fault reported
# alone, before any fault the import would find: graph_and_tensor_faults);
# a fault only the import sees (raw_data its shape contradicts) is
# reported once; every model of tests/onnx/ loads (those of another domain
# or with subgraphs checked first, the others in the import).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
data="$GRAFT_SRCDIR/tests/onnx"

bad=0
for model in "$data"/bad/*.onnx; do
    name=$(basename "$model" .onnx)
    expect_status 1 "$GRAFT" fmt "$model" -o "$tmp/out.onnx"
    cp "$tmp/err" "$tmp/want"
    expect 1 "$GRAFT" viz "$model"
    [ -s "$tmp/out" ] && fail "viz bad/$name.onnx wrote to stdout"
    bad=$((bad + 1))
done
[ "$bad" -ge 23 ] || fail "only $bad malformed files in tests/onnx/bad"

# The graph fault alone: not the initializer's, which fmt never sees.
grep -q "raw_data" "$tmp/err" && fail "graph_and_tensor_faults: the tensor's fault reported"

# A fault of the import alone: an initializer of 3 floats with 5 bytes.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$data/bad" "$tmp/raw.onnx" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from make_bad import graph, ld, model, node, v
init = ld(5, v(1, 3) + v(2, 1) + ld(8, "w") + ld(9, b"\0" * 5))
open(sys.argv[2], "wb").write(model(graph([node(["x"], ["y"], "Relu", "r")]) + init))
PY
    printf "%s: error: tensor 'w': raw_data has 5 bytes; %s\n" "$tmp/raw.onnx" \
        "its type Tensor[(3), float32] needs 12" > "$tmp/want"
    expect 1 "$GRAFT" viz "$tmp/raw.onnx"
    expect_status 0 "$GRAFT" fmt "$tmp/raw.onnx" -o "$tmp/raw_out.onnx"
fi

good=0
for model in "$data"/*.onnx; do
    expect_status 0 "$GRAFT" viz "$model"
    [ -s "$tmp/out" ] || fail "viz $(basename "$model"): no output"
    good=$((good + 1))
done
[ "$good" -ge 9 ] || fail "only $good models in tests/onnx"

echo "onnx_check_import: $bad malformed files, $good models"
expect_end onnx_check_import
