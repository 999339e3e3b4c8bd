#!/bin/sh
# onnx_symdims.sh - dims named by a parameter (note [symbolic dims] in
# src/ir/dim_symbol.c) against python3-onnx (Debian's, 1.12): ONNX's own
# shape inference of tests/onnx/symdims/symdims.onnxtxt gives the dims
# graft infers (tests/onnx/symdims/viz.golden); a model graft rewrites
# keeps its names and passes onnx.checker; one it leaves untouched is
# written back byte for byte.  Skips without python3-onnx.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
python_onnx 'import onnx'
data="$GRAFT_SRCDIR/tests/onnx/symdims"

# What ONNX 1.12's inference found (onnx/defs' broadcast, MatMul, Concat,
# Reshape and Transpose helpers): one name stays itself through Add, Relu,
# MatMul's rows, Concat's other dims, Reshape's 0 and Transpose; N with 3
# is 3; N with M is a dim ONNX makes a new name for (unk__0), graft "?".
cat >"$tmp/want" <<'TXT'
s N,16
t N,16
ym N,8
u 3,16
km N,32
r N,16
pm 16,N
qm unk__0,16
TXT
"$python" - "$data/symdims.onnxtxt" "$tmp/m.onnx" >"$tmp/onnx_dims" <<'PY'
import sys
import onnx
import onnx.parser
import onnx.shape_inference
model = onnx.parser.parse_model(open(sys.argv[1]).read())
onnx.save(model, sys.argv[2])
inferred = onnx.shape_inference.infer_shapes(model)
for v in inferred.graph.value_info:
    dims = v.type.tensor_type.shape.dim
    print(v.name, ",".join(d.dim_param or str(d.dim_value) for d in dims))
PY
check "ONNX's inference gives graft's dims" cmp -s "$tmp/want" "$tmp/onnx_dims"
cmp -s "$tmp/want" "$tmp/onnx_dims" || diff "$tmp/want" "$tmp/onnx_dims"

# Rewritten where N == N: the names kept, the checker content.
expect_status 0 "$GRAFT" run "$data/same_shape.graft" "$tmp/m.onnx" -o "$tmp/out.onnx"
check "graft run's output passes onnx.checker" onnx_checked "$tmp/out.onnx"
"$python" - "$tmp/out.onnx" >"$tmp/out_dims" <<'PY'
import sys
import onnx
import onnx.shape_inference
model = onnx.shape_inference.infer_shapes(onnx.load(sys.argv[1]))
for v in list(model.graph.input[:2]) + list(model.graph.output[:1]):
    dims = v.type.tensor_type.shape.dim
    print(v.name, ",".join(d.dim_param or str(d.dim_value) for d in dims))
print(" ".join(n.op_type for n in model.graph.node))
PY
printf 'a N,16\nb N,16\ny N,8\nSub Relu MatMul Identity Add Relu Concat Identity Reshape Transpose Identity Add Identity\n' \
    >"$tmp/want_out"
check "the rewritten model keeps N" cmp -s "$tmp/want_out" "$tmp/out_dims"
cmp -s "$tmp/want_out" "$tmp/out_dims" || diff "$tmp/want_out" "$tmp/out_dims"

# Untouched (no != of a symbol holds): byte for byte as python3-onnx wrote it.
expect_status 0 "$GRAFT" run "$data/differ.graft" "$tmp/m.onnx" -o "$tmp/same.onnx"
check "a model no rule changes is written back byte for byte" cmp -s "$tmp/m.onnx" "$tmp/same.onnx"
expect_end onnx_symdims
