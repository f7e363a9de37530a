#pragma once
// The kernel IR: what a spec file (or a C++ code generator) describes.

#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/support/overloaded.hpp"
#include "emitter/tile/expr.hpp"
#include "emitter/tile/tensor.hpp"
#include "emitter/tile/tensor_map.hpp"
#include "emitter/tile/view.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::tile {

/// Where an op or a field came from, for diagnostics.
/// The value of [kernel]'s `expect` key that declares a spec that must fault (Kernel::must_fault).
inline constexpr std::string_view kMustFaultValue = "fault";

struct SourcePos {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string source_line;
};

/// A view or expression written as a string in the spec, with its position:
/// diagnostics inside the string are rebased onto `pos` (the string's first byte).
template <class T>
struct Located {
  T value;
  std::string text;
  SourcePos pos;
};

/// A scalar kernel parameter (`[param.valid_rows] dtype = "u32" value = 100`).
struct ScalarParam {
  std::string name;
  bool is_u64 = false;           ///< u64 is only for cache policies
  std::uint64_t value = 0;       ///< what test runs pass
  std::optional<Interval> range; ///< declared range for proofs; default the whole type
  SourcePos pos;
};

enum class Scope : std::uint8_t {
  thread, ///< each thread's views have shape (*repeat, element)
  cta,    ///< views have shape (warp, lane, *repeat, element)
};

/// The cache policy operand for `.L2::cache_hint`.
struct CachePolicyFromParam {
  std::string param;
};                         ///< a u64 kernel parameter
struct CachePolicyCreate { ///< createpolicy.fractional
  ptx::EvictionPriority primary = ptx::EvictionPriority::evict_last;
  std::optional<ptx::EvictionPriority> secondary;
  float fraction = 1.0f;
};
using CachePolicy = std::variant<CachePolicyFromParam, CachePolicyCreate>;

/// `T.cuda.tile.apply(T.ptx["cp.async..."], dst, src, chunk_bytes=.., scope=.., ...)`
struct ApplyOp {
  Located<ptx::CpAsyncOpcode> opcode;
  Located<View> dst;
  Located<View> src;
  Located<std::int64_t> chunk_bytes;
  Scope scope = Scope::thread;
  std::optional<Located<ExprPtr>> src_size;
  std::optional<Located<ExprPtr>> ignore_src;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
};

struct CommitGroupOp {};
struct WaitGroupOp {
  std::int64_t n = 0;
};
struct WaitAllOp {};
struct CtaSyncOp {};

/// Fills every byte of a view (each thread writes its own view) with a repeating byte pattern.
struct FillOp {
  Located<View> dst;
  std::vector<std::uint8_t> pattern; ///< at least one byte; repeated
};

/// A synchronous element copy between two views of equal shape (ld/st), by each thread
/// whose pred holds (the consumer warps of a warp-specialized ring: `pred = "warp >= 1"`).
struct CopyOp {
  Located<View> dst;
  Located<View> src;
  std::optional<Located<ExprPtr>> pred;
};

/// `for (var = start; var < stop; var += step)` over the ops up to the matching
/// EndOp. start, stop and step are evaluated once at the loop's entry and are
/// the same for every thread of a CTA (no tid, warp, lane or tid.*), so every
/// thread runs the same iterations; the loader checks that, and the proper
/// nesting of `for` and `end`.
struct ForOp {
  Located<std::string> var; ///< the loop variable (ExprKind::loop leaves name it)
  Located<ExprPtr> start;
  Located<ExprPtr> stop;   ///< exclusive
  Located<ExprPtr> step;   ///< provably >= 1 (the contract checks it)
  std::int64_t unroll = 1; ///< 1: a PTX loop; N: the body copied N times per back edge
  std::size_t end = 0;     ///< index of the matching EndOp in Kernel::ops
};

/// The end of the loop whose ForOp is at Kernel::ops[begin].
struct EndOp {
  std::size_t begin = 0;
};

/// `mbarrier_init`: thread 0 of each CTA initialises the barrier (an 8-byte view of a
/// shared tensor) to phase 0 expecting `count` arrivals per phase.
struct MbarrierInitOp {
  Located<View> barrier;
  Located<std::int64_t> count;
};

