# exe_env.sh - sourced by the tests that build rewriters with graft
# compile --exe against the build tree (tests/emit/differential.sh,
# tests/emit/deep_guard.sh): the include and library flags, with the
# sanitizer flags of a sanitizer build (its libgraft.a needs them at link
# time too).
set -u
: "${GRAFT:?}" "${GRAFT_SRCDIR:?}" "${GRAFT_BUILDDIR:?}"
CC=${CC:-cc}
san=$(sed -n 's/^SANITIZER_CFLAGS = //p' "$GRAFT_BUILDDIR/Makefile" 2>/dev/null)
GRAFT_CFLAGS="-I$GRAFT_SRCDIR/include/graft ${san:-}"
GRAFT_LIBS="$GRAFT_BUILDDIR/libgraft.a -lprotobuf-c -lm ${san:-}"
export CC GRAFT_CFLAGS GRAFT_LIBS
