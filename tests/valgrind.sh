#!/bin/sh
# valgrind.sh - memcheck pass: every golden case through the graft binary,
# and every Check program in-process (CK_FORK=no), must show zero errors and
# zero leaks.  Run from the build directory (make valgrind-check).
# Prints one line per run and "valgrind: N passed, N failed".
set -u
srcdir=${GRAFT_SRCDIR:?}
out=$(pwd)/tests/valgrind
mkdir -p "$out"
export GRAFT_SLOW_TESTS=0 # the million-node cases take minutes under valgrind
# libz3's own static allocation is suppressed (tests/valgrind_z3.supp says why).
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
vg="$vg --suppressions=$srcdir/tests/valgrind_z3.supp"
pass=0
fail=0

verdict() { # name status
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "PASS: $1"
    else fail=$((fail + 1)); echo "FAIL: $1 (see $out/$1.log)"; fi
}

# The golden cases of tests/golden/ through tests/golden.sh, graft under
# valgrind (its report in the log, so that the output compared is graft's).
for golden in "$srcdir"/tests/golden/*/*.golden; do
    name=golden-$(basename "$golden" .golden)
    GRAFT_GOLDEN_WRAP="$vg --log-file=$out/$name.log" \
        sh "$srcdir/tests/golden.sh" "$golden" >"$out/$name.out" 2>&1
    status=$?
    [ -s "$out/$name.log" ] && status=1
    verdict "$name" $status
done

# tests/prove/ (graft verify --prove) is left out: Z3's solving under
# memcheck takes minutes per case; but for one.golden, a proof at once, Z3
# opened with dlopen and closed (what dlopen keeps: tests/valgrind_z3.supp).
GRAFT_GOLDEN_WRAP="$vg --log-file=$out/prove-one.log" \
    sh "$srcdir/tests/golden.sh" "$srcdir/tests/prove/one.golden" >"$out/prove-one.out" 2>&1
status=$?
[ -s "$out/prove-one.log" ] && status=1
verdict prove-one $status
echo "not under valgrind: the other tests/prove/*.golden (Z3 takes minutes per case there;" \
    "the ASan pass runs them)"

for prog in tests/check_*; do
    case $prog in *.c|*.o|*.log|*.trs) continue ;; esac
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    CK_FORK=no $vg "$prog" >"$out/$name.log" 2>&1
    verdict "$name" $?
done

echo "valgrind: $pass passed, $fail failed" | tee "$out/summary.log"
[ "$fail" -eq 0 ]
