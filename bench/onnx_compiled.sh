#!/bin/sh
# bench/onnx_compiled.sh - compiled ONNX rewriters against graft run (issue
# 28, doc/compile.md "ONNX models"): for stdpatterns/onnx_fold_bn.graft and
# onnx_partition.graft, a rewriter built with graft compile --exe, and
# graft run, each rewriting every CNN of tests/onnx/ (mobilenet_v2,
# mnasnet, shufflenet_v2; opsets 13 and 17) to -o OUT.onnx; run by `make
# bench`, alone by `make bench-onnx-compiled`.
#
# Per model and rule file: instructions (callgrind, the whole process) of
# graft fmt MODEL -o OUT.onnx (reading and writing the model alone), of
# graft run and of the rewriter, each per node of the model, with the
# ratio graft run / rewriter for the whole process and for the work beyond
# reading and writing (the process less graft fmt's); the best wall time
# of BENCH_ONNX_RUNS runs of each.  The two outputs must be equal (cmp).
# Prints markdown.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree, its graft and
# libgraft.a built), BENCH_ONNX_RUNS (default 5), BENCH_ONNX_CNNS (default
# the six CNNs of tests/onnx/ named above).  Needs
# valgrind for the instruction columns (left out, said so, without it).
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the build tree}
runs=${BENCH_ONNX_RUNS:-5}
graft=$build/graft
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-onnx-compiled.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
. "$srcdir/bench/measure.sh"
models=${BENCH_ONNX_CNNS:-}
if [ -z "$models" ]; then
    for name in mobilenet_v2 mnasnet shufflenet_v2; do
        models="$models $srcdir/tests/onnx/${name}_op13.onnx $srcdir/tests/onnx/${name}_op17.onnx"
    done
fi
have_valgrind=no
command -v valgrind >/dev/null 2>&1 && have_valgrind=yes

# per A N: A / N with one decimal, - when A is none.
per() {
    case $1 in -|'') echo - ;; *) awk -v a="$1" -v n="$2" 'BEGIN { printf "%.0f", a / n }' ;; esac
}
# ratio A B: A / B with two decimals.
ratio() {
    case $1$2 in *-*|'') echo - ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }' ;; esac
}

echo "## Compiled ONNX rewriters against graft run"
echo
echo "Instructions per node (callgrind, whole processes; the model written to -o OUT.onnx):"
echo "fmt is graft fmt MODEL -o OUT.onnx, the reading and writing both include; beyond"
echo "fmt is the process less that.  Wall times: the best of $runs runs, in ms."
[ "$have_valgrind" = yes ] || echo "(valgrind is not installed: no instruction counts.)"
for rules in onnx_fold_bn onnx_partition; do
    "$graft" compile --exe "$srcdir/stdpatterns/$rules.graft" -o "$work/$rules"
done
echo
echo "| model | nodes | rules | fmt | graft run | rewriter | ratio | beyond fmt: run | rewriter | ratio | wall: run | rewriter |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in $models; do
    "$graft" fmt "$m" -o "$work/m.onnxtxt"
    nodes=$(awk '/\{$/ { inside = 1; next } /^}/ { inside = 0 } inside && / = / { n++ }
        END { print n + 0 }' "$work/m.onnxtxt")
    fmt=$(instructions "$graft" fmt "$m" -o "$work/f.onnx")
    for rules in onnx_fold_bn onnx_partition; do
        r=$srcdir/stdpatterns/$rules.graft
        run=$(instructions "$graft" run "$r" "$m" -o "$work/i.onnx")
        comp=$(instructions "$work/$rules" "$m" -o "$work/c.onnx")
        "$graft" run "$r" "$m" -o "$work/i.onnx"
        "$work/$rules" "$m" -o "$work/c.onnx"
        cmp -s "$work/i.onnx" "$work/c.onnx" || echo "$rules on $m: the outputs differ!"
        run_ms=$(best_ms 1 "$graft" run "$r" "$m" -o "$work/i.onnx")
        comp_ms=$(best_ms 1 "$work/$rules" "$m" -o "$work/c.onnx")
        run_net=-; comp_net=-
        if [ "$fmt" != - ]; then run_net=$((run - fmt)); comp_net=$((comp - fmt)); fi
        echo "| $(basename "$m" .onnx) | $nodes | $rules | $(per "$fmt" "$nodes") |" \
             "$(per "$run" "$nodes") | $(per "$comp" "$nodes") | $(ratio "$run" "$comp") |" \
             "$(per "$run_net" "$nodes") | $(per "$comp_net" "$nodes") |" \
             "$(ratio "$run_net" "$comp_net") | $run_ms | $comp_ms |"
    done
done
