// The simulator's arithmetic (driver/sim/alu): every expected value below is
// worked out by hand from the PTX ISA's definition of the instruction and
// IEEE 754 (noted next to each), never taken from the code under test.
// The GPU check of the same functions is tools/sim_arith_device/.

#include "driver/sim/alu.hpp"
#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_arith {

using namespace ptxgen::sim;
using alu::FloatMode;
using alu::FloatOp;
using ir::Num;
using ir::Round;
using ptxgen::test::run_words;

namespace {

constexpr std::uint32_t f32_one = 0x3F800000;  // 1.0f
constexpr std::uint32_t f32_nan = 0x7FFFFFFF;  // PTX's canonical f32 NaN
constexpr std::uint32_t f32_inf = 0x7F800000;  // +inf
constexpr std::uint32_t f32_max = 0x7F7FFFFF;  // FLT_MAX
constexpr std::uint32_t f32_ulp1 = 0x33800000; // 2^-24: half an ulp of 1.0f

std::uint64_t f32(FloatOp op, Round r, std::uint64_t a, std::uint64_t b, std::uint64_t c = 0,
                  bool ftz = false, bool sat = false) {
  return alu::float_op(op, Num::f32, FloatMode{r, ftz, sat}, a, b, c);
}

ir::Op cvt_op(Round r, bool ftz = false, bool sat = false) {
  ir::Op op;
  op.round = r;
  op.ftz = ftz;
  op.sat = sat;
  return op;
}

constexpr ir::Type t_f32{32, false, Num::f32};
constexpr ir::Type t_f16{16, false, Num::f16};
constexpr ir::Type t_bf16{16, false, Num::bf16};
constexpr ir::Type t_s32{32, true, Num::integer};
constexpr ir::Type t_u32{32, false, Num::integer};
constexpr ir::Type t_u8{8, false, Num::integer};
constexpr ir::Type t_u64{64, false, Num::integer};

} // namespace

TEST_CASE("prmt: the generic permute and every mode, bytes numbered 0..7 over {b, a}") {
  const std::uint32_t a = 0x03020100, b = 0x07060504; // byte k holds k
  CHECK(alu::prmt(a, b, 0x3210, ir::Permute::generic) == 0x03020100);
  CHECK(alu::prmt(a, b, 0x7654, ir::Permute::generic) == 0x07060504);
  CHECK(alu::prmt(a, b, 0x0123, ir::Permute::generic) == 0x00010203);
  // selector bit 3: the selected byte's sign bit replicated
  CHECK(alu::prmt(0x80, 0, 0x8888, ir::Permute::generic) == 0xFFFFFFFF);
  CHECK(alu::prmt(0x80, 0, 0x0008, ir::Permute::generic) == 0x808080FF);
  CHECK(alu::prmt(0x7F, 0, 0x0008, ir::Permute::generic) == 0x7F7F7F00);
  // the modes use c[1:0] only; the manual lists d.b3 d.b2 d.b1 d.b0
  CHECK(alu::prmt(a, b, 1, ir::Permute::f4e) == 0x04030201);   // 4 3 2 1
  CHECK(alu::prmt(a, b, 0x7, ir::Permute::f4e) == 0x06050403); // 6 5 4 3
  CHECK(alu::prmt(a, b, 0, ir::Permute::b4e) == 0x05060700);   // 5 6 7 0
  CHECK(alu::prmt(a, b, 2, ir::Permute::b4e) == 0x07000102);   // 7 0 1 2
  CHECK(alu::prmt(a, b, 2, ir::Permute::rc8) == 0x02020202);   // 2 2 2 2
  CHECK(alu::prmt(a, b, 1, ir::Permute::ecl) == 0x03020101);   // 3 2 1 1
  CHECK(alu::prmt(a, b, 2, ir::Permute::ecr) == 0x02020100);   // 2 2 1 0
  CHECK(alu::prmt(a, b, 1, ir::Permute::rc16) == 0x03020302);  // 3 2 3 2
  CHECK(alu::prmt(a, b, 2, ir::Permute::rc16) == 0x01000100);  // 1 0 1 0
}

