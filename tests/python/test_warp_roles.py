"""The warps' roles in Python: named_barrier, setmaxnreg and copy's pred give the PTX of
specs/ws/setmaxnreg_ring.toml, and the contract refuses a named barrier whose count is not
its users' as `ptxgen check` refuses the spec."""
import os

import ptxgen
from conftest import SOURCE_DIR


def setmaxnreg_ring(consumers=256):
    """specs/ws/setmaxnreg_ring.toml, written in Python (`consumers`: empty's count)."""
    tid, warp = ptxgen.tid, ptxgen.warp
    k = ptxgen.Kernel("setmaxnreg_ring", grid=1, block=384)
    k.ctas_per_sm(1)
    A = k.global_tensor("A", (6, 2048), "uint8", init=ptxgen.random_init(7))
    B = k.global_tensor("B", (6, 2048), "uint8", output=True)
    S = k.shared_tensor("S", (2, 2048), "uint8")
    full = k.shared_tensor("full", (2,), "uint64")
    empty = k.shared_tensor("empty", (2,), "uint64")
    k.mbarrier_init(full[0], 1)
    k.mbarrier_init(full[1], 1)
    k.mbarrier_init(empty[0], consumers)
    k.mbarrier_init(empty[1], consumers)
    k.cta_sync()
    k.setmaxnreg("dec", 40, pred=warp < 4)
    k.setmaxnreg("inc", 232, pred=warp >= 4)
    with k.loop("k", 0, 6) as i:
        k.mbarrier_wait(empty[i % 2], parity=(i // 2) % 2 ^ 1, pred=tid == 0)
        k.expect_tx(full[i % 2], 2048, pred=tid == 0)
        k.bulk_load(S[i % 2, :], A[i, :], barrier=full[i % 2], pred=tid == 0)
        k.mbarrier_wait(full[i % 2], parity=(i // 2) % 2, pred=warp >= 4)
        c = ptxgen.max(tid, 128) - 128
        k.copy(B[i, :].rearrange("(t e) -> t e", t=256)[c, :],
               S[i % 2, :].rearrange("(t e) -> t e", t=256)[c, :], pred=warp >= 4)
        k.mbarrier_arrive(empty[i % 2], pred=warp >= 4)
    k.expect_equal(B, A)
    return k


def test_setmaxnreg_ring_in_python_emits_the_specs_ptx():
    k = setmaxnreg_ring()
    assert k.diagnostics() == []
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "ws", "setmaxnreg_ring.toml"))
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit()) == body(spec.emit())
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in k.emit()
    assert 'action = "dec"\nregs = 40\n' in k.to_toml()


def test_named_barrier_users_refused_as_the_spec():
    k = ptxgen.Kernel("k", grid=1, block=96)
    A = k.global_tensor("A", (96,), "uint32", init=ptxgen.random_init(3))
    B = k.global_tensor("B", (96,), "uint32", output=True)
    k.copy(B[ptxgen.tid], A[ptxgen.tid], pred=ptxgen.warp >= 1)
    k.named_barrier(1, 96, pred=ptxgen.warp >= 1)
    ids = [d.id for d in k.check()]
    assert ids == ["contract_named_barrier_users"], ids
