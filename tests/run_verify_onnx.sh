#!/bin/sh
# run_verify_onnx.sh - graft run --verify on ONNX models (doc/verify.md,
# "ONNX models"): the original and the rewritten model evaluated by the
# ONNX kernels on the same random inputs, the initializers as given.  On
# every model of tests/onnx/ that the evaluator runs, the right fold
# (stdpatterns/onnx_fold_bn.graft) is within the tolerance and writes the
# model; on each CNN, the fold without epsilon (the CNNs' variances go
# down to 1e-7, as trained models' do), the fold with the mean and
# variance swapped and the fold without the shift are past it by 10 times
# at least (or inf/NaN),
# name the first rewrite responsible, and write nothing.  The model read
# from ONNX's text form gives the report of the binary one; a graph input's named
# dim is given a number, one with no name is refused.  The exact reports of a few of these
# are golden files in tests/run_verify_onnx/.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
onnx=$src/tests/onnx
wrong=$src/tests/run_verify_onnx
fold=$src/stdpatterns/onnx_fold_bn.graft
cnns='conv_bn mobilenet_v2_op13 mobilenet_v2_op17 mnasnet_op13 mnasnet_op17
shufflenet_v2_op13 shufflenet_v2_op17'

# The right fold: within, and the model written.
for m in $cnns encoder_op13 encoder_op17; do
    rm -f out.onnx
    expect_status 0 "$GRAFT" run --verify "$fold" "$onnx/$m.onnx" -o out.onnx
    grep -q '^verify: output 0 .*: within$' err || fail "$m: right fold not within: $(cat err)"
    [ -s out.onnx ] || fail "$m: right fold: nothing written"
done

# Each wrong fold: past the tolerance by 10 times at least, the first
# rewrite named, nothing written.
for m in $cnns; do
    for rule in fold_no_eps fold_swap fold_no_shift; do
        rm -f out.onnx
        expect_status 1 "$GRAFT" run --verify "$wrong/$rule.graft" "$onnx/$m.onnx" -o out.onnx
        [ ! -e out.onnx ] || fail "$m $rule: wrote its output"
        grep -q '^verify: rewrite [0-9]* of [0-9]* makes the difference ' err ||
            fail "$m $rule: no rewrite named"
        line=$(grep '^graft: error: --verify: the rewritten model differs' err)
        ratio=$(echo "$line" | awk '{ e = $(NF - 4); t = $NF; sub(/,$/, "", e);
            print (e == "inf" || e == "nan") ? 1e9 : e / t }')
        awk -v r="$ratio" 'BEGIN { exit !(r >= 10) }' ||
            fail "$m $rule: past the tolerance by $ratio times only: $line"
    done
done

# The text form reads to the same report.
check "fmt conv_bn to text" "$GRAFT" fmt "$onnx/conv_bn.onnx" -o conv_bn.onnxtxt
expect_status 1 "$GRAFT" run --verify "$wrong/fold_no_shift.graft" "$onnx/conv_bn.onnx"
mv err want
expect 1 "$GRAFT" run --verify "$wrong/fold_no_shift.graft" conv_bn.onnxtxt

# A named dim is given a number (note [named dims in verify] in
# src/runtime/runner_verify.c: 2 for the first name); a dim with no name
# has no values to draw (tests/onnx/verify_dims/ has the other cases).
printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[N, 3] x) => (float[N, 3] y) {\n  y = Relu (x)\n}\n' >dyn.onnxtxt
expect_status 0 "$GRAFT" run --verify "$fold" dyn.onnxtxt
grep -q '^verify: 0 rewrites, inputs random (seed 1), dims N=2$' err ||
    fail "dyn: N not given 2: $(cat err)"
