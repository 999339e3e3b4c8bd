#!/bin/sh
# limits.sh - the resource limits at run time (note [limits], src/base/limit.h,
# doc/limits.md): `graft limits`, --limit NAME=N on the commands and on a
# rewriter built by graft compile --exe, GRAFT_LIMITS, every bad setting
# with its full message, each limit stopping input just past a small
# setting with its exact error (and taking input just within it), and
# input at each nesting ceiling, which must work without exhausting the
# stack (this script also runs under AddressSanitizer).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"

# nest N OPEN MIDDLE CLOSE: OPEN N times, MIDDLE, CLOSE N times.
nest() {
    awk -v n="$1" -v o="$2" -v m="$3" -v c="$4" 'BEGIN {
        for (i = 0; i < n; i++) printf "%s", o; printf "%s", m;
        for (i = 0; i < n; i++) printf "%s", c }'
}

# ---- graft limits: the table, and how settings combine ----
cat >want_table <<'EOF'
limit          value    default  range                what it bounds
model-depth    10000    10000    100..1000000         parser stack entries for one model, about 5 per nesting level
fn-depth       256      256      1..1024              functions nested inside one another in a model
rule-depth     256      256      16..4096             nesting levels of one pattern, guard or action as written
macro-depth    1024     1024     16..4096             nesting levels of a pattern after macro expansion
macro-nesting  32       32       1..1024              macros expanded inside one another
macro-nodes    200000   200000   100..100000000       nodes of one pattern after macro expansion
onnx-depth     100      100      4..1024              messages (brackets in its text) nested in one another in an ONNX model
include-depth  64       64       1..4096              rule files included inside one another
errors         20       20       0..1000000           errors reported before giving up (0: no limit)
match-steps    4194304  4194304  1000..1000000000000  steps of one match attempt before it is given up
rewrites       auto     auto     1..1000000000000000  rewrites before giving up (auto: 10 per node plus 1000)
round-factor   16       16       1..1048576           nodes rewriting rounds look at, per (nodes + rewrites)
viz-marks      1000000  1000000  0..1000000000        (match, node) pairs one graft viz drawing highlights
eval-elements  16777216 16777216 1..1000000000000     elements of one tensor graft verify and run --verify evaluate
fold-elements  16777216 16777216 1..1000000000000     elements of one tensor a fold(...) or run --fold-constants makes
EOF
: >want
expect 0 "$GRAFT" limits
cmp -s out want_table || { fail "graft limits: table differs"; diff want_table out | head; }

GRAFT_LIMITS=rule-depth=300,errors=0 "$GRAFT" limits --limit errors=5 \
    --limit=match-steps=1000 >out 2>err
cases=$((cases + 1))
grep -qx 'rule-depth     300      256      16..4096             nesting levels of one pattern, guard or action as written' out &&
    grep -qx 'errors         5        20       0..1000000           errors reported before giving up (0: no limit)' out &&
    grep -qx 'match-steps    1000     4194304  1000..1000000000000  steps of one match attempt before it is given up' out ||
    fail "GRAFT_LIMITS then --limit, the last setting wins: $(cat out err)"
GRAFT_LIMITS=errors=0,rewrites=77 "$GRAFT" limits >out 2>&1
cases=$((cases + 1))
grep -qx 'errors         none     20       0..1000000           errors reported before giving up (0: no limit)' out &&
    grep -qx 'rewrites       77       auto     1..1000000000000000  rewrites before giving up (auto: 10 per node plus 1000)' out ||
    fail "GRAFT_LIMITS alone: $(cat out)"

