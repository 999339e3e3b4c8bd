#!/bin/sh
# engine_cli.sh - graft run and graft match as commands: exit statuses,
# --help, -o never leaving a partial file, --stats=counts, --trace.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
graft=$GRAFT
srcdir=$GRAFT_SRCDIR
case_dir=$srcdir/tests/golden/seed_bn_partition
. "$srcdir/tests/golden_format.sh"
status() { # expected status, graft arguments...
    want=$1
    shift
    "$graft" "$@" >"$tmp/out" 2>"$tmp/err"
    [ $? -eq "$want" ]
}

check "run --help" status 0 run --help
check "match --help" status 0 match --help
check "run without a model" status 2 run "$case_dir/rules.graft"
check "run with an unknown option" status 2 run --frobnicate "$case_dir/rules.graft" "$case_dir/input.relay"
check "run --max-rewrites 0 is bad usage" status 2 run --max-rewrites 0 "$case_dir/rules.graft" "$case_dir/input.relay"
check "match with an unknown option" status 2 match -x "$case_dir/rules.graft" "$case_dir/input.relay"

check "run -o writes the result" status 0 run "$case_dir/rules.graft" "$case_dir/input.relay" -o "$tmp/o.relay"
golden_stdout "$case_dir/seed_bn_partition.golden" >"$tmp/golden.relay"
check "run -o output is the golden output" cmp -s "$tmp/o.relay" "$tmp/golden.relay"

printf 'swap := x + y => y + x\n' >"$tmp/swap.graft"
check "no fixpoint exits 1" status 1 run "$tmp/swap.graft" "$case_dir/input.relay" -o "$tmp/none.relay"
check "no fixpoint leaves no output file" test ! -e "$tmp/none.relay"
check "no fixpoint names the rule" grep -q "rules still firing: swap (" "$tmp/err"

printf 'bad := nn.relu(x => x\n' >"$tmp/bad.graft"
check "bad rules exit 1" status 1 run "$tmp/bad.graft" "$case_dir/input.relay"
check "bad rules report file:line:col" grep -q "bad.graft:1:" "$tmp/err"
printf 'def @main(%%x) {\n  nn.relu(%%y)\n}\n' >"$tmp/bad.relay"
check "bad model exits 1" status 1 run "$case_dir/rules.graft" "$tmp/bad.relay"
check "bad model reports file:line:col" grep -q "bad.relay:2:" "$tmp/err"

check "--stats=counts" status 0 run --stats=counts "$case_dir/rules.graft" "$case_dir/input.relay"
printf 'rule    tried  matched  applied  refused  why\nbn          1        1        1        0  -\ntotal: 0 rewrites in 0 rounds, 1 groups; 12 labellings; automaton: 8 states, 8 transitions\n' >"$tmp/want"
check "--stats=counts prints the counts" cmp -s "$tmp/err" "$tmp/want"
check "--stats prints times" sh -c '"$1" run --stats "$2/rules.graft" "$2/input.relay" 2>&1 >/dev/null | grep -q "(time)"' sh "$graft" "$case_dir"

printf 'fold := negative(negative(x)) => x\n' >"$tmp/fold.graft"
printf 'def @main(%%x) {\n  %%0 = negative(%%x);\n  negative(%%0)\n}\n' >"$tmp/fold.relay"
check "--trace prints each rewrite" sh -c '"$1" run --trace "$2" "$3" 2>&1 >/dev/null | grep -q "^rewrite fold (.*fold.graft:1): <output> (.*fold.relay:3:3) => %x (.*fold.relay:1:11)$"' sh "$graft" "$tmp/fold.graft" "$tmp/fold.relay"
check "run reads the model from stdin" sh -c '"$1" run "$2" - <"$3" | grep -q "^  %x$"' sh "$graft" "$tmp/fold.graft" "$tmp/fold.relay"

