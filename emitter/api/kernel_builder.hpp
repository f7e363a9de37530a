#pragma once
// The C++ API's kernel builder (docs/library.md): the same tile::Kernel a spec
// file loads to, built by typed calls, so that the contract, the lowering, the
// validator and the printer are the ones `ptxgen emit` runs.
//
//   KernelBuilder k("copy_async");
//   k.launch({1}, {128});
//   Tensor A = k.global("A", {128, 32}, DType::float16, {.init = arange_mod(97)});
//   Tensor s = k.shared("shared", {128, 32}, DType::float16);
//   k.apply(cp_async(CacheOp::cg), s.rearrange(...), A.rearrange(...), 16, {.scope = Scope::cta});
//   k.commit_group(); k.wait_group(0); k.cta_sync();
//
// A typed front over build::Builder (emitter/builder/builder.hpp), which holds every
// rule a spec file's kernel keeps too; each diagnostic is at the call's Pos. An op
// with a bad operand is left out and the builder goes on, so one build reports all
// it can.

#include "emitter/api/typed_expr.hpp"
#include "emitter/api/typed_view.hpp"
#include "emitter/builder/builder.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"
#include "emitter/tile/op_table.hpp"
#include "emitter/tile/pipeline.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::api {

using ptx::CacheOp;
using ptx::CpAsyncOpcode;
using ptx::EvictionPriority;
using ptx::L2Prefetch;
using ptx::SharedSpace;
using tile::Dim3;
using tile::FenceSpace;
using tile::Interval; // a u32 parameter's declared range
using tile::ReduceKind;
using tile::RegAction;
using tile::Scope;
using tile::TensormapField;
using tile::TensorMapL2Promotion;
using tile::TensorMapOobFill;
using tile::TensormapSem;
using tile::TensorMapSwizzle;

/// `cp.async.{ca,cg}.shared.global{.L2::cache_hint}{.L2::64B|128B|256B}` by its enums.
inline CpAsyncOpcode cp_async(CacheOp cache_op, L2Prefetch prefetch = L2Prefetch::none,
                              bool cache_hint = false,
                              SharedSpace dst_space = SharedSpace::shared) {
  return CpAsyncOpcode{cache_op, dst_space, cache_hint, prefetch};
}

/// How a global tensor starts in test runs (the spec's `init`).
inline tile::TensorInit arange_mod(std::int64_t modulus) {
  return {tile::TensorInit::Kind::arange_mod, modulus, 0, 0};
}
inline tile::TensorInit random_init(std::uint64_t seed) {
  return {tile::TensorInit::Kind::random, 0, seed, 0};
}

/// A global tensor's TMA descriptor (the spec's `[tensor.NAME.map]`), which tensor_load and
/// tensor_store copy through; every list is per dimension, outermost first.
struct TensorMap {
  std::vector<std::int64_t> box = {};             ///< the elements one copy moves
  std::vector<std::int64_t> element_strides = {}; ///< empty: 1 in every dimension
  TensorMapSwizzle swizzle = TensorMapSwizzle::none;
  TensorMapOobFill oob_fill = TensorMapOobFill::zero;
  TensorMapL2Promotion l2_promotion = TensorMapL2Promotion::none;
  /// im2col mode (cuTensorMapEncodeIm2col): the bounding box corners (one per spatial
  /// dimension, outermost first), channels per pixel and pixels per copy instead of `box`.
  tile::TensorMapMode mode = tile::TensorMapMode::tile;
  std::vector<std::int64_t> lower_corner = {};
  std::vector<std::int64_t> upper_corner = {};
  std::int64_t channels = 0;
  std::int64_t pixels = 0;
};

struct GlobalOptions {
  tile::TensorInit init{};                          ///< test runs only
  bool output = false;                              ///< compared after a run
  std::uint32_t align = tile::default_global_align; ///< a power of two
  std::optional<TensorMap> map = std::nullopt;      ///< sm_90: a tensor map of it
};

struct SharedOptions {
  std::uint32_t align = tile::default_shared_align; ///< a power of two
  /// The layout a tensor_load with the same swizzle writes (whole periods of the pattern).
  TensorMapSwizzle swizzle = TensorMapSwizzle::none;
};

