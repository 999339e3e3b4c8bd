# shell_lib.sh - the setup every shell test of tests/ shares, sourced first:
#     set -u
#     . "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
#     test_tmpdir NAME
# Each test wrote these lines out for itself before; one copy here keeps
# them the same everywhere (a skip is exit 77 in each, a test that cannot
# run is exit 99 in each).  Sourcing it:
# - checks that make check's environment is set (tests/tests.am's
#   AM_TESTS_ENVIRONMENT: $GRAFT the binary, $GRAFT_SRCDIR the source tree,
#   $GRAFT_BUILDDIR the build tree), sh stopping the test with "parameter
#   not set" when one is not: a test run by hand names them;
# - sets src and build, the two trees, for the paths the tests build
#   ("$src/tests/onnx", "$build/libgraft.a"), and failures to 0;
# - defines the functions below, and runs nothing else.
#
# test_tmpdir NAME: $tmp, a new directory under ${TMPDIR:-/tmp} whose
#   name starts with NAME (to tell whose scratch a leftover is), where the
#   test writes all its scratch (never into the source tree: make
#   distcheck's is read-only).  It is removed when the test exits, on
#   SIGINT and SIGTERM too (a trap turns them into an exit, which runs the
#   EXIT trap; without one, sh dies without running it).  When mktemp
#   cannot make it the test stops with 99, automake's "hard error": the
#   test could not run, which says nothing about graft.
# fail MESSAGE...: prints "FAIL: MESSAGE" and counts it in $failures, so a
#   test reports every failure, not just the first, and ends with
#   [ "$failures" -eq 0 ].
# python_onnx IMPORTS: sets $python to a python3 that runs IMPORTS
#   ('import onnx, numpy'), or skips the test (exit 77) without one.
#   Debian's python3-onnx is for Debian's python3: /usr/bin/python3 comes
#   before another python3 first on PATH (a pyenv one, say).
# onnx_checked FILE: whether onnx.checker's full check passes on the model
#   FILE (its complaint printed when not), with the $python python_onnx
#   set.
src=${GRAFT_SRCDIR:?} build=${GRAFT_BUILDDIR:?}
: "${GRAFT:?}"
failures=0

test_tmpdir() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

python_onnx() {
    python=
    for candidate in /usr/bin/python3 python3; do
        if "$candidate" -c "$1" >/dev/null 2>&1; then
            python=$candidate
            return 0
        fi
    done
    echo "SKIP: python3-onnx not installed"
    exit 77
}

onnx_checked() {
    "$python" - "$1" <<'PY'
import sys
import onnx
try:
    onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)
except Exception as e:  # every checker failure, whatever its class
    print(e)
    sys.exit(1)
PY
}
