#pragma once
// The `pipeline` op: a software pipeline over tiles (TileLang's T.Pipelined,
// Triton's num_stages), expanded into plain ops.
//
// The user gives the tile loop (`var` from `start` to `stop`, step 1), the
// number of shared stages S, the loads of one tile (cp.async applies whose
// views name the tile `var` and its ring slot `stage_var`) and the consumer
// ops of one tile (copy, fill). expand_pipeline writes:
//
//   [cta_sync]                              only when Pipeline::sync_before
//   for p in 0..S-2:                        prologue, tiles start .. start+S-2
//     loads of tile start+p   (pred: start+p < stop)
//     commit_group                          also when the loads are off: an empty group
//   for var = start; var < stop; var += 1   steady state
//     wait_group S-2                        tile var has landed (this thread's copies)
//     cta_sync                              every thread's copies of tile var are visible,
//                                           and every thread is done with tile var-1
//     loads of tile var+S-1   (pred: var+S-1 < stop)
//     commit_group                          one group per iteration, empty in the tail
//     consumer ops of tile var
//   end
//
// Group counting: group g (0-based, in commit order) holds tile start+g, for
// every runtime trip count, because every prologue step and every iteration
// commits exactly one group. In iteration var (i = var - start), S-1+i groups
// are committed; wait_group S-2 completes the oldest i+1, so tile var is done.
// Barrier: the load in iteration var writes stage (var+S-1) % S = (var-1) % S,
// the slot the consumer of iteration var-1 read; the cta_sync of iteration var
// lies after every thread's consumer of iteration var-1 and before any thread's
// load, so no slot is refilled while another thread may still read it. After
// the loop only groups of tiles >= stop are pending, and those are empty: no
// wait is needed after the loop.
//
// Proofs: the contract bounds every copy for every iteration, also predicated
// off, so a load's tile index is clamped into the tiles that exist:
// min(t, stop - 1) (and max(start, ...) when stop - 1 may be below start).
// The predicate and the clamp are left out where the launch's bounds prove the
// tile exists (a prologue tile below the least stop).
//
// The slot of tile t is t % S, both in the loads (t = the tile loaded) and in
// the consumer (t = var); writing `var % S` in a view is the same as writing
// `stage_var`.
//
// The mbarrier ring (loads that are bulk_load / tensor_load): the completion is a
// transaction-count mbarrier per stage, `full`, and the release of a stage is a
// second one, `empty` (CUTLASS's TMA pipeline). Tile t is the ring's use
// n = ring_offset + (t - start); its slot is n % S and it is the slot's use n / S.
// Thread 0 produces, every thread consumes:
//
//   full[s] count 1, empty[s] count = threads      pipeline_ring_init, placed by the
//   cta_sync                                       builder (before the outermost loop)
//   [cta_sync]                                     only when Pipeline::sync_before
//   for p in 0..S-2:                               prologue, uses n = off .. off+S-2
//     [wait empty[n%S] parity (n/S+1)%2  (tid 0)]  left out while n < S is constant
//     expect_tx full[n%S] bytes T        (tid 0 && start+p < stop)
//     loads of tile start+p into n%S     (tid 0 && start+p < stop, on full[n%S])
//   for var = start; var < stop; var += 1          n = off + var - start, m = n + S - 1
//     wait empty[m%S] parity (m/S+1)%2   (tid 0 && var+S-1 < stop): use m-S released
//     expect_tx full[m%S] bytes T        (same pred)
//     loads of tile var+S-1 into m%S     (same pred)
//     wait full[n%S] parity (n/S)%2                 tile var has landed
//     consumer ops of tile var (stage n%S)
//     mbarrier_arrive empty[n%S]                    the stage is free again
//   end
//
// The producer's wait for use m of a slot is for the release of use m - S, the
// empty phase (m/S) - 1, parity (m/S + 1) % 2; for the slot's first use (m < S)
// that is parity 1 on a barrier in phase 0, which passes at once (the phase
// before phase 0 counts as completed). T is the bytes of one tile's loads (each
// dst view's). No wait follows the loop: every tile's full phase was waited for,
// and the last releases complete their empty phases.
//
// Warp-specialized (PipelineRing::roles, P producer warps): the same schedule, with the
// consumers' wait on full, consumer ops, [named_barrier] and release predicated
// `warp >= P`, empty counting the block's threads minus 32 P, and after the init's
// cta_sync [setmaxnreg.dec producer_regs (warp < P)] [setmaxnreg.inc consumer_regs
// (warp >= P)]. Thread 0 (of warp 0, a producer warp) still issues.
//
// Multicast (PipelineRing::multicast, a cluster of N CTAs): each CTA's thread 0 multicasts
// its share of the tile (the loads as written) to the whole cluster (mask 2^N - 1), so full
// expects N times their bytes; empty counts N arrivals: after the consumers' named barrier,
// consumer thread 32 P + r (r < N) arrives on the empty barrier of rank r, and a refill waits
// until the consumers of every CTA released the stage. A ring without roles (every thread
// consumes) meets at a cta_sync instead of the named barrier, and thread r releases rank r
// (P = 0). The init publishes the barriers to the
// cluster (mbarrier_init_fence, cluster_sync instead of cta_sync), and a cluster_sync after
// the steady loop keeps every CTA alive until its peers' last arrivals are in (a pipeline
// inside a loop: one after the outermost loop, Pipeline::exit_sync).
//
// Part of the cluster (a load's own `multicast` mask, as a GEMM's A along a 2-D cluster's
// row and B along its column): each load goes to the ranks of its mask instead, full expects
// the sum over the loads of their bytes times their mask's CTAs, empty counts the CTAs of the
// union of the masks, and consumer thread 32 P + r releases rank r only where bit r of that
// union is set. The counts take each mask to be symmetric (r sends to s exactly when s sends
// to r: the CTAs of a mask receive from each other); the contract proves the counts, so a
// mask that is not is refused at the wait that expects the wrong bytes.

