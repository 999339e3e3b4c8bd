#!/bin/sh
# std_compiled.sh - differential test of the standard rule library: each case
# of tests/std/ once more through a standalone rewriter that graft compile
# --exe builds from the same rule files; its output must equal the
# interpreter's (CASE/expected.relay) byte for byte.  The rewriter is
# compiled against the headers and libgraft.a of this build tree.
# Run by make check.
set -u
srcdir=${GRAFT_SRCDIR:?}
builddir=${GRAFT_BUILDDIR:?}
graft=${GRAFT:?}
GRAFT_CFLAGS="-I$srcdir/src/base -I$srcdir/src/ir -I$srcdir/src/runtime -I$builddir/grammar"
GRAFT_LIBS="-L$builddir -lgraft -lm"
export GRAFT_CFLAGS GRAFT_LIBS
. "$srcdir/tests/cases.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

for dir in "$srcdir"/tests/std/*/; do
    [ -f "$dir/cmd" ] || continue
    name=std/$(basename "$dir")
    # cmd is "run RULES... input.relay": the rule files are the words between.
    rules=$(sed -e 's/^run //' -e 's/ input\.relay$//' "$dir/cmd")
    if ! ( cd "$dir" && eval "\"\$graft\" compile --exe $rules -o \"\$tmp/rewriter\"" ) \
        >"$tmp/err" 2>&1; then
        fail=$((fail + 1))
        echo "FAIL: $name (graft compile --exe)"
        head -10 "$tmp/err"
        continue
    fi
    ( cd "$dir" && "$tmp/rewriter" input.relay ) >"$tmp/out" 2>"$tmp/err"
    case_result $? "$name (compiled)" "$dir/expected.relay" "$tmp/out" "$tmp/err" \
        "$name (compiled rewriter differs from the interpreter)"
    rm -f "$tmp/rewriter"
done

cases_end std_compiled
