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

tid: Expr
warp: Expr
lane: Expr
bid: Expr

class Diagnostic:
    """A finding at a position, with its stable id."""
    id: str
    severity: str
    message: str
    file: str
    line: int
    column: int
    source_line: str
    caret: Tuple[int, int]

class Error(Exception):
    """A stage refused or failed: .stage names it, .diagnostics says why (ptxgen.Diagnostic)."""
    stage: str
    diagnostics: list[Diagnostic]

class NoDeviceError(Error):
    """A GPU run was asked for where there is no GPU."""

class ArgumentError(Error, ValueError):
    """An argument of a wrong value (a ptxgen.Error and a ValueError): the message names the parameter, what it takes and what was given."""

class ArgumentTypeError(Error, TypeError):
    """An argument of a wrong type (a ptxgen.Error and a TypeError), or an expression asked for a truth value."""

class Kernel:
    """A kernel built by calls, or loaded from a spec."""
    name: str
    def __init__(self, name: str, grid: Optional[Extent] = None, block: Optional[Extent] = None) -> None:
        """A kernel to build, named by an identifier; grid and block (default 1 and 128 when either is given) as launch() takes them."""
        ...
    def launch(self, grid: Extent, block: Extent) -> None:
        """The launch: CTAs and threads per CTA, each an int or a tuple of 1 to 3 ints."""
        ...
    def dynamic_shared(self, n: int) -> None:
        """The dynamic shared bytes a launch passes."""
        ...
    def ctas_per_sm(self, n: int) -> None:
        """The residency: CTAs per SM to compile (.minnctapersm) and launch for; the launch pads dynamic shared memory so that no more fit."""
        ...
    def cluster(self, dims: Extent, non_portable: bool = False) -> None:
        """The cluster (sm_90): CTAs launched together, an int or a tuple of 1 to 3 ints; 9..16 of them only with non_portable=True. The grid must be a whole number of clusters."""
        ...
    def global_tensor(self, name: str, shape: Sequence[int], dtype: DTypeLike, init: Optional[Init] = None, output: bool = False, align: int = 16, map: Union[TensorMap, dict[str, Any], None] = None) -> View:
        """A global tensor, as a View: `init` how test runs fill it, `output` compared after a run, `map` (sm_90) a TensorMap or a dict of its keywords."""
        ...
    def shared_tensor(self, name: str, shape: Sequence[int], dtype: DTypeLike, align: int = 128, swizzle: str = 'none') -> View:
        """A shared tensor, as a View; `swizzle` the layout a tensor_load with that swizzle writes."""
        ...
    def param_u32(self, name: str, value: int, range: Optional[Tuple[int, int]] = None) -> Expr:
        """A u32 parameter, as an Expr: `value` what test runs pass, `range` (lo, hi) what the contract proves for."""
        ...
    def param_u64(self, name: str, value: int) -> None:
        """A u64 parameter (a cache policy's)."""
        ...
    def view(self, text: str) -> View:
        """A view string as a spec writes it ('A.sub[tid, :]'); slice bounds may name parameters where an expectation takes the view."""
        ...
    def commit_group(self) -> None:
        """cp.async.commit_group."""
        ...
    def wait_all(self) -> None:
        """cp.async.wait_all."""
        ...
    def cta_sync(self) -> None:
        """bar.sync 0: the CTA's barrier."""
        ...
    def bulk_commit(self) -> None:
        """cp.async.bulk.commit_group."""
        ...
    def proxy_fence(self, space: str = 'shared::cta') -> None:
        """fence.proxy.async{.space}: the thread's generic writes of the space ('shared::cta', 'global' or 'all') reach its later bulk and tensor copies."""
        ...
    def cluster_sync(self, relaxed: bool = False) -> None:
        """barrier.cluster.arrive{.relaxed} + barrier.cluster.wait: the cluster's barrier (the CTA's, in a cluster of one)."""
        ...
    def mbarrier_init_fence(self) -> None:
        """fence.mbarrier_init.release.cluster: the thread's mbarrier_inits before it become visible to the cluster at its next cluster_sync."""
        ...
    def apply(self, opcode: str, dst: View, src: View, chunk_bytes: int, scope: str = 'thread', src_size: Optional[IntoExpr] = None, ignore_src: Optional[IntoExpr] = None, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None) -> None:
        """The spec's apply: a cp.async of every chunk of `src` into `dst`."""
        ...
    def wait_group(self, n: int) -> None:
        """cp.async.wait_group n: at most n groups stay pending."""
        ...
    def fill(self, dst: View, pattern: bytes) -> None:
        """Every byte of each thread's dst from pattern."""
        ...
    def copy(self, dst: View, src: View, pred: Optional[IntoExpr] = None) -> None:
        """Each thread's src into its dst (ld/st; only where pred holds, when given)."""
        ...
    def named_barrier(self, id: int, count: int, arrive: bool = False, pred: Optional[IntoExpr] = None) -> None:
        """bar.sync id, count (bar.arrive with arrive): the named barrier id (1..15) of the count threads, whole warps, whose pred holds."""
        ...
    def setmaxnreg(self, action: str, regs: int, pred: Optional[IntoExpr] = None) -> None:
        """setmaxnreg.{inc,dec}.sync.aligned.u32 regs (sm_90a): each warpgroup whose pred holds moves to regs registers per thread (24..256, a multiple of 8)."""
        ...
    def begin_for(self, var: str, start: IntoExpr, stop: IntoExpr, step: IntoExpr = 1, unroll: int = 1) -> Expr:
        """Opens `for (var = start; var < stop; var += step)` up to end_for(); its variable."""
        ...
    def end_for(self) -> None:
        """Closes the innermost open for."""
        ...
    def loop(self, var: str, start: IntoExpr, stop: IntoExpr, step: IntoExpr = 1, unroll: int = 1) -> Loop:
        """`with k.loop('i', 0, n) as i:` a for over the with-block (a RuntimeWarning when never entered)."""
        ...
    def pipeline(self, loads: Callable[[PipelineVars], None], body: Callable[[PipelineVars], None], stop: IntoExpr, stages: int = 2, start: IntoExpr = 0, var: str = 'k', unroll: int = 1, stage_var: str = 'stage', full: Optional[Callable[[PipelineVars], View]] = None, empty: Optional[Callable[[PipelineVars], View]] = None, ring_offset: Optional[IntoExpr] = None, producer_warps: Optional[int] = None, producer_regs: Optional[int] = None, consumer_regs: Optional[int] = None, consumer_barrier: Optional[int] = None, multicast: bool = False) -> None:
        """A software pipeline: loads(v) and body(v) build one tile's loads and consumer (v.tile, v.stage); full/empty give a TMA pipeline's mbarrier ring; producer_warps makes it warp-specialized (producer_regs / consumer_regs: setmaxnreg; consumer_barrier: a named barrier id among the consumers before each release; multicast: each CTA's loads are its share, multicast to the whole cluster or to the ranks of a load's own multicast= mask, and a stage's refill waits for the consumers of every CTA it lands in)."""
        ...
    def mbarrier_init(self, barrier: View, count: int) -> None:
        """mbarrier.init with the arrivals a phase needs."""
        ...
    def copy_arrive(self, barrier: View, noinc: bool = False) -> None:
        """cp.async.mbarrier.arrive: the thread's cp.asyncs arrive on barrier."""
        ...
    def mbarrier_arrive(self, barrier: View, pred: Optional[IntoExpr] = None) -> None:
        """mbarrier.arrive (only where pred holds, when given)."""
        ...
    def mbarrier_wait(self, barrier: View, parity: IntoExpr, pred: Optional[IntoExpr] = None) -> None:
        """Waits for the phase of barrier with `parity` to complete (only where pred holds, when given)."""
        ...
    def expect_equal(self, lhs: View, rhs: View) -> None:
        """After a run, lhs equals rhs (views of global tensors; slice bounds may name parameters)."""
        ...
    def expect_value(self, lhs: View, value: int) -> None:
        """After a run, every element of lhs holds value (exactly, in its element type)."""
        ...
    def expect_sentinel(self, lhs: View) -> None:
        """After a run, lhs keeps its initial bytes."""
        ...
    def bulk_load(self, dst: View, src: View, barrier: Optional[View] = None, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None, multicast: Optional[IntoExpr] = None) -> None:
        """cp.async.bulk of global src into shared dst, completing on barrier (left out in a ring pipeline's loads)."""
        ...
    def bulk_store(self, dst: View, src: View, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None) -> None:
        """cp.async.bulk of shared src to global dst, joining the thread's bulk group."""
        ...
    def bulk_reduce(self, dst: View, src: View, reduce: str, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None) -> None:
        """cp.reduce.async.bulk of shared src into global dst, element by element with `reduce` (add, min, max, inc, dec, and, or, xor), joining the thread's bulk group."""
        ...
    def bulk_copy_peer(self, dst: View, src: View, barrier: View, pred: Optional[IntoExpr] = None) -> None:
        """cp.async.bulk of the CTA's shared src into a peer's shared dst (S@rank), completing on that peer's barrier (B@rank)."""
        ...
    def bulk_wait(self, n: int, read: bool = False) -> None:
        """cp.async.bulk.wait_group{.read} n: at most n bulk groups stay pending."""
        ...
    def expect_tx(self, barrier: View, bytes: IntoExpr, arrive: bool = True, pred: Optional[IntoExpr] = None) -> None:
        """Adds bytes to the transaction count barrier's phase waits for (arrive: mbarrier.arrive.expect_tx)."""
        ...
    def tensor_load(self, tensor: View, coords: Sequence[IntoExpr], dst: View, barrier: Optional[View] = None, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None, multicast: Optional[IntoExpr] = None, offsets: Optional[Sequence[IntoExpr]] = None, map: Optional[View] = None) -> None:
        """The box of tensor's map at coords (outermost first) into shared dst, completing on barrier (left out in a ring pipeline's loads); an im2col map's load takes offsets, one per spatial dimension; map: a global slot holding the map (tensormap_copy) instead of tensor's parameter."""
        ...
    def tensor_store(self, tensor: View, coords: Sequence[IntoExpr], src: View, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None, map: Optional[View] = None) -> None:
        """Shared src to the box of tensor's map at coords, joining the thread's bulk group (map: as tensor_load's)."""
        ...
    def tensor_reduce(self, tensor: View, coords: Sequence[IntoExpr], src: View, reduce: str, pred: Optional[IntoExpr] = None, cache_policy: Optional[CachePolicy] = None) -> None:
        """cp.reduce.async.bulk.tensor of shared src into the box of tensor's map at coords, element by element with `reduce` (add, min, max, inc, dec, and, or, xor) in the map's dtype, joining the thread's bulk group."""
        ...
    def prefetch_tensormap(self, tensor: View, pred: Optional[IntoExpr] = None) -> None:
        """prefetch.tensormap of tensor's map (its generic address): a hint that brings the 128-byte map into the cache before its first copy."""
        ...
    def abi(self, names: list[str]) -> None:
        """The PTX parameter order: every global tensor and parameter once, a map as 'A.map'."""
        ...
    def tensormap_copy(self, tensor: View, dst: View, src: Optional[View] = None, pred: Optional[IntoExpr] = None) -> None:
        """Copies tensor's map into dst (128 bytes of global or shared memory): from the map parameter with ld.param/st, or with src (a shared slot) by tensormap.cp_fenceproxy into a global dst, fenced for the tensormap proxy."""
        ...
    def tensormap_replace(self, tensor: View, map: View, field: str, dim: int = 0, value: Optional[IntoExpr] = None, address: Optional[View] = None, pred: Optional[IntoExpr] = None) -> None:
        """tensormap.replace.tile.FIELD of tensor's map at `map` (global or shared): global_address (the base of tensor `address`), or global_dim / global_stride `dim` (outermost first) to `value`."""
        ...
    def tensormap_fence(self, map: View, sem: str, pred: Optional[IntoExpr] = None) -> None:
        """fence.proxy.tensormap::generic: release (the thread's edits of the map) or acquire [map], 128 (before the thread's copies through it)."""
        ...
    def diagnostics(self) -> list[Diagnostic]:
        """The builder's findings so far."""
        ...
    def to_toml(self) -> str:
        """The kernel as a spec file's text (ptxgen.loads reads it back)."""
        ...
    def check(self, target: Optional[str] = None) -> list[Diagnostic]:
        """Every diagnostic `ptxgen check` gives for `target` (errors, warnings and notes: the contract, the range proofs, the whole-launch hazards, the mbarrier walk and the expectations), raising nothing; default: sm_80, or what the kernel's ops need. Cached by the kernel's content."""
        ...
    def emit(self, target: Optional[str] = None, ptx_version: Optional[str] = None) -> str:
        """The kernel's PTX; ptxgen.Error(stage='emit') with every diagnostic when check() finds an error (nothing emits what check refuses); default target: sm_80, or what the kernel's ops need (a comment line says so)."""
        ...
    def run(self, backend: str = 'sim', target: Optional[str] = None, ptxas: Optional[str] = None, **kwargs: Any) -> RunResult:
        """Runs the kernel against the reference; keyword arguments give global tensors (numpy arrays) and parameter values."""
        ...

