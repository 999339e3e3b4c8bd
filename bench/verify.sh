#!/bin/sh
# bench/verify.sh - the verifier's numbers (doc/verify.md), run by `make
# bench` after bench/corpus.sh and alone by `make bench-verify`:
#   - graft verify --prove of every file of stdpatterns/ and
#     stdpatterns/onnx/ (the prover and the testing that follows a rule
#     not proved): target under a minute;
#   - graft verify of one rule with its corner values: fold_conv2d_bn of
#     stdpatterns/fold_bn.graft (a conv2d and a batch norm, 175 trials,
#     the costliest kind of rule there), the README's batch-norm rule
#     (examples/bn.graft) and ONNX Runtime's ConvBNFusion with a bias
#     (conv_bias_bn_fusion of stdpatterns/onnx/conv.graft): target under
#     a second;
#   - graft run --verify of stdpatterns/fold_bn.graft on the corpus's
#     largest CNNs at their own 224 x 224 input (resnet50, densenet121;
#     resnext50's size: its 4.2 GMACs against resnet50's 4.1): target
#     under 10 s.  Each evaluates the model at least twice (original and
#     rewritten) with the reference evaluator's layer kernels
#     (src/runtime/eval_kernels.c).
#   - graft run --verify of stdpatterns/onnx_fold_bn.graft on the ONNX CNNs
#     of tests/onnx/ at their own 1 x 3 x 64 x 64 input, and of two wrong
#     folds (tests/run_verify_onnx/fold_no_shift.graft and fold_no_eps.graft,
#     which also bisect over the rewrites, about 7 more evaluations): target under 10 s as
#     for the Relay CNNs.  A 2-d Conv goes through the same layer kernel
#     (src/runtime/eval_onnx_conv.c).
#   - graft run --verify of stdpatterns/onnx/merge.graft on a transformer's
#     MLP block in ONNX (bench/onnx_mlp.py: a Gemm 256 x 768 x 3072 and a
#     MatMul back, made with python3-onnx, left out without it), whose
#     products go through the layers' matrix kernel
#     (src/runtime/eval_onnx_nn.c): target under 10 s.
# Each command once (they are seconds long), CPU time (user + system) and
# peak memory from graft-bench spawn, wall time around it.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree run.sh made),
# BENCH_VERIFY_MODELS (default "resnet50 densenet121"),
# BENCH_VERIFY_ONNX_MODELS (default "mobilenet_v2_op17 mnasnet_op17
# shufflenet_v2_op17", of tests/onnx/).  Prints markdown
# on stdout.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the -O2 build tree}
models=${BENCH_VERIFY_MODELS:-"resnet50 densenet121"}
onnx_models=${BENCH_VERIFY_ONNX_MODELS:-"mobilenet_v2_op17 mnasnet_op17 shufflenet_v2_op17"}
graft=$build/graft
gb=$build/bench/graft-bench
work=${TMPDIR:-/tmp}/graft-verify-bench.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT INT TERM

# row WHAT TARGET_S CMD ARGS...: one table row, CMD run in the source tree.
row() {
    what=$1 target=$2
    shift 2
    t0=$(date +%s.%N)
    line=$(cd "$srcdir" && "$gb" spawn "$@" 2> "$work/err") || true
    t1=$(date +%s.%N)
    echo "$line" | awk -v what="$what" -v target="$target" -v wall="$(awk "BEGIN { print $t1 - $t0 }")" '{
        split($1, s, "="); split($2, c, "="); split($3, m, "=")
        printf("| %s | %.2f | %.2f | %.0f | %s | %s |\n", what, c[2], wall, m[2] / 1024,
               s[2] == 0 || s[2] == 1 ? "exit " s[2] : "FAILED (exit " s[2] ")",
               c[2] < target ? "yes (< " target " s)" : "**no** (< " target " s)") }'
}

awk '/^fold_conv2d_bn :=/ { on = 1 } on && /^$/ { exit } on' \
    "$srcdir/stdpatterns/fold_bn.graft" > "$work/fold_conv2d_bn.graft"
{ echo 'opset onnx 17'
  awk '/^conv_bias_bn_fusion :=/ { on = 1 } on && /^$/ { exit } on' \
      "$srcdir/stdpatterns/onnx/conv.graft"; } > "$work/conv_bias_bn_fusion.graft"

echo "## The verifier (issues 31 and 34): bench/verify.sh"
echo
echo "CPU = user + system of the process; wall on a machine that may be shared"
echo "(load average at the start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))."
echo "Exit 1 of verify --prove is a rule refuted; stdpatterns/ has none; exit 1 of the"
echo "wrong ONNX fold is --verify catching it, as it should."
echo
echo "| command | CPU s | wall s | peak MB | status | target holds |"
echo "|---|---:|---:|---:|---|---|"
# shellcheck disable=SC2046
row "graft verify --prove stdpatterns/*.graft stdpatterns/onnx/*.graft" 60 \
    "$graft" verify --prove $(cd "$srcdir" && ls stdpatterns/*.graft stdpatterns/onnx/*.graft)
row "graft verify of fold_conv2d_bn (stdpatterns/fold_bn.graft)" 1 "$graft" verify "$work/fold_conv2d_bn.graft"
row "graft verify examples/bn.graft (one rule)" 1 "$graft" verify examples/bn.graft
row "graft verify of conv_bias_bn_fusion (stdpatterns/onnx/conv.graft)" 1 \
    "$graft" verify "$work/conv_bias_bn_fusion.graft"
for m in $models; do
    row "graft run --verify stdpatterns/fold_bn.graft $m (1 x 3 x 224 x 224)" 10 \
        "$graft" run --verify stdpatterns/fold_bn.graft "tests/corpus/$m.relay" -o /dev/null
done
for m in $onnx_models; do
    row "graft run --verify stdpatterns/onnx_fold_bn.graft $m.onnx (1 x 3 x 64 x 64)" 10 \
        "$graft" run --verify stdpatterns/onnx_fold_bn.graft "tests/onnx/$m.onnx" \
        -o "$work/out.onnx"
    for wrong in fold_no_shift fold_no_eps; do
        row "graft run --verify (wrong fold: $wrong.graft) $m.onnx" 10 \
            "$graft" run --verify "tests/run_verify_onnx/$wrong.graft" "tests/onnx/$m.onnx" \
            -o "$work/out.onnx"
    done
done
python=
for candidate in /usr/bin/python3 python3; do # Debian's python3-onnx: tests/shell_lib.sh
    if [ -z "$python" ] && "$candidate" -c 'import onnx, numpy' >/dev/null 2>&1; then
        python=$candidate
    fi
done
if [ -n "$python" ] && "$python" "$srcdir/bench/onnx_mlp.py" "$work/mlp.onnx"; then
    row "graft run --verify stdpatterns/onnx/merge.graft mlp.onnx (Gemm 256 x 768 x 3072, MatMul back)" 10 \
        "$graft" run --verify stdpatterns/onnx/merge.graft "$work/mlp.onnx" -o "$work/out.onnx"
fi
