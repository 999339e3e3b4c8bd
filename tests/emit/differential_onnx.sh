#!/bin/sh
# differential_onnx.sh - a rewriter graft compile --exe builds from rules
# for ONNX gives what graft run gives (issue 28, note [one runtime] in
# src/runtime/ruleset.h), as tests/emit/differential.sh shows for Relay.
#
# Rule files: stdpatterns/onnx_fold_bn.graft, onnx_partition.graft,
# stdpatterns/onnx/merge.graft (rules of several roots: note [compiled
# roots] in src/compiler/emit_c_tables.c), tests/onnx/gap_to_reducemean.graft
# and tests/emit/onnx_attrs.graft (tensor, strings and graph attributes; a
# domain of its own) and onnx_if.graft (a new node the writer refuses);
# stdpatterns/onnx/conv.graft's PadFusion on tests/onnx/fusions/pad_fusions.onnxtxt;
# tests/golden/shared_subexpr/shared_onnx.graft on its shared.onnxtxt (actions
# that write a sub-expression twice: note [shared sub-expressions]);
# tests/golden/unknown_dims/dims.graft on its dims.onnxtxt (guards over
# unknown dims: note [unknown dims]).
# Each is compiled with -Wall -Wextra -Wpedantic -Werror, and the program
# and graft run meet every model of tests/onnx/ (binary), the input of
# tests/std/onnx_merge (where each rule of merge.graft fires once),
# tests/emit/onnx_attrs.onnxtxt and four corpus models converted to ONNX
# text: the same standard output
# (the model in ONNX text, or the trace and --stats=counts table when the
# model goes to -o OUT.onnx), the same standard error, the same exit
# status, and, with -o, the same .onnx file byte for byte.
#
# Bad input, with onnx_fold_bn.graft: every file of tests/onnx/bad/ and
# tests/onnx/text/ (the wire check, the graph check, the text parser), a
# model in the other format than its name says, a Relay model, a missing
# file, a model with an op the rules do not declare (with and without
# --allow-unknown-ops), --limit onnx-depth, and a rule set for Relay
# given an ONNX model: the same messages and status, nothing written.
# graft explain's --at on an ONNX node name, too (and on a match that the
# compiled action refuses), and a rewriter that graft compile --exe built
# itself.
#
# With GRAFT_SLOW_TESTS=0 (the sanitizer run) the large corpus models
# meet the first rule file only.
#
# Environment: GRAFT, GRAFT_SRCDIR, GRAFT_BUILDDIR (set by make check), CC.
. "${GRAFT_SRCDIR:?}/tests/emit/exe_env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/graft-emit-diff-onnx.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR" || exit 99

fail=0
nruns=0
slow=${GRAFT_SLOW_TESTS:-1}

$CC -std=c11 $GRAFT_CFLAGS -c "$GRAFT_SRCDIR/tests/emit/standalone_main.c" -o "$work/main.o" ||
    exit 99

# Builds $work/$2 from rule file $1 (named as graft run is given it, so
# that messages name it alike); false after printing why.
build() {
    if ! "$GRAFT" compile "$GRAFT_SRCDIR/$1" -o "$work/$2.c" 2>"$work/compile.err" ||
       ! $CC -std=c11 -O1 -Wall -Wextra -Wpedantic -Werror $GRAFT_CFLAGS \
             -c "$work/$2.c" -o "$work/$2.o" 2>>"$work/compile.err" ||
       ! $CC -o "$work/$2" "$work/main.o" "$work/$2.o" $GRAFT_LIBS 2>>"$work/compile.err"
    then
        echo "FAIL: $1: no rewriter built:"; cat "$work/compile.err"; fail=1
        return 1
    fi
}

# Runs "$@" into $1.out, $1.err and $1.rc.
run_one() {
    to=$1
    shift
    "$@" >"$to.out" 2>"$to.err"
    echo $? >"$to.rc"
}

# compare RULES PROG MODEL [ARGS...]: graft run RULES MODEL ARGS and PROG
# MODEL ARGS agree; with -o OUT among ARGS, OUT is written by each into a
# place of its own and compared too.  graft run's rule file warnings
# (first on its standard error) are left out.
compare() {
    r=$1 prog=$2 m=$3
    shift 3
    nruns=$((nruns + 1))
    last="$r on $m $*"
    "$GRAFT" check "$r" 2>"$work/warnings" >/dev/null
    skip=$(($(wc -c <"$work/warnings") + 1))
    rm -rf "$work/i" "$work/c"
    mkdir "$work/i" "$work/c"
    ( cd "$work/i" && run_one "$work/interp" "$GRAFT" run "$GRAFT_SRCDIR/$r" "$m" "$@" ) &
    ( cd "$work/c" && run_one "$work/comp" "$work/$prog" "$m" "$@" )
    wait
    tail -c +$skip "$work/interp.err" >"$work/interp.err2"
    mv "$work/interp.err2" "$work/interp.err"
    for part in rc out err; do
        if ! cmp -s "$work/interp.$part" "$work/comp.$part"; then
            echo "FAIL: $r on $m $*: compiled and interpreted differ ($part):"
            diff "$work/interp.$part" "$work/comp.$part" | head -10
            fail=1
            return
        fi
    done
    if ! diff -r "$work/i" "$work/c" >/dev/null; then
        echo "FAIL: $r on $m $*: the files written differ:"; diff -r "$work/i" "$work/c" | head -5
        fail=1
    fi
}

