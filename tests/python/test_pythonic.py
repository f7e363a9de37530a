"""The module behaves as Python expects: expressions refuse truth values, keywords and help()
carry the declared names, errors are ptxgen.Error subclasses, and reprs are useful."""
import pytest

import ptxgen
from conftest import seed


def rows_kernel():
    k = ptxgen.Kernel("rows", grid=1, block=32)
    A = k.global_tensor("A", (32, 8), "uint32", init=ptxgen.arange_mod(97))
    return k, A


# ------------------------------------------------------------------ truth values

def test_an_expression_has_no_truth_value():
    t = ptxgen.tid
    with pytest.raises(TypeError, match="ptxgen.max"):
        bool(t < 8)
    with pytest.raises(TypeError, match="ptxgen.select"):
        if t:
            pass


def test_pythons_max_min_and_chained_comparisons_raise_instead_of_building_wrong_kernels():
    k, A = rows_kernel()
    with pytest.raises(TypeError):
        A[max(ptxgen.tid, 0), :]
    with pytest.raises(TypeError):
        A[min(ptxgen.tid, 31)]
    with pytest.raises(TypeError):
        ptxgen.select(0 < ptxgen.tid < 8, ptxgen.tid, 0)
    with pytest.raises(TypeError):
        ptxgen.tid < 8 and ptxgen.tid > 2
    # The module's own functions say the same thing, spelled as the spec spells it.
    assert str(ptxgen.max(ptxgen.tid, 0)) == "max(tid, 0)"
    assert A[ptxgen.min(ptxgen.tid, 31)].text == "A.sub[min(tid, 31)]"


# ------------------------------------------------------------------ argument errors

def raises_argument(kind, call, *fragments):
    with pytest.raises(kind) as e:
        call()
    assert isinstance(e.value, ptxgen.Error)
    assert e.value.stage == "argument"
    text = str(e.value)
    assert "compile in debug mode" not in text and "Unable to cast" not in text
    for f in fragments:
        assert f in text, text
    return e.value


def test_the_error_types_are_ptxgen_errors_and_the_builtin_kinds():
    assert issubclass(ptxgen.ArgumentError, ptxgen.Error)
    assert issubclass(ptxgen.ArgumentError, ValueError)
    assert issubclass(ptxgen.ArgumentTypeError, ptxgen.Error)
    assert issubclass(ptxgen.ArgumentTypeError, TypeError)


def test_every_bad_argument_is_a_ptxgen_error_naming_the_expected_and_the_given():
    import numpy as np
    k = seed()
    raises_argument(ptxgen.ArgumentTypeError, lambda: k.run(n=-1), "'n'", "no global tensor or parameter")
    k2 = ptxgen.Kernel("p", grid=1, block=32)
    k2.param_u32("n", 4, range=(1, 8))
    raises_argument(ptxgen.ArgumentError, lambda: k2.run(n=-1), "0..4294967295", "-1")
    raises_argument(ptxgen.ArgumentTypeError, lambda: k2.run(n=2.5), "takes an int", "float 2.5")
    raises_argument(ptxgen.ArgumentTypeError, lambda: k2.run(n="2"), "takes an int", "str '2'")
    raises_argument(ptxgen.ArgumentTypeError, lambda: ptxgen.Kernel("b", block="32"),
                    "block takes an int or a tuple", "str '32'")
    A = k.global_tensor("X", (4, 8), "uint32")
    raises_argument(ptxgen.ArgumentTypeError, lambda: A[0.5], "takes a ptxgen.Expr or an int",
                    "float 0.5")
    loop = k.loop("i", 0, 4)
    raises_argument(ptxgen.ArgumentTypeError, lambda: A[loop], "ptxgen.Loop", "as i:")
    loop.__enter__()  # entered, so it does not warn; closed again below
    k.end_for()
    raises_argument(ptxgen.ArgumentError, lambda: ptxgen.Kernel("x").param_u32("n", -1),
                    "0..4294967295", "-1")
    raises_argument(ptxgen.ArgumentError, lambda: ptxgen.Kernel("x").param_u32("n", 2**33),
                    "0..4294967295", str(2**33))
    raises_argument(ptxgen.ArgumentError, lambda: k.run(A=np.zeros((4, 4), "float16")),
                    "(128, 32)", "(4, 4)")
    raises_argument(ptxgen.ArgumentError, lambda: k.run(A=np.zeros((128, 32), ">f2")),
                    "byte order >f2", "little-endian <f2")
    raises_argument(ptxgen.ArgumentTypeError, lambda: k.run(A=[1, 2]), "numpy array", "list")
    raises_argument(ptxgen.ArgumentError, lambda: ptxgen.Kernel("x", grid=(1, 2, 3, 4)),
                    "1 to 3", "4")