# ---- bad settings: usage errors, status 2 ----
bad() { # MESSAGE, then the --limit argument
    printf 'graft limits: --limit: %s\nTry '"'"'graft limits --help'"'"'.\n' "$1" >want
    expect 2 "$GRAFT" limits --limit "$2"
}
bad "unknown limit 'rule-dept'; did you mean 'rule-depth'?" rule-dept=20
bad "unknown limit 'colour' ('graft limits' lists them)" colour=3
bad "expected NAME=N, not 'rule-depth'" rule-depth
bad "expected NAME=N, not '=3'" =3
bad "expected NAME=N, not ''" errors=3,
bad "limit 'rule-depth' needs a whole number, not ''" rule-depth=
bad "limit 'rule-depth' needs a whole number, not '-1'" rule-depth=-1
bad "limit 'rule-depth' needs a whole number, not '1e3'" rule-depth=1e3
bad "limit 'rule-depth' must be from 16 to 4096, not 4097" rule-depth=4097
bad "limit 'fn-depth' must be from 1 to 1024, not 0" fn-depth=0
bad "limit 'errors' must be from 0 to 1000000, not 18446744073709551616" errors=18446744073709551616
printf "graft limits: option '--limit' needs NAME=N\nTry 'graft limits --help'.\n" >want
expect 2 "$GRAFT" limits --limit
printf "graft limits: unexpected argument 'rule-depth=3'\nTry 'graft limits --help'.\n" >want
expect 2 "$GRAFT" limits rule-depth=3
printf "graft: GRAFT_LIMITS: unknown limit 'errrors'; did you mean 'errors'?\nTry 'graft --help'.\n" >want
expect 2 env GRAFT_LIMITS=errrors=3 "$GRAFT" fmt "$src/examples/bn.relay"
printf "graft run: --limit: limit 'rewrites' must be from 1 to 1000000000000000, not 0\nTry 'graft run --help'.\n" >want
expect 2 "$GRAFT" run --limit rewrites=0 "$src/examples/bn.graft" "$src/examples/bn.relay"
printf "graft check: --limit: limit 'macro-nodes' needs a whole number, not 'lots'\nTry 'graft check --help'.\n" >want
expect 2 "$GRAFT" check --limit macro-nodes=lots "$src/examples/bn.graft"
cases=$((cases + 1))
"$GRAFT" --help | grep -qxF '  graft limits [--limit NAME=N]            print the resource limits in force' ||
    fail "graft --help does not list graft limits"
for cmd in fmt viz check run match compile limits; do
    cases=$((cases + 1))
    "$GRAFT" $cmd --help | grep -q -- '--limit NAME=N' || fail "graft $cmd --help does not mention --limit"
done

# ---- each limit: just within a small setting, then just past it ----
# model-depth: 40 nested calls take about 140 parser stack entries; 100
# run out at the 30th.
{ echo 'def @main(%x) {'; printf '  '; nest 40 'negative(' '%x' ')'; printf '\n}\n'; } >calls.relay
: >want
expect 0 "$GRAFT" fmt --limit model-depth=200 calls.relay
{
    echo "calls.relay:2:264: error: expression nested too deeply (the limit is 100 parser stack entries, about 20 levels) [--limit model-depth]"
    printf '    2 |   %s\n' "$(nest 40 'negative(' '%x' ')')"
    printf '      | %263s^~~~~~~~\n' ''
} >want
expect 1 "$GRAFT" fmt --limit model-depth=100 calls.relay -o calls.out.relay
[ -e calls.out.relay ] && fail "model-depth: output written after the error"
# From a setting of 128 the loader's first attempt (note [long tokens] in
# grammar/relay_lex.l) may use half of it: 41 nested calls on the right of
# a binding overflow that attempt at 150, and the second one reads them;
# at 128 the second one reports the error just where it did before there
# were long tokens (the parser reduces the mark after an opener without
# reading the next token, so the caret is at the 42nd "add(", not after).
{ echo 'def @main(%x) {'; printf '  %%0 = '; nest 41 'add(' '%x' ', %x)'; printf ';\n  %%0\n}\n'; } >bound.relay
: >want
expect 0 "$GRAFT" fmt --limit model-depth=150 bound.relay
"$GRAFT" fmt bound.relay >bound.want.relay
cmp -s out bound.want.relay || fail "model-depth: bound.relay printed otherwise at 150"
[ "$(grep -c ' = add(' out)" -eq 40 ] || fail "model-depth: bound.relay printed back wrong"
{
    echo "bound.relay:2:159: error: expression nested too deeply (the limit is 128 parser stack entries, about 25 levels) [--limit model-depth]"
    printf '    2 |   %%0 = %s;\n' "$(nest 41 'add(' '%x' ', %x)')"
    printf '      | %158s^\n' ''
} >want
expect 1 "$GRAFT" fmt --limit model-depth=128 bound.relay

