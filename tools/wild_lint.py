#!/usr/bin/env python3
"""Lint the wild corpus (tests/wild/MANIFEST.toml) with `ptxgen lint` and compare verdicts.

Each [[kernel]] of the manifest names a PTX file (under the corpus folder), its provenance
and the launch to lint it with; each [[mutant]] names a kernel and a textual edit of it,
applied here in a temporary folder. Every entry is linted with `--diagnostics-format json`
and reduced to one verdict line (`verdict()` below says how), which is what the manifest's
`expected` records:

  clean
  findings: race.read-in-flight L136/L120, fault.deadlock L80
  unsupported: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 at L812 (+11 lines)
  error: sim_syntax at L64
  timeout after 120 s

    tools/wild_lint.py                       # the table
    tools/wild_lint.py --check               # exit 1 when a verdict differs from `expected`,
                                             # or a mutant lacks its `want_rule`
    tools/wild_lint.py --write-expected      # record today's verdicts in the manifest
    tools/wild_lint.py --only 'g2s|fast_cu'  # entries whose name matches
    tools/wild_lint.py --ptxas               # also assemble every file (and mutant)

A kernel whose file is absent from the corpus folder is listed as `absent` (the public
kernels are kept out of the repository: tests/wild/README.md); with --check an absent file
is a failure unless --present-only is given. A file whose sha256 differs from the
manifest's is always a failure: the verdict would be about another file.
"""

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MANIFEST = os.path.join(ROOT, "tests", "wild", "MANIFEST.toml")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def opcode_of(message):
    """The opcode of an `unsupported` message: the first word of the quoted PTX line (a run-time
    fault's message names the thread and the line before it: "thread (...), PTX line 138 `...`")."""
    m = re.match(r"`([^`]*)`", message) or re.search(r"PTX line \d+ `([^`]*)`", message)
    words = (m.group(1) if m else message).replace(";", " ").split()
    while words and (words[0].startswith("@") or words[0].endswith(":")):
        words = words[1:]  # a guard predicate or a label before the opcode
    return words[0] if words else "?"


def kernel_verdict(k):
    """One kernel's verdict from its JSON report (see the module doc)."""
    status = k.get("status", "")
    findings = k.get("findings", [])
    unsupported = sorted((f for f in findings if f["rule"] == "unsupported"),
                         key=lambda f: f["line"])
    hazards = sorted({f"{f['rule']} L{f['line']}" + (f"/L{f['other_line']}" if f["other_line"] else "")
                      for f in findings if f["rule"] != "unsupported" and not f["note"]})
    if status in ("error", "usage"):
        err = k.get("error", "")
        m = re.search(r"^(\d+):\d+: error: .*\[(\w+)\]\s*$", err, re.M)
        if m:
            return f"{status}: {m.group(2)} at L{m.group(1)}"
        first = err.strip().splitlines()[0] if err.strip() else "no message"
        return f"{status}: {first}"
    parts = []
    if hazards:
        parts.append("findings: " + ", ".join(hazards))
    if unsupported:
        first = unsupported[0]
        more = len({f["line"] for f in unsupported}) - 1
        text = f"unsupported: {opcode_of(first['message'])} at L{first['line']}"
        parts.append(text + (f" (+{more} lines)" if more else ""))
    return "; ".join(parts) if parts else "clean"


def verdict(report):
    kernels = report.get("kernels", [])
    if not kernels:
        return "error: no kernel in the report"
    if len(kernels) == 1:
        return kernel_verdict(kernels[0])
    # entries by their rank in the file: mangled names run to hundreds of characters
    return " | ".join(f"[{i}] {kernel_verdict(k)}" for i, k in enumerate(kernels, 1))


def apply_edits(text, edits, name):
    """A mutant's edits, in order: each replaces `find` (exact text) by `replace` (default:
    nothing). `count` (default 1) is how often `find` must occur; `nth` (1-based) picks one
    occurrence to replace, else every occurrence is."""
    for e in edits:
        find, repl = e["find"], e.get("replace", "")
        want, got = e.get("count", 1), text.count(find)
        if got != want:
            raise ValueError(f"mutant {name}: `{find}` occurs {got} times, the edit expects {want}")
        if "nth" in e:
            at = -1
            for _ in range(e["nth"]):
                at = text.index(find, at + 1)
            text = text[:at] + repl + text[at + len(find):]
        else:
            text = text.replace(find, repl)
    return text


