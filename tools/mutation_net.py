#!/usr/bin/env python3
"""Plant one-line bugs in ptxgen, one at a time, and report which safety net catches each.

Each mutation of the list (tools/mutation_net.toml) names a file, the exact text of one
line of it (compared without leading and trailing blanks; it must match exactly one line)
and that line's replacement. For each mutation the tool, in a private scratch copy of the
tree (never the checkout it is run from):

  1. writes the changed line (keeping the line's indentation),
  2. rebuilds with ninja in the scratch copy's build/ (configured once, like the
     project's own builds, through ccache; later runs reuse it),
  3. runs CTest (--ctest-label / --ctest-regex choose a subset) and records the tests
     that failed,
  4. runs `ptxgen fuzz --backend sim --mutants M --time N --seed S` (unless
     --fuzz-seconds 0) and records its findings,
  5. restores the line.

A mutation is `caught` when the build fails, a CTest test fails or the fuzzer reports
a finding; else it `survived`: no net noticed the bug, which is a finding about the
nets. Before the first mutation the unchanged tree runs the same nets: a test red
there says nothing about the bugs, so it is left out of the runs and named in the JSON
(--strict-baseline stops instead); a fuzz run with findings there turns the fuzz net off.

The result is a table on stdout and a JSON file (--json). Exit status: 0 every mutation
run was caught, 1 some survived, 2 usage or a bad list (a pattern matching no line or
several), 3 environment (the scratch copy does not configure or build, or its nets are red
unchanged with --strict-baseline).

The scratch copy is made of the files git lists (tracked, and untracked ones not
ignored) of the source tree, copied only where their content differs, so a second run
with the same --scratch rebuilds only what changed. Set CCACHE_DIR and CCACHE_BASEDIR as
for the project's builds; when CCACHE_BASEDIR is unset the tool uses the longest folder
holding both the source and the scratch copy, so the two share cached objects.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_LIST = HERE / "mutation_net.toml"
# The parts of the tree whose bugs the nets are there to catch.
ALLOWED = ("emitter/", "driver/reference/", "driver/run/range_proof.cpp", "driver/sim/")
CMAKE_FLAGS = [
    "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DPTXGEN_WERROR=ON",
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG",
]


def cmake_command(source: Path, build: Path, extra: list[str]) -> list[str]:
    """The configure command: the project's flags, ccache as the compiler launcher where it
    is installed (a machine without it builds uncached rather than not at all), then the
    caller's --cmake-arg values, which come last so that they win."""
    launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
    return ["cmake", "-S", str(source), "-B", str(build), *CMAKE_FLAGS, *launcher, *extra]

SELFTEST = "mutation_net.selftest"
EXIT_OK, EXIT_SURVIVED, EXIT_USAGE, EXIT_ENV = 0, 1, 2, 3


class ListError(Exception):
    """A mutation list that cannot be applied as written."""


@dataclass
class Mutation:
    name: str
    file: str
    match: str
    replace: str
    area: str = ""
    why: str = ""


@dataclass
class Outcome:
    name: str
    file: str
    area: str
    verdict: str = "survived"
    build_failed: bool = False
    ctest_failed: list[str] = field(default_factory=list)
    ctest_timed_out: bool = False
    fuzz_findings: dict[str, int] = field(default_factory=dict)
    fuzz_ran: bool = False
    fuzz_specs: int = 0
    fuzz_mutants: int = 0
    seconds: float = 0.0

    def nets(self) -> str:
        if self.build_failed:
            return "build"
        parts = []
        if self.ctest_failed or self.ctest_timed_out:
            shown = ", ".join(self.ctest_failed[:4])
            more = len(self.ctest_failed) - 4
            parts.append(f"ctest ({len(self.ctest_failed)}: {shown}{f' +{more}' if more > 0 else ''}"
                         f"{' timeout' if self.ctest_timed_out else ''})")
        if self.fuzz_findings:
            parts.append("fuzz (" + ", ".join(f"{c}: {n}" for c, n in self.fuzz_findings.items())
                         + ")")
        return "; ".join(parts) if parts else "-"


