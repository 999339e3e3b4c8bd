#!/bin/sh
# onnx_lib.sh - the ONNX fusion library (stdpatterns/onnx/, doc/stdpatterns.md).
#
# 1. Every file of the library checks clean (graft check -Werror).
# 2. Every rule of the library applies somewhere in the golden files of
#    tests/onnx/lib/ (one small model per family, each pattern in it).
# The library: the five files below and contrib_ops.graft (conv.graft,
# beside them, has a test of its own).
# 3. The whole library (library.graft: eliminate, activation,
#    normalization, attention, matmul, in that order), run by the command
#    doc/stdpatterns.md shows, word for word, from a directory that holds
#    only the model (the library found as the installed one is), on each
#    model of tests/onnx/lib/ and each torch export of the corpus
#    (tests/onnx/*_op13.onnx, *_op17.onnx, attention_*.onnx): graft run
#    --verify finds the rewritten model's outputs equal to the original's
#    (the three of free batch and token counts, which run --verify cannot
#    draw inputs for, counted as they are and verified on a copy with
#    those dims fixed to 2 and 8); the count of each
#    rule's rewrites (--stats=counts) equals the count an independent
#    script makes over the ONNX graph with python3-onnx
#    (tests/onnx/count_fusions.py); the rewritten model passes
#    onnx.checker.check_model with full_check.
# Needs python3-onnx for 3 (skips without it).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
lib="$src/stdpatterns/onnx"
data="$src/tests/onnx"
test_tmpdir onnx_lib
. "$src/tests/golden_format.sh"

files="eliminate activation normalization attention matmul"

# 1.
for f in contrib_ops $files; do
    f="$lib/$f.graft"
    if ! "$GRAFT" check -Werror "$f" >"$tmp/check" 2>&1 || [ -s "$tmp/check" ]; then
        fail "graft check -Werror $(basename "$f")"
        head -5 "$tmp/check"
    fi
done

# 2. The rules (NAME := or NAME [flags] := at the start of a line) and the
# rules with applied > 0 in some golden file of tests/onnx/lib/.
for f in $files; do
    grep -h -o '^[a-z_0-9]* \(\[[^]]*\] \)\?:=' "$lib/$f.graft"
done | sed 's/ .*//' | sort >"$tmp/rules"
for golden in "$data"/lib/*.golden; do
    golden_stderr "$golden" | awk '$1 == "total:" { exit } NR > 1 && $4 > 0 { print $1 }'
done | sort -u >"$tmp/fired"
for rule in $(comm -23 "$tmp/rules" "$tmp/fired"); do
    fail "rule $rule applies in no golden file of tests/onnx/lib/"
done
[ -s "$tmp/rules" ] || fail "no rules found in $lib"

# 3.
documented='graft run -Wno-ambiguous-overlap onnx/library.graft model.onnx -o fused.onnx'
grep -qxF "$documented" "$src/doc/stdpatterns.md" ||
    fail "doc/stdpatterns.md does not show the command '$documented'"
# A rule file named on the command line is found in the library only when
# the current directory has none of that name, and one found nowhere is
# reported under the name given.
mkdir -p "$tmp/own/onnx"
printf 'opset onnx 17\nmine := Identity(x) => x\n' >"$tmp/own/onnx/library.graft"
(cd "$tmp/own" && "$GRAFT" run --stats=counts onnx/library.graft "$data/encoder_op13.onnx" \
    -o out.onnx) 2>"$tmp/own.err"
[ "$(awk '$1 == "mine" { print $4 }' "$tmp/own.err")" = 3 ] ||
    fail "the current directory's onnx/library.graft did not win: $(cat "$tmp/own.err")"
(cd "$tmp/own" && "$GRAFT" check onnx/nowhere.graft) >"$tmp/own.out" 2>&1
want="graft: error: cannot read 'onnx/nowhere.graft': No such file or directory"
[ "$(cat "$tmp/own.out")" = "$want" ] ||
    fail "a rule file found nowhere: $(cat "$tmp/own.out")"
python_onnx 'import onnx'
n=0
mkdir "$tmp/cwd"
for model in "$data"/lib/*.onnxtxt "$data"/*_op13.onnx "$data"/*_op17.onnx \
    "$data"/attention_*.onnx; do
    name=$(basename "$model" | sed 's/\.onnx\(txt\)\?$//')
    n=$((n + 1))
    rm -f "$tmp/cwd/fused.onnx"
    # The token models of separate projections leave their number of
    # tokens free, and run --verify draws inputs of known dims only: it
    # runs on a copy with those dims fixed.
    case $name in attention_qkv|attention_gqa|attention_pos) verify= ;; *) verify=--verify ;; esac
    if ! "$GRAFT" fmt "$model" -o "$tmp/cwd/model.onnx" 2>"$tmp/err" ||
        ! (cd "$tmp/cwd" && "$GRAFT" run $verify --stats=counts ${documented#graft run }) \
            2>"$tmp/stats"; then
        fail "graft on $name: $(cat "$tmp/err" "$tmp/stats")"
        continue
    fi
    cp "$tmp/cwd/model.onnx" "$tmp/$name.onnx"
    cp "$tmp/cwd/fused.onnx" "$tmp/out_$name.onnx"
    if [ -z "$verify" ]; then
        rm -rf "$tmp/pinned" && mkdir "$tmp/pinned"
        "$python" - "$tmp/cwd/model.onnx" "$tmp/pinned/model.onnx" <<'PY'
import sys
import onnx
m = onnx.load(sys.argv[1])
for v in list(m.graph.input) + list(m.graph.output):
    for d, n in zip(v.type.tensor_type.shape.dim, (2, 8)):  # batch 2, 8 tokens
        if d.HasField("dim_param"):
            d.dim_value = n
onnx.save(m, sys.argv[2])
PY
        (cd "$tmp/pinned" && "$GRAFT" run --verify ${documented#graft run }) 2>"$tmp/pinned.err"
        grep -q '^verify: output 0 .*: within$' "$tmp/pinned.err" ||
            fail "graft run --verify on $name, dims fixed: $(grep '^verify' "$tmp/pinned.err")"
    fi
    [ -z "$verify" ] || grep -q '^verify: output 0 .*: within$' "$tmp/stats" ||
        fail "graft run --verify on $name: $(grep '^verify' "$tmp/stats")"
    awk '$1 == "rule" { on = 1; next } $1 == "total:" { exit } on { print $1, $4 }' \
        "$tmp/stats" >"$tmp/graft_counts"
    if ! "$python" "$data/count_fusions.py" "$tmp/$name.onnx" >"$tmp/script_counts" 2>&1; then
        fail "count_fusions.py $name: $(cat "$tmp/script_counts")"
    elif ! diff "$tmp/script_counts" "$tmp/graft_counts" >"$tmp/diff"; then
        fail "$name: graft's counts (>) differ from count_fusions.py's (<)"
        cat "$tmp/diff"
    fi
    onnx_checked "$tmp/out_$name.onnx" || fail "onnx.checker on $name's output"
done
[ "$failures" -eq 0 ] && echo "$n models counted and checked, 0 failures" ||
    echo "FAIL: $failures failures"
[ "$failures" -eq 0 ]