class Expr:
    """An index, size or predicate expression: ints convert, operators build trees, str() is the spec's spelling. It has no truth value in Python."""
    def __init__(self, value: int) -> None:
        """A constant."""
        ...
    def __add__(self, other: IntoExpr) -> Expr:
        """self + other, as an expression"""
        ...
    def __radd__(self, other: IntoExpr) -> Expr:
        """other + self, as an expression"""
        ...
    def __sub__(self, other: IntoExpr) -> Expr:
        """self - other, as an expression"""
        ...
    def __rsub__(self, other: IntoExpr) -> Expr:
        """other - self, as an expression"""
        ...
    def __mul__(self, other: IntoExpr) -> Expr:
        """self * other, as an expression"""
        ...
    def __rmul__(self, other: IntoExpr) -> Expr:
        """other * self, as an expression"""
        ...
    def __floordiv__(self, other: IntoExpr) -> Expr:
        """self / other, as an expression"""
        ...
    def __rfloordiv__(self, other: IntoExpr) -> Expr:
        """other / self, as an expression"""
        ...
    def __mod__(self, other: IntoExpr) -> Expr:
        """self % other, as an expression"""
        ...
    def __rmod__(self, other: IntoExpr) -> Expr:
        """other % self, as an expression"""
        ...
    def __lshift__(self, other: IntoExpr) -> Expr:
        """self << other, as an expression"""
        ...
    def __rlshift__(self, other: IntoExpr) -> Expr:
        """other << self, as an expression"""
        ...
    def __rshift__(self, other: IntoExpr) -> Expr:
        """self >> other, as an expression"""
        ...
    def __rrshift__(self, other: IntoExpr) -> Expr:
        """other >> self, as an expression"""
        ...
    def __and__(self, other: IntoExpr) -> Expr:
        """self & other, as an expression"""
        ...
    def __rand__(self, other: IntoExpr) -> Expr:
        """other & self, as an expression"""
        ...
    def __or__(self, other: IntoExpr) -> Expr:
        """self | other, as an expression"""
        ...
    def __ror__(self, other: IntoExpr) -> Expr:
        """other | self, as an expression"""
        ...
    def __xor__(self, other: IntoExpr) -> Expr:
        """self ^ other, as an expression"""
        ...
    def __rxor__(self, other: IntoExpr) -> Expr:
        """other ^ self, as an expression"""
        ...
    def __lt__(self, other: IntoExpr) -> Expr:
        """self < other, as an expression (1 or 0 when the kernel runs)"""
        ...
    def __le__(self, other: IntoExpr) -> Expr:
        """self <= other, as an expression (1 or 0 when the kernel runs)"""
        ...
    def __gt__(self, other: IntoExpr) -> Expr:
        """self > other, as an expression (1 or 0 when the kernel runs)"""
        ...
    def __ge__(self, other: IntoExpr) -> Expr:
        """self >= other, as an expression (1 or 0 when the kernel runs)"""
        ...
    def __eq__(self, other: IntoExpr) -> Expr:  # type: ignore[override]
        """self == other, as an expression (1 or 0 when the kernel runs)"""
        ...
    def __ne__(self, other: IntoExpr) -> Expr:  # type: ignore[override]
        """self != other, as an expression (1 or 0 when the kernel runs)"""
        ...
    def __neg__(self) -> Expr:
        """-self, as an expression"""
        ...
    def __bool__(self) -> bool:
        """Raises ptxgen.ArgumentTypeError: see ptxgen.select."""
        ...