# want STATUS: the last comparison ended with STATUS, and wrote nothing
# unless it succeeded (so that a test of errors cannot pass on two
# successes, or on two failures of another cause).
want() {
    if [ "$(cat "$work/comp.rc")" != "$1" ]; then
        echo "FAIL: $last: exit status $(cat "$work/comp.rc"), not $1:"
        head -3 "$work/comp.err"
        fail=1
    elif [ "$1" != 0 ] && [ -n "$(ls "$work/c")" ]; then
        echo "FAIL: $last: a file written on an error: $(ls "$work/c")"; fail=1
    fi
}

# want_fired RE N WHAT: in the last compiled run's --stats=counts table,
# N rules whose names match RE fired once each, N rewrites in all.
want_fired() {
    fired=$(awk -v re="$1" '$1 ~ re && $4 == 1 { n++ } END { print n + 0 }' "$work/comp.err")
    if [ "$fired" != "$2" ] || ! grep -q "^total: $2 rewrites" "$work/comp.err"; then
        echo "FAIL: $3: $fired rules fired:"
        cat "$work/comp.err"
        fail=1
    fi
}

src=$GRAFT_SRCDIR
# Four corpus models in ONNX's text syntax.
for name in conv_bn tiny local_function encoder_op17; do
    "$GRAFT" fmt "tests/onnx/$name.onnx" -o "$work/$name.onnxtxt" || exit 99
done
small="$src/tests/onnx/conv_bn.onnx $src/tests/onnx/tiny.onnx $src/tests/onnx/attributes.onnx
       $src/tests/onnx/if_subgraph.onnx $src/tests/onnx/local_function.onnx
       $src/tests/std/onnx_merge/input.onnx $src/tests/golden/index_var/split.onnxtxt
       $src/tests/golden/shared_subexpr/shared.onnxtxt $src/tests/golden/unknown_dims/dims.onnxtxt
       $src/tests/emit/onnx_attrs.onnxtxt $work/conv_bn.onnxtxt $work/tiny.onnxtxt
       $work/local_function.onnxtxt $work/encoder_op17.onnxtxt"
large=""
for m in tests/onnx/*_op13.onnx tests/onnx/*_op17.onnx; do large="$large $src/$m"; done

first=1
for r in stdpatterns/onnx_fold_bn.graft stdpatterns/onnx_partition.graft \
         stdpatterns/onnx/merge.graft tests/onnx/gap_to_reducemean.graft tests/emit/onnx_attrs.graft tests/emit/onnx_if.graft \
         tests/golden/index_var/split_onnx.graft tests/golden/index_var/split_run.graft \
         tests/golden/shared_subexpr/shared_onnx.graft tests/golden/unknown_dims/dims.graft; do
    build "$r" prog || continue
    for m in $small; do
        case $m in *attributes.onnx|*if_subgraph.onnx|*/onnx_attrs.onnxtxt) ;; *) continue ;; esac
        compare "$r" prog "$m" --trace
    done
    for m in $small; do
        case $m in
        *attributes.onnx|*if_subgraph.onnx) continue ;; # ops the rules do not declare
        */onnx_attrs.onnxtxt) case $r in tests/emit/onnx_*) ;; *) continue ;; esac ;;
        esac
        status=0 # the one refusal: onnx_if.graft's new If
        case $r:$m in tests/emit/onnx_if.graft:*/onnx_attrs.onnxtxt) status=1 ;; esac
        compare "$r" prog "$m" --trace
        want $status
        compare "$r" prog "$m" -o out.onnx --stats=counts --trace
        want $status
    done
    if [ "$first" = 1 ] || [ "$slow" != 0 ]; then
        for m in $large; do
            compare "$r" prog "$m" -o out.onnx --stats=counts --trace
            want 0
        done
    fi
    first=0
done