def load_list(path: Path) -> list[Mutation]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ListError(f"{path}: {e}") from e
    entries = data.get("mutation")
    if not isinstance(entries, list) or not entries:
        raise ListError(f"{path}: no [[mutation]] entries")
    out: list[Mutation] = []
    seen: set[str] = set()
    for i, e in enumerate(entries, 1):
        missing = [k for k in ("name", "file", "match", "replace") if not isinstance(e.get(k), str)]
        if missing:
            raise ListError(f"{path}: mutation {i}: missing or not a string: {', '.join(missing)}")
        unknown = sorted(set(e) - {"name", "file", "match", "replace", "area", "why"})
        if unknown:
            raise ListError(f"{path}: mutation {e['name']}: unknown keys {', '.join(unknown)}")
        m = Mutation(**e)
        if m.name in seen:
            raise ListError(f"{path}: mutation name {m.name} appears twice")
        seen.add(m.name)
        if not re.fullmatch(r"[a-z0-9_]+", m.name):
            raise ListError(f"{path}: mutation name {m.name!r}: use [a-z0-9_]")
        if not m.file.startswith(ALLOWED) or ".." in Path(m.file).parts:
            raise ListError(f"{m.name}: {m.file} is outside {', '.join(ALLOWED)}")
        if m.match.strip() == m.replace.strip():
            raise ListError(f"{m.name}: the replacement is the line itself")
        if "\n" in m.match.strip() or "\n" in m.replace.strip():
            raise ListError(f"{m.name}: match and replace are one line each")
        out.append(m)
    return out


def mutated_text(tree: Path, m: Mutation) -> tuple[str, str]:
    """The file's text and its text with the mutation; ListError unless the line is unique."""
    path = tree / m.file
    try:
        text = path.read_text()
    except OSError as e:
        raise ListError(f"{m.name}: {e}") from e
    lines = text.splitlines(keepends=True)
    want = m.match.strip()
    hits = [i for i, line in enumerate(lines) if line.strip() == want]
    if len(hits) != 1:
        where = ", ".join(str(i + 1) for i in hits[:5])
        raise ListError(f"{m.name}: {m.file}: the line {want!r} matches {len(hits)} lines"
                        + (f" ({where})" if hits else "") + "; it must match exactly one")
    i = hits[0]
    line = lines[i]
    indent = line[: len(line) - len(line.lstrip())]
    ending = line[len(line.rstrip("\r\n")):]
    lines[i] = indent + m.replace.strip() + ending
    return text, "".join(lines)


def write_fresh(path: Path, text: str) -> None:
    """Write `text` with a new mtime, so ninja rebuilds what depends on it."""
    path.write_text(text)
    now = time.time()
    os.utime(path, (now, now))


def log(msg: str) -> None:
    print(f"[mutation_net {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float | None,
        logfile: Path) -> tuple[int, str, bool]:
    """(exit status, output, timed out) of one child process; its output goes to logfile as
    it comes (follow a long build there)."""
    timed_out = False
    with open(logfile, "w") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        start = f.tell()
        # Its own process group, so a timeout ends the tests or compilers it started too.
        child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        try:
            rc = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            rc, timed_out = 124, True
    with open(logfile, errors="replace") as f:
        f.seek(start)
        return rc, f.read(), timed_out


def source_files(source: Path) -> list[str]:
    p = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=source,
                       stdout=subprocess.PIPE, check=True)
    return [f for f in p.stdout.decode().split("\0") if f]


def sync_tree(source: Path, tree: Path) -> int:
    """Copy the source's files into tree where their content differs; the count copied."""
    copied = 0
    for rel in source_files(source):
        src, dst = source / rel, tree / rel
        if src.is_symlink() or not src.is_file():
            continue
        if dst.is_file() and dst.stat().st_size == src.stat().st_size and \
                dst.read_bytes() == src.read_bytes():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)
        # A fresh mtime: the copy may replace a mutated file whose objects are newer.
        now = time.time()
        os.utime(dst, (now, now))
        copied += 1
    return copied


