#!/bin/sh
# golden.sh - the golden tests: every tests/**/NAME.golden (or each FILE
# given) is run and its output compared byte for byte.  Run by make check.
#
# A golden file is the command and what it prints (tests/README.md):
#
#   # graft ARGS...        line 1: the command, run in the file's directory
#   STDOUT...              standard output, exactly
#   # stderr               only when standard error is not empty,
#   STDERR...              followed by it, exactly
#   # exit STATUS          the exit status
#
# ARGS is shell text (quotes, redirections such as '< input.relay');
# $GRAFT is the graft under test.
#
# Usage: sh tests/golden.sh [--regen] [FILE.golden...]
# --regen (or GRAFT_REGEN=1) rewrites each golden file from the actual
# output instead of failing; review the diff before committing it.
# GRAFT_GOLDEN_WRAP is put before the graft command (tests/valgrind.sh
# runs the cases under valgrind that way).  Outside make check, GRAFT
# defaults to ./graft and GRAFT_SRCDIR to the directory above this script.
set -u
regen=${GRAFT_REGEN:-0}
if [ "${1:-}" = --regen ]; then
    regen=1
    shift
fi
srcdir=${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
GRAFT=${GRAFT:-$(pwd)/graft}
case $GRAFT in # the commands run in the golden files' directories
/*) ;;
*/*) GRAFT=$(pwd)/$GRAFT ;;
esac
wrap=${GRAFT_GOLDEN_WRAP:-}
export GRAFT
. "$srcdir/tests/golden_format.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/graft-golden.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# run_case FILE: writes what FILE's command prints, in the golden format,
# to $tmp/actual; false when the first line is not a graft command.
run_case() {
    cmd=$(head -n 1 "$1")
    case $cmd in
    "# graft "*) args=${cmd#"# graft "} ;;
    *) return 1 ;;
    esac
    (cd "$(dirname "$1")" && eval "$wrap \"\$GRAFT\" $args") >"$tmp/out" 2>"$tmp/err"
    golden_text "$cmd" "$tmp/out" "$tmp/err" $? >"$tmp/actual"
}

if [ $# -eq 0 ]; then
    set -- $(find "$srcdir/tests" -name '*.golden' | LC_ALL=C sort)
fi
for file in "$@"; do
    name=${file#"$srcdir/tests/"}
    if ! run_case "$file"; then
        fail=$((fail + 1))
        echo "FAIL: $name: the first line must be '# graft ARGS...'"
        continue
    fi
    if cmp -s "$tmp/actual" "$file"; then
        pass=$((pass + 1))
        echo "PASS: $name"
    elif [ "$regen" = 1 ]; then
        cp "$tmp/actual" "$file"
        pass=$((pass + 1))
        echo "REGEN: $name"
    else
        fail=$((fail + 1))
        echo "FAIL: $name"
        diff -u "$file" "$tmp/actual" | head -n 40
    fi
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
