#!/bin/sh
# bench/e2e.sh - the end-to-end workload of issue 15, run by `make bench`
# after bench/run.sh (and alone by `make bench-e2e`).
#
# The seed's decomposed batch norm, K copies side by side (note [side by
# side] in bench/bench_e2e.c), through `graft run` as a process: load,
# partition (the seed's rule) or rewrite (the seed's rule as a rewrite),
# print.  For each K: CPU time and peak resident memory of the process
# (wait4).  For one K: instructions per op node in each phase, from
# callgrind (noise-free).  Then the targets, each with its figure
# and whether it holds, and TVM v0.14's figures beside graft's.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree run.sh made),
# BENCH_E2E_BLOCKS (default "1000 10000 50000 100000 1000000"),
# BENCH_E2E_PROFILE_BLOCKS (default 10000).  Prints markdown on stdout.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the -O2 build tree}
blocks=${BENCH_E2E_BLOCKS:-"1000 10000 50000 100000 1000000"}
profile_blocks=${BENCH_E2E_PROFILE_BLOCKS:-10000}
graft=$build/graft
gb=$build/bench/graft-bench
# shellcheck source=bench/phases.sh
. "$srcdir/bench/phases.sh"
work=${TMPDIR:-/tmp}/graft-e2e.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT INT TERM

# The seed's rule (shared/golden/seed_bn_partition) and the same rule as
# a rewrite (examples/bn.graft).
printf 'bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition\n' > "$work/partition.graft"
cp "$srcdir/examples/bn.graft" "$work/rewrite.graft"

# ---- CPU time and memory at every size ----
: > "$work/times.txt"
for k in $blocks; do
    echo "bench: e2e, $k blocks side by side" >&2
    "$gb" sidebyside "$k" > "$work/model.relay"
    bytes=$(wc -c < "$work/model.relay")
    for job in partition rewrite; do
        line=$("$gb" spawn "$graft" run "$work/$job.graft" "$work/model.relay" \
               -o "$work/out.relay")
        echo "job=$job blocks=$k ops=$((6 * k)) bytes=$bytes $line" >> "$work/times.txt"
    done
done

# ---- instructions per phase ----
profile=no
if command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1; then
    "$gb" sidebyside "$profile_blocks" > "$work/model.relay"
    profile=yes
    for job in partition rewrite; do
        echo "bench: e2e callgrind, $job, $profile_blocks blocks" >&2
        valgrind -q --tool=callgrind --callgrind-out-file="$work/cg-$job.out" \
            "$graft" run "$work/$job.graft" "$work/model.relay" -o "$work/out.relay" ||
            profile=no
        callgrind_annotate --inclusive=yes --threshold=100 "$work/cg-$job.out" > "$work/cg-$job.txt" 2>/dev/null ||
            profile=no
        callgrind_annotate --inclusive=yes --threshold=100 --tree=caller "$work/cg-$job.out" \
            > "$work/cg-$job-callers.txt" 2>/dev/null || profile=no
    done
fi

# ---- tables ----
echo "## End to end: the seed's batch norm, K copies side by side (issue 15)"
echo
echo "\`graft run\` as a process (load, partition or rewrite, print to a file), -O2 build;"
echo "CPU = user + system seconds of the process, RSS = its peak resident set."
echo
echo "| job | blocks | op nodes | text MB | CPU s | ns/op node | peak RSS MB | RSS B/op node beyond the text |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
awk '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    rss = v["maxrss_kb"] * 1024
    printf("| %s | %d | %d | %.1f | %.2f | %.0f | %.0f | %.0f |\n", v["job"], v["blocks"], v["ops"],
           v["bytes"] / 1e6, v["cpu_s"], v["cpu_s"] * 1e9 / v["ops"], rss / 1048576,
           (rss - v["bytes"]) / v["ops"])
}' "$work/times.txt"

# TVM v0.14 on the same workload (50,000 copies, 300,000 op nodes, 10.9 MB,
# measured on a machine like this one; issue 15): 61.6 s wall, 1.65 GB.
echo
echo "TVM v0.14, the seed partition on 50,000 copies (300,000 op nodes; issue 15's"
echo "measurement on a machine like this one): 61.6 s wall (10.5 s parsing, 6.9 s the"
echo "partition call, 36 s printing), 1.65 GB resident."
echo
awk '$1 == "job=partition" && $2 == "blocks=50000" {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf("graft on the same 50,000 copies: %.2f s CPU, %.0f MB: %.0fx faster than TVM, %.1fx less memory.\n",
           v["cpu_s"], v["maxrss_kb"] / 1024, 61.6 / v["cpu_s"], 1.65e9 / (v["maxrss_kb"] * 1024))
}' "$work/times.txt"

[ "$profile" = yes ] || { echo; echo "(no callgrind profile: valgrind not installed)"; exit 0; }

ops=$((6 * profile_blocks))
echo
echo "## End to end: instructions per op node in each phase (callgrind, $profile_blocks copies, $ops op nodes)"
echo
echo "| job | load | label | verify | partition or rewrite beyond label and verify | print | total |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for job in partition rewrite; do
    f=$work/cg-$job.txt
    # shellcheck disable=SC2046 # six numbers
    set -- $(phases "$f" "$work/cg-$job-callers.txt" "$job")
    main=$1 load=$2 label=$3 verify=$4 pass=$5 print=$6
    echo "$job $main $load $label $verify $pass $print" >> "$work/phases.txt"
    awk -v ops="$ops" -v job="$job" -v main="$main" -v load="$load" -v label="$label" \
        -v verify="$verify" -v pass="$pass" -v prt="$print" 'BEGIN {
        printf("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", job, load / ops, label / ops,
               verify / ops, (pass - label - verify) / ops, prt / ops, main / ops) }'
done

echo
echo "## Issue 15's targets on this workload"
echo
echo "| target | figure | holds |"
echo "|---|---:|---|"
awk -v ops="$ops" '
function row(what, figure, limit) {
    printf("| %s (<= %d) | %.0f | %s |\n", what, limit, figure, figure <= limit ? "yes" : "no")
}
{
    job = $1; main = $2; load = $3; label = $4; verify = $5; pass = $6; print_ = $7
    if (job == "partition") row("loading, instructions per op node", load / ops, 1500)
    row(job " beyond labelling and verifying, instructions per op node", (pass - label - verify) / ops, 1500)
    row("printing the " job " output, instructions per op node", print_ / ops, 1000)
    row(job " end to end, instructions per op node", main / ops, 5000)
}' "$work/phases.txt"
awk '$1 == "job=partition" {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    if (v["blocks"] == 50000) {
        printf("| the 300,000-node file end to end, CPU seconds (<= 0.6) | %.2f | %s |\n",
               v["cpu_s"], v["cpu_s"] <= 0.6 ? "yes" : "no")
    }
    last = (v["maxrss_kb"] * 1024 - v["bytes"]) / v["ops"]; lastk = v["blocks"]
}
END { printf("| peak RSS beyond the text, bytes per op node, %d copies (<= 300) | %.0f | %s |\n",
             lastk, last, last <= 300 ? "yes" : "no") }' "$work/times.txt"
