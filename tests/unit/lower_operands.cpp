// The lowering's operand rules (emitter/lower/select_ops.cpp): guards (pred),
// src-size and ignore-src operand forms, constant pred/ignore-src kept as
// operands via mov.pred, cache policies (one register per exact policy), the
// u32 lowering of every expression operator, and the --unchecked diagnostic.
//
// Expected sequences are derived by hand (see lower_addresses.cpp for the
// address part, which is the same six instructions in most tests here).

#include "lower_harness.hpp"

#include <vector>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_lower_operands {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// S.sub[tid, c:c+16] and A.sub[tid, c:c+16] for c in 0, 16, 32, 48: the address part.
constexpr std::string_view kAddresses = "mov.u32 %r1, smem_S;\n"
                                        "mov.u32 %r2, %tid.x;\n"
                                        "mad.lo.u32 %r3, %r2, 64, %r1;\n"
                                        "ld.param.u64 %rd1, [arg_A];\n"
                                        "cvta.to.global.u64 %rd2, %rd1;\n"
                                        "mad.wide.u32 %rd3, %r2, 64, %rd2;\n";

constexpr std::string_view kCommitWaitText = "cp.async.commit_group;\n"
                                             "cp.async.wait_group 0;\n";

/// The 16 bytes at column `c` of this thread's row, both sides.
std::string row_apply(std::string_view opcode, int c, std::string_view extra) {
  const std::string cols = std::to_string(c) + ":" + std::to_string(c + 16);
  return apply(opcode, "S.sub[tid, " + cols + "]", "A.sub[tid, " + cols + "]", 16, extra);
}

/// kWarp plus a u32 parameter n in 0..32 and a u64 parameter pol.
std::string with_params() {
  return std::string(kWarp) + R"TOML(
[param.n]
dtype = "u32"
value = 16
range = [0, 32]

[param.pol]
dtype = "u64"
value = 0
)TOML";
}

} // namespace

TEST_CASE("pred: a guard predicate, computed once, negated for free, swapped when constant-first") {
  // tid < n: unsigned lo against n loaded once; !(tid < n) reuses %p1 as @!%p1;
  // 16 > tid swaps to tid lo 16; pred = false keeps the guard with mov.pred 0;
  // pred = true emits no guard at all.
  const std::string spec =
      with_params() + row_apply("cp.async.ca.shared.global", 0, "pred = \"tid < n\"\n") +
      row_apply("cp.async.ca.shared.global", 16, "pred = \"!(tid < n)\"\n") +
      row_apply("cp.async.ca.shared.global", 32, "pred = \"16 > tid\"\n") +
      row_apply("cp.async.ca.shared.global", 48, "pred = false\n") + std::string(kCommitWait) +
      row_apply("cp.async.ca.shared.global", 0, "pred = true\n") + std::string(kCommitWait);
  CHECK(body(spec) == std::string(kAddresses) +
                          "ld.param.u32 %r4, [arg_n];\n"
                          "setp.lo.u32 %p1, %r2, %r4;\n"
                          "@%p1 cp.async.ca.shared.global [%r3], [%rd3], 16;\n"
                          "@!%p1 cp.async.ca.shared.global [%r3+16], [%rd3+16], 16;\n"
                          "setp.lo.u32 %p2, %r2, 16;\n"
                          "@%p2 cp.async.ca.shared.global [%r3+32], [%rd3+32], 16;\n"
                          "mov.pred %p3, 0;\n"
                          "@%p3 cp.async.ca.shared.global [%r3+48], [%rd3+48], 16;\n" +
                          std::string(kCommitWaitText) +
                          "cp.async.ca.shared.global [%r3], [%rd3], 16;\n" +
                          std::string(kCommitWaitText) + "ret;\n");
}