/// The cache policy of an apply with `.L2::cache_hint`.
inline tile::CachePolicy policy_param(std::string u64_param) {
  return tile::CachePolicyFromParam{std::move(u64_param)};
}
inline tile::CachePolicy create_policy(EvictionPriority primary,
                                       std::optional<EvictionPriority> secondary = std::nullopt,
                                       float fraction = 1.0f) {
  return tile::CachePolicyCreate{primary, secondary, fraction};
}

/// An apply's operands besides dst, src and chunk_bytes (the spec's keys of the same names).
struct ApplyOptions {
  Scope scope = Scope::thread;
  // Every member has an initializer, so that designated initializers that name only
  // some ({.scope = Scope::cta}) compile quietly under -Wmissing-field-initializers.
  std::optional<Expr> src_size = std::nullopt;
  std::optional<Expr> ignore_src = std::nullopt;
  std::optional<Expr> pred = std::nullopt;
  std::optional<tile::CachePolicy> cache_policy = std::nullopt;
};

/// What a bulk or tensor copy takes besides its views (the spec's keys of the same names).
struct BulkOptions {
  std::optional<Expr> pred = std::nullopt;
  std::optional<tile::CachePolicy> cache_policy = std::nullopt;
  /// A load's `.multicast::cluster` CTA mask (bit r: the CTA of cluster rank r); a store
  /// refuses it.
  std::optional<Expr> multicast = std::nullopt;
  /// An im2col map's tensor_load: its offsets, one per spatial dimension, outermost first;
  /// other ops refuse them.
  std::optional<std::vector<Expr>> offsets = std::nullopt;
  /// A tensor copy's map in memory: a global slot a tensormap_copy filled (and maybe
  /// tensormap_replace edited), instead of the tensor's map parameter.
  std::optional<View> map = std::nullopt;
};

/// tensormap_copy's options: a shared slot to copy from (tensormap.cp_fenceproxy into a
/// global dst; without it the map parameter), and the pred.
struct TensormapCopyOptions {
  std::optional<View> src = std::nullopt;
  std::optional<Expr> pred = std::nullopt;
};

/// expect_tx's `arrive` (mbarrier.arrive.expect_tx; false: mbarrier.expect_tx) and `pred`.
struct ExpectTxOptions {
  bool arrive = true;
  std::optional<Expr> pred = std::nullopt;
};

/// What a pipeline's loads and consumer see: the tile index and its ring slot.
struct PipelineVars {
  Expr tile;
  Expr stage;
};

/// A software pipeline's tile loop (the spec's `op = "pipeline"`): tiles `var` from
/// `start` to `stop` (exclusive, CTA-uniform), `stages` shared slots.
struct PipelineOptions {
  std::string var = "k";
  Expr start = 0;
  Expr stop = 0;
  std::int64_t stages = tile::kMinPipelineStages;
  std::int64_t unroll = 1; ///< of the steady-state loop
  std::string stage_var{tile::kDefaultStageVar};
  /// The mbarrier ring of a pipeline whose loads are bulk_load or tensor_load (sm_90): the
  /// barrier of a stage each, `[](const PipelineVars& v) { return full.sub({v.stage}); }`.
  std::function<View(const PipelineVars&)> full = nullptr;
  std::function<View(const PipelineVars&)> empty = nullptr;
  /// The tiles the ring carried before this pipeline (one inside a loop: `m * k_tiles`).
  std::optional<Expr> ring_offset = std::nullopt;
  /// The warp-specialized ring (tile::PipelineRoles): warps 0..producer_warps-1 load (thread
  /// 0 issues), the others consume (`body`'s copies run on them; empty counts them).
  std::optional<std::int64_t> producer_warps = std::nullopt;
  /// setmaxnreg.dec of the producer and .inc of the consumers (sm_90a; needs ctas_per_sm).
  std::optional<std::int64_t> producer_regs = std::nullopt;
  std::optional<std::int64_t> consumer_regs = std::nullopt;
  /// A named barrier id among the consumers before each release.
  std::optional<std::int64_t> consumer_barrier = std::nullopt;
  /// The cluster multicast form (tile::PipelineRing::multicast; needs a cluster, and
  /// consumer_barrier with producer_warps): each CTA's loads are its share of the tile,
  /// multicast to the whole cluster, or to the ranks of a load's own BulkOptions::multicast
  /// mask (part of the cluster: a 2-D cluster's row or column); full and empty count what the
  /// masks send (docs/spec-format.md, "Masks of part of the cluster").
  bool multicast = false;
};

