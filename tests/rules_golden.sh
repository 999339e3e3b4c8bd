#!/bin/sh
# rules_golden.sh - golden diagnostics of graft check (tests/rules/*.expected).
#
# Each tests/rules/NAME.expected starts with the command, "# graft check
# ARGS...", run in tests/rules/; the rest of the file is the expected
# standard output, then standard error, then "# exit STATUS".  Carets and
# columns are compared byte for byte.  GRAFT_REGEN=1 rewrites the files from
# the actual output (review the diff before committing).
set -u
dir=${GRAFT_SRCDIR:?}/tests/rules
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for expected in "$dir"/*.expected; do
    name=$(basename "$expected" .expected)
    cmd=$(head -n 1 "$expected")
    case $cmd in
    "# graft "*) args=${cmd#"# graft "} ;;
    *) echo "FAIL: $name: first line must be '# graft ARGS'"; fail=$((fail + 1)); continue ;;
    esac
    # shellcheck disable=SC2086
    (cd "$dir" && eval "\"\$GRAFT\" $args" >"$tmp/out" 2>"$tmp/err"; echo "# exit $?" >"$tmp/status")
    { echo "$cmd"; cat "$tmp/out" "$tmp/err" "$tmp/status"; } >"$tmp/actual"
    if [ "${GRAFT_REGEN:-0}" = 1 ]; then
        cp "$tmp/actual" "$expected"
    fi
    if cmp -s "$tmp/actual" "$expected"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name"
        diff -u "$expected" "$tmp/actual" | head -n 40
    fi
done
echo "rules golden: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
