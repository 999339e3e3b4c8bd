#!/bin/sh
# run_all.sh - the whole test suite, as CI runs it (README: "run the tests").
#
#   1. the plain build: make check (unit tests, golden tests, corpus tests);
#   2. the same suite built with AddressSanitizer + UBSan (build-asan/);
#   3. valgrind memcheck over the golden tests (zero errors, zero leaks).
# Ends with every Check suite's summary line and "N passed, N failed".
# Set GRAFT_QUICK=1 to run only step 1.
#
# Every input a test reads is in the tree (tests/corpus holds the real
# models), so a test may skip (exit 77) only for a missing optional tool,
# and then says so on a line "SKIP: TOOL not installed", or in the sanitizer
# build only for a test that cannot run there ("SKIP: NAME: not in a
# sanitizer build: WHY", tests/python.sh).  Any other skip
# counts as a failure here: a test that quietly stops testing is broken.
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
# Test logs of a build tree: tests/, tests/emit/, fuzz/ (not valgrind's own).
test_logs() {
    find "$1/tests" "$1/fuzz" -name '*.log' ! -path '*/valgrind/*' 2>/dev/null | sort
}
logs=$(test_logs .)

if [ "${GRAFT_QUICK:-0}" != 1 ]; then
    step "AddressSanitizer + UBSan build"
    # A source tree configured in place cannot host a second (VPATH) build,
    # so the sanitizer build works on a copy of the tracked sources.
    rm -rf build-asan && mkdir -p build-asan/tree
    git ls-files -z --cached --others --exclude-standard |
        xargs -0 sh -c 'for f; do [ -e "$f" ] && cp --parents "$f" build-asan/tree; done' sh
    ( cd build-asan/tree && autoreconf -fi >/dev/null 2>&1 &&
      ./configure -q --enable-sanitizers &&
      make -s -j"$jobs" && GRAFT_SLOW_TESTS=0 make -s -j"$jobs" check ) ||
        failed_steps=$((failed_steps + 1))
    logs="$logs $(test_logs build-asan/tree)"

    step "valgrind memcheck"
    make -s valgrind-check || failed_steps=$((failed_steps + 1))
    logs="$logs tests/valgrind/summary.log"

    # Each fuzz harness for FUZZ_SECONDS (default 30) under libFuzzer, in a
    # clang build of a copy of the sources (fuzz/README.md).
    step "fuzz smoke"
    if command -v clang >/dev/null 2>&1; then
        rm -rf build-fuzz && mkdir -p build-fuzz/tree
        git ls-files -z --cached --others --exclude-standard |
            xargs -0 sh -c 'for f; do [ -e "$f" ] && cp --parents "$f" build-fuzz/tree; done' sh
        ( cd build-fuzz/tree && autoreconf -fi >/dev/null 2>&1 &&
          ./configure -q --enable-fuzzing CC=clang &&
          FUZZ_SECONDS=${FUZZ_SECONDS:-30} make -s fuzz-smoke ) ||
            failed_steps=$((failed_steps + 1))
    else
        echo "clang not found: fuzz smoke skipped"
    fi
fi

step "summary"
# Check programs print "NN%: Checks: N, Failures: F, Errors: E"; script tests
# count once each, by their automake result; valgrind prints its own tally.
for log in $logs; do
    [ -f "$log" ] || continue
    case $log in
    */summary.log) cat "$log"; continue ;;
    */test-suite.log) continue ;;
    esac
    # A Check program that crashed before its summary counts by its result.
    grep -h '^[0-9]*%: Checks:' "$log" && continue
    result=$(sed -n 's/^:test-result: \([A-Z]*\).*/\1/p' "${log%.log}.trs" 2>/dev/null)
    if [ "$result" = SKIP ]; then
        tool=$(sed -n 's/^SKIP: \(.*\) not installed.*/\1/p' "$log" | head -n 1)
        # The one other skip allowed: a test that cannot run in the
        # sanitizer build says so (tests/python.sh).
        asan=$(sed -n 's/^SKIP: \(.*\): not in a sanitizer build: .*/\1/p' "$log" | head -n 1)
        result="SKIP (no missing tool named)"
        [ -n "$tool" ] && result="SKIP (missing tool: $tool)"
        [ -n "$asan" ] && result="SKIP (missing tool: a plain build, for $asan)"
    fi
    [ -n "$result" ] && echo "script $(basename "${log%.log}"): $result"
done | awk -v failed_steps="$failed_steps" '
    { print }
    /^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
        gsub(/[,:]/, " ")
        checks += $3; bad += $5 + $7
    }
    /^script .*: PASS$/ { checks += 1 }
    /^script .*: SKIP \(missing tool: / { skipped += 1 }
    /^script .*: SKIP \(no missing tool named\)$/ { checks += 1; bad += 1 }
    /^script .*: (FAIL|ERROR|XPASS)$/ { checks += 1; bad += 1 }
    /^valgrind: [0-9]+ passed, [0-9]+ failed$/ { checks += $2 + $4; bad += $4 }
    END {
        # A step that failed without a failing test (a build error) counts.
        if (bad == 0 && failed_steps > 0) bad = failed_steps
        printf "%d passed, %d failed", checks - bad, bad
        if (skipped) printf ", %d skipped", skipped
        printf "\n"
        exit bad > 0
    }'
sum=$?
[ "$failed_steps" -eq 0 ] && [ "$sum" -eq 0 ]
