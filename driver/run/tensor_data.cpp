#include "driver/run/tensor_data.hpp"

#include "driver/reference/naive_view.hpp"

#include <bit>

namespace ptxgen::driver {
namespace {

// Element sizes come from the reference's own table, so the test data does not
// depend on the emitter's.
unsigned element_bytes(tile::DType d) {
  return naive_dtype_bytes(d);
}

void put_le(std::vector<std::uint8_t>& out, std::uint64_t bits, unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  }
}

} // namespace

std::uint64_t splitmix64_next(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint16_t half_bits_from_integer(std::int64_t v) {
  if (v == 0) {
    return 0;
  }
  const std::uint16_t sign = v < 0 ? std::uint16_t{0x8000} : std::uint16_t{0};
  // The magnitude as unsigned, also for INT64_MIN.
  const std::uint64_t m = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  int e = 63 - std::countl_zero(m); // m is in [2^e, 2^(e+1))
  if (e > 15) {
    return static_cast<std::uint16_t>(sign | 0x7C00);
  }
  // 11 significant bits: the leading one and 10 mantissa bits.
  std::uint64_t sig = 0;
  if (e <= 10) {
    sig = m << (10 - e);
  } else {
    const int drop = e - 10;
    sig = m >> drop;
    const std::uint64_t rest = m & ((std::uint64_t{1} << drop) - 1);
    const std::uint64_t halfway = std::uint64_t{1} << (drop - 1);
    if (rest > halfway || (rest == halfway && (sig & 1) != 0)) {
      ++sig;
      if (sig == (std::uint64_t{1} << 11)) { // the rounding carried into a new binade
        sig >>= 1;
        ++e;
      }
    }
  }
  if (e > 15) {
    return static_cast<std::uint16_t>(sign | 0x7C00);
  }
  const auto exponent = static_cast<std::uint16_t>((e + 15) << 10);
  return static_cast<std::uint16_t>(sign | exponent | (sig & 0x3FF));
}

std::vector<std::uint8_t> encode_integer(tile::DType dtype, std::int64_t v) {
  std::vector<std::uint8_t> out;
  const unsigned n = element_bytes(dtype);
  out.reserve(n);
  switch (dtype) {
  case tile::DType::float16:
    put_le(out, half_bits_from_integer(v), 2);
    break;
  case tile::DType::bfloat16:
    put_le(out, std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16, 2);
    break;
  case tile::DType::float32:
    put_le(out, std::bit_cast<std::uint32_t>(static_cast<float>(v)), 4);
    break;
  case tile::DType::float64:
    put_le(out, std::bit_cast<std::uint64_t>(static_cast<double>(v)), 8);
    break;
  case tile::DType::uint8: // integers and untyped: two's complement, truncated to the width
  case tile::DType::int8:
  case tile::DType::uint16:
  case tile::DType::int16:
  case tile::DType::uint32:
  case tile::DType::int32:
  case tile::DType::uint64:
  case tile::DType::int64:
  case tile::DType::b8:
  case tile::DType::b16:
  case tile::DType::b32:
  case tile::DType::b64:
    put_le(out, static_cast<std::uint64_t>(v), n);
    break;
  }
  return out;
}

std::vector<std::uint8_t> initial_bytes(const tile::TensorDecl& t) {
  std::int64_t count = 1;
  for (std::int64_t s : t.tensor.shape) {
    count *= s < 0 ? 0 : s;
  }
  const unsigned eb = element_bytes(t.tensor.dtype);
  const auto total = static_cast<std::size_t>(count) * eb;
  std::vector<std::uint8_t> out;
  out.reserve(total);
  switch (t.init.kind) {
  case tile::TensorInit::Kind::zero:
    out.assign(total, 0);
    break;
  case tile::TensorInit::Kind::arange_mod:
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t v = t.init.modulus > 0 ? i % t.init.modulus : i;
      const auto e = encode_integer(t.tensor.dtype, v);
      out.insert(out.end(), e.begin(), e.end());
    }
    break;
  case tile::TensorInit::Kind::random: {
    std::uint64_t state = t.init.seed;
    while (out.size() < total) {
      const std::uint64_t z = splitmix64_next(state);
      for (unsigned b = 0; b < 8 && out.size() < total; ++b) {
        out.push_back(static_cast<std::uint8_t>(z >> (8 * b)));
      }
    }
    break;
  }
  case tile::TensorInit::Kind::constant: {
    const auto e = encode_integer(t.tensor.dtype, t.init.value);
    for (std::int64_t i = 0; i < count; ++i) {
      out.insert(out.end(), e.begin(), e.end());
    }
    break;
  }
  }
  return out;
}

} // namespace ptxgen::driver
