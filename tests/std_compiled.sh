#!/bin/sh
# std_compiled.sh - differential test of the standard rule library: each
# golden case of tests/std/ once more through a standalone rewriter that
# graft compile --exe builds from the same rule files; its output,
# --stats=counts table and exit status must be the interpreter's, byte for
# byte the case's golden files (CASE/*.golden).  The rewriter is
# compiled against the headers and libgraft.a of this build tree.  Then
# lower_dot.graft's rewriter on two models of the corpus.
# Run by make check.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
graft=${GRAFT:?}
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS
. "$src/tests/golden_format.sh"
test_tmpdir std_compiled
pass=0
fail=0

for golden in "$src"/tests/std/*/*.golden; do
    dir=$(dirname "$golden")
    name=std/$(basename "$dir")/$(basename "$golden" .golden)
    # compiled rewriters read and write Relay text only so far (doc/onnx.md)
    [ -e "$dir/input.onnx" ] && continue
    # Line 1 is "# graft run OPTION RULES... MODEL.relay": --stats=counts
    # and input.relay, or --verify (std/multiroot/verify.golden) and its
    # own model.
    cmd=$(head -n 1 "$golden")
    opt=$(echo "$cmd" | sed -n 's/^# graft run \(--[a-z=]*\) .*/\1/p')
    model=$(echo "$cmd" | sed -n 's/.* \([a-z_]*\.relay\)$/\1/p')
    rules=$(echo "$cmd" | sed -e 's/^# graft run --[a-z=]* //' -e 's/ [a-z_]*\.relay$//')
    if ! ( cd "$dir" && eval "\"\$graft\" compile --exe $rules -o \"\$tmp/rewriter\"" ) \
        >"$tmp/err" 2>&1; then
        fail=$((fail + 1))
        echo "FAIL: $name (graft compile --exe)"
        head -10 "$tmp/err"
        continue
    fi
    ( cd "$dir" && "$tmp/rewriter" "$model" "$opt" ) >"$tmp/out" 2>"$tmp/err"
    golden_text "$cmd" "$tmp/out" "$tmp/err" $? >"$tmp/actual"
    if cmp -s "$tmp/actual" "$golden"; then
        pass=$((pass + 1))
        echo "PASS: $name (compiled)"
    else
        fail=$((fail + 1))
        echo "FAIL: $name (compiled rewriter differs from the interpreter)"
        diff -u "$golden" "$tmp/actual" | head -n 40
    fi
    rm -f "$tmp/rewriter"
done

# lower_dot.graft on the transformer models of the corpus: the compiled
# rewriter's output and statistics are the interpreter's (its computed
# attributes, newshape=shape(m), included).
if "$graft" compile --exe "$src/stdpatterns/lower_dot.graft" -o "$tmp/lower_dot" \
    >"$tmp/err" 2>&1; then
    for m in vit_b_16 encoder; do
        "$graft" run --stats=counts "$src/stdpatterns/lower_dot.graft" \
            "$src/tests/corpus/$m.relay" >"$tmp/want" 2>"$tmp/want.stats"
        "$tmp/lower_dot" "$src/tests/corpus/$m.relay" --stats=counts >"$tmp/got" \
            2>"$tmp/got.stats"
        if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got" &&
            cmp -s "$tmp/want.stats" "$tmp/got.stats"; then
            pass=$((pass + 1))
            echo "PASS: corpus/$m lower_dot.graft (compiled)"
        else
            fail=$((fail + 1))
            echo "FAIL: corpus/$m lower_dot.graft (compiled rewriter differs from the interpreter)"
            diff "$tmp/want.stats" "$tmp/got.stats" | head -n 10
        fi
    done
else
    fail=$((fail + 1))
    echo "FAIL: lower_dot.graft (graft compile --exe)"
    head -10 "$tmp/err"
fi

echo "std_compiled: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
