// The simulator's arithmetic: see alu.hpp.

#include "driver/sim/alu.hpp"

#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

namespace ptxgen::sim::alu {
namespace {

__extension__ typedef __int128 i128;

std::uint64_t mask(unsigned bits) {
  return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

/// A float format: exponent and fraction widths.
struct Format {
  int ebits = 8;
  int mbits = 23;
  int bias() const { return (1 << (ebits - 1)) - 1; }
  std::uint64_t sign_bit() const { return 1ull << (ebits + mbits); }
  std::uint64_t exp_ones() const { return (1ull << ebits) - 1; }
  /// All bits but the sign: the canonical NaN (0x7fffffff, 0x7fff).
  std::uint64_t canonical_nan() const { return sign_bit() - 1; }
  std::uint64_t infinity() const { return exp_ones() << mbits; }
};

/// The element format of `num` (x2: its halves).
ir::Num element(ir::Num num) {
  switch (num) {
  case ir::Num::f16x2:
    return ir::Num::f16;
  case ir::Num::bf16x2:
    return ir::Num::bf16;
  case ir::Num::integer:
  case ir::Num::f16:
  case ir::Num::bf16:
  case ir::Num::f32:
  case ir::Num::f64:
  case ir::Num::e4m3x2: // convert_packed's alone (alu_math.cpp)
  case ir::Num::e5m2x2:
    return num;
  }
  unreachable("element(): not an ir::Num value");
}

Format format(ir::Num num) {
  switch (element(num)) {
  case ir::Num::f16:
    return {5, 10};
  case ir::Num::bf16:
    return {8, 7};
  case ir::Num::f32:
    return {8, 23};
  case ir::Num::f64:
    return {11, 52};
  case ir::Num::integer:
  case ir::Num::f16x2:
  case ir::Num::bf16x2:
  case ir::Num::e4m3x2:
  case ir::Num::e5m2x2:
    break;
  }
  unreachable("format(): not a float element");
}

bool is_subnormal(const Format& f, std::uint64_t bits) {
  return ((bits >> f.mbits) & f.exp_ones()) == 0 &&
         (bits & mask(static_cast<unsigned>(f.mbits))) != 0;
}

/// .ftz on an input: a subnormal becomes zero of its sign.
std::uint64_t flush(ir::Num num, std::uint64_t bits, bool ftz) {
  const Format f = format(num);
  return ftz && is_subnormal(f, bits) ? bits & f.sign_bit() : bits;
}

/// s + e = a + b exactly (TwoSum; no overflow for the formats below f64).
std::pair<double, double> two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, std::isfinite(s) ? e : 0.0};
}

/// f64: d is already the nearest double to the exact value; a directed mode
/// moves it one ulp when the exact value lies on the other side.
std::uint64_t round_f64(double d, int sticky, ir::Round round) {
  if (sticky != 0) {
    const double inf = std::numeric_limits<double>::infinity();
    switch (round) {
    case ir::Round::rz:
      if ((d > 0) != (sticky > 0))
        d = std::nextafter(d, 0.0);
      break;
    case ir::Round::rm:
      if (sticky < 0)
        d = std::nextafter(d, -inf);
      break;
    case ir::Round::rp:
      if (sticky > 0)
        d = std::nextafter(d, inf);
      break;
    default:
      break;
    }
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

/// f64 on the GPU: a NaN operand comes back quieted, the last of `operands`
/// when several are NaN (the H200 prefers b to a, and in fma b to c to a); 0
/// when none is.
std::uint64_t f64_nan(std::initializer_list<std::uint64_t> operands) {
  std::uint64_t nan = 0;
  for (std::uint64_t v : operands) {
    if ((v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0xfffffffffffffull) != 0)
      nan = v | 0x8000000000000ull;
  }
  return nan;
}

/// f64 a*b: the sign of (exact product - r), r the nearest double to it. Where
/// the product is tiny, fma's error term is not exact: the operands are scaled
/// to [1, 2) and r by the same power of two (r is then within a factor 2 of
/// the scaled product, so their difference is exact).
int mul_sticky_f64(double x, double y, double r) {
  if (x == 0 || y == 0 || !std::isfinite(r))
    return 0;
  if (std::fabs(r) >= 0x1p-960)
    return sign_of(std::fma(x, y, -r));
  const int ex = std::ilogb(x), ey = std::ilogb(y);
  const double xs = std::scalbn(x, -ex), ys = std::scalbn(y, -ey);
  const double ps = xs * ys, e = std::fma(xs, ys, -ps);
  const double d = ps - std::scalbn(r, -(ex + ey));
  return d != 0 ? sign_of(d) : sign_of(e);
}

/// a/b: the sign of (exact quotient - r), r the nearest double to it. Only the remainder's sign
/// matters, so the operands are scaled to [1, 2) and r by the same power of two (exact: the
/// scaled r lies near 1, a subnormal r is scaled up), out of the reach of underflow; fma rounds
/// the scaled remainder once, which keeps its sign.
int div_sticky(double x, double y, double r) {
  if (x == 0 || y == 0 || r == 0 || !std::isfinite(x) || !std::isfinite(y) || !std::isfinite(r))
    return 0;
  const int ex = std::ilogb(x), ey = std::ilogb(y);
  const double xs = std::fabs(std::scalbn(x, -ex)), ys = std::fabs(std::scalbn(y, -ey));
  const double rs = std::fabs(std::scalbn(r, ey - ex));
  return sign_of(std::fma(-rs, ys, xs)) * (std::signbit(r) ? -1 : 1);
}

/// f64 overflow of finite operands (the host rounded to nearest: inf): the
/// largest finite value where the mode rounds toward zero.
double f64_overflow(double r, ir::Round round) {
  const bool neg = std::signbit(r);
  const bool to_inf = round == ir::Round::rn || round == ir::Round::none ||
                      (round == ir::Round::rp && !neg) || (round == ir::Round::rm && neg);
  const double big = std::numeric_limits<double>::max();
  return to_inf ? r : neg ? -big : big;
}

/// Clamps float bits to [+0, 1]; NaN becomes +0.
std::uint64_t saturate(ir::Num num, std::uint64_t bits) {
  const double d = to_double(num, bits);
  if (std::isnan(d) || d <= 0)
    return 0;
  if (d >= 1)
    return round_to(num, 1.0, 0, ir::Round::rn, false);
  return bits;
}

/// The exact zero of a sum: same-signed zero operands keep their sign, any
/// other exact zero is +0, or -0 when rounding toward -infinity (IEEE 754).
double sum_zero(double x, double y, ir::Round round) {
  if (x == 0 && y == 0 && std::signbit(x) == std::signbit(y))
    return x;
  return round == ir::Round::rm ? -0.0 : 0.0;
}

std::uint64_t min_max(FloatOp op, ir::Num num, std::uint64_t a, std::uint64_t b) {
  const double x = to_double(num, a), y = to_double(num, b);
  if (std::isnan(x) && std::isnan(y))
    return format(num).canonical_nan();
  if (std::isnan(x))
    return b;
  if (std::isnan(y))
    return a;
  const bool min = op == FloatOp::min;
  if (x == y) // -0 is below +0
    return (std::signbit(x) == min) ? a : b;
  return (x < y) == min ? a : b;
}

/// One element of float_op.
std::uint64_t float_element(FloatOp op, ir::Num num, const FloatMode& m, std::uint64_t a,
                            std::uint64_t b, std::uint64_t c) {
  const Format f = format(num);
  a = flush(num, a, m.ftz);
  b = flush(num, b, m.ftz);
  c = flush(num, c, m.ftz);
  if (num == ir::Num::f64) {
    const bool unary = op == FloatOp::neg || op == FloatOp::abs;
    const bool both = op == FloatOp::min || op == FloatOp::max; // one NaN: the other operand
    const std::uint64_t nan = unary  ? f64_nan({a})
                              : both ? (f64_nan({a}) != 0 && f64_nan({b}) != 0 ? f64_nan({b}) : 0)
                              : op == FloatOp::fma ? f64_nan({a, c, b}) // b wins, then c
                                                   : f64_nan({a, b});
    if (nan != 0)
      return m.sat ? 0 : nan;
  }
  double r = 0;
  int sticky = 0;
  switch (op) {
  case FloatOp::neg: // a NaN becomes the canonical NaN (f64 keeps its bits)
    return num != ir::Num::f64 && std::isnan(to_double(num, a)) ? f.canonical_nan()
                                                                : a ^ f.sign_bit();
  case FloatOp::abs:
    return num != ir::Num::f64 && std::isnan(to_double(num, a)) ? f.canonical_nan()
                                                                : a & ~f.sign_bit();
  case FloatOp::min:
  case FloatOp::max:
    if (m.nan && (std::isnan(to_double(num, a)) || std::isnan(to_double(num, b))))
      return f.canonical_nan();
    return min_max(op, num, a, b);
  case FloatOp::add:
  case FloatOp::sub: {
    // The host's own sum first: for f64 its NaN is the GPU's (the first NaN
    // operand, quieted; an invalid operation gives the negative default NaN).
    const double x = to_double(num, a), y = to_double(num, b);
    const double y2 = op == FloatOp::sub ? -y : y;
    r = op == FloatOp::sub ? x - y : x + y;
    if (std::isfinite(r)) {
      auto [s, e] = two_sum(x, y2);
      r = s == 0 && e == 0 ? sum_zero(x, y2, m.round) : s;
      sticky = sign_of(e);
    }
    break;
  }
  case FloatOp::mul: {
    const double x = to_double(num, a), y = to_double(num, b);
    r = x * y; // exact below f64
    if (num == ir::Num::f64)
      sticky = mul_sticky_f64(x, y, r);
    break;
  }
  case FloatOp::div: {
    // The double quotient of f32 (f16, bf16) operands is their exact quotient rounded to 53
    // bits: with the remainder's sign it rounds once more exactly (53 >= 2 * 24 + 2).
    const double x = to_double(num, a), y = to_double(num, b);
    r = x / y;
    sticky = div_sticky(x, y, r);
    if (y == 0) // x / 0 is an exact infinity (or NaN), not an overflow
      return round_to(num, r, 0, m.round, m.ftz);
    break;
  }
  case FloatOp::fma: {
    const double x = to_double(num, a), y = to_double(num, b), z = to_double(num, c);
    if (num == ir::Num::f64) {
      r = std::fma(x, y, z); // to nearest only (the decoder refuses the others)
      break;
    }
    const double p = x * y; // exact below f64
    auto [s, e] = two_sum(p, z);
    r = s == 0 && e == 0 ? sum_zero(p, z, m.round) : s;
    sticky = sign_of(e);
    break;
  }
  }
  if (num == ir::Num::f64 && std::isinf(r) && std::isfinite(to_double(num, a)) &&
      std::isfinite(to_double(num, b)) && std::isfinite(to_double(num, c)))
    r = f64_overflow(r, m.round);
  std::uint64_t bits = round_to(num, r, sticky, m.round, m.ftz);
  return m.sat ? saturate(num, bits) : bits;
}

/// x rounded to an integral value by an integer rounding mode.
double round_integral(double x, ir::Round round) {
  switch (round) {
  case ir::Round::rzi:
    return std::trunc(x);
  case ir::Round::rmi:
    return std::floor(x);
  case ir::Round::rpi:
    return std::ceil(x);
  case ir::Round::rni: {
    if (!std::isfinite(x))
      return x;
    double r = std::floor(x);
    const double diff = x - r;
    if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0))
      r += 1;
    return r == 0 ? std::copysign(0.0, x) : r;
  }
  case ir::Round::none:
  case ir::Round::rn:
  case ir::Round::rz:
  case ir::Round::rm:
  case ir::Round::rp:
    break;
  }
  return x;
}

bool is_integer_round(ir::Round r) {
  return r == ir::Round::rni || r == ir::Round::rzi || r == ir::Round::rmi || r == ir::Round::rpi;
}

/// An integer of `ty` from register bits: sign- or zero-extended.
i128 integer_value(ir::Type ty, std::uint64_t a) {
  a &= mask(ty.bits);
  if (ty.is_signed && ty.bits < 64 && ((a >> (ty.bits - 1)) & 1) != 0)
    return static_cast<i128>(a) - (static_cast<i128>(1) << ty.bits);
  if (ty.is_signed && ty.bits == 64)
    return static_cast<std::int64_t>(a);
  return a;
}

/// v clamped to the range of integer type ty.
i128 clamp_to(ir::Type ty, i128 v) {
  const i128 lo = ty.is_signed ? -(static_cast<i128>(1) << (ty.bits - 1)) : 0;
  const i128 hi = ty.is_signed ? (static_cast<i128>(1) << (ty.bits - 1)) - 1
                               : (static_cast<i128>(1) << ty.bits) - 1;
  return std::clamp(v, lo, hi);
}

/// float -> integer: rounded by the integer mode, clamped to the range, NaN -> 0.
std::uint64_t float_to_int(ir::Type to, double x, ir::Round round) {
  if (std::isnan(x)) // 0, but the GPU gives 1 << 63 for 64-bit destinations
    return to.bits == 64 ? 0x8000000000000000ull : 0;
  const double r = round_integral(x, round == ir::Round::none ? ir::Round::rzi : round);
  const double lo = to.is_signed ? -std::ldexp(1.0, to.bits - 1) : 0.0;
  const double hi = std::ldexp(1.0, to.is_signed ? to.bits - 1 : to.bits); // exclusive
  i128 v = 0;
  if (r <= lo)
    v = to.is_signed ? -(static_cast<i128>(1) << (to.bits - 1)) : 0;
  else if (r >= hi)
    v = (static_cast<i128>(1) << (to.is_signed ? to.bits - 1 : to.bits)) - 1;
  else
    v = static_cast<i128>(r);
  return static_cast<std::uint64_t>(v) & mask(to.bits);
}

} // namespace

