#!/usr/bin/env python3
"""Writes the GEMM-operand stream benchmark specs (tools/bench/gemm_operands_*.toml).

A GEMM's operand traffic without its math (docs/benchmarks.md, "GEMM operands: row and column
multicast against unicast"): 132 CTAs on a 22 x 6 grid in clusters of 2 x 2; CTA (x, y) walks
K in KT steps and at step k needs the A tile (y, k) (its M block, shared by the 22 CTAs of grid
row y) and the B tile (x, k) (its N block, shared by the 6 CTAs of grid column x), each tile
64 x 256 uint16 (32 KiB). A is 6 x 64 rows and B 22 x 64 rows of KT x 256 columns (24 MiB and
88 MiB at KT = 128, more than the H200's L2 together), so the tiles of a step are read by
several clusters at about the same time, as a GEMM's are, and each launch streams A and B from
HBM at least once. Both specs are the warp-specialized `pipeline` op (warp 0 produces, warp 1
consumes: more threads make the contract's refill walk, a vector clock per thread of the
cluster, too long for its budget) with S stages of 64 KiB (A's tile and B's):

  multicast  each CTA's thread 0 loads half of its A tile (by its cluster column) multicast to
             its cluster row, and half of its B tile (by its cluster row) multicast to its
             cluster column: each stage receives its two tiles from 3 CTAs, and L2 sends each
             tile once per cluster instead of twice;
  unicast    each CTA loads both whole tiles itself (no cluster traffic; the same launch,
             clusters and ring);
  self       as unicast, but each load is a multicast to the CTA alone (mask 1 << cluster_rank)
             and the ring is the multicast ring's (a named barrier among the consumers, the
             release through the cluster-scope arrive on the CTA's own rank): what the
             multicast form costs without waiting for a peer.

The consumers read the first 64 bytes of each stage's A tile into OUT[bid] (one uint16 each),
so that the stage is consumed without adding global traffic; the last step's values stay.

Usage: tools/bench/gen_gemm_operands.py [--out DIR] [--check | --list]
  writes every spec under DIR (default: this script's folder); --check writes nothing and exits
  1 when a file there differs from what it would write (edit the script, never the files);
  --list prints a line a spec, `name mode stages steps`.
"""
import argparse
import dataclasses
import pathlib
import sys
import textwrap

ROWS = 64  # rows of a tile
COLS = 256  # uint16 columns: 512-byte rows
GRID = (22, 6)  # N blocks x M blocks: 132 CTAs
CLUSTER = (2, 2)
CONSUMERS = 32


@dataclasses.dataclass(frozen=True)
class Spec:
    name: str
    mode: str  # multicast or unicast
    stages: int
    steps: int  # KT


SPECS = [
    Spec("gemm_operands_multicast_s3", "multicast", 3, 128),
    Spec("gemm_operands_unicast_s3", "unicast", 3, 128),
    Spec("gemm_operands_self_s3", "self", 3, 128),
]


def header(s):
    how = {"multicast": "half of each tile from each CTA of the cluster row (A) or column (B), "
                        "multicast to it",
           "unicast": "each CTA loads both whole tiles itself",
           "self": "each CTA loads both whole tiles itself, each a multicast to the CTA alone"}[
        s.mode]
    return [
        "# NOT IN THE CORPUS: a benchmark, written by tools/bench/gen_gemm_operands.py (edit that,",
        "# not this file); tools/gemm_operands_device.sh times it (docs/benchmarks.md, \"GEMM",
        "# operands: row and column multicast against unicast\"). A GEMM's operand stream on a",
        *("# " + line for line in textwrap.wrap(
            f"{GRID[0]} x {GRID[1]} grid in 2 x 2 clusters, {s.steps} steps of K, {s.stages} "
            f"stages; {how}.", 96)),
        "[kernel]",
        f'name = "{s.name}"',
        f"grid = [{GRID[0]}, {GRID[1]}]",
        f"block = {32 + CONSUMERS}",
        f"cluster = [{CLUSTER[0]}, {CLUSTER[1]}]",
    ]


