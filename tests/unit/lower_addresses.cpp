// The lowering's address rules (emitter/lower/select_addresses.cpp): constant folding into
// [reg+imm], warp/lane recombination into tid, negative coefficients, one mad
// per atom, per-thread bases and addresses computed once.
//
// Every expected sequence is derived by hand from the rule named in its test:
// registers are numbered in order of definition (%r for 32 bits, %rd for 64,
// %p for predicates); an address is the tensor's base (smem_S moved into a
// register, arg_A loaded and converted with cvta) plus one mad per atom of the
// view's linear form; what is constant goes into the immediate.

#include "lower_harness.hpp"

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_lower_addresses {

using namespace ptxgen;
using namespace ptxgen::lower_test;

TEST_CASE("constant offsets fold into [reg+imm]; the register holds only the thread part") {
  // S.sub[tid, 16:32] is smem_S + 64*tid + 16; A.sub[tid, 32:48] is arg_A + 64*tid + 32.
  const std::string spec =
      std::string(kWarp) +
      apply("cp.async.ca.shared.global", "S.sub[tid, 16:32]", "A.sub[tid, 32:48]", 16) +
      std::string(kCommitWait);
  CHECK(body(spec) == "mov.u32 %r1, smem_S;\n"
                      "mov.u32 %r2, %tid.x;\n"
                      "mad.lo.u32 %r3, %r2, 64, %r1;\n"
                      "ld.param.u64 %rd1, [arg_A];\n"
                      "cvta.to.global.u64 %rd2, %rd1;\n"
                      "mad.wide.u32 %rd3, %r2, 64, %rd2;\n"
                      "cp.async.ca.shared.global [%r3+16], [%rd3+32], 16;\n"
                      "cp.async.commit_group;\n"
                      "cp.async.wait_group 0;\n"
                      "ret;\n");
}

TEST_CASE("repeat coordinates share the address register and differ in the immediate only") {
  // Two 16-byte repeats: dst columns 32+16r, src columns 0+16r.
  const std::string spec =
      std::string(kWarp) +
      apply("cp.async.cg.shared.global", R"(S.sub[tid, 32:64].rearrange("(r v) -> r v", v=16))",
            R"(A.sub[tid, 0:32].rearrange("(r v) -> r v", v=16))", 16) +
      std::string(kCommitWait);
  CHECK(body(spec) == "mov.u32 %r1, smem_S;\n"
                      "mov.u32 %r2, %tid.x;\n"
                      "mad.lo.u32 %r3, %r2, 64, %r1;\n"
                      "ld.param.u64 %rd1, [arg_A];\n"
                      "cvta.to.global.u64 %rd2, %rd1;\n"
                      "mad.wide.u32 %rd3, %r2, 64, %rd2;\n"
                      "cp.async.cg.shared.global [%r3+32], [%rd3], 16; // repeat 0\n"
                      "cp.async.cg.shared.global [%r3+48], [%rd3+16], 16; // repeat 1\n"
                      "cp.async.commit_group;\n"
                      "cp.async.wait_group 0;\n"
                      "ret;\n");
}

namespace {

/// Two warps; rows of 16 bytes, one per thread, grouped (w, t) by `pattern`.
std::string cta_spec(std::string_view pattern) {
  std::string s = R"TOML([kernel]
name = "k"
block = 64

[tensor.A]
space = "global"
shape = [64, 16]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [64, 16]
dtype = "uint8"
)TOML";
  const std::string view = std::string(".rearrange(\"") + std::string(pattern) + "\", w=2, t=32)";
  return s + apply("cp.async.cg.shared.global", "S" + view, "A" + view, 16, "scope = \"cta\"\n") +
         std::string(kCommitWait);
}

} // namespace

