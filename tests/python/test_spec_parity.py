"""Python says what a spec says: pred wherever TOML has it, expectation slices bounded by a
parameter, and the builder refusing what the spec reader refuses."""
import inspect
import os

import numpy as np
import pytest

import ptxgen
from conftest import SOURCE_DIR


def ring_full_empty():
    """specs/tma/ring_full_empty.toml, written in Python."""
    tid = ptxgen.tid
    k = ptxgen.Kernel("ring_full_empty", grid=1, block=32)
    A = k.global_tensor("A", (6, 512), "uint8", init=ptxgen.random_init(7))
    B = k.global_tensor("B", (6, 512), "uint8", output=True)
    S = k.shared_tensor("S", (2, 512), "uint8")
    full = k.shared_tensor("full", (2,), "uint64")
    empty = k.shared_tensor("empty", (2,), "uint64")
    k.mbarrier_init(full[0], 1)
    k.mbarrier_init(full[1], 1)
    k.mbarrier_init(empty[0], 32)
    k.mbarrier_init(empty[1], 32)
    k.cta_sync()
    k.expect_tx(full[0], 512, pred=tid == 0)
    k.bulk_load(S[0, :], A[0, :], barrier=full[0], pred=tid == 0)
    with k.loop("k", 0, 6) as i:
        nxt = ptxgen.logical_and(tid == 0, i + 1 < 6)
        k.mbarrier_wait(empty[(i + 1) % 2], parity=((i + 1) // 2) % 2 ^ 1, pred=nxt)
        k.expect_tx(full[(i + 1) % 2], 512, pred=nxt)
        k.bulk_load(S[(i + 1) % 2, :], A[ptxgen.min(i + 1, 5), :], barrier=full[(i + 1) % 2],
                    pred=nxt)
        k.mbarrier_wait(full[i % 2], parity=(i // 2) % 2)
        per_thread = dict(t=32)
        k.copy(B[i, :].rearrange("(t e) -> t e", **per_thread)[tid, :],
               S[i % 2, :].rearrange("(t e) -> t e", **per_thread)[tid, :])
        k.mbarrier_arrive(empty[i % 2])
    k.expect_equal(B, A)
    return k


def test_mbarrier_wait_takes_pred_so_the_ring_spec_is_written_in_python():
    k = ring_full_empty()
    assert k.diagnostics() == []
    with open(os.path.join(SOURCE_DIR, "golden", "tma", "ring_full_empty.ptx")) as f:
        golden = f.read()
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit(target="sm_90")) == body(golden)
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "tma", "ring_full_empty.toml"))
    assert ptxgen.loads(k.to_toml()).emit(target="sm_90") == spec.emit(target="sm_90")
    assert k.to_toml().count("pred = 'tid == 0 && k + 1 < 6'") == 3


def bounded_kernel():
    k = ptxgen.Kernel("bounded", grid=1, block=64)
    n = k.param_u32("n", 40, range=(1, 64))
    A = k.global_tensor("A", (64,), "uint32", init=ptxgen.arange_mod(1000))
    B = k.global_tensor("B", (64,), "uint32", output=True)
    k.copy(B.rearrange("(t e) -> t e", e=1)[ptxgen.tid, :],
           A.rearrange("(t e) -> t e", e=1)[ptxgen.tid, :])
    return k, n, A, B


def test_an_expectation_slice_may_end_at_a_parameter():
    k, n, A, B = bounded_kernel()
    k.expect_equal(B[0:n], A[0:n])
    k.expect_equal(k.view("B.sub[0:n]"), k.view("A.sub[0:n]"))
    assert k.diagnostics() == []
    toml = k.to_toml()
    assert toml.count("that = 'B.sub[0:n] == A.sub[0:n]'") == 2
    assert ptxgen.loads(toml).to_toml() == toml


def test_an_ops_view_sliced_by_a_parameter_is_refused_at_its_line():
    k, n, A, B = bounded_kernel()
    k.copy(B[0:n], A[0:n])
    ds = k.diagnostics()
    assert [d.id for d in ds] == ["view_slice_not_constant"] * 2
    assert ["B.sub[0:n]" in ds[0].message, "A.sub[0:n]" in ds[1].message] == [True, True]
    assert all(d.source_line.strip() == "k.copy(B[0:n], A[0:n])" for d in ds)
    assert ds[0].column == 5


def test_expect_value_outside_the_element_type_is_refused_as_the_spec_reader_refuses_it():
    k = ptxgen.Kernel("values", grid=1, block=32)
    B = k.global_tensor("B", (32,), "uint8", output=True)
    k.fill(B.rearrange("(t e) -> t e", e=1)[ptxgen.tid, :], b"\x01")
    k.expect_value(B, 300)
    (d,) = k.diagnostics()
    assert d.id == "spec_expect_value_range"
    with pytest.raises(ptxgen.Error):
        k.emit()
    k2 = ptxgen.Kernel("values", grid=1, block=32)
    H = k2.global_tensor("H", (32,), "float16", output=True)
    k2.expect_value(H, 2049)  # float16 has 11 significant bits: 2049 is not one of its values
    assert [d.id for d in k2.diagnostics()] == ["spec_expect_value_range"]
    k2b = ptxgen.Kernel("values", grid=1, block=32)
    H = k2b.global_tensor("H", (32,), "float16", output=True)
    k2b.expect_value(H, 2048)
    assert k2b.diagnostics() == []


def tensormap_retarget_global():
    """specs/tma/tensormap_retarget_global.toml, written in Python."""
    tid = ptxgen.tid
    one = tid == 0
    k = ptxgen.Kernel("k", grid=1, block=32)
    A = k.global_tensor("A", (32, 16), "uint8", init=ptxgen.arange_mod(251),
                        map=ptxgen.TensorMap(box=(32, 16)))
    B = k.global_tensor("B", (32, 16), "uint8", init=ptxgen.arange_mod(7))
    M = k.global_tensor("M", (128,), "uint8", align=128)
    C = k.global_tensor("C", (32, 16), "uint8", output=True)
    S = k.shared_tensor("S", (32, 16), "uint8")
    bar = k.shared_tensor("bar", (1,), "uint64")
    k.mbarrier_init(bar[0], 1)
    k.cta_sync()
    k.tensormap_copy(A, M, pred=one)
    k.tensormap_replace(A, M, "global_address", address=B, pred=one)
    k.tensormap_fence(M, "release", pred=one)
    k.tensormap_fence(M, "acquire", pred=one)
    k.expect_tx(bar[0], 512, pred=one)
    k.tensor_load(A, (0, 0), S, barrier=bar[0], pred=one, map=M)
    k.mbarrier_wait(bar[0], 0)
    k.copy(C[tid, :], S[tid, :])
    k.expect_equal(C, B)
    return k


def test_a_map_edited_on_the_device_is_written_in_python_as_in_its_spec():
    k = tensormap_retarget_global()
    assert k.diagnostics() == []
    with open(os.path.join(SOURCE_DIR, "golden", "tma", "tensormap_retarget_global.ptx")) as f:
        golden = f.read()
    body = lambda ptx: [l for l in ptx.splitlines() if not l.startswith("//")]
    assert body(k.emit()) == body(golden)
    spec = ptxgen.load(os.path.join(SOURCE_DIR, "specs", "tma", "tensormap_retarget_global.toml"))
    assert ptxgen.loads(k.to_toml()).emit() == spec.emit()


def test_a_copy_through_an_edited_map_without_its_fence_is_refused_at_the_copy_line():
    tid = ptxgen.tid
    one = tid == 0
    k = ptxgen.Kernel("k", grid=1, block=32)
    A = k.global_tensor("A", (32, 16), "uint8", map=ptxgen.TensorMap(box=(32, 16)))
    B = k.global_tensor("B", (32, 16), "uint8")
    M = k.global_tensor("M", (128,), "uint8", align=128)
    S = k.shared_tensor("S", (32, 16), "uint8")
    bar = k.shared_tensor("bar", (1,), "uint64")
    k.mbarrier_init(bar[0], 1)
    k.cta_sync()
    k.tensormap_copy(A, M, pred=one)
    k.tensormap_replace(A, M, "global_address", address=B, pred=one)
    k.expect_tx(bar[0], 512, pred=one)
    k.tensor_load(A, (0, 0), S, barrier=bar[0], pred=one, map=M)  # no release, no acquire
    line = inspect.currentframe().f_lineno - 1
    k.mbarrier_wait(bar[0], 0)
    found = {d.id: d for d in k.check()}
    assert found["contract_tensormap_fence"].line == line
    assert found["contract_tensormap_fence"].file == __file__
    with pytest.raises(ptxgen.ArgumentError):
        k.tensormap_fence(M, "both")
    with pytest.raises(ptxgen.ArgumentError):
        k.tensormap_replace(A, M, "global_dim", address=B)
