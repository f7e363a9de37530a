#!/usr/bin/env python3
"""`ptxgen show --svg` against what a person needs and against `run --profile`.

  pictures.py PTXGEN ROOT stages   every spec of specs/pipeline/: the picture is under
                                   3,000 px tall and draws, with a thread, every stage of
                                   each ring the pipeline uses (stage k % S for every tile k;
                                   every stage of a ring written with loops by hand), and its
                                   panels hold every iteration of the steady state
  pictures.py PTXGEN ROOT banks    a conflicting and a conflict-free spec: the picture's
                                   bank figures are run --profile's, and both are the ones
                                   worked out here from the bank model by hand

The expected figures are computed here from the specs and the documented bank model
(docs/profile.md), never read from ptxgen's code.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

MAX_HEIGHT = 3000


def show(ptxgen, spec):
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "p.svg"
        subprocess.run([ptxgen, "show", str(spec), "--svg", str(out)], check=True)
        return out.read_text()


def tile_count(spec):
    """Tiles the spec's pipeline op walks in CTA 0: its start, stop and step with the
    parameters' values and bid = 0."""
    names = {name: p["value"] for name, p in spec.get("param", {}).items()}
    names["bid"] = 0

    def value(v):
        return v if isinstance(v, int) else eval(str(v).replace("/", "//"), {}, dict(names))

    for op in spec["op"]:
        if op["op"] == "pipeline":
            start, stop, step = value(op["start"]), value(op["stop"]), value(op.get("step", 1))
            return len(range(start, stop, step)), op
    return None, None


def ring_names(op):
    """The shared tensors the pipeline's loads write: 'ring' of 'ring.sub[stage, ...]'."""
    return {re.match(r"\s*(\w+)", load["dst"]).group(1) for load in op.get("load", [])}


def check_stages(ptxgen, root):
    failures = 0
    specs = sorted((Path(root) / "specs" / "pipeline").glob("*.toml"))
    assert specs, "no specs in specs/pipeline"
    for path in specs:
        spec = tomllib.loads(path.read_text())
        svg = show(ptxgen, path)
        height = int(re.search(r'<svg [^>]*height="(\d+)"', svg).group(1))
        tiles, op = tile_count(spec)
        problems = []
        if height >= MAX_HEIGHT:
            problems.append(f"{height} px tall")
        if op is None:  # a ring written by hand with loops: it uses every stage it has
            rings = {name: set(range(t["shape"][0])) for name, t in spec["tensor"].items()
                     if t["space"] == "shared" and len(t["shape"]) >= 3}
        else:
            rings = {ring: {k % op["stages"] for k in range(tiles)} for ring in ring_names(op)}
        if not rings:
            problems.append("no ring found")
        # Every tile's iteration is in some panel of the steady state (when it is a loop of
        # its own at the top, not inside another loop).
        walked = sum(int(n) for n in re.findall(
            r"steady-state loop [^<]*: \w+ = [^<]* \((\d+) iterations?", svg))
        if op is not None and walked and walked != tiles:
            problems.append(f"{walked} steady-state iterations drawn, want {tiles}")
        for ring, want in rings.items():
            drawn = {int(s) for s in re.findall(
                r"<title>" + ring + r"\[(\d+), [^<]*: thread \d+", svg)}
            if drawn != want:
                problems.append(f"{ring}: stages drawn {sorted(drawn)}, want {sorted(want)}")
        print(f"{path.name}: {height} px, rings {sorted(rings)}: {'; '.join(problems) or 'ok'}")
        failures += bool(problems)
    return failures


