#!/bin/sh
# python.sh - the graft Python package (python/) as a user installs it: a
# fresh virtual environment from Debian's Python made in a temporary
# directory, `pip install --no-build-isolation --no-index` of a copy of
# python/ (no package index, nothing written to the source tree), then
# python/tests with pytest against the build tree's libgraft.so.
#
# Skipped, with the reason, when the build has sanitizers (Python cannot
# load an ASan library without preloading the runtime; the C API is run
# under them by tests/api_example.sh) or when a Debian package it needs is
# missing (README.md lists them).
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
mk=$build/Makefile
if [ -n "$(sed -n 's/^SANITIZER_CFLAGS = //p' "$mk")" ]; then
    echo "SKIP: python.sh: not in a sanitizer build: python3 cannot load an ASan libgraft.so"
    echo "      without preloading libasan; examples/api.c covers the C API there"
    exit 77
fi
py=${GRAFT_PYTHON:-/usr/bin/python3}
for mod in venv pip setuptools pytest; do
    "$py" -c "import $mod" 2>/dev/null ||
        { echo "SKIP: python.sh: $py has no $mod (apt-get install python3-$mod)"; exit 77; }
done
test_tmpdir python
cp -R "$src/python" "$tmp/src" || exit 99
chmod -R u+w "$tmp/src"
"$py" -m venv --system-site-packages "$tmp/v" >"$tmp/log" 2>&1 &&
    GRAFT_BUILDDIR=$build "$tmp/v/bin/pip" install -q --no-build-isolation \
        --no-index "$tmp/src" >>"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "FAIL: python.sh: pip install of python/ in a fresh venv"; exit 1; }
# The tests read examples/ and README.md from the source tree and write
# nothing there (no cache, no bytecode).
cd "$tmp" || exit 99
PYTHONDONTWRITEBYTECODE=1 "$tmp/v/bin/python" -m pytest -q -p no:cacheprovider \
    --rootdir="$tmp" "$src/python/tests"
