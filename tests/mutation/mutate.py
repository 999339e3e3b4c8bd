#!/usr/bin/env python3
"""mutate.py - graft's mutation test (make mutation; tests/MUTATION.md).

Applies seeded, sampled one-line mutants to the hand-written C of src/
(the files git ls-files 'src/*.c' lists), one at a time, in a scratch copy
of the tree; rebuilds it incrementally and runs the suite, stopping at the
first failing test.  A mutant is killed (a test failed, or the suite ran
past its time budget), survived (every test passed: its diff is
reported), not compiling (excluded from the score) or equivalent (listed
in tests/mutation/equivalent with the reason, not run).  The score is
killed / (killed + survived).

Python 3 standard library only: no mutation tool is packaged for Debian.
"""

import argparse
import difflib
import fcntl
import glob
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER_FILE = os.path.join(HERE, "order")
EQUIVALENT_FILE = os.path.join(HERE, "equivalent")

# ---- reading C: comments and literals masked, lines that are no mutants ----

def mask_c(text):
    """text with the insides of comments, strings and character constants
    replaced by spaces (newlines kept), so that operators found in it are
    code; the same length as text, so positions carry over."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if out[k] != "\n":
                    out[k] = " "
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            for k in range(i, end):
                out[k] = " "
            i = end
        elif c in "\"'":
            k = i + 1
            while k < n and text[k] != c and text[k] != "\n":
                k += 2 if text[k] == "\\" else 1
            for m in range(i + 1, min(k, n)):
                out[m] = " "
            i = k + 1
        else:
            i += 1
    return "".join(out)


# Calls whose text is a diagnostic: their lines are messages, not logic.
DIAG_CALL = re.compile(r"\b(diag_\w+|rel_fail|eval_fail|failure|fail|fprintf|fputs|printf|"
                       r"strbuf_printf|strbuf_append\w*)\s*\(")
ASSERT = re.compile(r"\b(assert|static_assert|_Static_assert)\s*\(")


def mutable_lines(raw_lines, masked_lines):
    """The indexes of the lines that may be mutated: not blank, not only a
    comment, not preprocessor (continuations included), no assert, not part
    of a statement that reports a diagnostic."""
    keep = []
    in_macro = False
    in_diag = False
    for i, (raw, code) in enumerate(zip(raw_lines, masked_lines)):
        stripped = code.strip()
        if in_macro or stripped.startswith("#"):
            in_macro = raw.rstrip().endswith("\\")
            continue
        if in_diag or DIAG_CALL.search(code):
            in_diag = not stripped.endswith(";") and not stripped.endswith("{")
            continue
        if not stripped or ASSERT.search(code):
            continue
        keep.append(i)
    return keep


# ---- the mutation operators ----

FLIPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
         "&&": "||", "||": "&&"}
KIND = {"<": "relational", "<=": "relational", ">": "relational", ">=": "relational",
        "==": "equality", "!=": "equality", "&&": "logical", "||": "logical"}
OPERATOR = re.compile(r"(?<![<>=!\-&|+*/%^])(<=|>=|==|!=|&&|\|\||<|>)(?![<>=&|])")
INT_LITERAL = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])")
OPERAND = re.compile(r"\s*[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
NOT_CALLS = {"if", "while", "for", "switch", "return", "sizeof", "defined", "_Alignof",
             "alignof", "offsetof", "va_arg", "ARRAY_LEN"}
DECLARATION = re.compile(r"^\s*(?:(?:const|static|volatile|unsigned|signed|struct|enum|union|"
                         r"register|inline)\s+)*[A-Za-z_]\w*[\s*]+[A-Za-z_]\w*\s*(?:=|;|\[|,)")


def matching(code, open_at, open_ch, close_ch):
    """The index of the bracket that closes code[open_at], or -1."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == open_ch:
            depth += 1
        elif code[k] == close_ch:
            depth -= 1
            if depth == 0:
                return k
    return -1


