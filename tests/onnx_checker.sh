#!/bin/sh
# onnx_checker.sh - every model graft writes passes python3-onnx's
# onnx.checker.check_model (full_check: types and shapes too), and reads
# back in python3-onnx equal to the model it was written from.  Needs
# python3-onnx (Debian's, 1.12); skips without it.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
test_tmpdir onnx_checker
python_onnx 'import onnx'

n=0
for model in "$data"/*.onnx; do
    name=$(basename "$model")
    if ! "$GRAFT" fmt "$model" -o "$tmp/$name" 2>"$tmp/err"; then
        fail "graft fmt $name: $(cat "$tmp/err")"
    fi
    n=$((n + 1))
done
"$python" - "$data" "$tmp" <<'PY' || failures=$((failures + 1))
import glob, os, sys
import onnx
data, out = sys.argv[1], sys.argv[2]
bad = 0
for path in sorted(glob.glob(os.path.join(out, "*.onnx"))):
    name = os.path.basename(path)
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
    except Exception as e:  # every checker failure, whatever its class
        print(f"FAIL: check_model({name}): {e}")
        bad += 1
        continue
    if onnx.load(path) != onnx.load(os.path.join(data, name)):
        print(f"FAIL: {name} reads back different from its input")
        bad += 1
sys.exit(1 if bad else 0)
PY
[ "$failures" -eq 0 ] && echo "$n passed, 0 failed" || echo "FAIL: $failures failures in $n models"
[ "$failures" -eq 0 ]