class View:
    """A view of a tensor: rearrange, sub ([...]) and dtype views."""
    ok: bool
    error: Optional[Diagnostic]
    text: str
    dtype: str
    shape: Optional[Tuple[int, ...]]
    def rearrange(self, pattern: str, **kwargs: Any) -> View:
        """einops' rearrange: `pattern` and the new axes' sizes as keywords."""
        ...
    def sub(self, *args: Any) -> View:
        """The spec's .sub[...]: indices (ints, Exprs) and slices, as v[...] takes them."""
        ...
    def __getitem__(self, key: Any) -> View:
        """v[i, 0:8, :]: ints (negative ones count from the end, as numpy's), Exprs, slices without a step (an Expr bound only in an expectation) and one `...`."""
        ...
    def view(self, dtype: DTypeLike) -> View:
        """The last axis's bytes as another element type."""
        ...
    def peer(self, rank: IntoExpr) -> View:
        """S@(rank): the view in the shared tensor of CTA `rank` of the cluster (copy and fill take it)."""
        ...

class Init:
    """How a global tensor starts in test runs."""

class CachePolicy:
    """An apply's or a bulk copy's L2 cache policy."""

class PipelineVars:
    """A pipeline tile's index and ring slot."""
    tile: Expr
    stage: Expr

class Loop:
    """A `for` open for the length of a with-block."""
    def __enter__(self) -> Expr:
        """Opens the for; its variable."""
        ...
    def __exit__(self, *args: Any) -> None:
        """Closes the for."""
        ...

