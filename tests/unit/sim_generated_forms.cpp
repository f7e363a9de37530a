// Forms that compilers' PTX (LLVM's NVPTX back end under Triton, XLA, MLIR) contains and
// hand-written CUDA rarely does (mov's vector destination with a `_` element too, below):
//   setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, {!}c};  (`(a < b) && c` folded into one setp)
//     the PTX ISA: p = (a CmpOp b) BoolOp c, q = (!(a CmpOp b)) BoolOp c; a comparison with a
//     NaN operand is false for the ordered CmpOps;
//   min / max .NaN (LLVM's fminimum / fmaximum): a NaN operand gives the canonical NaN
//     (0x7fffffff, 0x7fff), where plain min / max return the other operand.
// Every expected bit below is worked out by hand from those definitions (noted next to it),
// never taken from the code under test; each kernel is accepted by `ptxas -arch=sm_90a`.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_generated_forms {

using namespace ptxgen::sim;
using ptxgen::DiagId;
using ptxgen::test::first_diagnostic;
using ptxgen::test::run_words;

namespace {

/// A one-thread kernel `k(.param .u64 k_out)` around `body` (its first line is line 13).
std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_out)\n{\n"
         "\t.reg .pred %p<24>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n"
         "\t.reg .f64 %fd<2>;\n\t.reg .b16 %rs<4>;\n"
         "\tld.param.u64 %rd1, [k_out];\n" +
         body + "\tret;\n}\n";
}

/// Stores predicates %p1 .. %p`n` as 32-bit words 0 / 1 at k_out.
std::string store_predicates(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) {
    s += "\tselp.u32 %r30, 1, 0, %p" + std::to_string(i) + ";\n";
    s += "\tst.global.u32 [%rd1+" + std::to_string(4 * (i - 1)) + "], %r30;\n";
  }
  return s;
}

} // namespace

TEST_CASE("setp.cmp.bop on integers: p = (a cmp b) bop c, q = !(a cmp b) bop c") {
  const std::string body = "\tmov.u32 %r1, 5;\n"
                           "\tmov.u32 %r2, 3;\n"
                           "\tmov.u32 %r3, -1;\n"
                           "\tsetp.eq.u32 %p20, %r1, %r1;\n" // c = true
                           "\tsetp.ne.u32 %p21, %r1, %r1;\n" // c' = false
                           "\tsetp.lt.and.u32 %p1|%p2, %r1, %r2, %p20;\n"
                           "\tsetp.gt.or.s32 %p3|%p4, %r1, %r2, !%p20;\n"
                           "\tsetp.ne.xor.u32 %p5|%p6, %r1, %r2, %p20;\n"
                           "\tsetp.lt.and.s32 %p7, %r3, %r2, %p20;\n"
                           "\tsetp.lt.and.u32 %p8, %r3, %r2, %p20;\n"
                           "\tsetp.eq.u32 %p9|%p10, %r1, 5;\n"
                           "\tsetp.ge.or.u32 %p11|%p12, %r2, %r1, %p21;\n"
                           "\tsetp.hi.xor.u32 %p13|%p14, %r3, %r1, !%p21;\n";
  const std::vector<std::uint32_t> got = run_words(kernel(body + store_predicates(14)), 14);
  const std::vector<std::uint32_t> want = {
      0, 1, // 5 < 3 is false: p = 0 and 1 = 0, q = 1 and 1 = 1
      1, 0, // 5 > 3 is true, c = !true: p = 1 or 0 = 1, q = 0 or 0 = 0
      0, 1, // 5 != 3 is true: p = 1 xor 1 = 0, q = 0 xor 1 = 1
      1,    // -1 < 3 signed: p = 1 and 1
      0,    // 0xffffffff < 3 unsigned is false: p = 0
      1, 0, // plain setp with `p|q`: q is the negated comparison
      0, 1, // 3 >= 5 is false, c' = false: p = 0 or 0 = 0, q = 1 or 0 = 1
      0, 1, // 0xffffffff > 5 (hi: unsigned) is true, c = !false = 1: p = 1 xor 1, q = 0 xor 1
  };
  CHECK(got == want);
}

