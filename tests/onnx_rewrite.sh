#!/bin/sh
# onnx_rewrite.sh - rewritten ONNX models checked with python3-onnx
# (tests/onnx_rewrite.py): a rule that rewrites one node changes that
# NodeProto and no other field of the model; stdpatterns/onnx_fold_bn.graft
# folds every BatchNormalization of the corpus's CNNs, keeps every field
# it does not rewrite, and computes what the model computed (within float32
# rounding, on conv_bn.onnx and tests/std/onnx_fold_bn/input.onnx, whose
# near misses it leaves alone); stdpatterns/onnx_partition.graft makes
# each Conv and BatchNormalization a call of a model-local function and
# computes the same values too; stdpatterns/onnx/merge.graft's rules of
# several roots compute the same values on tests/std/onnx_merge/input.onnx
# (in float64, exactly), and so do tests/onnx/roots_partition.graft's
# partitions of several roots there, functions of several outputs, and
# tests/onnx/shared_partition.graft's, two calls of one function;
# onnx.checker.check_model (full_check) accepts
# every model written.  Needs python3-onnx (Debian's, 1.12) and numpy;
# skips without them.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
test_tmpdir onnx_rewrite
python_onnx 'import onnx, numpy'

run() { # run RULES MODEL OUT
    if ! "$GRAFT" run "$1" "$data/$2" -o "$tmp/$3" 2>"$tmp/err"; then
        fail "graft run $(basename "$1") $2: $(head -c 300 "$tmp/err")"
    fi
}
run "$data/gap_to_reducemean.graft" mobilenet_v2_op13.onnx one_node.onnx
for model in conv_bn mobilenet_v2_op13 mobilenet_v2_op17 mnasnet_op13 shufflenet_v2_op17; do
    run "$src/stdpatterns/onnx_fold_bn.graft" "$model.onnx" "folded_$model.onnx"
done
run "$src/stdpatterns/onnx_fold_bn.graft" ../std/onnx_fold_bn/input.onnx folded_std.onnx
run "$src/stdpatterns/onnx/merge.graft" ../std/onnx_merge/input.onnx merged_std.onnx
run "$data/roots_partition.graft" ../std/onnx_merge/input.onnx roots_partitioned.onnx
for model in conv_bn mobilenet_v2_op13; do
    run "$src/stdpatterns/onnx_partition.graft" "$model.onnx" "partitioned_$model.onnx"
done
"$GRAFT" fmt "$data/shared_partition.onnxtxt" -o "$tmp/shared.onnx" || failures=$((failures + 1))
run "$data/shared_partition.graft" shared_partition.onnxtxt shared_partitioned.onnx
[ "$failures" -eq 0 ] || exit 1
"$python" "$src/tests/onnx_rewrite.py" "$data" "$tmp"
