// The simulator's integer forms of kernels' int8 / int16 / int1 math: dp4a and dp2a, the packed
// 16-bit pairs of add / min / max (.u16x2, .s16x2), min / max .relu, and the single-bit wmma.mma
// (.and.popc / .xor.popc at m8n8k128). Every expected value is worked out by hand from the PTX
// ISA's definition (noted next to it) or by a naive loop written here, never taken from the code
// under test; each PTX kernel below is accepted by `ptxas -arch=sm_90a`.

#include "driver/sim/alu.hpp"
#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_int_forms {

using namespace ptxgen::sim;
using ptxgen::DiagId;
using ptxgen::test::first_diagnostic;
using ptxgen::test::run_words;

namespace {

/// A one-thread kernel `k(.param .u64 k_out)` around `body` (its first line is line 9).
std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_out)\n{\n"
         "\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<2>;\n"
         "\tld.param.u64 %rd1, [k_out];\n" +
         body + "\tret;\n}\n";
}

} // namespace

TEST_CASE("dp4a / dp2a: bytes zero- (.u32) or sign-extended (.s32), products summed into c") {
  // a's bytes 04 03 02 01 (byte 0 first), b's 08 07 06 05: 4*8 + 3*7 + 2*6 + 1*5 = 70
  CHECK(alu::dot4(0x01020304, 0x05060708, 10, false, false) == 80);
  CHECK(alu::dot4(0xFF, 0x02, 0, false, false) == 510);                   // 255 * 2
  CHECK(alu::dot4(0xFF, 0x02, 0, true, false) == 0xFFFFFFFE);             // -1 * 2
  CHECK(alu::dot4(0x80808080, 0x80808080, 0, true, false) == 0xFFFF0000); // 4 * -128 * 128
  CHECK(alu::dot4(0x80808080, 0x80808080, 0, true, true) == 0x10000);     // 4 * -128 * -128
  CHECK(alu::dot4(0xFFFFFFFF, 0xFFFFFFFF, 5, false, false) == 5 + 4 * 255 * 255);
  // the sum wraps modulo 2^32: c = 0xFFFFFFFF plus 1 * 1
  CHECK(alu::dot4(1, 1, 0xFFFFFFFF, false, false) == 0);
  // a's halves FFFF (-1 signed) and 0003; b's bytes 01 02 03 04
  CHECK(alu::dot2(0x0003FFFF, 0x04030201, 100, true, false, 0) == 105);      // -1*1 + 3*2
  CHECK(alu::dot2(0x0003FFFF, 0x04030201, 100, true, false, 2) == 109);      // -1*3 + 3*4
  CHECK(alu::dot2(0x0003FFFF, 0x04030201, 100, false, false, 0) == 65641);   // 65535 + 6 + 100
  CHECK(alu::dot2(0x0003FFFF, 0xFF000000, 0, false, true, 2) == 0xFFFFFFFD); // 3 * -1
}

TEST_CASE("the 16-bit pairs: each half alone (no carry across), .relu clamps each half") {
  using alu::PairOp;
  // 0xFFFF + 1 wraps within the low half: the high half stays 1 + 0
  CHECK(alu::integer_pair(PairOp::add, false, false, 0x0001FFFF, 0x00000001) == 0x00010000);
  // signed: high halves -1 and 1, low 5 and 3
  CHECK(alu::integer_pair(PairOp::max, true, false, 0xFFFF0005, 0x00010003) == 0x00010005);
  CHECK(alu::integer_pair(PairOp::max, false, false, 0xFFFF0005, 0x00010003) == 0xFFFF0005);
  CHECK(alu::integer_pair(PairOp::min, true, false, 0xFFFF0005, 0x00010003) == 0xFFFF0003);
  CHECK(alu::integer_pair(PairOp::min, true, true, 0xFFFF0005, 0x00010003) == 0x00000003);
  CHECK(alu::integer_pair(PairOp::max, true, true, 0xFFFE8000, 0xFFFF8001) == 0); // -1, -32767
}

