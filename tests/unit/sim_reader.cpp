// The simulator's reader on what ptxas accepts: `d|p` destinations, block-scoped labels and
// registers, the cluster and occupancy directives, `.global` / `.const` with initialisers at
// module and function scope, ld.param through a register, and .funcs run as entries. The PTX
// of tests/data/sim_reader/ is assembled by ptxas (tests/sim.cmake: ptxas.sim_reader_input.*).

#include "driver/sim/ir.hpp"
#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_sim_reader {

using namespace ptxgen::sim;
using ptxgen::DiagId;

namespace {

constexpr std::uint64_t out_base = 0x100000;

std::uint32_t word(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

/// `.version 8.0 .target sm_90a` and `body`.
std::string with_header(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n" + body;
}

} // namespace

TEST_CASE("reader: CUTLASS's and nvcc's constructs parse and run as the ISA says") {
  auto prog = Program::parse(ptxgen::test::read_test_data("sim_reader", "constructs.ptx"));
  REQUIRE_MESSAGE(prog, prog.diagnostics.format_all());
  CHECK_FALSE(prog.diagnostics.has_errors());
  REQUIRE(prog->entries() == std::vector<std::string>{"k", "parses"});
  const ir::Entry* k = prog->find("k");
  REQUIRE(k != nullptr);
  CHECK(k->problems.empty());
  CHECK(k->maxntid == std::array<std::uint32_t, 3>{64, 1, 1});
  CHECK(k->reqnctapercluster == std::array<std::uint32_t, 3>{2, 1, 1});
  CHECK(k->explicitcluster);
  CHECK(k->minnctapersm == 1u);
  CHECK_FALSE(k->maxclusterrank.has_value());
  const ir::Entry* parses = prog->find("parses");
  REQUIRE(parses != nullptr);
  CHECK(parses->maxclusterrank == 8u);
  CHECK_FALSE(parses->explicitcluster);
  // elect, bar.red, mapa and the multicast copy: accepted; what the simulator does not run of
  // them is an unsupported op at its line, never a problem of the entry.
  for (const auto& d : parses->problems)
    FAIL_CHECK(d.line << ": " << d.message);

  std::vector<std::uint8_t> out(64 * 32, 0xEE);
  std::vector<GlobalBuffer> mem = {{out_base, &out, "out"}};
  Launch l;
  l.grid_dim = {2, 1, 1};
  l.block_dim = {64, 1, 1};
  l.params = {out_base, 11, 0xBEEF};
  SimResult r = run(*prog, "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  float scale0 = 1.5f;
  std::uint32_t scale_bits = 0;
  std::memcpy(&scale_bits, &scale0, sizeof scale_bits);
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    const std::size_t at = 32 * t;
    CHECK(word(out, at) == 0xBEEF);                     // b, at a's address + 4
    const bool in_range = t % 32 != 31;                 // down by 1 within the warp
    CHECK(word(out, at + 4) == (in_range ? t + 1 : t)); // a lane out of range: its own
    CHECK(word(out, at + 8) == (in_range ? 1u : 0u));   // the |p
    CHECK(word(out, at + 12) == 6);                     // two loops of 3
    CHECK(word(out, at + 16) == 8);                     // local_table[1]
    CHECK(word(out, at + 20) == 0x10);                  // table[3]
    CHECK(word(out, at + 24) == scale_bits);            // 1.5f
    CHECK(word(out, at + 28) == 3);                     // grid2[1][0]
  }
}

TEST_CASE("reader: labels are scoped to their block; twice in one block is an error") {
  const std::string body = ".visible .entry k(.param .u64 out)\n{\n" // 4-5
                           " .reg .pred %p<2>;\n .reg .b32 %r<4>;\n" // 6-7
                           " mov.u32 %r1, 0;\n"                      // 8
                           "OUTER:\n"                                // 9
                           " add.u32 %r1, %r1, 1;\n"                 // 10
                           " {\n"                                    // 11
                           "  setp.lt.u32 %p1, %r1, 4;\n"            // 12
                           "  @%p1 bra OUTER;\n"                     // 13: an enclosing label
                           " }\n"                                    // 14
                           " ret;\n}\n";
  auto ok = Program::parse(with_header(body));
  REQUIRE_MESSAGE(ok, ok.diagnostics.format_all());
  CHECK(ok->find("k")->problems.empty());

  const std::string twice = ".visible .entry k(.param .u64 out)\n{\n" // 4-5
                            " .reg .b32 %r<4>;\n"                     // 6
                            "L:\n"                                    // 7
                            " mov.u32 %r1, 0;\n"                      // 8
                            "L:\n"                                    // 9
                            " bra L;\n ret;\n}\n";
  auto bad = Program::parse(with_header(twice));
  REQUIRE_FALSE(bad);
  bool found = false;
  for (const auto& d : bad.diagnostics.items()) {
    if (d.id == DiagId::sim_redeclared && d.line == 9 && d.column == 1)
      found = true;
  }
  CHECK_MESSAGE(found, bad.diagnostics.format_all());
}

TEST_CASE("reader: ld.param through a register address is bounded by the parameter space") {
  const std::string body = ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n" // 4-5
                           " .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n"                // 6-7
                           " mov.b64 %rd1, n;\n"                                    // 8
                           " ld.param.u32 %r1, [%rd1+4];\n"                         // 9: past n
                           " ret;\n}\n";
  auto prog = Program::parse(with_header(body));
  REQUIRE_MESSAGE(prog, prog.diagnostics.format_all());
  std::vector<std::uint8_t> out(16);
  std::vector<GlobalBuffer> mem = {{out_base, &out, "out"}};
  Launch l;
  l.params = {out_base, 5};
  SimResult r = run(*prog, "k", l, mem);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::illegal_address);
  CHECK(r.fault->ptx_line == 9);
}

