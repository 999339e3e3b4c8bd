#!/bin/sh
# differential.sh - the compiled form of a rule set gives what the
# interpreter gives (issue 5, note [one runtime] in src/runtime/ruleset.h).
#
# For every rule file for Relay that graft check accepts (stdpatterns/,
# tests/), the generated C must compile warning-free under -std=c11 -Wall
# -Wextra -Wpedantic, and the compiled rewriter must print, for every model
# under tests/ (the real models of tests/corpus/ included), byte for byte
# the same model, the same --stats=counts table and trace, and exit with
# the same status as the interpreter.  Each rule file is compiled once.
#
# In-process (tests/emit/differential_main.c): one program per rule file,
# its generated C linked with the driver, loads the rule file interpreted
# (graft_rules_load) and runs graft_standalone_main, the main of every
# compiled rewriter, on each model twice: with the interpreted table, then
# with the compiled one; every (rule file, model) pair is compared so.
# graft run (src/cli/cmd_run.c) differs from graft_standalone_main
# (src/runtime/rewriter_main.c) only before the runner: it loads the rule
# files itself and prints their warnings first, takes several rule files,
# -I, -W options and --diagnostics-format, checks the model against the
# op registry (--allow-unknown-ops here: compiled rewriters have none), and
# names itself "graft run" in usage errors; both then call the same
# runner_run with the same RunOptions.  So that this path stays compared
# too, every 32nd pair (staggered from one rule file to the next, so that
# every model meets several rule files) also runs graft run and the
# compiled rewriter as two processes, as the whole test did before.
#
# With GRAFT_SLOW_TESTS=0 (the sanitizer run of tests/run_all.sh, where a
# run costs ten times as much) each rule file meets every eighth model
# in-process and every 64th through graft run, staggered alike; plain make
# check compares every pair in-process.
#
# Environment: GRAFT, GRAFT_SRCDIR, GRAFT_BUILDDIR (set by make check), CC.
. "${GRAFT_SRCDIR:?}/tests/emit/exe_env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/graft-emit-diff.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR" || exit 99

fail=0
nrules=0
nruns=0
ncli=0
stride=1
cli_stride=32
[ "${GRAFT_SLOW_TESTS:-1}" = 0 ] && stride=8 cli_stride=64

# Rule files: those graft check accepts (warnings are fine).  A checker
# that hangs on a broken file must not hang the test: timeout when there.
rules=""
to=""
to_all=""
command -v timeout >/dev/null 2>&1 && to="timeout 20" to_all="timeout 3600"
# Rule files for ONNX ("opset onnx N": onnx_ops.graft, a registry) are
# left out: every model here is Relay, which such a file refuses, and
# compiled rewriters read Relay models only (doc/onnx.md).
for f in stdpatterns/*.graft tests/*/*.graft tests/*/*/*.graft; do
    [ -f "$f" ] || continue
    grep -q '^opset onnx' "$f" && continue
    $to "$GRAFT" check "$f" >/dev/null 2>&1 && rules="$rules $f"
done