TEST_CASE("bfi, shf, lop3, popc, clz, brev") {
  // bfi: bits [pos, pos+len) of b from f's low bits; cut at the msb; pos/len low 8 bits
  CHECK(alu::bfi(0xFF, 0x12345678, 8, 4, 32) == 0x12345F78);
  CHECK(alu::bfi(0xFF, 0x12345678, 30, 8, 32) == 0xD2345678);
  CHECK(alu::bfi(0xFF, 0x12345678, 8, 0, 32) == 0x12345678);
  CHECK(alu::bfi(0x00, 0x12345678, 0x108, 4, 32) == 0x12345078);
  CHECK(alu::bfi(0x1, 0, 63, 1, 64) == 0x8000000000000000ull);
  // shf: {b, a} shifted; wrap takes n mod 32, clamp min(n, 32)
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 8, true, false) == 0x23456789);
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 40, true, false) == 0x23456789);
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 40, true, true) == 0x89ABCDEF);
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 8, false, false) == 0x6789ABCD);
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 40, false, true) == 0x01234567);
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 0, true, true) == 0x01234567);
  CHECK(alu::shf(0x89ABCDEF, 0x01234567, 0, false, true) == 0x89ABCDEF);
  // lop3: lut's bit (a<<2 | b<<1 | c); 0x96 = a^b^c, 0x80 = a&b&c, 0xF0 = a
  CHECK(alu::lop3(0x0000FFFF, 0x00FF00FF, 0x0F0F0F0F, 0x96) == 0x0FF0F00F);
  CHECK(alu::lop3(0x0000FFFF, 0x00FF00FF, 0x0F0F0F0F, 0x80) == 0x0000000F);
  CHECK(alu::lop3(0x0000FFFF, 0x00FF00FF, 0x0F0F0F0F, 0xF0) == 0x0000FFFF);
  CHECK(alu::lop3(0x0000FFFF, 0x00FF00FF, 0x0F0F0F0F, 0x01) == 0xF0000000);
  CHECK(alu::popc(0xF0F0000F, 32) == 12);
  CHECK(alu::popc(~0ull, 64) == 64);
  CHECK(alu::popc(~0ull, 32) == 32);
  CHECK(alu::clz(0x00010000, 32) == 15);
  CHECK(alu::clz(0, 32) == 32);
  CHECK(alu::clz(1, 64) == 63);
  CHECK(alu::brev(1, 32) == 0x80000000);
  CHECK(alu::brev(0x12345678, 32) == 0x1E6A2C48);
  CHECK(alu::add_sat_s32(0x7FFFFFFF, 1, false) == 0x7FFFFFFF);
  CHECK(alu::add_sat_s32(0x80000000, 1, true) == 0x80000000);
  CHECK(alu::add_sat_s32(5, 7, true) == 0xFFFFFFFE);
}

TEST_CASE("f32 add in each rounding mode: ties, directed rounding, signed zeros, overflow") {
  // 1 + 2^-24 is the midpoint of 1 and 1 + 2^-23: ties to even keep 1
  CHECK(f32(FloatOp::add, Round::rn, f32_one, f32_ulp1) == f32_one);
  CHECK(f32(FloatOp::add, Round::rz, f32_one, f32_ulp1) == f32_one);
  CHECK(f32(FloatOp::add, Round::rm, f32_one, f32_ulp1) == f32_one);
  CHECK(f32(FloatOp::add, Round::rp, f32_one, f32_ulp1) == 0x3F800001);
  // 1 + 0.75 ulp: nearest is up, toward zero is down
  CHECK(f32(FloatOp::add, Round::rn, f32_one, 0x33C00000) == 0x3F800001);
  CHECK(f32(FloatOp::add, Round::rz, f32_one, 0x33C00000) == f32_one);
  // (1 + 2^-23) + 2^-24 is a tie with an odd neighbour below: up to 1 + 2^-22
  CHECK(f32(FloatOp::add, Round::rn, 0x3F800001, f32_ulp1) == 0x3F800002);
  // negative: -1 - 2^-24 rounds toward -inf away from zero
  CHECK(f32(FloatOp::add, Round::rm, 0xBF800000, 0xB3800000) == 0xBF800001);
  CHECK(f32(FloatOp::add, Round::rp, 0xBF800000, 0xB3800000) == 0xBF800000);
  // a tiny addend far below the ulp still decides directed rounding
  CHECK(f32(FloatOp::add, Round::rp, f32_one, 0x00000001) == 0x3F800001);
  CHECK(f32(FloatOp::sub, Round::rz, f32_one, 0x00000001) == 0x3F7FFFFF);
  CHECK(f32(FloatOp::sub, Round::rn, f32_one, 0x00000001) == f32_one);
  // x - x is +0, except -0 toward -inf; -0 + -0 is -0
  CHECK(f32(FloatOp::sub, Round::rn, f32_one, f32_one) == 0);
  CHECK(f32(FloatOp::sub, Round::rm, f32_one, f32_one) == 0x80000000);
  CHECK(f32(FloatOp::add, Round::rn, 0x80000000, 0x80000000) == 0x80000000);
  // overflow: to inf, or to FLT_MAX where the mode rounds toward zero
  CHECK(f32(FloatOp::add, Round::rn, f32_max, f32_max) == f32_inf);
  CHECK(f32(FloatOp::add, Round::rz, f32_max, f32_max) == f32_max);
  CHECK(f32(FloatOp::add, Round::rm, f32_max, f32_max) == f32_max);
  CHECK(f32(FloatOp::add, Round::rm, 0xFF7FFFFF, 0xFF7FFFFF) == 0xFF800000);
  // inf - inf: the canonical NaN
  CHECK(f32(FloatOp::sub, Round::rn, f32_inf, f32_inf) == f32_nan);
  CHECK(f32(FloatOp::add, Round::rn, 0x7FC00001, f32_one) == f32_nan);
}

