// Idioms of public library kernels (FlashInfer, DeepGEMM, FlashAttention-3, CUTLASS; the wild
// corpus, tests/wild/MANIFEST.toml) that the simulator once stopped at or misread: each case is
// the smallest kernel with the idiom, and what the PTX ISA says it must do.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_library_idioms {

using namespace ptxgen::sim;
using ptxgen::test::run_words;

TEST_CASE("griddepcontrol.wait and .launch_dependents run as no-ops: lint runs one grid, which "
          "depends on no earlier grid and has no later one") {
  // DeepGEMM's and CUTLASS's kernels built with programmatic dependent launch open with
  // griddepcontrol.wait and signal their dependents before the epilogue.
  const std::string ptx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_out];
	griddepcontrol.wait;
	mov.b32 %r1, 7;
	griddepcontrol.launch_dependents;
	st.global.u32 [%rd1], %r1;
	ret;
}
)";
  CHECK(run_words(ptx, 1)[0] == 7); // the instructions after both ran
}

TEST_CASE("mma.sync takes the sink `_` in d and immediates in c, as ptxas does") {
  // FlashInfer's row sums through the tensor core (mma.cuh, m16k16_rowsum: a B of ones, one column
  // of D kept): d = {%f1, _, %f2, _}, c = {%f3, 0., %f4, 0.}. With A and
  // B zero, D = C (PTX ISA, mma: D = A * B + C), so each kept d element is its c element, a
  // register's or an immediate's; the elements sent to `_` are written nowhere.
  const std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_out];
	mov.b32 %r1, 0;
	mov.f32 %f3, 0f40000000;
	mov.f32 %f4, 0fC0400000;
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, _, %f5}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {1.5, %f3, 0., %f4};
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f6, _, _, _}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {1.25, %f3, %f3, %f3};
	mov.u32 %r2, %tid.x;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra DONE;
	st.global.f32 [%rd1], %f1;
	st.global.f32 [%rd1+4], %f2;
	st.global.f32 [%rd1+8], %f5;
	st.global.f32 [%rd1+12], %f6;
DONE:
	ret;
}
)";
  const std::vector<std::uint32_t> got = run_words(ptx, 4, 32);
  CHECK(got[0] == 0x3FC00000); // 1.5: c's immediate
  CHECK(got[1] == 0x40000000); // 2.0: c's register %f3
  CHECK(got[2] == 0xC0400000); // -3.0: c's register %f4 (the third element went to `_`)
  CHECK(got[3] == 0x3FA00000); // 1.25: another immediate (ptxas takes decimal ones here)
}

TEST_CASE("ldmatrix takes the sink `_` for a matrix it does not keep, as ptxas does") {
  // FlashInfer's mma.cuh loads half of an .x4 with {%r1, _, %r2, _}. Lane t stores row t % 8 of
  // matrix t / 8, element (m, row, col) = m * 64 + row * 8 + col; lane 0 of ldmatrix gets row 0,
  // columns 0 and 1 of each matrix it keeps (PTX ISA, ldmatrix fragment layout).
  const std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<2>;
	.shared .align 16 .b8 s[512];
	ld.param.u64 %rd1, [k_out];
	mov.u32 %r10, %tid.x;
	shl.b32 %r4, %r10, 3;
	add.u32 %r5, %r4, 1;
	shl.b32 %r5, %r5, 16;
	or.b32 %r6, %r4, %r5;
	add.u32 %r7, %r6, 0x00020002;
	add.u32 %r8, %r7, 0x00020002;
	add.u32 %r9, %r8, 0x00020002;
	shl.b32 %r11, %r10, 4;
	mov.u32 %r12, s;
	add.u32 %r13, %r12, %r11;
	st.shared.v4.b32 [%r13], {%r6, %r7, %r8, %r9};
	bar.warp.sync -1;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, _, %r2, _}, [%r13];
	setp.ne.u32 %p1, %r10, 0;
	@%p1 bra DONE;
	st.global.u32 [%rd1], %r1;
	st.global.u32 [%rd1+4], %r2;
DONE:
	ret;
}
)";
  const std::vector<std::uint32_t> got = run_words(ptx, 2, 32);
  CHECK(got[0] == 0x00010000); // matrix 0: elements 0 and 1
  CHECK(got[1] == 0x00810080); // matrix 2 (the second kept): elements 128 and 129
}

} // namespace unit_sim_library_idioms
