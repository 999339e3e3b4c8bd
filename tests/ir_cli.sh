#!/bin/sh
# ir_cli.sh - graft fmt and graft viz from the command line: help, usage
# errors (exit 2), bad input (exit 1, exact diagnostics, no output file),
# -o and '-', the golden dot drawing, SVG through Graphviz or a clear
# message without it, the viz-marks bound on highlights (--limit,
# GRAFT_LIMITS, the default), and the round trip of every model of
# tests/corpus/.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
data="$GRAFT_SRCDIR/tests/relay"
. "$GRAFT_SRCDIR/tests/golden_format.sh"

# --help, usage errors
expect_status 0 "$GRAFT" fmt --help
grep -q '^usage: graft fmt MODEL \[-o OUT\]' "$tmp/out" || fail "fmt --help text"
expect_status 0 "$GRAFT" viz --help
grep -q '^usage: graft viz \[RULES...\] MODEL' "$tmp/out" || fail "viz --help text"
expect_status 2 "$GRAFT" fmt
grep -q "no MODEL given" "$tmp/err" || fail "fmt without MODEL message"
expect_status 2 "$GRAFT" fmt "$data/bn.relay" --bogus
expect_status 2 "$GRAFT" fmt "$data/bn.relay" "$data/bn.relay"
expect_status 2 "$GRAFT" fmt "$data/bn.relay" -o
expect_status 2 "$GRAFT" viz
expect_status 2 "$GRAFT" viz "$data/bn.relay" -o

