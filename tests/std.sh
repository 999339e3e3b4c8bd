#!/bin/sh
# std.sh - the standard rule library (stdpatterns/) on small graphs.
#
# 1. Every stdpatterns/*.graft checks clean: graft check -Werror prints
#    nothing and exits 0.
# 2. Every case under tests/std/: CASE/cmd holds the graft arguments (run
#    from the case directory); standard output must equal CASE/expected.relay
#    byte for byte, the output must load again (graft fmt), and the rules'
#    applied counts (graft run --stats=counts, rule and applied columns) must
#    equal CASE/expected.counts.
# 3. Every rule of stdpatterns/ fires in some case (applied > 0 in an
#    expected.counts) and is shown a near miss in some case: an input line
#    "// no: RULE" marks a subgraph that RULE must leave alone (and
#    expected.relay shows it left alone).
# Run by make check.  With GRAFT_REGEN=1 it writes expected.relay and
# expected.counts of every case from the current graft instead of comparing
# (review the diff before committing it).
set -u
srcdir=${GRAFT_SRCDIR:?}
graft=${GRAFT:?}
pass=0
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "PASS: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# 1. graft check on each rule file.
for f in "$srcdir"/stdpatterns/*.graft; do
    name=stdpatterns/$(basename "$f")
    if "$graft" check -Werror "$f" >"$tmp/check.out" 2>&1 && [ ! -s "$tmp/check.out" ]; then
        ok "check $name"
    else
        bad "check $name"
        head -20 "$tmp/check.out"
    fi
done

# The rule and applied columns of a --stats=counts table.
applied_counts() {
    awk '$1 == "total:" { exit } NR > 1 { print $1, $4 }' "$1"
}

# 2. The cases.
for dir in "$srcdir"/tests/std/*/; do
    [ -f "$dir/cmd" ] || continue
    name=std/$(basename "$dir")
    args=$(cat "$dir/cmd")
    if ! ( cd "$dir" && eval "\"\$graft\" $args" ) >"$tmp/out" 2>"$tmp/err"; then
        bad "$name (exit status)"
        head -10 "$tmp/err"
        continue
    fi
    if [ "${GRAFT_REGEN:-0}" = 1 ]; then
        cp "$tmp/out" "$dir/expected.relay"
        ( cd "$dir" && eval "\"\$graft\" $args --stats=counts" ) >/dev/null 2>"$tmp/stats"
        applied_counts "$tmp/stats" >"$dir/expected.counts"
    fi
    if ! cmp -s "$tmp/out" "$dir/expected.relay"; then
        bad "$name (output)"
        diff "$dir/expected.relay" "$tmp/out" | head -20
        continue
    fi
    if ! "$graft" fmt "$tmp/out" >/dev/null 2>"$tmp/err"; then
        bad "$name (output does not load again)"
        head -5 "$tmp/err"
        continue
    fi
    ( cd "$dir" && eval "\"\$graft\" $args --stats=counts" ) >/dev/null 2>"$tmp/stats"
    applied_counts "$tmp/stats" >"$tmp/counts"
    if ! cmp -s "$tmp/counts" "$dir/expected.counts"; then
        bad "$name (applied counts)"
        diff "$dir/expected.counts" "$tmp/counts"
        continue
    fi
    ok "$name"
done

# 3. Every rule fires somewhere and has a near miss somewhere.
cat "$srcdir"/tests/std/*/expected.counts >"$tmp/all.counts"
for f in "$srcdir"/stdpatterns/*.graft; do
    # Rule names: items "NAME [...] :=" at the start of a line.
    sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)[^=]*:=.*/\1/p' "$f"
done | sort -u >"$tmp/rules"
while read -r rule; do
    if ! awk -v r="$rule" '$1 == r && $2 > 0 { found = 1 } END { exit !found }' "$tmp/all.counts"; then
        bad "rule $rule never fires in tests/std"
    elif ! grep -qE "// no: $rule( |\$)" "$srcdir"/tests/std/*/input.relay; then
        bad "rule $rule has no near miss (// no: $rule) in tests/std"
    else
        ok "rule $rule fires and has a near miss"
    fi
done <"$tmp/rules"

echo "std: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
