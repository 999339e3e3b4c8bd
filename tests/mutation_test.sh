#!/bin/sh
# mutation_test.sh - make mutation's script (tests/mutation/mutate.py) on
# a fixture (selftest.py: its exact mutants and samples) and on src/: a
# seed lists the same sample twice, --file keeps to that file, --seed
# changes the sample.  The mutation run itself is make mutation, not here.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
command -v git >/dev/null 2>&1 || { echo "SKIP: git is not installed"; exit 77; }
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
    { echo "SKIP: $src is not a git checkout (mutate.py lists src/ with git)"; exit 77; }
test_tmpdir mutation_test

python3 "$src/tests/mutation/selftest.py" || fail "selftest.py"

mutate() { python3 "$src/tests/mutation/mutate.py" --srcdir "$src" --list "$@"; }
mutate --seed 3 --count 12 >"$tmp/a" || fail "mutate.py --list exit $?"
mutate --seed 3 --count 12 >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "--seed 3 listed two samples"
[ "$(grep -c '^[0-9a-f]\{10\} src/' "$tmp/a")" -eq 12 ] || fail "--count 12: not 12 mutants"
mutate --seed 4 --count 12 >"$tmp/c"
cmp -s "$tmp/a" "$tmp/c" && fail "--seed 3 and --seed 4 listed one sample"
mutate --seed 3 --count 5 --file src/base/limit.c >"$tmp/d"
[ "$(grep -c '^[0-9a-f]\{10\} src/base/limit.c:' "$tmp/d")" -eq 5 ] ||
    fail "--file src/base/limit.c: not 5 mutants of it"
[ "$failures" -eq 0 ] && echo "mutation_test.sh: selftest, samples by seed, count and file"
[ "$failures" -eq 0 ]
