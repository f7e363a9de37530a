#!/usr/bin/env python3
"""The list of runs tools/wild_device.sh makes on the GPU machine, from tests/wild/MANIFEST.toml.

The GPU machine has no TOML reader, so this runs where the manifest is read (python 3.11 or
later) and writes, into OUT (default: <corpus>/gpu, inside the git-ignored corpus folder that
travels to the GPU machine with the PTX files):

  runs.tsv            one run a line, tab-separated:
                        section  name  ptx  mode  args  base  finding
                      section: kernel or mutant; ptx: the file, from the repository root; mode:
                      the manifest's `gpu` ("bytes", "f32 ulp N", "skip: why"); args: the
                      `ptxgen lint` arguments of the run (the kernel's `lint` without --seeds,
                      with --fill and, for `gpu_entry`, --entry); base: a mutant's kernel;
                      finding: the rule ids of lint's recorded verdict (a mutant: those its
                      edit adds to its kernel's, else its want_rule when its kernel has that
                      finding too), with their counts.
  mutants/NAME.ptx    each mutant's PTX: its kernel's with the manifest's edits applied.

    tools/wild_device_prepare.py [--corpus tests/wild/ptx] [--out DIR] [--only REGEX] [--check]

--only: the runs of the kernels whose name matches, and of the mutants of those kernels
(`--only own_cluster`: the project's own cluster kernels and their mutants).

--check: exit 1 when a kernel that is not skipped lacks `gpu` or `fill`, or has several
entries (its recorded verdict lists them) and no `gpu_entry`, or a mode does not parse (no
file is needed for that).
"""

import argparse
import os
import re
import shlex
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wild_lint  # noqa: E402  (apply_edits, the manifest's conventions)

ROOT = wild_lint.ROOT
MODE = re.compile(r"^(bytes|(f16|bf16|f32|f64) ulp \d+(\.\d+)?|skip: .+)$")
ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)", re.M)


def rule_counts(verdict):
    """`findings: race.x L1/L2, race.x L3/L4, fault.y L5` -> `race.x x2, fault.y`."""
    items = re.findall(r"([a-z]+\.[a-z-]+) L\d+", verdict)
    counts = {}
    for r in items:
        counts[r] = counts.get(r, 0) + 1
    return ", ".join(r + (f" x{n}" if n > 1 else "") for r, n in counts.items()) or "-"


def added_findings(mutant_verdict, kernel_verdict):
    """The findings a mutant's edit adds: its verdict's items that its kernel's lacks."""
    item = re.compile(r"[a-z]+\.[a-z-]+ L\d+(?:/L\d+)?")
    before = set(item.findall(kernel_verdict))
    return rule_counts(", ".join(i for i in item.findall(mutant_verdict) if i not in before))


def run_args(entry, base, ptx_text):
    """The lint arguments of the GPU run: the launch without --seeds (the plan is the first
    run's), with --fill and --entry."""
    args = shlex.split(entry.get("lint", base.get("lint", "")))
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--seeds":
            skip = True
            continue
        if a.startswith("--seeds="):
            continue
        out.append(a)
    out += ["--fill", base.get("fill", "bytes")]
    if "gpu_entry" in base and "--entry" not in out:
        entries = ENTRY.findall(ptx_text)
        out += ["--entry", entries[base["gpu_entry"] - 1]]
    # The shell splits the line at spaces with globbing off (tools/wild_device.sh): no token
    # of a launch holds a space.
    assert all(" " not in a and "\t" not in a for a in out), out
    return " ".join(out)


def problems(manifest):
    """What --check refuses: a missing or unreadable `gpu`, a missing `fill`, several entries
    without `gpu_entry`, a --fill in `lint`."""
    found = []
    for k in manifest.get("kernel", []):
        mode = k.get("gpu")
        if mode is None or not MODE.match(mode):
            found.append(f"{k['name']}: gpu = {mode!r} is not bytes, TYPE ulp N or skip: why")
        elif not mode.startswith("skip") and "fill" not in k:
            found.append(f"{k['name']}: no `fill`")
        # A file of several entries (lint's verdict lists them: `[1] ... | [2] ...`) runs one
        # on the GPU: `gpu_entry` or an --entry in `lint` says which.
        elif (not mode.startswith("skip") and "[2]" in k.get("expected", "") and "gpu_entry" not in k
              and "--entry" not in shlex.split(k.get("lint", ""))):
            found.append(f"{k['name']}: several entries and no `gpu_entry`")
        # run_args adds the `fill` key's --fill, and lint takes one
        if "--fill" in shlex.split(k.get("lint", "")):
            found.append(f"{k['name']}: --fill in `lint` (the `fill` key gives it)")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", default=wild_lint.DEFAULT_MANIFEST)
    ap.add_argument("--corpus", help="the PTX files (default: the manifest's `corpus`)")
    ap.add_argument("--out", help="where runs.tsv and mutants/ go (default: CORPUS/gpu)")
    ap.add_argument("--only", help="only the kernels whose name matches this regular expression, and their mutants")
    ap.add_argument("--check", action="store_true", help="only check the manifest's gpu fields")
    opts = ap.parse_args()
    with open(opts.manifest, "rb") as f:
        manifest = tomllib.load(f)
    bad = problems(manifest)
    for b in bad:
        print("FAIL " + b)
    if opts.check or bad:
        print(f"{len(manifest.get('kernel', []))} kernels, {len(bad)} problems")
        return 1 if bad else 0
    here = os.path.dirname(os.path.abspath(opts.manifest))
    corpus = opts.corpus or os.path.join(here, manifest.get("corpus", "."))
    out = opts.out or os.path.join(corpus, "gpu")
    os.makedirs(os.path.join(out, "mutants"), exist_ok=True)
    kernels = {k["name"]: k for k in manifest.get("kernel", [])}
    rows, absent = [], 0

    def path_of(k):
        return os.path.join(here if k.get("in_repo") else corpus, k["file"])

    def rel(p):
        return os.path.relpath(os.path.abspath(p), ROOT)

    def chosen(k):
        return not opts.only or re.search(opts.only, k["name"]) is not None

    for k in manifest.get("kernel", []):
        if not chosen(k):
            continue
        p = path_of(k)
        if not os.path.exists(p):
            absent += 1
            continue
        with open(p) as f:
            text = f.read()
        rows.append(("kernel", k["name"], rel(p), k["gpu"], run_args(k, k, text), "-",
                     rule_counts(k.get("expected", ""))))
    for m in manifest.get("mutant", []):
        base = kernels[m["kernel"]]
        if not chosen(base):
            continue
        p = path_of(base)
        if not os.path.exists(p):
            absent += 1
            continue
        with open(p) as f:
            text = wild_lint.apply_edits(f.read(), m.get("edit", []), m["name"])
        mp = os.path.join(out, "mutants", m["name"] + ".ptx")
        with open(mp, "w") as f:
            f.write(text)
        finding = added_findings(m.get("expected", ""), base.get("expected", ""))
        want = m.get("want_rule", "")
        if finding == "-" and want and want in m.get("expected", ""):
            finding = want + " (its kernel's too)"
        rows.append(("mutant", m["name"], rel(mp), base["gpu"], run_args(m, base, text), base["name"],
                     finding))
    with open(os.path.join(out, "runs.tsv"), "w") as f:
        for r in rows:
            assert all("\t" not in c and "\n" not in c for c in r)
            f.write("\t".join(r) + "\n")
    print(f"{len(rows)} runs written to {os.path.join(out, 'runs.tsv')} ({absent} absent files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