/// `copy_arrive`: cp.async.mbarrier.arrive{.noinc}: the thread's earlier cp.asyncs arrive
/// on the barrier once they have all completed. Without noinc the pending count is first
/// incremented (the deferred arrival nets zero); with noinc it is one of the phase's arrivals.
struct CopyArriveOp {
  Located<View> barrier;
  bool noinc = false;
};

/// `mbarrier_arrive`: one arrival of each thread whose pred holds.
struct MbarrierArriveOp {
  Located<View> barrier;
  std::optional<Located<ExprPtr>> pred;
};

/// `mbarrier_wait`: each thread whose pred holds (all of them without one) waits until the
/// barrier's phase of this parity (0 or 1) has completed.
struct MbarrierWaitOp {
  Located<View> barrier;
  Located<ExprPtr> parity;
  std::optional<Located<ExprPtr>> pred;
};

// ---------------------------------------------------------------- the sm_90 bulk-copy family
// Each of these is one instruction per issuing thread: every thread whose `pred` holds (all
// of them without one) issues its own copy of its own views. The usual shape is one elected
// thread (`pred = "tid == 0"`) moving a whole tile.

/// `bulk_load`: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes. The bytes
/// of `src` (a contiguous global view) land in `dst` (a contiguous shared view of the same
/// byte size) and complete on `barrier` as that many transaction bytes of its current phase.
struct BulkLoadOp {
  Located<View> dst;
  Located<View> src;
  Located<View> barrier;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
  /// `.multicast::cluster`: bit r of this 16-bit CTA mask sends the bytes to the CTA of
  /// cluster rank r, to `dst` and `barrier` at the same offsets in its shared memory.
  std::optional<Located<ExprPtr>> multicast;
};

/// `bulk_store`: cp.async.bulk.global.shared::cta.bulk_group. The bytes of `src` (a contiguous
/// shared view) go to `dst` (a contiguous global view of the same byte size); the copy joins
/// the thread's current bulk group.
struct BulkStoreOp {
  Located<View> dst;
  Located<View> src;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
};

/// `bulk_commit`: cp.async.bulk.commit_group (the thread's bulk stores so far form a group).
struct BulkCommitOp {};

/// `bulk_wait`: cp.async.bulk.wait_group{.read} n: at most n of the thread's bulk groups stay
/// pending; with `read`, only their reads of shared memory have to be done.
struct BulkWaitOp {
  std::int64_t n = 0;
  bool read = false;
};

/// Which state space a proxy_fence orders: `shared_cta` (fence.proxy.async.shared::cta),
/// `global` (fence.proxy.async.global) or `all` (the unqualified fence.proxy.async, both).
enum class FenceSpace : std::uint8_t { shared_cta, global, all };
/// The spec language's spellings of FenceSpace (the TOML `space` key, Python's `space=`).
inline constexpr auto fence_space_names =
    enum_names<FenceSpace::all>("shared::cta", "global", "all");

/// `proxy_fence`: fence.proxy.async{.space}, which orders the thread's earlier generic
/// accesses of the space's memory before its later async-proxy ones (a bulk store reading
/// shared bytes, a bulk or tensor load writing them or reading global bytes).
struct ProxyFenceOp {
  FenceSpace space = FenceSpace::shared_cta;
};

/// `expect_tx`: mbarrier.arrive.expect_tx (`arrive`, the default) or mbarrier.expect_tx: each
/// thread whose pred holds adds `bytes` to the transaction count its barrier's current phase
/// waits for (and arrives once).
struct ExpectTxOp {
  Located<View> barrier;
  Located<ExprPtr> bytes;
  bool arrive = true;
  std::optional<Located<ExprPtr>> pred;
};