@dataclass
class Nets:
    tree: Path
    env: dict[str, str]
    args: argparse.Namespace
    logs: Path
    red_tests: list[str] = field(default_factory=list)  # failed unchanged: not nets

    @property
    def build(self) -> Path:
        return self.tree / "build"

    def configure(self) -> bool:
        # A configured copy is kept, unless the caller passes cmake arguments to apply to it.
        if (self.build / "build.ninja").is_file() and not self.args.cmake_arg:
            return True
        cmd = cmake_command(self.tree, self.build, self.args.cmake_arg)
        log(f"configuring {self.build}: {' '.join(shlex.quote(c) for c in cmd)}")
        rc, _, _ = run(cmd, self.tree, self.env, None, self.logs / "configure.log")
        return rc == 0

    def make(self, tag: str) -> bool:
        cmd = ["ninja", "-C", str(self.build), f"-j{self.args.jobs}", *self.args.targets]
        rc, _, _ = run(cmd, self.tree, self.env, self.args.build_timeout,
                       self.logs / f"{tag}.build.log")
        return rc == 0

    def ctest(self, tag: str) -> tuple[list[str], bool]:
        """The names of the tests that failed, and whether ctest itself timed out."""
        cmd = ["ctest", "-j", str(self.args.jobs), "--timeout", str(self.args.test_timeout)]
        if self.args.ctest_label:
            cmd += ["-L", self.args.ctest_label]
        if self.args.ctest_regex:
            cmd += ["-R", self.args.ctest_regex]
        # This tool's own test checks the list against the tree, which a mutation changes
        # on purpose: it is no net.
        left_out = [SELFTEST, *self.red_tests]
        cmd += ["-E", "^(" + "|".join(re.escape(t) for t in left_out) + ")$"]
        failed_log = self.build / "Testing" / "Temporary" / "LastTestsFailed.log"
        failed_log.unlink(missing_ok=True)
        rc, out, timed_out = run(cmd, self.build, self.env, self.args.ctest_wall,
                                 self.logs / f"{tag}.ctest.log")
        failed = []
        if failed_log.is_file():
            for line in failed_log.read_text().splitlines():
                failed.append(line.split(":", 1)[1] if ":" in line else line)
        if rc != 0 and not failed and not timed_out:
            failed = ["(ctest exited %d: see %s)" % (rc, self.logs / f"{tag}.ctest.log")]
        if "No tests were found" in out:
            failed = ["(no test matched the label/regex)"]
        return failed, timed_out

    def fuzz(self, tag: str) -> tuple[dict[str, int], int, int]:
        """The fuzzer's findings by class, its spec count and its mutant count."""
        report = self.logs / f"{tag}.fuzz.json"
        report.unlink(missing_ok=True)
        out_dir = self.logs / f"{tag}.fuzz-findings"
        cmd = [str(self.build / "ptxgen"), "fuzz", "--backend", "sim", "--time",
               str(self.args.fuzz_seconds), "--seed", str(self.args.fuzz_seed), "--mutants",
               str(self.args.fuzz_mutants), "--no-shrink", "--per-class", "1", "--jobs",
               str(self.args.jobs), "--out", str(out_dir), "--report", str(report)]
        rc, _, timed_out = run(cmd, self.tree, self.env, self.args.fuzz_seconds * 4 + 120,
                               self.logs / f"{tag}.fuzz.log")
        if timed_out:
            return {"fuzz_timed_out": 1}, 0, 0
        try:
            r = json.loads(report.read_text())
        except (OSError, json.JSONDecodeError):
            return {f"fuzz_exit_{rc}_no_report": 1}, 0, 0
        found = {str(k): int(v) for k, v in r.get("findings_by_class", {}).items()}
        if rc not in (0, 1):
            found[f"fuzz_exit_{rc}"] = 1
        return found, int(r.get("specs", 0)), int(r.get("mutants", 0))


