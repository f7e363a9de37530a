// Bulk reductions in the reference: what reduce_element makes of one element (values worked
// out by hand from the ISA's definitions: wrapping, signedness, inc / dec, round to nearest
// even, f32's flush, the 16-bit forms' kept subnormals), the races between CTAs (two
// reductions of one byte none, a reduction and a read or plain write one), and which dtype
// and reduction pairs are PTX forms (the ptxas 13.0 table of docs/ptx-bulk.md).
#include "driver/reference/grid_races.hpp"
#include "driver/reference/reduce_values.hpp"
#include "emitter/tile/reduce.hpp"

#include <cstdint>
#include <cstring>

#include <doctest/doctest.h>

namespace unit_reference_reduce {

namespace {

namespace tile = ptxgen::tile;
using ptxgen::driver::evaluation::reduce_element;
using tile::DType;
using tile::ReduceKind;

template <class T>
T reduce(ReduceKind k, DType t, T old, T v) {
  std::uint8_t d[sizeof(T)];
  std::uint8_t s[sizeof(T)];
  std::memcpy(d, &old, sizeof(T));
  std::memcpy(s, &v, sizeof(T));
  reduce_element(k, t, d, s);
  T out;
  std::memcpy(&out, d, sizeof(T));
  return out;
}

std::uint32_t f32_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

} // namespace

TEST_CASE("integer reductions: wrap, signedness, inc and dec as the ISA defines them") {
  CHECK(reduce<std::uint32_t>(ReduceKind::add, DType::uint32, 0xFFFFFFFFu, 2) == 1u);
  CHECK(reduce<std::uint64_t>(ReduceKind::add, DType::uint64, ~0ull, 1) == 0ull);
  // -3 is below 5 as s32, above it as u32
  CHECK(reduce<std::int32_t>(ReduceKind::min, DType::int32, -3, 5) == -3);
  CHECK(reduce<std::uint32_t>(ReduceKind::min, DType::uint32, 0xFFFFFFFDu, 5) == 5u);
  CHECK(reduce<std::int32_t>(ReduceKind::max, DType::int32, -3, 5) == 5);
  CHECK(reduce<std::int64_t>(ReduceKind::max, DType::int64, -1, -7) == -1);
  // inc: old >= b ? 0 : old + 1
  CHECK(reduce<std::uint32_t>(ReduceKind::inc, DType::uint32, 4, 5) == 5u);
  CHECK(reduce<std::uint32_t>(ReduceKind::inc, DType::uint32, 5, 5) == 0u);
  // dec: old == 0 || old > b ? b : old - 1
  CHECK(reduce<std::uint32_t>(ReduceKind::dec, DType::uint32, 0, 7) == 7u);
  CHECK(reduce<std::uint32_t>(ReduceKind::dec, DType::uint32, 9, 7) == 7u);
  CHECK(reduce<std::uint32_t>(ReduceKind::dec, DType::uint32, 3, 7) == 2u);
  CHECK(reduce<std::uint32_t>(ReduceKind::and_, DType::uint32, 0xF0F0u, 0xFF00u) == 0xF000u);
  CHECK(reduce<std::uint64_t>(ReduceKind::or_, DType::b64, 1ull << 40, 1) == (1ull << 40) + 1);
  CHECK(reduce<std::int32_t>(ReduceKind::xor_, DType::int32, -1, 0x0F) == ~0x0F);
}

TEST_CASE("add.f32 rounds to nearest even and flushes subnormals") {
  // 1 + 2^-24 lies halfway between 1 and 1 + 2^-23: the even one is 1
  CHECK(reduce<std::uint32_t>(ReduceKind::add, DType::float32, f32_bits(1.0f),
                              f32_bits(0x1p-24f)) == f32_bits(1.0f));
  // (1 + 2^-23) + 2^-24 lies halfway between 1 + 2^-23 (odd) and 1 + 2^-22 (even)
  CHECK(reduce<std::uint32_t>(ReduceKind::add, DType::float32, f32_bits(1.0f + 0x1p-23f),
                              f32_bits(0x1p-24f)) == f32_bits(1.0f + 0x1p-22f));
  // a subnormal input counts as zero; a subnormal result becomes a signed zero
  CHECK(reduce<std::uint32_t>(ReduceKind::add, DType::float32, 0x00000001u, 0x00000001u) == 0u);
  CHECK(reduce<std::uint32_t>(ReduceKind::add, DType::float32, f32_bits(1.0f), 0x00000001u) ==
        f32_bits(1.0f));
  CHECK(f32_of(reduce<std::uint32_t>(ReduceKind::add, DType::float32, f32_bits(0.5f),
                                     f32_bits(0.25f))) == 0.75f);
  // 0x1p-126 (least normal) - 0x1.8p-127 = 0x1p-128: subnormal, flushed to zero
  CHECK(reduce<std::uint32_t>(ReduceKind::add, DType::float32, f32_bits(0x1p-126f),
                              f32_bits(-0x1.8p-127f) /* subnormal input: flushed first */) ==
        f32_bits(0x1p-126f));
}

TEST_CASE("the .noftz 16-bit adds round to nearest even and keep subnormals") {
  // f16: 2048 = 0x6800, 2050 = 0x6801, 2052 = 0x6802, 1 = 0x3C00
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::float16, 0x6800, 0x3C00) == 0x6800);
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::float16, 0x6801, 0x3C00) == 0x6802);
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::float16, 0x0001, 0x0001) == 0x0002);
  // 65504 (0x7BFF, odd) + 8 (0x4800) rounds back to it; + 16 (0x4C00) is halfway to 65536,
  // the even neighbour, which overflows to infinity
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::float16, 0x7BFF, 0x4800) == 0x7BFF);
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::float16, 0x7BFF, 0x4C00) == 0x7C00);
  // bf16: 1 = 0x3F80, 2^-8 = 0x3B80, 1 + 2^-7 = 0x3F81
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::bfloat16, 0x3F80, 0x3B80) == 0x3F80);
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::bfloat16, 0x3F81, 0x3B80) == 0x3F82);
  CHECK(reduce<std::uint16_t>(ReduceKind::add, DType::bfloat16, 0x0001, 0x0002) == 0x0003);
}