#include "emitter/tile/expr.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace ptxgen::tile {

/// The fewest and most stages a pipeline may have.
inline constexpr std::int64_t kMinPipelineStages = 2;
inline constexpr std::int64_t kMaxPipelineStages = 8;

/// The spelling of the stage variable when the spec does not name it.
inline constexpr std::string_view kDefaultStageVar = "stage";

/// The warp-specialized ring (CUTLASS's PipelineTmaAsync with a producer warp): warps
/// 0..producer_warps-1 are the producer, whose thread 0 issues; the other warps consume (their
/// wait on full, the consumer ops and the release are predicated `warp >= producer_warps`),
/// and `empty` counts their threads. Each value points at the key that gave it.
struct PipelineRoles {
  Located<std::int64_t> producer_warps;
  /// setmaxnreg.dec of the producer warps and setmaxnreg.inc of the consumers, after the
  /// ring's init (sm_90a).
  std::optional<Located<std::int64_t>> producer_regs;
  std::optional<Located<std::int64_t>> consumer_regs;
  /// A named barrier (bar.sync id, consumer threads) among the consumers before each release.
  std::optional<Located<std::int64_t>> consumer_barrier;
};

/// The cluster multicast form of a ring (CUTLASS's PipelineTmaAsync in a cluster), at the
/// `multicast` key. Each CTA's loads are its share of the tile, multicast to the CTAs of their
/// masks (a load without a mask of its own: every CTA of the cluster, 2^N - 1). The counts come
/// from the masks (Builder counts them over every CTA of the grid, and they are the same in
/// each).
struct PipelineMulticast {
  Located<std::int64_t> ctas; ///< N, the CTAs of the cluster, at the `multicast` key
  /// The CTAs whose consumers release a stage on a CTA's empty (its arrival count).
  std::int64_t senders = 0;
  /// The bytes that land in one stage of a CTA (full's expect_tx).
  std::int64_t stage_bytes = 0;
  /// The ranks a CTA's consumers release: the union of the loads' masks (nullptr: every rank).
  ExprPtr release_mask;
};

