#!/bin/sh
# onnx_staged.sh - onnxscript's staged attention fusions
# (stdpatterns/onnx/sdpa_mha.graft: SDPA, a private op, then
# MultiHeadAttention; doc/stdpatterns.md) on the torch exports of the
# corpus that hold attention (tests/onnx/attention_*.onnx,
# encoder_op13/op17.onnx) and on tests/onnx/staged/sdpa_*.onnxtxt:
# the count of each rule's rewrites (--stats=counts) equals the count
# tests/onnx/count_staged.py makes over the ONNX graph with python3-onnx;
# where the script finds every SDPA read by the MultiHeadAttention form,
# the output passes onnx.checker (full_check) and, where a rule fired,
# graft run --verify finds the outputs within tolerance; where it finds
# SDPAs left (sdpa_alone), graft run names one in an error, exits 1 and
# writes no model.  The file checks
# clean with -Werror.
# Needs python3-onnx (skips without it).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
rules="$src/stdpatterns/onnx/sdpa_mha.graft"
test_tmpdir onnx_staged
"$GRAFT" check -Werror "$rules" >"$tmp/check" 2>&1 && [ ! -s "$tmp/check" ] ||
    fail "graft check -Werror sdpa_mha.graft: $(head -3 "$tmp/check")"
python_onnx 'import onnx'
n=0 fused=0 refused=0
for model in "$data"/attention_*.onnx "$data"/encoder_op13.onnx "$data"/encoder_op17.onnx \
    "$data"/staged/sdpa_*.onnxtxt; do
    name=$(basename "$model" | sed 's/\.onnx\(txt\)\?$//')
    n=$((n + 1))
    "$GRAFT" fmt "$model" -o "$tmp/$name.onnx" || { fail "graft fmt $name"; continue; }
    if ! PYTHONPATH="$data" "$python" "$data/count_staged.py" "$tmp/$name.onnx" \
        >"$tmp/script" 2>&1; then
        fail "count_staged.py $name: $(cat "$tmp/script")"
        continue
    fi
    left=$(awk '$1 == "left" { print $2 }' "$tmp/script")
    verify= # where a rule fires, on models of known dims (free ones are left)
    [ "$left" = 0 ] && grep -q '^sdpa_post_[a-z]* [1-9]' "$tmp/script" && verify=--verify
    rm -f "$tmp/out.onnx"
    "$GRAFT" run $verify --stats=counts "$rules" "$tmp/$name.onnx" -o "$tmp/out.onnx" \
        2>"$tmp/stats"
    status=$?
    awk '$1 == "rule" { on = 1; next } $1 == "total:" { exit } on { print $1, $4 }' \
        "$tmp/stats" >"$tmp/graft"
    grep -v '^left ' "$tmp/script" | diff - "$tmp/graft" >"$tmp/diff" ||
        { fail "$name: graft's counts (>) differ from count_staged.py's (<)"; cat "$tmp/diff"; }
    if [ "$left" != 0 ]; then
        refused=$((refused + 1))
        [ "$status" -eq 1 ] && [ ! -e "$tmp/out.onnx" ] &&
            grep -q "error: node 'graft_SDPA_[0-9]*' is of op SDPA, an intermediate of a staged" \
                "$tmp/stats" || fail "$name: $left SDPA left, but exit $status: $(head -2 "$tmp/stats")"
        continue
    fi
    [ "$status" -eq 0 ] || { fail "graft run on $name: exit $status: $(head -3 "$tmp/stats")"; continue; }
    [ -z "$verify" ] || grep -q '^verify: output 0 .*: within$' "$tmp/stats" ||
        fail "graft run --verify on $name: $(grep '^verify' "$tmp/stats")"
    [ "$(awk '$1 == "mha" { print $2 }' "$tmp/graft")" = 0 ] || fused=$((fused + 1))
    onnx_checked "$tmp/out.onnx" || fail "onnx.checker on $name's output"
done
# attention_bert and sdpa_mul fused, sdpa_alone refused; the exports of
# free dims (attention_pos, _qkv, _gqa) left as they are
[ "$fused" -eq 2 ] || fail "$fused models fused into MultiHeadAttention, not 2"
[ "$refused" -eq 1 ] || fail "$refused models refused with SDPAs left, not 1"
[ "$failures" -eq 0 ] && echo "onnx_staged: $n models counted, $fused fused, $refused refused" ||
    echo "FAIL: $failures failures"
[ "$failures" -eq 0 ]
