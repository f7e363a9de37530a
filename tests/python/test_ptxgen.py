"""The Python module `ptxgen` (docs/python.md): every exposed function, with its failure
paths (a refused spec, ptxas rejecting, no GPU). CTest runs it (tests/python.cmake)."""
import inspect
import os
import re
import threading

import numpy as np
import pytest

import ptxgen
from conftest import seed


def here() -> int:
    """The caller's line: where a diagnostic about the previous call must point."""
    return inspect.currentframe().f_back.f_lineno


def body_of(ptx: str) -> str:
    """PTX without its leading comment lines (they name the generator)."""
    return "".join(l for l in ptx.splitlines(keepends=True) if not l.startswith("//"))


def test_version_is_the_projects(source_dir):
    with open(os.path.join(source_dir, "CMakeLists.txt")) as f:
        version = re.search(r"project\(ptxgen VERSION ([0-9.]+)", f.read()).group(1)
    assert ptxgen.__version__ == version


def test_seed_built_in_python_emits_the_golden_ptx(source_dir):
    with open(os.path.join(source_dir, "golden/seed/copy_async.ptx")) as f:
        golden = f.read()
    assert body_of(seed().emit(target="sm_80")) == body_of(golden)


def test_load_and_loads_give_the_same_kernel_as_the_builder(source_dir):
    path = os.path.join(source_dir, "specs/seed/copy_async.toml")
    loaded = ptxgen.load(path)
    assert loaded.name == "copy_async"
    with open(path) as f:
        text = f.read()
    assert body_of(ptxgen.loads(text).emit()) == body_of(seed().emit())
    assert body_of(loaded.emit()) == body_of(seed().emit())


def test_to_toml_reads_back_to_the_same_ptx():
    k = seed()
    assert body_of(ptxgen.loads(k.to_toml()).emit()) == body_of(k.emit())


def test_a_spec_that_does_not_load_raises_with_positions():
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.loads("[kernel]\nname = \"k\"\ngrid = 1\nblock = 0\n", name="bad.toml")
    assert e.value.stage == "load"
    d = next(x for x in e.value.diagnostics if x.line == 4)
    assert d.file == "bad.toml" and d.column >= 1 and "block" in d.source_line
    assert d.caret[1] > d.caret[0] and d.severity == "error" and d.id.startswith("spec_")
    with pytest.raises(ptxgen.Error):
        ptxgen.load("/nonexistent/ptxgen-test.toml")


def refused_kernel():
    k = ptxgen.Kernel("refused", grid=1, block=128)
    A = k.global_tensor("A", (128, 32), "float16")
    s = k.shared_tensor("s", (128, 32), "float16")
    k.global_tensor("tid", (4,), "uint8")
    bad_name = here() - 1
    k.apply("cp.async.cg.shared.global", s[ptxgen.tid, 0:4], A[ptxgen.tid, 0:4], 8)
    bad_chunk = here() - 1
    k.wait_all()
    return k, bad_name, bad_chunk


def test_check_reports_every_error_at_the_python_lines():
    k, bad_name, bad_chunk = refused_kernel()
    found = {d.id: d for d in k.check()}
    assert found["spec_reserved_name"].line == bad_name
    assert found["contract_cg_chunk"].line == bad_chunk
    assert found["contract_cg_chunk"].file == __file__
    assert "spec_reserved_name" in [d.id for d in k.diagnostics()]


def test_a_refused_kernel_raises_one_error_type_carrying_the_diagnostics():
    k, _, bad_chunk = refused_kernel()
    with pytest.raises(ptxgen.Error) as e:
        k.emit()
    assert e.value.stage == "emit"
    assert "contract_cg_chunk" in [d.id for d in e.value.diagnostics]
    assert "contract_cg_chunk" in str(e.value)
    with pytest.raises(ptxgen.Error) as e:
        k.run()
    assert e.value.stage == "emit"


def test_emit_takes_the_target_and_the_ptx_version():
    ptx = seed().emit(target="sm_90a", ptx_version="8.0")
    assert ".target sm_90a" in ptx and ".version 8.0" in ptx
    with pytest.raises(ValueError):
        seed().emit(target="sm90")
    with pytest.raises(ValueError):
        seed().emit(ptx_version="eight")


def test_expressions_and_views_spell_as_the_spec():
    assert str(ptxgen.tid + 1) == "tid + 1"
    assert str(2 * ptxgen.warp) == "2 * warp"
    assert str(ptxgen.select(ptxgen.lane < 16, 16, 0)) == "lane < 16 ? 16 : 0"
    assert str(ptxgen.min(ptxgen.bid, 3)) == "min(bid, 3)"
    assert str(ptxgen.special("ntid.x")) == "ntid.x"
    k = ptxgen.Kernel("views", grid=1, block=32)
    A = k.global_tensor("A", (32, 16), "uint8")
    assert A[ptxgen.tid, 4:].text == "A.sub[tid, 4:]"
    assert A.sub(ptxgen.tid).view("uint32").dtype == "uint32"
    assert k.view("A.sub[tid, :]").ok
    bad = A.rearrange("(r v) w -> r v w", v=5)
    assert not bad.ok and bad.error is not None and bad.error.severity == "error"
    with pytest.raises(ValueError):
        ptxgen.special("nope")


