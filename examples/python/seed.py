"""The seed document's kernel (docs/seed-contract.txt) built with ptxgen's Python module: 128
threads copy a (128, 32) float16 tensor into shared memory with four 16-byte cp.async.cg
per thread at CTA scope, wait, synchronise and copy their row back out. It runs on the
simulator against the reference, checks the result with numpy, and prints the PTX.

    PYTHONPATH=build/python python3 examples/python/seed.py [--gpu]
"""
import sys

import numpy as np

import ptxgen


def seed_kernel() -> ptxgen.Kernel:
    k = ptxgen.Kernel("copy_async", grid=1, block=128)
    A = k.global_tensor("A", (128, 32), "float16")
    B = k.global_tensor("B", (128, 32), "float16", output=True)
    shared = k.shared_tensor("shared", (128, 32), "float16")
    split = dict(w=4, t=32, v=8)
    k.apply(
        "cp.async.cg.shared.global",
        shared.rearrange("(w t) (r v) -> w t r v", **split),
        A.rearrange("(w t) (r v) -> w t r v", **split),
        chunk_bytes=16,
        scope="cta",
    )
    k.commit_group()
    k.wait_group(0)
    k.cta_sync()
    k.copy(B[ptxgen.tid, :], shared[ptxgen.tid, :])
    k.expect_equal(B, A)
    return k


def main() -> int:
    k = seed_kernel()
    x = (np.arange(4096) % 97).astype("float16").reshape(128, 32)
    backend = "cuda" if "--gpu" in sys.argv[1:] else "sim"
    result = k.run(backend=backend, A=x)
    print(f"{backend}: {result.status} ({result.backend})", file=sys.stderr)
    np.testing.assert_array_equal(result.outputs["B"], x)
    np.testing.assert_array_equal(result.reference["B"], x)
    print(k.emit(target="sm_80"), end="")
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