# Bad input, the model check and explain, with the fold's rewriter.
build stdpatterns/onnx_fold_bn.graft fold || exit 1
r=stdpatterns/onnx_fold_bn.graft
for m in tests/onnx/bad/*.onnx tests/onnx/text/*.onnxtxt; do
    compare "$r" fold "$src/$m" -o out.onnx
    case $m in # parser_*: models onnx.parser reads; nesting: Ifs nested 2 deep;
               # quoted_op_type: op types quoted (note [quoted op types])
    */parser_*) ;;
    */nesting.onnxtxt | */quoted_op_type.onnxtxt) want 0 ;;
    *) want 1 ;;
    esac
done
cp tests/onnx/conv_bn.onnx "$work/binary.onnxtxt"
cp "$work/conv_bn.onnxtxt" "$work/text.onnx"
for m in "$work/binary.onnxtxt" "$work/text.onnx" "$src/tests/emit/small.relay" \
         "$work/missing.onnx"; do
    compare "$r" fold "$m" -o out.onnx
    want 1
done
compare "$r" fold "$src/tests/onnx/attributes.onnx" --allow-unknown-ops
want 0
compare "$r" fold "$src/tests/onnx/if_subgraph.onnx" --allow-unknown-ops -o out.onnx
want 0
# Ifs nested within the raised limit are read; the bomb's Ifs have no
# else_branch, which the import's inference of the outer one refuses
# (note [declared types checked] in src/onnx/onnx_import.c), alike.
compare "$r" fold "$src/tests/onnx/bad/nesting_bomb.onnx" --limit onnx-depth=1000 -o out.onnx
want 1
compare "$r" fold "$src/tests/onnx/conv_bn.onnx" --limit onnx-depth=4 -o out.onnx
want 1
compare "$r" fold "$src/tests/onnx/conv_bn.onnx" --at bn
want 0
compare "$r" fold "$src/tests/onnx/conv_bn.onnx" --at nothing
want 1
compare "$r" fold "$src/tests/onnx/conv_bn.onnx" --rule fold_conv_bn
want 0
# explain at a match the compiled action refuses (alpha=c, c a tensor of
# two elements): the rewriter names the attribute, as graft run does, from
# the rule's table of attributes given variables (graft_slot_attr).
r=tests/onnx/scalar_tensor/refused.graft
build "$r" refused || exit 1
compare "$r" refused "$src/tests/onnx/scalar_tensor/model.onnxtxt" --at y5
want 0
r=stdpatterns/onnx_fold_bn.graft
# graft compile --exe itself links an ONNX rewriter (libgraft.a with
# protobuf-c's library), which does what the one linked above does.
if ! "$GRAFT" compile --exe "$GRAFT_SRCDIR/$r" -o "$work/fold_exe" 2>"$work/exe.err"; then
    echo "FAIL: graft compile --exe $r:"; cat "$work/exe.err"; fail=1
else
    cp "$work/fold_exe" "$work/fold"
    compare "$r" fold "$src/tests/onnx/mobilenet_v2_op17.onnx" -o out.onnx --stats=counts
    want 0
fi
build tests/emit/small.graft relay || exit 1
compare tests/emit/small.graft relay "$src/tests/onnx/conv_bn.onnx" -o out.onnx
want 1

# The rules of several roots were compared where they rewrite: the
# compiled merge.graft fired all six of its rules, 6 rewrites in all
# (the comparison above found graft run's output the same).
r=stdpatterns/onnx/merge.graft
build "$r" merge || exit 1
compare "$r" merge "$src/tests/std/onnx_merge/input.onnx" -o out.onnx --stats=counts
want 0
want_fired '_(merge|share|concat)$' 6 "compiled merge.graft on tests/std/onnx_merge/input.onnx"

# PadFusion's guards and computed pads read a constant's elements
# (value(pads)[i], graft_gv_value_at in the compiled guard): the compiled
# conv.graft fires its six pad rules on tests/onnx/fusions/pad_fusions.onnxtxt
# and leaves its near misses, as graft run does.
r=stdpatterns/onnx/conv.graft
build "$r" conv || exit 1
compare "$r" conv "$src/tests/onnx/fusions/pad_fusions.onnxtxt" -o out.onnx --stats=counts
want 0
want_fired '^pad_' 6 "compiled conv.graft on pad_fusions.onnxtxt"

# The comparison can fail: a rewriter of other rules differs.
if ! "$GRAFT" run stdpatterns/onnx_partition.graft tests/onnx/conv_bn.onnx >"$work/p.out" ||
   ! "$work/fold" tests/onnx/conv_bn.onnx >"$work/f.out" || cmp -s "$work/p.out" "$work/f.out"
then
    echo "FAIL: the comparison is inert: folding and partitioning gave the same model"
    fail=1
fi

[ "$fail" = 0 ] && echo "differential_onnx: $nruns comparisons, compiled and interpreted agree"
exit $fail