def test_loops_fill_and_the_ops_build_and_emit(real_ptxas):
    k = ptxgen.Kernel("ops", grid=2, block=(32, 2))
    n = k.param_u32("n", 2, range=(1, 4))
    A = k.global_tensor("A", (2, 4, 64, 16), "uint8", init=ptxgen.random_init(3))
    B = k.global_tensor("B", (2, 4, 64, 16), "uint8", output=True)
    S = k.shared_tensor("S", (64, 16), "uint8")
    with k.loop("i", 0, n) as i:
        k.apply("cp.async.ca.shared.global", S[ptxgen.tid, :], A[ptxgen.bid, i, ptxgen.tid, :],
                16, src_size=16)
        k.commit_group()
        k.wait_group(0)
        k.copy(B[ptxgen.bid, i, ptxgen.tid, :], S[ptxgen.tid, :])
        k.cta_sync()
    j = k.begin_for("j", n, 4)
    k.fill(B[ptxgen.bid, j, ptxgen.tid, :], b"\x5a")
    k.end_for()
    k.wait_all()
    assert k.check() == [] or all(d.severity != "error" for d in k.check())
    assert "cp.async.ca.shared.global" in k.emit()
    r = k.run(n=3)
    assert r.passed, r.detail
    assert (r.outputs["B"][:, 3] == 0x5A).all()
    with pytest.raises(ptxgen.Error):
        k.run(n=9)  # outside its declared range


def test_pipeline_builds_its_prologue_and_steady_state(real_ptxas):
    k = ptxgen.Kernel("pipe", grid=1, block=128)
    A = k.global_tensor("A", (6, 128, 16), "uint8", init=ptxgen.random_init(1))
    B = k.global_tensor("B", (6, 128, 16), "uint8", output=True)
    ring = k.shared_tensor("ring", (3, 128, 16), "uint8")
    t = ptxgen.tid
    k.pipeline(lambda v: k.apply("cp.async.cg.shared.global", ring[v.stage, t, :],
                                 A[v.tile, t, :], 16),
               lambda v: k.copy(B[v.tile, t, :], ring[v.stage, t, :]), stop=6, stages=3)
    k.expect_equal(B, A)
    ptx = k.emit()
    # stages - 1 = 2 prologue loads, then the steady state's one load and wait_group stages - 2
    assert ptx.count("cp.async.cg.shared.global") == 3
    assert "cp.async.wait_group 1;" in ptx
    assert k.run().passed


@pytest.mark.parametrize("noinc", [True, False])
def test_mbarriers_build_and_run(real_ptxas, noinc):
    k = ptxgen.Kernel("mbar", grid=1, block=32)
    A = k.global_tensor("A", (32, 16), "uint8", init=ptxgen.random_init(2))
    B = k.global_tensor("B", (32, 16), "uint8", output=True)
    S = k.shared_tensor("S", (32, 16), "uint8")
    bar = k.shared_tensor("bar", (1,), "uint64")
    k.mbarrier_init(bar[0], 32)
    k.cta_sync()
    k.apply("cp.async.cg.shared.global", S[ptxgen.tid, :], A[ptxgen.tid, :], 16)
    k.copy_arrive(bar[0], noinc=noinc)  # with noinc it is the thread's arrival
    if not noinc:
        k.mbarrier_arrive(bar[0])
    k.mbarrier_wait(bar[0], 0)
    k.copy(B[ptxgen.tid, :], S[ptxgen.tid, :])
    k.expect_equal(B, A)
    assert "mbarrier" in k.emit()
    assert k.run().passed


def test_cache_policies_and_expectations():
    k = ptxgen.Kernel("hint", grid=1, block=32)
    k.param_u64("pol", 0)
    A = k.global_tensor("A", (32, 16), "uint8", init=ptxgen.random_init(4))
    B = k.global_tensor("B", (32, 16), "uint8", output=True)
    S = k.shared_tensor("S", (32, 16), "uint8")
    k.apply("cp.async.cg.shared.global.L2::cache_hint", S[ptxgen.tid, :], A[ptxgen.tid, :], 16,
            cache_policy=ptxgen.policy_param("pol"))
    k.wait_all()
    k.copy(B[ptxgen.tid, :], S[ptxgen.tid, :])
    k.expect_equal(B, A)
    k.expect_sentinel(A)
    assert "L2::cache_hint" in k.emit()
    ptxgen.create_policy("evict_first")


