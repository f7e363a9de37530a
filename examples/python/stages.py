"""A 3-stage cp.async pipeline (and its neighbours in stage count) built with ptxgen's Python
module: each stage count's kernel is emitted, checked on the simulator against the
reference, and assembled by ptxas, whose register count is printed per stage count.

    PYTHONPATH=build/python python3 examples/python/stages.py [--stages 2 3 4 5]
"""
import argparse
import sys

import numpy as np

import ptxgen

TILES = 8  # tiles of 128 rows x 16 bytes each, one row per thread


def pipelined(stages: int) -> ptxgen.Kernel:
    k = ptxgen.Kernel(f"pipeline_{stages}", grid=1, block=128)
    A = k.global_tensor("A", (TILES, 128, 16), "uint8")
    B = k.global_tensor("B", (TILES, 128, 16), "uint8", output=True)
    ring = k.shared_tensor("ring", (stages, 128, 16), "uint8")
    tid = ptxgen.tid

    def loads(v: ptxgen.PipelineVars) -> None:
        k.apply("cp.async.cg.shared.global", ring[v.stage, tid, :], A[v.tile, tid, :], 16)

    def body(v: ptxgen.PipelineVars) -> None:
        k.copy(B[v.tile, tid, :], ring[v.stage, tid, :])

    k.pipeline(loads, body, stop=TILES, stages=stages)
    k.expect_equal(B, A)
    return k


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stages", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--target", default="sm_80")
    args = parser.parse_args()
    x = np.random.default_rng(7).integers(0, 256, (TILES, 128, 16), dtype=np.uint8)
    for stages in args.stages:
        k = pipelined(stages)
        result = k.run(A=x)
        np.testing.assert_array_equal(result.outputs["B"], x)
        ptx = k.emit(target=args.target)
        usage = ptxgen.resource_usage(ptx, target=args.target)
        print(f"stages={stages}: {usage[0].registers} registers, "
              f"{usage[0].shared_bytes} bytes of shared memory ({result.status} on the simulator)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