TEST_CASE("16-bit min and max: a NaN gives the other operand, -0 is below +0") {
  CHECK(reduce<std::uint16_t>(ReduceKind::max, DType::float16, 0x7E00, 0x3C00) == 0x3C00);
  CHECK(reduce<std::uint16_t>(ReduceKind::min, DType::float16, 0x3C00, 0x7E00) == 0x3C00);
  CHECK(reduce<std::uint16_t>(ReduceKind::min, DType::float16, 0x0000, 0x8000) == 0x8000);
  CHECK(reduce<std::uint16_t>(ReduceKind::max, DType::float16, 0x8000, 0x0000) == 0x0000);
  // -2 (0xC000) below 1 (0x3C00): by value, not by bits
  CHECK(reduce<std::uint16_t>(ReduceKind::min, DType::float16, 0x3C00, 0xC000) == 0xC000);
  CHECK(reduce<std::uint16_t>(ReduceKind::max, DType::bfloat16, 0xC000, 0x3F80) == 0x3F80);
}

TEST_CASE("races between CTAs: reductions of one byte do not race, with a read or write they do") {
  using ptxgen::driver::ref::GridRaces;
  const auto two_ctas = [](bool write0, bool reduce0, bool write1, bool reduce1) {
    GridRaces g;
    g.begin_cta(0);
    g.access(0, write0, 0, 16, 7, 0, reduce0);
    g.end_cta();
    g.begin_cta(1);
    g.access(0, write1, 8, 16, 7, 0, reduce1);
    g.end_cta();
    return g.first_race();
  };
  CHECK_FALSE(two_ctas(true, true, true, true));
  CHECK(two_ctas(true, true, true, false));
  CHECK(two_ctas(true, false, true, true));
  CHECK(two_ctas(true, true, false, false));
  CHECK(two_ctas(false, false, true, true));
  const auto r = two_ctas(true, true, true, false);
  REQUIRE(r);
  CHECK(r->byte == 8);
  CHECK(r->bytes == 8);
}

TEST_CASE("which dtypes each reduction takes: ptxas 13.0's forms") {
  using ptxgen::ptx::BulkRedType;
  CHECK(tile::reduce_ptx_type(ReduceKind::add, DType::float32) == BulkRedType::f32);
  CHECK(tile::reduce_ptx_type(ReduceKind::add, DType::float16) == BulkRedType::f16);
  CHECK(tile::reduce_form_text(ReduceKind::add, BulkRedType::bf16) == "add.noftz.bf16");
  CHECK(tile::reduce_form_text(ReduceKind::max, BulkRedType::bf16) == "max.bf16");
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::add, DType::int64));
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::min, DType::float32));
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::max, DType::float64));
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::inc, DType::int32));
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::add, DType::b32));
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::and_, DType::float32));
  CHECK_FALSE(tile::reduce_ptx_type(ReduceKind::add, DType::uint16));
  CHECK(tile::reduce_ptx_type(ReduceKind::and_, DType::int32) == BulkRedType::b32);
  CHECK(tile::reduce_ptx_type(ReduceKind::xor_, DType::uint64) == BulkRedType::b64);
  CHECK(tile::reduce_ptx_type(ReduceKind::min, DType::int64) == BulkRedType::s64);
  CHECK(tile::reduce_ptx_type(ReduceKind::dec, DType::uint32) == BulkRedType::u32);
}

} // namespace unit_reference_reduce
