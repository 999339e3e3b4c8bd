#!/bin/sh
# differential.sh - interpreted and compiled rule sets agree.
#
# For DIFF_CASES generated cases (default 25; 5 when GRAFT_SLOW_TESTS=0),
# fuzz/fuzz_gen turns deterministic pseudo-random bytes into a rule file
# and a model (the pipeline harness's generator, fuzz_gen.h), then
#   graft run RULES MODEL -o A          (the interpreter)
#   graft compile --exe RULES -o PROG;  PROG MODEL -o B   (generated C)
# must give the same exit status, the same output byte for byte, and the
# same final error line (a rule set that never stops is reported the same
# way by both).  Rule files that do not check are skipped (compile refuses
# them as run does).  Also run over fuzz/corpus/pipeline.  A failing case
# is kept in $GRAFT_BUILDDIR/fuzz/differential/ for replay.
set -u
GRAFT=${GRAFT:?} src=${GRAFT_SRCDIR:?} build=${GRAFT_BUILDDIR:?}
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS
cases=${DIFF_CASES:-25}
[ "${GRAFT_SLOW_TESTS:-1}" = 0 ] && cases=${DIFF_CASES:-5}
keep=$build/fuzz/differential
tmp=$(mktemp -d "${TMPDIR:-/tmp}/differential.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ran=0 skipped=0 failed=0

# bytes SEED: 160 pseudo-random bytes (1..255) from awk's generator.
bytes() {
    awk -v seed="$1" 'BEGIN { srand(seed); for (i = 0; i < 160; i++)
        printf "%c", 1 + int(rand() * 255) }'
}

# one_case INPUT NAME: generates, runs both ways, compares.
one_case() {
    d=$tmp/$2
    mkdir -p "$d"
    "$build/fuzz/fuzz_gen" "$1" "$d" || { failed=$((failed + 1)); return; }
    if ! "$GRAFT" compile --exe "$d/rules.graft" -o "$d/prog" 2>"$d/compile.err"; then
        "$GRAFT" check "$d/rules.graft" >/dev/null 2>&1 &&
            { echo "FAIL: $2: compile failed on rules that check"; cat "$d/compile.err"
              failed=$((failed + 1)); cp -r "$d" "$keep/"; return; }
        skipped=$((skipped + 1))
        return
    fi
    "$GRAFT" run "$d/rules.graft" "$d/model.relay" -o "$d/a.relay" 2>"$d/a.err"
    sa=$?
    "$d/prog" "$d/model.relay" -o "$d/b.relay" 2>"$d/b.err"
    sb=$?
    ran=$((ran + 1))
    if [ $sa -ne $sb ] || { [ $sa -eq 0 ] && ! cmp -s "$d/a.relay" "$d/b.relay"; } ||
        [ "$(tail -n 1 "$d/a.err" | grep '^graft: error')" != \
          "$(tail -n 1 "$d/b.err" | grep '^graft: error')" ]; then
        echo "FAIL: $2: run exited $sa, compiled exited $sb"
        diff "$d/a.relay" "$d/b.relay" 2>/dev/null | head -n 10
        failed=$((failed + 1))
        mkdir -p "$keep" && cp -r "$d" "$keep/"
    fi
    rm -rf "$d"
}

i=1
while [ $i -le "$cases" ]; do
    bytes $i >"$tmp/in"
    one_case "$tmp/in" "seed$i"
    i=$((i + 1))
done
for f in "$src"/fuzz/corpus/pipeline/*; do
    [ -f "$f" ] && one_case "$f" "$(basename "$f")"
done
echo "differential: $ran compared, $skipped skipped (rules do not check), $failed failed"
[ $failed -eq 0 ] && [ $ran -gt 0 ]
