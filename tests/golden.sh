#!/bin/sh
# golden.sh - every case under tests/golden/: run the graft arguments in
# CASE/cmd (relative to the case directory) and compare standard output
# with CASE/expected.relay byte for byte.  Run by make check.
set -u
srcdir=${GRAFT_SRCDIR:?}
graft=${GRAFT:?}
. "$srcdir/tests/cases.sh"
for dir in "$srcdir"/tests/golden/*/; do
    [ -f "$dir/cmd" ] || continue
    name=$(basename "$dir")
    args=$(cat "$dir/cmd")
    out=$(mktemp)
    ( cd "$dir" && eval "\"\$graft\" $args" ) >"$out" 2>"$out.err"
    case_result $? "golden/$name" "$dir/expected.relay" "$out" "$out.err"
    rm -f "$out" "$out.err"
done
cases_end golden
