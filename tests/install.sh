#!/bin/sh
# install.sh - graft installed three ways gives a working graft, graft.pc
# and graft compile --exe (note [build tree or install] in
# src/compiler/exe_paths.h): `./configure --prefix=C && make install`,
# `make install DESTDIR=D` and `make install prefix=P` (a prefix other
# than the configured one), all in a fresh copy of the sources made by
# make distdir (GRAFT_SLOW_TESTS=0 skips the three).  Each install builds
# and runs a rewriter with compile --exe and one through pkg-config (with
# libgraft.so, and with libgraft.a and graft.pc's Libs.private), with no
# GRAFT_CFLAGS or GRAFT_LIBS to help; after the first, the Python package
# installed in a fresh venv finds the installed libgraft.so.0 by itself.
# Then `./graft compile --exe` from the build tree does the same.  Everything goes to a temporary
# directory.
#
# Never `make install` in the build tree: install depends on all, so
# after a source edit it relinks ./graft while other tests of the same
# make check run it (fuzz/differential.sh failed with exit 126 that way).
# The test checks at the end that the build tree's graft and libraries
# were not written while it ran.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
test_tmpdir graft-install
unset GRAFT_CFLAGS GRAFT_LIBS GRAFT_CC MAKEFLAGS MFLAGS MAKELEVEL
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config is not installed"; exit 77; }

mk=$build/Makefile
touch "$tmp/stamp" || exit 99
san=$(sed -n 's/^SANITIZER_CFLAGS = //p' "$mk")
CC=$(sed -n 's/^CC = //p' "$mk")
cp "$src/examples/bn.graft" "$src/examples/bn.relay" "$tmp/" || exit 99
"$GRAFT" run "$tmp/bn.graft" "$tmp/bn.relay" >"$tmp/want" || exit 99
# A program of its own on graft.h's functions (doc/compile.md).
cat >"$tmp/main.c" <<'EOF'
#include "graft.h"
extern const graft_rule_set bn_rules;
int main(int argc, char **argv)
{
    graft_diag *d = graft_diag_new(stderr);
    graft_graph *g = argc == 2 ? graft_model_load(argv[1], NULL, d) : NULL;
    graft_engine *e = g ? graft_engine_new(&bn_rules, g, NULL) : NULL;
    int ok = e && graft_engine_run(e, d);
    if (ok)
        graft_model_print(g, stdout);
    if (e)
        graft_engine_free(e);
    if (g)
        graft_model_free(g);
    graft_diag_free(d);
    return ok ? 0 : 1;
}
EOF

