"""Python's doors are `ptxgen check`'s (driver/api/check.hpp), and their results are cached.

Every spec of specs/races/, specs/wrong_kernel/ and specs/invalid/ is refused by
ptxgen.load(path).check() (or by the load itself) with the same errors (DiagId, line, column)
as by the `ptxgen check` executable, and emit() refuses it; a second check, emit or run of an
unchanged kernel takes its range proof, PTX and cubin from the caches.
"""
import json
import os
import re
import shutil
import stat
import subprocess

import pytest

import ptxgen

SOURCE_DIR = os.environ.get(
    "PTXGEN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = ("specs/races", "specs/wrong_kernel", "specs/invalid")


def corpus_specs():
    return sorted(f"{d}/{name}" for d in CORPUS
                  for name in os.listdir(os.path.join(SOURCE_DIR, d)) if name.endswith(".toml"))


def ptxgen_exe():
    exe = os.environ.get("PTXGEN_EXE") or shutil.which("ptxgen")
    assert exe, "set PTXGEN_EXE to the ptxgen executable (tests/python.cmake does)"
    return exe


def cli_refusals(specs):
    """`ptxgen check --diagnostics-format=json` of every spec at once: its errors per spec."""
    done = subprocess.run([ptxgen_exe(), "check", "--diagnostics-format=json", *specs],
                          cwd=SOURCE_DIR, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr[-2000:]
    found = {}
    for line in done.stderr.splitlines():
        d = json.loads(line)
        if d["severity"] == "error":
            found.setdefault(d["file"], set()).add((d["id"], d["line"], d["column"]))
    return found


def declared(path):
    """The spec's `# expect-error: LINE:COL: [ID] ...` lines."""
    pattern = re.compile(r"^#\s*expect-error:\s*(\d+):(\d+):\s*\[(\w+)\]")
    with open(path, encoding="utf-8") as f:
        return {(m[3], int(m[1]), int(m[2])) for m in map(pattern.match, f) if m}


def errors(diagnostics):
    return {(d.id, d.line, d.column) for d in diagnostics if d.severity == "error"}


def python_refusals(path):
    """What ptxgen.load(path).check() says, or the load's ptxgen.Error; and whether emit()
    gave PTX."""
    try:
        k = ptxgen.load(path)
    except ptxgen.Error as e:
        return errors(e.diagnostics), False
    found = errors(k.check())
    try:
        k.emit()
        return found, True
    except ptxgen.Error as e:
        assert errors(e.diagnostics) == found
        return found, False


def test_every_refused_spec_is_refused_by_python_as_by_ptxgen_check():
    specs = corpus_specs()
    assert len(specs) > 150
    cli = cli_refusals(specs)
    mismatched = []
    for spec in specs:
        path = os.path.join(SOURCE_DIR, spec)
        found, emitted = python_refusals(path)
        assert found, spec
        assert not emitted, spec
        assert declared(path) <= found, spec
        if found != cli.get(spec, set()):
            mismatched.append((spec, sorted(found), sorted(cli.get(spec, set()))))
    assert not mismatched


def test_a_racy_builder_kernel_is_refused_by_check_and_emit():
    # specs/races/missing_wait.toml's shape: the copy is committed, never waited for.
    k = ptxgen.Kernel("no_wait", grid=1, block=32)
    A = k.global_tensor("A", (32, 8), "float16", init=ptxgen.random_init(5))
    B = k.global_tensor("B", (32, 8), "float16", output=True)
    S = k.shared_tensor("S", (32, 8), "float16")
    k.apply("cp.async.ca.shared.global", S[ptxgen.tid, :], A[ptxgen.tid, :], 16)
    k.commit_group()
    k.copy(B[ptxgen.tid, :], S[ptxgen.tid, :])
    assert "check_read_pending" in {d.id for d in k.check()}
    with pytest.raises(ptxgen.Error) as e:
        k.emit()
    assert "check_read_pending" in {d.id for d in e.value.diagnostics}


# A 2-D TMA load at two runtime coordinates, each proved over its whole declared range
# (narrowed here to keep the test cheap).
BENCH_SPEC = os.path.join(SOURCE_DIR, "tools", "bench", "tma_two_ranged_coords.toml")


def ranged_tma(row_hi, col_hi):
    with open(BENCH_SPEC, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("range = [0, 63]", f"range = [0, {row_hi}]", 1)
    return text.replace("range = [0, 63]", f"range = [0, {col_hi}]", 1)


def counting_ptxas(tmp_path, real):
    """A ptxas that appends a line to a file per run, then runs the real one."""
    script = tmp_path / "ptxas"
    count = tmp_path / "runs"
    script.write_text(f"#!/bin/sh\necho \"$@\" >> '{count}'\nexec '{real}' \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script), count


def runs_of(count):
    """The assemblies it ran (`ptxas --version` aside)."""
    return sum(" -o " in line for line in count.read_text().splitlines())


def test_a_second_run_of_an_unchanged_kernel_reuses_proof_ptx_and_cubin(tmp_path, real_ptxas):
    ptxas, count = counting_ptxas(tmp_path, real_ptxas)
    text = ranged_tma(7, 7)
    ptxgen.clear_cache()
    first = ptxgen.loads(text).run(ptxas=ptxas)
    assert first.passed, first.detail
    assembled = runs_of(count)
    assert assembled >= 1  # the kernel (and run's self-test of ptxas)
    before = ptxgen.cache_info()
    # A kernel loaded again is a new object of the same content: the key is the content.
    second = ptxgen.loads(text).run(ptxas=ptxas)
    after = ptxgen.cache_info()
    assert second.passed
    assert runs_of(count) == assembled  # no ptxas this time
    assert after["proof_hits"] == before["proof_hits"] + 1
    assert after["proof_misses"] == before["proof_misses"]
    assert after["lower_hits"] == before["lower_hits"] + 1
    assert after["cubin_hits"] >= before["cubin_hits"] + 1
    # The timings cover every stage, the proof included.
    assert {"emit_ms", "ptxas_ms", "reference_ms", "proof_ms", "load_ms", "launch_ms",
            "compare_ms"} <= set(first.timings)
    assert first.timings["proof_ms"] > 0


def test_check_emit_and_run_share_one_proof_and_a_change_is_a_miss():
    text = ranged_tma(3, 3)
    ptxgen.clear_cache()
    k = ptxgen.loads(text)
    notes = k.check()
    assert {d.id for d in notes} == {"check_param_coverage"}
    before = ptxgen.cache_info()
    where = [(d.id, d.line, d.column) for d in notes]
    assert [(d.id, d.line, d.column) for d in k.check()] == where
    ptx = k.emit()
    after = ptxgen.cache_info()
    assert after["proof_misses"] == before["proof_misses"]
    assert after["proof_hits"] >= before["proof_hits"] + 2
    assert ptx == ptxgen.loads(text).emit()
    # A different range is different content: proved again.
    ptxgen.loads(ranged_tma(3, 4)).check()
    assert ptxgen.cache_info()["proof_misses"] == after["proof_misses"] + 1
