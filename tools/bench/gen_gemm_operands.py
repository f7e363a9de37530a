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
             multicast form costs without waiting for a peer;
  release    the `self` ring written out op by op with plain loads (no .multicast::cluster):
             unicast's loads with the multicast ring's release (named barrier, one
             mbarrier.arrive.release.cluster on the CTA's own rank through mapa), which
             separates the load's form from the release in `self`'s cost.

The consumers read the first 64 bytes of each stage's A tile into a shared SINK (one uint16
each), so that the stage is consumed without global traffic inside the loop (a consumer's
global store would hold up the release that follows it, which the multicast ring makes at
cluster scope); after the loop each consumer copies its SINK element to OUT[bid].

Usage: tools/bench/gen_gemm_operands.py [--out DIR] [--check | --list]
  writes every spec under DIR (default: this script's folder); --check writes nothing and exits
  1 when a file there differs from what it would write (edit the script, never the files);
  --list prints a line a spec, `name mode stages steps`.
"""
import dataclasses
import sys
import textwrap

import spec_gen  # tools/bench/spec_gen.py: the command line

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
    Spec("gemm_operands_release_s3", "release", 3, 128),
]


def header(s):
    how = {"multicast": "half of each tile from each CTA of the cluster row (A) or column (B), "
                        "multicast to it",
           "unicast": "each CTA loads both whole tiles itself",
           "self": "each CTA loads both whole tiles itself, each a multicast to the CTA alone",
           "release": "each CTA loads both whole tiles itself (plain loads), and its consumers "
                      "release a stage as the multicast ring does, through one cluster-scope "
                      "arrive on the CTA's own rank"}[s.mode]
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
    tensor(lines, "SINK", "shared", (CONSUMERS,))
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
              "dst = 'SINK.sub[max(tid, 32) - 32]'",
              "src = 'SA.sub[stage, 0, max(tid, 32) - 32]'"]


def op(lines, name, **fields):
    lines += ["", "[[op]]", f'op = "{name}"', *(f"{k} = {v}" for k, v in fields.items())]


def written_ring(lines, s):
    """The `self` spec's pipeline written out op by op (its expansion, as
    specs/ws/*_by_hand.toml write theirs), with plain loads instead of its multicasts."""
    S, K = s.stages, s.steps
    for st in range(S):
        op(lines, "mbarrier_init", barrier=f"'full.sub[{st}]'", count=1)
        op(lines, "mbarrier_init", barrier=f"'empty.sub[{st}]'", count=1)
    op(lines, "mbarrier_init_fence")
    op(lines, "cluster_sync")

    def produce(stage, tile, pred):
        op(lines, "expect_tx", barrier=f"'full.sub[{stage}]'", bytes=2 * ROWS * COLS * 2,
           pred=f'"{pred}"')
        for name, block in (("A", "bid.y"), ("B", "bid.x")):
            op(lines, "tensor_load", tensor=f'"{name}"',
               coords=f'["{block} * {ROWS}", "{tile} * {COLS}"]',
               dst=f"'S{name}.sub[{stage}, :, :]'", barrier=f"'full.sub[{stage}]'",
               pred=f'"{pred}"')

    for st in range(S - 1):
        produce(st, st, "tid == 0")
    op(lines, "for", var='"k"', start=0, stop=K)
    ahead, guard = S - 1, f"tid == 0 && k + {S - 1} < {K}"
    op(lines, "mbarrier_wait", barrier=f"'empty.sub[(k + {ahead}) % {S}]'",
       parity=f'"(k + {ahead}) / {S} % 2 ^ 1"', pred=f'"{guard}"')
    produce(f"(k + {ahead}) % {S}", f"min(k + {ahead}, {K - 1})", guard)
    op(lines, "mbarrier_wait", barrier=f"'full.sub[k % {S}]'", parity=f'"k / {S} % 2"',
       pred='"warp >= 1"')
    op(lines, "copy", dst="'SINK.sub[max(tid, 32) - 32]'",
       src=f"'SA.sub[k % {S}, 0, max(tid, 32) - 32]'", pred='"warp >= 1"')
    op(lines, "named_barrier", id=1, count=CONSUMERS, pred='"warp >= 1"')
    # Consumer thread 32 releases the stage on its own CTA's `empty` through the cluster
    # window, as the `self` ring's thread 32 + r does on rank r.
    op(lines, "mbarrier_arrive", barrier=f"'empty@(cluster_rank).sub[k % {S}]'",
       pred='"tid == 32"')
    op(lines, "end")
    op(lines, "cluster_sync")


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
    if s.mode == "release":
        written_ring(lines, s)
    else:
        pipeline(lines, s)
    # Each consumer's last SINK element, by the thread that wrote it.
    op(lines, "copy", dst="'OUT.sub[bid, max(tid, 32) - 32]'",
       src="'SINK.sub[max(tid, 32) - 32]'", pred='"warp >= 1"')
    expects(lines, s)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(spec_gen.main(SPECS, spec_text, __file__, __doc__.split("\n")[0]))