TEST_CASE("src_size: an immediate when constant, a register (selp) when not, computed once") {
  const std::string spec =
      std::string(kWarp) + row_apply("cp.async.ca.shared.global", 0, "src_size = 8\n") +
      row_apply("cp.async.ca.shared.global", 16, "src_size = \"tid < 16 ? 16 : 0\"\n") +
      row_apply("cp.async.ca.shared.global", 32, "src_size = \"tid < 16 ? 16 : 0\"\n") +
      row_apply("cp.async.ca.shared.global", 48, "src_size = \"4 * 2\"\n") +
      std::string(kCommitWait);
  CHECK(body(spec) == std::string(kAddresses) +
                          "cp.async.ca.shared.global [%r3], [%rd3], 16, 8;\n"
                          "setp.lo.u32 %p1, %r2, 16;\n"
                          "selp.u32 %r4, 16, 0, %p1;\n"
                          "cp.async.ca.shared.global [%r3+16], [%rd3+16], 16, %r4;\n"
                          "cp.async.ca.shared.global [%r3+32], [%rd3+32], 16, %r4;\n"
                          "cp.async.ca.shared.global [%r3+48], [%rd3+48], 16, 8;\n" +
                          std::string(kCommitWaitText) + "ret;\n");
}

TEST_CASE("ignore_src: a predicate operand, negated in place; constants stay operands") {
  // true and false each get a mov.pred: ptxas rejects a literal there.
  const std::string spec =
      std::string(kWarp) +
      row_apply("cp.async.ca.shared.global", 0, "ignore_src = \"tid >= 16\"\n") +
      row_apply("cp.async.ca.shared.global", 16, "ignore_src = \"!(tid >= 16)\"\n") +
      row_apply("cp.async.ca.shared.global", 32, "ignore_src = true\n") +
      row_apply("cp.async.ca.shared.global", 48, "ignore_src = false\n") + std::string(kCommitWait);
  CHECK(body(spec) == std::string(kAddresses) +
                          "setp.hs.u32 %p1, %r2, 16;\n"
                          "cp.async.ca.shared.global [%r3], [%rd3], 16, %p1;\n"
                          "cp.async.ca.shared.global [%r3+16], [%rd3+16], 16, !%p1;\n"
                          "mov.pred %p2, 1;\n"
                          "cp.async.ca.shared.global [%r3+32], [%rd3+32], 16, %p2;\n"
                          "mov.pred %p3, 0;\n"
                          "cp.async.ca.shared.global [%r3+48], [%rd3+48], 16, %p3;\n" +
                          std::string(kCommitWaitText) + "ret;\n");
}

TEST_CASE("pred and ignore_src together: the operand first, then the guard") {
  const std::string spec = std::string(kWarp) +
                           row_apply("cp.async.ca.shared.global", 0,
                                     "ignore_src = \"tid >= 16\"\npred = \"tid != 3\"\n") +
                           std::string(kCommitWait);
  CHECK(body(spec) == std::string(kAddresses) +
                          "setp.hs.u32 %p1, %r2, 16;\n"
                          "setp.ne.u32 %p2, %r2, 3;\n"
                          "@%p2 cp.async.ca.shared.global [%r3], [%rd3], 16, %p1;\n" +
                          std::string(kCommitWaitText) + "ret;\n");
}

TEST_CASE("cache policies: one register per exact policy (the fraction by its bits)") {
  // 0.5 is 0f3F000000; 0.50000006 rounds to the next float, 0f3F000001, which
  // to_string(float) would print as 0.500000 too: it must get its own register.
  constexpr std::string_view hint = "cp.async.ca.shared.global.L2::cache_hint";
  const std::string spec =
      with_params() + row_apply(hint, 0, "cache_policy = \"param:pol\"\n") +
      row_apply(hint, 16, "cache_policy = \"param:pol\"\n") +
      row_apply(hint, 32, "cache_policy = { primary = \"evict_first\", fraction = 0.5 }\n") +
      row_apply(hint, 48, "cache_policy = { primary = \"evict_first\", fraction = 0.5 }\n") +
      std::string(kCommitWait) +
      row_apply(hint, 0, "cache_policy = { primary = \"evict_first\", fraction = 0.50000006 }\n") +
      row_apply(hint, 16, "cache_policy = { primary = \"evict_last\", fraction = 0.5 }\n") +
      row_apply(hint, 32,
                "cache_policy = { primary = \"evict_last\", secondary = \"evict_first\", "
                "fraction = 0.5 }\n") +
      std::string(kCommitWait);
  const std::string cp = "cp.async.ca.shared.global.L2::cache_hint ";
  CHECK(body(spec) == std::string(kAddresses) + "ld.param.u64 %rd4, [arg_pol];\n" + cp +
                          "[%r3], [%rd3], 16, %rd4;\n" + cp + "[%r3+16], [%rd3+16], 16, %rd4;\n" +
                          "createpolicy.fractional.L2::evict_first.b64 %rd5, 0f3F000000;\n" + cp +
                          "[%r3+32], [%rd3+32], 16, %rd5;\n" + cp +
                          "[%r3+48], [%rd3+48], 16, %rd5;\n" + std::string(kCommitWaitText) +
                          "createpolicy.fractional.L2::evict_first.b64 %rd6, 0f3F000001;\n" + cp +
                          "[%r3], [%rd3], 16, %rd6;\n" +
                          "createpolicy.fractional.L2::evict_last.b64 %rd7, 0f3F000000;\n" + cp +
                          "[%r3+16], [%rd3+16], 16, %rd7;\n" +
                          "createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %rd8, "
                          "0f3F000000;\n" +
                          cp + "[%r3+32], [%rd3+32], 16, %rd8;\n" + std::string(kCommitWaitText) +
                          "ret;\n");
}

