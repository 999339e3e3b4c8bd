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

expect_end verify
