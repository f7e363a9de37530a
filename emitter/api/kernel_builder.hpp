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
// A typed front over build::Builder (emitter/build/builder.hpp), which holds every
// rule a spec file's kernel keeps too; each diagnostic is at the call's Pos. An op
// with a bad operand is left out and the builder goes on, so one build reports all
// it can.

#include "emitter/api/expr.hpp"
#include "emitter/api/view.hpp"
#include "emitter/build/builder.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"
#include "emitter/tile/pipeline.hpp"

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
using tile::Interval; // a u32 parameter's declared range
using tile::Scope;

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

struct GlobalOptions {
  tile::TensorInit init{};                          ///< test runs only
  bool output = false;                              ///< compared after a run
  std::uint32_t align = tile::default_global_align; ///< a power of two
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

/// A software pipeline's tile loop (the spec's `op = "pipeline"`): tiles `var` from
/// `start` to `stop` (exclusive, CTA-uniform), `stages` shared slots.
struct PipelineOptions {
  std::string var = "k";
  Expr start = 0;
  Expr stop = 0;
  std::int64_t stages = tile::kMinPipelineStages;
  std::int64_t unroll = 1; ///< of the steady-state loop
  std::string stage_var{tile::kDefaultStageVar};
};

/// What a pipeline's loads and consumer see: the tile index and its ring slot.
struct PipelineVars {
  Expr tile;
  Expr stage;
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
  Tensor global(std::string name, std::vector<std::int64_t> shape, DType dtype,
                GlobalOptions options = {}, Pos at = CallSite::current());
  Tensor shared(std::string name, std::vector<std::int64_t> shape, DType dtype,
                std::uint32_t align = tile::default_shared_align, Pos at = CallSite::current());
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
  /// Every byte of each thread's `dst` from `pattern`, repeated.
  void fill(const View& dst, std::vector<std::uint8_t> pattern, Pos at = CallSite::current());
  void copy(const View& dst, const View& src, Pos at = CallSite::current());

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

  /// `[[expect]] that = "LHS == RHS"`: views of global tensors of one shape and element size
  /// (any .sub, .rearrange, dtype view steps) whose .sub indices name constants and parameters
  /// only, inside their axes at every value of the declared ranges (checked at test runs).
  void expect_equal(const View& lhs, const View& rhs, Pos at = CallSite::current());
  /// `[[expect]] that = "LHS == VALUE"`: every element holds `value` in LHS's element
  /// type. Whether the type holds it exactly is the driver's check (run_kernel's
  /// loader reports spec_expect_value_range); emit() does not look at expectations.
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
  bool check_view(const View& v, const Pos& at);
  bool check_expr(const Expr& e, const Pos& at, const tile::ApplyOp* apply = nullptr);
  Tensor declare(tile::Space space, std::string name, std::vector<std::int64_t> shape, DType dtype,
                 const GlobalOptions& options, const Pos& at);
  std::optional<tile::ApplyOp> apply_operands(const View& dst, const View& src,
                                              std::int64_t chunk_bytes, const ApplyOptions& options,
                                              const Pos& at);
  bool check_bound(std::string_view key, const Expr& bound, const Pos& at);
  bool capture(const std::function<void(const PipelineVars&)>& make, const PipelineVars& vars,
               const tile::Pipeline& p, bool loads, std::vector<tile::Op>& out);

  std::unique_ptr<build::Builder> b_;        ///< every rule; movable as a pointer
  std::vector<tile::Op>* capture_ = nullptr; ///< where ops go while a pipeline's parts run
};

} // namespace ptxgen::api
