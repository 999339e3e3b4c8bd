#!/bin/sh
# hostile.sh - hostile input and output through the graft binary (and a
# program built by graft compile --exe): outputs that name an input,
# unwritable outputs, a full disk (ulimit -f), atomic output of every
# subcommand, a 100 MB model, deep nesting, 1 MB names, huge numbers,
# rule sets that blow up or never stop, include cycles, usage errors.
# Every case checks the exit status and the full message.  Big inputs are
# generated into a temporary directory, never committed; GRAFT_SLOW_TESTS=0
# skips them (sanitizer and valgrind runs).  See doc/limits.md.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"

# no_leftovers NAME: neither NAME nor a temporary NAME.tmp.* exists.
no_leftovers() {
    for f in "$1" "$1".tmp.*; do
        [ -e "$f" ] && fail "left behind: $f"
    done
}

cp "$src/examples/bn.relay" m.relay
printf 'bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition\n' >r.graft
cp m.relay m.orig
cp r.graft r.orig
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS

# ---- an output that names an input: refused, the input untouched ----
refused() { # cmd out input, then the graft arguments
    c=$1 o=$2 i=$3
    shift 3
    printf "graft %s: output '%s' is the input '%s'; refusing to overwrite it\n" "$c" "$o" "$i" >want
    printf "Try 'graft %s --help'.\n" "$c" >>want
    expect 2 "$GRAFT" "$@"
}
refused fmt m.relay m.relay fmt m.relay -o m.relay
refused fmt ./m.relay m.relay fmt m.relay -o ./m.relay
refused viz m.relay m.relay viz m.relay -o m.relay
refused viz r.graft r.graft viz r.graft m.relay -o r.graft
refused run m.relay m.relay run r.graft m.relay -o m.relay
refused run r.graft r.graft run r.graft m.relay -o r.graft
refused compile r.graft r.graft compile r.graft -o r.graft
refused compile r.graft r.graft compile r.graft -o x.c --header r.graft
refused compile r.graft r.graft compile --exe r.graft -o r.graft
cmp -s m.relay m.orig && cmp -s r.graft r.orig || fail "an input was modified"

# ---- unwritable output: reported, nothing left behind ----
printf "graft: error: cannot write 'no/such/dir/o': No such file or directory\n" >want
expect 1 "$GRAFT" fmt m.relay -o no/such/dir/o
expect 1 "$GRAFT" viz m.relay -o no/such/dir/o
expect 1 "$GRAFT" run r.graft m.relay -o no/such/dir/o
expect 1 "$GRAFT" compile r.graft -o no/such/dir/o

# ---- a full disk (a file size limit): reported, nothing left behind,
# an existing output kept ----
awk 'BEGIN { print "def @main(%x) {"; print "  %0 = add(%x, 1f);";
    for (i = 1; i < 2000; i++) printf "  %%%d = add(%%%d, 1f);\n", i, i - 1;
    print "  %1999\n}" }' >mid.relay
full_disk() { # output, then the graft arguments
    o=$1
    shift
    echo "old" >"$o"
    printf "graft: error: cannot write '%s': File too large\n" "$o" >want
    cases=$((cases + 1))
    ( ulimit -f 4; "$GRAFT" "$@" >out 2>err )
    status=$?
    [ "$status" -eq 1 ] || fail "full disk: graft $* exited $status"
    cmp -s err want || { fail "full disk: graft $*: stderr differs"; diff want err | head -n 5; }
    [ "$(cat "$o")" = old ] || fail "full disk: $o was clobbered"
    rm -f "$o"
    no_leftovers "$o"
}
full_disk o.relay fmt mid.relay -o o.relay
full_disk o.dot viz mid.relay -o o.dot
full_disk o.relay run r.graft mid.relay -o o.relay
printf 'r := add(x, 1) => negative(x)\n' >neg.graft
full_disk o.c compile neg.graft -o o.c
# with --header, neither file is updated when one cannot be written
echo old >o.h
printf "graft: error: cannot write 'x.c': File too large\n" >want
cases=$((cases + 1))
( ulimit -f 4; "$GRAFT" compile neg.graft -o x.c --header o.h >out 2>err )
[ $? -eq 1 ] && cmp -s err want || fail "full disk: compile --header: $(cat err)"
[ "$(cat o.h)" = old ] || fail "full disk: compile --header updated o.h"
rm -f o.h
no_leftovers o.h
no_leftovers x.c
# compile --exe: the C file cannot be written, the program is kept
echo old >prog3
cases=$((cases + 1))
( ulimit -f 4; "$GRAFT" compile --exe neg.graft -o prog3 >out 2>err )
[ $? -eq 1 ] && grep -q "^graft: error: cannot write '.*prog3\.c': File too large\$" err ||
    fail "full disk: compile --exe: $(cat err)"
