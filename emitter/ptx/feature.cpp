#include "emitter/ptx/feature.hpp"

#include "emitter/support/enum_names.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <variant>

namespace ptxgen::ptx {

namespace {

// Versions and targets as docs/ptx-rules.md records them (ptxas 13.0 and the PTX ISA 9.0 manual).
constexpr auto table = std::to_array<FeatureInfo>({
    {Feature::cp_async, "cp.async", {7, 0}, 80, false, OpcodePart::none},
    {Feature::cp_async_cache_hint, "`.L2::cache_hint`", {7, 4}, 80, false, OpcodePart::cache_hint},
    {Feature::cp_async_prefetch,
     "the `.L2::64B`/`.L2::128B`/`.L2::256B` prefetch",
     {7, 4},
     80,
     false,
     OpcodePart::prefetch},
    {Feature::cp_async_ignore_src, "the ignore-src operand", {7, 5}, 80, false, OpcodePart::none},
    // The manual dates `.shared::cta` to 7.8; ptxas 13.0 accepts it at 7.0 on cp.async.
    {Feature::shared_cta, "`.shared::cta`", {7, 8}, 80, true, OpcodePart::dst_space},
    {Feature::cp_async_mbarrier_arrive,
     "cp.async.mbarrier.arrive",
     {7, 0},
     80,
     false,
     OpcodePart::none},
    {Feature::createpolicy, "createpolicy.fractional", {7, 4}, 80, false, OpcodePart::none},
    {Feature::mbarrier_init, "mbarrier.init", {7, 0}, 80, false, OpcodePart::none},
    {Feature::mbarrier_arrive, "mbarrier.arrive", {7, 0}, 80, false, OpcodePart::none},
    // ptxas 13.0: "Result discard mode is not allowed" at 7.0, accepted from 7.1.
    {Feature::mbarrier_arrive_sink,
     "the sink `_` as mbarrier.arrive's state",
     {7, 1},
     80,
     false,
     OpcodePart::none},
    {Feature::mbarrier_test_wait, "mbarrier.test_wait", {7, 0}, 80, false, OpcodePart::none},
    {Feature::mbarrier_test_wait_parity,
     "mbarrier.test_wait.parity",
     {7, 1},
     80,
     false,
     OpcodePart::none},
    {Feature::mbarrier_try_wait, "mbarrier.try_wait", {7, 8}, 90, false, OpcodePart::none},
    {Feature::mbarrier_try_wait_parity,
     "mbarrier.try_wait.parity",
     {7, 8},
     90,
     false,
     OpcodePart::none},
    // The bulk-copy family: ptxas 13.0 refuses each one version step below (docs/ptx-rules.md,
    // "Bulk copies"), and on every target below sm_90.
    {Feature::bulk_copy, "cp.async.bulk", {8, 0}, 90, false, OpcodePart::none},
    {Feature::bulk_shared_cta_dst,
     "a `.shared::cta` destination of a bulk copy",
     {8, 6},
     90,
     false,
     OpcodePart::none},
    {Feature::bulk_commit_group, "cp.async.bulk.commit_group", {8, 0}, 90, false, OpcodePart::none},
    {Feature::bulk_wait_group, "cp.async.bulk.wait_group", {8, 0}, 90, false, OpcodePart::none},
    {Feature::bulk_prefetch, "cp.async.bulk.prefetch", {8, 0}, 90, false, OpcodePart::none},
    {Feature::bulk_tensor, "cp.async.bulk.tensor", {8, 0}, 90, false, OpcodePart::none},
    {Feature::bulk_prefetch_tensor,
     "cp.async.bulk.prefetch.tensor",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    {Feature::mbarrier_expect_tx, "mbarrier.expect_tx", {8, 0}, 90, false, OpcodePart::none},
    {Feature::mbarrier_arrive_expect_tx,
     "mbarrier.arrive.expect_tx",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    {Feature::mbarrier_arrive_relaxed,
     "`.relaxed` on mbarrier.arrive.expect_tx",
     {8, 6},
     90,
     false,
     OpcodePart::none},
    {Feature::fence_proxy_async, "fence.proxy.async", {8, 0}, 90, false, OpcodePart::none},
    {Feature::fence_mbarrier_init,
     "fence.mbarrier_init.release.cluster",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    // ptxas 13.0: "Feature 'cvta/isspacep with .param state space' requires PTX ISA .version
    // 7.7 or later"; the manual gives sm_70 (ptxas 13.0 knows no target below sm_75).
    {Feature::cvta_param, "cvta.param", {7, 7}, 70, false, OpcodePart::none},
    // ptxas 13.0 at PTX 7.7 / 7.8 and on sm_89 (docs/ptx-rules.md, "Clusters").
    {Feature::barrier_cluster, "barrier.cluster", {7, 8}, 90, false, OpcodePart::none},
    {Feature::barrier_cluster_relaxed,
     "`.relaxed` on barrier.cluster.arrive",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    // ptxas 13.0 at PTX 7.7 / 7.8 and on sm_89 (docs/ptx-rules.md, "Clusters").
    {Feature::dsmem, "mapa and ld/st `.shared::cluster`", {7, 8}, 90, false, OpcodePart::none},
    {Feature::bulk_reduce, "cp.reduce.async.bulk", {8, 0}, 90, false, OpcodePart::none},
    // ptxas 13.0 takes it on sm_90 with an advisory warning (sm_90a is the target it names).
    {Feature::bulk_multicast,
     "`.multicast::cluster` on cp.async.bulk{.tensor}",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    // ptxas 13.0: "Instruction 'tensormap.replace' not supported on .target 'sm_90'"; the
    // fences need 8.3 ("fence.proxy with unidirection proxy fence requires PTX ISA .version 8.3").
    {Feature::tensormap_replace, "tensormap.replace", {8, 3}, 90, false, OpcodePart::none, true},
    {Feature::tensormap_fence,
     "fence.proxy.tensormap::generic and tensormap.cp_fenceproxy",
     {8, 3},
     90,
     false,
     OpcodePart::none},
    // ptxas 13.0 refuses both at PTX 7.8 ("requires PTX ISA .version 8.0") and on sm_80.
    {Feature::bulk_reduce_tensor,
     "cp.reduce.async.bulk.tensor",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    {Feature::prefetch_tensormap, "prefetch.tensormap", {8, 0}, 90, false, OpcodePart::none},
    {Feature::mbarrier_remote_arrive,
     "mbarrier.arrive.release.cluster.shared::cluster",
     {8, 0},
     90,
     false,
     OpcodePart::none},
    // ptxas 13.0 at PTX 7.8 and on sm_90 (not sm_90a): "Instruction 'setmaxnreg.dec' not
    // supported on .target 'sm_90'" (docs/ptx-rules.md, "Clusters, multicast, reductions,
    // tensor cores").
    {Feature::setmaxnreg, "setmaxnreg", {8, 0}, 90, false, OpcodePart::none, true},
});

struct TargetRow {
  int sm;
  bool arch_specific;
  PtxVersion min;
};

// The lowest `.version` ptxas 13.0 accepts for each target it knows.
constexpr std::array<TargetRow, 18> target_rows = {{
    {75, false, {7, 0}},
    {80, false, {7, 0}},
    {86, false, {7, 1}},
    {87, false, {7, 4}},
    {88, false, {7, 3}},
    {89, false, {7, 8}},
    {90, false, {7, 8}},
    {90, true, {8, 0}},
    {100, false, {8, 6}},
    {100, true, {8, 6}},
    {103, false, {8, 8}},
    {103, true, {8, 8}},
    {110, false, {9, 0}},
    {110, true, {9, 0}},
    {120, false, {8, 7}},
    {120, true, {8, 7}},
    {121, false, {8, 8}},
    {121, true, {8, 8}},
}};

struct SharedRow {
  int sm;
  std::int64_t max_dynamic_shared_bytes; ///< opt-in, per block
  SmLimits sm_limits;                    ///< one SM: shared, reservation, unit, CTAs, threads
};

// Opt-in dynamic shared memory per block and what one SM holds (CUDA Programming Guide,
// compute capabilities; docs/ptx-rules.md "Shared memory per block"), by compute capability.
// A target between rows takes the row below it.
constexpr std::array<SharedRow, 7> shared_rows = {{
    {75, 65536, {65536, 0, 256, 16, 1024}},
    {80, 166912, {167936, 1024, 128, 32, 2048}},
    {86, 101376, {102400, 1024, 128, 16, 1536}},
    {87, 166912, {167936, 1024, 128, 16, 2048}},
    {89, 101376, {102400, 1024, 128, 24, 1536}},
    {90, 232448, {233472, 1024, 128, 32, 2048}},
    {120, 101376, {102400, 1024, 128, 32, 1536}},
}};

} // namespace

std::int64_t max_dynamic_shared_bytes(Target t) {
  std::int64_t best = max_static_shared_bytes;
  for (const auto& row : shared_rows)
    if (row.sm <= t.sm)
      best = row.max_dynamic_shared_bytes;
  return best;
}

SmLimits sm_limits(Target t) {
  SmLimits best = shared_rows.front().sm_limits;
  for (const auto& row : shared_rows)
    if (row.sm <= t.sm)
      best = row.sm_limits;
  return best;
}

std::int64_t max_ctas_per_sm_any_target() {
  std::int64_t best = 0;
  for (const auto& row : shared_rows)
    best = std::max(best, row.sm_limits.max_ctas);
  return best;
}

std::int64_t max_dynamic_shared_bytes_any_target() {
  std::int64_t best = max_static_shared_bytes;
  for (const auto& row : shared_rows)
    best = std::max(best, row.max_dynamic_shared_bytes);
  return best;
}

std::span<const FeatureInfo> feature_table() {
  return table;
}

const FeatureInfo& info(Feature f) {
  return row_with(table, &FeatureInfo::feature, f, "info(): a Feature without a table row");
}

bool is_known_target(Target t) {
  for (const auto& row : target_rows)
    if (row.sm == t.sm && row.arch_specific == t.arch_specific)
      return true;
  return false;
}

PtxVersion min_version_for_target(Target t) {
  for (const auto& row : target_rows)
    if (row.sm == t.sm && row.arch_specific == t.arch_specific)
      return row.min;
  // An unknown target: the minimum of the nearest known one below it (validate() rejects it).
  PtxVersion best{7, 0};
  int best_sm = 0;
  for (const auto& row : target_rows)
    if (row.sm <= t.sm && row.sm >= best_sm && (!row.arch_specific || t.arch_specific)) {
      best_sm = row.sm;
      best = row.min;
    }
  return best;
}

bool is_known_version(PtxVersion v) {
  if (v.major == 7)
    return v.minor >= 0 && v.minor <= 8;
  if (v.major == 8)
    return v.minor >= 0 && v.minor <= 8;
  if (v.major == 9)
    return v.minor == 0;
  return false;
}

} // namespace ptxgen::ptx