/// `tensor_load`: cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes:
/// the box of `tensor`'s map at `coords` (outermost first, one per dimension; a coordinate may
/// lie outside the tensor: those elements are filled) lands in `dst`, a contiguous shared view
/// of the box's bytes, completing on `barrier`.
struct TensorLoadOp {
  Located<std::string> tensor;
  std::vector<Located<ExprPtr>> coords;
  Located<View> dst;
  Located<View> barrier;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
  std::optional<Located<ExprPtr>> multicast; ///< the CTA mask, as BulkLoadOp's
  /// A map in memory (a global slot a tensormap_copy filled, maybe edited) used instead of
  /// `tensor`'s parameter; `tensor` still names the map the slot holds.
  std::optional<Located<View>> map;
  /// An im2col map's offsets, one per spatial dimension, outermost first (D, H, W): added to
  /// the filter base (the spatial coordinates) to give each pixel's place in the tensor.
  std::optional<std::vector<Located<ExprPtr>>> offsets;
};

/// `tensor_store`: cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group: the box at
/// `coords` is written from `src` (a contiguous shared view of the box's bytes); the copy joins
/// the thread's current bulk group.
struct TensorStoreOp {
  Located<std::string> tensor;
  std::vector<Located<ExprPtr>> coords;
  Located<View> src;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
  std::optional<Located<View>> map; ///< a map in memory, as TensorLoadOp's
};

/// `cluster_sync`: barrier.cluster.arrive{.relaxed} then barrier.cluster.wait, by every thread.
/// Every sm_90 launch is a cluster, of one CTA unless `[kernel] cluster` asks for more, so it
/// needs no cluster launch. Among a CTA's threads it orders as cta_sync does, and across the
/// CTAs of a cluster it orders every access before it against every access after it (arrive's
/// release, wait's acquire, at cluster scope); a `relaxed` arrival orders none of the thread's
/// memory accesses before it (only when threads go on).
struct ClusterSyncOp {
  bool relaxed = false;
};

/// A bulk_reduce's reduction (cp.reduce.async.bulk's .redOp): what each element of dst
/// becomes from its old value and src's element. Which element types each takes is
/// tile::reduce_ptx_type's table (reduce.hpp).
enum class ReduceKind : std::uint8_t { add, min, max, inc, dec, and_, or_, xor_ };
/// The spec language's spellings of ReduceKind (the TOML `reduce` key, Python's `reduce=`),
/// which are also the PTX qualifiers.
inline constexpr auto reduce_kind_names =
    enum_names<ReduceKind::xor_>("add", "min", "max", "inc", "dec", "and", "or", "xor");

/// `bulk_reduce`: cp.reduce.async.bulk.global.shared::cta.bulk_group.<reduce>.<type>. Each
/// element of `dst` (a contiguous global view) becomes the reduction of its value and the
/// element of `src` (a contiguous shared view of the same byte size and dtype) at the same
/// index, atomically per element; the copy joins the thread's current bulk group as a
/// bulk_store does. `reduce_pos` is where the reduction was written (the `reduce` key, the
/// builder call): its type rule is shown there.
struct BulkReduceOp {
  Located<View> dst;
  Located<View> src;
  ReduceKind reduce = ReduceKind::add;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
  SourcePos reduce_pos;
};

/// `mbarrier_init_fence`: fence.mbarrier_init.release.cluster by every thread. It makes the
/// thread's earlier mbarrier_inits visible to the cluster (and its async proxy) at the next
/// cluster_sync: a multicast into a peer's barrier needs that (docs/spec-format.md,
/// "Multicast").
struct MbarrierInitFenceOp {};

/// The fields of a tensor map tensormap.replace edits, in the ISA's order. Only
/// global_address, global_dim and global_stride are modelled (a grouped GEMM's edits: another
/// tensor's base and extents); the builder refuses the others (spec_tensormap_field).
enum class TensormapField : std::uint8_t {
  global_address,
  rank,
  box_dim,
  global_dim,
  global_stride,
  element_stride,
  elemtype,
  interleave_layout,
  swizzle_mode,
  fill_mode,
};
/// The spec language's spellings of TensormapField, which are also the PTX qualifiers.
inline constexpr auto tensormap_field_names = enum_names<TensormapField::fill_mode>(
    "global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
    "elemtype", "interleave_layout", "swizzle_mode", "fill_mode");
/// Whether ptxgen models edits of `f` (global_address, global_dim, global_stride).
constexpr bool modelled(TensormapField f) {
  return f == TensormapField::global_address || f == TensormapField::global_dim ||
         f == TensormapField::global_stride;
}