class TensorMap:
    """A global tensor's TMA descriptor (a spec's [tensor.NAME.map])."""
    box: list[int]
    element_strides: list[int]
    swizzle: str
    oob_fill: str
    l2_promotion: str
    mode: str
    lower_corner: list[int]
    upper_corner: list[int]
    channels: int
    pixels: int
    def __init__(self, box: Optional[list[int]] = None, element_strides: Optional[list[int]] = None, swizzle: str = 'none', oob_fill: str = 'zero', l2_promotion: str = 'none', mode: str = 'tile', lower_corner: Optional[list[int]] = None, upper_corner: Optional[list[int]] = None, channels: Optional[int] = None, pixels: Optional[int] = None) -> None:
        """A map: box (elements per copy, outermost first), element_strides, swizzle, oob_fill and l2_promotion as a spec's [tensor.NAME.map] spells them; mode = 'im2col' takes lower_corner, upper_corner, channels and pixels instead of box."""
        ...

class RunResult:
    """A run's outcome, outputs, hazards and timings."""
    status: str
    stage: str
    detail: str
    backend: str
    outputs: dict[str, numpy.ndarray]
    reference: dict[str, numpy.ndarray]
    hazards: list[Diagnostic]
    race: Optional[str]
    timings: dict[str, float]
    passed: bool

