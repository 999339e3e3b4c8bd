# bench/measure.sh - the measuring functions the bench scripts share;
# sourced (`. "$srcdir/bench/measure.sh"`) after the script has set $work
# (its scratch directory) and $runs (how many runs best_ms takes).

# instructions CMD...: callgrind's instruction count of the whole process
# CMD, or - when valgrind is not installed.
instructions() {
    command -v valgrind >/dev/null 2>&1 || { echo -; return; }
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}

# best_ms DIGITS CMD...: the best wall time of $runs runs of CMD, in ms
# with DIGITS decimals.
best_ms() {
    digits=$1
    shift
    best=
    i=0
    while [ "$i" -lt "$runs" ]; do
        start=$(date +%s%N)
        "$@" >/dev/null
        end=$(date +%s%N)
        t=$((end - start))
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
        i=$((i + 1))
    done
    awk -v ns="$best" -v d="$digits" 'BEGIN { printf "%.*f", d, ns / 1e6 }'
}