# note [partition relabelling]: the second partition pass relabels only
# the first pass's new nodes (parameter, body, function, call) and exp,
# whose operand is now the call: 5 + 5 labellings, not 5 + 8.
printf 'a := nn.relu(x) => partition\nb := exp(x) => partition\n' >"$tmp/two.graft"
printf 'def @main(%%x) {\n  %%0 = nn.relu(%%x);\n  %%1 = exp(%%0);\n  %%2 = sqrt(%%1);\n  negative(%%2)\n}\n' >"$tmp/two.relay"
check "two partition passes" status 0 run --stats=counts "$tmp/two.graft" "$tmp/two.relay"
check "the second pass relabels only what changed" grep -q "^total: 0 rewrites in 0 rounds, 2 groups; 10 labellings;" "$tmp/err"

# A typed literal in an action: graft check and graft run accept the same
# ones and reject the others with the same error.
printf 'c := multiply(x, 1.5:float32) => add(x, 2:int64)\n' >"$tmp/typed.graft"
printf 'def @main(%%x) {\n  multiply(%%x, 1.5f)\n}\n' >"$tmp/typed.relay"
check "check accepts 2:int64 in an action" status 0 check "$tmp/typed.graft"
check "run builds 2i64 for 2:int64" sh -c '"$1" run "$2" "$3" | grep -q "^  add(%x, 2i64)$"' sh "$graft" "$tmp/typed.graft" "$tmp/typed.relay"
for bad in 1.5:int32 2:int8 3:bool; do
    printf 'c := multiply(x, 1.5:float32) => add(x, %s)\n' "$bad" >"$tmp/bad_typed.graft"
    check "check rejects $bad in an action" status 1 check "$tmp/bad_typed.graft"
    cp "$tmp/err" "$tmp/check_err"
    check "check names $bad's column" grep -q "bad_typed.graft:1:41: error: cannot make a constant of dtype" "$tmp/check_err"
    check "run rejects $bad in an action" status 1 run "$tmp/bad_typed.graft" "$tmp/typed.relay"
    check "run and check agree on $bad" cmp -s "$tmp/err" "$tmp/check_err"
done
printf 'c := multiply(x, 1.5:float32) => add(x, x:float32)\n' >"$tmp/bad_typed.graft"
check "check rejects a constrained variable in an action" status 1 check "$tmp/bad_typed.graft"
check "its error says what is wrong" grep -q "1:43: error: in an action only a number literal can be given a dtype" "$tmp/err"

# A node whose automaton state accepts no rule (the tuple here) has no
# candidate list; graft match once handed that NULL to memcpy (UBSan).
printf 'def @main(%%x) {\n  %%0 = negative(%%x);\n  (%%0,)\n}\n' >"$tmp/tuple.relay"
check "match skips nodes no rule can match" status 0 match "$tmp/fold.graft" "$tmp/tuple.relay"
check "and lists nothing there" test ! -s "$tmp/out"
check "match lists a match" status 0 match "$tmp/fold.graft" "$tmp/fold.relay"
check "its line" grep -qx "fold at <output> (.*fold.relay:3:3) negative: x=%x" "$tmp/out"

# A partitioned function whose body is 64 levels of x + x, each a diamond:
# the partition pass marks that body (partition.c mark_pre) visiting each
# node once, not once per path (2^64 of them), and leaves the model as it
# was (the bn rule matches no add).
awk 'BEGIN { print "def @main(%a) {"
             print "  %64 = fn (%p, PartitionedFromPattern=\"add_\") {"
             print "    %0 = add(%p, %p);"
             for (i = 1; i < 63; i++) printf "    %%%d = add(%%%d, %%%d);\n", i, i - 1, i - 1
             print "    add(%62, %62)"; print "  };"; print "  %64(%a)"; print "}" }' \
    >"$tmp/diamonds.relay"
check "fmt the diamonds" status 0 fmt "$tmp/diamonds.relay" -o "$tmp/diamonds_fmt.relay"
check "a partitioned body of 64 diamonds is passed over in time" \
    timeout 60 "$graft" run "$case_dir/rules.graft" "$tmp/diamonds.relay" -o "$tmp/diamonds_run.relay"
check "and comes out as it went in" cmp -s "$tmp/diamonds_run.relay" "$tmp/diamonds_fmt.relay"

expect_end engine_cli