# fn-depth
printf 'def @main(%%x) {\n  fn () { fn () { fn () { %%x } } }\n}\n' >fns.relay
: >want
expect 0 "$GRAFT" fmt --limit fn-depth=3 fns.relay
cat >want <<'EOF'
fns.relay:2:19: error: functions nested deeper than 2 levels [--limit fn-depth]
    2 |   fn () { fn () { fn () { %x } } }
      |                   ^~
EOF
expect 1 "$GRAFT" fmt --limit fn-depth=2 fns.relay

# rule-depth: 17 nested calls are 17 levels.
printf 'r := %s => x\n' "$(nest 17 'negative(' x ')')" >deep17.graft
: >want
expect 0 "$GRAFT" check --limit rule-depth=17 deep17.graft
{
    echo "deep17.graft:1:158: error: nesting deeper than 16 levels [--limit rule-depth]"
    printf '    1 | %s\n' "$(cat deep17.graft)"
    printf '      | %157s^\n' ''
} >want
expect 1 "$GRAFT" check --limit rule-depth=16 deep17.graft

# macro-depth: m(m(x)) is 20 levels once m is expanded.
printf 'let m(p) = %s\nr := m(m(x)) => x\n' "$(nest 10 'negative(' p ')')" >macro_depth.graft
: >want
expect 0 "$GRAFT" check --limit macro-depth=20 macro_depth.graft
cat >want <<'EOF'
macro_depth.graft:2:6: error: pattern nested deeper than 19 levels after macro expansion [--limit macro-depth]
    2 | r := m(m(x)) => x
      |      ^~~~~~~
EOF
expect 1 "$GRAFT" check --limit macro-depth=19 macro_depth.graft

# macro-nesting
printf 'let m1(p) = negative(p)\nlet m2(p) = m1(p)\nlet m3(p) = m2(p)\nr := m3(x) => x\n' >nesting.graft
: >want
expect 0 "$GRAFT" check --limit macro-nesting=3 nesting.graft
cat >want <<'EOF'
nesting.graft:2:13: error: 'm1' expands into itself (or macros nest deeper than 2) [--limit macro-nesting]
    2 | let m2(p) = m1(p)
      |             ^~~~~
EOF
expect 1 "$GRAFT" check --limit macro-nesting=2 nesting.graft

# macro-nodes: d4(x) is a tree of 31 adds and 32 uses of x, 63 nodes.
printf 'let d1(p) = add(p, p)\nlet d2(p) = d1(d1(p))\nlet d3(p) = d2(d2(p))\nlet d4(p) = d3(d3(p))\nr := d4(x) => x\n' >nodes.graft
: >want
expect 0 "$GRAFT" check --limit macro-nodes=1000 nodes.graft
cat >want <<'EOF'
nodes.graft:5:6: error: pattern grows beyond 100 nodes when its macros are expanded [--limit macro-nodes]
    5 | r := d4(x) => x
      |      ^~~~~
EOF
expect 1 "$GRAFT" check --limit macro-nodes=100 nodes.graft

# include-depth: a includes b includes c, two levels.
printf 'include "b.graft"\nra := negative(x) => x\n' >a.graft
printf 'include "c.graft"\n' >b.graft
printf 'rc := exp(x) => x\n' >c.graft
: >want
expect 0 "$GRAFT" check --limit include-depth=2 a.graft
cat >want <<'EOF'
b.graft:1:9: error: includes nested deeper than 1 level [--limit include-depth]
    1 | include "c.graft"
      |         ^~~~~~~~~
