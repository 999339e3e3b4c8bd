#!/bin/sh
# onnx_corpus_roots.sh - stdpatterns/onnx/merge.graft on the ONNX
# transformers with separate projections (tests/onnx/attention_qkv.onnx,
# attention_gqa.onnx, attention_conv.onnx, attention_pos.onnx, made by
# export_corpus.py) and on torch's packed encoder (encoder_op13/op17.onnx):
# each rule's applied count equal to tests/onnx/count_merges.py's, counted
# with python3-onnx independently of graft; the output loads again and
# passes onnx.checker; over the models qkv_merge, kv_merge, conv_merge,
# shape_share and gather_share each fire (gather_share on attention_pos,
# whose two Gathers of dim 1 have index Constants of their own, equal in
# value).  graft run --verify finds every output the same after the
# rewrite (the token models' batch and tokens given their example's dims,
# as --verify wants every dim known).  The rewriter graft compile --exe
# builds from merge.graft gives each model the same output file, byte for
# byte, and the same counts.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
python_onnx 'import onnx'
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS
"$GRAFT" compile --exe "$src/stdpatterns/onnx/merge.graft" -o "$tmp/merge" >"$tmp/exe.err" 2>&1 ||
    { fail "graft compile --exe merge.graft"; head -5 "$tmp/exe.err"; }
# The model with its named dims (batch, tokens) given the values DIMS.
known='
import onnx, sys
m = onnx.load(sys.argv[1])
dims = [int(d) for d in sys.argv[3].split(",") if d]
for v in list(m.graph.input) + list(m.graph.output):
    for d, n in zip(v.type.tensor_type.shape.dim, dims):
        if d.dim_param:
            d.dim_value = n
onnx.save(m, sys.argv[2])'
rules="qkv_merge kv_merge conv_merge shape_share gather_share split_concat"
for rule in $rules; do
    eval "fired_$rule=0"
done
for m in attention_qkv attention_gqa attention_conv attention_pos encoder_op13 encoder_op17; do
    cases=$((cases + 1))
    if ! timeout 120 "$GRAFT" run --stats=counts "$src/stdpatterns/onnx/merge.graft" \
        "$src/tests/onnx/$m.onnx" -o "$tmp/$m.onnx" 2>"$tmp/$m.stats" ||
        ! "$python" -c 'import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))' \
            "$tmp/$m.onnx"; then
        fail "$m: graft run or the checker failed"
        head -5 "$tmp/$m.stats"
        continue
    fi
    case $m in attention_pos) dims=1,4 ;; attention_qkv | attention_gqa) dims=1,16 ;; *) dims= ;; esac
    cases=$((cases + 1))
    if ! "$python" -c "$known" "$src/tests/onnx/$m.onnx" "$tmp/$m.known.onnx" "$dims" ||
        ! timeout 120 "$GRAFT" run --verify "$src/stdpatterns/onnx/merge.graft" \
            "$tmp/$m.known.onnx" -o "$tmp/$m.verified.onnx" 2>"$tmp/$m.verify" ||
        ! grep -q '^verify: output 0 .*: within$' "$tmp/$m.verify"; then
        fail "$m: graft run --verify found a difference or failed"
        head -5 "$tmp/$m.verify"
    fi
    cases=$((cases + 1))
    if ! "$tmp/merge" "$src/tests/onnx/$m.onnx" -o "$tmp/$m.c.onnx" --stats=counts \
        2>"$tmp/$m.c.stats" || ! cmp -s "$tmp/$m.onnx" "$tmp/$m.c.onnx" ||
        ! cmp -s "$tmp/$m.stats" "$tmp/$m.c.stats"; then
        fail "$m: the compiled merge.graft differs from graft run"
        diff "$tmp/$m.stats" "$tmp/$m.c.stats" | head -5
    fi
    "$python" "$src/tests/onnx/count_merges.py" "$src/tests/onnx/$m.onnx" >"$tmp/$m.want"
    for rule in $rules; do
        got=$(awk -v r="$rule" '$1 == r { print $4 }' "$tmp/$m.stats")
        want=$(awk -v r="$rule" '$1 == r { print $2 }' "$tmp/$m.want")
        check "$m: $rule applied $want times" [ "$got" = "$want" ]
        eval "fired_$rule=\$((fired_$rule + got))"
    done
done
for rule in qkv_merge kv_merge conv_merge shape_share gather_share; do
    eval "fired=\$fired_$rule"
    check "$rule fires on the models ($fired times)" [ "$fired" -gt 0 ]
done
expect_end onnx_corpus_roots