def test_run_on_the_simulator_with_numpy_in_and_out(real_ptxas):
    x = (np.arange(4096) % 97).astype("float16").reshape(128, 32)
    r = seed().run(A=x * 0 + 5)
    assert r.passed and r.status == "pass"
    np.testing.assert_array_equal(r.outputs["B"], np.full((128, 32), 5, "float16"))
    np.testing.assert_array_equal(r.reference["B"], r.outputs["B"])
    assert set(r.timings) >= {"emit_ms", "ptxas_ms", "reference_ms", "launch_ms"}
    assert r.hazards == [] or all(h.severity != "error" for h in r.hazards)
    with pytest.raises(TypeError):
        seed().run(A=x.astype("float32"))
    with pytest.raises(ValueError):
        seed().run(A=x.reshape(64, 64))
    with pytest.raises(TypeError):
        seed().run(C=x)


def test_each_dtype_takes_the_numpy_array_of_its_bits():
    # numpy names the typed ones alike; bfloat16 and the untyped views are unsigned integers
    numpy_of = {"uint8": "uint8", "int8": "int8", "uint16": "uint16", "int16": "int16",
                "float16": "float16", "bfloat16": "uint16", "uint32": "uint32",
                "int32": "int32", "float32": "float32", "uint64": "uint64", "int64": "int64",
                "float64": "float64", "b8": "uint8", "b16": "uint16", "b32": "uint32",
                "b64": "uint64"}
    for dtype, numpy_name in numpy_of.items():
        k = ptxgen.Kernel("dtypes", grid=1, block=32)
        k.global_tensor("A", (4,), dtype)
        with pytest.raises(TypeError, match=rf"holds {dtype} \(numpy {numpy_name}\), not bool"):
            k.run(A=np.zeros(4, dtype=bool))


def test_a_planted_race_is_reported_at_the_python_line(real_ptxas):
    k = ptxgen.Kernel("race", grid=1, block=32)
    A = k.global_tensor("A", (32, 16), "uint8", init=ptxgen.random_init(5))
    B = k.global_tensor("B", (32, 16), "uint8", output=True)
    S = k.shared_tensor("S", (32, 16), "uint8")
    k.apply("cp.async.cg.shared.global", S[ptxgen.tid, :], A[ptxgen.tid, :], 16)
    k.commit_group()
    k.wait_all()
    k.copy(B[ptxgen.tid, :], S[(ptxgen.tid + 1) % 32, :])  # no cta_sync before it
    race_line = here() - 1
    r = k.run()
    assert not r.passed
    race = [h for h in r.hazards if h.id == "check_read_without_sync"]
    assert race and race[0].line == race_line and race[0].file == __file__


def test_ptxas_rejecting_raises_with_its_stage(fake_ptxas):
    ptx = seed().emit()
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.assemble(ptx, ptxas=fake_ptxas)
    assert e.value.stage == "ptxas"
    assert e.value.diagnostics[0].id == "run_ptxas_rejected"
    assert e.value.diagnostics[0].line == 6
    with pytest.raises(ptxgen.Error) as e:
        seed().run(ptxas=fake_ptxas)
    assert e.value.stage in ("ptxas", "setup")
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.assemble(ptx, ptxas="/nonexistent/ptxgen-test/ptxas")
    assert e.value.diagnostics[0].id == "run_ptxas_unavailable"


def test_assemble_and_resource_usage_with_the_real_ptxas(real_ptxas):
    ptx = seed().emit()
    cubin = ptxgen.assemble(ptx, target="sm_80")
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    usage = ptxgen.resource_usage(ptx, target="sm_80")
    assert usage[0].entry == "copy_async" and usage[0].registers > 0
    assert usage[0].shared_bytes == 8192


def test_the_gpu_runs_or_says_there_is_none(real_ptxas):
    try:
        r = seed().run(backend="cuda")
    except ptxgen.NoDeviceError as e:
        assert e.stage == "setup" and "GPU" in str(e)
        return
    assert r.passed, r.detail


def test_long_work_lets_other_python_threads_run(real_ptxas):
    # Two runs at once finish both: each releases the GIL while it emits and simulates.
    results = []
    threads = [threading.Thread(target=lambda: results.append(seed().run().passed))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True, True]


def test_a_run_without_ptxas_raises_at_setup():
    with pytest.raises(ptxgen.Error) as e:
        seed().run(ptxas="/nonexistent/ptxgen-test/ptxas")
    assert e.value.stage == "setup"