# works NAME GRAFT [PKG_CONFIG ENVIRONMENT...]: the graft at GRAFT builds
# rewriters that print the expected output, by itself and (when an
# environment is given) through the graft.pc that pkg-config finds in it.
works() {
    name=$1 g=$2
    shift 2
    [ -x "$g" ] || { fail "$name: no graft at $g"; return; }
    out=$tmp/$name
    mkdir -p "$out" || return
    if "$g" compile --exe "$tmp/bn.graft" -o "$out/prog" 2>"$out/err"; then
        "$out/prog" "$tmp/bn.relay" | cmp -s - "$tmp/want" ||
            fail "$name: the compiled rewriter prints something else"
    else
        fail "$name: compile --exe: $(cat "$out/err")"
    fi
    [ $# -eq 0 ] && return
    cflags=$(env "$@" pkg-config --cflags graft) && libs=$(env "$@" pkg-config --libs graft) ||
        { fail "$name: pkg-config does not find graft.pc"; return; }
    # shellcheck disable=SC2086
    "$g" compile "$tmp/bn.graft" -o "$out/rules.c" --name bn_rules &&
        $CC $san $cflags -c "$out/rules.c" -o "$out/rules.o" &&
        $CC $san $cflags -c "$tmp/main.c" -o "$out/main.o" &&
        $CC $san -o "$out/prog2" "$out/main.o" "$out/rules.o" $libs ||
        { fail "$name: cannot build with pkg-config's flags ($cflags / $libs)"; return; }
    # graft.pc links libgraft.so with an rpath to its libdir, where a
    # DESTDIR install is not yet.
    ldpath=
    [ "$name" = destdir ] && ldpath=$d$c/lib
    LD_LIBRARY_PATH=$ldpath "$out/prog2" "$tmp/bn.relay" | cmp -s - "$tmp/want" ||
        fail "$name: the program built with pkg-config prints something else"
    # libgraft.a as doc/api.md links it: its directory from graft.pc, then
    # what it needs (ONNX's protobuf-c, libm; graft.pc's Libs.private)
    lib=$(env "$@" pkg-config --variable=libdir graft)
    case $lib in "${PKG_SYSROOT:-}"/*) ;; *) lib=${PKG_SYSROOT:-}$lib ;; esac
    private=$(env "$@" pkg-config --static --libs-only-l graft | sed 's/-lgraft\>//')
    # shellcheck disable=SC2086
    $CC $san -o "$out/prog3" "$out/main.o" "$out/rules.o" "$lib/libgraft.a" \
        $private ||
        { fail "$name: cannot link libgraft.a with graft.pc's Libs.private ($private)"; return; }
    "$out/prog3" "$tmp/bn.relay" | cmp -s - "$tmp/want" ||
        fail "$name: the program linked with libgraft.a prints something else"
}

# python_installed: the Python package (python/), installed in a fresh
# venv from the copy's build tree, loads the libgraft.so.0 that make
# install put in C/lib once the build tree's is gone (python/setup.py
# records both; no variable set) and runs the example.
python_installed() {
    py=/usr/bin/python3
    for mod in venv pip setuptools; do
        "$py" -c "import $mod" 2>/dev/null ||
            { echo "install.sh: python3-$mod missing: the package's install not tried"; return; }
    done
    "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/log" 2>&1 &&
        GRAFT_BUILDDIR=$tmp/src "$tmp/venv/bin/pip" install -q --no-build-isolation \
            --no-index "$tmp/src/python" >>"$tmp/log" 2>&1 ||
        { cat "$tmp/log"; fail "pip install of the copy's python/"; return; }
    mv "$tmp/src/.libs" "$tmp/src/.libs-moved" || return
    # shellcheck disable=SC2016
    got=$(cd "$tmp" && env -u GRAFT_LIBRARY PYTHONDONTWRITEBYTECODE=1 "$tmp/venv/bin/python" -c '
import sys, graft, graft._core
r = graft.Rules.from_file(sys.argv[1])
sys.stdout.write(graft._core._LIB._name + "\n" + r.run(sys.argv[2]))' "$tmp/bn.graft" "$tmp/bn.relay")
    mv "$tmp/src/.libs-moved" "$tmp/src/.libs"
    printf '%s\n' "$c/lib/libgraft.so.0" | cat - "$tmp/want" >"$tmp/want_py"
    printf '%s\n' "$got" | cmp -s - "$tmp/want_py" ||
        fail "the Python package after make install: got '$(echo "$got" | head -1)'"
}

# The copy: configured with --prefix=C and built once, plain (no sanitizer),
# and unoptimized: what is tested is where make install puts things and
# that they find each other, not the code the compiler makes, and at -O0
# the test took 100 s of CPU against 150 s at autoconf's default -O2.
if [ "${GRAFT_SLOW_TESTS:-1}" != 0 ]; then
    c=$tmp/configured
    if make -s -C "$build" distdir distdir="$tmp/src" >"$tmp/log" 2>&1 &&
       (cd "$tmp/src" && ./configure -q --prefix="$c" CFLAGS="-O0" && make -s -j2) \
           >"$tmp/log" 2>&1; then
        san= # the copy is a plain build
        # 1. make install: graft.pc and compile --exe point at C.
        make -s -C "$tmp/src" install >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make install"; }
        grep -qx "prefix=$c" "$c/lib/pkgconfig/graft.pc" || fail "configure --prefix: graft.pc"
        works configured "$c/bin/graft" PKG_CONFIG_LIBDIR="$c/lib/pkgconfig"
        python_installed

        # 2. make install DESTDIR=D: pkg-config finds it with a sysroot.
        d=$tmp/destdir
        make -s -C "$tmp/src" install DESTDIR="$d" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make install DESTDIR"; }
        grep -qx "prefix=$c" "$d$c/lib/pkgconfig/graft.pc" || fail "DESTDIR: graft.pc's prefix"
        PKG_SYSROOT=$d
        works destdir "$d$c/bin/graft" PKG_CONFIG_SYSROOT_DIR="$d" \
            PKG_CONFIG_LIBDIR="$d$c/lib/pkgconfig"
        PKG_SYSROOT=

        # 3. make install prefix=P: graft.pc and graft compile --exe point at P.
        p=$tmp/prefix
        make -s -C "$tmp/src" install prefix="$p" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make install prefix"; }
        grep -qx "prefix=$p" "$p/lib/pkgconfig/graft.pc" || fail "prefix=: graft.pc's prefix is not $p"
        works prefix "$p/bin/graft" PKG_CONFIG_LIBDIR="$p/lib/pkgconfig"
        # ... and moved elsewhere as a whole, compile --exe still finds libgraft
        mv "$p" "$tmp/moved"
        works moved "$tmp/moved/bin/graft"
        san=$(sed -n 's/^SANITIZER_CFLAGS = //p' "$mk")
    else
        tail -n 20 "$tmp/log"
        fail "make distdir, ./configure --prefix && make in the copy"
    fi
else
    echo "install.sh: the three installs skipped (GRAFT_SLOW_TESTS=0)"
fi

# 4. The build tree's graft: its own headers and libgraft, nothing installed.
mkdir "$tmp/build" || exit 99
if (cd "$tmp/build" && "$GRAFT" compile --exe "$tmp/bn.graft" -o fold 2>err); then
    "$tmp/build/fold" "$tmp/bn.relay" | cmp -s - "$tmp/want" ||
        fail "build tree: the compiled rewriter prints something else"
else
    fail "build tree: compile --exe: $(cat "$tmp/build/err")"
fi

# Nothing above may have rebuilt the build tree (the comment at the top).
for f in "$GRAFT" "$build"/libgraft*.a; do
    [ -e "$f" ] && [ "$f" -nt "$tmp/stamp" ] && fail "$f was rebuilt while install.sh ran"
done

echo "install.sh: $failures failed"
[ "$failures" -eq 0 ]
