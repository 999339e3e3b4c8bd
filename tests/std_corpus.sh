#!/bin/sh
# std_corpus.sh - the standard rule library (stdpatterns/) on the real models
# of tests/corpus/, with exact counts (tests/std.sh covers every rule on
# small graphs).  The corpus is part of the sources: without it the test
# fails, it never skips.
#
# Each check runs graft run --stats=counts RULES... MODEL and compares one
# number with the expected one: a rule's applied count (rewrites, or groups
# for a partition rule), or how often a text occurs in the output.  Every
# output must load again (graft fmt).  Where the counts come from:
#  - batch norms per model and foldable conv2d -> batch_norm pairs:
#    tests/corpus/README.md (and, for batchnorm.graft, the nn.batch_norm calls of
#    the original NAME.relay, counted here too);
#  - layer norms, GELUs, attention blocks: the task and tests/corpus/README.md;
#  - SiLUs: efficientnet_b0's multiply nodes spanned aten::silu_;
#  - no-op reshape / broadcast_to: counted independently by comparing each
#    newshape with its input's printed type (84 of vit_b_16's broadcast_to
#    calls, 60 of its reshapes); squeeze(axis=[]) and nn.dropout(rate=0f):
#    grep of the model;
#  - composite groups: the model structure (vgg11: 8 conv2d + bias_add +
#    relu, 2 dense + bias_add + relu, 1 dense + bias_add; resnet18: 20
#    conv2d each followed by a batch norm, and after fold_bn 9 of them are
#    followed by relu).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
graft=${GRAFT:?}
corpus=$src/tests/corpus
if [ ! -d "$corpus" ]; then
    echo "FAIL: no corpus at $corpus"
    exit 1
fi
std=$src/stdpatterns
pass=0
fail=0
test_tmpdir std_corpus

# run NAME MODEL RULEFILE...: apply the rules; the output goes to
# $tmp/NAME.relay, the statistics to $tmp/NAME.stats.  The output is
# reloaded with --allow-unknown-ops: it calls the ops of fused_ops.graft,
# which only the rule files declare.
run() {
    name=$1 model=$2
    shift 2
    set --
    for r in $rules; do set -- "$@" "$std/$r"; done
    if "$graft" run --stats=counts "$@" "$corpus/$model" -o "$tmp/$name.relay" \
        2>"$tmp/$name.stats" &&
        "$graft" fmt --allow-unknown-ops "$tmp/$name.relay" >/dev/null; then
        return 0
    fi
    fail=$((fail + 1))
    echo "FAIL: $name: graft run or reload failed"
    head -5 "$tmp/$name.stats"
    return 1
}

# expect NAME WHAT GOT WANT
expect() {
    if [ "$3" = "$4" ]; then
        pass=$((pass + 1))
        echo "PASS: $1: $2 = $4"
    else
        fail=$((fail + 1))
        echo "FAIL: $1: $2 = $3, expected $4"
    fi
}

# applied NAME RULE: the rule's applied count in NAME's statistics.
applied() {
    awk -v r="$2" '$1 == r { print $4 }' "$tmp/$1.stats"
}

# occurs NAME TEXT: how many output lines of NAME contain TEXT.
occurs() {
    grep -cF -- "$2" "$tmp/$1.relay"
}

