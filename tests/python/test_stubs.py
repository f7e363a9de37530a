"""The stubs are the module's: python/ptxgen.pyi is what tools/gen_pyi.py generates from the
built module (so its names are the bindings'), every public callable has a docstring, and
the keyword calls the stubs promise work."""
import ast
import importlib.util
import inspect
import os

import ptxgen
from conftest import SOURCE_DIR


def gen_pyi():
    path = os.path.join(SOURCE_DIR, "tools", "gen_pyi.py")
    spec = importlib.util.spec_from_file_location("gen_pyi", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_stubs_are_what_the_module_generates():
    with open(os.path.join(SOURCE_DIR, "python", "ptxgen.pyi"), encoding="utf-8") as f:
        checked_in = f.read()
    ast.parse(checked_in)  # a stub is Python
    assert checked_in == gen_pyi().generate(), (
        "python/ptxgen.pyi drifted from the bindings: regenerate it with "
        "PYTHONPATH=build/python python3 tools/gen_pyi.py > python/ptxgen.pyi")


def public_callables():
    for name, value in vars(ptxgen).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(value):
            if issubclass(value, BaseException):
                yield name, value
                continue
            for attr, member in vars(value).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, property):
                    yield f"{name}.{attr}", member
                elif callable(member):
                    yield f"{name}.{attr}", member
        elif callable(value):
            yield name, value


def test_every_public_callable_has_a_docstring_and_named_parameters():
    undocumented, unnamed = [], []
    for name, value in public_callables():
        lines = (value.__doc__ or "").splitlines()
        text = "\n".join(lines[1:] if lines and "->" in lines[0] else lines).strip()
        if not text:
            undocumented.append(name)
        if lines and "arg0" in lines[0] and not isinstance(value, (type, property)):
            unnamed.append(name)
    assert not undocumented, f"no docstring: {undocumented}"
    assert not unnamed, f"parameters named arg0: {unnamed}"


def test_help_shows_the_parameter_names():
    assert "wait_group(self: ptxgen.Kernel, n: int)" in ptxgen.Kernel.wait_group.__doc__
    assert "parity: IntoExpr" in ptxgen.Kernel.mbarrier_wait.__doc__


def test_keyword_calls_written_from_the_stubs_work():
    k = ptxgen.Kernel("kw", grid=1, block=32)
    A = k.global_tensor(name="A", shape=(32, 8), dtype="uint32", init=ptxgen.arange_mod(modulus=7))
    B = k.global_tensor(name="B", shape=(32, 8), dtype="uint32", output=True)
    s = k.shared_tensor(name="s", shape=(32, 8), dtype="uint32")
    bar = k.shared_tensor("bar", (1,), "uint64")
    k.apply(opcode="cp.async.ca.shared.global", dst=s[ptxgen.tid, :].rearrange(pattern="(r v) -> r v", v=1),
            src=A[ptxgen.tid, :].rearrange(pattern="(r v) -> r v", v=1), chunk_bytes=4)
    k.commit_group()
    k.wait_group(n=0)
    k.mbarrier_init(barrier=bar[0], count=32)
    k.cta_sync()
    k.mbarrier_arrive(barrier=bar[0])
    k.mbarrier_wait(barrier=bar[0], parity=0)
    k.cta_sync()
    k.copy(dst=B[ptxgen.tid, :], src=s[ptxgen.tid, :])
    k.expect_equal(lhs=B, rhs=A)
    assert k.check() == []
    assert str(ptxgen.select(c=ptxgen.tid < 8, a=ptxgen.tid, b=0)) == "tid < 8 ? tid : 0"
    k2 = ptxgen.Kernel("kw2", grid=1, block=32)
    C = k2.global_tensor("C", (32, 8), "uint8", output=True)
    k2.fill(dst=C[ptxgen.tid, :], pattern=b"\x5a")
    k2.expect_value(lhs=C, value=0x5a)
    assert k2.check() == []