/// The two halves of the tensormap-proxy fence pair: `release` after the edits of a map (by
/// the editing thread), `acquire` of the map before the copies through it (by the copying
/// thread).
enum class TensormapSem : std::uint8_t { release, acquire };
inline constexpr auto tensormap_sem_names = enum_names<TensormapSem::acquire>("release", "acquire");

/// The bytes of a tensor map (a CUtensorMap) and the alignment its slot in memory needs.
inline constexpr std::int64_t kTensorMapBytes = 128;
inline constexpr std::int64_t kTensorMapSlotAlign = 128;

/// `tensormap_copy`: the map of global tensor `tensor` into `dst`, a contiguous view of 128
/// bytes of global or shared memory (the map's slot), 128-byte aligned. Without `src` the
/// bytes come from the map's kernel parameter (ld.param then st, ordinary generic writes).
/// With `src` (a shared slot already holding tensor's map) into a global `dst` by
/// tensormap.cp_fenceproxy...release.gpu.sync.aligned: the copy is also the release half of
/// the tensormap-proxy fence pair, and every thread of the warp runs it (no `pred`).
struct TensormapCopyOp {
  Located<std::string> tensor;
  Located<View> dst;
  std::optional<Located<View>> src;
  std::optional<Located<ExprPtr>> pred;
};

/// `tensormap_replace`: tensormap.replace.tile.<field>.<space>.b1024.<b32|b64> [map], {ord,}
/// value: one field of `tensor`'s map in the slot `map` (global or shared, 128 bytes, 128-byte
/// aligned) becomes `value` (global_dim, global_stride of dimension `dim`, outermost first as
/// everywhere in a spec) or the base address of global tensor `address` (global_address).
/// A generic-proxy write of the slot: a copy through the map needs the tensormap-proxy fence
/// pair after it.
struct TensormapReplaceOp {
  Located<std::string> tensor; ///< the global tensor whose map the slot holds
  Located<View> map;
  TensormapField field = TensormapField::global_address;
  std::int64_t dim = 0;
  std::optional<Located<ExprPtr>> value;
  std::optional<Located<std::string>> address;
  std::optional<Located<ExprPtr>> pred;
  SourcePos field_pos; ///< where the field was named (the `field` key, the builder call)
  SourcePos dim_pos;   ///< where `dim` was given (the field's position when it was not)
};

/// `tensormap_fence`: fence.proxy.tensormap::generic.release.gpu (`release`), or
/// fence.proxy.tensormap::generic.acquire.gpu [map], 128 (`acquire`, the map a global slot,
/// its generic address).
struct TensormapFenceOp {
  Located<View> map;
  TensormapSem sem = TensormapSem::release;
  std::optional<Located<ExprPtr>> pred;
  SourcePos sem_pos;
};

/// `tensor_reduce`: cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<reduce>.tile.bulk_group.
/// Each element of the box of `tensor`'s map at `coords` inside the tensor becomes the
/// reduction of its value and the element of `src` (a contiguous shared view of the box's
/// bytes, of the map's dtype) at the same place in the box, atomically per element; box
/// elements outside the tensor are not written. The element type is the map's dtype (the
/// instruction names none); the copy joins the thread's current bulk group as a tensor_store
/// does. A separate op, as bulk_reduce is beside bulk_store: every rule keyed on a tensor_store
/// being a plain write stays true, and the reduction is its own access to the race model.
struct TensorReduceOp {
  Located<std::string> tensor;
  std::vector<Located<ExprPtr>> coords;
  Located<View> src;
  ReduceKind reduce = ReduceKind::add;
  std::optional<Located<ExprPtr>> pred;
  std::optional<Located<CachePolicy>> cache_policy;
  SourcePos reduce_pos; ///< as BulkReduceOp's
};

/// `prefetch_tensormap`: prefetch.tensormap of the generic address of `tensor`'s map (a
/// kernel parameter), by each thread where pred holds. A hint: nothing in memory changes.
struct PrefetchTensormapOp {
  Located<std::string> tensor;
  std::optional<Located<ExprPtr>> pred;
};