TEST_CASE("dp4a, dp2a, .relu (before or after the type, as nvcc writes it) and the 16-bit pairs "
          "decode and run in a kernel") {
  // r1's bytes 01 02 FF 80, r2's 04 05 FE 03 (byte 0 first), c = 1000
  const std::string ptx = kernel(R"(	mov.b32 %r1, 0x80FF0201;
	mov.b32 %r2, 0x03FE0504;
	mov.b32 %r3, 1000;
	dp4a.u32.u32 %r10, %r1, %r2, %r3;
	dp4a.s32.s32 %r11, %r1, %r2, %r3;
	dp4a.s32.u32 %r12, %r1, %r2, %r3;
	dp4a.u32.s32 %r13, %r1, %r2, %r3;
	dp2a.lo.s32.u32 %r14, %r1, %r2, %r3;
	dp2a.hi.u32.u32 %r15, %r1, %r2, %r3;
	mov.b32 %r4, -5;
	max.relu.s32 %r16, %r4, -3;
	min.relu.s32 %r17, 7, 9;
	max.relu.s32 %r18, %r4, 3;
	min.s32.relu %r19, %r4, 3;
	mov.b32 %r5, 0x0001FFFF;
	mov.b32 %r6, 0x00020001;
	add.u16x2 %r20, %r5, %r6;
	mov.b32 %r5, 0xFFFF0005;
	mov.b32 %r6, 0x00018003;
	max.s16x2 %r21, %r5, %r6;
	mov.b32 %r5, 0x0005FFFF;
	mov.b32 %r6, 0x80030001;
	min.u16x2 %r22, %r5, %r6;
	mov.b32 %r5, 0xFFFF0005;
	mov.b32 %r6, 0xFFFE8003;
	max.s16x2.relu %r23, %r5, %r6;
	mov.b32 %r5, 0x00070005;
	mov.b32 %r6, 0x0009FFFB;
	min.relu.s16x2 %r24, %r5, %r6;
	add.s16x2 %r25, %r5, %r6;
	st.global.v4.u32 [%rd1], {%r10, %r11, %r12, %r13};
	st.global.v4.u32 [%rd1+16], {%r14, %r15, %r16, %r17};
	st.global.v4.u32 [%rd1+32], {%r18, %r19, %r20, %r21};
	st.global.v4.u32 [%rd1+48], {%r22, %r23, %r24, %r25};
)");
  const std::vector<std::uint32_t> got = run_words(ptx, 16);
  CHECK(got[0] == 1000 + 1 * 4 + 2 * 5 + 255 * 254 + 128 * 3);      // 66168
  CHECK(got[1] == 1000 + 1 * 4 + 2 * 5 + (-1) * (-2) + (-128) * 3); // 632
  CHECK(got[2] == 1000 + 1 * 4 + 2 * 5 + (-1) * 254 + (-128) * 3);  // 376
  CHECK(got[3] == 1000 + 1 * 4 + 2 * 5 + 255 * (-2) + 128 * 3);     // 888
  // dp2a: a's halves 0x0201 = 513 and 0x80FF (-32513 signed, 33023 unsigned)
  CHECK(got[4] == static_cast<std::uint32_t>(1000 + 513 * 4 + (-32513) * 5)); // b bytes 0, 1
  CHECK(got[5] == 1000 + 513 * 254 + 33023 * 3);                              // b bytes 2, 3
  CHECK(got[6] == 0); // max(-5, -3) = -3, clamped
  CHECK(got[7] == 7);
  CHECK(got[8] == 3);
  CHECK(got[9] == 0);           // min(-5, 3) = -5, clamped
  CHECK(got[10] == 0x00030000); // low: 0xFFFF + 1 wraps to 0; high: 1 + 2
  CHECK(got[11] == 0x00010005); // high: max(-1, 1); low: max(5, -32765)
  CHECK(got[12] == 0x00050001); // high: min(5, 0x8003); low: min(0xFFFF, 1)
  CHECK(got[13] == 0x00000005); // high: max(-1, -2) = -1 clamped; low: max(5, -32765)
  CHECK(got[14] == 0x00070000); // high: min(7, 9); low: min(5, -5) = -5 clamped
  CHECK(got[15] == 0x00100000); // high: 7 + 9; low: 5 + -5
}

TEST_CASE("the integer forms ptxas refuses are refused where they are written") {
  struct Case {
    const char* line;
    DiagId id;
  };
  const Case cases[] = {
      {"\tmax.relu.u32 %r1, %r2, %r3;\n", DiagId::sim_qualifier},   // .relu: .s32 and .s16x2
      {"\tmin.relu.u16x2 %r1, %r2, %r3;\n", DiagId::sim_qualifier}, // likewise
      {"\tmax.u32.relu %r1, %r2, %r3;\n", DiagId::sim_qualifier},   // after the type too
      {"\tadd.sat.s16x2 %r1, %r2, %r3;\n", DiagId::sim_qualifier},  // no .sat on the pairs
      {"\tdp4a.s32 %r1, %r2, %r3, %r4;\n", DiagId::sim_qualifier},  // .atype.btype
      {"\tdp2a.lo.u32.u64 %r1, %r2, %r3, %r4;\n", DiagId::sim_qualifier},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    auto p = Program::parse(kernel(c.line));
    REQUIRE(!p);
    const ptxgen::Diagnostic* d = first_diagnostic(p.diagnostics, c.id);
    REQUIRE(d != nullptr);
    CHECK(d->line == 9);
    CHECK(d->column == 2);
  }
  // sub and neg take no pairs (ptxas: "Unexpected instruction types"): not simulated, refused
  // at run time on their line
  for (const char* line : {"\tsub.u16x2 %r1, %r2, %r3;\n", "\tneg.s16x2 %r1, %r2;\n"}) {
    INFO(line);
    auto p = Program::parse(kernel(line));
    REQUIRE(p);
    const ptxgen::Diagnostic* d = first_diagnostic(p.diagnostics, DiagId::sim_unsupported_form);
    REQUIRE(d != nullptr);
    CHECK(d->line == 9);
  }
}

