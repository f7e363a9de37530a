#!/usr/bin/env python3
"""Build + emit of the spec corpus through the Python module against the C++ API.

For every spec ptxgen emits (specs/, without invalid/ and faults/ as `ptxgen run` walks
it), the median over --runs of `ptxgen.loads(text).emit()` (Python: the loader builds the
kernel through the one builder, then emit) against ptxgen_bench's median of
driver::emit_spec (C++: load, check, lower, validate, print) for the same spec. Then the
corpus totals and their ratio; the goal is Python under 2x the C++ API. Also the seed
kernel built by builder calls in Python (examples/python/seed.py's), against loading its
spec. Not a test (wall-clock figures): docs/benchmarks.md records its output.

    PYTHONPATH=build/python python3 tools/bench/python_emit.py [--runs 20] [--bench build/ptxgen_bench]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import ptxgen

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
import seed  # noqa: E402  (examples/python/seed.py)


def corpus(root: str) -> list:
    out = []
    for d, dirs, files in os.walk(os.path.join(root, "specs")):
        dirs[:] = sorted(x for x in dirs if x not in ("invalid", "faults"))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".toml")]
    return out


def median_us(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def cpp_medians(bench: str, specs: list, runs: int) -> dict:
    out = subprocess.run([bench, *specs, "--runs", str(runs), "--ptxas-runs", "1"],
                         capture_output=True, text=True, cwd=ROOT).stdout
    medians = {}
    for line in out.splitlines()[1:]:
        parts = line.split()
        if parts and parts[0] == "TOTAL":
            break  # the per-spec rows end here
        if len(parts) == 4:
            medians[parts[0]] = float(parts[1])
    return medians


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "ptxgen_bench"))
    args = parser.parse_args()
    specs = []
    python_us = {}
    for path in corpus(ROOT):
        with open(path) as f:
            text = f.read()
        name = os.path.relpath(path, ROOT)
        try:
            ptxgen.loads(text, name).emit()
        except ptxgen.Error:
            continue  # a fault spec: emit refuses it, as `ptxgen emit` does
        specs.append(name)
        python_us[name] = median_us(lambda: ptxgen.loads(text, name).emit(), args.runs)
    cpp_us = cpp_medians(args.bench, specs, args.runs)
    width = max(len(s) for s in specs)
    print(f"{'spec':<{width}} {'python_us':>10} {'cpp_us':>10} {'ratio':>6}")
    total_py = total_cpp = 0.0
    for s in specs:
        if s not in cpp_us:
            print(f"{s:<{width}} {python_us[s]:10.1f} {'-':>10}")
            continue
        total_py += python_us[s]
        total_cpp += cpp_us[s]
        print(f"{s:<{width}} {python_us[s]:10.1f} {cpp_us[s]:10.1f} {python_us[s] / cpp_us[s]:6.2f}")
    ratio = total_py / total_cpp if total_cpp else float("nan")
    print(f"{'TOTAL':<{width}} {total_py:10.1f} {total_cpp:10.1f} {ratio:6.2f}")
    print(f"goal: Python under 2x the C++ API over the corpus: {'met' if ratio < 2 else 'NOT met'}")
    with open(os.path.join(ROOT, "specs/seed/copy_async.toml")) as f:
        seed_text = f.read()
    built = median_us(lambda: seed.seed_kernel().emit(), args.runs)
    loaded = median_us(lambda: ptxgen.loads(seed_text).emit(), args.runs)
    print(f"seed kernel: built by Python calls + emit {built:.1f} us; "
          f"loaded from its spec + emit {loaded:.1f} us")
    print(f"specs: {len(specs)}; median of {args.runs} runs each; python {sys.version.split()[0]}")
    print(f"machine: {os.cpu_count()} cores; date: "
          f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