class KernelBuilder {
public:
  /// A kernel named `name` (an identifier); `file` names the input in diagnostics
  /// (Kernel::file).
  explicit KernelBuilder(std::string name, Pos at = CallSite::current());
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;
  KernelBuilder(KernelBuilder&&) noexcept;
  KernelBuilder& operator=(KernelBuilder&&) noexcept;
  ~KernelBuilder();

  // ---------------------------------------------------------------- declarations

  /// grid: CTAs, block: threads per CTA, each 1- to 3-D ({128} or {32, 4}).
  KernelBuilder& launch(Dim3 grid, Dim3 block, Pos at = CallSite::current());
  /// The dynamic shared bytes a launch passes (the spec's `dynamic_shared`).
  KernelBuilder& dynamic_shared(std::int64_t bytes, Pos at = CallSite::current());
  /// The residency: CTAs per SM to compile (`.minnctapersm`) and launch for (the spec's
  /// `ctas_per_sm`; the launch pads dynamic shared memory so that no more fit).
  KernelBuilder& ctas_per_sm(std::int64_t n, Pos at = CallSite::current());
  /// The cluster (sm_90, the spec's `cluster` and `cluster_non_portable`): the CTAs launched
  /// together ({2} or {2, 2}); 9..16 of them only with `non_portable`. The grid must be a
  /// whole number of clusters (checked when the kernel is built, whatever the call order).
  KernelBuilder& cluster(Dim3 dims, bool non_portable = false, Pos at = CallSite::current());
  Tensor global(std::string name, std::vector<std::int64_t> shape, DType dtype,
                GlobalOptions options = {}, Pos at = CallSite::current());
  Tensor shared(std::string name, std::vector<std::int64_t> shape, DType dtype,
                std::uint32_t align = tile::default_shared_align, Pos at = CallSite::current());
  Tensor shared(std::string name, std::vector<std::int64_t> shape, DType dtype,
                const SharedOptions& options, Pos at = CallSite::current());
  /// A u32 scalar parameter: `value` is what test runs pass, `range` what the
  /// contract may assume (default: the whole type). Returns its leaf.
  Expr param_u32(std::string name, std::uint64_t value,
                 std::optional<tile::Interval> range = std::nullopt, Pos at = CallSite::current());
  /// A u64 parameter (a cache policy: policy_param(name)).
  void param_u64(std::string name, std::uint64_t value, Pos at = CallSite::current());
  /// Changes the value test runs pass for a parameter declared earlier (a run at other
  /// values). An error naming the parameter when there is none or the value is outside its
  /// declared range (or its type); the kernel is then unchanged.
  std::optional<Diagnostic> set_param_value(std::string_view name, std::uint64_t value);

  /// The PTX parameter order (the spec's `abi`): every global tensor and parameter once, a
  /// mapped tensor's map as "A.map" (a tensor listed by its map alone gets no pointer).
  void abi(const std::vector<std::string>& names, Pos at = CallSite::current());

  /// A view string as a spec writes it (`"A.sub[tid, :]"`), over this kernel's tensors,
  /// parameters and open loops; in error (View::ok) when it does not parse.
  View view(std::string_view text, Pos at = CallSite::current()) const;

  // ---------------------------------------------------------------- ops, in program order

  void apply(const CpAsyncOpcode& opcode, const View& dst, const View& src,
             std::int64_t chunk_bytes, const ApplyOptions& options = {},
             Pos at = CallSite::current());
  /// The opcode as a string ("cp.async.cg.shared.global.L2::128B"), as the spec's.
  void apply(std::string_view opcode, const View& dst, const View& src, std::int64_t chunk_bytes,
             const ApplyOptions& options = {}, Pos at = CallSite::current());
  void commit_group(Pos at = CallSite::current());
  void wait_group(std::int64_t n, Pos at = CallSite::current());
  void wait_all(Pos at = CallSite::current());
  void cta_sync(Pos at = CallSite::current());
  /// An op of emitter/tile/ops.def whose fields are only flags and words (tile::plain_op), as
  /// its struct: `k.op(tile::ProxyFenceOp{tile::FenceSpace::all})`.
  template <tile::PlainOp Op>
  void op(Op body, Pos at = CallSite::current()) {
    push(std::move(body), at);
  }
  /// Every byte of each thread's `dst` from `pattern`, repeated.
  void fill(const View& dst, std::vector<std::uint8_t> pattern, Pos at = CallSite::current());
  void copy(const View& dst, const View& src, Pos at = CallSite::current());
  /// The copy by the threads where `pred` holds (a warp-specialized ring's consumer warps).
  void copy(const View& dst, const View& src, std::optional<Expr> pred,
            Pos at = CallSite::current());
  /// bar.sync id, count (bar.arrive with `arrive`) by the threads where `pred` holds: the
  /// named barrier `id` (1..15) of `count` threads, whole warps (warp_roles.hpp's rules).
  void named_barrier(std::int64_t id, std::int64_t count, bool arrive = false,
                     std::optional<Expr> pred = std::nullopt, Pos at = CallSite::current());
  /// setmaxnreg.{inc,dec}.sync.aligned.u32 regs (sm_90a) by the warpgroups where `pred` holds.
  void setmaxnreg(tile::RegAction action, std::int64_t regs,
                  std::optional<Expr> pred = std::nullopt, Pos at = CallSite::current());