def try_mutation(nets: Nets, m: Mutation) -> Outcome:
    o = Outcome(m.name, m.file, m.area)
    start = time.monotonic()
    path = nets.tree / m.file
    original, changed = mutated_text(nets.tree, m)
    write_fresh(path, changed)
    try:
        log(f"{m.name}: building")
        if not nets.make(m.name):
            o.build_failed = True
        else:
            log(f"{m.name}: ctest")
            o.ctest_failed, o.ctest_timed_out = nets.ctest(m.name)
            caught = bool(o.ctest_failed) or o.ctest_timed_out
            if nets.args.fuzz_seconds > 0 and not (caught and nets.args.fuzz_if_survived):
                log(f"{m.name}: fuzz {nets.args.fuzz_seconds} s")
                o.fuzz_ran = True
                o.fuzz_findings, o.fuzz_specs, o.fuzz_mutants = nets.fuzz(m.name)
    finally:
        # A fresh mtime: the next build recompiles the restored line, never keeps the mutant.
        write_fresh(path, original)
    if o.build_failed:
        o.verdict = "build_failed"
    elif o.ctest_failed or o.ctest_timed_out or o.fuzz_findings:
        o.verdict = "caught"
    o.seconds = round(time.monotonic() - start, 1)
    return o


def print_table(outcomes: list[Outcome]) -> None:
    w = max([len(o.name) for o in outcomes] + [8])
    print(f"{'mutation':<{w}}  {'verdict':<12}  {'secs':>6}  nets that caught it")
    for o in outcomes:
        print(f"{o.name:<{w}}  {o.verdict:<12}  {o.seconds:>6.0f}  {o.nets()}")
    caught = sum(o.verdict == "caught" for o in outcomes)
    survived = [o.name for o in outcomes if o.verdict == "survived"]
    print(f"{len(outcomes)} mutations: {caught} caught, {len(survived)} survived"
          + (f" ({', '.join(survived)})" if survived else "")
          + f", {sum(o.verdict == 'build_failed' for o in outcomes)} did not build")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="tools/mutation_net.py", description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  tools/mutation_net.py --check-list\n"
               "  tools/mutation_net.py --only contract_bounds_le --fuzz-seconds 30\n"
               "  tools/mutation_net.py --ctest-label 'unit|invalid|golden' --fuzz-seconds 30 \\\n"
               "      --fuzz-if-survived --scratch /work/tmp/mutnet --json mutation_net.json\n")
    ap.add_argument("--list", type=Path, default=DEFAULT_LIST, help="the mutation list (TOML)")
    ap.add_argument("--source", type=Path, default=HERE.parent,
                    help="the tree to copy (default: the one holding this tool)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="run only this mutation (repeatable; run in the order given)")
    ap.add_argument("--check-list", action="store_true",
                    help="check that every mutation applies to --source (one line each) and stop")
    ap.add_argument("--scratch", type=Path,
                    help="the scratch folder (kept, and reused by a later run); default: a new "
                         "temporary folder next to the source, removed at the end")
    ap.add_argument("--ctest-label", default="", metavar="RE", help="ctest -L RE (default: all)")
    ap.add_argument("--ctest-regex", default="", metavar="RE", help="ctest -R RE (default: all)")
    ap.add_argument("--fuzz-seconds", type=int, default=30,
                    help="seconds of `ptxgen fuzz --backend sim` per mutation; 0: no fuzz")
    ap.add_argument("--fuzz-seed", type=int, default=1, help="the fuzz run's first seed")
    ap.add_argument("--fuzz-mutants", type=int, default=2, help="fuzz --mutants (default 2)")
    ap.add_argument("--fuzz-if-survived", action="store_true",
                    help="fuzz only the mutations CTest did not catch (saves time; the table "
                         "then does not say whether the fuzzer would have caught the others)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the run of the nets on the unchanged tree")
    ap.add_argument("--strict-baseline", action="store_true",
                    help="stop when a test fails on the unchanged tree (default: leave such "
                         "tests out of the nets, and say so)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="ninja/ctest/fuzz -j")
    ap.add_argument("--targets", nargs="*", default=[],
                    help="ninja targets to rebuild (default: all, which the tests need)")
    ap.add_argument("--cmake-arg", action="append", default=[], metavar="ARG",
                    help="one more argument for the scratch copy's cmake configure (repeatable; "
                         "write --cmake-arg=-DX=Y), e.g. where toml++ is: --cmake-arg="
                         "-Dtomlplusplus_DIR=$PWD/build-device-deps/cmake --cmake-arg="
                         "-DPTXGEN_STATIC_RUNTIME=ON (a configured copy is configured again "
                         "with them)")
    ap.add_argument("--configure-only", action="store_true",
                    help="make the scratch copy, configure it, and stop (builds nothing): "
                         "checks the cmake arguments")
    ap.add_argument("--build-timeout", type=int, default=3600, help="seconds per build")
    ap.add_argument("--test-timeout", type=int, default=600, help="ctest --timeout per test")
    ap.add_argument("--ctest-wall", type=int, default=3600, help="seconds for one whole ctest")
    ap.add_argument("--json", type=Path, help="write the results here")
    return ap.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    source = args.source.resolve()
    try:
        mutations = load_list(args.list)
        unknown = [n for n in args.only if n not in {m.name for m in mutations}]
        if unknown:
            raise ListError(f"--only: no mutation named {', '.join(unknown)}")
        by_name = {m.name: m for m in mutations}
        chosen = [by_name[n] for n in dict.fromkeys(args.only)] if args.only else mutations
        for m in chosen:
            mutated_text(source, m)
    except ListError as e:
        print(f"mutation_net: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.check_list:
        print(f"{len(chosen)} mutations apply to {source}, one line each")
        return EXIT_OK

    scratch = args.scratch.resolve() if args.scratch else Path(
        tempfile.mkdtemp(prefix="mutation-net-", dir=source.parent))
    tree, logs = scratch / "tree", scratch / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    tree.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.setdefault("CCACHE_BASEDIR", os.path.commonpath([str(source), str(scratch)]))
    nets = Nets(tree, env, args, logs)
    outcomes: list[Outcome] = []
    result = {"command": " ".join([sys.argv[0], *argv]), "date": time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": f"{platform.node()}, "
        f"{os.cpu_count()} cores", "source": str(source), "ctest_label": args.ctest_label,
        "ctest_regex": args.ctest_regex, "fuzz_seconds": args.fuzz_seconds,
        "fuzz_seed": args.fuzz_seed, "mutations": []}
    try:
        log(f"scratch copy {tree}: {sync_tree(source, tree)} files copied")
        for m in chosen:  # the copy may differ from the source only if the source changes now
            mutated_text(tree, m)
        if args.configure_only:
            ok = nets.configure()
            log(f"configure {'done' if ok else 'failed'}: see {logs / 'configure.log'}")
            return EXIT_OK if ok else EXIT_ENV
        if not nets.configure() or not nets.make("baseline"):
            log(f"the unchanged tree does not configure or build: see {logs}")
            return EXIT_ENV
        if not args.no_baseline:
            log("baseline: the nets on the unchanged tree")
            failed, timed_out = nets.ctest("baseline")
            found = nets.fuzz("baseline")[0] if args.fuzz_seconds > 0 else {}
            result["baseline"] = {"ctest_failed": failed, "ctest_timed_out": timed_out,
                                  "fuzz_findings": found}
            if failed or timed_out or found:
                log(f"baseline is not green: ctest {failed}{' timeout' if timed_out else ''}, "
                    f"fuzz {found}; see {logs}")
                if args.strict_baseline or timed_out or any(t.startswith("(") for t in failed):
                    return EXIT_ENV
                # Red without a bug, they say nothing about the bugs: left out, and said.
                nets.red_tests = failed
                if found:
                    log("the fuzz net is off: it finds something in the unchanged tree")
                    args.fuzz_seconds = 0
        for i, m in enumerate(chosen, 1):
            log(f"[{i}/{len(chosen)}] {m.name} ({m.file})")
            o = try_mutation(nets, m)
            log(f"[{i}/{len(chosen)}] {m.name}: {o.verdict} in {o.seconds:.0f} s: {o.nets()}")
            outcomes.append(o)
            result["mutations"].append(o.__dict__ | {"nets": o.nets()})
            if args.json:
                args.json.write_text(json.dumps(result, indent=2) + "\n")
    except ListError as e:
        print(f"mutation_net: {e}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    print_table(outcomes)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return EXIT_SURVIVED if any(o.verdict == "survived" for o in outcomes) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