# Every model graft loads with --allow-unknown-ops (custom ops unchecked):
# the registry check of a model (note [models checked like rules]) is the
# command line's, before any rule runs, and compiled rewriters have no
# registry, so a model it refuses is no difference between the two; for
# that reason relay/custom/, whose models test that check, is left out.
models=""
for m in tests/*/*.relay tests/*/*/*.relay; do
    case $m in */bad/*|*/expected*|*/custom/*) continue ;; esac
    [ -f "$m" ] && "$GRAFT" fmt --allow-unknown-ops "$m" >/dev/null 2>&1 &&
        models="$models $m"
done

# Runs "$@" on model $1 into $work/$2.{out,err,rc}.
run_one() {
    tag=$1
    shift
    $to "$@" >"$work/$tag.out" 2>"$work/$tag.err"
    echo $? >"$work/$tag.rc"
}

# The driver (tests/emit/differential_main.c), linked with each rule
# file's generated C; with --compiled first it is that rule file's
# rewriter alone, standalone_main.c's program (the CLI comparison's side).
$CC -std=c11 $GRAFT_CFLAGS -c "$GRAFT_SRCDIR/tests/emit/differential_main.c" \
    -o "$work/main.o" || exit 99

# Builds $work/prog from rule file $1; false after printing why.  A file
# the checker accepts may still hold rules the matcher cannot run
# (graft compile and graft run both reject them): status 2, not a failure.
build() {
    $to "$GRAFT" compile "$1" --name compiled_rules -o "$work/rules.c" 2>"$work/compile.err"
    case $? in
    0) ;;
    1) return 2 ;;
    *) echo "FAIL: $1: graft compile failed:"; cat "$work/compile.err"; return 1 ;;
    esac
    if ! $CC -std=c11 -O1 -Wall -Wextra -Wpedantic -Werror $GRAFT_CFLAGS \
             -c "$work/rules.c" -o "$work/rules.o" 2>>"$work/compile.err" ||
       ! $CC -o "$work/prog" "$work/main.o" "$work/rules.o" $GRAFT_LIBS \
             2>>"$work/compile.err"; then
        echo "FAIL: $1: the generated C does not compile cleanly:"
        cat "$work/compile.err"
        return 1
    fi
}

# compare_cli RULES PROG MODEL...: graft run RULES against the program
# PROG... on each model, as two processes.
compare_cli() {
    r=$1 prog=$2
    shift 2
    # graft run prints the rule file's warnings first; the program cannot.
    $to "$GRAFT" check "$r" 2>"$work/warnings" >/dev/null
    skip=$(($(wc -c <"$work/warnings") + 1))
    for m; do
        ncli=$((ncli + 1))
        run_one interp "$GRAFT" run --allow-unknown-ops "$r" "$m" --stats=counts --trace &
        run_one comp $prog "$m" --stats=counts --trace
        wait
        mv "$work/interp.err" "$work/interp.all"
        tail -c +$skip "$work/interp.all" >"$work/interp.err"
        for part in rc out err; do
            if ! cmp -s "$work/interp.$part" "$work/comp.$part"; then
                echo "FAIL: $r on $m: compiled and interpreted differ ($part):"
                diff "$work/interp.$part" "$work/comp.$part" | head -20
                fail=1
                break
            fi
        done
    done
}

# compare RULES: the program in-process on this rule file's share of the
# models, and through graft run on its sample.
compare() {
    r=$1
    k=$nrules
    mine=""
    sample=""
    for m in $models; do
        k=$((k + 1))
        [ $((k % stride)) -eq 0 ] && mine="$mine $m"
        [ $((k % cli_stride)) -eq 0 ] && sample="$sample $m"
    done
    set -- $mine
    nruns=$((nruns + $#))
    # The driver stops itself on a hang (alarm); timeout is a second guard.
    $to_all "$work/prog" "$r" "$work" "$@" -- --stats=counts --trace
    status=$?
    case $status in
    0) ;;
    3) fail=1 ;; # the driver printed each difference
    *) echo "FAIL: $r: the in-process comparison stopped (status $status); the last run's" \
            "standard error (a sanitizer's report, in the sanitizer build):"
       tail -n 5 "$work/interp.err" "$work/comp.err"
       fail=1 ;;
    esac
    compare_cli "$r" "$work/prog --compiled" $sample
}

for r in $rules; do
    nrules=$((nrules + 1))
    build "$r"
    case $? in
    0) compare "$r" ;;
    2) # rejected by graft compile: graft run must reject it too
       $to "$GRAFT" run "$r" tests/emit/small.relay >/dev/null 2>&1
       if [ $? -ne 1 ]; then
           echo "FAIL: $r: graft compile rejects it, graft run does not"
           fail=1
       fi ;;
    *) fail=1 ;;
    esac
done

# graft compile --exe itself, on the golden rule file.
if $to "$GRAFT" compile --exe tests/emit/small.graft -o "$work/exe" 2>"$work/compile.err"; then
    k=$nrules
    share=""
    for m in $models; do # every model in plain make check
        k=$((k + 1))
        [ $((k % stride)) -eq 0 ] && share="$share $m"
    done
    compare_cli tests/emit/small.graft "$work/exe" $share
else
    echo "FAIL: graft compile --exe tests/emit/small.graft:"
    cat "$work/compile.err"
    fail=1
fi

echo "differential: $nrules rule files x $(echo $models | wc -w) models," \
    "$nruns comparisons in-process, $ncli through graft run"
[ "$nruns" -gt 0 ] && [ "$ncli" -gt 0 ] || { echo "FAIL: nothing compared"; exit 1; }
exit $fail