[ "$(cat prog3)" = old ] || fail "full disk: compile --exe clobbered prog3"
rm -f prog3
no_leftovers prog3

# ---- atomic output on bad input: an existing output is kept ----
printf 'def @main(%%x) {\n  add(%%x,\n}\n' >bad.relay
printf 'r := nn.relu(x => x\n' >bad.graft
for args in "fmt bad.relay" "viz bad.relay" "run r.graft bad.relay" "run bad.graft m.relay" \
    "compile bad.graft"; do
    echo keep >o
    cases=$((cases + 1))
    # shellcheck disable=SC2086
    "$GRAFT" $args -o o >out 2>err && fail "graft $args succeeded"
    [ "$(cat o)" = keep ] || fail "graft $args -o o clobbered o"
    [ -s err ] || fail "graft $args: no diagnostics"
    rm -f o
    no_leftovers o
done

# an SVG whose renderer fails or is missing: reported, the old SVG kept
echo keep >o.svg
printf "graft viz: 'false -Tsvg' failed\n" >want
GRAFT_DOT=false expect 1 "$GRAFT" viz m.relay -o o.svg
printf "graft viz: Graphviz's 'no/dot' is not installed, so SVG cannot be made; write dot text instead (-o FILE.dot)\n" >want
GRAFT_DOT=no/dot expect 1 "$GRAFT" viz m.relay -o o.svg
unset GRAFT_DOT
[ "$(cat o.svg)" = keep ] || fail "a failed SVG rendering clobbered o.svg"
rm -f o.svg
no_leftovers o.svg

# ---- compile --exe and the program it builds ----
if "$GRAFT" compile --exe r.graft -o prog >out 2>err; then
    cases=$((cases + 1))
    ./prog m.relay -o o.relay && "$GRAFT" run r.graft m.relay -o o2.relay &&
        cmp -s o.relay o2.relay || fail "compiled and interpreted results differ"
    printf "./prog: output 'm.relay' is the input 'm.relay'; refusing to overwrite it\n" >want
    printf "Try './prog --help'.\n" >>want
    expect 2 ./prog m.relay -o m.relay
    cmp -s m.relay m.orig || fail "./prog modified its input"
    printf "graft: error: cannot write 'o.relay': File too large\n" >want
    echo old >o.relay
    cases=$((cases + 1))
    ( ulimit -f 4; ./prog mid.relay -o o.relay >out 2>err )
    [ $? -eq 1 ] && cmp -s err want || fail "full disk: ./prog"
    [ "$(cat o.relay)" = old ] || fail "full disk: ./prog clobbered o.relay"
    rm -f o.relay
    no_leftovers o.relay
    echo keep >prog2
    cases=$((cases + 1))
    "$GRAFT" compile --exe bad.graft -o prog2 >out 2>err && fail "compile --exe bad.graft"
    [ "$(cat prog2)" = keep ] || fail "compile --exe clobbered prog2"
    rm -f prog2
    no_leftovers prog2
else
    fail "graft compile --exe: $(cat err)"
fi

# ---- rule sets that blow up or never stop ----
awk 'BEGIN { printf "let d(p) = add(p, p)\nr := "; for (i = 0; i < 40; i++) printf "d(";
    printf "x"; for (i = 0; i < 40; i++) printf ")"; print " => partition" }' >macros.graft
echo "macros.graft:2:6: error: pattern grows beyond 200000 nodes when its macros are expanded [--limit macro-nodes]" >want
cases=$((cases + 1))
"$GRAFT" check macros.graft >out 2>err
[ $? -eq 1 ] && head -n 1 err | cmp -s - want || fail "macro blow-up: $(head -n 1 err)"
# twelve nested op classes: about 40^12 alternatives if expanded eagerly
awk 'BEGIN { printf "r := "; for (i = 0; i < 12; i++) printf "<elementwise>(";
    printf "x"; for (i = 0; i < 12; i++) printf ")"; print " => partition" }' >classes.graft