def tensor(lines, name, space, shape, extra=()):
    lines += ["", f"[tensor.{name}]", f'space = "{space}"', f"shape = {list(shape)}",
              'dtype = "uint16"', *extra]


def tensors(lines, s):
    box = ROWS // 2 if s.mode == "multicast" else ROWS
    for name, blocks, seed in (("A", GRID[1], 51), ("B", GRID[0], 52)):
        tensor(lines, name, "global", (blocks * ROWS, s.steps * COLS), [f'init = "random({seed})"'])
        lines += ["", f"[tensor.{name}.map]", f"box = [{box}, {COLS}]"]
    tensor(lines, "OUT", "global", (GRID[0] * GRID[1], CONSUMERS), ["output = true"])
    tensor(lines, "SA", "shared", (s.stages, ROWS, COLS))
    tensor(lines, "SB", "shared", (s.stages, ROWS, COLS))
    for name in ("full", "empty"):
        lines += ["", f"[tensor.{name}]", 'space = "shared"', f"shape = [{s.stages}]",
                  'dtype = "uint64"']


def load(lines, s, tensor_name, stage, block, half, mask):
    lines += ["", "[[op.load]]", 'op = "tensor_load"', f'tensor = "{tensor_name}"']
    if s.mode == "multicast":
        lines += [f'coords = ["{block} * {ROWS} + {half} * {ROWS // 2}", "k * {COLS}"]',
                  f"dst = '{stage}.sub[stage, :, :].rearrange(\"(h r) c -> h r c\", h=2)"
                  f".sub[{half}, :, :]'",
                  f'multicast = "{mask}"']
    else:
        lines += [f'coords = ["{block} * {ROWS}", "k * {COLS}"]',
                  f"dst = '{stage}.sub[stage, :, :]'"]
        if s.mode == "self":
            lines += ['multicast = "1 << cluster_rank"']


def pipeline(lines, s):
    lines += ["", "[[op]]", 'op = "pipeline"', 'var = "k"', "start = 0", f"stop = {s.steps}",
              f"stages = {s.stages}", "full = 'full.sub[stage]'", "empty = 'empty.sub[stage]'",
              "producer_warps = 1"]
    if s.mode != "unicast":
        lines += ["consumer_barrier = 1", "multicast = true"]
    # Cluster rank r: column r % 2, row r / 2; the CTA's M block is bid.y, its N block bid.x.
    load(lines, s, "A", "SA", "bid.y", "cluster_rank % 2", "3 << (2 * (cluster_rank / 2))")
    load(lines, s, "B", "SB", "bid.x", "cluster_rank / 2", "5 << (cluster_rank % 2)")
    lines += ["", "[[op.body]]", 'op = "copy"',
              "dst = 'OUT.sub[bid, max(tid, 32) - 32]'",
              "src = 'SA.sub[stage, 0, max(tid, 32) - 32]'"]


def expects(lines, s):
    last = (s.steps - 1) * COLS
    for cta in (0, GRID[0] * GRID[1] - 1):
        y = cta // GRID[0]
        lines += ["", f"# CTA {cta} (M block {y}) ends on A's row {y * ROWS} at step {s.steps - 1}.",
                  "[[expect]]",
                  f'that = "OUT.sub[{cta}, :] == A.sub[{y * ROWS}, {last}:{last + CONSUMERS}]"']


def spec_text(s):
    lines = header(s)
    tensors(lines, s)
    pipeline(lines, s)
    expects(lines, s)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        for spec in SPECS:
            print(" ".join(str(field) for field in dataclasses.astuple(spec)))
        return 0
    out = pathlib.Path(args.out)
    stale = []
    for spec in SPECS:
        path = out / f"{spec.name}.toml"
        text = spec_text(spec)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
            continue
        tmp = path.with_suffix(".toml.tmp")
        tmp.write_text(text)
        tmp.replace(path)
    if stale:
        print("stale (run tools/bench/gen_gemm_operands.py): " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
