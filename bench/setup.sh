#!/bin/sh
# bench/setup.sh - graft's fixed set-up (issue 34: at most 1 M instructions
# a run), measured with callgrind on the smallest runs: `graft run` of a
# one-rule file on a one-op-node Relay model and on tests/onnx/tiny.onnx
# (one Relu).  For each, the whole process's instructions and its phases:
# the dynamic loader before main (_dl_start: mapping and relocating graft
# and its libraries), the libraries' constructors (_dl_init), main, and
# the exit handlers (exit).  bench/RESULTS.md, "The fixed set-up (issue
# 34), session 17".
#
# Usage: GRAFT_SRCDIR=SRC sh bench/setup.sh [GRAFT...]  (default ./graft);
# with several programs (a tree before a change and after), one row each.
# Prints markdown on stdout.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
[ $# -gt 0 ] || set -- ./graft
# shellcheck source=bench/phases.sh
. "$srcdir/bench/phases.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-setup.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

printf 'def @main(%%x: Tensor[(1, 4), float32]) {\n  nn.relu(%%x)\n}\n' > "$work/one.relay"
printf 'relu_relu := nn.relu(nn.relu(x)) => nn.relu(x)\n' > "$work/one.graft"
printf 'opset onnx 17\nrelu_relu := Relu(Relu(x)) => Relu(x)\n' > "$work/one_onnx.graft"
cp "$srcdir/tests/onnx/tiny.onnx" "$work/tiny.onnx"

# row GRAFT NAME ARGS...: one table row for GRAFT ARGS (run in $work).
row() {
    graft=$1 name=$2
    shift 2
    case $graft in /*) path=$graft ;; *) path=$(pwd)/$graft ;; esac
    (cd "$work" && valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
        "$path" "$@" > /dev/null 2>&1)
    callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.out" > "$work/flat" 2>/dev/null
    total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$work/flat")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$graft" "$name" "$total" \
        "$(incl "$work/flat" _dl_start)" "$(incl "$work/flat" _dl_init)" \
        "$(incl "$work/flat" main)" "$(incl "$work/flat" exit)"
}

echo "| graft | run | whole process | loader (_dl_start) | constructors (_dl_init) |" \
     "main | exit |"
echo "|---|---|---:|---:|---:|---:|---:|"
for g in "$@"; do
    echo "bench: set-up of $g" >&2
    row "$g" "Relay: one.graft one.relay" run one.graft one.relay -o out.relay
    row "$g" "ONNX: one_onnx.graft tiny.onnx" run one_onnx.graft tiny.onnx -o out.onnx
done
