"""A first and a second run() of an unchanged kernel with ranged parameters (issue: results
cached like a JIT's). The first pays the range proof, the lowering and ptxas; the second takes
them from the caches (driver/run/result_cache.hpp, the cubin cache's in-memory layer).

    PYTHONPATH=build/python python3 tools/bench/second_run.py [SPEC] [--repeat N]

Prints each run's wall time and RunResult.timings, and the second as a share of the first.
"""
import argparse
import os
import time

import ptxgen

HERE = os.path.dirname(os.path.abspath(__file__))


def timed_run(text, name):
    start = time.perf_counter()
    r = ptxgen.loads(text, name=name).run()  # a new object each time: the key is the content
    wall = (time.perf_counter() - start) * 1000.0
    assert r.passed, r.detail
    return wall, r.timings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spec", nargs="?", default=os.path.join(HERE, "tma_two_ranged_coords.toml"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with open(args.spec, encoding="utf-8") as f:
        text = f.read()
    for i in range(args.repeat):
        ptxgen.clear_cache()
        first, t1 = timed_run(text, args.spec)
        second, t2 = timed_run(text, args.spec)
        print(f"round {i}: first {first:.1f} ms, second {second:.2f} ms "
              f"({100.0 * second / first:.2f}% of the first)")
        for label, t in (("first", t1), ("second", t2)):
            print(f"  {label:6} " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(t.items())))


if __name__ == "__main__":
    main()
