#!/bin/sh
# bench/o2build.sh - the -O2 build the benchmarks measure, under BUILD
# (bench-o2/ beside the user's build), so that the user's CFLAGS and
# sanitizers do not skew the numbers.  Used by bench/run.sh (make bench)
# and by make bench-e2e and make bench-corpus.
#
#   GRAFT_SRCDIR=SRC [MAKE=make] sh bench/o2build.sh BUILD [CFLAGS]
#
# Configures BUILD when it is new, when configure changed or when CFLAGS
# differ, then makes the generated sources.  configure will not build
# elsewhere from a source tree configured in place (the README's
# ./configure && make), so then BUILD is configured from a copy of the
# sources beside it (BUILD-src, made by make distdir each time: it keeps
# the files' times, so a later build remakes only what changed).  Prints
# nothing on success but make's errors.
set -eu

srcdir=${GRAFT_SRCDIR:?GRAFT_SRCDIR must name the source tree}
make=${MAKE:-make}
build=${1:?usage: o2build.sh BUILD [CFLAGS]}
cflags=${2:-"-O2 -g"} # empty: the default of make bench

cfgsrc=$srcdir
if [ -f "$srcdir/config.status" ]; then
    cfgsrc=$build-src
    rm -rf "$cfgsrc"
    $make -s -C "$srcdir" distdir distdir="$cfgsrc" >&2
fi
mkdir -p "$build"
if [ ! -f "$build/Makefile" ] || [ "$build/Makefile" -ot "$cfgsrc/configure" ] ||
   [ "$(cat "$build/.cflags" 2>/dev/null)" != "$cflags" ] ||
   [ "$(cat "$build/.srcdir" 2>/dev/null)" != "$cfgsrc" ]; then
    (cd "$build" && "$cfgsrc/configure" -q CFLAGS="$cflags" --disable-sanitizers)
    echo "$cfgsrc" > "$build/.srcdir"
    echo "$cflags" > "$build/.cflags"
fi
$make -s -C "$build" bench-built-sources >&2
