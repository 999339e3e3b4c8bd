#!/bin/sh
# run_verify.sh - graft run --verify (src/runtime/runner_verify.c): a model
# and its rewritten form on the same random inputs; within tolerance the
# output is written, past it the first rewrite responsible is named (by
# bisection) and nothing is written; models it cannot evaluate are refused
# with the reason; resnet18 folded by stdpatterns/fold_bn.graft stays
# within float32 tolerance (on a 32 x 32 input, which the model allows:
# at 224 x 224 the plain evaluator takes about 16 s per evaluation); a
# rewriter built by graft compile --exe reports the same with --verify.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
dir=$src/tests/run_verify

cat >want <<'EOW'
verify: 3 rewrites, inputs random (seed 1)
verify: output 0 (2, 3) float32: max difference 0.0961 (tolerance 5.72e-06): PAST the tolerance
verify: rewrite 2 of 3 makes the difference 0.0729: rewrite relu_abs (wrong.graft:2): %3 => #10 abs
graft: error: --verify: the rewritten model differs from the original by 0.0961, past the tolerance 5.72e-06
EOW
cases=$((cases + 1))
(cd "$dir" && "$GRAFT" run --verify -o "$tmp/o.relay" wrong.graft model.relay) >out 2>err
status=$?
[ "$status" -eq 1 ] || fail "run --verify wrong.graft: exit $status"
cmp -s err want || { fail "run --verify wrong.graft: stderr"; diff want err; }
[ ! -e o.relay ] || fail "run --verify wrong.graft wrote its output"

cat >want <<'EOW'
verify: 1 rewrite, inputs random (seed 1)
verify: output 0 (2, 3) float32: max difference 0 (tolerance 5.72e-06): within
EOW
expect 0 "$GRAFT" run --verify "$dir/right.graft" "$dir/model.relay"
grep -q 'negative(%4)' out || fail "run --verify right.graft: no output"

printf 'def @main(%%x) {\n  nn.relu(%%x)\n}\n' >untyped.relay
printf 'def @main(%%x: Tensor[(2), float32]) {\n  nn.lrn(%%x)\n}\n' >lrn.relay
echo 'r := nn.relu(x) => x' >r.graft
echo 'graft: error: --verify: parameter %x needs a tensor type with every dim known ("%x: Tensor[(1, 3), float32]")' >want
expect 1 "$GRAFT" run --verify r.graft untyped.relay
echo 'graft: error: --verify: cannot evaluate the original model: nn.lrn: no evaluator for this op' >want
expect 1 "$GRAFT" run --verify r.graft lrn.relay
echo 'graft: error: --verify: the model is too large to evaluate: parameter %x has 6 elements, past the eval-elements limit (4) [--limit eval-elements]' >want
expect 1 "$GRAFT" run --verify --limit eval-elements=4 "$dir/right.graft" "$dir/model.relay"
# At the limit (%x has 6 elements, the largest tensor) the model evaluates.
cat >want <<'EOW'
verify: 1 rewrite, inputs random (seed 1)
verify: output 0 (2, 3) float32: max difference 0 (tolerance 5.72e-06): within
EOW
expect 0 "$GRAFT" run --verify --limit eval-elements=6 "$dir/right.graft" "$dir/model.relay"

# A rewriter built by graft compile --exe verifies as graft run does: the
# same report, status and output (against this build's headers and library).
. "$src/tests/emit/exe_env.sh"
# compiled NAME RULES MODEL: the rewriter of RULES on MODEL with --verify
# against graft run --verify, stdout, stderr and status.
compiled() {
    cases=$((cases + 1))
    (cd "$dir" && "$GRAFT" compile --exe "$2" -o "$tmp/$1") >out 2>err ||
        { fail "compile --exe $2"; cat err; return; }
    (cd "$dir" && "$GRAFT" run --verify "$2" "$3") >want.out 2>want.err
    want_status=$?
    (cd "$dir" && "$tmp/$1" --verify "$3") >out 2>err
    status=$?
    [ "$status" -eq "$want_status" ] || fail "compiled $2 --verify: exit $status, not $want_status"
    cmp -s out want.out || { fail "compiled $2 --verify: stdout"; diff want.out out | head; }
    cmp -s err want.err || { fail "compiled $2 --verify: stderr"; diff want.err err | head; }
    [ -s want.err ] || fail "compiled $2 --verify: no report"
}
compiled wrong wrong.graft model.relay
compiled right right.graft model.relay
compiled meta distribute_wrong.graft meta.relay
compiled meta_random distribute.graft meta_no_values.relay

# resnet18 from the corpus (in the tree: a missing corpus is a failure).
r18=$src/tests/corpus/resnet18.relay
if [ -f "$r18" ]; then
    sed 's/%input: Tensor\[(1, 3, 224, 224), float32\]/%input: Tensor[(1, 3, 32, 32), float32]/' \
        "$r18" >r18.relay
    # fold_bn folds as plain arithmetic (gamma / sqrt(var + eps)), so the
    # difference is float32 rounding of that arithmetic.
    cat >want <<'EOW'
verify: 20 rewrites, inputs random (seed 1)
verify: output 0 (1, 1000) float32: max difference 2.18e-07 (tolerance 6.2e-05): within
EOW
    expect 0 "$GRAFT" run --verify "$src/stdpatterns/fold_bn.graft" r18.relay -o folded.relay
    [ "$(grep -c 'nn.bias_add(nn.conv2d\|= nn.bias_add(' folded.relay)" -ge 20 ] ||
        fail "resnet18: not folded"
else
    fail "no tests/corpus/resnet18.relay"
fi

expect_end run_verify
