#!/bin/sh
# golden.sh - every case under tests/golden/: run the graft arguments in
# CASE/cmd (relative to the case directory) and compare standard output
# with CASE/expected.relay byte for byte.  Run by make check.
set -u
srcdir=${GRAFT_SRCDIR:?}
graft=${GRAFT:?}
pass=0
fail=0
for dir in "$srcdir"/tests/golden/*/; do
    [ -f "$dir/cmd" ] || continue
    name=$(basename "$dir")
    args=$(cat "$dir/cmd")
    out=$(mktemp)
    if ( cd "$dir" && eval "\"\$graft\" $args" ) >"$out" 2>"$out.err" &&
        cmp -s "$out" "$dir/expected.relay"; then
        pass=$((pass + 1))
        echo "PASS: golden/$name"
    else
        fail=$((fail + 1))
        echo "FAIL: golden/$name"
        diff "$dir/expected.relay" "$out" | head -20
        head -5 "$out.err"
    fi
    rm -f "$out" "$out.err"
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