: >want
expect 0 "$GRAFT" run classes.graft m.relay -o o.relay
expect 0 "$GRAFT" compile classes.graft -o o.c
rm -f o.relay o.c
printf 'grow := x:const => negative(x)\n' >grow.graft
# One node more each round: the rounds have looked at 16 * (12 + 1120)
# nodes after 180 rounds, before the 1,120 rewrites of the default bound.
printf "graft: error: rewriting did not reach a fixpoint within 180 rounds that looked at 18270 nodes (16 * (nodes + rewrite bound)); rules still firing: grow (grow.graft:1, 1 times in the last round) [--limit round-factor]\n" >want
expect 1 "$GRAFT" run grow.graft m.relay -o o.relay
no_leftovers o.relay
printf "graft: error: rewriting did not reach a fixpoint within 7 rewrites; rules still firing: grow (grow.graft:1, 1 times in the last round) [--limit rewrites]\n" >want
expect 1 "$GRAFT" run grow.graft m.relay --max-rewrites 7
# on a 100,000-node chain the round bound stops it in time proportional to
# the model (note [rewrite work bound] in src/runtime/rewrite.c)
awk 'BEGIN { print "def @main(%x) {"; for (i = 0; i < 100000; i++)
    printf "  %%%d = negative(%s);\n", i, i ? "%" (i - 1) : "%x";
    print "  add(%99999, 1f)\n}" }' >chain.relay
printf "graft: error: rewriting did not reach a fixpoint within 177 rounds that looked at 17716107 nodes (16 * (nodes + rewrite bound)); rules still firing: grow (grow.graft:1, 1 times in the last round) [--limit round-factor]\n" >want
expect 1 "$GRAFT" run grow.graft chain.relay
# A graph of one add that a rule grows by two relus a round, and at every
# node the star tries each split of the chain below: each round costs the
# square of the chain.  Bounding rounds by the starting size let it run
# 1,021 rounds (two minutes); the bound on the nodes the rounds look at
# stops it after 128 (found by fuzz/fuzz_pipeline, session 7).
printf 'r0 := (z | nn.relu*(nn.relu(z))) where users(z) == 2 => nn.relu(nn.relu(z))\n' >relus.graft
printf 'def @main(%%p0) {\n  add(%%p0, %%p0)\n}\n' >relus.relay
printf "graft: error: rewriting did not reach a fixpoint within 128 rounds that looked at 16512 nodes (16 * (nodes + rewrite bound)); rules still firing: r0 (relus.graft:1, 1 times in the last round) [--limit round-factor]\n" >want
expect 1 "$GRAFT" run relus.graft relus.relay
# A rule of two roots on 100,000 relus of one x: each relu is a candidate
# of the first root, and the second, a sigmoid of the same x, is looked
# for among x's 100,000 users, of which none is one.  Without the memory
# of misses (note [root misses] in src/runtime/match_roots.c) that was
# 10^10 looks; now the first search fails and the others at once.
printf 'rs := nn.relu(x) & sigmoid(x) => (x, x)\n' >hub.graft
awk 'BEGIN { print "def @main(%x) {"; for (i = 0; i < 100000; i++) printf "  %%%d = nn.relu(%%x);\n", i;
    printf "  %%100000 = (%%0"; for (i = 1; i < 100000; i++) printf ", %%%d", i; print ");";
    print "  %100000\n}" }' >hub.relay
: >want
cases=$((cases + 1))
start=$(date +%s)
expect 0 "$GRAFT" match hub.graft hub.relay
[ $(($(date +%s) - start)) -lt 30 ] || fail "hub: graft match took $(($(date +%s) - start)) s"

# ---- 10^6-deep nesting in a rule file ----
awk 'BEGIN { printf "r := "; for (i = 0; i < 1000000; i++) printf "(";
    printf "x"; for (i = 0; i < 1000000; i++) printf ")"; print " => x" }' >deep.graft
cases=$((cases + 1))
"$GRAFT" check deep.graft >out 2>err
[ $? -eq 1 ] && head -n 1 err | grep -qxF 'deep.graft:1:262: error: nesting deeper than 256 levels [--limit rule-depth]' ||
    fail "deep rule nesting: $(head -n 1 err | cut -c1-100)"
awk 'BEGIN { printf "def @main(%%x) {\n  "; for (i = 0; i < 1000000; i++) printf "negative(";
    printf "%%x"; for (i = 0; i < 1000000; i++) printf ")"; print "\n}" }' >deep.relay
cases=$((cases + 1))
"$GRAFT" fmt deep.relay >out 2>err
[ $? -eq 1 ] && head -n 1 err | grep -q '^deep.relay:2:[0-9]*: error: expression nested too deeply' ||
    fail "deep model nesting: $(head -n 1 err | cut -c1-100)"
rm -f deep.graft deep.relay

