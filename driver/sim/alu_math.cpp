// The simulator's arithmetic: the math functions and the packed conversions (alu.hpp).

#include "driver/sim/alu.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxgen::sim::alu {
namespace {

/// .ftz on an input of `num` (f32, f16, bf16; f64 has none): a subnormal becomes zero of its
/// sign.
std::uint64_t flush_input(ir::Num num, std::uint64_t bits, bool ftz) {
  if (!ftz || num == ir::Num::f64)
    return bits;
  const unsigned w = element_bits(num);
  const unsigned mbits = num == ir::Num::f32 ? 23 : num == ir::Num::f16 ? 10 : 7;
  const std::uint64_t sign = 1ull << (w - 1);
  const std::uint64_t exp_mask = (sign - 1) & ~((1ull << mbits) - 1);
  return (bits & exp_mask) == 0 ? bits & sign : bits;
}

/// One element of math_op: `x` is exact, the result rounded once.
std::uint64_t math_element(MathOp f, ir::Num num, ir::Round round, bool ftz, std::uint64_t a) {
  const double x = to_double(num, flush_input(num, a, ftz));
  const bool approx = round == ir::Round::none;
  double r = 0;
  int sticky = 0; // the sign of (exact result - r), for the rounded forms
  switch (f) {
  case MathOp::ex2:
    r = std::exp2(x);
    break;
  case MathOp::lg2:
    r = std::log2(x);
    break;
  case MathOp::rcp:
    r = 1.0 / x;
    if (!approx && std::isfinite(r) && r != 0) // 1 - r x is exact: the division's remainder
      sticky = sign_of(std::fma(-r, x, 1.0)) * sign_of(x);
    break;
  case MathOp::sqrt:
    r = std::sqrt(x);
    if (!approx && std::isfinite(r) && r > 0) // x - r^2 is exact: the root's remainder
      sticky = -sign_of(std::fma(r, r, -x));
    break;
  case MathOp::rsqrt:
    r = 1.0 / std::sqrt(x);
    break;
  case MathOp::sin:
    r = std::sin(x);
    break;
  case MathOp::cos:
    r = std::cos(x);
    break;
  case MathOp::tanh:
    r = std::tanh(x);
    break;
  }
  // Below f64 the double result is the nearest to the exact value, so rounding it again to
  // nearest is the one rounding (53 >= 2 * 24 + 2 bits for rcp and sqrt of f32).
  return round_to(num, r, sticky, approx ? ir::Round::rn : round, ftz && num != ir::Num::f64);
}

/// An 8-bit float format (PTX ISA, "Alternate Floating Point Data Formats").
struct Fp8 {
  int ebits = 4;
  int mbits = 3;
  std::uint32_t max_finite = 0x7E; ///< the largest finite magnitude's bits
  bool has_inf = false;            ///< e5m2 has infinities; e4m3 has none (S.1111.111 is NaN)
  int bias() const { return (1 << (ebits - 1)) - 1; }
};

constexpr std::uint32_t fp8_nan = 0x7F; // both formats' canonical NaN

Fp8 fp8_format(ir::Num num) {
  return num == ir::Num::e4m3x2 ? Fp8{4, 3, 0x7E, false} : Fp8{5, 2, 0x7B, true};
}

double fp8_value(const Fp8& f, std::uint32_t bits) {
  const std::uint32_t e = (bits >> f.mbits) & ((1u << f.ebits) - 1);
  const std::uint32_t m = bits & ((1u << f.mbits) - 1);
  const bool neg = (bits & 0x80) != 0;
  double v = 0;
  if (f.has_inf && e == (1u << f.ebits) - 1)
    v = m != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!f.has_inf && (bits & 0x7F) == fp8_nan)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (e == 0)
    v = std::ldexp(m, 1 - f.bias() - f.mbits);
  else
    v = std::ldexp(m | (1u << f.mbits), static_cast<int>(e) - f.bias() - f.mbits);
  return neg ? -v : v;
}

/// x (exact) rounded to nearest even in `f`; .satfinite saturates, .relu clamps negatives.
std::uint32_t to_fp8(const Fp8& f, double x, bool relu, bool satfinite) {
  if (std::isnan(x))
    return fp8_nan;
  if (relu && (x < 0 || (x == 0 && std::signbit(x))))
    return 0;
  const std::uint32_t sign = std::signbit(x) ? 0x80 : 0;
  const double ax = std::fabs(x);
  const std::uint32_t overflow = satfinite ? f.max_finite : f.has_inf ? 0x7C : fp8_nan;
  if (std::isinf(ax))
    return sign | overflow;
  if (ax == 0)
    return sign;
  int e = 0;
  std::frexp(ax, &e); // ax = fr * 2^e, fr in [0.5, 1): its leading bit is 2^(e-1)
  const int q = std::max(e - 1, 1 - f.bias()) - f.mbits; // the result's ulp is 2^q
  double n = std::nearbyint(std::ldexp(ax, -q));         // to nearest even (the default mode)
  if (std::ldexp(n, q) > fp8_value(f, f.max_finite))
    return sign | overflow;
  int qq = q;
  if (n >= std::ldexp(1.0, f.mbits + 1)) { // rounded up into the next binade
    n /= 2;
    ++qq;
  }
  const auto ni = static_cast<std::uint32_t>(n);
  if (ni < (1u << f.mbits)) // subnormal: exponent field 0
    return sign | ni;
  const auto exp = static_cast<std::uint32_t>(qq + f.mbits + f.bias());
  return sign | (exp << f.mbits) | (ni - (1u << f.mbits));
}

