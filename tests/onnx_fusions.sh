#!/bin/sh
# onnx_fusions.sh - stdpatterns/onnx/conv.graft (ONNX Runtime's Conv
# fusions, computed weights: fold(...)) on the CNN corpus and on
# tests/onnx/fusions/conv_fusions.onnxtxt and pad_fusions.onnxtxt (PadFusion),
# which hold one of each fusion and near misses; tests/onnx_fusions.py checks each model written: its
# count of fusions against an independent count over the ONNX graph, its
# values against the original's, onnx.checker, no arithmetic on weights.
# Every rule of conv.graft applies on one of the models at least.  The
# exact outputs and counts are golden files (tests/onnx/fusions/).
# Needs python3-onnx (Debian's, 1.12) and numpy; skips without them.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
test_tmpdir onnx_fusions
python_onnx 'import onnx, numpy'

names=
fuse() { # fuse NAME MODEL: MODEL as NAME.before.onnx, fused as NAME.onnx
    if ! "$GRAFT" fmt "$2" -o "$tmp/$1.before.onnx" 2>"$tmp/err" ||
        ! "$GRAFT" run --stats=counts "$src/stdpatterns/onnx/conv.graft" \
            "$tmp/$1.before.onnx" -o "$tmp/$1.onnx" 2>"$tmp/$1.stats"; then
        fail "$1: $(head -c 300 "$tmp/err" "$tmp/$1.stats")"
    fi
    names="$names $1"
}
fuse conv_fusions "$data/fusions/conv_fusions.onnxtxt"
fuse pad_fusions "$data/fusions/pad_fusions.onnxtxt"
for model in conv_bn mobilenet_v2_op13 mnasnet_op13; do
    fuse "$model" "$data/$model.onnx"
done
# Every rule of conv.graft applies on one of these models at least.
grep -o '^[a-z_0-9]* :=' "$src/stdpatterns/onnx/conv.graft" | sed 's/ .*//' | sort \
    >"$tmp/rules"
cat "$tmp"/*.stats | awk 'NF >= 4 && $4 ~ /^[0-9]+$/ && $4 > 0 { print $1 }' | sort -u \
    >"$tmp/fired"
for rule in $(comm -23 "$tmp/rules" "$tmp/fired"); do
    fail "conv.graft's $rule applies on none of the models"
done
[ -s "$tmp/rules" ] || { echo "FAIL: no rules in conv.graft"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] || exit 1
# shellcheck disable=SC2086 # the names are words
"$python" "$src/tests/onnx_fusions.py" "$data" "$tmp" $names
