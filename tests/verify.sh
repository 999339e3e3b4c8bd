#!/bin/sh
# verify.sh - graft verify (note [verifying a rule], src/runtime/verify.h)
# on the standard library: every rewrite rule of stdpatterns/ verifies
# (softmax as [inexact]) under --strict, which an unchecked rule would
# fail; partition rules are skipped.  The 35 plausible but wrong rules
# (wrong.graft, and wrong2.graft's branch points beyond [-2, 2], guards on
# rank, rank-3 and rank-5 layouts, batch-norm folds and swapped axes)
# refuted with their exact counterexamples for a fixed seed, their
# corrected forms (fixed.graft, fixed2.graft) verified, rules whose
# instances need type relations run backwards (relations.graft) verified
# and their wrong forms (relations_wrong.graft) refuted, the same output
# with -j, the usage errors, and --strict on an unchecked rule are golden
# files in tests/verify/ (tests/golden.sh).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"

# The standard library: every rewrite rule verified, partition rules
# skipped, the rule files for ONNX (opset onnx) among them, the fusion
# library of stdpatterns/onnx/ too, their instances built as ONNX's shape
# inference wants them (note [onnx operand shapes] in
# src/runtime/verify_onnx.c) and as their guards ask (note [guard shapes]
# in src/runtime/verify_guard.c; tests/verify_onnx/ has their exact
# lines, and wrong ONNX rules refuted).  The fusion library's files,
# joined, overlap by design (doc/stdpatterns.md): that warning is off.
cases=$((cases + 1))
rules=$(cd "$src" && ls stdpatterns/*.graft stdpatterns/onnx/*.graft)
(cd "$src" && timeout 120 "$GRAFT" verify --strict -Wno-ambiguous-overlap -j 2 $rules) >out 2>err
status=$?
[ "$status" -eq 0 ] || fail "verify stdpatterns: exit $status"
[ ! -s err ] || { fail "verify stdpatterns: stderr"; head err; }
grep -Ev ': verified( \(inexact\))?, |: skipped: a partition rule$' out >rest
grep -q '^stdpatterns/transformer.graft:[0-9]*: softmax: verified (inexact), ' out ||
    fail "verify stdpatterns: softmax not checked as [inexact]"
grep -v '^[0-9]* rules: ' rest >rest2
[ ! -s rest2 ] || { fail "verify stdpatterns: not all verified"; cat rest2; }

# verify -j: a child that runs out of memory leaves its rule unchecked,
# said so (its exit status 3 was once read as the verdict "skipped", and
# the rule vanished from the output).  A 4096 x 4096 instance needs more
# than 400 MB to evaluate; the small rule still verifies beside it.  Not
# where the build cannot run under a memory bound (ASan reserves terabytes
# of address space).
if ( ulimit -v 400000 && "$GRAFT" --version ) >/dev/null 2>&1; then
    printf 'big := x:Tensor[(4096, 4096), float32] * 1f => x\nsmall := y:Tensor[(2), float32] * 1f => y\n' >big.graft
    cases=$((cases + 1))
    ( ulimit -v 400000; timeout 120 "$GRAFT" verify -j 2 big.graft ) >out 2>err
    status=$?
    cat >want <<'EOF'
big.graft:1: big: unchecked: the verifying process ran out of memory
big.graft:2: small: verified, 1 instance, 160 trials, max error 0 <= 9.54e-07 [y: (2) float32, _ = 1f]
2 rules: 1 verified, 0 refuted, 1 unchecked, 0 skipped; unchecked: big (the verifying process ran out of memory)
EOF
    [ "$status" -eq 0 ] && cmp -s want out ||
        { fail "verify -j 2, a child out of memory: exit $status"; diff want out; }
    printf 'graft: fatal error: out of memory\n' >want
    cmp -s want err || { fail "verify -j 2, a child out of memory: stderr"; cat err; }
fi

expect_end verify