TEST_CASE("f32 mul and fma: subnormals, .ftz, .sat, one rounding in fma") {
  // 2^-126 * 0.5 = 2^-127, the subnormal 0x00400000; .ftz flushes it
  CHECK(f32(FloatOp::mul, Round::rn, 0x00800000, 0x3F000000) == 0x00400000);
  CHECK(f32(FloatOp::mul, Round::rn, 0x00800000, 0x3F000000, 0, true) == 0);
  // a subnormal input under .ftz is a zero of its sign
  CHECK(f32(FloatOp::mul, Round::rn, 0x80000001, f32_one, 0, true) == 0x80000000);
  CHECK(f32(FloatOp::mul, Round::rn, 0x80000001, f32_one) == 0x80000001);
  // 2^-149 * 0.5: a tie between 0 and 2^-149, even is 0; toward +inf it is 2^-149
  CHECK(f32(FloatOp::mul, Round::rn, 0x00000001, 0x3F000000) == 0);
  CHECK(f32(FloatOp::mul, Round::rp, 0x00000001, 0x3F000000) == 1);
  // 0x00FFFFFF * 0.5 = (2^24-1) 2^-150 rounds to 2^-126: normal, so .ftz keeps it
  CHECK(f32(FloatOp::mul, Round::rn, 0x00FFFFFF, 0x3F000000) == 0x00800000);
  // (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46: toward +inf in one rounding 2^-22 (1 + 2^-23)
  CHECK(f32(FloatOp::fma, Round::rp, 0x3F800001, 0x3F800001, 0xBF800000) == 0x34800001);
  CHECK(f32(FloatOp::fma, Round::rn, 0x3F800001, 0x3F800001, 0xBF800000) == 0x34800000);
  // .sat: [0, 1], NaN -> +0, -0 -> +0
  CHECK(f32(FloatOp::add, Round::rn, 0x3F400000, 0x3F000000, 0, false, true) == f32_one);
  CHECK(f32(FloatOp::add, Round::rn, 0xC0000000, f32_one, 0, false, true) == 0);
  CHECK(f32(FloatOp::sub, Round::rn, f32_inf, f32_inf, 0, false, true) == 0);
  CHECK(f32(FloatOp::add, Round::rn, 0x3F000000, 0, 0, false, true) == 0x3F000000);
}

TEST_CASE("div: the correctly rounded quotient in each mode, overflow, subnormals, specials") {
  const std::uint32_t three = 0x40400000, half = 0x3F000000, two = 0x40000000;
  // 1/3 = 0x3EAAAAAA.AA.. (above the midpoint: rn rounds up, rz and rm down)
  CHECK(f32(FloatOp::div, Round::rn, f32_one, three, 0) == 0x3EAAAAAB);
  CHECK(f32(FloatOp::div, Round::rm, f32_one, three, 0) == 0x3EAAAAAA);
  CHECK(f32(FloatOp::div, Round::rp, f32_one, three, 0) == 0x3EAAAAAB);
  // FLT_MAX / 0.5 overflows: to inf to nearest, FLT_MAX toward zero
  CHECK(f32(FloatOp::div, Round::rn, f32_max, half, 0) == f32_inf);
  CHECK(f32(FloatOp::div, Round::rz, f32_max, half, 0) == f32_max);
  // x / 0 is an exact infinity in every mode; 0 / 0 and inf / inf are NaN
  CHECK(f32(FloatOp::div, Round::rz, f32_one, 0, 0) == f32_inf);
  CHECK(f32(FloatOp::div, Round::rn, 0, 0, 0) == f32_nan);
  CHECK(f32(FloatOp::div, Round::rn, f32_inf, f32_inf, 0) == f32_nan);
  // the smallest subnormal halved: 2^-150, a tie between 0 and 2^-149 (even: 0); rp: 2^-149
  CHECK(f32(FloatOp::div, Round::rn, 0x00000001, two, 0) == 0x00000000);
  CHECK(f32(FloatOp::div, Round::rp, 0x00000001, two, 0) == 0x00000001);
  // f64: 1/10 = 0x3FB9999999999999.99..; 1e-300 / 1e10 = 1e-310, a subnormal quotient
  // (the bits below: 1e-300 = 0x01A56E1FC2F8F359, 1e10 = 0x4202A05F20000000)
  const FloatMode rz{Round::rz, false, false}, rp{Round::rp, false, false};
  const FloatMode rn{Round::rn, false, false};
  CHECK(alu::float_op(FloatOp::div, Num::f64, rn, 0x3FF0000000000000, 0x4024000000000000, 0) ==
        0x3FB999999999999A);
  CHECK(alu::float_op(FloatOp::div, Num::f64, rz, 0x3FF0000000000000, 0x4024000000000000, 0) ==
        0x3FB9999999999999);
  CHECK(alu::float_op(FloatOp::div, Num::f64, rz, 0x01A56E1FC2F8F359, 0x4202A05F20000000, 0) ==
        0x000012688B70E62B);
  CHECK(alu::float_op(FloatOp::div, Num::f64, rp, 0x01A56E1FC2F8F359, 0x4202A05F20000000, 0) ==
        0x000012688B70E62C);
  // f64 DBL_MAX / 0.5 toward zero: DBL_MAX, not inf
  CHECK(alu::float_op(FloatOp::div, Num::f64, rz, 0x7FEFFFFFFFFFFFFF, 0x3FE0000000000000, 0) ==
        0x7FEFFFFFFFFFFFFF);
  // .approx: |b| in (2^126, 2^128) gives zero, or NaN for an infinite a; .full divides
  CHECK(alu::divide_approx(false, false, f32_one, 0x7F000000) == 0x00000000);
  CHECK(alu::divide_approx(false, false, f32_inf, 0x7F000000) == f32_nan);
  CHECK(alu::divide_approx(true, false, f32_one, 0x7F000000) == 0x00400000);
  CHECK(alu::divide_approx(false, false, f32_one, three) == 0x3EAAAAAB);
}