EOF
expect 1 "$GRAFT" check --limit include-depth=1 a.graft

# errors: 3 errors; 2 are reported, then graft gives up; 0 is no limit.
printf 'a := nosuch1(x) => x\nb := nosuch2(x) => x\nc := nosuch3(x) => x\n' >errs.graft
unknown_ops() { # the errors of lines 1 to $1
    i=1
    while [ $i -le "$1" ]; do
        printf "errs.graft:$i:6: error: unknown op 'nosuch$i'\n    $i | %s\n      |      ^~~~~~~\n" \
            "$(sed -n "${i}p" errs.graft)"
        i=$((i + 1))
    done
}
{ unknown_ops 2; echo "graft: fatal error: too many errors emitted, stopping now"; } >want
expect 1 "$GRAFT" check --limit errors=2 errs.graft
unknown_ops 3 >want
expect 1 "$GRAFT" check --limit errors=0 errs.graft

# match-steps: the guard refuses every one of the 2^11 ways the nested
# commutative adds can match a doubling chain: within the default steps
# the rule is refused by its guard, within 1000 steps it runs out.
printf 'r := a + (b + (c + (d + (e + (f + (g + (h + (i + (j + (k + l)))))))))) where users(a) == 99 => a + b + c + d + e + f + g + h + i + j + k + l\n' >comm.graft
{
    echo 'def @main(%x) {'
    echo '  %0 = add(%x, %x);'
    i=1
    while [ $i -lt 12 ]; do echo "  %$i = add(%$((i - 1)), %$((i - 1)));"; i=$((i + 1)); done
    echo '  %11'
    echo '}'
} >doubling.relay
stats() { # the "r" line of --stats=counts
    "$GRAFT" run --stats=counts "$@" comm.graft doubling.relay 2>&1 >/dev/null | grep '^r '
}
cases=$((cases + 1))
[ "$(stats)" = "r           2        0        0        2  guard 2" ] || fail "match-steps default: $(stats)"
cases=$((cases + 1))
[ "$(stats --limit match-steps=1000)" = "r           2        0        0        2  budget 2" ] ||
    fail "match-steps=1000: $(stats --limit match-steps=1000)"

# rewrites, and --max-rewrites as its other spelling: a rule that never
# stops, firing once a round.
printf 'grow := x:const => negative(x)\n' >grow.graft
printf 'def @main(%%x) {\n  add(%%x, 1f)\n}\n' >grow.relay
printf "graft: error: rewriting did not reach a fixpoint within 7 rewrites; rules still firing: grow (grow.graft:1, 1 times in the last round) [--limit rewrites]\n" >want
expect 1 "$GRAFT" run --limit rewrites=7 grow.graft grow.relay
expect 1 "$GRAFT" run --max-rewrites 7 grow.graft grow.relay
expect 1 env GRAFT_LIMITS=rewrites=7 "$GRAFT" run grow.graft grow.relay

# round-factor: a never-ending rule on a 100-node chain, one node more each
# round; rounds until they have looked at 1 * (102 + 1000) nodes with
# --limit rewrites=1000.
{
    echo 'def @main(%x) {'
    echo '  %0 = negative(%x);'
    i=1
    while [ $i -lt 100 ]; do echo "  %$i = negative(%$((i - 1)));"; i=$((i + 1)); done
    echo '  add(%99, 1f)'
    echo '}'
} >chain.relay
printf "graft: error: rewriting did not reach a fixpoint within 11 rounds that looked at 1188 nodes (1 * (nodes + rewrite bound)); rules still firing: grow (grow.graft:1, 1 times in the last round) [--limit round-factor]\n" >want
expect 1 "$GRAFT" run --limit rewrites=1000,round-factor=1 grow.graft chain.relay