TEST_CASE("a (warp, lane) pair with strides 32c and c becomes tid*c: no shr, no and") {
  // Row w*32 + t: warp stride 32*16, lane stride 16, so warp*512 + lane*16 = tid*16.
  CHECK(body(cta_spec("(w t) v -> w t v")) == "mov.u32 %r1, smem_S;\n"
                                              "mov.u32 %r2, %tid.x;\n"
                                              "mad.lo.u32 %r3, %r2, 16, %r1;\n"
                                              "ld.param.u64 %rd1, [arg_A];\n"
                                              "cvta.to.global.u64 %rd2, %rd1;\n"
                                              "mad.wide.u32 %rd3, %r2, 16, %rd2;\n"
                                              "cp.async.cg.shared.global [%r3], [%rd3], 16;\n"
                                              "cp.async.commit_group;\n"
                                              "cp.async.wait_group 0;\n"
                                              "ret;\n");
}

TEST_CASE("a (warp, lane) pair with other strides stays two atoms, each computed from tid") {
  // Row t*2 + w: warp stride 16, lane stride 32 (not 32 * 16): no recombination.
  // Atoms in their canonical order, lane before warp; lane = tid & 31, warp = tid >> 5.
  CHECK(body(cta_spec("(t w) v -> w t v")) == "mov.u32 %r1, smem_S;\n"
                                              "mov.u32 %r2, %tid.x;\n"
                                              "and.b32 %r3, %r2, 31;\n"
                                              "mad.lo.u32 %r4, %r3, 32, %r1;\n"
                                              "shr.u32 %r5, %r2, 5;\n"
                                              "mad.lo.u32 %r6, %r5, 16, %r4;\n"
                                              "ld.param.u64 %rd1, [arg_A];\n"
                                              "cvta.to.global.u64 %rd2, %rd1;\n"
                                              "mad.wide.u32 %rd3, %r3, 32, %rd2;\n"
                                              "mad.wide.u32 %rd4, %r5, 16, %rd3;\n"
                                              "cp.async.cg.shared.global [%r6], [%rd4], 16;\n"
                                              "cp.async.commit_group;\n"
                                              "cp.async.wait_group 0;\n"
                                              "ret;\n");
}

TEST_CASE("a negative coefficient puts the constant into the register: the true offset") {
  // S.sub[31 - tid, 0:16] = smem_S + 1984 - 64*tid; A.sub[31 - tid, 16:32] = arg_A + 2000 -
  // 64*tid. The 32-bit sum 1984 + tid * (2^32 - 64) is exactly 1984 - 64*tid (proven 0..1984),
  // zero-extended before the 64-bit add: no negative immediate, no wrapped mad.wide. The
  // shared side (32-bit, exact mod 2^32 either way) takes smem_S as the mad's addend, never
  // as an add operand: `add(symbol, x)` as a cache-hint cp.async's shared address is what
  // ptxas 13.0 miscompiles (ldgsts_unwritten_uniform, found by ptxgen fuzz, seed 1013).
  const std::string spec =
      std::string(kWarp) +
      apply("cp.async.cg.shared.global", "S.sub[31 - tid, 0:16]", "A.sub[31 - tid, 16:32]", 16) +
      std::string(kCommitWait);
  CHECK(body(spec) == "mov.u32 %r1, smem_S;\n"
                      "mov.u32 %r2, %tid.x;\n"
                      "mad.lo.u32 %r3, %r2, 4294967232, %r1;\n"
                      "add.u32 %r4, %r3, 1984;\n"
                      "ld.param.u64 %rd1, [arg_A];\n"
                      "cvta.to.global.u64 %rd2, %rd1;\n"
                      "mad.lo.u32 %r5, %r2, 4294967232, 2000;\n"
                      "cvt.u64.u32 %rd3, %r5;\n"
                      "add.s64 %rd4, %rd2, %rd3;\n"
                      "cp.async.cg.shared.global [%r4], [%rd4], 16;\n"
                      "cp.async.commit_group;\n"
                      "cp.async.wait_group 0;\n"
                      "ret;\n");
}