TEST_CASE("f32 min, max, neg, abs; setp's float comparisons") {
  CHECK(f32(FloatOp::min, Round::rn, f32_nan, f32_one) == f32_one);
  CHECK(f32(FloatOp::max, Round::rn, f32_one, 0x7FC00000) == f32_one);
  CHECK(f32(FloatOp::min, Round::rn, 0x7FC00000, 0xFFC00000) == f32_nan);
  CHECK(f32(FloatOp::min, Round::rn, 0, 0x80000000) == 0x80000000);
  CHECK(f32(FloatOp::max, Round::rn, 0x80000000, 0) == 0);
  CHECK(f32(FloatOp::min, Round::rn, 0xBF800000, f32_one) == 0xBF800000);
  CHECK(f32(FloatOp::neg, Round::rn, f32_one, 0) == 0xBF800000);
  CHECK(f32(FloatOp::abs, Round::rn, 0xBF800000, 0) == f32_one);
  CHECK(f32(FloatOp::abs, Round::rn, 0x80000001, 0, 0, true) == 0);
  using ir::Cmp;
  CHECK_FALSE(alu::float_compare(Cmp::lt, Num::f32, false, f32_nan, f32_one));
  CHECK(alu::float_compare(Cmp::ltu, Num::f32, false, f32_nan, f32_one));
  CHECK_FALSE(alu::float_compare(Cmp::ne, Num::f32, false, f32_nan, f32_one));
  CHECK(alu::float_compare(Cmp::neu, Num::f32, false, f32_nan, f32_one));
  CHECK(alu::float_compare(Cmp::nan, Num::f32, false, f32_one, f32_nan));
  CHECK_FALSE(alu::float_compare(Cmp::num, Num::f32, false, f32_one, f32_nan));
  CHECK(alu::float_compare(Cmp::num, Num::f32, false, f32_one, f32_one));
  CHECK(alu::float_compare(Cmp::eq, Num::f32, false, 0, 0x80000000));
  CHECK(alu::float_compare(Cmp::lt, Num::f32, false, 0xBF800000, 0));
  CHECK_FALSE(alu::float_compare(Cmp::gt, Num::f32, true, 0x00000001, 0)); // flushed: 0 > 0
  CHECK(alu::float_compare(Cmp::gt, Num::f32, false, 0x00000001, 0));
  CHECK(alu::float_compare(Cmp::geu, Num::f32, false, f32_one, f32_one));
}

TEST_CASE("what the H200 showed where the manual is silent (tests/data/sim_arith/h200.bin)") {
  // .ftz flushes a result that is below the smallest normal before rounding,
  // even where rounding would reach it: (1 - 2^-24) * 2^-126 toward +inf
  CHECK(f32(FloatOp::mul, Round::rp, 0x3F7FFFFF, 0x00800000, 0, true) == 0);
  CHECK(f32(FloatOp::mul, Round::rp, 0x3F7FFFFF, 0x00800000) == 0x00800000);
  // neg and abs of a NaN give the canonical NaN (f32, f16)
  CHECK(f32(FloatOp::neg, Round::rn, 0x7FC00000, 0) == f32_nan);
  CHECK(alu::float_op(FloatOp::abs, Num::f16, FloatMode{}, 0xFE00, 0, 0) == 0x7FFF);
  // f64 keeps NaN payloads, quieted; of two NaN operands b wins (fma: b, then c)
  const FloatMode rn{};
  CHECK(alu::float_op(FloatOp::add, Num::f64, rn, 0x7FF8000000000000, 0x7FF0000000000001, 0) ==
        0x7FF8000000000001);
  CHECK(alu::float_op(FloatOp::fma, Num::f64, rn, 0x7FF0000000000001, 0, 0xFFF8000000000000) ==
        0xFFF8000000000000);
  CHECK(alu::float_op(FloatOp::neg, Num::f64, rn, 0xFFF0000000000001, 0, 0) == 0xFFF8000000000001);
  // f64 overflow toward zero is the largest double; tiny products still round up
  CHECK(alu::float_op(FloatOp::add, Num::f64, FloatMode{Round::rz, false, false},
                      0x7FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0) == 0x7FEFFFFFFFFFFFFF);
  CHECK(alu::float_op(FloatOp::mul, Num::f64, FloatMode{Round::rp, false, false}, 1, 1, 0) == 1);
  // NaN to a 64-bit integer is 1 << 63 (to 32 bits and below: 0)
  CHECK(alu::convert(t_u64, t_f32, cvt_op(Round::rzi), f32_nan) == 0x8000000000000000);
  CHECK(alu::convert(t_u32, t_f32, cvt_op(Round::rzi), f32_nan) == 0);
}