/// `bulk_copy_peer`: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.
/// The bytes of `src` (a contiguous view of the CTA's own shared tensor) land in `dst`, a view
/// of a peer's shared tensor (`S@rank`), and complete on `barrier`, that same peer's mbarrier
/// (`B@rank`, the same rank), as that many transaction bytes of its current phase. Both
/// addresses go through mapa (docs/spec-format.md, "Bulk copies into a peer").
struct BulkCopyPeerOp {
  Located<View> dst;
  Located<View> src;
  Located<View> barrier;
  std::optional<Located<ExprPtr>> pred;
};

/// `named_barrier`: bar.sync id, count (bar.arrive id, count with `arrive`) by each thread
/// whose pred holds: the barrier `id` (1..15; 0 is cta_sync's) of `count` threads, a multiple
/// of 32, which completes when `count` threads, whole warps, have arrived; `arrive` goes on
/// without waiting. The consumer warps of a warp-specialized ring synchronise among
/// themselves with it while the producer warp runs on. The contract proves that its users
/// (the threads whose pred holds, the same on every iteration) are whole warps and exactly
/// `count` threads, and that every named_barrier of one id gives the same count
/// (warp_roles.hpp).
struct NamedBarrierOp {
  Located<std::int64_t> id;
  Located<std::int64_t> count;
  bool arrive = false;
  std::optional<Located<ExprPtr>> pred;
};

/// Which way a setmaxnreg moves a warpgroup's registers: `inc` takes them from the CTA's
/// pool (waiting until it has them), `dec` gives them back to it.
enum class RegAction : std::uint8_t { inc, dec };
/// The spec language's spellings of RegAction (the TOML `action` key, Python's `action=`),
/// which are also the PTX qualifiers.
inline constexpr auto reg_action_names = enum_names<RegAction::dec>("inc", "dec");

/// `setmaxnreg`: setmaxnreg.{inc,dec}.sync.aligned.u32 regs (sm_90a) by each warpgroup whose
/// pred holds: its threads' register count becomes `regs` (24..256, a multiple of 8). The
/// producer warpgroup of a warp-specialized kernel gives registers back (dec) so that the
/// consumer warpgroups can take them (inc). `.aligned`: every thread of a warpgroup runs it
/// or none does (the contract proves the pred holds for whole warpgroups).
struct SetmaxnregOp {
  RegAction action = RegAction::dec;
  Located<std::int64_t> regs;
  std::optional<Located<ExprPtr>> pred;
};

/// Every op of ops.def, in its order (op_table.hpp has the table's other columns).
using OpBody = VariantOfRest<void
#define PTXGEN_TILE_OP(Struct, ...) , Struct
#define PTXGEN_TILE_FIELD(...)
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
                             >::type;

/// What an op is to the user: one they wrote, or one a `pipeline` op expanded into
/// (pipeline.hpp), which diagnostics name by its role, never by an op number the user
/// did not write.
struct OpOrigin {
  enum class Role : std::uint8_t {
    written,         ///< an op of its own (an `[[op]]` table, a builder call)
    pipeline_sync,   ///< the cta_sync before the prologue
    prologue_load,   ///< an [[op.load]] of prologue step `step`
    prologue_commit, ///< the commit_group of prologue step `step`
    steady_loop,     ///< the steady state's for / end
    steady_wait,     ///< the steady state's wait_group
    steady_sync,     ///< the steady state's cta_sync
    steady_load,     ///< an [[op.load]] of the steady state
    steady_commit,   ///< the steady state's commit_group
    consumer,        ///< an [[op.body]] of the steady state
    // The mbarrier ring (pipeline.hpp): `step` is the prologue step, or -1 in the steady state.
    ring_init,        ///< an mbarrier_init of full or empty, or the cta_sync after them
                      ///< (a multicast ring: mbarrier_init_fence and cluster_sync)
    producer_wait,    ///< thread 0's wait for a free stage (empty)
    producer_expect,  ///< thread 0's expect_tx on full
    consumer_wait,    ///< the wait for a landed tile (full)
    consumer_release, ///< the arrival on empty after the consumer
    ring_exit,        ///< a multicast ring's cluster_sync after its steady state
  };
  Role role = Role::written;
  std::int64_t step = 0; ///< the prologue step (prologue_load, prologue_commit; ring roles)
  bool opens = false;    ///< the first op of a pipeline's expansion
};

