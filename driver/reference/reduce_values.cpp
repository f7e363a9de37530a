#include "driver/reference/reduce_values.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace ptxgen::driver::evaluation {

namespace {

/// A binary float format narrower than double: mantissa bits, exponent bias.
struct Format {
  int mant;
  int bias;
  int exp_bits;
};
constexpr Format f16{10, 15, 5};
constexpr Format bf16{7, 127, 8};

double decode(std::uint64_t bits, const Format& f) {
  const int total = 1 + f.exp_bits + f.mant;
  const bool neg = ((bits >> (total - 1)) & 1u) != 0;
  const auto e = static_cast<int>((bits >> f.mant) & ((1u << f.exp_bits) - 1));
  const std::uint64_t m = bits & ((std::uint64_t{1} << f.mant) - 1);
  double v = 0;
  if (e == (1 << f.exp_bits) - 1)
    v = m != 0 ? std::nan("") : INFINITY;
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mant);
  else
    v = std::ldexp(static_cast<double>(m | (std::uint64_t{1} << f.mant)), e - f.bias - f.mant);
  return neg ? -v : v;
}

/// x rounded to nearest even in format f (subnormals kept), as its bits.
std::uint64_t encode(double x, const Format& f) {
  const int total = 1 + f.exp_bits + f.mant;
  const std::uint64_t sign = std::signbit(x) ? std::uint64_t{1} << (total - 1) : 0;
  const std::uint64_t inf = static_cast<std::uint64_t>((1 << f.exp_bits) - 1) << f.mant;
  if (std::isnan(x))
    return inf | ((std::uint64_t{1} << f.mant) - 1); // the canonical NaN
  const double a = std::fabs(x);
  if (std::isinf(a))
    return sign | inf;
  if (a == 0)
    return sign;
  const int emin = 1 - f.bias; // the least normal exponent
  int e = 0;
  std::frexp(a, &e);
  const int exp = std::max(e - 1, emin);
  // Every double divides exactly by a power of two here; nearbyint rounds ties to even.
  const double q = std::nearbyint(std::ldexp(a, f.mant - exp));
  const double r = std::ldexp(q, exp - f.mant);
  if (r < std::ldexp(1.0, emin))
    return sign | static_cast<std::uint64_t>(q); // subnormal (or the least normal, carried)
  std::frexp(r, &e);
  const int re = e - 1;
  if (re + f.bias >= (1 << f.exp_bits) - 1)
    return sign | inf;
  const auto m =
      static_cast<std::uint64_t>(std::ldexp(r, f.mant - re)) & ((std::uint64_t{1} << f.mant) - 1);
  return sign | (static_cast<std::uint64_t>(re + f.bias) << f.mant) | m;
}

float flush(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

/// min / max of two floats: a NaN gives the other, -0 is below +0.
double pick(double a, double b, bool want_min) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return (std::signbit(a) == want_min) ? a : b;
  return (a < b) == want_min ? a : b;
}

std::uint64_t load(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, n); // little-endian host, as the buffers
  return v;
}

void store(std::uint8_t* p, std::uint64_t v, unsigned n) {
  std::memcpy(p, &v, n);
}

std::uint64_t integer(tile::ReduceKind k, bool is_signed, unsigned bits, std::uint64_t a,
                      std::uint64_t b) {
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const auto sx = [&](std::uint64_t v) {
    return bits == 64 ? static_cast<std::int64_t>(v)
                      : static_cast<std::int64_t>(v << (64 - bits)) >> (64 - bits);
  };
  const bool less = is_signed ? sx(a) < sx(b) : a < b;
  switch (k) {
  case tile::ReduceKind::add:
    return (a + b) & mask;
  case tile::ReduceKind::min:
    return less ? a : b;
  case tile::ReduceKind::max:
    return less ? b : a;
  case tile::ReduceKind::inc:
    return a >= b ? 0 : (a + 1) & mask;
  case tile::ReduceKind::dec:
    return a == 0 || a > b ? b : a - 1;
  case tile::ReduceKind::and_:
    return a & b;
  case tile::ReduceKind::or_:
    return a | b;
  case tile::ReduceKind::xor_:
    return a ^ b;
  }
  return a;
}

} // namespace

void reduce_element(tile::ReduceKind k, tile::DType t, std::uint8_t* dst, const std::uint8_t* src) {
  const unsigned n = tile::size_bytes(t);
  switch (t) {
  case tile::DType::float32: {
    const float a = std::bit_cast<float>(static_cast<std::uint32_t>(load(dst, 4)));
    const float b = std::bit_cast<float>(static_cast<std::uint32_t>(load(src, 4)));
    // add only (the contract refuses min / max / bitwise of f32): rn, flushed.
    const float r = flush(static_cast<float>(static_cast<double>(flush(a)) + flush(b)));
    store(dst, std::bit_cast<std::uint32_t>(r), 4);
    return;
  }
  case tile::DType::float64: {
    const double a = std::bit_cast<double>(load(dst, 8));
    const double b = std::bit_cast<double>(load(src, 8));
    store(dst, std::bit_cast<std::uint64_t>(a + b), 8);
    return;
  }
  case tile::DType::float16:
  case tile::DType::bfloat16: {
    const Format& f = t == tile::DType::float16 ? f16 : bf16;
    const double a = decode(load(dst, 2), f);
    const double b = decode(load(src, 2), f);
    // The exact sum of two halves or bfloat16s is a double (and rounding a double sum of
    // two narrower floats once more is exact rounding: 53 >= 2 * 11 + 2).
    const double r = k == tile::ReduceKind::add ? a + b : pick(a, b, k == tile::ReduceKind::min);
    store(dst, encode(r, f), 2);
    return;
  }
  default: {
    const bool is_signed = t == tile::DType::int32 || t == tile::DType::int64;
    store(dst, integer(k, is_signed, 8 * n, load(dst, n), load(src, n)), n);
    return;
  }
  }
}

} // namespace ptxgen::driver::evaluation
