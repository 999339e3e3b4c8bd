#!/bin/sh
# multiroot_instructions.sh - make bench-multiroot's comparison counted in
# instructions (callgrind), which the machine's load does not move: per
# graph, one run of bench/bench_multiroot under callgrind, and the
# inclusive instruction counts of match_base, match_multi and match_single
# (the three rule sets' matching, seven runs each) per node.  Needs
# valgrind; prints a Markdown table (bench/RESULTS.md, "Rules of several
# roots").
#
#   sh bench/multiroot_instructions.sh SRCDIR BENCH_MULTIROOT MODEL.relay...
set -u
srcdir=$1 bench=$2
shift 2
command -v valgrind >/dev/null 2>&1 || { echo "multiroot_instructions.sh: no valgrind"; exit 0; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# row NAME ARGS...: the counts of one run of the bench with ARGS.
row() {
    name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bench" "$srcdir" "$@" \
        >"$work/table" 2>/dev/null || { echo "| $name | failed |"; return; }
    nodes=$(awk -F'|' 'NR == 3 { print $3 + 0 }' "$work/table")
    callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null |
        awk -v name="$name" -v nodes="$nodes" -v reps=7 '
        { gsub(/,/, "", $1) }
        /:match_base / { base = $1 } /:match_multi / { multi = $1 }
        /:match_single / { single = $1 }
        END {
            per = nodes * reps
            printf "| %s | %d | %.0f | %.0f (%.3fx) | %.0f (%.3fx) | %s |\n", name, nodes,
                base / per, multi / per, multi / base, single / per, single / base,
                multi / base <= 1.2 ? "yes" : "no"
        }'
}

echo "| graph | nodes | base instructions/node | + multiroot.graft | + the roots as single-root rules | multi within 1.2x |"
echo "|---|---:|---:|---:|---:|---|"
row "generated: 20,000 dense layers"
for m in "$@"; do
    row "$(basename "$m")" -n "$m"
done