// ------------------------------------------------ integers

std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t c, ir::Permute mode) {
  const std::uint64_t src = (static_cast<std::uint64_t>(b) << 32) | a;
  auto byte = [&](unsigned k) { return static_cast<std::uint32_t>((src >> (8 * (k & 7))) & 0xff); };
  if (mode == ir::Permute::generic) {
    std::uint32_t d = 0;
    for (unsigned k = 0; k < 4; ++k) {
      const unsigned sel = (c >> (4 * k)) & 0xf;
      std::uint32_t v = byte(sel & 7);
      if ((sel & 8) != 0) // replicate the byte's sign bit
        v = (v & 0x80) != 0 ? 0xff : 0x00;
      d |= v << (8 * k);
    }
    return d;
  }
  // The specialised modes, in ir::Permute order after generic (f4e, b4e, rc8, ecl, ecr,
  // rc16): for each c[1:0], the source byte of d.b0 .. d.b3.
  static constexpr std::uint8_t tables[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};
  static_assert(static_cast<std::size_t>(ir::Permute::f4e) == 1 &&
                static_cast<std::size_t>(ir::Permute::rc16) == 6);
  const auto& table = tables[static_cast<std::size_t>(mode) - 1];
  std::uint32_t d = 0;
  for (unsigned k = 0; k < 4; ++k)
    d |= byte(table[c & 3][k]) << (8 * k);
  return d;
}

