#!/bin/sh
# bench/onnx_e2e.sh - issue 28's number: the seed's workload (K batch norms
# side by side, note [side by side] in bench/bench_e2e.c) in both IRs, the
# same rule written for each, `graft run` as a process on each: the ONNX
# rewrite (and partition) must cost at most 1.2x the Relay one's
# instructions per op node.  Run by `make bench-onnx-e2e` and `make bench`.
#
# The ONNX model is binary (.onnx, converted once from the generator's ONNX
# text by graft fmt), the format users rewrite; the Relay model is text,
# its only form.  Instructions come from callgrind (noise-free) at two
# sizes; the per-node figure is the difference between them divided by the
# difference in op nodes, so the fixed set-up (each IR's op registry read
# at start) is left out, and it is printed separately.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree),
# BENCH_ONNX_E2E_BLOCKS (two sizes, default "1000 10000").  Prints markdown.
set -eu
srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the -O2 build tree}
set -- ${BENCH_ONNX_E2E_BLOCKS:-1000 10000}
small=$1 large=$2
graft=$build/graft
gb=$build/bench/graft-bench
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-onnx-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
command -v valgrind >/dev/null 2>&1 || { echo "(bench/onnx_e2e.sh: needs valgrind)"; exit 0; }

# The seed's rule for each IR: the Relay one is examples/bn.graft; the ONNX
# one reads the same six nodes (epsilon a rank-0 initializer).
cp "$srcdir/examples/bn.graft" "$work/rewrite.relay.graft"
printf 'bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition\n' > "$work/partition.relay.graft"
cat > "$work/rewrite.onnx.graft" <<'RULES'
opset onnx 17
bn := Add(Div(Mul(gamma, Sub(x, mean)), Sqrt(Add(var, eps:const))), beta)
      => BatchNormalization(x, gamma, beta, mean, var, epsilon=eps)
RULES
cat > "$work/partition.onnx.graft" <<'RULES'
opset onnx 17
bn := Add(Div(Mul(gamma, Sub(x, mean)), Sqrt(Add(var, eps:const))), beta) => partition
RULES

# instructions JOB IR K: the whole process's instructions, after checking
# that the rule fired on every copy.
instructions() {
    model=$work/m$3.$2
    out=$work/out.$2
    "$graft" run --stats=counts "$work/$1.$2.graft" "$model" -o "$out" 2> "$work/stats"
    grep -q "^bn  *$3  *$3  *$3 " "$work/stats" ||
        { echo "bench/onnx_e2e.sh: $1 on $2 did not fire $3 times:" >&2; cat "$work/stats" >&2; exit 1; }
    valgrind -q --tool=callgrind --callgrind-out-file="$work/cg" \
        "$graft" run "$work/$1.$2.graft" "$model" -o "$out"
    awk '/^summary:/ { print $2 }' "$work/cg"
}

for k in "$small" "$large"; do
    echo "bench: onnx e2e, $k blocks" >&2
    "$gb" sidebyside "$k" > "$work/m$k.relay"
    "$gb" sidebyside-onnx "$k" > "$work/m$k.onnxtxt"
    "$graft" fmt "$work/m$k.onnxtxt" -o "$work/m$k.onnx"
done

echo "## The seed's workload in both IRs (issue 28): ONNX against Relay"
echo
echo "\`graft run\` as a process on $small and $large copies of the seed's batch norm"
echo "(6 op nodes each), callgrind instructions; per op node = the difference between"
echo "the two sizes over the difference in op nodes (the fixed set-up left out)."
echo
echo "| job | Relay per op node | ONNX per op node | ONNX / Relay | holds (<= 1.2x) | set-up Relay | set-up ONNX |"
echo "|---|---:|---:|---:|---|---:|---:|"
for job in rewrite partition; do
    r1=$(instructions "$job" relay "$small"); r2=$(instructions "$job" relay "$large")
    o1=$(instructions "$job" onnx "$small"); o2=$(instructions "$job" onnx "$large")
    awk -v job="$job" -v r1="$r1" -v r2="$r2" -v o1="$o1" -v o2="$o2" \
        -v n1=$((6 * small)) -v n2=$((6 * large)) 'BEGIN {
        r = (r2 - r1) / (n2 - n1); o = (o2 - o1) / (n2 - n1)
        printf("| %s | %.0f | %.0f | %.2fx | %s | %.0f | %.0f |\n", job, r, o, o / r,
               o / r <= 1.2 ? "yes" : "no", r1 - r * n1, o1 - o * n1)
    }'
done