  /// `for (var = start; var < stop; var += step)` up to the matching end_for();
  /// returns the loop variable. start, stop and step must be the same for every
  /// thread of a CTA.
  Expr begin_for(std::string var, const Expr& start, const Expr& stop, const Expr& step = 1,
                 std::int64_t unroll = 1, Pos at = CallSite::current());
  void end_for(Pos at = CallSite::current());

  /// A pipeline (tile/pipeline.hpp): `loads` makes the apply()s of one tile (their
  /// dst indexed by the stage), `body` the copy()s and fill()s that consume it; the
  /// builder writes the prologue, the waits, the barriers and the steady-state loop.
  void pipeline(const PipelineOptions& options,
                const std::function<void(const PipelineVars&)>& loads,
                const std::function<void(const PipelineVars&)>& body, Pos at = CallSite::current());

  void mbarrier_init(const View& barrier, std::int64_t count, Pos at = CallSite::current());
  void copy_arrive(const View& barrier, bool noinc = false, Pos at = CallSite::current());
  void mbarrier_arrive(const View& barrier, std::optional<Expr> pred = std::nullopt,
                       Pos at = CallSite::current());
  void mbarrier_wait(const View& barrier, const Expr& parity, Pos at = CallSite::current());
  /// The spec's `pred` of an mbarrier_wait: only the threads where it holds wait.
  void mbarrier_wait(const View& barrier, const Expr& parity, std::optional<Expr> pred,
                     Pos at = CallSite::current());

  // ---------------------------------------------------------------- bulk copies (sm_90)

