#!/bin/sh
# header_lines.sh - what graft compile writes beyond its golden files
# (tests/emit/small.golden and fold_bn.golden: the C for tests/emit/small.graft
# and stdpatterns/fold_bn.graft, run by tests/golden.sh):
#   - with --header, the header is tests/emit/small.expected.h and the C is
#     small.golden's with that header included after graft_rules.h;
#   - the output is the same on every run;
#   - the #line directives (on by default) surround exactly the guards and
#     the statements of actions, and a C compiler's error in a statement is
#     reported at the rule file's line that wrote it.
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

# #line (note [line directives] in emit_c_action.c): each guard entered and
# left once, each statement of an action that builds a node under its own
# directive (21 into small.graft in all), and 8 back into the C file.
"$GRAFT" compile small.graft -o "$work/lines.c" || exit 1
n=$(grep -c '^#line [0-9]* "small.graft"$' "$work/lines.c")
back=$(grep -c '^#line [0-9]* ".*lines.c"$' "$work/lines.c")
if [ "$n" -ne 21 ] || [ "$back" -ne 8 ]; then
    echo "FAIL: expected 21 #line directives into small.graft and 8 back, found $n and $back"
    fail=1
fi
grep -q '^#line 6 "small.graft"$' "$work/lines.c" ||
    { echo "FAIL: no #line into the rule file"; fail=1; }
# Every directive back into the C file names the line that follows it.
awk '/^#line [0-9]* ".*lines.c"$/ && $2 != NR + 1 { print "FAIL: line " NR ": " $0; bad = 1 }
     END { exit bad }' "$work/lines.c" || fail=1

# An error planted in generated C is reported where the rule file wrote
# what the statement builds: fold_bn.graft writes the conv2d fold's
# action over lines 35 to 37, its shift (a subtract) on line 37; an error
# in the scaffolding after the action is reported at the C file's line.
"$GRAFT" compile "$GRAFT_SRCDIR/stdpatterns/fold_bn.graft" -o "$work/fb.c" || exit 1
first_error() { # the file:line of cc's first error in $1
    ${CC:-cc} -fsyntax-only -I"$GRAFT_SRCDIR/include/graft" "$1" 2>&1 |
        sed -n 's/^\(.*:[0-9]*\):[0-9]*: error:.*/\1/p' | head -n 1
}
plant() { # line number in fb.c, then a copy with "@" planted at it
    awk -v at="$1" 'NR == at { $0 = "@" $0 } { print }' "$work/fb.c" >"$work/planted.c"
}
at=$(grep -n 'graft_add_call(g, "subtract"' "$work/fb.c" | head -n 1 | cut -d: -f1)
plant "$at"
got=$(first_error "$work/planted.c")
case $got in
*stdpatterns/fold_bn.graft:37) ;;
*) echo "FAIL: an error in the subtract of fold_conv2d_bn's action reported at '$got'"; fail=1 ;;
esac
at=$(grep -n 'graft_add_call(g, "nn.bias_add"' "$work/fb.c" | head -n 1 | cut -d: -f1)
plant "$at"
got=$(first_error "$work/planted.c")
case $got in
*stdpatterns/fold_bn.graft:35) ;;
*) echo "FAIL: an error in the nn.bias_add of fold_conv2d_bn's action reported at '$got'"; fail=1 ;;
esac
at=$(grep -n '^    return n[0-9]*;$' "$work/fb.c" | head -n 1 | cut -d: -f1)
plant "$at"
got=$(first_error "$work/planted.c")
[ "$got" = "$work/fb.c:$at" ] ||
    { echo "FAIL: an error in the return after an action reported at '$got', not line $at"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: emit header, determinism, #line"
exit $fail
