#pragma once
// Interval proofs one CTA at a time. A loop's variable ranges over [least start, greatest
// stop - 1] over the whole launch, which loses what ties it to bid: a grid-stride tile
// `bid + k * nbid` with k < (m + nbid - 1 - bid) / nbid stays below m in every CTA, yet the
// launch-wide intervals put k's greatest value (from bid 0) with bid's (nbid - 1). Fixing
// bid and re-ranging the loops under it keeps that tie, at one interval pass per CTA.

#include "emitter/tile/expr.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ptxgen::tile {

/// The most CTAs the proofs take one by one (each costs one interval pass).
inline constexpr std::int64_t max_per_cta_proofs = 4096;

/// Ranges every loop of `loops` (outermost first) on `lb` over [least start, max(least start,
/// greatest stop - 1)], as the contract ranges a loop at its header; false when a loop bound
/// has no bound (`lb` then partly updated).
bool range_loops(LaunchBounds& lb, const std::vector<const ForOp*>& loops);

/// `lb` with bid fixed at `b` and every loop of `loops` (outermost first) re-ranged over
/// [least start, max(least start, greatest stop - 1)] under it, as the contract ranges a
/// loop at its header; nullopt when bid cannot be `b` on `lb` (outside the grid, or outside
/// a range `lb` narrows it to) or a loop bound has no bound.
std::optional<LaunchBounds> bounds_at_cta(const LaunchBounds& lb, std::int64_t b,
                                          const std::vector<const ForOp*>& loops);

} // namespace ptxgen::tile
