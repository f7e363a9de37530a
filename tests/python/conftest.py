"""Fixtures for the Python module's tests (run by CTest: tests/python.cmake)."""
import os
import shutil
import stat

import pytest

import ptxgen

SOURCE_DIR = os.environ.get(
    "PTXGEN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def source_dir() -> str:
    return SOURCE_DIR


@pytest.fixture
def fake_ptxas(tmp_path):
    """A ptxas that rejects every PTX at line 6, as the real one words a rejection."""
    path = tmp_path / "ptxas"
    path.write_text(
        "#!/bin/sh\n"
        "for a; do ptx=$a; done\n"
        "echo \"ptxas $ptx, line 6; error   : Unknown instruction\"\n"
        "echo 'ptxas fatal   : Ptx assembly aborted due to errors'\n"
        "exit 255\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.fixture
def real_ptxas() -> str:
    found = os.environ.get("PTXGEN_PTXAS") or shutil.which("ptxas")
    if not found:
        pytest.skip("no ptxas here")
    return found


def seed(grid=1, block=128) -> ptxgen.Kernel:
    k = ptxgen.Kernel("copy_async", grid=grid, block=block)
    A = k.global_tensor("A", (128, 32), "float16", init=ptxgen.arange_mod(97))
    B = k.global_tensor("B", (128, 32), "float16", output=True)
    s = k.shared_tensor("shared", (128, 32), "float16")
    split = dict(w=4, t=32, v=8)
    k.apply("cp.async.cg.shared.global", s.rearrange("(w t) (r v) -> w t r v", **split),
            A.rearrange("(w t) (r v) -> w t r v", **split), chunk_bytes=16, scope="cta")
    k.commit_group()
    k.wait_group(0)
    k.cta_sync()
    k.copy(B[ptxgen.tid, :], s[ptxgen.tid, :])
    k.expect_equal(B, A)
    return k
