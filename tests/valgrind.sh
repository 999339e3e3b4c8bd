#!/bin/sh
# valgrind.sh - memcheck pass: every golden case through the graft binary,
# and every Check program in-process (CK_FORK=no), must show zero errors and
# zero leaks.  Run from the build directory (make valgrind-check).
# Prints one line per run, in the cases' order, and "valgrind: N passed, N
# failed".  The cases run $(nproc) at a time (xargs -P): each writes only
# files named by its number and name in $out (two golden
# files of different cases may share a name), and its verdict is read back
# from there once all have ended.
set -u
srcdir=${GRAFT_SRCDIR:?}
out=$(pwd)/tests/valgrind
export GRAFT_SLOW_TESTS=0 # the million-node cases take minutes under valgrind
# libz3's own static allocation is suppressed (tests/valgrind_z3.supp says why).
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
vg="$vg --suppressions=$srcdir/tests/valgrind_z3.supp"

# --case N NAME KIND PATH (the pool's worker): runs case number N into
# $out/N-NAME.{log,out} and writes its status to $out/N-NAME.status.  A golden
# case runs tests/golden.sh with graft under valgrind (its report in the
# log, so that the output compared is graft's); a Check program runs
# under valgrind itself.
if [ "${1:-}" = --case ]; then
    stem=$out/$2-$3
    if [ "$4" = golden ]; then
        GRAFT_GOLDEN_WRAP="$vg --log-file=$stem.log" \
            sh "$srcdir/tests/golden.sh" "$5" >"$stem.out" 2>&1
        status=$?
        [ -s "$stem.log" ] && status=1
    else
        CK_FORK=no $vg "$5" >"$stem.log" 2>&1
        status=$?
    fi
    echo $status >"$stem.status"
    exit 0
fi

mkdir -p "$out"
rm -f "$out"/*.status
# The cases, one "NAME KIND PATH" a line: the golden cases of
# tests/golden/; of tests/prove/ (graft verify --prove) only one.golden, a
# proof at once, Z3 opened with dlopen and closed (what dlopen keeps:
# tests/valgrind_z3.supp): Z3's solving under memcheck takes minutes per
# case; then every Check program.
cases() {
    for golden in "$srcdir"/tests/golden/*/*.golden; do
        echo "golden-$(basename "$golden" .golden) golden $golden"
    done
    echo "prove-one golden $srcdir/tests/prove/one.golden"
    for prog in tests/check_*; do
        case $prog in *.c|*.o|*.log|*.trs|*.status) continue ;; esac
        [ -x "$prog" ] && echo "$(basename "$prog") check $prog"
    done
}
jobs=$(nproc 2>/dev/null || echo 2)
cases | awk '{ print NR, $0 }' | xargs -n 4 -P "$jobs" sh "$0" --case

pass=0
fail=0
while read -r n name kind path; do
    status=$(cat "$out/$n-$name.status" 2>/dev/null || echo missing)
    if [ "$status" = 0 ]; then pass=$((pass + 1)); echo "PASS: $name"
    else fail=$((fail + 1)); echo "FAIL: $name (see $out/$n-$name.log)"; fi
    [ "$name" = prove-one ] &&
        echo "not under valgrind: the other tests/prove/*.golden (Z3 takes minutes per case" \
            "there; the ASan pass runs them)"
done <<END
$(cases | awk '{ print NR, $0 }')
END

echo "valgrind: $pass passed, $fail failed" | tee "$out/summary.log"
[ "$fail" -eq 0 ]
