#pragma once
// The one feature table: each PTX feature ptxgen can emit, with the lowest
// PTX ISA version and target that allow it. The validator, the printer's
// default `.version` and `ptxgen instr` all read it. It is the only rule about
// targets and versions for instructions: an instruction's declaration
// (instruction.hpp) names the rows it uses.

#include "emitter/ptx/opcode.hpp"
#include "emitter/ptx/target.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ptxgen::ptx {

enum class Feature : std::uint8_t {
  cp_async,            ///< cp.async .ca/.cg, src-size, commit/wait_group, wait_all
  cp_async_cache_hint, ///< `.L2::cache_hint` with a cache-policy operand
  cp_async_prefetch,   ///< `.L2::64B` / `.L2::128B` / `.L2::256B`
  cp_async_ignore_src, ///< the ignore-src predicate operand
  shared_cta, ///< `.shared::cta` spelling (manual: 7.8; ptxas 13.0 accepts 7.0 on cp.async)
  cp_async_mbarrier_arrive,  ///< cp.async.mbarrier.arrive{.noinc}
  createpolicy,              ///< createpolicy.fractional
  mbarrier_init,             ///< mbarrier.init{.shared{::cta}}.b64
  mbarrier_arrive,           ///< mbarrier.arrive.b64 with a state register
  mbarrier_arrive_sink,      ///< mbarrier.arrive's sink `_` for the state
  mbarrier_test_wait,        ///< mbarrier.test_wait.b64 with a state operand
  mbarrier_test_wait_parity, ///< mbarrier.test_wait.parity.b64
  mbarrier_try_wait,         ///< mbarrier.try_wait.b64 (sm_90)
  mbarrier_try_wait_parity,  ///< mbarrier.try_wait.parity.b64 (sm_90)
  bulk_copy,                 ///< cp.async.bulk global<->shared, 1-D (sm_90)
  bulk_shared_cta_dst,       ///< a bulk load's `.shared::cta` destination (8.6)
  bulk_commit_group,         ///< cp.async.bulk.commit_group
  bulk_wait_group,           ///< cp.async.bulk.wait_group{.read}
  bulk_prefetch,             ///< cp.async.bulk.prefetch.L2
  bulk_tensor,               ///< cp.async.bulk.tensor, `.tile` mode
  bulk_prefetch_tensor,      ///< cp.async.bulk.prefetch.tensor, `.tile` mode
  mbarrier_expect_tx,        ///< mbarrier.expect_tx
  mbarrier_arrive_expect_tx, ///< mbarrier.arrive.expect_tx
  mbarrier_arrive_relaxed,   ///< `.relaxed` on mbarrier.arrive.expect_tx (8.6)
  fence_proxy_async,         ///< fence.proxy.async{.space}
  fence_mbarrier_init,       ///< fence.mbarrier_init.release.cluster
  cvta_param,                ///< cvta.param: a kernel parameter's generic address
  barrier_cluster,           ///< barrier.cluster.arrive / barrier.cluster.wait
  barrier_cluster_relaxed,   ///< `.relaxed` on barrier.cluster.arrive
  dsmem,                     ///< mapa.shared::cluster, ld/st.shared::cluster
  bulk_reduce,               ///< cp.reduce.async.bulk global <- shared::cta, 1-D
  tensormap_replace,         ///< tensormap.replace (sm_90a only)
  tensormap_fence,           ///< fence.proxy.tensormap::generic, tensormap.cp_fenceproxy
  bulk_multicast,            ///< `.multicast::cluster` on a bulk or tensor load, its CTA mask
  bulk_reduce_tensor,        ///< cp.reduce.async.bulk.tensor, `.tile` mode
  prefetch_tensormap,        ///< prefetch{.const,.param}.tensormap
  mbarrier_remote_arrive,    ///< mbarrier.arrive.release.cluster.shared::cluster (a peer's)
  setmaxnreg,                ///< setmaxnreg.{inc,dec}.sync.aligned.u32 (sm_90a only)
};

struct FeatureInfo {
  Feature feature;
  std::string_view name;      ///< for messages: "`.L2::cache_hint`"
  PtxVersion min_version;     ///< lowest `.version`
  int min_sm;                 ///< lowest target (80 = sm_80)
  bool stricter_than_ptxas;   ///< true where ptxgen follows the manual and ptxas is laxer
  OpcodePart part;            ///< the cp.async qualifier that brings it in, if one does
  bool arch_specific = false; ///< only on the arch-specific target (sm_90a), not sm_90
};

/// Every row of the table.
std::span<const FeatureInfo> feature_table();
const FeatureInfo& info(Feature f);

/// The lowest `.version` that target t accepts at all (sm_90 -> 7.8).
PtxVersion min_version_for_target(Target t);

/// True for the targets ptxas 13.0 accepts (sm_75 .. sm_121a; not sm_70, sm_72, sm_101).
bool is_known_target(Target t);

/// True for the PTX ISA versions ptxas 13.0 accepts: 7.0-7.8, 8.0-8.8, 9.0.
bool is_known_version(PtxVersion v);

/// Static `.shared` arrays of one kernel may total at most this many bytes
/// (ptxas's limit, every target); beyond it a kernel needs dynamic shared memory.
inline constexpr std::int64_t max_static_shared_bytes = 48 * 1024;

/// The opt-in maximum of dynamic shared memory per block on target t (CUDA
/// Programming Guide, compute capabilities table): sm_80/sm_87 166912,
/// sm_86/sm_89/sm_120 101376, sm_90/sm_100 232448. Targets without a row get
/// the row of the nearest known target below them (at least 48 KiB).
std::int64_t max_dynamic_shared_bytes(Target t);

/// The largest max_dynamic_shared_bytes of any target: what a CTA can have at all.
std::int64_t max_dynamic_shared_bytes_any_target();

/// What one SM of a target holds (CUDA Programming Guide, compute capabilities table; the
/// CUDA occupancy calculator's allocation unit and per-block reservation): the figures a
/// residency (`ctas_per_sm`) is checked against and padded to.
struct SmLimits {
  std::int64_t shared_bytes = 0;            ///< shared memory of one SM, at the largest carveout
  std::int64_t reserved_shared_per_cta = 0; ///< what the system takes from it per resident CTA
  std::int64_t shared_alloc_unit = 128;     ///< a CTA's shared memory is allocated in these units
  std::int64_t max_ctas = 0;                ///< resident CTAs per SM
  std::int64_t max_threads = 0;             ///< resident threads per SM
};

/// The SM of target t (a target without a row takes the row below it).
SmLimits sm_limits(Target t);

/// The most CTAs any target keeps resident on one SM.
std::int64_t max_ctas_per_sm_any_target();

/// CTAs in one cluster (sm_90+; CUDA Programming Guide, "Thread Block Clusters"): at most 8
/// portably, at most 16 where the kernel opts in to non-portable sizes
/// (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) and the device allows them (H100,
/// H200).
inline constexpr std::int64_t max_portable_cluster_ctas = 8;
inline constexpr std::int64_t max_cluster_ctas = 16;

/// Launch limits of every target (CUDA Programming Guide, compute capabilities
/// table): threads per block in all, and per axis x, y, z for blocks and grids.
inline constexpr std::int64_t max_block_threads = 1024;
inline constexpr std::array<std::int64_t, 3> max_block_dims = {1024, 1024, 64};
inline constexpr std::array<std::int64_t, 3> max_grid_dims = {2147483647, 65535, 65535};

} // namespace ptxgen::ptx