grep -q '^verify: output 0 (2, 3) float32: max difference 0 ' err || fail "dyn: $(cat err)"
sed 's/N, 3/?, 3/g' dyn.onnxtxt >unnamed.onnxtxt
echo "graft: error: --verify: graph input 'x' needs a tensor type with every dim a number or a name (\"float[1, 3] x\", \"float[N, 3] x\")" >want
expect 1 "$GRAFT" run --verify "$fold" unnamed.onnxtxt

# onnxscript's successive Clips and Max(Min(x, ub), lb) fused whatever the
# bounds (tests/run_verify_onnx/clip_onnxscript.graft) differ where the
# ranges do not meet; the library's rules leave those and fuse ranges that
# meet, within the tolerance.
clips() { # lo1 hi1 lo2 hi2: y = Clip(Clip(x, lo1, hi1), lo2, hi2), z = Max(Min(x, hi1), lo2)
    printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[2, 3] x) => (float[2, 3] y, float[2, 3] z)\n'
    printf '    <float lo1 = {%s}, float hi1 = {%s}, float lo2 = {%s}, float hi2 = {%s}> {\n' "$@"
    printf '  c = Clip (x, lo1, hi1)\n  y = Clip (c, lo2, hi2)\n  m = Min (x, hi1)\n  z = Max (m, lo2)\n}\n'
}
clips 0 1 2 3 >disjoint.onnxtxt
clips 0 2 1 3 >meeting.onnxtxt
rm -f out.onnx
expect_status 1 "$GRAFT" run --verify "$wrong/clip_onnxscript.graft" disjoint.onnxtxt -o out.onnx
grep -q '^verify: rewrite 1 of 2 makes the difference .*clip_clip_any' err ||
    fail "onnxscript's Clip fusion on disjoint ranges: $(cat err)"
[ ! -e out.onnx ] || fail "onnxscript's Clip fusion on disjoint ranges: wrote its output"
expect_status 0 "$GRAFT" run --verify --stats=counts "$src/stdpatterns/onnx/activation.graft" \
    disjoint.onnxtxt -o out.onnx
check "the library fuses no Clips of disjoint ranges" grep -q '^total: 0 rewrites' err
expect_status 0 "$GRAFT" run --verify --stats=counts "$src/stdpatterns/onnx/activation.graft" \
    meeting.onnxtxt -o out.onnx
check "the library fuses Clips of ranges that meet" grep -q '^total: 2 rewrites' err
check "and the result is within" grep -q '^verify: output 1 .*: within$' err

# onnxscript's BatchNormalization into Gemm keeps a Gemm's beta of 0.5,
# which then halves the new bias (tests/run_verify_onnx/gemm_bn_onnxscript.graft):
# the model it writes differs; the library's rule leaves that Gemm.
cat >gemm_bn.onnxtxt <<'MODEL'
<ir_version: 8, opset_import: ["" : 17]>
g (float[3, 4] x) => (float[3, 2] y) <float[4, 2] w = {1, -1, 0.5, 2, -0.25, 0.75, 3, -2},
    float[2] c = {0.5, -1.5}, float[2] s = {2, -0.5}, float[2] t = {0.25, -0.25},
    float[2] m = {0.5, 1}, float[2] v = {1.5, 0.25}> {
  gb = Gemm <beta: float = 0.5> (x, w, c)
  y = BatchNormalization (gb, s, t, m, v)
}
MODEL
rm -f out.onnx
expect_status 1 "$GRAFT" run --verify "$wrong/gemm_bn_onnxscript.graft" gemm_bn.onnxtxt -o out.onnx
grep -q '^verify: rewrite 1 of 1 makes the difference .*gemm_bn_any' err ||
    fail "onnxscript's Gemm + BatchNormalization with beta 0.5: $(cat err)"
expect_status 0 "$GRAFT" run --stats=counts "$src/stdpatterns/onnx/conv.graft" gemm_bn.onnxtxt \
    -o out.onnx
check "the library leaves a Gemm of beta 0.5" grep -q '^total: 0 rewrites' err

expect_end run_verify_onnx