class ResourceUsage:
    """ptxas -v's figures for one entry."""
    entry: str
    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_stores: int
    spill_loads: int

class LintFinding:
    """One hazard (or fault) lint met."""
    rule: str
    kind: str
    message: str
    line: int
    other_line: int
    block: int
    thread: int
    other_thread: int
    iteration: int
    other_iteration: int
    symbol: str
    offset: int
    hits: int
    seed: int

class LintCoverage:
    """What the runs executed."""
    threads: int
    instructions: int
    async_copies: int
    commits: int
    waits: int
    barriers: int
    lines: int
    lines_run: int
    runs: int
    races_unlisted: int

class LintReport:
    """One entry's lint: findings and coverage."""
    file: str
    name: str
    grid: list[int]
    block: list[int]
    status: str
    findings: list[LintFinding]
    coverage: LintCoverage
    error: str

def special(name: str) -> Expr:
    """A launch coordinate or size by its spec name: 'tid.x', 'ntid', 'nbid.z'."""
    ...
def axis(name: str) -> Expr:
    """A named repeat axis of an apply's src view (in src_size, ignore_src, pred)."""
    ...
def min(a: IntoExpr, b: IntoExpr) -> Expr:
    """min(a, b), as an expression (Python's min cannot build one)."""
    ...