def test_a_kernel_name_that_is_no_identifier_is_refused_at_once():
    raises_argument(ptxgen.ArgumentError, lambda: ptxgen.Kernel("my kernel"), "'my kernel'",
                    "identifier")
    assert ptxgen.Kernel("my_kernel").name == "my_kernel"


# ------------------------------------------------------------------ indices, views, dtypes

def test_indices_mean_what_numpy_means():
    k, A = rows_kernel()
    assert A[-1].text == "A.sub[31]"
    assert A[-1, -2].text == "A.sub[31, 6]"
    assert A[..., 0].text == "A.sub[:, 0]"
    assert A[:, -4:].text == "A.sub[:, 4:]"
    assert A[2:-2, :].shape == (28, 8)
    assert A[0].shape == (8,)
    assert A.shape == (32, 8)
    assert A[ptxgen.tid, :].shape == (8,)
    raises_argument(ptxgen.ArgumentError, lambda: A[32], "-32..31", "32")
    raises_argument(ptxgen.ArgumentError, lambda: A[-33], "-32..31", "-33")
    raises_argument(ptxgen.ArgumentError, lambda: A[::2], "no step")
    raises_argument(ptxgen.ArgumentError, lambda: A[..., ...], "single ellipsis")


def test_numpy_dtypes_are_taken_where_a_dtype_name_is():
    import numpy as np
    k = ptxgen.Kernel("dtypes", grid=1, block=32)
    assert k.global_tensor("A", (4,), np.float16).dtype == "float16"
    assert k.global_tensor("B", (4,), np.dtype("f2")).dtype == "float16"
    assert k.shared_tensor("S", (4,), np.dtype("<u4")).dtype == "uint32"
    assert k.global_tensor("C", (4,), "uint32").view(np.uint16).dtype == "uint16"
    raises_argument(ptxgen.ArgumentError, lambda: k.global_tensor("D", (4,), np.dtype(">f2")),
                    "big-endian")
    raises_argument(ptxgen.ArgumentError, lambda: k.global_tensor("E", (4,), np.complex64),
                    "complex64")
    raises_argument(ptxgen.ArgumentError, lambda: k.global_tensor("F", (4,), "float17"),
                    "float17", "float16")


# ------------------------------------------------------------------ reprs, pickling, loops

def test_reprs_say_what_the_object_is():
    k = seed()
    # apply, commit_group, wait_group, cta_sync, copy
    assert repr(k) == "<ptxgen.Kernel 'copy_async' grid=1 block=128 tensors=3 ops=5>"
    assert repr(ptxgen.TensorMap(box=(16, 64), swizzle="128B")) == (
        "ptxgen.TensorMap(box=(16, 64), swizzle='128B', oob_fill='zero', l2_promotion='none')")
    assert repr(ptxgen.arange_mod(97)) == "ptxgen.arange_mod(97)"
    assert repr(ptxgen.create_policy("evict_first")) == (
        "ptxgen.create_policy('evict_first', fraction=1.0)")
    assert repr(ptxgen.policy_param("pol")) == "ptxgen.policy_param('pol')"
    (report,) = ptxgen.lint(LINT_PTX)
    assert repr(report.coverage).startswith("<ptxgen.LintCoverage lines_run=")