TEST_CASE("f16, bf16 and the x2 forms") {
  const FloatMode rn{Round::rn, false, false};
  // f16: 1.0 = 0x3C00, 65504 = 0x7BFF (the largest), inf = 0x7C00
  CHECK(alu::float_op(FloatOp::add, Num::f16, rn, 0x3C00, 0x3C00, 0) == 0x4000);
  // 65504 + 16 = 65520, the midpoint to 65536: ties to even (0x7BFF is odd) overflow
  CHECK(alu::float_op(FloatOp::add, Num::f16, rn, 0x7BFF, 0x4C00, 0) == 0x7C00);
  CHECK(alu::float_op(FloatOp::add, Num::f16, FloatMode{Round::rz, false, false}, 0x7BFF, 0x4C00,
                      0) == 0x7BFF);
  // 2^-24 (0x0001) * 0.5: tie between 0 and 2^-24: even is 0
  CHECK(alu::float_op(FloatOp::mul, Num::f16, rn, 0x0001, 0x3800, 0) == 0);
  CHECK(alu::float_op(FloatOp::sub, Num::f16, rn, 0x7C00, 0x7C00, 0) == 0x7FFF);
  // bf16: 1.0 = 0x3F80; 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7
  CHECK(alu::float_op(FloatOp::add, Num::bf16, rn, 0x3F80, 0x3B80, 0) == 0x3F80);
  CHECK(alu::float_op(FloatOp::fma, Num::bf16, rn, 0x3F80, 0x4000, 0x3F80) == 0x4040); // 1*2+1
  // x2: each half on its own; the upper half of d from the upper halves
  CHECK(alu::float_op(FloatOp::add, Num::f16x2, rn, 0x3C004000, 0x3C003C00, 0) == 0x40004200);
  CHECK(alu::float_op(FloatOp::neg, Num::bf16x2, rn, 0x3F800000, 0, 0) == 0xBF808000);
}

TEST_CASE("cvt: float narrowing, float to integer, integer to float, integer saturation") {
  // 1/3 as f32 (0x3EAAAAAB) -> f16: 0x3555 = 0.333252 is nearest, 0x3556 above
  CHECK(alu::convert(t_f16, t_f32, cvt_op(Round::rn), 0x3EAAAAAB) == 0x3555);
  CHECK(alu::convert(t_f16, t_f32, cvt_op(Round::rz), 0x3EAAAAAB) == 0x3555);
  CHECK(alu::convert(t_f16, t_f32, cvt_op(Round::rp), 0x3EAAAAAB) == 0x3556);
  // -> bf16: upper half 0x3EAA, the rest 0xAAAB is above the midpoint 0x8000
  CHECK(alu::convert(t_bf16, t_f32, cvt_op(Round::rn), 0x3EAAAAAB) == 0x3EAB);
  CHECK(alu::convert(t_bf16, t_f32, cvt_op(Round::rz), 0x3EAAAAAB) == 0x3EAA);
  // 100000 (0x47C35000) is beyond f16: inf to nearest, 65504 toward zero
  CHECK(alu::convert(t_f16, t_f32, cvt_op(Round::rn), 0x47C35000) == 0x7C00);
  CHECK(alu::convert(t_f16, t_f32, cvt_op(Round::rz), 0x47C35000) == 0x7BFF);
  CHECK(alu::convert(t_f16, t_f32, cvt_op(Round::rn), 0x7FC12345) == 0x7FFF);
  // f16 -> f32 is exact: the smallest subnormal 2^-24
  CHECK(alu::convert(t_f32, t_f16, cvt_op(Round::none), 0x0001) == 0x33800000);
  CHECK(alu::convert(t_f32, t_bf16, cvt_op(Round::none), 0xBF80) == 0xBF800000);
  // f32 -> s32: 2.5 -> 2 and 3.5 -> 4 (ties to even), -2.5 -> -2
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rni), 0x40200000) == 2);
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rni), 0x40600000) == 4);
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rni), 0xC0200000) == 0xFFFFFFFE);
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rzi), 0xC02CCCCD) == 0xFFFFFFFE); // -2.7
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rmi), 0xC00CCCCD) == 0xFFFFFFFD); // -2.2
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rpi), 0x400CCCCD) == 3);          // 2.2
  // NaN -> 0; out of range saturates
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rzi), f32_nan) == 0);
  CHECK(alu::convert(t_s32, t_f32, cvt_op(Round::rzi), 0x4F32D05E) == 0x7FFFFFFF); // 3e9
  CHECK(alu::convert(t_u32, t_f32, cvt_op(Round::rzi), 0xBF800000) == 0);
  CHECK(alu::convert(t_u8, t_f32, cvt_op(Round::rni), 0x43960000) == 255); // 300
  // s32 -> f32: 2^24 + 1 is a tie, even is 2^24 (0x4B800000)
  CHECK(alu::convert(t_f32, t_s32, cvt_op(Round::rn), 16777217) == 0x4B800000);
  CHECK(alu::convert(t_f32, t_s32, cvt_op(Round::rp), 16777217) == 0x4B800001);
  // u64 max -> f32: 2^64 to nearest, the largest float below toward zero
  CHECK(alu::convert(t_f32, t_u64, cvt_op(Round::rn), ~0ull) == 0x5F800000);
  CHECK(alu::convert(t_f32, t_u64, cvt_op(Round::rz), ~0ull) == 0x5F7FFFFF);
  // f32 -> f32 to an integral value
  CHECK(alu::convert(t_f32, t_f32, cvt_op(Round::rni), 0x40200000) == 0x40000000);
  CHECK(alu::convert(t_f32, t_f32, cvt_op(Round::rzi), 0xBE99999A) == 0x80000000); // -0.3 -> -0
  CHECK(alu::convert(t_f32, t_f32, cvt_op(Round::none, true), 0x00000001) == 0);
  // integer .sat clamps to the destination's range
  CHECK(alu::convert(t_u8, t_s32, cvt_op(Round::none, false, true), 300) == 255);
  CHECK(alu::convert(t_u8, t_s32, cvt_op(Round::none, false, true), 0xFFFFFFFB) == 0);
  CHECK(alu::convert(t_u8, t_s32, cvt_op(Round::none), 300) == 44); // 300 mod 256
}