  /// cp.async.bulk of `src` (a contiguous global view) into `dst` (shared, the same bytes),
  /// completing on `barrier`. In a ring pipeline's loads leave the barrier out: the load
  /// completes on the pipeline's `full` barrier of its stage.
  void bulk_load(const View& dst, const View& src, const View& barrier,
                 const BulkOptions& options = {}, Pos at = CallSite::current());
  void bulk_load(const View& dst, const View& src, const BulkOptions& options = {},
                 Pos at = CallSite::current());
  /// cp.async.bulk of shared `src` to global `dst`, joining the thread's bulk group.
  void bulk_store(const View& dst, const View& src, const BulkOptions& options = {},
                  Pos at = CallSite::current());
  /// cp.reduce.async.bulk of shared `src` into global `dst` (the same bytes and dtype), each
  /// element combined with `reduce`, joining the thread's bulk group.
  void bulk_reduce(const View& dst, const View& src, tile::ReduceKind reduce,
                   const BulkOptions& options = {}, Pos at = CallSite::current());
  /// cp.async.bulk.shared::cluster.shared::cta of the CTA's own shared `src` into `dst`, a
  /// view of a peer's shared tensor (`S.peer(rank)`), completing on `barrier`, that peer's
  /// mbarrier (`B.peer(rank)`, the same rank); only where `pred` holds, when given.
  void bulk_copy_peer(const View& dst, const View& src, const View& barrier,
                      std::optional<Expr> pred = std::nullopt, Pos at = CallSite::current());
  void bulk_commit(Pos at = CallSite::current());
  /// At most n of the thread's bulk groups stay pending (`read`: only their shared reads).
  void bulk_wait(std::int64_t n, bool read = false, Pos at = CallSite::current());
  /// fence.proxy.async: the thread's shared writes before it reach its later bulk copies.
  void proxy_fence(Pos at = CallSite::current());
  /// fence.proxy.async{.space}: `global` orders the thread's generic global writes before its
  /// later bulk or tensor loads of them; `all` is the unqualified fence (both spaces).
  void proxy_fence(tile::FenceSpace space, Pos at = CallSite::current());
  /// Adds `bytes` to the transaction count `barrier`'s phase waits for.
  void expect_tx(const View& barrier, const Expr& bytes, const ExpectTxOptions& options = {},
                 Pos at = CallSite::current());
  /// The box of `tensor`'s map (a whole global tensor declared with a map) at `coords` (one
  /// per dimension, outermost first) into shared `dst`, completing on `barrier` (left out in
  /// a ring pipeline's loads, as for bulk_load).
  void tensor_load(const View& tensor, const std::vector<Expr>& coords, const View& dst,
                   const View& barrier, const BulkOptions& options = {},
                   Pos at = CallSite::current());
  void tensor_load(const View& tensor, const std::vector<Expr>& coords, const View& dst,
                   const BulkOptions& options = {}, Pos at = CallSite::current());
  /// Shared `src` to the box of `tensor`'s map at `coords`, joining the thread's bulk group.
  void tensor_store(const View& tensor, const std::vector<Expr>& coords, const View& src,
                    const BulkOptions& options = {}, Pos at = CallSite::current());
  /// cp.reduce.async.bulk.tensor: shared `src` (the box's bytes, of the map's dtype) combined
  /// with `reduce` into the box of `tensor`'s map at `coords`, joining the thread's bulk group.
  void tensor_reduce(const View& tensor, const std::vector<Expr>& coords, const View& src,
                     tile::ReduceKind reduce, const BulkOptions& options = {},
                     Pos at = CallSite::current());
  /// prefetch.tensormap of `tensor`'s map, by each thread where `pred` holds (when given).
  void prefetch_tensormap(const View& tensor, const std::optional<Expr>& pred = std::nullopt,
                          Pos at = CallSite::current());

  // Tensor maps in memory (sm_90; tensormap_replace sm_90a): `tensor` names the global tensor
  // whose map the slot holds, a slot is 128 contiguous bytes, 128-byte aligned.
  /// `tensor`'s map into `dst` (global or shared): from its parameter, or by
  /// tensormap.cp_fenceproxy from the shared slot options.src into a global dst.
  void tensormap_copy(const View& tensor, const View& dst, const TensormapCopyOptions& options = {},
                      Pos at = CallSite::current());
  /// The map in slot `map` takes global tensor `address`'s base.
  void tensormap_replace_address(const View& tensor, const View& map, const View& address,
                                 const std::optional<Expr>& pred = std::nullopt,
                                 Pos at = CallSite::current());
  /// The map in slot `map` takes `value` as its global_dim / global_stride of dimension `dim`
  /// (outermost first).
  void tensormap_replace(const View& tensor, const View& map, tile::TensormapField field,
                         std::int64_t dim, const Expr& value,
                         const std::optional<Expr>& pred = std::nullopt,
                         Pos at = CallSite::current());
  /// fence.proxy.tensormap::generic: `release` after the thread's edits, `acquire` of the map
  /// in slot `map` (global) before the thread's copies through it.
  void tensormap_fence(const View& map, tile::TensormapSem sem,
                       const std::optional<Expr>& pred = std::nullopt,
                       Pos at = CallSite::current());

  /// `[[expect]] that = "LHS == RHS"`: views of global tensors of one shape and element size
  /// (any .sub, .rearrange, dtype view steps) whose .sub indices name constants and parameters
  /// only, inside their axes at every value of the declared ranges (checked at test runs).
  void expect_equal(const View& lhs, const View& rhs, Pos at = CallSite::current());
  /// `[[expect]] that = "LHS == VALUE"`: every element holds `value` in LHS's element
  /// type, which must hold it exactly (spec_expect_value_range otherwise, as a spec's).
  void expect_value(const View& lhs, std::int64_t value, Pos at = CallSite::current());
  /// `[[expect]] that = "LHS == sentinel"`: LHS keeps its initial bytes.
  void expect_sentinel(const View& lhs, Pos at = CallSite::current());

  // ---------------------------------------------------------------- results

