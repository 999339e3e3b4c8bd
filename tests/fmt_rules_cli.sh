#!/bin/sh
# fmt_rules_cli.sh - graft fmt RULES -o OUT: the output written whole or
# not at all (a syntax error leaves no file, and an existing one as it
# was), the same bytes as on standard output, -o naming the input refused.
set -u
graft=${GRAFT:?}
srcdir=${GRAFT_SRCDIR:?}
. "${GRAFT_SRCDIR:?}/tests/expect.sh" # check, $tmp
bad=$srcdir/tests/fmt_rules/syntax_error.graft

"$graft" fmt "$bad" -o "$tmp/new.graft" 2>/dev/null
check "a syntax error exits 1" [ $? -eq 1 ]
check "a syntax error leaves no output file" [ ! -e "$tmp/new.graft" ]
echo 'kept := x => x' >"$tmp/old.graft"
"$graft" fmt "$bad" -o "$tmp/old.graft" 2>/dev/null
check "a syntax error leaves an existing output as it was" \
    [ "$(cat "$tmp/old.graft")" = 'kept := x => x' ]

std=$srcdir/stdpatterns/simplify.graft
"$graft" fmt "$std" -o "$tmp/simplify.graft"
check "-o exits 0" [ $? -eq 0 ]
"$graft" fmt "$std" >"$tmp/stdout.graft"
check "-o writes what standard output gets" cmp -s "$tmp/simplify.graft" "$tmp/stdout.graft"
"$graft" fmt "$tmp/simplify.graft" -o "$tmp/simplify.graft" 2>"$tmp/err"
check "-o naming the input exits 2" [ $? -eq 2 ]
check "-o naming the input says so" grep -q "is the input" "$tmp/err"
check "and leaves the input as it was" cmp -s "$tmp/simplify.graft" "$tmp/stdout.graft"
# a rule file not named *.graft is told by its first tokens
cp "$std" "$tmp/rules.txt"
"$graft" fmt "$tmp/rules.txt" >"$tmp/txt.graft"
check "a rule file named otherwise is formatted too" cmp -s "$tmp/txt.graft" "$tmp/stdout.graft"
expect_end fmt_rules_cli