TEST_CASE("cvt to tf32: 10 fraction bits kept, ties away (.rna), to even (.rn), toward zero") {
  // 1 + 2^-11 (0x3F801000): exactly half a tf32 ulp (2^-10) above 1.0
  CHECK(alu::to_tf32(0x3F801000, true, Round::none, false) == 0x3F802000); // away from zero
  CHECK(alu::to_tf32(0x3F801000, false, Round::rn, false) == 0x3F800000);  // to even (1.0)
  CHECK(alu::to_tf32(0x3F803000, false, Round::rn, false) == 0x3F804000);  // to even (up)
  CHECK(alu::to_tf32(0xBF801FFF, false, Round::rz, false) == 0xBF800000);  // toward zero
  CHECK(alu::to_tf32(0xBF801001, false, Round::rn, false) == 0xBF802000);  // above half
  // the largest f32 rounds up to infinity, or to tf32's largest with .satfinite
  CHECK(alu::to_tf32(0x7F7FFFFF, true, Round::none, false) == 0x7F800000);
  CHECK(alu::to_tf32(0xFF7FFFFF, true, Round::none, true) == 0xFF7FE000);
  CHECK(alu::to_tf32(0x7F800000, true, Round::none, false) == 0x7F800000);
  CHECK(alu::to_tf32(0x7F800001, true, Round::none, false) == 0x7FFFFFFF); // NaN stays NaN
  // through the decoder, with WARP_SZ (PTX's predefined warp size)
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_out];
	mov.b32 %f1, 0x3F801000;
	cvt.rna.tf32.f32 %r1, %f1;
	mov.u32 %r2, WARP_SZ;
	st.global.v2.u32 [%rd1], {%r1, %r2};
	ret;
}
)";
  const std::vector<std::uint32_t> got = run_words(ptx, 2);
  CHECK(got[0] == 0x3F802000);
  CHECK(got[1] == 32);
}

TEST_CASE("a negated predicate source (`!%p`) reads the predicate's complement") {
  // ptxas takes `!%p` where an instruction reads a predicate value: and/or/xor.pred, selp's
  // selector.
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<6>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_out];
	mov.u32 %r1, 5;
	setp.lt.u32 %p1, %r1, 16;
	setp.eq.u32 %p2, %r1, 3;
	and.pred %p3, %p1, !%p2;
	or.pred %p4, !%p1, %p2;
	selp.u32 %r2, 1, 0, %p3;
	selp.u32 %r3, 1, 0, %p4;
	selp.u32 %r4, 7, 9, !%p3;
	xor.pred %p5, !%p2, %p1;
	selp.u32 %r5, 1, 0, %p5;
	st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
	ret;
}
)";
  const std::vector<std::uint32_t> got = run_words(ptx, 4);
  CHECK(got[0] == 1); // 5 < 16 and not 5 == 3
  CHECK(got[1] == 0); // not (5 < 16) or 5 == 3
  CHECK(got[2] == 9); // !%p3 is false
  CHECK(got[3] == 0); // not (5 == 3) xor 5 < 16
}

