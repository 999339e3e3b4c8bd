#!/bin/sh
# bench/relay_mutants.sh - two graft binaries must read broken models alike.
#
# usage: sh bench/relay_mutants.sh OLD_GRAFT NEW_GRAFT COUNT [SEED] MODEL...
#
# Makes COUNT mutants of the models given (each picked in turn: truncated
# at a random byte, a random run of 1-16 bytes deleted, or a token of the
# list below inserted at a random byte), runs `graft fmt` from both
# binaries on each and compares standard output, standard error and exit
# status byte for byte.  Prints one line per difference (and keeps the
# mutant under $TMPDIR), then a summary; exits 1 if any differed.  The
# loader's diagnostics must not depend on how it scans (note [long
# tokens] in grammar/relay_lex.l); this is slow (minutes for 10,000
# mutants), so it is not part of make check.
set -eu

old=${1:?usage: relay_mutants.sh OLD_GRAFT NEW_GRAFT COUNT [SEED] MODEL...}
new=${2:?}
count=${3:?}
shift 3
seed=1
case ${1:-} in
    *[!0-9]* | '') ;;
    *) seed=$1; shift ;;
esac
[ $# -gt 0 ] || { echo "relay_mutants.sh: no models given" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/relay-mutants.XXXXXX")
keep=no
trap '[ "$keep" = yes ] || rm -rf "$work"' EXIT INT TERM

# Tokens that start, end or break the long tokens and the short ones
# around them.
cat > "$work/tokens" <<'EOF'
%0 = add(
%x, %y)
%x, %y);
);
)
(
,
, 
%1
%x
 = 
=
fn (
if (
match (
let %v = 
/* ty=float32 */
// c
add(
nn.conv2d(
;
{
}
[
]
1f
True
@main
meta[relay.Constant][0]
: Tensor[(1), float32]
-> 
free_var %z;
%3 = %2.0;
%2 = True(
x=1
EOF
ntokens=$(wc -l < "$work/tokens")

# Models, one per line, and their sizes.
for m in "$@"; do printf '%s %s\n' "$(wc -c < "$m")" "$m"; done > "$work/models"
nmodels=$(wc -l < "$work/models")

# The mutations: one line each, "KIND MODEL OFFSET LENGTH TOKEN-LINE",
# drawn by awk from the seed.
awk -v n="$count" -v seed="$seed" -v nt="$ntokens" -v nm="$nmodels" '
    { size[NR] = $1; name[NR] = $2 }
    END {
        srand(seed)
        for (i = 0; i < n; i++) {
            m = i % nm + 1
            at = int(rand() * (size[m] + 1))
            kind = i % 3
            printf("%d %s %d %d %d\n", kind, name[m], at, 1 + int(rand() * 16),
                   1 + int(rand() * nt))
        }
    }' "$work/models" > "$work/plan"

differ=0
errors=0
i=0
while read -r kind model at len tok; do
    i=$((i + 1))
    mutant=$work/m$i.relay
    case $kind in
        0) head -c "$at" "$model" > "$mutant" ;;
        1) { head -c "$at" "$model"; tail -c +"$((at + len + 1))" "$model"; } > "$mutant" ;;
        2) { head -c "$at" "$model"; sed -n "${tok}p" "$work/tokens" | tr -d '\n'
             tail -c +"$((at + 1))" "$model"; } > "$mutant" ;;
    esac
    st_old=0
    "$old" fmt "$mutant" > "$work/old.out" 2> "$work/old.err" || st_old=$?
    st_new=0
    "$new" fmt "$mutant" > "$work/new.out" 2> "$work/new.err" || st_new=$?
    [ "$st_old" = 0 ] || errors=$((errors + 1))
    if [ "$st_old" != "$st_new" ] || ! cmp -s "$work/old.out" "$work/new.out" ||
       ! cmp -s "$work/old.err" "$work/new.err"; then
        differ=$((differ + 1))
        keep=yes
        echo "DIFFERS: $mutant (mutation $kind of $model at $at, length $len, token $tok)"
    else
        rm -f "$mutant"
    fi
done < "$work/plan"

echo "relay_mutants: $count mutants of $nmodels models (seed $seed): $errors rejected by the old binary, $differ differ"
[ "$differ" = 0 ]
