#!/bin/sh
# cli.sh - graft compile's command line: usage errors (exit 2), bad rule
# files (exit 1, file:line:col diagnostics), no C compiler (exit 1, a
# clear message), never a partial output file, and a working --exe.
set -u
: "${GRAFT:?}" "${GRAFT_SRCDIR:?}" "${GRAFT_BUILDDIR:?}"
unset GRAFT_CFLAGS GRAFT_LIBS GRAFT_CC
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-emit-cli.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR" || exit 99
small=tests/emit/small.graft
fail=0

# expect STATUS PATTERN CMD...: runs CMD, checks its exit status and that
# its standard error (or output, for --help) holds PATTERN (if not empty).
expect() {
    want=$1 pattern=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    got=$?
    if [ "$got" -ne "$want" ] ||
       { [ -n "$pattern" ] && ! grep -q -- "$pattern" "$work/out" "$work/err"; }; then
        echo "FAIL: $* -> exit $got (want $want), output:"
        cat "$work/out" "$work/err"
        fail=1
    fi
}

expect 0 'usage: graft compile RULES' "$GRAFT" compile --help
expect 2 "need '-o OUT.c'" "$GRAFT" compile $small
expect 2 'need at least one rule file' "$GRAFT" compile -o "$work/x.c"
expect 2 "unknown option '--bogus'" "$GRAFT" compile --bogus $small -o "$work/x.c"
expect 2 "option '--name' needs a value" "$GRAFT" compile $small -o "$work/x.c" --name
expect 2 "'2x' is not a C identifier" "$GRAFT" compile $small -o "$work/x.c" --name 2x
expect 2 "'int' is not a C identifier" "$GRAFT" compile $small -o "$work/x.c" --name int
expect 2 "'--header' does not go with '--exe'" \
    "$GRAFT" compile --exe $small -o "$work/p" --header "$work/x.h"

# A bad rule file: diagnostics with a caret, exit 1, no output file.
printf 'bad := nn.relu(x => x\n' >"$work/bad.graft"
expect 1 'bad.graft:1:' "$GRAFT" compile "$work/bad.graft" -o "$work/bad.c"
grep -q '\^' "$work/err" || { echo "FAIL: no caret in the diagnostic"; fail=1; }
[ ! -e "$work/bad.c" ] || { echo "FAIL: output left behind for a bad rule file"; fail=1; }

# No C compiler: a clear error, no program left behind.
CC=/nonexistent/cc expect 1 'no C compiler found' \
    "$GRAFT" compile --exe $small -o "$work/prog"
[ ! -e "$work/prog" ] || { echo "FAIL: program left behind without a compiler"; fail=1; }
ls "$work" | grep -q 'prog\.' && { echo "FAIL: temporary file left behind"; fail=1; }

GRAFT_CC=/nonexistent/gcc expect 1 "no C compiler found: cannot run '/nonexistent/gcc': No such file or directory (set GRAFT_CC or CC to a C compiler)" \
    "$GRAFT" compile --exe $small -o "$work/prog"

# A graft neither in its build tree nor beside an install (here
# DIR/bin/graft with no DIR/include/graft): one error that says what to do.
mkdir -p "$work/lone/bin" && cp "$GRAFT" "$work/lone/bin/graft"
expect 1 "^graft: error: cannot build a program: libgraft's header graft_rules.h is not in '$work/lone/include/graft' (the installation); run 'make install', or set GRAFT_CFLAGS and GRAFT_LIBS (doc/compile.md)\$" \
    "$work/lone/bin/graft" compile --exe $small -o "$work/prog"
[ ! -e "$work/prog" ] || { echo "FAIL: program left behind without libgraft"; fail=1; }

# A compiler that fails: its status reported, nothing left behind.
CC=false expect 1 "the C compiler 'false' failed" \
    "$GRAFT" compile --exe $small -o "$work/prog"
[ ! -e "$work/prog" ] || { echo "FAIL: program left behind by a failed compiler"; fail=1; }

# --exe works: the rewriter's own usage and output.
flags=$(sed -n 's/^SANITIZER_CFLAGS = //p' "$GRAFT_BUILDDIR/Makefile" 2>/dev/null)
export GRAFT_CFLAGS="-I$GRAFT_SRCDIR/include/graft $flags"
export GRAFT_LIBS="$GRAFT_BUILDDIR/libgraft.a -lprotobuf-c -lm $flags"
expect 0 '' "$GRAFT" compile --exe $small -o "$work/prog"
expect 2 'need a MODEL' "$work/prog"
expect 2 "unknown option '--bogus'" "$work/prog" --bogus tests/emit/small.relay
expect 0 'usage:' "$work/prog" --help
expect 1 'error' "$work/prog" "$work/missing.relay"
expect 0 '' "$work/prog" tests/emit/small.relay -o "$work/out.relay"
cat "$work/out.relay" >"$work/out"
# alpha=0.25 is leaky_relu's default, which TVM's printer leaves out.
grep -q 'nn.leaky_relu(%y);' "$work/out" ||
    { echo "FAIL: the rewriter's output lacks the scale rewrite"; fail=1; }
# A guard comparing a shape with a list attribute (shape(x) == s, s bound
# to newshape): the compiled rewriter removes the reshape to x's own shape
# and keeps the other, as graft run does.
expect 0 '' "$GRAFT" compile --exe tests/emit/shape_attr.graft -o "$work/shape"
expect 0 '' "$work/shape" tests/emit/shape_attr.relay -o "$work/shape.relay"
"$GRAFT" run tests/emit/shape_attr.graft tests/emit/shape_attr.relay >"$work/shape.want"
grep -q 'reshape(%x, newshape=\[3, 2\]);' "$work/shape.want" ||
    { echo "FAIL: graft run kept the reshape to x's own shape"; fail=1; }
cmp -s "$work/shape.relay" "$work/shape.want" ||
    { echo "FAIL: the compiled shape(x) == newshape guard differs from graft run"; fail=1; }
exit $fail
