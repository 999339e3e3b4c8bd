#!/bin/sh
# readme.sh - the README's main job does what the README says it does:
# graft run examples/bn.graft examples/bn.relay prints examples/bn.expected.relay,
# and the README shows that same text; the README quotes the example's
# rule, and graft verify verifies it (it once normalised the wrong axis).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
cd "$src" || exit 99
test_tmpdir readme
status=0

"$GRAFT" run examples/bn.graft examples/bn.relay >"$tmp/out" 2>"$tmp/err" || {
    echo "FAIL: graft run exited $?: $(cat "$tmp/err")"; status=1; }
cmp -s "$tmp/out" examples/bn.expected.relay || {
    echo "FAIL: output differs from examples/bn.expected.relay"
    diff examples/bn.expected.relay "$tmp/out"; status=1; }
[ -s "$tmp/err" ] && { echo "FAIL: graft run wrote to stderr"; status=1; }

# The README's quoted output is the expected file, indented four spaces.
sed 's/^/    /' examples/bn.expected.relay >"$tmp/quoted"
awk 'NR==FNR { want = want $0 "\n"; next } { text = text $0 "\n" }
     END { exit index(text, want) ? 0 : 1 }' "$tmp/quoted" README.md || {
    echo "FAIL: README.md does not quote examples/bn.expected.relay"; status=1; }

# The README's rule is examples/bn.graft's, indented four spaces, and it
# keeps the model's meaning.
grep -v '^#' examples/bn.graft | sed 's/^/    /' >"$tmp/rule"
awk 'NR==FNR { want = want $0 "\n"; next } { text = text $0 "\n" }
     END { exit index(text, want) ? 0 : 1 }' "$tmp/rule" README.md || {
    echo "FAIL: README.md does not quote the rule of examples/bn.graft"; status=1; }
"$GRAFT" verify examples/bn.graft >"$tmp/out" 2>"$tmp/err"
grep -q '^examples/bn.graft:[0-9]*: bn: verified, ' "$tmp/out" && [ ! -s "$tmp/err" ] || {
    echo "FAIL: graft verify examples/bn.graft:"; cat "$tmp/out" "$tmp/err"; status=1; }

# The README's first command ends with exactly this main job.
grep -q '&& ./graft run examples/bn.graft examples/bn.relay$' README.md || {
    echo "FAIL: README.md's first command does not run the main job"; status=1; }
# The first command works as root and as a user: no bare sudo in front
# (a root shell on a fresh Debian has none), sudo only for apt-get.
first=$(grep -m 1 'apt-get install' README.md)
case $first in
'    $(command -v sudo) sh -c '"'"'apt-get update && apt-get install -y '*) ;;
*) echo "FAIL: README.md's first command does not start with \$(command -v sudo) sh -c 'apt-get ...': $first"
   status=1 ;;
esac
[ "$(printf '%s\n' "$first" | grep -o sudo | wc -l)" -eq 1 ] || {
    echo "FAIL: README.md's first command uses sudo beyond apt-get"; status=1; }
exit $status