struct Op {
  OpBody body;
  SourcePos pos;   ///< the `[[op]]` table (an [[op.load]] / [[op.body]]: that table)
  OpOrigin origin; ///< written, or its role in a pipeline's expansion
};

/// How a global tensor's contents start (test runs only).
struct TensorInit {
  enum class Kind : std::uint8_t { zero, arange_mod, random, constant } kind = Kind::zero;
  std::int64_t modulus = 0; ///< arange % modulus, element-wise, converted to the dtype
  std::uint64_t seed = 0;   ///< random(seed): bytes from a fixed generator
  std::int64_t value = 0;   ///< constant
};

/// Where each key of a `[tensor.NAME.map]` table was written, for the carets of its rules.
struct TensorMapPos {
  SourcePos table, box, element_strides, swizzle, oob_fill, l2_promotion;
};

struct TensorDecl {
  Tensor tensor;
  TensorInit init;
  bool output = false; ///< compared after the run
  SourcePos pos;
  /// A global tensor's `[tensor.NAME.map]`: the TMA descriptor its tensor ops use (valid:
  /// check_tensor_map holds). The kernel then takes it as a 128-byte parameter as well.
  std::optional<TensorMapDesc> map;
  TensorMapPos map_pos;
};

/// `[[expect]] that = "B.sub[:, 0:8] == A.sub[:, 0:8]"`: what the kernel is meant to
/// do, checked against the reference's final global tensors (driver/reference/expect.hpp).
/// The left side is a view of a global tensor (any .sub, .rearrange and dtype view steps;
/// .sub indices and slice bounds name constants and scalar parameters: `B.sub[0:k_tiles]`,
/// SubEntry::begin_expr, each run evaluates them); the right side another such view of the
/// same shape and element size at every value (two whole tensors: the same byte size,
/// compared byte for byte), an integer every element equals, or `sentinel`: the left side's
/// bytes as the tensor's init left them.
struct ExpectSentinel {};
using ExpectRhs = std::variant<Located<View>, std::int64_t, ExpectSentinel>;
struct Expectation {
  Located<View> lhs;         ///< pos: where the left side starts in the file
  ExpectRhs rhs;             ///< the integer is encoded in lhs's dtype (it fits exactly)
  Located<std::string> that; ///< the whole string, for messages
};

struct Kernel {
  std::string name;
  std::int64_t grid = 1;    ///< CTAs in all: grid_dim.count()
  std::int64_t block = 128; ///< threads per CTA in all: block_dim.count()
  Dim3 grid_dim{1, 1, 1};   ///< set with set_launch(), as grid
  Dim3 block_dim{128, 1, 1};
  // Tensors are held by unique_ptr so views can point at them while the vector grows.
  std::vector<std::unique_ptr<TensorDecl>> tensors;
  std::vector<ScalarParam> params;
  std::vector<Op> ops;
  std::vector<Expectation> expectations; ///< `[[expect]]` tables, in file order
  std::string file;                      ///< the spec's path, for diagnostics
  /// The PTX parameter order (`abi = [...]`): every global tensor and scalar
  /// parameter once, by name; empty for the default (tensors, then parameters).
  std::vector<std::string> abi;
  /// `dynamic_shared = N`: the dynamic shared bytes a foreign kernel's
  /// `.extern .shared` array is launched with (default: the shared layout's total).
  std::optional<std::int64_t> dynamic_shared;
  /// `ctas_per_sm = N`: the residency the kernel is compiled (`.minnctapersm`) and launched
  /// (dynamic shared memory padded so that no more fit) for, and where it was written.
  struct Residency {
    std::int64_t ctas_per_sm = 0;
    SourcePos pos;
  };
  std::optional<Residency> residency;
  /// `cluster = [x, y, z]` (sm_90): the CTAs launched together as one cluster
  /// (`.reqnctapercluster`, cuLaunchKernelEx's cluster dimension), whose shared memory and
  /// barrier they share; `cluster_non_portable = true` allows 9..16 of them. The grid is a
  /// whole number of clusters along each axis (the builder's rule).
  struct Cluster {
    Dim3 dims{1, 1, 1};
    bool non_portable = false;
    SourcePos pos; ///< where `cluster` was written
  };
  std::optional<Cluster> cluster;
  /// The cluster's shape: {1, 1, 1} without a `cluster` (each CTA is its own cluster).
  Dim3 cluster_dim() const { return cluster ? cluster->dims : Dim3{1, 1, 1}; }
  /// `expect = "fault"` in [kernel], where it was written: the spec breaks the contract on
  /// purpose, so `run` launches it without the contract and passes it only if it faults;
  /// every other command refuses it as the contract does.
  std::optional<SourcePos> must_fault;
  /// Built by calls in a program (the C++ or Python API) rather than read from a spec:
  /// diagnostics name its ops by their callers' positions and calls, not by spec tables.
  bool built_in_code = false;

