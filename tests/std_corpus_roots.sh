#!/bin/sh
# std_corpus_roots.sh - stdpatterns/multiroot.graft's rules of several roots
# on the Relay transformers with separate projections (tests/corpus_roots/:
# three Linear layers for Q, K and V, a grouped-query block, SAGAN's
# convolution attention), each rule's applied count equal to a count of
# the module's text made here with awk, independently of graft: the
# nn.dense calls of one input by constant weights of one type, three to a
# qkv_merge, then two to a kv_merge; the nn.conv2d calls of one input with
# weights of one type and the same attributes, two to a conv_merge; n
# shape_of calls of one input and dtype, n - 1 shape_shares.  graft run
# --verify finds every output the same after the rewrite, and the output
# loads again.  Over the three models qkv_merge, kv_merge and conv_merge
# each fire (the modules have no shape_of: the sharing rules' count is 0).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
models="attention_qkv attention_gqa attention_conv"

# count RULE MODEL: the independent count of RULE in MODEL's text.
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
    $2 == "=" && $3 ~ /^shape_of\(/ { if (rule == "shape_share") group($3 $4) }
    END {
        total = 0
        for (k in n) {
            if (rule == "qkv_merge") total += int(n[k] / 3)
            else if (rule == "kv_merge") total += int((n[k] % 3) / 2)
            else if (rule == "conv_merge") total += int(n[k] / 2)
            else if (rule == "shape_share") total += n[k] - 1
        }
        print total
    }' "$src/tests/corpus_roots/$2.relay"
}

for rule in qkv_merge kv_merge conv_merge shape_share; do
    eval "fired_$rule=0"
done
for m in $models; do
    cases=$((cases + 1))
    if ! timeout 120 "$GRAFT" run --verify --stats=counts "$src/stdpatterns/multiroot.graft" \
        "$src/tests/corpus_roots/$m.relay" -o "$tmp/$m.relay" 2>"$tmp/$m.stats" ||
        ! "$GRAFT" fmt "$tmp/$m.relay" >/dev/null; then
        fail "$m: graft run --verify or the reload failed"
        head -5 "$tmp/$m.stats"
        continue
    fi
    grep -q '^verify: output 0 .*: within$' "$tmp/$m.stats" || fail "$m: --verify found a difference"
    for rule in qkv_merge kv_merge conv_merge shape_share; do
        got=$(awk -v r="$rule" '$1 == r { print $4 }' "$tmp/$m.stats")
        want=$(count "$rule" "$m")
        check "$m: $rule applied $want times" [ "$got" = "$want" ]
        eval "fired_$rule=\$((fired_$rule + got))"
    done
done
for rule in qkv_merge kv_merge conv_merge; do
    eval "fired=\$fired_$rule"
    check "$rule fires on the models ($fired times)" [ "$fired" -gt 0 ]
done
expect_end std_corpus_roots
