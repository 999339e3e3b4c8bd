#!/bin/sh
# prove.sh - graft verify --prove (note [proving a rule], src/runtime/prove.h)
# on the standard library: exactly the rules doc/verify.md lists as proved
# are proved, over the reals and for every shape, and those it lists as
# proved on one instance are; every other rewrite rule
# says why it is not ("not proved: OP leaves the fragment", ...) and is
# then verified numerically; none is refuted, and the whole library takes
# under a minute.  The known-wrong rules refuted by the solver with their
# replayed counterexamples, their fixed forms proved, float32 and
# [inexact], -j, are golden files in tests/prove/ (tests/golden.sh).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"

proved='bn_seed bn_seed_rsqrt bn_simplified_last mul_one div_one sub_zero pow_one
double_neg mul_neg_one sub_neg add_neg neg_times_neg neg_over_neg max_self min_self
relu_relu abs_abs abs_neg copy dropout_zero silu swish hardswish hardswish_div'
# Proved on one instance only (prove_instance.c): these at least (a
# non-linear instance question ends at a timeout, so one that a fast
# machine finishes may join them).
instance='squeeze_none expand_dims_none reshape_same reshape_reshape transpose_transpose
transpose_rev_rev transpose_identity sum_outer sum_scalars sum_scalar sum_vector_dot
sum_matrix_vector'

cases=$((cases + 1))
start=$(date +%s)
# Relay's files: the ONNX folds hold Conv, which leaves the fragment
relay_rules=$(cd "$src" && grep -L '^opset onnx' stdpatterns/*.graft)
(cd "$src" && timeout 120 "$GRAFT" verify --prove $relay_rules) >out 2>err
status=$?
took=$(($(date +%s) - start))
[ "$status" -eq 0 ] || fail "verify --prove stdpatterns: exit $status"
[ ! -s err ] || { fail "verify --prove stdpatterns: stderr"; head err; }
[ "$took" -lt 60 ] || fail "verify --prove stdpatterns took $took s, past a minute"
sed -n 's/^stdpatterns\/[a-z_]*\.graft:[0-9]*: \([a-z_0-9]*\): proved over the reals.*/\1/p' \
    out >got
printf '%s\n' $proved >want
cmp -s want got || { fail "verify --prove stdpatterns: the proved rules differ"; diff want got; }
# The summary counts them; no rule is refuted or unchecked.
n=$(wc -l <want | tr -d ' ')
grep -q "^95 rules: $n proved, [0-9]* verified, 0 refuted, 0 unchecked, 18 skipped\$" out ||
    { fail "verify --prove stdpatterns: summary"; tail -n 1 out; }
# Each rule not proved says why, then is verified.
grep ': not proved: ' out | sed 's/: not proved: .*//' >notproved
grep -E ': verified( \(inexact\))?, ' out | sed 's/: verified.*//' >verified
cmp -s notproved verified || { fail "verify --prove stdpatterns: a rule not proved" \
    "is not verified"; diff notproved verified; }
for rule in $instance; do
    grep -q ": $rule: not proved: .*; proved for \[.*\] only\$" out ||
        fail "verify --prove stdpatterns: $rule is not proved on an instance"
done
# Each proved rule is named in doc/verify.md's lists.
for rule in $proved $instance; do
    grep -q "\`$rule\`" "$src/doc/verify.md" || fail "doc/verify.md does not list $rule"
done

expect_end prove