TEST_CASE("wmma .b1 m8n8k128: D = C + popc(row of A AND / XOR column of B), by a naive loop") {
  // A: 8 rows of 128 bits, row-major (16 bytes a row); B: 8 columns of 128 bits, column-major
  // (16 bytes a column); C, D: 8 x 8 s32, row-major.
  const std::string ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u64 k_c, .param .u64 k_d)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [k_a];
	ld.param.u64 %rd2, [k_b];
	ld.param.u64 %rd3, [k_c];
	ld.param.u64 %rd4, [k_d];
	wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {%r1}, [%rd1];
	wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {%r2}, [%rd2], 128;
	wmma.load.c.sync.aligned.row.m8n8k128.global.s32 {%r3, %r4}, [%rd3];
	wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r5, %r6}, {%r1}, {%r2}, {%r3, %r4};
	wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r7, %r8}, {%r1}, {%r2}, {%r3, %r4};
	wmma.store.d.sync.aligned.row.m8n8k128.global.s32 [%rd4], {%r5, %r6};
	wmma.store.d.sync.aligned.row.m8n8k128.global.s32 [%rd4+256], {%r7, %r8}, 8;
	ret;
}
)";
  std::vector<std::uint8_t> a(128), b(128), c(256), d(512, 0);
  std::uint32_t x = 12345; // a small LCG: any bits do
  for (auto* buf : {&a, &b})
    for (std::uint8_t& byte : *buf)
      byte = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 16);
  // row 0 of A all ones and column 1 of B all zeros: AND counts 0, XOR 128
  std::fill(a.begin(), a.begin() + 16, 0xFF);
  std::fill(b.begin() + 16, b.begin() + 32, 0x00);
  for (std::size_t k = 0; k < 64; ++k) {
    const auto v = static_cast<std::int32_t>(k * 7) - 200; // some negative
    std::memcpy(c.data() + 4 * k, &v, 4);
  }
  std::vector<GlobalBuffer> mem = {
      {0x1000, &a, "A"}, {0x2000, &b, "B"}, {0x3000, &c, "C"}, {0x4000, &d, "D"}};
  Launch l;
  l.block_dim = {32, 1, 1};
  l.params = {0x1000, 0x2000, 0x3000, 0x4000};
  SimResult r = run(ptx, "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (unsigned i = 0; i < 8; ++i) {
    for (unsigned j = 0; j < 8; ++j) {
      std::int32_t cij = 0, xor_ij = 0, and_ij = 0;
      std::memcpy(&cij, c.data() + 4 * (8 * i + j), 4);
      std::memcpy(&xor_ij, d.data() + 4 * (8 * i + j), 4);
      std::memcpy(&and_ij, d.data() + 256 + 4 * (8 * i + j), 4);
      int want_xor = cij, want_and = cij;
      for (unsigned q = 0; q < 16; ++q) { // byte q of row i of A and of column j of B
        want_xor += std::popcount(static_cast<unsigned>(a[16 * i + q] ^ b[16 * j + q]));
        want_and += std::popcount(static_cast<unsigned>(a[16 * i + q] & b[16 * j + q]));
      }
      INFO("D[" << i << "][" << j << "]");
      CHECK(xor_ij == want_xor);
      CHECK(and_ij == want_and);
    }
  }
  std::int32_t d01_xor = 0, d01_and = 0, c01 = 0;
  std::memcpy(&c01, c.data() + 4, 4);
  std::memcpy(&d01_xor, d.data() + 4, 4);
  std::memcpy(&d01_and, d.data() + 256 + 4, 4);
  CHECK(d01_xor == c01 + 128);
  CHECK(d01_and == c01);
}

TEST_CASE("wmma .b1: A loads .row, B .col, and .and/.xor.popc go with .b1 only") {
  for (const char* line :
       {"\twmma.load.a.sync.aligned.col.m8n8k128.global.b1 {%r1}, [%rd1];\n",
        "\twmma.load.b.sync.aligned.row.m8n8k128.global.b1 {%r1}, [%rd1];\n",
        "\twmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, "
        "{%r1, %r2};\n"}) {
    INFO(line);
    auto p = Program::parse(kernel(line));
    REQUIRE(p);
    const ptxgen::Diagnostic* d = first_diagnostic(p.diagnostics, DiagId::sim_unsupported_form);
    REQUIRE(d != nullptr);
    CHECK(d->line == 9);
  }
}

} // namespace unit_sim_int_forms
