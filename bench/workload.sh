#!/bin/sh
# bench/workload.sh BUILD OUTDIR - issue 34's workload measured whole:
# the seed's batch norm side by side 10,000 times (60,000 op nodes), in
# Relay and in ONNX, partitioned and rewritten by `graft run` as a process
# under callgrind, and the two Relay jobs under massif.  Prints one line a
# run: the instructions and their count per op node, or massif's peak
# (heap plus extra) and its bytes per op node beyond the model's text.
# Every output stays in OUTDIR as out.JOB.IR, so that two builds' outputs
# can be compared with cmp.  BUILD is a built tree (graft and
# bench/graft-bench); the rules are bench/onnx_e2e.sh's.
set -eu
[ $# -eq 2 ] || { echo "usage: sh bench/workload.sh BUILD OUTDIR" >&2; exit 2; }
srcdir=$(cd "$(dirname "$0")/.." && pwd)
graft=$1/graft
gb=$1/bench/graft-bench
out=$2
blocks=10000
opnodes=$((blocks * 6))
mkdir -p "$out"
command -v valgrind >/dev/null 2>&1 || { echo "bench/workload.sh: needs valgrind" >&2; exit 1; }

"$gb" sidebyside $blocks > "$out/model.relay"
"$gb" sidebyside-onnx $blocks > "$out/model.onnxtxt"
"$graft" fmt "$out/model.onnxtxt" -o "$out/model.onnx"
printf 'bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition\n' > "$out/partition.relay.graft"
cp "$srcdir/examples/bn.graft" "$out/rewrite.relay.graft"
printf 'opset onnx 17\nbn := Add(Div(Mul(gamma, Sub(x, mean)), Sqrt(Add(var, eps:const))), beta) => partition\n' \
    > "$out/partition.onnx.graft"
printf 'opset onnx 17\nbn := Add(Div(Mul(gamma, Sub(x, mean)), Sqrt(Add(var, eps:const))), beta)\n      => BatchNormalization(x, gamma, beta, mean, var, epsilon=eps)\n' \
    > "$out/rewrite.onnx.graft"
text=$(wc -c < "$out/model.relay")

for job in partition rewrite; do
    for ir in relay onnx; do
        valgrind --tool=callgrind --callgrind-out-file="$out/cg.$job.$ir" \
            "$graft" run "$out/$job.$ir.graft" "$out/model.$ir" -o "$out/out.$job.$ir" 2>/dev/null
        total=$(sed -n 's/^summary: //p' "$out/cg.$job.$ir")
        echo "$job $ir: $total instructions, $((total / opnodes)) per op node"
    done
    valgrind --tool=massif --peak-inaccuracy=0 --massif-out-file="$out/ms.$job.relay" \
        "$graft" run "$out/$job.relay.graft" "$out/model.relay" -o "$out/msout.$job.relay" 2>/dev/null
    peak=$(awk -F= '/^mem_heap_B/ { h = $2 } /^mem_heap_extra_B/ { if (h + $2 > m) m = h + $2 } END { print m }' \
        "$out/ms.$job.relay")
    echo "$job relay: peak $peak bytes, $(( (peak - text) / opnodes )) per op node beyond the text ($text bytes)"
done
