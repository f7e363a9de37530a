"""Kernel.cluster is the spec's `[kernel] cluster`: the same PTX as specs/cluster/cluster_2d.toml
written in Python, the same refusals (DiagId) as the spec reader's, and to_toml writing the
key back."""
import os

import ptxgen
from conftest import SOURCE_DIR


def cluster_2d():
    """specs/cluster/cluster_2d.toml, written in Python."""
    k = ptxgen.Kernel("cluster_2d", grid=(4, 4), block=32)
    k.cluster((2, 2))
    A = k.global_tensor("A", (4, 4, 32, 4), "uint8", init=ptxgen.arange_mod(251))
    B = k.global_tensor("B", (4, 4, 32, 4), "uint8", output=True)
    rank, cluster = ptxgen.special("cluster_rank"), ptxgen.special("cluster_id")
    k.copy(B[ptxgen.special("bid.y"), ptxgen.special("bid.x"), ptxgen.tid, :],
           A[cluster, rank, ptxgen.tid, :])
    k.expect_equal(B.rearrange("(iy ry) (ix rx) t e -> iy ix ry rx t e", ry=2, rx=2),
                   A.rearrange("(iy ix) (ry rx) t e -> iy ix ry rx t e", ix=2, rx=2))
    return k


def test_cluster_in_python_emits_the_specs_ptx():
    k = cluster_2d()
    assert k.diagnostics() == []
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "cluster", "cluster_2d.toml"))
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit()) == body(spec.emit())
    assert ".reqnctapercluster 2, 2, 1" in k.emit()
    assert "cluster = [2, 2, 1]\n" in k.to_toml()


def test_cluster_refusals_are_the_readers():
    k = ptxgen.Kernel("k", grid=16, block=32)
    k.cluster(16)
    assert [d.id for d in k.diagnostics()] == ["spec_cluster_portable"]
    k = ptxgen.Kernel("k", grid=6, block=32)
    k.cluster(4)
    assert [d.id for d in k.diagnostics()] == ["spec_cluster_grid"]
    k = ptxgen.Kernel("k", grid=16, block=32)
    k.cluster(16, non_portable=True)
    assert k.diagnostics() == []
    assert "cluster_non_portable = true\n" in k.to_toml()


def multicast_bulk_2():
    """specs/cluster/multicast_bulk_2.toml, written in Python."""
    k = ptxgen.Kernel("multicast_bulk_2", grid=4, block=32)
    k.cluster(2)
    A = k.global_tensor("A", (2, 512), "uint32", init=ptxgen.random_init(11))
    B = k.global_tensor("B", (4, 512), "uint32", output=True)
    S = k.shared_tensor("S", (512,), "uint32")
    bar = k.shared_tensor("bar", (1,), "uint64")
    rank, cluster = ptxgen.special("cluster_rank"), ptxgen.special("cluster_id")
    k.mbarrier_init(bar[0], 1)
    k.mbarrier_init_fence()
    k.cluster_sync()
    k.expect_tx(bar[0], 2048, pred=ptxgen.tid == 0)
    k.bulk_load(S.rearrange("(r e) -> r e", r=2)[rank, :],
                A.rearrange("c (r e) -> c r e", r=2)[cluster, rank, :], bar[0],
                pred=ptxgen.tid == 0, multicast=3)
    k.mbarrier_wait(bar[0], 0)
    k.copy(B.rearrange("b (t e) -> b t e", t=32)[ptxgen.bid, ptxgen.tid, :],
           S.rearrange("(t e) -> t e", t=32)[ptxgen.tid, :])
    k.cluster_sync()
    return k


def test_multicast_in_python_emits_the_specs_ptx():
    k = multicast_bulk_2()
    assert k.diagnostics() == []
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "cluster", "multicast_bulk_2.toml"))
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit()) == body(spec.emit())
    assert ".multicast::cluster" in k.emit()
    assert "multicast = 3\n" in k.to_toml() or "multicast = '3'\n" in k.to_toml()


def peer_bulk_exchange_2():
    """specs/cluster/peer_bulk_exchange_2.toml, written in Python."""
    k = ptxgen.Kernel("peer_bulk_exchange_2", grid=4, block=32)
    k.cluster(2)
    A = k.global_tensor("A", (4, 128), "uint32", init=ptxgen.random_init(5))
    B = k.global_tensor("B", (4, 128), "uint32", output=True)
    src = k.shared_tensor("Src", (128,), "uint32")
    S = k.shared_tensor("S", (128,), "uint32")
    bar = k.shared_tensor("bar", (1,), "uint64")
    peer = ptxgen.special("cluster_rank") ^ 1
    k.mbarrier_init(bar[0], 1)
    k.mbarrier_init_fence()
    k.copy(src.rearrange("(t e) -> t e", t=32)[ptxgen.tid, :],
           A.rearrange("b (t e) -> b t e", t=32)[ptxgen.bid, ptxgen.tid, :])
    k.proxy_fence()
    k.cluster_sync()
    k.expect_tx(bar[0], 512, pred=ptxgen.tid == 0)
    k.bulk_copy_peer(S.peer(peer), src, bar.peer(peer)[0], pred=ptxgen.tid == 0)
    k.mbarrier_wait(bar[0], 0)
    k.copy(B.rearrange("b (t e) -> b t e", t=32)[ptxgen.bid, ptxgen.tid, :],
           S.rearrange("(t e) -> t e", t=32)[ptxgen.tid, :])
    k.cluster_sync()
    return k


def test_peer_bulk_copy_in_python_emits_the_specs_ptx():
    k = peer_bulk_exchange_2()
    assert k.diagnostics() == []
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "cluster", "peer_bulk_exchange_2.toml"))
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit()) == body(spec.emit())
    assert "cp.async.bulk.shared::cluster.shared::cta" in k.emit()
    assert 'op = "bulk_copy_peer"' in k.to_toml()