def test_operand_expressions_launch_shapes_and_value_expectations(real_ptxas):
    k = ptxgen.Kernel("rest")
    k.launch((1,), (32, 1))
    k.dynamic_shared(8192)
    A = k.global_tensor("A", (32, 16), "uint8", init=ptxgen.random_init(1))
    B = k.global_tensor("B", (32, 16), "uint8", output=True)
    S = k.shared_tensor("S", (32, 16), "uint8")
    n = k.param_u32("n", 8, range=(0, 8))
    t = ptxgen.tid
    # Four 4-byte chunks per row: chunk r copies min(n - 4r, 4) bytes and zero-fills the rest.
    k.apply("cp.async.ca.shared.global", S[t, :].rearrange("(r v) -> r v", v=4),
            A[t, :].rearrange("(r v) -> r v", v=4), 4,
            src_size=ptxgen.clamp(n - 4 * ptxgen.axis("r"), 0, 4),
            pred=ptxgen.logical_and(t < 32, ptxgen.logical_not(ptxgen.max(t, 40) < 40)))
    k.wait_all()
    k.copy(B[t, :], S[t, :])
    k.expect_value(B[0:32, 8:16], 0)
    assert [d for d in k.check() if d.severity == "error"] == []
    assert "dynamic_shared = 8192" in k.to_toml()
    a = np.arange(512, dtype=np.uint8).reshape(32, 16) | 1  # no zero byte
    r = k.run(A=a, n=5)
    assert r.passed, r.detail
    assert "sim" in r.backend and r.race is None
    np.testing.assert_array_equal(r.outputs["B"][:, :5], a[:, :5])
    assert (r.outputs["B"][:, 5:] == 0).all()


def test_expectations_over_rearranged_views(real_ptxas):
    def mirror(expected):
        k = ptxgen.Kernel("mirror", grid=1, block=4)
        A = k.global_tensor("A", (4, 4), "uint8", init=ptxgen.random_init(6))
        B = k.global_tensor("B", (4, 4), "uint8", output=True)
        k.copy(B[ptxgen.tid, :], A.rearrange("a b -> b a")[ptxgen.tid, :])  # B is A transposed
        k.expect_equal(B, expected(A))
        return k

    k = mirror(lambda A: A.rearrange("a b -> b a"))
    assert "B == A.rearrange(\"a b -> b a\")" in k.to_toml()
    r = k.run()
    assert r.passed, r.detail
    np.testing.assert_array_equal(r.outputs["B"], r.reference["B"])
    straight = mirror(lambda A: A).run()
    assert not straight.passed and "[check_expectation_failed]" in straight.detail
    # Sides of other shapes are refused at the call.
    k = ptxgen.Kernel("shapes", grid=1, block=4)
    A = k.global_tensor("A", (4, 4), "uint8")
    B = k.global_tensor("B", (4, 4), "uint8", output=True)
    k.expect_equal(B[0:2, :], A.rearrange("a b -> b a")[:, 0:2])
    line = here() - 1
    d = next(x for x in k.diagnostics() if x.id == "spec_expect_shape_mismatch")
    assert d.line == line and "is [4, 2] of uint8 but B.sub[0:2, :] is [2, 4] of uint8" in d.message


def tma_pipeline() -> ptxgen.Kernel:
    """specs/tma/pipeline_tma_2d_3stage.toml: a 3-stage TMA pipeline on the mbarrier ring."""
    k = ptxgen.Kernel("pipeline_tma_2d_3stage", grid=1, block=64)
    A = k.global_tensor("A", (128, 64), "float16", init=ptxgen.random_init(11),
                        map=ptxgen.TensorMap(box=(16, 64)))
    B = k.global_tensor("B", (128, 64), "float16", output=True)
    S = k.shared_tensor("S", (3, 16, 64), "float16")
    full = k.shared_tensor("full", (3,), "uint64")
    empty = k.shared_tensor("empty", (3,), "uint64")
    t = ptxgen.tid
    k.pipeline(lambda v: k.tensor_load(A, (v.tile * 16, 0), S[v.stage, :, :]),
               lambda v: k.copy(
                   B.rearrange("(t r) c -> t (r c)", t=8)[v.tile, :]
                   .rearrange("(t e) -> t e", t=64)[t, :],
                   S[v.stage, :, :].rearrange("r c -> (r c)").rearrange("(t e) -> t e", t=64)[t, :]),
               stop=8, stages=3, full=lambda v: full[v.stage], empty=lambda v: empty[v.stage])
    k.expect_equal(B, A)
    return k


