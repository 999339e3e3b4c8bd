#!/bin/sh
# bench/run.sh - the driver behind `make bench` (bench/bench.am).
#
# Builds graft, libgraft.a and bench/graft-bench with -O2 in a separate
# build tree (bench-o2/ under the current build directory), runs the graph-size and
# rule-count measurements, each graph size in a fresh process, and prints
# the tables of bench/RESULTS.md; the same text goes to bench-results.md,
# and graft-bench's raw key=value lines to bench-results.md.raw.  Then
# bench/e2e.sh (the side-by-side workload), bench/corpus.sh (the corpus
# models) and bench/verify.sh (the verifier) add their tables.
#
# Environment: GRAFT_SRCDIR (the source tree, set by make), MAKE,
# BENCH_SIZES (op-node counts, default 10^3..10^7), BENCH_RULES (rule
# counts), BENCH_RULE_OPS (model size for the rule counts),
# GRAFT_BENCH_CFLAGS (default "-O2 -g").
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
make=${MAKE:-make}
sizes=${BENCH_SIZES:-"1000 10000 100000 1000000 10000000"}
rule_counts=${BENCH_RULES:-"1 10 100 500 1000"}
rule_ops=${BENCH_RULE_OPS:-100000}
profile_ops=${BENCH_PROFILE_OPS:-10000}
cflags=${GRAFT_BENCH_CFLAGS:-"-O2 -g"}
build=$(pwd)/bench-o2
out=$(pwd)/bench-results.md
work=${TMPDIR:-/tmp}/graft-bench.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT INT TERM

# ---- an -O2 build of its own (bench/o2build.sh) ----
GRAFT_SRCDIR=$srcdir MAKE=$make sh "$srcdir/bench/o2build.sh" "$build" "$cflags"
$make -s -C "$build" -j2 bench/graft-bench >&2
have_graft=no
if $make -s -C "$build" -j2 graft libgraft.a > "$work/graft-build.log" 2>&1; then
    have_graft=yes
fi
gb=$build/bench/graft-bench
export GRAFT_BENCH_CORPUS="$srcdir/tests/corpus"
export GRAFT_BENCH_BLOCKS="$srcdir/bench/blocks"
rules="$srcdir/bench/rules/models.graft"

# ---- measurements ----
start=$(date +%s)
: > "$work/graph.txt"
for n in $sizes; do
    echo "bench: graph of $n op nodes" >&2
    "$gb" graph "$n" "$rules" >> "$work/graph.txt"
done
echo "bench: $rule_counts rules on $rule_ops op nodes" >&2
# shellcheck disable=SC2086
"$gb" rulescale "$rule_ops" $rule_counts > "$work/rules.txt"

# Compiled rules: graft compile, cc, and the rule-count measurement on the
# emitted tables (bench/bench_compiled.c), when graft compile works.
compiled=no
: > "$work/compile.txt"
if [ "$have_graft" = yes ] && "$build/graft" compile --help >/dev/null 2>&1 &&
   ${CC:-cc} $cflags -I"$srcdir/include/graft" -I"$srcdir/src/base" -I"$srcdir/src/ir" -I"$srcdir/src/runtime" -I"$srcdir/src/compiler" -I"$srcdir/src/relay" -I"$srcdir/bench" -c "$srcdir/bench/bench_compiled.c" \
       -o "$work/bench_compiled.o" 2>> "$work/compile.log"; then
    compiled=yes
    objs=""
    for o in bench_run bench_block bench_model bench_rules bench_baseline bench_measure \
             bench_flat; do
        objs="$objs $build/bench/$o.o"
    done
    for n in $rule_counts; do
        echo "bench: graft compile of $n rules" >&2
        "$gb" rules "$n" > "$work/r$n.graft"
        t0=$(date +%s.%N)
        "$build/graft" compile "$work/r$n.graft" -o "$work/r$n.c" --name bench_rules \
            2>> "$work/compile.log" || { compiled=no; break; }
        t1=$(date +%s.%N)
        ${CC:-cc} $cflags -I"$srcdir/include/graft" -I"$srcdir/src/base" -I"$srcdir/src/ir" -I"$srcdir/src/runtime" -I"$srcdir/src/compiler" -c "$work/r$n.c" -o "$work/r$n.o" \
            2>> "$work/compile.log" || { compiled=no; break; }
        t2=$(date +%s.%N)
        echo "compile n=$n graft_s=$(awk "BEGIN { print $t1 - $t0 }") cc_s=$(awk "BEGIN { print $t2 - $t1 }")" \
             "c_bytes=$(wc -c < "$work/r$n.c") c_lines=$(wc -l < "$work/r$n.c")" >> "$work/compile.txt"
        # shellcheck disable=SC2086
        ${CC:-cc} -o "$work/cb$n" "$work/bench_compiled.o" "$work/r$n.o" $objs \
            "$build/libgraftc.a" "$build/libgraft_runtime.a" "$build/libgraft_onnx.a" \
            -lprotobuf-c "$build/libgraft_relay.a" "$build/libgraft_ir.a" \
            "$build/libgraft_base.a" -lm 2>> "$work/compile.log" &&
            "$work/cb$n" "$rule_ops" "$n" >> "$work/compile.txt" || { compiled=no; break; }
    done