TEST_CASE(
    "reader: a .func that returns nothing runs as an entry; its parameters are the launch's") {
  const std::string text =
      with_header(".visible .entry real(.param .u64 out)\n{\n ret;\n}\n"  // 4-7
                  ".visible .func f(.param .u64 out, .param .u32 v)\n{\n" // 8-9
                  " .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n"               // 10-11
                  " ld.param.u64 %rd1, [out];\n ld.param.u32 %r1, [v];\n" // 12-13
                  " mov.u32 %r2, %tid.x;\n mul.wide.u32 %rd2, %r2, 4;\n"  // 14-15
                  " add.s64 %rd3, %rd1, %rd2;\n add.u32 %r3, %r1, %r2;\n" // 16-17
                  " st.global.u32 [%rd3], %r3;\n ret;\n}\n"               // 18-20
                  ".func (.param .b32 r) g(.param .b32 a)\n{\n st.param.b32 [r], 1;\n ret;\n}\n");
  auto prog = Program::parse(text);
  REQUIRE_MESSAGE(prog, prog.diagnostics.format_all());
  CHECK(prog->entries() == std::vector<std::string>{"real"});
  CHECK(prog->functions() == std::vector<std::string>{"f"}); // g returns a value
  REQUIRE(prog->find("f") != nullptr);
  CHECK(prog->find("f")->from_func);
  CHECK(prog->find("g") == nullptr);
  std::vector<std::uint8_t> out(4 * 32, 0);
  std::vector<GlobalBuffer> mem = {{out_base, &out, "out"}};
  Launch l;
  l.block_dim = {32, 1, 1};
  l.params = {out_base, 100};
  SimResult r = run(*prog, "f", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 32; ++t)
    CHECK(word(out, 4 * t) == 100 + t);
}

TEST_CASE("reader: an initialiser the simulator cannot hold is unsupported where it is used") {
  const std::string body = ".global .align 4 .u32 table[2] = {1, 2};\n"              // 4
                           ".visible .entry k(.param .u64 out)\n{\n"                 // 5-6
                           " .reg .b64 %rd<4>;\n"                                    // 7
                           " .global .align 8 .u64 ptrs[2] = {generic(table), 0};\n" // 8
                           " ld.param.u64 %rd1, [out];\n"                            // 9
                           " ld.global.u64 %rd2, [ptrs];\n"                          // 10
                           " ret;\n}\n"                                              // 11-12
                           ".visible .entry other(.param .u64 out)\n{\n ret;\n}\n";
  auto prog = Program::parse(with_header(body));
  REQUIRE_MESSAGE(prog, prog.diagnostics.format_all());
  CHECK_FALSE(prog.diagnostics.has_errors()); // one line, not the declaration's braces after it
  CHECK(prog->find("k")->problems.empty());
  const auto lines = prog->unsupported("k");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].line == 10);
  std::vector<std::uint8_t> out(16);
  std::vector<GlobalBuffer> mem = {{out_base, &out, "out"}};
  Launch l;
  l.params = {out_base};
  SimResult r = run(*prog, "k", l, mem);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::unsupported);
  CHECK(r.fault->ptx_line == 10);
  CHECK_FALSE(run(*prog, "other", l, mem).fault.has_value());
}

} // namespace unit_sim_reader