TEST_CASE("setp.cmp.bop on floats: NaN compares false, .ftz flushes before comparing") {
  const std::string body = "\tmov.b32 %f1, 0f7FC00000;\n" // NaN
                           "\tmov.f32 %f2, 0f3F800000;\n" // 1.0
                           "\tmov.b32 %f3, 0f00000001;\n" // the smallest subnormal
                           "\tmov.f32 %f4, 0f00000000;\n" // +0
                           "\tmov.u32 %r1, 0;\n"
                           "\tsetp.eq.u32 %p20, %r1, %r1;\n" // c = true
                           "\tsetp.ne.u32 %p21, %r1, %r1;\n" // c' = false
                           "\tsetp.lt.or.f32 %p1|%p2, %f1, %f2, %p21;\n"
                           "\tsetp.ltu.and.f32 %p3|%p4, %f1, %f2, %p20;\n"
                           "\tsetp.gt.and.f32 %p5, %f3, %f4, %p20;\n"
                           "\tsetp.gt.and.ftz.f32 %p6, %f3, %f4, %p20;\n"
                           "\tsetp.gt.ftz.and.f32 %p7, %f3, %f4, %p20;\n"
                           "\tsetp.num.xor.f32 %p8|%p9, %f2, %f4, %p20;\n";
  const std::vector<std::uint32_t> got = run_words(kernel(body + store_predicates(9)), 9);
  const std::vector<std::uint32_t> want = {
      0, 1, // NaN < 1 is false: p = 0 or 0 = 0, q = 1 or 0 = 1
      1, 0, // ltu: unordered is true: p = 1 and 1, q = 0 and 1
      1,    // 2^-149 > 0 without .ftz
      0,    // .ftz: the subnormal is +0, 0 > 0 is false
      0,    // the same with .ftz after .and (ptxas takes either order)
      0, 1, // num(1, 0) is true: p = 1 xor 1 = 0, q = 0 xor 1 = 1
  };
  CHECK(got == want);
}

TEST_CASE("setp p|q reads c before writing: c may be p or q") {
  const std::string body = "\tmov.u32 %r1, 7;\n"
                           "\tsetp.ne.u32 %p1, %r1, %r1;\n" // p1 = false
                           "\tsetp.eq.u32 %p4, %r1, %r1;\n" // p4 = true
                           // t = (7 == 7) = 1, c = old p1 = 0: p1 = 1 or 0 = 1, p2 = 0 or 0 = 0
                           "\tsetp.eq.or.u32 %p1|%p2, %r1, %r1, %p1;\n"
                           // t = (7 < 7) = 0, c = old p4 = 1: p3 = 0 and 1 = 0, p4 = 1 and 1 = 1
                           "\tsetp.lt.and.u32 %p3|%p4, %r1, %r1, %p4;\n";
  const std::vector<std::uint32_t> got = run_words(kernel(body + store_predicates(4)), 4);
  CHECK(got == std::vector<std::uint32_t>{1, 0, 0, 1});
}

TEST_CASE("setp: c exactly with .and/.or/.xor, refused at the instruction's line") {
  // ptxas refuses both: a .bop without c, and c without a .bop
  for (const char* line :
       {"\tsetp.lt.and.u32 %p1, %r1, %r2;\n", "\tsetp.lt.u32 %p1, %r1, %r2, %p2;\n"}) {
    INFO(line);
    auto p = Program::parse(kernel(line));
    REQUIRE(!p);
    const ptxgen::Diagnostic* d = first_diagnostic(p.diagnostics, DiagId::sim_operand_count);
    REQUIRE(d != nullptr);
    CHECK(d->line == 13);
    CHECK(d->column == 2);
  }
}

