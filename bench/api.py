"""bench/api.py BENCH_API RULES MODEL... [--rules RULES MODEL...]... - the
cost of graft from Python (issue 30's numbers; doc/api.md).

Per model, a Rules.run call (read and load the model, rewrite, partition,
write it in its form into a str, or bytes for an ONNX model; the RULES
before it loaded once; --rules starts another set, rules for ONNX for
ONNX models) against the same work done by
the graft command minus its process start and rule loading: bench_api
(bench/bench_api.c) does exactly those steps in C through libgraft.so,
which is what `graft run RULES MODEL` does between loading RULES and
exiting.  (Subtracting the wall time of `graft run RULES EMPTY` from
`graft run RULES MODEL` measures the same thing, but on a shared machine
the process start's jitter, milliseconds, is larger than most models'
work.)  Then the cost of loading the rules (Rules.from_file: the builtin
op registry and the rule file) and the per-call cost on an empty model.  Each time is the least
of REPEAT runs (GRAFT_BENCH_REPEAT, default 15: the machine is shared, and
noise only adds).  Prints a Markdown table and which models pass the
bound of 1.1, and whether the empty call stays under a millisecond.
"""
import os
import subprocess
import sys
import tempfile
import time

import graft

EMPTY = "def @main() {\n  ()\n}\n"


def least_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def c_times(bench_api, rules, models, repeat):
    out = subprocess.run([bench_api, str(repeat), rules, *models], check=True,
                         capture_output=True, text=True).stdout
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in out.splitlines()}


def groups(args):
    """[(rules, [model...])] from RULES MODEL... [--rules RULES MODEL...]..."""
    out = []
    while args:
        rules, args = args[0], args[1:]
        n = args.index("--rules") if "--rules" in args else len(args)
        out.append((rules, args[:n]))
        args = args[n + 1:]
    return out


def main(argv):
    bench_api, sets = argv[1], groups(argv[2:])
    repeat = int(os.environ.get("GRAFT_BENCH_REPEAT", "15"))
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.relay")
        with open(empty, "w") as f:
            f.write(EMPTY)
        rules_path = sets[0][0]
        py_load = least_time(lambda: graft.Rules.from_file(rules_path).close(), repeat * 4)
        rules = graft.Rules.from_file(rules_path)
        py_empty = least_time(lambda: rules.run(empty), repeat * 20)
        c_empty = c_times(bench_api, rules_path, [empty], repeat * 20)[empty]
        rules.close()
    print(f"loading the rules: Rules.from_file {py_load * 1e6:.1f} us (the builtin op "
          f"registry and the rule file, once per Rules)")
    print(f"empty model: Rules.run {py_empty * 1e6:.1f} us per call, the C API "
          f"{c_empty * 1e6:.1f} us: {(py_empty - c_empty) * 1e6:.1f} us of Python "
          f"(bound: the call under 1000 us)\n")
    print("| rules | model | C API, as graft run after start (ms) | Rules.run (ms) | ratio |")
    print("|---|---|---:|---:|---:|")
    over = []
    for rules_path, models in sets:
        c = c_times(bench_api, rules_path, models, repeat)
        rules = graft.Rules.from_file(rules_path)
        for model in models:
            py = least_time(lambda: rules.run(model), repeat)
            ratio = py / c[model]
            if ratio > 1.1:
                over.append(os.path.basename(model))
            print(f"| {os.path.basename(rules_path)} | {os.path.basename(model)} "
                  f"| {c[model] * 1e3:.3f} | {py * 1e3:.3f} | {ratio:.3f} |")
        rules.close()
    print(f"\nratio over 1.1: {', '.join(over) if over else 'none'}; empty call "
          f"{'under' if py_empty < 1e-3 else 'OVER'} 1 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