  /// Everything the builder found so far, and a `for` still open.
  Diagnostics diagnostics() const;
  /// The kernel built so far (complete when diagnostics() has no error).
  const tile::Kernel& kernel() const { return b_->kernel(); }
  /// The kernel, or the builder's diagnostics when it has an error. The builder is
  /// empty afterwards.
  Result<std::unique_ptr<tile::Kernel>> finish() &&;

private:
  void push(tile::OpBody body, const Pos& at);
  /// An op's view: in error, or with a slice bound naming parameters, is reported.
  bool check_view(const View& v, const Pos& at);
  /// An expectation's side: slice bounds may name parameters.
  bool check_expect_view(const View& v, const Pos& at);
  bool check_expr(const Expr& e, const Pos& at, const tile::ApplyOp* apply = nullptr);
  Tensor declare(tile::Space space, std::string name, std::vector<std::int64_t> shape, DType dtype,
                 const GlobalOptions& options, const Pos& at,
                 TensorMapSwizzle swizzle = TensorMapSwizzle::none);
  bool cache_policy_operand(const std::optional<tile::CachePolicy>& in, const Pos& at,
                            std::optional<tile::Located<tile::CachePolicy>>& out);
  /// A bulk or tensor copy's pred, cache policy and (a load's) multicast mask into `op`; a
  /// store refuses a mask (spec_unknown_key, as the spec reader does).
  template <class Op>
  bool bulk_operands(const BulkOptions& options, const Pos& at, Op& op);
  bool bulk_view(const View& v, tile::Space want, std::string_view role, const Pos& at);
  /// A bulk store's or reduction's global dst and shared src with bulk_operands, into `op`.
  template <class Op>
  bool global_from_shared(const View& dst, const View& src, const BulkOptions& options,
                          const Pos& at, Op& op);
  void note_load(std::string_view kind) {
    if (capturing_loads_ && first_load_.empty())
      first_load_ = kind;
  }
  std::optional<tile::Located<tile::View>> load_barrier(const View* barrier, const Pos& at);
  void push_bulk_load(const View& dst, const View& src, const View* barrier,
                      const BulkOptions& options, const Pos& at);
  bool tensor_operand(const View& tensor, const std::vector<Expr>& coords, const Pos& at,
                      tile::Located<std::string>& name,
                      std::vector<tile::Located<tile::ExprPtr>>& out);
  void push_tensor_load(const View& tensor, const std::vector<Expr>& coords, const View& dst,
                        const View* barrier, const BulkOptions& options, const Pos& at);
  bool mapped_name(const View& tensor, const Pos& at, tile::Located<std::string>& name);
  bool slot_view(const View& v);
  void push_tensormap_replace(tile::TensormapReplaceOp op, const View& tensor, const View& map,
                              const std::optional<Expr>& pred, const Pos& at);
  std::optional<tile::Located<tile::View>>
  ring_barrier(const std::function<View(const PipelineVars&)>& make, const PipelineVars& vars,
               const Pos& at);
  bool pipeline_ring(const PipelineOptions& o, tile::Pipeline& p, std::string_view first_load,
                     std::optional<tile::Located<tile::View>> full,
                     std::optional<tile::Located<tile::View>> empty, const Pos& at);
  bool pipeline_roles(const PipelineOptions& o, tile::Pipeline& p, const Pos& at);
  std::optional<tile::ApplyOp> apply_operands(const View& dst, const View& src,
                                              std::int64_t chunk_bytes, const ApplyOptions& options,
                                              const Pos& at);
  bool check_bound(std::string_view key, const Expr& bound, const Pos& at);
  bool capture(const std::function<void(const PipelineVars&)>& make, const PipelineVars& vars,
               const tile::Pipeline& p, bool loads, std::vector<tile::Op>& out,
               std::string_view* first_load = nullptr);

  std::unique_ptr<build::Builder> b_;        ///< every rule; movable as a pointer
  std::vector<tile::Op>* capture_ = nullptr; ///< where ops go while a pipeline's parts run
  bool capturing_loads_ = false;             ///< capture_ holds a pipeline's loads
  /// The kind of the first load a pipeline's loads tried (kept or refused): the kind every
  /// load shares and what says whether the pipeline has a ring.
  std::string_view first_load_;
  /// The full barrier of the stage, for the bulk and tensor loads of a ring pipeline.
  const tile::Located<tile::View>* ring_full_ = nullptr;
};

} // namespace ptxgen::api
