#!/usr/bin/env python3
"""selftest.py - mutate.py's own test (tests/mutation_test.sh): the mutants
of a small C file, exactly; none in a comment, a string, a preprocessor
line, an assert or a diagnostic; the sample the same for a seed, spread
over the layers, and another for another seed."""

import os
import signal
import sys
import tempfile

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402

FIXTURE = """\
/* a comment: if (a < b) */
#define N (3 < 4 \\
           && 1)
static int f(int a, int b)
{
    assert(a < b);
    diag_error(d, src, r, "a < b: %d",
               a + v[1]);
    if (a < b && b != 0)
        return g(a, b);
    a = v[i]; /* x == y */
    return strcmp(s, "<=") == 0;
}
"""

WANT = [
    (9, "relational", "    if (a <= b && b != 0)\n"),
    (9, "bound", "    if (a < b - 1 && b != 0)\n"),
    (9, "logical", "    if (a < b || b != 0)\n"),
    (9, "equality", "    if (a < b && b == 0)\n"),
    (9, "constant", "    if (a < b && b != 1)\n"),
    (10, "swap", "        return g(b, a);\n"),
    (11, "index", "    a = v[i + 1]; /* x == y */\n"),
    (11, "delete", "    ;\n"),
    (12, "equality", "    return strcmp(s, \"<=\") != 0;\n"),
    (12, "constant", "    return strcmp(s, \"<=\") == 1;\n"),
    (12, "swap", "    return strcmp(\"<=\", s) == 0;\n"),
]


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "ir"))
        with open(os.path.join(root, "src", "ir", "f.c"), "w") as f:
            f.write(FIXTURE)
        got = [(m.line, m.kind, m.mutated) for m in mutate.file_mutants(root, "src/ir/f.c")]
    for g, w in zip(got, WANT):
        check(g == w, "mutant %r, want %r" % (g, w))
    check(len(got) == len(WANT), "%d mutants, want %d" % (len(got), len(WANT)))

    pool = [mutate.Mutant("src/%s/f%d.c" % (layer, i), i, kind, "x\n", "y%d\n" % i)
            for layer in ("base", "ir", "runtime") for i in range(40)
            for kind in ("swap", "delete")]
    one = [m.id for m in mutate.sample(pool, 9, 1)]
    check(one == [m.id for m in mutate.sample(pool, 9, 1)], "seed 1 drew two samples")
    check(one != [m.id for m in mutate.sample(pool, 9, 2)], "seeds 1 and 2 drew one sample")
    layers = sorted(m.layer() for m in mutate.sample(pool, 9, 1))
    check(layers == ["base"] * 3 + ["ir"] * 3 + ["runtime"] * 3, "layers drawn: %s" % layers)
    check(len(set(one)) == 9, "a mutant drawn twice")
    check(list(mutate.delete_mutants("    (void)data;\n", "    (void)data;\n", "{")) == [],
          "(void)data; deleted: a mutant that cannot differ")
    check(len(list(mutate.delete_mutants("    free(data);\n", "    free(data);\n", "{"))) == 1,
          "a call deleted")
    picked, missing = mutate.by_ids(pool, "%s, %s nothere" % (pool[5].id, pool[2].id))
    check([m.id for m in picked] == [pool[5].id, pool[2].id] and missing == ["nothere"],
          "--ids: the named mutants in order, the unknown one reported")
    make_tests = ["tests/golden.sh", "tests/line_length.sh", "tests/check_api"]
    check(mutate.select_tests(make_tests, make_tests, None) ==
          ["tests/golden.sh", "tests/check_api"], "the form's tests are left out")
    check(mutate.select_tests(make_tests, make_tests, "tests/check_api") == ["tests/check_api"],
          "--tests chooses")
    try:  # the spelling of Makefile.am is not make's: an error, not a test left out
        mutate.select_tests(make_tests, make_tests, "tests/golden.sh tests/check_api$(EXEEXT)")
        check(False, "--tests accepted a name make check does not run")
    except ValueError as e:
        check("tests/check_api$(EXEEXT)" in str(e), "the error names the test: %s" % e)
    # A mutant that loops is stopped by its CPU time, which the machine's
    # load does not stretch: a process past it dies of SIGXCPU.
    status, _, _ = mutate.run([sys.executable, "-c", "while True: pass"], ".", 120, None, 0)
    check(status == -signal.SIGXCPU, "a loop past 1 s of CPU time: status %s" % status)
    status, _, _ = mutate.run([sys.executable, "-c", "pass"], ".", 120, None, 0)
    check(status == 0, "a process within its CPU time: status %s" % status)
    check_coverage()
    check_needs()
    print("selftest.py: %d mutants of the fixture, samples by seed, tests chosen, "
          "CPU limits, tests by coverage, the programs a script needs" % len(got))


