#!/usr/bin/env python3
"""Generates python/ptxgen.pyi from the built module: every function's and method's
parameter names, types and defaults from the signature pybind11 writes as the first line of
its __doc__, every property's type from its getter's, and the docstrings' first lines.

    PYTHONPATH=build/python python3 tools/gen_pyi.py > python/ptxgen.pyi
    PYTHONPATH=build/python python3 tools/gen_pyi.py --check python/ptxgen.pyi

--check exits 1 with a diff when the file is not what the module generates (the stubs
drifted from the bindings); tests/python/test_stubs.py runs it.
"""
import argparse
import difflib
import inspect
import re
import sys

import ptxgen

HEADER = '''\
# Type stubs for the ptxgen extension module (python/*.cpp), generated from the built module
# by tools/gen_pyi.py: do not edit; regenerate after changing a binding. docs/python.md
# describes the API.
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy

__version__: str

# The names the bindings' loosely converted parameters carry (python/bindings.hpp).
IntoExpr = Union["Expr", int]
Extent = Union[int, Tuple[int, ...]]
DTypeLike = Union[str, numpy.dtype, type]
'''

# Dunder methods a stub carries; the rest (__repr__, pickling, ...) are object's business.
DUNDERS = {"__init__", "__enter__", "__exit__", "__getitem__", "__bool__", "__neg__", "__eq__",
           "__ne__", "__lt__", "__le__", "__gt__", "__ge__"} | {
    f"__{r}{op}__" for op in ("add", "sub", "mul", "floordiv", "mod", "lshift", "rshift",
                               "and", "or", "xor") for r in ("", "r")}


def split_top(text, sep=","):
    """Splits at `sep` outside brackets and quotes."""
    out, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def py_type(t):
    """pybind11's spelling of a type as a stub's."""
    t = t.strip()
    t = re.sub(r"\bptxgen\.", "", t)
    t = re.sub(r"\b(\w+)\[\d+\]", r"\1", t)  # std::array's int[3]
    t = re.sub(r"\bList\[", "list[", t)
    t = re.sub(r"\bDict\[", "dict[", t)
    t = re.sub(r"\bobject\b", "Any", t)
    t = re.sub(r"\bnumpy\.ndarray\[[^\]]*\]", "numpy.ndarray", t)
    return "dict[str, Any]" if t == "dict" else t


def signature_line(obj):
    doc = getattr(obj, "__doc__", None) or ""
    return doc.splitlines()[0] if doc else ""


def doc_text(obj):
    """The docstring without pybind11's signature line."""
    lines = (getattr(obj, "__doc__", None) or "").splitlines()
    if lines and "(" in lines[0] and ")" in lines[0] and "->" in lines[0]:
        lines = lines[1:]
    return "\n".join(lines).strip()


def parse_signature(line):
    """(params, returns) of `name(params) -> returns`."""
    m = re.match(r"^\s*[\w.]*\((.*)\)\s*->\s*(.+)$", line)
    if not m:
        raise SystemExit(f"gen_pyi: no pybind11 signature in {line!r}")
    return split_top(m.group(1)), py_type(m.group(2))


def param_text(p, method):
    if p in ("*", "/") or p.startswith("*"):
        return p if p in ("*", "/") else f"{p}: Any"
    name, _, rest = p.partition(":")
    name = name.strip()
    if not rest:
        return name
    annotation, eq, default = rest.partition("=")
    annotation = py_type(annotation)
    default = default.strip()
    if method and name == "self":
        return "self"
    if eq and default == "None" and not annotation.startswith("Optional[") \
            and "None" not in annotation:
        annotation = f"Optional[{annotation}]"
    if eq and default.startswith("<"):
        default = "..."
    return f"{name}: {annotation}" + (f" = {default}" if eq else "")


def function_stub(name, obj, indent, method):
    params, returns = parse_signature(signature_line(obj))
    if method and params and not params[0].startswith("self"):
        params = ["self"] + params[1:]
    args = ", ".join(param_text(p, method) for p in params)
    out = [f"{indent}def {name}({args}) -> {returns}:"]
    doc = doc_text(obj)
    if doc:
        out.append(f'{indent}    """{one_line(doc)}"""')
        out.append(f"{indent}    ...")
    else:
        out[0] += " ..."
    return out


def one_line(doc):
    text = " ".join(doc.split())
    return text.replace('"""', "'''").replace("\\", "\\\\")


def property_stub(name, prop, indent):
    _, returns = parse_signature(signature_line(prop.fget))
    return [f"{indent}{name}: {returns}"]


def class_stub(name, cls):
    bases = [b for b in cls.__bases__ if b.__name__ != "pybind11_object"]
    base_text = ", ".join(b.__name__ for b in bases if b is not object)
    out = [f"class {name}" + (f"({base_text})" if base_text else "") + ":"]
    doc = inspect.cleandoc(cls.__doc__ or "")
    body = []
    if doc:
        body.append(f'    """{one_line(doc)}"""')
    if issubclass(cls, BaseException):
        if cls is ptxgen.Error:
            body += ["    stage: str", "    diagnostics: list[Diagnostic]"]
        return out + (body or ["    ..."])
    for attr, value in cls.__dict__.items():
        if isinstance(value, property):
            body += property_stub(attr, value, "    ")
    for attr, value in cls.__dict__.items():
        if isinstance(value, property) or not callable(value):
            continue
        if attr.startswith("__") and (attr not in DUNDERS or "->" not in signature_line(value)):
            continue
        stub = function_stub(attr, value, "    ", True)
        if attr in ("__eq__", "__ne__"):  # an Expr, not object's bool
            stub[0] += "  # type: ignore[override]"
        body += stub
    return out + (body or ["    ..."])


def generate():
    out = [HEADER]
    values, functions, classes = [], [], []
    for name, value in vars(ptxgen).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(value):
            classes.append(class_stub(name, value))
        elif callable(value):
            functions.append(function_stub(name, value, "", False))
        else:
            values.append(f"{name}: {type(value).__name__}")
    out.append("\n".join(values) + "\n")
    for c in classes:
        out.append("\n".join(c) + "\n")
    for f in functions:
        out.append("\n".join(f))
    return "\n".join(out).rstrip() + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="PYI", help="compare with this file instead")
    a = parser.parse_args()
    text = generate()
    if not a.check:
        sys.stdout.write(text)
        return 0
    with open(a.check, encoding="utf-8") as f:
        current = f.read()
    if current == text:
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        current.splitlines(True), text.splitlines(True), a.check, "generated"))
    print(f"\n{a.check} is not what the module generates: regenerate it with\n"
          f"  PYTHONPATH=build/python python3 tools/gen_pyi.py > {a.check}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