namespace {

struct OperatorCase {
  const char* index;  ///< the row index of A (0..31 for every thread)
  const char* code;   ///< the instructions that compute it, after the address part
  const char* result; ///< the register holding it
};

} // namespace

TEST_CASE("every expression operator has its own u32 lowering (none falls back to add)") {
  // dst S.sub[tid, 0:16] (%r1..%r3), src A.sub[INDEX, 0:16]: INDEX is not linear,
  // so it is computed into a register after the base of A (%rd2) and multiplied in.
  // Non-commutative operators move an immediate first operand into a register;
  // commutative ones swap it second. Comparisons are unsigned (operands are proven
  // in 0..2^32-1); constant-first comparisons swap.
  const std::vector<OperatorCase> cases = {
      {"tid / 3", "div.u32 %r4, %r2, 3;\n", "%r4"},
      {"tid % 3", "rem.u32 %r4, %r2, 3;\n", "%r4"},
      {"tid >> 1", "shr.u32 %r4, %r2, 1;\n", "%r4"},
      {"tid & 7", "and.b32 %r4, %r2, 7;\n", "%r4"},
      {"7 & tid", "and.b32 %r4, %r2, 7;\n", "%r4"},
      {"tid | 1", "or.b32 %r4, %r2, 1;\n", "%r4"},
      {"tid * tid / 32", "mul.lo.u32 %r4, %r2, %r2;\ndiv.u32 %r5, %r4, 32;\n", "%r5"},
      {"1 << (tid & 3)", "and.b32 %r4, %r2, 3;\nmov.u32 %r5, 1;\nshl.b32 %r6, %r5, %r4;\n", "%r6"},
      {"31 / (tid + 1)", "add.u32 %r4, %r2, 1;\nmov.u32 %r5, 31;\ndiv.u32 %r6, %r5, %r4;\n", "%r6"},
      {"(31 - tid) / 2", "mov.u32 %r4, 31;\nsub.u32 %r5, %r4, %r2;\ndiv.u32 %r6, %r5, 2;\n", "%r6"},
      {"(-tid + 31) / 2", "sub.u32 %r4, 0, %r2;\nadd.u32 %r5, %r4, 31;\ndiv.u32 %r6, %r5, 2;\n",
       "%r6"},
      {"tid < 16", "setp.lo.u32 %p1, %r2, 16;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"tid <= 16", "setp.ls.u32 %p1, %r2, 16;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"tid > 16", "setp.hi.u32 %p1, %r2, 16;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"tid >= 16", "setp.hs.u32 %p1, %r2, 16;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"tid == 3", "setp.eq.u32 %p1, %r2, 3;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"tid != 3", "setp.ne.u32 %p1, %r2, 3;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"16 < tid", "setp.hi.u32 %p1, %r2, 16;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"16 > tid", "setp.lo.u32 %p1, %r2, 16;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"3 <= tid", "setp.hs.u32 %p1, %r2, 3;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"3 >= tid", "setp.ls.u32 %p1, %r2, 3;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"3 == tid", "setp.eq.u32 %p1, %r2, 3;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"3 != tid", "setp.ne.u32 %p1, %r2, 3;\nselp.u32 %r4, 1, 0, %p1;\n", "%r4"},
      {"!(tid < 16)", "setp.lo.u32 %p1, %r2, 16;\nselp.u32 %r4, 0, 1, %p1;\n", "%r4"},
      {"tid < 16 && tid > 3",
       "setp.lo.u32 %p1, %r2, 16;\nsetp.hi.u32 %p2, %r2, 3;\nand.pred %p3, %p1, %p2;\n"
       "selp.u32 %r4, 1, 0, %p3;\n",
       "%r4"},
      {"!(tid < 16) || tid == 3",
       "setp.lo.u32 %p1, %r2, 16;\nnot.pred %p2, %p1;\nsetp.eq.u32 %p3, %r2, 3;\n"
       "or.pred %p4, %p2, %p3;\nselp.u32 %r4, 1, 0, %p4;\n",
       "%r4"},
      {"tid < 16 ? tid : 31 - tid",
       "setp.lo.u32 %p1, %r2, 16;\nmov.u32 %r4, 31;\nsub.u32 %r5, %r4, %r2;\n"
       "selp.u32 %r6, %r2, %r5, %p1;\n",
       "%r6"},
      {"!(tid < 16) ? 1 : 2", "setp.lo.u32 %p1, %r2, 16;\nselp.u32 %r4, 2, 1, %p1;\n", "%r4"},
  };
  for (const auto& c : cases) {
    const std::string index = c.index;
    INFO("index: ", index);
    const std::string spec = std::string(kWarp) +
                             apply("cp.async.cg.shared.global", "S.sub[tid, 0:16]",
                                   std::string("A.sub[") + c.index + ", 0:16]", 16) +
                             std::string(kCommitWait);
    CHECK(body(spec) == "mov.u32 %r1, smem_S;\n"
                        "mov.u32 %r2, %tid.x;\n"
                        "mad.lo.u32 %r3, %r2, 64, %r1;\n"
                        "ld.param.u64 %rd1, [arg_A];\n"
                        "cvta.to.global.u64 %rd2, %rd1;\n" +
                            std::string(c.code) + "mad.wide.u32 %rd3, " + c.result +
                            ", 64, %rd2;\n"
                            "cp.async.cg.shared.global [%r3], [%rd3], 16;\n" +
                            std::string(kCommitWaitText) + "ret;\n");
  }
}

TEST_CASE("--unchecked PTX the validator rejects: one lower_ warning, the findings as notes") {
  // cp.async.cg copies 16 bytes only: with 8 the contract refuses the kernel,
  // and without it the PTX validator does.
  const std::string spec =
      std::string(kWarp) +
      apply("cp.async.cg.shared.global", "S.sub[tid, 0:8]", "A.sub[tid, 0:8]", 8) +
      std::string(kCommitWait);
  {
    auto checked = lower_text(spec);
    CHECK_FALSE(checked.value.has_value());
    CHECK(checked.diagnostics.has_errors());
    CHECK_FALSE(checked.diagnostics.has(DiagId::lower_unchecked_invalid_ptx));
  }
  lower::LowerOptions unchecked;
  unchecked.unchecked = true;
  auto r = lower_text(spec, unchecked);
  INFO(r.diagnostics.format_all());
  REQUIRE(r.value.has_value());
  CHECK_FALSE(r.diagnostics.has_errors());
  const auto& items = r.diagnostics.items();
  REQUIRE(items.size() >= 2);
  CHECK(items.front().id == DiagId::lower_unchecked_invalid_ptx);
  CHECK(items.front().severity == Severity::warning);
  CHECK(items.front().file == "lower_test.toml");
  for (std::size_t i = 1; i < items.size(); ++i) {
    CHECK(items[i].severity == Severity::note);
    CHECK(items[i].file == "lower_test.toml");
  }
}

TEST_CASE("PTX the validator rejects for the requested target is an error at the kernel") {
  // cp.async needs sm_80: the contract does not know the target, the validator does.
  const std::string spec =
      std::string(kWarp) + row_apply("cp.async.ca.shared.global", 0, "") + std::string(kCommitWait);
  lower::LowerOptions sm70;
  sm70.target = ptx::Target{70, false};
  auto r = lower_text(spec, sm70);
  CHECK_FALSE(r.value.has_value());
  REQUIRE(r.diagnostics.has_errors());
  CHECK_FALSE(r.diagnostics.has(DiagId::lower_unchecked_invalid_ptx));
  for (const auto& d : r.diagnostics.items())
    CHECK(d.file == "lower_test.toml");
}

} // namespace unit_lower_operands
