#!/bin/sh
# smoke.sh - make fuzz-smoke: each libFuzzer harness for a bounded time
# (FUZZ_SECONDS, default 60) starting from its seed corpus.  New inputs go
# to fuzz/work/NAME in the build directory (the seed corpora are never
# written); a crash, leak, timeout or out-of-memory leaves its input in
# fuzz/work/NAME-crash-* and fails the target.  Needs a build configured
# with --enable-fuzzing CC=clang.
set -u
build=${GRAFT_BUILDDIR:?} src=${GRAFT_SRCDIR:?}
seconds=${FUZZ_SECONDS:-60}
failed=0

smoke() { # harness, max input length, then extra libFuzzer arguments
    h=$1 len=$2
    shift 2
    work=$build/fuzz/work/$h
    mkdir -p "$work"
    name=${h#fuzz_}
    echo "== $h for ${seconds}s"
    if "$build/fuzz/$h" -max_total_time="$seconds" -max_len="$len" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work-" "$@" \
        "$work" "$src/fuzz/corpus/$name" >"$work.log" 2>&1; then
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)|cov:' "$work.log" | tail -n 3
    else
        echo "FAIL: $h (see $work.log)"
        grep -E 'ERROR|invariant|runtime error|Test unit written' "$work.log" | head -n 5
        failed=1
    fi
}

smoke fuzz_relay 8192 -dict="$src/fuzz/relay.dict"
smoke fuzz_rules 4096 -dict="$src/fuzz/rules.dict"
smoke fuzz_pipeline 512
smoke fuzz_compiled 512
smoke fuzz_onnx 4096 -dict="$src/fuzz/onnx.dict"
smoke fuzz_onnx_text 4096 -dict="$src/fuzz/onnx_text.dict"
exit $failed
