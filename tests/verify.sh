#!/bin/sh
# verify.sh - graft verify (note [verifying a rule], src/runtime/verify.h):
# thirteen plausible but wrong rules are each refuted with the exact
# counterexample for a fixed seed, their corrected forms verify, -j gives
# the same output, every rewrite rule of stdpatterns/ verifies, and bad
# usage is refused.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
dir=$src/tests/verify

# check NAME STATUS ARGS...: graft verify ARGS in tests/verify; stdout and
# stderr must equal NAME.out and NAME.err there.
check() {
    name=$1 want_status=$2
    shift 2
    cases=$((cases + 1))
    (cd "$dir" && timeout 120 "$GRAFT" verify "$@") >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq "$want_status" ] || fail "verify $*: exit $status, expected $want_status"
    cmp -s "$tmp/out" "$dir/$name.out" || { fail "verify $*: stdout"; diff "$dir/$name.out" "$tmp/out" | head; }
    cmp -s "$tmp/err" "$dir/$name.err" || { fail "verify $*: stderr"; diff "$dir/$name.err" "$tmp/err" | head; }
}

check wrong 1 --seed 1 --trials 5 wrong.graft
check wrong 1 --seed 1 --trials 5 -j 2 wrong.graft
check fixed 0 --seed 1 --trials 5 fixed.graft
check fixed 0 --trials 5 -j 3 --seed 1 fixed.graft

# The standard library: every rewrite rule verified, partition rules
# skipped.
cases=$((cases + 1))
(cd "$src" && timeout 120 "$GRAFT" verify -j 2 stdpatterns/*.graft) >out 2>err
status=$?
[ "$status" -eq 0 ] || fail "verify stdpatterns: exit $status"
[ ! -s err ] || { fail "verify stdpatterns: stderr"; head err; }
grep -Ev ': verified( \(inexact\))?, |: skipped: a partition rule$' out >rest
grep -q '^stdpatterns/transformer.graft:[0-9]*: softmax: verified (inexact), ' out ||
    fail "verify stdpatterns: softmax not checked as [inexact]"
grep -v '^[0-9]* rules: ' rest >rest2
[ ! -s rest2 ] || { fail "verify stdpatterns: not all verified"; cat rest2; }

# Bad usage.
printf '%s\n' "graft verify: option '--trials' wants a number up to 100000, not 'x'" \
    "Try 'graft verify --help'." >want
expect 2 "$GRAFT" verify --trials x a.graft
printf '%s\n' "graft verify: need RULES..." "Try 'graft verify --help'." >want
expect 2 "$GRAFT" verify

expect_end verify