/// The mbarrier ring of a pipeline whose loads are bulk_load / tensor_load.
struct PipelineRing {
  Located<View> full;  ///< full[stage]: the loads' barrier (names the stage variable)
  Located<View> empty; ///< empty[stage]: the consumers' release
  /// The uses the ring's barriers had before this pipeline (a pipeline inside a
  /// loop reuses them: its outer iteration times the tiles of one); 0 when unset.
  std::optional<Located<ExprPtr>> offset;
  std::int64_t consumers = 1;         ///< the consumer threads: the arrivals of an empty phase
  std::optional<PipelineRoles> roles; ///< set: warp-specialized; unset: thread 0 and all
  std::optional<PipelineMulticast> multicast; ///< set: the loads multicast in the cluster
};

struct Pipeline {
  Located<std::string> var; ///< the tile index: the loop variable of the steady state
  Located<ExprPtr> start;   ///< the first tile
  Located<ExprPtr> stop;    ///< exclusive; start, stop CTA-uniform
  std::int64_t stages = 2;  ///< S, kMinPipelineStages..kMaxPipelineStages
  std::int64_t unroll = 1;  ///< of the steady-state loop
  std::string stage_var{kDefaultStageVar}; ///< loop leaves of this name: the tile's slot
  /// ApplyOps loading one tile: ExprKind::loop leaves named `var` are the tile
  /// loaded, leaves named `stage_var` its slot.
  std::vector<Op> loads;
  /// The consumer ops of one tile (CopyOp, FillOp): `var` is the tile consumed
  /// (the loop variable), `stage_var` its slot.
  std::vector<Op> body;
  bool sync_before = false; ///< emit a cta_sync before the prologue (slots used before)
  /// A multicast ring's closing cluster_sync after its steady loop; false inside a loop, where
  /// the next pass's producer waits for the peers' releases anyway and the builder places one
  /// cluster_sync after the outermost loop instead.
  bool exit_sync = true;
  SourcePos pos; ///< the pipeline op
  /// Set: the loads are bulk_load / tensor_load (their barrier is ring->full) and
  /// complete through the ring; unset: cp.async applies and commit groups.
  std::optional<PipelineRing> ring;
};

/// The plain ops of `p`, to be placed at Kernel::ops[first_index...] (the
/// ForOp's and EndOp's indices count from it). `launch` bounds the leaves
/// outside the pipeline (parameters, bid...): where it proves that a prologue
/// tile exists, its predicate and clamp are left out.
std::vector<Op> expand_pipeline(const Pipeline& p, std::size_t first_index,
                                const LaunchBounds& launch);

/// The ring's barrier inits (full and empty of every stage) and the cta_sync after
/// them, with the roles of OpOrigin::Role::ring_init; `p.ring` must be set.
std::vector<Op> pipeline_ring_init(const Pipeline& p);

/// The bytes one load of a ring pipeline writes into its stage: its dst view's (the
/// contract proves a tensor load's is its box); 0 for an op that is not a bulk or tensor load.
std::int64_t pipeline_load_bytes(const Op& load);

/// The shared tensors a pipeline's loads write (its stages).
std::set<const Tensor*> pipeline_stage_tensors(const Pipeline& p);

/// True when one of `ops` writes a stage of `p` through the generic proxy (fill, copy,
/// cp.async): a bulk or tensor load that later lands in those bytes needs a proxy fence
/// between them (fence.proxy.async.shared::cta).
bool pipeline_writes_stages(const Pipeline& p, std::span<const Op> ops);

/// Where the proxy fence a ring pipeline `p` needs goes among the ops `before` it: right
/// after the last generic write to one of its stages (the writer's fence, in program order
/// before the barrier that orders thread 0's loads); nullopt when none writes them since
/// the last proxy_fence, or `p` is not a ring.
std::optional<std::size_t> pipeline_fence_after(const Pipeline& p, std::span<const Op> before);

/// Whether `p` needs Pipeline::sync_before: when its stages may have been used
/// before it, that is inside a loop (`in_loop`: the previous iteration's consumer)
/// or after an op of `before` (the ops that precede it) that touches a tensor its
/// loads write; never right after a cta_sync. An mbarrier ring inside a loop needs
/// none: its producer waits for each stage's release.
bool pipeline_needs_sync(const Pipeline& p, std::span<const Op> before, bool in_loop);

/// The stage slot of tile `tile`: tile % S (folded when constant).
ExprPtr pipeline_stage(const ExprPtr& tile, std::int64_t stages);

} // namespace ptxgen::tile
