#!/bin/sh
# fold_meta.sh - fold(...) on a Relay model whose weights are meta
# constants (note [meta constants] in src/runtime/fold.h), and graft run
# --fold-constants on one without a #[metadata] section: the folded
# values that graft writes into the section are read back by graft (the
# model printed again byte for byte, run --verify reading its constants
# from the section) and by tests/fold_meta.py, which decodes the section
# as TVM's LoadJSON would and compares each new value with its fold
# computed by numpy in float32, bit for bit, and each entry the input had
# with the input's, byte for byte.  The printed models themselves are
# golden files (tests/golden/fold_meta/).  Needs numpy; skips without it.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/golden/fold_meta"
test_tmpdir fold_meta
python_onnx 'import numpy'

run() { # run OUT ARGS...: graft run ARGS... -o OUT, stderr in OUT.err
    out=$1
    shift
    "$GRAFT" run "$@" -o "$out" 2>"$out.err" || fail "graft run $*: $(head -c 300 "$out.err")"
}

run "$tmp/folded.relay" "$data/fold_meta.graft" "$data/conv_bn.relay"
run "$tmp/again.relay" "$data/fold_meta.graft" "$data/conv_bn.relay"
cmp -s "$tmp/folded.relay" "$tmp/again.relay" || fail "two runs print different models"
# graft loads its own output: printed again unchanged, its six meta
# constants (three of them new) read from the section by run --verify
run "$tmp/reloaded.relay" --verify "$data/no_rules.graft" "$tmp/folded.relay"
cmp -s "$tmp/folded.relay" "$tmp/reloaded.relay" || fail "the folded model printed again differs"
grep -q '^verify: 0 rewrites, inputs random (seed 1), 6 meta constants from the metadata section$' \
    "$tmp/reloaded.relay.err" || fail "run --verify on the folded model: $(head -n 1 "$tmp/reloaded.relay.err")"
grep -q 'max difference 0 .*within$' "$tmp/reloaded.relay.err" ||
    fail "run --verify on the folded model: not within"
# a module without a section gets one
run "$tmp/tensors.relay" --fold-constants "$data/no_rules.graft" "$data/tensors.relay"
run "$tmp/tensors_again.relay" "$data/no_rules.graft" "$tmp/tensors.relay"
cmp -s "$tmp/tensors.relay" "$tmp/tensors_again.relay" || fail "the made section printed again differs"
[ "$failures" -eq 0 ] || exit 1
"$python" "$src/tests/fold_meta.py" "$data/conv_bn.relay" "$tmp/folded.relay" \
    "$tmp/tensors.relay"
