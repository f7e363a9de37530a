// The SASS parser (driver/sass/listing.hpp) over SASS captured on the H200 by
// cuobjdump and nvdisasm (tests/data/sass/README.md) and over odd lines.

#include "driver/sass/listing.hpp"
#include "sim_test_data.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sass_parse {

using namespace ptxgen::driver::sass;
using ptxgen::test::read_test_data;

namespace {

const Instruction* find_mnemonic(const Function& f, const std::string& mnemonic) {
  for (const auto& in : f.instructions)
    if (in.mnemonic == mnemonic)
      return &in;
  return nullptr;
}

bool writes(const Function& f, unsigned n) {
  return std::any_of(f.instructions.begin(), f.instructions.end(), [&](const Instruction& in) {
    return std::find(in.uniform_written.begin(), in.uniform_written.end(), n) !=
           in.uniform_written.end();
  });
}

} // namespace

TEST_CASE("sass: cuobjdump listing of nvcc's cutlass_hint -O3 for sm_90") {
  auto l = parse_sass(read_test_data("sass", "cutlass_hint.sm90.O3.sm_90.sass"));
  REQUIRE(l.functions.size() == 1);
  const auto& f = l.functions[0];
  CHECK(f.name == "_Z12cutlass_hintPKjPj");
  // 0x0000 .. 0x02f0, one instruction each 16 bytes (the encoding lines are not instructions).
  CHECK(f.instructions.size() == 48);
  CHECK(f.instructions.front().text == "LDC R1, c[0x0][0x28]");
  CHECK(f.instructions.back().mnemonic == "NOP");
  const auto* ld = find_mnemonic(f, "LDGSTS");
  REQUIRE(ld != nullptr);
  CHECK(ld->offset == 0x180);
  CHECK(ld->modifiers == std::vector<std::string>{"E", "BYPASS", "128"});
  CHECK(ld->operands == std::vector<std::string>{"[R9+UR0]", "desc[UR1][R2.64]"});
  CHECK(ld->uniform_read == std::vector<unsigned>{0, 1});
  CHECK(ld->uniform_written.empty());
  // The line is the file's: the LDGSTS is on line 55 of the captured text.
  CHECK(ld->line == 55);
  // ULDC.64 UR4 writes the pair UR4, UR5; S2UR UR6 writes UR6; nothing writes UR0/UR1.
  CHECK(writes(f, 4));
  CHECK(writes(f, 5));
  CHECK(writes(f, 6));
  CHECK_FALSE(writes(f, 0));
  CHECK_FALSE(writes(f, 1));
  const auto* lds = find_mnemonic(f, "LDS");
  REQUIRE(lds != nullptr);
  CHECK(lds->guard == "@!PT");
}

TEST_CASE("sass: nvdisasm listing of the same cubin gives the same instructions") {
  auto c = parse_sass(read_test_data("sass", "cutlass_hint.sm90.O3.sm_90.sass"));
  auto n = parse_sass(read_test_data("sass", "cutlass_hint.sm90.O3.sm_90.nvdisasm"));
  REQUIRE(n.functions.size() == 1);
  CHECK(n.functions[0].name == c.functions[0].name);
  // nvdisasm prints the same code; the data sections before it (.byte lines with
  // addresses) are not instructions of any function.
  const auto& a = c.functions[0].instructions;
  const auto& b = n.functions[0].instructions;
  REQUIRE(b.size() >= 30);
  for (std::size_t i = 0; i < 30; ++i) {
    CHECK(a[i].offset == b[i].offset);
    CHECK(a[i].mnemonic == b[i].mnemonic);
    CHECK(a[i].operands == b[i].operands);
  }
}

