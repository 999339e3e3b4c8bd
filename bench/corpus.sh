#!/bin/sh
# bench/corpus.sh - issue 15's targets on the real models of the corpus,
# run by `make bench` after bench/e2e.sh (and alone by `make bench-corpus`).
#
# Two jobs, each `graft run` as a process on every model:
#   partition: stdpatterns/batchnorm_partition.graft on NAME.simplified.relay
#              (one group per decomposed batch norm);
#   rewrite:   stdpatterns/fold_bn.graft on NAME.relay (conv2d -> batch_norm
#              folded into the convolution's weights).
# Both fire on the five CNNs with batch norms and on nothing else; the
# other models still measure loading, labelling and printing.  For each
# run: instructions per op node in each phase (callgrind, counted as
# bench/e2e.sh counts them: bench/phases.sh), CPU time and peak resident
# memory (graft-bench spawn).  Then compiled against interpreted rules on
# the CNN models, as bench/bench_compiled.c measures them (note [corpus
# ratio]) and end to end (graft run against the rewriter `graft compile
# --exe` builds).  Then every target, per model and the worst.
#
# Small models weigh graft's fixed set-up (the builtin op registry, the
# rule file, the process) over few op nodes; the tables also show each
# figure beyond a run of the same job on a model of one op node.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree run.sh made),
# CORPUS (default: tests/corpus, else GRAFT_SHARED or ../shared beside the
# source tree, /corpus), BENCH_CORPUS_MODELS (the models of the two jobs,
# default all ten), BENCH_CORPUS_CNN (the models of the compiled
# comparison, default the eight CNNs), BENCH_CORPUS_COMPILED_RULES (rule
# files, relative to the source tree), GRAFT_BENCH_CFLAGS, CC.  Prints
# markdown on stdout.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the -O2 build tree}
models=${BENCH_CORPUS_MODELS:-"resnet18 resnet50 mobilenet_v2 densenet121 efficientnet_b0
        squeezenet1_0 vgg11 convnext_tiny vit_b_16 encoder"}
cnn_models=${BENCH_CORPUS_CNN:-"resnet18 resnet50 mobilenet_v2 densenet121 efficientnet_b0
            squeezenet1_0 vgg11 convnext_tiny"}
compiled_rules=${BENCH_CORPUS_COMPILED_RULES:-"bench/rules/models.graft stdpatterns/fold_bn.graft"}
cflags=${GRAFT_BENCH_CFLAGS:-"-O2 -g"}
graft=$build/graft
gb=$build/bench/graft-bench
# shellcheck source=bench/phases.sh
. "$srcdir/bench/phases.sh"
work=${TMPDIR:-/tmp}/graft-corpus.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT INT TERM

corpus=${CORPUS:-}
if [ -z "$corpus" ]; then
    for c in "$srcdir/tests/corpus" "${GRAFT_SHARED:-$srcdir/../shared}/corpus"; do
        [ -f "$c/resnet18.relay" ] && { corpus=$c; break; }
    done
fi
if [ -z "$corpus" ] || [ ! -d "$corpus" ]; then
    echo "bench: no corpus (set CORPUS)" >&2
    exit 1
fi
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "## Issue 15's targets on the corpus"
    echo
    echo "(not measured: valgrind's callgrind is not installed)"
    exit 0
fi

# ---- helpers ----

# profile OUT CMD ARGS...: CMD under callgrind; OUT.txt and OUT-callers.txt
# get the inclusive listings phases() reads.
profile() {
    out=$1
    shift
    valgrind -q --tool=callgrind --callgrind-out-file="$out.out" "$@" > /dev/null 2>&1 ||
        { echo "bench: failed under callgrind: $*" >&2; return 1; }
    # every function, however small its share (the default stops at 99%)
    callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$out.out" > "$out.txt" 2>/dev/null
    callgrind_annotate --inclusive=yes --threshold=100 --auto=no --tree=caller "$out.out" \
        > "$out-callers.txt" 2>/dev/null
}

# fastest CMD ARGS...: graft-bench spawn's line (status=, cpu_s=,
# maxrss_kb=) of the fastest of five runs.
fastest() {
    for _ in 1 2 3 4 5; do
        "$gb" spawn "$@" 2> /dev/null
    done | sort -t= -k3,3n | head -1
}

# applied JOB RULES MODEL: the groups (partition) or rewrites (rewrite)
# graft run made, from the total line of --stats=counts.
applied() {
    "$graft" run --stats=counts "$2" "$3" -o "$work/applied.relay" 2>&1 |
        awk -v job="$1" '$1 == "total:" {
            for (i = 2; i <= NF; i++) {
                w = $(i + 1); sub(/[,;]$/, "", w)
                if (job == "rewrite" && w == "rewrites") print $i
                if (job == "partition" && w == "groups") print $i
            } }'
}

rules_of() {
    case $1 in
    partition) echo "$srcdir/stdpatterns/batchnorm_partition.graft" ;;
    rewrite) echo "$srcdir/stdpatterns/fold_bn.graft" ;;
    esac
}

model_of() {
    case $1 in
    partition) echo "$corpus/$2.simplified.relay" ;;
    rewrite) echo "$corpus/$2.relay" ;;
    esac
}

