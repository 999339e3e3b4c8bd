#!/bin/sh
# onnx_graph.sh - ONNX models through the graph (note [onnx import] in
# src/onnx/onnx_graph.h, note [onnx export] in src/onnx/onnx_export.c):
# every model of tests/onnx/ read into a graft graph by graft run with a
# rule file for ONNX that rewrites nothing, and written back byte for byte
# (cmp); a rewrite leaves nothing behind when it fails (no output file).
# onnx_rewrite.sh checks rewritten models field by field with python3-onnx;
# the messages are golden files (tests/onnx/*.golden).  A partitioned model's
# functions, written as the bytes they were packed to for comparing them
# (note [functions packed once] in src/onnx/onnx_export_fn.c), are what
# encoding them gives: graft fmt writes the output back byte for byte, and
# the functions are named in order, a name of 136 bytes (a two-byte length)
# as well.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
test_tmpdir onnx_graph
n=0

printf 'opset onnx 17\n' >"$tmp/none.graft"
for model in "$data"/*.onnx; do
    name=$(basename "$model")
    n=$((n + 1))
    # attributes.onnx calls an op of its own domain, which no rule declares
    if ! "$GRAFT" run --allow-unknown-ops "$tmp/none.graft" "$model" -o "$tmp/$name" \
        2>"$tmp/err"; then
        fail "graft run $name: $(head -c 300 "$tmp/err")"
        continue
    fi
    [ -s "$tmp/err" ] && fail "graft run $name wrote to stderr: $(head -c 300 "$tmp/err")"
    cmp -s "$model" "$tmp/$name" || fail "graft run $name: output differs from the input"
done

# An error after reading (a node of an op the registry lacks): no output.
n=$((n + 1))
if "$GRAFT" run "$tmp/none.graft" "$data/unknown_op.onnxtxt" -o "$tmp/det.onnx" 2>/dev/null; then
    fail "graft run on a model with an unknown op succeeded"
fi
[ -e "$tmp/det.onnx" ] && fail "graft run wrote det.onnx although it failed"

# partitioned MODEL RULES: the output and its fmt round trip the same bytes,
# each function's name in order on stdout.
partitioned() {
    "$GRAFT" run "$2" "$data/$1.onnx" -o "$tmp/p.onnx" 2>"$tmp/err" ||
        fail "graft run $(basename "$2") $1: $(head -c 300 "$tmp/err")"
    "$GRAFT" fmt "$tmp/p.onnx" -o "$tmp/again.onnx" 2>"$tmp/err" && cmp -s "$tmp/p.onnx" "$tmp/again.onnx" ||
        fail "graft run $(basename "$2") $1: the functions are not their encoding"
    "$GRAFT" fmt "$tmp/p.onnx" -o "$tmp/p.onnxtxt" &&
        sed -n 's/^"\([^"]*\)" (.*/\1/p' "$tmp/p.onnxtxt"
}
rules="$src/stdpatterns/onnx_partition.graft"
n=$((n + 1))
# 52 Conv-BatchNormalization pairs of 9 kinds (kernel, stride, group):
# 9 functions, the calls of one kind sharing one (note [onnx partitions])
want=$(i=1; echo graft.conv_bn; while [ $i -le 8 ]; do echo "graft.conv_bn_$i"; i=$((i + 1)); done)
[ "$(partitioned mobilenet_v2_op13 "$rules")" = "$want" ] ||
    fail "mobilenet_v2_op13's partitions: functions $(partitioned mobilenet_v2_op13 "$rules")"
n=$((n + 1))
long=graft.$(printf '%0130d' 0)
sed "s/graft\.conv_bn/$long/" "$rules" >"$tmp/long.graft"
[ "$(partitioned conv_bn "$tmp/long.graft")" = "$long" ] ||
    fail "conv_bn's partition named $long: functions $(partitioned conv_bn "$tmp/long.graft")"

[ "$failures" -eq 0 ] && echo "$n passed, 0 failed" || echo "FAIL: $failures failures in $n"
[ "$failures" -eq 0 ]
