#!/bin/sh
# prove_load.sh - graft opens Z3 only for verify --prove (note [Z3 loaded
# lazily] in src/runtime/prove_z3.c): the program is not linked against
# libz3; a missing or broken library (GRAFT_Z3_LIBRARY naming it) is an
# error of --prove alone, before any rule is read, and every other run
# goes on without it; the library configure found proves a rule.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"

rules=$src/tests/prove/one.graft
proved="$rules:4: relu_relu: proved over the reals
1 rules: 1 proved, 0 verified, 0 refuted, 0 unchecked, 0 skipped"

# The libraries graft needs: libc, not libz3 (nor the libstdc++ it needs).
cases=$((cases + 1))
readelf -d "$GRAFT" >dyn || fail "readelf -d graft: exit $?"
grep -q 'NEEDED.*\[libc\.so' dyn || fail "readelf -d graft lists no libc"
! grep -E 'NEEDED.*\[lib(z3|stdc\+\+)\.' dyn || fail "graft is linked against libz3"

# The library missing, not a library, without Z3's functions: one line, exit 1.
error='graft: error: verify --prove: cannot load Z3:'
printf '%s %s/none.so: cannot open shared object file: No such file or directory\n' \
    "$error" "$tmp" >want
expect 1 env GRAFT_Z3_LIBRARY="$tmp/none.so" "$GRAFT" verify --prove "$rules"
check "no output when Z3 is missing" test ! -s out
printf '%s %s: invalid ELF header\n' "$error" "$rules" >want
expect 1 env GRAFT_Z3_LIBRARY="$rules" "$GRAFT" verify --prove=ieee "$rules"
printf "%s 'libm.so.6' has no function Z3_ast_to_string\n" "$error" >want
expect 1 env GRAFT_Z3_LIBRARY=libm.so.6 "$GRAFT" verify --prove -j 2 "$rules"
check "no output when Z3 is broken" test ! -s out

# Without --prove nothing opens it: verify and run go on.
: >want
expect 0 env GRAFT_Z3_LIBRARY="$tmp/none.so" "$GRAFT" verify --trials 2 "$rules"
check "verify without Z3" grep -qx '1 rules: 1 verified, 0 refuted, 0 unchecked, 0 skipped' out
printf 'def @main(%%x: Tensor[(1, 4), float32]) {\n  nn.relu(nn.relu(%%x))\n}\n' >m.relay
expect 0 env GRAFT_Z3_LIBRARY="$tmp/none.so" "$GRAFT" run "$rules" m.relay
printf 'def @main(%%x: Tensor[(1, 4), float32]) {\n  nn.relu(%%x)\n}\n' >want.relay
check "run without Z3" cmp -s want.relay out

# The library configure found (GRAFT_Z3_LIBRARY empty: the same) proves.
printf '%s\n' "$proved" >want.out
expect 0 "$GRAFT" verify --prove "$rules"
check "verify --prove proves" cmp -s want.out out
expect 0 env GRAFT_Z3_LIBRARY= "$GRAFT" verify --prove "$rules"
check "verify --prove, GRAFT_Z3_LIBRARY empty" cmp -s want.out out

expect_end prove_load