# Whole modules in TVM v0.14's printed form round-trip byte for byte
# (tests/relay/modules/).  Read from TVM's printer
# (tvm/src/relay/printer/relay_text_printer.cc, text_printer.cc):
#  - definitions and type declarations sorted by name, a blank line
#    between them (TextPrinter::PrintMod); temp numbers and variable names
#    run on from one def to the next (one RelayTextPrinter, its
#    temp_var_counter_ and name_alloc_map_ never reset): functions.relay;
#  - "if (c) {" with each branch a scope two columns in (PrintBody), the
#    condition an operand bound before it: if.relay;
#  - "let %v = VALUE;" lines at the scope's level, the value inline, its
#    bindings just before its line, then the body's (VisitExpr_(LetNode));
#    a let used as an operand, as the PyTorch importer's loops are
#    (Call(Let(%while_loop, fn, %while_loop), args)), prints wrapped in
#    "(" ... ")" two columns in (PrintExpr): let.relay, loop.relay; a
#    value used elsewhere too is not inlined (IsUnique): let_shared.relay;
#  - "free_var %x: T;" where a free variable is first printed (PrintExpr):
#    free_var.relay;
#  - op values and constructors inline, no "ty=" comment on @f, ops,
#    if, let or match (PrintOptionalInfo): op_values.relay;
#  - "match (d) {" then per clause "PAT => {" scope "}," one level in
#    (VisitExpr_(MatchNode), Doc::Brace), "match?" when incomplete:
#    adt.relay; with the types TVM's InferType gives (constructor calls,
#    pattern variables "%h /* ty=T */"): adt_typed.relay, which
#    adt_infer.golden checks is what fmt --infer-types makes of adt.relay;
#    a nullary constructor ending a clause ("None => { None }") typed by
#    the other clauses: adt_nullary.relay, adt_nullary_infer.golden;
#    meta[relay.Constant][i] checked against the metadata section kept
#    verbatim: meta.relay;
#  - a bare expression, as AsText prints an Expr (no "def", free_var
#    lines and bindings at the top level): bare.relay, bare_fn.relay;
#  - @main's attributes after its parameters (PrintFunc's
#    PrintDictAttrs): main_attrs.relay, main_attrs_only.relay; a map
#    value "{k=v, ...}" (PrintMapAsAttributeValue) and a meta[KIND][i]
#    value: main_attr_values.relay; a global as a value (callee=@f, which
#    TVM's parser reads; its printer writes meta[GlobalVar][i]):
#    global_attr_values.relay;
#  - function types "fn (T, ...) -> R" and "fn [A, B](T, ...) -> R"
#    (VisitType_(FuncTypeNode): no space between ']' and '('; a FuncType's
#    type constraints are not printed), type parameters after a def's name
#    or "fn " (PrintFunc: "def @id[A](", "fn [A]("), the Prelude's
#    functions (compose, flip, id, iterate, map): prelude.relay; parameters
#    and lets of function type and closures, without types (closures.relay)
#    and with InferType's (closures_typed.relay: "ty=" on a function value
#    after its '}', as PrintOptionalInfo adds it to a FunctionNode; calls of
#    a function-typed variable typed by its result), which is what
#    fmt --infer-types makes of closures.relay (below; closures_infer.golden).
for f in "$data"/modules/*.relay; do
    expect_status 0 "$GRAFT" fmt "$f"
    cmp -s "$tmp/out" "$f" || fail "fmt modules/$(basename "$f") is not byte for byte"
done
expect_status 0 "$GRAFT" fmt --infer-types "$data/modules/closures.relay"
cmp -s "$tmp/out" "$data/modules/closures_typed.relay" ||
    fail "fmt --infer-types closures.relay is not closures_typed.relay"

# fmt: stdout, -o, '-' for stdin, canonical output (syntax.in.relay's my.clip is a
# custom op, loaded by --allow-unknown-ops unchecked: note [models checked like rules])
expect_status 0 "$GRAFT" fmt --allow-unknown-ops "$data/syntax.in.relay"
cmp -s "$tmp/out" "$data/syntax.relay" || fail "fmt syntax.in.relay to stdout"
expect_status 0 "$GRAFT" fmt "$data/layout.in.relay" -o "$tmp/layout.relay"
cmp -s "$tmp/layout.relay" "$data/layout.relay" || fail "fmt -o"
[ -s "$tmp/out" ] && fail "fmt -o also wrote to stdout"
"$GRAFT" fmt - <"$data/bn_partitioned.relay" >"$tmp/stdin.relay" ||
    fail "fmt - exited $?"
cmp -s "$tmp/stdin.relay" "$data/bn_partitioned.relay" || fail "fmt -"
expect_status 0 "$GRAFT" fmt "$data/bn.relay" -o -
cmp -s "$tmp/out" "$data/bn.relay" || fail "fmt -o -"

# fmt onto its own input: refused as bad usage, the input left as it was
# (graft never modifies an input; see src/cli/main.c, cli_check_output)
cp "$data/layout.in.relay" "$tmp/inplace.relay"
expect_status 2 "$GRAFT" fmt "$tmp/inplace.relay" -o "$tmp/inplace.relay"
cmp -s "$tmp/inplace.relay" "$data/layout.in.relay" || fail "fmt onto its input changed it"

# bad input: exact diagnostics (the standard error of bad/NAME.golden,
# which tests/golden.sh checks without -o), status 1, no output written or
# clobbered
for golden in "$data"/bad/*.golden; do
    name=$(basename "$golden" .golden)
    golden_stderr "$golden" >"$tmp/want"
    echo "keep me" >"$tmp/kept.relay"
    (cd "$data/bad" && "$GRAFT" fmt "$name.relay" -o "$tmp/kept.relay") \
        >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 1 ] || fail "fmt bad/$name.relay exited $status"
    cmp -s "$tmp/err" "$tmp/want" || fail "fmt bad/$name.relay diagnostics differ"
    [ "$(cat "$tmp/kept.relay")" = "keep me" ] || fail "bad/$name.relay clobbered -o"
    [ -s "$tmp/out" ] && fail "bad/$name.relay wrote to stdout"
    (cd "$data/bad" && "$GRAFT" viz "$name.relay" -o "$tmp/bad.dot") \
        >/dev/null 2>&1
    [ $? -eq 1 ] || fail "viz bad/$name.relay did not exit 1"
    [ -e "$tmp/bad.dot" ] && fail "viz bad/$name.relay wrote a file"
done
expect_status 1 "$GRAFT" fmt "$tmp/no-such-file.relay"
grep -q "cannot read" "$tmp/err" || fail "missing file message"
leftovers=$(ls "$tmp" | grep -c '\.tmp\.')
[ "$leftovers" -eq 0 ] || fail "temporary files left behind"

# viz: the golden drawings (relay/viz_*.golden, which tests/golden.sh
# checks on standard output) through -o too, SVG with Graphviz, a clear
# message without it
# The drawings label nodes with their positions in the model, named as
# given: the goldens run in tests/relay, so here "$data/" is taken out.
for name in bn_partitioned double_bn_matches negative_chain_matches; do
    golden_stdout "$data/viz_$name.golden" >"$tmp/$name.dot"
done
unpath() { sed "s|$data/||g" "$1" >"$1.unpath" && mv "$1.unpath" "$1"; }
expect_status 0 "$GRAFT" viz "$data/bn_partitioned.relay"
unpath "$tmp/out"
cmp -s "$tmp/out" "$tmp/bn_partitioned.dot" || fail "viz dot output"
expect_status 0 "$GRAFT" viz "$data/bn_partitioned.relay" -o "$tmp/bn.dot"
unpath "$tmp/bn.dot"
cmp -s "$tmp/bn.dot" "$tmp/bn_partitioned.dot" || fail "viz -o .dot"
expect_status 0 "$GRAFT" viz "$data/bn.graft" "$data/double_bn.relay"
unpath "$tmp/out"
cmp -s "$tmp/out" "$tmp/double_bn_matches.dot" || fail "viz RULES MODEL output"
[ -s "$tmp/err" ] && fail "viz RULES MODEL wrote to stderr: $(cat "$tmp/err")"
# the old order, MODEL RULES...: the same drawing and a one-line note
expect_status 0 "$GRAFT" viz "$data/double_bn.relay" "$data/bn.graft"
unpath "$tmp/out"
cmp -s "$tmp/out" "$tmp/double_bn_matches.dot" || fail "viz MODEL RULES output"
echo "graft viz: note: 'graft viz MODEL RULES...' is deprecated; use 'graft viz RULES... MODEL'" |
    cmp -s - "$tmp/err" || fail "viz MODEL RULES: no deprecation note: $(cat "$tmp/err")"
printf 'bn := x +\n' >"$tmp/bad.graft"
expect_status 1 "$GRAFT" viz "$tmp/bad.graft" "$data/double_bn.relay" -o "$tmp/bad-rules.dot"
[ -e "$tmp/bad-rules.dot" ] && fail "viz with bad RULES wrote a file"
if command -v dot >/dev/null 2>&1; then
    expect_status 0 "$GRAFT" viz "$data/bn.relay" -o "$tmp/bn.svg"
    grep -q '<svg' "$tmp/bn.svg" || fail "viz -o .svg is not SVG"
fi
GRAFT_DOT="$tmp/no-dot-here" "$GRAFT" viz "$data/bn.relay" -o "$tmp/nodot.svg" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "viz without dot did not exit 1"
grep -q "is not installed" "$tmp/err" || fail "viz without dot message"
[ -e "$tmp/nodot.svg" ] && fail "viz without dot left a file"

# viz-marks bounds the (match, node) pairs one drawing highlights: the 4
# matches of twice_negative.graft on negative_chain.relay mark 2 nodes
# each, 8 in all.  At 8 the drawing is made; at 7 it fails with one line,
# status 1, and leaves neither the output nor a temporary file.
chain="$data/negative_chain.relay"
twice="$data/twice_negative.graft"
marks_error() {
    echo "graft: error: the matches of the rules mark more than $1 nodes in" \
        "the drawing; draw fewer rules or a smaller model [--limit viz-marks]"
}
# viz_marks STATUS LIMIT ENV [OPTIONS...]: graft viz of the chain with
# GRAFT_LIMITS=ENV ('-': unset) and OPTIONS, -o into an empty directory;
# checks the exit status, stderr (empty, or the error for LIMIT), stdout
# (empty) and the directory (the golden drawing alone, or nothing).
viz_marks() {
    want=$1 limit=$2 env=$3
    shift 3
    what="viz-marks $limit (GRAFT_LIMITS=$env $*)"
    rm -rf "$tmp/marks" && mkdir "$tmp/marks"
    (if [ "$env" = - ]; then unset GRAFT_LIMITS; else export GRAFT_LIMITS="$env"; fi
     exec "$GRAFT" viz "$twice" "$chain" -o "$tmp/marks/m.dot" "$@") \
        >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$what exited $got, expected $want"
    [ -s "$tmp/out" ] && fail "$what wrote to stdout"
    if [ "$want" -eq 0 ]; then
        [ -s "$tmp/err" ] && fail "$what wrote to stderr: $(cat "$tmp/err")"
        unpath "$tmp/marks/m.dot"
        cmp -s "$tmp/marks/m.dot" "$tmp/negative_chain_matches.dot" ||
            fail "$what drawing"
        [ "$(ls -A "$tmp/marks")" = "m.dot" ] || fail "$what left other files"
    else
        marks_error "$limit" | cmp -s - "$tmp/err" || fail "$what message: $(cat "$tmp/err")"
        [ -z "$(ls -A "$tmp/marks")" ] || fail "$what left files: $(ls -A "$tmp/marks")"
    fi
}
viz_marks 0 8 - --limit viz-marks=8
viz_marks 1 7 - --limit viz-marks=7
viz_marks 1 0 - --limit viz-marks=0
viz_marks 0 8 viz-marks=8
viz_marks 1 7 viz-marks=7
viz_marks 0 8 viz-marks=7 --limit viz-marks=8
viz_marks 1 7 viz-marks=8 --limit viz-marks=7
expect_status 0 "$GRAFT" limits --limit viz-marks=8
grep -qx 'viz-marks      8        1000000  0..1000000000        (match, node) pairs one graft viz drawing highlights' \
    "$tmp/out" || fail "graft limits viz-marks row"

# The default bound, 1,000,000 pairs, stops a 200-deep pattern on a
# 5,200-node chain (5,001 matches of 200 nodes: 1,000,200 pairs) before
# it fills memory; one node fewer marks exactly 1,000,000 and is drawn.
awk 'BEGIN { s = "x"; for (i = 0; i < 200; i++) s = "negative(" s ")";
             print "deep := " s " => x" }' >"$tmp/deep.graft"
awk 'BEGIN { print "def @main(%x) {"; print "  %0 = negative(%x);";
             for (i = 1; i < 5200; i++) printf "  %%%d = negative(%%%d);\n", i, i - 1;
             print "  %5199"; print "}" }' >"$tmp/chain5200.relay"
sed '/%5199 = /d; s/^  %5199$/  %5198/' "$tmp/chain5200.relay" >"$tmp/chain5199.relay"
expect_status 1 "$GRAFT" viz "$tmp/deep.graft" "$tmp/chain5200.relay" -o "$tmp/deep.dot"
marks_error 1000000 | cmp -s - "$tmp/err" || fail "default viz-marks message: $(cat "$tmp/err")"
[ -e "$tmp/deep.dot" ] && fail "viz past the default viz-marks wrote a file"
expect_status 0 "$GRAFT" viz "$tmp/deep.graft" "$tmp/chain5199.relay" -o "$tmp/deep.dot"
[ "$(grep -o 'deep #[0-9]*' "$tmp/deep.dot" 2>/dev/null | wc -l)" -eq 1000000 ] ||
    fail "viz at the default viz-marks does not mark 1000000 nodes"
rm -f "$tmp/deep.dot"

# the corpus through the command line: all 20 models, byte for byte
nmodels=0
for f in "$GRAFT_SRCDIR"/tests/corpus/*.relay; do
    [ -f "$f" ] || continue
    nmodels=$((nmodels + 1))
    "$GRAFT" fmt "$f" -o "$tmp/c.relay" || fail "fmt $f exited $?"
    cmp -s "$tmp/c.relay" "$f" || fail "fmt $f is not byte for byte"
done
[ "$nmodels" -eq 20 ] || fail "tests/corpus holds $nmodels models, expected 20"

expect_end ir_cli
