# expect.sh - the one harness of the shell tests that run graft and check
# each exit status (expect_status) or each status and message exactly
# (expect), or any command that must succeed (check): sourced by tests/hostile.sh, tests/limits.sh, tests/hints.sh,
# tests/ir_cli.sh and the others that name it.  On tests/shell_lib.sh's
# setup ($src, $build, fail, python_onnx), it makes the temporary
# directory and works in it: every scratch file (out, err, want, the
# generated inputs) goes there, never into the source tree, and the script
# stops when it cannot get there.  The script ends with `expect_end NAME`.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh" # $src, $build, test_tmpdir, fail
test_tmpdir graft-test
cd "$tmp" && [ "$(pwd -P)" = "$(cd "$tmp" && pwd -P)" ] || exit 99
cases=0

# expect STATUS CMD...: runs CMD (for at most 120 s); status and stderr
# (against $tmp/want) must match exactly.
expect() {
    want_status=$1
    shift
    cases=$((cases + 1))
    timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" # a hang fails (status 124), not a stuck test
    status=$?
    [ "$status" -eq "$want_status" ] || fail "$* exited $status, expected $want_status"
    cmp -s "$tmp/err" "$tmp/want" ||
        { fail "$*: stderr differs"; diff "$tmp/want" "$tmp/err" | head -n 10; }
}

# check WHAT CMD...: CMD (any command: a test, a comparison) must
# succeed; prints PASS or FAIL with WHAT.
check() {
    what=$1
    shift
    cases=$((cases + 1))
    if "$@"; then echo "PASS: $what"; else fail "$what"; fi
}

# expect_status STATUS CMD...: runs CMD (for at most 120 s); only its
# status must match.  Its output stays in $tmp/out and $tmp/err for the
# checks that follow.
expect_status() {
    want_status=$1
    shift
    cases=$((cases + 1))
    timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq "$want_status" ] ||
        fail "$* exited $status, expected $want_status: $(head -c 300 "$tmp/err")"
}

# expect_end NAME: the tally; the script's status.
expect_end() {
    echo "$1: $cases cases, $failures failed"
    [ "$failures" -eq 0 ]
}