  /// Sets grid_dim and block_dim and the totals grid and block with them.
  void set_launch(Dim3 grid_dims, Dim3 block_dims);

  /// The values of the leaves for thread `tid` of CTA `bid`: the parameters at `values`
  /// (one per entry of params, in order), or at their test values when it is empty.
  ExprEnv env_for(std::int64_t bid, std::int64_t tid,
                  std::span<const std::uint64_t> values = {}) const;

  const TensorDecl* find_tensor(std::string_view n) const;
  const ScalarParam* find_param(std::string_view n) const;
  LaunchBounds launch_bounds() const;
};

/// The oldest target whose PTX has every op of `k`: the newest of its ops' min_sm (ops.def),
/// sm_80 at least, sm_90 for a kernel with a cluster; its `a` form (sm_90a) when an op is
/// arch_specific (setmaxnreg).
ptx::Target min_target(const Kernel& k);

/// The spelling of an op's kind in specs: "apply", "wait_group", ...
std::string_view op_kind(const OpBody& body);

/// How diagnostics name ops[index] of `k`: "op 6" for an op the user wrote (its number
/// among the user's ops, a pipeline counting as one), "the pipeline's prologue load of
/// stage 1 ([[op.load]] at line 37)" for one a pipeline expanded into (stage p: the p-th
/// slot of the ring from the first tile's).
std::string op_label(const Kernel& k, std::size_t index);

/// How advice names an op of `kind` to add: `op = "cta_sync"` for a spec, `cta_sync()` for a
/// kernel built in code.
std::string op_to_add(const Kernel& k, std::string_view kind);

/// Where the shared tensors of a kernel live. Each tensor starts at its
/// declared alignment (at least 16) after the previous one, in declaration
/// order. When ptxas's own layout of static `.shared` arrays (an order and
/// padding of its choosing) provably fits ptx::max_static_shared_bytes, they
/// are static arrays, one per tensor; otherwise they share one `.extern
/// .shared` array (dynamic shared memory) at these offsets, and the launch
/// passes `total` as its dynamic shared byte count.
struct SharedLayout {
  struct Entry {
    const TensorDecl* decl = nullptr;
    std::int64_t offset = 0; ///< from the start of shared memory, in bytes
    std::int64_t end = 0;    ///< offset + size: the total up to and including it
  };
  std::vector<Entry> entries; ///< the shared tensors, in declaration order
  std::int64_t total = 0;     ///< bytes, the last entry's end
  std::uint32_t align = 16;   ///< the largest alignment of any shared tensor
  /// The most bytes ptxas's layout of the static arrays can take, in any order:
  /// each tensor's size plus alignment - 1 bytes of padding before it.
  std::int64_t static_bound = 0;
  bool dynamic = false; ///< static_bound > ptx::max_static_shared_bytes

  /// The entry of tensor `name`; nullptr for a tensor that is not shared.
  const Entry* find(std::string_view name) const;
};

SharedLayout shared_layout(const Kernel& k);

/// The smallest alignment ptxgen gives a shared tensor (cp.async's 16-byte chunks).
inline constexpr std::uint32_t min_shared_align = 16;

} // namespace ptxgen::tile