TEST_CASE("min / max .NaN: a NaN operand gives the canonical NaN, per element of a pair") {
  const std::string body = "\tmov.b32 %f1, 0f7FC00000;\n" // NaN
                           "\tmov.f32 %f2, 0f3F800000;\n" // 1.0
                           "\tmax.NaN.f32 %f3, %f1, %f2;\n"
                           "\tmin.NaN.f32 %f4, %f2, %f1;\n"
                           "\tmax.f32 %f5, %f1, %f2;\n"
                           "\tmin.ftz.NaN.f32 %f6, %f2, 0fBF800000;\n"
                           "\tmov.b32 %r1, 0x7E004000;\n" // f16 halves: NaN (high), 2.0 (low)
                           "\tmov.b32 %r2, 0x3C004200;\n" // f16 halves: 1.0, 3.0
                           "\tmax.NaN.f16x2 %r3, %r1, %r2;\n"
                           "\tmov.b32 %r4, 0x7FC14000;\n" // bf16 halves: NaN, 2.0
                           "\tmov.b32 %r5, 0x3F80C000;\n" // bf16 halves: 1.0, -2.0
                           "\tmin.bf16x2 %r6, %r4, %r5;\n"
                           "\tmin.NaN.bf16x2 %r7, %r4, %r5;\n"
                           "\tst.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f6};\n"
                           "\tst.global.v2.u32 [%rd1+16], {%r3, %r6};\n"
                           "\tst.global.u32 [%rd1+24], %r7;\n";
  const std::vector<std::uint32_t> got = run_words(kernel(body), 7);
  const std::vector<std::uint32_t> want = {
      0x7FFFFFFF, // max.NaN(NaN, 1): the canonical f32 NaN
      0x7FFFFFFF, // min.NaN(1, NaN): either operand
      0x3F800000, // plain max(NaN, 1) is the other operand, 1.0
      0xBF800000, // min.NaN(1, -1) = -1 when neither is NaN
      0x7FFF4200, // high: NaN -> the canonical f16 NaN 0x7fff; low: max(2, 3) = 3.0 (0x4200)
      0x3F80C000, // plain min: high min(NaN, 1) = 1.0 (0x3f80); low min(2, -2) = -2.0 (0xc000)
      0x7FFFC000, // .NaN: high the canonical bf16 NaN 0x7fff; low -2.0
  };
  CHECK(got == want);
}

TEST_CASE("min / max .NaN: refused where ptxas refuses it (f64, integers)") {
  for (const char* line : {"\tmax.NaN.f64 %fd1, %fd1, %fd1;\n", "\tmax.NaN.s32 %r1, %r2, %r3;\n"}) {
    INFO(line);
    auto p = Program::parse(kernel(line));
    REQUIRE(p);
    const ptxgen::Diagnostic* d = first_diagnostic(p.diagnostics, DiagId::sim_unsupported_form);
    REQUIRE(d != nullptr);
    CHECK(d->line == 13);
  }
}

TEST_CASE("mov's vector destination may drop an element with `_` (LLVM: mov.b32 {_, %rs2}, %r)") {
  // ptxas takes it; the file used to be refused whole ("a destination element must be a
  // register"). Elements fill from the lowest bits: {lo, hi}.
  const std::string body = "\tmov.b32 %r1, 0x12345678;\n"
                           "\tmov.b32 {_, %rs2}, %r1;\n" // the high half: 0x1234
                           "\tmov.b32 {%rs3, _}, %r1;\n" // the low half: 0x5678
                           "\tmov.b64 %rd0, 0x0000000A0000000B;\n"
                           "\tmov.b64 {_, %r2}, %rd0;\n" // the high word: 10
                           "\tcvt.u32.u16 %r3, %rs2;\n"
                           "\tcvt.u32.u16 %r4, %rs3;\n"
                           "\tst.global.v4.u32 [%rd1], {%r3, %r4, %r2, %r1};\n";
  const std::vector<std::uint32_t> got = run_words(kernel(body), 4);
  CHECK(got == std::vector<std::uint32_t>{0x1234, 0x5678, 10, 0x12345678});
}

} // namespace unit_sim_generated_forms
