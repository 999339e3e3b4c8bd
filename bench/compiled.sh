#!/bin/sh
# bench/compiled.sh - compiled Relay rewriters against graft run (issue 34:
# "a compiled rewriter >= 2x faster than graft run with the same rules, on
# the workload and on the CNN corpus"); run by `make bench`, alone by
# `make bench-compiled`.  bench/onnx_compiled.sh does the same for ONNX.
#
# The workload: bench/e2e.sh's side-by-side batch norms (BENCH_COMPILED_BLOCKS
# blocks, default 10000) with its two rule files (the seed's rule as a
# partition and as a rewrite); the corpus: every model of GRAFT_BENCH_CORPUS
# (default tests/corpus: eight CNNs and two transformers) with
# bench/rules/models.graft.  Per model and rule file, callgrind's
# instructions (noise-free) of graft run RULES MODEL -o OUT and of the
# rewriter graft compile --exe RULES made, both whole processes, and inside
# them: runner_run (the rewrite or partition and printing, after the model
# was read) and engine_new (the set-up of the engine: the automaton's
# index, the labeller, the matcher).  The two outputs must be equal (cmp).
# Prints markdown, with whether ">= 2x" holds for the whole process.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (a build tree with graft,
# bench/graft-bench and libgraft built), GRAFT_BENCH_CORPUS,
# BENCH_COMPILED_BLOCKS.  Needs valgrind.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the build tree}
corpus=${GRAFT_BENCH_CORPUS:-$srcdir/tests/corpus}
blocks=${BENCH_COMPILED_BLOCKS:-10000}
graft=$build/graft
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-compiled.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1
then
    echo "bench/compiled.sh: needs valgrind (callgrind): not run"
    exit 0
fi

printf 'bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition\n' > "$work/partition.graft"
cp "$srcdir/examples/bn.graft" "$work/rewrite.graft"
cp "$srcdir/bench/rules/models.graft" "$work/models.graft"
for rules in partition rewrite models; do
    "$graft" compile --exe "$work/$rules.graft" -o "$work/$rules" 2>/dev/null # its overlap warnings
done

# measure OUT CMD...: runs CMD under callgrind; prints "TOTAL RUN SETUP",
# the whole process, runner_run and engine_new (inclusive; the first line
# of each, as callgrind_annotate may list a function again under the file
# its code was inlined from), and leaves the process's output in OUT (CMD
# writes it there).
measure() {
    cg=$work/cg.out
    shift
    valgrind -q --tool=callgrind --callgrind-out-file="$cg" "$@" >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --threshold=100 "$cg" 2>/dev/null | awk '
        /PROGRAM TOTALS/ { gsub(/,/, "", $1); total = $1 }
        / [^ ]*:runner_run / && !run { gsub(/,/, "", $1); run = $1 }
        / [^ ]*:engine_new / && !setup { gsub(/,/, "", $1); setup = $1 }
        END { printf "%d %d %d\n", total, run, setup }'
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'
}

# row NAME MODEL RULES: one line of the table.
row() {
    set -- "$1" "$2" "$3" "$(grep -c ' = ' "$2" || true)"
    i=$(measure "$work/i.relay" "$graft" run "$work/$3.graft" "$2" -o "$work/i.relay")
    c=$(measure "$work/c.relay" "$work/$3" "$2" -o "$work/c.relay")
    cmp -s "$work/i.relay" "$work/c.relay" || echo "$3 on $1: the outputs differ!" >&2
    set -- "$@" $i $c
    # $5 $6 $7: run's total, runner_run, engine_new; $8 $9 ${10}: the rewriter's
    echo "| $1 | $4 | $3 | $5 | $8 | $(ratio "$5" "$8") | $6 | $9 | $(ratio "$6" "$9") |" \
         "$7 | ${10} | $(awk -v a="$5" -v b="$8" 'BEGIN { print (a >= 2 * b) ? "yes" : "no" }') |"
}

echo "## Compiled Relay rewriters against graft run"
echo
echo "Instructions (callgrind): whole process; runner_run (rewrite or partition and"
echo "printing, after the model was read); engine_new (the engine's set-up)."
echo
echo "| model | bindings | rules | graft run | rewriter | ratio | runner_run: run | rewriter |" \
     "ratio | engine_new: run | rewriter | 2x |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
"$build/bench/graft-bench" sidebyside "$blocks" > "$work/workload.relay"
for rules in partition rewrite; do
    row "workload ($blocks blocks)" "$work/workload.relay" "$rules"
done
for m in "$corpus"/*.relay; do
    [ -f "$m" ] || continue
    row "$(basename "$m" .relay)" "$m" models
done
