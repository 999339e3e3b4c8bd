#!/bin/sh
# valgrind.sh - memcheck pass: every golden case through the graft binary,
# and every Check program in-process (CK_FORK=no), must show zero errors and
# zero leaks.  Run from the build directory (make valgrind-check).
# Prints one line per run and "valgrind: N passed, N failed".
set -u
srcdir=${GRAFT_SRCDIR:?}
out=tests/valgrind
mkdir -p "$out"
export GRAFT_SLOW_TESTS=0 # the million-node cases take minutes under valgrind
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
pass=0
fail=0

verdict() { # name status
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "PASS: $1"
    else fail=$((fail + 1)); echo "FAIL: $1 (see $out/$1.log)"; fi
}

for dir in "$srcdir"/tests/golden/*/; do
    [ -f "$dir/cmd" ] || continue
    name=golden-$(basename "$dir")
    # cmd holds the graft arguments, relative to the case directory.
    args=$(cat "$dir/cmd")
    ( cd "$dir" && eval "$vg \"\$GRAFT\" $args" ) >"$out/$name.out" 2>"$out/$name.log"
    status=$?
    [ $status -eq 0 ] && ! cmp -s "$out/$name.out" "$dir/expected.relay" && status=1
    verdict "$name" $status
done

for prog in tests/check_*; do
    case $prog in *.c|*.o|*.log|*.trs) continue ;; esac
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    CK_FORK=no $vg "$prog" >"$out/$name.log" 2>&1
    verdict "$name" $?
done

echo "valgrind: $pass passed, $fail failed" | tee "$out/summary.log"
[ "$fail" -eq 0 ]
