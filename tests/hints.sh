#!/bin/sh
# hints.sh - swapped arguments answered with a hint (note [swapped
# arguments] in src/cli/cli.h): a model where rules go, or rules where the
# model goes, recognised from each way a file can start, for every
# command; files that look like neither, standard input and FIFOs are
# left to the loader (never read twice).  Then graft viz's order (RULES...
# MODEL; the old MODEL RULES... with a note) and its output formats.
set -u
. "${GRAFT_SRCDIR:?}/tests/expect.sh"

# ---- the ways a Relay model starts ----
printf '#[version = "0.0.5"]\ndef @main(%%x) {\n  negative(%%x)\n}\n' >version.relay
printf '\n\n  def @main(%%x) {\n  negative(%%x)\n}\n' >def.relay
printf '// a comment\n/* another\n one */ def @main(%%x) {\n  negative(%%x)\n}\n' >comment.relay
printf 'type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n\ndef @main(%%x) {\n  negative(%%x)\n}\n' >type.relay
printf 'fn (%%x) {\n  negative(%%x)\n}\n' >fn.relay
# ---- the ways a rule file starts ----
printf 'r := negative(x) => x\n' >rule.graft
printf '# a comment\n/* another */\n  neg_twice [priority=2] := negative(negative(x)) => x\n' >flags.graft
printf 'op my_op(data) elementwise\nr := my_op(x) => x\n' >op.graft
printf 'let twice(p) = negative(negative(p))\nr := twice(x) => x\n' >let.graft
printf 'include "rule.graft"\n' >include.graft
models="version.relay def.relay comment.relay type.relay fn.relay"
rules="rule.graft flags.graft op.graft let.graft include.graft"

hint() { # status, message, then the graft arguments
    st=$1
    printf '%s\n' "$2" >want
    shift 2
    expect "$st" "$GRAFT" "$@"
}
model_msg() { # file usage
    echo "graft: error: '$1' is a Relay model, not a rule file; usage: $2"
}
rules_msg() { # file usage
    echo "graft: error: '$1' is a rule file, not a Relay model; usage: $2"
}

for m in $models; do
    hint 2 "$(model_msg "$m" 'graft run RULES... MODEL')" run "$m" rule.graft
    hint 2 "$(model_msg "$m" 'graft run RULES... MODEL')" run rule.graft "$m" def.relay -o out.relay
    hint 2 "$(model_msg "$m" 'graft match RULES... MODEL')" match "$m" rule.graft
    hint 2 "$(model_msg "$m" 'graft check RULES...')" check rule.graft "$m"
    hint 2 "$(model_msg "$m" 'graft compile RULES... -o OUT.c')" compile "$m" -o out.c
    hint 2 "$(model_msg "$m" 'graft compile --exe RULES... -o PROG')" compile --exe "$m" -o prog
    hint 2 "$(model_msg "$m" 'graft viz [RULES...] MODEL')" viz rule.graft "$m" def.relay
    # ... and where a model goes, the model is fine (graft reads a module;
    # a bare fn, which TVM prints for a function, is a syntax error there)
    [ "$m" = fn.relay ] && continue
    : >want
    expect 0 "$GRAFT" fmt "$m"
done
for r in $rules; do
    hint 2 "$(rules_msg "$r" 'graft run RULES... MODEL')" run rule.graft "$r"
    hint 2 "$(rules_msg "$r" 'graft match RULES... MODEL')" match rule.graft "$r"
    # graft fmt takes a rule file as well (graft-rules(5), LAYOUT): no hint
    : >want
    expect 0 "$GRAFT" fmt "$r"
    [ "$(head -c 1 out)" != "" ] || fail "graft fmt $r printed nothing"
    hint 2 "$(rules_msg "$r" 'graft viz [RULES...] MODEL')" viz "$r"
    : >want
    expect 0 "$GRAFT" check "$r"
done
[ -e out.relay ] || [ -e out.c ] || [ -e prog ] && fail "a refused command wrote its output"

# Neither kind's start: left to the loader, which reports the syntax error.
printf '%%x = negative(1)\n' >odd.relay
cases=$((cases + 1))
"$GRAFT" run rule.graft odd.relay >out 2>err
[ $? -eq 1 ] && grep -q '^odd.relay:1:1: error: ' err || fail "odd.relay: $(cat err)"
# standard input and a FIFO are read once, by the loader
cat def.relay | "$GRAFT" run rule.graft - >out 2>err && "$GRAFT" run rule.graft def.relay |
    cmp -s - out || fail "run RULES - (standard input): $(cat err)"