std::uint64_t bfi(std::uint64_t f, std::uint64_t b, std::uint32_t pos, std::uint32_t len,
                  unsigned bits) {
  pos &= 0xff;
  len &= 0xff;
  std::uint64_t d = b;
  for (std::uint32_t i = 0; i < len && pos + i < bits; ++i) {
    const std::uint64_t bit = 1ull << (pos + i);
    d = ((f >> i) & 1) != 0 ? d | bit : d & ~bit;
  }
  return d & mask(bits);
}

std::uint32_t shf(std::uint32_t a, std::uint32_t b, std::uint32_t n, bool left, bool clamp) {
  n = clamp ? std::min<std::uint32_t>(n, 32) : n & 31;
  const std::uint64_t v = (static_cast<std::uint64_t>(b) << 32) | a;
  return static_cast<std::uint32_t>(left ? (v << n) >> 32 : v >> n);
}

std::uint32_t lop3(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint8_t lut) {
  std::uint32_t d = 0;
  for (unsigned i = 0; i < 32; ++i) {
    const unsigned k = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
    d |= static_cast<std::uint32_t>((lut >> k) & 1) << i;
  }
  return d;
}

std::uint32_t popc(std::uint64_t a, unsigned bits) {
  return static_cast<std::uint32_t>(std::popcount(a & mask(bits)));
}

