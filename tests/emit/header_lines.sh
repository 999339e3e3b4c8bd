#!/bin/sh
# header_lines.sh - what graft compile writes beyond its golden files
# (tests/emit/small.golden and fold_bn.golden: the C for tests/emit/small.graft
# and stdpatterns/fold_bn.graft, run by tests/golden.sh):
#   - with --header, the header is tests/emit/small.expected.h and the C is
#     small.golden's with that header included after graft_rules.h;
#   - the output is the same on every run;
#   - the #line directives (on by default) surround exactly the guards and
#     actions.
#
# To update after an intended change of the emitter, regenerate the golden
# files (tests/README.md) and, from the source tree,
#   graft compile --no-line tests/emit/small.graft -o /tmp/small.c \
#       --header tests/emit/small.expected.h --name small_rules
set -u
: "${GRAFT:?}" "${GRAFT_SRCDIR:?}"
. "$GRAFT_SRCDIR/tests/golden_format.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-emit-golden.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR/tests/emit" || exit 99
fail=0

"$GRAFT" compile --no-line small.graft -o "$work/a.c" \
    --header "$work/small.expected.h" --name small_rules || exit 1
# The header is named by its path; the C includes it by that name.
if ! diff -u small.expected.h "$work/small.expected.h"; then
    echo "FAIL: generated header differs from tests/emit/small.expected.h"
    fail=1
fi
golden_stdout small.golden |
    sed '/^#include "graft_rules.h"$/a\
#include "small.expected.h"' >"$work/want.c"
if ! diff -u "$work/want.c" "$work/a.c"; then
    echo "FAIL: the C written with --header is not small.golden's with its #include"
    fail=1
fi

# Deterministic: a second run gives the same bytes.
"$GRAFT" compile --no-line small.graft -o "$work/b.c" \
    --header "$work/small.expected.h" --name small_rules || exit 1
cmp -s "$work/a.c" "$work/b.c" || { echo "FAIL: two runs differ"; fail=1; }

# #line: 3 guards and 6 actions, each entered and left once.
"$GRAFT" compile small.graft -o "$work/lines.c" || exit 1
n=$(grep -c '^#line' "$work/lines.c")
if [ "$n" -ne 18 ]; then
    echo "FAIL: expected 18 #line directives, found $n"
    fail=1
fi
grep -q '^#line 6 "small.graft"$' "$work/lines.c" ||
    { echo "FAIL: no #line into the rule file"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: emit header, determinism, #line"
exit $fail
