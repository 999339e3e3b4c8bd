#!/bin/sh
# bench/onnx_fmt.sh - graft fmt MODEL.onnx -o OUT.onnx beside python3-onnx's
# onnx.load + SerializeToString (C++ protobuf) on the same file, the
# largest of tests/onnx/ unless BENCH_ONNX_MODEL names another; then
# ONNX's text syntax on the same model: printing it (graft fmt MODEL.onnx
# -o OUT.onnxtxt) and reading it back (graft fmt OUT.onnxtxt -o
# BACK.onnx), with their instructions per node; and the peak memory of
# graft fmt MODEL.onnx -o OUT.onnx on every corpus model against the
# bound "file size + 300 bytes per node" beyond graft's own; run by `make
# bench` after the other benchmarks, alone by `make bench-onnx`.
#
# For each side: instructions (callgrind; Python's net of an interpreter
# that only imports onnx, so both count the work alone), CPU time (user +
# system) per run over BENCH_ONNX_RUNS runs (graft: the whole process, from
# the shell's `times`; Python: inside the process, without its start, from
# time.process_time) and the best wall time, and peak resident memory (GNU
# time's maximum RSS: the whole process for both; Python's work also once
# in a fresh process each run, as graft fmt does it; for the memory bound,
# massif's heap peak too).  Prints markdown.
#
# Environment: GRAFT_SRCDIR, BENCH_BUILD (the -O2 build tree), BENCH_ONNX_MODEL,
# BENCH_ONNX_RUNS (default 20), BENCH_ONNX_RSS_RUNS (runs of each peak
# memory figure, default 5).  Needs valgrind, GNU time (/usr/bin/time)
# and python3-onnx; a missing one leaves its column out, said so.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
build=${BENCH_BUILD:?BENCH_BUILD must name the build tree}
model=${BENCH_ONNX_MODEL:-$(ls -S "$srcdir"/tests/onnx/*.onnx | head -n 1)}
runs=${BENCH_ONNX_RUNS:-20}
rss_runs=${BENCH_ONNX_RSS_RUNS:-5}
graft=$build/graft
work=$(mktemp -d "${TMPDIR:-/tmp}/graft-onnx-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
. "$srcdir/bench/measure.sh"

python=
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import onnx' >/dev/null 2>&1; then python=$candidate; break; fi
done

cat >"$work/py_time.py" <<'PY'
import sys, time, onnx
path, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
best = float("inf")
cpu = time.process_time()
for _ in range(runs):
    start = time.perf_counter()
    data = onnx.load(path).SerializeToString()
    with open(out, "wb") as f:
        f.write(data)
    best = min(best, time.perf_counter() - start)
cpu = time.process_time() - cpu
print(f"{cpu * 1000 / runs:.2f} | {best * 1000:.2f}")
PY
printf 'import sys, onnx\nopen(sys.argv[2], "wb").write(onnx.load(sys.argv[1]).SerializeToString())\n' \
    >"$work/py_once.py"
# The same work once in a fresh interpreter, as graft fmt does it once a
# process: its CPU and wall time from after the import to the file
# written (the interpreter's start and the import left out).
cat >"$work/py_cold.py" <<'PY'
import sys, time, onnx
cpu, start = time.process_time(), time.perf_counter()
data = onnx.load(sys.argv[1]).SerializeToString()
with open(sys.argv[2], "wb") as f:
    f.write(data)
print(f"{(time.process_time() - cpu) * 1000:.3f} {(time.perf_counter() - start) * 1000:.3f}")
PY
printf 'import sys, onnx\n' >"$work/py_import.py"

# cpu_ms CMD...: user + system CPU time of $runs runs of CMD, per run, in
# ms (the children's times the shell reports, 10 ms ticks summed over the
# runs).
# (`times` runs in the shell that ran the commands, not in a $(...) of
# its own, whose children would be none.)
children_s() {
    tail -n 1 "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/);
        t += a[1] * 60 + a[2] } printf "%.3f", t }'
}
cpu_ms() {
    times >"$work/times.before"
    i=0
    while [ "$i" -lt "$runs" ]; do "$@" >/dev/null; i=$((i + 1)); done
    times >"$work/times.after"
    awk -v a="$(children_s "$work/times.after")" -v b="$(children_s "$work/times.before")" \
        -v n="$runs" 'BEGIN { printf "%.2f", (a - b) * 1000 / n }'
}

# max_rss CMD...: GNU time's peak resident memory of CMD, in KiB.
max_rss() {
    /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null && cat "$work/rss"
}

# least_rss CMD...: the least of max_rss over $rss_runs runs of CMD,
# with address space randomisation off (util-linux's setarch -R) where
# setarch is.  With it on, one command's peak varies by up to 350 KiB
# from run to run on this machine (tiny.onnx: 2,584 to 2,932 KiB, the
# pages its mappings happen to straddle), more than the memory bound
# allows the small models; with it off, every run gives the same number.
if setarch -R true >/dev/null 2>&1; then norandom="setarch -R"; else norandom=; fi
least_rss() {
    best=
    for _ in $(seq "$rss_runs"); do
        r=$($norandom /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null && cat "$work/rss")
        if [ -z "$best" ] || [ "$r" -lt "$best" ]; then best=$r; fi
    done
    echo "$best"
}

bytes=$(wc -c <"$model")
echo "## ONNX: graft fmt against onnx.load + SerializeToString"
echo
echo "Model: $(basename "$model"), $bytes bytes."
echo
echo "| | instructions | CPU time per run (ms) | best wall time (ms) | peak RSS (KiB) |"
echo "|---|---:|---:|---:|---:|"
g_ins=-; p_ins=-; g_rss=-; p_rss=-
if command -v valgrind >/dev/null 2>&1; then
    g_ins=$(instructions "$graft" fmt "$model" -o "$work/g.onnx")
fi
[ -x /usr/bin/time ] && g_rss=$(max_rss "$graft" fmt "$model" -o "$work/g.onnx")
g_ms=$(best_ms 2 "$graft" fmt "$model" -o "$work/g.onnx")
g_cpu=$(cpu_ms "$graft" fmt "$model" -o "$work/g.onnx")
cmp -s "$model" "$work/g.onnx" || echo "graft's output differs from the input!"
echo "| graft fmt (the whole process) | $g_ins | $g_cpu | $g_ms | $g_rss |"
if [ -n "$python" ]; then
    if command -v valgrind >/dev/null 2>&1; then
        full=$(instructions "$python" "$work/py_once.py" "$model" "$work/p.onnx")
        base=$(instructions "$python" "$work/py_import.py")
        p_ins=$((full - base))
    fi
    [ -x /usr/bin/time ] && p_rss=$(max_rss "$python" "$work/py_once.py" "$model" "$work/p.onnx")
    p_ms=$("$python" "$work/py_time.py" "$model" "$work/p.onnx" "$runs")
    echo "| python3 onnx.load + SerializeToString (the work alone, repeated in one process) | $p_ins | $p_ms | $p_rss |"
    i=0
    : >"$work/cold"
    while [ "$i" -lt "$runs" ]; do
        "$python" "$work/py_cold.py" "$model" "$work/p.onnx" >>"$work/cold"
        i=$((i + 1))
    done
    awk '{ cpu += $1; if (NR == 1 || $2 < best) best = $2 }
        END { printf "| python3 onnx.load + SerializeToString (the work alone, once in a fresh process) | | %.2f | %.2f | |\n", cpu / NR, best }' "$work/cold"
    [ -x /usr/bin/time ] &&
        echo "| python3 importing onnx only | | | | $(max_rss "$python" "$work/py_import.py") |"
else
    echo "| python3-onnx | not installed | | | |"
fi

# count_nodes TEXT: the nodes of a model printed in ONNX's text syntax:
# lines of a graph's node list (between a line ending in '{' and the line
# '}' that closes it), nested graphs' included.
count_nodes() {
    awk '/\{$/ { inside = 1; next } /^}/ { inside = 0 } inside && / = / { n++ }
        END { print n + 0 }' "$1"
}

# The memory bound (issue 28): graft fmt MODEL.onnx -o OUT.onnx's peak
# memory beyond graft's own (the same command on the one-node
# tests/onnx/tiny.onnx: the program, its libraries and its fixed
# buffers), against the file's size plus 300 bytes per node, on every
# model of tests/onnx/ over 100 KB (the corpus; the hand-written ones are
# the baseline's size).  Judged by the heap's peak as valgrind's massif
# counts it (every byte graft allocates, and malloc's overhead: exact and
# the same on every run); peak RSS beside it, whose figures here move in
# steps of 64 KiB (the kernel's resident-page counters are approximate),
# while the bound beyond the file is 18 to 129 KiB.
# heap_peak CMD...: the largest heap + overhead of massif's snapshots.
heap_peak() {
    valgrind --tool=massif --massif-out-file="$work/massif" "$@" >/dev/null 2>&1 &&
        awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { if (h + $2 > p) p = h + $2 }
            END { print p + 0 }' "$work/massif"
}
if [ -x /usr/bin/time ] && command -v valgrind >/dev/null 2>&1; then
    echo
    echo "### Peak memory of graft fmt MODEL.onnx -o OUT.onnx against file size + 300 B per node"
    echo
    base=$(heap_peak "$graft" fmt "$srcdir/tests/onnx/tiny.onnx" -o "$work/g.onnx")
    base_rss=$(least_rss "$graft" fmt "$srcdir/tests/onnx/tiny.onnx" -o "$work/g.onnx")
    echo "graft fmt tiny.onnx -o OUT.onnx (one node), the baseline: a heap peak of $base bytes,"
    echo "$base_rss KiB peak RSS (the least of $rss_runs runs${norandom:+, address space randomisation off})."
    echo
    echo "| model | bytes | nodes | heap peak beyond the baseline (bytes) | bound (bytes) | holds | peak RSS beyond the baseline (KiB) |"
    echo "|---|---:|---:|---:|---:|---|---:|"
    for m in $(ls -S "$srcdir"/tests/onnx/*.onnx); do
        size=$(wc -c <"$m")
        [ "$size" -gt 100000 ] || continue
        "$graft" fmt "$m" -o "$work/m.onnxtxt"
        n=$(count_nodes "$work/m.onnxtxt")
        heap=$(heap_peak "$graft" fmt "$m" -o "$work/g.onnx")
        rss=$(least_rss "$graft" fmt "$m" -o "$work/g.onnx")
        awk -v m="$(basename "$m")" -v size="$size" -v n="$n" -v heap="$heap" -v base="$base" \
            -v rss="$rss" -v base_rss="$base_rss" '
            BEGIN { beyond = heap - base; bound = size + 300 * n
                    printf "| %s | %d | %d | %d | %d | %s | %d |\n", m, size, n, beyond, bound,
                        beyond <= bound ? "yes" : "no", rss - base_rss }'
    done
fi

# ONNX's text syntax: printing the model, and reading the text back.
"$graft" fmt "$model" -o "$work/t.onnxtxt"
nodes=$(count_nodes "$work/t.onnxtxt")
echo
echo "### ONNX's text syntax on the same model"
echo
echo "$nodes nodes; the text is $(wc -c <"$work/t.onnxtxt") bytes."
echo
echo "| graft fmt | instructions | per node | CPU time per run (ms) | best wall time (ms) | peak RSS (KiB) |"
echo "|---|---:|---:|---:|---:|---:|"
for step in print parse; do
    if [ "$step" = print ]; then
        set -- fmt "$model" -o "$work/t2.onnxtxt"
        label="print: graft fmt $(basename "$model") -o t.onnxtxt"
    else
        set -- fmt "$work/t.onnxtxt" -o "$work/back.onnx"
        label="parse: graft fmt t.onnxtxt -o back.onnx"
    fi
    ins=-; per=-; rss=-
    if command -v valgrind >/dev/null 2>&1; then
        ins=$(instructions "$graft" "$@")
        per=$((ins / (nodes > 0 ? nodes : 1)))
    fi
    [ -x /usr/bin/time ] && rss=$(max_rss "$graft" "$@")
    ms=$(best_ms 2 "$graft" "$@")
    cpu=$(cpu_ms "$graft" "$@")
    echo "| $label | $ins | $per | $cpu | $ms | $rss |"
done
cmp -s "$model" "$work/back.onnx" || echo "the model read back from its text differs from the input!"
