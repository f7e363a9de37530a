// Known ptxas miscompile signatures (driver/sass/traps.hpp) over SASS captured on
// the H200 (tests/data/sass/README.md): the ldgsts_unwritten_uniform trap is in
// nvcc's cutlass_hint -O3 code and in tests/traps/, and nowhere else.

#include "driver/sass/traps.hpp"
#include "sim_test_data.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sass_traps {

using namespace ptxgen::driver::sass;
using ptxgen::test::read_test_data;

namespace {

std::vector<TrapMatch> traps_in(const std::string& file) {
  return find_traps(parse_sass(read_test_data("sass", file)));
}

} // namespace

TEST_CASE("traps: flagged in nvcc's cutlass_hint -O3 SASS (cuobjdump and nvdisasm)") {
  for (const char* file :
       {"cutlass_hint.sm90.O3.sm_90.sass", "cutlass_hint.sm90.O3.sm_90.nvdisasm"}) {
    CAPTURE(file);
    auto t = traps_in(file);
    REQUIRE(t.size() == 1);
    CHECK(t[0].id == TrapId::ldgsts_unwritten_uniform);
    CHECK(t[0].function == "_Z12cutlass_hintPKjPj");
    CHECK(t[0].offset == 0x180);
    CHECK(t[0].instruction == "LDGSTS.E.BYPASS.128 [R9+UR0], desc[UR1][R2.64]");
    CHECK(t[0].why.find("UR0, UR1") != std::string::npos);
    auto d = describe(t[0]);
    CHECK(d.find("ldgsts_unwritten_uniform") != std::string::npos);
    CHECK(d.find("/*0180*/") != std::string::npos);
  }
}

TEST_CASE("traps: flagged in the regression entry tests/traps/ldgsts_unwritten_uniform.ptx") {
  auto t = traps_in("ldgsts_unwritten_uniform.sm_90.sass");
  REQUIRE(t.size() == 1);
  CHECK(t[0].function == "ldgsts_hint_trap");
  CHECK(t[0].line == 55);
}

TEST_CASE("traps: not flagged where the registers are written") {
  // nvcc -G of the same source: `LDGSTS [R6], desc[UR4]` after `ULDC.64 UR4`.
  CHECK(traps_in("cutlass_hint.sm90.G.sm_90.sass").empty());
  // The regression entry without the hint.
  CHECK(traps_in("ldgsts_unwritten_uniform.nohint.sm_90.sass").empty());
  // ptxgen's own cache-hint specs for sm_90.
  for (const char* file :
       {"cache_hint__createpolicy_evict_last.sm_90.sass",
        "cache_hint__createpolicy_ignore_src.sm_90.sass",
        "cache_hint__createpolicy_table.sm_90.sass", "cache_hint__param_table_src_size.sm_90.sass",
        "cache_hint__u64_param.sm_90.sass", "adversarial__ignore_src_policy_pred.sm_90.sass"}) {
    CAPTURE(file);
    auto l = parse_sass(read_test_data("sass", file));
    REQUIRE(l.functions.size() == 1);
    // Each has at least one LDGSTS (the check is not vacuous).
    bool ldgsts = false;
    for (const auto& in : l.functions[0].instructions)
      ldgsts = ldgsts || in.mnemonic == "LDGSTS";
    CHECK(ldgsts);
    CHECK(find_traps(l).empty());
  }
}

TEST_CASE("traps: the signature on small listings") {
  const char* head = "Function : k\n";
  SUBCASE("a descriptor register written nowhere") {
    auto t =
        find_traps(parse_sass(std::string(head) + " /*0000*/ ULDC.64 UR4, c[0x0][0x208] ;\n"
                                                  " /*0010*/ LDGSTS.E [R7], desc[UR6][R2.64] ;\n"));
    REQUIRE(t.size() == 1);
    CHECK(t[0].why == "UR6 is never written in the function");
  }
  SUBCASE("written after the copy still counts as written (the signature is flow-insensitive)") {
    CHECK(find_traps(parse_sass(std::string(head) +
                                " /*0000*/ LDGSTS.E [R7+UR8], desc[UR4][R2.64] ;\n"
                                " /*0010*/ ULDC.64 UR4, c[0x0][0x208] ;\n"
                                " /*0020*/ S2UR UR8, SR_CgaCtaId ;\n"))
              .empty());
  }
  SUBCASE("a register written in another function does not count") {
    auto t = find_traps(parse_sass("Function : a\n /*0000*/ ULDC.64 UR4, c[0x0][0x208] ;\n"
                                   "Function : b\n /*0000*/ LDGSTS.E [R7], desc[UR4][R2.64] ;\n"));
    REQUIRE(t.size() == 1);
    CHECK(t[0].function == "b");
  }
  SUBCASE("URZ and a read of the register elsewhere are not writes; other opcodes are not LDGSTS") {
    CHECK(find_traps(parse_sass(std::string(head) + " /*0000*/ LDGSTS.E [R7+URZ], desc[UR4] ;\n"
                                                    " /*0010*/ ULDC.64 UR4, c[0x0][0x208] ;\n"))
              .empty());
    CHECK(find_traps(parse_sass(std::string(head) + " /*0000*/ STG.E desc[UR4][R2.64], R5 ;\n"))
              .empty());
    CHECK(
        find_traps(parse_sass(std::string(head) + " /*0000*/ UMOV UR5, UR4 ;\n"
                                                  " /*0010*/ LDGSTS.E [R7], desc[UR4][R2.64] ;\n"))
            .size() == 1);
  }
}

TEST_CASE("traps: the table") {
  REQUIRE(signatures().size() == 1);
  for (const auto& s : signatures()) {
    CHECK(&signature(s.id) == &s);
    CHECK_FALSE(name(s.id).empty());
    CHECK_FALSE(s.description.empty());
    CHECK(s.references.size() >= 1);
  }
}

} // namespace unit_sass_traps
