#!/bin/sh
# seeds.sh - make check: every fuzz harness once over its seed corpus
# (fuzz/corpus/NAME) and over the project's own inputs: the loader over
# tests/relay, tests/golden and tests/corpus (the real models), the rule
# front end over tests/rules, stdpatterns and the golden rule files, the
# ONNX reader over tests/onnx (the corpus and the malformed files), the
# ONNX text reader over tests/onnx/text (every part of the syntax, and
# its malformed files).  A
# broken invariant aborts the harness and fails this test.
set -u
build=${GRAFT_BUILDDIR:?} src=${GRAFT_SRCDIR:?}
failed=0

# Harnesses built with libFuzzer fuzz the directories they are given
# unless told to run each input once.
once=
"$build/fuzz/fuzz_relay" -help=1 2>&1 | grep -q libFuzzer && once=-runs=0

existing() { # prints the arguments that exist
    for p in "$@"; do [ -e "$p" ] && printf '%s\n' "$p"; done
}

replay() { # harness, then seed files and directories
    h=$1
    shift
    # shellcheck disable=SC2046
    if "$build/fuzz/$h" $once $(existing "$@") >"$build/fuzz/$h.seeds.log" 2>&1; then
        echo "PASS: $h $(tail -n 1 "$build/fuzz/$h.seeds.log")"
    else
        echo "FAIL: $h (see fuzz/$h.seeds.log)"
        tail -n 20 "$build/fuzz/$h.seeds.log"
        failed=1
    fi
}

replay fuzz_relay "$src/fuzz/corpus/relay" "$src/examples" "$src/tests/relay" \
    "$src/tests/relay/bad" $(existing "$src"/tests/golden/*/) "$src/tests/corpus"
replay fuzz_rules "$src/fuzz/corpus/rules" "$src/tests/rules" "$src/stdpatterns" \
    $(existing "$src"/tests/golden/*/rules.graft)
replay fuzz_pipeline "$src/fuzz/corpus/pipeline"

# The generator makes the same case from the same bytes in every build:
# fuzz/gen/NAME.bin gives exactly NAME.graft and NAME.relay (input b of
# fuzz/README.md made another rule under gcc than under clang).
gen=$build/fuzz/gen.out
for bin in "$src"/fuzz/gen/*.bin; do
    name=${bin%.bin}
    rm -rf "$gen" && mkdir -p "$gen" && "$build/fuzz/fuzz_gen" "$bin" "$gen" &&
        cmp "$gen/rules.graft" "$name.graft" && cmp "$gen/model.relay" "$name.relay" ||
        { echo "FAIL: fuzz_gen $bin"; failed=1; }
done
rm -rf "$gen"

replay fuzz_compiled "$src/fuzz/corpus/compiled"
replay fuzz_onnx "$src/fuzz/corpus/onnx" "$src/tests/onnx/bad" "$src/tests/onnx"
replay fuzz_onnx_text "$src/fuzz/corpus/onnx_text" "$src/tests/onnx/text"
exit $failed