# ---- input at the ceilings: no stack overflow, plain or sanitized ----
# 300,000 nested calls (a million parser stack entries) and 1024 nested
# functions load, print and rewrite.
{ echo 'def @main(%x) {'; printf '  '; nest 300000 'negative(' '%x' ')'; printf '\n}\n'; } >deep_calls.relay
{ echo 'def @main(%x) {'; printf '  '; nest 1024 'fn () { ' '%x' ' }'; printf '\n}\n'; } >deep_fns.relay
printf 'twice := negative(negative(x)) => x\n' >twice.graft
: >want
expect 0 "$GRAFT" run --limit model-depth=1000000 twice.graft deep_calls.relay -o deep_calls.out
cases=$((cases + 1))
[ "$(cat deep_calls.out)" = "$(printf 'def @main(%%x) {\n  %%x\n}')" ] || fail "300,000 nested calls: $(head -c 200 deep_calls.out)"
expect 0 "$GRAFT" fmt --limit model-depth=1000000,fn-depth=1024 deep_fns.relay -o deep_fns.out
cases=$((cases + 1))
[ "$(grep -c 'fn ()' deep_fns.out)" -eq 1024 ] || fail "1024 nested functions: $(grep -c 'fn ()' deep_fns.out)"

# A pattern nested 4096 levels as written, and one grown to 4096 levels
# by 273 nested macros of 15 levels each: checked, lowered, compiled to C
# and run.
printf 'deep := %s => x\n' "$(nest 4095 'negative(' x ')')" >deep_rule.graft
awk 'BEGIN { print "let m0(p) = negative(p)";
    for (k = 1; k < 273; k++) {
        printf "let m%d(p) = m%d(", k, k - 1;
        for (i = 0; i < 15; i++) printf "negative(";
        printf "p"; for (i = 0; i < 15; i++) printf ")"; print ")" }
    print "r := m272(x) => x" }' >deep_macros.graft
ceil=rule-depth=4096,macro-depth=4096,macro-nesting=1024,model-depth=1000000
for rules in deep_rule deep_macros; do
    expect 0 "$GRAFT" check --limit $ceil $rules.graft
    expect 0 "$GRAFT" compile --limit $ceil $rules.graft -o $rules.c
    expect 0 "$GRAFT" run --limit $ceil $rules.graft deep_calls.relay -o $rules.out
    cases=$((cases + 1))
    head -n 3 $rules.out | tail -n 1 | grep -qx '  %1 = negative(%0);' || fail "$rules: $(head -c 200 $rules.out)"
done

# ---- a rewriter built by graft compile --exe reads the same settings ----
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS
if "$GRAFT" compile --exe grow.graft -o grow 2>err; then
    printf "graft: error: rewriting did not reach a fixpoint within 5 rewrites; rules still firing: grow (grow.graft:1, 1 times in the last round) [--limit rewrites]\n" >want
    expect 1 ./grow --limit rewrites=5 grow.relay
    expect 1 env GRAFT_LIMITS=rewrites=5 ./grow grow.relay
    printf "./grow: GRAFT_LIMITS: unknown limit 'rewrite'; did you mean 'rewrites'?\nTry './grow --help'.\n" >want
    expect 2 env GRAFT_LIMITS=rewrite=5 ./grow grow.relay
    printf "./grow: --limit: limit 'model-depth' must be from 100 to 1000000, not 99\nTry './grow --help'.\n" >want
    expect 2 ./grow --limit model-depth=99 grow.relay
    cat >want <<'EOF'
calls.relay:2:264: error: expression nested too deeply (the limit is 100 parser stack entries, about 20 levels) [--limit model-depth]
EOF
    ./grow --limit model-depth=100 calls.relay 2>err >/dev/null
    cases=$((cases + 1))
    head -n 1 err | cmp -s - want || fail "rewriter --limit model-depth: $(head -n 1 err)"
    cases=$((cases + 1))
    ./grow --help | grep -q -- '--limit NAME=N' || fail "rewriter --help does not mention --limit"
else
    fail "graft compile --exe failed: $(cat err)"
fi

expect_end limits.sh