std::uint32_t clz(std::uint64_t a, unsigned bits) {
  a &= mask(bits);
  return static_cast<std::uint32_t>(std::countl_zero(a)) - (64u - bits);
}

std::uint64_t brev(std::uint64_t a, unsigned bits) {
  std::uint64_t d = 0;
  for (unsigned i = 0; i < bits; ++i)
    d |= ((a >> i) & 1) << (bits - 1 - i);
  return d;
}

std::uint32_t add_sat_s32(std::uint32_t a, std::uint32_t b, bool subtract) {
  const std::int64_t x = static_cast<std::int32_t>(a), y = static_cast<std::int32_t>(b);
  const std::int64_t r = std::clamp<std::int64_t>(subtract ? x - y : x + y, INT32_MIN, INT32_MAX);
  return static_cast<std::uint32_t>(r);
}

namespace {

/// Element `i` of the `bits`-bit elements packed in `x` (the first in the low bits), zero- or
/// sign-extended.
std::int64_t element(std::uint32_t x, unsigned bits, unsigned i, bool is_signed) {
  const std::uint32_t v = (x >> (i * bits)) & ((1u << bits) - 1);
  const std::uint32_t sign = 1u << (bits - 1);
  return is_signed && (v & sign) != 0 ? static_cast<std::int64_t>(v) - (std::int64_t{1} << bits)
                                      : static_cast<std::int64_t>(v);
}

} // namespace

