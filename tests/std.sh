#!/bin/sh
# std.sh - the standard rule library (stdpatterns/) on small graphs.
#
# 1. Every stdpatterns/*.graft checks clean: graft check -Werror prints
#    nothing and exits 0.
# 2. Every case under tests/std/ is a golden test (CASE/CASE.golden, run by
#    tests/golden.sh: graft run --stats=counts, its output and its
#    statistics byte for byte); here its expected output must load again
#    (graft fmt).
# 3. Every rule of stdpatterns/ fires in some case (applied > 0 in the
#    statistics of a golden file) and is shown a near miss in some case:
#    an input line "// no: RULE" marks a subgraph that RULE must leave
#    alone (and the golden output shows it left alone); for an ONNX case
#    (input.onnx, made by the case's make_input.py), a line "// no: RULE:
#    WHY" of its near_miss.txt (its statistics show the refusal).
# Run by make check.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
graft=${GRAFT:?}
. "$src/tests/golden_format.sh"
pass=0
fail=0
test_tmpdir std

ok() { pass=$((pass + 1)); echo "PASS: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# The rule files: stdpatterns/*.graft, and those for ONNX of stdpatterns/onnx/.
rule_files() {
    for f in "$src"/stdpatterns/*.graft "$src"/stdpatterns/onnx/*.graft; do
        [ -e "$f" ] && printf '%s\n' "$f"
    done
}

# 1. graft check on each rule file.  onnx/library.graft joins families
# whose rules overlap by design (its comment): that warning alone is off.
for f in $(rule_files); do
    name=stdpatterns/${f#"$src"/stdpatterns/}
    off=-Werror
    [ "$name" = stdpatterns/onnx/library.graft ] && off=-Wno-ambiguous-overlap
    if "$graft" check -Werror "$off" "$f" >"$tmp/check.out" 2>&1 && [ ! -s "$tmp/check.out" ]
    then
        ok "check $name"
    else
        bad "check $name"
        head -20 "$tmp/check.out"
    fi
done

# The rule and applied columns of the --stats=counts table in golden $1.
applied_counts() {
    golden_stderr "$1" | awk '$1 == "total:" { exit } NR > 1 { print $1, $4 }'
}

# 2. The expected output of each case loads again (with --allow-unknown-ops:
# it may call the ops of fused_ops.graft, which only the rule files declare).
for golden in "$src"/tests/std/*/*.golden; do
    name=std/$(basename "$golden" .golden)
    if [ -e "$(dirname "$golden")/input.onnx" ]; then
        continue # an ONNX model, written to a file: tests/onnx_rewrite.sh checks it
    fi
    if golden_stdout "$golden" | "$graft" fmt --allow-unknown-ops - >/dev/null 2>"$tmp/err"; then
        ok "$name: expected output loads again"
    else
        bad "$name: expected output does not load again"
        head -5 "$tmp/err"
    fi
done

# 3. Every rule fires somewhere and has a near miss somewhere.
for golden in "$src"/tests/std/*/*.golden; do
    applied_counts "$golden"
done >"$tmp/all.counts"
# The fusion library's files (stdpatterns/onnx/ but merge.graft) have their
# firing cases and near misses in tests/onnx/lib (tests/onnx_lib.sh: every
# rule fires, counted against python3-onnx) and tests/onnx/fusions
# (conv.graft, tests/onnx_fusions.sh); here, the others.
for f in "$src"/stdpatterns/*.graft "$src"/stdpatterns/onnx/merge.graft; do
    # Rule names: items "NAME [...] :=" at the start of a line.
    sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)[^=]*:=.*/\1/p' "$f"
done | sort -u >"$tmp/rules"
while read -r rule; do
    if ! awk -v r="$rule" '$1 == r && $2 > 0 { found = 1 } END { exit !found }' "$tmp/all.counts"; then
        bad "rule $rule never fires in tests/std"
    elif ! cat "$src"/tests/std/*/input.relay "$src"/tests/std/*/near_miss.txt |
        grep -qE "// no: $rule( |:|\$)"; then
        bad "rule $rule has no near miss (// no: $rule) in tests/std"
    else
        ok "rule $rule fires and has a near miss"
    fi
done <"$tmp/rules"

echo "std: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