fi

# Instruction counts per phase (noise-free, unlike times), and the
# functions that execute the most instructions, from one callgrind run.
profile=no
if command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1; then
    echo "bench: callgrind profile of a graph of $profile_ops op nodes" >&2
    if GRAFT_BENCH_ONCE=1 valgrind -q --tool=callgrind --callgrind-out-file="$work/cg.out" \
           "$gb" graph "$profile_ops" "$rules" > "$work/profile-run.txt" 2>/dev/null; then
        profile=yes
        callgrind_annotate --inclusive=yes "$work/cg.out" > "$work/cg-incl.txt" 2>/dev/null
    fi
    # graft's phases only: collection toggles on entering and leaving each.
    toggles=""
    for fn in relay_load labels_all engine_matches engine_rewrite engine_partition relay_print; do
        toggles="$toggles --toggle-collect=$fn"
    done
    # shellcheck disable=SC2086
    if [ "$profile" = yes ] && GRAFT_BENCH_ONCE=1 valgrind -q --tool=callgrind $toggles \
           --callgrind-out-file="$work/cg-graft.out" "$gb" graph "$profile_ops" "$rules" \
           > /dev/null 2>&1; then
        callgrind_annotate "$work/cg-graft.out" > "$work/cg-self.txt" 2>/dev/null
    fi
fi
end=$(date +%s)

# ---- tables ----
{
echo "## Run"
echo
echo "- machine: $("$gb" machine); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "- command: \`make bench\` (BENCH_SIZES=\"$sizes\" BENCH_RULES=\"$rule_counts\" BENCH_RULE_OPS=$rule_ops BENCH_PROFILE_OPS=$profile_ops)"
echo "- build: separate configure, CFLAGS=\"$cflags\", no sanitizers; $(${CC:-cc} --version | head -1)"
echo "- blocks: $(sed -n 's/.*blocks=\([a-z]*\).*/\1/p' "$work/graph.txt" | head -1); measured in $((end - start)) s on $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
[ -f "$work/compile.txt" ] || : > "$work/compile.txt"
awk -f "$srcdir/bench/tables.awk" "$work/graph.txt" "$work/rules.txt" "$work/compile.txt"
if [ "$profile" = yes ]; then
    ops=$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' "$work/profile-run.txt")
    echo
    echo "## Profile (callgrind, graph of $ops op nodes, every phase once)"
    echo
    echo "Instructions per op node in each phase (inclusive):"
    echo
    echo "| phase | function | instructions/node |"
    echo "|---|---|---:|"
    for f in relay_load:load baseline_traverse:traverse phase_label:label phase_match:match \
             flat_traverse:flat-traverse phase_flat_class:classes phase_flat_label:flat-label \
             flat_verify:verify phase_flat_match:flat-match \
             baseline_match_all:naive engine_rewrite:rewrite engine_partition:partition \
             relay_print:print; do
        fn=${f%%:*}
        awk -v fn="$fn" -v phase="${f##*:}" -v ops="$ops" '
            $0 ~ ":" fn " " && !done { gsub(",", "", $1); printf("| %s | %s | %.0f |\n", phase, fn, $1 / ops); done = 1 }' \
            "$work/cg-incl.txt"
    done
    echo
    echo "The 20 functions that execute the most instructions themselves in graft's"
    echo "phases (load, label, match, rewrite, partition, print; baselines excluded):"
    echo
    echo '```'
    awk 'found == 2 && NF && n < 20 { print; n++ }
         /file:function/ { found = 1; next }
         found == 1 && /^-+$/ { found = 2 }' "$work/cg-self.txt" |
        sed -e 's/\[[^]]*\]$//' -e "s#$srcdir/##" -e "s#$build/##"
    echo '```'
fi
if [ "$compiled" = no ]; then
    echo
    echo "Compiled rules: \`graft compile\` did not produce a rule set that compiles and"
    echo "links in this build, so the rule tables are for interpreted rules only.  First"
    echo "lines of its messages:"
    echo
    echo '```'
    { grep -m5 'error' "$work/compile.log" || tail -5 "$work/compile.log"; } 2>/dev/null || true
    echo '```'
fi
if [ "$have_graft" = yes ]; then
    echo
    BENCH_BUILD=$build sh "$srcdir/bench/e2e.sh"
    echo
    BENCH_BUILD=$build GRAFT_BENCH_CFLAGS=$cflags sh "$srcdir/bench/corpus.sh"
    echo
    BENCH_BUILD=$build sh "$srcdir/bench/verify.sh"
fi
} > "$out"
cat "$work/graph.txt" "$work/rules.txt" "$work/compile.txt" > "$out.raw"
cat "$out"