def wavefronts(lanes):
    """The documented model: lanes (lane, byte address, bytes) of one warp request; phases
    of 128 / max(bytes, 4) lanes; per phase the most distinct 4-byte words in one bank."""
    width = max(b for _, _, b in lanes)
    per_phase = 128 // max(width, 4)
    phases = {}
    for lane, address, size in lanes:
        banks = phases.setdefault(lane // per_phase, {})
        for word in range(address // 4, (address + size - 1) // 4 + 1):
            banks.setdefault(word % 32, set()).add(word)
    return sum(max(len(w) for w in banks.values()) for banks in phases.values()), len(phases)


def expected_row_repeat():
    """specs/thread_scope/row_repeat_f32.toml: 128 threads; thread t writes (cp.async) and
    later reads (ld.shared.v4) its 64-byte row of `shared` as four 16-byte accesses r = 0..3
    at byte 64 t + 16 r: 4 instructions of each kind, one request per warp each."""
    total = ideal = 0
    worst = 0
    for _kind in ("cp.async dst", "ld.shared"):
        for r in range(4):
            for warp in range(4):
                lanes = [(l, 64 * (32 * warp + l) + 16 * r, 16) for l in range(32)]
                w, phases = wavefronts(lanes)
                total, ideal = total + w, ideal + phases
                worst = max(worst, max(len(s) for s in banks_of(lanes)))
    return 32, total, ideal, worst


def banks_of(lanes):
    per_phase = 8
    out = []
    for phase in range(4):
        banks = {}
        for lane, address, size in lanes:
            if lane // per_phase == phase:
                for word in range(address // 4, (address + size - 1) // 4 + 1):
                    banks.setdefault(word % 32, set()).add(word)
        out.extend(banks.values())
    return out


def expected_double_buffer():
    """specs/pipeline/double_buffer.toml: 64 threads, ring [2, 64, 8] float16 (1,024 bytes a
    stage). Thread t's load writes 16 bytes at stage * 1024 + 16 t: once in the prologue and
    once per steady iteration k = 0..6 (k = 7's refill is predicated off: no request); the
    consumer reads 16 bytes at stage * 1024 + 16 (63 - t) for k = 0..7. Two warps each."""
    total = ideal = 0
    requests = 0
    worst = 0
    for stage, count in ((0, 1), (1, 7)):  # writes: the prologue, the 7 refills
        for _ in range(count):
            for warp in range(2):
                lanes = [(l, 1024 * stage + 16 * (32 * warp + l), 16) for l in range(32)]
                w, phases = wavefronts(lanes)
                total, ideal, requests = total + w, ideal + phases, requests + 1
                worst = max(worst, max(len(s) for s in banks_of(lanes)))
    for k in range(8):
        for warp in range(2):
            lanes = [(l, 1024 * (k % 2) + 16 * (63 - (32 * warp + l)), 16) for l in range(32)]
            w, phases = wavefronts(lanes)
            total, ideal, requests = total + w, ideal + phases, requests + 1
            worst = max(worst, max(len(s) for s in banks_of(lanes)))
    return requests, total, ideal, worst


TOTALS = re.compile(r"shared: (\d+) requests, (\d+) wavefronts \(ideal (\d+), (\d+) from bank conflicts\)")


def has_ptxas():
    """Whether a ptxas is there for run --profile (as the profile tests look for one)."""
    return bool(shutil.which("ptxas") or Path("/usr/local/cuda/bin/ptxas").exists()
                or os.environ.get("PTXGEN_PTXAS"))


def check_banks(ptxgen, root):
    failures = 0
    cases = (("specs/thread_scope/row_repeat_f32.toml", expected_row_repeat()),
             ("specs/pipeline/double_buffer.toml", expected_double_buffer()))
    for rel, (requests, total, ideal, worst) in cases:
        spec = Path(root) / rel
        done = subprocess.run([ptxgen, "run", "--backend", "sim", "--profile", str(spec)],
                              capture_output=True, text=True)
        if done.returncode == 3 and not has_ptxas():
            print("no ptxas: skipped")
            sys.exit(77)
        done.check_returncode()
        run = done.stdout
        svg = show(ptxgen, spec)
        want = (requests, total, ideal, total - ideal)
        from_run = tuple(map(int, TOTALS.search(run).groups()))
        from_svg = tuple(map(int, TOTALS.search(svg).groups()))
        # The worst request of any shared row, as the table and the picture say it.
        run_worst = max(int(m.group(1)) for m in re.finditer(
            r"^ +\d+  (?:ld\.shared|st\.shared|cp\.async dst) +\d+ +[\d.]+ +[\d.]+ +(\d+)  ",
            run, re.M))
        svg_worst = max(int(w) for w in re.findall(r"its costliest request, (\d+)-way", svg))
        ok = from_run == want and from_svg == want and run_worst == svg_worst == worst
        print(f"{rel}: by hand {want} worst {worst}; run --profile {from_run} worst {run_worst};"
              f" show {from_svg} worst {svg_worst}: {'ok' if ok else 'DIFFER'}")
        failures += not ok
    return failures


def main():
    ptxgen, root, what = sys.argv[1:4]
    failures = check_stages(ptxgen, root) if what == "stages" else check_banks(ptxgen, root)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