std::uint32_t dot4(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed,
                   bool b_signed) {
  std::int64_t sum = static_cast<std::int64_t>(c);
  for (unsigned i = 0; i < 4; ++i)
    sum += element(a, 8, i, a_signed) * element(b, 8, i, b_signed);
  return static_cast<std::uint32_t>(sum);
}

std::uint32_t dot2(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed, bool b_signed,
                   unsigned first_byte) {
  std::int64_t sum = static_cast<std::int64_t>(c);
  for (unsigned i = 0; i < 2; ++i)
    sum += element(a, 16, i, a_signed) * element(b, 8, first_byte + i, b_signed);
  return static_cast<std::uint32_t>(sum);
}

std::uint32_t integer_pair(PairOp op, bool is_signed, bool relu, std::uint32_t a, std::uint32_t b) {
  std::uint32_t d = 0;
  for (unsigned i = 0; i < 2; ++i) {
    const std::int64_t x = element(a, 16, i, is_signed), y = element(b, 16, i, is_signed);
    std::int64_t r = op == PairOp::add   ? x + y
                     : op == PairOp::min ? std::min(x, y)
                                         : std::max(x, y);
    if (relu && r < 0)
      r = 0;
    d |= (static_cast<std::uint32_t>(r) & 0xffffu) << (16 * i);
  }
  return d;
}

// ------------------------------------------------ floats

unsigned element_bits(ir::Num num) {
  const Format f = format(num);
  return static_cast<unsigned>(1 + f.ebits + f.mbits);
}

double to_double(ir::Num num, std::uint64_t bits) {
  if (num == ir::Num::f64) {
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  const Format f = format(num);
  const std::uint64_t e = (bits >> f.mbits) & f.exp_ones();
  const std::uint64_t frac = bits & mask(static_cast<unsigned>(f.mbits));
  const bool negative = (bits & f.sign_bit()) != 0;
  double v = 0;
  if (e == f.exp_ones())
    v = frac != 0 ? std::numeric_limits<double>::quiet_NaN()
                  : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(frac), 1 - f.bias() - f.mbits);
  else
    v = std::ldexp(static_cast<double>(frac | (1ull << f.mbits)),
                   static_cast<int>(e) - f.bias() - f.mbits);
  return negative ? -v : v;
}

