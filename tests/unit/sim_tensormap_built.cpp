// Tensor maps built in memory (simulator.hpp, "Tensor maps built in memory"): Triton's device-side
// descriptors (tl.make_tensor_descriptor, Triton >= 3.4) zero 128 bytes of shared memory, set
// every field with tensormap.replace from lane 0, copy the map to global memory with the warp's
// tensormap.cp_fenceproxy and load through it. The kernel below is that sequence, as Triton
// writes it (no bar.warp.sync between lane 0's replaces and the warp's copy: the copy is
// .sync.aligned). Every expected word is worked out by hand from the tensor and the box (the
// PTX ISA's encodings: rank - 1, elemtype 2 = .u32, global_stride in bytes, ordinal 0 innermost);
// the kernel is accepted by `ptxas -arch=sm_90a`.

#include "driver/sim/simulator.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_tensormap_built {

using namespace ptxgen::sim;

namespace {

constexpr std::uint64_t tensor_at = 0x10000; // u32 t[4][8], t[r][c] = 8 r + c
constexpr std::uint64_t scratch_at = 0x20000;
constexpr std::uint64_t out_at = 0x30000;

/// 32 threads build a 2-D map of t (box 4 columns x 2 rows, `elemtype`) in shared bytes 0..127,
/// copy it to the scratch, load the box at {x, y} into shared byte 256 and store its 8 words.
std::string kernel(int x, int y, int elemtype) {
  return R"(.version 8.4
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 global_smem[];
.visible .entry k(.param .u64 k_t, .param .u64 k_scratch, .param .u64 k_out)
.reqntid 32
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [k_t];
	ld.param.u64 %rd2, [k_scratch];
	ld.param.u64 %rd3, [k_out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, global_smem;
	add.s32 %r4, %r3, %r2;
	mov.b32 %r5, 0;
	@%p1 st.shared.b32 [%r4], %r5;
	bar.warp.sync -1;
	setp.eq.u32 %p2, %r1, 0;
	cvt.u64.u32 %rd4, %r3;
	@%p2 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd4], %rd1;
	@%p2 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd4], 0x1;
	mov.b32 %r6, 4;
	@%p2 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd4], 0x0, %r6;
	mov.b32 %r7, 2;
	@%p2 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd4], 0x1, %r7;
	mov.b32 %r8, 8;
	@%p2 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd4], 0x0, %r8;
	@%p2 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd4], 0x1, %r6;
	mov.b64 %rd5, 32;
	@%p2 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%rd4], 0x0, %rd5;
	mov.b32 %r9, 1;
	@%p2 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd4], 0x0, %r9;
	@%p2 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd4], 0x1, %r9;
	@%p2 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%rd4], )" +
         std::to_string(elemtype) + R"(;
	@%p2 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%rd4], 0x0;
	@%p2 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%rd4], 0x0;
	@%p2 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%rd4], 0x0;
	@%p1 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [%rd4], 0x80;
	@%p1 fence.proxy.tensormap::generic.acquire.gpu [%rd2], 0x80;
	add.s32 %r10, %r3, 128;
	add.s32 %r11, %r3, 256;
	@%p2 mbarrier.init.shared::cta.b64 [%r10], 1;
	fence.mbarrier_init.release.cluster;
	bar.sync 0;
	mov.b32 %r12, )" +
         std::to_string(x) + R"(;
	mov.b32 %r13, )" +
         std::to_string(y) + R"(;
	@%p2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r10], 32;
	@%p2 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r11], [%rd2, {%r12, %r13}], [%r10];
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r10], 0;
	@!%p3 bra $wait;
	setp.lt.u32 %p1, %r1, 8;
	add.s32 %r14, %r11, %r2;
	@%p1 ld.shared.u32 %r15, [%r14];
	mul.wide.u32 %rd6, %r2, 1;
	add.s64 %rd7, %rd3, %rd6;
	@%p1 st.global.u32 [%rd7], %r15;
	ret;
}
)";
}

struct Result {
  SimResult run;
  std::vector<std::uint32_t> out;
};

Result run_box(int x, int y, int elemtype = 2) {
  std::vector<std::uint8_t> t(4 * 8 * 4), scratch(128, 0), out(8 * 4, 0xEE);
  for (std::uint32_t i = 0; i < 32; ++i)
    std::memcpy(t.data() + 4 * i, &i, 4);
  std::vector<GlobalBuffer> mem = {
      {tensor_at, &t, "t"}, {scratch_at, &scratch, "scratch"}, {out_at, &out, "out"}};
  Launch l;
  l.block_dim = {32, 1, 1};
  l.dynamic_shared_bytes = 512;
  l.params = {tensor_at, scratch_at, out_at};
  Result r{run(kernel(x, y, elemtype), "k", l, mem), std::vector<std::uint32_t>(8)};
  std::memcpy(r.out.data(), out.data(), out.size());
  return r;
}

} // namespace

TEST_CASE("a tensor map built in memory: Triton's zero bytes, replaces and warp copy") {
  SUBCASE("the box at column 4, row 1: t[1][4..7] then t[2][4..7]") {
    const Result r = run_box(4, 1);
    REQUIRE_MESSAGE(!r.run.fault, r.run.fault->message);
    CHECK(r.out == std::vector<std::uint32_t>{12, 13, 14, 15, 20, 21, 22, 23});
  }
  SUBCASE("the global dims bound it: column 4, row 3 reads t[3][4..7], row 4 is zero") {
    const Result r = run_box(4, 3);
    REQUIRE_MESSAGE(!r.run.fault, r.run.fault->message);
    CHECK(r.out == std::vector<std::uint32_t>{28, 29, 30, 31, 0, 0, 0, 0});
  }
  SUBCASE("column 8 lies past global_dim 0 (8 columns): the whole box is zero") {
    const Result r = run_box(8, 0);
    REQUIRE_MESSAGE(!r.run.fault, r.run.fault->message);
    CHECK(r.out == std::vector<std::uint32_t>(8, 0));
  }
  SUBCASE("an elemtype the simulator does not copy (13, a packed sub-byte type)") {
    const Result r = run_box(4, 1, 13);
    REQUIRE(r.run.fault);
    CHECK(r.run.fault->kind == FaultKind::unsupported);
  }
  SUBCASE("elemtype 7 (.f32): the same 4-byte elements") {
    const Result r = run_box(0, 0, 7);
    REQUIRE_MESSAGE(!r.run.fault, r.run.fault->message);
    CHECK(r.out == std::vector<std::uint32_t>{0, 1, 2, 3, 8, 9, 10, 11});
  }
  SUBCASE("elemtype 1 (.u16): a box row of 4 x 2 bytes, not the multiple of 16 a map needs") {
    const Result r = run_box(0, 0, 1);
    REQUIRE(r.run.fault);
    CHECK(r.run.fault->kind == FaultKind::undefined_behavior);
  }
}

} // namespace unit_sim_tensormap_built
