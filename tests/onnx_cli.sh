#!/bin/sh
# onnx_cli.sh - ONNX models through graft fmt (note [onnx bytes] in
# src/onnx/onnx_model.h): every model of tests/onnx/ written back byte for
# byte (cmp), also when it is recognised from its bytes under another name;
# every malformed file of tests/onnx/bad/ (bytes or graph) refused with
# exit 1 and nothing written, an existing output left as it was; the depth limit from
# GRAFT_LIMITS.  The diagnostics themselves are golden files
# (tests/onnx/bad/*.golden); onnx_checker.sh checks the outputs with
# python3-onnx.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
data="$GRAFT_SRCDIR/tests/onnx"

models=0
for model in "$data"/*.onnx; do
    name=$(basename "$model")
    expect_status 0 "$GRAFT" fmt "$model" -o "$tmp/$name"
    [ -s "$tmp/err" ] && fail "fmt $name wrote to stderr: $(head -c 300 "$tmp/err")"
    cmp -s "$model" "$tmp/$name" || fail "fmt $name: output differs from the input"
    models=$((models + 1))
done
[ "$models" -ge 9 ] || fail "only $models models in tests/onnx"

# Recognised from its first bytes under a name that says nothing.
cp "$data/tiny.onnx" "$tmp/model.bin"
expect_status 0 "$GRAFT" fmt "$tmp/model.bin" -o "$tmp/from_bin.onnx"
cmp -s "$data/tiny.onnx" "$tmp/from_bin.onnx" || fail "fmt model.bin: output differs"

# Bad input: exit 1, nothing created, an existing output untouched.
bad=0
for model in "$data"/bad/*.onnx; do
    name=$(basename "$model")
    expect_status 1 "$GRAFT" fmt "$model" -o "$tmp/new_$name"
    [ -e "$tmp/new_$name" ] && fail "fmt bad/$name: output written"
    grep -q "^$model: error: " "$tmp/err" ||
        fail "fmt bad/$name: no 'FILE: error: ...' line: $(head -c 300 "$tmp/err")"
    printf 'kept\n' >"$tmp/keep.onnx"
    expect_status 1 "$GRAFT" fmt "$model" -o "$tmp/keep.onnx"
    [ "$(cat "$tmp/keep.onnx")" = kept ] || fail "fmt bad/$name: existing output replaced"
    bad=$((bad + 1))
done
[ "$bad" -ge 17 ] || fail "only $bad malformed files in tests/onnx/bad"
[ "$(ls "$tmp" | grep -c '^\.\?new_\|^\..*tmp')" -eq 0 ] || fail "temporary files left: $(ls -a "$tmp")"

# The depth limit from the environment, and the nesting bomb under it.
GRAFT_LIMITS=onnx-depth=200 expect_status 0 "$GRAFT" fmt "$data/bad/nesting_bomb.onnx" \
    -o "$tmp/bomb.onnx"
cmp -s "$data/bad/nesting_bomb.onnx" "$tmp/bomb.onnx" || fail "nesting bomb at depth 200"
GRAFT_LIMITS=onnx-depth=110 expect_status 1 "$GRAFT" fmt "$data/bad/nesting_bomb.onnx" \
    -o "$tmp/bomb2.onnx"
grep -q "nested deeper than 110 levels" "$tmp/err" || fail "onnx-depth=110: $(cat "$tmp/err")"

# The input is never the output.
cp "$data/tiny.onnx" "$tmp/self.onnx"
expect_status 2 "$GRAFT" fmt "$tmp/self.onnx" -o "$tmp/self.onnx"
cmp -s "$data/tiny.onnx" "$tmp/self.onnx" || fail "fmt -o INPUT changed the input"

echo "onnx_cli: $models models round-tripped, $bad malformed files refused"
expect_end onnx_cli
