# expect.sh - sourced by the scripts that run graft on hostile or limited
# input and check each exit status and message exactly (tests/hostile.sh,
# tests/limits.sh).  Sets up a temporary directory and works in it; the
# script ends with `expect_end NAME`.
set -u
GRAFT=${GRAFT:?} src=${GRAFT_SRCDIR:?} build=${GRAFT_BUILDDIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/graft-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
fails=0 cases=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect STATUS CMD...: runs CMD (for at most 120 s); status and stderr
# (against $tmp/want) must match exactly.
expect() {
    want_status=$1
    shift
    cases=$((cases + 1))
    timeout 120 "$@" >out 2>err # a hang is a failure (status 124), not a stuck test
    status=$?
    [ "$status" -eq "$want_status" ] || fail "$* exited $status, expected $want_status"
    cmp -s err want || { fail "$*: stderr differs"; diff want err | head -n 10; }
}

# expect_end NAME: the tally; the script's status.
expect_end() {
    echo "$1: $cases cases, $fails failed"
    [ "$fails" -eq 0 ]
}
