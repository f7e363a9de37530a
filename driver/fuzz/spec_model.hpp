#pragma once
// The model of a generated spec (the generator's output, the shrinker's and the mutator's
// input): tensors, parameters, the launch, and typed ops (an opcode of enum qualifiers,
// integers as integers, views and expressions as their own types); mutants are typed edits
// of it and to_toml() the only place that spells TOML. Apart from generator.hpp so that the
// generator's families (gen_build.hpp) build it without including the header of the generator that
// calls them.

#include "driver/run/spec_files.hpp" // emitted_target
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/tile/kernel.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::driver::fuzz {

/// The generator's version: printed in every spec's header; bump it whenever a seed's
/// spec changes, so that a saved finding names the generator that made it.
inline constexpr int generator_version = 7;

/// The shapes of kernel the generator builds (one per spec).
enum class Family : unsigned {
  tile,     ///< applies, commit/wait, cta_sync, copies to global outputs
  loop,     ///< a `for` loop over tiles (constant or runtime trip count, grid stride)
  pipeline, ///< a `pipeline` op
  mbarrier, ///< completion through mbarriers
  bulk,     ///< sm_90 bulk copies and tensor (TMA) copies (gen_bulk.cpp)
  cluster,  ///< sm_90 clusters: DSMEM, multicast, peer copies and arrivals (gen_cluster.cpp)
};
inline constexpr std::size_t family_count = 6;
std::string_view name(Family f);

/// The features of the spec language a generated spec uses (coverage counts them).
#define PTXGEN_FUZZ_FEATURES(X)                                                                    \
  X(thread_scope)                                                                                  \
  X(cta_scope)                                                                                     \
  X(multi_cta)                                                                                     \
  X(grid_2d)                                                                                       \
  X(grid_3d)                                                                                       \
  X(block_2d)                                                                                      \
  X(block_3d)                                                                                      \
  X(block_1024)                                                                                    \
  X(block_odd)                                                                                     \
  X(repeat_axes)                                                                                   \
  X(two_repeat_axes)                                                                               \
  X(sub_slice)                                                                                     \
  X(view_dtype)                                                                                    \
  X(dst_view_dtype)                                                                                \
  X(merge_axes)                                                                                    \
  X(dtype_mix)                                                                                     \
  X(dtype_alias)                                                                                   \
  X(ca)                                                                                            \
  X(cg)                                                                                            \
  X(chunk4)                                                                                        \
  X(chunk8)                                                                                        \
  X(chunk16)                                                                                       \
  X(shared_cta_space)                                                                              \
  X(prefetch_64)                                                                                   \
  X(prefetch_128)                                                                                  \
  X(prefetch_256)                                                                                  \
  X(policy_param)                                                                                  \
  X(policy_createpolicy)                                                                           \
  X(policy_table)                                                                                  \
  X(src_size_const)                                                                                \
  X(src_size_expr)                                                                                 \
  X(ignore_src_const)                                                                              \
  X(ignore_src_expr)                                                                               \
  X(pred_const)                                                                                    \
  X(pred_expr)                                                                                     \
  X(param_range)                                                                                   \
  X(repeat_axis_expr)                                                                              \
  X(expr_operators)                                                                                \
  X(launch_ids)                                                                                    \
  X(fill_sentinel)                                                                                 \
  X(cross_thread_readback)                                                                         \
  X(xor_index)                                                                                     \
  X(param_index)                                                                                   \
  X(arithmetic_index)                                                                              \
  X(abi_order)                                                                                     \
  X(two_groups)                                                                                    \
  X(wait_all)                                                                                      \
  X(for_loop)                                                                                      \
  X(nested_loop)                                                                                   \
  X(runtime_trips)                                                                                 \
  X(grid_stride)                                                                                   \
  X(unroll)                                                                                        \
  X(loop_start_param)                                                                              \
  X(loop_step)                                                                                     \
  X(pipeline)                                                                                      \
  X(trips_below_stages)                                                                            \
  X(pipeline_two_loads)                                                                            \
  X(pipeline_body_fill)                                                                            \
  X(ring_loop)                                                                                     \
  X(ring_min_prologue)                                                                             \
  X(mbarrier)                                                                                      \
  X(mbarrier_noinc)                                                                                \
  X(mbarrier_ring)                                                                                 \
  X(dynamic_shared)                                                                                \
  X(shared_align)                                                                                  \
  X(expect)                                                                                        \
  X(expect_zero)                                                                                   \
  X(bulk_1d)                                                                                       \
  X(bulk_refill)                                                                                   \
  X(bulk_other_issuer)                                                                             \
  X(tensor_rank1)                                                                                  \
  X(tensor_rank2)                                                                                  \
  X(tensor_rank3)                                                                                  \
  X(tensor_rank4)                                                                                  \
  X(tensor_rank5)                                                                                  \
  X(tensor_swizzle)                                                                                \
  X(tensor_element_strides)                                                                        \
  X(tensor_oob_nan)                                                                                \
  X(tensor_negative_coord)                                                                         \
  X(tensor_oob_coord)                                                                              \
  X(bulk_read_wait)                                                                                \
  X(bulk_fill_store)                                                                               \
  X(bulk_fill_load)                                                                                \
  X(bulk_global_write_load)                                                                        \
  X(proxy_fence_all)                                                                               \
  X(bulk_global_readback)                                                                          \
  X(bulk_loop)                                                                                     \
  X(bulk_store_ring)                                                                               \
  X(tma_pipeline)                                                                                  \
  X(tma_pipeline_fill)                                                                             \
  X(cluster_2)                                                                                     \
  X(cluster_4)                                                                                     \
  X(cluster_8)                                                                                     \
  X(dsmem_exchange)                                                                                \
  X(dsmem_push)                                                                                    \
  X(dsmem_ring)                                                                                    \
  X(multicast_bulk)                                                                                \
  X(multicast_one_issuer)                                                                          \
  X(multicast_mask_expr)                                                                           \
  X(multicast_tensor)                                                                              \
  X(peer_bulk_copy)                                                                                \
  X(peer_arrive)                                                                                   \
  X(multicast_ring)                                                                                \
  X(multicast_part_mask)

enum class Feature : unsigned {
#define PTXGEN_FUZZ_FEATURE_ENUM(f) f,
  PTXGEN_FUZZ_FEATURES(PTXGEN_FUZZ_FEATURE_ENUM)
#undef PTXGEN_FUZZ_FEATURE_ENUM
};
inline constexpr std::size_t feature_count = 0
#define PTXGEN_FUZZ_FEATURE_COUNT(f) +1
    PTXGEN_FUZZ_FEATURES(PTXGEN_FUZZ_FEATURE_COUNT)
#undef PTXGEN_FUZZ_FEATURE_COUNT
    ;
std::string_view name(Feature f);

/// What the generator may use, and how big a spec may get.
struct GenOptions {
  /// Families drawn from (indexed by Family); at least one must be on. The bulk and cluster
  /// families (sm_90 ops) are off unless asked for (`ptxgen fuzz --family bulk`).
  std::array<bool, family_count> families{true, true, true, true, false, false};
  std::int64_t max_tensor_bytes = 64 * 1024; ///< per tensor (global or shared)
  std::int64_t max_ctas = 8;                 ///< CTAs per launch
  std::int64_t max_tiles = 16;               ///< loop / pipeline trip counts
  /// Shared bytes of all tensors together: the opt-in maximum of the default target, sm_80.
  std::int64_t max_shared_bytes = ptx::max_dynamic_shared_bytes(emitted_target);
  bool cache_hints = true; ///< `.L2::cache_hint` with cache policies
  bool expectations = true;
};

/// A dtype as the spec spells it (a name or an alias) and its element bytes.
struct ModelDtype {
  std::string_view spelling;
  std::int64_t bytes = 1;
};
/// A spelling no dtype has (only mutants use it).
inline constexpr ModelDtype unknown_dtype{"float17", 1};

/// A global tensor's TMA descriptor ([tensor.NAME.map]); lists outermost first.
struct ModelMap {
  std::vector<std::int64_t> box;
  std::vector<std::int64_t> element_strides; ///< empty: not written (1 everywhere)
  tile::TensorMapSwizzle swizzle = tile::TensorMapSwizzle::none;
  tile::TensorMapOobFill oob_fill = tile::TensorMapOobFill::zero;
};

/// A global or shared tensor ([tensor.NAME]).
struct ModelTensor {
  std::string name;
  bool shared = false;
  std::vector<std::int64_t> shape;
  ModelDtype dtype;
  std::int64_t align = 0;               ///< 0: the default
  std::optional<tile::TensorInit> init; ///< global only; nullopt: the default (zero)
  bool output = false;                  ///< global only
  std::optional<ModelMap> map;          ///< global only
  tile::TensorMapSwizzle swizzle = tile::TensorMapSwizzle::none; ///< shared only
  std::int64_t bytes() const;
};

/// A kernel parameter ([param.NAME]).
struct ModelParam {
  std::string name;
  bool u64 = false;
  std::uint64_t value = 0;
  std::optional<std::array<std::uint64_t, 2>> range;
};

/// A view in the spec's view grammar ("A.sub[tid, :]"); the builder parses it.
struct ViewText {
  std::string text;
  bool operator==(const ViewText&) const = default;
};
/// An expression in the spec's expression grammar ("tid < n0"); the builder parses it.
struct ExprText {
  std::string text;
  bool operator==(const ExprText&) const = default;
};
/// A key written as an integer constant or as an expression string.
using IntOrExpr = std::variant<std::int64_t, ExprText>;
/// A key written as a boolean constant or as an expression string.
using BoolOrExpr = std::variant<bool, ExprText>;

/// An apply's `scope` as written; `warp` is no scope of the spec language (mutants).
enum class ScopeName : std::uint8_t { thread, cta, warp };

/// How a spec writes `s` (the builder reads it back: Builder::scope).
inline std::string_view scope_spelling(ScopeName s) {
  constexpr std::array<std::string_view, 3> spellings = {"thread", "cta", "warp"};
  return spellings[static_cast<std::size_t>(s)];
}

/// A cache policy from a u64 parameter, in one of its three spellings.
struct PolicyParam {
  enum class Spelling : std::uint8_t { bare, prefixed, table }; ///< "p", "param:p", { param = "p" }
  std::string name;
  Spelling spelling = Spelling::bare;
};
/// A createpolicy cache policy, as a call string or as a table.
struct PolicyCreate {
  std::string_view primary;
  std::optional<std::string_view> secondary;
  std::optional<std::string_view> fraction; ///< as written ("0.5")
  bool table = false;
};
using ModelPolicy = std::variant<PolicyParam, PolicyCreate>;

/// A key the spec language does not have (mutants: a misspelt key).
struct UnknownKey {
  std::string key;
  std::int64_t value = 0;
};

struct ModelApply {
  ptx::CpAsyncOpcode opcode;
  ViewText dst, src;
  std::int64_t chunk_bytes = 16;
  std::optional<ScopeName> scope; ///< nullopt: not written (thread)
  std::optional<IntOrExpr> src_size;
  std::optional<BoolOrExpr> ignore_src, pred;
  std::optional<ModelPolicy> cache_policy;
  std::vector<UnknownKey> unknown;
};
struct ModelCommitGroup {};
struct ModelWaitGroup {
  std::int64_t n = 0;
};
struct ModelWaitAll {};
struct ModelCtaSync {};
/// A fill pattern: one byte, a list of bytes, or a "0x..." string of whole bytes.
struct ModelPattern {
  enum class Form : std::uint8_t { byte, list, hex };
  Form form = Form::byte;
  std::vector<std::uint8_t> bytes;
};
struct ModelFill {
  ViewText dst;
  ModelPattern pattern;
};
struct ModelCopy {
  ViewText dst, src;
};
/// A `for` header (also a pipeline's).
struct ModelFor {
  std::string var;
  IntOrExpr start = std::int64_t{0}, stop = std::int64_t{1};
  std::optional<IntOrExpr> step;
  std::optional<std::int64_t> unroll;
};
struct ModelEnd {};
struct ModelMbarrierInit {
  ViewText barrier;
  std::int64_t count = 1;
};
struct ModelCopyArrive {
  ViewText barrier;
  bool noinc = false;
};
struct ModelMbarrierArrive {
  ViewText barrier;
  std::optional<ExprText> pred; ///< nullopt: every thread
};
struct ModelMbarrierWait {
  ViewText barrier;
  IntOrExpr parity = std::int64_t{0};
  std::optional<ExprText> pred; ///< nullopt: every thread (a ring's issuer waits alone)
};

/// The bulk family's ops (sm_90); `pred` nullopt: every thread.
struct ModelExpectTx {
  ViewText barrier;
  std::int64_t bytes = 0;
  std::optional<ExprText> pred;
};
struct ModelBulkLoad {
  ViewText dst, src, barrier;
  std::optional<ExprText> pred;
  std::optional<ExprText> multicast; ///< the CTA mask of `.multicast::cluster`
};
struct ModelBulkStore {
  ViewText dst, src;
  std::optional<ExprText> pred;
};
struct ModelBulkCommit {};
struct ModelBulkWait {
  std::int64_t n = 0;
  bool read = false;
};
struct ModelProxyFence {
  tile::FenceSpace space = tile::FenceSpace::shared_cta;
};
struct ModelTensorLoad {
  std::string tensor;
  std::vector<ExprText> coords; ///< outermost first
  ViewText dst, barrier;
  std::optional<ExprText> pred;
  std::optional<ExprText> multicast;
};
struct ModelTensorStore {
  std::string tensor;
  std::vector<ExprText> coords;
  ViewText src;
  std::optional<ExprText> pred;
};

/// The cluster family's ops (sm_90).
struct ModelClusterSync {
  bool relaxed = false; ///< barrier.cluster.arrive.relaxed (mutants only: it orders no access)
};
struct ModelMbarrierInitFence {};
/// `bulk_copy_peer`: dst and barrier views of the same peer (`S@rank`, `bar@rank`).
struct ModelBulkCopyPeer {
  ViewText dst, src, barrier;
  std::optional<ExprText> pred;
};

/// A TMA pipeline's ring (`full`, `empty`, `ring_offset`).
struct ModelRing {
  ViewText full, empty;
  std::optional<IntOrExpr> offset;
};
struct ModelPipeline {
  ModelFor loop;
  std::int64_t stages = 2;
  std::optional<std::string> stage_var;                 ///< nullopt: the default ("stage")
  std::vector<ModelApply> loads;                        ///< the [[op.load]]s (cp.async)
  std::vector<std::variant<ModelCopy, ModelFill>> body; ///< the [[op.body]]s
  /// Set: a TMA pipeline, whose [[op.load]]s are `ring_loads` (their barrier is `full`).
  std::optional<ModelRing> ring;
  std::vector<std::variant<ModelBulkLoad, ModelTensorLoad>> ring_loads;
};

using ModelOpBody =
    std::variant<ModelApply, ModelCommitGroup, ModelWaitGroup, ModelWaitAll, ModelCtaSync,
                 ModelFill, ModelCopy, ModelFor, ModelEnd, ModelPipeline, ModelMbarrierInit,
                 ModelCopyArrive, ModelMbarrierArrive, ModelMbarrierWait, ModelExpectTx,
                 ModelBulkLoad, ModelBulkStore, ModelBulkCommit, ModelBulkWait, ModelProxyFence,
                 ModelTensorLoad, ModelTensorStore, ModelClusterSync, ModelMbarrierInitFence,
                 ModelBulkCopyPeer>;

/// One [[op]].
struct ModelOp {
  ModelOpBody body;
  std::size_t unit = 0; ///< the shrinker's unit this op belongs to

  template <class T>
  bool is() const {
    return std::holds_alternative<T>(body);
  }
};

/// What one shrinker unit needs besides its ops: the tensors and parameters it names.
struct ModelUnit {
  std::vector<std::string> names;
};

/// A generated spec.
struct SpecModel {
  std::uint64_t seed = 0;
  Family family = Family::tile;
  std::string name;                            ///< the kernel's
  std::vector<std::int64_t> grid{1}, block{1}; ///< 1..3 axes each
  std::vector<std::int64_t> cluster;           ///< [kernel] cluster; empty: none
  std::vector<std::string> abi; ///< [kernel] abi: the entry's parameter order; empty: none
  bool grid_as_array = false, block_as_array = false;
  std::vector<ModelTensor> tensors;
  std::vector<ModelParam> params;
  std::vector<ModelOp> ops;
  std::vector<ModelUnit> units; ///< indexed by ModelOp::unit
  std::vector<std::string> expects;
  std::vector<Feature> features; ///< what the generator used, each once

  bool has(Feature f) const;
};

/// The parts of a model that edits (simplifications, mutants) change, in program order:
/// a pipeline's loads are among the applies and its header among the loops. The pointers
/// are into `m` and valid while its ops are not added or removed.
struct ModelParts {
  std::vector<ModelApply*> applies;
  std::vector<ModelFor*> loops;
  std::vector<ModelCopyArrive*> arrives;
  std::vector<ModelWaitGroup*> wait_groups;
  std::vector<ModelMbarrierInit*> mbarrier_inits;
  std::vector<ModelPipeline*> pipelines;
};
ModelParts parts_of(SpecModel& m);

} // namespace ptxgen::driver::fuzz
