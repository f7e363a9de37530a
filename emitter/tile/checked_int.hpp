#pragma once
// 64-bit arithmetic that reports overflow instead of wrapping, as expression evaluation
// (expr.cpp) and interval bounds (expr_bounds.cpp) both compute: nullopt where C would
// overflow or trap. Not a public header: only those two files include it.

#include <cstdint>
#include <limits>
#include <optional>

namespace ptxgen::tile::checked_int {

using i64 = std::int64_t;
inline constexpr i64 kMin = std::numeric_limits<i64>::min();
inline constexpr i64 kMax = std::numeric_limits<i64>::max();

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

} // namespace ptxgen::tile::checked_int