TEST_CASE("sass: odd lines") {
  SUBCASE("no function: nothing") {
    CHECK(parse_sass("").functions.empty());
    CHECK(parse_sass("        /*0000*/   LDC R1, c[0x0][0x28] ;\n").functions.empty());
    CHECK(parse_sass("garbage\n\n\x01\x02 ;;\n").functions.empty());
  }
  SUBCASE("encoding lines, labels, directives, CRLF and a missing ';' are skipped") {
    auto l = parse_sass("\t\tFunction : k\r\n"
                        "        /*0000*/  UMOV UR4, 0x400 ;  /* 0x0000040000047882 */\r\n"
                        "                                     /* 0x000fe20000000000 */\r\n"
                        ".L_x_0:\n"
                        "        /*0010*/ \t.byte 0x00, 0x01\n"
                        "        /*0020*/  BRA 0x20;\n"
                        "        /*0030*/  EXIT\n"
                        "        /*zz*/  EXIT ;\n"
                        "        /**/  EXIT ;\n");
    REQUIRE(l.functions.size() == 1);
    const auto& ins = l.functions[0].instructions;
    REQUIRE(ins.size() == 2);
    CHECK(ins[0].mnemonic == "UMOV");
    CHECK(ins[0].line == 2);
    CHECK(ins[1].text == "BRA 0x20");
    CHECK(ins[1].operands == std::vector<std::string>{"0x20"});
  }
  SUBCASE("a trailer ends the function; a second header opens another") {
    auto l = parse_sass("Function : a\n /*0000*/ EXIT ;\n\t\t..........\n /*0010*/ EXIT ;\n"
                        "Function : b\n /*0000*/ NOP ;\n");
    REQUIRE(l.functions.size() == 2);
    CHECK(l.functions[0].instructions.size() == 1);
    CHECK(l.functions[1].name == "b");
    CHECK(l.functions[1].instructions.size() == 1);
  }
}

TEST_CASE("sass: instructions and uniform registers") {
  auto in =
      parse_instruction("@!P0 LDGSTS.E.BYPASS.128.ZFILL [R7+UR12+0x10], desc[UR4][R2.64], P0 ;");
  REQUIRE(in);
  CHECK(in->guard == "@!P0");
  CHECK(in->mnemonic == "LDGSTS");
  CHECK(in->operands.size() == 3);
  CHECK(in->uniform_read == std::vector<unsigned>{12, 4});
  CHECK(in->uniform_written.empty());

  auto uldc = parse_instruction("ULDC.64 UR62, c[0x0][0x208] ;");
  REQUIRE(uldc);
  CHECK(uldc->uniform_written == std::vector<unsigned>{62, 63});
  auto wide = parse_instruction("UIMAD.WIDE.U32 UR8, UR4, 0x4, URZ ;");
  REQUIRE(wide);
  CHECK(wide->uniform_written == std::vector<unsigned>{8, 9});
  CHECK(wide->uniform_read == std::vector<unsigned>{4});
  auto four = parse_instruction("ULDC.128 UR8, c[0x0][0x210] ;");
  REQUIRE(four);
  CHECK(four->uniform_written == std::vector<unsigned>{8, 9, 10, 11});
  // A first operand in brackets is an address, not a destination.
  auto arrive = parse_instruction("ARRIVES.LDGSTSBAR.64.TRANSCNT [UR7] ;");
  REQUIRE(arrive);
  CHECK(arrive->uniform_written.empty());
  CHECK(arrive->uniform_read == std::vector<unsigned>{7});
  // URZ, uniform predicates and names that merely contain "UR" are no registers.
  CHECK(uniform_registers("URZ").empty());
  CHECK(uniform_registers("UPT").empty());
  CHECK(uniform_registers("!UP0").empty());
  CHECK(uniform_registers("SR_CgaCtaId").empty());
  CHECK(uniform_registers("XUR4").empty());
  CHECK(uniform_registers("UR4X").empty());
  CHECK(uniform_registers("[R1+UR10+-0x8]") == std::vector<unsigned>{10});
  CHECK(uniform_registers("UR").empty());
  CHECK_FALSE(parse_instruction(".byte 0x01 ;"));
  CHECK_FALSE(parse_instruction("@P0"));
  CHECK_FALSE(parse_instruction(""));
}

} // namespace unit_sass_parse
