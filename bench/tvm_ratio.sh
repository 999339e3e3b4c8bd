#!/bin/sh
# bench/tvm_ratio.sh FILED NOW - issue 34's ">= 300x TVM v0.14" read on this
# machine.  TVM cannot be installed here; when the issue was filed, TVM
# v0.14 and graft ran side by side on the same 300,000-node file (the
# seed's batch norm, 50,000 copies): TVM 49.5 s and 33.2 s, graft 0.39 s
# and 0.29 s (partition, rewrite).  FILED is a built tree of the commit the
# issue was filed on (5a03401), NOW a built tree of today's: both run the
# same file and rules here, five times each, interleaved, and the best
# CPU time (user + system) of each gives today's speed-up over the filed
# graft, which times the filed ratio (126x, 113x) gives today's.  Prints
# markdown on stdout.
set -eu
[ $# -eq 2 ] || { echo "usage: sh bench/tvm_ratio.sh FILED_BUILD NOW_BUILD" >&2; exit 2; }
srcdir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-tvm.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
gb=$2/bench/graft-bench
"$gb" sidebyside 50000 > "$work/model.relay"
printf 'bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition\n' > "$work/partition.graft"
cp "$srcdir/examples/bn.graft" "$work/rewrite.graft"

# cpu BUILD JOB: the CPU seconds (user + system) of one run, as
# graft-bench spawn reads them from wait4.
cpu() {
    "$gb" spawn "$1/graft" run "$work/$2.graft" "$work/model.relay" -o "$work/out.$2.relay" |
        sed -n 's/.*cpu_s=\([0-9.]*\).*/\1/p'
}
: > "$work/times"
for i in 1 2 3 4 5; do
    for job in partition rewrite; do
        echo "filed $job $(cpu "$1" "$job")" >> "$work/times"
        cp "$work/out.$job.relay" "$work/filed.$job.relay"
        echo "now $job $(cpu "$2" "$job")" >> "$work/times"
        cmp -s "$work/out.$job.relay" "$work/filed.$job.relay" ||
            { echo "bench/tvm_ratio.sh: $job's outputs differ" >&2; exit 1; }
    done
done
echo "| job | TVM v0.14, filed (s) | graft filed, there (s) | filed here, best of 5 (s CPU) | today here (s CPU) | speed-up | against TVM | holds (>= 300x) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
awk '{ k = $1 " " $2; if (!(k in best) || $3 < best[k]) best[k] = $3 }
END {
    split("partition rewrite", jobs, " "); tvm["partition"] = 49.5; tvm["rewrite"] = 33.2
    there["partition"] = 0.39; there["rewrite"] = 0.29
    for (j = 1; j <= 2; j++) {
        job = jobs[j]; f = best["filed " job]; n = best["now " job]
        x = tvm[job] / there[job] * f / n
        printf("| %s | %.1f | %.2f | %.2f | %.2f | %.2fx | %.0fx | %s |\n", job, tvm[job],
               there[job], f, n, f / n, x, x >= 300 ? "yes" : "no")
    }
}' "$work/times"
