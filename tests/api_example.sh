#!/bin/sh
# api_example.sh - examples/api.c, the C API's example (doc/api.md), built
# against the built libgraft.so and against libgraft.a, prints exactly the
# matches, the rewritten model and a bad rule's diagnostic that follow;
# tests/api_threads.c passes (and under valgrind).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
test_tmpdir api_example
mk=$build/Makefile
CC=$(sed -n 's/^CC = //p' "$mk")
san=$(sed -n 's/^SANITIZER_CFLAGS = //p' "$mk")
libs="$(sed -n 's/^PROTOBUF_C_LIBS = //p' "$mk") $(sed -n 's/^LIBS = //p' "$mk")"

cat >"$tmp/want" <<'OUT'
bn at <output> (7:3): gamma=%gamma, x=%x, mean=%mean, var=%var, eps=1e-05f, beta=%beta
def @main(%gamma, %x, %mean, %var, %beta) {
  %0 = nn.batch_norm(%x, %gamma, %beta, %mean, %var, axis=-1);
  %0.0
}
bad.graft:1:6: unknown op 'addd'; did you mean 'add'?
OUT

# $1: how it links, then the link arguments.
check() {
    how=$1
    shift
    # shellcheck disable=SC2086
    if ! $CC -std=c11 -Wall -Wextra -Werror $san -I"$src/include/graft" \
        "$src/examples/api.c" -o "$tmp/api" "$@" $libs; then
        fail "examples/api.c does not build against $how"
        return
    fi
    (cd "$src/examples" && "$tmp/api" bn.relay) >"$tmp/got" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || ! cmp -s "$tmp/want" "$tmp/got"; then
        fail "examples/api.c against $how (exit $rc):"
        diff "$tmp/want" "$tmp/got"
    fi
}

check libgraft.so -L"$build/.libs" -lgraft -Wl,-rpath,"$build/.libs"
check libgraft.a "$build/libgraft.a"
# The shared library is the one the program ran with.
if command -v ldd >/dev/null 2>&1; then
    $CC $san -I"$src/include/graft" "$src/examples/api.c" -o "$tmp/api" \
        -L"$build/.libs" -lgraft -Wl,-rpath,"$build/.libs" $libs &&
        ldd "$tmp/api" | grep -q "libgraft.so.0 => $build/.libs/libgraft.so.0" ||
        fail "the example does not load the build tree's libgraft.so.0"
fi

# tests/api_threads.c: threads, a shared rule set, bad input of every
# kind; under valgrind too in a plain build (no leak, no error).
# shellcheck disable=SC2086
if $CC -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $san \
    -I"$src/include/graft" "$src/tests/api_threads.c" -o "$tmp/threads" \
    -L"$build/.libs" -lgraft -Wl,-rpath,"$build/.libs" -lpthread $libs; then
    "$tmp/threads" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "api_threads"; }
    grep -c '^ok ' "$tmp/out" | grep -qx 11 || { cat "$tmp/out"; fail "api_threads: not 11 ok lines"; }
    if [ -z "$san" ] && command -v valgrind >/dev/null 2>&1; then
        valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --error-exitcode=9 "$tmp/threads" >"$tmp/out" 2>&1 ||
            { cat "$tmp/out"; fail "api_threads under valgrind"; }
    fi
else
    fail "tests/api_threads.c does not build"
fi
[ "$failures" -eq 0 ] && echo "api_example: examples/api.c as expected with libgraft.so and libgraft.a;" \
    "api_threads.c passes"
[ "$failures" -eq 0 ]