LINT_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
\tret;
}
"""


def test_a_kernel_pickles_and_deep_copies_through_its_spec():
    import copy
    import pickle
    k = seed()
    for twin in (pickle.loads(pickle.dumps(k)), copy.deepcopy(k)):
        assert twin.to_toml() == k.to_toml()
        assert twin.emit() == k.emit()
        assert repr(twin).endswith("loaded>")


def test_a_loop_never_entered_warns():
    k, A = rows_kernel()
    with pytest.warns(RuntimeWarning, match="never entered"):
        k.loop("i", 0, 4)
        import gc
        gc.collect()
    with k.loop("i", 0, 4) as i:
        k.copy(A[i, :], A[i, :]) if False else None
    assert k.diagnostics() == []


# ------------------------------------------------------------------ positions

def test_builder_diagnostics_carry_the_source_line_and_the_calls_column():
    k, A = rows_kernel()
    B = k.global_tensor("B", (32, 8), "uint32", output=True)
    k.copy(B[ptxgen.tid, :], A.rearrange("(a b) c -> a b c", a=5)[0, ptxgen.tid, :])  # 5 ∤ 32
    (d,) = k.diagnostics()
    assert d.source_line.strip().startswith("k.copy(B[ptxgen.tid, :], A.rearrange(")
    # The step that failed is the rearrange call: the caret is where it starts.
    assert d.column == d.source_line.index("A.rearrange(") + 1
    k.wait_group(-1)  # the builder refuses a negative count at the call
    (_, d) = k.diagnostics()
    assert d.source_line.strip() == "k.wait_group(-1)  # the builder refuses a negative count at the call"
    assert d.column == d.source_line.index("k.wait_group") + 1


def test_a_view_strings_error_lands_on_its_character_in_the_python_line():
    k, A = rows_kernel()
    v = k.view("A.sub[tid, 9:12]")
    assert not v.ok
    line = v.error.source_line
    assert line.strip().startswith('v = k.view("A.sub[tid, 9:12]")')
    # The caret is under the slice inside the string literal.
    assert line[v.error.column - 1:].startswith("9:12")


def test_a_target_below_the_kernels_ops_is_one_diagnostic():
    with pytest.raises(ptxgen.Error) as e:
        seed().emit(target="sm_75")
    errors = [d for d in e.value.diagnostics if d.severity == "error"]
    assert [d.id for d in errors] == ["ptx_feature_target"]
    assert "sm_80" in errors[0].message


def test_lint_tells_a_path_from_text_by_type(tmp_path):
    import pathlib
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.lint("/nonexistent/kernel.ptx")
    assert e.value.stage == "lint" and "/nonexistent/kernel.ptx" in str(e.value)
    with pytest.raises(ptxgen.Error):
        ptxgen.lint(pathlib.Path("/nonexistent/kernel.ptx"))
    path = tmp_path / "k.ptx"
    path.write_text(LINT_PTX)
    for given in (path, str(path)):
        (report,) = ptxgen.lint(given)
        assert report.file == str(path) and report.status == "clean"
    (report,) = ptxgen.lint(LINT_PTX)
    assert report.file == "<string>"
    with pytest.raises(ptxgen.ArgumentTypeError):
        ptxgen.lint(42)


def test_one_bad_apply_in_a_pipeline_is_one_diagnostic():
    k = ptxgen.Kernel("pipe", grid=1, block=128)
    A = k.global_tensor("A", (8, 128, 8), "float16", init=ptxgen.arange_mod(97))
    B = k.global_tensor("B", (8, 128, 8), "float16", output=True)
    S = k.shared_tensor("S", (2, 128, 8), "float16")
    per_thread = lambda v: v.rearrange("(r v) -> r v", v=4)
    k.pipeline(lambda v: k.apply("cp.async.cg.shared.global", per_thread(S[v.stage, ptxgen.tid, :]),
                                 per_thread(A[v.tile, ptxgen.tid, :]), chunk_bytes=8),
               lambda v: k.copy(B[v.tile, ptxgen.tid, :], S[v.stage, ptxgen.tid, :]), stop=8)
    # The loads stand in the prologue and in the steady state: one cause, one diagnostic.
    (d,) = k.check()
    assert d.id == "contract_cg_chunk"
    assert d.source_line[d.column - 1:].startswith('k.apply("cp.async.cg')


def test_pybinds_own_type_refusals_are_ptxgen_errors_too():
    k, A = rows_kernel()
    e = raises_argument(ptxgen.ArgumentTypeError, lambda: k.copy(A, "B"), "copy", "'B'")
    assert isinstance(e, TypeError)
    raises_argument(ptxgen.ArgumentTypeError, lambda: k.fill(A, "not bytes"), "fill")
    raises_argument(ptxgen.ArgumentTypeError, lambda: ptxgen.load(3), "load")
    # A callback's own TypeError is the callback's, not an argument error of the call.
    def loads(v):
        raise TypeError("the loads' own bug")
    S = k.shared_tensor("S", (2, 8), "uint32")
    with pytest.raises(TypeError, match="the loads' own bug") as e:
        k.pipeline(loads, lambda v: None, stop=4)
    assert not isinstance(e.value, ptxgen.Error)


def test_resource_usage_prints_its_figures(real_ptxas):
    (usage,) = ptxgen.resource_usage(seed().emit(), "sm_80", ptxas=real_ptxas)
    assert repr(usage) == (
        f"<ptxgen.ResourceUsage copy_async registers={usage.registers} "
        f"shared_bytes={usage.shared_bytes} stack_bytes={usage.stack_bytes} "
        f"spills={usage.spill_stores}/{usage.spill_loads}>")
    assert usage.shared_bytes == 128 * 32 * 2  # the shared tile, float16
