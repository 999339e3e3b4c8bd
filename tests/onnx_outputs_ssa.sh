#!/bin/sh
# onnx_outputs_ssa.sh - rewrites that give a model's graph outputs other
# values while the values the model made them stay live (an op put after
# an output, outputs swapped, an output made an input) write models that
# ONNX's own full check takes: each name made once (note [outputs' old
# values renamed] in src/onnx/onnx_export.c).  graft 65c79b1 wrote the
# old value and the new one both under the output's name, which the
# checker refuses ("Graph must be in single static assignment (SSA)
# form"); the exact texts are goldens in tests/onnx/outputs_renamed,
# tests/onnx/input_outputs and tests/golden/splice_counts.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
test_tmpdir onnx_outputs_ssa
python_onnx 'import onnx'

checked() { # checked RULES MODEL [OPTION]: graft run writes a model the checker takes
    out="$tmp/$(basename "$1" .graft).onnx"
    "$GRAFT" run ${3:-} "$1" "$2" -o "$out" 2>"$tmp/err" ||
        { fail "$1 $2: $(cat "$tmp/err")"; return; }
    onnx_checked "$out" >"$tmp/why" || fail "$1 $2: the checker refuses it: $(cat "$tmp/why")"
}
dir=$src/tests/onnx/outputs_renamed
for rules in rules swap to_input; do
    checked "$dir/$rules.graft" "$dir/model.onnxtxt"
done
checked "$src/tests/golden/splice_counts/sum_rest_onnx.graft" \
    "$src/tests/golden/splice_counts/two.onnxtxt"
checked "$dir/multiroot.graft" "$dir/two_relus.onnxtxt"
for rules in split_wrap split_dup; do # (7536cb7 wrote both wrong)
    checked "$dir/$rules.graft" "$dir/split.onnxtxt"
done

# A graph output that is a graph input keeps its value: the rewrites that
# would change it (one root, several roots, the input itself as the root,
# a partition of the outputs' tuple) are refused (note [fixed outputs] in
# src/ir/graph_module.c); an output that is a constant is renamed.  graft
# 7536cb7 wrote all seven models wrong.
dir=$src/tests/onnx/input_outputs
for rules in swap roots input part; do
    checked "$dir/$rules.graft" "$dir/model.onnxtxt"
done
checked "$dir/input.graft" "$dir/one.onnxtxt"
for model in initializer constant; do
    checked "$dir/swap.graft" "$dir/$model.onnxtxt"
done

# A call a rewrite makes of a callee variable bound to another domain's
# op is in that domain (tests/onnx/callee_domain/twice.golden; 7536cb7
# wrote it in the default domain, where the checker finds no such op).
dir=$src/tests/onnx/callee_domain
checked "$dir/twice.graft" "$dir/model.onnxtxt" --allow-unknown-ops

echo "onnx_outputs_ssa: 15 rewritten models checked, $failures failures"
[ "$failures" -eq 0 ]
