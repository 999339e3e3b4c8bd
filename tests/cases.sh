# cases.sh - sourced by tests/explain.sh, which runs its cases and compares
# each one's output with its expected file byte for byte (not yet in the
# one golden format of tests/golden.sh): the tally and the report.
pass=0
fail=0

# case_result STATUS NAME EXPECTED OUT ERR [FAILED]: the case passed when
# its command exited with STATUS 0 and wrote OUT equal to EXPECTED; else
# it failed (reported as FAILED when given), shown with the first lines of
# the difference and of its standard error ERR.
case_result() {
    if [ "$1" -eq 0 ] && cmp -s "$4" "$3"; then
        pass=$((pass + 1))
        echo "PASS: $2"
    else
        fail=$((fail + 1))
        echo "FAIL: ${6:-$2}"
        diff "$3" "$4" | head -20
        head -5 "$5"
    fi
}

# cases_end LABEL: prints the tally; false when a case failed or none ran.
cases_end() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}