def run_lint(ptxgen, path, args, timeout):
    cmd = [ptxgen, "lint", path] + args + ["--diagnostics-format", "json"]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s", time.monotonic() - start
    took = time.monotonic() - start
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        first = (p.stderr.strip().splitlines() or ["no output"])[0]
        if p.returncode != 2:
            return None, f"error: exit {p.returncode}, {first}", took
        # A usage error (an --arg or --entry that names nothing) also comes of a file lint
        # cannot read, which has no kernel to name: then that is the verdict.
        bare = subprocess.run([ptxgen, "lint", path, "--diagnostics-format", "json"],
                              capture_output=True, text=True, timeout=timeout)
        try:
            why = verdict(json.loads(bare.stdout))
        except json.JSONDecodeError:
            why = ""
        if why.startswith("error:"):
            return None, why, took
        return None, "usage: " + first.removeprefix("ptxgen lint: "), took
    return report, verdict(report), took


def assemble(path, target):
    p = subprocess.run(["ptxas", f"-arch={target}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    return p.returncode == 0, p.stderr.strip()


class Row:
    def __init__(self, entry, section):
        self.entry, self.section = entry, section
        self.name = entry["name"]
        self.instructions, self.unsupported_lines = "-", "-"
        self.verdict, self.time = "", 0.0
        self.problem = ""  # why --check fails for this row (besides a verdict difference)


def lint_entry(row, opts, kernels, tmp):
    e = row.entry
    base = kernels.get(e.get("kernel", ""), e) if row.section == "mutant" else e
    # The project's own kernels (`in_repo = true`) lie beside the manifest; public ones in the corpus.
    folder = os.path.dirname(opts.manifest) if base.get("in_repo") else opts.corpus
    path = os.path.join(folder, base["file"])
    if not os.path.exists(path):
        row.verdict = "absent"
        return
    if "sha256" in base and sha256(path) != base["sha256"]:
        row.verdict, row.problem = "sha256 differs", f"{path}: sha256 is not the manifest's"
        return
    if row.section == "mutant":
        with open(path) as f:
            text = f.read()
        try:
            text = apply_edits(text, e.get("edit", []), row.name)
        except ValueError as err:
            row.verdict, row.problem = "edit does not apply", str(err)
            return
        path = os.path.join(tmp, row.name + ".ptx")
        with open(path, "w") as f:
            f.write(text)
    if opts.ptxas:
        ok, err = assemble(path, base["target"])
        if not ok:
            row.problem = f"ptxas -arch={base['target']} refuses it: {err.splitlines()[0] if err else ''}"
    # A mutant lints with its kernel's launch unless it gives its own (`lint`).
    args = shlex.split(e.get("lint", base.get("lint", "")))
    report, row.verdict, row.time = run_lint(opts.ptxgen, path, args, e.get("timeout", base.get("timeout", 120)))
    if report:
        ks = report.get("kernels", [])
        row.instructions = str(sum(k["coverage"]["instructions"] for k in ks))
        row.unsupported_lines = str(len({f["line"] for k in ks for f in k.get("findings", [])
                                          if f["rule"] == "unsupported"}))


def write_expected(manifest_path, rows):
    """Rewrites the `expected = ...` line of each linted entry, in place, keeping the rest."""
    with open(manifest_path) as f:
        lines = f.read().split("\n")
    by_name = {r.name: r.verdict for r in rows if r.verdict not in ("absent",) and not r.problem}
    out, current, i = [], None, 0
    for line in lines:
        m = re.match(r'^name = "([^"]+)"', line)
        if m:
            current = m.group(1)
        if current in by_name and re.match(r"^expected = ", line):
            line = "expected = " + json.dumps(by_name.pop(current))
        out.append(line)
    # An entry with no `expected` line yet gets one after its `name`.
    if by_name:
        final = []
        for line in out:
            final.append(line)
            m = re.match(r'^name = "([^"]+)"', line)
            if m and m.group(1) in by_name:
                final.append("expected = " + json.dumps(by_name.pop(m.group(1))))
        out = final
    with open(manifest_path + ".tmp", "w") as f:
        f.write("\n".join(out))
    os.replace(manifest_path + ".tmp", manifest_path)


def print_table(rows, kernels):
    head = ("entry", "project", "instructions", "verdict", "unsupp. lines", "time")
    table = [head]
    for r in rows:
        base = kernels.get(r.entry.get("kernel", ""), r.entry) if r.section == "mutant" else r.entry
        table.append((r.name, base.get("project", ""), r.instructions, r.verdict, r.unsupported_lines,
                      f"{r.time:.3f} s"))
    widths = [min(max(len(t[i]) for t in table), 60 if i == 3 else 200) for i in range(len(head))]
    for t in table:
        cells = [c if len(c) <= widths[i] else c[: widths[i] - 3] + "..." for i, c in enumerate(t)]
        print("  ".join(c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip())


def print_markdown(rows, kernels):
    """The table as docs/lint.md shows it: whole verdicts, one row per entry."""
    print("| entry | file | project | instructions | verdict | time |")
    print("|---|---|---|---:|---|---:|")
    for r in rows:
        base = kernels.get(r.entry.get("kernel", ""), r.entry) if r.section == "mutant" else r.entry
        file = base.get("file", "") if r.section == "kernel" else "mutant of " + base.get("name", "")
        print(f"| {r.name} | {file} | {base.get('project', '')} | {r.instructions} | "
              f"{r.verdict.replace('|', '/')} | {r.time:.3f} s |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxgen", default=os.path.join(ROOT, "build", "ptxgen"))
    ap.add_argument("--manifest", default=DEFAULT_MANIFEST)
    ap.add_argument("--corpus", help="the folder of the PTX files (default: the manifest's `corpus`)")
    ap.add_argument("--only", help="lint only entries whose name matches this regular expression")
    ap.add_argument("--check", action="store_true", help="exit 1 when a verdict differs from `expected` or a mutant lacks its want_rule")
    ap.add_argument("--present-only", action="store_true", help="with --check: absent files are no failure")
    ap.add_argument("--write-expected", action="store_true", help="record today's verdicts as `expected`")
    ap.add_argument("--ptxas", action="store_true", help="also assemble each file with ptxas -arch=<target>")
    ap.add_argument("--full", action="store_true", help="print whole verdicts after the table")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown, whole verdicts")
    opts = ap.parse_args()
    with open(opts.manifest, "rb") as f:
        manifest = tomllib.load(f)
    if not opts.corpus:
        opts.corpus = os.path.join(os.path.dirname(opts.manifest), manifest.get("corpus", "."))
    kernels = {k["name"]: k for k in manifest.get("kernel", [])}
    rows = [Row(e, "kernel") for e in manifest.get("kernel", [])] + \
           [Row(e, "mutant") for e in manifest.get("mutant", [])]
    if opts.only:
        rows = [r for r in rows if re.search(opts.only, r.name)]
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            lint_entry(r, opts, kernels, tmp)
    if opts.markdown:
        print_markdown(rows, kernels)
    else:
        print_table(rows, kernels)
    failed = passed = 0
    for r in rows:
        want = r.entry.get("expected")
        if r.problem:
            print(f"FAIL {r.name}: {r.problem}")
            failed += 1
        elif r.verdict == "absent":
            if opts.check and not opts.present_only:
                print(f"FAIL {r.name}: {r.entry.get('file', r.entry.get('kernel'))} is absent from {opts.corpus}")
                failed += 1
        elif opts.check and r.verdict != want:
            print(f"FAIL {r.name}: verdict changed\n  expected: {want}\n  now:      {r.verdict}")
            failed += 1
        else:
            passed += 1
        if opts.full and r.verdict not in ("absent",):
            print(f"{r.name}: {r.verdict}")
    for r in rows:
        want_rule = r.entry.get("want_rule", "") if r.section == "mutant" else ""
        if want_rule and r.verdict not in ("absent",):
            caught = re.search(r"(^|[ :,])" + re.escape(want_rule) + r" L", r.verdict) is not None
            print(f"mutant {r.name}: wants {want_rule}: {'caught' if caught else 'not caught yet'}")
            # A mutant that names its rule must be reported with it: re-recording `expected`
            # cannot hide a hazard class lint stopped finding.
            if opts.check and not caught and not r.problem:
                print(f"FAIL {r.name}: {want_rule} is not among the findings")
                failed += 1
                passed -= r.verdict == r.entry.get("expected")
    absent = sum(r.verdict == "absent" for r in rows)
    linted = len(rows) - absent
    print(f"{linted} of {len(rows)} entries linted, {absent} absent (corpus folder {opts.corpus}), "
          f"{sum(r.time for r in rows):.1f} s of lint")
    if opts.write_expected:
        write_expected(opts.manifest, rows)
        print(f"wrote the verdicts of {passed} entries to {opts.manifest}")
    if opts.check:
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    return 1 if failed and not opts.write_expected else 0


if __name__ == "__main__":
    sys.exit(main())