def top_level_commas(code, start, end):
    """Positions of the commas of code[start:end] outside any bracket."""
    depth, commas = 0, []
    for k in range(start, end):
        if code[k] in "([{":
            depth += 1
        elif code[k] in ")]}":
            depth -= 1
        elif code[k] == "," and depth == 0:
            commas.append(k)
    return commas


def operator_mutants(raw, code):
    for m in OPERATOR.finditer(code):
        op = m.group(1)
        yield KIND[op], raw[:m.start()] + FLIPS[op] + raw[m.end():]
        if op in ("<", "<=", ">", ">="):   # off by one in a bound
            rhs = OPERAND.match(code, m.end())
            after = rhs.end() if rhs else -1
            if rhs and (after >= len(code) or code[after] not in "([") and \
                    not code.startswith("->", after):
                yield "bound", raw[:after] + " - 1" + raw[after:]


def index_mutants(raw, code):
    for m in re.finditer(r"[\w\])]\[", code):
        open_at = m.end() - 1
        close = matching(code, open_at, "[", "]")
        if close > open_at + 1 and code[open_at + 1:close].strip():
            yield "index", raw[:close] + " + 1" + raw[close:]


def constant_mutants(raw, code):
    for m in INT_LITERAL.finditer(code):
        digits = m.group(1)
        if code[:m.start()].endswith("{") and code[m.end():].startswith("}"):
            continue   # {0}, an empty initializer
        value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits)
        new = 1 if value == 0 else 0 if value == 1 else value + 1
        text = hex(new) if digits[:2].lower() == "0x" else str(new)
        yield "constant", raw[:m.start(1)] + text + raw[m.end(1):]


def swap_mutants(raw, code):
    for m in CALL.finditer(code):
        before = code[:m.start()].rstrip()
        if m.group(1) in NOT_CALLS or (re.search(r"[\w*]$", before) and
                                       not re.search(r"\breturn$", before)):
            continue   # not a call, or the name a declaration declares
        open_at = m.end() - 1
        close = matching(code, open_at, "(", ")")
        if close < 0:
            continue
        bounds = [open_at] + top_level_commas(code, open_at + 1, close) + [close]
        for k in range(len(bounds) - 2):
            a0, a1, b1 = bounds[k] + 1, bounds[k + 1], bounds[k + 2]
            first, second = raw[a0:a1].strip(), raw[a1 + 1:b1].strip()
            if first and second and first != second:
                lead = raw[a0:a1][:len(raw[a0:a1]) - len(raw[a0:a1].lstrip())]
                lead2 = raw[a1 + 1:b1][:len(raw[a1 + 1:b1]) - len(raw[a1 + 1:b1].lstrip())]
                yield "swap", raw[:a0] + lead + second + "," + lead2 + first + raw[b1:]


VOID_CAST = re.compile(r"\(void\)\s*[A-Za-z_]\w*\s*;$")


def delete_mutants(raw, code, prev_code):
    """The statement of a whole line replaced by an empty one: a line that
    starts a statement, ends it, and declares and returns nothing."""
    stripped = code.strip()
    starts = prev_code.rstrip().endswith((";", "{", "}", ":", ")")) or \
        prev_code.strip() in ("else", "do")
    if not (starts and stripped.endswith(";")) or DECLARATION.match(code):
        return
    if re.match(r"(return|case|default|typedef)\b", stripped) or stripped == ";":
        return
    if VOID_CAST.match(stripped):  # (void)data; only quiets a warning: always equivalent
        return
    if code.count("(") != code.count(")") or code.count("{") or code.count("}"):
        return
    indent = raw[:len(raw) - len(raw.lstrip())]
    yield "delete", indent + ";" + ("\n" if raw.endswith("\n") else "")


def line_mutants(raw, code, prev_code):
    yield from operator_mutants(raw, code)
    yield from index_mutants(raw, code)
    yield from constant_mutants(raw, code)
    yield from swap_mutants(raw, code)
    yield from delete_mutants(raw, code, prev_code)