# measure JOB NAME MODEL: one record of key=value pairs.
measure() {
    job_rules=$(rules_of "$1")
    job_ops=$("$gb" ops "$3" | sed 's/ops=\([0-9]*\).*/\1/')
    job_run=$(fastest "$graft" run "$job_rules" "$3" -o "$work/out.relay")
    profile "$work/cg" "$graft" run "$job_rules" "$3" -o "$work/out.relay"
    echo "job=$1 model=$2 ops=$job_ops bytes=$(wc -c < "$3")" \
         "applied=$(applied "$1" "$job_rules" "$3")" \
         "$(phases "$work/cg.txt" "$work/cg-callers.txt" "$1" |
            awk '{ printf("main=%s load=%s label=%s verify=%s pass=%s print=%s",
                          $1, $2, $3, $4, $5, $6) }') $job_run"
}

# ---- the two jobs on every model, and on a model of one op node ----
printf 'def @main(%%x) {\n  negative(%%x)\n}\n' > "$work/one.relay"
: > "$work/jobs.txt"
for job in partition rewrite; do
    echo "bench: corpus, $job, a model of one op node" >&2
    measure "$job" one "$work/one.relay" >> "$work/jobs.txt"
    for m in $models; do
        echo "bench: corpus, $job, $m" >&2
        measure "$job" "$m" "$(model_of "$job" "$m")" >> "$work/jobs.txt"
    done
done

# ---- compiled against interpreted on the CNN models ----
compiled=yes
batch=10 # BATCH in bench_compiled.c: the runs callgrind counts of each form
: > "$work/compiled.txt"
objs=""
for o in bench_run bench_block bench_model bench_rules bench_baseline bench_measure \
         bench_flat; do
    objs="$objs $build/bench/$o.o"
done
inc="-I$srcdir/include/graft -I$srcdir/src/base -I$srcdir/src/ir -I$srcdir/src/runtime"
inc="$inc -I$srcdir/src/compiler -I$srcdir/src/relay -I$srcdir/bench"
# shellcheck disable=SC2086
${CC:-cc} $cflags $inc -c "$srcdir/bench/bench_compiled.c" -o "$work/bench_compiled.o" \
    2>> "$work/compile.log" || compiled=no
for r in $compiled_rules; do
    [ "$compiled" = yes ] || break
    rules=$srcdir/$r
    echo "bench: corpus, $r compiled and interpreted" >&2
    paths=""
    for m in $cnn_models; do
        paths="$paths $corpus/$m.relay"
    done
    # shellcheck disable=SC2086
    { "$graft" compile "$rules" -o "$work/rules.c" --name bench_rules &&
      ${CC:-cc} $cflags $inc -c "$work/rules.c" -o "$work/rules.o" &&
      ${CC:-cc} -o "$work/cb" "$work/bench_compiled.o" "$work/rules.o" $objs \
          "$build/libgraftc.a" "$build/libgraft_runtime.a" "$build/libgraft_onnx.a" \
          -lprotobuf-c "$build/libgraft_relay.a" "$build/libgraft_ir.a" \
          "$build/libgraft_base.a" -lm &&
      "$graft" compile --exe "$rules" -o "$work/rewriter" &&
      "$work/cb" corpus "$rules" $paths > "$work/engine.txt"; } 2>> "$work/compile.log" ||
        { compiled=no; break; }
    for m in $cnn_models; do
        model=$corpus/$m.relay
        GRAFT_BENCH_ONCE=1 profile "$work/cgc" "$work/cb" corpus "$rules" "$model"
        profile "$work/cgi" "$graft" run "$rules" "$model" -o "$work/interp.relay"
        profile "$work/cgx" "$work/rewriter" "$model" -o "$work/compiled.relay"
        same=no
        cmp -s "$work/interp.relay" "$work/compiled.relay" && same=yes
        echo "rules=$r $(grep " model=$m " "$work/engine.txt" | cut -d' ' -f2-)" \
             "interp_ir=$(( $(incl "$work/cgc.txt" form_interpreted) / batch ))" \
             "compiled_ir=$(( $(incl "$work/cgc.txt" form_compiled) / batch ))" \
             "run_ir=$(incl "$work/cgi.txt" main) exe_ir=$(incl "$work/cgx.txt" main)" \
             "run_cpu=$(fastest "$graft" run "$rules" "$model" -o "$work/interp.relay" |
                        sed 's/.*cpu_s=\([0-9.]*\).*/\1/')" \
             "exe_cpu=$(fastest "$work/rewriter" "$model" -o "$work/compiled.relay" |
                        sed 's/.*cpu_s=\([0-9.]*\).*/\1/')" \
             "same_output=$same" >> "$work/compiled.txt"
    done
done

# ---- tables ----
awk -v corpus="$corpus" -f "$srcdir/bench/corpus.awk" \
    "$work/jobs.txt" "$work/compiled.txt"
if [ "$compiled" = no ]; then
    echo
    echo "Compiled rules: a rule set did not compile, link or run; first lines of the messages:"
    echo
    echo '```'
    head -5 "$work/compile.log"
    echo '```'
fi