def max(a: IntoExpr, b: IntoExpr) -> Expr:
    """max(a, b), as an expression (Python's max cannot build one)."""
    ...
def clamp(x: IntoExpr, lo: IntoExpr, hi: IntoExpr) -> Expr:
    """min(max(x, lo), hi), as the spec's clamp."""
    ...
def select(c: IntoExpr, a: IntoExpr, b: IntoExpr) -> Expr:
    """c ? a : b, as an expression (the spec's if_then_else)."""
    ...
def logical_and(a: IntoExpr, b: IntoExpr) -> Expr:
    """a && b, as an expression (Python's `and` cannot build one)."""
    ...
def logical_or(a: IntoExpr, b: IntoExpr) -> Expr:
    """a || b, as an expression (Python's `or` cannot build one)."""
    ...
def logical_not(a: IntoExpr) -> Expr:
    """!a, as an expression (Python's `not` cannot build one)."""
    ...
def arange_mod(modulus: int) -> Init:
    """A global tensor's init: element i holds i % modulus."""
    ...
def random_init(seed: int) -> Init:
    """A global tensor's init: bytes from ptxgen's fixed generator."""
    ...
def policy_param(param: str) -> CachePolicy:
    """The cache policy in a u64 parameter (k.param_u64)."""
    ...
def create_policy(primary: str, secondary: Optional[str] = None, fraction: float = 1.0) -> CachePolicy:
    """A cache policy createpolicy makes: the primary priority for `fraction` of the lines, the secondary for the rest."""
    ...
def load(path: str) -> Kernel:
    """A kernel from a spec file."""
    ...
def loads(text: str, name: str = '<string>') -> Kernel:
    """A kernel from spec text."""
    ...
def cache_info() -> dict[str, Any]:
    """This process's cache counters: the range proofs and lowerings (by the kernel's content, options and target) and the cubins (by PTX, target and ptxas version)."""
    ...
def clear_cache() -> None:
    """Forgets the cached range proofs, lowerings and cubins (for measuring a cold run)."""
    ...
def assemble(ptx: str, target: str = 'sm_80', ptxas: Optional[str] = None) -> bytes:
    """The cubin ptxas makes of the PTX; ptxgen.Error(stage='ptxas') when it refuses."""
    ...
def resource_usage(ptx: str, target: str = 'sm_80', ptxas: Optional[str] = None) -> list[ResourceUsage]:
    """ptxas -v's registers and bytes per entry."""
    ...
def lint(ptx: Any, entry: Optional[str] = None, grid: Optional[Extent] = None, block: Optional[Extent] = None, args: Optional[dict] = None, seeds: int = 1, arch: Optional[str] = None) -> list:
    """Runs the entries of foreign PTX on the simulator with no spec: one ptxgen.LintReport per entry with its findings and coverage. `ptx` is PTX text (a str of several lines) or a path (a pathlib.Path, or a str of one line)."""
    ...
def instr(opcode: str, chunk_bytes: Optional[int] = None, src_size: Optional[Union[int, str]] = None, ignore_src: bool = False, pred: bool = False, cache_policy: bool = False, target: Optional[str] = None, ptx_version: Optional[str] = None, *, size: Optional[Union[int, str]] = None, tx_count: Optional[Union[int, str]] = None, groups: Optional[int] = None, coords: Optional[int] = None, sink: bool = False) -> str:
    """One instruction checked for the target, as `ptxgen instr` prints it (.version, .target, the instruction): a cp.async (chunk_bytes, src_size, ignore_src; target sm_80 unless given) or one of the bulk-copy family (size, tx_count, groups, coords, sink; target sm_90 unless given), told apart by the opcode; cp.async.commit_group, cp.async.wait_group (N from groups) and cp.async.wait_all take none of a copy's options. ptxgen.Error(stage='instr') with the diagnostics when the opcode does not parse or the PTX rules refuse it; ValueError for an option the form does not take."""
    ...