class Mutant:
    def __init__(self, path, line, kind, original, mutated):
        self.path, self.line, self.kind = path, line, kind
        self.original, self.mutated = original, mutated
        key = "\0".join((path, original.strip(), mutated.strip()))
        self.id = hashlib.sha1(key.encode()).hexdigest()[:10]

    def layer(self):
        parts = self.path.split("/")
        return parts[1] if len(parts) > 2 else "src"

    def diff(self):
        return "".join(difflib.unified_diff([self.original], [self.mutated],
                                            "a/" + self.path, "b/" + self.path,
                                            n=0)).replace("@@ -1 +1 @@",
                                                          "@@ -%d +%d @@" % (self.line, self.line))


def file_mutants(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        text = f.read()
    raw_lines = text.splitlines(keepends=True)
    masked_lines = mask_c(text).splitlines(keepends=True)
    seen = set()
    prev_code = {}
    last = ";"
    for i, code in enumerate(masked_lines):
        prev_code[i] = last
        if code.strip():
            last = code
    for i in mutable_lines(raw_lines, masked_lines):
        raw, code = raw_lines[i], masked_lines[i]
        for kind, mutated in line_mutants(raw, code, prev_code[i]):
            if mutated != raw and mutated not in seen:
                seen.add(mutated)
                yield Mutant(path, i + 1, kind, raw, mutated)


def source_files(root, only):
    listed = subprocess.run(["git", "-C", root, "ls-files", "src/*.c"], check=False,
                            capture_output=True, text=True).stdout.split()
    if not listed:
        # Not a checkout of its own (run_all.sh's sanitizer copy lies inside
        # the clone, whose git does not track it): the files on disk.
        listed = [os.path.relpath(p, root)
                  for p in glob.glob(os.path.join(root, "src", "*", "*.c"))]
    if only:
        listed = [p for p in listed if any(p == o or p.endswith("/" + o) or o in p
                                           for o in only)]
    return sorted(listed)


def draw_kinds(rng, mutants, count):
    """count of mutants, each drawn from a kind of mutation picked with
    equal odds among the kinds left, so that swapped arguments (the most
    numerous candidates) do not crowd out the rest."""
    by_kind = {}
    for m in mutants:
        by_kind.setdefault(m.kind, []).append(m)
    chosen = []
    while len(chosen) < count:
        kind = rng.choice(sorted(k for k in by_kind if by_kind[k]))
        pool = by_kind[kind]
        chosen.append(pool.pop(rng.randrange(len(pool))))
    return chosen


def sample(mutants, count, seed):
    """count mutants drawn with the seed, spread over the layers (src/base,
    src/ir, ...) in proportion to their candidates, at least one each."""
    rng = random.Random(seed)
    by_layer = {}
    for m in mutants:
        by_layer.setdefault(m.layer(), []).append(m)
    layers = sorted(by_layer)
    total = len(mutants)
    count = min(count, total)
    share = {l: max(1, count * len(by_layer[l]) // total) for l in layers}
    while sum(share.values()) > count:
        biggest = max(layers, key=lambda l: (share[l], l))
        share[biggest] -= 1
    rest = sorted(layers, key=lambda l: -(count * len(by_layer[l]) % total))
    k = 0
    while sum(share.values()) < count:
        l = rest[k % len(rest)]
        if share[l] < len(by_layer[l]):
            share[l] += 1
        k += 1
    chosen = []
    for l in layers:
        chosen += draw_kinds(rng, by_layer[l], share[l])
    rng.shuffle(chosen)
    return chosen


# ---- the scratch tree, the build, the suite ----

# The address space each process of a test may take (RLIMIT_AS): a
# mutant that allocates without end fails to allocate there (graft exits
# "out of memory", its test fails) instead of filling the shared machine
# (one grew to 4.1 GB under the wall limit alone).  A fixed bound, far
# above any test's need (hostile.sh holds graft on a 100 MB model under
# 2 GB itself), applied to the baseline run too, so that a test that
# needs more stops the run there instead of killing every mutant.
MEMORY_LIMIT = 4 << 30


def limiter(seconds, memory):
    """A preexec_fn that gives the process, and so each process it starts,
    at most seconds of CPU time (SIGXCPU past it) and memory bytes of
    address space (allocations fail past it); None for neither."""
    if seconds is None and memory is None:
        return None

    def limit():
        if seconds is not None:
            soft = int(seconds) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return limit


def run(cmd, cwd, timeout=None, env=None, cpu=None, memory=None):
    """Runs cmd in its own process group, each of its processes limited to
    cpu seconds of CPU time and memory bytes of address space; (status,
    output, seconds), status None when it ran past timeout seconds of wall
    time (the group is killed)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=limiter(cpu, memory))
    try:
        out, _ = proc.communicate(timeout=timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        status = None
    return status, out.decode("utf-8", "replace"), time.monotonic() - start


def make_var(scratch, name):
    helper = "print-var:\n\t@echo $(%s)\n" % name
    proc = subprocess.run(["make", "-s", "--no-print-directory", "-f", "Makefile", "-f", "-",
                           "print-var"], cwd=scratch, input=helper, text=True,
                          capture_output=True, check=True)
    return proc.stdout.split()


def copy_tree(srcdir, scratch):
    """The files git knows (tracked or not ignored) of srcdir, copied into
    scratch where they differ: the tree as it is, uncommitted tests too."""
    files = subprocess.run(["git", "-C", srcdir, "ls-files", "-co", "--exclude-standard", "-z"],
                           check=True, capture_output=True).stdout.decode().split("\0")
    for path in filter(None, files):
        src, dst = os.path.join(srcdir, path), os.path.join(scratch, path)
        if not os.path.isfile(src):
            continue
        with open(src, "rb") as f:
            data = f.read()
        if os.path.isfile(dst):
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        shutil.copymode(src, dst)


def prepare(srcdir, scratch, jobs, log):
    copy_tree(srcdir, scratch)
    if not os.path.exists(os.path.join(scratch, "Makefile")):
        log("configuring the scratch tree %s" % scratch)
        for cmd in (["autoreconf", "-fi"], ["./configure", "-q"]):
            status, out, _ = run(cmd, scratch)
            if status != 0:
                sys.exit("mutate.py: %s failed in %s:\n%s" % (cmd[0], scratch, out))
    log("building the scratch tree")
    status, out, _ = run(["make", "-s", "-j%d" % jobs, "all"], scratch)
    if status != 0:
        sys.exit("mutate.py: the unmutated tree does not build:\n" + out)


class Suite:
    """The tests of make check in kill order, built and run as make check
    runs them (AM_TESTS_ENVIRONMENT), each against its own time limit."""

    def __init__(self, scratch, jobs, tests, programs):
        self.scratch, self.jobs = scratch, jobs
        self.tests, self.programs = tests, set(programs)
        self.env = dict(os.environ, GRAFT=os.path.join(scratch, "graft"),
                        GRAFT_SRCDIR=scratch, GRAFT_BUILDDIR=scratch)
        self.limit = {}
        self.script_needs = {}
        self.covering = None     # a Coverage: only the tests that run the line

    def build(self):
        """False when the tree does not compile."""
        status, out, _ = run(["make", "-s", "-j%d" % self.jobs, "all"], self.scratch)
        self.built = set()
        return status == 0

    def needs(self, test):
        """The check programs a test needs beyond make all (graft, libgraft):
        itself if it is one; for a script, the programs its text names
        (fuzz/seeds.sh runs the fuzz harnesses, every fuzz/ script all of
        them).  Linking all 32 for every script cost 20 s a mutant."""
        if test in self.programs:
            return {test}
        if test not in self.script_needs:
            with open(os.path.join(self.scratch, test), encoding="utf-8", errors="replace") as f:
                text = f.read()
            fuzz = test.startswith("fuzz/")
            self.script_needs[test] = {p for p in self.programs
                                       if p in text or (fuzz and p.startswith("fuzz/"))}
        return self.script_needs[test]

    def build_for(self, test):
        """The programs the test needs built (self.needs)."""
        wanted = self.needs(test)
        missing = sorted(wanted - self.built)
        if missing:
            status, out, _ = run(["make", "-s", "-j%d" % self.jobs] + missing, self.scratch)
            if status != 0:
                return False
            self.built |= set(missing)
        return True

    def run_test(self, test, limits):
        """limits: (CPU seconds of each process, wall seconds of the whole);
        each process's address space is MEMORY_LIMIT, the baseline's too."""
        cpu, wall = limits
        return run([os.path.join(self.scratch, test)], self.scratch, wall, self.env, cpu,
                   MEMORY_LIMIT)

    def baseline(self, log):
        """Runs every test on the unmutated tree; each one's limits are
        three times its time plus 30 s of CPU time for each of its processes
        (a mutant that loops is stopped there, however loaded the machine)
        and ten times its time plus 300 s of wall time for the whole (which
        a test slowed only by the machine's load does not reach).  Exits if
        one fails."""
        self.build()
        for test in self.tests:
            if not self.build_for(test):
                sys.exit("mutate.py: %s does not build unmutated" % test)
            status, out, secs = self.run_test(test, (None, 1800))
            if status not in (0, 77):
                sys.exit("mutate.py: %s fails unmutated (exit %s):\n%s" % (test, status, out[-3000:]))
            self.limit[test] = (3 * secs + 30, 10 * secs + 300)
            log("baseline %-34s %6.1f s" % (test, secs))

    def first_failure(self, tests):
        """(test, why) of the first of tests that fails, or (None, None)."""
        for test in tests:
            if not self.build_for(test):
                return test, "its build failed"
            status, _, _ = self.run_test(test, self.limit[test])
            if status is None:
                return test, "timeout"
            if status == -signal.SIGXCPU:
                return test, "CPU time limit"
            if status not in (0, 77):
                return test, "exit %d" % status
        return None, None


class Coverage:
    """Which tests run which lines (tests/MUTATION.md, "Tests by coverage").

    A second copy of the tree is built with gcc --coverage at -O0; each test
    runs there once, alone, and gcov lists the lines it ran.  A mutant then
    runs only the tests that run its line, in kill order: a test that never
    runs a line cannot tell its mutant from the original.  A line gcov does
    not count (a static table's initializer, a declaration, a statement's
    continuation line) runs every test, as without coverage; a counted line
    no test runs survives without a test run.  The map is kept in
    DIR/coverage.json with a hash of the tree, reused while the tree is the
    same; a lock lets runs in parts share one DIR."""

    def __init__(self, covdir, srcdir, jobs):
        self.dir, self.srcdir, self.jobs = os.path.abspath(covdir), srcdir, jobs
        self.runs = {}          # test -> set of "path:line" it ran
        self.counted = set()    # every "path:line" gcov counts

    def tree_hash(self):
        files = subprocess.run(["git", "-C", self.srcdir, "ls-files", "-co", "--exclude-standard",
                                "-z"], check=True, capture_output=True).stdout.decode()
        h = hashlib.sha1()
        for path in sorted(filter(None, files.split("\0"))):
            full = os.path.join(self.srcdir, path)
            if os.path.isfile(full):
                with open(full, "rb") as f:
                    h.update(path.encode() + b"\0" + hashlib.sha1(f.read()).digest())
        return h.hexdigest()

    def load_or_measure(self, suite, log):
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            key = self.tree_hash()
            saved = os.path.join(self.dir, "coverage.json")
            data = None
            if os.path.exists(saved):
                with open(saved) as f:
                    data = json.load(f)
                if data.get("tree") != key or not set(suite.tests) <= set(data["runs"]):
                    data = None
            if data is None:
                data = {"tree": key, "runs": self.measure(suite, log)}
                with open(saved + ".new", "w") as f:
                    json.dump(data, f)
                os.replace(saved + ".new", saved)
            else:
                log("coverage: the map of %s (the same tree)" % saved)
        self.runs = {t: None if lines is None else set(lines)
                     for t, lines in data["runs"].items() if t != " counted"}
        self.counted = set(data["runs"][" counted"])

    def measure(self, suite, log):
        log("coverage: building %s with --coverage" % self.dir)
        copy_tree(self.srcdir, self.dir)
        if not os.path.exists(os.path.join(self.dir, "Makefile")):
            for cmd in (["autoreconf", "-fi"],
                        ["./configure", "-q", "CFLAGS=-O0 -g --coverage", "LDFLAGS=--coverage"]):
                status, out, _ = run(cmd, self.dir)
                if status != 0:
                    sys.exit("mutate.py: %s failed in %s:\n%s" % (cmd[0], self.dir, out))
        cov = Suite(self.dir, self.jobs, suite.tests, suite.programs)
        # C that tests compile against this libgraft (graft compile --exe,
        # the examples) links gcov's runtime too
        cov.env["CC"] = "gcc --coverage"
        if not cov.build():
            sys.exit("mutate.py: the coverage tree does not build")
        runs, counted = {}, set()
        for test in suite.tests:
            if not cov.build_for(test):
                sys.exit("mutate.py: %s does not build in the coverage tree" % test)
            for old in glob.glob(os.path.join(self.dir, "**", "*.gcda"), recursive=True):
                os.remove(old)
            status, out, secs = cov.run_test(test, (None, 3600))
            ran = self.gcov_lines(counted)
            if status not in (0, 77):
                # what it ran is not known: it runs on every mutant
                runs[test] = None
                log("coverage %-34s fails here (exit %s): run on every mutant\n%s"
                    % (test, status, out[-1500:]))
                continue
            runs[test] = sorted(ran)
            log("coverage %-34s %6.1f s, %6d lines" % (test, secs, len(ran)))
        runs[" counted"] = sorted(counted)
        return runs

    def gcov_lines(self, counted):
        """The src/ lines the .gcda files count as run; every line they
        count at all is added to counted."""
        ran = set()
        gcdas = sorted(glob.glob(os.path.join(self.dir, "**", "*.gcda"), recursive=True))
        for k in range(0, len(gcdas), 200):
            proc = subprocess.run(["gcov", "-t", "-j"] + gcdas[k:k + 200], cwd=self.dir,
                                  capture_output=True, text=True)
            for line in proc.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                for f in json.loads(line)["files"]:
                    path = os.path.normpath(f["file"])
                    if not path.startswith("src/"):
                        continue
                    for entry in f["lines"]:
                        where = "%s:%d" % (path, entry["line_number"])
                        counted.add(where)
                        if entry["count"] > 0:
                            ran.add(where)
        return ran

    def tests_for(self, path, line, tests):
        where = "%s:%d" % (path, line)
        if where not in self.counted:
            return tests
        return [t for t in tests if self.runs.get(t) is None or where in self.runs[t]]

    def describe(self, path, line, n):
        if "%s:%d" % (path, line) not in self.counted:
            return "a line gcov does not count: every test"
        return "%d tests run the line" % n


def read_order(make_tests):
    """make check's tests, the ones that killed most first (tests/mutation/order:
    'KILLS TEST' lines); tests it does not list keep make check's order, after."""
    kills, listed = {}, []
    if os.path.exists(ORDER_FILE):
        with open(ORDER_FILE) as f:
            for line in f:
                fields = line.split()
                if len(fields) == 2 and not line.startswith("#"):
                    kills[fields[1]] = int(fields[0])
                    listed.append(fields[1])
    known = [t for t in listed if t in make_tests]   # ties keep the file's order
    known.sort(key=lambda t: -kills[t])
    return known + [t for t in make_tests if t not in kills], kills


def write_order(tests, kills):
    """tests: the order of this run; the kills re-sort it (ties keep it)."""
    with open(ORDER_FILE, "w") as f:
        f.write("# The tests in the order mutate.py runs them: how many mutants each\n"
                "# killed first, summed over the runs (tests/MUTATION.md).  Ties keep\n"
                "# this order: the fast unit tests first, the slow scripts last.\n")
        for t in sorted(tests, key=lambda t: (-kills.get(t, 0), tests.index(t))):
            f.write("%d %s\n" % (kills.get(t, 0), t))


def read_equivalent():
    """id -> reason, from tests/mutation/equivalent ('ID PATH:LINE reason')."""
    known = {}
    if os.path.exists(EQUIVALENT_FILE):
        with open(EQUIVALENT_FILE) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    fields = line.split(None, 2)
                    known[fields[0]] = fields[2].strip() if len(fields) > 2 else ""
    return known


# Tests of the source's form, not of what graft does: a mutant that only
# they notice (a line pushed past 100 columns) is not caught by a test of
# behaviour, so they are not run.
FORM_TESTS = {"tests/line_length.sh", "tests/layering_test.sh", "tests/mutation_test.sh"}


# ---- one run ----

def apply(scratch, mutant, mutated):
    path = os.path.join(scratch, mutant.path)
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    lines[mutant.line - 1] = mutated
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--file", action="append", default=[],
                    help="mutate only these src/ files (a path or part of one; repeatable)")
    ap.add_argument("--srcdir", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--scratch", help="the scratch tree (kept); default a mktemp -d, removed")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tests", help="run only these tests (space-separated, make check's names)")
    ap.add_argument("--range", default="1:",
                    help="run only mutants A to B (A:B, from 1) of the sample, to run it in parts")
    ap.add_argument("--ids", help="run these mutants (ids, or @FILE of one a line) instead of a "
                    "sample: a run's survivors again, on a newer tree")
    ap.add_argument("--list", action="store_true", help="print the sample and stop")
    ap.add_argument("--report", help="also write the report to this file")
    ap.add_argument("--no-update-order", action="store_true",
                    help="leave tests/mutation/order as it is")
    ap.add_argument("--coverage", metavar="DIR",
                    help="the coverage tree (kept, its map reused); default SCRATCH.coverage")
    ap.add_argument("--no-coverage", action="store_true",
                    help="run every test on every mutant, not only those that run its line")
    args = ap.parse_args()

    srcdir = os.path.abspath(args.srcdir)
    candidates = [m for p in source_files(srcdir, args.file) for m in file_mutants(srcdir, p)]
    if not candidates:
        sys.exit("mutate.py: no mutant in %s" % (" ".join(args.file) or "src/"))
    missing = []
    if args.ids:
        chosen, missing = by_ids(candidates, args.ids)
        args.count = len(chosen)
    else:
        chosen = sample(candidates, args.count, args.seed)
    for mid in missing:
        print("mutate.py: no mutant %s in this tree (its line changed or moved)" % mid,
              file=sys.stderr)
    first, _, last = args.range.partition(":")
    numbered = list(enumerate(chosen, 1))[int(first or 1) - 1:int(last) if last else None]
    if args.list:
        for n, m in numbered:
            print("%s %s:%d %s #%d\n%s" % (m.id, m.path, m.line, m.kind, n, m.diff()), end="")
        return 0

    report = []

    def log(text):
        print(text, flush=True)
        report.append(text)

    scratch = args.scratch or tempfile.mkdtemp(prefix="graft-mutation.")
    os.makedirs(scratch, exist_ok=True)
    try:
        return mutation_run(args, srcdir, scratch, candidates, numbered, log, report)
    finally:
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)
            if not args.coverage:
                shutil.rmtree(scratch + ".coverage", ignore_errors=True)


def by_ids(candidates, text):
    """The candidates whose ids text names (comma or blank separated, or
    @FILE: the first word of each line), in its order; and the ids no
    candidate has.  Ids are hashes of a mutant's file and line, so the
    survivors of one run are found again in a tree whose other lines
    changed (to check that new tests kill them)."""
    if text.startswith("@"):
        with open(text[1:]) as f:
            wanted = [line.split()[0] for line in f if line.strip() and not line.startswith("#")]
    else:
        wanted = text.replace(",", " ").split()
    known = {m.id: m for m in candidates}
    return [known[i] for i in wanted if i in known], [i for i in wanted if i not in known]


def select_tests(ordered, make_tests, wanted_text):
    """The tests a run runs, in kill order: make check's (ordered), less the
    tests of the source's form, and only those wanted_text names when given.
    A name make check does not know is an error: misspelt (or written as
    Makefile.am writes it, tests/check_api$(EXEEXT), where make's TESTS says
    tests/check_api), it would leave a test out of every kill."""
    tests = [t for t in ordered if t not in FORM_TESTS]
    if not wanted_text:
        return tests
    wanted = wanted_text.split()
    unknown = [t for t in wanted if t not in make_tests]
    if unknown:
        raise ValueError("--tests names what make check does not run: " + " ".join(unknown))
    return [t for t in tests if t in wanted]


def mutation_run(args, srcdir, scratch, candidates, numbered, log, report):
    log("# mutate.py --seed %d --count %d --range %s%s%s%s" % (
        args.seed, args.count, args.range, "".join(" --file " + f for f in args.file),
        " --ids %s" % args.ids if args.ids else "",
        " --tests '%s'" % args.tests if args.tests else ""))
    prepare(srcdir, scratch, args.jobs, log)
    make_tests = make_var(scratch, "TESTS")
    tests, kills = read_order(make_tests)
    try:
        tests = select_tests(tests, make_tests, args.tests)
    except ValueError as e:
        sys.exit("mutate.py: %s" % e)
    suite = Suite(scratch, args.jobs, tests, make_var(scratch, "check_PROGRAMS"))
    suite.baseline(log)
    coverage = None
    if not args.no_coverage:
        coverage = Coverage(args.coverage or scratch + ".coverage", srcdir, args.jobs)
        coverage.load_or_measure(suite, log)
    equivalent = read_equivalent()
    counts = {"killed": 0, "survived": 0, "not compiling": 0, "equivalent": 0}
    survivors = []
    log("%d candidate mutants in %d files; %d drawn, %d run (--range %s)" % (
        len(candidates), len({m.path for m in candidates}), args.count, len(numbered),
        args.range))
    for n, m in numbered:
        where = "[%d/%d] %s %s:%d %s" % (n, args.count, m.id, m.path, m.line, m.kind)
        if m.id in equivalent:
            counts["equivalent"] += 1
            log("%s: equivalent (%s)" % (where, equivalent[m.id]))
            continue
        start = time.monotonic()
        tests_for, ran = tests, ""
        if coverage:
            tests_for = coverage.tests_for(m.path, m.line, tests)
            ran = "; %s" % coverage.describe(m.path, m.line, len(tests_for))
        apply(scratch, m, m.mutated)
        try:
            if not suite.build():
                counts["not compiling"] += 1
                log("%s: not compiling" % where)
                continue
            test, why = suite.first_failure(tests_for)
        finally:
            apply(scratch, m, m.original)
        secs = time.monotonic() - start
        if test:
            counts["killed"] += 1
            kills[test] = kills.get(test, 0) + 1
            log("%s: killed by %s (%s, %.0f s%s)" % (where, test, why, secs, ran))
        else:
            counts["survived"] += 1
            survivors.append(m)
            log("%s: SURVIVED (%.0f s%s)\n%s" % (where, secs, ran, m.diff().rstrip()))
    summarize(counts, survivors, log)
    if not args.no_update_order:
        write_order(read_order(make_tests)[0], kills)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(report) + "\n")
    return 0


def summarize(counts, survivors, log):
    scored = counts["killed"] + counts["survived"]
    score = 100.0 * counts["killed"] / scored if scored else 0.0
    log("\n%d killed, %d survived, %d not compiling, %d equivalent: score %.1f%% (%d of %d)" % (
        counts["killed"], counts["survived"], counts["not compiling"], counts["equivalent"],
        score, counts["killed"], scored))
    if survivors:
        log("survivors (add a test that kills each, or list it in tests/mutation/equivalent):")
        for m in survivors:
            log("%s %s:%d %s\n%s" % (m.id, m.path, m.line, m.kind, m.diff().rstrip()))


if __name__ == "__main__":
    sys.exit(main())