COVERED = """\
int f(int x)
{
    if (x > 0)
        return 1;
    return 0;
}
static const int table[] = {1,
                            2};
int main(void) { return f(1) - 1 + table[0] - 1; }
"""


def check_coverage():
    """gcov's lines of a program built --coverage: run (3, 4), counted but
    not run (5), not counted (7, 8: a static table); then the tests a
    mutant of each line runs."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(root, "src", "a.c"), "w") as f:
            f.write(COVERED)
        for cmd in (["gcc", "-O0", "--coverage", "-c", "src/a.c", "-o", "src/lib_a-a.o"],
                    ["gcc", "--coverage", "src/lib_a-a.o", "-o", "prog"], ["./prog"]):
            status, out, _ = mutate.run(cmd, root)
            check(status == 0, "%s: %s" % (cmd[0], out))
        cov = mutate.Coverage(root, root, 1)
        counted = set()
        ran = cov.gcov_lines(counted)
    check(ran == {"src/a.c:%d" % n for n in (1, 3, 4, 9)}, "lines run: %s" % sorted(ran))
    check(counted == ran | {"src/a.c:5"}, "lines counted: %s" % sorted(counted))
    cov.runs = {"t1": ran, "t2": {"src/a.c:9"}}
    cov.counted = counted
    tests = ["t1", "t2"]
    check(cov.tests_for("src/a.c", 3, tests) == ["t1"], "a line one test runs: that test")
    check(cov.tests_for("src/a.c", 9, tests) == tests, "a line both run: both, in order")
    check(cov.tests_for("src/a.c", 5, tests) == [], "a line no test runs: none")
    check(cov.tests_for("src/a.c", 7, tests) == tests, "a line gcov does not count: every test")
    cov.runs["t2"] = None   # failed in the coverage tree: what it runs is unknown
    check(cov.tests_for("src/a.c", 3, tests) == tests, "a test whose lines are unknown: always")
    cov.runs["t2"] = {"src/a.c:9"}
    check(cov.describe("src/a.c", 7, 2) == "a line gcov does not count: every test" and
          cov.describe("src/a.c", 3, 1) == "1 tests run the line", "the log's words")


def check_needs():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "tests"))
        os.makedirs(os.path.join(root, "fuzz"))
        for name, text in (("tests/a.sh", "graft run x\n"), ("tests/b.sh", "tests/check_api x\n"),
                           ("fuzz/seeds.sh", "$build/fuzz/fuzz_$h\n")):
            with open(os.path.join(root, name), "w") as f:
                f.write(text)
        programs = ["tests/check_api", "tests/check_base", "fuzz/fuzz_relay", "fuzz/fuzz_gen"]
        suite = mutate.Suite(root, 1, [], programs)
        check(suite.needs("tests/a.sh") == set(), "a script that names no program: none")
        check(suite.needs("tests/b.sh") == {"tests/check_api"}, "the program a script names")
        check(suite.needs("fuzz/seeds.sh") == {"fuzz/fuzz_relay", "fuzz/fuzz_gen"},
              "a fuzz/ script: every harness")
        check(suite.needs("tests/check_base") == {"tests/check_base"}, "a program: itself")


if __name__ == "__main__":
    main()
