#!/bin/sh
# onnx_declared_types.sh - the types a model declares, checked against
# graft's inference (note [declared types checked] in
# src/onnx/onnx_import.c).  (1) python3-onnx's shape inference
# (onnx.shape_inference.infer_shapes, strict mode) gives every value of
# the corpus models of tests/onnx a value_info; graft reads each of those
# models without complaint, so its inference agrees with ONNX's at every
# node.  (2) The same mobilenet with one value_info's dtype made int64,
# and with another's dim 1 made 3: ONNX's own full check refuses each
# ("Inferred elem type differs from existing elem type: (FLOAT) vs
# (INT64)"), graft too, naming the node, the value and both types, with
# exit 1 and no output written.  The text models' messages are goldens
# (tests/onnx/text/declared_output_*.golden).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
test_tmpdir onnx_declared_types
python_onnx 'import onnx'

mkdir "$tmp/inferred" || exit 99
"$python" - "$src/tests/onnx" "$tmp" <<'PY' || exit 1
import glob, os, sys
import onnx
from onnx import shape_inference

src, out = sys.argv[1], sys.argv[2]
for path in sorted(glob.glob(os.path.join(src, '*.onnx'))):
    name = os.path.basename(path)
    if name == 'attributes.onnx':  # an op of a domain of graft's tests only
        continue
    m = shape_inference.infer_shapes(onnx.load(path), strict_mode=True)
    onnx.save(m, os.path.join(out, 'inferred', name))

def refused(m):
    try:
        onnx.checker.check_model(m, full_check=True)
    except Exception:
        return True
    return False

m = onnx.load(os.path.join(out, 'inferred', 'mobilenet_v2_op17.onnx'))
values = {vi.name: vi for vi in m.graph.value_info}
conv = values['/features/features.1/conv/conv.0/conv.0.0/Conv_output_0']
conv.type.tensor_type.elem_type = onnx.TensorProto.INT64
assert refused(m), 'the checker took an int64 Conv output'
onnx.save(m, os.path.join(out, 'bad_dtype.onnx'))
conv.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
clip = values['/features/features.1/conv/conv.0/conv.0.2/Clip_output_0']
clip.type.tensor_type.shape.dim[1].dim_value = 3
assert refused(m), 'the checker took 3 channels for 8'
onnx.save(m, os.path.join(out, 'bad_dim.onnx'))
PY

printf 'opset onnx 17\n' >"$tmp/none.graft"
count=0
for model in "$tmp"/inferred/*.onnx; do
    count=$((count + 1))
    "$GRAFT" run "$tmp/none.graft" "$model" -o "$tmp/out.onnx" 2>"$tmp/err" ||
        fail "$(basename "$model"): $(head -c 300 "$tmp/err")"
done
[ "$count" -ge 17 ] || fail "only $count models inferred"

refused() { # refused MODEL WANT: graft run refuses MODEL with WANT, writes nothing
    rm -f "$tmp/out.onnx"
    if "$GRAFT" run "$tmp/none.graft" "$tmp/$1" -o "$tmp/out.onnx" 2>"$tmp/err"; then
        fail "$1: not refused"
    fi
    [ "$(cat "$tmp/err")" = "$tmp/$1: error: $2" ] || fail "$1: stderr is $(cat "$tmp/err")"
    [ -e "$tmp/out.onnx" ] && fail "$1: an output was written"
}
conv=/features/features.1/conv/conv.0/conv.0.0/Conv
refused bad_dtype.onnx "node '$conv' ($(basename "$conv")): '${conv}_output_0' is declared\
 Tensor[(1, 8, 32, 32), int64], but the node makes Tensor[(1, 8, 32, 32), float32]"
clip=/features/features.1/conv/conv.0/conv.0.2/Clip
refused bad_dim.onnx "node '$clip' ($(basename "$clip")): '${clip}_output_0' is declared\
 Tensor[(1, 3, 32, 32), float32], but the node makes Tensor[(1, 8, 32, 32), float32]"

echo "onnx_declared_types: $count models agree, $failures failures"
[ "$failures" -eq 0 ]