/// A 16-bit float of `num` from an exact value, rounded by `round` (.rn or .rz); .relu and
/// .satfinite as for fp8.
std::uint64_t to_half(ir::Num num, double x, ir::Round round, bool relu, bool satfinite) {
  if (std::isnan(x))
    return 0x7FFF; // the canonical NaN of f16 and of bf16
  if (relu && (x < 0 || (x == 0 && std::signbit(x))))
    return 0;
  std::uint64_t bits = round_to(num, x, 0, round, false);
  const std::uint64_t inf = num == ir::Num::f16 ? 0x7C00 : 0x7F80;
  if (satfinite && (bits & 0x7FFF) == inf)
    bits = (bits & 0x8000) | (inf - 1);
  return bits;
}

} // namespace

std::uint64_t math_op(MathOp f, ir::Num num, ir::Round round, bool ftz, std::uint64_t a) {
  if (num == ir::Num::f16x2 || num == ir::Num::bf16x2) {
    const ir::Num h = num == ir::Num::f16x2 ? ir::Num::f16 : ir::Num::bf16;
    return math_element(f, h, round, ftz, (a >> 16) & 0xffff) << 16 |
           math_element(f, h, round, ftz, a & 0xffff);
  }
  return math_element(f, num, round, ftz, a);
}

std::uint64_t convert_packed(const ir::Op& op, std::uint64_t a, std::uint64_t b) {
  const ir::Num to = op.type.num, from = op.type2.num;
  // The two source elements, the upper one first.
  double hi = 0, lo = 0;
  if (from == ir::Num::f32) {
    hi = to_double(ir::Num::f32, a & 0xffffffff);
    lo = to_double(ir::Num::f32, b & 0xffffffff);
  } else if (from == ir::Num::f16x2) {
    hi = to_double(ir::Num::f16, (a >> 16) & 0xffff);
    lo = to_double(ir::Num::f16, a & 0xffff);
  } else if (from == ir::Num::e4m3x2 || from == ir::Num::e5m2x2) {
    hi = fp8_value(fp8_format(from), static_cast<std::uint32_t>(a >> 8) & 0xff);
    lo = fp8_value(fp8_format(from), static_cast<std::uint32_t>(a) & 0xff);
  } else {
    unreachable("convert_packed(): not a packed conversion's source");
  }
  // The destination's pair, as the source's above.
  if (to == ir::Num::f16x2 || to == ir::Num::bf16x2) {
    const ir::Num h = to == ir::Num::f16x2 ? ir::Num::f16 : ir::Num::bf16;
    const ir::Round r = op.round == ir::Round::none ? ir::Round::rn : op.round;
    return to_half(h, hi, r, op.relu, op.satfinite) << 16 |
           to_half(h, lo, r, op.relu, op.satfinite);
  }
  if (to == ir::Num::e4m3x2 || to == ir::Num::e5m2x2) {
    const Fp8 f = fp8_format(to);
    return to_fp8(f, hi, op.relu, op.satfinite) << 8 | to_fp8(f, lo, op.relu, op.satfinite);
  }
  unreachable("convert_packed(): not a packed conversion");
}

std::uint64_t to_tf32(std::uint64_t a, bool ties_away, ir::Round round, bool satfinite) {
  const auto x = static_cast<std::uint32_t>(a);
  const std::uint32_t sign = x & 0x80000000u, magnitude = x & 0x7fffffffu;
  constexpr std::uint32_t low_bits = 0x1fffu, half = 0x1000u, unit = 0x2000u;
  constexpr std::uint32_t infinity = 0x7f800000u, largest = 0x7f7fe000u;
  if (magnitude > infinity)
    return 0x7fffffffu; // NaN
  std::uint32_t r = magnitude & ~low_bits;
  const std::uint32_t rest = magnitude & low_bits;
  if (magnitude < infinity) {
    if (ties_away)
      r += rest >= half ? unit : 0;
    else if (round == ir::Round::rn)
      r += rest > half || (rest == half && (r & unit) != 0) ? unit : 0;
  }
  if (satfinite && r >= infinity)
    r = largest;
  return sign | r;
}

} // namespace ptxgen::sim::alu
