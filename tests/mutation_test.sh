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
# A mutant that allocates without end fails to allocate at its address
# space's limit (mutate.py's MEMORY_LIMIT, RLIMIT_AS, 4 GB), and its test
# fails: killed.  Mappings never touched count there but take no memory,
# so the mutant here maps 1 GB at a time without filling the machine; it
# maps fewer than 4 (without the limit, tens of thousands: the kernel's
# count of mappings ends it).
mkdir "$tmp/suite"
printf '#!/bin/sh\nulimit -v\n' >"$tmp/suite/limit.sh"
printf '#!/bin/sh\nexec python3 "$(dirname "$0")/grow.py"\n' >"$tmp/suite/grow.sh"
cat >"$tmp/suite/grow.py" <<'END'
import mmap, sys
maps = []
try:
    while True:
        maps.append(mmap.mmap(-1, 1 << 30))
except OSError as e:
    sys.exit("%d GB mapped: %s" % (len(maps), e))
END
chmod +x "$tmp/suite/limit.sh" "$tmp/suite/grow.sh"
python3 - "$src/tests/mutation" "$tmp/suite" >"$tmp/memory" 2>&1 <<'END' ||
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import mutate
suite = mutate.Suite(sys.argv[2], 1, ["limit.sh", "grow.sh"], [])
status, out, _ = suite.run_test("limit.sh", (60, 600))
assert status == 0 and out.split() == [str(mutate.MEMORY_LIMIT // 1024)], (status, out)
suite.limit = {"limit.sh": (60, 600), "grow.sh": (60, 600)}
suite.build_for = lambda test: True
got = suite.first_failure(["limit.sh", "grow.sh"])
assert got == ("grow.sh", "exit 1"), got
status, out, _ = suite.run_test("grow.sh", (60, 600))
mapped = int(out.split()[0])
assert status == 1 and mapped < mutate.MEMORY_LIMIT >> 30, (status, out)
END
    fail "the memory limit: $(cat "$tmp/memory")"
[ "$failures" -eq 0 ] && echo "mutation_test.sh: selftest, samples by seed, count and file, memory limit"
[ "$failures" -eq 0 ]
