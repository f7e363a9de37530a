#!/usr/bin/env python3
"""Writes the broadcast-load benchmark specs (tools/bench/broadcast_*.toml).

The GEMM A-operand pattern (docs/benchmarks.md, "Broadcast loads: multicast against unicast"):
A is 256 tiles of 64 x 256 uint16 (32 KiB each, 8 MiB in all); 132 CTAs of 32 threads (128 in
clusters of 8) in clusters of C; cluster c loads tiles (c + j * ncluster) % 256, j = 0 .. 511,
through a ring of S stages of 32 KiB, L tiles ahead, thread 0 issuing; at the end each CTA
copies its last tile to B[bid]. The `big` specs read an A larger than the H200's L2 instead:
ncluster x 128 tiles (264 MiB in clusters of 2, 132 MiB in clusters of 4), each tile by one
cluster once a launch (j = 0 .. 127), so that every launch streams A from HBM. Three ways to
keep the ring, one spec each:

  unicast    each CTA loads every whole tile itself (L2 sends it C times per cluster); thread 0
             refills a stage after its own wait for the tile in it (no peer involved).
  sync       each CTA loads its 64 / C rows of every tile and multicasts them to the cluster;
             a cluster_sync after each wait keeps a refill out of a peer that has not received
             the tile in the stage (the refill is L - S + 1 tiles behind: no slack at L = S - 1).
  empty      as `sync`, but paced by `empty` barriers across the cluster (CUTLASS's
             PipelineTmaAsync): after its wait for tile k, thread r of each CTA arrives on the
             stage's `empty` barrier of rank r (a remote arrival), so each `empty` counts C
             arrivals a phase; thread 0 waits for its own before it refills the stage with tile
             k + L, the release of tile k + L - S. With L = S - 2 a CTA can run one tile ahead
             of its slowest peer instead of meeting it at every tile.

Usage: tools/bench/gen_broadcast.py [--out DIR] [--check | --list]
  writes every spec of SPECS under DIR (default: this script's folder); --check writes nothing
  and exits 1 when a file there differs from what it would write (the specs are this script's
  output: edit the script, never the files); --list prints a line a spec, `name mode cluster
  stages ahead tiles loads` (tools/broadcast_device.sh reads it).
"""
import dataclasses
import sys
import textwrap

import spec_gen  # tools/bench/spec_gen.py: the command line

ROWS = 64  # rows of a tile
COLS = 256  # uint16 columns: one 512-byte row
TILE_BYTES = ROWS * COLS * 2
THREADS = 32
SMS = 132


def grid_of(cluster):
    """132 SMs: the largest multiple of the cluster size that fits."""
    return SMS // cluster * cluster


@dataclasses.dataclass(frozen=True)
class Spec:
    """One benchmark spec. `tiles` is A's size in tiles, `loads` the tiles each CTA receives
    per launch. The default A (256 tiles, 8 MiB) stays in L2; a `big` spec's A has one tile
    per cluster and load, ncluster x loads tiles (132 to 264 MiB, more than the H200's L2), so
    that each tile is read by one cluster once a launch and every launch reads A from HBM."""
    name: str
    mode: str
    cluster: int
    stages: int
    ahead: int
    tiles: int = 256
    loads: int = 512