def test_tma_pipeline_emits_the_golden_ptx_and_runs_on_the_simulator(source_dir, real_ptxas):
    with open(os.path.join(source_dir, "golden/tma/pipeline_tma_2d_3stage.ptx")) as f:
        golden = f.read()
    k = tma_pipeline()
    assert body_of(k.emit(target="sm_90")) == body_of(golden)
    assert body_of(ptxgen.loads(k.to_toml()).emit(target="sm_90")) == body_of(golden)
    # run() emits for the oldest target the kernel's ops allow (sm_90 here).
    x = (np.arange(128 * 64) % 251).astype("float16").reshape(128, 64)
    r = k.run(backend="sim", A=x)
    assert r.passed, r.detail
    # the backend line names the target the PTX was emitted and assembled for
    assert "PTX for sm_90, assembled by" in r.backend and "sm_80" not in r.backend, r.backend
    np.testing.assert_array_equal(r.outputs["B"], x)


def test_tma_maps_bulk_ops_and_their_errors_at_the_python_lines():
    k = ptxgen.Kernel("tma_ops", grid=1, block=32)
    A = k.global_tensor("A", (64, 64), "float16",
                        map={"box": (8, 64), "swizzle": "128B", "l2_promotion": "128B"})
    B = k.global_tensor("B", (8, 64), "float16", output=True)
    S = k.shared_tensor("S", (8, 64), "float16", align=1024, swizzle="128B")
    R = k.shared_tensor("R", (8, 64), "float16")
    bar = k.shared_tensor("bar", (1,), "uint64")
    k.abi(["A.map", "B"])
    k.mbarrier_init(bar[0], 1)
    k.cta_sync()
    one = ptxgen.tid == 0
    k.expect_tx(bar[0], 512, pred=one)  # the box is 1024 bytes: the phase completes early
    k.tensor_load(A, (0, 0), S, barrier=bar[0], pred=one)
    k.tensor_load(B, (0, 0), S, barrier=bar[0], pred=one)  # B has no map
    unmapped = here() - 1
    k.mbarrier_wait(bar[0], 0)
    early = here() - 1
    k.proxy_fence()
    k.proxy_fence(space="all")
    with pytest.raises(ptxgen.ArgumentError):
        k.proxy_fence(space="shared")
    k.bulk_store(B, R, pred=one)
    k.bulk_commit()
    k.bulk_wait(0, read=True)
    k.bulk_store(B, R, pred=one, cache_policy=ptxgen.policy_param("pol"))  # no such parameter
    no_policy = here() - 1
    found = {d.id: d for d in k.check(target="sm_90")}
    assert found["contract_policy_param_unknown"].line == no_policy
    assert found["spec_tensor_map_missing"].line == unmapped
    assert found["spec_tensor_map_missing"].file == __file__
    assert found["contract_mbarrier_tx"].line == early
    with pytest.raises(ptxgen.Error) as e:
        k.emit(target="sm_90")
    assert e.value.stage == "emit"
    assert {d.id for d in e.value.diagnostics} == set(found)
    assert ptxgen.TensorMap(box=(8, 64), swizzle="64B").swizzle == "64B"
    with pytest.raises(ValueError):
        ptxgen.TensorMap(box=(8, 64), swizzle="96B")
    with pytest.raises(ValueError):
        k.shared_tensor("T", (8,), "uint8", swizzle="none ")


def im2col_nhwc_pad() -> ptxgen.Kernel:
    """specs/tma/im2col_nhwc_pad.toml: one im2col load of a padded 3x3 convolution's input."""
    k = ptxgen.Kernel("tma_im2col_nhwc_pad", grid=1, block=64)
    A = k.global_tensor("A", (1, 8, 8, 16), "float16", init=ptxgen.arange_mod(251),
                        map=ptxgen.TensorMap(mode="im2col", lower_corner=(-1, -1),
                                             upper_corner=(-1, -1), channels=16, pixels=64))
    B = k.global_tensor("B", (8, 8, 16), "float16", output=True)
    S = k.shared_tensor("S", (8, 8, 16), "float16")
    bar = k.shared_tensor("bar", (1,), "uint64")
    one = ptxgen.tid == 0
    k.mbarrier_init(bar[0], 1)
    k.cta_sync()
    k.expect_tx(bar[0], 2048, pred=one)
    k.tensor_load(A, (0, -1, -1, 0), S, barrier=bar[0], pred=one, offsets=(0, 0))
    k.mbarrier_wait(bar[0], 0)
    t = ptxgen.tid
    k.copy(B.rearrange("h w c -> (h w) c")[t, :], S.rearrange("h w c -> (h w) c")[t, :])
    return k


