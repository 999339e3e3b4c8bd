#!/bin/sh
# std_corpus_roots.sh - stdpatterns/multiroot.graft's rules of several roots
# on the Relay transformers with separate projections (tests/corpus_roots/:
# three Linear layers for Q, K and V, a grouped-query block, SAGAN's
# convolution attention, and attention_pos, whose input keeps its batch and
# tokens unknown so that its shapes are computed in the module), each
# rule's applied count equal to a count of the module's text made here with
# awk, independently of graft: the nn.dense calls of one input by constant
# weights of one type, three to a qkv_merge, then two to a kv_merge; the
# nn.conv2d calls of one input with weights of one type and the same
# attributes, two to a conv_merge; n shape_of calls of one input and dtype,
# n - 1 shape_shares; n take calls of one shape (after that sharing) by
# the same scalar index and axis, n - 1 take_shares.  graft run --verify
# finds every output the same after the rewrite (attention_pos's input
# given the example's dims, (1, 4, 16), as --verify wants every dim known),
# the output loads again, and the rewriter graft compile --exe builds from
# multiroot.graft writes the same module and counts, byte for byte.  Over
# the models every rule of several roots fires.  The corpus's own
# transformers (tests/corpus/: encoder and vit_b_16, as exported and
# simplified) pack Q, K and V into one projection and compute no shape
# twice, so the same counts are 0 there, and graft must find exactly
# that; --verify is left out on them, where nothing is rewritten and the
# evaluator cannot run the model (encoder's broadcast_to passes
# --limit eval-elements, vit_b_16's repeat has no evaluator).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
models="attention_qkv attention_gqa attention_conv attention_pos"
packed="encoder vit_b_16 encoder.simplified vit_b_16.simplified"
rules="qkv_merge kv_merge conv_merge shape_share take_share"
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS
"$GRAFT" compile --exe "$src/stdpatterns/multiroot.graft" -o "$tmp/multiroot" >"$tmp/exe.err" 2>&1 ||
    { fail "graft compile --exe multiroot.graft"; head -5 "$tmp/exe.err"; }

# count RULE FILE: the independent count of RULE in FILE's text.
count() {
    awk -v rule="$1" '
    function group(key) { n[key]++ }
    $2 == "=" && $3 ~ /^nn\.dense\(/ && $4 ~ /^meta/ {
        x = $3; sub(/^nn\.dense\(/, "", x); match($0, /ty=Tensor\[[^]]*\]/)
        if (rule ~ /qkv_merge|kv_merge/) group(x substr($0, RSTART, RLENGTH))
    }
    $2 == "=" && $3 ~ /^nn\.conv2d\(/ && $4 ~ /^meta/ {
        x = $3; sub(/^nn\.conv2d\(/, "", x); match($0, /ty=Tensor\[[^]]*\]/)
        attrs = $0; sub(/^.*\*\/, /, "", attrs)
        if (rule == "conv_merge") group(x substr($0, RSTART, RLENGTH) attrs)
    }
    $2 == "=" && $3 ~ /^shape_of\(/ {
        shape[$1] = $3 $4
        if (rule == "shape_share") group($3 $4)
    }
    $2 == "=" && $3 ~ /^take\(/ && $4 ~ /^-?[0-9]+i64,$/ {
        s = $3; sub(/^take\(/, "", s); sub(/,$/, "", s)
        if (rule == "take_share") group((s in shape ? shape[s] : s) " " $4 " " $5)
    }
    END {
        total = 0
        for (k in n) {
            if (rule == "qkv_merge") total += int(n[k] / 3)
            else if (rule == "kv_merge") total += int((n[k] % 3) / 2)
            else if (rule == "conv_merge") total += int(n[k] / 2)
            else total += n[k] - 1
        }
        print total
    }' "$2"
}

for rule in $rules; do
    eval "fired_$rule=0"
done
for m in $models $packed; do
    cases=$((cases + 1))
    model=$src/tests/corpus_roots/$m.relay
    case " $packed " in *" $m "*) model=$src/tests/corpus/$m.relay ;; esac
    sed 's/Tensor\[(?, ?, 16), float32\]/Tensor[(1, 4, 16), float32]/' "$model" >"$tmp/$m.known.relay"
    if ! timeout 120 "$GRAFT" run --stats=counts "$src/stdpatterns/multiroot.graft" "$model" \
        -o "$tmp/$m.relay" 2>"$tmp/$m.stats" || ! "$GRAFT" fmt "$tmp/$m.relay" >/dev/null ||
        { [ "$model" != "$src/tests/corpus/$m.relay" ] &&
            ! timeout 120 "$GRAFT" run --verify "$src/stdpatterns/multiroot.graft" \
                "$tmp/$m.known.relay" -o "$tmp/$m.verified.relay" 2>"$tmp/$m.verify"; }; then
        fail "$m: graft run, the reload or graft run --verify failed"
        head -5 "$tmp/$m.stats" "$tmp/$m.verify"
        continue
    fi
    [ "$model" = "$src/tests/corpus/$m.relay" ] || grep -q '^verify: output 0 .*: within$' \
        "$tmp/$m.verify" || fail "$m: --verify found a difference"
    cases=$((cases + 1))
    if ! "$tmp/multiroot" "$model" -o "$tmp/$m.c.relay" --stats=counts 2>"$tmp/$m.c.stats" ||
        ! cmp -s "$tmp/$m.relay" "$tmp/$m.c.relay" || ! cmp -s "$tmp/$m.stats" "$tmp/$m.c.stats"; then
        fail "$m: the compiled multiroot.graft differs from graft run"
        diff "$tmp/$m.stats" "$tmp/$m.c.stats" | head -5
    fi
    for rule in $rules; do
        got=$(awk -v r="$rule" '$1 == r { print $4 }' "$tmp/$m.stats")
        want=$(count "$rule" "$model")
        check "$m: $rule applied $want times" [ "$got" = "$want" ]
        eval "fired_$rule=\$((fired_$rule + got))"
    done
done
for rule in $rules; do
    eval "fired=\$fired_$rule"
    check "$rule fires on the models ($fired times)" [ "$fired" -gt 0 ]
done
expect_end std_corpus_roots