def big(name, mode, cluster, stages, ahead, loads=128):
    return Spec(name, mode, cluster, stages, ahead, grid_of(cluster) // cluster * loads, loads)


SPECS = [
    Spec("broadcast_multicast_2", "sync", 2, 4, 3),
    Spec("broadcast_unicast_2", "unicast", 2, 4, 3),
    Spec("broadcast_multicast_4", "sync", 4, 4, 3),
    Spec("broadcast_unicast_4", "unicast", 4, 4, 3),
    Spec("broadcast_empty_2_s6", "empty", 2, 6, 4),
    Spec("broadcast_empty_4_s6", "empty", 4, 6, 4),
    Spec("broadcast_empty_8_s6", "empty", 8, 6, 4),
    Spec("broadcast_unicast_2_s6", "unicast", 2, 6, 5),
    Spec("broadcast_unicast_4_s6", "unicast", 4, 6, 5),
    Spec("broadcast_unicast_8_s6", "unicast", 8, 6, 5),
    big("broadcast_big_empty_2_s6", "empty", 2, 6, 4),
    big("broadcast_big_unicast_2_s6", "unicast", 2, 6, 5),
    big("broadcast_big_empty_4_s6", "empty", 4, 6, 4),
    big("broadcast_big_unicast_4_s6", "unicast", 4, 6, 5),
]


def op(lines, name, **fields):
    lines.append("")
    lines.append("[[op]]")
    lines.append(f'op = "{name}"')
    for key, value in fields.items():
        lines.append(f"{key} = {value}")


def q(text):
    """A TOML string: views in literal quotes (they hold double quotes), the rest in basic."""
    return f"'{text}'" if '"' in text else f'"{text}"'


def load_ops(lines, s, j, guard):
    """The expect_tx and tensor_load of tile j (an int, or an expression) into its stage."""
    mode, cluster, stages = s.mode, s.cluster, s.stages
    stage = str(j % stages) if isinstance(j, int) else f"({j}) % {stages}"
    op(lines, "expect_tx", barrier=q(f"full.sub[{stage}]"), bytes=TILE_BYTES, pred=q(guard))
    first = f"(cluster_id + {j if isinstance(j, int) else f'({j})'} * ncluster) % {s.tiles} * {ROWS}"
    if mode == "unicast":
        op(lines, "tensor_load", tensor=q("A"), coords=f'["{first}", "0"]',
           dst=q(f"ring.sub[{stage}, :, :]"), barrier=q(f"full.sub[{stage}]"), pred=q(guard))
        return
    part = ROWS // cluster
    dst = (f'ring.sub[{stage}, :, :].rearrange("(r h) c -> r h c", r={cluster})'
           f".sub[cluster_rank, :, :]")
    op(lines, "tensor_load", tensor=q("A"),
       coords=f'["{first} + cluster_rank * {part}", "0"]', dst=q(dst),
       barrier=q(f"full.sub[{stage}]"), pred=q(guard), multicast=(1 << cluster) - 1)


def header(s):
    name, mode, cluster, stages, ahead = s.name, s.mode, s.cluster, s.stages, s.ahead
    grid = grid_of(cluster)
    how = {
        "unicast": "each CTA loads every whole tile itself (no mask); thread 0 refills a stage "
                   "after its own wait for the tile in it",
        "sync": f"each CTA multicasts its {ROWS // cluster} rows of every tile to the cluster; "
                "a cluster_sync after each wait paces the refills",
        "empty": f"each CTA multicasts its {ROWS // cluster} rows of every tile to the cluster; "
                 "thread r of each CTA releases a stage on the `empty` barrier of rank r and "
                 "thread 0 waits for its own `empty` (C arrivals) before a refill",
    }[mode]
    text = (f"{grid} CTAs in clusters of {cluster} need the same tiles of A ({s.tiles} tiles of "
            f"{ROWS} x {COLS} uint16); cluster c loads tiles (c + j * ncluster) % {s.tiles}, "
            f"j = 0 .. {s.loads - 1}, through a ring of {stages} stages {ahead} tiles ahead; {how}. "
            "At the end each CTA copies its last tile to B[bid].")
    return [
        "# NOT IN THE CORPUS: a benchmark, written by tools/bench/gen_broadcast.py (edit that, not",
        "# this file); tools/broadcast_device.sh times it on the H200 (docs/benchmarks.md,",
        '# "Broadcast loads: multicast against unicast"). The GEMM A-operand pattern.',
        *("# " + line for line in textwrap.wrap(text, 96)),
        "[kernel]",
        f'name = "{name}"',
        f"grid = {grid}",
        f"block = {THREADS}",
        f"cluster = {cluster}",
    ]


def tensors(lines, s):
    mode, cluster, stages = s.mode, s.cluster, s.stages
    grid = grid_of(cluster)
    box = ROWS if mode == "unicast" else ROWS // cluster
    lines += [
        "", "[tensor.A]", 'space = "global"', f"shape = [{s.tiles * ROWS}, {COLS}]",
        'dtype = "uint16"', 'init = "random(38)"',
        "", "[tensor.A.map]", f"box = [{box}, {COLS}]",
        "", "[tensor.B]", 'space = "global"', f"shape = [{grid}, {ROWS}, {COLS}]",
        'dtype = "uint16"', "output = true",
        "", "[tensor.ring]", 'space = "shared"', f"shape = [{stages}, {ROWS}, {COLS}]",
        'dtype = "uint16"',
        "", "[tensor.full]", 'space = "shared"', f"shape = [{stages}]", 'dtype = "uint64"',
    ]
    if mode == "empty":
        lines += ["", "[tensor.empty]", 'space = "shared"', f"shape = [{stages}]",
                  'dtype = "uint64"']


def init_ops(lines, s):
    mode, cluster, stages = s.mode, s.cluster, s.stages
    for s in range(stages):
        op(lines, "mbarrier_init", barrier=q(f"full.sub[{s}]"), count=1)
    if mode == "empty":
        for s in range(stages):
            op(lines, "mbarrier_init", barrier=q(f"empty.sub[{s}]"), count=cluster)
    if mode == "unicast":
        op(lines, "cta_sync")
    else:
        op(lines, "mbarrier_init_fence")
        op(lines, "cluster_sync")


def loop_ops(lines, s):
    mode, cluster, stages, ahead, loads = s.mode, s.cluster, s.stages, s.ahead, s.loads
    for j in range(ahead):
        load_ops(lines, s, j, "tid == 0")
    op(lines, "for", var=q("k"), start=0, stop=loads)
    guard = f"tid == 0 && k + {ahead} < {loads}"
    if mode == "empty":
        # The refill of tile k + ahead waits for the release of tile k + ahead - stages.
        op(lines, "mbarrier_wait", barrier=q(f"empty.sub[(k + {ahead}) % {stages}]"),
           parity=q(f"((k + {ahead}) / {stages} + 1) % 2"), pred=q(guard))
    load_ops(lines, s, f"k + {ahead}", guard)
    waiters = f"tid < {cluster}" if mode == "empty" else "tid == 0"
    op(lines, "mbarrier_wait", barrier=q(f"full.sub[k % {stages}]"),
       parity=q(f"k / {stages} % 2"), pred=q(waiters))
    if mode == "sync":
        op(lines, "cluster_sync")
    if mode == "empty":
        op(lines, "mbarrier_arrive", barrier=q(f"empty@(tid).sub[k % {stages}]"),
           pred=q(waiters))
    op(lines, "end")


def tail_ops(lines, s):
    mode, stages = s.mode, s.stages
    last = (s.loads - 1) % stages
    # The threads that skipped the loop's waits meet those that waited for the last tile:
    # waiting for its phase with no more than that, a thread could get there while an
    # earlier phase of the same parity is the last completed, and pass at once.
    op(lines, "cta_sync")
    op(lines, "mbarrier_wait", barrier=q(f"full.sub[{last}]"),
       parity=(s.loads - 1) // stages % 2)
    flat = f'.rearrange("(t e) -> t e", t={THREADS})'
    op(lines, "copy",
       dst=q(f'B.rearrange("b h c -> b (h c)").rearrange("b (t e) -> b t e", t={THREADS})'
             ".sub[bid, tid, :]"),
       src=q(f'ring.sub[{last}, :, :].rearrange("h c -> (h c)"){flat}.sub[tid, :]'))
    if mode != "unicast":
        # No CTA exits while a peer may still multicast into it or arrive on its barriers.
        op(lines, "cluster_sync")


def expects(lines, s):
    cluster = s.cluster
    grid = grid_of(cluster)
    ncluster = grid // cluster
    for cta in sorted({0, cluster, grid - 1}):
        tile = (cta // cluster + (s.loads - 1) * ncluster) % s.tiles
        lines += ["", f"# CTA {cta} (cluster {cta // cluster}) ends on tile {tile}.",
                  "[[expect]]",
                  f'that = "B.sub[{cta}, :, :] == A.sub[{tile * ROWS}:{(tile + 1) * ROWS}, :]"']


def spec_text(s):
    lines = header(s)
    tensors(lines, s)
    init_ops(lines, s)
    loop_ops(lines, s)
    tail_ops(lines, s)
    expects(lines, s)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(spec_gen.main(SPECS, spec_text, __file__, __doc__.split("\n")[0]))
