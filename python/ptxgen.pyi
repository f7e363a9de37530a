# Type stubs for the ptxgen extension module (python/module.cpp, stages.cpp, lint.cpp, instr.cpp);
# docs/python.md describes the API.
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy

__version__: str

IntoExpr = Union["Expr", int]
Extent = Union[int, Tuple[int, ...]]

class Expr:
    def __init__(self, value: int) -> None: ...
    def __add__(self, other: IntoExpr) -> Expr: ...
    def __radd__(self, other: IntoExpr) -> Expr: ...
    def __sub__(self, other: IntoExpr) -> Expr: ...
    def __rsub__(self, other: IntoExpr) -> Expr: ...
    def __mul__(self, other: IntoExpr) -> Expr: ...
    def __rmul__(self, other: IntoExpr) -> Expr: ...
    def __floordiv__(self, other: IntoExpr) -> Expr: ...
    def __rfloordiv__(self, other: IntoExpr) -> Expr: ...
    def __mod__(self, other: IntoExpr) -> Expr: ...
    def __rmod__(self, other: IntoExpr) -> Expr: ...
    def __lshift__(self, other: IntoExpr) -> Expr: ...
    def __rlshift__(self, other: IntoExpr) -> Expr: ...
    def __rshift__(self, other: IntoExpr) -> Expr: ...
    def __rrshift__(self, other: IntoExpr) -> Expr: ...
    def __and__(self, other: IntoExpr) -> Expr: ...
    def __rand__(self, other: IntoExpr) -> Expr: ...
    def __or__(self, other: IntoExpr) -> Expr: ...
    def __ror__(self, other: IntoExpr) -> Expr: ...
    def __xor__(self, other: IntoExpr) -> Expr: ...
    def __rxor__(self, other: IntoExpr) -> Expr: ...
    def __lt__(self, other: IntoExpr) -> Expr: ...
    def __le__(self, other: IntoExpr) -> Expr: ...
    def __gt__(self, other: IntoExpr) -> Expr: ...
    def __ge__(self, other: IntoExpr) -> Expr: ...
    def __eq__(self, other: IntoExpr) -> Expr: ...  # type: ignore[override]
    def __ne__(self, other: IntoExpr) -> Expr: ...  # type: ignore[override]
    def __neg__(self) -> Expr: ...

tid: Expr
warp: Expr
lane: Expr
bid: Expr

def special(name: str) -> Expr: ...
def axis(name: str) -> Expr: ...
def min(a: IntoExpr, b: IntoExpr) -> Expr: ...
def max(a: IntoExpr, b: IntoExpr) -> Expr: ...
def clamp(x: IntoExpr, lo: IntoExpr, hi: IntoExpr) -> Expr: ...
def select(c: IntoExpr, a: IntoExpr, b: IntoExpr) -> Expr: ...
def logical_and(a: IntoExpr, b: IntoExpr) -> Expr: ...
def logical_or(a: IntoExpr, b: IntoExpr) -> Expr: ...
def logical_not(a: IntoExpr) -> Expr: ...

class Diagnostic:
    id: str
    severity: str
    message: str
    file: str
    line: int
    column: int
    source_line: str
    caret: Tuple[int, int]

class Error(Exception):
    stage: str
    diagnostics: list[Diagnostic]

class NoDeviceError(Error): ...

class View:
    ok: bool
    error: Optional[Diagnostic]
    text: str
    dtype: str
    def rearrange(self, pattern: str, **sizes: int) -> View: ...
    def sub(self, *entries: Union[IntoExpr, slice]) -> View: ...
    def __getitem__(self, key: Any) -> View: ...
    def view(self, dtype: str) -> View: ...

class Init: ...
class CachePolicy: ...

def arange_mod(modulus: int) -> Init: ...
def random_init(seed: int) -> Init: ...
def policy_param(param: str) -> CachePolicy: ...
def create_policy(
    primary: str, secondary: Optional[str] = None, fraction: float = 1.0
) -> CachePolicy: ...

class TensorMap:
    """A global tensor's TMA descriptor (a spec's [tensor.NAME.map]), outermost first."""
    box: list[int]
    element_strides: list[int]
    swizzle: str
    oob_fill: str
    l2_promotion: str
    def __init__(
        self,
        box: Sequence[int],
        element_strides: Optional[Sequence[int]] = None,
        swizzle: str = "none",
        oob_fill: str = "zero",
        l2_promotion: str = "none",
    ) -> None: ...

class PipelineVars:
    tile: Expr
    stage: Expr

class Loop:
    def __enter__(self) -> Expr: ...
    def __exit__(self, *args: Any) -> None: ...

class RunResult:
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
    entry: str
    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_stores: int
    spill_loads: int