def test_im2col_map_and_load_emit_the_golden_ptx_and_refuse_at_the_python_lines(source_dir):
    with open(os.path.join(source_dir, "golden/tma/im2col_nhwc_pad.ptx")) as f:
        golden = f.read()
    k = im2col_nhwc_pad()
    assert body_of(k.emit(target="sm_90")) == body_of(golden)
    assert body_of(ptxgen.loads(k.to_toml()).emit(target="sm_90")) == body_of(golden)
    m = ptxgen.TensorMap(mode="im2col", lower_corner=(-1,), upper_corner=(-1,), channels=16,
                         pixels=32)
    assert m.mode == "im2col" and m.lower_corner == [-1] and m.pixels == 32
    with pytest.raises(ValueError):
        ptxgen.TensorMap(mode="im2row")
    bad = ptxgen.Kernel("im2col_bad", grid=1, block=32)
    A = bad.global_tensor("A", (1, 8, 8, 16), "float16",
                          map=ptxgen.TensorMap(mode="im2col", lower_corner=(-1, -1),
                                               upper_corner=(-1, -1), channels=16, pixels=64))
    S = bad.shared_tensor("S", (64, 16), "float16")
    bar = bad.shared_tensor("bar", (1,), "uint64")
    bad.tensor_load(A, (0, -1, -1, 0), S, barrier=bar[0], offsets=(0,))  # H and W: two
    line = here() - 1
    d = next(x for x in bad.diagnostics() if x.id == "spec_im2col_offsets")
    assert d.line == line and "one per spatial dimension (2" in d.message


def test_bulk_reduce_lowers_to_cp_reduce_async_bulk_and_refuses_a_pair_at_its_line():
    k = ptxgen.Kernel("reduce_ops", grid=1, block=32)
    A = k.global_tensor("A", (256,), "float32")
    B = k.global_tensor("B", (256,), "float32", output=True)
    S = k.shared_tensor("S", (256,), "float32")
    bar = k.shared_tensor("bar", (1,), "uint64")
    one = ptxgen.tid == 0
    k.mbarrier_init(bar[0], 1)
    k.cta_sync()
    k.expect_tx(bar[0], 1024, pred=one)
    k.bulk_load(S, A, barrier=bar[0], pred=one)
    k.mbarrier_wait(bar[0], 0)
    k.bulk_reduce(B, S, "add", pred=one)
    k.bulk_commit()
    k.bulk_wait(0)
    ptx = k.emit(target="sm_90")
    assert "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32" in ptx
    with pytest.raises(ptxgen.ArgumentError):
        k.bulk_reduce(B, S, "mul", pred=one)
    k.bulk_reduce(B, S, "min", pred=one)  # no .min.f32 form
    no_form = here() - 1
    found = {d.id: d for d in k.check(target="sm_90")}
    assert found["contract_reduce_type"].line == no_form
    assert found["contract_reduce_type"].file == __file__


def test_tensor_reduce_lowers_and_refuses_a_pair_of_the_map_at_its_line():
    k = ptxgen.Kernel("tensor_reduce_ops", grid=1, block=32)
    A = k.global_tensor("A", (16, 64), "int32", map=ptxgen.TensorMap(box=(16, 32)))
    B = k.global_tensor("B", (16, 64), "int32", output=True, map=ptxgen.TensorMap(box=(16, 32)))
    S = k.shared_tensor("S", (16, 32), "int32")
    bar = k.shared_tensor("bar", (1,), "uint64")
    one = ptxgen.tid == 0
    k.prefetch_tensormap(B, pred=one)
    k.mbarrier_init(bar[0], 1)
    k.cta_sync()
    k.expect_tx(bar[0], 2048, pred=one)
    k.tensor_load(A, (0, 0), S, barrier=bar[0], pred=one)
    k.mbarrier_wait(bar[0], 0)
    k.tensor_reduce(B, (0, 32), S, "max", pred=one)
    k.bulk_commit()
    k.bulk_wait(0)
    ptx = k.emit(target="sm_90")
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group" in ptx
    assert "prefetch.tensormap [%rd" in ptx
    with pytest.raises(ptxgen.ArgumentError):
        k.tensor_reduce(B, (0, 0), S, "mul", pred=one)
    k.tensor_reduce(B, (0, 0), S, "inc", pred=one)  # inc takes a uint32 map only
    no_form = here() - 1
    found = {d.id: d for d in k.check(target="sm_90")}
    assert found["contract_tensor_reduce_type"].line == no_form
    assert found["contract_tensor_reduce_type"].file == __file__


def test_tma_kernels_emit_for_sm_90_only():
    # Without a target emit raises sm_80 to what the ops need, and says so; an explicit
    # older target is the caller's choice, refused by the feature gates.
    ptx = tma_pipeline().emit()
    assert ".target sm_90\n" in ptx and "// For sm_90: the kernel's ops need it." in ptx
    assert body_of(ptx) == body_of(tma_pipeline().emit(target="sm_90"))
    assert tma_pipeline().check() == []
    with pytest.raises(ptxgen.Error) as e:
        tma_pipeline().emit(target="sm_80")
    assert {d.id for d in e.value.diagnostics} == {"ptx_feature_target"}
    assert {d.id for d in tma_pipeline().check(target="sm_80")} == {"ptx_feature_target"}