cases=$((cases + 1))
mkfifo model.fifo
timeout 20 sh -c 'cat def.relay >model.fifo' & # bounded, should graft never open it
"$GRAFT" run rule.graft model.fifo >out 2>err
wait
"$GRAFT" run rule.graft def.relay | cmp -s - out || fail "run RULES FIFO: $(cat err)"
cases=$((cases + 1))

# ---- graft viz: RULES... MODEL, the old order with a note ----
"$GRAFT" viz rule.graft def.relay >new.dot 2>err && [ ! -s err ] || fail "viz RULES MODEL: $(cat err)"
grep -q 'r #1' new.dot || fail "viz RULES MODEL: no match drawn"
note="graft viz: note: 'graft viz MODEL RULES...' is deprecated; use 'graft viz RULES... MODEL'"
printf '%s\n' "$note" >want
expect 0 "$GRAFT" viz def.relay rule.graft flags.graft
"$GRAFT" viz rule.graft flags.graft def.relay | cmp -s - out || fail "viz MODEL RULES draws otherwise"
# the model from standard input: the same drawing, positions in <stdin>
sed 's/def\.relay:/<stdin>:/g' new.dot >stdin.dot
expect 0 "$GRAFT" viz - rule.graft <def.relay
cmp -s out stdin.dot || fail "viz - RULES draws otherwise"
: >want
expect 0 "$GRAFT" viz rule.graft - <def.relay
cmp -s out stdin.dot || fail "viz RULES - draws otherwise"
expect 0 "$GRAFT" viz def.relay

# ---- graft viz -o: the extension chooses the format ----
expect 0 "$GRAFT" viz rule.graft def.relay -o g.dot
cmp -s g.dot new.dot || fail "viz -o g.dot is not the dot text"
expect 0 "$GRAFT" viz rule.graft def.relay -o graph
cmp -s graph new.dot || fail "viz -o graph (no extension) is not the dot text"
for ext in txt relay svgz DOT; do
    printf "graft viz: cannot tell the format of 'g.%s' from its extension: use .dot, .svg, .png or .pdf\nTry 'graft viz --help'.\n" "$ext" >want
    expect 2 "$GRAFT" viz rule.graft def.relay -o "g.$ext"
    [ -e "g.$ext" ] && fail "viz -o g.$ext wrote a file"
done
# rendered by dot -T<ext> (a stand-in that records its arguments, then
# Graphviz itself when installed)
printf '#!/bin/sh\necho "$@" >dot.args\ncat\n' >fake-dot && chmod +x fake-dot
for ext in svg png pdf; do
    : >want
    GRAFT_DOT=./fake-dot expect 0 "$GRAFT" viz rule.graft def.relay -o "g.$ext"
    [ "$(cat dot.args)" = "-T$ext" ] || fail "viz -o g.$ext ran dot $(cat dot.args)"
    cmp -s "g.$ext" new.dot || fail "viz -o g.$ext: not what dot wrote"
done
if command -v dot >/dev/null 2>&1; then
    : >want
    expect 0 "$GRAFT" viz rule.graft def.relay -o real.svg
    expect 0 "$GRAFT" viz rule.graft def.relay -o real.png
    expect 0 "$GRAFT" viz rule.graft def.relay -o real.pdf
    grep -q '<svg' real.svg || fail "viz -o real.svg is not SVG"
    [ "$(head -c 4 real.png | tail -c 3)" = PNG ] || fail "viz -o real.png is not PNG"
    [ "$(head -c 4 real.pdf)" = %PDF ] || fail "viz -o real.pdf is not PDF"
else
    echo "hints.sh: Graphviz's dot is not installed; rendering checked with a stand-in only"
fi
printf "graft viz: Graphviz's 'no/dot' is not installed, so PNG cannot be made; write dot text instead (-o FILE.dot)\n" >want
GRAFT_DOT=no/dot expect 1 "$GRAFT" viz def.relay -o none.png
[ -e none.png ] && fail "viz without dot left none.png"

expect_end hints.sh