# ---- include cycles ----
printf 'include "b.graft"\na := nn.relu(x) => x\n' >a.graft
printf 'include "a.graft"\nb := sigmoid(x) => x\n' >b.graft
cat >want <<'EOF'
b.graft:1:9: error: include cycle: 'a.graft' is already being loaded (it includes itself, directly or through other files)
    1 | include "a.graft"
      |         ^~~~~~~~~
EOF
expect 1 "$GRAFT" check a.graft

# ---- numbers ----
printf 'def @main(%%x) {\n  sum(%%x, axis=99999999999999999999)\n}\n' >num.relay
cat >want <<'EOF'
num.relay:2:16: error: integer out of range for int64
    2 |   sum(%x, axis=99999999999999999999)
      |                ^~~~~~~~~~~~~~~~~~~~
EOF
expect 1 "$GRAFT" fmt num.relay
printf 'r := add(x, 0x10) => x\n' >num.graft
cat >want <<'EOF'
num.graft:1:13: error: malformed number
    1 | r := add(x, 0x10) => x
      |             ^~~~
EOF
expect 1 "$GRAFT" check num.graft
# beyond double: an error; beyond int64: kept as a floating-point value
printf 'r := add(x, 1e999999) => x\ns := add(x, 99999999999999999999999) => x\n' >inf.graft
cat >want <<'EOF'
inf.graft:1:13: error: number out of range
    1 | r := add(x, 1e999999) => x
      |             ^~~~~~~~
EOF
expect 1 "$GRAFT" check inf.graft

# ---- binary files ----
printf '\177ELF\002\001\001\000' >elf
printf 'elf:1:1: error: unexpected byte 0x7f (not a Relay text file?)\n    1 | <7f>ELF<02><01><01><00>\n      | ^~~~\n' >want
expect 1 "$GRAFT" fmt elf
cases=$((cases + 1))
"$GRAFT" check elf >out 2>err
[ $? -eq 1 ] && head -n 1 err | grep -q '^elf:1:1: error: ' || fail "check of a binary file: $(head -n 1 err)"

# ---- usage errors: full messages ----
usage() { # status, expected first line, then the graft arguments
    st=$1
    printf '%s\n' "$2" >want
    shift 2
    [ -n "${1:-}" ] && printf "Try 'graft %s --help'.\n" "$1" >>want
    expect "$st" "$GRAFT" "$@"
}
printf "graft: unknown command 'frobnicate'\nTry 'graft --help'.\n" >want
expect 2 "$GRAFT" frobnicate
usage 2 "graft fmt: no MODEL given" fmt
usage 2 "graft fmt: option '-o' needs a file name" fmt m.relay -o
usage 2 "graft fmt: unknown option '--bogus'" fmt --bogus m.relay
usage 2 "graft fmt: more than one MODEL given ('r.graft')" fmt m.relay r.graft
usage 2 "graft viz: no MODEL given" viz
usage 2 "graft viz: unknown option '--bogus'" viz --bogus
usage 2 "graft run: need RULES... and a MODEL" run m.relay
usage 2 "graft run: unknown option '--bogus'" run --bogus
usage 2 "graft run: option '-o' needs a file name" run r.graft m.relay -o
usage 2 "graft match: unknown option '--bogus'" match --bogus
usage 2 "graft compile: need at least one rule file" compile
usage 2 "graft compile: need '-o OUT.c'" compile r.graft
usage 2 "graft compile: need '-o PROG'" compile --exe r.graft
usage 2 "graft compile: unknown option '--bogus'" compile --bogus
usage 2 "graft compile: '--exe' cannot write a program to standard output" compile --exe r.graft -o -
usage 2 "graft compile: '--header' does not go with '--exe'" compile --exe r.graft -o p --header h.h
usage 2 "graft compile: 'no-t' is not a C identifier (--name)" compile r.graft -o o.c --name no-t
usage 2 "graft check: unknown option '--bogus'" check --bogus
usage 2 "graft check: no rule files given" check
usage 2 "graft check: --dot goes with --dump-automaton" check --dot r.graft
usage 2 "graft check: only one dump option at a time" check --dump-ast --dump-automaton r.graft
usage 2 "graft compile: the C file and the header cannot both go to standard output" compile r.graft -o - --header -
usage 2 "graft run: '--max-rewrites' needs a positive number, not '0'" run r.graft m.relay --max-rewrites 0
usage 2 "graft run: '--max-rewrites' needs a positive number, not 'x'" run r.graft m.relay --max-rewrites x
usage 2 "graft run: option '--max-rewrites' needs a number" run r.graft m.relay --max-rewrites
usage 2 "graft match: need RULES... and a MODEL" match r.graft
usage 2 "graft viz: option '-o' needs a file name" viz m.relay -o
printf 'usage: graft COMMAND [ARGS...]\n' >want
cases=$((cases + 1))
"$GRAFT" >out 2>err
[ $? -eq 2 ] && head -n 1 err | cmp -s - want || fail "graft without arguments"
for c in fmt viz check run match compile; do
    cases=$((cases + 1))
    "$GRAFT" $c --help >out 2>err && [ ! -s err ] && grep -q "^usage: graft $c" out ||
        fail "graft $c --help"