TEST_CASE("like terms merge: one mad per atom, atoms in canonical order (bid before tid)") {
  // tid + bid*16 + bid*16 rows of 16 bytes = bid*512 + tid*16: bid's two terms merge.
  const std::string spec = std::string(R"TOML([kernel]
name = "k"
grid = 2
block = 32

[tensor.A]
space = "global"
shape = [64, 16]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [32, 16]
dtype = "uint8"
)TOML") +
                           apply("cp.async.cg.shared.global", "S.sub[tid, :]",
                                 "A.sub[tid + bid * 16 + bid * 16, :]", 16) +
                           std::string(kCommitWait);
  CHECK(body(spec) == "mov.u32 %r1, smem_S;\n"
                      "mov.u32 %r2, %tid.x;\n"
                      "mad.lo.u32 %r3, %r2, 16, %r1;\n"
                      "ld.param.u64 %rd1, [arg_A];\n"
                      "cvta.to.global.u64 %rd2, %rd1;\n"
                      "mov.u32 %r4, %ctaid.x;\n"
                      "mad.wide.u32 %rd3, %r4, 512, %rd2;\n"
                      "mad.wide.u32 %rd4, %r2, 16, %rd3;\n"
                      "cp.async.cg.shared.global [%r3], [%rd4], 16;\n"
                      "cp.async.commit_group;\n"
                      "cp.async.wait_group 0;\n"
                      "ret;\n");
}

TEST_CASE("an address is computed once per tensor and linear form; bases and tid once") {
  // 1-2: the same form 64*tid (constants 0 and 16 fold): one register per tensor.
  // 3-4: 31 - tid with constants 1984 and 2000 in the register: two registers.
  // 5 (after a wait): 31 - tid + 0 again: the register of 3.
  const std::string spec =
      std::string(kWarp) +
      apply("cp.async.ca.shared.global", "S.sub[tid, 0:16]", "A.sub[tid, 0:16]", 16) +
      apply("cp.async.ca.shared.global", "S.sub[tid, 16:32]", "A.sub[tid, 16:32]", 16) +
      apply("cp.async.ca.shared.global", "S.sub[tid, 32:48]", "A.sub[31 - tid, 0:16]", 16) +
      apply("cp.async.ca.shared.global", "S.sub[tid, 48:64]", "A.sub[31 - tid, 16:32]", 16) +
      std::string(kCommitWait) +
      apply("cp.async.ca.shared.global", "S.sub[tid, 0:16]", "A.sub[31 - tid, 0:16]", 16) +
      std::string(kCommitWait);
  CHECK(body(spec) == "mov.u32 %r1, smem_S;\n"
                      "mov.u32 %r2, %tid.x;\n"
                      "mad.lo.u32 %r3, %r2, 64, %r1;\n"
                      "ld.param.u64 %rd1, [arg_A];\n"
                      "cvta.to.global.u64 %rd2, %rd1;\n"
                      "mad.wide.u32 %rd3, %r2, 64, %rd2;\n"
                      "cp.async.ca.shared.global [%r3], [%rd3], 16;\n"
                      "cp.async.ca.shared.global [%r3+16], [%rd3+16], 16;\n"
                      "mad.lo.u32 %r4, %r2, 4294967232, 1984;\n"
                      "cvt.u64.u32 %rd4, %r4;\n"
                      "add.s64 %rd5, %rd2, %rd4;\n"
                      "cp.async.ca.shared.global [%r3+32], [%rd5], 16;\n"
                      "mad.lo.u32 %r5, %r2, 4294967232, 2000;\n"
                      "cvt.u64.u32 %rd6, %r5;\n"
                      "add.s64 %rd7, %rd2, %rd6;\n"
                      "cp.async.ca.shared.global [%r3+48], [%rd7], 16;\n"
                      "cp.async.commit_group;\n"
                      "cp.async.wait_group 0;\n"
                      "cp.async.ca.shared.global [%r3], [%rd5], 16;\n"
                      "cp.async.commit_group;\n"
                      "cp.async.wait_group 0;\n"
                      "ret;\n");
}

} // namespace unit_lower_addresses
