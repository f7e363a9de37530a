"""View.peer is the spec's `S@rank`: specs/cluster/dsmem_exchange_2.toml written in Python emits
the spec's PTX, and the refusals are the reader's (DiagId)."""
import os

import ptxgen
from conftest import SOURCE_DIR


def exchange(cluster=True, rank=None):
    """specs/cluster/dsmem_exchange_2.toml, written in Python."""
    k = ptxgen.Kernel("dsmem_exchange_2", grid=4, block=64)
    if cluster:
        k.cluster(2)
    A = k.global_tensor("A", (4, 64, 8), "uint8", init=ptxgen.arange_mod(251))
    B = k.global_tensor("B", (4, 64, 8), "uint8", output=True)
    S = k.shared_tensor("S", (64, 8), "uint8")
    k.copy(S[ptxgen.tid, :], A[ptxgen.bid, ptxgen.tid, :])
    k.cluster_sync()
    if rank is None:
        rank = ptxgen.special("cluster_rank") ^ 1
    k.copy(B[ptxgen.bid, ptxgen.tid, :], S.peer(rank)[ptxgen.tid, :])
    k.cluster_sync()
    return k


def test_peer_view_in_python_emits_the_specs_ptx():
    k = exchange()
    assert k.diagnostics() == []
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "cluster", "dsmem_exchange_2.toml"))
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit()) == body(spec.emit())
    assert "mapa.shared::cluster.u32" in k.emit()
    assert "src = 'S@(cluster_rank ^ 1).sub[tid, 0:8]'" in k.to_toml()


def test_peer_view_refusals_are_the_readers():
    no_cluster = exchange(cluster=False, rank=1)
    assert [d.id for d in no_cluster.diagnostics()] == ["spec_peer_view_undeclared"]
    k = ptxgen.Kernel("k", grid=2, block=32)
    k.cluster(2)
    A = k.global_tensor("A", (2, 32), "uint8")
    assert not A.peer(1).ok
    assert A.peer(1).error.id == "view_peer_not_shared"
