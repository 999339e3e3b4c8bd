#!/bin/sh
# infer_types.sh - type inference against TVM (issue 12 item 3): every real
# model of the corpus, with every "ty=..." taken out of its annotation
# comments, prints back byte for byte under graft fmt --infer-types.
#
# The corpus files were printed by TVM v0.14 after InferType, so each
# binding, parameter and constant carries "/* ty=TYPE span=SPAN */" or
# "/* ty=TYPE */".  Stripping keeps "/* span=SPAN */" and drops a comment
# left empty with the space before it, as TVM prints a node without a
# checked type.  graft must then infer every type from the parameters'
# declared types and the ops' relations (src/relay/type_rel_*.c) and print
# them where TVM does.
#
# The models are read from tests/corpus; a missing corpus is a failure.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
graft=${GRAFT:?}
corpus=$src/tests/corpus
if [ ! -d "$corpus" ]; then
    echo "FAIL: no corpus in $corpus"
    exit 1
fi
test_tmpdir infer_types
pass=0
fail=0
bad() {
    echo "FAIL: $1"
    fail=$((fail + 1))
}

# strip FILE: the file without its types.  A type has no '*', and "span="
# comes after it when there is one.
strip() {
    sed -e 's|/\* ty=[^*]*\( span=[^*]*\*/\)|/*\1|g' -e 's| /\* ty=[^*]* \*/||g' "$1"
}

for model in "$corpus"/*.relay; do
    name=$(basename "$model")
    strip "$model" >"$tmp/$name"
    if grep -q 'ty=' "$tmp/$name"; then
        bad "$name: types left after stripping"
        continue
    fi
    if cmp -s "$tmp/$name" "$model"; then
        bad "$name: stripping changed nothing"
        continue
    fi
    if ! "$graft" fmt --infer-types "$tmp/$name" >"$tmp/out" 2>"$tmp/err"; then
        bad "$name: graft fmt --infer-types failed"
        head -5 "$tmp/err"
        continue
    fi
    if cmp -s "$tmp/out" "$model"; then
        echo "PASS: $name"
        pass=$((pass + 1))
    else
        bad "$name: inferred types differ from TVM's"
        diff "$model" "$tmp/out" | head -6
    fi
done
[ "$pass" -gt 0 ] || bad "no model in $corpus"

# Without --infer-types the same stripped model prints as it was read.
first=$(ls "$corpus"/*.relay | head -1)
strip "$first" >"$tmp/plain.relay"
if "$graft" fmt "$tmp/plain.relay" | cmp -s - "$tmp/plain.relay"; then
    echo "PASS: fmt without --infer-types prints no types"
    pass=$((pass + 1))
else
    bad "fmt without --infer-types changed the stripped model"
fi

# A model that has its types already prints as it is.
if "$graft" fmt --infer-types "$first" | cmp -s - "$first"; then
    echo "PASS: fmt --infer-types keeps a typed model as it is"
    pass=$((pass + 1))
else
    bad "fmt --infer-types changed the typed $first"
fi

# Reductions with axis=[] or no axis combine every axis, exclude or not
# (note [empty axis] in src/runtime/eval_reduce.c: TVM v0.14's
# GetReduceAxes); before, axis=[] typed as the input's shape.
cat >"$tmp/empty_axis.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = sum(%x, axis=[]);
  %1 = max(%x, exclude=True);
  %2 = mean(%x, axis=[], keepdims=True);
  (%0, %1, %2)
}
RELAY
cat >"$tmp/empty_axis.want" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32] /* ty=Tensor[(2, 3), float32] */) {
  %0 = sum(%x, axis=[]) /* ty=float32 */;
  %1 = max(%x, exclude=True) /* ty=float32 */;
  %2 = mean(%x, axis=[], keepdims=True) /* ty=Tensor[(1, 1), float32] */;
  (%0, %1, %2) /* ty=(float32, float32, Tensor[(1, 1), float32]) */
}
RELAY
if "$graft" fmt --infer-types "$tmp/empty_axis.relay" | cmp -s - "$tmp/empty_axis.want"; then
    echo "PASS: axis=[] and exclude without axis reduce every axis"
    pass=$((pass + 1))
else
    bad "axis=[] or exclude without axis typed otherwise"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
