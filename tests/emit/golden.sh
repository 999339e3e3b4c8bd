#!/bin/sh
# golden.sh - the C that graft compile writes for tests/emit/small.graft
# is kept as tests/emit/small.expected.c (and its header as
# small.expected.h), and for stdpatterns/fold_bn.graft as
# tests/emit/fold_bn.expected.c; the output is the same on every run, and
# the #line directives (on by default) surround exactly the guards and
# actions.
#
# To update after an intended change of the emitter, from the source tree:
#   graft compile --no-line tests/emit/small.graft -o tests/emit/small.expected.c \
#       --header tests/emit/small.expected.h --name small_rules
#   graft compile --no-line stdpatterns/fold_bn.graft -o tests/emit/fold_bn.expected.c \
#       --name fold_bn_rules
set -u
: "${GRAFT:?}" "${GRAFT_SRCDIR:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-emit-golden.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR" || exit 99
fail=0

"$GRAFT" compile --no-line tests/emit/small.graft -o "$work/a.c" \
    --header "$work/small.expected.h" --name small_rules || exit 1
# The header is named by its path; the golden file names small.expected.h.
if ! diff -u tests/emit/small.expected.c "$work/a.c"; then
    echo "FAIL: generated C differs from tests/emit/small.expected.c"
    fail=1
fi
if ! diff -u tests/emit/small.expected.h "$work/small.expected.h"; then
    echo "FAIL: generated header differs from tests/emit/small.expected.h"
    fail=1
fi

"$GRAFT" compile --no-line stdpatterns/fold_bn.graft -o "$work/fold_bn.c" \
    --name fold_bn_rules || exit 1
if ! diff -u tests/emit/fold_bn.expected.c "$work/fold_bn.c"; then
    echo "FAIL: generated C differs from tests/emit/fold_bn.expected.c"
    fail=1
fi

# Deterministic: a second run gives the same bytes.
"$GRAFT" compile --no-line tests/emit/small.graft -o "$work/b.c" \
    --header "$work/small.expected.h" --name small_rules || exit 1
cmp -s "$work/a.c" "$work/b.c" || { echo "FAIL: two runs differ"; fail=1; }

# #line: 3 guards and 6 actions, each entered and left once.
"$GRAFT" compile tests/emit/small.graft -o "$work/lines.c" || exit 1
n=$(grep -c '^#line' "$work/lines.c")
if [ "$n" -ne 18 ]; then
    echo "FAIL: expected 18 #line directives, found $n"
    fail=1
fi
grep -q '^#line 6 "tests/emit/small.graft"$' "$work/lines.c" ||
    { echo "FAIL: no #line into the rule file"; fail=1; }
exit $fail
