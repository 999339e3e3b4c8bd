#!/bin/sh
# bench/onnx_library.sh - issue 29's numbers: the whole ONNX fusion library
# (stdpatterns/onnx/library.graft, its five files) applied by `graft run`
# to the transformer and CNN exports of the corpus (tests/onnx/*_op13.onnx,
# *_op17.onnx), against one rule (eliminate_identity alone) and one rule
# file (eliminate.graft): time and instructions per node, and whether the
# growth from one rule file to all of them stays within 1.5x per node
# (all the rules are one automaton, so a node is labelled once whatever
# the number of rules).  Run by `make bench-onnx-library` and `make bench`.
#
# Per node = (the model's figure - tiny.onnx's, the same rules on a model
# of one node) / (the model's nodes - 1), so that the fixed set-up (the op
# registry, the rule files read and compiled to one automaton) is left
# out; the set-up is printed apart.  Instructions come from callgrind
# (noise-free), and decide whether the growth holds; time is the shortest
# of BENCH_ONNX_LIB_RUNS runs (default 20) of the process, on a shared
# machine.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree),
# BENCH_ONNX_LIB_MODELS (default the eight exports), BENCH_ONNX_LIB_RUNS.
# Prints markdown.
set -eu
srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the -O2 build tree}
graft=$build/graft
runs=${BENCH_ONNX_LIB_RUNS:-20}
models=${BENCH_ONNX_LIB_MODELS:-$(ls "$srcdir"/tests/onnx/*_op13.onnx "$srcdir"/tests/onnx/*_op17.onnx)}
tiny=$srcdir/tests/onnx/tiny.onnx
lib=$srcdir/stdpatterns/onnx
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-onnx-lib.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
command -v valgrind >/dev/null 2>&1 || { echo "(bench/onnx_library.sh: needs valgrind)"; exit 0; }
python=/usr/bin/python3
"$python" -c 'import onnx' 2>/dev/null || { echo "(bench/onnx_library.sh: needs python3-onnx)"; exit 0; }

printf 'opset onnx 17\neliminate_identity := Identity(x) => x\n' > "$work/one_rule.graft"
sets="one_rule eliminate library"
rules_of() {
    case $1 in
    one_rule) echo "$work/one_rule.graft" ;;
    *) echo "$lib/$1.graft" ;;
    esac
}

# rule_count FILE...: the rules of these library files (NAME := at the
# start of a line).
rule_count() {
    for f in "$@"; do
        grep -h '^[a-z_0-9]* \(\[[^]]*\] \)\?:=' "$lib/$f.graft"
    done | wc -l | tr -d ' '
}

nodes() {
    "$python" -c 'import sys, onnx; print(len(onnx.load(sys.argv[1]).graph.node))' "$1"
}

# instructions RULES MODEL: the whole process's, by callgrind.
instructions() {
    valgrind -q --tool=callgrind --callgrind-out-file="$work/cg" \
        "$graft" run -Wno-ambiguous-overlap "$1" "$2" -o "$work/out.onnx"
    awk '/^summary:/ { print $2 }' "$work/cg"
}

# seconds RULES MODEL: the shortest wall time of $runs runs (the machine
# is shared: the least disturbed run).
seconds() {
    i=0
    while [ "$i" -lt "$runs" ]; do
        start=$(date +%s%N)
        "$graft" run -Wno-ambiguous-overlap "$1" "$2" -o "$work/out.onnx"
        end=$(date +%s%N)
        echo $((end - start))
        i=$((i + 1))
    done | sort -n | awk 'NR == 1 { printf("%.6f\n", $1 / 1e9) }'
}

for set in $sets; do
    r=$(rules_of "$set")
    echo "bench: onnx library, $set on tiny.onnx" >&2
    instructions "$r" "$tiny" > "$work/setup_i.$set"
    seconds "$r" "$tiny" > "$work/setup_s.$set"
done
tiny_nodes=$(nodes "$tiny")

echo "## The ONNX fusion library (issue 29)"
echo
echo "\`graft run\` as a process: one rule (\`eliminate_identity\`), one rule file"
echo "(\`eliminate.graft\`, $(rule_count eliminate) rules) and the whole library" \
    "(\`onnx/library.graft\`, $(rule_count eliminate activation normalization attention matmul) rules"
echo "in five files), on each model; per node = (the model's figure - tiny.onnx's) / (its"
echo "nodes - $tiny_nodes), callgrind instructions and the shortest wall time of $runs runs."
echo "Growth = the library's instructions per node over the one file's (and, in"
echo "parentheses, over the one rule's); it holds when <= 1.5x."
echo
echo "| model | nodes | rewrites (library) | one rule: instr/node | one file: instr/node | library: instr/node | growth | one rule: ns/node | one file: ns/node | library: ns/node | holds |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for model in $models; do
    name=$(basename "$model" .onnx)
    n=$(nodes "$model")
    echo "bench: onnx library on $name ($n nodes)" >&2
    "$graft" run -Wno-ambiguous-overlap --stats "$lib/library.graft" "$model" \
        -o "$work/out.onnx" 2> "$work/stats"
    rewrites=$(awk '$1 == "total:" { print $2 }' "$work/stats")
    row="$name $n ${rewrites:-0}"
    for set in $sets; do
        r=$(rules_of "$set")
        i=$(instructions "$r" "$model")
        s=$(seconds "$r" "$model")
        row="$row $i $(cat "$work/setup_i.$set") $s $(cat "$work/setup_s.$set")"
    done
    echo "$row"
done | awk -v t="$tiny_nodes" '{
    d = $2 - t
    for (k = 0; k < 3; k++) {
        ins[k] = ($(4 + 4 * k) - $(5 + 4 * k)) / d
        ns[k] = ($(6 + 4 * k) - $(7 + 4 * k)) * 1e9 / d
    }
    gi = ins[2] / ins[1]; g1 = ins[2] / ins[0]
    printf("| %s | %d | %d | %.0f | %.0f | %.0f | %.2fx (%.2fx) | %.0f | %.0f | %.0f | %s |\n",
           $1, $2, $3, ins[0], ins[1], ins[2], gi, g1, ns[0], ns[1], ns[2],
           gi <= 1.5 ? "yes" : "no")
}'
echo
echo "Set-up (tiny.onnx, instructions / ms): one rule $(cat "$work/setup_i.one_rule") /" \
    "$(awk '{ printf("%.1f", $1 * 1000) }' "$work/setup_s.one_rule"), one file" \
    "$(cat "$work/setup_i.eliminate") / $(awk '{ printf("%.1f", $1 * 1000) }' "$work/setup_s.eliminate")," \
    "library $(cat "$work/setup_i.library") / $(awk '{ printf("%.1f", $1 * 1000) }' "$work/setup_s.library")."