class Kernel:
    name: str
    def __init__(
        self, name: str, grid: Optional[Extent] = None, block: Optional[Extent] = None
    ) -> None: ...
    def launch(self, grid: Extent, block: Extent) -> None: ...
    def dynamic_shared(self, n: int) -> None: ...
    def global_tensor(
        self,
        name: str,
        shape: Sequence[int],
        dtype: str,
        init: Optional[Init] = None,
        output: bool = False,
        align: int = 16,
        map: Optional[Union[TensorMap, dict[str, Any]]] = None,
    ) -> View: ...
    def shared_tensor(
        self, name: str, shape: Sequence[int], dtype: str, align: int = 128, swizzle: str = "none"
    ) -> View: ...
    def param_u32(
        self, name: str, value: int, range: Optional[Tuple[int, int]] = None
    ) -> Expr: ...
    def param_u64(self, name: str, value: int) -> None: ...
    def view(self, text: str) -> View: ...
    def apply(
        self,
        opcode: str,
        dst: View,
        src: View,
        chunk_bytes: int,
        scope: str = "thread",
        src_size: Optional[IntoExpr] = None,
        ignore_src: Optional[IntoExpr] = None,
        pred: Optional[IntoExpr] = None,
        cache_policy: Optional[CachePolicy] = None,
    ) -> None: ...
    def commit_group(self) -> None: ...
    def wait_group(self, n: int) -> None: ...
    def wait_all(self) -> None: ...
    def cta_sync(self) -> None: ...
    def fill(self, dst: View, pattern: bytes) -> None: ...
    def copy(self, dst: View, src: View) -> None: ...
    def begin_for(
        self, var: str, start: IntoExpr, stop: IntoExpr, step: IntoExpr = 1, unroll: int = 1
    ) -> Expr: ...
    def end_for(self) -> None: ...
    def loop(
        self, var: str, start: IntoExpr, stop: IntoExpr, step: IntoExpr = 1, unroll: int = 1
    ) -> Loop: ...
    def pipeline(
        self,
        loads: Callable[[PipelineVars], None],
        body: Callable[[PipelineVars], None],
        stop: IntoExpr,
        stages: int = 2,
        start: IntoExpr = 0,
        var: str = "k",
        unroll: int = 1,
        stage_var: str = "stage",
        full: Optional[Callable[[PipelineVars], View]] = None,
        empty: Optional[Callable[[PipelineVars], View]] = None,
        ring_offset: Optional[IntoExpr] = None,
    ) -> None: ...
    def mbarrier_init(self, barrier: View, count: int) -> None: ...
    def copy_arrive(self, barrier: View, noinc: bool = False) -> None: ...
    def mbarrier_arrive(self, barrier: View, pred: Optional[IntoExpr] = None) -> None: ...
    def mbarrier_wait(self, barrier: View, parity: IntoExpr) -> None: ...
    def bulk_load(
        self,
        dst: View,
        src: View,
        barrier: Optional[View] = None,
        pred: Optional[IntoExpr] = None,
        cache_policy: Optional[CachePolicy] = None,
    ) -> None: ...
    def bulk_store(
        self,
        dst: View,
        src: View,
        pred: Optional[IntoExpr] = None,
        cache_policy: Optional[CachePolicy] = None,
    ) -> None: ...
    def bulk_commit(self) -> None: ...
    def bulk_wait(self, n: int, read: bool = False) -> None: ...
    def proxy_fence(self) -> None: ...
    def expect_tx(
        self, barrier: View, bytes: IntoExpr, arrive: bool = True, pred: Optional[IntoExpr] = None
    ) -> None: ...
    def tensor_load(
        self,
        tensor: View,
        coords: Sequence[IntoExpr],
        dst: View,
        barrier: Optional[View] = None,
        pred: Optional[IntoExpr] = None,
        cache_policy: Optional[CachePolicy] = None,
    ) -> None: ...
    def tensor_store(
        self,
        tensor: View,
        coords: Sequence[IntoExpr],
        src: View,
        pred: Optional[IntoExpr] = None,
        cache_policy: Optional[CachePolicy] = None,
    ) -> None: ...
    def abi(self, names: Sequence[str]) -> None: ...
    def expect_equal(self, lhs: View, rhs: View) -> None: ...
    def expect_value(self, lhs: View, value: int) -> None: ...
    def expect_sentinel(self, lhs: View) -> None: ...
    def diagnostics(self) -> list[Diagnostic]: ...
    def to_toml(self) -> str: ...
    def check(self, target: Optional[str] = None) -> list[Diagnostic]: ...
    def emit(self, target: Optional[str] = None, ptx_version: Optional[str] = None) -> str: ...
    def run(
        self,
        backend: str = "sim",
        target: Optional[str] = None,
        ptxas: Optional[str] = None,
        **tensors_and_params: Any,
    ) -> RunResult: ...

def load(path: str) -> Kernel: ...
def loads(text: str, name: str = "<string>") -> Kernel: ...
def assemble(ptx: str, target: str = "sm_80", ptxas: Optional[str] = None) -> bytes: ...
def resource_usage(
    ptx: str, target: str = "sm_80", ptxas: Optional[str] = None
) -> list[ResourceUsage]: ...

class LintFinding:
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
    threads: int
    instructions: int
    async_copies: int
    commits: int
    waits: int
    barriers: int
    lines: int
    lines_run: int
    runs: int

class LintReport:
    file: str
    name: str
    grid: list[int]
    block: list[int]
    status: str
    findings: list[LintFinding]
    coverage: LintCoverage
    error: str

def lint(
    ptx: str,
    entry: Optional[str] = None,
    grid: Optional[Extent] = None,
    block: Optional[Extent] = None,
    args: Optional[dict[str, Union[int, str]]] = None,
    seeds: int = 1,
    arch: Optional[str] = None,
) -> list[LintReport]: ...

def instr(
    opcode: str,
    chunk_bytes: Optional[int] = None,
    src_size: Optional[Union[int, str]] = None,
    ignore_src: bool = False,
    pred: bool = False,
    cache_policy: bool = False,
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
    *,
    size: Optional[Union[int, str]] = None,
    tx_count: Optional[Union[int, str]] = None,
    groups: Optional[int] = None,
    coords: Optional[int] = None,
    sink: bool = False,
) -> str: ...