# ---- batchnorm.graft and batchnorm_partition.graft ----
for pair in resnet18:20 resnet50:53 mobilenet_v2:52 densenet121:121 efficientnet_b0:49 \
            convnext_tiny:0 squeezenet1_0:0 vgg11:0 vit_b_16:0 encoder:0; do
    m=${pair%:*} want=${pair#*:}
    original=$(grep -cF 'nn.batch_norm(' "$corpus/$m.relay")
    expect "$m" "nn.batch_norm calls in $m.relay" "$original" "$want"
    rules=batchnorm.graft
    if run "bn-$m" "$m.simplified.relay"; then
        expect "bn-$m" "nn.batch_norm( in the output" "$(occurs "bn-$m" 'nn.batch_norm(')" "$want"
        n=$(($(applied "bn-$m" bn_seed) + $(applied "bn-$m" bn_seed_rsqrt) +
             $(applied "bn-$m" bn_simplified) + $(applied "bn-$m" bn_simplified_last)))
        expect "bn-$m" "batch norms recomposed" "$n" "$want"
    fi
    rules=batchnorm_partition.graft
    if run "bnp-$m" "$m.simplified.relay"; then
        expect "bnp-$m" "bn_simplified_fn groups" "$(applied "bnp-$m" bn_simplified_fn)" "$want"
        expect "bnp-$m" "functions" "$(occurs "bnp-$m" 'PartitionedFromPattern=')" "$want"
    fi
done

# ---- fold_bn.graft ----
# Left after folding: exactly the batch norms that could not be folded
# (scale and shift are plain arithmetic).
for t in resnet18:20:20 resnet50:53:53 mobilenet_v2:52:52 densenet121:121:59 \
         efficientnet_b0:49:49 convnext_tiny:0:0 squeezenet1_0:0:0 vgg11:0:0; do
    m=${t%%:*} bn=$(echo "$t" | cut -d: -f2) want=${t##*:}
    rules=fold_bn.graft
    if run "fold-$m" "$m.relay"; then
        expect "fold-$m" "conv2d -> batch_norm pairs folded" \
            "$(applied "fold-$m" fold_conv2d_bn)" "$want"
        expect "fold-$m" "nn.batch_norm( in the output" \
            "$(occurs "fold-$m" 'nn.batch_norm(')" "$((bn - want))"
        expect "fold-$m" "nn.bias_add( added" \
            "$(($(occurs "fold-$m" 'nn.bias_add(') - $(grep -cF 'nn.bias_add(' "$corpus/$m.relay")))" \
            "$want"
    fi
done
# Recomposed by batchnorm.graft, then folded: the same pairs.
rules="batchnorm.graft fold_bn.graft"
if run fold-simplified-resnet50 resnet50.simplified.relay; then
    expect fold-simplified-resnet50 "bn_simplified" \
        "$(applied fold-simplified-resnet50 bn_simplified)" 53
    expect fold-simplified-resnet50 "fold_conv2d_bn" \
        "$(applied fold-simplified-resnet50 fold_conv2d_bn)" 53
fi

# ---- composite.graft ----
rules=composite.graft
if run comp-vgg11 vgg11.relay; then
    expect comp-vgg11 "graft.conv2d_bias_relu" "$(applied comp-vgg11 conv2d_bias_relu)" 8
    expect comp-vgg11 "graft.dense_bias_relu" "$(applied comp-vgg11 dense_bias_relu)" 2
    expect comp-vgg11 "graft.dense_bias" "$(applied comp-vgg11 dense_bias)" 1
    expect comp-vgg11 "Composite= functions" "$(occurs comp-vgg11 'Composite=')" 11
fi
if run comp-squeezenet1_0 squeezenet1_0.relay; then
    expect comp-squeezenet1_0 "graft.conv2d_bias_relu" \
        "$(applied comp-squeezenet1_0 conv2d_bias_relu)" 26
fi
if run comp-resnet18 resnet18.relay; then
    expect comp-resnet18 "graft.conv2d" "$(applied comp-resnet18 conv2d)" 20
    expect comp-resnet18 "graft.dense_bias" "$(applied comp-resnet18 dense_bias)" 1
fi
rules="fold_bn.graft composite.graft"
if run comp-fold-resnet18 resnet18.relay; then
    expect comp-fold-resnet18 "fold_conv2d_bn" "$(applied comp-fold-resnet18 fold_conv2d_bn)" 20
    expect comp-fold-resnet18 "graft.conv2d_bias_relu" \
        "$(applied comp-fold-resnet18 conv2d_bias_relu)" 9
    expect comp-fold-resnet18 "graft.conv2d_bias" "$(applied comp-fold-resnet18 conv2d_bias)" 11
fi

# ---- transformer.graft ----
rules=transformer.graft
for t in convnext_tiny:23:18:0 vit_b_16:25:12:12 encoder:8:4:4; do
    m=${t%%:*} ln=$(echo "$t" | cut -d: -f2) gelu=$(echo "$t" | cut -d: -f3) att=${t##*:}
    if run "tr-$m" "$m.simplified.relay"; then
        expect "tr-$m" "layer_norm" "$(applied "tr-$m" layer_norm)" "$ln"
        expect "tr-$m" "nn.layer_norm( in the output" "$(occurs "tr-$m" 'nn.layer_norm(')" "$ln"
        expect "tr-$m" "gelu_erf" "$(applied "tr-$m" gelu_erf)" "$gelu"
        expect "tr-$m" "nn.gelu( in the output" "$(occurs "tr-$m" 'nn.gelu(')" "$gelu"
        expect "tr-$m" "erf( left" "$(occurs "tr-$m" ' erf(')" 0
        expect "tr-$m" "attention groups" "$(applied "tr-$m" attention)" "$att"
    fi
done
if run tr-efficientnet_b0 efficientnet_b0.relay; then
    expect tr-efficientnet_b0 "silu" "$(applied tr-efficientnet_b0 silu)" 49
fi

# ---- simplify.graft ----
rules=simplify.graft
# model:dropouts removed:squeezes:broadcasts:reshapes:dropouts left
# (mobilenet_v2's one dropout has rate 0.2: not a no-op).
for t in vit_b_16:37:60:84:60:0 encoder:12:20:28:20:0 convnext_tiny:0:36:36:18:0 \
         mobilenet_v2:0:0:0:17:1 resnet18:0:0:0:0:0; do
    m=${t%%:*}
    set -- $(echo "$t" | tr : ' ')
    if run "simp-$m" "$m.relay"; then
        expect "simp-$m" "dropout_zero" "$(applied "simp-$m" dropout_zero)" "$2"
        expect "simp-$m" "squeeze_none" "$(applied "simp-$m" squeeze_none)" "$3"
        expect "simp-$m" "broadcast_same" "$(applied "simp-$m" broadcast_same)" "$4"
        expect "simp-$m" "reshape_same" "$(applied "simp-$m" reshape_same)" "$5"
        expect "simp-$m" "nn.dropout( left" "$(occurs "simp-$m" 'nn.dropout(')" "$6"
    fi
done

# ---- bn_bprop.graft: inference models hold no backprop; it must not fire ----
rules=bn_bprop.graft
for m in resnet18 densenet121 vit_b_16 encoder; do
    if run "bprop-$m" "$m.relay"; then
        expect "bprop-$m" "bn_bprop_dx" "$(applied "bprop-$m" bn_bprop_dx)" 0
    fi
done

# ---- lower_dot.graft ----
# Every batch_matmul of a linear layer (TVM's PyTorch importer: span
# aten::linear_N, the weight transposed and broadcast over the batch) is
# lowered to one nn.dense of the weight itself (the two transposes cancel);
# the attention products (span aten::bmm_N), whose operands both vary along
# the batch, are no dot of nGraph's visitor and stay (ConvNeXt's MLPs are
# linear layers too).  model:linear
# batch_matmuls:attention batch_matmuls:nn.dense calls before.
rules=lower_dot.graft
for t in vit_b_16:36:24:13 encoder:12:8:4 convnext_tiny:36:0:1; do
    m=${t%%:*}
    set -- $(echo "$t" | tr : ' ')
    expect "dot-$m" "linear batch_matmuls in $m.relay" \
        "$(grep -c 'nn.batch_matmul(.*span=aten::linear_' "$corpus/$m.relay")" "$2"
    expect "dot-$m" "attention batch_matmuls in $m.relay" \
        "$(grep -c 'nn.batch_matmul(.*span=aten::bmm_' "$corpus/$m.relay")" "$3"
    expect "dot-$m" "nn.dense calls in $m.relay" "$(grep -c 'nn.dense(' "$corpus/$m.relay")" "$4"
    if run "dot-$m" "$m.relay"; then
        expect "dot-$m" "bmm_shared_y" "$(applied "dot-$m" bmm_shared_y)" "$2"
        expect "dot-$m" "matmul_transposed_y" \
            "$(applied "dot-$m" matmul_transposed_y)" "$2"
        expect "dot-$m" "matmul_dense" "$(applied "dot-$m" matmul_dense)" "$2"
        expect "dot-$m" "nn.dense( in the output" "$(occurs "dot-$m" 'nn.dense(')" "$(($2 + $4))"
        expect "dot-$m" "nn.batch_matmul( left" "$(occurs "dot-$m" 'nn.batch_matmul(')" "$3"
        expect "dot-$m" "nn.matmul( left" "$(occurs "dot-$m" 'nn.matmul(')" 0
        expect "dot-$m" "transpose( left" "$(occurs "dot-$m" ' transpose(')" \
            "$(($(grep -c ' transpose(' "$corpus/$m.relay") - $2))"
    fi
done
# These models hold no contraction but nn.dense: nothing fires.
for m in resnet18 vgg11 mobilenet_v2; do
    if run "dot-$m" "$m.relay"; then
        expect "dot-$m" "rewrites" "$(awk '$1 == "total:" { print $2 }' "$tmp/dot-$m.stats")" 0
    fi
done

echo "std_corpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
