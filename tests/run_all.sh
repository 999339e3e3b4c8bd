#!/bin/sh
# run_all.sh - the whole test suite, as CI runs it (README: "run the tests").
#
#   1. the plain build: make check (unit tests, golden tests, corpus tests);
#   2. the same suite built with AddressSanitizer + UBSan (build-asan/);
#   3. valgrind memcheck over the golden tests (zero errors, zero leaks).
# Ends with every Check suite's summary line and "N passed, N failed".
# Set GRAFT_QUICK=1 to run only step 1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
jobs=$(nproc 2>/dev/null || echo 2)
failed_steps=0

step() {
    echo "== $*"
}

[ -x configure ] || autoreconf -fi || exit 2
step "plain build"
{ [ -f Makefile ] || ./configure -q; } && make -s -j"$jobs" || exit 2
make -s -j"$jobs" check || failed_steps=$((failed_steps + 1))
logs="tests/*.log"

if [ "${GRAFT_QUICK:-0}" != 1 ]; then
    step "AddressSanitizer + UBSan build"
    mkdir -p build-asan
    ( cd build-asan &&
      { [ -f Makefile ] || ../configure -q --enable-sanitizers; } &&
      make -s -j"$jobs" && make -s -j"$jobs" check ) ||
        failed_steps=$((failed_steps + 1))
    logs="$logs build-asan/tests/*.log"

    step "valgrind memcheck"
    make -s valgrind-check || failed_steps=$((failed_steps + 1))
    logs="$logs tests/valgrind/*.log"
fi

step "summary"
# shellcheck disable=SC2086
cat $logs 2>/dev/null | awk '
    /^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
        print
        gsub(/[,:]/, " ")
        checks += $3; bad += $5 + $7
    }
    /^valgrind: [0-9]+ passed, [0-9]+ failed$/ {
        print
        checks += $2 + $4; bad += $4
    }
    END { printf "%d passed, %d failed\n", checks - bad, bad; exit bad > 0 }'
sum=$?
[ "$failed_steps" -eq 0 ] && [ "$sum" -eq 0 ]