TEST_CASE("the instructions decode and run: a kernel over registers, results stored") {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<4>;
	.reg .b16 %h<4>;
	.reg .b32 %r<16>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_out];
	mov.b32 %r1, 0x03020100;
	mov.b32 %r2, 0x07060504;
	prmt.b32 %r3, %r1, %r2, 0x0123;
	prmt.b32.f4e %r4, %r1, %r2, 1;
	bfi.b32 %r5, 255, 0x12345678, 8, 4;
	shf.l.wrap.b32 %r6, %r1, %r2, 8;
	lop3.b32 %r7, %r1, %r2, 0x0F0F0F0F, 0x96;
	popc.b32 %r8, %r2;
	mov.f32 %f1, 0f3F800000;
	mov.f32 %f2, 0f33800000;
	add.rp.f32 %f3, %f1, %f2;
	mov.b32 %r9, %f3;
	cvt.rn.f16.f32 %h1, %f1;
	cvt.u32.u16 %r10, %h1;
	cvt.rn.f16x2.f32 %r11, %f1, %f3;
	setp.ltu.f32 %p1, %f1, %f2;
	selp.u32 %r12, 1, 2, %p1;
	cvt.rzi.s32.f32 %r13, %f3;
	fma.rn.f32 %f3, %f1, %f1, %f1;
	mov.b32 %r14, %f3;
	nanosleep.u32 100;
	prefetch.global.L2::evict_last [%rd1];
	createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
	ld.global.L2::cache_hint.u32 %r15, [%rd1+4], %rd2;
	st.global.L2::cache_hint.u32 [%rd1+4], %r15, %rd2;
	ld.global.nc.L1::no_allocate.v2.u32 {%r1, %r2}, [%rd1];
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
	st.global.v4.u32 [%rd1+16], {%r7, %r8, %r9, %r10};
	st.global.v4.u32 [%rd1+32], {%r11, %r12, %r13, %r14};
	ret;
}
)";
  const std::vector<std::uint32_t> got = run_words(ptx, 12);
  CHECK(got[0] == 0x00010203);
  CHECK(got[1] == 0x04030201);
  CHECK(got[2] == 0x12345F78);
  CHECK(got[3] == 0x06050403); // upper half of {b, a} << 8: b << 8 | a >> 24
  CHECK(got[4] == (0x03020100u ^ 0x07060504u ^ 0x0F0F0F0Fu));
  CHECK(got[5] == 8); // popc(0x07060504): 3 + 2 + 2 + 1
  CHECK(got[6] == 0x3F800001);
  CHECK(got[7] == 0x3C00);
  CHECK(got[8] == 0x3C003C00); // 1 + 2^-23 rounds to 1.0 in f16
  CHECK(got[9] == 2);          // 1.0 < 2^-24 is false, and neither is NaN
  CHECK(got[10] == 1);
  CHECK(got[11] == 0x40000000); // 1*1+1
}

namespace {

/// One warp: thread t stores row (t + 1) % 32 of four 8x8 b16 matrices laid out
/// row after row in shared `s` (element (m, row, col) holds m*64 + row*8 + col),
/// then (with `barrier`) bar.sync, then every lane gives the address of row
/// `lane` (matrix lane / 8, row lane % 8) to `ldmatrix` and stores what it got.
std::string ldmatrix_kernel(const std::string& ldmatrix, bool barrier, const std::string& guard) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<4>;
	.reg .b16 %h<4>;
	.reg .b32 %r<32>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b8 s[512];
	ld.param.u64 %rd1, [k_out];
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1;
	and.b32 %r2, %r2, 31;
	mov.u32 %r3, 0;
$L_fill:
	shl.b32 %r4, %r2, 3;
	add.u32 %r4, %r4, %r3;
	cvt.u16.u32 %h1, %r4;
	shl.b32 %r5, %r4, 1;
	mov.u32 %r6, s;
	add.u32 %r5, %r5, %r6;
	st.shared.u16 [%r5], %h1;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, 8;
	@%p1 bra $L_fill;
)" + std::string(barrier ? "\tbar.sync 0;\n" : "") +
         "\tshl.b32 %r7, %r1, 4;\n\tadd.u32 %r7, %r7, %r6;\n\tsetp.eq.u32 %p2, %r1, 0;\n\t" +
         guard + ldmatrix + R"(
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};
	ret;
}
)";
}

} // namespace

