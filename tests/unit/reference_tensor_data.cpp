// Initial tensor contents (driver/run/tensor_data): every expected byte below
// is worked out by hand from IEEE 754 / two's complement / the published
// splitmix64 test vector, not taken from the code's output.
#include "driver/run/tensor_data.hpp"

#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_tensor_data {

namespace {

using ptxgen::driver::encode_integer;
using ptxgen::driver::half_bits_from_integer;
using ptxgen::driver::initial_bytes;
using ptxgen::tile::DType;
using ptxgen::tile::TensorDecl;
using ptxgen::tile::TensorInit;
using Bytes = std::vector<std::uint8_t>;

TensorDecl decl(std::vector<std::int64_t> shape, DType dt, TensorInit init) {
  TensorDecl d;
  // Aggregate initialisation: `name = "T"` trips GCC 12's -Wrestrict false positive at -O2.
  d.tensor = ptxgen::tile::Tensor{"T", ptxgen::tile::Space::global, std::move(shape), dt, 16};
  d.init = init;
  return d;
}

std::uint16_t u16_at(const Bytes& b, std::size_t element) {
  return static_cast<std::uint16_t>(b[2 * element] | (b[2 * element + 1] << 8));
}

} // namespace

TEST_CASE("half_bits_from_integer: exact small integers") {
  CHECK(half_bits_from_integer(0) == 0x0000);
  CHECK(half_bits_from_integer(1) == 0x3C00);  // 2^0: exponent 15
  CHECK(half_bits_from_integer(2) == 0x4000);  // 2^1
  CHECK(half_bits_from_integer(3) == 0x4200);  // 1.5 * 2^1
  CHECK(half_bits_from_integer(96) == 0x5600); // 1.5 * 2^6: exponent 21, mantissa 0x200
  CHECK(half_bits_from_integer(-1) == 0xBC00);
  CHECK(half_bits_from_integer(1024) == 0x6400);
  CHECK(half_bits_from_integer(2047) == 0x67FF); // 1.1111111111b * 2^10
  CHECK(half_bits_from_integer(2048) == 0x6800);
}

TEST_CASE("half_bits_from_integer: rounding to nearest even and overflow") {
  CHECK(half_bits_from_integer(2049) == 0x6800);  // tie between 2048 and 2050: even is 2048
  CHECK(half_bits_from_integer(2051) == 0x6802);  // tie between 2050 and 2052: even is 2052
  CHECK(half_bits_from_integer(4097) == 0x6C00);  // below the tie: 4096
  CHECK(half_bits_from_integer(4099) == 0x6C01);  // above the tie 4098: 4100
  CHECK(half_bits_from_integer(65504) == 0x7BFF); // the largest finite half
  CHECK(half_bits_from_integer(65519) == 0x7BFF); // just below the tie with 65536
  CHECK(half_bits_from_integer(65520) == 0x7C00); // the tie rounds to even: infinity
  CHECK(half_bits_from_integer(1 << 20) == 0x7C00);
  CHECK(half_bits_from_integer(-70000) == 0xFC00);
}

TEST_CASE("encode_integer: each element type") {
  CHECK(encode_integer(DType::uint8, 300) == Bytes{44}); // 300 - 256
  CHECK(encode_integer(DType::int8, -1) == Bytes{0xFF});
  CHECK(encode_integer(DType::int16, -2) == Bytes{0xFE, 0xFF});
  CHECK(encode_integer(DType::uint16, 0x1234) == Bytes{0x34, 0x12});
  CHECK(encode_integer(DType::b32, 5) == Bytes{5, 0, 0, 0});
  CHECK(encode_integer(DType::int64, -1) == Bytes(8, 0xFF));
  CHECK(encode_integer(DType::float16, 96) == Bytes{0x00, 0x56});
  CHECK(encode_integer(DType::bfloat16, 1) == Bytes{0x80, 0x3F});   // float32 0x3F800000
  CHECK(encode_integer(DType::bfloat16, 3) == Bytes{0x40, 0x40});   // float32 0x40400000
  CHECK(encode_integer(DType::bfloat16, 257) == Bytes{0x80, 0x43}); // 0x43808000, truncated
  CHECK(encode_integer(DType::float32, 1) == Bytes{0x00, 0x00, 0x80, 0x3F});
  CHECK(encode_integer(DType::float32, -2) == Bytes{0x00, 0x00, 0x00, 0xC0});
  CHECK(encode_integer(DType::float64, 1) == Bytes{0, 0, 0, 0, 0, 0, 0xF0, 0x3F});
}

TEST_CASE("initial_bytes: the seed's arange % 97 in float16") {
  TensorInit init;
  init.kind = TensorInit::Kind::arange_mod;
  init.modulus = 97;
  const Bytes b = initial_bytes(decl({128, 32}, DType::float16, init));
  REQUIRE(b.size() == 128 * 32 * 2);
  CHECK(u16_at(b, 0) == 0x0000);
  CHECK(u16_at(b, 1) == 0x3C00);
  CHECK(u16_at(b, 96) == 0x5600);
  CHECK(u16_at(b, 97) == 0x0000); // 97 % 97
  CHECK(u16_at(b, 99) == 0x4000); // 2
  // 4095 = 42 * 97 + 21; 21 = 1.0101b * 2^4: exponent 19 (0x4C00), mantissa 0x140.
  CHECK(u16_at(b, 4095) == 0x4D40);
}

TEST_CASE("initial_bytes: arange in integers, zero, constant") {
  TensorInit init;
  init.kind = TensorInit::Kind::arange_mod;
  init.modulus = 5;
  CHECK(initial_bytes(decl({2, 4}, DType::uint8, init)) == Bytes{0, 1, 2, 3, 4, 0, 1, 2});
  CHECK(initial_bytes(decl({3}, DType::int16, init)) == Bytes{0, 0, 1, 0, 2, 0});
  init.modulus = 0; // no modulus: plain arange
  CHECK(initial_bytes(decl({3}, DType::uint32, init)) == Bytes{0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0});

  TensorInit zero;
  CHECK(initial_bytes(decl({2, 3}, DType::float32, zero)) == Bytes(24, 0));

  TensorInit constant;
  constant.kind = TensorInit::Kind::constant;
  constant.value = -2;
  CHECK(initial_bytes(decl({2}, DType::int32, constant)) ==
        Bytes{0xFE, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF});
  constant.value = 1;
  CHECK(initial_bytes(decl({2}, DType::float16, constant)) == Bytes{0x00, 0x3C, 0x00, 0x3C});
}

TEST_CASE("initial_bytes: random is splitmix64, little-endian, seeded") {
  // splitmix64's published outputs for seed 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4.
  TensorInit init;
  init.kind = TensorInit::Kind::random;
  init.seed = 0;
  const Bytes b = initial_bytes(decl({3}, DType::float32, init)); // 12 bytes
  CHECK(b == Bytes{0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2, 0xF4, 0x65, 0xB9, 0xA1});
  init.seed = 1;
  CHECK(initial_bytes(decl({3}, DType::float32, init)) != b);
  CHECK(initial_bytes(decl({3}, DType::float32, init)) ==
        initial_bytes(decl({12}, DType::uint8, init))); // bytes, not elements
}

} // namespace unit_reference_tensor_data