def test_warp_specialized_tma_ring_emits_the_golden_ptx(source_dir):
    """specs/ws/pipeline_ws_tma_warpgroups.toml: producer_warps, setmaxnreg and a named barrier."""
    k = ptxgen.Kernel("pipeline_ws_tma_warpgroups", grid=1, block=256)
    k.ctas_per_sm(2)
    A = k.global_tensor("A", (128, 64), "float16", init=ptxgen.random_init(4),
                        map=ptxgen.TensorMap(box=(16, 64)))
    B = k.global_tensor("B", (128, 64), "float16", output=True)
    S = k.shared_tensor("S", (3, 16, 64), "float16")
    full = k.shared_tensor("full", (3,), "uint64")
    empty = k.shared_tensor("empty", (3,), "uint64")
    c = ptxgen.max(ptxgen.tid, 128) - 128
    k.pipeline(lambda v: k.tensor_load(A, (v.tile * 16, 0), S[v.stage, :, :]),
               lambda v: k.copy(
                   B.rearrange("(t r) c -> t (r c)", t=8)[v.tile, :]
                   .rearrange("(t e) -> t e", t=128)[c, :],
                   S[v.stage, :, :].rearrange("r c -> (r c)")
                   .rearrange("(t e) -> t e", t=128)[c, :]),
               stop=8, stages=3, full=lambda v: full[v.stage], empty=lambda v: empty[v.stage],
               producer_warps=4, producer_regs=40, consumer_regs=216, consumer_barrier=1)
    k.expect_equal(B, A)
    with open(os.path.join(source_dir, "golden/ws/pipeline_ws_tma_warpgroups.ptx")) as f:
        assert body_of(k.emit()) == body_of(f.read())
    # The keys of the roles need producer_warps.
    bad = ptxgen.Kernel("bad", grid=1, block=256)
    S2 = bad.shared_tensor("S", (3, 512), "uint8")
    G = bad.global_tensor("G", (8, 512), "uint8")
    f2 = bad.shared_tensor("full", (3,), "uint64")
    e2 = bad.shared_tensor("empty", (3,), "uint64")
    with pytest.raises(ptxgen.Error) as e:
        bad.pipeline(lambda v: bad.bulk_load(S2[v.stage, :], G[v.tile, :]),
                     lambda v: bad.copy(G[v.tile, :], S2[v.stage, :]),
                     stop=8, stages=3, full=lambda v: f2[v.stage], empty=lambda v: e2[v.stage],
                     consumer_barrier=1)
        bad.emit()
    assert "spec_pipeline_producer_warps" in {d.id for d in e.value.diagnostics}


def test_multicast_ws_ring_emits_the_golden_ptx(source_dir):
    """specs/ws/pipeline_ws_multicast_bulk.toml: the warp-specialized ring's multicast form."""
    def build(multicast, consumer_barrier=1, cluster=True):
        k = ptxgen.Kernel("pipeline_ws_multicast_bulk", grid=4, block=96)
        if cluster:
            k.cluster(2)
        A = k.global_tensor("A", (2, 6, 512), "uint8", init=ptxgen.random_init(17))
        B = k.global_tensor("B", (4, 6, 512), "uint8", output=True)
        S = k.shared_tensor("S", (3, 512), "uint8")
        full = k.shared_tensor("full", (3,), "uint64")
        empty = k.shared_tensor("empty", (3,), "uint64")
        rank, cluster_id = ptxgen.special("cluster_rank"), ptxgen.special("cluster_id")
        c = ptxgen.max(ptxgen.tid, 32) - 32
        part = lambda v: v.rearrange("(t e) -> t e", t=64)[c, :]
        k.pipeline(lambda v: k.bulk_load(
                       S.rearrange("s (r e) -> s r e", r=2)[v.stage, rank, :],
                       A.rearrange("c k (r e) -> c k r e", r=2)[cluster_id, v.tile, rank, :]),
                   lambda v: k.copy(part(B[ptxgen.bid, v.tile, :]), part(S[v.stage, :])),
                   stop=6, stages=3, full=lambda v: full[v.stage],
                   empty=lambda v: empty[v.stage], producer_warps=1,
                   consumer_barrier=consumer_barrier, multicast=multicast)
        return k
    ptx = build(True).emit()
    with open(os.path.join(source_dir, "golden/ws/pipeline_ws_multicast_bulk.ptx")) as f:
        assert body_of(ptx) == body_of(f.read())
    assert ".multicast::cluster" in ptx
    assert "multicast = '3'\n" in build(True).to_toml()
    # The multicast form needs the consumers' named barrier and a cluster.
    with pytest.raises(ptxgen.Error) as e:
        build(True, consumer_barrier=None).emit()
    assert "spec_missing_key" in {d.id for d in e.value.diagnostics}
    with pytest.raises(ptxgen.Error) as e:
        build(True, cluster=False).emit()
    assert "spec_cluster_undeclared" in {d.id for d in e.value.diagnostics}