std::uint64_t round_to(ir::Num num, double d, int sticky, ir::Round round, bool ftz) {
  const Format f = format(num);
  if (std::isnan(d)) // f64 keeps the NaN the host computed (the GPU's, see float_element)
    return num == ir::Num::f64 ? round_f64(d, 0, round) : f.canonical_nan();
  const bool negative = std::signbit(d);
  const std::uint64_t sign = negative ? f.sign_bit() : 0;
  if (std::isinf(d))
    return sign | f.infinity();
  if (num == ir::Num::f64)
    return round_f64(d, sticky, round);
  if (d == 0)
    return sign;
  // The exact value's magnitude as M4 * 2^E4: d's 53-bit significand with two
  // more bits, the lowest standing for the tail (it lies strictly between d and
  // the next double, so it falls on the exact value's side of every point
  // of the coarser target grid and of its midpoints).
  int ex = 0;
  const double fr = std::frexp(std::fabs(d), &ex);
  const auto m53 = static_cast<std::uint64_t>(std::ldexp(fr, 53));
  const int tail = negative ? -sticky : sticky;
  const std::uint64_t m4 = (m53 << 2) + static_cast<std::uint64_t>(static_cast<std::int64_t>(tail));
  const int e4 = ex - 53 - 2;
  const int e = e4 + static_cast<int>(std::bit_width(m4)) - 1;
  const int emin = 1 - f.bias();
  if (ftz && e < emin) // .ftz: a result below the smallest normal before rounding is zero
    return sign;
  const int q = std::max(e, emin) - f.mbits; // the exponent of the result's ulp
  enum class Rest : std::uint8_t { exact, below_half, half, above_half };
  std::uint64_t n = 0;
  Rest rest = Rest::exact;
  if (e4 >= q) {
    n = m4 << (e4 - q);
  } else if (q - e4 >= 64) {
    rest = Rest::below_half; // m4 < 2^56
  } else {
    const int k = q - e4;
    n = m4 >> k;
    const std::uint64_t rem = m4 & mask(static_cast<unsigned>(k)), half = 1ull << (k - 1);
    rest = rem == 0      ? Rest::exact
           : rem < half  ? Rest::below_half
           : rem == half ? Rest::half
                         : Rest::above_half;
  }
  bool up = false;
  switch (round) {
  case ir::Round::rz:
    break;
  case ir::Round::rm:
    up = rest != Rest::exact && negative;
    break;
  case ir::Round::rp:
    up = rest != Rest::exact && !negative;
    break;
  default: // rn
    up = rest == Rest::above_half || (rest == Rest::half && (n & 1) != 0);
    break;
  }
  n += up ? 1 : 0;
  // Biased exponent field q + mbits + bias - 1 plus n: n's implicit bit (or a
  // carry out of the fraction) adds the last 1.
  std::uint64_t bits = (static_cast<std::uint64_t>(q + f.mbits + f.bias() - 1) << f.mbits) + n;
  if ((bits >> f.mbits) >= f.exp_ones()) {
    const bool to_inf = round == ir::Round::rn || round == ir::Round::none ||
                        (round == ir::Round::rp && !negative) ||
                        (round == ir::Round::rm && negative);
    bits = to_inf ? f.infinity() : f.infinity() - 1;
  }
  if (ftz && (bits >> f.mbits) == 0)
    bits = 0;
  return sign | bits;
}