done
# the usage errors of a program built by graft compile --exe
if [ -x prog ]; then
    prog_usage() { # expected first line, then the arguments
        printf '%s\nTry '"'"'./prog --help'"'"'.\n' "$1" >want
        shift
        expect 2 ./prog "$@"
    }
    prog_usage "./prog: need a MODEL"
    prog_usage "./prog: option '-o' needs a file name" m.relay -o
    prog_usage "./prog: option '--max-rewrites' needs a number" m.relay --max-rewrites
    prog_usage "./prog: '--max-rewrites' needs a positive number, not '-3'" m.relay --max-rewrites -3
    prog_usage "./prog: unknown option '--bogus'" m.relay --bogus
    prog_usage "./prog: only one MODEL, not 'r.graft' too" m.relay r.graft
    printf "graft: error: cannot read 'missing.relay': No such file or directory\n" >want
    expect 1 ./prog missing.relay
fi
printf "graft: error: cannot read 'missing.relay': No such file or directory\n" >want
expect 1 "$GRAFT" fmt missing.relay
printf "graft: error: cannot read '.': Is a directory\n" >want
expect 1 "$GRAFT" fmt .

# ---- big inputs (GRAFT_SLOW_TESTS=0 skips them) ----
if [ "${GRAFT_SLOW_TESTS:-1}" != 0 ]; then
    # a memory bound, unless the build cannot run under one (ASan reserves
    # terabytes of address space for its shadow memory)
    vlimit=2000000
    ( ulimit -v $vlimit && "$GRAFT" --version ) >/dev/null 2>&1 || vlimit=unlimited
    # a 100 MB model: 1.85 million bindings, printed back byte for byte;
    # memory stays under 2 GB (doc/limits.md: about 400 bytes a node)
    awk -v N=1850000 'BEGIN { print "def @main(%x: Tensor[(1, 64), float32]) {";
        for (i = 0; i < N; i++)
            printf "  %%%d = add(%s, 1f) /* ty=Tensor[(1, 64), float32] */;\n", i,
                i ? "%" (i - 1) : "%x";
        printf "  %%%d\n}\n", N - 1 }' >big.relay
    cases=$((cases + 1))
    ( ulimit -v $vlimit; "$GRAFT" fmt big.relay -o big.out ) 2>err || fail "fmt of 100 MB: $(cat err)"
    [ "$(wc -c <big.relay)" -ge 100000000 ] || fail "big.relay is under 100 MB"
    # the printer folds the last binding into the result line
    printf '  %%1849998 = add(%%1849997, 1f) /* ty=Tensor[(1, 64), float32] */;\n  add(%%1849998, 1f) /* ty=Tensor[(1, 64), float32] */\n}\n' >want
    [ "$(wc -l <big.out)" -eq 1850002 ] && tail -n 3 big.out | cmp -s - want ||
        fail "fmt of 100 MB: wrong output"
    rm -f big.out
    printf 'r := add(x, 1) => x\n' >drop.graft
    cases=$((cases + 1))
    ( ulimit -v $vlimit; "$GRAFT" run drop.graft big.relay -o big.out ) 2>err || fail "run on 100 MB: $(cat err)"
    printf 'def @main(%%x: Tensor[(1, 64), float32]) {\n  %%x\n}\n' >want
    cmp -s big.out want || fail "run on 100 MB: wrong output"
    rm -f big.relay big.out
    # a 1 MB rule name and variable name
    awk 'BEGIN { n = 1048576; s = ""; for (i = 0; i < 1024; i++) s = s "a";
        k = ""; for (i = 0; i < 1024; i++) k = k s;
        printf "r%s := nn.relu(v%s) => v%s\n", k, k, k;
        printf "p := sigmoid(_) => partition(Composite=\"%s\")\n", k }' >name.graft
    : >want
    expect 0 "$GRAFT" check name.graft
fi

expect_end hostile.sh
