"""ptxgen.lint: foreign PTX on the simulator with no spec (docs/lint.md). What each case expects
is read from the kernels' PTX (their lines) and sources, never from lint's own output."""
import os

import pytest

import ptxgen


def lines_with(path: str, text: str) -> list:
    """The 1-based lines of `path` that contain `text`."""
    with open(path) as f:
        return [n for n, line in enumerate(f, 1) if text in line]


def test_a_clean_foreign_kernel_has_no_findings(source_dir):
    # cg_memcpy: every thread waits for its own copies before reading them back.
    path = os.path.join(source_dir, "tests", "foreign", "ptx", "cg_memcpy.sm80.O3.ptx")
    reports = ptxgen.lint(path)
    assert [r.name for r in reports] == ["_Z9cg_memcpyPKjPj"]
    (report,) = reports
    assert report.status == "clean", report.findings
    assert report.findings == []
    assert report.file == path
    assert report.coverage.runs == 1
    assert report.coverage.async_copies > 0 and report.coverage.waits > 0
    assert 0 < report.coverage.lines_run <= report.coverage.lines


def test_a_read_before_wait_is_reported_with_its_kind_and_lines(source_dir):
    path = os.path.join(source_dir, "tests", "lint", "read_before_wait.ptx")
    with open(path) as f:
        text = f.read()
    (report,) = ptxgen.lint(text, grid=1)
    assert report.file == "<string>"
    assert report.status == "findings"
    (copy_line,) = lines_with(path, "cp.async.cg.shared.global")
    reads = lines_with(path, "ld.volatile.shared")
    # One finding per load of the four words the one copy brings, before its wait.
    assert sorted(f.line for f in report.findings) == reads
    for f in report.findings:
        assert f.rule == "race.read-before-wait"
        assert f.kind == "read before wait"
        assert f.other_line == copy_line
        assert (f.thread, f.other_thread) == (0, 0)
        assert f.message
    assert report.grid == [1, 1, 1]


def test_seeds_entry_and_block_are_honoured(source_dir):
    path = os.path.join(source_dir, "tests", "foreign", "ptx", "cg_memcpy.sm80.O3.ptx")
    (report,) = ptxgen.lint(path, entry="_Z9cg_memcpyPKjPj", grid=(2,), block=(32, 1, 1), seeds=3)
    assert report.coverage.runs == 3
    assert report.grid == [2, 1, 1] and report.block == [32, 1, 1]
    assert report.coverage.threads == 2 * 32  # one launch's threads


def test_bad_arguments_raise(source_dir):
    path = os.path.join(source_dir, "tests", "foreign", "ptx", "cg_memcpy.sm80.O3.ptx")
    with pytest.raises(ValueError, match="no_such_param"):
        ptxgen.lint(path, args={"no_such_param": 1})
    with pytest.raises(ValueError):
        ptxgen.lint(path, args={"0": "f99[4]"})
    with pytest.raises(ValueError):
        ptxgen.lint(path, grid=(1, 1, 1, 1))
    with pytest.raises(ValueError):
        ptxgen.lint(path, seeds=0)