std::uint64_t float_op(FloatOp op, ir::Num num, const FloatMode& m, std::uint64_t a,
                       std::uint64_t b, std::uint64_t c) {
  if (num == ir::Num::f16x2 || num == ir::Num::bf16x2) {
    const ir::Num h = element(num);
    const std::uint64_t lo = float_element(op, h, m, a & 0xffff, b & 0xffff, c & 0xffff);
    const std::uint64_t hi =
        float_element(op, h, m, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
    return (hi << 16) | lo;
  }
  return float_element(op, num, m, a, b, c);
}

std::uint64_t divide_approx(bool full, bool ftz, std::uint64_t a, std::uint64_t b) {
  const FloatMode nearest{ir::Round::rn, ftz, false};
  const double y = std::fabs(to_double(ir::Num::f32, b));
  if (!full && y > 0x1p126 && std::isfinite(y)) { // a * (1/b) with 1/b flushed to zero
    const double x = to_double(ir::Num::f32, flush(ir::Num::f32, a, ftz));
    if (!std::isfinite(x))
      return format(ir::Num::f32).canonical_nan();
    return (a ^ b) & format(ir::Num::f32).sign_bit();
  }
  return float_op(FloatOp::div, ir::Num::f32, nearest, a, b, 0);
}

bool float_compare(ir::Cmp cmp, ir::Num num, bool ftz, std::uint64_t a, std::uint64_t b) {
  const double x = to_double(num, flush(num, a, ftz)), y = to_double(num, flush(num, b, ftz));
  const bool un = std::isnan(x) || std::isnan(y);
  switch (cmp) {
  case ir::Cmp::eq:
    return !un && x == y;
  case ir::Cmp::ne:
    return !un && x != y;
  case ir::Cmp::lt:
  case ir::Cmp::lo:
    return !un && x < y;
  case ir::Cmp::le:
  case ir::Cmp::ls:
    return !un && x <= y;
  case ir::Cmp::gt:
  case ir::Cmp::hi:
    return !un && x > y;
  case ir::Cmp::ge:
  case ir::Cmp::hs:
    return !un && x >= y;
  case ir::Cmp::equ:
    return un || x == y;
  case ir::Cmp::neu:
    return un || x != y;
  case ir::Cmp::ltu:
    return un || x < y;
  case ir::Cmp::leu:
    return un || x <= y;
  case ir::Cmp::gtu:
    return un || x > y;
  case ir::Cmp::geu:
    return un || x >= y;
  case ir::Cmp::num:
    return !un;
  case ir::Cmp::nan:
    return un;
  }
  unreachable("float_compare(): not an ir::Cmp value");
}

std::uint64_t convert(ir::Type to, ir::Type from, const ir::Op& op, std::uint64_t a) {
  const bool to_float = to.num != ir::Num::integer, from_float = from.num != ir::Num::integer;
  if (!to_float && !from_float) {
    i128 v = integer_value(from, a);
    if (op.sat)
      v = clamp_to(to, v);
    return static_cast<std::uint64_t>(v) & mask(to.bits);
  }
  if (!from_float) {
    // Integer -> float: the nearest double and the sign of what it misses.
    const i128 v = integer_value(from, a);
    const double d = static_cast<double>(v);
    const i128 miss = v - static_cast<i128>(d);
    const ir::Round r = op.round == ir::Round::none ? ir::Round::rn : op.round;
    const std::uint64_t bits = round_to(to.num, d, miss > 0 ? 1 : miss < 0 ? -1 : 0, r, false);
    return op.sat ? saturate(to.num, bits) : bits;
  }
  const double x = to_double(from.num, flush(from.num, a, op.ftz && from.num == ir::Num::f32));
  if (!to_float)
    return float_to_int(to, x, op.round);
  if (std::isnan(x) && op.sat)
    return 0;
  if (std::isnan(x)) {
    if (from.num == ir::Num::bf16 && to.num == ir::Num::f32)
      return (a & 0xffff) << 16; // bf16 is the upper half of an f32: the bits as they are
    const std::uint64_t sign = (a >> (element_bits(from.num) - 1)) & 1;
    if (from.num == ir::Num::f32 && to.num == ir::Num::f64) // sign and payload kept, quieted
      return (sign << 63) | 0x7ff8000000000000ull | ((a & 0x7fffff) << 29);
    if (from.num == ir::Num::f64 && to.num == ir::Num::f32) // the payload's top bits, quieted
      return (sign << 31) | 0x7fc00000u | ((a >> 29) & 0x7fffff);
  }
  std::uint64_t bits = 0;
  const bool ftz_out = op.ftz && to.num == ir::Num::f32;
  if (is_integer_round(op.round))
    bits = round_to(to.num, round_integral(x, op.round), 0, ir::Round::rn, ftz_out);
  else
    bits = round_to(to.num, x, 0, op.round == ir::Round::none ? ir::Round::rn : op.round, ftz_out);
  return op.sat ? saturate(to.num, bits) : bits;
}

} // namespace ptxgen::sim::alu
