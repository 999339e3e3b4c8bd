#!/bin/sh
# explain.sh - graft explain (src/runtime/engine_explain.c) beyond its
# golden files.  tests/explain/NAME.golden (run by tests/golden.sh) hold
# one explanation per kind of failure, graft run's explain options, its
# refusal and trace listings, graft viz --at/--explain and the usage
# errors.  Here:
#   1. every "# graft explain RULES model.relay ARGS" golden file that exits
#      0, once more through a rewriter built from RULES by graft compile
#      --exe (runner.c takes the same options): the same standard output
#      and exit status (not standard error: the rewriter does not print
#      RULES' warnings);
#   2. --check-all (explain's verdict against graft match at every node
#      for every rule) on two corpus models for every stdpatterns file;
#   3. the man page's examples (doc/graft.1) are what graft prints.
# Run by make check.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
graft=${GRAFT:?}
. "$src/tests/golden_format.sh"
. "$src/tests/emit/exe_env.sh"
dir=$src/tests/explain
test_tmpdir explain
out=$tmp/out
pass=0
fail=0

# result STATUS NAME WANT_STATUS EXPECTED: the case passed when its command
# exited with WANT_STATUS and wrote $out equal to EXPECTED.
result() {
    if [ "$1" -eq "$3" ] && cmp -s "$out" "$4"; then
        pass=$((pass + 1))
        echo "PASS: $2"
    else
        fail=$((fail + 1))
        echo "FAIL: $2 (exit $1, expected $3)"
        diff "$4" "$out" | head -20
        head -5 "$out.err"
    fi
}

# 1. Compiled rewriters, one per rule file the golden files explain with.
for golden in "$dir"/*.golden; do
    set -- $(head -n 1 "$golden")
    [ "$2 $3 $5" = "graft explain model.relay" ] && [ "$(tail -n 1 "$golden")" = "# exit 0" ] ||
        continue
    rules=$4
    shift 5
    exe=$tmp/$rules.exe
    if [ ! -x "$exe" ] && ! ( cd "$dir" && "$graft" compile --exe "$rules" -o "$exe" ) \
        >"$out.err" 2>&1; then
        fail=$((fail + 1))
        echo "FAIL: explain (graft compile --exe $rules)"
        head -5 "$out.err"
        continue
    fi
    # shellcheck disable=SC2068 # ARGS are split as written
    ( cd "$dir" && "$exe" model.relay $@ ) >"$out" 2>"$out.err"
    st=$?
    golden_stdout "$golden" >"$tmp/want"
    result $st "explain/$(basename "$golden" .golden) (compiled)" 0 "$tmp/want"
done

# 2. Explain agrees with match everywhere (the issue's "done when"): the
# corpus beside the tree (../shared/corpus) or tests/corpus.
corpus=
for c in "$src/tests/corpus" "${GRAFT_SHARED:-$src/../shared}/corpus"; do
    [ -f "$c/resnet18.relay" ] && { corpus=$c; break; }
done
if [ -z "$corpus" ]; then
    echo "FAIL: explain/check-all and man page examples (no tests/corpus)"
    exit 1
fi
for model in resnet18 encoder; do
    for rules in "$src"/stdpatterns/*.graft; do
        case $rules in */ops.graft | */onnx_ops.graft) continue ;; esac # the registries
        input=$corpus/$model.relay
        if head -n 1 "$rules" | grep -q '^opset onnx'; then # rules for ONNX: the ONNX corpus
            [ $model = resnet18 ] && input=$src/tests/onnx/mobilenet_v2_op13.onnx
            [ $model = encoder ] && input=$src/tests/onnx/encoder_op17.onnx
        fi
        "$graft" explain "$rules" "$input" --check-all >"$out" 2>"$out.err"
        st=$?
        if [ $st -eq 0 ] && grep -q ' 0 disagreements$' "$out"; then
            pass=$((pass + 1))
            echo "PASS: explain/check-all $model $(basename "$rules"): $(cat "$out")"
        else
            fail=$((fail + 1))
            echo "FAIL: explain/check-all $model $(basename "$rules")"
            head -5 "$out" "$out.err"
        fi
    done
done

# 3. The man page's examples (doc/graft.1, ".\" run: ARGS" then .EX,
# "$ graft ...", the output, .EE) are what graft prints.
cp "$src/stdpatterns/composite.graft" "$corpus/resnet18.relay" "$tmp/"
awk -v dir="$tmp" '
    /^\.\\" run: / { args = substr($0, 10); n++; next }
    args != "" && /^\.EX$/ { inex = 1; skip = 1; next }
    inex && /^\.EE$/ { print args > (dir "/man" n ".args"); inex = 0; args = ""; next }
    inex && skip { skip = 0; next }
    inex { gsub(/\\e/, "\\"); print > (dir "/man" n ".want") }
' "$src/doc/graft.1"
for want in "$tmp"/man*.want; do
    [ -f "$want" ] || { fail=$((fail + 1)); echo "FAIL: explain/man (no example)"; break; }
    args=$(cat "${want%.want}.args")
    # shellcheck disable=SC2086
    ( cd "$tmp" && "$graft" $args ) >"$out" 2>"$out.err"
    result $? "explain/man: graft $args" 0 "$want"
done

echo "explain: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