TEST_CASE("ldmatrix: the manual's fragment layout, .trans, .x1/.x2/.x4, races, convergence") {
  std::vector<std::uint8_t> out(32 * 16, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  l.block_dim = {32, 1, 1};
  auto lane_reg = [&](std::uint32_t lane, std::uint32_t m) {
    std::uint32_t v = 0;
    std::memcpy(&v, out.data() + 16 * lane + 4 * m, 4);
    return v;
  };
  auto element = [](std::uint32_t m, std::uint32_t row, std::uint32_t col) {
    return m * 64 + row * 8 + col;
  };
  SUBCASE("x4: lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 of each matrix") {
    SimResult r = run(
        ldmatrix_kernel("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r7];",
                        true, ""),
        "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(lane_reg(5, 2) == 0x008B008A); // matrix 2, row 1, columns 2 and 3: 138, 139
    CHECK(lane_reg(0, 0) == 0x00010000);
    CHECK(lane_reg(31, 3) == 0x00FF00FE); // row 7, columns 6 and 7 of matrix 3
    for (std::uint32_t lane = 0; lane < 32; ++lane)
      for (std::uint32_t m = 0; m < 4; ++m)
        CHECK(lane_reg(lane, m) == (element(m, lane / 4, 2 * (lane % 4)) |
                                    element(m, lane / 4, 2 * (lane % 4) + 1) << 16));
  }
  SUBCASE(".trans: lane l holds column l/4 of rows 2(l%4) and 2(l%4)+1") {
    SimResult r = run(
        ldmatrix_kernel(
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r10, %r11, %r12, %r13}, [%r7];",
            true, ""),
        "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(lane_reg(5, 2) == 0x00990091); // matrix 2, rows 2 and 3, column 1: 145, 153
    for (std::uint32_t lane = 0; lane < 32; ++lane)
      for (std::uint32_t m = 0; m < 4; ++m)
        CHECK(lane_reg(lane, m) == (element(m, 2 * (lane % 4), lane / 4) |
                                    element(m, 2 * (lane % 4) + 1, lane / 4) << 16));
  }
  SUBCASE("the shape, the count and .trans in CUTLASS's order (.x4.trans.m8n8): the same result") {
    SimResult r =
        run(ldmatrix_kernel(
                "ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16 {%r10, %r11, %r12, %r13}, [%r7];",
                true, ""),
            "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(lane_reg(5, 2) == 0x00990091); // as .m8n8.x4.trans above
    r = run(
        ldmatrix_kernel("ldmatrix.sync.aligned.x2.m8n8.shared.b16 {%r10, %r11}, [%r7];", true, ""),
        "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(lane_reg(31, 1) == 0x007F007E); // as .m8n8.x2 below
  }
  SUBCASE(".x2 and .x1 use the first 16 / 8 lanes' addresses") {
    SimResult r = run(
        ldmatrix_kernel("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [%r7];", true, ""),
        "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(lane_reg(31, 1) == 0x007F007E); // matrix 1, row 7, columns 6, 7: 126, 127
    r = run(
        ldmatrix_kernel("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r10}, [%r7];", true, ""),
        "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(lane_reg(9, 0) == 0x001A0012); // rows 2 and 3, column 2: 18, 26
  }
  SUBCASE("without the bar.sync, reading rows another thread stored is a race") {
    SimResult r = run(
        ldmatrix_kernel("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r7];",
                        false, ""),
        "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::race);
    REQUIRE(r.fault->race);
    CHECK(r.fault->race->kind == RaceKind::read_after_write);
  }
  SUBCASE("a lane that skips it leaves the others waiting: barrier divergence") {
    SimResult r = run(
        ldmatrix_kernel("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r7];",
                        true, "@%p2 "),
        "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::barrier_divergence);
  }
}

namespace {

/// One warp: lane l holds 10 l + 1 in %r1 and p = (l % 3 == 0); `body`
/// computes %r2 from them; each lane stores %r2 at out[4 l].
std::string warp_kernel(const std::string& body) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [k_out];
	mov.u32 %r0, %tid.x;
	mad.lo.s32 %r1, %r0, 10, 1;
	rem.u32 %r3, %r0, 3;
	setp.eq.u32 %p1, %r3, 0;
)" + body +
         R"(
	mul.wide.u32 %rd2, %r0, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
)";
}

} // namespace

TEST_CASE("shfl.sync and vote.sync: the manual's lane arithmetic, worked by hand") {
  std::vector<std::uint8_t> out(32 * 4, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  l.block_dim = {32, 1, 1};
  auto lane = [&](std::uint32_t k) {
    std::uint32_t v = 0;
    std::memcpy(&v, out.data() + 4 * k, 4);
    return v;
  };
  auto go = [&](const std::string& body) {
    SimResult r = run(warp_kernel(body), "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
  };
  SUBCASE("down 1, clamp 31: lane 31 keeps its own") {
    go("\tshfl.sync.down.b32 %r2, %r1, 1, 0x1f, 0xffffffff;");
    CHECK(lane(0) == 11);
    CHECK(lane(30) == 311);
    CHECK(lane(31) == 311);
  }
  SUBCASE("up 1, c = 0: lane 0 keeps its own") {
    go("\tshfl.sync.up.b32 %r2, %r1, 1, 0, 0xffffffff;");
    CHECK(lane(0) == 1);
    CHECK(lane(1) == 1);
    CHECK(lane(31) == 301);
  }
  SUBCASE("bfly 16 and idx 5") {
    go("\tshfl.sync.bfly.b32 %r2, %r1, 16, 0x1f, 0xffffffff;");
    CHECK(lane(3) == 191);
    CHECK(lane(19) == 31);
    go("\tshfl.sync.idx.b32 %r2, %r1, 5, 0x1f, 0xffffffff;");
    CHECK(lane(0) == 51);
    CHECK(lane(31) == 51);
  }
  SUBCASE("idx 2 within segments of 8 (c = 0x181f)") {
    go("\tshfl.sync.idx.b32 %r2, %r1, 2, 0x181f, 0xffffffff;");
    CHECK(lane(0) == 21);
    CHECK(lane(9) == 101);  // lane 10
    CHECK(lane(31) == 261); // lane 26
  }
  SUBCASE("vote: p holds on lanes 0, 3, 6, ..., 30") {
    go("\tvote.sync.ballot.b32 %r2, %p1, 0xffffffff;");
    CHECK(lane(7) == 0x49249249);
    go("\tvote.sync.ballot.b32 %r2, !%p1, 0xffffffff;");
    CHECK(lane(7) == 0xB6DB6DB6);
    go("\tvote.sync.any.pred %p2, %p1, 0xffffffff;\n\tselp.u32 %r2, 1, 0, %p2;");
    CHECK(lane(4) == 1);
    go("\tvote.sync.all.pred %p2, %p1, 0xffffffff;\n\tselp.u32 %r2, 1, 0, %p2;");
    CHECK(lane(4) == 0);
    go("\tvote.sync.uni.pred %p2, %p1, 0xffffffff;\n\tselp.u32 %r2, 1, 0, %p2;");
    CHECK(lane(4) == 0);
  }
}

} // namespace unit_sim_arith
