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
# from ONNX's text form gives the report of the binary one; a graph input
# without every dim known is refused.  The exact reports of a few of these
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

# A graph input of unknown dims has no values to draw.
printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[N, 3] x) => (float[N, 3] y) {\n  y = Relu (x)\n}\n' >dyn.onnxtxt
echo "graft: error: --verify: graph input 'x' needs a tensor type with every dim known (\"float[1, 3] x\")" >want
expect 1 "$GRAFT" run --verify "$fold" dyn.onnxtxt

expect_end run_verify_onnx