def test_multicast_ws_ring_with_row_and_column_masks_emits_the_golden_ptx(source_dir):
    """specs/ws/pipeline_ws_multicast_rows_cols.toml: each load's own mask, a 2 x 2 cluster's
    row for A and column for B; a mask that moves with the tile is refused at the mask."""
    def build(a_mask):
        k = ptxgen.Kernel("pipeline_ws_multicast_rows_cols", grid=(4, 2), block=160)
        k.cluster((2, 2))
        A = k.global_tensor("A", (64, 384), "float16", init=ptxgen.random_init(41),
                            map=ptxgen.TensorMap(box=(8, 64)))
        B = k.global_tensor("B", (64, 384), "float16", init=ptxgen.random_init(42),
                            map=ptxgen.TensorMap(box=(8, 64)))
        OA = k.global_tensor("OA", (8, 6, 16, 64), "float16", output=True)
        OB = k.global_tensor("OB", (8, 6, 16, 64), "float16", output=True)
        SA = k.shared_tensor("SA", (3, 16, 64), "float16")
        SB = k.shared_tensor("SB", (3, 16, 64), "float16")
        full = k.shared_tensor("full", (3,), "uint64")
        empty = k.shared_tensor("empty", (3,), "uint64")
        rank, cluster_id = ptxgen.special("cluster_rank"), ptxgen.special("cluster_id")
        row, column = rank // 2, rank % 2
        c = ptxgen.max(ptxgen.tid, 32) - 32
        half = lambda v, h: v.rearrange("(h r) c -> h r c", h=2)[h, :, :]
        part = lambda v: v.rearrange("r c -> (r c)").rearrange("(t e) -> t e", t=128)[c, :]

        def loads(v):
            k.tensor_load(A, ((cluster_id * 2 + row) * 16 + column * 8, v.tile * 64),
                          half(SA[v.stage, :, :], column), multicast=a_mask(v, row))
            k.tensor_load(B, ((cluster_id * 2 + column) * 16 + row * 8, v.tile * 64),
                          half(SB[v.stage, :, :], row), multicast=5 << column)

        def body(v):
            k.copy(part(OA[ptxgen.bid, v.tile, :, :]), part(SA[v.stage, :, :]))
            k.copy(part(OB[ptxgen.bid, v.tile, :, :]), part(SB[v.stage, :, :]))
        k.pipeline(loads, body, stop=6, stages=3, full=lambda v: full[v.stage],
                   empty=lambda v: empty[v.stage], producer_warps=1, consumer_barrier=1,
                   multicast=True)
        return k
    ptx = build(lambda v, row: 3 << (2 * row)).emit()
    with open(os.path.join(source_dir, "golden/ws/pipeline_ws_multicast_rows_cols.ptx")) as f:
        assert body_of(ptx) == body_of(f.read())
    with pytest.raises(ptxgen.Error) as e:
        build(lambda v, row: 3 << (2 * (v.tile % 2))).emit()
    assert "spec_pipeline_multicast_mask" in {d.id for d in e.value.diagnostics}


def test_bulk_load_ring_inside_a_loop_emits_the_golden_ptx(source_dir):
    """specs/tma/pipeline_bulk_outer_loop.toml: a bulk_load ring carried on by ring_offset."""
    k = ptxgen.Kernel("pipeline_bulk_outer_loop", grid=1, block=32)
    A = k.global_tensor("A", (3, 4, 512), "uint32", init=ptxgen.random_init(5))
    B = k.global_tensor("B", (3, 4, 512), "uint32", output=True)
    S = k.shared_tensor("S", (3, 512), "uint32")
    full = k.shared_tensor("full", (3,), "uint64")
    empty = k.shared_tensor("empty", (3,), "uint64")
    t = ptxgen.tid
    with k.loop("m", 0, 3) as m:
        k.pipeline(lambda v: k.bulk_load(S[v.stage, :], A[m, v.tile, :]),
                   lambda v: k.copy(B[m, v.tile, :].rearrange("(t e) -> t e", t=32)[t, :],
                                    S[v.stage, :].rearrange("(t e) -> t e", t=32)[t, :]),
                   stop=4, stages=3, full=lambda v: full[v.stage],
                   empty=lambda v: empty[v.stage], ring_offset=m * 4)
    k.expect_equal(B, A)
    with open(os.path.join(source_dir, "golden/tma/pipeline_bulk_outer_loop.ptx")) as f:
        assert body_of(k.emit(target="sm_90")) == body_of(f.read())
