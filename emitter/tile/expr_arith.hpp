#pragma once
// What expression evaluation (expr.cpp) and interval bounds (expr_bounds.cpp) share: 64-bit
// arithmetic that reports overflow instead of wrapping, and what each Special reads. Not a
// public header: only those two files include it.

#include "emitter/tile/expr.hpp"

#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>

namespace ptxgen::tile::expr_arith {

using i64 = std::int64_t;
inline constexpr i64 kMin = std::numeric_limits<i64>::min();
inline constexpr i64 kMax = std::numeric_limits<i64>::max();

// What each Special reads, in enum order: its spelling; which launch extent it is of (the
// block's threads, the grid's CTAs, a cluster's CTAs, the grid's clusters); an extent (ntid,
// nbid...) or an index (tid, bid); the axis (kAllAxes: the linear index, or the total).
inline constexpr int kAllAxes = 3;
enum class Over : std::uint8_t { block, grid, cluster, clusters };
struct SpecialRow {
  std::string_view spelling;
  Over over;
  bool extent;
  int axis;
};
inline constexpr SpecialRow kSpecialRows[] = {
    {"tid.x", Over::block, false, 0},
    {"tid.y", Over::block, false, 1},
    {"tid.z", Over::block, false, 2},
    {"ntid", Over::block, true, kAllAxes},
    {"ntid.x", Over::block, true, 0},
    {"ntid.y", Over::block, true, 1},
    {"ntid.z", Over::block, true, 2},
    {"bid.x", Over::grid, false, 0},
    {"bid.y", Over::grid, false, 1},
    {"bid.z", Over::grid, false, 2},
    {"nbid", Over::grid, true, kAllAxes},
    {"nbid.x", Over::grid, true, 0},
    {"nbid.y", Over::grid, true, 1},
    {"nbid.z", Over::grid, true, 2},
    {"cluster_rank", Over::cluster, false, kAllAxes},
    {"cluster_size", Over::cluster, true, kAllAxes},
    {"cluster_id", Over::clusters, false, kAllAxes},
    {"ncluster", Over::clusters, true, kAllAxes},
};
static_assert(std::size(kSpecialRows) == std::size(kSpecials));

inline const SpecialRow& special_row(Special s) {
  return kSpecialRows[static_cast<std::size_t>(s)];
}

inline i64 dim_axis(const Dim3& d, int axis) {
  return axis == 0 ? d.x : axis == 1 ? d.y : d.z;
}

/// The grid of clusters: the grid's CTAs along each axis over the cluster's.
inline Dim3 cluster_grid(const Dim3& grid, const Dim3& cluster) {
  return {grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z};
}

inline std::optional<i64> checked_add(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

inline std::optional<i64> checked_sub(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_sub_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

inline std::optional<i64> checked_mul(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

// C division: truncation toward zero. nullopt for a zero divisor and INT64_MIN / -1.
inline std::optional<i64> checked_div(i64 a, i64 b) {
  if (b == 0 || (a == kMin && b == -1))
    return std::nullopt;
  return a / b;
}

inline std::optional<i64> checked_rem(i64 a, i64 b) {
  if (b == 0)
    return std::nullopt;
  if (b == -1)
    return 0; // avoids the INT64_MIN % -1 trap; mathematically 0
  return a % b;
}

// a * 2^k for k in 0..63.
inline std::optional<i64> checked_shl(i64 a, i64 k) {
  if (k < 0 || k > 63)
    return std::nullopt;
  if (k == 63) {
    if (a == 0)
      return 0;
    if (a == -1)
      return kMin;
    return std::nullopt;
  }
  return checked_mul(a, i64{1} << k);
}

// floor(a / 2^k) for k in 0..63 (an arithmetic shift).
inline std::optional<i64> checked_shr(i64 a, i64 k) {
  if (k < 0 || k > 63)
    return std::nullopt;
  // Right shift of a negative value is arithmetic in C++20.
  return a >> k;
}

} // namespace ptxgen::tile::expr_arith
